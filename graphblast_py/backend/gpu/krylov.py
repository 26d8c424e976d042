"""Fused CUDA kernels for one Lanczos step on a single vertex set (the
common case of one large connected component).  A step is six launches and
no host read: the sparse product by cuSPARSE's SpMV with its matrix
descriptor and work buffer made once per run (``cupyx``'s ``A @ q`` makes
them anew on every call, about 0.1 ms of host time), the two inner products
by cuBLAS with the results left on the device, the update, the scalar step (β,
the breakdown test, 1/β) and the scaling as small kernels.  Used by
``backend/krylov.py``'s :class:`ComponentLanczos` through
``GPUBackend.lanczos_fused``."""
import threading

import cupy as cp
import numpy as np
from cupy._core import _dtype
from cupy_backends.cuda.libs import cusparse as _cusparse
from cupy import cublas
from cupyx import cusparse

_update = cp.ElementwiseKernel(
    "raw T a, raw T b, T q, T qp", "T w",
    "w = w - a[0] * q - b[0] * qp", "gb_lanczos_update")

_scale = cp.ElementwiseKernel(
    "T w, raw T inv", "T q", "q = w * inv[0]", "gb_lanczos_scale")

_three_term = cp.ElementwiseKernel(
    "raw T a, raw T bb, T q, T qp", "T w",
    "w = w - a[0] * q - sqrt(bb[0]) * qp", "gb_lanczos_three_term")

_normalise = cp.ElementwiseKernel(
    "T w, raw T ww", "T q", "q = w / sqrt(ww[0])", "gb_lanczos_normalise")

_scalars = cp.RawKernel(r"""
template<typename T>
__device__ void step(const T* a, const T* ww, T* bprev, T* anorm, bool* active, T* inv,
                     T* alpha_out, T* beta_out, const double eps) {
    const T b = sqrt(ww[0]);
    const T an = fmax(anorm[0], fabs(a[0]) + b + bprev[0]);
    anorm[0] = an;
    const bool was = active[0];
    const bool ok = was && (b > (T)(64.0 * eps) * an);
    alpha_out[0] = was ? a[0] : (T)0;
    beta_out[0] = ok ? b : (T)0;
    inv[0] = ok ? (T)1 / b : (T)0;
    bprev[0] = ok ? b : (T)0;
    active[0] = ok;
}
extern "C" __global__ void scalars_f64(const double* a, const double* ww, double* bprev,
        double* anorm, bool* active, double* inv, double* al, double* be, const double eps) {
    step<double>(a, ww, bprev, anorm, active, inv, al, be, eps);
}
extern "C" __global__ void scalars_f32(const float* a, const float* ww, float* bprev,
        float* anorm, bool* active, float* inv, float* al, float* be, const double eps) {
    step<float>(a, ww, bprev, anorm, active, inv, al, be, eps);
}
""", "scalars_f64", options=("-std=c++14",))
_scalars32 = cp.RawKernel(_scalars.code, "scalars_f32", options=("-std=c++14",))


class FusedLanczos:
    """The sparse product, the vector and the scalar parts of a Lanczos step
    for one set."""

    def __init__(self):
        self._spmv = None
        self._dots = {}

    def matvec(self, A, q):
        """A q into a buffer reused from step to step (``q`` never aliases it:
        the next basis vector is written elsewhere by :meth:`scale`)."""
        s = self._spmv
        if s is None or s[0] is not A:
            s = self._spmv = (A,) + _SpMV.make(A)
        _, run, out = s
        if run is None:                     # cuSPARSE cannot take it: cupyx's product
            return A @ q
        run(q)
        return out

    def dot(self, u, v, slot=0):
        """u · v into a one-element device array (cuBLAS with the result on
        the device: no host read); ``slot`` picks the buffer, reused by the
        next step (the kernels that read it run before, in stream order)."""
        key = (slot, u.dtype)
        out = self._dots.get(key)
        if out is None:
            out = self._dots[key] = cp.empty(1, dtype=u.dtype)
        return cublas.dot(u, v, out=out)

    def update(self, w, a, b, q, qp):
        """w ← w − a q − b q_prev (a, b one-element device arrays)."""
        _update(a, b, q, qp, w)

    def scalars(self, a, ww, bprev, anorm, active, inv, alpha_out, beta_out, eps):
        """β = √(w·w), the breakdown test and 1/β, on the device; α and β
        written to their history slots."""
        k = _scalars if a.dtype == cp.float64 else _scalars32
        k((1,), (1,), (a, ww, bprev, anorm, active, inv, alpha_out, beta_out, cp.float64(eps)))

    def scale(self, w, inv, out):
        _scale(w, inv, out)

    def vector_steps(self):
        """The vector parts of a one-vector thick-restart Lanczos step
        (``backend/krylov.py``'s ``vector_cycle``), results left on the
        device: the product, dots into given device slots, the three-term
        update and the normalisation."""
        return _VectorSteps(self)


class _VectorSteps:
    """As ``krylov._HostVectorSteps``, on the device and with no host read."""

    def __init__(self, fused):
        self.matvec = fused.matvec

    @staticmethod
    def dot_into(u, v, out):
        """u · v into the one-element device array ``out`` (cuBLAS, result
        on the device)."""
        cublas.dot(u, v, out=out)

    @staticmethod
    def three_term(w, a, bb, q, qp):
        """w ← w − a q − √bb q_prev (a, bb one-element device arrays)."""
        _three_term(a, bb, q, qp, w)

    @staticmethod
    def normalise(w, ww, out):
        """out ← w / √ww (ww: w · w, a one-element device array)."""
        _normalise(w, ww, out)


class _SpMV:
    """cuSPARSE SpMV y = A x with A's descriptor, y and the work buffer made once."""

    @staticmethod
    def make(A):
        """(run(x), y) for a cupyx CSR matrix -- run writes A x into y -- or
        (None, None) where cuSPARSE's generic SpMV cannot take the matrix
        (no stored entry, not float32/float64)."""
        if A.dtype not in (np.float32, np.float64) or A.nnz == 0 or \
                not cusparse.check_availability("spmv"):
            return None, None
        handle = cp.cuda.device.get_cusparse_handle()
        op = _cusparse.CUSPARSE_OPERATION_NON_TRANSPOSE
        one, zero = np.array(1, A.dtype), np.array(0, A.dtype)
        ctype = _dtype.to_cuda_dtype(A.dtype)
        alg = _cusparse.CUSPARSE_MV_ALG_DEFAULT
        mat = cusparse.SpMatDescriptor.create(A)
        y = cp.empty(A.shape[0], dtype=A.dtype)
        dy = cusparse.DnVecDescriptor.create(y)
        dx0 = cusparse.DnVecDescriptor.create(cp.empty(A.shape[1], dtype=A.dtype))
        size = _cusparse.spMV_bufferSize(handle, op, one.ctypes.data, mat.desc, dx0.desc,
                                         zero.ctypes.data, dy.desc, ctype, alg)
        buf = cp.empty(max(int(size), 1), dtype=cp.int8)
        # alpha, beta and the work buffer by address (host pointer mode for
        # the scalars): the tuple keeps the three arrays alive as long as run
        ptrs = (one, zero, buf, one.ctypes.data, zero.ctypes.data, buf.data.ptr)
        n_in, n_out = A.shape[1], A.shape[0]
        local = threading.local()

        def vectors():
            """This thread's two dense-vector descriptors (input, output),
            made once; each call points them at its arrays
            (dnVecSetValues) instead of making new ones."""
            d = getattr(local, "d", None)
            if d is None:
                d = local.d = (cusparse.DnVecDescriptor.create(cp.empty(n_in, dtype=A.dtype)),
                               cusparse.DnVecDescriptor.create(cp.empty(n_out, dtype=A.dtype)))
            return d

        def run(x, out=None, accumulate=False):
            """A x into ``out`` (an array of A's rows) or the plan's y;
            ``accumulate``: ``out`` += A x (beta = 1).  x and out: contiguous
            arrays of A's type, of A's column and row counts."""
            out = y if out is None else out
            if (x.dtype != A.dtype or out.dtype != A.dtype or x.shape != (n_in,)
                    or out.shape != (n_out,)):
                raise ValueError(f"SpMV of a {n_out}x{n_in} {A.dtype} matrix: got x "
                                 f"{x.shape} {x.dtype} and out {out.shape} {out.dtype}")
            dx, do = vectors()
            _cusparse.dnVecSetValues(dx.desc, x.data.ptr)
            _cusparse.dnVecSetValues(do.desc, out.data.ptr)
            _cusparse.setStream(handle, cp.cuda.get_current_stream().ptr)
            _cusparse.spMV(handle, op, ptrs[3], mat.desc, dx.desc,
                           ptrs[3 if accumulate else 4], do.desc, ctype, alg, ptrs[5])
        return run, y
