"""Shared fixtures: the ``device`` fixture runs a test on the CPU and, where
CuPy sees a GPU, on the GPU (marked ``gpu``; skipped cleanly without one)."""
import os
from pathlib import Path

import numpy as np
import pytest

# On a host with several GPUs, GRAPHBLAST_TEST_SPREAD_GPUS=N pins each
# pytest-xdist worker to one of the first N GPUs (before CUDA starts in the
# worker), so the single-GPU tests use them all; the multi-GPU cluster tests
# (tests/test_dist_spmd.py) need every GPU visible and run in their own call.
_spread = int(os.environ.get("GRAPHBLAST_TEST_SPREAD_GPUS", "0") or 0)
_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if _spread > 1 and _worker.startswith("gw"):
    os.environ["CUDA_VISIBLE_DEVICES"] = str(int(_worker[2:]) % _spread)

from graphblast_py import backend                                   # noqa: E402

HAS_GPU = backend.gpu_available()

# Hypothesis profiles (docs/testing.md): "ci" (default) is derandomized (the same
# 100 examples every run, no deadline: the first call of a numba kernel compiles
# it); "dev" explores 1000 new random examples per test, "deep" 10000 (a nightly
# or local run): HYPOTHESIS_PROFILE=dev pytest tests/test_semantics.py
try:
    from hypothesis import HealthCheck, settings as _hsettings
    _hsettings.register_profile(
        "ci", max_examples=100, deadline=None, derandomize=True, print_blob=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                               HealthCheck.data_too_large])
    _hsettings.register_profile(
        "dev", max_examples=1000, deadline=None, print_blob=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                               HealthCheck.data_too_large])
    _hsettings.register_profile(
        "deep", max_examples=10000, deadline=None, print_blob=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                               HealthCheck.data_too_large])
    _hsettings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
except ImportError:  # pragma: no cover - hypothesis is a test dependency
    pass
# The small test matrices live in the repository (tests/data/, sources and
# licences in its README); GRAPHBLAST_TEST_DATA points at another copy.
DATA = Path(os.environ.get("GRAPHBLAST_TEST_DATA", Path(__file__).resolve().parent / "data"))


def pytest_collection_modifyitems(config, items):
    if HAS_GPU:
        return
    skip = pytest.mark.skip(reason="needs a GPU: CuPy with a CUDA device is not available")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


_MISSING = object()


@pytest.fixture(autouse=True)
def _no_leftover_method_patches():
    """Before pytest 9, undoing ``monkeypatch.setattr(be, "method", f)`` on a
    backend instance stores the original bound method in the instance's
    ``__dict__`` instead of deleting it, and that copy then hides every later
    patch of the method on the class (``monkeypatch.setattr(type(be), ...)``)
    from the tests that run after it in the same worker.  Remove such copies
    once the test's own patches are undone (this fixture is torn down last);
    the same for a class constant patched on the instance (``KRON_CHUNK``)."""
    yield
    for be in list(backend._backends.values()):
        drop_leftover_patches(be)


def drop_leftover_patches(obj):
    """Delete from ``obj``'s ``__dict__`` what only repeats its class: a
    bound method of the class's own function, or the class's own value."""
    own = vars(obj)
    for name, value in list(own.items()):
        on_class = getattr(type(obj), name, _MISSING)
        if on_class is _MISSING:
            continue
        if value is on_class or (getattr(value, "__self__", None) is obj
                                 and getattr(value, "__func__", None) is on_class):
            del own[name]


@pytest.fixture(params=["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def device(request):
    """Parametrize a test over the devices."""
    return request.param


class _DataDir(type(Path())):
    """A Path whose ``/`` fails the test (never skips it) when the file is missing."""

    def __truediv__(self, name):
        p = Path(self, name)
        if not p.exists():
            pytest.fail(f"test data file {p} is missing: the tests' data lives in tests/data/ "
                        "(see its README); a missing file is a failure, not a skip",
                        pytrace=False)
        return p


@pytest.fixture
def data_dir():
    """The test data folder; a missing folder or file fails the test."""
    if not DATA.is_dir():
        pytest.fail(f"test data folder {DATA} not found (tests/data/ is part of the repository;"
                    " GRAPHBLAST_TEST_DATA overrides it)", pytrace=False)
    return _DataDir(DATA)


def data_file(name):
    """Path of a test data file; fails (never skips) the calling test when missing."""
    return _DataDir(DATA) / name


def host(a):
    """A NumPy array from a NumPy or CuPy array."""
    if hasattr(a, "get") and type(a).__module__.startswith("cupy"):
        return a.get()
    return np.asarray(a)
