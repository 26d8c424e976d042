"""GPU backend: CuPy for bulk array work, generated CUDA kernels (kernels.py)
for the loop-shaped operations.  Only this package imports CuPy."""
from .backend import GPUBackend

__all__ = ["GPUBackend"]
