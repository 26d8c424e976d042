"""SPMD mode: the algorithm runs on every worker at once, with collectives.

In the task mode (:mod:`.objects`) the client runs the algorithm and every
operation is a round of Dask tasks: a few milliseconds of scheduling each.
:func:`run` instead sends the algorithm itself to every worker of the
layout, once: worker ``b`` calls ``fn`` on distributed objects whose own
block is local (its ``R_b``, ``C_b``, ``v[I_b]``) and whose other blocks are
elsewhere.  The same object code runs there on a :class:`SpmdLayout`,
which carries out an operation on the own block only and replaces each
Dask round trip by a collective among the workers:

* the input vector of ``mxv``/``vxm``/``extract``: one all-gather of the
  blocks' entries (a header of counts, then the indices and values, or the
  dense values and presence bitmap), assembled on the device;
* a count or reduction (``nvals``, ``reduce``, ``isequal``): one all-gather
  of one number per block, combined identically on every worker.

A vector gathered again with no block changed since (connected components
gathers its parent vector for ``to_dense`` and again for ``extract``, and
again in the next iteration) is not sent again: the header carries each
block's content stamp (``Vector._ver``, unique in its process), and a
layout keeps its last few assembled vectors by the stamps of all blocks.
Every rank sees the same header, so all of them take the same decision.

Collectives: NCCL between GPU workers (one ``ncclAllGather`` on the device,
nothing through the host), sockets between CPU worker processes.  The
communicator is made once per layout and kept on the workers.  Every worker
makes the same decisions from the same gathered numbers, so all of them call
the same collectives in the same order.
"""
import itertools
import pickle
import time
import uuid

import numpy as np

from ..device import backend_for
from ..errors import GraphBLASError, InvalidValue
from . import _blocks as B
from .layout import Layout, POLL_S

#: this worker process's communicators, by layout key
_COMMS = {}
_PENDING = {}
#: assembled vectors a layout keeps for a repeated gather (see the docstring)
EXCHANGE_CACHE = 2
#: Vector.from_coo of replicated arrays by a reduce-scatter (see
#: SpmdLayout.vector_from_coo) from this many entries per rank and position
REDUCE_SCATTER = True
REDUCE_SCATTER_FRACTION = 1 / 16
#: time in collectives on this worker while profiling is on
#: (:func:`profile_collectives`): the input-vector all-gathers ("exchange":
#: header and payload; "bytes" sent by this rank; "hits": repeated gathers
#: answered by the cache; "headers_reused": gathers whose header nvals had
#: just gathered) and the number all-gathers ("numbers"), each timed with a
#: device synchronisation on both sides; "products": the block products of
#: mxv/vxm (after their input vector is assembled)
PROFILE = {"on": False, "exchange": 0.0, "exchanges": 0, "bytes": 0, "hits": 0,
           "numbers": 0.0, "number_calls": 0, "products": 0.0, "headers_reused": 0}


def profile_collectives(on=True, reset=True):
    """Switch the collective timing of this worker on or off (run it on the
    workers: ``client.run(profile_collectives, True)``); returns the times
    so far (a copy of :data:`PROFILE`) and, with ``reset``, zeroes them."""
    out = dict(PROFILE)
    if reset:
        PROFILE.update(exchange=0.0, exchanges=0, bytes=0, hits=0, numbers=0.0,
                       number_calls=0, products=0.0, headers_reused=0)
    PROFILE["on"] = bool(on)
    return out


class _Timed:
    """Times a collective into PROFILE[kind] while profiling is on."""
    __slots__ = ("be", "kind", "t0")

    def __init__(self, be, kind):
        self.be, self.kind = be, kind

    def __enter__(self):
        if PROFILE["on"]:
            self.be.synchronize()
            self.t0 = time.perf_counter()

    def __exit__(self, *exc):
        if PROFILE["on"]:
            self.be.synchronize()
            PROFILE[self.kind] += time.perf_counter() - self.t0


class _ThereType:
    """The stand-in for a block that lives on another worker."""

    def __repr__(self):
        return "<block on another worker>"

    def __reduce__(self):
        return "_THERE"


_THERE = _ThereType()


# ---------------------------------------------------------------- numbers
_NUM_WORDS = 4          # mode, position, type code, value bits (int64 each)


def _number_code(v):
    """(code, bits) of a number that travels without pickling, else None."""
    if type(v) is bool:
        return 1, int(v)
    if type(v) is int:
        return (2, v) if -2**63 <= v < 2**63 else None
    if type(v) is float:
        return 3, int(np.array([v]).view(np.int64)[0])
    if isinstance(v, np.generic) and v.dtype.kind in "biuf" and v.dtype.itemsize <= 8:
        raw = np.zeros(8, np.uint8)
        raw[:v.dtype.itemsize] = np.array([v]).view(np.uint8)
        return 256 + ord(v.dtype.char), int(raw.view(np.int64)[0])
    return None


def _number(code, bits):
    if code == 1:
        return bool(bits)
    if code == 2:
        return int(bits)
    raw = np.array([bits], np.int64)
    if code == 3:
        return float(raw.view(np.float64)[0])
    dt = np.dtype(chr(code - 256))
    return raw.view(np.uint8)[:dt.itemsize].view(dt)[0]


class SpmdLayout(Layout):
    """The layout as one worker (rank ``rank``) sees it inside :func:`run`:
    operations compute this rank's block and meet the others in collectives."""

    spmd = True

    def __init__(self, rank, workers, size, comm, device, _sizes=None):
        self.client, self.workers, self.size = None, tuple(workers), int(size)
        self.rank, self.comm, self.block_device = rank, comm, device
        p = len(self.workers)
        self.offsets = tuple(int(self.size * b // p) for b in range(p + 1))
        self._sizes = {} if _sizes is None else _sizes
        first = next(iter(self._sizes.values()), None)
        self._zero_arrays = {} if first is None else first._zero_arrays   # one per run
        self._sizes[self.size] = self
        self._be = backend_for(device)
        self._gathered = []         # [(key, assembled vector)], newest last

    def for_size(self, size):
        size = int(size)
        lay = self._sizes.get(size)
        if lay is None:
            lay = SpmdLayout(self.rank, self.workers, size, self.comm, self.block_device,
                             self._sizes)
        return lay

    def __repr__(self):
        return f"dist[{len(self.workers)} workers, rank {self.rank}]"

    # ------------------------------------------------------------ tasks, here
    def submit(self, b, step, fn, *args):
        return fn(*args) if b == self.rank else _THERE

    def map(self, step, fn, args_of_block):
        return [self.submit(b, step, fn, *args_of_block(b)) if b == self.rank else _THERE
                for b in range(self.nblocks)]

    def map_agreed(self, step, fn, args_of_block):
        """:meth:`map` with the outcome agreed (:meth:`agree`): a
        GraphBLASError on one rank's block raises on every rank."""
        me = self.rank
        got = self.agree(step, lambda: fn(*args_of_block(me)))
        return [got if b == me else _THERE for b in range(self.nblocks)]

    def scatter(self, b, data):
        return data if b == self.rank else _THERE

    def gather(self, futures, step):
        """Every block's result on every rank: each rank contributes the
        entries of ``futures`` it computed (one all-gather)."""
        mine = [(i, f) for i, f in enumerate(futures) if f is not _THERE]
        got = {}
        for part in self._allgather_objects(mine, step):
            for i, v in part:
                if i in got:
                    raise GraphBLASError(f"distributed {step}: two workers computed result "
                                         f"{i} (the ranks disagree on the blocks)")
                got[i] = v
        if len(got) != len(futures):
            raise GraphBLASError(f"distributed {step}: {len(futures) - len(got)} of "
                                 f"{len(futures)} results were computed by no worker")
        return [got[i] for i in range(len(futures))]

    def _allgather_host(self, arr):
        """All-gather of a small host int64 array: ``(size, len)`` on the host."""
        out = self.comm.allgather(self._be.asarray(arr.view(np.uint8)))
        return self._be.to_host(out).view(np.int64)

    def _allgather_objects(self, mine, step):
        """Each rank's ``[(position, value)]`` list on every rank.  One number
        (the hot path: counts, reductions) travels as its bits; anything else
        pickled in a second all-gather."""
        head = np.zeros(_NUM_WORDS, np.int64)
        payload = b""
        code = _number_code(mine[0][1]) if len(mine) == 1 else None
        if not mine:
            head[0] = 0
        elif code is not None:
            head[:] = (1, mine[0][0], code[0], code[1])
        else:
            payload = pickle.dumps(mine, protocol=pickle.HIGHEST_PROTOCOL)
            head[0], head[3] = 2, len(payload)
        with _Timed(self._be, "numbers"):
            heads = self._allgather_host(head)
        PROFILE["number_calls"] += 1
        out = [[] for _ in range(self.nblocks)]
        for r, h in enumerate(heads):
            if h[0] == 1:
                out[r] = [(int(h[1]), _number(int(h[2]), int(h[3])))]
        if (heads[:, 0] == 2).any():
            width = int(heads[heads[:, 0] == 2, 3].max())
            buf = np.zeros(-(-width // 8) * 8, np.uint8)
            buf[:len(payload)] = np.frombuffer(payload, np.uint8)
            rows = self._be.to_host(self.comm.allgather(self._be.asarray(buf)))
            for r, h in enumerate(heads):
                if h[0] == 2:
                    out[r] = pickle.loads(rows[r, :int(h[3])].tobytes())
        return out

    def asarray(self, a):
        return self._be.asarray(a)

    def to_host(self, a):
        return self._be.to_host(a)

    def agree(self, step, fn):
        """``fn()`` on every rank; if it raised a GraphBLASError on any rank,
        every rank raises (the first rank's message), so that no rank goes
        on to a collective the others never reach (:meth:`agree_info`
        without a summary: one all-gather)."""
        return self.agree_info(step, fn, lambda out: ())[0]

    def agree_info(self, step, fn, summary):
        """``fn()`` on every rank, the outcome agreed as :meth:`agree` says,
        and every rank's ``summary(result)`` (at most three ints) on every
        rank, in the same single all-gather: ``(result, rows)`` with
        ``rows[r]`` rank r's summary (an int64 array).  Only a failure costs
        a second all-gather (the messages)."""
        err, out, row = None, None, [0]
        try:
            out = fn()
            row = [0, *(int(x) for x in summary(out))]
        except GraphBLASError as e:
            err, row = e, [1]
        head = np.zeros(_NUM_WORDS, np.int64)
        head[:len(row)] = row
        with _Timed(self._be, "numbers"):
            H = self._allgather_host(head)
        PROFILE["number_calls"] += 1
        if H[:, 0].any():
            mine = None if err is None else (type(err), str(err))
            msgs = self.gather([mine if b == self.rank else _THERE for b in range(self.nblocks)],
                               step)
            if err is not None:
                raise err
            kind, msg = next(m for m in msgs if m is not None)
            raise kind(msg)
        return out, H[:, 1:]

    def vector_from_coo(self, indices, values, size, dtype, dup_op):
        """``Vector.from_coo`` on every rank at once.  Two kinds of input:

        * index and value arrays every rank holds alike: checked on every
          rank, then each rank builds its block from its entries -- or, for
          many entries combined by an integer min/max/plus, each rank
          combines a 1/p share of them and a reduce-scatter combines the
          shares (:meth:`_reduced_block`);
        * an index DistVector (and a value DistVector at the same positions,
          or a scalar): each rank reads only its own blocks, whose entries
          are its share (connected components' hooking, ``from_coo(f, mngf,
          dup_op=min)``: every vertex sends its label to its parent, and the
          parents are a few small ids, all in the first block); nothing is
          gathered but a few numbers, then the same reduce-scatter."""
        from ..indexing import coo_arrays
        from ..vector import Vector, _infer_size
        from .objects import DistVector
        if isinstance(indices, DistVector):
            return self._from_blocks(indices, values, size, dtype, dup_op)
        be = self._be
        idx, vals, dt = coo_arrays(be, (indices,), values, dtype, "Vector.from_coo")
        idx = idx[0]
        size = _infer_size(be, idx, size, "Vector.from_coo", "indices")
        lay = self.for_size(size)
        lo, hi = lay.offsets[lay.rank], lay.offsets[lay.rank + 1]
        name = _op_name(dup_op)
        m = idx.shape[0]
        if lay._reduces(m, size, dt, name):
            a, b = m * lay.rank // lay.nblocks, m * (lay.rank + 1) // lay.nblocks
            blk = lay._reduced_block(idx[a:b], vals[a:b], dt, name)
        else:
            keep = (idx >= lo) & (idx < hi)
            blk = lay.agree("from_coo", lambda: Vector.from_coo(
                idx[keep] - lo, vals[keep], hi - lo, dtype=dt, dup_op=dup_op,
                device=self.block_device))
        return lay._own_vector(dt, size, blk)

    def _own_vector(self, dt, size, blk):
        from .objects import DistVector
        return DistVector(dt, size, device=self, _blocks=[blk if b == self.rank else _THERE
                                                          for b in range(self.nblocks)])

    def _from_blocks(self, iv, values, size, dtype, dup_op):
        """:meth:`vector_from_coo` of an index DistVector ``iv`` and a value
        DistVector or scalar ``values``: every rank checks its blocks' entries,
        and one all-gather of the outcome with (entries, largest index,
        whether the values fit 32 bits) per rank sizes and routes the
        build."""
        from ..errors import DimensionMismatch, IndexOutOfBound
        from ..indexing import check_size, coo_arrays
        from ..vector import vector_entries
        from .objects import DistVector
        me, be = self.rank, self._be
        ib = iv._blocks[me]
        if isinstance(values, DistVector):
            iv._same_layout(values, "Vector.from_coo", "the value vector")
            if values.size != iv.size:
                raise DimensionMismatch(f"Vector.from_coo: the index Vector has size {iv.size} "
                                        f"but the value Vector has size {values.size}")
            vb = values._blocks[me]
        else:
            vb = values
        name = _op_name(dup_op)

        def local():
            i, v, _ = vector_entries(ib, vb, None, "Vector.from_coo")
            hi = []
            (i,), v, dt = coo_arrays(be, (i,), v, dtype, "Vector.from_coo", hi)
            return i, be.cast(v, dt), dt, hi[0]
        # the check's outcome and (entries, largest index, fits 32 bits) of
        # every rank in one all-gather
        (idx, vals, dt, hi), info = iv._layout.agree_info(
            "from_coo", local,
            lambda r: (r[0].shape[0], -1 if r[3] is None else r[3], _fits32(be, r[1], name)))
        m = int(info[:, 0].sum())
        top = int(info[:, 1].max())
        if size is None:
            size = top + 1
        else:
            size = check_size(size, "Vector.from_coo size")
            if top >= size:
                raise IndexOutOfBound(f"Vector.from_coo: the index Vector has the value {top}, "
                                      f"outside [0, {size})")
        lay = self.for_size(size)
        if lay._reduces(m, size, dt, name):
            blk = lay._reduced_block(idx, vals, dt, name, bool(info[:, 2].all()))
            return lay._own_vector(dt, size, blk)
        # few entries or another operator: the whole index and value lists,
        # gathered in position order, and the build from replicated arrays
        whole_i = iv.to_coo()[1]
        whole_v = values.to_coo()[1] if isinstance(values, DistVector) else values
        return self.vector_from_coo(whole_i, whole_v, size, dt, dup_op)

    def _reduces(self, m, size, dt, name):
        """Whether ``from_coo`` of ``m`` entries spread over the ranks takes
        the reduce-scatter: several ranks, a communicator that has it, an
        integer type and operator it reduces exactly (min, max, plus), and
        at least REDUCE_SCATTER_FRACTION of ``size`` entries per rank
        (``name``: the duplicate operator's)."""
        types = getattr(self.comm, "REDUCE_TYPES", None)
        return (REDUCE_SCATTER and self.nblocks > 1 and hasattr(self.comm, "reduce_scatter")
                and dt.kind in "iu" and name in ("min", "max", "plus")
                and (types is None or (dt.str[1:] in types))
                and m > 0 and m >= REDUCE_SCATTER_FRACTION * size * self.nblocks)

    def _reduced_block(self, idx, vals, dt, name, packed=None):
        """This rank's block of ``from_coo`` over every rank's share
        ``(idx, vals)`` (already checked) combined by ``name`` (min, max,
        plus): each rank scatters its share into a whole-size buffer of one
        padded row per block (the identity where it has no entry), and a
        reduce-scatter gives each rank its row.  For min and max with every
        rank's values in ``[0, 2**32 - 1)`` (``packed``; None: found out
        here with one all-gather of a flag) the rows travel as uint32 with a
        sentinel for "no entry" (min: ``2**32 - 1``; max: ``v + 1`` and 0):
        4 bytes a position instead of the value and a presence byte."""
        me, p, be = self.rank, self.nblocks, self._be
        xp = be.xp
        vals = be.cast(vals, dt)            # the type's values, as the sort path combines
        sizes = [self.block_size(r) for r in range(p)]
        mb = max(sizes)

        def share():
            pos = idx
            if mb * p != self.size:        # unequal blocks: padded rows
                r = xp.searchsorted(xp.asarray(self.offsets[1:], dtype=np.int64), idx,
                                    side="right")
                pos = r * mb + (idx - xp.asarray(self.offsets, dtype=np.int64)[r])
            return pos
        if packed is None:
            packed = all(self.gather(
                [_fits32(be, vals, name) if b == me else _THERE for b in range(p)],
                "from_coo"))
        # (_fits32 is False for other operators; _reduces checked the
        # communicator has a reduce-scatter)
        packed = packed and (getattr(self.comm, "REDUCE_TYPES", None) is None or
                             "u4" in self.comm.REDUCE_TYPES)
        info = np.iinfo(np.uint32 if packed else dt)
        ident = info.max if name == "min" else info.min if name == "max" else 0

        def scatter(v):
            # positions without an entry hold the identity (which the
            # backend's scatter leaves unspecified)
            V, P = be.scatter_reduce(share(), v, p * mb, name)
            be.put_missing(V, P, V.dtype.type(ident))
            return V, P
        if packed:
            u = vals.astype(np.uint32) + np.uint32(name == "max")
            V, _ = self.agree("from_coo", lambda: scatter(u))
            with _Timed(be, "exchange"):
                got = self.comm.reduce_scatter(V.reshape(p, mb), name)[:sizes[me]]
            PROFILE["bytes"] += V.nbytes
            pres = got != np.uint32(ident)
            v = (got - np.uint32(name == "max")).astype(dt)
        else:
            V, P = self.agree("from_coo", lambda: scatter(vals))
            with _Timed(be, "exchange"):
                v = self.comm.reduce_scatter(V.reshape(p, mb), name)[:sizes[me]]
                pres = self.comm.reduce_scatter(P.view(np.uint8).reshape(p, mb),
                                                "max")[:sizes[me]].view(bool)
            PROFILE["bytes"] += V.nbytes + P.nbytes
        from ..vector import Vector
        blk = Vector(dt, sizes[me], device=self.block_device)
        blk._set_dense(v, pres, bound=sizes[me])
        return blk

    def matrix_from_coo(self, rows, cols, values, nrows, ncols, dtype, dup_op):
        """``Matrix.from_coo`` of arrays every rank holds alike: checked on
        every rank, then each rank builds its row block from its rows."""
        from ..indexing import coo_arrays
        from ..matrix import Matrix
        from ..vector import _infer_size
        from .objects import DistMatrix
        be = self._be
        iso = np.ndim(values) == 0 and not (hasattr(values, "shape") and values.shape != ())
        (r, c), vals, dt = coo_arrays(be, (rows, cols), values, dtype, "Matrix.from_coo")
        nrows = _infer_size(be, r, nrows, "Matrix.from_coo", "rows")
        ncols = _infer_size(be, c, ncols, "Matrix.from_coo", "cols")
        lay = self.for_size(nrows)
        lo, hi = lay.offsets[lay.rank], lay.offsets[lay.rank + 1]
        keep = (r >= lo) & (r < hi)
        blk = lay.agree("from_coo", lambda: Matrix.from_coo(
            r[keep] - lo, c[keep], values if iso else vals[keep], hi - lo, ncols, dtype=dt,
            dup_op=dup_op, device=self.block_device))
        return DistMatrix(dt, nrows, ncols, layout=lay,
                          rows=[blk if b == lay.rank else _THERE for b in range(lay.nblocks)])

    # ------------------------------------------------------------ the input vector
    def _zeros(self, size, dt):
        """A zero array of ``size`` and ``dt``, made once per layout: the
        values of a gathered vector whose values the product does not read
        (BFS's frontier), which is only ever read."""
        return _zeros_of(self._be, self._zero_arrays, size, dt)

    def exchange(self, v, step, values=True):
        """The whole of ``v`` assembled on this rank's device from every
        rank's block: a header all-gather (form, entries sent, count, the
        block's content stamp), then one all-gather of the entries (all
        blocks sparse and the whole sparse: indices and values; else dense
        values and, unless every block is full, presence).  ``values=False``
        (a product that reads only where ``v`` has entries): the values are
        not sent and read as zero; a full ``v`` then needs no second
        all-gather at all.  A vector whose blocks all have the stamps of one
        gathered lately is not sent again (the assembled vector is kept: it
        is only read, never written)."""
        with _Timed(self._be, "exchange"):
            return (B.ASSEMBLED, self._exchange(v, values))

    def timed(self, kind):
        return _Timed(self._be, kind)

    def _header(self, v, exact=False, values=False):
        """This rank's block of ``v`` as :func:`B.export` gives it, and its
        header row: dense?, entries sent, count (exact with ``exact``, else
        what the block knows without counting), full?, content stamp, and
        whether the values may travel in 32 bits (``values`` given, 64-bit
        integers that all fit: :func:`_narrow`)."""
        me = self.rank
        blk = v._blocks[me]
        if exact:
            blk.nvals                       # counted now (a dense block: one wait)
        form, a, b_, count = B.export(blk, self.offsets[me], host=False)
        nb = self.block_size(me)
        narrow = values and (_narrow(self._be, a, b_) if form == "d" else
                             _narrow(self._be, b_)) is not None
        head = np.array([form == "d", a.shape[0] if form == "s" else nb, count,
                         (b_ is None) if form == "d" else a.shape[0] == nb, blk._ver,
                         narrow], np.int64)
        return (form, a, b_, count), head

    def vector_nvals(self, v):
        """``nvals`` of a DistVector: the header all-gather of
        :meth:`exchange` with exact counts, kept with the vector's
        generation (``DistVector._gen``, which changes with its blocks alike
        on every rank), so that a gather of the unchanged vector right after
        (BFS: ``while frontier.nvals: ... frontier.vxm(A)``) needs no header
        all-gather of its own."""
        _, head = self._header(v, exact=True)
        with _Timed(self._be, "numbers"):
            H = self._allgather_host(head)
        PROFILE["number_calls"] += 1
        self._head = (v._gen, H)
        return int(H[:, 2].sum())

    def _exchange(self, v, values):
        (form, a, b_, count), head = self._header(v, values=values)
        dt = np.dtype(v.dtype)
        known = getattr(self, "_head", None)
        if known is not None and known[0] == v._gen:
            H = known[1]                    # nvals gathered it; the vector is unchanged
            PROFILE["headers_reused"] += 1
            if bool(H[self.rank, 0]) != (form == "d"):
                # the block changed form since (a read converted it; the same
                # content): send it in the form the header announced
                blk = v._blocks[self.rank]
                if H[self.rank, 0]:
                    form, (a, b_) = "d", blk._dense(lend=True)
                else:
                    idx, vals = blk._sparse()
                    form, a, b_ = "s", idx + self.offsets[self.rank], vals
        else:
            H = self._allgather_host(head)
        PROFILE["exchanges"] += 1
        key = (v.size, dt.str, bool(values), tuple(int(x) for x in H[:, 4]))
        for k, got in self._gathered:
            if k == key:
                PROFILE["hits"] += 1
                return got
        out = self._assemble(v, H, form, a, b_, dt, values)
        self._gathered = (self._gathered + [(key, out)])[-EXCHANGE_CACHE:]
        return out

    def _assemble(self, v, H, form, a, b_, dt, values):
        """The payload all-gather of :meth:`exchange` and the assembled vector."""
        xp, me = self._be.xp, self.rank
        nb = self.block_size(me)
        # 64-bit integers that fit 32 bits on every block (connected
        # components' labels) travel as int32/uint32
        wdt = _NARROW.get(dt.str, dt) if values and H[:, 5].all() else dt
        isz = wdt.itemsize if values else 0
        out = _local_vector(dt, v.size, self.block_device)
        p8 = lambda n: -(-n // 8) * 8                     # noqa: E731 - aligned widths
        from ..vector import DENSE_FRACTION
        if not H[:, 0].any() and H[:, 1].sum() < DENSE_FRACTION * v.size:
            # every block sparse and the whole sparse: indices (and values)
            m = int(H[:, 1].max())
            buf = xp.zeros(m * 8 + p8(m * isz), np.uint8)
            k = a.shape[0]
            if k:
                buf[:k * 8] = xp.ascontiguousarray(a.astype(np.int64, copy=False)).view(np.uint8)
                if values:
                    buf[m * 8:m * 8 + k * isz] = xp.ascontiguousarray(
                        b_.astype(wdt, copy=False)).view(np.uint8)
            R = self.comm.allgather(buf)
            PROFILE["bytes"] += buf.nbytes
            cnt = [int(c) for c in H[:, 1]]
            idx = xp.concatenate([R[r, :cnt[r] * 8].view(np.int64) for r in range(len(cnt))])
            vals = xp.concatenate([R[r, m * 8:m * 8 + cnt[r] * isz].view(wdt)
                                   for r in range(len(cnt))]).astype(dt, copy=False) \
                if values else xp.zeros(idx.shape[0], dt)
            out._set_sparse(idx, vals)
            return out
        full = bool(H[:, 3].all())
        sizes = [self.block_size(r) for r in range(self.nblocks)]
        bound = int(H[:, 2].sum())
        if full and not values:             # every position present, no value read
            out._set_dense(self._zeros(v.size, dt), None, bound=bound)
            return out
        if form == "d":
            vals, pres = a, b_
        else:                                      # this block sparse, another dense
            loc = a - self.offsets[me]
            vals = xp.zeros(nb, dt)
            vals[loc] = b_
            pres = xp.zeros(nb, bool)
            pres[loc] = True
        mb = max(sizes)
        vw = p8(mb * isz)
        even = values and full and vw == nb * isz and all(z == nb for z in sizes)
        if even:            # equal blocks, no padding: send the values as they are
            buf = xp.ascontiguousarray(vals.astype(wdt, copy=False)).view(np.uint8)
        else:
            buf = xp.zeros(vw + (0 if full else p8(mb)), np.uint8)
            if nb:
                if values:
                    buf[:nb * isz] = xp.ascontiguousarray(vals.astype(wdt, copy=False)).view(
                        np.uint8)
                if not full:
                    buf[vw:vw + nb] = (xp.ones(nb, bool) if pres is None else pres).view(
                        np.uint8)
        R = self.comm.allgather(buf)
        PROFILE["bytes"] += buf.nbytes
        if even:            # the gathered rows are the whole vector already
            out._set_dense(R.reshape(-1).view(wdt).astype(dt, copy=False), None, bound=bound)
            return out
        vals = xp.concatenate([R[r, :sizes[r] * isz].view(wdt) for r in range(len(sizes))]) \
            .astype(dt, copy=False) if values else self._zeros(v.size, dt)
        pres = None if full else xp.concatenate([R[r, vw:vw + sizes[r]].view(bool)
                                                for r in range(len(sizes))])
        out._set_dense(vals, pres, bound=bound)
        return out


def _op_name(dup_op):
    """The name of a duplicate operator (a BinaryOp, a monoid or a name)."""
    if isinstance(dup_op, str):
        return dup_op
    return getattr(getattr(dup_op, "op", dup_op), "name", None)


#: 64-bit integer types and the 32-bit types their values may travel in
_NARROW = {np.dtype(np.int64).str: np.dtype(np.int32), np.dtype(np.uint64).str: np.dtype(np.uint32)}


def _narrow(be, vals, pres=None):
    """The 32-bit type that holds every value of ``vals`` (a 64-bit integer
    array; at the positions ``pres`` marks when given: the others hold
    anything; one wait on the device), or None (other types, or a value out
    of range)."""
    sdt = _NARROW.get(vals.dtype.str)
    if sdt is None or not vals.shape[0]:
        return sdt
    if pres is not None:
        vals = be.xp.where(pres, vals, vals.dtype.type(0))
    lo, hi = be.minmax(vals)
    info = np.iinfo(sdt)
    return sdt if info.min <= lo and hi <= info.max else None


def _fits32(be, vals, name):
    """Whether every value of ``vals`` (an integer array) is in ``[0, 2**32
    - 1)``, so a min/max reduce-scatter can send it as uint32 with a
    sentinel (one wait on the device); False for other operators."""
    if name not in ("min", "max") or vals.dtype.kind not in "iu":
        return False
    if not vals.shape[0]:
        return True
    lo, hi = be.minmax(vals)
    return lo >= 0 and hi < 0xFFFFFFFF


def _zeros_of(be, cache, size, dt):
    key = (size, np.dtype(dt).str)
    z = cache.get(key)
    if z is None:
        if len(cache) >= 4:
            cache.clear()
        z = cache[key] = be.zeros(size, dt)
    return z


def _local_vector(dt, size, device):
    from ..vector import Vector
    return Vector(dt, size, device=device)


# ---------------------------------------------------------------- setup (workers)
def _worker_rank(ranks, dask_worker=None):
    return ranks[dask_worker.address]


def _nccl_uid():
    from ..backend.gpu.collectives import unique_id
    return unique_id()


def _init_nccl(uid, key, ranks, dask_worker=None):
    from ..backend.gpu.collectives import NcclComm
    _COMMS[key] = NcclComm(uid, ranks[dask_worker.address], len(ranks))
    return B.BLOCK_DEVICE


def _listen(key, size, dask_worker=None):
    from ..backend.cpu.collectives import SocketListener
    host = dask_worker.address.split("://")[-1].rsplit(":", 1)[0]
    lst = _PENDING[key] = SocketListener(size, host)
    return lst.address, lst.authkey


def _connect(address, authkey, key, ranks, dask_worker=None):
    from ..backend.cpu.collectives import connect
    _COMMS[key] = connect(address, authkey, ranks[dask_worker.address], len(ranks))
    return B.BLOCK_DEVICE


def _finish_listen(key):
    _COMMS[key] = _PENDING.pop(key).comm()
    return B.BLOCK_DEVICE


def _init_self(key):
    from ..backend.cpu.collectives import SelfComm
    _COMMS[key] = SelfComm(backend_for(B.BLOCK_DEVICE).xp)
    return B.BLOCK_DEVICE


def _block_device():
    return B.BLOCK_DEVICE


def communicator(layout):
    """Set up (once per layout's workers) the communicator that :func:`run`
    uses; returns ``(key, kind, block device)``."""
    client, workers = layout.client, list(layout.workers)
    cache = client.__dict__.setdefault("_gb_spmd_comms", {})
    got = cache.get(tuple(workers))
    if got is not None:
        return got
    devices = set(client.run(_block_device, workers=workers).values())
    if len(devices) != 1:
        raise InvalidValue(f"gb.dist.run: the workers keep their blocks on different devices "
                           f"{sorted(devices)}")
    device = devices.pop()
    key = f"gb-comm-{uuid.uuid4().hex[:12]}"
    ranks = {w: r for r, w in enumerate(workers)}
    if len(workers) == 1:
        client.run(_init_self, key, workers=workers)
        kind = "self"
    elif device == "gpu":
        uid = client.submit(_nccl_uid, workers=workers[:1], allow_other_workers=False,
                            pure=False).result()
        client.run(_init_nccl, uid, key, ranks, workers=workers)
        kind = "nccl"
    else:
        addr, auth = client.run(_listen, key, len(workers), workers=workers[:1])[workers[0]]
        client.run(_connect, addr, auth, key, ranks, workers=workers[1:])
        client.run(_finish_listen, key, workers=workers[:1])
        kind = "socket"
    cache[tuple(workers)] = got = (key, kind, device)
    return got


# ---------------------------------------------------------------- run
_SPMD_M, _SPMD_V, _OUT_M, _OUT_V = ("__gb_spmd_%s__" % t for t in ("M", "V", "outM", "outV"))


_WALK = object()       # what a leaf function returns to go into a container


def _tag(y):
    """The tag of a tagged tuple (its first item, a string), else None."""
    return y[0] if isinstance(y, tuple) and y and isinstance(y[0], str) else None


def _map_tree(x, leaf):
    """``x`` with ``leaf(y)`` in place of every ``y`` met while walking its
    lists, tuples and dicts; where ``leaf`` returns ``_WALK`` the walk goes
    into ``y`` (a container) or keeps it as it is."""
    y = leaf(x)
    if y is not _WALK:
        return y
    if isinstance(x, (list, tuple)):
        return type(x)(_map_tree(a, leaf) for a in x)
    if isinstance(x, dict):
        return {k: _map_tree(a, leaf) for k, a in x.items()}
    return x


def _encode_args(x, b, layout):
    """The arguments for block ``b``'s task: each distributed object as a
    tagged tuple of its block ``b`` (futures Dask resolves on the worker)."""
    from .objects import DistMatrix, DistVector

    def leaf(y):
        if isinstance(y, DistMatrix):
            _check_layout(y, layout)
            return (_SPMD_M, y.dtype, y.nrows, y.ncols, y._rows[b],
                    None if y._cols is None else y._cols[b])
        if isinstance(y, DistVector):
            _check_layout(y, layout)
            return (_SPMD_V, y.dtype, y.size, y._blocks[b])
        return _WALK
    return _map_tree(x, leaf)


def _check_layout(x, layout):
    if x._layout.client is not layout.client or x._layout.workers != layout.workers:
        raise InvalidValue("gb.dist.run: the distributed arguments live on different workers")


def _decode_args(x, lay):
    """The task's arguments as distributed objects on the SPMD layout ``lay``
    (this rank's block local, the others elsewhere)."""
    from .objects import DistMatrix, DistVector

    def own(blk):
        return [blk if b == lay.rank else _THERE for b in range(lay.nblocks)]

    def leaf(y):
        if _tag(y) == _SPMD_M:
            _, dt, nr, nc, rows, cols = y
            return DistMatrix(dt, nr, nc, layout=lay.for_size(nr), rows=own(rows),
                              cols=None if cols is None else own(cols))
        if _tag(y) == _SPMD_V:
            _, dt, size, blk = y
            return DistVector(dt, size, device=lay.for_size(size), _blocks=own(blk))
        return _WALK
    return _map_tree(x, leaf)


def _encode_result(x, blocks):
    """``fn``'s result with each distributed object as a tagged tuple naming
    its position in ``blocks``, where this rank's block is appended."""
    from .objects import DistMatrix, DistVector

    def leaf(y):
        if isinstance(y, DistMatrix):
            blocks.append(y._rows[y._layout.rank])
            return (_OUT_M, y.dtype, y.nrows, y.ncols, len(blocks) - 1)
        if isinstance(y, DistVector):
            blocks.append(y._blocks[y._layout.rank])
            return (_OUT_V, y.dtype, y.size, len(blocks) - 1)
        return _WALK
    return _map_tree(x, leaf)


def _spmd_task(fn, rank, key, workers, args, kwargs):
    comm = _COMMS.get(key)
    if comm is None:
        raise GraphBLASError(f"gb.dist.run: this worker has no communicator {key} (was it "
                             "restarted?); start the cluster again")
    lay = SpmdLayout(rank, workers, 0, comm, B.BLOCK_DEVICE)
    args, kwargs = _decode_args(args, lay), _decode_args(kwargs, lay)
    be = backend_for(B.BLOCK_DEVICE)
    be.synchronize()
    t0 = time.perf_counter()
    res = fn(*args, **kwargs)
    be.synchronize()
    seconds = time.perf_counter() - t0
    blocks = []
    return _encode_result(res, blocks), blocks, seconds


def _skeleton(out):
    return out[0]


def _seconds(out):
    return out[2]


def _block(out, i):
    return out[1][i]


def _build_result(x, layout, block_futs):
    """The client's result: each tagged tuple of :func:`_encode_result` as a
    task-mode DistVector / DistMatrix over the blocks the workers kept."""
    from .objects import DistMatrix, DistVector

    def leaf(y):
        if _tag(y) == _OUT_V:
            _, dt, size, i = y
            return DistVector(dt, size, device=layout.for_size(size),
                              _blocks=[block_futs[b](i) for b in range(layout.nblocks)])
        if _tag(y) == _OUT_M:
            _, dt, nr, nc, i = y
            return DistMatrix(dt, nr, nc, layout=layout.for_size(nr),
                              rows=[block_futs[b](i) for b in range(layout.nblocks)])
        return _WALK
    return _map_tree(x, leaf)


_run_counter = itertools.count()


def run(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` run on every worker at once (SPMD), with
    collectives instead of Dask rounds; the result as :func:`fn` returns it,
    its distributed vectors and matrices as task-mode DistVector/DistMatrix
    whose blocks stay on the workers.

    The distributed arguments (DistMatrix, DistVector, also inside lists,
    tuples and dicts) must share one set of workers; ``fn`` must be
    picklable (a module-level function such as ``gb.algorithms.pagerank``,
    or a function of the calling script).  A DistMatrix argument gets its
    column blocks first (needed by ``vxm``; one all-to-all, kept with it).
    The seconds the slowest worker spent in ``fn`` are in
    :func:`last_seconds`."""
    return run_timed(fn, *args, **kwargs)[0]


_LAST = {"seconds": None}


def last_seconds():
    """The in-``fn`` time of the slowest worker of the last :func:`run`
    (seconds, device work included)."""
    return _LAST["seconds"]


def run_timed(fn, *args, **kwargs):
    """:func:`run`, returning ``(result, seconds)``: the time the slowest
    worker spent inside ``fn`` (after a device synchronisation on both
    sides), i.e. without the Dask round trip that starts and ends it."""
    from .objects import DistMatrix, _Dist
    dist = []
    _map_tree((args, kwargs), lambda y: dist.append(y) if isinstance(y, _Dist) else _WALK)
    if not dist:
        raise InvalidValue("gb.dist.run: no distributed argument (DistMatrix or DistVector) "
                           "tells where to run")
    layout = dist[0]._layout
    for a in dist:
        if isinstance(a, DistMatrix):
            a._column_blocks()
    key, kind, device = communicator(layout)
    n = next(_run_counter)
    futs = []
    for b in range(layout.nblocks):
        a_b = _encode_args(args, b, layout)
        k_b = _encode_args(kwargs, b, layout)
        futs.append(layout.client.submit(
            _spmd_task, fn, b, key, layout.workers, a_b, k_b, key=f"gb-spmd-{n}-b{b}",
            workers=[layout.workers[b]], allow_other_workers=False, pure=False))
    _wait(layout, futs, getattr(fn, "__name__", "fn"))
    skel = layout.client.submit(_skeleton, futs[0], workers=[layout.workers[0]],
                                allow_other_workers=False, pure=False).result()
    secs = layout.gather([layout.client.submit(_seconds, f, workers=[w], pure=False,
                                               allow_other_workers=False)
                          for f, w in zip(futs, layout.workers)], "run")
    _LAST["seconds"] = max(secs)

    def block_futs(b):
        return lambda i: layout.client.submit(_block, futs[b], i, workers=[layout.workers[b]],
                                              allow_other_workers=False, pure=False)
    return _build_result(skel, layout, [block_futs(b) for b in range(layout.nblocks)]), \
        max(secs)


def _wait(layout, futs, what):
    """Wait for the SPMD tasks; the first error, or WorkerLost, as soon as it
    happens (the other workers may then be stuck in a collective: the error
    says so)."""
    from distributed import wait
    while True:
        pending = [f for f in futs if f.status not in ("finished", "error")]
        try:
            if pending:
                wait(pending, timeout=POLL_S, return_when="FIRST_COMPLETED")
        except TimeoutError:
            layout._check_alive(futs, f"run {what}")
            continue
        except Exception as e:      # e.g. cancelled: a worker holding an input was lost
            layout._check_alive(futs, f"run {what}", cause=e)
            raise
        bad = [f for f in futs if f.status == "error"]
        if bad:
            try:
                bad[0].result()
            except GraphBLASError:
                raise
            except Exception as e:
                try:
                    err = type(e)(f"{e} [gb.dist.run {what}: raised on a worker; if the "
                                  "other workers did not raise too they may be waiting in a "
                                  "collective: restart the cluster]")
                except Exception:       # an exception type with another signature
                    raise e from None
                raise err from e
        if all(f.status == "finished" for f in futs):
            return
        layout._check_alive(futs, f"run {what}")


# ---------------------------------------------------------------- clusters, generators
def _use_gpu():
    """Keep this worker's blocks on its GPU; what it sees, for the check."""
    import os
    from ..backend import gpu_count
    B.BLOCK_DEVICE = "gpu"
    return os.environ.get("CUDA_VISIBLE_DEVICES"), gpu_count()


def start_local_gpus(n_gpus=None, memory_limit=0, **kwargs):
    """A ``dask.distributed.Client`` on a local cluster of one worker process
    per GPU (``CUDA_VISIBLE_DEVICES`` set per worker, one thread each, blocks
    kept on the GPU, ``NCCL_NVLS_ENABLE=0``).  ``n_gpus`` defaults to every
    visible GPU; ``memory_limit`` is Dask's host-memory limit per worker
    (default none: the blocks live in GPU memory).  Close with
    ``client.close(); client.cluster.close()``."""
    import os
    from distributed import Client, Nanny, Scheduler, SpecCluster
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    ids = [d for d in visible.split(",") if d.strip()] if visible else None
    if ids is None:
        from ..backend import gpu_count
        ids = [str(i) for i in range(gpu_count())]
    if n_gpus is not None:
        if not 1 <= int(n_gpus) <= len(ids):
            raise InvalidValue(f"start_local_gpus: n_gpus={n_gpus} but {len(ids)} GPUs are "
                               "visible")
        ids = ids[:int(n_gpus)]
    workers = {f"gpu{i}": {"cls": Nanny, "options": {
        "nthreads": 1, "memory_limit": memory_limit,
        "env": {"CUDA_VISIBLE_DEVICES": d, "GRAPHBLAST_DIST_DEVICE": "gpu",
                "NCCL_NVLS_ENABLE": "0"}}} for i, d in enumerate(ids)}
    scheduler = {"cls": Scheduler, "options": {"dashboard_address": kwargs.pop(
        "dashboard_address", None)}}
    from .layout import worker_config
    with worker_config():
        client = Client(SpecCluster(workers=workers, scheduler=scheduler, **kwargs))
    seen = client.run(_use_gpu)
    bad = {w: s for w, s in seen.items() if s[1] != 1}
    if bad:
        client.close()
        client.cluster.close()
        raise InvalidValue(f"start_local_gpus: every worker must see exactly one GPU; "
                           f"(CUDA_VISIBLE_DEVICES, GPUs seen) per worker: {bad}")
    return client


def _kron_block(scale, edge_factor, seed, a, b, c, permute, lo, hi):
    from ..generators import kronecker
    from .objects import kept_values
    blk = kronecker(scale, edge_factor, seed=seed, a=a, b=b, c=c, permute=permute,
                    rows=(lo, hi), device=B.BLOCK_DEVICE)
    n = 1 << scale
    # the graph is symmetric by construction: the symmetry checks' answer,
    # kept with the block as a run's check would keep it
    kept_values(blk, n, n).update(symmetric_structure=True, symmetric=True)
    return blk


def kronecker(layout, scale, edge_factor=16, *, seed=0, a=0.57, b=0.19, c=0.19,
              permute=True):
    """``gb.generators.kronecker(scale, ...)`` made on the workers, each its
    own row block (nothing passes through the client): a DistMatrix equal to
    ``distribute(gb.generators.kronecker(scale, ...), layout)``.  The graph is
    symmetric, so each column block is its row block's transpose (no
    all-to-all)."""
    from .objects import DistMatrix
    if not isinstance(layout, Layout) or isinstance(layout, SpmdLayout):
        raise InvalidValue(f"gb.dist.kronecker: layout must be a gb.dist.Layout, got {layout!r}")
    from ..generators import _int_arg
    n = 1 << _int_arg(scale, "scale", 0, 31)
    lay = layout.for_size(n)
    rows = [lay.submit(i, "kronecker", _kron_block, scale, edge_factor, seed, a, b, c, permute,
                       lay.offsets[i], lay.offsets[i + 1]) for i in range(lay.nblocks)]
    cols = lay.map("kronecker", B.transpose, lambda i: (rows[i],))
    M = DistMatrix(np.bool_, n, n, layout=lay, rows=rows, cols=cols)
    from ..generators import mark_symmetric
    mark_symmetric(M)                   # symmetric by construction (task mode's checks)
    return M
