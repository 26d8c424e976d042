"""The backend seam: the only package that knows NumPy/numba versus CuPy.

``get(name)`` returns the singleton backend for ``"cpu"`` or ``"gpu"``;
``gpu_available()`` says whether CuPy finds a usable GPU.  Both backends
implement :class:`generic.ArrayBackend`'s methods; the object and operation
layers call only those.
"""
import threading

from ..errors import DeviceUnavailable

_backends = {}
_lock = threading.Lock()
_gpu_ok = None


def gpu_available():
    """True when CuPy imports and sees at least one CUDA device."""
    global _gpu_ok
    if _gpu_ok is None:
        try:
            import cupy
            _gpu_ok = cupy.cuda.runtime.getDeviceCount() > 0
        except Exception:  # noqa: BLE001 - any failure means "no usable GPU"
            _gpu_ok = False
    return _gpu_ok


def gpu_unavailable_reason():
    try:
        import cupy
    except Exception as e:  # noqa: BLE001
        return f"CuPy cannot be imported ({type(e).__name__}: {e}); install the 'gpu' extra"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001
        return f"CuPy finds no CUDA driver/device ({e})"
    return "CuPy sees no CUDA device" if n == 0 else ""


def get(name):
    be = _backends.get(name)
    if be is not None:
        return be
    with _lock:   # one instance per device even when threads ask at the same time
        be = _backends.get(name)
        if be is None:
            be = _backends[name] = _make(name)
    return be


def _make(name):
    if name == "cpu":
        from .cpu import CPUBackend
        be = CPUBackend()
    elif name == "gpu":
        if not gpu_available():
            raise DeviceUnavailable(f"device 'gpu' requested but {gpu_unavailable_reason()}")
        from .gpu import GPUBackend
        be = GPUBackend()
    else:
        from ..errors import InvalidValue
        raise InvalidValue(f"unknown device {name!r}; expected 'cpu' or 'gpu'")
    return be
