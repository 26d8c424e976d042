"""Command line of the comparison suite: ``graphblast-py compare`` (also
``python -m graphblast_py compare``).  See docs/suite.md."""
import argparse
import sys
from pathlib import Path

from .graphs import SETS, SPEC_HELP
from .systems import ALGORITHMS

ABLATION_GRAPHS = ["kron:14", "grid:100"]


def _csv(s):
    return [x.strip() for x in s.split(",") if x.strip()]


def parser():
    p = argparse.ArgumentParser(
        prog="graphblast-py",
        description="graphblast-py: compare graph algorithms across devices and systems.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    c = sub.add_parser(
        "compare", help="run algorithms on graphs on every device and peer, check agreement",
        description="Run graph algorithms on a set of graphs with graphblast-py (each device) "
                    "and the installed peers, check every result against a reference, time "
                    "them and report (table, JSON, PNG plots).")
    c.add_argument("--algorithms", type=_csv, default=None, metavar="A,B,...",
                   help="comma-separated subset of " + ",".join(ALGORITHMS) + " (default: all)")
    c.add_argument("--graphs", nargs="+", default=None, metavar="SPEC",
                   help=SPEC_HELP + " (default: the 'default' set: "
                   + " ".join(SETS["default"]) + ")")
    c.add_argument("--devices", type=_csv, default=None, metavar="cpu,gpu",
                   help="devices for graphblast-py and the GPU peers (default: every device "
                        "present)")
    c.add_argument("--systems", type=_csv, default=None, metavar="S,...",
                   help="only these systems (names as in the Systems table, e.g. "
                        "graphblast-py,scipy,networkx,python-graphblas,graphblas-algorithms,"
                        "cupy-baselines; default: every installed one)")
    c.add_argument("--repeat", type=int, default=3, metavar="N",
                   help="timed repetitions after the warm-up run (default 3)")
    c.add_argument("--budget", type=float, default=20.0, metavar="SECONDS",
                   help="time budget for the timed repeats of one run (one system, graph "
                        "and algorithm): no repeat starts that would end past it and a repeat "
                        "running past it is stopped; marked in the table (default 20; 0 = "
                        "none)")
    c.add_argument("--warmup-budget", type=float, default=120.0, metavar="SECONDS",
                   help="time budget for loading the graph into a system and for the "
                        "warm-up run, which includes JIT compilation (default 120; 0 = none)")
    c.add_argument("--out", default="compare-out", metavar="DIR",
                   help="output directory for compare.json, table.txt and the PNG plots "
                        "(default ./compare-out)")
    c.add_argument("--nx-max-nnz", type=int, default=200_000, metavar="NNZ",
                   help="networkx runs only on graphs with at most NNZ stored entries "
                        "(default 200000)")
    c.add_argument("--nx-max-nnz-bc", type=int, default=40_000, metavar="NNZ",
                   help="the same cap for networkx betweenness centrality (default 40000)")
    c.add_argument("--ablation", action="store_true",
                   help="instead of the comparison, run the BFS ablation (GraphBLAST Table "
                        "5.2) on the graphs (default " + " ".join(ABLATION_GRAPHS) + ")")
    c.add_argument("--no-plots", action="store_true", help="do not write PNG plots")
    c.add_argument("--quiet", action="store_true", help="no progress bar")
    a = sub.add_parser("ablation", help="the BFS ablation alone (= compare --ablation)")
    for args, kw in (((("--graphs",), dict(nargs="+", default=None, metavar="SPEC"))),
                     ((("--devices",), dict(type=_csv, default=None))),
                     ((("--repeat",), dict(type=int, default=3))),
                     ((("--budget",), dict(type=float, default=20.0))),
                     ((("--out",), dict(default="compare-out"))),
                     ((("--quiet",), dict(action="store_true")))):
        a.add_argument(*args, **kw)
    return p


class _Progress:
    """A progress bar on stderr (rich, else tqdm, else nothing)."""

    def __init__(self, total):
        self._bar = self._rich = None
        try:
            from rich.progress import Progress
            self._rich = Progress(transient=True)
            self._rich.start()
            self._task = self._rich.add_task("compare", total=total)
            return
        except ImportError:
            pass
        try:
            from tqdm import tqdm
            self._bar = tqdm(total=total, leave=False)
        except ImportError:
            pass

    def describe(self, text):
        if self._rich:
            self._rich.update(self._task, description=text[:60])
        elif self._bar:
            self._bar.set_description(text[:60])

    def advance(self, k):
        if self._rich:
            self._rich.advance(self._task, k)
        elif self._bar:
            self._bar.update(k)

    def close(self):
        if self._rich:
            self._rich.stop()
        elif self._bar:
            self._bar.close()


def _check_args(args, p):
    algs = getattr(args, "algorithms", None)
    if algs:
        bad = [a for a in algs if a not in ALGORITHMS]
        if bad:
            p.error(f"--algorithms: unknown {', '.join(bad)}; choose from "
                    + ",".join(ALGORITHMS))
    if args.devices:
        bad = [d for d in args.devices if d not in ("cpu", "gpu")]
        if bad:
            p.error(f"--devices: unknown {', '.join(bad)}; choose from cpu,gpu")
    wanted = getattr(args, "systems", None)
    if wanted:
        from .systems import all_systems
        known = set()
        for sy in all_systems():
            known |= {sy.name, sy.name.split()[0]}
        bad = [w for w in wanted if w not in known]
        if bad:
            p.error(f"--systems: unknown {', '.join(bad)}; choose from "
                    + ",".join(sorted(known)))
    if args.repeat < 0:
        p.error("--repeat must be >= 0")
    if args.budget is not None and args.budget < 0:
        p.error("--budget must be >= 0 (0 = no budget)")
    if getattr(args, "warmup_budget", 0) < 0:
        p.error("--warmup-budget must be >= 0 (0 = no budget)")


def run_ablation(args, out):
    from . import ablation, graphs, report
    from .run import SCHEMA_VERSION, environment
    import time
    from datetime import datetime, timezone
    from .. import backend
    devices = args.devices or (["cpu"] + (["gpu"] if backend.gpu_available() else []))
    t0 = time.perf_counter()
    rows, gstats, problems = [], [], []
    for spec in graphs.expand(args.graphs or ABLATION_GRAPHS):
        g = graphs.load(spec)
        gstats.append(dict(name=g.name, spec=g.spec, family=g.family, gen_s=g.gen_s, **g.stats))
        for d in devices:
            if d == "gpu" and not backend.gpu_available():
                continue
            rows += ablation.run(g, d, repeat=args.repeat, budget=args.budget or None)
        g.drop_device_copies()
    problems = [f"{r['graph']} {r['device']} {r['step']}: {r['note']}" for r in rows
                if r["levels_agree"] is not True]
    rep = {"schema_version": SCHEMA_VERSION, "tool": "graphblast-py compare --ablation",
           "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
           "command": list(sys.argv), "environment": environment(devices),
           "settings": {"graphs": [g["spec"] for g in gstats], "algorithms": ["bfs"],
                        "devices": devices, "repeat": args.repeat,
                        "budget_s": args.budget or None, "params": {}},
           "systems": [], "graphs": gstats, "runs": [], "ablation": rows,
           "wall_s": time.perf_counter() - t0, "ok": not problems,
           "exit_code": 0 if not problems else 1, "problems": problems}
    title, cols, trows = ablation.table(rows)
    text = report.print_table(title, cols, trows)
    text += "\n" + report.footer(rep)
    print(report.footer(rep))
    report.write_json(rep, out / "ablation.json")
    (out / "ablation.txt").write_text(text + "\n")
    (out / "ablation.md").write_text(report.md_table(title, cols, trows) + "\n```\n"
                                     + report.footer(rep) + "\n```\n")
    return rep["exit_code"]


def _write_partial(rep, path):
    """The runs so far, one tab-separated line each, rewritten after every
    (graph, algorithm): a run stopped from outside (a machine's time limit)
    still leaves what it measured.  Removed when the run completes."""
    cols = ("graph", "algorithm", "system", "status", "median_s", "min_s")
    lines = ["\t".join(cols + ("agreement", "note"))]
    for r in rep["runs"]:
        agree = (r.get("agreement") or {}).get("status", "")
        lines.append("\t".join([str(r.get(c, "")) for c in cols]
                               + [agree, str(r.get("note", "")).replace("\t", " ")]))
    path.write_text("\n".join(lines) + "\n")


def main(argv=None):
    p = parser()
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    if args.command is None:
        p.print_help()
        return 2
    _check_args(args, p)
    from ..errors import GraphBLASError
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        if args.command == "ablation" or args.ablation:
            return run_ablation(args, out)
        from . import report
        from .run import Runner
        progress = None if args.quiet or not sys.stderr.isatty() else _Progress
        partial = out / "runs.partial.tsv"
        runner = Runner(args.graphs, args.algorithms, args.devices, args.systems, args.repeat,
                        args.budget or None, args.nx_max_nnz, args.nx_max_nnz_bc,
                        progress=progress, warmup_budget=args.warmup_budget or None,
                        checkpoint=lambda rep: _write_partial(rep, partial))
        rep = runner.run()
        partial.unlink(missing_ok=True)
        text = report.render(rep)
        report.write_json(rep, out / "compare.json")
        (out / "table.txt").write_text(text + "\n")
        (out / "table.md").write_text(report.markdown(rep))
        files = [] if args.no_plots else report.plots(rep, out)
        print(f"wrote {out / 'compare.json'}, {out / 'table.txt'}, {out / 'table.md'}"
              + "".join(f", {f}" for f in files))
        return rep["exit_code"]
    except GraphBLASError as e:
        print(f"graphblast-py compare: {e}", file=sys.stderr)
        return 2


def console():
    """Entry point of the ``graphblast-py`` console script."""
    sys.exit(main())
