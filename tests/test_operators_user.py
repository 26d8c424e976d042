"""User-defined operators: registered by name, and run through the same loop
kernels as the predefined ones (CPU: the pull/push/dot kernels specialised to
the user's numba-compiled functions), with the same results as the
equivalent predefined operators -- on graphs that break things: a power-law
Kronecker graph (hubs), a path (many levels), isolated vertices, empty and
one-vertex graphs."""
import numpy as np
import pytest

import graphblast_py as gb
from graphblast_py import backend


def host(a):
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


@pytest.fixture(scope="module")
def ops():
    """User operators meaning exactly what predefined ones mean (min with the
    library's NaN rule: a NaN operand loses)."""
    plus = gb.BinaryOp.register("u_plus", lambda x, y: x + y, "x + y")
    times = gb.BinaryOp.register("u_times", lambda x, y: x * y, "x * y")
    minus = gb.BinaryOp.register("u_minus", lambda x, y: x - y, "x - y")
    mn = gb.BinaryOp.register("u_min", lambda x, y: x if x < y else (y if y == y else x),
                              "(x < y ? x : (y == y ? y : x))")
    plus_m = gb.Monoid.register("u_plus_m", plus, 0)
    min_m = gb.Monoid.register("u_min_m", mn, np.inf, terminal=-np.inf)
    return {
        "plus_times": gb.Semiring.register("u_plus_times", plus_m, times),
        "min_plus": gb.Semiring.register("u_min_plus", min_m, plus),
        "plus_times_mixed": gb.Semiring.register("u_plus_times_mixed", gb.monoid.plus, times),
        "min_plus_mixed": gb.Semiring.register("u_min_plus_mixed", min_m, gb.binary.plus),
        "plus_minus": gb.Semiring.register("u_plus_minus", plus_m, minus),
    }


def test_register_makes_the_operator_available_by_name(ops):
    assert gb.binary.u_plus is gb.binary["u_plus"]
    assert gb.monoid.u_min_m is ops["min_plus"].monoid
    assert gb.semiring.u_plus_times is ops["plus_times"]
    assert "u_times" in gb.binary and "u_times" in dir(gb.binary)
    u = gb.Vector.from_dense(np.array([1.0, 2.0, 3.0]))
    # a name works wherever an operator is expected
    np.testing.assert_array_equal(host(u.ewise_add(u, "u_plus").to_dense()), [2.0, 4.0, 6.0])
    A = gb.Matrix.from_dense(np.eye(3))
    np.testing.assert_array_equal(host(A.mxv(u, "u_plus_times").to_dense()), [1.0, 2.0, 3.0])
    assert u.reduce("u_plus_m") == 6.0


def test_register_refuses_predefined_names_and_replaces_user_ones():
    for call in (lambda: gb.BinaryOp.register("plus", lambda x, y: x - y),
                 lambda: gb.UnaryOp.register("abs", lambda x: x),
                 lambda: gb.Monoid.register("min", gb.binary.plus, 0),
                 lambda: gb.Semiring.register("plus_times", gb.monoid.plus, gb.binary.plus),
                 lambda: gb.Semiring.register("any_secondi", gb.monoid.plus, gb.binary.plus)):
        with pytest.raises(gb.InvalidValue, match="predefined"):
            call()
    assert gb.binary.plus.func(3, 2) == 5
    first = gb.BinaryOp.register("u_again", lambda x, y: x - y)
    second = gb.BinaryOp.register("u_again", lambda x, y: y - x)
    assert gb.binary.u_again is second and first is not second
    with pytest.raises(gb.InvalidValue, match="identifier"):
        gb.Monoid.register("not a name", gb.binary.plus, 0)


def graphs():
    rng = np.random.default_rng(3)
    K = gb.generators.kronecker(8, seed=2)
    n = K.nrows
    r, c, _ = K.to_coo()
    out = {"kronecker": (r, c, n)}
    p = np.arange(39)
    out["path"] = (np.concatenate([p, p + 1]), np.concatenate([p + 1, p]), 40)
    out["isolated"] = (np.array([0, 5, 9]), np.array([5, 0, 2]), 12)
    out["empty"] = (np.zeros(0, np.int64), np.zeros(0, np.int64), 5)
    out["one vertex"] = (np.array([0]), np.array([0]), 1)
    res = {}
    for name, (r, c, n) in out.items():
        vals = rng.integers(1, 9, r.shape[0]).astype(np.float64) / 4
        res[name] = (r, c, vals, n)
    return res


@pytest.mark.parametrize("graph", list(graphs()))
@pytest.mark.parametrize("direction", ["pull", "push"])
def test_user_semirings_match_predefined(ops, device, graph, direction):
    r, c, vals, n = graphs()[graph]
    A = gb.Matrix.from_coo(r, c, vals, n, n, device=device)
    rng = np.random.default_rng(1)
    x = rng.standard_normal(n)
    x[::3] = np.nan          # NaN loses in min, propagates in plus
    u = gb.Vector.from_coo(np.arange(0, n, 2), x[::2], size=n, device=device)
    for user, pre in (("plus_times", gb.semiring.plus_times), ("min_plus", gb.semiring.min_plus),
                      ("plus_times_mixed", gb.semiring.plus_times),
                      ("min_plus_mixed", gb.semiring.min_plus),
                      ("plus_minus", gb.semiring.plus_minus)):
        want = A.mxv(u, pre, direction=direction)
        got = A.mxv(u, ops[user], direction=direction)
        wi, wv = want.to_coo()
        gi, gv = got.to_coo()
        np.testing.assert_array_equal(host(gi), host(wi), err_msg=user)
        np.testing.assert_allclose(host(gv), host(wv), rtol=1e-12, equal_nan=True, err_msg=user)
        # and the masked dot product (mxm) on the same graph
        M = A.mxm(A, pre, mask=A.S, method="dot").to_coo()
        G = A.mxm(A, ops[user], mask=A.S, method="dot").to_coo()
        for a, b in zip(M[:2], G[:2]):
            np.testing.assert_array_equal(host(b), host(a), err_msg=user)
        np.testing.assert_allclose(host(G[2]), host(M[2]), rtol=1e-12, equal_nan=True,
                                   err_msg=user)


def test_user_semiring_runs_in_the_loop_kernels(ops):
    """On the CPU the user semiring takes the numba loop kernels (not the
    vectorized fallback), terminal value included."""
    cpu = backend.get("cpu")
    f8 = np.dtype(np.float64)
    for sr in ops.values():
        assert cpu._loop_kernels(sr, f8, f8, f8) is not None, sr.name
    A = gb.Matrix.from_coo([0, 0, 0, 1], [0, 1, 2, 1], [1.0, 2.0, 3.0, 5.0], 2, 3,
                           device="cpu")
    u = gb.Vector.from_dense(np.array([-np.inf, 1.0, np.nan]), device="cpu")
    w = A.mxv(u, ops["min_plus"], direction="pull")
    assert cpu.last_kernel[0] == "pull"
    np.testing.assert_array_equal(w.to_dense(), [-np.inf, 6.0])


def test_user_operator_error_inside_a_kernel_names_it(ops):
    """An exception in the user's function inside a loop kernel (integer
    division by zero) is InvalidValue naming the operator; nothing written."""
    idiv = gb.BinaryOp.register("u_idiv", lambda x, y: x // y)
    sr = gb.Semiring.register("u_plus_idiv", gb.monoid.plus, idiv)
    A = gb.Matrix.from_dense(np.array([[4, 6], [8, 0]]), device="cpu")
    u = gb.Vector.from_dense(np.array([2, 0]), device="cpu")
    out = gb.Vector.from_dense(np.array([7, 7]), device="cpu")
    with pytest.raises(gb.InvalidValue, match="u_plus_idiv"):
        A.mxv(u, sr, out=out, direction="pull")
    np.testing.assert_array_equal(out.to_dense(), [7, 7])
    u2 = gb.Vector.from_dense(np.array([2, 3]), device="cpu")
    np.testing.assert_array_equal(A.mxv(u2, sr, direction="pull").to_dense(), [2 + 2, 4])
    # large enough for the blocked (threaded) kernels, which must not drop it
    K = gb.generators.kronecker(12, seed=1, device="cpu").apply(gb.indexunary.rowindex, thunk=1)
    n = K.nrows
    z = gb.Vector.from_dense(np.arange(n) % 5, device="cpu")
    with pytest.raises(gb.InvalidValue, match="ZeroDivisionError"):
        K.mxv(z, sr, direction="pull")
    Z = K.apply(gb.binary.times, right=0)
    with pytest.raises(gb.InvalidValue, match="ZeroDivisionError"):
        K.mxm(Z, sr, mask=K.S, method="dot")
    nz = gb.Vector.from_dense(np.arange(n) % 5 + 1, device="cpu")
    want = np.zeros(n, dtype=np.int64)
    r, c, v = K.to_coo()
    np.add.at(want, r, v // (c % 5 + 1))
    np.testing.assert_array_equal(K.mxv(nz, sr, direction="pull").to_dense(), want)
    Kf = K.apply(gb.binary.times, right=0.5)
    assert Kf.mxm(Kf, ops["plus_times"], mask=K.S, method="dot").isequal(
        Kf.mxm(Kf, gb.semiring.plus_times, mask=K.S, method="dot"))
