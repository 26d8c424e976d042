"""Matrix: a sparse (CSR, lazily also CSC) or dense 2-D GraphBLAS matrix.

Storage forms
-------------
* sparse: CSR (``indptr``, ``indices``, ``values``) always; the CSC (the CSR
  of the transpose) is built on first need -- a push step or ``A.T`` -- and
  cached until the matrix changes (``keep_csc=False`` never caches it).
  An *iso* matrix (every stored value equal, e.g. an unweighted graph) keeps no
  values array, only the one value.  Column indices are int32 when the
  dimension fits, else int64.
* dense: a row-major 2-D values array and a 2-D presence array (``None``
  when every entry is present): the dense operand/result of SpMM, a block of
  frontiers, :meth:`from_dense`.  Operations convert between the forms as
  needed; :meth:`to_sparse_form` / :meth:`to_dense_form` force one.

Arrays are never modified in place once stored (a mutation stores new
arrays), so :meth:`dup`, ``A.T`` and aliasing ``out=`` are cheap and safe.
"""
import numpy as np

from . import dtypes
from .device import backend_for
from .errors import (DimensionMismatch, DomainMismatch, IndexOutOfBound, InvalidIndex,
                     InvalidValue, NoValue)
from .indexing import check_index, check_size, coo_arrays
from .compare import close_values, equal_values, refuse_comparison, same_entries
from .mask import Mask
from .oom import _named as _oom_named
from .backend.keys import split_keys
from .results import CSRResult, DenseMatrixResult, SparseResult


def _lazy_csr_field(slot):
    """A CSR array of a Matrix, stored in ``slot``: reading it finishes a
    deferred transpose first (``Matrix._lazy_t``)."""
    def get(self):
        if self._lazy_t is not None:
            self._finish_transpose()
        return self.__dict__[slot]

    def put(self, a):
        self.__dict__[slot] = a
    return property(get, put)


class Matrix:
    """``Matrix(dtype, nrows, ncols, device=None)`` -- an empty matrix."""

    _is_vector = False
    keep_csc = True   # class-wide default; set A.keep_csc = False to save memory

    def __init__(self, dtype: str | np.dtype | type = dtypes.FP64, nrows: int = 0,
                 ncols: int = 0, *, device: str | None = None) -> None:
        self.dtype = dtypes.lookup(dtype)
        self.nrows = check_size(nrows, "Matrix nrows")
        self.ncols = check_size(ncols, "Matrix ncols")
        self._be = backend_for(device)
        be = self._be
        if self.nrows > 1 << 26:
            be.check_alloc((self.nrows + 1) * 8, f"row pointers of a {self.nrows}-row Matrix")
        self._set_csr(be.zeros(self.nrows + 1, dtypes.index_dtype(0)),
                      be.zeros(0, dtypes.index_dtype(self.ncols)), be.zeros(0, self.dtype))

    # ------------------------------------------------------------ storage
    # The CSR arrays.  A transpose made by ``A.T`` before A's CSC exists holds
    # only A's CSR (``_lazy_t``, which is also its own CSC) and transposes it
    # on the first read of these: ``L.mxm_reduce(L.T, ...)`` reads only the
    # CSC of ``L.T`` -- L itself -- and never pays for the transpose.
    _lazy_t = None
    _indptr = _lazy_csr_field("_ip")
    _indices = _lazy_csr_field("_ix")
    _vals = _lazy_csr_field("_vv")

    def _finish_transpose(self):
        src, ip, ix, v = self._lazy_t
        try:
            t = self._be.transpose_csr(ip, ix, v, self.ncols, self.nrows)
        except MemoryError as e:      # named as the step it belongs to; still deferred
            err = _oom_named(e, "Matrix", "T", self, ())
            if err is None:
                raise
            raise err from e
        self._lazy_t = None
        self._ip, self._ix, self._vv = t
        # the source, unchanged since, keeps it as its CSC (what ``A.T`` did
        # before the transpose was deferred)
        if src.keep_csc and src._csc is None and src._lazy_t is None and src._ip is ip:
            src._csc = t

    def _row_ptr(self):
        """The CSR row pointers alone; for a deferred transpose, from the
        source's column counts (cached), without transposing it."""
        if self._lazy_t is None:
            return self._csr(False)[0]
        ix = self._lazy_t[2]
        return self._cached("row_ptr", lambda: self._be.count_ptr(ix, self.nrows))

    def _line_ptr(self, rows=True):
        """The pointers (n + 1) of the rows, or of the columns, without a
        transpose: the columns' from the CSC when it is kept (a deferred
        transpose's source included), else counted from the CSR's indices
        (cached until the matrix changes)."""
        if rows:
            return self._row_ptr()
        self._to_sparse()
        if self._csc is not None:
            return self._csc[0]
        ix = self._indices
        return self._cached("col_ptr", lambda: self._be.count_ptr(ix, self.ncols))

    def _set_lazy_transpose(self, src):
        """This matrix (ncols x nrows of ``src``) as the transpose of the
        sparse ``src``, computed on first need."""
        ip, ix, v = src._indptr, src._indices, src._vals
        self._form = "sparse"
        self._ip = self._ix = self._vv = None
        self._lazy_t = (src, ip, ix, v)
        self._iso = src._iso
        self._dvals = self._dpres = None
        self._csc = (ip, ix, v)
        self._keys = None
        self._derived = None
        self._nvals = ix.shape[0]

    def _set_csr(self, indptr, indices, vals, iso=None):
        self._lazy_t = None
        self._form = "sparse"
        self._indptr, self._indices = indptr, indices
        self._vals = vals                   # None for an iso matrix
        self._iso = None if vals is not None else self.dtype.type(iso)
        self._dvals = self._dpres = None
        self._csc = None
        self._keys = None
        self._derived = None
        self._nvals = indices.shape[0]

    def _set_dense(self, vals, pres):
        self._lazy_t = None
        self._form = "dense"
        self._dvals, self._dpres = vals, pres
        self._indptr = self._indices = self._vals = self._iso = None
        self._csc = self._keys = None
        self._derived = None
        self._nvals = self.nrows * self.ncols if pres is None else None

    def _assign_result(self, T):
        be = self._be
        if isinstance(T, CSRResult):
            indptr, indices, vals, iso = T
            self._set_csr(indptr, indices, None if vals is None else be.cast(vals, self.dtype),
                          iso)
        elif isinstance(T, SparseResult):
            indptr, indices = be.keys_to_csr(T.keys, self.nrows, self.ncols)
            self._set_csr(indptr, indices, be.cast(T.vals, self.dtype))
            self._keys = T.keys
        elif isinstance(T, DenseMatrixResult):
            self._set_dense(be.cast(T.vals, self.dtype), T.present)
        else:  # pragma: no cover
            raise InvalidValue(f"a Matrix cannot take a {type(T).__name__} result")

    def _is_empty_fresh(self):
        return self._form == "sparse" and self._indices.shape[0] == 0

    @property
    def device(self):
        return self._be.name

    @property
    def shape(self):
        return (self.nrows, self.ncols)

    @property
    def nvals(self):
        if self._nvals is None:
            self._nvals = self._be.count_nonzero(self._dpres)
        return self._nvals

    @property
    def form(self):
        return self._form

    @property
    def iso(self):
        """True when every stored value is the same and no values array is kept."""
        self._to_sparse()
        return self._iso is not None

    @property
    def iso_value(self):
        return self._iso if self.iso else None

    def _to_sparse(self):
        if self._form == "sparse":
            return
        be = self._be
        xp = be.xp
        if self._dpres is None:
            flat = xp.arange(self.nrows * self.ncols, dtype=np.int64)
            vals = self._dvals.reshape(-1)
        else:
            flat = xp.flatnonzero(self._dpres.reshape(-1))
            vals = self._dvals.reshape(-1)[flat]
        indptr, indices = be.keys_to_csr(flat, self.nrows, self.ncols)
        self._set_csr(indptr, indices, vals)
        self._keys = flat

    def to_sparse_form(self):
        """Switch to the sparse (CSR) storage form; returns self."""
        self._to_sparse()
        return self

    def to_dense_form(self):
        """Switch to the dense storage form; returns self."""
        if self._form == "dense":
            return self
        self._be.check_alloc(self.nrows * self.ncols * (self.dtype.itemsize + 1), "dense form")
        full = self.nvals == self.nrows * self.ncols
        vals, pres = self._dense_arrays()
        self._set_dense(vals, None if full else pres)
        return self

    def _dense_arrays(self):
        if self._form == "dense":
            return self._dvals, self._dpres
        be = self._be
        keys, vals = self._keys_vals()
        dv = be.zeros(self.nrows * self.ncols, self.dtype)
        dp = be.zeros(self.nrows * self.ncols, bool)
        dv[keys] = vals
        dp[keys] = True
        return dv.reshape(self.nrows, self.ncols), dp.reshape(self.nrows, self.ncols)

    def _values_full(self):
        """Values array of the CSR (materialising an iso value)."""
        self._to_sparse()
        if self._vals is not None:
            return self._vals
        return self._be.full(self._indices.shape[0], self._iso, self.dtype)

    def _csr(self, need_vals=True):
        """(indptr, indices, vals) -- vals None when not needed."""
        self._to_sparse()
        return self._indptr, self._indices, (self._values_full() if need_vals else None)

    def _with_values(self, vals, dtype):
        """A new Matrix with this one's structure (its CSR arrays, shared:
        neither ever writes them in place) and ``vals``, one per stored
        entry in CSR order -- values computed per edge (FGLT's common
        neighbour counts), without the checks and sort of ``from_csr``."""
        ip, ix, _ = self._csr(False)
        dt = dtypes.lookup(dtype)
        M = Matrix(dt, self.nrows, self.ncols, device=self.device)
        M._assign_result(CSRResult(ip, ix, self._be.cast(vals, dt), None))
        return M

    def _is_full_diagonal(self):
        """True when this matrix is known, without reading its arrays, to
        hold exactly its main diagonal, every entry present (made by
        ``from_diag`` of a vector with every entry, unchanged since)."""
        d = self._derived
        return d is not None and d.get("full_diagonal", False)

    def _cached(self, key, build):
        """A value derived from the current contents (symmetry, the sparse
        operator of the Krylov methods, component labels, a cast copy),
        computed by ``build()`` once and dropped when the matrix changes --
        every mutation stores new arrays through ``_set_csr``/``_set_dense``,
        which clears it."""
        d = self._derived
        if d is None:
            d = self._derived = {}
        if key not in d:
            d[key] = build()
        return d[key]

    def _csc_parts(self):
        self._to_sparse()
        if self._csc is None:
            csc = self._be.transpose_csr(self._indptr, self._indices, self._vals,
                                         self.nrows, self.ncols)
            if not self.keep_csc:
                return csc
            self._csc = csc
        return self._csc

    def _csc_arrays(self, need_vals=True):
        """(indptr, indices, vals) of the transpose -- the CSC of this matrix."""
        ip, ix, v = self._csc_parts()
        if need_vals and v is None:
            v = self._be.full(ix.shape[0], self._iso, self.dtype)
        return ip, ix, (v if need_vals else None)

    def _keys_vals(self):
        self._to_sparse()
        if self._keys is None:
            self._keys = self._be.csr_to_keys(self._indptr, self._indices, self.ncols)
        return self._keys, self._values_full()

    def _mask_keys(self, structure):
        keys, vals = self._keys_vals()
        if structure:
            return keys
        return keys[vals.astype(bool)]

    @property
    def S(self):
        return Mask(self, True)

    @property
    def V(self):
        return Mask(self, False)

    @property
    def T(self):
        """The transpose: a new Matrix sharing this one's CSC, or, before
        that exists, computed when its CSR is first read (an operation that
        only reads its CSC -- this matrix -- never computes it)."""
        t = Matrix(self.dtype, self.ncols, self.nrows, device=self.device)
        if self._form == "dense":
            t._set_dense(self._dvals.T.copy(), None if self._dpres is None else self._dpres.T.copy())
            return t
        if self._csc is None:
            t._set_lazy_transpose(self)         # transposed when t's CSR is first read
            return t
        ip, ix, v = self._csc_parts()
        t._set_csr(ip, ix, v, self._iso)
        t._csc = (self._indptr, self._indices, self._vals)
        return t

    # ------------------------------------------------------------ construction
    @classmethod
    def from_coo(cls, rows, cols, values=True, nrows=None, ncols=None, *, dtype=None,
                 dup_op=None, device=None):
        """Matrix with ``A[rows[k], cols[k]] = values[k]``.

        A scalar ``values`` gives an iso matrix (no values array stored).
        ``nrows``/``ncols`` default to max index + 1.  Duplicates raise
        :class:`InvalidValue` unless ``dup_op`` combines them.
        """
        from .vector import _dup_op, _infer_size, _on_host
        if getattr(device, "dist_matrix_type", None) is not None:     # graphblast_py.dist
            return device.dist_matrix_type.from_coo(rows, cols, values, nrows, ncols,
                                                    dtype=dtype, dup_op=dup_op, device=device)
        be = backend_for(device)
        if (be.dense_vectors and dup_op is None and _on_host(rows) and _on_host(cols)
                and _on_host(values)
                and (isinstance(rows, (list, tuple)) or getattr(rows, "ndim", 0) == 1)
                and len(rows) <= HOST_BUILD_MAX):
            # a few entries of host data for a device (FGLT's 16 x 16 net
            # transform): checked, sorted and built on the host by the same
            # rules, then moved in one transfer -- a device build waits on the
            # device for its checks and sorts several times
            return cls.from_coo(rows, cols, values, nrows, ncols, dtype=dtype,
                                device="cpu").to(be.name)
        iso = np.ndim(values) == 0 and not (hasattr(values, "shape") and values.shape != ())
        hi = []
        (r, c), vals, dt = coo_arrays(be, (rows, cols), values, dtype, "Matrix.from_coo", hi)
        nrows = _infer_size(be, r, nrows, "Matrix.from_coo", "rows", hi[0])
        ncols = _infer_size(be, c, ncols, "Matrix.from_coo", "cols", hi[1])
        A = cls(dt, nrows, ncols, device=be.name)
        if r.shape[0] == 0:
            return A
        dup = _dup_op(dup_op)
        if iso and dup is not None and dup.name not in ("first", "second", "any", "min", "max",
                                                       "lor", "land"):
            iso = False   # e.g. plus on duplicates: values differ afterwards
        keys, vals, dup_at = be.coo_to_sorted(r, c, ncols, None if iso else vals, dup)
        if dup_at is not None:
            dup_i, dup_j = split_keys(int(dup_at), ncols)
            raise InvalidValue(f"Matrix.from_coo: entry ({dup_i}, {dup_j}) "
                               "appears more than once; pass dup_op=gb.binary.plus (or another "
                               "operator) to combine duplicates")
        indptr, indices = be.keys_to_csr(keys, nrows, ncols)
        if iso:
            A._set_csr(indptr, indices, None, np.asarray(values).astype(dt, casting="unsafe")[()])
        else:
            A._set_csr(indptr, indices, be.cast(vals, dt))
        A._keys = keys
        return A

    @classmethod
    def from_csr(cls, indptr, indices, values=True, ncols=None, *, dtype=None, device=None,
                 check=True):
        """From CSR arrays: ``indptr`` (nrows+1 non-decreasing offsets starting
        at 0), ``indices`` (column indices in ``[0, ncols)``; sorted within each
        row or not) and ``values`` (one per index, or a scalar: an iso matrix).
        Every array is checked in one vectorised pass before anything is built:
        a bad offset or index raises :class:`InvalidIndex` /
        :class:`IndexOutOfBound` naming the first bad position; duplicates
        raise :class:`InvalidValue` (see :meth:`from_coo`).  ``check`` is kept
        for compatibility; the checks always run."""
        be = backend_for(device)
        ip = _index_array(be, indptr, "Matrix.from_csr", "indptr")
        if ip.ndim != 1 or ip.shape[0] < 1:
            raise DimensionMismatch(f"Matrix.from_csr: indptr must be 1-D with nrows+1 entries, "
                                    f"got shape {ip.shape}")
        nrows = ip.shape[0] - 1
        ix = _index_array(be, indices, "Matrix.from_csr", "indices")
        if ix.ndim != 1:
            raise InvalidIndex(f"Matrix.from_csr: indices must be 1-D, got shape {ix.shape}")
        if ncols is not None:
            ncols = check_size(ncols, "Matrix.from_csr ncols")
        ip, ix = check_compressed(be, ip, ix, nrows, ncols, "Matrix.from_csr", exact=True)
        rows = be.rows_of(ip.astype(np.int64), ix.shape[0])
        return cls.from_coo(rows, ix, values, nrows, ncols, dtype=dtype, device=be.name)

    @classmethod
    def from_diag(cls, v, k=0):
        """The square matrix with the entries of Vector ``v`` on its ``k``-th
        diagonal (GraphBLAS ``GrB_Matrix_diag``): ``C[i, i + k] = v[i]`` for
        ``k >= 0``, ``C[i - k, i] = v[i]`` for ``k < 0``; size
        ``v.size + |k|``, ``v``'s type and device, missing entries of ``v``
        missing in C.  Built from v's entries directly (no sort, no checks to
        repeat): scaling the rows or columns of A is ``D.mxm(A)`` /
        ``A.mxm(D)`` with ``D = Matrix.from_diag(d)`` -- one pass over A's
        entries, no product, when ``d`` has every entry and ``k = 0`` (C is
        then known to be a full diagonal until it changes)."""
        if not getattr(v, "_is_vector", False):
            raise InvalidValue(f"Matrix.from_diag: expected a Vector, got {type(v).__name__}")
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
            raise InvalidIndex(f"Matrix.from_diag: the diagonal k must be an integer, got {k!r}")
        k = int(k)
        n = check_size(v.size + abs(k), "Matrix.from_diag size")
        be = v._be
        idx, vals = v._sparse()
        idx = idx.astype(np.int64, copy=False)
        rows = idx - k if k < 0 else idx                 # ascending: the CSR order
        it = dtypes.index_dtype(n)
        full = k == 0 and idx.shape[0] == n              # every diagonal entry present
        # (a full diagonal's rows are 0, 1, ..., n: no count)
        indptr = be.xp.arange(n + 1, dtype=it) if full else be.count_ptr(rows, n).astype(it)
        C = cls(v.dtype, n, n, device=v.device)
        C._set_csr(indptr, (idx + k if k > 0 else idx).astype(it), vals.copy())
        if full:
            # known until C changes (every change clears what _cached keeps):
            # mxm then scales the other operand's rows or columns by it
            C._cached("full_diagonal", lambda: True)
        return C

    @classmethod
    def from_dense(cls, values, *, dtype=None, missing_value=None, device=None):
        """Matrix in dense form from a 2-D array (NumPy or CuPy); entries equal
        to ``missing_value`` (if given) are not stored."""
        be = backend_for(device)
        try:
            a = be.asarray(values)
        except (TypeError, ValueError) as e:
            raise InvalidValue(f"Matrix.from_dense: cannot read the values as an array: {e}") from None
        if a.ndim != 2:
            raise DimensionMismatch(f"Matrix.from_dense needs a 2-D array, got shape {a.shape}")
        if a.dtype.kind not in "biuf":
            raise DomainMismatch(f"Matrix.from_dense: values of dtype {a.dtype} not supported")
        dt = dtypes.lookup(dtype if dtype is not None else a.dtype)
        A = cls(dt, a.shape[0], a.shape[1], device=be.name)
        a = be.xp.array(a, dtype=dt, order="C", copy=True)   # never share the caller's array
        A._set_dense(a, None if missing_value is None else (a != missing_value))
        return A

    @classmethod
    def from_scipy(cls, S, *, dtype=None, device=None):
        """From a SciPy sparse matrix/array or a CuPy (cupyx) sparse matrix.

        The caller's arrays are never trusted: SciPy builds a CSR/CSC/COO with
        an index outside the shape, a negative index or a decreasing
        ``indptr`` without complaint, so every one of them is checked (one
        vectorised pass) before anything is built, raising
        :class:`InvalidIndex` / :class:`IndexOutOfBound` naming the first bad
        position.  Duplicate entries are summed (SciPy's ``sum_duplicates``).
        """
        if not hasattr(S, "tocsr") or not hasattr(S, "shape"):
            raise InvalidValue(f"from_scipy needs a scipy/cupyx sparse matrix, got "
                               f"{type(S).__name__}")
        be = backend_for(device)
        if S.dtype.kind not in "biuf":
            raise DomainMismatch(f"from_scipy: dtype {S.dtype} is not supported")
        nrows, ncols = (check_size(n, "from_scipy shape") for n in S.shape)
        fmt = getattr(S, "format", None)
        what = f"Matrix.from_scipy ({fmt} input)"
        if fmt == "csr":
            check_compressed(be, be.asarray(S.indptr), be.asarray(S.indices), nrows, ncols, what,
                             nvals=S.data.shape[0])
        elif fmt == "csc":
            check_compressed(be, be.asarray(S.indptr), be.asarray(S.indices), ncols, nrows, what,
                             nvals=S.data.shape[0], major="column", minor="row")
        elif fmt == "coo":
            r, c = be.asarray(S.row), be.asarray(S.col)
            for a, nm, n in ((r, "row", nrows), (c, "column", ncols)):
                _check_bounds(be, a, n, what, f"{nm} index", lambda k: f"entry {k}")
        C = S.tocsr(copy=True)   # sum_duplicates sorts in place: never touch the caller's
        C.sum_duplicates()
        if not C.has_sorted_indices:
            C.sort_indices()
        ip = be.asarray(C.indptr)
        ix = be.asarray(C.indices)
        if fmt not in ("csr", "csc", "coo"):
            # other formats (lil, dok, bsr, dia...): check what SciPy converted them to
            ip, ix = check_compressed(be, ip, ix, nrows, ncols, what, nvals=C.data.shape[0])
        else:
            ix = ix[:int(ip[-1])]
        dt = dtypes.lookup(dtype if dtype is not None else C.dtype)
        A = cls(dt, nrows, ncols, device=be.name)
        ip = ip.astype(dtypes.index_dtype(max(ix.shape[0], 1)), copy=False)
        A._set_csr(ip, ix.astype(dtypes.index_dtype(ncols)),
                   be.cast(be.asarray(C.data)[:ix.shape[0]], dt))
        return A

    def to_scipy(self):
        """SciPy CSR matrix (CPU objects) or cupyx CSR matrix (GPU objects)."""
        ip, ix, v = self._csr()
        # copies: the caller may modify the SciPy arrays, which must not change self
        return self._be.sparse_matrix(ip.copy(), ix.copy(), v.copy(), self.shape)

    def to_coo(self):
        """(rows, cols, values) arrays on the matrix's device, in row-major order."""
        ip, ix, v = self._csr()
        rows = self._be.rows_of(ip, ix.shape[0])
        return rows, ix.astype(np.int64), v.copy()

    def to_dense(self, fill=None):
        """2-D array; positions without an entry get ``fill`` (default 0)."""
        self._be.check_alloc(self.nrows * self.ncols * self.dtype.itemsize, "to_dense")
        vals, pres = self._dense_arrays()
        out = vals.copy()
        if pres is not None and fill is not None and fill != 0:
            out[~pres] = fill
        elif pres is not None:
            out[~pres] = 0
        return out

    def to(self, device):
        """A copy on ``device``; self when already there."""
        be = backend_for(device)
        if be is self._be:
            return self
        src = self._be
        A = Matrix(self.dtype, self.nrows, self.ncols, device=be.name)
        mv = lambda a: None if a is None else be.asarray(src.to_host(a))  # noqa: E731
        if self._form == "dense":
            A._set_dense(mv(self._dvals), mv(self._dpres))
        else:
            # (the CSR arrays in one transfer where the backend can)
            have = [a for a in (self._indptr, self._indices, self._vals) if a is not None]
            moved = be.asarrays([src.to_host(a) for a in have])
            A._set_csr(moved[0], moved[1], moved[2] if len(moved) > 2 else None, self._iso)
        return A

    def dup(self, dtype=None):
        dt = self.dtype if dtype is None else dtypes.lookup(dtype)
        A = Matrix(dt, self.nrows, self.ncols, device=self.device)
        if self._form == "dense":
            A._set_dense(self._be.cast(self._dvals, dt), self._dpres)
        else:
            A._set_csr(self._indptr, self._indices,
                       None if self._vals is None else self._be.cast(self._vals, dt), self._iso)
            A._csc = self._csc if dt == self.dtype else None
            A._keys = self._keys
        return A

    def clear(self):
        be = self._be
        self._set_csr(be.zeros(self.nrows + 1, dtypes.index_dtype(0)),
                      be.zeros(0, dtypes.index_dtype(self.ncols)), be.zeros(0, self.dtype))

    # ------------------------------------------------------------ elements
    def _ij(self, key):
        if not (isinstance(key, tuple) and len(key) == 2):
            raise InvalidValue(f"Matrix index must be a pair (i, j), got {key!r}")
        return key

    def __getitem__(self, key):
        i, j = self._ij(key)
        if _scalar(i) and _scalar(j):
            return self.get(i, j, _raise=True)
        from .operations import extract
        return extract.matrix_extract(self, i, j)

    def get(self, i, j, default=None, _raise=False):
        i = check_index(i, self.nrows, "row index")
        j = check_index(j, self.ncols, "column index")
        if self._form == "dense":
            if self._dpres is not None and not bool(self._dpres[i, j]):
                if _raise:
                    raise NoValue(f"no entry at ({i}, {j})")
                return default
            return self._dvals[i, j].item()
        lo, hi = int(self._indptr[i]), int(self._indptr[i + 1])
        row = self._indices[lo:hi]
        p = int(self._be.xp.searchsorted(row, j))
        if p < hi - lo and int(row[p]) == j:
            return self._iso.item() if self._vals is None else self._vals[lo + p].item()
        if _raise:
            raise NoValue(f"no entry at ({i}, {j})")
        return default

    def __setitem__(self, key, value):
        i, j = self._ij(key)
        if not (_scalar(i) and _scalar(j)):
            self.assign(value, i, j)
            return
        i = check_index(i, self.nrows, "row index")
        j = check_index(j, self.ncols, "column index")
        from .vector import _scalar_value
        val = _scalar_value(value, self.dtype, "Matrix element")
        be = self._be
        if self._form == "dense":
            dv = self._dvals.copy()
            dv[i, j] = val
            dp = self._dpres
            if dp is not None:
                dp = dp.copy()
                dp[i, j] = True
            self._set_dense(dv, dp)
            return
        from .operations.output import union
        from .operators import binary
        keys, vals = self._keys_vals()
        k = be.xp.asarray([i * self.ncols + j], dtype=np.int64)
        keys, vals = union(be, keys, vals, k, be.xp.asarray([val], dtype=self.dtype),
                           binary.second, self.dtype)
        self._assign_result(SparseResult(keys, vals))

    def __delitem__(self, key):
        i, j = self._ij(key)
        i = check_index(i, self.nrows, "row index")
        j = check_index(j, self.ncols, "column index")
        if self._form == "dense":
            dp = self._dpres.copy() if self._dpres is not None else \
                self._be.xp.ones(self.shape, dtype=bool)
            dp[i, j] = False
            self._set_dense(self._dvals, dp)
            return
        keys, vals = self._keys_vals()
        keep = keys != i * self.ncols + j
        self._assign_result(SparseResult(keys[keep], vals[keep]))

    def __bool__(self):
        raise InvalidValue("the truth value of a Matrix is ambiguous: use .nvals")

    def __len__(self):
        raise TypeError("len() of a Matrix is ambiguous: use .nrows, .ncols or .nvals")

    # ------------------------------------------------------------ comparison
    def isequal(self, other, check_dtype=False):
        """Same shape, same stored positions and equal values."""
        return same_entries(self, other, check_dtype, equal_values)

    def isclose(self, other, rel_tol=1e-7, abs_tol=0.0, check_dtype=False):
        """Same shape and stored positions; values equal within the tolerances
        (NaN equals NaN)."""
        return same_entries(self, other, check_dtype, close_values(rel_tol, abs_tol))

    # mutable, compared with isequal/isclose: == raises, not hashable
    __eq__ = __ne__ = refuse_comparison("Matrix")
    __hash__ = None

    def __repr__(self):
        """Shape, type, storage and the first few entries in row-major order
        (``REPR_ENTRIES`` of them), as python-graphblas shows them."""
        iso = " iso" if self._form == "sparse" and self._iso is not None else ""
        return (f"<Matrix {self.nrows}x{self.ncols} nvals={self.nvals} dtype={self.dtype}{iso} "
                f"device={self.device!r} form={self._form!r} {self._repr_entries()}>")

    def _repr_entries(self):
        k = REPR_ENTRIES
        be = self._be
        if self._form == "sparse":
            ix = be.to_host(self._indices[:k]).astype(np.int64)
            # the row of entry t is the last r with indptr[r] <= t
            t = be.xp.arange(ix.shape[0], dtype=self._indptr.dtype)
            rows = be.to_host(be.xp.searchsorted(self._indptr, t, side="right")) - 1
            vals = (np.full(ix.shape[0], self._iso) if self._vals is None
                    else be.to_host(self._vals[:k]))
        else:
            flat, vals = _first_present(be, self._dvals.reshape(-1),
                                        None if self._dpres is None else self._dpres.reshape(-1),
                                        k)
            rows, ix = split_keys(flat.astype(np.int64, copy=False), self.ncols)
        items = ", ".join(f"({int(r)}, {int(c)}): {v.item()!r}" for r, c, v in zip(rows, ix, vals))
        more = ", ..." if self.nvals > len(vals) else ""
        return "{" + items + more + "}"


REPR_ENTRIES = 8   # entries shown by repr()
#: host COO data of at most this many entries for a device is built on the
#: host and moved (Matrix.from_coo)
HOST_BUILD_MAX = 1 << 16


def _first_present(be, vals, pres, k):
    """(positions, values) of the first ``k`` present entries of flat dense
    arrays, scanning a block at a time (never the whole array when the first
    entries are near the front); host arrays."""
    n = vals.shape[0]
    if pres is None:
        m = min(k, n)
        return np.arange(m, dtype=np.int64), be.to_host(vals[:m])
    found, start, block = [], 0, 4096
    while start < n and sum(f.shape[0] for f in found) < k:
        p = be.to_host(pres[start:start + block])
        found.append(np.flatnonzero(p) + start)
        start += block
        block *= 4
    pos = np.concatenate(found)[:k] if found else np.zeros(0, np.int64)
    return pos, be.to_host(vals[be.xp.asarray(pos)]) if pos.shape[0] else np.zeros(0, vals.dtype)


def _scalar(i):
    return isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))


# ---------------------------------------------------------------- input checks
def _index_array(be, x, what, name):
    """An integer array on the backend (never bool, float or object)."""
    try:
        a = be.asarray(x)
    except (TypeError, ValueError) as e:
        raise InvalidIndex(f"{what}: cannot read {name} as an array: {e}") from None
    if a.dtype.kind not in "iu":
        if a.ndim == 1 and a.shape[0] == 0:
            return a.astype(np.int64)
        raise InvalidIndex(f"{what}: {name} must have an integer dtype, got {a.dtype}")
    return a


def _first(be, bad):
    return int(be.xp.argmax(bad))


def _check_bounds(be, a, n, what, name, where):
    """Raise IndexOutOfBound naming the first entry of ``a`` outside [0, n)."""
    if a.dtype.kind not in "iu":
        raise InvalidIndex(f"{what}: {name}s must have an integer dtype, got {a.dtype}")
    if a.shape[0] == 0:
        return
    bad = a >= n if a.dtype.kind == "u" else (a < 0) | (a >= n)
    if bool(bad.any()):
        k = _first(be, bad)
        raise IndexOutOfBound(f"{what}: {name} {int(a[k])} at {where(k)} is outside [0, {n})")


def check_compressed(be, ip, ix, nmajor, nminor, what, nvals=None, exact=False,
                     major="row", minor="column"):
    """Validate compressed (CSR/CSC) arrays in one vectorised pass and return
    ``(indptr, indices[:nnz])``.  ``nminor=None``: no upper bound on the
    indices (inferred later).  Raises before anything is built, naming the
    first bad position."""
    for a, nm in ((ip, "indptr"), (ix, "indices")):
        if a.dtype.kind not in "iu":
            raise InvalidIndex(f"{what}: {nm} must have an integer dtype, got {a.dtype}")
    if ip.ndim != 1 or ip.shape[0] != nmajor + 1:
        raise DimensionMismatch(f"{what}: indptr must hold {nmajor + 1} entries ({major}s + 1), "
                                f"got shape {ip.shape}")
    if ix.ndim != 1:
        raise InvalidIndex(f"{what}: indices must be 1-D, got shape {ix.shape}")
    if ip.dtype.kind == "u" and ip.dtype.itemsize == 8 and int(ip.max()) >= 2**63:
        k = _first(be, ip >= np.uint64(2**63))
        raise InvalidIndex(f"{what}: indptr[{k}] = {int(ip[k])} is too large")
    p = ip.astype(np.int64, copy=False)
    if int(p[0]) != 0:
        raise InvalidIndex(f"{what}: indptr[0] must be 0, got {int(p[0])}")
    if nmajor:
        dec = p[1:] < p[:-1]
        if bool(dec.any()):
            k = _first(be, dec)
            raise InvalidIndex(f"{what}: indptr decreases at {major} {k}: indptr[{k}] = "
                               f"{int(p[k])} > indptr[{k + 1}] = {int(p[k + 1])} (the offsets "
                               "must be non-decreasing)")
    nnz = int(p[-1])
    if nnz > ix.shape[0] or (exact and nnz != ix.shape[0]):
        raise InvalidIndex(f"{what}: indptr[-1] = {nnz} but there are {ix.shape[0]} {minor} "
                           "indices")
    if nvals is not None and nvals < nnz:
        raise DimensionMismatch(f"{what}: indptr[-1] = {nnz} but there are only {nvals} values")
    ix = ix[:nnz]
    if nnz:
        if ix.dtype.kind == "u":
            bad = ix >= (nminor if nminor is not None else 2**63)
        else:
            bad = (ix < 0) if nminor is None else ((ix < 0) | (ix >= nminor))
        if bool(bad.any()):
            k = _first(be, bad)
            r = int(be.xp.searchsorted(p, be.xp.asarray([k], dtype=p.dtype), side="right")[0]) - 1
            rng = f"[0, {nminor})" if nminor is not None else "[0, 2**63)"
            raise IndexOutOfBound(f"{what}: {minor} index {int(ix[k])} at position {k} ({major} "
                                  f"{r}) is outside {rng}")
    return ip, ix
