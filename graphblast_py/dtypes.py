"""Supported element types and the casting rules.

Types: ``bool``, ``int8``..``int64``, ``uint8``..``uint64``, ``float32``,
``float64`` (python-graphblas names ``BOOL``, ``INT32``, ``FP64`` ... are
accepted too).  Complex types are rejected with :class:`DomainMismatch`.

Casting (documented in docs/concepts.md):

* an operator's inputs are cast to its domain: the NumPy result type of the two
  operand types (``int32`` with ``float32`` gives ``float64``, as in NumPy);
  arithmetic operators (plus, minus, times, div) on two ``bool`` operands
  compute in ``int64`` so that ``plus_pair`` counts;
* comparison operators return ``bool``; positional ones (``firsti`` ...) ``int64``;
* a result written into an existing ``out`` is cast to ``out.dtype`` with C
  semantics (NumPy ``casting="unsafe"``: float to int truncates toward zero).
  With ``accum``, the accumulator sees the result in its own type first
  (``min(False, -1)`` is ``-1``, stored as ``True``).
* a semiring's type is its monoid's type over the multiply's result type;
  every product is cast to it before it is added.
* a scalar bound in ``apply`` (``left=``/``right=``) or given to ``select``
  without a dtype is typed like NumPy: Python int -> int64, float -> float64,
  bool -> bool; ``ewise_union``'s defaults are typed as their operand.

Differences from python-graphblas / SuiteSparse:GraphBLAS (checked by
tests/test_vs_graphblas.py; everything else there agrees, dtype included):

* arithmetic on two bools (binary plus, minus, times; the plus and times
  monoids) computes in int64, so ``reduce(plus)`` of a bool matrix counts.
  SuiteSparse maps them to lor/lxor/land and returns bool, and
  python-graphblas rejects ``plus_times``/``min_plus``/``max_times`` and
  ``reduce(plus)`` on bool.  (``plus_pair`` on bool gives int64 in both.)
* positional operators and semirings (``firsti`` ... ``any_secondi``) always
  give int64; SuiteSparse gives int32 for int32 inputs.
* logical operators (lor, land, lxor, lxnor, unary lnot) always give bool;
  SuiteSparse keeps a numeric input type (1/0 values).
* ``ewise_union(..., left_default, right_default)`` with Python int defaults
  on int32 operands stays int32; python-graphblas types the defaults as
  int64 and returns int64.
* ``pair`` keeps the input type (``any_pair`` on bool gives bool);
  python-graphblas gives int64 for ``any_pair`` on bool.
* ``any`` (monoid or binary) returns one of the candidate values; which one
  may differ between the libraries (and between push and pull).
"""
import numpy as np

from .errors import DomainMismatch

BOOL = np.dtype(bool)
INT8, INT16, INT32, INT64 = (np.dtype(t) for t in ("int8", "int16", "int32", "int64"))
UINT8, UINT16, UINT32, UINT64 = (np.dtype(t) for t in ("uint8", "uint16", "uint32", "uint64"))
FP32, FP64 = np.dtype("float32"), np.dtype("float64")

ALL = (BOOL, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, FP32, FP64)
_SUPPORTED = frozenset(ALL)
_ALIASES = {
    "bool": BOOL, "int8": INT8, "int16": INT16, "int32": INT32, "int64": INT64,
    "uint8": UINT8, "uint16": UINT16, "uint32": UINT32, "uint64": UINT64,
    "fp32": FP32, "fp64": FP64, "float32": FP32, "float64": FP64,
    "float": FP64, "int": INT64,
}
_cache = {}


def lookup(dtype):
    """Return the ``numpy.dtype`` for ``dtype`` or raise :class:`DomainMismatch`."""
    try:
        return _cache[dtype]
    except (KeyError, TypeError):
        pass
    key = dtype
    if isinstance(dtype, str):
        found = _ALIASES.get(dtype.lower())
        if found is None:
            raise DomainMismatch(f"unknown dtype {dtype!r}; expected one of "
                                 f"{sorted(_ALIASES)}")
        dt = found
    else:
        try:
            dt = np.dtype(dtype)
        except TypeError:
            raise DomainMismatch(f"cannot interpret {dtype!r} as a dtype") from None
    if dt not in _SUPPORTED:
        raise DomainMismatch(f"dtype {dt} is not supported; supported: bool, int8..int64, "
                             "uint8..uint64, float32, float64")
    try:
        _cache[key] = dt
    except TypeError:
        pass
    return dt


def of_value(x):
    """Dtype to use for a Python/NumPy scalar given without a dtype."""
    if isinstance(x, (bool, np.bool_)):
        return BOOL
    if isinstance(x, (int, np.integer)):
        return lookup(np.asarray(x).dtype) if isinstance(x, np.integer) else INT64
    if isinstance(x, (float, np.floating)):
        return FP64 if isinstance(x, float) else lookup(np.asarray(x).dtype)
    raise DomainMismatch(f"scalar {x!r} of type {type(x).__name__} is not a supported value "
                         "(bool, int or float)")


def cast_scalar(x, dt, what="value"):
    """A bool/int/float scalar (Python, NumPy or a 0-d array) as a NumPy
    scalar of ``dt`` with C casting (-1 as uint8 is 255, 2.7 as int32 is 2);
    anything else raises InvalidValue."""
    c = x.__class__
    if (c is float and dt is FP64) or (c is bool and dt is BOOL) or (
            c is int and dt is INT64 and -(1 << 63) <= x < (1 << 63)):
        # the same value the cast below gives, without the array round trip
        # (SSSP passes math.inf for float64 operands every round)
        return dt.type(x)
    from .errors import InvalidValue
    if hasattr(x, "item") and getattr(x, "shape", ()) == ():
        x = x.item()
    if not isinstance(x, (bool, int, float, np.bool_, np.integer, np.floating)):
        raise InvalidValue(f"{what}: expected a bool, int or float scalar, got {x!r}")
    with np.errstate(all="ignore"):
        return np.asarray(x).astype(dt, casting="unsafe")[()]


def result_type(a, b):
    """NumPy promotion restricted to the supported types (uint64 with a signed
    type gives float64, as in NumPy)."""
    return np.result_type(a, b)


def min_value(dt):
    if dt == BOOL:
        return False
    if dt.kind == "f":
        return -np.inf
    return np.iinfo(dt).min


def max_value(dt):
    if dt == BOOL:
        return True
    if dt.kind == "f":
        return np.inf
    return np.iinfo(dt).max


def ctype(dt):
    """C type name used in generated CUDA kernels."""
    return {
        "b": "bool", "i1": "signed char", "i2": "short", "i4": "int", "i8": "long long",
        "u1": "unsigned char", "u2": "unsigned short", "u4": "unsigned int",
        "u8": "unsigned long long", "f4": "float", "f8": "double",
    }[dt.kind + (str(dt.itemsize) if dt.kind != "b" else "")]


def index_dtype(n):
    """int32 when every index (and count) below ``n`` fits, else int64."""
    return INT32 if n < 2**31 - 1 else INT64
