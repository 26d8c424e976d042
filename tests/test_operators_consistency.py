"""Every predefined operator means the same on every path.

Each predefined operator is defined once (operators/predefined.py: a Python
scalar expression, a C expression, an array expression).  The paths that run
it must agree, value for value, over every dtype, with NaN, +-inf, -0.0, the
integer extremes (wrap-around) and integer division by zero included:

* the generic array path (``vec`` over NumPy or CuPy: ``ArrayBackend``);
* the CPU loop kernels (numba; ``_mult``/``_add`` generated from the Python
  expressions): the real pull kernel of ``mxv`` with ``any_<op>`` on a
  diagonal matrix (one product per row), ``<monoid>_first`` on rows of two
  or more values (the monoid's reduction), and the generated dispatch itself
  for every dtype (also those the pull kernel leaves to the array path);
* the GPU kernels (CUDA from the C expressions): the pull kernel, the
  segmented reduction and the elementwise kernel -- on the ``device``
  fixture's gpu parameter.

The reference is the generic path on the CPU (NumPy's ufuncs: ``fmin``/
``fmax`` for float min/max, C wrap-around for integers, SuiteSparse's
integer division by zero, which tests/test_semantics.py and the known
answers below pin down).  Floating-point transcendental functions (sqrt,
exp, sin...) are compared to 1 ulp-ish tolerance (NumPy's float32 kernels
and a float64 evaluation rounded to float32 may differ in the last bit);
everything else must be identical, NaN where NaN.
"""
import numpy as np
import pytest

import graphblast_py as gb
from graphblast_py import backend
from graphblast_py.backend.generic import ArrayBackend
from graphblast_py.operators import predefined as P

# NumPy warns about 0/0, inf - inf and the like: those values are the point here
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

DTYPES = [np.dtype(t) for t in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "float32", "float64")]
IDS = [d.name for d in DTYPES]
TRANSCENDENTAL = ("sqrt", "exp", "log", "sin", "cos", "tanh", "log2", "exp2", "log10")
# CUDA's math library (sin, pow... within 1-4 ulp) and NumPy's may differ in
# the last bits of a transcendental value; everything else is exact
GPU_ULPS = 16


def _distinct(ns):
    seen, out = set(), []
    for name in sorted(ns._ops):
        op = ns._ops[name]
        if id(op) not in seen and not op.is_user:
            seen.add(id(op))
            out.append(op)
    return out


BINARY = [op for op in _distinct(P.binary) if op.positional is None]
POSITIONAL = [op for op in _distinct(P.binary) if op.positional is not None]
UNARY = _distinct(P.unary)
MONOIDS = _distinct(P.monoid)


def values(dt):
    """The awkward values of a type."""
    if dt.kind == "b":
        return np.array([False, True])
    if dt.kind == "f":
        return np.array([0.0, -0.0, 1, -1, 2.5, -3.5, 0.5, np.nan, np.inf, -np.inf], dtype=dt)
    info = np.iinfo(dt)
    v = [0, 1, 2, 3, 4, 7, info.max, info.max - 1]
    if dt.kind == "i":
        v += [-1, -7, info.min, info.min + 1]
    return np.array(v, dtype=dt)


def pairs(dt):
    v = values(dt)
    x, y = np.meshgrid(v, v, indexing="ij")
    return x.ravel(), y.ravel()


def unary_inputs(op, dt):
    """Transcendental functions on integers only where the value is finite
    (a NaN or inf cast to an integer type is undefined in C); the scalar
    forms of floor/ceil/round compute in double, exact for integers up to
    2**53 (the array forms return the integer itself)."""
    if dt.kind in "iub" and op.name in TRANSCENDENTAL + ("minv",):
        return np.array([1, 2, 3, 4] if dt.kind != "b" else [True], dtype=dt)
    v = values(dt)
    if dt.kind in "iu" and op.name in ("floor", "ceil", "round"):
        return v[np.abs(v.astype(np.float64)) < 2.0**53]
    return v


def host(a):
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def same(got, ref, what, approx=False, ulps=4):
    """Identical values (NaN where NaN); ``approx``: floats within ``ulps``
    units of the last place (relative)."""
    got, ref = host(got), host(ref)
    assert got.dtype == ref.dtype, f"{what}: dtype {got.dtype}, reference {ref.dtype}"
    if approx and ref.dtype.kind == "f":
        np.testing.assert_allclose(got, ref, rtol=ulps * np.finfo(ref.dtype).eps, atol=0,
                                   equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, ref, err_msg=what)   # NaN == NaN here


def cpu_index(dt):
    """The CPU tests' index type: int32, the type Matrix stores below 2**31
    (the loop kernels compile once per index type too: the rest of the suite's
    compiles serve these tests), int64 for the int64 values (the index type
    of larger graphs, still run through every operator)."""
    return np.int64 if np.dtype(dt) == np.int64 else np.int32


def diag(be, vals, index=np.int64):
    """(indptr, indices, vals) of the diagonal matrix with ``vals``."""
    n = vals.shape[0]
    return (be.asarray(np.arange(n + 1, dtype=index)), be.asarray(np.arange(n, dtype=index)),
            be.asarray(vals))


def rows_of(x, y, dt, index=np.int64):
    """CSR rows (x_t, y_t) for every pair, plus a few longer rows of all the
    values: a monoid reduces each row."""
    v = values(dt)
    rows = [np.array([a, b], dtype=dt) for a, b in zip(x, y)] + [v, v[::-1], v[:1]]
    indptr = np.concatenate(([0], np.cumsum([r.shape[0] for r in rows]))).astype(index)
    indices = np.concatenate([np.arange(r.shape[0]) for r in rows]).astype(index)
    return indptr, indices, np.concatenate(rows), max(r.shape[0] for r in rows)


CPU = backend.get("cpu")


def generic(be):
    """The generic array path of a backend (its own loop kernels bypassed)."""
    class Generic(ArrayBackend):
        xp = be.xp
        name = be.name
    g = Generic()
    g.segment_reduce = be.segment_reduce    # the array reductions (reduceat / CUB)
    return g


GENERIC_CPU = generic(CPU)


def ref_binary(op, x, y):
    return GENERIC_CPU.binary(op, x, y, op.out_dtype(x.dtype, y.dtype))


# ---------------------------------------------------------------- generated code
def test_generated_dispatch_is_current():
    """backend/cpu/kernels.py embeds the operators' Python expressions; it
    must match the definitions (regenerate: python3 -m graphblast_py.backend.cpu.opgen)."""
    from graphblast_py.backend.cpu import opgen
    assert opgen.current_block() == opgen.dispatch_source(), \
        "kernels.py is out of date: run python3 -m graphblast_py.backend.cpu.opgen"


# ---------------------------------------------------------------- known answers
def test_known_answers():
    """The library's definitions themselves (the reference of everything below)."""
    b = gb.binary
    nan = np.nan
    x = np.array([2.0, nan, nan, -0.0])
    y = np.array([nan, 2.0, nan, 0.0])
    same(ref_binary(b.min, x, y), np.array([2.0, 2.0, nan, 0.0]), "min NaN loses")
    same(ref_binary(b.max, x, y), np.array([2.0, 2.0, nan, 0.0]), "max NaN loses")
    i = np.array([7, -7, 0, -128, 7], dtype=np.int8)
    j = np.array([0, 0, 0, -1, -2], dtype=np.int8)
    same(ref_binary(b.div, i, j), np.array([127, -128, 0, -128, -3], dtype=np.int8),
         "int div: x/0 is max, min or 0; truncation toward zero; min/-1 wraps")
    u = np.array([7, 0, 255], dtype=np.uint8)
    same(ref_binary(b.div, u, np.zeros(3, np.uint8)), np.array([255, 0, 255], np.uint8), "uint/0")
    same(ref_binary(b.plus, np.array([127], np.int8), np.array([1], np.int8)),
         np.array([-128], np.int8), "int8 wraps")
    same(ref_binary(b.plus, np.array([True]), np.array([True])), np.array([2]), "bool plus")
    same(GENERIC_CPU.unary(gb.unary.round, np.array([0.5, 1.5, 2.5, -2.5]), np.dtype(float)),
         np.array([0.0, 2.0, 2.0, -2.0]), "round half to even")


# ---------------------------------------------------------------- CPU
def _compute_dtype(op, dt):
    return np.dtype(np.int64) if (op.result == "arith" and dt.kind == "b") else dt


_RUNNERS = {}


def _dispatch_runner():
    """A loop over the generated _mult dispatch (the code every loop kernel
    inlines), for one opcode at a time; compiled once per operand type."""
    if "mult" not in _RUNNERS:
        from numba import njit
        from graphblast_py.backend.cpu.kernels import _mult

        @njit
        def run_mult(op, x, y, out):
            for t in range(out.shape[0]):
                out[t] = _mult(op, x[t], y[t], 0, 0, 0)
        _RUNNERS["mult"] = run_mult
    return _RUNNERS["mult"]


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_cpu_generated_dispatch(dt):
    """The Python scalar expression of every kernel operator (as the loop
    kernels run it: operands in the compute type, the value cast to the
    result type) equals the array expression, for every dtype the kernels
    compute in.  Unsigned types are not among them: numba widens unsigned
    arithmetic to uint64, which mixed with the int64 of the positional
    branches becomes float64 (255 - 1 would be stored through a float), so
    the CPU backend gives unsigned outputs to the array path -- checked here."""
    x, y = pairs(dt)
    if dt.kind == "u":
        for op in BINARY:
            sr = gb.Semiring(gb.monoid.any, op)
            if sr.out_dtype(dt, dt).kind == "u":
                assert CPU._loop_kernels(sr, sr.out_dtype(dt, dt), dt, dt) is None, op.name
        return
    run = _dispatch_runner()
    for op in BINARY:
        if not op.kernel:
            continue
        ref = ref_binary(op, x, y)
        cd = _compute_dtype(op, dt)
        # the dispatch's value in the compute type (bool results are 0/1 there)
        out = np.empty(x.shape[0], dtype=cd)
        run(op.opcode, x.astype(cd), y.astype(cd), out)
        same(out.astype(ref.dtype), ref, f"{op.name} on {dt}")


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_cpu_pull_kernel_mult(dt):
    """mxv's pull kernel, ``any_<op>`` on diag(x) times y: one product per row."""
    x, y = pairs(dt)
    R = diag(CPU, x, cpu_index(dt))
    ran = 0
    for op in BINARY:
        sr = gb.Semiring(gb.monoid.any, op)
        out_dt = sr.out_dtype(dt, dt)
        ref_v, ref_p = GENERIC_CPU.spmv_pull(R, (y, None), sr, None, False, out_dt)
        got_v, got_p = CPU.spmv_pull(R, (y, None), sr, None, False, out_dt)
        ran += CPU._loop_kernels(sr, out_dt, dt, dt) is not None
        same(got_p, ref_p, f"{op.name} on {dt}: present")
        same(got_v, ref_v, f"{op.name} on {dt}")
        same(ref_v, ref_binary(op, x, y).astype(out_dt), f"{op.name} on {dt}: generic pull")
    if dt.kind in "if":
        assert ran >= 10, f"only {ran} operators ran in the loop kernel on {dt}"


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_cpu_pull_kernel_positional(dt):
    x, y = pairs(dt)
    R = diag(CPU, x, cpu_index(dt))
    for op in POSITIONAL:
        for swap in (False, True):
            sr = gb.Semiring(gb.monoid.min, op)
            out_dt = sr.out_dtype(dt, dt)
            ref = GENERIC_CPU.spmv_pull(R, (y, None), sr, None, swap, out_dt)
            got = CPU.spmv_pull(R, (y, None), sr, None, swap, out_dt)
            same(got[0], ref[0], f"{op.name} swap={swap}")


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_cpu_monoid_reduction(dt):
    """The pull kernel's ``_add`` (``<monoid>_first`` over rows) against the
    array reduction (reduceat) and against folding the binary operator's array
    expression left to right."""
    x, y = pairs(dt)
    indptr, indices, vals, width = rows_of(x, y, dt, cpu_index(dt))
    ones = np.ones(width, dtype=dt)
    for m in MONOIDS:
        sr = gb.Semiring(m, gb.binary.first)
        out_dt = sr.out_dtype(dt, dt)
        R = (indptr, indices, vals)
        ref = GENERIC_CPU.spmv_pull(R, (ones, None), sr, None, False, out_dt)
        got = CPU.spmv_pull(R, (ones, None), sr, None, False, out_dt)
        same(got[0], ref[0], f"monoid {m.name} on {dt}")
        starts = indptr[:-1]
        fold = GENERIC_CPU._segment_fold(m.op, vals.astype(out_dt), starts)
        if not m.is_any:
            same(ref[0], fold, f"monoid {m.name} on {dt}: reduceat vs fold")


def _unary_runner():
    """One numba function applying every unary operator's Python function
    (``op.func``, compiled as a user-defined operator's would be), storing
    the values in the output array's type."""
    if "unary" not in _RUNNERS:
        from numba import njit
        ops = [op for op in UNARY if op.kernel]
        g = {f"f{t}": njit(op.func) for t, op in enumerate(ops)}
        body = "\n".join(f"        out[{t}, s] = f{t}(x[s])" for t in range(len(ops)))
        src = f"def run(x, out):\n    for s in range(x.shape[0]):\n{body}\n"
        exec(src, g)   # noqa: S102 - test-local code
        _RUNNERS["unary"] = (ops, njit(g["run"]))
    return _RUNNERS["unary"]


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_cpu_unary_scalar_form(dt):
    """The Python scalar form of every unary operator against its array form
    (lnot stores its bool in the input type here, then compared as bool)."""
    ops, run = _unary_runner()
    x = values(dt)
    out = np.empty((len(ops), x.shape[0]), dtype=dt)
    run(x, out)
    for t, op in enumerate(ops):
        sel = np.isin(x, unary_inputs(op, dt))
        ref = GENERIC_CPU.unary(op, x[sel], op.out_dtype(dt))
        same(out[t, sel].astype(ref.dtype), ref, f"unary {op.name} on {dt}",
             approx=op.name in TRANSCENDENTAL)


# ---------------------------------------------------------------- GPU
@pytest.fixture
def gpu(device):
    if device != "gpu":
        pytest.skip("GPU paths: the device fixture's gpu parameter")
    return backend.get("gpu")


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_gpu_binary(gpu, dt):
    """CuPy's array path, the elementwise kernel of the C expression, and the
    pull kernel (mult_op from the C expression) against the CPU reference."""
    x, y = pairs(dt)
    gx, gy = gpu.asarray(x), gpu.asarray(y)
    G = generic(gpu)
    R = diag(gpu, x)
    for op in BINARY:
        ref = ref_binary(op, x, y)
        approx = op.name == "pow"
        same(G.binary(op, gx, gy, ref.dtype), ref, f"CuPy {op.name} on {dt}", approx, GPU_ULPS)
        # the backend's own binary (its kernels where it has them: integer
        # div), on two arrays and on an array with a bound scalar
        same(gpu.binary(op, gx, gy, ref.dtype), ref, f"GPU binary {op.name} on {dt}", approx,
             GPU_ULPS)
        for s in values(dt)[:6]:
            want = ref_binary(op, x, np.full_like(x, s))
            got = gpu.binary(op, gx, dt.type(s), ref.dtype)
            same(got, want.astype(ref.dtype), f"GPU binary {op.name}(x, {s}) on {dt}", approx,
                 GPU_ULPS)
        if op.kernel:
            cd = _compute_dtype(op, dt)
            got = gpu.user_binary(op, cd, ref.dtype)(gx.astype(cd), gy.astype(cd))
            same(got, ref, f"CUDA elementwise {op.name} on {dt}")
        sr = gb.Semiring(gb.monoid.any, op)
        out_dt = sr.out_dtype(dt, dt)
        got_v, got_p = gpu.spmv_pull(R, (gy, None), sr, None, False, out_dt)
        same(got_v, ref.astype(out_dt), f"CUDA pull {op.name} on {dt}", approx, GPU_ULPS)


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_gpu_monoid_reduction(gpu, dt):
    x, y = pairs(dt)
    indptr, indices, vals, width = rows_of(x, y, dt)
    starts = indptr[:-1]
    for m in MONOIDS:
        out_dt = m.out_dtype(dt)
        ref = CPU.segment_reduce(m, vals.astype(out_dt), starts)
        got = gpu.segment_reduce(m, gpu.asarray(vals.astype(out_dt)), gpu.asarray(starts))
        same(got, ref, f"CUDA segmented {m.name} on {dt}")
        sr = gb.Semiring(m, gb.binary.first)
        ones = gpu.asarray(np.ones(width, dtype=dt))
        R = (gpu.asarray(indptr), gpu.asarray(indices), gpu.asarray(vals))
        got_v, _ = gpu.spmv_pull(R, (ones, None), sr, None, False, sr.out_dtype(dt, dt))
        same(got_v, ref, f"CUDA pull {m.name}_first on {dt}")


@pytest.mark.parametrize("dt", DTYPES, ids=IDS)
def test_gpu_unary(gpu, dt):
    G = generic(gpu)
    for op in UNARY:
        x = unary_inputs(op, dt)
        ref = GENERIC_CPU.unary(op, x, op.out_dtype(dt))
        approx = op.name in TRANSCENDENTAL
        same(G.unary(op, gpu.asarray(x), ref.dtype), ref, f"CuPy {op.name} on {dt}", approx,
             GPU_ULPS)
        if op.kernel:
            got = gpu.user_unary(op, dt, ref.dtype)(gpu.asarray(x))
            same(got, ref, f"CUDA elementwise {op.name} on {dt}", approx, GPU_ULPS)
