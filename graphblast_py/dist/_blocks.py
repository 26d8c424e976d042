"""Worker-side tasks of the distributed layer.

Every function here runs on a Dask worker on that worker's block: an ordinary
:class:`graphblast_py.Matrix` / :class:`graphblast_py.Vector` held in the
worker's memory.  Arguments come from the client in a portable encoding
(operators by kind and name, masks as tagged tuples) and blocks of other
objects arrive as the arrays of :func:`export` (NumPy arrays moved by Dask,
never pickled framework objects).  A task never changes a block it is given:
a mutation runs on ``dup()`` (which shares the arrays; stored arrays are never
written in place), so a block computed earlier stays valid.
"""
import os
import time

import numpy as np

from .. import operators
from ..device import backend_for
from ..mask import Mask
from ..matrix import Matrix
from ..vector import Vector

MASK = "__gb_mask__"
OUT = "__gb_out__"
OP = "__gb_op__"
ASSEMBLED = "__gb_assembled__"
#: where this worker keeps its blocks: "gpu" in the worker processes that
#: gb.dist.start_local_gpus starts (one GPU each), else "cpu"
BLOCK_DEVICE = os.environ.get("GRAPHBLAST_DIST_DEVICE", "cpu")

#: seconds this worker spent in tasks: "compute" (running the block's
#: operation) and "assemble" (building the gathered input vector from the
#: other blocks' arrays); read and reset with :func:`timings`.
TIMES = {"compute": 0.0, "assemble": 0.0, "tasks": 0}


def timings(reset=False):
    """This worker's :data:`TIMES` (a copy); ``reset`` zeroes them."""
    out = dict(TIMES)
    if reset:
        TIMES.update(compute=0.0, assemble=0.0, tasks=0)
    return out


def _timed(kind, t0):
    TIMES[kind] += time.perf_counter() - t0


def decode(x):
    """Rebuild a mask, an operator or a copy of an output block."""
    if isinstance(x, tuple) and x:
        if x[0] == MASK:
            return Mask(x[1], x[2], x[3])
        if x[0] == OUT:
            return x[1].dup()
        if x[0] == OP:
            return getattr(getattr(operators, x[1]), x[2])
    return x


def new_vector(dtype, size):
    return Vector(dtype, size, device=BLOCK_DEVICE)


def vector_from_parts(size, dtype, idx, vals):
    v = Vector(dtype, size, device=BLOCK_DEVICE)
    if idx.shape[0]:
        be = backend_for(BLOCK_DEVICE)
        v._set_sparse(be.asarray(np.ascontiguousarray(idx, dtype=np.int64)),
                      be.asarray(np.asarray(vals).astype(dtype)))
    return v


def matrix_from_coo(nrows, ncols, dtype, rows, cols, vals, iso):
    """A block from COO arrays of distinct, row-major sorted entries."""
    values = iso if vals is None else vals
    return Matrix.from_coo(rows, cols, values, nrows, ncols, dtype=dtype, device=BLOCK_DEVICE)


def call(obj, name, args, kwargs, mutate):
    """``obj.name(*args, **kwargs)``; with ``mutate`` on a copy of ``obj``,
    returning the copy."""
    t0 = time.perf_counter()
    TIMES["tasks"] += 1
    args = [decode(a) for a in args]
    kwargs = {k: decode(v) for k, v in kwargs.items()}
    if mutate:
        obj = obj.dup()
        getattr(obj, name)(*args, **kwargs)
        _timed("compute", t0)
        return obj
    res = getattr(obj, name)(*args, **kwargs)
    _timed("compute", t0)
    return res


def attr(obj, name):
    return getattr(obj, name)


def transpose(M):
    return M.T


# ---------------------------------------------------------------- gathers
def export(v, offset, host=True):
    """The block's entries as plain arrays in global positions:
    ``("s", indices, values, count)`` for a sparse block, ``("d", values,
    presence or None, count)`` for a dense one (its current form, unconverted);
    ``count``: the entry count when the block knows it, else its upper bound
    (what the direction choice of the receiving block reads).  NumPy arrays
    (what Dask moves) unless ``host=False`` (the block's own arrays, for a
    collective on the device: lent, see ``Vector._lend``, since the
    collective only reads them during the call)."""
    view = v._view() if host else v._lend()
    count = v._nvals_estimate()
    if v.form == "sparse":
        keys, vals = view
        out = ("s", keys + offset, vals, count)
    else:
        vals, pres = view
        out = ("d", vals, pres, count)
    if host and BLOCK_DEVICE != "cpu":
        out = tuple(_host(a) for a in out)
    return out


def assemble(parts, offsets, size, dtype):
    """The full Vector from every block's :func:`export` (or, in the SPMD
    mode, the vector the collective already assembled)."""
    if isinstance(parts, tuple) and parts and parts[0] == ASSEMBLED:
        return parts[1]
    v = Vector(dtype, size, device="cpu")
    if all(p[0] == "s" for p in parts):
        idx = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, np.int64)
        vals = np.concatenate([p[2] for p in parts]).astype(dtype, copy=False) if parts else \
            np.zeros(0, dtype)
        v._set_sparse(idx.astype(np.int64, copy=False), vals)
        return v if BLOCK_DEVICE == "cpu" else v.to(BLOCK_DEVICE)
    vals = np.zeros(size, dtype)
    pres = np.zeros(size, bool)
    for p, lo in zip(parts, offsets):
        if p[0] == "s":
            vals[p[1]] = p[2]
            pres[p[1]] = True
        else:
            m = p[1].shape[0]
            vals[lo:lo + m] = p[1]
            pres[lo:lo + m] = True if p[2] is None else p[2]
    v._set_dense(vals, pres, bound=sum(p[3] for p in parts))
    return v if BLOCK_DEVICE == "cpu" else v.to(BLOCK_DEVICE)


def _host(a):
    """A NumPy copy of a block's array (of any backend); other values as they are."""
    if a is None or isinstance(a, (str, int, float, np.ndarray)):
        return a
    return backend_for(BLOCK_DEVICE).to_host(a)


def matvec(kind, M, parts, offsets, size, dtype, semiring, out, mask, kwargs):
    """One block of ``mxv`` (``M`` a row block) or ``vxm`` (``M`` a column
    block) with the input vector assembled from every block."""
    t0 = time.perf_counter()
    TIMES["tasks"] += 1
    u = assemble(parts, offsets, size, dtype)
    _timed("assemble", t0)
    t0 = time.perf_counter()
    kw = {k: decode(v) for k, v in kwargs.items()}
    sr, out, mask = decode(semiring), decode(out), decode(mask)
    if kind == "mxv":
        res = M.mxv(u, sr, mask=mask, out=out, **kw)
    else:
        res = u.vxm(M, sr, mask=mask, out=out, **kw)
    _timed("compute", t0)
    return res


def extract(parts, offsets, size, dtype, indices, kwargs, out, mask):
    """One block of ``w = u[indices]`` with ``u`` assembled from every block."""
    u = assemble(parts, offsets, size, dtype)
    kw = {k: decode(v) for k, v in kwargs.items()}
    return u.extract(indices, out=decode(out), mask=decode(mask), **kw)


def column_piece(R, lo, hi, row_offset):
    """The entries of row block ``R`` in columns [lo, hi), as COO arrays in
    global rows and local columns."""
    r, c, v = (_host(a) for a in R.to_coo())
    keep = (c >= lo) & (c < hi)
    vals = v[keep]
    return (r[keep].astype(np.int64) + row_offset, c[keep].astype(np.int64) - lo, vals)


def column_block(pieces, nrows, ncols, dtype, iso):
    """The column block assembled from every row block's piece."""
    rows = np.concatenate([p[0] for p in pieces])
    cols = np.concatenate([p[1] for p in pieces])
    vals = None if iso is not None else np.concatenate([p[2] for p in pieces])
    if rows.shape[0] == 0:
        return Matrix(dtype, nrows, ncols, device=BLOCK_DEVICE)
    return matrix_from_coo(nrows, ncols, dtype, rows, cols, vals, iso)


def coo(x, offset):
    """The block's entries with global row (vector: index) numbers."""
    if isinstance(x, Vector):
        idx, vals = (_host(a) for a in x.to_coo())
        return idx + offset, vals
    r, c, v = (_host(a) for a in x.to_coo())
    return r.astype(np.int64) + offset, c, v


def iso_value(M):
    """The block's iso value; None when it has values of its own, "empty"
    when it has no entries."""
    if M.nvals == 0:
        return "empty"
    return M.iso_value
