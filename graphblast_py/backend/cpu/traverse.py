"""Whole-traversal kernel of the CPU backend (traversal speculation, see
operations/speculate.py): from a frontier and a visited set, every level of
the plain BFS recurrence

    f_{d+1} = { j : A(i, j) for some i in f_d } minus v_d,   v_{d+1} = v_d + f_{d+1}

in one numba call -- a queue BFS over a visited bitmap, then each level
sorted -- instead of one framework call per level.  With ``parents`` each
found vertex also gets the frontier vertex it was found from (a BFS with
parents, ``any_secondi``: any such vertex is a right answer).
"""
import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def sort_nearly_sorted(a, lo, hi, budget):   # pragma: no cover
    """Sort ``a[lo:hi]`` in place: an insertion sort (linear on a list
    sorted already or nearly so), which gives up after ``budget`` shifts
    and sorts the range with the library's sort.  A BFS level found by
    scanning the sorted level before it (a grid's comes out in order) and
    a push's touched outputs on a grid or mesh (neighbours in order, a few
    pairs swapped: cpu/rowops.py ``sort_take_clear``) are such lists."""
    for k in range(lo + 1, hi):
        x = a[k]
        m = k - 1
        while m >= lo and a[m] > x:
            a[m + 1] = a[m]
            m -= 1
        a[m + 1] = x
        budget -= k - 1 - m
        if budget < 0:
            a[lo:hi].sort()
            return


@njit(cache=True, nogil=True)
def _traverse(indptr, indices, start, visited, capacity, max_levels,
              want_par):   # pragma: no cover
    n = visited.shape[0]
    vis = visited.copy()
    par = np.empty(n if want_par else 0, np.int64)
    order = np.empty(n, np.int64)
    # (at most n levels: a level has at least one new vertex)
    offsets = np.zeros(min(max_levels, n) + 1, np.int64)
    tail = 0
    nlev = 0
    complete = False
    # level 1 from the start frontier, level d + 1 from order[offsets[d-1]:offsets[d]]
    lo, hi = 0, start.shape[0]
    src = start
    while True:
        for q in range(lo, hi):
            i = src[q]
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                if not vis[j]:
                    vis[j] = True
                    order[tail] = j
                    if want_par:
                        par[j] = i
                    tail += 1
        size = tail - offsets[nlev]
        if size == 0:
            complete = True
            break
        sort_nearly_sorted(order, offsets[nlev], tail, 4 * (tail - offsets[nlev]) + 16)
        nlev += 1
        offsets[nlev] = tail
        if size > capacity or nlev >= max_levels:
            break
        lo, hi = offsets[nlev - 1], tail
        src = order
    found = order[:tail]
    parents = par[found] if want_par else par
    return found, offsets[:nlev + 1].copy(), complete, parents


def traverse(indptr, indices, start, visited, capacity, max_levels, parents=False):
    """``(order, offsets, complete)``: level d (d = 1, 2, ...) is
    ``order[offsets[d-1]:offsets[d]]`` (sorted int64 vertices); ``start``
    the frontier's vertices (int64), ``visited`` a bool array (not changed).
    Stops after a level of more than ``capacity`` vertices or after
    ``max_levels`` levels (``complete`` False: the levels after it are not
    known), or when a level comes out empty (``complete`` True: every later
    level is empty).  With ``parents`` a fourth array: the parent of each
    vertex of ``order`` (a vertex of the level before it adjacent to it),
    else None."""
    start = np.ascontiguousarray(start, dtype=np.int64)
    order, offsets, complete, par = _traverse(
        indptr, indices, start, np.ascontiguousarray(visited, dtype=np.bool_),
        np.int64(capacity), np.int64(max(1, max_levels)), bool(parents))
    return order, offsets, complete, (par if parents else None)
