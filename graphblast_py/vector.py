"""Vector: a sparse or dense 1-D GraphBLAS vector living on one device.

Storage forms
-------------
* sparse: sorted int64 indices + values (cost ~ nvals);
* dense: a values array over all positions + a presence bool array (``None``
  when every position is present).

A vector converts itself when the other form is cheaper: operations ask for the
form they need (push wants indices, pull wants a dense gather) and a result
denser than ``DENSE_FRACTION`` is kept dense.  The switch has hysteresis: a
dense vector goes back to the sparse form only below ``SPARSE_FRACTION``
(a quarter of ``DENSE_FRACTION``), so a vector whose density hovers around
the threshold (a BFS frontier) does not flip form on every call.
``form="dense"|"sparse"`` at construction is a hint.  Operations read the
storage through :meth:`Vector._view` (the current form, unconverted),
:meth:`Vector._sparse` and :meth:`Vector._dense`, never through the fields.

Counts: ``nvals`` of a dense result is counted only when someone asks (on a
GPU a count waits for the device).  Until then the vector keeps a host-side
upper bound that the output rule derives from what it knows (e.g. a masked
assign adds at most as many entries as the mask allows); the direction
choice of ``mxv``/``vxm`` uses it (:meth:`Vector._nvals_estimate`) instead
of waiting for the exact count (an unknown count is taken as the bound, so
the estimate errs towards pull, whose cost the mask bounds).
"""
import itertools

import numpy as np

from . import dtypes
from .device import backend_for
from .errors import DimensionMismatch, InvalidValue, NoValue
from .indexing import check_index, check_size
from .compare import close_values, equal_values, refuse_comparison, same_entries
from .mask import Mask
from .results import DenseVectorResult, SparseResult

DENSE_FRACTION = 1 / 16
SPARSE_FRACTION = DENSE_FRACTION / 4   # a dense vector turns sparse only below this
LARGE = 1 << 26     # sizes above this check free memory before a dense allocation

# Every store of new content gets a stamp unique in the process (``_ver``), so
# "this vector still holds exactly what was stored then" is one comparison:
# traversal speculation (operations/speculate.py) relies on it.  A change of
# storage form keeps the stamp (same content).
_STAMPS = itertools.count(1)


#: empty (index, value) arrays per backend and type, shared by new outputs
_EMPTY = {}


def _empties(be, dtype):
    """Empty (keys, values) arrays shared by every new empty vector of this
    backend and type (a GPU allocation costs microseconds of host time): a
    vector never writes in place arrays it does not own, and these have
    nothing to write."""
    e = _EMPTY.get((be, dtype))
    if e is None:
        e = _EMPTY[(be, dtype)] = (be.zeros(0, np.int64), be.zeros(0, dtype))
    return e


class Vector:
    """``Vector(dtype, size, device=None)`` -- an empty vector.

    Build one with :meth:`from_coo` or :meth:`from_dense`; read it with
    :meth:`to_coo`, :meth:`to_dense`, ``v[i]``, :meth:`get`.
    """

    _is_vector = True
    __slots__ = ("_be", "size", "dtype", "_form", "_i", "_v", "_p", "_pend", "_nvals",
                 "_nv_hi", "_ver", "_own", "_grew", "_spec", "_merged", "__weakref__")

    def __new__(cls, *args, device=None, **kwargs):
        # a distributed layout (graphblast_py.dist) as the device makes its own vector type
        dist = getattr(device, "dist_vector_type", None)
        return object.__new__(dist if dist is not None and cls is Vector else cls)

    def __init__(self, dtype: str | np.dtype | type = dtypes.FP64, size: int = 0, *,
                 device: str | None = None, form: str = "sparse") -> None:
        self.dtype = dtypes.lookup(dtype)
        self.size = check_size(size, "Vector size")
        self._be = backend_for(device)
        if form == "dense":
            self._check_dense_alloc()
            self._set_dense(self._be.zeros(self.size, self.dtype),
                            self._be.zeros(self.size, bool), 0)
        elif form == "sparse":
            self._set_sparse(*_empties(self._be, self.dtype))
        else:
            raise InvalidValue(f"form must be 'sparse' or 'dense', got {form!r}")

    @classmethod
    def _new_empty(cls, dtype, size, be):
        """``Vector(dtype, size, device=be.name)`` for an operation's output:
        ``dtype`` a ``numpy.dtype`` from :func:`dtypes.lookup` and ``size``
        already checked, so none of the constructor's checks run again."""
        v = object.__new__(cls)
        v.dtype, v.size, v._be = dtype, size, be
        v._set_sparse(*_empties(be, dtype))
        return v

    @classmethod
    def _new_sparse(cls, dtype, size, be, idx, vals):
        """``_new_empty(dtype, size, be)`` storing ``(idx, vals)`` at once
        (sorted distinct int64 keys, values already of ``dtype``): an
        operation's sparse result in one store."""
        v = object.__new__(cls)
        v.dtype, v.size, v._be = dtype, size, be
        v._set_sparse(idx, vals)
        return v

    # ------------------------------------------------------------ storage
    # Every store goes through _set_sparse/_set_dense: a new stamp (``_ver``),
    # no record of how the content came about (``_grew``, ``_spec``: see
    # operations/speculate.py) and arrays that may be shared (``_own`` False:
    # only the in-place updates (_update_dense, _update_scalar, _update_where)
    # and a dense form built for a borrower set it, for arrays no one else
    # has seen; _view/_dense hand arrays out and clear it, _lend/_dense(lend=
    # True) lend them to a reader that keeps them nowhere and leave it).
    #
    # A store may also be *pending* (``_pend``): content known on the host but
    # not yet written to the arrays -- a level of a traversal not yet sliced
    # out (:meth:`_set_lazy`), or scalar fills at consecutive traversal levels
    # not yet scattered (:meth:`_defer_fills`).  The arrays are read only
    # through ``_idx``/``_vals``/``_pres``, which carry the pending store out
    # first, so no reader can see the arrays without it.
    @property
    def _idx(self):
        if self._pend is not None:
            self._settle()
        return self._i

    @property
    def _vals(self):
        if self._pend is not None:
            self._settle()
        return self._v

    @property
    def _pres(self):
        if self._pend is not None:
            self._settle()
        return self._p

    def _settle(self):
        pend, self._pend = self._pend, None
        pend.settle(self)

    def _set_sparse(self, idx, vals):
        self._form, self._i, self._v, self._p, self._pend = "sparse", idx, vals, None, None
        self._nvals = self._nv_hi = idx.shape[0]
        self._ver, self._own, self._grew, self._spec = next(_STAMPS), False, None, None

    def _set_lazy(self, nvals, pend):
        """Sparse content of ``nvals`` entries that ``pend.settle(self)`` will
        store (as :meth:`_set_sparse` without a new stamp) when the arrays are
        first read."""
        self._form, self._i, self._v, self._p, self._pend = "sparse", None, None, None, pend
        self._nvals = self._nv_hi = nvals
        self._ver, self._own, self._grew, self._spec = next(_STAMPS), False, None, None

    def _defer_fills(self, keys, a, b, s, bound):
        """Store: positions ``keys[a:b]`` take the scalar ``s`` (in this
        vector's type), the rest unchanged -- as :meth:`_update_scalar` with
        ``keys[a:b]``, but the scatter waits: fills at consecutive ranges of
        the same ``keys`` (the levels of one traversal, each following the
        last) are carried out together, by one ``fill_at`` of the backend,
        when the arrays are first read.  ``bound``: an upper bound of the new
        count."""
        pend = self._pend
        if not (type(pend) is _Fills and pend.keys is keys and pend.starts[-1] == a):
            zv, zp = self._writable()           # carries out any pending store first
            self._set_dense(zv, zp)
            self._own = True
            pend = _Fills(keys, a)
        pend.starts.append(b)
        pend.scalars.append(s)
        self._form, self._i, self._v, self._pend = "dense", None, self._v, pend
        self._nvals, self._nv_hi = None, min(self.size, bound)
        self._ver, self._grew, self._spec = next(_STAMPS), None, None

    def _defer_copies(self, keys, vals, a, b, bound, repeats=False):
        """Store: positions ``keys[a:b]`` (distinct) take ``vals[a:b]`` (in
        this vector's type), the rest unchanged; as
        :meth:`_defer_fills` with values: copies at consecutive ranges of the
        same ``keys`` and ``vals`` (the levels of one traversal with parents,
        the rounds of one relaxation run) are carried out together, by one
        scatter, when the arrays are first read.  ``repeats``: a key of this
        range may also be in an earlier range of the same arrays (a vertex
        improved in two rounds); the joined scatter then lets the last
        occurrence win (``copy_at(last=True)``).  ``bound``: an upper bound
        of the new count."""
        pend = self._pend
        if not (type(pend) is _Copies and pend.keys is keys and pend.vals is vals
                and pend.end == a):
            zv, zp = self._writable()           # carries out any pending store first
            self._set_dense(zv, zp)
            self._own = True
            pend = _Copies(keys, vals, a)
        elif repeats:
            pend.repeats = True
        pend.end = b
        self._form, self._i, self._v, self._pend = "dense", None, self._v, pend
        self._nvals, self._nv_hi = None, min(self.size, bound)
        self._ver, self._grew, self._spec = next(_STAMPS), None, None

    def _set_dense(self, vals, pres, nvals=None, bound=None):
        """Dense content; ``nvals`` the exact count when known, else ``bound``
        (an upper bound known on the host) or none (the size)."""
        self._form, self._i, self._v, self._p, self._pend = "dense", None, vals, pres, None
        self._ver, self._own, self._grew, self._spec = next(_STAMPS), False, None, None
        self._nvals = self.size if pres is None else nvals
        if self._nvals is not None:
            self._nv_hi = self._nvals
        else:
            self._nv_hi = self.size if bound is None else min(int(bound), self.size)

    def _assign_result(self, T, bound=None):
        """Take a computed result (see operations.output) as the new content;
        ``bound``: an upper bound of its entry count, when the caller knows one."""
        if isinstance(T, SparseResult):
            self._set_sparse(T.keys, self._be.cast(T.vals, self.dtype))
        elif isinstance(T, DenseVectorResult):
            self._set_dense(self._be.cast(T.vals, self.dtype), T.present, bound=bound)
        else:  # pragma: no cover - programming error
            raise InvalidValue(f"a Vector cannot take a {type(T).__name__} result")

    def _view(self):
        """The stored content in its current form, unconverted:
        ``SparseResult(indices, values)`` or ``DenseVectorResult(values,
        presence or None)``.  The arrays are handed out: the caller may keep
        them (in a result, a cache), so this vector never writes them in
        place again."""
        self._own = False           # the arrays are handed out
        return self._lend()

    def _lend(self):
        """As :meth:`_view`, lent to a reader that is done with the arrays
        when its call returns and keeps them nowhere (a kernel's input, a
        count; not a result, not a cache): the vector keeps them as its own
        (``_own``) and may write them in place at its next store.  On a GPU
        the reading kernels are queued before that write on the same stream,
        so they read the content as it was."""
        if self._form == "sparse":
            return SparseResult(self._idx, self._vals)
        return DenseVectorResult(self._vals, self._pres)

    def _nvals_bound(self):
        """An upper bound of ``nvals`` known without counting."""
        return self._nv_hi

    def _nvals_known(self):
        """``nvals`` when known without counting, else None."""
        return self._nvals

    def _nvals_estimate(self):
        """``nvals`` for a cost model, never waiting on the device: the exact
        count when known, else the host-side upper bound."""
        return self._nvals if self._nvals is not None else self._nv_hi

    def _is_empty_fresh(self):
        return self._form == "sparse" and self._nvals == 0

    @property
    def device(self):
        return self._be.name

    @property
    def shape(self):
        return (self.size,)

    @property
    def nvals(self):
        """Number of stored entries."""
        if self._nvals is None:
            self._nvals = self._nv_hi = self._be.count_nonzero(self._pres)
        return self._nvals

    @property
    def form(self):
        """Current storage form: ``"sparse"`` or ``"dense"``."""
        return self._form

    def _sparse(self):
        """(indices, values) -- converting to the sparse form when it is cheaper."""
        if self._form == "sparse":
            return self._idx, self._vals
        xp = self._be.xp
        if self._pres is None:
            self._own = False       # the values array is handed out
            idx = xp.arange(self.size, dtype=np.int64)
            return idx, self._vals
        idx = xp.flatnonzero(self._pres)
        vals = self._vals[idx]
        if idx.shape[0] < SPARSE_FRACTION * self.size:
            same = self._ver, self._grew, self._spec     # a new form, the same content
            self._set_sparse(idx, vals)
            self._ver, self._grew, self._spec = same
        else:
            self._nvals = self._nv_hi = idx.shape[0]
        return idx, vals

    def _dense(self, lend=False):
        """(values, presence or None) over all positions, handed out (the
        caller may keep them, see :meth:`_view`) or, with ``lend=True``, lent
        to a reader that keeps them nowhere past its call (see :meth:`_lend`):
        the vector may then write them in place at its next store."""
        if self._form == "dense":
            if not lend:
                self._own = False       # the arrays are handed out
            return self._vals, self._pres
        vals, pres = self._build_dense()
        if self._idx.shape[0] >= DENSE_FRACTION * self.size:
            same = self._ver, self._grew, self._spec     # a new form, the same content
            self._set_dense(vals, pres, self._idx.shape[0])
            self._ver, self._grew, self._spec = same
            self._own = lend            # new arrays: only a borrower has seen them
        return vals, pres

    def _build_dense(self):
        """New dense (values, presence) arrays of the sparse content (not
        stored)."""
        be = self._be
        self._check_dense_alloc()
        vals = be.zeros(self.size, self.dtype)
        pres = be.zeros(self.size, bool)
        if self._idx.shape[0]:
            be.copy_at(vals, pres, self._idx, self._vals)   # (one pass, not two scatters)
        return vals, pres

    def _update_dense(self, clear, keys, vals, bound):
        """Store: positions ``clear`` lose their entry, then ``keys`` take
        ``vals`` (already in this vector's type); ``bound`` an upper bound of
        the new count.  The update is written into this vector's own arrays
        when no one else can see them (``_own``: they came from an earlier
        update and have not been handed out since), else into copies, which
        it then owns -- so a BFS level update costs the frontier's size, not
        the vector's."""
        zv, zp = self._writable()
        if clear.shape[0]:
            zp[clear] = False
        self._be.copy_at(zv, zp, keys, vals)
        self._set_dense(zv, zp, bound=bound)
        self._own = True

    def _update_scalar(self, keys, s, bound):
        """Store: positions ``keys`` take the scalar ``s`` (already in this
        vector's type: a NumPy scalar), the rest unchanged; ``bound`` an
        upper bound of the new count.  As :meth:`_update_dense` with
        ``clear = keys`` and ``vals`` all ``s``, without building ``vals``:
        one fill of the backend (``fill_at``)."""
        zv, zp = self._writable()
        self._be.fill_at(zv, zp, keys, s)
        self._set_dense(zv, zp, bound=bound)
        self._own = True

    def _update_where(self, m, s, bound):
        """Store: positions where the bool array ``m`` (over all positions;
        it may be lent by another vector, or be this vector's own presence)
        is set take the scalar ``s`` (already in this vector's type), the
        rest unchanged; ``bound`` an upper bound of the new count.  One pass
        over the positions (the backend's ``assign_where``) into this
        vector's own arrays where it owns them (a level update of a BFS whose
        frontier is stored dense)."""
        zv, zp = self._writable()
        self._be.assign_where(zv, zp, m, s)
        self._set_dense(zv, zp, bound=bound)
        self._own = True

    def _update_from(self, m, src, bound):
        """Store: positions where the bool array ``m`` is set take ``src``'s
        value there (``src`` over all positions, in this vector's type; both
        lent by another vector), the rest unchanged; ``bound`` an upper
        bound of the new count.  One pass (the backend's ``copy_where``)
        into this vector's own arrays where it owns them: ``w<F.S> = F``
        with a dense F (BFS's parents after a pull level)."""
        zv, zp = self._writable()
        self._be.copy_where(zv, zp, m, src)
        self._set_dense(zv, zp, bound=bound)
        self._own = True

    def _values_at_own_keys(self, keys):
        """This vector's values when ``keys`` is its own index array (a
        sparse vector whose content is stored, not pending), else None:
        a reader that holds the keys already needs no search."""
        if self._form != "sparse" or self._pend is not None or self._i is not keys:
            return None
        return self._v

    def _full_values(self):
        """``(values, own)`` of a vector stored dense with every entry
        present (``own``: no one else can see the array, so it may be
        written in place), else None."""
        if self._form != "dense" or self._pres is not None:
            return None
        return self._v, self._own

    def _set_full(self, vals, own):
        """Store: every position present, with ``vals`` (this vector's type);
        ``own``: the array is this vector's alone (a later update may write
        it in place)."""
        self._set_dense(vals, None)
        self._own = own

    def _writable(self):
        """Dense (values, presence) this vector may write in place: its own
        arrays when no one else can see them (``_own``), else copies (a
        sparse vector: a dense form built for the purpose)."""
        if self._form == "sparse":
            return self._build_dense()
        cp = self._pres                 # (carries out a pending store first)
        if self._own and cp is not None:
            return self._v, cp
        return self._v.copy(), (cp.copy() if cp is not None else
                                   self._be.xp.ones(self.size, dtype=bool))

    def _gather(self, keys):
        """(values, presence) at the sorted positions ``keys``, as new arrays
        (nothing of this vector's storage is handed out, so it keeps its
        arrays' ownership); values where there is no entry are arbitrary."""
        xp = self._be.xp
        m = keys.shape[0]
        if self._form == "dense":
            pres = xp.ones(m, dtype=bool) if self._pres is None else self._pres[keys]
            return self._vals[keys], pres
        if self._idx.shape[0] == 0:
            return xp.zeros(m, dtype=self.dtype), xp.zeros(m, dtype=bool)
        found, pos = self._be.locate(keys, self._idx)
        return self._vals[pos], found

    def _check_dense_alloc(self):
        """OutOfMemory (before allocating) for a dense form that cannot fit."""
        if self.size > LARGE:
            self._be.check_alloc(self.size * (self.dtype.itemsize + 1),
                                 f"dense form of a Vector of size {self.size}")

    def _keys_vals(self):
        return self._sparse()

    def _compare_dense(self, other, values_match):
        """``same_entries`` of two dense vectors on one device, without
        index arrays (connected components compares two full vectors every
        iteration: 4 ms a call at 10^6 entries through their keys, one pass
        here); None where either is not dense (the caller compares keys)."""
        if self._form != "dense" or other._form != "dense" or other._be is not self._be:
            return None
        xp = self._be.xp
        va, pa = self._dense(lend=True)
        vb, pb = other._dense(lend=True)
        if pa is None and pb is None:
            if values_match is equal_values:
                r = self._be.all_equal(va, vb)
                if r is not None:
                    return r
            return bool(xp.all(values_match(xp, va, vb)))
        if pa is None or pb is None:
            p = pb if pa is None else pa
            if not bool(xp.all(p)):
                return False
        elif not bool(xp.array_equal(pa, pb)):
            return False
        p = pa if pa is not None else pb
        # values where both are present (elsewhere a dense form's values are
        # whatever the store left there)
        return bool(xp.all(values_match(xp, va, vb) | ~p))

    def _mask_keys(self, structure):
        idx, vals = self._sparse()
        if structure:
            return idx
        return idx[vals.astype(bool)]

    def _mask_dense(self, structure, lend=False):
        """Dense bool array of the positions a structural (``structure``) or
        value mask of this vector allows.  A structural mask of a vector with
        a presence array is that array itself: handed out unless ``lend`` (a
        reader that keeps it nowhere past its call, see :meth:`_lend`); a
        value mask is always a new array."""
        vals, pres = self._dense(lend=lend or not structure)
        if structure:
            return pres if pres is not None else self._be.xp.ones(self.size, dtype=bool)
        t = vals.astype(bool)
        return t if pres is None else (t & pres)

    @property
    def S(self):
        """Structural mask: positions where the vector has an entry."""
        return Mask(self, True)

    @property
    def V(self):
        """Value mask: positions with an entry that is nonzero / True."""
        return Mask(self, False)

    # ------------------------------------------------------------ construction
    @classmethod
    def from_coo(cls, indices, values=True, size=None, *, dtype=None, dup_op=None,
                 device=None):
        """Vector with ``v[indices[k]] = values[k]``.

        ``values`` may be a scalar (every entry equal).  ``indices`` may be a
        Vector of an integer type: its values in the order of their positions
        are the index list, and ``values`` is then a scalar or a Vector with
        entries at the same positions (its values in the same order).
        Connected components' hooking, ``min`` of ``mngf(u)`` over the
        vertices with ``f(u) = p``, is ``Vector.from_coo(f, mngf, n,
        dup_op=gb.binary.min)``: on distributed vectors each worker then
        reads only its own blocks (see docs/distributed.md).  ``size`` defaults to
        ``max(indices) + 1``.  Duplicate indices raise :class:`InvalidValue`
        unless ``dup_op`` (a BinaryOp or its name) combines them, left to
        right in input order.

        With at least ``DENSE_FRACTION`` (1/16) of ``size`` entries and one of
        these duplicate operators, the build takes no sort: one unsorted
        scatter (a numba loop on the CPU; on the GPU cupyx's atomic scatters,
        integer types only until the backend's own kernel has run on a GPU)
        combines the duplicates into a dense vector (values and presence):

        * ``min``, ``max``, ``plus`` on integer types (plus wraps, as the
          sorted sum does);
        * ``min``, ``max``, ``land``, ``lor``, ``plus`` on bool (and / or);
        * ``min``, ``max`` on floats (fmin/fmax: a NaN loses and only
          all-NaN values give NaN, so the order does not matter; which zero
          ``min(-0.0, 0.0)`` gives may differ).

        The result has the same entries and values as the sort path.  Every
        other operator (times, first, second, any, minus, user-defined ...),
        a float ``plus`` (its rounding depends on the order of the additions)
        and fewer entries take the sort path.  Bad input raises the same
        errors either way, before anything is built.
        """
        from .indexing import coo_arrays
        if getattr(device, "dist_vector_type", None) is not None:     # graphblast_py.dist
            return device.dist_vector_type.from_coo(indices, values, size, dtype=dtype,
                                                    dup_op=dup_op, device=device)
        if isinstance(indices, Vector):
            if getattr(indices, "_gb_distributed", False):
                return type(indices).from_coo(indices, values, size, dtype=dtype,
                                              dup_op=dup_op, device=indices.device)
            from_vectors = isinstance(values, Vector)
            indices, values, device = vector_entries(indices, values, device,
                                                     "Vector.from_coo")
            if from_vectors and dup_op is not None and dtype is None and size is not None:
                # (connected components' hooking: index and value Vectors, a
                # size and a duplicate operator)
                v = _scatter_in_range(cls, backend_for(device), indices, values, size, dup_op)
                if v is not None:
                    return v
        one = _one_entry(indices, values, size, dtype, dup_op)
        if one is not None:
            # one host index and value, both valid (a traversal's source):
            # stored at once, without the general checks, sort and transfer
            # (what they would find is known: one entry, in range, exact)
            be = backend_for(device)
            i, value, dt, size = one
            v = cls(dt, size, device=be.name)
            v._set_sparse(*be.one_entry(i, value, dt))
            return v
        be = backend_for(device)
        if be.dense_vectors and dup_op is None and _on_host(indices) and _on_host(values):
            # host data for a device that waits to check or sort: check and
            # sort it on the host (the same rules), then move it over once
            return cls.from_coo(indices, values, size, dtype=dtype, device="cpu").to(be.name)
        hi = []
        idx, vals, dtype = coo_arrays(be, (indices,), values, dtype, "Vector.from_coo", hi)
        idx = idx[0]
        size = _infer_size(be, idx, size, "Vector.from_coo", "indices", hi[0])
        v = cls(dtype, size, device=be.name)
        if idx.shape[0] == 0:
            return v
        dup = _dup_op(dup_op)
        kind = be.scatter_kind(dup, dtype)
        if kind is not None and idx.shape[0] >= DENSE_FRACTION * size:
            # many entries and a duplicate operator the backend combines
            # exactly in any order: one unsorted scatter into a dense vector
            got_vals, got_pres = be.scatter_reduce(idx, be.cast(vals, dtype), size, kind)
            v._set_dense(got_vals, got_pres, bound=min(size, idx.shape[0]))
            return v
        keys, vals, dup_at = be.coo_to_sorted(idx, be.zeros(idx.shape[0], np.int64), 1, vals, dup)
        if dup_at is not None:
            raise InvalidValue(f"Vector.from_coo: index {dup_at} appears more than once; pass "
                               "dup_op=gb.binary.plus (or another operator) to combine duplicates")
        v._set_sparse(keys, be.cast(vals, v.dtype))
        return v

    @classmethod
    def from_dense(cls, values, *, dtype=None, missing_value=None, device=None):
        """Full vector from a 1-D array (NumPy or CuPy); entries equal to
        ``missing_value`` (if given) are left out."""
        be = backend_for(device)
        try:
            a = be.asarray(values)
        except (TypeError, ValueError) as e:
            raise InvalidValue(f"Vector.from_dense: cannot read the values as an array: {e}") from None
        if a.ndim != 1:
            raise DimensionMismatch(f"Vector.from_dense needs a 1-D array, got shape {a.shape}")
        if a.dtype.kind not in "biuf":
            from .errors import DomainMismatch
            raise DomainMismatch(f"Vector.from_dense: values of dtype {a.dtype} not supported")
        dt = dtypes.lookup(dtype if dtype is not None else a.dtype)
        v = cls(dt, a.shape[0], device=be.name)
        a = be.xp.array(a, dtype=dt, copy=True)   # never share the caller's array
        if missing_value is None:
            v._set_dense(a, None)
        else:
            pres = a != missing_value
            v._set_dense(a, pres)
        return v

    def to_coo(self):
        """(indices, values) as arrays on the vector's device."""
        idx, vals = self._sparse()
        return idx.copy(), vals.copy()

    def to_dense(self, fill=None):
        """Array of all ``size`` positions on the vector's device; positions
        without an entry get ``fill`` (default 0)."""
        s = np.zeros(1, self.dtype)
        if fill is not None:
            try:
                s[0] = fill             # NumPy's cast of an item assignment
            except (OverflowError, ValueError, TypeError) as e:
                raise InvalidValue(f"Vector.to_dense: fill={fill!r} cannot be stored in the "
                                   f"vector's type {self.dtype} ({e})") from None
        vals, pres = self._dense()
        out = vals.copy()
        if pres is not None:
            self._be.put_missing(out, pres, s[0])
        return out

    def to(self, device):
        """A copy on ``device`` (``"cpu"``/``"gpu"``); self when already there."""
        be = backend_for(device)
        if be is self._be:
            return self
        v = Vector(self.dtype, self.size, device=be.name)
        host = self._be.to_host
        if self._form == "sparse":
            # (both arrays in one transfer where the backend can: a one-entry
            # source vector moved to a GPU is one copy, not two)
            v._set_sparse(*be.asarrays((host(self._idx), host(self._vals))))
        elif self._pres is None:
            v._set_dense(be.asarray(host(self._vals)), None, self._nvals, self._nv_hi)
        else:
            vals, pres = be.asarrays((host(self._vals), host(self._pres)))
            v._set_dense(vals, pres, self._nvals, self._nv_hi)
        return v

    def dup(self, dtype=None):
        """A copy (optionally cast to ``dtype``)."""
        dt = self.dtype if dtype is None else dtypes.lookup(dtype)
        v = Vector(dt, self.size, device=self.device)
        self._own = False           # the copy shares the arrays
        if self._form == "sparse":
            v._set_sparse(self._idx, self._be.cast(self._vals, dt))
        else:
            v._set_dense(self._be.cast(self._vals, dt), self._pres, self._nvals, self._nv_hi)
        return v   # arrays are never written in place, so sharing them is safe

    def clear(self):
        """Remove every entry."""
        self._set_sparse(*_empties(self._be, self.dtype))

    def resize(self, size):
        size = check_size(size, "Vector size")
        idx, vals = self._sparse()
        keep = idx < size
        self.size = size
        self._set_sparse(idx[keep], vals[keep])

    # ------------------------------------------------------------ elements
    def __getitem__(self, index):
        if _is_scalar_index(index):
            return self.get(index, _raise=True)
        from .operations import extract
        return extract.vector_extract(self, index)

    def get(self, index, default=None, _raise=False):
        """The value at ``index``, or ``default`` when not stored."""
        i = check_index(index, self.size, "Vector index")
        if self._form == "dense":
            if self._pres is not None and not bool(self._pres[i]):
                if _raise:
                    raise NoValue(f"no entry at index {i}")
                return default
            return self._vals[i].item()
        be = self._be
        pos = int(be.xp.searchsorted(self._idx, i))
        if pos < self._idx.shape[0] and int(self._idx[pos]) == i:
            return self._vals[pos].item()
        if _raise:
            raise NoValue(f"no entry at index {i}")
        return default

    def __setitem__(self, index, value):
        if not _is_scalar_index(index):
            self.assign(value, index)
            return
        i = check_index(index, self.size, "Vector index")
        val = _scalar_value(value, self.dtype, "Vector element")
        be = self._be
        if self._form == "dense":
            vals = self._vals.copy()
            vals[i] = val
            pres = self._pres
            if pres is not None and not bool(pres[i]):
                pres = pres.copy()
                pres[i] = True
                self._set_dense(vals, pres, None if self._nvals is None else self._nvals + 1,
                                self._nv_hi + 1)
            else:
                self._set_dense(vals, pres, self._nvals, self._nv_hi)
            return
        pos = int(be.xp.searchsorted(self._idx, i))
        if pos < self._idx.shape[0] and int(self._idx[pos]) == i:
            vals = self._vals.copy()
            vals[pos] = val
            self._set_sparse(self._idx, vals)
        else:
            xp = be.xp
            idx = xp.concatenate([self._idx[:pos], xp.asarray([i], dtype=np.int64),
                                  self._idx[pos:]])
            vals = xp.concatenate([self._vals[:pos], xp.asarray([val], dtype=self.dtype),
                                   self._vals[pos:]])
            self._set_sparse(idx, vals)

    def __delitem__(self, index):
        i = check_index(index, self.size, "Vector index")
        if self._form == "dense":
            pres = self._pres.copy() if self._pres is not None else \
                self._be.xp.ones(self.size, dtype=bool)
            was = bool(pres[i])
            pres[i] = False
            self._set_dense(self._vals, pres,
                            None if self._nvals is None else self._nvals - int(was), self._nv_hi)
            return
        keep = self._idx != i
        self._set_sparse(self._idx[keep], self._vals[keep])

    def __contains__(self, index):
        return self.get(index) is not None

    def __iter__(self):
        raise TypeError("iterate over v.to_coo() instead; a Vector is not a sequence")

    def __len__(self):
        raise TypeError("len() of a Vector is ambiguous: use .size or .nvals")

    def __bool__(self):
        raise InvalidValue("the truth value of a Vector is ambiguous: use .nvals")

    # ------------------------------------------------------------ comparison
    def isequal(self, other, check_dtype=False):
        """Same shape, same stored positions and equal values."""
        return same_entries(self, other, check_dtype, equal_values)

    def isclose(self, other, rel_tol=1e-7, abs_tol=0.0, check_dtype=False):
        """Same shape and stored positions; values equal within the tolerances
        (NaN equals NaN)."""
        return same_entries(self, other, check_dtype, close_values(rel_tol, abs_tol))

    # mutable, compared with isequal/isclose: == raises, not hashable
    __eq__ = __ne__ = refuse_comparison("Vector")
    __hash__ = None

    def __repr__(self):
        """Size, type, storage and the first few entries (``REPR_ENTRIES`` of
        them), as python-graphblas shows them."""
        from .matrix import REPR_ENTRIES, _first_present
        be = self._be
        if self._form == "sparse":
            idx = be.to_host(self._idx[:REPR_ENTRIES])
            vals = be.to_host(self._vals[:REPR_ENTRIES])
        else:
            idx, vals = _first_present(be, self._vals, self._pres, REPR_ENTRIES)
        items = ", ".join(f"{int(i)}: {v.item()!r}" for i, v in zip(idx, vals))
        more = ", ..." if self.nvals > len(vals) else ""
        return (f"<Vector size={self.size} nvals={self.nvals} dtype={self.dtype} "
                f"device={self.device!r} form={self._form!r} {{{items}{more}}}>")

    # operation methods are attached in operations/__init__.py


def _one_entry(indices, values, size, dtype, dup_op):
    """``(index, value, dtype, size)`` when ``from_coo`` gets one Python int
    index (in a list or tuple) inside a given int ``size`` and a Python
    bool/int/float value -- what the general path would find, and store, for
    them; else None (the general path runs, with its checks and errors)."""
    if (dup_op is not None or type(size) is not int or type(indices) not in (list, tuple)
            or len(indices) != 1 or type(values) not in (bool, int, float)):
        return None
    i = indices[0]
    if type(i) is not int or not 0 <= i < size or size > 1 << 40:
        return None
    dt = dtypes.of_value(values) if dtype is None else dtypes.lookup(dtype)
    return i, dtypes.cast_scalar(values, dt, "Vector.from_coo value"), dt, size


def _on_host(x):
    """Python scalars, lists, tuples and NumPy arrays (not device arrays)."""
    if isinstance(x, (list, tuple)):
        return all(_on_host(e) for e in x[:8])
    return isinstance(x, (bool, int, float, np.ndarray, np.generic))


def _is_scalar_index(index):
    return isinstance(index, (int, np.integer)) and not isinstance(index, (bool, np.bool_))


def _scalar_value(value, dtype, what):
    try:
        return np.asarray(value).astype(dtype, casting="unsafe")[()] \
            if np.ndim(value) == 0 else _bad_scalar(value, what)
    except (TypeError, ValueError) as e:
        raise InvalidValue(f"{what}: cannot store {value!r} as {dtype}: {e}") from None


def _bad_scalar(value, what):
    raise InvalidValue(f"{what}: expected a scalar, got {type(value).__name__} of shape "
                       f"{np.shape(value)}")


def _scatter_in_range(cls, be, idx, vals, size, dup_op):
    """``Vector.from_coo`` of an index Vector's values ``idx`` and a value
    Vector's ``vals`` (arrays of its entries: numbers, one per index, so
    every check of ``coo_arrays`` but the index range passes) into a dense
    vector by the backend's unsorted scatter that checks each index itself
    (``scatter_reduce_in_range``: no separate minimum/maximum pass) -- what
    the checked path builds.  None where that path's other checks would
    fail or it would not scatter (it then runs and raises in its order), or
    where an index is out of range or the backend has no such pass."""
    from .errors import GraphBLASError
    if idx.dtype != np.int64 or idx.ndim != 1 or vals.ndim != 1 or \
            vals.shape[0] != idx.shape[0] or vals.dtype.kind not in "biuf":
        return None
    try:
        size = check_size(size, "Vector.from_coo size")
        dup = _dup_op(dup_op)
    except GraphBLASError:
        return None
    dt = dtypes.lookup(vals.dtype)
    kind = be.scatter_kind(dup, dt)
    if kind is None or idx.shape[0] == 0 or idx.shape[0] < DENSE_FRACTION * size:
        return None
    r = be.scatter_reduce_in_range(idx, be.cast(vals, dt), size, kind)
    if r is None:
        return None
    v = cls(dt, size, device=be.name)
    v._set_dense(r[0], r[1], bound=min(size, idx.shape[0]))
    return v


def _dup_op(dup_op):
    if dup_op is None:
        return None
    from .operations.output import resolve_accum
    return resolve_accum(dup_op)


def vector_entries(iv, values, device, what):
    """The index and value arrays that an index Vector ``iv`` and a value
    Vector (or scalar) ``values`` stand for: ``iv``'s values in position
    order, and ``values``' values at the same positions (checked: the same
    positions, the same device); and the device they live on (``device``
    must be None or that device)."""
    from .errors import DeviceMismatch
    check_index_vector(iv, what)
    if device is not None and backend_for(device).name != iv.device:
        raise DeviceMismatch(f"{what}: the index Vector is on {iv.device} but device={device!r}")
    ipos, ivals = _entries(iv)
    if not isinstance(values, Vector):
        return ivals, values, iv.device
    if values.size != iv.size:
        raise DimensionMismatch(f"{what}: the index Vector has size {iv.size} but the value "
                                f"Vector has size {values.size}")
    if values.device != iv.device:
        raise DeviceMismatch(f"{what}: the index Vector is on {iv.device} but the value Vector "
                             f"on {values.device}")
    vpos, vvals = _entries(values)
    if ipos is None and vpos is None:
        same = True
    elif ipos is None or vpos is None:
        same = (vpos if ipos is None else ipos).shape[0] == iv.size
    else:
        same = ipos.shape[0] == vpos.shape[0] and bool(iv._be.xp.array_equal(ipos, vpos))
    if not same:
        raise InvalidValue(f"{what}: the index Vector and the value Vector must have entries at "
                           f"the same positions ({iv.nvals} and {values.nvals} entries, not "
                           "at the same positions)")
    return ivals, vvals, iv.device


def check_index_vector(iv, what):
    """InvalidIndex unless the index Vector ``iv`` has an integer type."""
    if iv.dtype.kind not in "iu":
        from .errors import InvalidIndex
        raise InvalidIndex(f"{what}: an index Vector must have an integer type, got {iv.dtype}")


def _entries(v):
    """``(positions, values)`` of ``v``'s entries in position order;
    positions None when ``v`` is full (the arrays handed out, see
    :meth:`Vector._view`: a build may keep them)."""
    if v._form == "dense" and v._pres is None:
        return None, v._dense()[0]
    return v._sparse()


def _infer_size(be, idx, size, what, argname, hi=None):
    """The size: ``size`` checked against the indices ``idx`` (IndexOutOfBound
    naming the first index outside), or the largest index + 1; ``hi``: the
    largest index when already known (coo_arrays' ``maxima``)."""
    if size is None:
        if hi is not None:
            return hi + 1
        return int(idx.max()) + 1 if idx.shape[0] else 0
    size = check_size(size, f"{what} size")
    if idx.shape[0]:
        if hi is not None and hi < size:
            return size
        bad = idx >= size
        if bool(bad.any()):
            from .errors import IndexOutOfBound
            k = int(be.xp.argmax(bad))
            raise IndexOutOfBound(f"{what}: {argname}[{k}] = {int(idx[k])} is outside "
                                  f"[0, {size})")
    return size


class _Copies:
    """Pending value copies (:meth:`Vector._defer_copies`): positions
    ``keys[start:end]`` take ``vals[start:end]``."""

    __slots__ = ("keys", "vals", "start", "end", "repeats")

    def __init__(self, keys, vals, a):
        self.keys, self.vals, self.start, self.end = keys, vals, a, a
        self.repeats = False     # a key may occur twice: the last occurrence wins

    def settle(self, v):
        v._be.copy_at(v._v, v._p, self.keys[self.start:self.end],
                      self.vals[self.start:self.end], last=self.repeats)


class _Fills:
    """Pending scalar fills (:meth:`Vector._defer_fills`): positions
    ``keys[starts[j]:starts[j + 1]]`` take ``scalars[j]``, in order."""

    __slots__ = ("keys", "starts", "scalars")

    def __init__(self, keys, a):
        self.keys, self.starts, self.scalars = keys, [a], []

    def settle(self, v):
        st = self.starts
        a = st[0]
        keys = self.keys[a:st[-1]]
        if len(self.scalars) == 1:
            v._be.fill_at(v._v, v._p, keys, self.scalars[0])
        else:
            v._be.fill_at(v._v, v._p, keys, np.asarray(self.scalars, dtype=v.dtype),
                          np.asarray(st, dtype=np.int64) - a)
