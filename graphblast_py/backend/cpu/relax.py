"""Whole-run kernel of the CPU backend for relaxation rounds (round
speculation, see operations/relax.py): from a frontier ``f`` and the
distances ``d``, every later round of the frontier Bellman-Ford recurrence

    t = f min.+ A,   b = t < d (default where d has no entry),
    f' = t<b>,       d<f'.S> = f'

in one numba call instead of four framework calls per round.  The push of
each round is the plain push's own loop (kernels ``_push_loop`` with the
min_plus opcodes), so ``t`` has exactly the values that ``vxm``'s push
computes; ``b`` is ``ewise_union``'s comparison ``t < d`` at t's keys and
``f'`` the entries of t where b holds, sorted (the entries of
``apply(identity, mask=b.V)``).  Only ``f'`` is kept, with each round's
count of ``t``.
"""
import numpy as np
from numba import njit

from .kernels import _op, _prod, _push_loop, _sum
from .traverse import sort_nearly_sorted


@njit(cache=True, nogil=True)
def _relax(indptr, indices, pvals, read_p, fidx, fvals, dv, dp, default, swap, small,
           max_rounds, outv, outp, touched, fk, fv):   # pragma: no cover
    sink = np.zeros(1, np.bool_)
    noflags = np.zeros(1, np.bool_)
    tn = np.zeros(max_rounds, np.int64)
    foff = np.zeros(max_rounds + 1, np.int64)
    nr = 0
    fpos = 0
    complete = False
    xidx = fidx
    xvals = fvals
    while nr < max_rounds:
        nt = _push_loop(indptr, indices, pvals, read_p, False, sink, xidx, xvals, noflags,
                        False, _op(2), _op(1), swap, False, outv, outp, touched, _prod, _sum)
        if fpos + nt > fk.shape[0]:
            for q in range(nt):         # f' might not fit: the round is dropped, a
                outp[touched[q]] = False    # later run goes on from here
            break
        f0 = fpos
        for q in range(nt):             # t's entries that improve on d: f'
            j = touched[q]
            y = dv[j] if dp[j] else default
            if outv[j] < y:
                fk[fpos] = j
                fpos += 1
        sort_nearly_sorted(fk, f0, fpos, 4 * (fpos - f0) + 64)
        for q in range(f0, fpos):       # (t's keys are distinct: after the comparisons)
            j = fk[q]
            x = outv[j]
            fv[q] = x
            dv[j] = x
            dp[j] = True
        for q in range(nt):
            outp[touched[q]] = False
        tn[nr] = nt
        nr += 1
        foff[nr] = fpos
        if fpos == f0:
            complete = True             # f' is empty: every later round is
            break
        if fpos - f0 > small:
            break                       # a big frontier: the ordinary path from here
        xidx = fk[f0:fpos]
        xvals = fv[f0:fpos]
    return fk, fv, tn[:nr].copy(), foff[:nr + 1].copy(), complete


def relax_rounds(indptr, indices, pvals, read_p, fidx, fvals, dvals, dpres, default, swap,
                 small, max_rounds, workspace, dist_workspace, cap=None):
    """The rounds after the frontier ``(fidx, fvals)`` (sorted keys) with
    the distances ``(dvals, dpres)`` (dense, not changed; ``dpres`` None:
    every entry present), ``default`` standing in for a missing distance:
    ``(fk, fv, tn, foff, complete)`` -- round r (1, 2, ...) has ``t`` with
    ``tn[r-1]`` entries and ``f'`` = ``(fk, fv)[foff[r-1]:foff[r]]`` (sorted
    keys); ``tn`` and ``foff`` as Python lists.  ``t`` itself is not kept:
    its entries are the push of the round before's ``f'``, and ``b`` is
    true exactly at the keys of ``f'``.  Stops after a round whose ``f'`` is
    empty (``complete``: every later round is empty), has more than
    ``small`` entries, or after ``max_rounds`` rounds, and before a round
    whose ``f'`` might not fit the output arrays (its ``t`` larger than the
    room left; possibly before any round).  ``pvals``/``fvals``/
    ``dvals`` of one type, ``pvals`` a 1-element array when not read
    (``read_p`` False: an iso matrix).  ``workspace``: the push's
    accumulator (values, flags all False, touched), left as it was found
    (after an allocation failure its flags may be set: the caller owns it);
    ``dist_workspace``: two arrays of the distances' length and types that
    take the working distances.  ``cap``: the entries the output arrays
    hold (default n + 1024: every vertex improving once, as on a graph of
    equal weights; a run on other weights may stop early and a later run go
    on)."""
    dv, dp = dist_workspace
    dv[:] = dvals
    if dpres is None:
        dp[:] = True
    else:
        dp[:] = dpres
    outv, outp, touched = workspace
    n = dvals.shape[0]
    if cap is None:
        cap = n + 1024                  # (pages are touched only as they fill)
    fk, fv, tn, foff, complete = _relax(
        indptr, indices, pvals, bool(read_p), np.ascontiguousarray(fidx, dtype=np.int64),
        fvals, dv, dp, dvals.dtype.type(default), bool(swap), np.int64(small),
        np.int64(max(1, max_rounds)), outv, outp, touched, np.empty(cap, np.int64),
        np.empty(cap, dvals.dtype))
    return fk, fv, tn.tolist(), foff.tolist(), bool(complete)
