"""NCCL collectives between GPUs for the SPMD mode of graphblast_py.dist.

One :class:`NcclComm` per worker process (one GPU each), made once per
cluster from a unique id shared by the client (``cupy.cuda.nccl``; the
environment of the workers keeps ``NCCL_NVLS_ENABLE=0``: no NVLink
multicast).  ``allgather`` is ``ncclAllGather`` of equal-length byte buffers
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

    def close(self):
        if self._comm is not None:
            self._comm.destroy()
            self._comm = None
