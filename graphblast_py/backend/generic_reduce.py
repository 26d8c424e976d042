"""Reductions and sorted-key structure for
:class:`~graphblast_py.backend.generic.ArrayBackend`: segmented and full
reductions, expand, stable argsort, reduce-by-key, membership (see generic.py).
"""
import numpy as np


class ReduceMixin:
    """Reductions and sorted-key set operations (part of ArrayBackend)."""

    # ------------------------------------------------------------ reductions
    def segment_reduce(self, monoid, vals, starts):
        """Reduce ``vals`` over the contiguous segments beginning at ``starts``
        (non-empty, ascending) with ``monoid``."""
        raise NotImplementedError  # pragma: no cover - backend specific

    def reduce(self, monoid, vals, out_dtype, present=None):
        """Reduce a whole array (``present``: a bool array, only those
        positions count) to a host scalar (identity when none)."""
        if present is not None:
            vals = vals[present]
        if vals.shape[0] == 0:
            return monoid.identity(out_dtype)
        vals = self.cast(vals, out_dtype)
        r = self.segment_reduce(monoid, vals, self.xp.zeros(1, dtype=np.int64))
        return self.to_host(r)[0]

    # ------------------------------------------------------------ structure
    def expand(self, counts):
        """For segments of the given lengths: (segment id, offset within the
        segment) of every element, in order."""
        xp = self.xp
        counts = counts.astype(np.int64, copy=False)
        ends = xp.cumsum(counts)
        total = int(ends[-1]) if ends.shape[0] else 0
        idx = xp.arange(total, dtype=np.int64)
        seg = xp.searchsorted(ends, idx, side="right")
        off = idx - (ends[seg] - counts[seg]) if total else idx
        return seg, off

    def argsort(self, keys):
        return self.xp.argsort(keys, kind="stable")

    def segment_starts(self, sorted_keys):
        """Offsets where a new run of equal keys begins."""
        xp = self.xp
        n = sorted_keys.shape[0]
        if n == 0:
            return xp.zeros(0, dtype=np.int64)
        flag = xp.empty(n, dtype=bool)
        flag[0] = True
        xp.not_equal(sorted_keys[1:], sorted_keys[:-1], out=flag[1:])
        return xp.flatnonzero(flag)

    def reduce_by_key(self, monoid, keys, vals, presorted=False):
        """Combine values of equal keys: returns (unique sorted keys, values)."""
        if not presorted:
            order = self.argsort(keys)
            keys = keys[order]
            vals = vals[order] if vals is not None else None
        starts = self.segment_starts(keys)
        if vals is None:
            return keys[starts], None
        if starts.shape[0] == keys.shape[0]:
            return keys, vals
        return keys[starts], self.segment_reduce(monoid, vals, starts)

    def member(self, keys, set_keys):
        """Boolean array: which of ``keys`` occur in sorted ``set_keys``."""
        xp = self.xp
        if set_keys.shape[0] == 0 or keys.shape[0] == 0:
            return xp.zeros(keys.shape[0], dtype=bool)
        pos = xp.searchsorted(set_keys, keys)
        pos = xp.minimum(pos, set_keys.shape[0] - 1)
        return set_keys[pos] == keys

    def locate(self, keys, set_keys):
        """(found mask, position in set_keys) for each of ``keys``."""
        xp = self.xp
        if set_keys.shape[0] == 0:
            return xp.zeros(keys.shape[0], dtype=bool), xp.zeros(keys.shape[0], dtype=np.int64)
        pos = xp.minimum(xp.searchsorted(set_keys, keys), set_keys.shape[0] - 1)
        return set_keys[pos] == keys, pos

    def segment_reduce_op(self, op, vals, starts):
        """Like segment_reduce but with any BinaryOp, applied left to right
        (e.g. ``dup_op=minus``: 10, 2, 3 -> 5)."""
        from ..operators.core import Monoid
        if op.is_user or op.name in _SEGMENT_MONOID_OPS:
            return self.segment_reduce(Monoid(op, 0, None), vals, starts)
        return self._segment_fold(op, vals, starts)

    def _segment_fold(self, op, vals, starts):
        """Left-to-right fold of a predefined BinaryOp over each segment,
        vectorized across segments: one step per position within a segment
        (the loop runs max-segment-length times, not per element)."""
        xp = self.xp
        n = vals.shape[0]
        if starts.shape[0] == 0:
            return vals[:0]
        starts = starts.astype(np.int64, copy=False)
        ends = xp.empty_like(starts)
        ends[:-1] = starts[1:]
        ends[-1] = n
        lens = ends - starts
        acc = vals[starts].copy()
        for t in range(1, int(lens.max())):
            live = xp.flatnonzero(lens > t)
            acc[live] = self.binary(op, acc[live], vals[starts[live] + t], vals.dtype)
        return acc


# BinaryOps that segment_reduce handles as monoids (associative)
_SEGMENT_MONOID_OPS = frozenset(("plus", "times", "min", "max", "lor", "land", "lxor", "lxnor",
                                 "any", "first", "second"))
