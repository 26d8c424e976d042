"""Collectives between CPU processes for the SPMD mode of graphblast_py.dist.

:class:`SocketComm` joins the worker processes of a Dask cluster through
``multiprocessing.connection`` sockets: rank 0 listens, every other rank
connects once.  ``allgather`` sends each rank's NumPy buffer to rank 0, which
returns the stacked buffers to everyone (two messages per rank and call);
``reduce_scatter`` goes through it.
:class:`SelfComm` is the one-rank case.  The GPU counterpart is
:mod:`graphblast_py.backend.gpu.collectives` (NCCL).
"""
import os
import secrets
import threading

import numpy as np

from ...errors import GraphBLASError


_REDUCE = {"min": np.minimum, "max": np.maximum, "plus": np.add}


class CommError(GraphBLASError, RuntimeError):
    """A collective failed (a peer disconnected, or ranks called different
    collectives)."""


class SelfComm:
    """The communicator of a single rank."""

    kind = "self"

    def __init__(self, xp=np):
        self.rank, self.size, self.xp = 0, 1, xp

    def allgather(self, buf):
        return buf.reshape(1, -1)

    def reduce_scatter(self, buf, op):
        return buf.reshape(1, -1)[0]

    def close(self):
        pass


def _no_delay(conn):
    """TCP_NODELAY on a connection's socket: ``send_bytes`` writes a length
    header and then the payload, and with Nagle's algorithm the second write
    waits for the peer's delayed ACK (up to 40 ms per collective)."""
    import socket
    s = socket.socket(fileno=os.dup(conn.fileno()))
    try:
        if s.family in (socket.AF_INET, socket.AF_INET6):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    finally:
        s.close()
    return conn


class SocketListener:
    """Rank 0's side of the setup: listens and accepts ``size - 1`` peers in a
    thread (so that the peers can connect while the setup call returns)."""

    def __init__(self, size, host="127.0.0.1"):
        from multiprocessing.connection import Listener
        self.size = size
        self.authkey = secrets.token_bytes(16)
        self.listener = Listener((host, 0), authkey=self.authkey)
        self.address = self.listener.address
        self.peers = {}
        self.error = None
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        try:
            for _ in range(self.size - 1):
                conn = _no_delay(self.listener.accept())
                self.peers[conn.recv()] = conn
        except Exception as e:          # reported by comm()
            self.error = e

    def comm(self, timeout=60.0):
        self.thread.join(timeout)
        self.listener.close()
        if self.error is not None or len(self.peers) != self.size - 1:
            raise CommError(f"SocketComm setup: {len(self.peers)} of {self.size - 1} peers "
                            f"connected to rank 0 ({self.error!r})")
        return SocketComm(0, self.size, self.peers)


def connect(address, authkey, rank, size):
    """A peer's side of the setup: connect to rank 0 and say who it is."""
    from multiprocessing.connection import Client
    conn = _no_delay(Client(address, authkey=authkey))
    conn.send(rank)
    return SocketComm(rank, size, {0: conn})


class SocketComm:
    """Rank ``rank`` of ``size`` processes joined through rank 0."""

    kind = "socket"
    xp = np

    def __init__(self, rank, size, conns):
        self.rank, self.size, self._conns = rank, size, conns

    def allgather(self, buf):
        """``(size, len(buf))`` array of every rank's ``buf`` (equal lengths)."""
        buf = np.ascontiguousarray(buf)
        try:
            if self.rank != 0:
                self._conns[0].send_bytes(buf)
                out = self._conns[0].recv_bytes()
            else:
                parts = [buf.tobytes()]
                for r in range(1, self.size):
                    parts.append(self._conns[r].recv_bytes())
                if any(len(p) != len(parts[0]) for p in parts):
                    raise CommError("allgather: the ranks sent buffers of different lengths "
                                    f"{[len(p) for p in parts]} (they are not running the "
                                    "same collective)")
                out = b"".join(parts)
                for r in range(1, self.size):
                    self._conns[r].send_bytes(out)
        except (EOFError, OSError) as e:
            raise CommError(f"allgather on rank {self.rank}: a peer disconnected ({e})") from e
        return np.frombuffer(out, dtype=buf.dtype).reshape(self.size, -1).copy()

    def reduce_scatter(self, buf, op):
        """``buf`` a ``(size, m)`` array on every rank: row ``rank`` of the
        elementwise reduction (``op``: "min", "max" or "plus") over the
        ranks' ``buf``.  Through :meth:`allgather` (every rank receives all
        buffers and reduces its own row: simple, ``size`` times the data of a
        true reduce-scatter, and the socket path's cost is latency)."""
        buf = np.ascontiguousarray(buf)
        rows = self.allgather(buf.reshape(-1)).reshape(self.size, self.size, -1)[:, self.rank]
        return _REDUCE[op].reduce(rows, axis=0)

    def close(self):
        for c in self._conns.values():
            c.close()
        self._conns = {}
