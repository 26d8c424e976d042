"""Sphinx configuration: the docs/ Markdown pages (MyST) plus an API reference
generated from the docstrings (autodoc + napoleon).

Build: ``pip install -e ".[docs]" && sphinx-build -W -b html docs docs/_build/html``
(tests/test_docs_build.py runs the same build with warnings as errors).
"""
import os
import sys

_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, _ROOT)

project = "graphblast-py"
author = "graphblast-py developers"
copyright = "2026, graphblast-py developers"
release = version = "0.1.0"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# MyST: heading anchors so that the pages' "page.md#section" links resolve.
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]

# autodoc: members in source order, no GPU-only imports needed to document.
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"undoc-members": False}
# nothing to mock: no documented module imports CuPy at import time (the GPU
# backend loads it on first use), so the build needs no GPU and no CuPy
autodoc_mock_imports = []

napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_custom_sections = ["Definition", "Complexity", "Notes on the GPU"]

nitpicky = False
html_theme = "alabaster"
html_static_path = []


def _formulas_as_literal_blocks(app, what, name, obj, options, lines):
    """The algorithm modules write their definitions as plain text with the
    formulas indented by four spaces; reStructuredText would reflow such a
    block into one quoted paragraph.  Show each one verbatim (a literal block)
    instead, without changing the docstrings (``help()`` reads them as is)."""
    if what != "module":
        return
    out = []
    for k, line in enumerate(lines):
        starts_block = (line.startswith("    ") and line.strip() and k >= 2
                        and not lines[k - 1].strip() and lines[k - 2].strip()
                        and not lines[k - 2].startswith(" ")
                        and not lines[k - 2].rstrip().endswith("::"))
        if starts_block:
            out[-1:] = ["", "::", ""]
        out.append(line)
    lines[:] = out


def setup(app):
    # after napoleon (priority 500), which turns the section titles into rubrics
    app.connect("autodoc-process-docstring", _formulas_as_literal_blocks, priority=600)
