"""numba loop kernels for the CPU backend.

Operators arrive as opcodes (``Monoid.opcode``, ``BinaryOp.opcode``) and run
through ``_add`` / ``_mult``, the dispatch generated from the operator
definitions (backend/cpu/opgen.py writes the block below); the operand arrays
are already cast to one compute type, so each kernel compiles once per dtype
signature and is cached on disk (``cache=True``).  Logical multiplies
(land/lor/lxor) get bool operands.  The pull and push loops are written once
and inlined once per hot operator pair (min_second, min_first, min_plus,
any_pair, any_secondi, plus_times) with constant opcodes, so LLVM folds the
per-term dispatch there, and once with the runtime opcodes for the others.

User-defined operators take the same kernels: :func:`specialise` makes copies
of them whose ``_add`` / ``_mult`` call the operators' numba-compiled
functions instead (compiled once per process, not cached on disk).
"""
import types

import numpy as np
from numba import njit, prange

from .traverse import sort_nearly_sorted

# ---- BEGIN generated operator dispatch (python3 -m graphblast_py.backend.cpu.opgen)
# The predefined operators' Python scalar expressions, by opcode.  The
# operands arrive in the compute type; positional multiplies return the
# row i of A, the inner index k or the column j of B.
@njit(inline="always", cache=True)
def _mult(op, x, y, i, k, j):
    if op == 0:  # times
        return x * y
    elif op == 1:  # plus
        return x + y
    elif op == 2:  # minus
        return x - y
    elif op == 3:  # min
        return x if x < y else (y if y == y else x)
    elif op == 4:  # max
        return x if x > y else (y if y == y else x)
    elif op == 5:  # first
        return x
    elif op == 6:  # second
        return y
    elif op == 7:  # pair
        return 1
    elif op == 8:  # land
        return bool(x) and bool(y)
    elif op == 9:  # lor
        return bool(x) or bool(y)
    elif op == 10:  # lxor
        return bool(x) != bool(y)
    elif op == 11:  # firsti
        return i
    elif op == 12:  # firstj
        return k
    elif op == 13:  # secondi
        return k
    elif op == 14:  # secondj
        return j
    elif op == 15:  # any
        return x
    elif op == 16:  # rminus
        return y - x
    elif op == 17:  # eq
        return x == y
    elif op == 18:  # ne
        return x != y
    elif op == 19:  # lt
        return x < y
    elif op == 20:  # le
        return x <= y
    elif op == 21:  # gt
        return x > y
    elif op == 22:  # ge
        return x >= y
    else:  # 23: lxnor
        return bool(x) == bool(y)


@njit(inline="always", cache=True)
def _add(op, x, y):
    if op == 0:  # plus
        return x + y
    elif op == 1:  # times
        return x * y
    elif op == 2:  # min
        return x if x < y else (y if y == y else x)
    elif op == 3:  # max
        return x if x > y else (y if y == y else x)
    elif op == 4:  # lor
        return bool(x) or bool(y)
    elif op == 5:  # land
        return bool(x) and bool(y)
    elif op == 6:  # lxor
        return bool(x) != bool(y)
    elif op == 7:  # any
        return x
    else:  # 8: eq
        return bool(x) == bool(y)
# ---- END generated operator dispatch


# A constant opcode for the hot-pair copies of the loops below: typed int64,
# not as a literal (numba would compile _prod/_sum once per literal value), and
# still a constant LLVM folds once it has inlined _prod/_sum
_op = np.int64


@njit(cache=True)
def _prod(multop, a, xv, r, c, swap):
    """A matrix-vector product term: A(r,c) * x(c), or x(c) * A(c,r) for vxm
    (``swap``), positional indices as the multiply sees them; the caller
    wraps it in the output type.  A called function, not one inlined into
    the caller's numba IR (``_mult``'s chain copied at every call site made
    most of the kernels' compile time): LLVM inlines it, and where ``multop``
    is a constant (the hot pairs of :func:`_pull_rows` and :func:`push`) it
    folds the dispatch away."""
    if swap:
        return _mult(multop, xv, a, 0, c, r)
    return _mult(multop, a, xv, r, c, 0)


@njit(cache=True)
def _sum(addop, x, y):
    """``_add`` as a called function (see :func:`_prod`)."""
    return _add(addop, x, y)


# _prod inlined into numba's IR, for the loops' copy with the runtime opcodes
# (LLVM does not inline the whole dispatch chain of _prod)
_iprod = njit(inline="always", cache=True)(_prod.py_func)


PULL_BLOCK = 256


@njit(inline="always", cache=True)
def _pull_loop(lo, hi, indptr, indices, avals, read_a, keep_a, sink, xvals, xpres, has_pres,
               rows, addop, multop, swap, term, has_term, is_any, outv, outp, prod_f, sum_f):
    """The row loop of :func:`_pull_rows`, written once and inlined there once
    per hot operator pair with constant opcodes (and once with the runtime
    ones), so each copy's per-term operator dispatch folds away."""
    T = outv.dtype.type     # products and sums wrap in the output type (int32 stays int32)
    for t in range(lo, hi):
        r = rows[t]
        found = False
        acc = outv[r]
        for p in range(indptr[r], indptr[r + 1]):
            c = indices[p]
            if has_pres and not xpres[c]:
                continue
            a = avals[p] if read_a else avals[0]
            # structure_only=False: the value is really loaded (a compare and
            # a dummy store, never read; a running sum here slowed the loop)
            if keep_a and a != avals[0]:
                sink[0] = True
            prod = T(prod_f(multop, a, xvals[c], r, c, swap))
            if found:
                acc = T(sum_f(addop, acc, prod))
            else:
                acc = prod
                found = True
            if is_any or (has_term and acc == term):
                break
        if found:
            outv[r] = acc
            outp[r] = True


@njit(cache=True)
def _pull_rows(lo, hi, indptr, indices, avals, read_a, keep_a, sink, xvals, xpres, has_pres,
               rows, addop, multop, swap, term, has_term, is_any, outv, outp):
    """w(r) for the rows ``rows[lo:hi]``.  The row loop is inlined here, not
    called per row: a per-row call made each row ~100 ns (10-20x the work of
    a grid row).  The hot operator pairs get their own copy of the loop with
    constant opcodes (LLVM folds the per-term dispatch away); the opcode
    numbers are those of the generated ``_add`` / ``_mult`` above."""
    if _SPECIALISED:    # user operators: the opcodes mean nothing
        _pull_loop(lo, hi, indptr, indices, avals, read_a, keep_a, sink, xvals, xpres, has_pres,
                   rows, addop, multop, swap, term, has_term, is_any, outv, outp, _iprod, _add)
    elif addop == 2 and multop == 6:    # min_second: connected components
        _pull_loop(lo, hi, indptr, indices, avals, read_a, keep_a, sink, xvals, xpres, has_pres,
                   rows, _op(2), _op(6), swap, term, has_term, is_any, outv, outp, _prod, _sum)
    elif addop == 2 and multop == 5:    # min_first (its vxm form)
        _pull_loop(lo, hi, indptr, indices, avals, read_a, keep_a, sink, xvals, xpres, has_pres,
                   rows, _op(2), _op(5), swap, term, has_term, is_any, outv, outp, _prod, _sum)
    elif addop == 2 and multop == 1:    # min_plus: SSSP
        _pull_loop(lo, hi, indptr, indices, avals, read_a, keep_a, sink, xvals, xpres, has_pres,
                   rows, _op(2), _op(1), swap, term, has_term, is_any, outv, outp, _prod, _sum)
    elif addop == 7 and multop == 7:    # any_pair: BFS
        _pull_loop(lo, hi, indptr, indices, avals, read_a, keep_a, sink, xvals, xpres, has_pres,
                   rows, _op(7), _op(7), swap, term, has_term, is_any, outv, outp, _prod, _sum)
    elif addop == 7 and multop == 13:   # any_secondi: BFS parents
        _pull_loop(lo, hi, indptr, indices, avals, read_a, keep_a, sink, xvals, xpres, has_pres,
                   rows, _op(7), _op(13), swap, term, has_term, is_any, outv, outp, _prod, _sum)
    elif addop == 0 and multop == 0:    # plus_times with per-term tests
        _pull_loop(lo, hi, indptr, indices, avals, read_a, keep_a, sink, xvals, xpres, has_pres,
                   rows, _op(0), _op(0), swap, term, has_term, is_any, outv, outp, _prod, _sum)
    else:
        _pull_loop(lo, hi, indptr, indices, avals, read_a, keep_a, sink, xvals, xpres, has_pres,
                   rows, addop, multop, swap, term, has_term, is_any, outv, outp, _iprod, _add)


# True in the copies specialise() makes: their _add/_mult ignore the opcodes
_SPECIALISED = False


@njit(inline="always", cache=True)
def _plain(addop, multop, has_pres, keep_a, has_term, is_any):
    """plus_times over every term of every row and every x present (an SpMV:
    PageRank): :func:`_plus_times_rows`, called from pull_serial and
    pull_parallel themselves (inside _pull_rows, beside the other loops, it
    ran ~15% slower)."""
    return (not _SPECIALISED and addop == 0 and multop == 0
            and not (has_pres or keep_a or has_term or is_any))


@njit(inline="always", cache=True)
def _plus_times_rows(lo, hi, indptr, indices, avals, read_a, xvals, rows, outv, outp):
    """_pull_rows for plus_times where every term of a row is reduced and
    every x present: a loop without per-term tests the compiler can keep in
    registers.  A row's sum starts from its first product, as the monoid's
    fold does (no identity: -0.0 stays -0.0)."""
    T = outv.dtype.type
    for t in range(lo, hi):
        r = rows[t]
        p0 = indptr[r]
        p1 = indptr[r + 1]
        if p0 == p1:
            continue
        acc = T(xvals[indices[p0]] * (avals[p0] if read_a else avals[0]))
        for p in range(p0 + 1, p1):
            acc = T(acc + T(xvals[indices[p]] * (avals[p] if read_a else avals[0])))
        outv[r] = acc
        outp[r] = True


@njit(cache=True, parallel=True)
def pull_parallel(indptr, indices, avals, read_a, keep_a, sink, xvals, xpres, has_pres, rows,
                  addop, multop, swap, term, has_term, is_any, outv, outp):
    """w(r) = add_c A(r,c) * x(c) over the listed rows, stopping a row early
    once its sum reaches the monoid's terminal value (``has_term``) or at the
    first term (``is_any``); the caller clears both flags for early_exit=False.
    ``keep_a``: load every A(r,c) value even if the multiply ignores it
    (structure_only=False).  One block of ``PULL_BLOCK`` rows per parallel
    iteration (many more blocks than threads: rows of skewed graphs differ)."""
    n = rows.shape[0]
    plain = _plain(addop, multop, has_pres, keep_a, has_term, is_any)
    for b in prange((n + PULL_BLOCK - 1) // PULL_BLOCK):
        lo, hi = b * PULL_BLOCK, min(n, (b + 1) * PULL_BLOCK)
        if plain:
            _plus_times_rows(lo, hi, indptr, indices, avals, read_a, xvals, rows, outv, outp)
        else:
            _pull_rows(lo, hi, indptr, indices, avals, read_a, keep_a, sink, xvals, xpres,
                       has_pres, rows, addop, multop, swap, term, has_term, is_any, outv, outp)


@njit(cache=True)
def pull_serial(indptr, indices, avals, read_a, keep_a, sink, xvals, xpres, has_pres, rows,
                addop, multop, swap, term, has_term, is_any, outv, outp):
    """pull_parallel without the thread pool (small work: no fork/join cost)."""
    if _plain(addop, multop, has_pres, keep_a, has_term, is_any):
        _plus_times_rows(0, rows.shape[0], indptr, indices, avals, read_a, xvals, rows, outv,
                         outp)
        return
    # lo typed int64 as in pull_parallel, not as a literal 0 (one compile of _pull_rows)
    _pull_rows(_op(0), rows.shape[0], indptr, indices, avals, read_a, keep_a, sink, xvals, xpres,
               has_pres, rows, addop, multop, swap, term, has_term, is_any, outv, outp)


@njit(inline="always", cache=True)
def _push_loop(indptr, indices, pvals, read_p, keep_p, sink, xidx, xvals, allowed, has_allowed,
               addop, multop, swap, is_any, outv, outp, touched, prod_f, sum_f):
    """The loop of :func:`push`, inlined there once per hot operator pair with
    constant opcodes (see :func:`_pull_loop`)."""
    T = outv.dtype.type
    nt = 0
    for t in range(xidx.shape[0]):
        c = xidx[t]
        xv = xvals[t]
        for p in range(indptr[c], indptr[c + 1]):
            r = indices[p]
            if has_allowed and not allowed[r]:
                continue
            if outp[r] and is_any:
                continue
            a = pvals[p] if read_p else pvals[0]
            if keep_p and a != pvals[0]:    # the value is really loaded (see _pull_rows)
                sink[0] = True
            prod = T(prod_f(multop, a, xv, r, c, swap))
            if outp[r]:
                outv[r] = T(sum_f(addop, outv[r], prod))
            else:
                outv[r] = prod
                outp[r] = True
                touched[nt] = r
                nt += 1
    return nt


@njit(cache=True)
def push(indptr, indices, pvals, read_p, keep_p, sink, xidx, xvals, allowed, has_allowed, addop,
         multop, swap, is_any, outv, outp, touched):
    """Scatter P(c, :) * x(c) for every stored x(c) into a dense accumulator;
    the mask (``allowed``) is tested before each product.  Returns the number
    of touched outputs (their indices are in ``touched[:n]``, unsorted).
    ``keep_p``: load every P value even if the multiply ignores it.  The hot
    operator pairs get their own copy of the loop (see :func:`_pull_rows`)."""
    if _SPECIALISED:    # user operators: the opcodes mean nothing
        return _push_loop(indptr, indices, pvals, read_p, keep_p, sink, xidx, xvals, allowed,
                          has_allowed, addop, multop, swap, is_any, outv, outp, touched, _iprod,
                          _add)
    elif addop == 2 and multop == 1:    # min_plus: SSSP
        return _push_loop(indptr, indices, pvals, read_p, keep_p, sink, xidx, xvals, allowed,
                          has_allowed, _op(2), _op(1), swap, is_any, outv, outp, touched,
                          _prod, _sum)
    elif addop == 2 and multop == 6:    # min_second
        return _push_loop(indptr, indices, pvals, read_p, keep_p, sink, xidx, xvals, allowed,
                          has_allowed, _op(2), _op(6), swap, is_any, outv, outp, touched,
                          _prod, _sum)
    elif addop == 2 and multop == 5:    # min_first
        return _push_loop(indptr, indices, pvals, read_p, keep_p, sink, xidx, xvals, allowed,
                          has_allowed, _op(2), _op(5), swap, is_any, outv, outp, touched,
                          _prod, _sum)
    elif addop == 7 and multop == 7:    # any_pair: BFS
        return _push_loop(indptr, indices, pvals, read_p, keep_p, sink, xidx, xvals, allowed,
                          has_allowed, _op(7), _op(7), swap, is_any, outv, outp, touched,
                          _prod, _sum)
    elif addop == 7 and multop == 13:   # any_secondi: BFS parents
        return _push_loop(indptr, indices, pvals, read_p, keep_p, sink, xidx, xvals, allowed,
                          has_allowed, _op(7), _op(13), swap, is_any, outv, outp, touched,
                          _prod, _sum)
    elif addop == 0 and multop == 0:    # plus_times
        return _push_loop(indptr, indices, pvals, read_p, keep_p, sink, xidx, xvals, allowed,
                          has_allowed, _op(0), _op(0), swap, is_any, outv, outp, touched,
                          _prod, _sum)
    return _push_loop(indptr, indices, pvals, read_p, keep_p, sink, xidx, xvals, allowed,
                      has_allowed, addop, multop, swap, is_any, outv, outp, touched, _iprod,
                      _add)


# the collection of push's touched outputs (also rowops.compact_clear and
# rowops.sort_take_clear): the flags' positions by one pass, written
# always and kept where the flag is set (``idx`` one entry longer than
# the count), or the touched list sorted; then the gather and the clearing
@njit(cache=True)
def _compact_clear(flags, vals, idx, out):
    k = 0
    for i in range(flags.shape[0]):
        idx[k] = i                      # (no branch: written always, kept
        k += flags[i]                   #  when the flag is set)
    for t in range(k):
        i = idx[t]
        out[t] = vals[i]
        flags[i] = False
    return k


@njit(cache=True)
def _sort_take_clear(touched, nt, flags, vals, idx, out, budget):
    # touched[:nt] sorted into idx (traverse.sort_nearly_sorted: linear on a
    # frontier's nearly sorted touched outputs on a grid or mesh), then the
    # gather and the clearing
    for t in range(nt):
        idx[t] = touched[t]
    sort_nearly_sorted(idx, 0, nt, budget)
    for t in range(nt):
        r = idx[t]
        out[t] = vals[r]
        flags[r] = False


@njit(cache=True)
def push_collect(indptr, indices, pvals, read_p, sink, xidx, xvals, noflags, addop, multop, swap,
                 is_any, outv, outp, touched, scan_fraction):
    """:func:`push` without a mask (``keep_p`` off) and the collection of its
    result in the same call: the touched outputs sorted (an insertion sort
    that gives up after a budget: linear on a grid's nearly sorted list, as
    rowops.sort_take_clear), or, from ``1/scan_fraction`` of the outputs,
    found by a pass over the flags (as rowops.compact_clear): the same
    ``_sort_take_clear`` / ``_compact_clear``; their values gathered and the
    accumulator's flags cleared.  Returns ``(idx, vals)``,
    new arrays: one numba call for a plain push (an SSSP round's).  The hot
    operator pairs get their own copy of the loop with the mask, keep and
    ``any`` flags constant (LLVM drops their tests: 7.2 -> 6.2 us for an
    SSSP frontier of 300 vertices on the 300x300 grid)."""
    if addop == 2 and multop == 1:      # min_plus: SSSP
        nt = _push_loop(indptr, indices, pvals, read_p, False, sink, xidx, xvals, noflags, False,
                        _op(2), _op(1), swap, False, outv, outp, touched, _prod, _sum)
    elif addop == 2 and multop == 6:    # min_second
        nt = _push_loop(indptr, indices, pvals, read_p, False, sink, xidx, xvals, noflags, False,
                        _op(2), _op(6), swap, False, outv, outp, touched, _prod, _sum)
    elif addop == 2 and multop == 5:    # min_first
        nt = _push_loop(indptr, indices, pvals, read_p, False, sink, xidx, xvals, noflags, False,
                        _op(2), _op(5), swap, False, outv, outp, touched, _prod, _sum)
    elif addop == 0 and multop == 0:    # plus_times
        nt = _push_loop(indptr, indices, pvals, read_p, False, sink, xidx, xvals, noflags, False,
                        _op(0), _op(0), swap, False, outv, outp, touched, _prod, _sum)
    else:
        # the flags as bool values, not literals: push compiled as for its
        # own calls from Python (a literal False made numba compile a second
        # copy of push for every type)
        nt = push(indptr, indices, pvals, read_p, np.bool_(False), sink, xidx, xvals, noflags,
                  np.bool_(False), addop, multop, swap, is_any, outv, outp, touched)
    idx = np.empty(nt + 1, np.int64)
    vals = np.empty(nt + 1, outv.dtype)
    if nt * scan_fraction >= outv.shape[0]:
        _compact_clear(outp, outv, idx, vals)
    else:
        _sort_take_clear(touched, nt, outp, outv, idx, vals, 4 * nt + 64)
    return idx[:nt], vals[:nt]


@njit(inline="always", cache=True)
def _dot_entry(t, ai, aj, av, read_a, bi, bj, bv, read_b, i, j, addop, multop, term, has_term,
               is_any, outv, outp):
    p = ai[i]
    pe = ai[i + 1]
    q = bi[j]
    qe = bi[j + 1]
    T = outv.dtype.type
    found = False
    acc = outv[t]
    while p < pe and q < qe:
        ka = aj[p]
        kb = bj[q]
        if ka < kb:
            p += 1
        elif kb < ka:
            q += 1
        else:
            prod = T(_mult(multop, av[p] if read_a else av[0], bv[q] if read_b else bv[0],
                           i, ka, j))
            if found:
                acc = T(_add(addop, acc, prod))
            else:
                acc = prod
                found = True
            if is_any or (has_term and acc == term):
                break
            p += 1
            q += 1
    if found:
        outv[t] = acc
        outp[t] = True


@njit(cache=True, parallel=True)
def dot_parallel(ai, aj, av, read_a, bi, bj, bv, read_b, mrows, mcols, addop, multop, term,
                 has_term, is_any, outv, outp):
    """Masked dot-product SpGEMM: for the t-th mask entry (i, j),
    out[t] = add_k A(i,k) * B(k,j), by merging row i of A with row j of B^T."""
    for t in prange(mrows.shape[0]):
        _dot_entry(t, ai, aj, av, read_a, bi, bj, bv, read_b, mrows[t], mcols[t], addop, multop,
                   term, has_term, is_any, outv, outp)


@njit(cache=True)
def dot_serial(ai, aj, av, read_a, bi, bj, bv, read_b, mrows, mcols, addop, multop, term,
               has_term, is_any, outv, outp):
    """dot_parallel without the thread pool."""
    for t in range(mrows.shape[0]):
        _dot_entry(t, ai, aj, av, read_a, bi, bj, bv, read_b, mrows[t], mcols[t], addop, multop,
                   term, has_term, is_any, outv, outp)


@njit(inline="always")
def _scatter_fold(idx, vals, addop, minmax, out, pres):
    # (the one loop of scatter_reduce_checked; inlined with a constant
    # ``addop`` and ``minmax``, each call compiles to its own loop with the
    # operator folded in: min and max without an opcode dispatch per entry)
    n = out.shape[0]
    for k in range(idx.shape[0]):
        i = idx[k]
        if i < 0 or i >= n:
            return k
        if pres[i]:
            out[i] = _sum(addop, out[i], vals[k]) if minmax else _add(addop, out[i], vals[k])
        else:
            out[i] = vals[k]
            pres[i] = True
    return -1


@njit(cache=True)
def scatter_reduce_checked(idx, vals, addop, out, pres):
    """``out[idx[k]] = add(out[idx[k]], vals[k])`` for k in order, the first
    value of a position taken as it is (``pres`` False there until then):
    the left-to-right fold of each position's values, as the sort path's
    stable sort and segmented reduction computes it, in one pass over the
    entries and without a sort; each index is first tested against ``[0,
    out.shape[0])``: returns the position k of the first index outside it
    (the arrays are then partly written: the caller drops them), else -1.
    The min and max of the predefined integer and float types get their own
    loop (no opcode dispatch per entry)."""
    if addop == 2:                      # min
        return _scatter_fold(idx, vals, 2, True, out, pres)
    if addop == 3:                      # max
        return _scatter_fold(idx, vals, 3, True, out, pres)
    return _scatter_fold(idx, vals, addop, False, out, pres)


def compile_segment_reduce(f):
    """A segmented reduction with a user operator (jitted ``f``)."""
    @njit
    def seg(vals, starts, out):
        n = vals.shape[0]
        ns = starts.shape[0]
        for s in range(ns):
            a = starts[s]
            b = starts[s + 1] if s + 1 < ns else n
            acc = vals[a]
            for t in range(a + 1, b):
                acc = f(acc, vals[t])
            out[s] = acc
    return seg


def compile_map2(f):
    """``out = f(x, y)`` elementwise; either operand may be a 0-d array (a
    bound scalar: never broadcast into memory)."""
    @njit
    def map2(x, y, out):
        for t in range(out.shape[0]):
            out[t] = f(x[t], y[t])

    @njit
    def map2_left(s, y, out):
        for t in range(out.shape[0]):
            out[t] = f(s, y[t])

    @njit
    def map2_right(x, s, out):
        for t in range(out.shape[0]):
            out[t] = f(x[t], s)

    def run(x, y, out):
        if x.ndim == 0:
            map2_left(x[()], y, out)
        elif y.ndim == 0:
            map2_right(x, y[()], out)
        else:
            map2(x, y, out)
    return run


def compile_map1(f):
    @njit
    def map1(x, out):
        for t in range(out.shape[0]):
            out[t] = f(x[t])
    return map1


def compile_map_index(f):
    @njit
    def mapi(x, i, j, thunk, out):
        for t in range(out.shape[0]):
            out[t] = f(x[t], i[t], j[t], thunk)
    return mapi




# the serial loop kernels and the helpers they inline, copied by specialise()
_FAMILY = ("_prod", "_iprod", "_sum", "_pull_loop", "_plain", "_plus_times_rows", "_pull_rows",
           "pull_serial", "_push_loop", "push", "_dot_entry", "dot_serial")


def specialise(add=None, mult=None):
    """The serial loop kernels (pull, push, dot) with other operators:
    ``add(x, y)`` replaces the ``_add`` dispatch, ``mult(x, y)`` the
    ``_mult`` dispatch (numba-compiled functions, e.g. a user-defined
    operator's; None keeps the opcode dispatch).  The same kernel code,
    compiled separately for these operators (so each call inlines them),
    once per process: copies are not cached on disk, since numba keys its
    cache by the source file only.  The copies release the GIL: the backend
    runs them on row blocks in threads instead of numba's parallel loops,
    which drop an exception raised inside them (numba issue 2811) -- a user's
    function may raise (integer division by zero)."""
    ns = dict(globals())
    ns["_SPECIALISED"] = True
    if add is not None:
        @njit(inline="always")
        def add_op(op, x, y):
            return add(x, y)
        ns["_add"] = add_op
    if mult is not None:
        @njit(inline="always")
        def mult_op(op, x, y, i, k, j):
            return mult(x, y)
        ns["_mult"] = mult_op
    out = {}
    for name in _FAMILY:
        d = globals()[name]
        f = d.py_func
        copy = types.FunctionType(f.__code__, ns, f.__name__, f.__defaults__, f.__closure__)
        opts = {o: v for o, v in d.targetoptions.items() if o not in ("nopython", "parallel")}
        ns[name] = out[name] = njit(nogil=True, **opts)(copy)
    return types.SimpleNamespace(**out)
