"""Where the blocks of distributed objects live, and waiting on them.

A :class:`Layout` is a Dask client, an ordered list of workers and a 1-D
split of ``size`` positions into one contiguous range per worker (block
``b`` holds ``[offsets[b], offsets[b + 1])``).  It is the ``device`` of a
distributed object: ``Vector(dtype, n, device=A.device)`` in an algorithm
makes a :class:`~graphblast_py.dist.DistVector` split like ``A``'s rows.

Tasks are pinned to their block's worker (``allow_other_workers=False``):
Dask never moves a block to another worker behind the layer's back.  Every
wait on a result polls the cluster, so a worker lost mid-algorithm raises
:class:`WorkerLost` naming the worker, its block and the step instead of
waiting forever for a task that cannot run.
"""
import itertools

import numpy as np

from ..errors import GraphBLASError, InvalidObject, InvalidValue

POLL_S = 0.5          # how often a wait checks that its workers are alive

_counter = itertools.count()


class WorkerLost(GraphBLASError, RuntimeError):
    """A Dask worker holding a block of a distributed object disappeared;
    the message names the worker, its block and rows and the step."""


class NotDistributed(GraphBLASError, NotImplementedError):
    """An operation (or operation form) that distributed objects do not
    support yet; the message says which and what to do instead."""


def start_local(n_workers=2, threads_per_worker=1, **kwargs):
    """A ``dask.distributed.Client`` on a new CPU ``LocalCluster`` of
    ``n_workers`` worker processes (``processes=True``); close it with
    ``client.close(); client.cluster.close()``."""
    from distributed import Client, LocalCluster
    kwargs.setdefault("dashboard_address", None)
    with worker_config():
        cluster = LocalCluster(n_workers=n_workers, threads_per_worker=threads_per_worker,
                               processes=True, **kwargs)
    return Client(cluster)


def worker_config():
    """Dask settings for the workers this module starts:

    * Dask's statistical profiler off: every 10 ms it samples the task
      thread's stack, holding the GIL (a third of a single-threaded worker's
      time on the SPMD hot loop);
    * no ``MALLOC_TRIM_THRESHOLD_`` in the workers' environment (Dask sets
      it to 64 KiB; setting it at all switches off glibc's adaptive mmap
      threshold, so every large NumPy temporary is a fresh mmap and page
      faults: array operations ran 2-5x slower in a worker than in a plain
      process)."""
    import dask
    env = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}) or {})
    env.pop("MALLOC_TRIM_THRESHOLD_", None)
    return dask.config.set({"distributed.worker.profile.enabled": False,
                            "distributed.nanny.pre-spawn-environ": env})


def _workers(client):
    """The client's workers, sorted by address: asked of the scheduler now
    (``scheduler_info()`` is a periodically refreshed copy that can still be
    empty right after the cluster started)."""
    return sorted(client.nthreads())


class Layout:
    """``Layout(client, size, workers=None)``: ``size`` positions split into
    near-equal contiguous blocks, one per worker (default: every worker of
    the client, sorted by address)."""

    def __init__(self, client, size, workers=None):
        try:
            from distributed import Client
        except ImportError:  # pragma: no cover - checked by the tests' skip
            raise InvalidObject("graphblast_py.dist needs dask.distributed: "
                                "pip install 'graphblast-py[dist]'") from None
        if not isinstance(client, Client):
            raise InvalidObject(f"Layout: client must be a dask.distributed.Client, got "
                                f"{type(client).__name__}")
        workers = tuple(_workers(client) if workers is None else workers)
        if not workers:
            raise InvalidValue("Layout: the Dask cluster has no workers")
        self.client, self.workers, self.size = client, workers, int(size)
        p = len(workers)
        self.offsets = tuple(int(self.size * b // p) for b in range(p + 1))
        self._sizes = {self.size: self}

    # the hooks in Vector() / Vector.from_coo / Matrix.from_coo look these up
    @property
    def dist_vector_type(self):
        from .objects import DistVector
        return DistVector

    @property
    def dist_matrix_type(self):
        from .objects import DistMatrix
        return DistMatrix

    @property
    def nblocks(self):
        return len(self.workers)

    def block_size(self, b):
        return self.offsets[b + 1] - self.offsets[b]

    def for_size(self, size):
        """The layout of ``size`` positions on the same workers."""
        size = int(size)
        lay = self._sizes.get(size)
        if lay is None:
            lay = Layout.__new__(Layout)
            lay.client, lay.workers, lay.size = self.client, self.workers, size
            p = len(self.workers)
            lay.offsets = tuple(int(size * b // p) for b in range(p + 1))
            lay._sizes = self._sizes
            self._sizes[size] = lay
        return lay

    def split(self, positions):
        """Block boundaries of sorted global ``positions``."""
        return np.searchsorted(positions, np.asarray(self.offsets[1:-1], dtype=np.int64))

    def __eq__(self, other):
        return isinstance(other, Layout) and other.client is self.client and \
            other.workers == self.workers and other.offsets == self.offsets

    __hash__ = object.__hash__

    def __repr__(self):
        return f"dist[{len(self.workers)} workers]"

    __str__ = __repr__

    # ------------------------------------------------------------ tasks
    def submit(self, b, step, fn, *args):
        """Run ``fn(*args)`` on block ``b``'s worker; a future."""
        key = f"gb-{step}-{next(_counter)}-b{b}"
        return self.client.submit(fn, *args, key=key, workers=[self.workers[b]],
                                  allow_other_workers=False, pure=False)

    def map(self, step, fn, args_of_block):
        """One task per block: ``fn(*args_of_block(b))`` on block ``b``'s worker."""
        return [self.submit(b, step, fn, *args_of_block(b)) for b in range(self.nblocks)]

    def timed(self, kind):
        """A context timing its body into the SPMD profile (nothing here)."""
        import contextlib
        return contextlib.nullcontext()

    def map_agreed(self, step, fn, args_of_block):
        """:meth:`map` where a block's task may raise a GraphBLASError that
        every worker must see (the SPMD layout runs an all-gather of the
        outcome; here the error reaches the client from the task)."""
        return self.map(step, fn, args_of_block)

    def scatter(self, b, data):
        """Send one block's data (a tuple of arrays) to its worker; a future."""
        return self.client.scatter([data], workers=[self.workers[b]], hash=False)[0]

    def exchange(self, v, step, values=True):
        """What every block's task needs to assemble the whole of the
        distributed vector ``v``: the futures of its blocks' exports (Dask
        moves their arrays worker to worker; ``values`` is for the SPMD
        layout, which can leave them out)."""
        from . import _blocks as B
        return self.map(f"{step}-gather", B.export, lambda b: (v._blocks[b], self.offsets[b]))

    def gather(self, futures, step):
        """Results of ``futures`` (a list), raising :class:`WorkerLost` when a
        worker of this layout disappears while waiting."""
        from distributed import wait
        while True:
            try:
                wait(futures, timeout=POLL_S)
                break
            except TimeoutError:
                self._check_alive(futures, step)
            except Exception as e:      # e.g. futures cancelled: their inputs were lost
                self._check_alive(futures, step, cause=e)
                raise
        try:
            return self.client.gather(futures)
        except GraphBLASError:
            raise
        except Exception as e:          # a block lost between the wait and the gather
            self._check_alive(futures, step, cause=e)
            raise

    def _check_alive(self, futures, step, cause=None):
        alive = set(self.client.nthreads())
        lost = [b for b, w in enumerate(self.workers) if w not in alive]
        if not lost:
            return
        pending = [f.key for f in futures if f.status != "finished"]
        during = _step_of(pending[0]) if pending else step
        b = lost[0]
        raise WorkerLost(
            f"distributed {step}: Dask worker {self.workers[b]} (block {b} of "
            f"{self.nblocks}, rows [{self.offsets[b]}, {self.offsets[b + 1]})) was lost; "
            f"the step in progress was {during!r}. The objects with blocks on it are gone: "
            f"start the cluster again and rebuild them") from cause


def _step_of(key):
    k = key if isinstance(key, str) else str(key)
    parts = k.split("-")
    return "-".join(parts[1:-2]) if len(parts) >= 4 else k
