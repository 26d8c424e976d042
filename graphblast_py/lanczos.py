"""Krylov methods for symmetric matrices on framework objects, shared by the
algorithms ``expm_multiply`` and ``eigvalsh``.

This module checks arguments, hands the objects' device arrays to the
backend's Krylov engines (``graphblast_py/backend/krylov.py``: written
once against NumPy/CuPy, sparse products by SciPy or cuSPARSE, the basis on
the device, α/β and projected matrices read back only for convergence tests)
and turns their status into the library's errors and warnings.

* :func:`expm_components` -- e^{tA}x component by component (see
  ``algorithms/expm.py`` for the math and the accuracy contract).
* :func:`extreme_eigenpairs` -- k extreme eigenpairs by thick-restart block
  Lanczos (see ``algorithms/eigen.py``).
"""
import math
import warnings

import numpy as np

from . import dtypes
from .backend import krylov as _krylov
from .checks import check_matrix, check_no_nan
from .errors import AccuracyWarning, ConvergenceError, InvalidValue, Overflow
from .matrix import Matrix
from .operations.reduce import reduce_scalar
from .operators import binary, monoid, unary
from .vector import Vector


def check_operator(A, what, dtype):
    """A square, symmetric Matrix with finite values, cast to the Krylov
    dtype (float32/float64)."""
    A = check_matrix(A, what, weighted=True)
    dtype = dtypes.lookup(dtype)
    if dtype not in (dtypes.FP32, dtypes.FP64):
        raise InvalidValue(f"{what}: dtype must be float32 or float64, got {dtype}")
    if A.nvals and A.dtype.kind == "f" and A.iso:
        if not math.isfinite(float(A.iso_value)):
            raise InvalidValue(f"{what}: every stored value of A is {A.iso_value}; NaN or "
                               "infinite entries are not allowed (the Lanczos method needs "
                               "finite ones)")
    elif A.nvals and A.dtype.kind == "f":
        def finite():                     # raises, or True kept until A changes
            check_no_nan(A, what)
            if not math.isfinite(reduce_scalar(A.apply(unary.abs), monoid.max)):
                raise InvalidValue(f"{what}: A has an infinite stored value; the Lanczos "
                                   "method needs finite entries")
            return True
        A._cached("finite", finite)
    if not A._cached("symmetric", lambda: A.isequal(A.T)):
        raise InvalidValue(f"{what}: A is not symmetric; the Lanczos method needs a symmetric "
                           "matrix (e.g. an undirected graph)")
    if A.dtype == dtype:
        return A
    B = A._cached(("as", dtype.name), lambda: A.dup(dtype))
    B._cached("symmetric", lambda: True)
    return B


def components_of(A, find):
    """``find(A)`` (the connected-component labels), kept with A until it
    changes."""
    return A._cached("components", lambda: find(A))


def sparse_operator(A):
    """The SciPy / cuSPARSE CSR matrix of A for the Krylov products, built
    once per matrix contents (``Matrix._cached``)."""
    def build():
        indptr, indices, values = A._csr(True)
        return A._be.sparse_matrix(indptr, indices, values, (A.nrows, A.ncols))
    return A._cached("sparse_operator", build)


def check_finite_vector(x, what, name):
    """Every stored value of the Vector x is a finite number."""
    if x.nvals and x.dtype.kind == "f":
        if x.ewise_mult(x, binary.ne).reduce(monoid.lor):
            raise InvalidValue(f"{what}: {name} has a NaN entry")
        if not math.isfinite(x.apply(unary.abs).reduce(monoid.max)):
            raise InvalidValue(f"{what}: {name} has an infinite entry")


def _dense_values(v, dtype):
    """The values of a Vector over all positions (0 where none is stored)."""
    vals, pres = v._dense()
    xp = v._be.xp
    if pres is not None:
        vals = xp.where(pres, vals, 0)
    return vals.astype(dtype, copy=False)


def expm_components(A, x, t, labels, *, tol, limit, fixed, progress=None):
    """(y, s, status) with e^{tA}x = e^s ∘ y entrywise: ``y`` a Vector of
    A's dtype, ``s`` a float64 Vector (the log scale of each vertex's
    component).  ``labels``: a component id per vertex (an int Vector, e.g.
    from ``connected_components``).  Raises ConvergenceError when a component
    does not reach ``tol`` within ``limit`` Lanczos steps; with ``fixed``
    (exactly ``limit`` steps) warns AccuracyWarning instead, with the count of
    the entries concerned and the estimated error."""
    be = A._be
    n = A.nrows
    indptr, indices, values = A._csr(not A.iso)
    iso = None if values is not None else float(A.iso_value)
    xv = _dense_values(x, A.dtype)
    lab = _dense_values(labels, np.int64)
    nonneg = t >= 0 and A._cached("nonnegative", lambda: A.nvals == 0 or
                                  reduce_scalar(A, monoid.min) >= 0) and \
        (n == 0 or float(be.xp.min(xv)) >= 0)
    # the component analysis, kept with A for the labelling it was made for
    held = A._cached("expm_plan", dict)
    plan = held.get("plan")
    if plan is None or not plan.same_labels(lab):
        plan = held["plan"] = _krylov.ExpmPlan(be, indptr, indices, values, iso, n, lab)
    y, s, st = _krylov.expm_by_components(be, plan, xv, t, tol, limit, fixed, nonneg,
                                          sparse_operator(A), progress)
    if st.unconverged_components:
        msg = (f"{st.unconverged_vertices} of {n} entries (in {st.unconverged_components} "
               f"connected component(s)) did not reach tol={tol:g}: the last Lanczos step still "
               f"changed them by {st.delta:.2e} relative to their component's norm")
        if not fixed:
            raise ConvergenceError(f"expm_multiply: no convergence within max_krylov={limit} "
                                   f"Lanczos steps; {msg}")
        warnings.warn(f"expm_multiply with krylov_dim={limit}: {msg}", AccuracyWarning,
                      stacklevel=3)
    return (Vector.from_dense(y, dtype=A.dtype, device=A.device),
            Vector.from_dense(s, dtype=dtypes.FP64, device=A.device), st)


def apply_scale(y, s):
    """e^s ∘ y as a Vector of y's dtype; Overflow (before writing anything)
    when an entry exceeds the dtype's range."""
    be = y._be
    out, top = _krylov.scale_back(be.xp, _dense_values(y, y.dtype), _dense_values(s, np.float64))
    if top >= math.log(np.finfo(y.dtype).max):
        raise Overflow(f"expm_multiply: e^(tA)x reaches about e^{top:.1f}, beyond {y.dtype}; "
                       "use return_log_scale=True to get (y, s) with e^(tA)x = e^s * y "
                       "entrywise")
    return Vector.from_dense(out, dtype=y.dtype, device=y.device)


def extreme_eigenpairs(A, k, which, *, tol, block, ncv, max_restarts, seed, vectors,
                       verify=True, progress=None):
    """(values ascending as a NumPy array, n×k dense Matrix or None, info
    dict) for the k wanted eigenpairs of the symmetric float64 Matrix A."""
    be = A._be
    n = A.nrows
    rng = np.random.default_rng(seed)
    if n <= max(2 * (ncv + block), 64):
        M = np.asarray(be.to_host(A.to_dense(fill=0)), dtype=np.float64)
        theta, Y = np.linalg.eigh(M)
        want = _krylov._wanted(theta, k, which)
        want = want[np.argsort(theta[want], kind="stable")]
        X = None
        if vectors:
            X = Matrix.from_dense(be.asarray(np.ascontiguousarray(Y[:, want])),
                                  device=A.device)
        return theta[want], X, {"method": "dense", "restarts": 0, "matvecs": 0}
    op = sparse_operator(A)
    try:
        r = _krylov.krylov_schur(be.xp, op, n, np.float64, k, which, tol, block, ncv,
                                 max_restarts, rng, be.to_host, vectors, verify, progress,
                                 fused=be.lanczos_fused())
    except _krylov._NoConvergence as e:
        raise ConvergenceError(
            f"eigvalsh: the {k} wanted Ritz pairs did not converge to tol={tol:g} within "
            f"max_restarts={max_restarts} restarts (relative residuals: "
            f"{np.array2string(e.residuals, precision=2)}); raise ncv or max_restarts") from None
    except _krylov._Exhausted:
        raise ConvergenceError(f"eigvalsh: the Krylov basis spans the whole {n}-dimensional "
                               "space without converging; lower ncv") from None
    X = None
    if vectors:
        X = Matrix.from_dense(be.xp.ascontiguousarray(r.vectors.T), device=A.device)
    return r.values, X, {"method": "krylov-schur", "restarts": r.restarts,
                         "matvecs": r.matvecs, "residuals": r.residuals}
