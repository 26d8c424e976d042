"""Run networkx's own tests of the served functions through this backend.

networkx runs its test-suite with a backend when ``NETWORKX_TEST_BACKEND``
names it (networkx/conftest.py): every dispatchable call converts its graphs
with ``convert_from_nx``, calls the backend, and converts the result back;
with ``NETWORKX_FALLBACK_TO_NX=True`` the calls the backend refuses
(``can_run`` False, or a function it does not implement) run networkx's own
code instead.

    python -m graphblast_py.nx_backend.nxtests

runs the test modules below in a fresh interpreter (the environment
variables must be set before networkx is imported) and prints pytest's
summary, then which served functions the backend answered and how often it
handed a call back to networkx.  Exit status: pytest's.
"""
import collections
import json
import logging
import os
import subprocess
import sys

# networkx test modules that exercise the functions the backend serves
MODULES = [
    "algorithms/link_analysis/tests/test_pagerank.py",
    "algorithms/shortest_paths/tests/test_unweighted.py",
    "algorithms/shortest_paths/tests/test_weighted.py",
    "algorithms/tests/test_cluster.py",
    "algorithms/components/tests/test_connected.py",
    "algorithms/centrality/tests/test_betweenness_centrality.py",
]

_USED = "Using backend '%s' for call to '%s' with arguments: %s"
_FELL = ("Falling back to use 'networkx' instead of '%s' backend for call to '%s' "
         "with arguments: %s")


class _Counter(logging.Handler):
    """Counts networkx's dispatch log records about this backend."""

    def __init__(self, backend):
        super().__init__(logging.DEBUG)
        from ._interface import _NOTES
        self.backend = backend
        self.served = set(_NOTES)
        self.used = collections.Counter()
        self.fell = collections.Counter()
        self.tests_using = 0
        self._in_test = False

    def emit(self, record):
        if not record.args or record.args[0] != self.backend:
            return
        if record.msg == _USED:
            self.used[record.args[1]] += 1
            self._in_test = True
        elif record.msg == _FELL and record.args[1] in self.served:
            self.fell[record.args[1]] += 1      # can_run refused a served function


class _Plugin:
    """pytest plugin: per test, did the backend answer a call?"""

    def __init__(self, counter):
        self.counter = counter

    def pytest_runtest_setup(self, item):
        self.counter._in_test = False

    def pytest_runtest_teardown(self, item):
        if self.counter._in_test:
            self.counter.tests_using += 1


def _child(out_path):
    """In the child interpreter: run pytest with the counting plugin."""
    import networkx as nx
    import pytest
    root = os.path.dirname(nx.__file__)
    backend = os.environ["NETWORKX_TEST_BACKEND"]
    counter = _Counter(backend)
    logger = logging.getLogger("networkx.utils.backends")
    logger.setLevel(logging.DEBUG)
    logger.addHandler(counter)
    logger.propagate = False
    args = ["-q", "-p", "no:cacheprovider", f"--rootdir={root}"] + \
        [os.path.join(root, m) for m in MODULES]
    rc = pytest.main(args, plugins=[_Plugin(counter)])
    with open(out_path, "w") as f:
        json.dump({"rc": int(rc), "used": dict(counter.used), "fell": dict(counter.fell),
                   "tests_using": counter.tests_using}, f)
    return int(rc)


def run(backend="graphblast", timeout=300):
    """Run the modules through ``backend`` in a subprocess.  Returns
    ``(returncode, pytest output, stats)``, stats = {"used": {function: calls
    answered by the backend}, "fell": {function: calls handed back to
    networkx}, "tests_using": tests in which the backend answered a call}."""
    import tempfile
    env = dict(os.environ, NETWORKX_TEST_BACKEND=backend, NETWORKX_FALLBACK_TO_NX="True")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "stats.json")
        proc = subprocess.run([sys.executable, "-m", "graphblast_py.nx_backend.nxtests",
                               "--child", out], env=env, cwd=tmp, capture_output=True,
                              text=True, timeout=timeout)
        stats = {}
        if os.path.exists(out):
            with open(out) as f:
                stats = json.load(f)
    return proc.returncode, proc.stdout + proc.stderr, stats


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        return _child(argv[1])
    rc, output, stats = run()
    print(output.rstrip())
    print(f"tests in which the graphblast backend answered a call: {stats.get('tests_using')}")
    for name, calls in sorted(stats.get("used", {}).items()):
        print(f"  {name}: {calls} calls answered by graphblast")
    for name, calls in sorted(stats.get("fell", {}).items()):
        print(f"  {name}: {calls} calls handed back to networkx")
    return rc


if __name__ == "__main__":
    sys.exit(main())
