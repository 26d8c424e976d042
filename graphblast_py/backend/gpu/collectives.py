"""NCCL collectives between GPUs for the SPMD mode of graphblast_py.dist.

One :class:`NcclComm` per worker process (one GPU each), made once per
cluster from a unique id shared by the client (``cupy.cuda.nccl``; the
environment of the workers keeps ``NCCL_NVLS_ENABLE=0``: no NVLink
multicast).  ``allgather`` is ``ncclAllGather`` of equal-length byte buffers
and ``reduce_scatter`` is ``ncclReduceScatter`` (min, max, plus of integers),
on the current stream: device memory in, device memory out, nothing through
the host.
"""
import cupy
from cupy.cuda import nccl


def unique_id():
    """A new NCCL unique id (a tuple of ints, picklable)."""
    return nccl.get_unique_id()


class NcclComm:
    kind = "nccl"
    xp = cupy

    def __init__(self, uid, rank, size):
        self.rank, self.size = rank, size
        self._comm = nccl.NcclCommunicator(size, uid, rank)

    def allgather(self, buf):
        """``(size, len(buf))`` uint8 device array of every rank's ``buf``."""
        buf = cupy.ascontiguousarray(buf).view(cupy.uint8).reshape(-1)
        out = cupy.empty((self.size, buf.shape[0]), dtype=cupy.uint8)
        if buf.shape[0]:
            stream = cupy.cuda.get_current_stream()
            self._comm.allGather(buf.data.ptr, out.data.ptr, buf.shape[0], nccl.NCCL_UINT8,
                                 stream.ptr)
        return out

    #: the reductions :meth:`reduce_scatter` offers, and the element types
    REDUCE_OPS = {"min": nccl.NCCL_MIN, "max": nccl.NCCL_MAX, "plus": nccl.NCCL_SUM}
    REDUCE_TYPES = {"i1": nccl.NCCL_INT8, "u1": nccl.NCCL_UINT8, "i4": nccl.NCCL_INT32,
                    "u4": nccl.NCCL_UINT32, "i8": nccl.NCCL_INT64, "u8": nccl.NCCL_UINT64}

    def reduce_scatter(self, buf, op):
        """``buf`` a ``(size, m)`` device array on every rank: row ``r`` of
        the elementwise reduction (``op``: "min", "max" or "plus", of
        :data:`REDUCE_TYPES`) over the ranks' ``buf``, on rank ``r``
        (``ncclReduceScatter``)."""
        buf = cupy.ascontiguousarray(buf)
        m = buf.shape[1]
        out = cupy.empty(m, dtype=buf.dtype)
        if m:
            stream = cupy.cuda.get_current_stream()
            self._comm.reduceScatter(buf.data.ptr, out.data.ptr, m,
                                     self.REDUCE_TYPES[buf.dtype.str[1:]],
                                     self.REDUCE_OPS[op], stream.ptr)
        return out

    def close(self):
        if self._comm is not None:
            self._comm.destroy()
            self._comm = None
