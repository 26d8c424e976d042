"""The backend seam: the only package that knows NumPy/numba versus CuPy.

``get(name)`` returns the singleton backend for ``"cpu"`` or ``"gpu"``;
``gpu_available()`` says whether CuPy finds a usable GPU.  Both backends
implement :class:`generic.ArrayBackend`'s methods; the object and operation
layers call only those.
"""
import logging
import threading

from ..errors import DeviceUnavailable

_backends = {}
_lock = threading.Lock()
_gpu_ok = None


_log = logging.getLogger("graphblast_py")
_compile_noted = set()
_COMPILERS = {"cpu": "numba (CPU)", "gpu": "NVRTC (CUDA)"}


def note_compile(device, what="kernels"):
    """Report, once per device and process, that kernels are being compiled.

    Called by the backends where a kernel is first built or dispatched (the
    numba kernel modules and user operators on the CPU, ``cupy.RawModule`` and
    user ``ElementwiseKernel``s on the GPU).  The first call for ``device``
    logs one INFO record on the ``"graphblast_py"`` logger; later calls do
    nothing.  Returns True when it logged.
    """
    if device in _compile_noted:
        return False
    with _lock:
        if device in _compile_noted:
            return False
        _compile_noted.add(device)
    _log.info("graphblast_py: compiling %s %s with %s on first use, once per process and "
              "type signature (the built-in kernels are also cached on disk, so later "
              "processes load them faster)", device.upper(), what,
              _COMPILERS.get(device, device))
    return True


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


def gpu_count():
    """How many CUDA devices CuPy sees (0 without CuPy or a driver)."""
    if not gpu_available():
        return 0
    import cupy
    return int(cupy.cuda.runtime.getDeviceCount())


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
