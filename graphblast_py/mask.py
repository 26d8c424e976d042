"""Masks: ``x.S`` (structure: where x has an entry), ``x.V`` (value: where x
has an entry that is truthy, i.e. nonzero/True) and their complements ``~m``.

A mask never holds data of its own; it is evaluated by the operation that
takes it, either as a dense boolean array over the output (vectors) or as a
sorted key set plus a complement flag (matrices and sparse vectors).
"""
from .errors import DimensionMismatch, InvalidValue


class Mask:
    """A view of ``parent`` as a mask: an operation reads the parent's
    content at the time of the call.  The evaluated dense form is cached on
    the instance together with the parent's content stamp (``Vector._ver``,
    new on every store), so a mask object kept and passed again after its
    parent changed is evaluated again; a parent without a stamp is evaluated
    at every use."""

    __slots__ = ("parent", "structure", "complement", "_dense", "_dense_ver")

    def __init__(self, parent, structure, complement=False):
        self.parent, self.structure, self.complement = parent, structure, complement
        self._dense = self._dense_ver = None

    def __invert__(self):
        return Mask(self.parent, self.structure, not self.complement)

    def __repr__(self):
        kind = "S" if self.structure else "V"
        return f"{'~' if self.complement else ''}{type(self.parent).__name__}.{kind}"

    def __bool__(self):
        raise InvalidValue("a mask has no truth value; pass it as mask=... to an operation")

    # -------- evaluation (used by operations/output rule)
    def keys(self):
        """Sorted keys where the mask's parent 'is set' (stored, or stored and
        truthy for a value mask); the caller applies ``complement``."""
        return self.parent._mask_keys(self.structure)

    def dense_parts(self):
        """``(array, complement)``: a dense bool array over the parent's
        positions and whether the mask is its complement -- for kernels that
        test ``array[i] != complement`` themselves, so no complemented copy is
        made.  The array is lent (``Vector._lend``): the kernel reads it during
        the call and keeps it nowhere, so the parent keeps its arrays as its
        own and may write them in place at its next store (a BFS level
        update after ``~levels.S`` was the pull's mask)."""
        d = self._current()
        if d is not None:
            return d, False
        return self.parent._mask_dense(self.structure, lend=True), self.complement

    def dense(self):
        """Dense bool array over the parent's positions, complement applied
        (vectors only).  It is cached here and the caller may keep it (the
        output rule may store it as a presence array), so an uncomplemented
        structural mask -- the parent's presence array itself -- is handed
        out (the parent no longer writes it in place); a complement is a new
        array, computed from a lent one."""
        d = self._current()
        if d is None:
            allowed = self.parent._mask_dense(self.structure, lend=self.complement)
            d = self._dense = ~allowed if self.complement else allowed
            self._dense_ver = getattr(self.parent, "_ver", None)
        return d

    def _current(self):
        """The cached dense form if the parent has not changed since."""
        if self._dense is not None and self._dense_ver is not None \
                and self._dense_ver == getattr(self.parent, "_ver", None):
            return self._dense
        return None


def check_mask(mask, shape, what):
    """Validate a mask argument against an output shape."""
    if mask is None:
        return None
    if not isinstance(mask, Mask):
        from .matrix import Matrix
        from .vector import Vector
        if isinstance(mask, (Matrix, Vector)):
            raise InvalidValue(f"{what}: pass a mask as x.S (structure) or x.V (values), not "
                               f"the {type(mask).__name__} itself")
        raise InvalidValue(f"{what}: mask must be x.S, x.V or ~x.S/~x.V, got "
                           f"{type(mask).__name__}")
    if mask.parent.shape != shape:
        raise DimensionMismatch(f"{what}: mask has shape {mask.parent.shape} but the output has "
                                f"shape {shape}")
    return mask
