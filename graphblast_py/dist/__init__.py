"""Distributed matrices and vectors on Dask (``dask.distributed``).

    from graphblast_py import dist
    client = dist.start_local(n_workers=2)          # CPU worker processes
    layout = dist.Layout(client, A.nrows)           # one block of rows per worker
    DA = dist.distribute(A, layout)                 # a DistMatrix
    levels = gb.algorithms.bfs(DA, 0)               # a DistVector
    levels.gather()                                 # a local gb.Vector

Objects are split 1-D by rows; each block is an ordinary gb.Matrix /
gb.Vector on its worker and runs the single-process operation.  See
docs/distributed.md for what is supported.
"""
from .layout import Layout, NotDistributed, WorkerLost, start_local
from .mm import mmread
from .objects import DistMatrix, DistVector, distribute
from .spmd import SpmdLayout, kronecker, last_seconds, run, run_timed, start_local_gpus

__all__ = ["Layout", "DistMatrix", "DistVector", "distribute", "start_local", "WorkerLost",
           "NotDistributed", "run", "run_timed", "last_seconds", "start_local_gpus",
           "kronecker", "SpmdLayout", "mmread"]
