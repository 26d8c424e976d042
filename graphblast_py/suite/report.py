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
                        "gen s", ""], g_rows),
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
    written (none when matplotlib is missing)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    outdir = Path(outdir)
    nnz = {g["name"]: g["nnz"] for g in report["graphs"] if "error" not in g}
    algs = [a for a in report["settings"]["algorithms"]
            if any(r["algorithm"] == a and r["median_s"] for r in report["runs"])]
    written = []
    if algs:
        cols = min(3, len(algs))
        rows = math.ceil(len(algs) / cols)
        fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
        for ax, alg in zip(axes.flat, algs):
            systems = sorted({r["system"] for r in report["runs"] if r["algorithm"] == alg})
            for sname in systems:
                pts = sorted((nnz[r["graph"]], r["median_s"]) for r in report["runs"]
                             if r["algorithm"] == alg and r["system"] == sname and
                             r["median_s"] and r["graph"] in nnz)
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=sname,
                            markersize=3, linewidth=1)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(alg, fontsize=9)
            ax.set_xlabel("stored entries (nnz)", fontsize=7)
            ax.set_ylabel("median time (s)", fontsize=7)
            ax.tick_params(labelsize=6)
            ax.legend(fontsize=5)
        for ax in list(axes.flat)[len(algs):]:
            ax.axis("off")
        fig.tight_layout()
        p = outdir / "time_vs_size.png"
        fig.savefig(p, dpi=80)
        plt.close(fig)
        written.append(str(p))
    sp = speedups(report)
    fig, ax = plt.subplots(figsize=(max(6, 0.22 * len(sp) + 2), 3.6))
    if sp:
        keys = sorted(sp, key=lambda k: (k[1], nnz.get(k[0], 0), k[2]))
        vals = [sp[k][0] for k in keys]
        colors = ["tab:blue" if k[2].endswith("cpu") else "tab:green" for k in keys]
        ax.bar(range(len(keys)), vals, color=colors)
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels([f"{k[1]} {k[0]} ({k[2].split()[-1]}) vs {sp[k][1]}"
                            for k in keys], rotation=90, fontsize=5)
        ax.axhline(1.0, color="k", linewidth=0.8)
        ax.set_yscale("log")
    else:
        ax.text(0.5, 0.5, "no graphblast-py / peer pairs timed", ha="center", va="center")
    ax.set_ylabel("speed-up vs fastest peer (x)", fontsize=7)
    ax.set_title("graphblast-py speed-up against the fastest agreeing peer", fontsize=9)
    fig.tight_layout()
    p = outdir / "speedup.png"
    fig.savefig(p, dpi=80)
    plt.close(fig)
    written.append(str(p))
    return written
