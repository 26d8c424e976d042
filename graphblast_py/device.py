"""Which device new objects live on.

Default: ``"gpu"`` when CuPy finds a GPU, else ``"cpu"``.  The environment
variable ``GRAPHBLAST_DEVICE=cpu|gpu`` and :func:`set_device` override it;
``obj.to(device)`` moves one object.  Mixing devices in one call raises
:class:`DeviceMismatch` naming which object is where.
"""
import os

from . import backend as _backend
from .errors import DeviceMismatch, InvalidValue

_current = None
DEVICES = ("cpu", "gpu")


def _normalize(device):
    if device is None:
        return get_device()
    d = str(device).lower()
    if d.startswith("cuda"):
        d = "gpu"
    if d not in DEVICES:
        raise InvalidValue(f"unknown device {device!r}; expected 'cpu' or 'gpu'")
    return d


def get_device():
    """The device new objects are created on."""
    global _current
    if _current is None:
        env = os.environ.get("GRAPHBLAST_DEVICE", "").strip().lower()
        if env:
            if env not in DEVICES:
                raise InvalidValue(f"GRAPHBLAST_DEVICE={env!r}; expected 'cpu' or 'gpu'")
            _backend.get(env)  # fail now, clearly, if the GPU is not usable
            _current = env
        else:
            _current = "gpu" if _backend.gpu_available() else "cpu"
    return _current


def set_device(device):
    """Set the default device (``"cpu"`` or ``"gpu"``); returns the previous one."""
    global _current
    d = _normalize(device)
    _backend.get(d)
    prev, _current = get_device(), d
    return prev


class using_device:
    """Context manager: ``with gb.using_device("cpu"): ...``."""

    def __init__(self, device):
        self.device = device

    def __enter__(self):
        self.prev = set_device(self.device)
        return self

    def __exit__(self, *exc):
        set_device(self.prev)


def backend_for(device):
    return _backend.get(_normalize(device))


def synchronize(device=None):
    """Block until work queued on ``device`` (default: the current one) is done;
    needed to time GPU work, a no-op on the CPU."""
    backend_for(device).synchronize()


def same_device(what, *objs):
    """Raise DeviceMismatch when the objects (name, obj) pairs differ in device."""
    first = None
    for name, o in objs:
        if o is None:
            continue
        if first is None:
            first = (name, o)
        elif o._be is not first[1]._be:
            raise DeviceMismatch(f"{what}: {first[0]} is on {first[1].device!r} but {name} is on "
                                 f"{o.device!r}; move one with .to({first[1].device!r})")
