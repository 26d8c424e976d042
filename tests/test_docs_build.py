"""The documentation site builds with warnings as errors (docs/conf.py).

Runs ``sphinx-build -W --keep-going -b html docs <tmp>`` in a subprocess, the
same command as a manual build, so a broken docstring, a dead cross-reference
between the Markdown pages or a page missing from the table of contents fails
CI. The build also has to contain the API reference generated from the
docstrings (autodoc would otherwise document an unimportable module as empty
only with a warning, which -W turns into a failure as well).
"""
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"

_MISSING = [m for m in ("sphinx", "myst_parser") if importlib.util.find_spec(m) is None]
pytestmark = pytest.mark.skipif(
    bool(_MISSING),
    reason=f"{', '.join(_MISSING)} not installed: install the docs extra "
           f"(pip install -e \".[docs]\", also part of \".[test]\") to build the docs")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("docs")
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-E", "-q", "-b", "html",
           "-d", str(out / "doctrees"), str(DOCS), str(out / "html")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, (f"sphinx-build failed (exit {proc.returncode}):\n"
                                  f"{proc.stderr[-6000:]}\n{proc.stdout[-2000:]}")
    assert "WARNING" not in proc.stderr and "ERROR" not in proc.stderr, proc.stderr[-6000:]
    return out / "html"


def _ids(page):
    return set(re.findall(r'<dt class="sig sig-object py" id="([^"]+)"', page.read_text()))


def test_every_markdown_page_is_a_chapter(site):
    for md in DOCS.rglob("*.md"):
        rel = md.relative_to(DOCS).with_suffix(".html")
        if rel.parts[0].startswith("_"):
            continue
        assert (site / rel).is_file(), f"{md} was not built into the site"


def test_api_reference_is_generated_from_docstrings(site):
    objects = _ids(site / "api" / "objects.html")
    for name in ("Matrix", "Matrix.mxm", "Matrix.mxv", "Matrix.ewise_add", "Vector",
                 "Vector.vxm", "Vector.assign", "Mask", "Graph"):
        assert f"graphblast_py.{name}" in objects, f"{name} missing from the API reference"
    algorithms = _ids(site / "api" / "algorithms.html")
    for name in ("bfs.bfs", "sssp.sssp", "pagerank.pagerank", "betweenness.betweenness_centrality",
                 "triangle_count.triangle_count", "eigen.eigvalsh", "expm.expm_multiply"):
        assert f"graphblast_py.algorithms.{name}" in algorithms, name
    assert "graphblast_py.io.mmread" in _ids(site / "api" / "io.html")
    assert "graphblast_py.errors.DimensionMismatch" in _ids(site / "api" / "errors.html")
    assert "graphblast_py.BinaryOp.register" in _ids(site / "api" / "operators.html")


def test_tutorial_and_cold_start_are_in_the_site(site):
    text = (site / "tutorial.html").read_text()
    assert "max_min" in text and "widest_path" in text
    assert 'id="the-first-call-is-slow-the-cold-start"' in text
