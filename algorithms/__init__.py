"""Graph algorithms written with the graphblast_py API (installed as graphblast_py.algorithms)."""
from .fglt import fglt  # noqa: F401
