"""The comparison suite (graphblast-py compare): end-to-end CLI runs on tiny
graphs, the JSON schema, the plots, agreement checks that catch wrong peers,
missing/failing peers, the time budget, the BFS ablation.  CPU only, fast."""
import json
import subprocess
import sys
import time

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

from graphblast_py.suite import (NotAvailable, System, main, register_system,
                                 unregister_system)
from graphblast_py.suite import ablation, graphs, report, verify
from graphblast_py.suite.run import Runner

PNG = b"\x89PNG\r\n\x1a\n"


def _run(tmp_path, *args):
    code = main(["compare", "--out", str(tmp_path), "--quiet", *args])
    rep = json.loads((tmp_path / "compare.json").read_text())
    return code, rep


def _rows(rep, **kw):
    return [r for r in rep["runs"] if all(r[k] == v for k, v in kw.items())]


@pytest.fixture
def extra():
    """Register systems for one test only."""
    added = []

    def add(s):
        added.append(register_system(s))
        return s
    yield add
    for s in added:
        unregister_system(s)


def _scipy_levels(g):
    d = csgraph.shortest_path(g.S, unweighted=True, indices=g.source)
    return np.where(np.isfinite(d), d, -1).astype(np.int64)


class WrongPeer(System):
    """Deliberately wrong: BFS level of one reached vertex off by one, one
    triangle too many."""
    name = "fake-wrong"
    algorithms = ("bfs", "tc")

    def run(self, alg, h, g):
        if alg == "bfs":
            lv = _scipy_levels(g)
            v = int(np.flatnonzero(lv > 0)[-1])
            lv[v] += 1
            return {"levels": lv, "parents": None}
        L = sp.tril(g.S.astype(np.int64), -1).tocsr()
        return int((L @ L.T).multiply(L).sum()) + 1


class BadParents(System):
    """Right levels, parents that are not a BFS tree (every parent = source)."""
    name = "fake-parents"
    algorithms = ("bfs",)

    def run(self, alg, h, g):
        lv = _scipy_levels(g)
        parents = np.where(lv >= 0, g.source, -1)
        return {"levels": lv, "parents": parents}


class Missing(System):
    name = "fake-missing"
    algorithms = ("bfs",)

    def available(self):
        return False, "not installed (pip install fake-missing)"


class Failing(System):
    name = "fake-failing"
    algorithms = ("bfs",)

    def run(self, alg, h, g):
        raise RuntimeError("boom in the peer")


class Slow(System):
    """Pure-Python busy loop: longer than any budget the tests give."""
    name = "fake-slow"
    algorithms = ("bfs",)

    def __init__(self, seconds):
        self.seconds = seconds

    def run(self, alg, h, g):
        end = time.perf_counter() + self.seconds
        while time.perf_counter() < end:
            pass
        return {"levels": _scipy_levels(g), "parents": None}


# ----------------------------------------------------------------- end to end
def test_end_to_end_json_schema_plots(tmp_path):
    # (graphblas-algorithms is left out: its pagerank of a 1-vertex graph is 0,
    # see test_known_disagreements)
    code, rep = _run(tmp_path, "--graphs", "kron:6", "er:30:0.1", "er:1:0.5",
                     "--algorithms", "bfs,sssp,pagerank,tc,cc,bc,fglt,expm,eigvalsh",
                     "--repeat", "2", "--systems",
                     "graphblast-py,scipy,networkx,python-graphblas")
    assert code == 0, rep["problems"]
    assert rep["ok"] and rep["exit_code"] == 0
    assert report.validate(rep) == []
    # the fallback validator (used without jsonschema) also accepts it
    errs = []
    report._check(rep, report.load_schema(), report.load_schema(), "", errs)
    assert errs == []
    for f in ("time_vs_size.png", "speedup.png"):
        assert (tmp_path / f).read_bytes()[:8] == PNG
    text = (tmp_path / "table.txt").read_text()
    assert "kron:6" in text and "er:30:0.1" in text
    md = (tmp_path / "table.md").read_text()
    assert "| kron:6 | bfs | graphblast-py cpu | ok |" in md
    gb_rows = _rows(rep, system="graphblast-py cpu")
    assert {r["algorithm"] for r in gb_rows} == {"bfs", "sssp", "pagerank", "tc", "cc", "bc",
                                                 "fglt", "expm", "eigvalsh"}
    for r in gb_rows:
        assert r["status"] == "ok", r
        assert len(r["times_s"]) == r["repeats"] == 2
        assert r["median_s"] >= r["min_s"] > 0 and r["warmup_s"] > 0
        assert r["agreement"]["status"] in ("agree", "reference"), r
    # the references are independent systems where one exists
    ref = {r["algorithm"]: r["agreement"]["reference"] for r in gb_rows
           if r["graph"] == "er:30:0.1"}
    assert ref["bfs"] == "scipy" and ref["tc"] in ("python-graphblas", "networkx")
    assert ref["pagerank"] == "networkx" and ref["bc"] == "networkx"
    assert ref["fglt"] == "scipy (orbits 0-4 only)"
    g = {x["name"]: x for x in rep["graphs"]}
    assert g["er:1:0.5"]["n"] == 1 and g["er:1:0.5"]["nnz"] == 0


def test_grid_stats_and_algorithms(tmp_path):
    code, rep = _run(tmp_path, "--graphs", "grid:5", "--repeat", "1", "--no-plots",
                     "--algorithms", "bfs,sssp,pagerank,tc,cc,bc,fglt,expm,eigvalsh")
    assert code == 0, rep["problems"]
    assert all(r["agreement"]["status"] in ("agree", "reference") for r in rep["runs"])
    # a double eigenvalue (2.732 on the 5 x 5 grid) counts twice, as SciPy counts it
    gb_eig = _rows(rep, algorithm="eigvalsh", system="graphblast-py cpu")[0]
    assert gb_eig["agreement"]["status"] == "agree"
    # graph statistics: a K x K grid has diameter 2K - 2, found by the double sweep
    g = {x["name"]: x for x in rep["graphs"]}
    assert g["grid:5"]["n"] == 25 and g["grid:5"]["nnz"] == 80
    assert g["grid:5"]["diameter_estimate"]["value"] == 8
    assert g["grid:5"]["degree"] == {"min": 2, "median": 3.0, "max": 4, "mean": 3.2}


def test_known_disagreements(tmp_path):
    """A real disagreement found by the suite (kept as a check that it reports
    it): graphblas-algorithms' pagerank of a one-vertex graph is 0, not 1.
    (It also found graphblast-py's eigvalsh reporting a double eigenvalue of a
    grid twice while documented to report distinct ones; eigvalsh now counts
    multiplicities as SciPy does.)"""
    code, rep = _run(tmp_path, "--graphs", "grid:5", "er:1:0.5", "--repeat", "1",
                     "--no-plots", "--algorithms", "pagerank,eigvalsh")
    dis = {(r["graph"], r["algorithm"], r["system"]) for r in rep["runs"]
           if (r["agreement"] or {}).get("status") == "disagree"}
    assert dis <= {("er:1:0.5", "pagerank", "graphblas-algorithms")}
    assert code == (1 if dis else 0)
    if any(s["name"] == "graphblas-algorithms" and s["available"] for s in rep["systems"]):
        assert ("er:1:0.5", "pagerank", "graphblas-algorithms") in dis
        r = _rows(rep, graph="er:1:0.5", algorithm="pagerank",
                  system="graphblas-algorithms")[0]
        assert r["agreement"]["first_differences"] == [{"vertex": 0, "got": 0.0,
                                                        "expected": 1.0}]


def test_schema_rejects_bad_reports(tmp_path):
    code, rep = _run(tmp_path, "--graphs", "grid:3", "--algorithms", "bfs", "--repeat", "1",
                     "--no-plots", "--systems", "graphblast-py,scipy")
    assert code == 0 and report.validate(rep) == []
    bad = json.loads(json.dumps(rep))
    bad["runs"][0]["status"] = "fine"
    del bad["environment"]
    bad["runs"][0]["median_s"] = "fast"
    errs = []
    report._check(bad, report.load_schema(), report.load_schema(), "", errs)
    assert len(errs) >= 3, errs
    assert len(report.validate(bad)) >= 3


def test_python_m_and_exit_code(tmp_path):
    p = subprocess.run([sys.executable, "-m", "graphblast_py", "compare", "--graphs", "grid:4",
                        "--algorithms", "bfs,cc", "--systems", "graphblast-py,scipy",
                        "--repeat", "1", "--no-plots", "--quiet", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "all results agree" in p.stdout
    assert json.loads((tmp_path / "compare.json").read_text())["ok"] is True


def test_bad_arguments_are_clear(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["compare", "--algorithms", "bfs,nope", "--out", str(tmp_path)])
    assert e.value.code == 2
    assert "unknown nope" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["compare", "--systems", "scipy,sci-py", "--out", str(tmp_path)])
    assert e.value.code == 2
    assert "unknown sci-py" in capsys.readouterr().err
    code, rep = _run(tmp_path, "--graphs", "notagraph:3", "--algorithms", "bfs", "--no-plots")
    assert code == 1
    assert "neither a generator spec nor an existing file" in rep["graphs"][0]["error"]


# ------------------------------------------------------------- verification
def test_wrong_peer_is_caught(tmp_path, extra):
    extra(WrongPeer())
    code, rep = _run(tmp_path, "--graphs", "grid:6", "--algorithms", "bfs,tc", "--repeat", "1",
                     "--no-plots", "--systems", "graphblast-py,scipy,python-graphblas,fake-wrong")
    assert code == 1 and rep["exit_code"] == 1 and not rep["ok"]
    bfs = _rows(rep, system="fake-wrong", algorithm="bfs")[0]["agreement"]
    assert bfs["status"] == "disagree" and bfs["reference"] == "scipy"
    d = bfs["first_differences"][0]
    assert d["got"] == d["expected"] + 1
    assert bfs["first_differences"][0]["vertex"] == 35       # the far corner of the grid
    tc = _rows(rep, system="fake-wrong", algorithm="tc")[0]["agreement"]
    assert tc["status"] == "disagree" and "1 triangles, expected 0" in tc["detail"]
    assert any("fake-wrong" in p for p in rep["problems"])
    for r in _rows(rep, system="graphblast-py cpu"):
        assert r["agreement"]["status"] == "agree"
    assert "DISAGREE" in (tmp_path / "table.txt").read_text()


def test_invalid_bfs_tree_is_caught(tmp_path, extra):
    extra(BadParents())
    code, rep = _run(tmp_path, "--graphs", "grid:5", "--algorithms", "bfs", "--repeat", "1",
                     "--no-plots", "--systems", "scipy,fake-parents")
    assert code == 1
    a = _rows(rep, system="fake-parents")[0]["agreement"]
    assert a["status"] == "disagree" and "BFS tree" in a["detail"]


def test_bfs_tree_check_accepts_any_valid_tree():
    S = graphs._undirected(sp.csr_matrix(np.array([[0, 1, 1, 0], [1, 0, 0, 1], [1, 0, 0, 1],
                                                   [0, 1, 1, 0]])))
    levels = np.array([0, 1, 1, 2])
    assert verify.bfs_tree(np.array([0, 0, 0, 1]), levels, S, 0) is None
    assert verify.bfs_tree(np.array([0, 0, 0, 2]), levels, S, 0) is None
    assert verify.bfs_tree(np.array([0, 0, 0, 0]), levels, S, 0) is not None   # not an edge
    assert verify.bfs_tree(np.array([0, 0, 3, 1]), levels, S, 0) is not None   # wrong level


def test_missing_and_failing_peers_are_rows(tmp_path, extra):
    extra(Missing())
    extra(Failing())
    code, rep = _run(tmp_path, "--graphs", "grid:4", "--algorithms", "bfs", "--repeat", "1",
                     "--no-plots")
    assert code == 0, rep["problems"]                    # a peer's trouble is not ours
    sysrows = {s["name"]: s for s in rep["systems"]}
    assert sysrows["fake-missing"]["available"] is False
    assert "not installed" in sysrows["fake-missing"]["note"]
    assert sysrows["cupy-baselines"]["available"] is False        # no GPU here
    f = _rows(rep, system="fake-failing")[0]
    assert f["status"] == "failed" and "boom in the peer" in f["note"]
    text = (tmp_path / "table.txt").read_text()
    assert "fake-missing" in text and "not installed" in text


def test_budget_stops_a_slow_run(tmp_path, extra):
    extra(Slow(30.0))
    t = time.perf_counter()
    code, rep = _run(tmp_path, "--graphs", "grid:4", "--algorithms", "bfs", "--repeat", "2",
                     "--budget", "0.5", "--warmup-budget", "0.5", "--no-plots", "--systems",
                     "scipy,fake-slow")
    assert time.perf_counter() - t < 20
    r = _rows(rep, system="fake-slow")[0]
    assert r["status"] == "skipped" and "0.5s budget in the warm-up" in r["note"]
    assert r["median_s"] is None and r["warmup_s"] is None


def test_budget_stops_a_slow_repeat(tmp_path, extra):
    class SlowRepeats(Slow):
        calls = 0

        def run(self, alg, h, g):
            self.calls += 1
            self.seconds = 0.01 if self.calls == 1 else 30.0
            return super().run(alg, h, g)
    extra(SlowRepeats(0.01))
    t = time.perf_counter()
    code, rep = _run(tmp_path, "--graphs", "grid:4", "--algorithms", "bfs", "--repeat", "3",
                     "--budget", "0.5", "--no-plots", "--systems", "scipy,fake-slow")
    assert time.perf_counter() - t < 20
    r = _rows(rep, system="fake-slow")[0]
    assert r["status"] == "ok" and "0.5s budget in the repeat 1" in r["note"]
    assert r["repeats"] == 0 and r["agreement"]["status"] == "agree" and code == 0


def test_budget_cuts_repeats(tmp_path, extra):
    extra(Slow(0.2))
    code, rep = _run(tmp_path, "--graphs", "grid:4", "--algorithms", "bfs", "--repeat", "10",
                     "--budget", "0.7", "--no-plots", "--systems", "scipy,fake-slow")
    r = _rows(rep, system="fake-slow")[0]
    assert r["status"] == "ok" and 1 <= r["repeats"] < 10
    assert "budget" in r["note"] and r["agreement"]["status"] == "agree"
    assert code == 0


def test_networkx_size_cap_is_a_note(tmp_path):
    code, rep = _run(tmp_path, "--graphs", "grid:6", "--algorithms", "bfs", "--repeat", "1",
                     "--no-plots", "--systems", "scipy,networkx", "--nx-max-nnz", "10")
    r = _rows(rep, system="networkx")[0]
    assert r["status"] == "skipped" and "networkx cap 10" in r["note"] and code == 0


# ------------------------------------------------------------------ graphs
def test_graph_files_and_specs(tmp_path):
    mtx = tmp_path / "p.mtx"
    mtx.write_text("%%MatrixMarket matrix coordinate real general\n4 4 3\n1 2 5.0\n2 3 1.5\n"
                   "3 4 2\n")
    g = graphs.load(str(mtx))                         # directed path -> undirected
    assert g.n == 4 and g.nnz == 6 and g.stats["diameter_estimate"]["value"] == 3
    import gzip
    gz = tmp_path / "p.mtx.gz"
    gz.write_bytes(gzip.compress(mtx.read_bytes()))
    assert graphs.load(str(gz)).nnz == 6
    el = tmp_path / "e.txt"
    el.write_text("0 1\n1 2\n3 4\n")
    g = graphs.load(str(el))
    assert g.n == 5 and g.stats["components"] == 2 and g.stats["isolated"] == 0
    assert graphs.expand(["small", "grid:3"]) == graphs.SETS["small"] + ["grid:3"]
    g = graphs.load("grid:0")
    assert g.n == 0
    w = graphs.load("grid:4").weighted()
    assert (w != w.T).nnz == 0 and w.data.min() >= 1 and w.data.max() <= 16


def test_empty_graph_runs(tmp_path):
    code, rep = _run(tmp_path, "--graphs", "grid:0", "--algorithms", "bfs,tc", "--repeat", "1",
                     "--no-plots", "--systems", "graphblast-py,scipy")
    assert code == 0
    assert all(r["status"] == "skipped" and "empty" in r["note"] for r in rep["runs"])


# ---------------------------------------------------------------- ablation
@pytest.mark.parametrize("spec", ["grid:9", "kron:7", "er:60:0.02", "geometric:80:0.1"])
def test_ablation_steps_agree_on_levels(spec):
    g = graphs.load(spec)
    if spec != "grid:9":
        assert g.stats["components"] > 1                       # disconnected graphs
    rows = ablation.run(g, "cpu", repeat=1)
    assert [r["step"] for r in rows] == [s[0] for s in ablation.STEPS]
    for r in rows:
        assert r["levels_agree"] is True, r
        assert r["median_s"] > 0 and r["gteps"] > 0


def test_ablation_settings_are_cumulative():
    kw, reuse = ablation.settings_of(0)
    assert kw == {"structure_only": False, "direction": "push", "mask_first": False,
                  "early_exit": False} and not reuse
    kw, reuse = ablation.settings_of(len(ablation.STEPS) - 1)
    assert kw == {"structure_only": True, "direction": "auto", "mask_first": True,
                  "early_exit": True} and reuse


def test_ablation_cli(tmp_path):
    code = main(["compare", "--ablation", "--graphs", "grid:6", "er:30:0.05", "--repeat", "1",
                 "--out", str(tmp_path), "--quiet"])
    rep = json.loads((tmp_path / "ablation.json").read_text())
    assert code == 0 and rep["ok"]
    assert report.validate(rep) == []
    assert len(rep["ablation"]) == 2 * len(ablation.STEPS)
    assert "+ operand reuse" in (tmp_path / "ablation.txt").read_text()


def test_runner_api_and_label_normalisation():
    assert list(verify.exact(np.array([1, 2]), np.array([1, 3]))["first_differences"][0]
                .values()) == [1, 2, 3]
    from graphblast_py.suite.systems import normalize_labels, tree_depths
    assert normalize_labels([7, 7, 3, 7, 3]).tolist() == [0, 0, 2, 0, 2]
    assert tree_depths(np.array([0, 0, 1, -1, 2]), 0).tolist() == [0, 1, 2, -1, 3]
    r = Runner(["grid:3"], ["cc"], ["cpu"], ["scipy"], repeat=1, budget=5).run()
    assert r["ok"] and r["runs"][0]["agreement"]["status"] == "reference"


def test_not_available_function_is_a_row(tmp_path, extra):
    class NoFunc(System):
        name = "fake-nofunc"
        algorithms = ("bfs",)

        def run(self, alg, h, g):
            raise NotAvailable("not available: benchmarks/x.py has no bfs_levels()")
    extra(NoFunc())
    code, rep = _run(tmp_path, "--graphs", "grid:3", "--algorithms", "bfs", "--repeat", "1",
                     "--no-plots", "--systems", "scipy,fake-nofunc")
    r = _rows(rep, system="fake-nofunc")[0]
    assert r["status"] == "not available" and "bfs_levels" in r["note"] and code == 0


def test_runs_without_rich_and_matplotlib(tmp_path, monkeypatch, capsys):
    for mod in ("rich", "rich.console", "rich.table", "rich.progress", "matplotlib",
                "matplotlib.pyplot"):
        monkeypatch.setitem(sys.modules, mod, None)         # import raises ImportError
    code, rep = _run(tmp_path, "--graphs", "grid:3", "--algorithms", "bfs,cc", "--repeat", "1",
                     "--systems", "graphblast-py,scipy")
    assert code == 0 and report.validate(rep) == []
    out = capsys.readouterr().out
    assert "Runs" in out and "graphblast-py cpu" in out and "all results agree" in out
    assert not (tmp_path / "time_vs_size.png").exists()


def test_out_of_memory_is_a_skip(tmp_path, extra):
    from graphblast_py import OutOfMemory

    class Hungry(System):
        name = "fake-hungry"
        algorithms = ("bfs",)

        def run(self, alg, h, g):
            raise OutOfMemory("bfs: needs 1 TiB on the GPU, 80 GiB free")
    extra(Hungry())
    code, rep = _run(tmp_path, "--graphs", "grid:3", "--algorithms", "bfs", "--repeat", "1",
                     "--no-plots", "--systems", "scipy,fake-hungry")
    r = _rows(rep, system="fake-hungry")[0]
    assert r["status"] == "skipped" and "out of memory" in r["note"] and code == 0


def test_memory_check_skips_before_running(tmp_path, extra):
    class Huge(Slow):
        name = "fake-huge"

        def est_bytes(self, alg, g):
            return 1 << 60                                  # an exbibyte
    extra(Huge(30.0))
    t = time.perf_counter()
    code, rep = _run(tmp_path, "--graphs", "grid:3", "--algorithms", "bfs", "--repeat", "1",
                     "--no-plots", "--systems", "scipy,fake-huge")
    assert time.perf_counter() - t < 20
    r = _rows(rep, system="fake-huge")[0]
    assert r["status"] == "skipped" and "needs about" in r["note"] and "free on cpu" in r["note"]


def test_devices_select_graphblast_devices_not_cpu_peers(tmp_path):
    code, rep = _run(tmp_path, "--graphs", "grid:3", "--algorithms", "bfs", "--repeat", "1",
                     "--no-plots", "--devices", "gpu", "--systems", "graphblast-py,scipy")
    sysrows = {s["name"]: s for s in rep["systems"]}
    assert sysrows["graphblast-py cpu"]["available"] is False
    assert "not selected" in sysrows["graphblast-py cpu"]["note"]
    assert sysrows["scipy"]["available"] is True
    assert [r["system"] for r in rep["runs"]] == ["scipy"]


@pytest.mark.gpu
def test_gpu_rows_agree(tmp_path):
    """On a GPU: graphblast-py gpu and the CuPy baselines agree with the references
    (a CuPy baseline function not written yet is a 'not available' row)."""
    code, rep = _run(tmp_path, "--graphs", "kron:8", "grid:12", "er:200:0.01", "--repeat", "1",
                     "--devices", "cpu,gpu", "--no-plots",
                     "--algorithms", "bfs,sssp,pagerank,tc,cc,bc,fglt,expm")
    assert report.validate(rep) == []
    gpu = _rows(rep, system="graphblast-py gpu")
    assert len(gpu) == 3 * 8
    for r in gpu:
        assert r["status"] == "ok" and r["agreement"]["status"] == "agree", r
    for r in _rows(rep, system="cupy-baselines"):
        assert r["status"] in ("ok", "not available"), r
        if r["status"] == "ok":
            assert r["agreement"]["status"] == "agree", r
    assert code == 0, rep["problems"]
    rows = ablation.run(graphs.load("grid:9"), "gpu", repeat=1)
    assert all(r["levels_agree"] for r in rows)


def test_fglt_devices_cross_checked_on_all_orbits(tmp_path, extra):
    """The FGLT reference has orbits 0-4 only; a second graphblast-py device must
    equal the first on all 16 (here a fake 'gpu' that is wrong in orbit 12)."""
    import graphblast_py as gb

    class FakeGpu(System):
        name = "graphblast-py gpu"
        is_graphblast = True
        algorithms = ("fglt",)

        def run(self, alg, h, g):
            F = gb.algorithms.fglt(g.gb_matrix("bool", "cpu")).to_dense().astype(np.int64)
            F[3, 12] += 1
            return F
    extra(FakeGpu())
    code, rep = _run(tmp_path, "--graphs", "kron:6", "--algorithms", "fglt", "--repeat", "1",
                     "--no-plots", "--systems", "graphblast-py")
    cpu = _rows(rep, system="graphblast-py cpu", status="ok")[0]["agreement"]
    assert cpu["status"] == "agree" and cpu["reference"] == "scipy (orbits 0-4 only)"
    fake = [r for r in _rows(rep, system="graphblast-py gpu") if r["status"] == "ok"][0]
    a = fake["agreement"]
    assert a["status"] == "disagree" and a["reference"] == "graphblast-py cpu"
    assert a["first_differences"][0]["vertex"] == 3 and code == 1


def test_known_answers_karate(tmp_path):
    """Zachary's karate club (tests/data): 45 triangles, one component; the
    result summaries in the JSON carry them for every system."""
    from pathlib import Path
    karate = Path(__file__).resolve().parent / "data" / "karate.mtx"
    code, rep = _run(tmp_path, "--graphs", str(karate), "--algorithms", "tc,cc,pagerank",
                     "--repeat", "1", "--no-plots")
    assert code == 0, rep["problems"]
    assert rep["graphs"][0]["n"] == 34 and rep["graphs"][0]["edges"] == 78
    tcs = _rows(rep, algorithm="tc", status="ok")
    assert len(tcs) >= 2 and all(r["summary"] == {"triangles": 45} for r in tcs)
    assert all(r["summary"] == {"components": 1} for r in _rows(rep, algorithm="cc"))
    for r in _rows(rep, algorithm="pagerank", status="ok"):
        assert abs(r["summary"]["sum"] - 1) < 1e-9


def test_partial_runs_are_written_as_they_finish(tmp_path):
    """After every (graph, algorithm) the runs so far are on disk, so a run
    stopped from outside still leaves what it measured; a completed run
    removes the partial file."""
    seen = []

    def checkpoint(rep):
        seen.append(len(rep["runs"]))
    rep = Runner(["grid:5", "kron:5"], ["bfs", "cc"], ["cpu"], ["graphblast-py", "scipy"],
                 repeat=1, checkpoint=checkpoint).run()
    assert seen == sorted(seen) and len(seen) == 4 and seen[-1] == len(rep["runs"]) == 8
    from graphblast_py.suite.cli import _write_partial
    _write_partial(rep, tmp_path / "p.tsv")
    lines = (tmp_path / "p.tsv").read_text().splitlines()
    assert len(lines) == 9 and lines[0].startswith("graph\talgorithm\tsystem")
    assert all(line.split("\t")[6] in ("agree", "reference") for line in lines[1:])
    code, _ = _run(tmp_path, "--graphs", "grid:4", "--algorithms", "bfs", "--no-plots")
    assert code == 0 and not (tmp_path / "runs.partial.tsv").exists()


def test_graphblast_runs_return_finished_vectors():
    """The suite times graphblast-py's run with its results finished: a BFS
    and an SSSP answered by speculation on a grid leave pending stores
    (level fills, parent and distance copies) that the run carries out
    before the clock stops, as the peers return finished arrays."""
    from graphblast_py.suite.graphs import load
    from graphblast_py.suite.systems import Graphblast
    g = load("grid:30")
    s = Graphblast("cpu")
    h = s.load(g)
    for alg in ("bfs", "sssp"):
        out = s._run(alg, h, g)
        vs = out if isinstance(out, tuple) else (out,)
        assert any(v._pend is not None for v in vs), alg    # pending after the bare call
        out = s.run(alg, h, g)
        vs = out if isinstance(out, tuple) else (out,)
        assert all(v._pend is None for v in vs), alg
