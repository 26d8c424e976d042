"""DistMatrix and DistVector: objects split 1-D by rows over Dask workers.

A :class:`DistMatrix` holds row block ``R_b = A[I_b, :]`` on worker ``b``
(``I_b`` the rows of block ``b``) and, built on first need by one
all-to-all, column block ``C_b = A[:, I_b]``.  A :class:`DistVector` holds
``v[I_b]`` on worker ``b``.  Every block is an ordinary gb.Matrix/gb.Vector,
so each block runs the single-process operation, with its own push/pull
choice:

* ``A.mxv(u)``: ``w[I_b] = R_b u``; ``u.vxm(A)``: ``w[I_b] = u C_b``.  The
  input ``u`` is gathered to every block once per call (its blocks' index or
  value/bitmap arrays, moved worker to worker by Dask).
* element-wise operations, ``apply``, ``select``, ``assign`` (whole vector),
  ``reduce_rowwise``: block by block, no communication; ``reduce``,
  ``nvals``, ``isequal``: one number per block, combined on the client with
  the same monoid.

The classes subclass gb.Matrix/gb.Vector so the algorithms' checks accept
them; a base-class method that is not provided here raises
:class:`NotDistributed` instead of touching storage that is not there.
"""
import itertools

import numpy as np

from .. import dtypes
from ..errors import DimensionMismatch, DeviceMismatch, InvalidValue, NoValue
from ..indexing import check_size
from ..mask import Mask, check_mask
from ..matrix import Matrix
from ..operators.core import BinaryOp, IndexUnaryOp, Monoid, Semiring, UnaryOp
from ..vector import Vector
from . import _blocks as B
from .layout import Layout, NotDistributed

#: DistVector._gen: a new number whenever a DistVector's blocks change
_GENERATIONS = itertools.count(1)
_KINDS = ((Semiring, "semiring"), (Monoid, "monoid"), (BinaryOp, "binary"),
          (IndexUnaryOp, "indexunary"), (UnaryOp, "unary"))

# index-unary ops of the row index i: i -> i + offset is a thunk change
_THUNK_PLUS = {"rowindex", "tril", "triu", "diag", "offdiag", "diagindex"}
_THUNK_MINUS = {"rowle", "rowgt"}


def _portable(op, what):
    """An operator as (tag, kind, name) that the worker resolves again;
    names and predefined objects only."""
    from .. import operators
    if op is None or isinstance(op, str):
        return op
    for cls, kind in _KINDS:
        if isinstance(op, cls):
            if not getattr(op, "is_user", False) and \
                    getattr(getattr(operators, kind), op.name, None) is op:
                return (B.OP, kind, op.name)
            break
    raise NotDistributed(f"{what}: only predefined operators (or their names) can be used on "
                         f"distributed objects, got {op!r}")


def _resolve(op, kind):
    from .. import operators
    if isinstance(op, str):
        if kind == "indexunary":
            from ..operators import predefined
            return predefined.lookup("indexunary", op)
        return getattr(getattr(operators, kind), op, op)
    return op


def _no_storage(self, name):
    raise NotDistributed(f"{type(self).__name__}: {name} is not available on a distributed "
                         "object (its blocks live on Dask workers); gather() it to a local "
                         "object first")


class _Dist:
    """What DistMatrix and DistVector share: the layout and block tasks."""

    _gb_distributed = True

    def __getattr__(self, name):
        # base-class code reaching for storage fields lands here
        if name.startswith("__"):
            raise AttributeError(name)
        _no_storage(self, name)

    @property
    def device(self):
        return self._layout

    @property
    def form(self):
        return "distributed"

    def _same_layout(self, other, what, name):
        if not isinstance(other, _Dist):
            raise DeviceMismatch(f"{what}: {name} is a local {type(other).__name__} but the "
                                 f"operation runs on distributed objects; distribute it with "
                                 f"gb.dist.distribute(x, layout)")
        if other._layout.client is not self._layout.client or \
                other._layout.workers != self._layout.workers:
            raise DeviceMismatch(f"{what}: {name} lives on other Dask workers")

    def _encode(self, x, b, what, name="an argument"):
        """An argument of block ``b``'s task."""
        if isinstance(x, Mask):
            p = x.parent
            self._same_layout(p, what, "the mask")
            return (B.MASK, p._blocks_of(b), x.structure, x.complement)
        if isinstance(x, _Dist):
            self._same_layout(x, what, name)
            return x._blocks_of(b)
        if isinstance(x, (Vector, Matrix)):
            self._same_layout(x, what, name)
        if isinstance(x, (Semiring, Monoid, BinaryOp, IndexUnaryOp, UnaryOp)):
            return _portable(x, what)
        return x

    # element-wise operations: the single-process one on the aligned blocks
    def ewise_add(self, other, op, *, mask=None, accum=None, replace=False, out=None):
        return _elementwise(self, "ewise_add", (other, op), dict(mask=mask, accum=accum,
                                                                 replace=replace), out)

    def ewise_mult(self, other, op, *, mask=None, accum=None, replace=False, out=None):
        return _elementwise(self, "ewise_mult", (other, op), dict(mask=mask, accum=accum,
                                                                  replace=replace), out)

    def apply(self, op, *, left=None, right=None, thunk=None, mask=None, accum=None,
              replace=False, out=None):
        return _apply_select(self, "apply", op, dict(left=left, right=right, thunk=thunk),
                             dict(mask=mask, accum=accum, replace=replace), out)

    def select(self, op, thunk=None, *, mask=None, accum=None, replace=False, out=None):
        return _apply_select(self, "select", op, dict(thunk=thunk),
                             dict(mask=mask, accum=accum, replace=replace), out)

    def _coo_parts(self):
        """Every block's entries in global numbering (gathered to the client)."""
        lay = self._layout
        return lay.gather(lay.map("gather", B.coo, lambda b: (self._blocks_of(b),
                                                               lay.offsets[b])), "gather")

    def _gather_blocks(self, step, fn, *args):
        lay = self._layout
        futs = lay.map(step, fn, lambda b: (self._blocks_of(b),) + args)
        return lay.gather(futs, step)


class DistVector(_Dist, Vector):
    """A Vector split into contiguous blocks, one per Dask worker.
    ``DistVector(dtype, size, device=layout)`` is empty; algorithms make one
    with ``Vector(dtype, n, device=A.device)``."""

    def __init__(self, dtype=dtypes.FP64, size=0, *, device=None, form="sparse", _blocks=None):
        if not isinstance(device, Layout):
            raise InvalidValue(f"DistVector: device must be a gb.dist.Layout, got {device!r}")
        self.dtype = dtypes.lookup(dtype)
        self.size = check_size(size, "Vector size")
        lay = self._layout = device.for_size(self.size)
        if _blocks is None:
            _blocks = lay.map("new", B.new_vector, lambda b: (self.dtype, lay.block_size(b)))
        self._blocks = list(_blocks)

    @property
    def _blocks(self):
        return self.__blocks

    @_blocks.setter
    def _blocks(self, blocks):
        # every change of the blocks goes through here, on every worker of a
        # gb.dist.run alike: _gen names the content (the SPMD layout keys
        # what it learnt about the vector by it, e.g. nvals' header)
        self.__blocks = blocks
        self._gen = next(_GENERATIONS)

    def _blocks_of(self, b):
        return self._blocks[b]

    def _new(self, dtype, blocks, size=None):
        return DistVector(dtype, self.size if size is None else size, device=self._layout,
                          _blocks=blocks)

    # ------------------------------------------------------------ construction
    @classmethod
    def from_coo(cls, indices, values=True, size=None, *, dtype=None, dup_op=None, device=None):
        """Checked and combined as ``Vector.from_coo`` on the client, then split.
        Inside :func:`gb.dist.run` every worker holds the same arrays: each
        checks them, keeps its block's entries and builds its block on its
        device."""
        if getattr(device, "spmd", False):
            return device.vector_from_coo(indices, values, size, dtype, dup_op)
        if isinstance(indices, _Dist):       # an index DistVector: built on the client
            if device is None:
                device = indices._layout
            if isinstance(values, _Dist):
                indices._same_layout(values, "Vector.from_coo", "the value vector")
                values = values.gather()
            indices = indices.gather()
        v = Vector.from_coo(indices, values, size, dtype=dtype, dup_op=dup_op, device="cpu")
        return distribute(v, device)

    @classmethod
    def from_vector(cls, v, layout):
        lay = layout.for_size(v.size)
        idx, vals = (np.asarray(a) for a in v.to("cpu").to_coo())
        cut = np.concatenate([[0], lay.split(idx), [idx.shape[0]]])
        blocks = [_scatter(lay, b, (lay.block_size(b), v.dtype, idx[cut[b]:cut[b + 1]] -
                                    lay.offsets[b], vals[cut[b]:cut[b + 1]]))
                  for b in range(lay.nblocks)]
        blocks = lay.map("from_vector", _from_parts, lambda b: (blocks[b],))
        return DistVector(v.dtype, v.size, device=lay, _blocks=blocks)

    def gather(self):
        """The whole vector as a local gb.Vector on the client (CPU)."""
        parts = self._coo_parts()
        idx, vals = (np.concatenate([p[k] for p in parts]) for k in range(2))
        return Vector.from_coo(idx, vals, size=self.size, dtype=self.dtype, device="cpu")

    # ------------------------------------------------------------ reading
    @property
    def nvals(self):
        if getattr(self._layout, "spmd", False):
            return self._layout.vector_nvals(self)
        return int(sum(self._gather_blocks("nvals", B.attr, "nvals")))

    def _nvals_estimate(self):
        return self.nvals

    def _whole(self):
        """The whole vector as a local one: on the client (task mode), or on
        every worker's device, all-gathered (inside gb.dist.run)."""
        if getattr(self._layout, "spmd", False):
            return B.assemble(self._layout.exchange(self, "to_coo"), None, None, None)
        return self.gather()

    def to_coo(self):
        """(indices, values): NumPy arrays on the client; inside gb.dist.run
        the arrays of every worker's device (the same on all)."""
        return self._whole().to_coo()

    def to_dense(self, fill=None):
        return self._whole().to_dense(fill=fill)

    def to(self, device):
        return self.gather().to(device)

    def get(self, index, default=None, _raise=False):
        from ..indexing import check_index
        i = check_index(index, self.size, "Vector index")
        lay = self._layout
        b = int(np.searchsorted(lay.offsets, i, side="right")) - 1
        fut = lay.submit(b, "get", B.call, self._blocks[b], "get",
                         (i - lay.offsets[b], default), {}, False)
        val = lay.gather([fut], "get")[0]
        if val is default and _raise:
            raise NoValue(f"no entry at index {i}")
        return val

    def __getitem__(self, index):
        return self.get(index, _raise=True)

    def __repr__(self):
        return (f"<DistVector size={self.size} dtype={self.dtype} blocks={self._layout.nblocks} "
                f"device={self._layout!r}>")

    def isequal(self, other, check_dtype=False):
        return self._compare("isequal", other, check_dtype, {})

    def isclose(self, other, rel_tol=1e-7, abs_tol=0.0, check_dtype=False):
        return self._compare("isclose", other, check_dtype,
                             {"rel_tol": rel_tol, "abs_tol": abs_tol})

    def _compare(self, name, other, check_dtype, kw):
        if not isinstance(other, DistVector):
            return getattr(self.gather(), name)(other, check_dtype=check_dtype, **kw)
        if other.size != self.size or (check_dtype and other.dtype != self.dtype):
            return False
        self._same_layout(other, name, "the other vector")
        lay = self._layout
        return all(lay.gather(lay.map(name, B.call, lambda b: (
            self._blocks[b], name, (other._blocks[b],), dict(kw, check_dtype=check_dtype),
            False)), name))

    # ------------------------------------------------------------ operations
    def dup(self, dtype=None):
        dt = self.dtype if dtype is None else dtypes.lookup(dtype)
        blocks = self._layout.map("dup", B.call, lambda b: (self._blocks[b], "dup", (dt,), {},
                                                            False))
        return self._new(dt, blocks)

    def clear(self):
        self._blocks = self._layout.map("clear", B.new_vector,
                                        lambda b: (self.dtype, self._layout.block_size(b)))

    def reduce(self, monoid="plus"):
        return _reduce(self, "reduce", monoid, lambda: Vector(self.dtype, 0, device="cpu"))

    def assign(self, value, indices=None, *, mask=None, accum=None, replace=False):
        """``w<mask> = accum(w, value)`` over the whole vector (a scalar or an
        aligned DistVector); index lists are not supported."""
        if indices is not None and not (isinstance(indices, slice) and indices == slice(None)):
            raise NotDistributed("DistVector.assign: only whole-vector assignment "
                                 "(indices=None) is supported")
        check_mask(mask, self.shape, "assign")
        if isinstance(value, (Vector, Matrix)) and not isinstance(value, _Dist):
            self._same_layout(value, "assign", "value")
        if isinstance(value, _Dist) and value.shape != self.shape:
            raise DimensionMismatch(f"assign: value has size {value.size} but the vector has "
                                    f"size {self.size}")
        if not isinstance(value, _Dist):
            _checked(("assign", self, value, accum), lambda: (Vector(
                self.dtype, 0, device="cpu").assign(value, accum=_resolve(accum, "binary")),
                True)[1])
        self._blocks = _blockwise(self, "assign", (value,), {"mask": mask, "accum": accum,
                                                              "replace": replace}, mutate=True)
        return self


    def ewise_union(self, other, op, left_default, right_default, *, mask=None, accum=None,
                    replace=False, out=None):
        return _elementwise(self, "ewise_union", (other, op, left_default, right_default),
                            dict(mask=mask, accum=accum, replace=replace), out)


    def vxm(self, A, semiring, *, mask=None, accum=None, replace=False, out=None,
            direction="auto", pull_input=None, structure_only=True, mask_first=True,
            early_exit=True):
        """``w = u (+).(x) A``: ``u`` gathered to every block, block ``b``
        computes ``u C_b``.  ``pull_input`` is accepted and not used (it gives
        the same result as ``u`` by definition; gathering it too made BFS
        slower on 4 GPUs, see docs/distributed.md)."""
        return _matvec("vxm", A, self, semiring, mask, accum, replace, out,
                       dict(direction=direction, structure_only=structure_only,
                            mask_first=mask_first, early_exit=early_exit))

    def extract(self, indices, *, mask=None, accum=None, replace=False, out=None):
        """``w = u[indices]`` (an index array of the output's size, or an
        index DistVector: see ``Vector.extract``): ``u`` is gathered to every
        block, block ``b`` takes its part of ``indices`` (of an index
        DistVector, its own block: nothing more is sent)."""
        if isinstance(indices, Vector):
            return self._extract_by_vector(indices, mask, accum, replace, out)
        spmd = getattr(self._layout, "spmd", False)
        idx = self._layout.asarray(indices) if spmd else np.asarray(indices)
        if idx.ndim != 1 or idx.dtype.kind not in "iu":
            raise NotDistributed("DistVector.extract: indices must be a 1-D integer array")
        if idx.shape[0] and (int(idx.min()) < 0 or int(idx.max()) >= self.size):
            from ..errors import IndexOutOfBound
            idx = self._layout.to_host(idx) if spmd else idx
            bad = int(np.flatnonzero((idx < 0) | (idx >= self.size))[0])
            raise IndexOutOfBound(f"extract: indices[{bad}] = {int(idx[bad])} is outside "
                                  f"[0, {self.size})")
        m = idx.shape[0]
        lay_out = self._layout.for_size(m)
        return self._extract_blocks(lay_out, m, lambda b: idx[lay_out.offsets[b]:
                                                              lay_out.offsets[b + 1]],
                                    mask, accum, replace, out, lay_out.map)

    def _extract_by_vector(self, iv, mask, accum, replace, out):
        from ..vector import check_index_vector
        self._same_layout(iv, "extract", "the index vector")
        check_index_vector(iv, "extract")
        if out is not None:
            self._same_layout(out, "extract", "out")
        # an index outside u raises on the block that holds it: on every
        # worker alike inside gb.dist.run (agreed)
        return self._extract_blocks(iv._layout, iv.size, lambda b: iv._blocks[b], mask, accum,
                                    replace, out, iv._layout.map_agreed)

    def _extract_blocks(self, lay_out, m, index_of, mask, accum, replace, out, run):
        """``w = u[indices]`` of size ``m`` split like ``lay_out``: ``u``
        gathered to every block, block ``b`` reading ``index_of(b)`` (its
        part of an index array, or its block of an index DistVector), one
        task per block through ``run`` (the layout's map or map_agreed)."""
        check_mask(mask, (m,), "extract")
        if out is not None and out.size != m:
            raise DimensionMismatch(f"extract: out has size {out.size}, the result {m}")
        parts = _exports(self, "extract")
        offs = self._layout.offsets
        kw = {"accum": _portable(accum, "extract"), "replace": replace}
        blocks = run("extract", B.extract, lambda b: (
            parts, offs, self.size, self.dtype, index_of(b), kw,
            None if out is None else (B.OUT, out._blocks[b]),
            None if mask is None else self._encode(mask, b, "extract")))
        if out is None:
            return DistVector(self.dtype, m, device=lay_out, _blocks=blocks)
        out._blocks = blocks
        return out


class DistMatrix(_Dist, Matrix):
    """A Matrix split by rows into one block per Dask worker."""

    def __init__(self, dtype, nrows, ncols, *, layout, rows, cols=None):
        self.dtype = dtypes.lookup(dtype)
        self.nrows, self.ncols = nrows, ncols
        self._layout = layout.for_size(nrows)
        self._rows = list(rows)
        self._cols = None if cols is None else list(cols)
        self._derived = None
        self._nvals = None

    def _blocks_of(self, b):
        return self._rows[b]

    def _cached(self, key, build):
        """As ``Matrix._cached``.  Inside gb.dist.run a plain value (the
        symmetry check's answer) is kept with this worker's row block, which
        outlives the run's DistMatrix: the next run on the same matrix finds
        it (every worker computed and keeps the same value, so all of them
        skip the collective build alike)."""
        lay = self._layout
        if not getattr(lay, "spmd", False):
            return Matrix._cached(self, key, build)
        store = kept_values(self._rows[lay.rank], self.nrows, self.ncols)
        if key in store:
            return store[key]
        value = Matrix._cached(self, key, build)
        if value is None or isinstance(value, (bool, int, float, str)):
            store[key] = value
        return value

    # ------------------------------------------------------------ construction
    @classmethod
    def from_matrix(cls, M, layout):
        """Split a local Matrix by rows (blocks sent from the client)."""
        lay = layout.for_size(M.nrows)
        r, c, v = (np.asarray(a) for a in M.to("cpu").to_coo())
        iso = M.iso_value if M.nvals and M.iso else None
        cut = np.concatenate([[0], lay.split(r), [r.shape[0]]])
        rows = []
        for b in range(lay.nblocks):
            s = slice(cut[b], cut[b + 1])
            data = _scatter(lay, b, (lay.block_size(b), M.ncols, M.dtype, r[s] - lay.offsets[b],
                                     c[s], None if iso is not None else v[s], iso))
            rows.append(lay.submit(b, "from_matrix", _from_coo_parts, data))
        return DistMatrix(M.dtype, M.nrows, M.ncols, layout=lay, rows=rows)

    @classmethod
    def from_coo(cls, rows, cols, values=True, nrows=None, ncols=None, *, dtype=None,
                 dup_op=None, device=None):
        """Checked and combined as ``Matrix.from_coo`` on the client, then split.
        Inside :func:`gb.dist.run`: every worker checks the arrays (the same
        on all) and builds its row block from its rows on its device."""
        if getattr(device, "spmd", False):
            return device.matrix_from_coo(rows, cols, values, nrows, ncols, dtype, dup_op)
        M = Matrix.from_coo(rows, cols, values, nrows, ncols, dtype=dtype, dup_op=dup_op,
                            device="cpu")
        return distribute(M, device)

    def gather(self):
        """The whole matrix as a local gb.Matrix on the client (CPU)."""
        r, c, v = self.to_coo()
        return Matrix.from_coo(r, c, v, self.nrows, self.ncols, dtype=self.dtype, device="cpu")

    def to_coo(self):
        parts = self._coo_parts()
        cat = [np.concatenate([p[k] for p in parts]) for k in range(3)]
        return cat[0], cat[1].astype(np.int64), cat[2]

    def to(self, device):
        return self.gather().to(device)

    # ------------------------------------------------------------ reading
    @property
    def nvals(self):
        if self._nvals is None:
            self._nvals = int(sum(self._gather_blocks("nvals", B.attr, "nvals")))
        return self._nvals

    @property
    def iso(self):
        return False

    def __repr__(self):
        return (f"<DistMatrix {self.nrows}x{self.ncols} dtype={self.dtype} "
                f"blocks={self._layout.nblocks} device={self._layout!r}>")

    def _column_blocks(self):
        """``C_b = A[:, I_b]`` on worker ``b``: one all-to-all of the row
        blocks' pieces (built once, kept while the matrix is unchanged)."""
        if self._cols is None:
            lay = self._layout
            if getattr(lay, "spmd", False):
                raise NotDistributed("the column blocks of a DistMatrix made inside "
                                     "gb.dist.run are not built (an all-to-all); build them "
                                     "before the run (gb.dist.run does for its arguments)")
            clay = lay.for_size(self.ncols)
            isos = lay.gather(lay.map("columns", B.iso_value, lambda b: (self._rows[b],)),
                              "columns")
            full = [i for i in isos if not (isinstance(i, str) and i == "empty")]
            iso = full[0] if full and all(i is not None and i == full[0] for i in full) \
                else None
            pieces = [[lay.submit(b, "columns", B.column_piece, self._rows[b],
                                  clay.offsets[c], clay.offsets[c + 1], lay.offsets[b])
                       for c in range(clay.nblocks)] for b in range(lay.nblocks)]
            self._cols = clay.map("columns", B.column_block, lambda c: (
                [pieces[b][c] for b in range(lay.nblocks)], self.nrows, clay.block_size(c),
                self.dtype, iso))
        return self._cols

    @property
    def T(self):
        """The transpose (its row blocks are this matrix's column blocks,
        transposed on their workers)."""
        cols = self._column_blocks()
        clay = self._layout.for_size(self.ncols)
        rows_t = clay.map("transpose", B.transpose, lambda b: (cols[b],))
        cols_t = self._layout.map("transpose", B.transpose, lambda b: (self._rows[b],))
        return DistMatrix(self.dtype, self.ncols, self.nrows, layout=clay, rows=rows_t,
                          cols=cols_t)

    # ------------------------------------------------------------ operations
    def dup(self, dtype=None):
        dt = self.dtype if dtype is None else dtypes.lookup(dtype)
        rows = self._layout.map("dup", B.call, lambda b: (self._rows[b], "dup", (dt,), {},
                                                          False))
        return DistMatrix(dt, self.nrows, self.ncols, layout=self._layout, rows=rows)

    def mxv(self, u, semiring, *, mask=None, accum=None, replace=False, out=None,
            direction="auto", pull_input=None, structure_only=True, mask_first=True,
            early_exit=True):
        """``w = A (+).(x) u``: ``u`` gathered to every block, block ``b``
        computes ``R_b u``; ``pull_input`` is accepted and not used."""
        return _matvec("mxv", self, u, semiring, mask, accum, replace, out,
                       dict(direction=direction, structure_only=structure_only,
                            mask_first=mask_first, early_exit=early_exit))

    def reduce_rowwise(self, monoid="plus", *, mask=None, accum=None, replace=False, out=None):
        check_mask(mask, (self.nrows,), "reduce_rowwise")
        stand_in = Matrix(self.dtype, 0, 0, device="cpu").reduce_rowwise(
            _resolve(monoid, "monoid"))
        kw = dict(mask=mask, accum=accum, replace=replace)
        return _finish(self, "reduce_rowwise", (monoid,), kw, out, stand_in.dtype, self.nrows)

    def reduce_scalar(self, monoid="plus"):
        return _reduce(self, "reduce_scalar", monoid,
                       lambda: Matrix(self.dtype, 0, 0, device="cpu"))




# ---------------------------------------------------------------- helpers
def distribute(x, layout):
    """A DistMatrix / DistVector split like ``layout`` from a local gb.Matrix /
    gb.Vector (any device; its data pass through the client)."""
    if not isinstance(layout, Layout):
        raise InvalidValue(f"distribute: layout must be a gb.dist.Layout, got {layout!r}")
    if isinstance(x, _Dist):
        return x
    if isinstance(x, Matrix):
        return DistMatrix.from_matrix(x, layout)
    if isinstance(x, Vector):
        return DistVector.from_vector(x, layout)
    from ..checks import check_matrix
    return DistMatrix.from_matrix(check_matrix(x, "distribute", square=False, weighted=True),
                                  layout)


def _scatter(lay, b, data):
    """Send one block's data (a tuple of arrays) to its worker."""
    return lay.scatter(b, data)


def _from_parts(data):
    size, dtype, idx, vals = data
    return B.vector_from_parts(size, dtype, idx, vals)


def _from_coo_parts(data):
    nrows, ncols, dtype, r, c, v, iso = data
    if r.shape[0] == 0:
        return Matrix(dtype, nrows, ncols, device=B.BLOCK_DEVICE)
    return B.matrix_from_coo(nrows, ncols, dtype, r, c, v, iso)


def _exports(v, step, values=True):
    return v._layout.exchange(v, step, values)


def _blockwise(x, step, args, kwargs, mutate, per_block=None, out=None):
    """One task per block running the single-process method on the blocks."""
    lay = x._layout

    def args_of(b):
        kw = {k: x._encode(v, b, step) for k, v in kwargs.items()}
        if per_block is not None:
            kw.update(per_block(b))
        if out is not None:
            kw["out"] = (B.OUT, out._blocks_of(b))
        return (x._blocks_of(b), step, tuple(x._encode(a, b, step) for a in args), kw, mutate)
    return lay.map(step, B.call, args_of)


_CHECKED = {}


def _key_part(a):
    """A hashable description of an argument for the stand-in cache: objects
    by type and dtype, scalars by type and value, operators as themselves."""
    if isinstance(a, (Vector, Matrix)):
        return (type(a).__name__ if not isinstance(a, _Dist) else
                ("V" if isinstance(a, Vector) else "M"), a.dtype)
    if isinstance(a, Mask):
        return ("mask",)
    if isinstance(a, (list, tuple)):
        return tuple(_key_part(x) for x in a)
    if isinstance(a, dict):
        return tuple(sorted((k, _key_part(v)) for k, v in a.items()))
    return (type(a), a)


def _checked(key, compute):
    """``compute()`` (a stand-in operation on empty local objects that checks
    the arguments and gives the result dtype), once per distinct ``key``:
    the same types of arguments give the same answer, so the SPMD hot loop
    does not redo it every iteration.  Errors are not cached."""
    try:
        k = _key_part(key)
        hash(k)
    except TypeError:
        return compute()
    got = _CHECKED.get(k)
    if got is None:
        got = _CHECKED[k] = compute()
    return got


def _stand_in(x):
    """A local empty object of x's type and dtype (for the result type)."""
    if isinstance(x, Matrix):
        return Matrix(x.dtype, 0, 0, device="cpu")
    if isinstance(x, Vector):
        return Vector(x.dtype, 0, device="cpu")
    return x


def _check_shapes(x, step, others, mask, out):
    for name, o in others:
        if isinstance(o, (Vector, Matrix)):
            if not isinstance(o, _Dist):
                x._same_layout(o, step, name)
            if o.shape != x.shape:
                raise DimensionMismatch(f"{step}: {name} has shape {o.shape} but the input has "
                                        f"shape {x.shape}")
    check_mask(mask, x.shape, step)
    if out is not None:
        if not isinstance(out, _Dist):
            x._same_layout(out, step, "out")
        if out.shape != x.shape:
            raise DimensionMismatch(f"{step}: out has shape {out.shape} but the result has "
                                    f"shape {x.shape}")


def _elementwise(x, step, args, kwargs, out):
    other = args[0]
    _check_shapes(x, step, [("the other operand", other)], kwargs.get("mask"), out)
    dt = _checked(("ew", step, x, args), lambda: getattr(_stand_in(x), step)(
        *[_stand_in(a) for a in args[:1]], _resolve(args[1], "binary"),
        *[_stand_in(a) for a in args[2:]]).dtype)
    return _finish(x, step, args, kwargs, out, dt, None)


def _finish(x, step, args, kwargs, out, dtype, size, per_block=None):
    """Run the blockwise task; the result (a new object or ``out``)."""
    if out is not None:
        if not isinstance(out, DistVector):
            raise NotDistributed(f"{step}: out= must be a DistVector (a distributed Matrix "
                                 "output is not supported; use the returned object)")
        out._blocks = _blockwise(x, step, args, kwargs, False, per_block, out)
        return out
    blocks = _blockwise(x, step, args, kwargs, False, per_block)
    if isinstance(x, DistMatrix) and size is None:
        return DistMatrix(dtype, x.nrows, x.ncols, layout=x._layout, rows=blocks)
    n = x.size if size is None else size
    return DistVector(dtype, n, device=x._layout, _blocks=blocks)


def _apply_select(x, step, op, opargs, kwargs, out):
    _check_shapes(x, step, [], kwargs.get("mask"), out)
    from ..operations.apply import _resolve_apply_op
    from ..operators import predefined
    rop = predefined.lookup("indexunary", op) if step == "select" and isinstance(op, str) \
        else _resolve_apply_op(op)
    if isinstance(rop, BinaryOp) and rop.positional is not None:
        raise NotDistributed(f"{step}: the positional operator {rop.name} is not supported on "
                             "distributed objects")
    per_block = None
    if isinstance(rop, IndexUnaryOp):
        name = rop.name
        if name in _THUNK_PLUS or name in _THUNK_MINUS:
            t0 = 0 if opargs.get("thunk") is None else opargs["thunk"]
            sign = 1 if name in _THUNK_PLUS else -1
            offs = x._layout.offsets
            per_block = lambda b: {"thunk": t0 + sign * offs[b]}   # noqa: E731
        elif not (name.startswith("value") or name.startswith("col")):
            raise NotDistributed(f"{step}: the index-unary operator {name} is not supported "
                                 "on distributed objects")
    kw = {k: v for k, v in opargs.items() if v is not None}
    dt = _checked(("as", step, x, rop, kw), lambda: getattr(_stand_in(x), step)(rop, **kw).dtype)
    kw.update(kwargs)
    return _finish(x, step, (rop,), kw, out, dt, None, per_block)


def _reduce(x, step, monoid, stand_in):
    mon = _resolve(monoid, "monoid")
    # checks the monoid and the type before any work
    _checked(("red", step, x, mon), lambda: (getattr(stand_in(), step)(mon), True)[1])
    lay = x._layout
    parts = lay.gather(lay.map(step, B.call, lambda b: (
        x._blocks_of(b), step, (_portable(mon, step),), {}, False)), step)
    if len(parts) == 1:
        return parts[0]
    return Vector.from_dense(np.asarray(parts), device="cpu").reduce(mon)


def _matvec(kind, A, u, semiring, mask, accum, replace, out, kwargs):
    from ..operations.common import as_semiring
    sr = as_semiring(semiring, kind)
    if not isinstance(A, DistMatrix) or not isinstance(u, DistVector):
        raise DeviceMismatch(f"{kind}: both operands must be distributed (got "
                             f"{type(A).__name__} and {type(u).__name__}); distribute the "
                             "local one with gb.dist.distribute(x, layout)")
    n_in, n_out = (A.nrows, A.ncols) if kind == "vxm" else (A.ncols, A.nrows)
    if u.size != n_in:
        raise DimensionMismatch(f"{kind}: a vector of size {u.size} and a {A.nrows}x{A.ncols} "
                                f"matrix")
    pos = sr.mult.positional
    if pos == ("firsti" if kind == "mxv" else "secondj"):
        raise NotDistributed(f"{kind}: the semiring {sr.name} reads the output position, which "
                             "is local to a block; not supported on distributed objects")
    check_mask(mask, (n_out,), kind)
    if out is not None and out.size != n_out:
        raise DimensionMismatch(f"{kind}: out has size {out.size}, the result {n_out}")
    def stand_in():
        sa, su = Matrix(A.dtype, 0, 0, device="cpu"), Vector(u.dtype, 0, device="cpu")
        return (sa.mxv(su, sr) if kind == "mxv" else su.vxm(sa, sr)).dtype
    dt = _checked(("mv", kind, A, u, sr), stand_in)
    M = A._rows if kind == "mxv" else A._column_blocks()
    lay = A._layout.for_size(n_out)
    # the product reads u's values unless its multiply ignores that operand
    parts = _exports(u, kind, sr.mult.reads_x if kind == "vxm" else sr.mult.reads_y)
    offs = u._layout.offsets
    psr = _portable(sr, kind)
    kw = dict(kwargs, accum=_portable(accum, kind), replace=replace)
    with lay.timed("products"):
        blocks = lay.map(kind, B.matvec, lambda b: (
            kind, M[b], parts, offs, u.size, u.dtype, psr,
            None if out is None else (B.OUT, out._blocks[b]),
            None if mask is None else u._encode(mask, b, kind), kw))
    if out is None:
        return DistVector(dt, n_out, device=lay, _blocks=blocks)
    out._blocks = blocks
    return out


def _unsupported(cls, name):
    def method(self, *args, **kwargs):
        raise NotDistributed(f"{cls.__name__}.{name} is not supported on distributed objects "
                             "(docs/distributed.md lists what is); gather() to a local object "
                             "first")
    method.__name__ = method.__qualname__ = name
    setattr(cls, name, method)


for _name in ("mxm", "mxm_reduce", "kronecker", "reduce_columnwise", "assign", "extract",
              "transpose", "ewise_union", "resize", "clear", "__setitem__", "__delitem__",
              "__getitem__", "get", "to_dense_form", "to_sparse_form"):
    _unsupported(DistMatrix, _name)
for _name in ("resize", "__setitem__", "__delitem__"):
    _unsupported(DistVector, _name)


def _gathered(name):
    def method(self, *args, **kwargs):
        return getattr(self.gather(), name)(*args, **kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``gather().{name}(...)``: a local result on the client."
    return method


DistMatrix.to_scipy = _gathered("to_scipy")
DistMatrix.to_dense = _gathered("to_dense")


def kept_values(blk, nrows, ncols):
    """The dict of plain derived values (symmetry) that a worker keeps with
    its row block ``blk`` of an ``nrows`` x ``ncols`` DistMatrix (see
    ``DistMatrix._cached``): dropped when the block changes."""
    return blk._cached(("dist", nrows, ncols), dict)
