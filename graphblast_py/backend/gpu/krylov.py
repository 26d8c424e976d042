"""Fused CUDA kernels for one Lanczos step on a single vertex set (the
common case of one large connected component): with the sparse product by
cuSPARSE and the two inner products by cuBLAS (results left on the device),
a step is seven launches and no host read -- the same as a hand-written CuPy
Lanczos.  Used by ``backend/krylov.py``'s :class:`ComponentLanczos` through
``GPUBackend.lanczos_fused``."""
import cupy as cp

_update = cp.ElementwiseKernel(
    "raw T a, raw T b, T q, T qp", "T w",
    "w = w - a[0] * q - b[0] * qp", "gb_lanczos_update")

_scale = cp.ElementwiseKernel(
    "T w, raw T inv", "T q", "q = w * inv[0]", "gb_lanczos_scale")

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
    """The vector and scalar parts of a Lanczos step for one set."""

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
