"""Traversal speculation: a whole BFS behind the ordinary per-level calls.

A BFS loop (algorithms/bfs.py, or a user's own loop written with the same
calls) makes 2-3 framework calls per level; a grid or a road network needs
thousands of levels, and then the cost of the calls, not the edges, is the
BFS.  This module lets ``mxv``/``vxm`` recognise that it is being driven by
such a loop and compute the rest of the traversal in one backend kernel,
then answer each following call from it -- with the ordinary result, through
the ordinary output rule.

A *BFS-shaped step* is ``w = u (+).(x) A`` (or ``A (+).(x) u``) with

* a semiring whose multiply is ``pair`` and whose monoid is ``any``, ``lor``,
  ``land``, ``min`` or ``max``: the result has an entry exactly where some
  entry of ``u`` reaches it along one edge, and every value is 1 in the
  output type, whatever ``u``'s and ``A``'s values are; or a BFS with
  parents: multiply ``secondi`` or ``firstj`` (the index of the entry of
  ``u`` an output entry was reached from) and monoid ``any`` (every such
  index is a right value), the kernel then also recording for each vertex
  the frontier vertex it was found from;
* the complemented structural mask of a Vector, ``mask=~M.S``; no accum;
  ``replace=True`` or an empty ``out``; direction "auto" and the default
  switches; a square plain Matrix and plain Vectors (``pull_input``, a
  promise of the same result, is ignored).

The *chain*: the result of every such call carries a record (``_Link``) of
the matrix (a token of its current contents: a mutation drops it), the
semiring, the output type, the stamp of ``M`` at the call and the stamp of
the result itself (``Vector._ver``: every store of new content gets a stamp
unique in the process).  The next call *continues* the chain only if

1. its ``u`` still holds exactly that result (the stamp, so the same object
   and no change since -- reading it is fine, writing it is not);
2. the matrix token, semiring, output type and direction (mxv/vxm) are the
   same;
3. ``M`` changed since by exactly one ``assign`` of a scalar under ``u.S``
   (``M.assign(x, mask=u.S)``, no replace, any accum): that assign records
   ``M._grew = (stamp before, stamp after, stamp of u)``, meaning the
   structure of M grew by exactly the structure of u; any other store to M
   clears the record.

Then the step is exactly the BFS recurrence ``f_{k+1} = N(f_k) \\ v_k``,
``v_{k+1} = v_k + f_{k+1}``.  After ``AFTER`` consecutive continuing calls
on small frontiers (at most ``n / SMALL`` vertices, so the few big levels of
a power-law graph never start one), the backend's ``traverse`` kernel runs
the recurrence from the current ``u`` and ``M.S`` to the end (or to a level
of more than ``speculate_capacity`` vertices, or ``speculate_levels``
levels): all later levels as one array sorted by (level, vertex) plus the
level offsets (on the host).  This call and each following continuing call
return the next level -- a slice of that array and a slice of an array of
ones, handed to the output rule -- with its count known on the host, so
``nvals`` never waits on a device.  A call that does not continue the chain
takes the ordinary path; nothing is guessed.

*Wide runs.*  On a backend with ``speculate_wide`` (the GPU), a continuing
call whose frontier is *big* (or uncounted) -- the few middle levels of a
power-law graph, where a one-block kernel would be slow -- runs the rest of
the traversal in the backend's ``traverse_wide``: level by level, each one
kernel launch (top-down or bottom-up, chosen from counters the kernels keep)
and one read, with none of the framework's per-call work between the
levels; its levels answer the following calls as above.  So a Kronecker BFS
takes two ordinary calls (the source's level, then the chain is linked) and
one run.  A loop that stops early leaves the rest of the run unused (at most
one BFS of work).  ``gb.stats`` counts
``vxm:speculated`` / ``mxv:speculated`` per answered call and
``traversal:launched`` per kernel run (its history entry has the number of
levels); a backend's ``speculate = False`` switches it all off.
"""
import weakref

from ..matrix import Matrix
from ..stats import stats
from ..vector import Vector

AFTER = 4           # continuing calls on small frontiers before a traversal runs
SMALL = 64          # small frontier: at most n / SMALL vertices ...
MIN_SMALL = 32      # ... or at most this many
_TOKEN = ("speculation token",)
_MONOIDS = frozenset(("any", "lor", "land", "min", "max"))
_shaped = {}
_KEYS = {"vxm": ("vxm", "speculated"), "mxv": ("mxv", "speculated")}


def _bfs_shaped(semiring):
    """"levels" for a semiring of the plain BFS step (multiply ``pair``,
    monoid any/lor/land/min/max: every value 1), "parents" for BFS with
    parents (multiply ``secondi`` or ``firstj``, the index k of the product
    ``A(i, k) u(k)`` or ``u(k) A(k, j)``, i.e. the frontier vertex an entry
    was reached from, and monoid ``any``: any such vertex is right), else
    None."""
    r = _shaped.get(semiring, 0)
    if r == 0:
        m, mon = semiring.mult, semiring.monoid
        r = None
        if not m.is_user and not mon.op.is_user:
            if m.name == "pair" and m.positional is None and mon.name in _MONOIDS:
                r = "levels"
            elif m.positional in ("secondi", "firstj") and mon.name == "any":
                r = "parents"
        _shaped[semiring] = r
    return r


class _Traversal:
    """The levels a traversal kernel found: level d (1, 2, ...) is
    ``order[offsets[d-1]:offsets[d]]``; ``complete``: every later level is
    empty.  The values of a level: ones, or (a BFS with parents) the
    parents ``par[offsets[d-1]:offsets[d]]``, aligned with ``order``."""

    __slots__ = ("order", "offsets", "complete", "nlev", "par", "be", "_cast", "in_order")

    def __init__(self, be, order, offsets, complete, out_dtype, par=None, in_order=True):
        self.order, self.complete = order, bool(complete)
        # in_order False: each level's vertices (and parents) as a wide run
        # found them; a level is sorted when it is sliced out (_cut), the
        # positional stores (fills, copies) take them as they are
        self.in_order = in_order
        self.offsets = [int(x) for x in offsets]
        self.nlev = len(self.offsets) - 1
        self.par = None if par is None else be.cast(par, out_dtype)
        self.be, self._cast = be, {}

    def _values(self, dtype):
        """The level values' array in ``dtype``: the parents, or ones as long
        as the widest level (made once per type, not per level; the results
        share slices of it, never written)."""
        got = self._cast.get(dtype)
        if got is None:
            if self.par is None:
                widest = max((b - a for a, b in zip(self.offsets, self.offsets[1:])),
                             default=0)
                got = self.be.full(widest, 1, dtype)
            else:
                got = self.be.cast(self.par, dtype)
            self._cast[dtype] = got
        return got

    def slices(self, d, dtype):
        """Level ``d`` as (keys, values already cast to ``dtype``): what the
        output rule stores for it."""
        return self._cut(d, self._values(dtype))

    def _cut(self, d, vals):
        """Level ``d``'s keys (sorted) and its slice of ``vals`` (the
        parents, aligned with ``order``, or ones, as long as the widest
        level)."""
        a, b = self.bounds(d)
        keys = self.order[a:b]
        if self.in_order or b - a < 2:
            return keys, vals[a:b] if self.par is not None else vals[:b - a]
        if self.par is None:
            return self.be.xp.sort(keys), vals[:b - a]
        at = self.be.xp.argsort(keys)
        return keys[at], vals[a:b][at]

    def bounds(self, d):
        """Level ``d``'s range in ``order``: ``(a, b)``."""
        if d > self.nlev:               # past the end of a complete traversal
            return self.offsets[-1], self.offsets[-1]
        return self.offsets[d - 1], self.offsets[d]


class _Level:
    """A result's pending content (``Vector._set_lazy``): level ``k`` of a
    traversal, sliced out only when someone reads the arrays (a BFS loop
    that only counts the frontier, masks with it and continues the chain
    never does)."""

    __slots__ = ("trav", "k")

    def __init__(self, trav, k):
        self.trav, self.k = trav, k

    def settle(self, v):
        v._i, v._v = self.trav.slices(self.k, v.dtype)


def level_keys(F):
    """``(order, a, b)`` when the Vector ``F`` holds exactly a level of a
    traversal (a result answered from it and not changed since): its
    structure is ``order[a:b]``; else None."""
    link = F._spec
    if link is None or link.trav is None or link.out_ver != F._ver:
        return None
    a, b = link.trav.bounds(link.k - 1)
    return link.trav.order, a, b


def level_values(F, dtype):
    """``(order, vals, a, b)`` when the Vector ``F`` holds exactly a level of
    a BFS-with-parents traversal (not changed since): its entries are
    ``order[a:b]`` with the values ``vals[a:b]`` (the parents, in
    ``dtype``); else None."""
    link = F._spec
    if link is None or link.trav is None or link.trav.par is None or \
            link.out_ver != F._ver:
        return None
    a, b = link.trav.bounds(link.k - 1)
    if F._nvals_known() != b - a:
        return None
    return link.trav.order, link.trav._values(dtype), a, b


class _Link:
    """What a BFS-shaped call leaves on its result (``Vector._spec``)."""

    __slots__ = ("a_tok", "swap", "semiring", "out_dtype", "m_ver", "out_ver", "streak",
                 "trav", "k", "checked")

    def __init__(self, a_tok, swap, semiring, out_dtype, streak, trav, k):
        self.a_tok, self.swap, self.semiring, self.out_dtype = a_tok, swap, semiring, out_dtype
        self.streak, self.trav, self.k = streak, trav, k
        self.m_ver = self.out_ver = None
        # weak references to (A, M) of the last call :func:`answer` checked
        # in full and answered into the result itself: the next such call
        # with the same objects skips the checks that cannot have changed
        # (see answer); weak, so that a frontier kept after its BFS does not
        # keep the matrix alive
        self.checked = None


def _continues(prev, u, M, tok, swap, semiring):
    """Whether a call continues the chain of ``prev`` (``u._spec``): ``u``
    still holds exactly that result, the matrix (its token ``tok``), the
    direction and the semiring are the same, and ``M`` changed since only by
    growing by exactly ``u``'s structure (its ``_grew`` record)."""
    g = M._grew
    return (g is not None and prev.out_ver == u._ver and prev.a_tok is tok
            and prev.swap is swap and prev.semiring is semiring
            and g[0] == prev.m_ver and g[1] == M._ver and g[2] == prev.out_ver)


def begin(what, A, u, M, out, semiring, out_dtype, swap, n, be):
    """For a call already known to have the BFS shape's mask/accum/replace/
    switches: ``(T, link)`` -- ``T`` the level (a :class:`_Level`, stored
    with :func:`store`) when the chain answers it (else None: take the
    ordinary path), ``link`` the record to leave on the
    result with :func:`end` (None: nothing to record)."""
    if (M is u or M is out or type(M) is not Vector or type(u) is not Vector
            or type(A) is not Matrix or A.nrows != A.ncols or not _bfs_shaped(semiring)):
        return None, None
    tok = A._cached(_TOKEN, object)
    prev = u._spec
    if prev.__class__ is not _Link:
        prev = None                     # (none, or a round record: operations/relax.py)
    chained = prev is not None and prev.out_dtype == out_dtype and \
        _continues(prev, u, M, tok, swap, semiring)
    linked = chained                    # (a chain, also past a stopped traversal)
    if chained and prev.trav is not None:
        trav, k = prev.trav, prev.k
        if k <= trav.nlev or trav.complete:
            stats.record(what, "speculated")
            return _Level(trav, k), _Link(tok, swap, semiring, out_dtype, 0, trav, k + 1)
        chained = False                 # past a traversal that stopped early
    nv = u._nvals_known()               # (unknown on a device: not small, no wait)
    parents = _bfs_shaped(semiring) == "parents"
    if nv is None or nv > max(MIN_SMALL, n // SMALL):
        if not be.speculate_wide:
            return None, None
        if not linked:                  # a first call: a chain may start here
            return None, _Link(tok, swap, semiring, out_dtype, 1, None, 0)
        # a continuing call on a big (or uncounted) frontier: the rest of the
        # traversal level by level in the backend (traverse_wide)
        push_P, pull_P = (A._csr(False), A._csc_arrays(False)) if swap else \
            (A._csc_arrays(False), A._csr(False))
        found = be.traverse_wide(push_P[:2], pull_P[:2], u._lend(),
                                 M._mask_dense(True, lend=True), be.speculate_levels,
                                 parents, nv)
        return _launched(what, be, found, out_dtype, tok, swap, semiring, wide=True)
    streak = prev.streak + 1 if chained else 1
    if streak < AFTER:
        return None, _Link(tok, swap, semiring, out_dtype, streak, None, 0)
    indptr, indices, _ = A._csr(False) if swap else A._csc_arrays(False)
    # (the traversal kernels read the frontier and the visited set and keep
    # neither: both are lent, see Vector._lend)
    found = be.traverse(indptr, indices, u._lend(), M._mask_dense(True, lend=True),
                        be.speculate_capacity, be.speculate_levels, parents)
    return _launched(what, be, found, out_dtype, tok, swap, semiring, wide=False)


def _launched(what, be, found, out_dtype, tok, swap, semiring, wide):
    """:func:`begin`'s answer after a traversal kernel ran: ``found`` its
    ``(order, offsets, complete, parents)``; the first level (each level's
    vertices in any order after a wide run) and the link to the next."""
    order, offsets, complete, par = found
    trav = _Traversal(be, order, offsets, complete, out_dtype, par, in_order=not wide)
    stats.record("traversal", "launched", levels=trav.nlev, complete=trav.complete,
                 **({"wide": True} if wide else {}))
    stats.record(what, "speculated")
    return _Level(trav, 1), _Link(tok, swap, semiring, out_dtype, 0, trav, 2)


def answer(what, A, u, semiring, mask, replace, out, pull_input, swap):
    """The lean path of a call that continues a chain a traversal already
    answers (every level after the first of a long BFS): the result, or None
    -- take the ordinary path, which makes every argument check itself.

    The caller has checked ``type(u) is Vector``, ``u._spec`` set, no accum,
    the default switches, ``direction="auto"`` and a Mask.  This returns a
    result only when every check of the ordinary path would pass (types,
    sizes, devices, ``replace`` a bool, ``pull_input``, ``out``, the mask's
    shape; a BFS-shaped semiring, so no user operator) and :func:`begin`
    would answer the call from the same traversal; it then stores exactly
    what the output rule would store -- the level's keys and ones in
    ``out``'s type: the complemented structural mask allows every key of the
    level by construction, and with ``replace`` (or into an empty ``out``)
    nothing old survives -- with the same stats record and chain link."""
    prev = u._spec
    trav = prev.trav
    if trav is None:
        return None
    M = mask.parent
    ck = prev.checked
    same = ck is not None and ck[0]() is A and ck[1]() is M     # (A, M) checked before
    if (same and out is u and replace is True
            and (pull_input is None or pull_input is M)
            and mask.complement and mask.structure):
        # the call before, with the same A and M, was checked in full and
        # answered into u: A's shape and backend, u's, M's and (the same
        # object) pull_input's cannot have changed while the chain continues
        # (a store to u or M, a resize included, breaks it: _continues; a
        # change of A drops its token), nor the output type (u's and A's
        # types and the semiring are the same)
        be = A._be
        if not be.speculate:
            return None
        n = A.nrows
        full = False
    else:
        if type(A) is not Matrix:
            return None
        be = A._be
        n = A.nrows
        if (not be.speculate or not mask.complement or not mask.structure
                or type(M) is not Vector or M is u or M is out or A.ncols != n or n > 1 << 26
                or u.size != n or u._be is not be or M.size != n or M._be is not be):
            return None
        if pull_input is not None and (type(pull_input) is not Vector
                                       or pull_input.size != n or pull_input._be is not be):
            return None
        if out is not None and (type(out) is not Vector or out.size != n or out._be is not be):
            return None
        if replace is not True and (replace is not False
                                    or (out is not None and not out._is_empty_fresh())):
            return None
        full = True
    d = A._derived
    tok = d.get(_TOKEN) if d is not None else None
    if tok is None or not _continues(prev, u, M, tok, swap, semiring):
        return None
    out_dtype = prev.out_dtype
    if full and semiring.out_dtype(*((u.dtype, A.dtype) if swap else (A.dtype, u.dtype))) \
            != out_dtype:
        return None                     # (the semiring is the link's: _continues)
    k = prev.k
    if k > trav.nlev and not trav.complete:
        return None                     # past a traversal that stopped early
    stats.record_key(_KEYS[what])
    out = store(out, _Level(trav, k), out_dtype, n, be)
    if out is u:
        # u's link is held by u alone and u's content is replaced: the same
        # record, one level on (the fields a new link would have); the
        # checks above held for (A, M) (without ``full`` the kept pair is
        # (A, M) already and replace is True: nothing to change)
        link, prev.k = prev, k + 1
        if full:
            if replace is not True:
                link.checked = None
            elif not same:
                link.checked = (weakref.ref(A), weakref.ref(M))
    else:
        link = _Link(tok, swap, semiring, out_dtype, 0, trav, k + 1)
    link.m_ver, link.out_ver = M._ver, out._ver
    out._spec = link
    return out


def store(out, level, out_dtype, n, be):
    """Store a level :func:`begin` answered into ``out`` (None: a new
    Vector) as the output rule would -- its keys and ones (or parents) in
    ``out``'s type: the caller's call has the complemented structural mask
    of the visited set, which allows every key of the level, and replace
    (or an empty ``out``), so nothing else survives -- pending until read."""
    if out is None:
        out = Vector(out_dtype, n, device=be.name)
    a, b = level.trav.bounds(level.k)
    out._set_lazy(b - a, level)
    return out


def end(out, M, link):
    """Leave ``link`` on the result ``out`` (after the output rule stored it)."""
    link.m_ver, link.out_ver = M._ver, out._ver
    out._spec = link


def note_growth(w, before, by):
    """Record on ``w`` (after a store) that its structure is the structure it
    had at stamp ``before`` plus the structure of the vector at stamp ``by``
    (a scalar assign under ``by``'s structural mask)."""
    w._grew = (before, w._ver, by)
