"""Graph algorithms written with the graphblast_py API (installed as graphblast_py.algorithms)."""
from .fglt import fglt  # noqa: F401
from .expm import expm_multiply, total_communicability  # noqa: F401
from .eigen import eigvalsh, tridiagonal_eigvalsh  # noqa: F401
