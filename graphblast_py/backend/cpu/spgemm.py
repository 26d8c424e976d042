"""Gustavson SpGEMM for the CPU backend (numba).

``C<M> = A (+).(x) B`` row by row: row i of C is the sum of the rows B(k, :)
scaled by A(i, k), gathered in a dense accumulator over the columns.  Two
passes over the rows, both row-parallel:

1. *symbolic*: count the distinct columns of every row of C that the mask
   allows; a prefix sum gives the row pointers and the exact output size;
2. *numeric*: recompute each row into the accumulator, list its columns in
   order and copy the values out.

Every thread owns a *marker* array and an accumulator of ``ncols`` entries
(``numba.get_thread_id`` picks them).  The marker holds a per-row stamp, so it
is never cleared: for row i, ``2i + base`` marks the columns of the mask row and
``2i + base + 1`` the columns already produced.  A structural mask is honoured
before any product is made: a non-complemented mask lets a column in only when
it carries the mask stamp (a row whose mask row is empty costs nothing, and a
row stops as soon as every mask column is produced when no sum is needed); a
complemented mask forbids the stamped columns.  The markers come from
``np.zeros`` (pages the OS zero-fills on first touch), so a call pays only for
the columns its rows touch.

A row's columns are listed in order by the cheapest of: walking the sorted mask
row (non-complemented mask), scanning the marker (rows that fill a good part of
the columns) or sorting the produced columns.  The terms of one output entry
are combined in the order A(i, :) then B(k, :), the order in which the generic
ESC path (expand, stable sort, reduce) combines them, so ``any`` keeps the same
term and floating-point sums add in the same order.

Rows are split into blocks of about equal work (products + mask entries + 1
per row), several blocks per thread; below ``PARALLEL_WORK`` products the
serial kernels run (no fork/join).
"""
import numpy as np
from numba import get_num_threads, get_thread_id, njit, prange

from ... import dtypes
from .kernels import _add, _mult, _op, _sum
from ..keys import split_keys

# list a row's columns by scanning the marker when ncols <= SCAN_FACTOR * cnt * log2(cnt)
SCAN_FACTOR = 4
# row blocks per thread (blocks have about equal work; more blocks, finer balance)
BLOCKS_PER_THREAD = 8
# the light O(n + nnz) passes of the triangle and clique kernels (orientation,
# work estimate, spreading the counts) go parallel only above this many times
# the caller's threshold: a fork/join costs more than they save on a 2-core
# machine shared with other jobs (300^2 grid: ~7 ms a parallel region at load
# 3, against 0.3-0.7 ms for the serial pass)
LIGHT_FACTOR = 16


@njit(cache=True)
def _log2(x):
    r = 1
    while x > 1:
        x >>= 1
        r += 1
    return r


@njit(inline="always")
def _row_work_i(i, ai, aj, bi, mi, has_mask, allow_marked, work):
    mlen = mi[i + 1] - mi[i] if has_mask else 0
    s = 0
    if not (allow_marked and mlen == 0):
        for p in range(ai[i], ai[i + 1]):
            k = aj[p]
            s += bi[k + 1] - bi[k]
    work[i] = s + mlen + 1


@njit(cache=True, parallel=True)
def row_work_parallel(ai, aj, bi, mi, has_mask, allow_marked, work):
    """work[i] = products of row i (0 where an empty non-complemented mask row
    means nothing is computed) + mask entries of the row + 1."""
    for i in prange(ai.shape[0] - 1):
        _row_work_i(i, ai, aj, bi, mi, has_mask, allow_marked, work)


@njit(cache=True)
def row_work_serial(ai, aj, bi, mi, has_mask, allow_marked, work):
    for i in range(ai.shape[0] - 1):
        _row_work_i(i, ai, aj, bi, mi, has_mask, allow_marked, work)


@njit(inline="always")
def _mark(i, mi, mj, has_mask, marker, mk):
    if has_mask:
        for p in range(mi[i], mi[i + 1]):
            marker[mj[p]] = mk
        return mi[i + 1] - mi[i]
    return 0


@njit(inline="always")
def _sym_row(i, ai, aj, bi, bj, mi, mj, has_mask, allow_marked, ncols, marker, base):
    mk = base + 2 * i
    seen = mk + 1
    mlen = _mark(i, mi, mj, has_mask, marker, mk)
    if allow_marked and mlen == 0:
        return 0
    limit = mlen if allow_marked else ncols - mlen     # most columns the mask allows
    cnt = 0
    for p in range(ai[i], ai[i + 1]):
        k = aj[p]
        for q in range(bi[k], bi[k + 1]):
            j = bj[q]
            mv = marker[j]
            if mv == seen or (mv == mk) != allow_marked:
                continue
            marker[j] = seen
            cnt += 1
        if cnt == limit:
            break
    return cnt


@njit(inline="always")
def _num_row(i, ai, aj, av, read_a, bi, bj, bv, read_b, mi, mj, has_mask, allow_marked, ncols,
             addop, multop, need_vals, reduce, marker, acc, base, start, cj, cv, order):
    mk = base + 2 * i
    seen = mk + 1
    mlen = _mark(i, mi, mj, has_mask, marker, mk)
    if allow_marked and mlen == 0:
        return 0
    limit = mlen if allow_marked else ncols - mlen
    cnt = 0
    for p in range(ai[i], ai[i + 1]):
        k = aj[p]
        a = av[p] if read_a else av[0]
        for q in range(bi[k], bi[k + 1]):
            j = bj[q]
            mv = marker[j]
            if mv == seen:
                if not reduce:
                    continue
                first = False
            else:
                if (mv == mk) != allow_marked:
                    continue
                marker[j] = seen
                cj[start + cnt] = j
                cnt += 1
                if not need_vals:
                    continue
                first = True
            # one copy of the _mult chain in numba's IR, not one per branch
            # (the first float64 SpGEMM call, compiles included: 5.0 -> 3.3 s;
            # Kronecker 13 squared, 1 thread: 258-262 ms either way); the
            # product in the output type first (wraps like NumPy)
            prod = acc.dtype.type(_mult(multop, a, bv[q] if read_b else bv[0], i, k, j))
            acc[j] = prod if first else _add(addop, acc[j], prod)
        if cnt == limit and not reduce:
            break
    # list the columns in ascending order
    if cnt > 1 and order:
        cost = cnt * _log2(cnt)
        if allow_marked and mlen <= SCAN_FACTOR * cost:
            t = start
            for p in range(mi[i], mi[i + 1]):
                j = mj[p]
                if marker[j] == seen:
                    cj[t] = j
                    t += 1
        elif ncols <= SCAN_FACTOR * cost:
            t = start
            for j in range(ncols):
                if marker[j] == seen:
                    cj[t] = j
                    t += 1
        else:
            cj[start:start + cnt].sort()
    if need_vals:
        for t in range(start, start + cnt):
            cv[t] = acc[cj[t]]
    return cnt


@njit(cache=True, parallel=True)
def symbolic_parallel(bounds, ai, aj, bi, bj, mi, mj, has_mask, allow_marked, ncols, markers,
                      base, counts):
    """counts[i] = entries of row i of C<M>; rows in blocks bounds[b]:bounds[b+1]."""
    for b in prange(bounds.shape[0] - 1):
        marker = markers[get_thread_id()]
        for i in range(bounds[b], bounds[b + 1]):
            counts[i] = _sym_row(i, ai, aj, bi, bj, mi, mj, has_mask, allow_marked, ncols,
                                 marker, base)


@njit(cache=True)
def symbolic_serial(bounds, ai, aj, bi, bj, mi, mj, has_mask, allow_marked, ncols, markers,
                    base, counts):
    marker = markers[0]
    for i in range(bounds[0], bounds[bounds.shape[0] - 1]):
        counts[i] = _sym_row(i, ai, aj, bi, bj, mi, mj, has_mask, allow_marked, ncols,
                             marker, base)


@njit(cache=True, parallel=True)
def numeric_parallel(bounds, ai, aj, av, read_a, bi, bj, bv, read_b, mi, mj, has_mask,
                     allow_marked, ncols, addop, multop, need_vals, reduce, markers, accs, base,
                     cp, cj, cv):
    """Fill row i of C<M> into cj/cv[cp[i]:cp[i+1]], columns ascending."""
    for b in prange(bounds.shape[0] - 1):
        t = get_thread_id()
        marker = markers[t]
        acc = accs[t]
        for i in range(bounds[b], bounds[b + 1]):
            if cp[i + 1] > cp[i]:
                _num_row(i, ai, aj, av, read_a, bi, bj, bv, read_b, mi, mj, has_mask,
                         allow_marked, ncols, addop, multop, need_vals, reduce, marker, acc,
                         base, cp[i], cj, cv, True)


@njit(cache=True)
def numeric_serial(bounds, ai, aj, av, read_a, bi, bj, bv, read_b, mi, mj, has_mask,
                   allow_marked, ncols, addop, multop, need_vals, reduce, markers, accs, base,
                   cp, cj, cv):
    marker = markers[0]
    acc = accs[0]
    for i in range(bounds[0], bounds[bounds.shape[0] - 1]):
        if cp[i + 1] > cp[i]:
            _num_row(i, ai, aj, av, read_a, bi, bj, bv, read_b, mi, mj, has_mask, allow_marked,
                     ncols, addop, multop, need_vals, reduce, marker, acc, base, cp[i], cj, cv,
                     True)


# the monoids whose sum of ones is one (by operator name):
# times, min, max, lor, land, any -- with the pair multiply the result is iso
_IDEMPOTENT_ONE = frozenset(("times", "min", "max", "lor", "land", "any"))


def _mask_csr(mask, mask_csr, nrows, ncols):
    """(has_mask, allow_marked, indptr, indices) of the mask's structure
    (int64 row pointers, column indices in the index type of ``ncols``: one
    kernel signature whichever way the mask came)."""
    it = dtypes.index_dtype(ncols)
    if mask is None:
        return False, False, np.zeros(nrows + 1, dtype=np.int64), np.zeros(1, dtype=it)
    keys, comp = mask
    if mask_csr is not None:
        mi, mj = mask_csr
    else:
        rows, mj = split_keys(keys, ncols)
        mi = np.searchsorted(rows, np.arange(nrows + 1, dtype=np.int64))
    return True, not comp, mi.astype(np.int64, copy=False), mj.astype(it, copy=False)


def spgemm_csr(be, A, B, semiring, mask, out_dtype, shape, parallel_work, mask_csr=None):
    """``C<mask> = A (+).(x) B`` for a kernel-supported semiring (the caller
    checks ``be._kernel_ok``).  A, B: (indptr, indices, vals or None);
    ``mask = (sorted keys, complement)`` or None; ``mask_csr`` optionally the
    mask's (indptr, indices) when the caller has them.  Returns
    ``(indptr, indices, vals, iso)``: ``vals`` None for an iso result (value
    ``iso``), columns ascending in every row; None where the kernel cannot
    compute the case exactly (the caller takes the generic path).

    Products are computed in the compute type (``be._compute_dtype``; int64
    for unsigned types) and converted to the output type before they are
    reduced, so integer results wrap as NumPy's do in the generic path."""
    ai, aj, av = A
    bi, bj, bv = B
    m, n = shape
    out_dtype = np.dtype(out_dtype)
    if out_dtype == np.uint64 and semiring.mult.name in ("min", "max"):
        return None       # min/max of uint64 computed in int64 would misorder huge values
    has_mask, allow_marked, mi, mj = _mask_csr(mask, mask_csr, m, n)
    mult, monoid = semiring.mult, semiring.monoid
    need_vals = not (mult.name == "pair" and monoid.op.name in _IDEMPOTENT_ONE)
    it = dtypes.index_dtype(n)
    if m == 0 or n == 0 or aj.shape[0] == 0 or bj.shape[0] == 0 or \
            (has_mask and allow_marked and mj.shape[0] == 0):
        return (np.zeros(m + 1, dtype=dtypes.index_dtype(n)), np.zeros(0, dtype=it),
                np.zeros(0, dtype=out_dtype) if need_vals else None, out_dtype.type(1))
    ai = ai.astype(np.int64, copy=False)
    bi = bi.astype(np.int64, copy=False)
    work = _row_work(ai, aj, bi, mi, has_mask, allow_marked, parallel_work)
    parallel, bounds, nacc = _row_bounds(work, parallel_work)
    # stamps reach 4m + 3; zero pages: paid for when touched
    markers = np.zeros((nacc, n), dtype=np.int32 if 4 * m + 8 < 2**31 else np.int64)
    counts = np.empty(m, dtype=np.int64)
    sym = symbolic_parallel if parallel else symbolic_serial
    sym(bounds, ai, aj, bi, bj, mi, mj, has_mask, allow_marked, n, markers, 2, counts)
    cp = np.empty(m + 1, dtype=np.int64)
    cp[0] = 0
    np.cumsum(counts, out=cp[1:])
    nnz = int(cp[-1])
    cj = np.empty(nnz, dtype=it)
    if need_vals:
        a, read_a, b, read_b = _operands(be, semiring, out_dtype, av, bv)
        cv = np.empty(nnz, dtype=out_dtype)
        accs = np.empty((nacc, n), dtype=out_dtype)
    else:
        a = b = np.zeros(1, dtype=np.bool_)
        read_a = read_b = False
        cv = np.zeros(1, dtype=np.bool_)
        accs = np.zeros((nacc, 1), dtype=np.bool_)
    if nnz:
        num = numeric_parallel if parallel else numeric_serial
        num(bounds, ai, aj, a, read_a, bi, bj, b, read_b, mi, mj, has_mask, allow_marked, n,
            monoid.opcode, mult.opcode, need_vals, need_vals and not monoid.is_any, markers,
            accs, 2 * m + 2, cp, cj, cv)
    indptr = cp.astype(dtypes.index_dtype(max(n, nnz)), copy=False)
    return indptr, cj, (cv if need_vals else None), out_dtype.type(1)


def _row_work(ai, aj, bi, mi, has_mask, allow_marked, parallel_work):
    m = ai.shape[0] - 1
    work = np.empty(m, dtype=np.int64)
    rw = row_work_parallel if m + aj.shape[0] > parallel_work else row_work_serial
    rw(ai, aj, bi, mi, has_mask, allow_marked, work)
    return work


def _serial_bounds(m):
    """(False, [0, m], 1) -- the serial kernels over all rows -- when one
    thread runs the kernels (no per-row work estimate is then needed); None
    otherwise."""
    if get_num_threads() == 1:
        return False, np.array([0, m], dtype=np.int64), 1
    return None


def _oriented_blocks(ip, ix, n, parallel_work):
    """The degree orientation of a symmetric pattern (``orient_by_degree``)
    and its row blocks for the triangle and clique kernels: ``(op, oj,
    parallel, bounds, nacc)``; the light passes go parallel only above
    ``LIGHT_FACTOR`` times the threshold."""
    light = parallel_work * LIGHT_FACTOR
    op, oj = orient_by_degree(ip, ix, light)
    parallel, bounds, nacc = _serial_bounds(n) or _row_bounds(
        _row_work(op, oj, op, np.zeros(1, np.int64), False, False, light), parallel_work)
    return op, oj, parallel, bounds, nacc


def _row_bounds(work, parallel_work):
    """(parallel, row block bounds of about equal work, accumulators needed)."""
    m = work.shape[0]
    cw = np.cumsum(work)
    total = int(cw[-1])
    nthreads = get_num_threads()
    if nthreads > 1 and total > parallel_work and m > 1:
        nblocks = min(m, nthreads * BLOCKS_PER_THREAD)
        targets = np.arange(1, nblocks, dtype=np.int64) * (total // nblocks)
        bounds = np.concatenate(([0], np.searchsorted(cw, targets, side="right"), [m]))
        return True, np.unique(bounds).astype(np.int64), nthreads
    return False, np.array([0, m], dtype=np.int64), 1


def _operands(be, semiring, out_dtype, av, bv):
    """(a, read_a, b, read_b): the operand values in the compute type."""
    mult = semiring.mult
    cd = be._compute_dtype(semiring, out_dtype)
    if cd.kind == "u":     # numba would unify unsigned products with int64 as float64
        cd = np.dtype(np.int64)
    a = be._operand(av, mult.reads_x, cd)
    b = be._operand(bv, mult.reads_y, cd)
    return (a, bool(mult.reads_x and av is not None), b,
            bool(mult.reads_y and bv is not None))


# ---------------------------------------------------------------- fused reduce
@njit(inline="always")
def _fused_rows(lo, hi, ai, aj, av, read_a, bi, bj, bv, read_b, mi, mj, has_mask, allow_marked,
                ncols, addop, multop, reduce, marker, acc, cols, vals, f, redop, outw, outp):
    T = outw.dtype.type
    for i in range(lo, hi):
        cnt = _num_row(i, ai, aj, av, read_a, bi, bj, bv, read_b, mi, mj, has_mask,
                       allow_marked, ncols, addop, multop, True, reduce, marker, acc, 2, 0,
                       cols, vals, False)
        if cnt:
            w = T(f(vals[0]))
            for t in range(1, cnt):
                w = T(_add(redop, w, T(f(vals[t]))))
            outw[i] = w
            outp[i] = True


@njit(cache=True, parallel=True)
def fused_parallel(bounds, ai, aj, av, read_a, bi, bj, bv, read_b, mi, mj, has_mask,
                   allow_marked, ncols, addop, multop, reduce, markers, accs, colbuf, valbuf, f,
                   redop, outw, outp):
    """outw[i] = redop_j f(C(i, j)) over the entries of row i of C<M> = A B
    (outp[i]: the row has an entry); a thread's dense accumulator, marker and
    column/value lists hold one row at a time; rows in blocks of equal work."""
    for b in prange(bounds.shape[0] - 1):
        t = get_thread_id()
        _fused_rows(bounds[b], bounds[b + 1], ai, aj, av, read_a, bi, bj, bv, read_b, mi, mj,
                    has_mask, allow_marked, ncols, addop, multop, reduce, markers[t], accs[t],
                    colbuf[t], valbuf[t], f, redop, outw, outp)


@njit(cache=True)
def fused_serial(bounds, ai, aj, av, read_a, bi, bj, bv, read_b, mi, mj, has_mask,
                 allow_marked, ncols, addop, multop, reduce, markers, accs, colbuf, valbuf, f,
                 redop, outw, outp):
    _fused_rows(0, ai.shape[0] - 1, ai, aj, av, read_a, bi, bj, bv, read_b, mi, mj, has_mask,
                allow_marked, ncols, addop, multop, reduce, markers[0], accs[0], colbuf[0],
                valbuf[0], f, redop, outw, outp)


@njit(inline="always")
def _count_rows(lo, hi, ai, aj, bi, bj, cnt, cols, f, tab, redop, outw, outp):
    """plus_pair without a mask: cnt[j] counts the paths i -> k -> j; a
    column is new while its count is 0 (no marker), and is cleared after use.
    f(c) of a count below tab's length is read from ``tab`` (f evaluated once
    per value, see :func:`_f_table`: the operator is a call through a
    pointer, ~30 % of the kernel at one call per column)."""
    R = outw.dtype.type
    ntab = tab.shape[0]
    for i in range(lo, hi):
        nc = 0
        for p in range(ai[i], ai[i + 1]):
            k = aj[p]
            for q in range(bi[k], bi[k + 1]):
                j = bj[q]
                if cnt[j] == 0:
                    cols[nc] = j
                    nc += 1
                cnt[j] += 1
        if nc:
            c = cnt[cols[0]]
            w = R(tab[c]) if 0 < c < ntab else R(f(c))
            cnt[cols[0]] = 0
            for t in range(1, nc):
                j = cols[t]
                c = cnt[j]
                w = R(_add(redop, w, R(tab[c]) if 0 < c < ntab else R(f(c))))
                cnt[j] = 0
            outw[i] = w
            outp[i] = True


@njit(cache=True, parallel=True)
def count_parallel(bounds, ai, aj, bi, bj, cnts, colbuf, f, tab, redop, outw, outp):
    """The fused reduce of the plus_pair product without a mask (2-path
    counts), one dense counter and column list per thread."""
    _f_table(f, cnts, tab)
    for b in prange(bounds.shape[0] - 1):
        t = get_thread_id()
        _count_rows(bounds[b], bounds[b + 1], ai, aj, bi, bj, cnts[t], colbuf[t], f, tab, redop,
                    outw, outp)


@njit(cache=True)
def count_serial(bounds, ai, aj, bi, bj, cnts, colbuf, f, tab, redop, outw, outp):
    _f_table(f, cnts, tab)
    _count_rows(0, ai.shape[0] - 1, ai, aj, bi, bj, cnts[0], colbuf[0], f, tab, redop, outw,
                outp)


@njit(inline="always")
def _f_table(f, cnts, tab):
    """tab[c] = f(c) for the counts 1 <= c < len(tab) (in the counters'
    type; a listed column has a count of at least 1): an operator is a pure
    function, so its value at a count is the same whether read from here or
    computed again."""
    T = cnts.dtype.type
    for c in range(1, tab.shape[0]):
        tab[c] = f(T(c))


def _identity(x):
    return x


def _one(x):
    return 1


def _ainv(x):
    return -x


def _abs(x):
    return -x if x < 0 else x


# predefined unary operators the fused kernel applies itself (others: the
# blocked generic path)
_UNARY = {"identity": _identity, "one": _one, "ainv": _ainv, "abs": _abs}
_CFUNCS = {}


def _apply_cfunc(be, op, in_dtype, out_dtype):
    """The unary operator as a numba ``cfunc`` of ``out(in)``: the fused
    kernel takes it as a first-class function of that type, so the kernel is
    compiled (and cached on disk) once per dtype signature, whatever the
    operator; None for a predefined operator it does not know."""
    from numba import cfunc, from_dtype
    if op is None:
        name, func = "identity", _identity
    elif op.is_user:
        be._check_return(op, (in_dtype,), out_dtype)
        name, func = op, op.func
    else:
        name, func = op.name, _UNARY.get(op.name)
        if func is None:
            return None
    key = (name, in_dtype, out_dtype)
    f = _CFUNCS.get(key)
    if f is None:
        sig = from_dtype(out_dtype)(from_dtype(in_dtype))
        f = _CFUNCS[key] = cfunc(sig, cache=isinstance(name, str))(func)
    return f


def _reduce_fn(be, semiring, out_dtype, op, op_dtype, monoid, red_dtype):
    """The compiled ``op`` for the fused kernels, or None for the cases they
    do not take (unsigned min/max products, a user or unknown monoid, a
    predefined ``op`` they do not know)."""
    if out_dtype == np.uint64 and semiring.mult.name in ("min", "max"):
        return None
    if monoid.is_user or monoid.opcode < 0 or red_dtype.kind not in "biuf":
        return None
    return _apply_cfunc(be, op, out_dtype, np.dtype(op_dtype))


def spgemm_reduce_csr(be, A, B, semiring, mask, out_dtype, op, op_dtype, monoid, red_dtype,
                      parallel_work, mask_csr=None):
    """``w(i) = monoid_j op(C(i, j))`` with ``C<mask> = A (+).(x) B`` for a
    kernel-supported semiring and monoid: (rows with an entry, their values),
    or None where the kernel cannot do it (unsigned min/max, a predefined
    ``op`` it does not know, a user monoid).  Peak memory: the inputs, the
    n-vector result and per thread a marker, an accumulator and a row's column
    and value lists of ``ncols`` entries; C itself is never stored."""
    ai, aj, av = A
    bi, bj, bv = B
    m, n = ai.shape[0] - 1, bi.shape[0] - 1
    out_dtype, red_dtype = np.dtype(out_dtype), np.dtype(red_dtype)
    f = _reduce_fn(be, semiring, out_dtype, op, op_dtype, monoid, red_dtype)
    if f is None:
        return None
    has_mask, allow_marked, mi, mj = _mask_csr(mask, mask_csr, m, n)
    outw = np.zeros(m, dtype=red_dtype)
    outp = np.zeros(m, dtype=np.bool_)
    if m and n and aj.shape[0] and bj.shape[0] and not (has_mask and allow_marked and
                                                          mj.shape[0] == 0):
        ai = ai.astype(np.int64, copy=False)
        bi = bi.astype(np.int64, copy=False)
        parallel, bounds, nacc = _serial_bounds(m) or _row_bounds(
            _row_work(ai, aj, bi, mi, has_mask, allow_marked, parallel_work * LIGHT_FACTOR),
            parallel_work)
        if (not has_mask and semiring.mult.name == "pair" and semiring.monoid.name == "plus"
                and not semiring.is_user and out_dtype.kind in "iu"):
            cnts = np.zeros((nacc, n), dtype=out_dtype)
            colbuf = np.empty((nacc, n), dtype=np.int64)
            # f at the counts 1..63 (all a grid's or a road network's rows need)
            tab = np.empty(min(64, 2**(8 * out_dtype.itemsize - 1)), dtype=np.dtype(op_dtype))
            (count_parallel if parallel else count_serial)(
                bounds, ai, aj, bi, bj, cnts, colbuf, f, tab, monoid.opcode, outw, outp)
            rows = np.flatnonzero(outp)
            return rows.astype(np.int64), outw[rows]
        a, read_a, b, read_b = _operands(be, semiring, out_dtype, av, bv)
        markers = np.zeros((nacc, n), dtype=np.int32 if 2 * m + 8 < 2**31 else np.int64)
        accs = np.empty((nacc, n), dtype=out_dtype)
        colbuf = np.empty((nacc, n), dtype=np.int64)
        valbuf = np.empty((nacc, n), dtype=out_dtype)
        kern = fused_parallel if parallel else fused_serial
        kern(bounds, ai, aj, a, read_a, bi, bj, b, read_b, mi, mj, has_mask, allow_marked, n,
             semiring.monoid.opcode, semiring.mult.opcode, not semiring.monoid.is_any, markers,
             accs, colbuf, valbuf, f, monoid.opcode, outw, outp)
    rows = np.flatnonzero(outp)
    return rows.astype(np.int64), outw[rows]


# ---------------------------------------------------------------- 4-cliques
@njit(inline="always")
def _cliques_from(u, op, oj, mark, slist, cnt):
    """Count the 4-cliques whose lowest-ranked vertex is u into cnt (each of
    its four vertices +1): for v in N+(u), S = N+(u) ∩ N+(v) (marked -(u+1)),
    then for w in S every x in N+(w) ∩ S closes a clique {u, v, w, x}."""
    s1 = u + 1
    for p in range(op[u], op[u + 1]):
        mark[oj[p]] = s1
    for p in range(op[u], op[u + 1]):
        v = oj[p]
        ns = 0
        for q in range(op[v], op[v + 1]):
            w = oj[q]
            if mark[w] == s1:
                mark[w] = -s1
                slist[ns] = w
                ns += 1
        for t in range(ns):
            w = slist[t]
            for q in range(op[w], op[w + 1]):
                x = oj[q]
                if mark[x] == -s1:
                    cnt[u] += 1
                    cnt[v] += 1
                    cnt[w] += 1
                    cnt[x] += 1
        for t in range(ns):
            mark[slist[t]] = s1


@njit(cache=True, parallel=True)
def cliques_parallel(bounds, op, oj, marks, slists, cnts):
    """Per-thread 4-clique counts over the degree-oriented graph (op, oj)."""
    for b in prange(bounds.shape[0] - 1):
        t = get_thread_id()
        for u in range(bounds[b], bounds[b + 1]):
            _cliques_from(u, op, oj, marks[t], slists[t], cnts[t])


@njit(cache=True)
def cliques_serial(bounds, op, oj, marks, slists, cnts):
    for u in range(op.shape[0] - 1):
        _cliques_from(u, op, oj, marks[0], slists[0], cnts[0])


def four_cliques(ip, ix, parallel_work):
    """Number of 4-cliques containing each vertex of a simple undirected graph
    given by its symmetric CSR pattern (int64 array).  Peak memory: the
    oriented graph (half the entries) and per thread a marker, a list and the
    counts of n entries."""
    n = ip.shape[0] - 1
    if n == 0 or ix.shape[0] == 0:
        return np.zeros(n, dtype=np.int64)
    op, oj, parallel, bounds, nacc = _oriented_blocks(ip, ix, n, parallel_work)
    marks = np.zeros((nacc, n), dtype=np.int64)
    slists = np.empty((nacc, n), dtype=np.int64)
    cnts = np.zeros((nacc, n), dtype=np.int64)
    (cliques_parallel if parallel else cliques_serial)(bounds, op, oj, marks, slists, cnts)
    return cnts.sum(axis=0) if nacc > 1 else cnts[0]


# ---------------------------------------------------------------- masked dot products
@njit(inline="always")
def _lower_bound(a, lo, hi, x):
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


# a list this many times shorter than the other is intersected by binary
# searches in the longer one (else: a linear merge)
GALLOP_RATIO = 8


@njit(inline="always")
def _dot(ai, aj, av, read_a, bi, bj, bv, read_b, i, j, addop, multop, term, has_term, is_any,
         T):
    """(found, add_k A(i,k) * B(k,j)) over the common k of row i of A and
    row j of B^T, k ascending (a merge, or binary searches from the shorter
    list when the lengths differ by GALLOP_RATIO); stops at the monoid's
    terminal value or (any) at the first term."""
    p, pe, q, qe = ai[i], ai[i + 1], bi[j], bi[j + 1]
    found = False
    acc = T(0)
    gallop_a = (pe - p) * GALLOP_RATIO < qe - q
    gallop_b = (qe - q) * GALLOP_RATIO < pe - p
    while p < pe and q < qe:
        ka = aj[p]
        kb = bj[q]
        if ka < kb:
            p = _lower_bound(aj, p + 1, pe, kb) if gallop_b else p + 1
        elif kb < ka:
            q = _lower_bound(bj, q + 1, qe, ka) if gallop_a else q + 1
        else:
            prod = T(_mult(multop, av[p] if read_a else av[0], bv[q] if read_b else bv[0],
                           i, ka, j))
            acc = T(_add(addop, acc, prod)) if found else prod
            found = True
            if is_any or (has_term and acc == term):
                break
            p += 1
            q += 1
    return found, acc


@njit(inline="always")
def _dot_at(t, ai, aj, av, read_a, bi, bj, bv, read_b, mrows, mcols, addop, multop, term,
            has_term, is_any, outv, outp):
    found, acc = _dot(ai, aj, av, read_a, bi, bj, bv, read_b, mrows[t], mcols[t], addop, multop,
                      term, has_term, is_any, outv.dtype.type)
    if found:
        outv[t] = acc
        outp[t] = True


@njit(cache=True, parallel=True)
def dot_parallel(ai, aj, av, read_a, bi, bj, bv, read_b, mrows, mcols, addop, multop, term,
                 has_term, is_any, outv, outp):
    """Masked dot-product SpGEMM: for the t-th mask entry (i, j),
    out[t] = add_k A(i,k) * B(k,j) (row i of A against row j of B^T)."""
    for t in prange(mrows.shape[0]):
        _dot_at(t, ai, aj, av, read_a, bi, bj, bv, read_b, mrows, mcols, addop, multop, term,
                has_term, is_any, outv, outp)


@njit(cache=True)
def dot_serial(ai, aj, av, read_a, bi, bj, bv, read_b, mrows, mcols, addop, multop, term,
               has_term, is_any, outv, outp):
    for t in range(mrows.shape[0]):
        _dot_at(t, ai, aj, av, read_a, bi, bj, bv, read_b, mrows, mcols, addop, multop, term,
                has_term, is_any, outv, outp)


@njit(inline="always")
def _fused_dot_rows(lo, hi, ai, aj, av, read_a, bi, bj, bv, read_b, mi, mj, addop, multop,
                    term, has_term, is_any, T, f, redop, outw, outp):
    R = outw.dtype.type
    for i in range(lo, hi):
        found = False
        w = R(0)
        for t in range(mi[i], mi[i + 1]):
            ok, v = _dot(ai, aj, av, read_a, bi, bj, bv, read_b, i, mj[t], addop, multop, term,
                         has_term, is_any, T)
            if ok:
                y = R(f(v))
                w = R(_add(redop, w, y)) if found else y
                found = True
        if found:
            outw[i] = w
            outp[i] = True


@njit(cache=True, parallel=True)
def fused_dot_parallel(bounds, ai, aj, av, read_a, bi, bj, bv, read_b, mi, mj, addop, multop,
                       term, has_term, is_any, acc_dtype_probe, f, redop, outw, outp):
    """outw[i] = redop over the mask entries (i, j) with a nonempty dot
    product of f(add_k A(i,k) * B(k,j)); nothing per entry is stored."""
    T = acc_dtype_probe.dtype.type
    for b in prange(bounds.shape[0] - 1):
        _fused_dot_rows(bounds[b], bounds[b + 1], ai, aj, av, read_a, bi, bj, bv, read_b, mi, mj,
                        addop, multop, term, has_term, is_any, T, f, redop, outw, outp)


@njit(cache=True)
def fused_dot_serial(bounds, ai, aj, av, read_a, bi, bj, bv, read_b, mi, mj, addop, multop,
                     term, has_term, is_any, acc_dtype_probe, f, redop, outw, outp):
    T = acc_dtype_probe.dtype.type
    _fused_dot_rows(0, ai.shape[0] - 1, ai, aj, av, read_a, bi, bj, bv, read_b, mi, mj, addop,
                    multop, term, has_term, is_any, T, f, redop, outw, outp)


@njit(inline="always")
def _count_dot_rows(lo, hi, ai, aj, bi, bj, mi, mj, mark, T, f, redop, outw, outp):
    """Rows lo..hi of the masked plus_pair reduce: row i of A marked in the
    thread's bitmap, then for each mask entry (i, j) the marked entries of row
    j of B^T counted (work |A_i| + sum_j |B^T_j|, no merge branches)."""
    R = outw.dtype.type
    for i in range(lo, hi):
        if mi[i] == mi[i + 1]:
            continue
        for p in range(ai[i], ai[i + 1]):
            mark[aj[p]] = True
        found = False
        w = R(0)
        for t in range(mi[i], mi[i + 1]):
            j = mj[t]
            c = 0
            for q in range(bi[j], bi[j + 1]):
                c += mark[bj[q]]
            if c:
                y = R(f(T(c)))
                w = R(_add(redop, w, y)) if found else y
                found = True
        for p in range(ai[i], ai[i + 1]):
            mark[aj[p]] = False
        if found:
            outw[i] = w
            outp[i] = True


@njit(cache=True, parallel=True)
def count_dot_parallel(bounds, ai, aj, bi, bj, mi, mj, marks, probe, f, redop, outw, outp):
    """outw[i] = redop over the mask entries (i, j) with a common column of
    f(|row i of A ∩ row j of B^T|); a bitmap of ncols per thread."""
    for b in prange(bounds.shape[0] - 1):
        _count_dot_rows(bounds[b], bounds[b + 1], ai, aj, bi, bj, mi, mj, marks[get_thread_id()],
                        probe.dtype.type, f, redop, outw, outp)


@njit(cache=True)
def count_dot_serial(bounds, ai, aj, bi, bj, mi, mj, marks, probe, f, redop, outw, outp):
    _count_dot_rows(0, ai.shape[0] - 1, ai, aj, bi, bj, mi, mj, marks[0], probe.dtype.type, f,
                    redop, outw, outp)


def spgemm_reduce_dot_csr(be, A, BT, semiring, mask_keys, out_dtype, shape, op, op_dtype,
                          monoid, red_dtype, parallel_work, mask_csr=None):
    """The fused reduce over a non-complemented mask by masked dot products
    (see :func:`spgemm_reduce_csr`); None where the kernel does not apply.
    The mask: its sorted keys, or (``mask_keys`` None) its CSR ``mask_csr``."""
    ai, aj, av = A
    bi, bj, bv = BT
    m = shape[0]
    out_dtype, red_dtype = np.dtype(out_dtype), np.dtype(red_dtype)
    f = _reduce_fn(be, semiring, out_dtype, op, op_dtype, monoid, red_dtype)
    if f is None:
        return None
    _, _, mi, mj = _mask_csr((mask_keys, False), mask_csr, m, shape[1])
    outw = np.zeros(m, dtype=red_dtype)
    outp = np.zeros(m, dtype=np.bool_)
    if m and mj.shape[0] and aj.shape[0] and bj.shape[0]:
        ai = ai.astype(np.int64, copy=False)
        bi = bi.astype(np.int64, copy=False)
        if (semiring.mult.name == "pair" and semiring.monoid.name == "plus"
                and not semiring.is_user and out_dtype.kind in "iu"):
            # counts: a bitmap of row i of A against each masked row j of B^T
            from .rowops import dot_row_work
            work = dot_row_work(ai, bi, mi, mj, parallel_work)
            parallel, bounds, nacc = _row_bounds(work, parallel_work)
            marks = np.zeros((nacc, shape[1] if shape[1] else 1), dtype=np.bool_)
            (count_dot_parallel if parallel else count_dot_serial)(
                bounds, ai, aj, bi, bj, mi, mj, marks, np.zeros(1, dtype=out_dtype), f,
                monoid.opcode, outw, outp)
            rows = np.flatnonzero(outp)
            return rows.astype(np.int64), outw[rows]
        lens = np.diff(mi) + np.diff(ai)
        parallel, bounds, _ = _row_bounds(lens + 1, parallel_work)
        a, read_a, b, read_b = _operands(be, semiring, out_dtype, av, bv)
        term, has_term = be._term(semiring, out_dtype)
        kern = fused_dot_parallel if parallel else fused_dot_serial
        kern(bounds, ai, aj, a, read_a, bi, bj, b, read_b, mi, mj, semiring.monoid.opcode,
             semiring.mult.opcode, term, has_term, semiring.monoid.is_any,
             np.zeros(1, dtype=out_dtype), f, monoid.opcode, outw, outp)
    rows = np.flatnonzero(outp)
    return rows.astype(np.int64), outw[rows]


# ---------------------------------------------------------------- triangles per edge
@njit(inline="always")
def _below(ip, u, v):
    """(degree, id) of u below that of v: the edge u -> v of the degree
    orientation."""
    du = ip[u + 1] - ip[u]
    dv = ip[v + 1] - ip[v]
    return du < dv or (du == dv and u < v)


@njit(inline="always")
def _orient_count_row(u, ip, ix, op):
    c = 0
    for p in range(ip[u], ip[u + 1]):
        c += _below(ip, u, ix[p])
    op[u + 1] = c


@njit(inline="always")
def _orient_fill_row(u, ip, ix, op, oj):
    q = op[u]
    for p in range(ip[u], ip[u + 1]):
        v = ix[p]
        if _below(ip, u, v):
            oj[q] = v
            q += 1


@njit(cache=True, parallel=True)
def orient_parallel(ip, ix, op, oj, fill):
    """Out-degrees (``fill`` False, into op[1:]) or out-neighbours (``fill``
    True, from the prefix sums in op) of the degree orientation."""
    for u in prange(ip.shape[0] - 1):
        if fill:
            _orient_fill_row(u, ip, ix, op, oj)
        else:
            _orient_count_row(u, ip, ix, op)


@njit(cache=True)
def orient_serial(ip, ix, op, oj, fill):
    for u in range(ip.shape[0] - 1):
        if fill:
            _orient_fill_row(u, ip, ix, op, oj)
        else:
            _orient_count_row(u, ip, ix, op)


def orient_by_degree(ip, ix, parallel_work=None):
    """The DAG of a symmetric pattern: edge u -> v kept when (degree, id) of u
    is below that of v, so every out-degree is at most sqrt(2 nnz); CSR
    (int64 pointers, int64 columns ascending).  Two numba passes over the
    rows (count, fill); parallel above ``parallel_work`` entries."""
    n = ip.shape[0] - 1
    ip = ip.astype(np.int64, copy=False)
    op = np.empty(n + 1, dtype=np.int64)
    op[0] = 0
    par = parallel_work is not None and n + ix.shape[0] > parallel_work \
        and get_num_threads() > 1
    kern = orient_parallel if par else orient_serial
    dummy = np.empty(0, dtype=np.int64)
    kern(ip, ix, op, dummy, False)
    np.cumsum(op[1:], out=op[1:])
    oj = np.empty(int(op[-1]), dtype=np.int64)
    kern(ip, ix, op, oj, True)
    return op, oj


@njit(inline="always")
def _spread_row(i, ip, ix, op, oj, tot, out):
    q = op[i]
    for p in range(ip[i], ip[i + 1]):
        v = ix[p]
        if _below(ip, i, v):
            out[p] = tot[q]
            q += 1
        else:
            out[p] = tot[_lower_bound(oj, op[v], op[v + 1], i)]


@njit(cache=True, parallel=True)
def spread_parallel(ip, ix, op, oj, tot, out):
    """out[p] for every stored entry (i, j): the count of its oriented edge
    (i -> j in place, j -> i found by a binary search in j's out-row)."""
    for i in prange(ip.shape[0] - 1):
        _spread_row(i, ip, ix, op, oj, tot, out)


@njit(cache=True)
def spread_serial(ip, ix, op, oj, tot, out):
    for i in range(ip.shape[0] - 1):
        _spread_row(i, ip, ix, op, oj, tot, out)


@njit(inline="always")
def _triangles_from(u, op, oj, mark, cnt):
    """Each triangle whose lowest-ranked vertex is u (u -> v -> w with u -> w)
    adds 1 to its three oriented edges in cnt."""
    for p in range(op[u], op[u + 1]):
        mark[oj[p]] = p + 1
    for p in range(op[u], op[u + 1]):
        v = oj[p]
        for q in range(op[v], op[v + 1]):
            r = mark[oj[q]]
            if r:
                cnt[p] += 1
                cnt[r - 1] += 1
                cnt[q] += 1
    for p in range(op[u], op[u + 1]):
        mark[oj[p]] = 0


@njit(cache=True, parallel=True)
def triangles_parallel(bounds, op, oj, marks, cnts):
    for b in prange(bounds.shape[0] - 1):
        t = get_thread_id()
        for u in range(bounds[b], bounds[b + 1]):
            _triangles_from(u, op, oj, marks[t], cnts[t])


@njit(cache=True)
def triangles_serial(bounds, op, oj, marks, cnts):
    for u in range(op.shape[0] - 1):
        _triangles_from(u, op, oj, marks[0], cnts[0])


@njit(inline="always")
def _triangle_sums_from(u, op, oj, mark, tot, s):
    """For each triangle u -> v -> w (u -> w) found from u, add to each of its
    vertices the count on the opposite edge less one."""
    for p in range(op[u], op[u + 1]):
        mark[oj[p]] = p + 1
    for p in range(op[u], op[u + 1]):
        v = oj[p]
        for q in range(op[v], op[v + 1]):
            w = oj[q]
            r = mark[w]
            if r:
                s[u] += tot[q] - 1
                s[v] += tot[r - 1] - 1
                s[w] += tot[p] - 1
    for p in range(op[u], op[u + 1]):
        mark[oj[p]] = 0


@njit(cache=True, parallel=True)
def triangle_sums_parallel(bounds, op, oj, marks, tot, sums):
    for b in prange(bounds.shape[0] - 1):
        t = get_thread_id()
        for u in range(bounds[b], bounds[b + 1]):
            _triangle_sums_from(u, op, oj, marks[t], tot, sums[t])


@njit(cache=True)
def triangle_sums_serial(bounds, op, oj, marks, tot, sums):
    for u in range(op.shape[0] - 1):
        _triangle_sums_from(u, op, oj, marks[0], tot, sums[0])


def edge_triangles(ip, ix, sums, parallel_work):
    """For every stored entry (i, j) of a symmetric pattern (CSR, columns
    ascending), the number of common neighbours of i and j (int64, in CSR
    order): (A ∘ A²)(i, j).  Each triangle is found once, from its
    lowest-ranked vertex of the degree orientation (work about nnz^1.5, not
    the sum of squared degrees); per thread a marker of n entries and int32
    counts over the oriented edges (nnz/2).  ``sums=True`` also returns, per
    vertex i, the sum over the triangles {i, j, k} of C(j, k) - 1 (a second
    pass, skipped when there is no triangle; per thread n int64).  The
    orientation and the spreading of the counts onto both entries of an edge
    are numba passes over the rows (no sort, no search over all keys)."""
    n = ip.shape[0] - 1
    nnz = ix.shape[0]
    if n == 0 or nnz == 0:
        out = np.zeros(nnz, dtype=np.int64)
        return (out, np.zeros(n, dtype=np.int64)) if sums else out
    ip64 = ip.astype(np.int64, copy=False)
    op, oj, parallel, bounds, nacc = _oriented_blocks(ip64, ix, n, parallel_work)
    light = parallel_work * LIGHT_FACTOR
    marks = np.zeros((nacc, n), dtype=np.int64)
    cnts = np.zeros((nacc, oj.shape[0]), dtype=np.int32)
    (triangles_parallel if parallel else triangles_serial)(bounds, op, oj, marks, cnts)
    tot = cnts.sum(axis=0, dtype=np.int64) if nacc > 1 else cnts[0].astype(np.int64)
    del cnts
    if not tot.any():                       # no triangle: every count and sum is 0
        out = np.zeros(nnz, dtype=np.int64)
        return (out, np.zeros(n, dtype=np.int64)) if sums else out
    out = np.empty(nnz, dtype=np.int64)
    (spread_parallel if n + nnz > light and get_num_threads() > 1
     else spread_serial)(ip64, ix, op, oj, tot, out)
    if not sums:
        return out
    acc = np.zeros((nacc, n), dtype=np.int64)
    (triangle_sums_parallel if parallel else triangle_sums_serial)(bounds, op, oj, marks, tot,
                                                                   acc)
    return out, (acc.sum(axis=0) if nacc > 1 else acc[0])


# ---------------------------------------------------------------- dense A times sparse B
@njit(inline="always")
def _dense_loop(lo, hi, kdim, av, ap, has_pres, read_a, bi, bj, bv, read_b, addop, multop,
                reduce, outv, outp, mult_f, add_f):
    T = outv.dtype.type
    for i in range(lo, hi):
        for j in range(kdim):
            if has_pres and not ap[i, j]:
                continue
            a = av[i, j] if read_a else av[0, 0]
            for q in range(bi[j], bi[j + 1]):
                k = bj[q]
                prod = T(mult_f(multop, a, bv[q] if read_b else bv[0], i, j, k))
                if outp[i, k]:
                    if reduce:
                        outv[i, k] = T(add_f(addop, outv[i, k], prod))
                else:
                    outv[i, k] = prod
                    outp[i, k] = True


@njit(cache=True)
def _mult_called(op, x, y, i, k, j):
    """``_mult`` as a called function: LLVM inlines it and, with a constant
    opcode, folds its dispatch away (kernels._prod does the same for the
    matrix-vector loops)."""
    return _mult(op, x, y, i, k, j)


@njit(inline="always")
def _dense_rows(lo, hi, kdim, av, ap, has_pres, read_a, bi, bj, bv, read_b, addop, multop,
                reduce, outv, outp):
    """Rows lo..hi of C; plus_times (FGLT's net transform) gets a copy of
    the loop with constant opcodes, so its per-product operator dispatch
    folds away."""
    if addop == 0 and multop == 0:
        _dense_loop(lo, hi, kdim, av, ap, has_pres, read_a, bi, bj, bv, read_b, _op(0), _op(0),
                    reduce, outv, outp, _mult_called, _sum)
    else:
        _dense_loop(lo, hi, kdim, av, ap, has_pres, read_a, bi, bj, bv, read_b, addop, multop,
                    reduce, outv, outp, _mult, _add)


@njit(cache=True, parallel=True)
def dense_sparse_parallel(m, kdim, av, ap, has_pres, read_a, bi, bj, bv, read_b, addop, multop,
                          reduce, outv, outp):
    """C = A (+).(x) B for an m x kdim dense A (values ``av``, presence
    ``ap`` when ``has_pres``) and a CSR B: row i of C from the present
    entries of row i of A, each scattering row j of B, the inner index
    ascending (the order of the saxpy kernel's sums); blocks of 64 rows per
    parallel iteration."""
    for b in prange((m + 63) // 64):
        _dense_rows(b * 64, min(m, (b + 1) * 64), kdim, av, ap, has_pres, read_a, bi, bj, bv,
                    read_b, addop, multop, reduce, outv, outp)


@njit(cache=True)
def dense_sparse_serial(m, kdim, av, ap, has_pres, read_a, bi, bj, bv, read_b, addop, multop,
                        reduce, outv, outp):
    _dense_rows(0, m, kdim, av, ap, has_pres, read_a, bi, bj, bv, read_b, addop, multop,
                reduce, outv, outp)


@njit(inline="always")
def _full_loop(lo, hi, av, read_a, ci, cr, cv, read_b, addop, multop, reduce, outv, mult_f,
               add_f):
    T = outv.dtype.type
    for i in range(lo, hi):
        for k in range(ci.shape[0] - 1):
            q = ci[k]
            if q == ci[k + 1]:
                outv[i, k] = T(0)
                continue
            j = cr[q]
            s = T(mult_f(multop, av[i, j] if read_a else av[0, 0], cv[q] if read_b else cv[0],
                         i, j, k))
            if reduce:
                for q in range(ci[k] + 1, ci[k + 1]):
                    j = cr[q]
                    s = T(add_f(addop, s, T(mult_f(multop, av[i, j] if read_a else av[0, 0],
                                                   cv[q] if read_b else cv[0], i, j, k))))
            outv[i, k] = s


@njit(inline="always")
def _full_rows(lo, hi, av, read_a, ci, cr, cv, read_b, addop, multop, reduce, outv):
    """Rows lo..hi of C = A B for a full dense A and B by its columns (CSC
    ``ci, cr, cv``, rows ascending): C(i, k) summed in a register over the
    entries of column k, in the order of the saxpy kernel (the inner index
    ascending); a column of B without entries gives 0 (absent: the caller's
    presence).  plus_times gets a copy with constant opcodes."""
    if addop == 0 and multop == 0:
        _full_loop(lo, hi, av, read_a, ci, cr, cv, read_b, _op(0), _op(0), reduce, outv,
                   _mult_called, _sum)
    else:
        _full_loop(lo, hi, av, read_a, ci, cr, cv, read_b, addop, multop, reduce, outv, _mult,
                   _add)


@njit(cache=True, parallel=True)
def dense_full_parallel(m, av, read_a, ci, cr, cv, read_b, addop, multop, reduce, outv):
    """C = A (+).(x) B for a full m x k dense A and B given by its columns:
    blocks of 256 rows per parallel iteration."""
    for b in prange((m + 255) // 256):
        _full_rows(b * 256, min(m, (b + 1) * 256), av, read_a, ci, cr, cv, read_b, addop, multop,
                   reduce, outv)


@njit(cache=True)
def dense_full_serial(m, av, read_a, ci, cr, cv, read_b, addop, multop, reduce, outv):
    _full_rows(0, m, av, read_a, ci, cr, cv, read_b, addop, multop, reduce, outv)


def dense_sparse_mm(be, avals, apres, B, ncols, semiring, out_dtype, parallel_work):
    """``(values, presence or None)`` of the product of a dense m x k A
    (2-D ``avals``, ``apres`` None when every entry is present) and a k x
    ``ncols`` CSR ``B = (indptr, indices, vals or None)``, for a
    kernel-supported semiring (the caller checks ``be._kernel_ok``): the
    products and sums of the saxpy kernel in the same order, so the same
    values."""
    bi, bj, bv = B
    m, kdim = avals.shape
    if bi.shape[0] != kdim + 1:
        raise ValueError("dense_sparse_mm: B's rows do not match A's columns")
    out_dtype = np.dtype(out_dtype)
    mult, monoid = semiring.mult, semiring.monoid
    a, read_a, b, read_b = _operands(be, semiring, out_dtype, avals.reshape(-1), bv)
    a = a.reshape(avals.shape) if read_a else np.zeros((1, 1), dtype=a.dtype)
    has_pres = apres is not None
    if not has_pres:
        # every entry of A present: C(i, k) is present for every i exactly
        # when column k of B has an entry; each C(i, k) summed over B's
        # column (no presence array, no read-modify-write of C)
        ci, cr, order = _csc_of(bi, bj, ncols)         # by column, rows ascending
        cv = b[order] if read_b else b
        outv = np.empty((m, ncols), dtype=out_dtype)
        kernel = dense_full_parallel if m * (bj.shape[0] + ncols) > parallel_work \
            else dense_full_serial
        kernel(np.int64(m), a, read_a, ci, cr, cv, read_b, monoid.opcode, mult.opcode,
               not monoid.is_any, outv)
        return outv, _column_presence(ci, m)
    outv = np.zeros((m, ncols), dtype=out_dtype)
    outp = np.zeros((m, ncols), dtype=np.bool_)
    if apres.shape != (m, kdim):
        raise ValueError("dense_sparse_mm: the presence does not match the values")
    work = m * kdim + m * bj.shape[0]
    kernel = dense_sparse_parallel if work > parallel_work else dense_sparse_serial
    kernel(np.int64(m), np.int64(kdim), a, apres, has_pres, read_a,
           bi.astype(np.int64, copy=False), bj, b, read_b, monoid.opcode, mult.opcode,
           not monoid.is_any, outv, outp)
    return outv, (None if bool(outp.all()) else outp)


# ---------------------------------------------------------------- columns times sparse B
COLUMN_BLOCK = 128


@njit(inline="always")
def _columns_loop(lo, hi, a, read_a, ci, cr, cv, read_b, addop, multop, reduce, tmp, outv,
                  mult_f, add_f):
    T = outv.dtype.type
    ncols = ci.shape[0] - 1
    a00 = a[0][0]
    for r0 in range(lo, hi, COLUMN_BLOCK):
        r1 = min(hi, r0 + COLUMN_BLOCK)
        n_r = r1 - r0
        for k in range(ncols):
            t = tmp[k]                       # 1-D views: the inner loops vectorise
            q0 = ci[k]
            if q0 == ci[k + 1]:
                for r in range(n_r):
                    t[r] = T(0)
                continue
            j = cr[q0]
            c = cv[q0] if read_b else cv[0]
            if read_a:
                aj = a[j][r0:r1]
                for r in range(n_r):
                    t[r] = T(mult_f(multop, aj[r], c, r0 + r, j, k))
            else:
                for r in range(n_r):
                    t[r] = T(mult_f(multop, a00, c, r0 + r, j, k))
            if reduce:
                for q in range(q0 + 1, ci[k + 1]):
                    j = cr[q]
                    c = cv[q] if read_b else cv[0]
                    if read_a:
                        aj = a[j][r0:r1]
                        for r in range(n_r):
                            t[r] = T(add_f(addop, t[r], T(mult_f(multop, aj[r], c, r0 + r, j,
                                                                 k))))
                    else:
                        for r in range(n_r):
                            t[r] = T(add_f(addop, t[r], T(mult_f(multop, a00, c, r0 + r, j,
                                                                 k))))
        for r in range(n_r):
            o = outv[r0 + r]
            for k in range(ncols):
                o[k] = tmp[k, r]


@njit(inline="always")
def _columns_plus_times(lo, hi, a, ci, cr, cv, tmp, outv):
    """_columns_loop for plus_times with A, B and C of one type: t += a * c
    written out, so LLVM vectorises it (the same products and sums)."""
    ncols = ci.shape[0] - 1
    for r0 in range(lo, hi, COLUMN_BLOCK):
        r1 = min(hi, r0 + COLUMN_BLOCK)
        n_r = r1 - r0
        for k in range(ncols):
            t = tmp[k]
            q0 = ci[k]
            if q0 == ci[k + 1]:
                for r in range(n_r):
                    t[r] = 0
                continue
            aj = a[cr[q0]][r0:r1]
            c = cv[q0]
            for r in range(n_r):
                t[r] = aj[r] * c
            for q in range(q0 + 1, ci[k + 1]):
                aj = a[cr[q]][r0:r1]
                c = cv[q]
                for r in range(n_r):
                    t[r] = t[r] + aj[r] * c
        for r in range(n_r):
            o = outv[r0 + r]
            for k in range(ncols):
                o[k] = tmp[k, r]


@njit(inline="always")
def _columns_rows(lo, hi, a, read_a, ci, cr, cv, read_b, addop, multop, reduce, fast, tmp,
                  outv):
    """Rows lo..hi of C = [a_0 ... a_k-1] B, the columns given as ``a`` (a
    tuple of contiguous arrays, or the rows of a k x m array): per block of COLUMN_BLOCK rows, column k
    of C accumulated over the entries of B's column k (CSC ``ci, cr, cv``,
    inner index ascending: the saxpy kernel's order) along contiguous runs
    of the inputs, then written out row by row.  plus_times: constant
    opcodes."""
    if fast:
        _columns_plus_times(lo, hi, a, ci, cr, cv, tmp, outv)
    elif addop == 0 and multop == 0:
        _columns_loop(lo, hi, a, read_a, ci, cr, cv, read_b, _op(0), _op(0), reduce, tmp, outv,
                      _mult_called, _sum)
    else:
        # the other operators through the called dispatch too: numba's IR
        # copy of the _mult/_add chains at the loop's six call sites made
        # ~2/3 of this kernel's compile (7.2 -> 2.6 s a type; fglt's first
        # call pays it), and only plus_times reaches this kernel from the
        # library (graphlets.stack_columns); the runtime-opcode loop runs
        # ~1.5x slower than with the inlined chains (min_plus 20 -> 31 ms
        # for 200000 x 5 float64 columns)
        _columns_loop(lo, hi, a, read_a, ci, cr, cv, read_b, addop, multop, reduce, tmp, outv,
                      _mult_called, _sum)


@njit(cache=True, parallel=True)
def columns_parallel(m, a, read_a, ci, cr, cv, read_b, addop, multop, reduce, fast, tmps, outv):
    nb = (m + 8 * COLUMN_BLOCK - 1) // (8 * COLUMN_BLOCK)
    for b in prange(nb):
        _columns_rows(b * 8 * COLUMN_BLOCK, min(m, (b + 1) * 8 * COLUMN_BLOCK), a, read_a, ci,
                      cr, cv, read_b, addop, multop, reduce, fast, tmps[get_thread_id()], outv)


@njit(cache=True)
def columns_serial(m, a, read_a, ci, cr, cv, read_b, addop, multop, reduce, fast, tmps, outv):
    _columns_rows(0, m, a, read_a, ci, cr, cv, read_b, addop, multop, reduce, fast, tmps[0],
                  outv)


def _column_presence(ci, m):
    """The presence of an m-row product whose every row has an entry in
    column k exactly when column k of B (column pointers ``ci``) has one:
    None when all are present (or m = 0), else an m x ncols bool array."""
    colp = ci[1:] > ci[:-1]
    if bool(colp.all()) or m == 0:
        return None
    return np.ascontiguousarray(np.broadcast_to(colp, (m, colp.shape[0])))


def _csc_of(bi, bj, ncols):
    """(column pointers, rows, CSR positions) of a small CSR, rows ascending
    within each column."""
    rows = np.repeat(np.arange(bi.shape[0] - 1, dtype=np.int64), np.diff(bi))
    order = np.argsort(bj, kind="stable")
    ci = np.zeros(ncols + 1, dtype=np.int64)
    np.cumsum(np.bincount(bj, minlength=ncols), out=ci[1:])
    return ci, rows[order], order


def dense_columns_mm(be, cols, B, ncols, semiring, out_dtype, parallel_work):
    """``(values, presence or None)`` of [cols[0] ... cols[k-1]] B: the m x k
    block whose column j is the 1-D array ``cols[j]`` (every entry present)
    times a k x ``ncols`` CSR ``B``, without forming the block (the columns
    are read in place, as a tuple, along contiguous runs);
    the products and sums of the saxpy kernel in the same order.  For a
    kernel-supported semiring (the caller checks ``be._kernel_ok``)."""
    bi, bj, bv = B
    kdim = len(cols)
    if bi.shape[0] != kdim + 1:
        raise ValueError("dense_columns_mm: B's rows do not match the number of columns")
    m = cols[0].shape[0] if kdim else 0
    out_dtype = np.dtype(out_dtype)
    mult, monoid = semiring.mult, semiring.monoid
    cd = be._compute_dtype(semiring, out_dtype)
    if cd.kind == "u":
        cd = np.dtype(np.int64)
    if mult.reads_x and kdim:
        # the columns as they are (a tuple: no k x m copy), in the compute type
        a = tuple(np.ascontiguousarray(c, dtype=cd) for c in cols)
    else:
        # (not read: a[0][0] only; a tuple of the same numba type as the
        # columns', so a multiply that ignores them takes the same compile)
        a = (np.zeros(1, dtype=cd),) * max(kdim, 1)
    b = be._operand(bv, mult.reads_y, cd)
    read_b = bool(mult.reads_y and bv is not None)
    ci, cr, order = _csc_of(bi, bj, ncols)
    cv = b[order] if read_b else b
    outv = np.empty((m, ncols), dtype=out_dtype)
    par = m * (bj.shape[0] + ncols) > parallel_work and get_num_threads() > 1 \
        and m > 8 * COLUMN_BLOCK
    nt = get_num_threads() if par else 1
    tmps = np.empty((nt, ncols, COLUMN_BLOCK), dtype=out_dtype)
    read_a = bool(mult.reads_x and kdim)
    fast = bool(semiring.monoid.name == "plus" and mult.name == "times" and not semiring.is_user
                and monoid.opcode == 0 and mult.opcode == 0 and read_a and read_b
                and cd == out_dtype and cv.dtype == out_dtype)
    (columns_parallel if par else columns_serial)(
        np.int64(m), a, read_a, ci, cr, cv, read_b, monoid.opcode, mult.opcode,
        not monoid.is_any, fast, tmps, outv)
    return outv, _column_presence(ci, m)
