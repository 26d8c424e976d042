"""Out-of-memory in the middle of a computation: one clear error naming the step.

Every operation method of :class:`Matrix` and :class:`Vector` (``mxv``,
``vxm``, ``mxm``, ``mxm_reduce``, ``ewise_*``, ``apply``, ``select``, ``reduce*``, ``assign``,
``extract``, ``transpose``, ``kronecker``) and every constructor or conversion
that allocates (``from_*``, ``dup``, ``to``, ``to_dense``, ``to_coo``...) is
wrapped so that an allocation
failure anywhere inside it -- NumPy's ``MemoryError``, CuPy's
``OutOfMemoryError`` (a ``MemoryError``) or the backend's own
:class:`OutOfMemory` -- surfaces as one :class:`OutOfMemory` whose message
starts with the step (``"Vector.vxm (1 x 65536 times 65536 x 65536)"``).  An
algorithm that runs out of memory therefore names the framework call that
failed.  Operations compute their whole result before writing it (the output
rule), so a failed step leaves its inputs and its ``out`` unchanged.
"""
import functools
import inspect

from .errors import OutOfMemory

_NAMES = ("mxv", "vxm", "mxm", "mxm_reduce", "ewise_add", "ewise_mult", "ewise_union", "apply", "select",
          "reduce", "reduce_rowwise", "reduce_columnwise", "reduce_scalar", "assign",
          "extract", "transpose", "kronecker",
          # constructors and conversions that allocate
          "from_coo", "from_csr", "from_dense", "from_diag", "from_scipy", "dup", "to", "to_dense",
          "to_coo", "to_scipy", "to_dense_form", "to_sparse_form", "resize",
          # a property that allocates: the lazily built transpose
          "T")


def _shape(x):
    s = getattr(x, "shape", None)
    if not isinstance(s, tuple) or len(s) not in (1, 2):
        return None
    return " x ".join(str(d) for d in (s if len(s) == 2 else (1, s[0])))


def _step(cls, name, self, args):
    shapes = [_shape(self)] + [_shape(a) for a in args[:1]]
    where = " times ".join(s for s in shapes if s)
    return f"{cls}.{name} ({where})" if where else f"{cls}.{name}"


def _named(e, cls_name, name, self, args):
    """The :class:`OutOfMemory` that names the step for the MemoryError
    ``e`` raised inside ``cls_name.name`` (``args``: its positional
    arguments after ``self``), or None when an inner step already named it."""
    if getattr(e, "_gb_step", None):      # already named by an inner step
        return None
    step = _step(cls_name, name, self, args)
    err = OutOfMemory(f"{step}: out of memory: {e} (the inputs and out are unchanged; "
                      "free memory, use smaller inputs or another device)")
    err._gb_step = step
    return err


def _wrap(cls_name, name, f):
    op = _wrap_exact(cls_name, name, f)
    if op is None:
        @functools.wraps(f)
        def op(self, *args, **kw):
            try:
                return f(self, *args, **kw)
            except MemoryError as e:
                err = _named(e, cls_name, name, self, args)
                if err is None:
                    raise
                raise err from e
    op._gb_oom_wrapped = True
    return op


def _wrap_exact(cls_name, name, f):
    """The wrapper with ``f``'s own parameters (same names, kinds and
    defaults), forwarding them by name instead of packing them into
    ``*args, **kw`` (a call of an operation in an algorithm's loop: ~0.1
    against ~0.4 us); None for a function with ``*args``, ``**kw`` or
    positional-only parameters (the packing wrapper serves)."""
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        return None
    P = inspect.Parameter
    if not params or any(p.kind not in (P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY)
                         for p in params):
        return None
    names = [p.name for p in params]
    if any(not n.isidentifier() or n in ("_f", "_named", "_MemoryError", "e", "err")
           for n in names):
        return None
    pos = [p.name for p in params if p.kind == P.POSITIONAL_OR_KEYWORD]
    kwo = [p.name for p in params if p.kind == P.KEYWORD_ONLY]
    head = ", ".join(pos) + (", *, " + ", ".join(kwo) if kwo else "")
    call = ", ".join(pos + [f"{k}={k}" for k in kwo])
    first = f"({pos[1]},)" if len(pos) > 1 else "()"
    src = (f"def op({head}):\n"
           f"    try:\n"
           f"        return _f({call})\n"
           f"    except _MemoryError as e:\n"
           f"        err = _named(e, {cls_name!r}, {name!r}, {pos[0]}, {first})\n"
           f"        if err is None:\n"
           f"            raise\n"
           f"        raise err from e\n")
    ns = {"_f": f, "_named": _named, "_MemoryError": MemoryError}
    exec(src, ns)
    op = ns["op"]
    op.__defaults__ = f.__defaults__
    op.__kwdefaults__ = f.__kwdefaults__
    functools.update_wrapper(op, f)
    # argument errors raised by the wrapper name the public method, as f's do
    op.__code__ = op.__code__.replace(co_name=f.__code__.co_name,
                                      **({"co_qualname": f.__code__.co_qualname}
                                         if hasattr(f.__code__, "co_qualname") else {}))
    return op


def install(*classes):
    """Wrap the operation, constructor and conversion methods of ``classes``
    (idempotent)."""
    for cls in classes:
        for name in _NAMES:
            f = cls.__dict__.get(name)
            if isinstance(f, property):          # A.T builds the transpose lazily
                if f.fget is not None and not getattr(f.fget, "_gb_oom_wrapped", False):
                    setattr(cls, name, property(_wrap(cls.__name__, name, f.fget), f.fset,
                                                f.fdel, f.__doc__))
            elif isinstance(f, classmethod):
                if not getattr(f.__func__, "_gb_oom_wrapped", False):
                    setattr(cls, name, classmethod(_wrap(cls.__name__, name, f.__func__)))
            elif callable(f) and not getattr(f, "_gb_oom_wrapped", False):
                setattr(cls, name, _wrap(cls.__name__, name, f))
