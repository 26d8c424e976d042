"""CPU backend: NumPy/SciPy for bulk array work, numba for loop kernels."""
from .backend import CPUBackend

__all__ = ["CPUBackend"]
