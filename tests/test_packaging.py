"""The wheel holds every subpackage: pyproject.toml lists its packages by
name (setuptools), so a new package directory must be added there or a
regular (non-editable) install lacks it."""
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_subpackage_is_listed_in_pyproject():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(conf["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts)
             for p in (ROOT / "graphblast_py").rglob("__init__.py")}
    found |= {"graphblast_py.algorithms"} if (ROOT / "algorithms" / "__init__.py").exists() \
        else set()
    assert found - listed == set(), f"packages missing from pyproject.toml: {found - listed}"
    assert listed - found == set(), f"listed packages that do not exist: {listed - found}"
