"""CUDA C sources of the GPU backend's kernels.

Every kernel is a fixed template below, compiled together with a short
generated *prelude* that defines, for one signature,

* the element and index types (``TA``, ``TX``, ``TB``, ``TOUT``, ``IP``, ``IX`` ...);
* the semiring's ``mult_op(x, y, i, k, j)`` and the monoid's ``add_op(x, y)``,
  written from the operators' C expressions (``cexpr``: one definition per
  predefined operator in operators/predefined.py, shared with the CPU
  backend's kernels; a user-defined operator's own), ``i``/``k``/``j`` for
  the positional ones (firsti = row of the first operand, firstj = secondi =
  the inner index, secondj = column of the second operand);
* ``A_ISO``: the value of an iso matrix whose values a multiply reads (no
  values array is built for it; one module per value), else 0;
* compile-time flags: ``IS_ANY`` (stop at the first term), ``HAS_TERM`` and
  ``TERM`` (the monoid's terminal value: early exit), ``EARLY`` (pull: stop a
  row early at all -- the early_exit switch), ``SWAP`` (vxm: the vector is the
  first operand), ``MODE`` (how push combines products).

The backend compiles one module per signature once (``cupy.RawModule``) and
keeps it in a dict: no source is generated on a call that has run before.
Nothing here imports CuPy, so the sources can be checked with ``nvcc`` on a
machine without a GPU (see tests/test_backend_parity.py).

Operand typing follows the generic (vectorized) path: a multiply computes in
the NumPy result type of its two operand types (arithmetic ones in int64 for
two bools), then casts to the semiring's output type; the monoid works in the
output type.
"""
import math

import numpy as np

from ... import dtypes
from ...errors import MissingKernel

# warp-shuffle carrier type per element type (value-preserving casts)
_SHFL = {"b1": "int", "i1": "int", "i2": "int", "i4": "int", "u1": "unsigned int",
         "u2": "unsigned int", "u4": "unsigned int", "i8": "long long",
         "u8": "unsigned long long", "f4": "float", "f8": "double"}

BLOCK = 256


def _code(dt):
    dt = np.dtype(dt)
    return dt.kind + str(dt.itemsize)


def ctype(dt):
    return dtypes.ctype(np.dtype(dt))


def literal(value, dt):
    """A C literal of ``value`` in type ``dt`` (inf/nan through bit patterns,
    so no math header is needed under NVRTC)."""
    dt = np.dtype(dt)
    if dt.kind == "b":
        return "true" if bool(value) else "false"
    if dt.kind == "f":
        v = float(value)
        if dt.itemsize == 4:
            if math.isnan(v):
                return "__int_as_float(0x7fc00000)"
            if math.isinf(v):
                return "__int_as_float(0x7f800000)" if v > 0 else "__int_as_float((int)0xff800000u)"
            return f"((float){v!r})"
        if math.isnan(v):
            return "__longlong_as_double(0x7ff8000000000000LL)"
        if math.isinf(v):
            return ("__longlong_as_double(0x7ff0000000000000LL)" if v > 0 else
                    "__longlong_as_double((long long)0xfff0000000000000ULL)")
        return f"((double){v!r})"
    v = int(value)
    if dt.kind == "u":
        return f"(({ctype(dt)}){v}ULL)"
    if v == -2**63:
        return "(-9223372036854775807LL - 1)"
    return f"(({ctype(dt)}){v}LL)"


# ---------------------------------------------------------------- operators
def op_expr(op, what="operator"):
    """C expression of a BinaryOp, or None when the kernels do not run it
    (the backend then takes the vectorized path): predefined operators whose
    integer meaning only their array form has (``kernel=False``: div, pow).
    A user-defined operator without a CUDA expression raises
    :class:`MissingKernel`."""
    if op.is_user:
        if op.cexpr is None:
            raise MissingKernel(f"user-defined {what} {op.name!r} has no CUDA expression "
                                "(cuda_expr=...), so it cannot run on a GPU object; give one "
                                "or move the objects with .to('cpu')")
        return op.cexpr
    return op.cexpr if op.kernel else None


def reduce_expr(op):
    """C expression for a segmented reduction with any BinaryOp (predefined
    ones with ``kernel=False``, e.g. div, use their C expression here)."""
    expr = op_expr(op, "monoid operator")
    if expr is None:
        expr = op.cexpr
    if expr is None:
        raise MissingKernel(f"no GPU reduction for operator {op.name!r}")
    return expr


def compute_type(op, tl, tr):
    """The type a multiply computes in (before the cast to the output type)."""
    if op.positional is not None:
        return dtypes.INT64
    t = np.result_type(np.dtype(tl), np.dtype(tr))
    if op.result == "arith" and t == dtypes.BOOL:
        return dtypes.INT64
    return t


def _typedefs(**types):
    return "".join(f"typedef {ctype(dt)} {name};\n" for name, dt in types.items())


_COMMON = r"""
typedef long long i64;
#define FULL_MASK 0xffffffffu
"""


def _mult_fn(mult, tl, tr):
    expr = op_expr(mult, "multiply operator")
    tc = compute_type(mult, tl, tr)
    return f"""
__device__ __forceinline__ TOUT mult_op(TL x_in, TR y_in, i64 i, i64 k, i64 j) {{
    typedef {ctype(tc)} TC;
    TC x = (TC)x_in; TC y = (TC)y_in;
    (void)x; (void)y; (void)i; (void)k; (void)j;
    return (TOUT)({expr});
}}
"""


def _add_fn(op):
    expr = reduce_expr(op)
    return f"""
__device__ __forceinline__ TOUT add_op(TOUT x, TOUT y) {{
    (void)x; (void)y;
    return (TOUT)({expr});
}}
"""


def _warp_fns(tout):
    sh = _SHFL[_code(tout)]
    return f"""
__device__ __forceinline__ TOUT shfl_down_out(TOUT v, int d) {{
    return (TOUT)__shfl_down_sync(FULL_MASK, ({sh})v, d);
}}
__device__ __forceinline__ TOUT shfl_idx_out(TOUT v, int s) {{
    return (TOUT)__shfl_sync(FULL_MASK, ({sh})v, s);
}}
__device__ __forceinline__ void warp_combine(TOUT& acc, bool& found) {{
    for (int d = 16; d > 0; d >>= 1) {{
        TOUT o = shfl_down_out(acc, d);
        int of = __shfl_down_sync(FULL_MASK, (int)found, d);
        if (of) {{
            if (found) acc = add_op(acc, o); else {{ acc = o; found = true; }}
        }}
    }}
}}
"""


_NATIVE_ATOMIC = {
    ("plus", "f4"): "atomicAdd(addr, v);", ("plus", "f8"): "atomicAdd(addr, v);",
    ("plus", "i4"): "atomicAdd(addr, v);", ("plus", "u4"): "atomicAdd(addr, v);",
    ("plus", "u8"): "atomicAdd(addr, v);",
    ("plus", "i8"): "atomicAdd((unsigned long long*)addr, (unsigned long long)v);",
}
# min/max: the atomic only when v would change the value read first -- the
# value only moves one way, so a read that is stale is never past the
# current one and skipping is exact; it spares the atomics that a hub (or a
# component's root in connected components) would otherwise serialise
for _c in ("i4", "u4", "i8", "u8"):
    _NATIVE_ATOMIC[("min", _c)] = "if (v < *(volatile TOUT*)addr) atomicMin(addr, v);"
    _NATIVE_ATOMIC[("max", _c)] = "if (v > *(volatile TOUT*)addr) atomicMax(addr, v);"
del _c

_BITS = {
    "f4": ("unsigned int", "__float_as_uint(v)", "__uint_as_float(b)"),
    "f8": ("unsigned long long", "((unsigned long long)__double_as_longlong(v))",
           "__longlong_as_double((long long)(b))"),
    "i4": ("unsigned int", "((unsigned int)(v))", "((TOUT)(b))"),
    "u4": ("unsigned int", "((unsigned int)(v))", "((TOUT)(b))"),
    "i8": ("unsigned long long", "((unsigned long long)(v))", "((TOUT)(b))"),
    "u8": ("unsigned long long", "((unsigned long long)(v))", "((TOUT)(b))"),
}


def atomic_ok(tout):
    return _code(tout) in _BITS


def _atomic_fn(op, tout):
    """``atomic_combine(addr, v)``: *addr = add_op(*addr, v), atomically (a
    native atomic where CUDA has one, else a compare-and-swap loop)."""
    code = _code(tout)
    name = None if op.is_user else op.name
    native = _NATIVE_ATOMIC.get((name, code))
    if native is not None:
        return f"""
__device__ __forceinline__ void atomic_combine(TOUT* addr, TOUT v) {{ {native} }}
"""
    bits, to_bits, from_bits = _BITS[code]
    return f"""
__device__ __forceinline__ {bits} to_bits(TOUT v) {{ return {to_bits}; }}
__device__ __forceinline__ TOUT from_bits({bits} b) {{ return {from_bits}; }}
__device__ __forceinline__ void atomic_combine(TOUT* addr, TOUT v) {{
    {bits}* a = ({bits}*)addr;
    {bits} old = *a, assumed;
    do {{
        assumed = old;
        {bits} nb = to_bits(add_op(from_bits(assumed), v));
        if (nb == assumed) return;
        old = atomicCAS(a, assumed, nb);
    }} while (old != assumed);
}}
"""


def _flags(monoid, tout):
    """IS_ANY / HAS_TERM / TERM defines for a monoid in type ``tout``."""
    is_any = monoid.is_any
    term = None if is_any else monoid.terminal(np.dtype(tout))
    lines = [f"#define IS_ANY {1 if is_any else 0}",
             f"#define HAS_TERM {0 if term is None else 1}",
             f"#define TERM {literal(term, tout) if term is not None else '((TOUT)0)'}"]
    return "\n".join(lines) + "\n"


_COMBINE = r"""
#define COMBINE(v) do { TOUT v_ = (v); if (found) acc = add_op(acc, v_); \
                        else { acc = v_; found = true; } } while (0)
#define STOP (IS_ANY || (HAS_TERM && acc == TERM))
"""


# ---------------------------------------------------------------- mxv: pull
_PULL = r"""
// the input's presence: a bool per position, or (XBITS) one bit per position
// packed little-endian into bytes (pack_bits), an eighth of the bytes to
// read at random -- it stays in L2 where a bool array would not
#if XBITS
#define XPRES(c) ((((const unsigned char*)xpres)[(c) >> 3] >> ((c) & 7)) & 1)
#else
#define XPRES(c) (xpres[c])
#endif
__device__ __forceinline__ TOUT prod_op(TA a, TX xv, i64 r, i64 c) {
#if SWAP
    return mult_op(xv, a, 0, c, r);
#else
    return mult_op(a, xv, r, c, 0);
#endif
}

// the pull kernels' switches, packed in one argument (a launch costs ~0.6 us
// of host time per argument): bit 0 read_a, 1 read_x, 2 has_pres, 3
// all_rows, 4 has_allowed, 5 comp, 6 keep_a (set by backend.py ``spmv_pull``)
#define PULL_FLAGS \
    const int read_a = flags & 1, read_x = (flags >> 1) & 1, has_pres = (flags >> 2) & 1, \
              all_rows = (flags >> 3) & 1, has_allowed = (flags >> 4) & 1, \
              comp = (flags >> 5) & 1, keep_a = (flags >> 6) & 1;

// one thread per listed row, grid-stride (any grid size covers every row);
// over all rows (all_rows) every row's presence is written, false where
// the mask leaves it out or nothing was found, so outp needs no zero fill;
// early exit (EARLY) at the terminal value / first term.  Rows: the list
// `rows` or all rows (all_rows), of which only those the dense mask
// `allowed` lets through (has_allowed; with comp, those it marks are the
// ones left out) -- the mask is tested here, so it is never listed on the host.  keep_a (structure_only=False): every A value is
// loaded and summed into chk, whose only use is a dummy store, so the
// compiler keeps the loads.
extern "C" __global__ void pull_thread(
    const IP* __restrict__ indptr, const IX* __restrict__ indices,
    const TA* __restrict__ avals, const TX* __restrict__ xvals,
    const bool* __restrict__ xpres, const i64* __restrict__ rows,
    i64 nlist, const bool* __restrict__ allowed, int flags,
    TOUT* __restrict__ outv, bool* __restrict__ outp, bool* __restrict__ sink)
{
    PULL_FLAGS
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x; t < nlist; t += stride) {
        i64 r = all_rows ? t : rows[t];
        if (has_allowed && allowed[r] == (bool)comp) {
            if (all_rows) outp[r] = false;
            continue;
        }
        i64 p1 = (i64)indptr[r + 1];
        bool found = false;
        TOUT acc = (TOUT)0;
        double chk = 0.0;
        for (i64 p = (i64)indptr[r]; p < p1; ++p) {
            i64 c = (i64)indices[p];
            if (has_pres && !XPRES(c)) continue;
            TA av = read_a ? avals[p] : A_ISO;
            if (keep_a) chk += (double)av;
            COMBINE(prod_op(av, read_x ? xvals[c] : (TX)0, r, c));
#if EARLY
            if (STOP) break;
#endif
        }
        if (keep_a && chk == -1.0) *sink = true;
        if (found) { outv[r] = acc; outp[r] = true; }
        else if (all_rows) outp[r] = false;
    }
}

// one warp per listed row (long rows), grid-stride over the rows (the test
// of the mask is uniform across the warp); lanes stride over the row; the
// warp stops together once any lane reaches the terminal value; for `any`
// the first term in row order wins (ballot + lowest lane)
extern "C" __global__ void pull_warp(
    const IP* __restrict__ indptr, const IX* __restrict__ indices,
    const TA* __restrict__ avals, const TX* __restrict__ xvals,
    const bool* __restrict__ xpres, const i64* __restrict__ rows,
    i64 nlist, const bool* __restrict__ allowed, int flags,
    TOUT* __restrict__ outv, bool* __restrict__ outp, bool* __restrict__ sink)
{
    PULL_FLAGS
    int lane = threadIdx.x & 31;
    i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
    for (i64 w = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < nlist; w += nwarps) {
        i64 r = all_rows ? w : rows[w];
        if (has_allowed && allowed[r] == (bool)comp) {
            if (all_rows && lane == 0) outp[r] = false;
            continue;
        }
        i64 p0 = (i64)indptr[r], p1 = (i64)indptr[r + 1];
        bool found = false;
        TOUT acc = (TOUT)0;
        double chk = 0.0;
        for (i64 base = p0; base < p1; base += 32) {
            i64 p = base + lane;
            bool has = false;
            TOUT v = (TOUT)0;
            if (p < p1) {
                i64 c = (i64)indices[p];
                if (!has_pres || XPRES(c)) {
                    TA av = read_a ? avals[p] : A_ISO;
                    if (keep_a) chk += (double)av;
                    v = prod_op(av, read_x ? xvals[c] : (TX)0, r, c);
                    has = true;
                }
            }
#if IS_ANY
            // the first term in row order wins, with or without early exit
            unsigned int b = __ballot_sync(FULL_MASK, has);
            if (b && !found) {
                acc = shfl_idx_out(v, __ffs(b) - 1);
                found = true;
#if EARLY
                break;
#endif
            }
#else
            if (has) COMBINE(v);
#if HAS_TERM && EARLY
            if (__any_sync(FULL_MASK, found && acc == TERM)) break;
#endif
#endif
        }
        if (keep_a && chk == -1.0) *sink = true;
#if !IS_ANY
        warp_combine(acc, found);
#endif
        if (lane == 0) {
            if (found) { outv[r] = acc; outp[r] = true; }
            else if (all_rows) outp[r] = false;
        }
    }
}
"""


def _iso_define(a_iso, ta):
    """``A_ISO``: the matrix's one value when it is iso and not read from an
    array (a compile-time constant), else 0."""
    return f"#define A_ISO {literal(a_iso, ta) if a_iso is not None else '((TA)0)'}\n"


def pull_source(semiring, ta, tx, tout, ip, ix, swap, early_exit=True, a_iso=None, bits=False):
    """The pull kernels; ``bits``: the input's presence comes packed one bit
    per position (:data:`_PACK_BITS`)."""
    tl, tr = (tx, ta) if swap else (ta, tx)
    return (_COMMON + _typedefs(TA=ta, TX=tx, TOUT=tout, IP=ip, IX=ix, TL=tl, TR=tr)
            + _iso_define(a_iso, ta)
            + f"#define SWAP {1 if swap else 0}\n#define EARLY {1 if early_exit else 0}\n"
            + f"#define XBITS {1 if bits else 0}\n"
            + _flags(semiring.monoid, tout) + _COMBINE
            + _mult_fn(semiring.mult, tl, tr) + _add_fn(semiring.monoid.op) + _warp_fns(tout)
            + _PULL)


# one block per listed row (the hub rows of an unmasked pull that does not
# stop early): the threads stride over the row, each warp combines its
# lanes, thread 0 combines the warps' partial results (commutative monoids,
# as the warp kernel assumes); the block loop is grid-stride over the rows
_PULL_BLOCK = r"""
extern "C" __global__ void pull_block(
    const IP* __restrict__ indptr, const IX* __restrict__ indices,
    const TA* __restrict__ avals, int read_a, const TX* __restrict__ xvals, int read_x,
    const bool* __restrict__ xpres, int has_pres, const i64* __restrict__ rows,
    i64 nlist, TOUT* __restrict__ outv, bool* __restrict__ outp)
{
    __shared__ TOUT part[32];
    __shared__ int pfound[32];
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    int nw = (blockDim.x + 31) >> 5;
    for (i64 b = blockIdx.x; b < nlist; b += gridDim.x) {
        i64 r = rows[b];
        i64 p0 = (i64)indptr[r], p1 = (i64)indptr[r + 1];
        bool found = false;
        TOUT acc = (TOUT)0;
        for (i64 p = p0 + threadIdx.x; p < p1; p += blockDim.x) {
            i64 c = (i64)indices[p];
            if (has_pres && !XPRES(c)) continue;
            TA av = read_a ? avals[p] : A_ISO;
            COMBINE(prod_op(av, read_x ? xvals[c] : (TX)0, r, c));
        }
        warp_combine(acc, found);
        if (lane == 0) { part[wid] = acc; pfound[wid] = found ? 1 : 0; }
        __syncthreads();
        if (threadIdx.x == 0) {
            bool f = false;
            TOUT a = (TOUT)0;
            for (int w = 0; w < nw; ++w) {
                if (pfound[w]) {
                    if (f) a = add_op(a, part[w]); else { a = part[w]; f = true; }
                }
            }
            if (f) { outv[r] = a; outp[r] = true; }
        }
        __syncthreads();
    }
}
"""


def pull_block_source(semiring, ta, tx, tout, ip, ix, swap, a_iso=None):
    """The pull kernels' module (``pull_source``, without early exit) plus
    ``pull_block``."""
    return pull_source(semiring, ta, tx, tout, ip, ix, swap, False, a_iso) + _PULL_BLOCK



# an unmasked (plus, multiply) pull over a full input -- PageRank's product
# on a matrix whose rows are all short: LANES lanes per row (a power of two
# up to 32, fixed per module), so a warp walks 32 / LANES rows at once; the
# loop over the warp's rows is uniform across the warp, so the group's
# shuffles run with every lane.  spmv_sum writes every row: its sum where it
# has entries, outp[r] = row non-empty (the input has an entry at every
# position), so the outputs need no fill.  spmv_sum_accum adds the sums to a
# full vector instead (accum plus: old[r] + sum where the row has entries,
# old[r] elsewhere; outv may be old itself, so neither is __restrict__).
_SPMV_SUM = r"""
template <bool ACC>
__device__ __forceinline__ void spmv_sum_rows(
    const IP* __restrict__ indptr, const IX* __restrict__ indices,
    const TA* __restrict__ avals, int read_a, const TX* __restrict__ xvals,
    i64 nrows, TOUT* outv, bool* outp, const TOUT* old)
{
    const int lane = threadIdx.x & (LANES - 1);
    const i64 per_warp = 32 / LANES;
    i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
    i64 w = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    for (i64 base = w * per_warp; base < nrows; base += nwarps * per_warp) {
        i64 r = base + ((threadIdx.x & 31) / LANES);
        bool live = r < nrows;
        i64 p0 = live ? (i64)indptr[r] : 0, p1 = live ? (i64)indptr[r + 1] : 0;
        TOUT acc = (TOUT)0;
#pragma unroll 4
        for (i64 p = p0 + lane; p < p1; p += LANES) {
            i64 c = (i64)indices[p];
            acc = add_op(acc, prod_op(read_a ? avals[p] : A_ISO, xvals[c], r, c));
        }
        for (int d = LANES >> 1; d > 0; d >>= 1)
            acc = add_op(acc, shfl_down_out_w(acc, d));
        if (live && lane == 0) {
            if (ACC) {
                if (p1 > p0) outv[r] = add_op(old[r], acc);
                else if (outv != old) outv[r] = old[r];
            } else {
                outp[r] = p1 > p0;
                if (p1 > p0) outv[r] = acc;
            }
        }
    }
}

extern "C" __global__ void spmv_sum(
    const IP* __restrict__ indptr, const IX* __restrict__ indices,
    const TA* __restrict__ avals, int read_a, const TX* __restrict__ xvals,
    i64 nrows, TOUT* __restrict__ outv, bool* __restrict__ outp)
{
    spmv_sum_rows<false>(indptr, indices, avals, read_a, xvals, nrows, outv, outp, nullptr);
}

extern "C" __global__ void spmv_sum_accum(
    const IP* __restrict__ indptr, const IX* __restrict__ indices,
    const TA* __restrict__ avals, int read_a, const TX* __restrict__ xvals,
    i64 nrows, const TOUT* old, TOUT* outv)
{
    spmv_sum_rows<true>(indptr, indices, avals, read_a, xvals, nrows, outv, nullptr, old);
}
"""


def spmv_sum_source(semiring, ta, tx, tout, ip, ix, swap, lanes, a_iso=None):
    """``spmv_sum`` with ``lanes`` lanes per row (in the pull kernels'
    module, for their prelude); the monoid must be ``plus`` (its identity
    is 0)."""
    sh = _SHFL[_code(tout)]
    return (pull_source(semiring, ta, tx, tout, ip, ix, swap, False, a_iso)
            + f"#define LANES {int(lanes)}\n"
            + "__device__ __forceinline__ TOUT shfl_down_out_w(TOUT v, int d) {\n"
            + f"    return (TOUT)__shfl_down_sync(FULL_MASK, ({sh})v, d, LANES);\n}}\n"
            + _SPMV_SUM)

# ---------------------------------------------------------------- packed presence
# bool presence -> one bit per position, little-endian within each byte (bit
# c & 7 of byte c >> 3): what the pull kernels read with XBITS
PACK_BITS = _COMMON + r"""
extern "C" __global__ void pack_bits(const bool* __restrict__ pres, i64 n,
                                     unsigned char* __restrict__ out)
{
    i64 m = (n + 7) >> 3;
    for (i64 b = (i64)blockIdx.x * blockDim.x + threadIdx.x; b < m;
         b += (i64)gridDim.x * blockDim.x) {
        i64 c0 = b << 3;
        i64 c1 = c0 + 8 < n ? c0 + 8 : n;
        unsigned v = 0;
        for (i64 c = c0; c < c1; ++c) v |= (unsigned)(pres[c] != 0) << (c - c0);
        out[b] = (unsigned char)v;
    }
}
"""


# ---------------------------------------------------------------- mxv: push
# MODE 0: any with a constant product (pair): plain stores
# MODE 1: any: phase 0 elects the first frontier entry per output (atomicMin on
#         its position, as the CPU's in-order scatter), phase 1 lets it write
# MODE 2: atomics into an accumulator pre-filled with the identity
# MODE 3: bool "or" (lor, max): store true;  MODE 4: bool "and" (land, min): store false
_PUSH = r"""
__device__ __forceinline__ TOUT prod_op(TA a, TX xv, i64 r, i64 c) {
#if SWAP
    return mult_op(xv, a, 0, c, r);
#else
    return mult_op(a, xv, r, c, 0);
#endif
}

// d[0] = 0, d[t + 1] = out-degree of the t-th frontier vertex (as below);
// its inclusive scan by cupy.cumsum is `off` -- the way before the two
// launches below, kept for comparison (PUSH_SCAN_BLOCKS = 0)
extern "C" __global__ void push_degrees(
    const IP* __restrict__ indptr, const i64* __restrict__ xidx, int dense_x,
    const bool* __restrict__ pres, int has_pres, i64 nf, i64* __restrict__ d)
{
    i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t > nf) return;
    if (t == 0) { d[0] = 0; return; }
    i64 s = t - 1;
    i64 c = dense_x ? s : xidx[s];
    d[t] = (has_pres && !pres[s]) ? (i64)0 : (i64)indptr[c + 1] - (i64)indptr[c];
}

// a frontier vertex's degree (the listed vertex xidx[s], or vertex s itself
// for a dense frontier, dense_x, whose absent positions count 0 edges) and
// the inclusive scan of the degrees in one launch, for a small frontier:
// one block of OFF_THREADS threads, each summing a run of consecutive
// degrees, the runs' totals scanned in shared memory (Hillis-Steele), then
// each run written out with its prefix: off[0] = 0, off[t + 1] = the edges of
// frontier vertices 0..t.  (The caller uses it while nf + 1 <= 64 * OFF_THREADS.)
#define OFF_THREADS 1024
extern "C" __global__ void push_offsets_small(
    const IP* __restrict__ indptr, const i64* __restrict__ xidx, int dense_x,
    const bool* __restrict__ pres, int has_pres, i64 nf, i64* __restrict__ off)
{
    __shared__ i64 part[OFF_THREADS];
    const int tid = threadIdx.x;
    const i64 total = nf + 1;
    const i64 run = (total + OFF_THREADS - 1) / OFF_THREADS;
    const i64 lo = (i64)tid * run;
    const i64 hi = lo + run < total ? lo + run : total;
    i64 sum = 0;
    for (i64 t = lo; t < hi; ++t) {
        if (t == 0) continue;
        i64 s = t - 1;
        i64 c = dense_x ? s : xidx[s];
        sum += (has_pres && !pres[s]) ? (i64)0 : (i64)indptr[c + 1] - (i64)indptr[c];
    }
    part[tid] = sum;
    __syncthreads();
    for (int k = 1; k < OFF_THREADS; k <<= 1) {
        i64 v = tid >= k ? part[tid - k] : 0;
        __syncthreads();
        part[tid] += v;
        __syncthreads();
    }
    i64 acc = tid ? part[tid - 1] : 0;
    for (i64 t = lo; t < hi; ++t) {
        if (t > 0) {
            i64 s = t - 1;
            i64 c = dense_x ? s : xidx[s];
            acc += (has_pres && !pres[s]) ? (i64)0 : (i64)indptr[c + 1] - (i64)indptr[c];
        }
        off[t] = acc;
    }
}

// the same offsets for a big frontier in two launches (CuPy's cumsum took
// ~70-95 us of host time a call): push_deg_blocks writes each frontier
// vertex's degree, d[s], and each block's total, bsum[b] (block b: entries
// [b * 256 * per, (b + 1) * 256 * per), thread k the entries k, k + 256,
// ...); push_scan_blocks adds up the earlier blocks' totals, scans its own
// entries (each thread a run of `per` consecutive ones, the runs' totals
// scanned in shared memory) and writes off[s + 1] = edges of vertices 0..s
// (off[0] = 0).  Both launch with 256 threads a block.
__device__ __forceinline__ i64 block_sum_256(i64 v, i64* sh)
{
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (threadIdx.x < k) sh[threadIdx.x] += sh[threadIdx.x + k];
        __syncthreads();
    }
    i64 r = sh[0];
    __syncthreads();
    return r;
}

extern "C" __global__ void push_deg_blocks(
    const IP* __restrict__ indptr, const i64* __restrict__ xidx, int dense_x,
    const bool* __restrict__ pres, int has_pres, i64 nf, i64 per,
    i64* __restrict__ d, i64* __restrict__ bsum)
{
    __shared__ i64 sh[256];
    i64 base = (i64)blockIdx.x * 256 * per;
    i64 sum = 0;
    for (i64 k = 0; k < per; ++k) {
        i64 s = base + k * 256 + threadIdx.x;
        if (s < nf) {
            i64 c = dense_x ? s : xidx[s];
            i64 deg = (has_pres && !pres[s]) ? (i64)0 : (i64)indptr[c + 1] - (i64)indptr[c];
            d[s] = deg;
            sum += deg;
        }
    }
    sum = block_sum_256(sum, sh);
    if (threadIdx.x == 0) bsum[blockIdx.x] = sum;
}

extern "C" __global__ void push_scan_blocks(
    const i64* __restrict__ d, const i64* __restrict__ bsum, i64 nf, i64 per,
    i64* __restrict__ off)
{
    __shared__ i64 sh[256];
    i64 pre = 0;
    for (i64 b = threadIdx.x; b < (i64)blockIdx.x; b += 256) pre += bsum[b];
    pre = block_sum_256(pre, sh);
    i64 lo = (i64)blockIdx.x * 256 * per + (i64)threadIdx.x * per;
    i64 hi = lo + per < nf ? lo + per : nf;
    i64 run = 0;
    for (i64 s = lo; s < hi; ++s) run += d[s];
    sh[threadIdx.x] = run;
    __syncthreads();
    for (int k = 1; k < 256; k <<= 1) {
        i64 v = threadIdx.x >= k ? sh[threadIdx.x - k] : 0;
        __syncthreads();
        sh[threadIdx.x] += v;
        __syncthreads();
    }
    i64 acc = pre + (threadIdx.x ? sh[threadIdx.x - 1] : 0);
    for (i64 s = lo; s < hi; ++s) {
        acc += d[s];
        off[s + 1] = acc;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) off[0] = 0;
}

// the product of stored entry p (row r of the output) with frontier entry t
// (vertex c), combined into the accumulator as MODE says
// the push kernels' switches, packed in one argument ``sw`` (a launch costs
// ~0.6 us of host time per argument; set by backend.py ``spmspv_push``):
// bit 0 read_a, 1 read_x, 2 dense_x (push_edges) / has_pres
// (push_vertices), 3 has_allowed, 4 comp, 5 keep_a
#define PUSH_SWITCHES \
    const int read_a = sw & 1, read_x = (sw >> 1) & 1, has_allowed = (sw >> 3) & 1, \
              comp = (sw >> 4) & 1, keep_a = (sw >> 5) & 1;

__device__ __forceinline__ void push_visit(
    i64 p, i64 t, i64 c, i64 r, const TA* __restrict__ pvals, int read_a,
    const TX* __restrict__ xvals, int read_x, TOUT* __restrict__ acc,
    bool* __restrict__ flags, int* __restrict__ win, int phase, int keep_a,
    bool* __restrict__ sink)
{
#if MODE == 1
    if (phase == 0) { atomicMin(win + r, (int)t); flags[r] = true; return; }
    if (win[r] != (int)t) return;
#endif
    TA av = read_a ? pvals[p] : A_ISO;
    // keep_a (structure_only=False): a dummy store keeps the value's load
    if (keep_a && (double)av == -1.0) *sink = true;
    TOUT v = prod_op(av, read_x ? xvals[t] : (TX)0, r, c);
#if MODE == 0 || MODE == 1
    acc[r] = v;
    flags[r] = true;
#elif MODE == 2
    atomic_combine(acc + r, v);
    flags[r] = true;
#elif MODE == 3
    if (v) acc[r] = true;
    flags[r] = true;
#else
    if (!v) acc[r] = false;
    flags[r] = true;
#endif
}

// frontier edges e (grid-stride, one thread each): off = exclusive scan of
// the frontier's row lengths (nf + 1 entries, in global or shared memory), so
// a hub row is spread over many threads.  Frontier entry t is vertex
// xidx[t], or t itself for a dense frontier (dense_x; its values are then
// indexed by vertex too).
__device__ __forceinline__ void push_edge_range(
    const i64* off, i64 nf, i64 total, int dense_x,
    const IP* __restrict__ indptr, const IX* __restrict__ indices,
    const TA* __restrict__ pvals, const i64* __restrict__ xidx,
    const TX* __restrict__ xvals, int read_a, int read_x, int has_allowed, int comp,
    int keep_a, const bool* __restrict__ allowed, TOUT* __restrict__ acc,
    bool* __restrict__ flags, int* __restrict__ win, int phase, bool* __restrict__ sink)
{
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
        i64 lo = 0, hi = nf;            // largest t with off[t] <= e
        while (hi - lo > 1) {
            i64 mid = (lo + hi) >> 1;
            if (off[mid] <= e) lo = mid; else hi = mid;
        }
        i64 t = lo;
        i64 c = dense_x ? t : xidx[t];
        i64 p = (i64)indptr[c] + (e - off[t]);
        i64 r = (i64)indices[p];
        if (has_allowed && allowed[r] == (bool)comp) continue;
        push_visit(p, t, c, r, pvals, read_a, xvals, read_x, acc, flags, win, phase, keep_a,
                   sink);
    }
}

// the frontier's offsets computed beforehand (push_offsets_small or the two
// block launches); the edge count off[nf] is read here, on the device, so
// no host read sizes the launch
extern "C" __global__ void push_edges(
    const IP* __restrict__ indptr, const IX* __restrict__ indices,
    const TA* __restrict__ pvals, const i64* __restrict__ xidx,
    const TX* __restrict__ xvals, const i64* __restrict__ off, i64 nf,
    const bool* __restrict__ allowed, TOUT* __restrict__ acc,
    bool* __restrict__ flags, int* __restrict__ win, int phase, int sw,
    bool* __restrict__ sink)
{
    PUSH_SWITCHES
    push_edge_range(off, nf, off[nf], (sw >> 2) & 1, indptr, indices, pvals, xidx, xvals,
                    read_a, read_x, has_allowed, comp, keep_a, allowed, acc, flags, win, phase,
                    sink);
}

// a sparse frontier of at most PUSH_FUSED (the block size) entries -- a
// source, a small step: each block scans the row lengths in shared memory
// first, so the push is one launch with no offsets array
#define PUSH_FUSED 256
extern "C" __global__ void __launch_bounds__(PUSH_FUSED) push_edges_fused(
    const IP* __restrict__ indptr, const IX* __restrict__ indices,
    const TA* __restrict__ pvals, const i64* __restrict__ xidx,
    const TX* __restrict__ xvals, i64 nf,
    const bool* __restrict__ allowed, TOUT* __restrict__ acc,
    bool* __restrict__ flags, int* __restrict__ win, int phase, int sw,
    bool* __restrict__ sink)
{
    PUSH_SWITCHES
    __shared__ i64 off[PUSH_FUSED + 1];
    const int tid = threadIdx.x;
    i64 d = 0;
    if (tid < nf) {
        const i64 c = xidx[tid];
        d = (i64)indptr[c + 1] - (i64)indptr[c];
    }
    off[tid + 1] = d;
    if (tid == 0) off[0] = 0;
    __syncthreads();
    for (int k = 1; k < PUSH_FUSED; k <<= 1) {   // inclusive scan of off[1..]
        const i64 v = tid >= k ? off[tid + 1 - k] : 0;
        __syncthreads();
        off[tid + 1] += v;
        __syncthreads();
    }
    push_edge_range(off, nf, off[nf], 0, indptr, indices, pvals, xidx, xvals, read_a, read_x,
                    has_allowed, comp, keep_a, allowed, acc, flags, win, phase, sink);
}

// one thread per vertex of a dense frontier, grid-stride, each walking its
// own row: no scan, for matrices whose rows are all short (a hub would stall
// its thread: push_edges takes those)
extern "C" __global__ void push_vertices(
    const IP* __restrict__ indptr, const IX* __restrict__ indices,
    const TA* __restrict__ pvals, const bool* __restrict__ xpres,
    const TX* __restrict__ xvals, i64 nf,
    const bool* __restrict__ allowed, TOUT* __restrict__ acc,
    bool* __restrict__ flags, int* __restrict__ win, int phase, int sw,
    bool* __restrict__ sink)
{
    PUSH_SWITCHES
    const int has_pres = (sw >> 2) & 1;
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x; t < nf; t += stride) {
        if (has_pres && !xpres[t]) continue;
        i64 p1 = (i64)indptr[t + 1];
        for (i64 p = (i64)indptr[t]; p < p1; ++p) {
            i64 r = (i64)indices[p];
            if (has_allowed && allowed[r] == (bool)comp) continue;
            push_visit(p, t, t, r, pvals, read_a, xvals, read_x, acc, flags, win, phase, keep_a,
                       sink);
        }
    }
}
"""


def push_source(semiring, ta, tx, tout, ip, ix, swap, mode, a_iso=None):
    tl, tr = (tx, ta) if swap else (ta, tx)
    src = (_COMMON + _typedefs(TA=ta, TX=tx, TOUT=tout, IP=ip, IX=ix, TL=tl, TR=tr)
           + _iso_define(a_iso, ta)
           + f"#define SWAP {1 if swap else 0}\n#define MODE {mode}\n"
           + _mult_fn(semiring.mult, tl, tr) + _add_fn(semiring.monoid.op))
    if mode == 2:
        src += _atomic_fn(semiring.monoid.op, tout)
    return src + _PUSH


# ---------------------------------------------------------------- masked dot SpGEMM
# the dot product of row i of A and row j of B^T (one mask entry), into
# acc/found: a linear merge when the rows have similar lengths, else binary
# searches of the shorter row's indices in the longer one (GALLOP: the
# length ratio from which it searches); early exit on the monoid's terminal
_DOT_BODY = r"""
// binary searches of each index of the short list (s..se of sj) in the long
// one (l..le of lj); A_SHORT says which of A's and B's rows is the short one,
// so that the product keeps its operand order
template <bool A_SHORT, typename IXS, typename IXL>
__device__ __forceinline__ void dot_gallop(
    const IXS* __restrict__ sj, i64 s, i64 se, const IXL* __restrict__ lj, i64 l, i64 le,
    const TA* __restrict__ av, int read_a, const TB* __restrict__ bv, int read_b,
    i64 i, i64 j, TOUT& acc, bool& found)
{
    for (; s < se; ++s) {
        i64 k = (i64)sj[s];
        i64 lo = l, hi = le;
        while (lo < hi) { i64 mid = (lo + hi) >> 1; if ((i64)lj[mid] < k) lo = mid + 1; else hi = mid; }
        l = lo;
        if (l >= le) break;
        if ((i64)lj[l] == k) {
            i64 p = A_SHORT ? s : l, q = A_SHORT ? l : s;
            COMBINE(mult_op(read_a ? av[p] : (TA)0, read_b ? bv[q] : (TB)0, i, k, j));
            if (STOP) break;
            ++l;
        }
    }
}

__device__ __forceinline__ void dot_entry(
    const IPA* __restrict__ ai, const IXA* __restrict__ aj, const TA* __restrict__ av, int read_a,
    const IPB* __restrict__ bi, const IXB* __restrict__ bj, const TB* __restrict__ bv, int read_b,
    i64 i, i64 j, TOUT& acc, bool& found)
{
    i64 p = (i64)ai[i], pe = (i64)ai[i + 1], q = (i64)bi[j], qe = (i64)bi[j + 1];
    i64 la = pe - p, lb = qe - q;
    if (la <= 0 || lb <= 0) return;
    if (la * GALLOP < lb) {
        dot_gallop<true>(aj, p, pe, bj, q, qe, av, read_a, bv, read_b, i, j, acc, found);
    } else if (lb * GALLOP < la) {
        dot_gallop<false>(bj, q, qe, aj, p, pe, av, read_a, bv, read_b, i, j, acc, found);
    } else {
        while (p < pe && q < qe) {
            i64 ka = (i64)aj[p], kb = (i64)bj[q];
            if (ka < kb) ++p;
            else if (kb < ka) ++q;
            else {
                COMBINE(mult_op(read_a ? av[p] : (TA)0, read_b ? bv[q] : (TB)0, i, ka, j));
                if (STOP) break;
                ++p; ++q;
            }
        }
    }
}
"""

_DOT = _DOT_BODY + r"""
// one thread per mask entry (i, j): its dot product into outv[t]/outp[t]
extern "C" __global__ void dot_masked(
    const IPA* __restrict__ ai, const IXA* __restrict__ aj, const TA* __restrict__ av, int read_a,
    const IPB* __restrict__ bi, const IXB* __restrict__ bj, const TB* __restrict__ bv, int read_b,
    const i64* __restrict__ mkeys, i64 nm, i64 ncols, TOUT* __restrict__ outv,
    bool* __restrict__ outp)
{
    i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nm) return;
    i64 key = mkeys[t];
    i64 i = key / ncols, j = key - i * ncols;
    bool found = false;
    TOUT acc = (TOUT)0;
    dot_entry(ai, aj, av, read_a, bi, bj, bv, read_b, i, j, acc, found);
    if (found) { outv[t] = acc; outp[t] = true; }
}
"""

# the same dot products, each added into its row's result by one atomic (the
# fused masked mxm -> row reduction when the reduction's monoid is the
# semiring's: triangle counting's plus_pair): nothing per mask entry is
# stored; outv/outp are per row.  (Combining the lanes of a row by shuffles
# before one atomic per row was measured no faster: benchmarks/tc_dot.py.)
_DOT_ROWS = _DOT.replace("void dot_masked(", "void dot_masked_rows(").replace(
    "    if (found) { outv[t] = acc; outp[t] = true; }\n}",
    "    if (found) { atomic_combine(outv + i, acc); outp[i] = true; }\n}")


# the same row-fused kernel over a mask given as CSR (mp, mj) -- a
# structural mask stored sparse, triangle counting's L.S: thread t takes mask
# entry t, its row the last i with mp[i] <= t, so no key per entry is built.
# The warp finds the row of its first entry by one binary search (the same
# path in every lane: each load is one broadcast), and each lane walks on
# over the row ends between that entry and its own (a warp spans few rows)
_DOT_ROWS_CSR = _DOT_BODY + r"""
extern "C" __global__ void dot_masked_rows_csr(
    const IPA* __restrict__ ai, const IXA* __restrict__ aj, const TA* __restrict__ av, int read_a,
    const IPB* __restrict__ bi, const IXB* __restrict__ bj, const TB* __restrict__ bv, int read_b,
    const IPM* __restrict__ mp, const IXM* __restrict__ mj, i64 nm, i64 nrows,
    TOUT* __restrict__ outv, bool* __restrict__ outp)
{
    i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    i64 t0 = t - (threadIdx.x & 31);               // the warp's first entry
    if (t0 >= nm) return;
    i64 lo = 0, hi = nrows - 1;
    while (lo < hi) {
        i64 mid = (lo + hi + 1) >> 1;
        if ((i64)mp[mid] <= t0) lo = mid; else hi = mid - 1;
    }
    if (t >= nm) return;
    i64 i = lo;
    while ((i64)mp[i + 1] <= t) ++i;
    i64 j = (i64)mj[t];
    bool found = false;
    TOUT acc = (TOUT)0;
    dot_entry(ai, aj, av, read_a, bi, bj, bv, read_b, i, j, acc, found);
    if (found) { atomic_combine(outv + i, acc); outp[i] = true; }
}
"""


def _dot_defines(semiring, ta, tb, tout, ipa, ixa, ipb, ixb, gallop):
    return (_COMMON + _typedefs(TA=ta, TB=tb, TOUT=tout, IPA=ipa, IXA=ixa, IPB=ipb, IXB=ixb,
                                TL=ta, TR=tb)
            + f"#define GALLOP {int(gallop)}\n"
            + _flags(semiring.monoid, tout) + _COMBINE + _mult_fn(semiring.mult, ta, tb)
            + _add_fn(semiring.monoid.op))


# binary searches from a length ratio of 32: on Kronecker 18-22 (degree-
# ordered L, one H200) 32 and 16 were 4-8% faster than 8 (benchmarks/tc_dot.py)
DOT_GALLOP = 32


def dot_rows_source(semiring, ta, tb, tout, ipa, ixa, ipb, ixb, gallop=DOT_GALLOP):
    return (_dot_defines(semiring, ta, tb, tout, ipa, ixa, ipb, ixb, gallop)
            + _atomic_fn(semiring.monoid.op, tout) + _DOT_ROWS)


def dot_rows_csr_source(semiring, ta, tb, tout, ipa, ixa, ipb, ixb, ipm, ixm,
                        gallop=DOT_GALLOP):
    return (_dot_defines(semiring, ta, tb, tout, ipa, ixa, ipb, ixb, gallop)
            + _typedefs(IPM=ipm, IXM=ixm)
            + _atomic_fn(semiring.monoid.op, tout) + _DOT_ROWS_CSR)


def dot_source(semiring, ta, tb, tout, ipa, ixa, ipb, ixb, gallop=DOT_GALLOP):
    return _dot_defines(semiring, ta, tb, tout, ipa, ixa, ipb, ixb, gallop) + _DOT


# ---------------------------------------------------------------- SpMM (A sparse, X dense)
_SPMM = r"""
// row-split: one thread per (row, column of X); consecutive threads take
// consecutive columns, so reads of X are coalesced
extern "C" __global__ void spmm_row(
    const IP* __restrict__ ai, const IX* __restrict__ aj, const TA* __restrict__ av, int read_a,
    const TX* __restrict__ X, int read_x, i64 m, i64 ncols, TOUT* __restrict__ out)
{
    i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= m * ncols) return;
    i64 r = t / ncols, col = t - r * ncols;
    i64 p1 = (i64)ai[r + 1];
    bool found = false;
    TOUT acc = (TOUT)0;
    for (i64 p = (i64)ai[r]; p < p1; ++p) {
        i64 k = (i64)aj[p];
        COMBINE(mult_op(read_a ? av[p] : (TA)0, read_x ? X[k * ncols + col] : (TX)0, r, k, col));
        if (STOP) break;
    }
    if (found) out[t] = acc;
}

#if MERGE
// nonzero-split ("merge"): one thread per (chunk of `chunk` stored entries,
// column of X); rows wholly inside the chunk are stored, rows cut by a chunk
// boundary are combined atomically into `out` (pre-filled with the identity)
extern "C" __global__ void spmm_merge(
    const IP* __restrict__ ai, const IX* __restrict__ aj, const TA* __restrict__ av, int read_a,
    const TX* __restrict__ X, int read_x, i64 m, i64 ncols, i64 nnz, i64 chunk,
    TOUT* __restrict__ out)
{
    i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    i64 nchunks = (nnz + chunk - 1) / chunk;
    if (t >= nchunks * ncols) return;
    i64 ch = t / ncols, col = t - ch * ncols;
    i64 p0 = ch * chunk, p1 = p0 + chunk < nnz ? p0 + chunk : nnz;
    i64 lo = 0, hi = m;             // first row r with ai[r + 1] > p0
    while (lo < hi) { i64 mid = (lo + hi) >> 1; if ((i64)ai[mid + 1] <= p0) lo = mid + 1; else hi = mid; }
    i64 r = lo, p = p0;
    while (p < p1 && r < m) {
        i64 rs = (i64)ai[r], re = (i64)ai[r + 1];
        i64 end = re < p1 ? re : p1;
        bool found = false;
        TOUT acc = (TOUT)0;
        for (; p < end; ++p) {
            i64 k = (i64)aj[p];
            COMBINE(mult_op(read_a ? av[p] : (TA)0, read_x ? X[k * ncols + col] : (TX)0, r, k, col));
        }
        if (found) {
            TOUT* dst = out + r * ncols + col;
            if (rs >= p0 && re <= p1) *dst = acc; else atomic_combine(dst, acc);
        }
        ++r;
        while (r < m && (i64)ai[r + 1] <= p) ++r;
    }
}
#endif
"""


def spmm_source(semiring, ta, tx, tout, ip, ix, merge):
    src = (_COMMON + _typedefs(TA=ta, TX=tx, TOUT=tout, IP=ip, IX=ix, TL=ta, TR=tx)
           + f"#define MERGE {1 if merge else 0}\n" + _flags(semiring.monoid, tout) + _COMBINE
           + _mult_fn(semiring.mult, ta, tx) + _add_fn(semiring.monoid.op))
    if merge:
        src += _atomic_fn(semiring.monoid.op, tout)
    return src + _SPMM


# ---------------------------------------------------------------- segmented reduction
_SEG = r"""
// thread per segment, left to right (also for non-commutative operators)
extern "C" __global__ void seg_thread(const TOUT* __restrict__ vals, const i64* __restrict__ starts,
                                      i64 ns, i64 n, TOUT* __restrict__ out)
{
    i64 s = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= ns) return;
    i64 a = starts[s], b = s + 1 < ns ? starts[s + 1] : n;
    TOUT acc = vals[a];
    for (i64 p = a + 1; p < b; ++p) acc = add_op(acc, vals[p]);
    out[s] = acc;
}

// warp per segment (long segments, commutative monoids)
extern "C" __global__ void seg_warp(const TOUT* __restrict__ vals, const i64* __restrict__ starts,
                                    i64 ns, i64 n, TOUT* __restrict__ out)
{
    i64 w = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (w >= ns) return;
    i64 a = starts[w], b = w + 1 < ns ? starts[w + 1] : n;
    bool found = false;
    TOUT acc = (TOUT)0;
    for (i64 p = a + lane; p < b; p += 32) COMBINE(vals[p]);
    warp_combine(acc, found);
    if (lane == 0) out[w] = acc;
}

// 2-D values (segments of rows): thread per (segment, column)
extern "C" __global__ void seg_2d(const TOUT* __restrict__ vals, const i64* __restrict__ starts,
                                  i64 ns, i64 n, i64 ncols, TOUT* __restrict__ out)
{
    i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ns * ncols) return;
    i64 s = t / ncols, col = t - s * ncols;
    i64 a = starts[s], b = s + 1 < ns ? starts[s + 1] : n;
    TOUT acc = vals[a * ncols + col];
    for (i64 p = a + 1; p < b; ++p) acc = add_op(acc, vals[p * ncols + col]);
    out[t] = acc;
}
"""


def segreduce_source(op, t):
    return (_COMMON + _typedefs(TOUT=t) + "#define IS_ANY 0\n#define HAS_TERM 0\n"
            "#define TERM ((TOUT)0)\n" + _COMBINE + _add_fn(op) + _warp_fns(t) + _SEG)


# nonzero split for a commutative monoid: thread t takes SEG_CHUNK values,
# finds the segment of its first one by binary search in `starts`, combines
# each run of one segment and adds it to out[segment] by one atomic (out
# pre-filled with the identity); a segment of any length -- a hub row --
# spreads over many threads
_SEG_ATOMIC = r"""
#define SEG_CHUNK 64
extern "C" __global__ void seg_atomic(const TOUT* __restrict__ vals,
                                      const i64* __restrict__ starts, i64 ns, i64 n,
                                      TOUT* __restrict__ out)
{
    i64 nchunks = (n + SEG_CHUNK - 1) / SEG_CHUNK;
    i64 stride = (i64)gridDim.x * blockDim.x;
    i64 first = starts[0];
    for (i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x; t < nchunks; t += stride) {
        i64 p = t * SEG_CHUNK, end = p + SEG_CHUNK < n ? p + SEG_CHUNK : n;
        if (p < first) p = first;            // values before the first segment belong to none
        if (p >= end) continue;
        i64 lo = 0, hi = ns - 1;             // the last segment starting at or before p
        while (lo < hi) {
            i64 mid = (lo + hi + 1) >> 1;
            if (starts[mid] <= p) lo = mid; else hi = mid - 1;
        }
        i64 s = lo;
        i64 next = s + 1 < ns ? starts[s + 1] : n;
        TOUT acc = vals[p];
        for (++p; p < end; ++p) {
            if (p >= next) {
                atomic_combine(out + s, acc);
                do { ++s; next = s + 1 < ns ? starts[s + 1] : n; } while (p >= next);
                acc = vals[p];
            } else {
                acc = add_op(acc, vals[p]);
            }
        }
        atomic_combine(out + s, acc);
    }
}
"""


def segatomic_source(op, t):
    return (_COMMON + _typedefs(TOUT=t) + _add_fn(op) + _atomic_fn(op, t) + _SEG_ATOMIC)


# ---------------------------------------------------------------- scatter-reduce
# Vector.from_coo with a duplicate operator (min / max / plus): every entry
# combined into its position by one atomic (``atomic_combine``: a native
# atomicMin / atomicMax / atomicAdd, for float min/max a compare-and-swap loop
# over add_op = fmin/fmax) into ``out``, pre-filled with the identity (NaN for
# a float min/max); its presence set on the way.  Grid-stride over the
# entries; no sort.  Types of 4 and 8 bytes only (the backend widens 1- and
# 2-byte ones and bool to 32 bits).
# Warp aggregation: where lanes of a warp hold the same position (connected
# components' hooking sends most labels to a few roots: millions of atomics
# on one address serialise in L2), the lanes of each position are found with
# __match_any_sync, their values combined by shuffles (the operators are
# commutative and associative: integer min/max/wrapping plus, fmin/fmax), and
# only the lowest lane of each group issues the atomic and writes presence.
# A warp whose positions are all distinct skips the shuffles.
_SCATTER = r"""
extern "C" __global__ void scatter_reduce(const i64* __restrict__ idx,
                                          const TOUT* __restrict__ vals, i64 n,
                                          TOUT* __restrict__ out, bool* __restrict__ pres)
{
    i64 stride = (i64)gridDim.x * blockDim.x;
    const unsigned lane = threadIdx.x & 31u;
    for (i64 k = (i64)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
        i64 i = idx[k];
        TOUT v = vals[k];
        unsigned active = __activemask();
        unsigned peers = __match_any_sync(active, (unsigned long long)i);
        if (__any_sync(active, peers != (1u << lane))) {
            TOUT acc = v;
            for (unsigned b = 0; b < 32u; ++b) {
                TOUT o = (TOUT)__shfl_sync(active, (SHT)v, (int)b);
                if (b != lane && ((peers >> b) & 1u)) acc = add_op(acc, o);
            }
            v = acc;
        }
        if ((unsigned)(__ffs(peers) - 1) == lane) {
            atomic_combine(out + i, v);
            pres[i] = true;
        }
    }
}
"""


def scatter_source(op, t):
    """``scatter_reduce`` for BinaryOp ``op`` (min, max or plus) in type ``t``
    (4 or 8 bytes: :func:`atomic_ok`)."""
    return (_COMMON + _typedefs(TOUT=t) + f"typedef {_SHFL[_code(t)]} SHT;\n" + _add_fn(op)
            + _atomic_fn(op, t) + _SCATTER)


# ---------------------------------------------------------------- fills
_FILL = r"""
// out[0:n] = s (cupy.full's fill is an elementwise kernel whose launch costs
// several times this one's on the host)
extern "C" __global__ void fill_all(i64 n, TV s, TV* __restrict__ out)
{
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = s;
}

// a one-entry vector's two arrays: idx[0] = i, vals[0] = s
extern "C" __global__ void one_entry(i64 i, TV s, i64* __restrict__ idx, TV* __restrict__ vals)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) { idx[0] = i; vals[0] = s; }
}

// in place: positions keys[i] (distinct) take a scalar and become present --
// the scalar s (k == 0) or scal[j] for starts[j] <= i < starts[j + 1]
// (k segments: the levels of a traversal, filled at once).  seg holds the
// k + 1 starts (i64) and then the k scalars (one copy from the host)
extern "C" __global__ void fill_at(const i64* __restrict__ keys, i64 m, TV s,
                                   const i64* __restrict__ seg, int k,
                                   TV* __restrict__ vals, bool* __restrict__ pres)
{
    const i64* __restrict__ starts = seg;
    const TV* __restrict__ scal = (const TV*)(seg + k + 1);
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += stride) {
        TV v = s;
        if (k > 0) {
            int lo = 0, hi = k - 1;
            while (lo < hi) {
                int mid = (lo + hi + 1) >> 1;
                if (starts[mid] <= i) lo = mid; else hi = mid - 1;
            }
            v = scal[lo];
        }
        i64 p = keys[i];
        vals[p] = v;
        pres[p] = true;
    }
}

// in place: positions keys[i] take src[i] and become present.  last == 0:
// the keys are distinct.  last != 0: a key may repeat and only its last
// occurrence stores -- the one whose index the last_occurrence kernel left
// in win[p] -- so no two threads write one position
extern "C" __global__ void copy_at(const i64* __restrict__ keys, i64 m,
                                   const TV* __restrict__ src,
                                   const i64* __restrict__ win, int last,
                                   TV* __restrict__ vals, bool* __restrict__ pres)
{
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += stride) {
        i64 p = keys[i];
        if (last && win[p] != i) continue;
        vals[p] = src[i];
        pres[p] = true;
    }
}

// win[keys[i]] = the largest i with that key (win starts at -1 everywhere)
extern "C" __global__ void last_occurrence(const i64* __restrict__ keys, i64 m,
                                           long long* __restrict__ win)
{
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += stride)
        atomicMax(win + keys[i], (long long)i);
}

// fill_at with at most 4 segments whose bounds and scalars come as launch
// arguments -- no copy to the device (a BFS's last 2-4 levels): segment j
// is [st_j, st_{j+1}) with st_0 = 0 and the unused bounds m; its scalar the
// low sizeof(TV) bytes of b_j
extern "C" __global__ void fill_at_few(const i64* __restrict__ keys, i64 m,
                                       i64 st1, i64 st2, i64 st3,
                                       unsigned long long b0, unsigned long long b1,
                                       unsigned long long b2, unsigned long long b3,
                                       TV* __restrict__ vals, bool* __restrict__ pres)
{
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += stride) {
        const unsigned long long bits = i < st1 ? b0 : i < st2 ? b1 : i < st3 ? b2 : b3;
        TV v;
        memcpy(&v, &bits, sizeof(TV));
        i64 p = keys[i];
        vals[p] = v;
        pres[p] = true;
    }
}

// in place: where pres[i] is false, out[i] takes the scalar s
extern "C" __global__ void put_missing(const bool* __restrict__ pres, i64 n, TV s,
                                       TV* __restrict__ out)
{
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        if (!pres[i]) out[i] = s;
}

// in place: where m[i], vals[i] takes the scalar s and pres[i] becomes true
// (m may be pres itself: no __restrict__ on either)
extern "C" __global__ void assign_where(const bool* m, i64 n, TV s,
                                        TV* __restrict__ vals, bool* pres)
{
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        if (m[i]) { vals[i] = s; pres[i] = true; }
}

// in place: where m[i], vals[i] takes src[i] and pres[i] becomes true
// (w<F.S> = F with a dense F: m is F's presence, src its values)
extern "C" __global__ void copy_where(const bool* __restrict__ m, i64 n,
                                      const TV* __restrict__ src,
                                      TV* __restrict__ vals, bool* __restrict__ pres)
{
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        if (m[i]) { vals[i] = src[i]; pres[i] = true; }
}

// out[i] = p[i] ? min(x[i], y[i]) : x[i] (p null: every position; take_max:
// max instead), integers: the output rule's min/max accumulation into a
// full vector and ewise with a full operand (connected components'
// hooking).  out may be x or y itself (each position is read before it is
// written): no __restrict__ on the three
extern "C" __global__ void minmax_into(const TV* x, const TV* y, const bool* __restrict__ p,
                                       i64 n, int take_max, TV* out)
{
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        TV a = x[i];
        if (p == nullptr || p[i]) {
            TV b = y[i];
            a = take_max ? (b > a ? b : a) : (b < a ? b : a);
        }
        out[i] = a;
    }
}
"""


def fill_source(t):
    return _COMMON + _typedefs(TV=t) + _FILL


# ---------------------------------------------------------------- counting
_COUNT = r"""
// number of true entries of a bool array: grid-stride partial counts, a warp
// sum, one atomic per warp
extern "C" __global__ void count_true(const bool* __restrict__ a, i64 n,
                                      unsigned long long* __restrict__ out)
{
    unsigned long long c = 0;
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c += a[i];
    for (int d = 16; d > 0; d >>= 1) c += __shfl_down_sync(FULL_MASK, c, d);
    if ((threadIdx.x & 31) == 0 && c) atomicAdd(out, c);
}
"""


def count_source():
    return _COMMON + _COUNT


# ---------------------------------------------------------------- structure
_ROWS_OF = r"""
// row of every stored entry: the first r with indptr[r + 1] > p
extern "C" __global__ void rows_of(const IP* __restrict__ indptr, i64 nrows, i64 nnz,
                                   i64* __restrict__ out)
{
    i64 p = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= nnz) return;
    i64 lo = 0, hi = nrows;
    while (lo < hi) { i64 mid = (lo + hi) >> 1; if ((i64)indptr[mid + 1] <= p) lo = mid + 1; else hi = mid; }
    out[p] = lo;
}
"""


def rows_of_source(ip):
    return _COMMON + _typedefs(IP=ip) + _ROWS_OF


# ---------------------------------------------------------------- mxm's cost model
# (flops of A B, merge steps of the masked dot products) -- operations/mxm.py's
# ``_choose`` -- in one launch: a warp per row (grid-stride over the rows),
# its lanes over the row's entries of A (the length of B's row at each
# column) and of the mask (the steps of a merge, or of binary searches from
# the shorter list, as the CPU's rowops.dot_costs counts them); per-warp
# sums, two atomics per warp
_DOT_COSTS = r"""
extern "C" __global__ void dot_costs(
    const i64* __restrict__ ip, const IX* __restrict__ ix,
    const i64* __restrict__ bp, const i64* __restrict__ cp,
    const i64* __restrict__ mp, const IXM* __restrict__ mj, i64 nrows, i64 ratio,
    unsigned long long* __restrict__ out)
{
    unsigned long long f = 0, w = 0;
    int lane = threadIdx.x & 31;
    i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
    for (i64 r = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < nrows; r += nwarps) {
        i64 p0 = ip[r], p1 = ip[r + 1];
        for (i64 p = p0 + lane; p < p1; p += 32) {
            i64 k = (i64)ix[p];
            f += (unsigned long long)(bp[k + 1] - bp[k]);
        }
        i64 la = p1 - p0;
        for (i64 t = mp[r] + lane, te = mp[r + 1]; t < te; t += 32) {
            i64 j = (i64)mj[t];
            i64 lb = cp[j + 1] - cp[j];
            i64 sh = la < lb ? la : lb, lg = la < lb ? lb : la;
            // 1 + floor(log2(lg + 1)), exactly (a floating log2 may land
            // below an integer at a power of two)
            if (sh * ratio < lg) w += (unsigned long long)(sh * (64 - __clzll(lg + 1)));
            else w += (unsigned long long)(la + lb);
        }
    }
    for (int d = 16; d > 0; d >>= 1) {
        f += __shfl_down_sync(FULL_MASK, f, d);
        w += __shfl_down_sync(FULL_MASK, w, d);
    }
    if (lane == 0) {
        if (f) atomicAdd(out, f);
        if (w) atomicAdd(out + 1, w);
    }
}
"""


_LAST_BLOCK = r"""
// The end of a one-launch fold's first stage: called by every thread of a
// block after its thread 0 wrote the block's partial; true in the block that
// finishes last (the finished blocks' counter ``done`` says so), whose
// threads may then read every block's partial (after the fence); that block
// folds them and puts the counter back to 0 for the next launch.
__device__ __forceinline__ bool last_block_done(unsigned int* done)
{
    __shared__ int is_last;
    if (threadIdx.x == 0) {
        __threadfence();
        is_last = atomicAdd(done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last) return false;
    __threadfence();
    return true;
}
"""

# ---------------------------------------------------------------- whole-array reduction
# ``reduce`` to one value in one launch (CuPy's sum costs several times a
# launch in host time, and its other monoids took passes of segments): every
# thread folds its grid-stride share (only present positions when ``pres`` is
# given), a warp and then the block combine in a fixed order, each block
# writes its partial, and the last block to finish (a counter, reset by it)
# folds the partials in block order -- no atomics on values, so the result
# is the same on every run.  ``found`` flags stand for the identity (float
# min/max need NaN handling an identity value would not give).  Results:
# out_v[0] and out_f[0] (0: nothing present; the caller takes the identity).
_REDUCE_ALL = r"""
__device__ __forceinline__ void block_combine(TOUT& acc, bool& found, TOUT* sv, int* sf)
{
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    warp_combine(acc, found);
    if (lane == 0) { sv[w] = acc; sf[w] = (int)found; }
    __syncthreads();
    if (w == 0) {
        found = lane < (int)(blockDim.x >> 5) && sf[lane];
        if (found) acc = sv[lane];
        warp_combine(acc, found);
    }
    __syncthreads();
}

// scratch (8-byte aligned, kept between launches): the result's value (8
// bytes), whether it has one (int), the finished blocks' counter (back to 0
// when the launch ends), then one partial value (8 bytes each) and one flag
// (int) per block of the launch; pres null: every position present
extern "C" __global__ void reduce_all(const TOUT* __restrict__ v, const bool* __restrict__ pres,
                                      i64 n, unsigned char* scratch)
{
    TOUT* out_v = (TOUT*)scratch;
    int* out_f = (int*)(scratch + 8);
    unsigned int* done = (unsigned int*)(scratch + 12);
    TOUT* part_v = (TOUT*)(scratch + 16);
    int* part_f = (int*)(scratch + 16 + 8 * (i64)gridDim.x);
    const bool has_pres = pres != nullptr;
    __shared__ TOUT sv[32];
    __shared__ int sf[32];
    TOUT acc = (TOUT)0;
    bool found = false;
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 k = (i64)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
        if (has_pres && !pres[k]) continue;
        TOUT x = v[k];
        if (found) acc = add_op(acc, x); else { acc = x; found = true; }
    }
    block_combine(acc, found, sv, sf);
    if (threadIdx.x == 0) {
        part_v[blockIdx.x] = acc;
        part_f[blockIdx.x] = (int)found;
    }
    if (!last_block_done(done)) return;
    acc = (TOUT)0;
    found = false;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
        if (((volatile int*)part_f)[b]) {
            TOUT x = ((volatile TOUT*)part_v)[b];
            if (found) acc = add_op(acc, x); else { acc = x; found = true; }
        }
    }
    block_combine(acc, found, sv, sf);
    if (threadIdx.x == 0) {
        out_v[0] = acc;
        out_f[0] = (int)found;
        *done = 0u;
    }
}
"""


def reduce_all_source(op, t):
    return _COMMON + _typedefs(TOUT=t) + _add_fn(op) + _warp_fns(t) + _LAST_BLOCK + _REDUCE_ALL


# the minimum and maximum of an integer array as i64 in one launch, and
# whether two arrays of one integer or bool type differ anywhere: the same
# fold as reduce_all (each block folds its share, the last block to finish
# folds the blocks' partials), in a scratch buffer kept between launches --
# minmax_all: out[0] = min, out[1] = max (i64), the counter at byte 16,
# block b's partials at 24 + 16 b; diff_any: out (int) at 0, the counter at
# 16, one int per block from 24.  The last block puts the counter back to 0.
_FOLDS = r"""
#define I64_HI 0x7fffffffffffffffLL
#define I64_LO (-0x7fffffffffffffffLL - 1LL)

__device__ __forceinline__ void warp_minmax(i64& lo, i64& hi)
{
    for (int d = 16; d > 0; d >>= 1) {
        i64 a = __shfl_down_sync(FULL_MASK, lo, d), b = __shfl_down_sync(FULL_MASK, hi, d);
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
}

__device__ __forceinline__ void fold_minmax(i64& lo, i64& hi, i64* slo, i64* shi)
{
    warp_minmax(lo, hi);
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    if (lane == 0) { slo[w] = lo; shi[w] = hi; }
    __syncthreads();
    if (w == 0) {
        bool has = lane < (int)(blockDim.x >> 5);
        lo = has ? slo[lane] : I64_HI;
        hi = has ? shi[lane] : I64_LO;
        warp_minmax(lo, hi);
    }
    __syncthreads();
}

extern "C" __global__ void minmax_all(const TIN* __restrict__ a, i64 n, unsigned char* scratch)
{
    i64* out = (i64*)scratch;
    unsigned int* done = (unsigned int*)(scratch + 16);
    i64* part = (i64*)(scratch + 24);
    __shared__ i64 slo[32], shi[32];
    i64 lo = I64_HI, hi = I64_LO;
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 k = (i64)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
        i64 x = (i64)a[k];
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    fold_minmax(lo, hi, slo, shi);
    if (threadIdx.x == 0) {
        part[2 * (i64)blockIdx.x] = lo;
        part[2 * (i64)blockIdx.x + 1] = hi;
    }
    if (!last_block_done(done)) return;
    lo = I64_HI;
    hi = I64_LO;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
        i64 x = ((volatile i64*)part)[2 * (i64)b], y = ((volatile i64*)part)[2 * (i64)b + 1];
        lo = x < lo ? x : lo;
        hi = y > hi ? y : hi;
    }
    fold_minmax(lo, hi, slo, shi);
    if (threadIdx.x == 0) { out[0] = lo; out[1] = hi; *done = 0u; }
}

extern "C" __global__ void diff_any(const TIN* __restrict__ a, const TIN* __restrict__ b,
                                    i64 n, unsigned char* scratch)
{
    int* out = (int*)scratch;
    unsigned int* done = (unsigned int*)(scratch + 16);
    int* part = (int*)(scratch + 24);
    int d = 0;
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 k = (i64)blockIdx.x * blockDim.x + threadIdx.x; k < n && !d; k += stride)
        d = a[k] != b[k];
    d = __syncthreads_or(d);
    if (threadIdx.x == 0) part[blockIdx.x] = d;
    if (!last_block_done(done)) return;
    int e = 0;
    for (unsigned k = threadIdx.x; k < gridDim.x; k += blockDim.x) e |= ((volatile int*)part)[k];
    e = __syncthreads_or(e);
    if (threadIdx.x == 0) { out[0] = e; *done = 0u; }
}
"""


# out[i] = src[idx[i]] with the range check in the same pass: an index
# outside [0, n) sets *bad (left as it was by every other thread; the host
# reads it after the launch and puts it back to 0 when it was set)
_TAKE_CHECKED = r"""
extern "C" __global__ void take_checked(const TV* __restrict__ src, i64 n,
                                        const TI* __restrict__ idx, i64 m,
                                        TV* __restrict__ out, int* bad)
{
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += stride) {
        i64 j = (i64)idx[i];
        if (j < 0 || j >= n) { *bad = 1; continue; }
        out[i] = src[j];
    }
}
"""


def take_checked_source(tv, ti):
    return _COMMON + _typedefs(TV=tv, TI=ti) + _TAKE_CHECKED


def folds_source(t):
    """``minmax_all`` and ``diff_any`` for arrays of the integer or bool
    type ``t``."""
    return _COMMON + _typedefs(TIN=t) + _LAST_BLOCK + _FOLDS


def reduce_all_ok(t):
    """The types ``reduce_all`` takes (those a warp shuffle moves)."""
    return _code(t) in _SHFL


# the count of each value of an index array, by 32-bit atomics (no range
# checks and no reads to the host: the values are a CSR's column indices)
_COUNT_VALUES = r"""
extern "C" __global__ void count_values(const IX* __restrict__ ix, i64 nnz,
                                        unsigned int* __restrict__ counts)
{
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 p = (i64)blockIdx.x * blockDim.x + threadIdx.x; p < nnz; p += stride)
        atomicAdd(counts + (i64)ix[p], 1u);
}
"""


# the kept entries of a CSR matrix moved to their places: cum[p] (the
# inclusive scan of keep, shifted: cum[0] = 0) is entry p's new position
_COMPACT_KEPT = r"""
extern "C" __global__ void compact_kept(const bool* __restrict__ keep,
                                        const i64* __restrict__ cum, i64 nnz,
                                        const IX* __restrict__ ix, const TV* __restrict__ v,
                                        int has_v, IX* __restrict__ out_ix,
                                        TV* __restrict__ out_v)
{
    i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 p = (i64)blockIdx.x * blockDim.x + threadIdx.x; p < nnz; p += stride) {
        if (!keep[p]) continue;
        i64 q = cum[p];
        out_ix[q] = ix[p];
        if (has_v) out_v[q] = v[p];
    }
}
"""


def compact_kept_source(ix, tv):
    return _COMMON + _typedefs(IX=ix, TV=tv) + _COMPACT_KEPT


def count_values_source(ix):
    return _COMMON + _typedefs(IX=ix) + _COUNT_VALUES


def dot_costs_source(ix, ixm):
    return _COMMON + _typedefs(IX=ix, IXM=ixm) + _DOT_COSTS


# ---------------------------------------------------------------- user elementwise ops
def elementwise_body(op, out_dtype, index=False):
    """Body of a ``cupy.ElementwiseKernel`` for a user-defined unary, binary or
    index-unary operator (parameters x, y, thunk, and for index-unary ones
    gb_i, gb_j -- CuPy reserves ``i`` -- seen by the expression as i, j;
    output z)."""
    if op.cexpr is None:
        raise MissingKernel(f"user-defined operator {op.name!r} has no CUDA expression "
                            "(cuda_expr=...), so it cannot run on a GPU object; give one or "
                            "move the objects with .to('cpu')")
    z = f"z = ({ctype(out_dtype)})({op.cexpr});"
    if index:
        return "{ const long long i = gb_i; const long long j = gb_j; (void)i; (void)j; " + z + " }"
    return z
