"""Output of ``graphblast-py compare``: terminal tables (rich), the JSON file,
the PNG plots (matplotlib) and the schema check."""
import json
import math
from pathlib import Path

SCHEMA_FILE = Path(__file__).with_name("schema.json")


def load_schema():
    return json.loads(SCHEMA_FILE.read_text())


# ------------------------------------------------------------------ numbers
def _s(x):
    if x is None:
        return "-"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 1:
        return f"{x:.2f}"
    if x >= 1e-3:
        return f"{x * 1e3:.1f}m"
    return f"{x * 1e6:.0f}µ"


def _teps(x):
    if not x:
        return "-"
    if x >= 1e9:
        return f"{x / 1e9:.2f}G"
    return f"{x / 1e6:.1f}M"


def speedups(report):
    """{(graph, alg, system): (fastest peer median / median, peer name)} for
    the graphblast-py rows that have a timing and a peer timing."""
    out = {}
    runs = report["runs"]
    for r in runs:
        if not r["system"].startswith("graphblast-py") or not r["median_s"]:
            continue
        peers = [p for p in runs if p["graph"] == r["graph"] and p["algorithm"] ==
                 r["algorithm"] and not p["system"].startswith("graphblast-py") and
                 p["median_s"] and (p["agreement"] or {}).get("status") != "disagree"]
        if peers:
            best = min(peers, key=lambda p: p["median_s"])
            out[(r["graph"], r["algorithm"], r["system"])] = (best["median_s"] / r["median_s"],
                                                              best["system"])
    return out


def agreement_text(r):
    a = r["agreement"]
    if a is None:
        return "-"
    st = a["status"]
    if st == "agree":
        return "ok"
    if st == "reference":
        return "reference" if not a.get("detail") else "ref (x-check)"
    if st == "unchecked":
        return "no reference"
    d = a["first_differences"][:3]
    where = ", ".join(f"v{x['vertex']}: {x['got']}≠{x['expected']}" if x.get("vertex")
                      is not None else f"{x['got']}≠{x['expected']}" for x in d)
    return "DISAGREE " + (where or a.get("detail", ""))


# ----------------------------------------------------------------- tables
def tables(report):
    """The three tables as (title, columns, rows) triples."""
    g_rows = []
    for g in report["graphs"]:
        if "error" in g:
            g_rows.append([g["spec"], "-", "-", "-", "-", "-", "-", "error: " + g["error"]])
            continue
        d = g["degree"]
        g_rows.append([g["name"], str(g["n"]), str(g["nnz"]),
                       f"{d['min']}/{d['median']:g}/{d['max']}",
                       f"≥{g['diameter_estimate']['value']}", str(g["components"]),
                       f"{g['gen_s']:.2f}", ""])
    s_rows = [[s["name"], s["device"], s["version"] or "-",
               "yes" if s["available"] else "no", s["note"] or ""] for s in report["systems"]]
    sp = speedups(report)
    r_rows = []
    for r in report["runs"]:
        x = sp.get((r["graph"], r["algorithm"], r["system"]))
        r_rows.append([r["graph"], r["algorithm"], r["system"], r["status"], _s(r["warmup_s"]),
                       _s(r["median_s"]), _s(r["min_s"]), str(r["repeats"]), _teps(r["teps"]),
                       f"{x[0]:.2f}x {x[1]}" if x else "-", agreement_text(r), r["note"]])
    return [("Graphs", ["graph", "n", "nnz", "degree min/med/max", "diameter", "comps",
                        "gen s", "note"], g_rows),
            ("Systems", ["system", "device", "version", "available", "note"], s_rows),
            ("Runs (times in s; m = milli, µ = micro)",
             ["graph", "alg", "system", "status", "warm-up", "median", "min", "reps", "TEPS",
              "speed-up vs fastest peer", "agreement", "note"], r_rows)]


def render(report, console=None):
    """Print the tables (rich when installed, plain text otherwise); returns
    the plain text as well."""
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        text = plain(report)
        print(text)
        return text
    con = console or Console(record=True, width=200)
    for title, cols, rows in tables(report):
        t = Table(title=title, show_lines=False, header_style="bold")
        for c in cols:
            t.add_column(c, overflow="fold")
        for row in rows:
            style = None
            if title.startswith("Runs"):
                if row[10].startswith("DISAGREE") or row[3] == "failed":
                    style = "bold red"
                elif row[3] != "ok":
                    style = "dim"
            t.add_row(*row, style=style)
        con.print(t)
    foot = footer(report)
    con.print(foot, style="bold red" if not report["ok"] else None)
    return con.export_text() if getattr(con, "record", False) else plain(report)


def print_table(title, cols, rows):
    """Print one table (rich when installed); returns its plain text."""
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        text = _plain_table(title, cols, rows)
        print(text)
        return text
    con = Console(record=True, width=200)
    t = Table(title=title, header_style="bold")
    for c in cols:
        t.add_column(c, overflow="fold")
    for row in rows:
        t.add_row(*[str(x) for x in row])
    con.print(t)
    return con.export_text()


def _plain_table(title, cols, rows):
    w = [max([len(str(c))] + [len(str(r[i])) for r in rows]) for i, c in enumerate(cols)]
    out = [title, "  ".join(str(c).ljust(w[i]) for i, c in enumerate(cols))]
    out += ["  ".join(str(x).ljust(w[i]) for i, x in enumerate(r)) for r in rows]
    return "\n".join(out)


def footer(report):
    lines = [f"wall time {report['wall_s']:.1f} s; "
             + ("all results agree" if report["ok"] else
                f"{len(report['problems'])} problem(s), exit code {report['exit_code']}:")]
    lines += ["  " + p for p in report["problems"]]
    return "\n".join(lines)


def md_table(title, cols, rows):
    out = [f"**{title}**", "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(str(x).replace("|", "\\|") for x in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def markdown(report):
    """The tables as GitHub Markdown (written to table.md)."""
    out = []
    for title, cols, rows in tables(report):
        out.append(md_table(title, cols, rows))
    out.append("```\n" + footer(report) + "\n```")
    return "\n".join(out) + "\n"


def plain(report):
    out = []
    for title, cols, rows in tables(report):
        out += [_plain_table(title, cols, rows), ""]
    out.append(footer(report))
    return "\n".join(out)


# ------------------------------------------------------------------- JSON
def write_json(report, path):
    Path(path).write_text(json.dumps(report, indent=1, default=_default))
    return path


def _default(o):
    import numpy as np
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def validate(instance, schema=None):
    """Errors (list of 'path: message') of ``instance`` against the JSON Schema
    subset used by schema.json (type, properties, required, items, enum,
    additionalProperties, minimum); ``jsonschema`` is used when installed."""
    schema = schema or load_schema()
    try:
        import jsonschema
    except ImportError:
        jsonschema = None
    if jsonschema is not None:
        v = jsonschema.Draft202012Validator(schema)
        return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
                for e in v.iter_errors(instance)]
    errs = []
    _check(instance, schema, schema, "", errs)
    return errs


_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _is(x, t):
    if t == "integer":
        return isinstance(x, int) and not isinstance(x, bool)
    if t == "number":
        return isinstance(x, (int, float)) and not isinstance(x, bool)
    return isinstance(x, _TYPES[t])


def _check(x, s, root, path, errs):
    if "$ref" in s:
        ref = s["$ref"].split("/")[-1]
        s = root["$defs"][ref]
    for key in ("oneOf", "anyOf"):
        if key in s:
            tries = []
            for sub in s[key]:
                e = []
                _check(x, sub, root, path, e)
                tries.append(e)
            good = sum(1 for e in tries if not e)
            if good == 0 or (key == "oneOf" and good > 1):
                errs.append(f"{path}: matches {good} of the {key} alternatives")
    if "type" in s:
        ts = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(_is(x, t) for t in ts):
            errs.append(f"{path}: {x!r:.60} is not of type {ts}")
            return
    if "enum" in s and x not in s["enum"]:
        errs.append(f"{path}: {x!r} is not one of {s['enum']}")
    if "minimum" in s and _is(x, "number") and x < s["minimum"]:
        errs.append(f"{path}: {x} < minimum {s['minimum']}")
    if isinstance(x, dict):
        for k in s.get("required", []):
            if k not in x:
                errs.append(f"{path}: '{k}' is a required property")
        props = s.get("properties", {})
        for k, v in x.items():
            if k in props:
                _check(v, props[k], root, f"{path}/{k}", errs)
            elif s.get("additionalProperties") is False:
                errs.append(f"{path}: additional property '{k}' not allowed")
            elif isinstance(s.get("additionalProperties"), dict):
                _check(v, s["additionalProperties"], root, f"{path}/{k}", errs)
    if isinstance(x, list) and "items" in s:
        for i, v in enumerate(x):
            _check(v, s["items"], root, f"{path}/{i}", errs)


# ------------------------------------------------------------------ plots
def plots(report, outdir):
    """time_vs_size.png and speedup.png under ``outdir``; returns the paths
    written (none when matplotlib is missing).  time_vs_size: one panel per
    algorithm, median time against nnz, one colour per system and one line
    style per graph family.  speedup: one panel per algorithm, one bar per
    graph and graphblast-py device: fastest agreeing peer's median / ours."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
    except ImportError:
        return []
    outdir = Path(outdir)
    ginfo = {g["name"]: g for g in report["graphs"] if "error" not in g}
    runs = [r for r in report["runs"] if r["median_s"] and r["graph"] in ginfo]
    algs = [a for a in report["settings"]["algorithms"] if any(r["algorithm"] == a for r in runs)]
    systems = sorted({r["system"] for r in runs})
    colour = {s: f"C{i % 10}" for i, s in enumerate(systems)}
    families = sorted({ginfo[r["graph"]].get("family", "file") for r in runs})
    style = {f: ("-o", "--s", ":^", "-.D", "-v")[i % 5] for i, f in enumerate(families)}
    written = []

    def grid(k):
        cols = min(3, max(k, 1))
        rows = math.ceil(max(k, 1) / cols)
        fig, axes = plt.subplots(rows, cols, figsize=(4.0 * cols, 2.9 * rows), squeeze=False)
        for ax in list(axes.flat)[k:]:
            ax.axis("off")
        return fig, list(axes.flat)

    if algs:
        fig, axes = grid(len(algs))
        for ax, alg in zip(axes, algs):
            for sname in systems:
                for fam in families:
                    pts = sorted((ginfo[r["graph"]]["nnz"], r["median_s"]) for r in runs
                                 if r["algorithm"] == alg and r["system"] == sname and
                                 ginfo[r["graph"]].get("family", "file") == fam)
                    if pts:
                        ax.plot([p[0] for p in pts], [p[1] for p in pts], style[fam],
                                color=colour[sname], markersize=3, linewidth=1)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(alg, fontsize=9)
            ax.set_xlabel("stored entries (nnz)", fontsize=7)
            ax.set_ylabel("median time (s)", fontsize=7)
            ax.tick_params(labelsize=6)
        handles = [Line2D([], [], color=colour[s], label=s) for s in systems] + \
            [Line2D([], [], color="k", linestyle=style[f][:-1], marker=style[f][-1],
                    markersize=3, label=f) for f in families]
        fig.legend(handles=handles, loc="lower center", ncol=min(6, len(handles)), fontsize=7,
                   frameon=False)
        fig.tight_layout(rect=(0, 0.06, 1, 1))
        p = outdir / "time_vs_size.png"
        fig.savefig(p, dpi=72)
        plt.close(fig)
        written.append(str(p))
    sp = speedups(report)
    salgs = [a for a in algs if any(k[1] == a for k in sp)]
    fig, axes = grid(len(salgs))
    if not salgs:
        axes[0].axis("on")
        axes[0].text(0.5, 0.5, "no graphblast-py / peer pairs timed", ha="center",
                     va="center")
    devs = sorted({k[2] for k in sp})
    for ax, alg in zip(axes, salgs):
        gnames = sorted({k[0] for k in sp if k[1] == alg},
                        key=lambda n: (ginfo[n].get("family", ""), ginfo[n]["nnz"]))
        w = 0.8 / max(len(devs), 1)
        for j, d in enumerate(devs):
            xs = [i + j * w for i, n in enumerate(gnames) if (n, alg, d) in sp]
            ys = [sp[(n, alg, d)][0] for n in gnames if (n, alg, d) in sp]
            ax.bar(xs, ys, width=w, color=f"C{j}", label=d)
        peers = sorted({sp[k][1] for k in sp if k[1] == alg})
        ax.set_xticks([i + 0.4 - w / 2 for i in range(len(gnames))])
        ax.set_xticklabels(gnames, rotation=60, fontsize=6, ha="right")
        ax.axhline(1.0, color="k", linewidth=0.8)
        ax.set_yscale("log")
        ax.set_title(f"{alg} (vs {', '.join(peers)})", fontsize=8)
        ax.set_ylabel("speed-up (x)", fontsize=7)
        ax.tick_params(axis="y", labelsize=6)
        if len(devs) > 1:
            ax.legend(fontsize=6)
    fig.suptitle("graphblast-py speed-up against the fastest agreeing peer (>1: faster)",
                 fontsize=9)
    fig.tight_layout()
    p = outdir / "speedup.png"
    fig.savefig(p, dpi=72)
    plt.close(fig)
    written.append(str(p))
    return written
