"""The suite's own hygiene (tests/conftest.py): what an undone instance
patch leaves on a backend under pytest < 9 is dropped after every test, so
a later class-level patch reaches the backend (the CI failure of the
twelfth session: test_lazy_transpose's transpose counter never fired)."""
from graphblast_py import backend

from .conftest import drop_leftover_patches


class _Thing:
    LIMIT = 4

    def method(self):
        return "class"


def test_leftovers_dropped_and_own_state_kept():
    t = _Thing()
    t.method = t.method                 # what pytest < 9's undo leaves behind
    t.LIMIT = _Thing.LIMIT
    t.other = 7                         # the instance's own state
    t.LIMIT_OWN = 5
    drop_leftover_patches(t)
    assert vars(t) == {"other": 7, "LIMIT_OWN": 5}
    _Thing.method = lambda self: "patched"      # a later class patch now reaches t
    try:
        assert t.method() == "patched"
    finally:
        del _Thing.method
        _Thing.method = lambda self: "class"


def test_a_patched_instance_value_is_kept():
    t = _Thing()
    t.method = lambda: "instance"       # a live instance patch, not a leftover
    t.LIMIT = 9
    drop_leftover_patches(t)
    assert t.method() == "instance" and t.LIMIT == 9


def test_the_cpu_backend_carries_no_leftover():
    """After the tests before this one (same worker), the CPU backend's
    methods are its class's."""
    be = backend.get("cpu")
    for name, value in vars(be).items():
        assert getattr(value, "__func__", None) is not getattr(type(be), name, None) \
            or getattr(value, "__self__", None) is not be, name
