"""Round speculation: a run of shortest-path rounds behind the ordinary calls.

A single-source shortest-path loop (algorithms/sssp.py, or a user's own loop
written with the same calls) makes four framework calls per round:

    t = f.vxm(A, min_plus)                            # or A.mxv(f, min_plus)
    b = t.ewise_union(d, lt, x, y, mask=t.S)          # improves on d?
    f = t.apply(identity, mask=b.V)                   # the improved entries
    d.assign(f, mask=f.S)                             # (after f.nvals > 0)

A grid or a road network needs thousands of rounds, and then the calls, not
the edges, are the cost (traversal speculation, operations/speculate.py,
does the same for BFS).  Each of the four operations leaves a record
(``Vector._spec``, a :class:`_Rec`) on its result when its operands are the
results of the step before -- ``t`` of a plain ``min_plus`` product of the
frontier, ``b`` of ``lt`` at t's own structure against the distances, ``f``
of ``identity`` at b's values, and the distances' ``_grew`` note of the
assign of ``f`` under ``f.S`` (only that assign since ``b`` was computed).
Every record holds the stamps (``Vector._ver``: new on every store) of the
contents it was made from, so a record says exactly which contents a
result came from; any store clears it.

After ``AFTER`` such rounds on small frontiers (at most ``n / SMALL``
entries), the ``vxm`` of the next round runs the backend's ``relax_rounds``
kernel from ``f`` and the distances: all later rounds' ``f`` (the
entries of the plain push's ``t`` that improve on the distances as they
stand at that round) and the size of each ``t``, until a round whose ``f``
is empty, a round with a big ``f``, ``relax_limit`` rounds or before a
round whose ``f`` might not fit the run's arrays.  Then each
call of a following round is *answered*, with the record of its round:
``f`` as a slice of the run's arrays, ``t`` and ``b`` as pending stores of
known size (``Vector._set_lazy``), computed only when someone reads their
arrays -- ``t`` by the same push of the round before's ``f``, ``b`` true
exactly at f's keys.  A call is answered when

* ``vxm``: the frontier holds exactly the ``f`` of the round before (its
  record), with the same matrix (a token of its contents), semiring and
  direction, and no mask, accum, ``out`` or switches;
* ``ewise_union``: ``t`` holds exactly that round's ``t``, the operator is
  ``lt`` with the mask ``t.S``, no accum/out/replace, and the distances
  are exactly what the kernel had at that round (their stamp and the round
  whose assign made it, both updated by each answered assign: a skipped
  assign leaves the stamp but not the round), with the same default for a
  missing distance;
* ``apply``: ``identity`` of exactly that round's ``t`` under exactly its
  ``b``'s values;
* ``assign``: exactly that round's ``f`` under ``f.S`` into exactly those
  distances -- the copy waits and joins those of the following rounds
  (``Vector._defer_copies``: one scatter when the distances are read; a
  vertex improved in several rounds is in each of them, so the scatter
  lets the last round's value win, ``copy_at(last=True)``).

So the chain of records only decides when a kernel run starts; whether a
call is answered is checked at the call.  A call that does not fit takes
the ordinary path, which computes its result as always; nothing is
guessed.  The values are the ordinary ones:
the kernel pushes with the plain push's loop and compares as
``ewise_union``'s comparison does.  ``gb.stats`` counts ``vxm:speculated``
/ ``mxv:speculated``, ``ewise_union:speculated``, ``apply:speculated`` and
``assign:speculated`` per answered call and ``relaxation:launched`` per
kernel run; a backend's ``relax = False`` switches it off (the CPU's
numba kernel, backend/cpu/relax.py, and the GPU's persistent kernel,
backend/gpu/relax.py, are both on).
"""
import weakref

from .. import dtypes
from ..mask import Mask
from ..matrix import Matrix
from ..results import SparseResult
from ..stats import stats
from ..vector import Vector
from .common import finish
from .speculate import AFTER, MIN_SMALL, SMALL, _TOKEN

_MARK = "relax"          # the distances' _grew note: (_MARK, before, after, f's stamp)
_ANSWERED = {"vxm": ("vxm", "speculated"), "mxv": ("mxv", "speculated")}
_UNION = ("ewise_union", "speculated")
_APPLY = ("apply", "speculated")
_ASSIGN = ("assign", "speculated")


class _Rounds:
    """The rounds a kernel run found: round r (1, 2, ...) has the frontier
    ``f`` = ``(fk, fv)[foff[r-1]:foff[r]]``; its ``t`` (``tn[r-1]``
    entries) is the push of the frontier before it (``f0`` for round 1), and
    its ``b`` is true exactly at f's keys -- both computed only when someone
    reads their arrays (:class:`_Pending`); ``d_ver`` the stamp the
    distances must have for the next comparison (the kernel's own
    distances at that round).  ``P``, ``run`` and the types: the push that
    computes a ``t`` (the matrix's arrays at the start: a Matrix never
    writes its arrays in place)."""

    __slots__ = ("fk", "fv", "tn", "foff", "nr", "complete", "d_ver", "d_round", "d_ref",
                 "default", "be", "n", "f0", "P", "run", "semiring", "swap", "out_dtype",
                 "a_iso", "defaults")

    def __init__(self, be, got, d, default, f0, P, run, semiring, swap, out_dtype, a_iso):
        self.fk, self.fv, self.tn, self.foff, self.complete = got
        self.nr = len(self.tn)
        self.be, self.default, self.f0, self.n = be, default, f0, d.size
        # the distances' stamp after the assign of round d_round's f (0: as
        # the run started): round k's comparison reads them only at k - 1
        self.d_ref, self.d_ver, self.d_round = weakref.ref(d), d._ver, 0
        self.P, self.run, self.semiring, self.swap = P, run, semiring, swap
        self.out_dtype, self.a_iso = out_dtype, a_iso
        # the last (left, right) defaults an answered comparison checked, and
        # its output type (compare)
        self.defaults = None

    def frontier(self, k):
        """Round ``k``'s ``f`` as (keys, values); ``f0`` for k = 0."""
        if k == 0:
            return self.f0
        a, b = self.foff[k - 1], self.foff[k]
        return self.fk[a:b], self.fv[a:b]

    def product(self, k):
        """Round ``k``'s ``t`` as (keys, values): the push of round k-1's
        ``f``, by the plain push's own kernel where it runs."""
        xidx, xvals = self.frontier(k - 1)
        n = self.n
        r = self.run(self.P, xidx, xvals, n) if self.run is not None else None
        if r is not None:
            return r
        T = self.be.push(self.P, SparseResult(xidx, xvals), self.semiring, None, self.swap,
                         self.out_dtype, n, a_iso=self.a_iso)
        return finish(None, T, self.out_dtype, (n,), self.be, None, None, False, True)._sparse()


class _Pending:
    """An answered ``t`` or ``b`` (``Vector._set_lazy``): round ``k``'s,
    computed only when its arrays are read."""

    __slots__ = ("rounds", "k", "cmp")

    def __init__(self, rounds, k, cmp):
        self.rounds, self.k, self.cmp = rounds, k, cmp

    def settle(self, v):
        R = self.rounds
        keys, vals = R.product(self.k)
        if self.cmp:                    # b: true where t improves, i.e. at f's keys
            vals = R.be.xp.isin(keys, R.frontier(self.k)[0])
        v._i, v._v = keys, vals


def _lazy(dtype, size, be, nvals, pend):
    v = object.__new__(Vector)
    v.dtype, v.size, v._be = dtype, size, be
    v._set_lazy(nvals, pend)
    return v


class _Rec:
    """What a step of the chain leaves on its result (``Vector._spec``):
    ``kind`` "t", "b" or "f"; ``ver`` the result's stamp; the matrix token,
    direction and semiring of the round's product; ``streak`` the rounds
    chained so far; ``d_ref``/``d_ver`` the distances and their stamp at the
    comparison ("b", "f"); ``t_ver`` the stamp of the ``t`` a "b" compared;
    ``default`` the comparison's default; ``rounds``/``k``: the round of a
    kernel run the result was answered from (None, 0: computed)."""

    __slots__ = ("kind", "ver", "a_tok", "swap", "semiring", "streak", "d_ref", "d_ver",
                 "t_ver", "default", "rounds", "k")
    trav = None             # (not a traversal link: operations/speculate.py)

    def __init__(self, kind, ver, a_tok, swap, semiring, streak, rounds=None, k=0, d_ref=None,
                 d_ver=None, t_ver=None, default=None):
        self.kind, self.ver, self.a_tok, self.swap, self.semiring = kind, ver, a_tok, swap, semiring
        self.streak, self.rounds, self.k = streak, rounds, k
        self.d_ref, self.d_ver, self.t_ver, self.default = d_ref, d_ver, t_ver, default


def _rec(v, kind):
    """``v``'s record of ``kind`` when it still describes v's content, else None."""
    r = v._spec
    if r.__class__ is _Rec and r.kind == kind and r.ver == v._ver:
        return r
    return None


def _shaped(semiring):
    return (semiring.monoid.name == "min" and semiring.mult.name == "plus"
            and not semiring.is_user)


def _token(A):
    d = A._derived
    return d.get(_TOKEN) if d is not None else None


def _chained(f):
    """The streak of rounds ``f`` (an "f" record's vector) ends, when the
    distances changed since its comparison by exactly the assign of ``f``
    (their note), else 0."""
    r = _rec(f, "f")
    if r is None:
        return 0
    d = r.d_ref()
    g = None if d is None else d._grew
    if g is None or g[0] != _MARK or g[1] != r.d_ver or g[2] != d._ver or g[3] != r.ver:
        return 0
    return r.streak


def product(what, A, u, semiring, swap):
    """``u (+).(x) A`` answered from a kernel run (its next round's ``t``),
    or the kernel run started here when the chain is long enough; None
    otherwise (the ordinary path).  The caller checked a plain call: no
    mask, accum, out, pull_input or switches, direction "auto"."""
    r = _rec(u, "f")
    be = A._be
    if (r is None or not be.relax or A.__class__ is not Matrix or r.a_tok is not _token(A)
            or r.swap is not swap or r.semiring is not semiring):
        return None
    n = A.nrows
    R = r.rounds
    if R is not None and r.k < R.nr:
        k = r.k + 1
    else:
        streak = _chained(u) + 1
        nv = u._nvals_known()
        small = max(MIN_SMALL, n // SMALL)
        if streak < AFTER or nv is None or nv > small or A.ncols != n:
            return None
        d = r.d_ref()
        if d is None or d.dtype != u.dtype or d._be is not be:
            return None
        # the product's type and operands: the plain push's plan (kept with
        # A; its one-call kernel, where a push made one, computes a t that is
        # read)
        from .mxv import _plain_plan
        plan = A._cached(("plain", swap, semiring, u.dtype),
                         lambda: _plain_plan(A, u, semiring, swap, n, n))
        out_dtype, reads_a, a_iso, run = plan[0], plan[1], plan[2], plan[-1]
        if out_dtype != u.dtype:
            return None
        P = A._csr(reads_a) if swap else A._csc_arrays(reads_a)
        f0 = u._sparse()                # (a dense frontier -- the GPU's -- by its positions)
        got = be.relax_rounds(P, semiring, out_dtype, a_iso, swap, f0, d._dense(lend=True),
                              r.default, small, min(be.relax_limit, n))
        if got is None or not got[2]:
            return None                 # (no round fitted: the ordinary path)
        R = _Rounds(be, got, d, r.default, f0, P, run if callable(run) else None, semiring,
                    swap, out_dtype, a_iso)
        stats.record("relaxation", "launched", rounds=R.nr, complete=R.complete)
        k = 1
    stats.record_key(_ANSWERED[what])
    t = _lazy(u.dtype, n, be, R.tn[k - 1], _Pending(R, k, False))
    t._spec = _Rec("t", t._ver, r.a_tok, swap, semiring, 0, R, k)
    return t


def note_product(A, u, semiring, swap, t):
    """Leave a "t" record on the ordinary result ``t`` of a plain product
    with a ``min_plus``-shaped semiring (its streak: one more than the
    frontier's chain)."""
    if not (A._be.relax and _shaped(semiring) and A.__class__ is Matrix):
        return
    tok = A._cached(_TOKEN, object)
    t._spec = _Rec("t", t._ver, tok, swap, semiring, _chained(u) + 1)


def compare(a, b, op, left_default, right_default, mask):
    """``a.ewise_union(b, lt, _, right_default, mask=a.S)`` answered from a
    kernel run, when ``a`` is a round's answered ``t`` and ``b`` the
    distances as the kernel had them, with its default; else None.  The
    caller checked a plain call (no accum, out or replace) with a structural
    mask of ``a`` or ``b``."""
    r = _rec(a, "t")
    if (r is None or r.rounds is None or mask.parent is not a or not mask.structure
            or mask.complement or op.name != "lt" or op.is_user):
        return None
    R = r.rounds
    if (b.__class__ is not Vector or b._ver != R.d_ver or R.d_round != r.k - 1
            or b.dtype != a.dtype):
        return None
    ok = R.defaults
    if ok is None or left_default is not ok[0] or right_default is not ok[1]:
        # (the defaults typed as the ordinary path types them, raising as it
        # does; the same objects as the last answered call need no check)
        dtypes.cast_scalar(left_default, a.dtype, "ewise_union: left_default")
        rd = dtypes.cast_scalar(right_default, b.dtype, "ewise_union: right_default")
        if not rd == R.default:             # (a NaN default: never the same)
            return None
        ok = R.defaults = (left_default, right_default,
                           dtypes.lookup(op.out_dtype(a.dtype, b.dtype)))
    stats.record_key(_UNION)
    w = _lazy(ok[2], a.size, a._be, R.tn[r.k - 1], _Pending(R, r.k, True))
    w._spec = _Rec("b", w._ver, r.a_tok, r.swap, r.semiring, 0, R, r.k, t_ver=a._ver)
    return w


def note_compare(a, b, op, rd, mask, w):
    """Leave a "b" record on the ordinary comparison ``w`` of ``a`` (a "t"
    record's vector) with the distances ``b`` (``rd``: the default, cast)."""
    r = _rec(a, "t")
    if (r is None or mask.__class__ is not Mask or mask.parent is not a or not mask.structure
            or mask.complement or op.name != "lt" or op.is_user or b.__class__ is not Vector
            or b.dtype != a.dtype or w.dtype != bool):
        return
    w._spec = _Rec("b", w._ver, r.a_tok, r.swap, r.semiring, r.streak, d_ref=weakref.ref(b),
                   d_ver=b._ver, t_ver=a._ver, default=rd)


def select(x, op, m):
    """``x.apply(identity, mask=m.V)`` answered from a kernel run: the
    round's ``f`` when ``x`` is its ``t`` and ``m`` its ``b``; else None."""
    r = _rec(x, "t")
    if (r is None or r.rounds is None or op.name != "identity" or op.is_user
            or m.__class__ is not Vector):
        return None
    q = _rec(m, "b")
    if q is None or q.rounds is not r.rounds or q.k != r.k:
        return None
    R = r.rounds
    stats.record_key(_APPLY)
    f = Vector._new_sparse(x.dtype, x.size, x._be, *R.frontier(r.k))
    f._spec = _Rec("f", f._ver, r.a_tok, r.swap, r.semiring, 0, R, r.k, R.d_ref, R.d_ver,
                   default=R.default)
    return f


def note_select(x, op, m, f):
    """Leave an "f" record on the ordinary ``f = x.apply(identity,
    mask=m.V)`` when ``m`` is the comparison of ``x`` (a "b" record)."""
    r = _rec(x, "t")
    if (r is None or op.name != "identity" or op.is_user or f.dtype != x.dtype
            or m.__class__ is not Vector):
        return
    q = _rec(m, "b")
    if q is None or q.t_ver != x._ver or q.d_ref is None:
        return
    f._spec = _Rec("f", f._ver, r.a_tok, r.swap, r.semiring, r.streak, d_ref=q.d_ref,
                   d_ver=q.d_ver, default=q.default)


def assign(w, f):
    """``w.assign(f, mask=f.S)`` answered from a kernel run (the caller
    checked the call's shape): when ``f`` is a round's answered ``f`` and
    ``w`` the distances as the kernel had them, the copy of its entries
    waits and joins those of the following rounds; True when answered."""
    r = _rec(f, "f")
    if r is None or r.rounds is None:
        return False
    R = r.rounds
    if w._ver != R.d_ver or R.d_round != r.k - 1 or w.dtype != f.dtype:
        return False
    lo, hi = R.foff[r.k - 1], R.foff[r.k]
    stats.record_key(_ASSIGN)
    before = w._ver
    # a vertex improved in two rounds of the run is in both rounds' entries
    w._defer_copies(R.fk, R.fv, lo, hi, w._nv_hi + (hi - lo), repeats=True)
    R.d_ver, R.d_round = w._ver, r.k
    w._grew = (_MARK, before, w._ver, f._ver)
    return True


def note_assign(w, f, before):
    """After an ordinary ``w.assign(f, mask=f.S)``: note on ``w`` that it
    changed by exactly that assign since ``f``'s comparison read it."""
    r = _rec(f, "f")
    if r is not None and r.d_ver == before and r.d_ref is not None and r.d_ref() is w:
        w._grew = (_MARK, before, w._ver, f._ver)
