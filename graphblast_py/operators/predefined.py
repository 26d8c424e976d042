"""Predefined operators with SuiteSparse / python-graphblas names.

``gb.unary``, ``gb.binary``, ``gb.indexunary``, ``gb.monoid`` and
``gb.semiring`` are namespaces; ``semiring.<monoid>_<binary>`` for any
predefined monoid and binary operator is built on first use and cached
(e.g. ``semiring.max_secondj``).
"""
import numpy as np

from .. import dtypes
from ..errors import InvalidValue
from .core import (ARITH, BOOL, INT64, SAME, BinaryOp, IndexUnaryOp, Monoid,
                   Semiring, UnaryOp)

class Namespace:
    """Attribute access to a family of operators (``gb.binary.plus``)."""

    def __init__(self, kind, factory=None):
        self._kind, self._ops, self._factory = kind, {}, factory

    def _add(self, op, *aliases):
        self._ops[op.name] = op
        for a in aliases:
            self._ops[a] = op
        return op

    def __getattr__(self, name):
        # (called only for a name not yet in the instance dict: each
        # operator found is kept there, so the next ``gb.binary.lt`` of an
        # algorithm's loop is a plain attribute read, not this call;
        # :func:`publish` drops the kept one when it replaces an operator)
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            op = self._ops[name]
            self.__dict__[name] = op
            return op
        except KeyError:
            pass
        if self._factory is not None:
            op = self._factory(name)
            if op is not None:
                self._ops[name] = op
                self.__dict__[name] = op
                return op
        raise AttributeError(f"no predefined {self._kind} named {name!r}; known: "
                             f"{', '.join(sorted(self._ops))}")

    def __getitem__(self, name):
        return getattr(self, name)

    def __contains__(self, name):
        try:
            getattr(self, name)
            return True
        except AttributeError:
            return False

    def __dir__(self):
        return sorted(self._ops)

    def __iter__(self):
        return iter(sorted(self._ops))

    def __repr__(self):
        return f"<graphblast_py {self._kind} namespace: {len(self._ops)} operators>"


unary = Namespace("unary operator")
binary = Namespace("binary operator")
indexunary = Namespace("index-unary operator")
monoid = Namespace("monoid")


def _semiring_factory(name):
    add, _, mult = name.partition("_")
    if add in monoid._ops and mult and mult in binary:
        return Semiring(monoid[add], binary[mult], name=name)
    return None


semiring = Namespace("semiring", _semiring_factory)

# ---------------------------------------------------------------- the definitions
# Every predefined operator is defined once, here: its name, its scalar form in
# Python (``py``: compiled by numba for the CPU loop kernels, which
# backend/cpu/kernels.py embeds -- tests/test_operators_consistency.py checks
# that file is up to date) and in C (``c``: compiled into the CUDA kernels),
# its array form over ``xp`` (NumPy or CuPy: the vectorized path of both
# backends; ``ufunc`` names the ufunc whose ``reduceat`` reduces with it),
# its result-type rule and, for monoids, identity and terminal.
# The scalar forms compute in the operator's compute type (see
# docs/operations.md); ``kernel=False`` marks the operators whose integer
# meaning (division by zero, negative powers) only the array form has: every
# backend runs those vectorized.
#
# min/max follow fmin/fmax (IEEE 754 minNum/maxNum, as SuiteSparse's GrB_MIN/
# GrB_MAX): a NaN operand loses, min(2, NaN) = 2, min(NaN, NaN) = NaN.
_FMIN = ("x if x < y else (y if y == y else x)", "(x < y ? x : (y == y ? y : x))")
_FMAX = ("x if x > y else (y if y == y else x)", "(x > y ? x : (y == y ? y : x))")


def _u(name, py, c, vec, result=SAME, kernel=True):
    return unary._add(UnaryOp(name, pyexpr=py, cexpr=c, vec=vec, result=result, kernel=kernel))


_u("identity", "x", "x", lambda xp, x: x)
_u("ainv", "-x", "-x", lambda xp, x: xp.negative(x) if x.dtype != bool else x)
_u("abs", "abs(x)", "(x < 0 ? -x : x)",
   lambda xp, x: xp.abs(x) if x.dtype.kind not in "ub" else x)
_u("minv", "1 / x", "1 / x", lambda xp, x: xp.reciprocal(x) if x.dtype.kind == "f"
   else _int_div(xp, xp.ones_like(x), x), kernel=False)
_u("lnot", "not x", "!x", lambda xp, x: xp.logical_not(x), result=BOOL)
_u("one", "1", "1", lambda xp, x: xp.ones_like(x))
for _name in ("sqrt", "exp", "log", "floor", "ceil", "sin", "cos", "tanh", "log2", "exp2",
              "log10"):
    _u(_name, f"np.{_name}(np.float64(x))", f"{_name}((double)x)",
       (lambda f: lambda xp, x: getattr(xp, f)(x))(_name))
# round half to even, as NumPy does (C's round() would round half away from zero)
_u("round", "np.rint(np.float64(x))", "rint((double)x)", lambda xp, x: xp.round(x))


def _int_div(xp, x, y):
    """GraphBLAS integer division: truncate toward zero; x/0 gives 0 (x == 0),
    the type's max (x > 0) or min (x < 0) -- SuiteSparse's convention."""
    dt = xp.result_type(x, y)
    x = xp.asarray(x, dtype=dt)
    y = xp.asarray(y, dtype=dt)
    zero = y == 0
    ysafe = xp.where(zero, 1, y)
    if dt.kind == "u":
        q = x // ysafe
    else:
        # truncating division in int64, then the C cast back (wraps: min / -1 = min);
        # a float detour would saturate on the GPU and give max there
        xw, yw = (x, ysafe) if dt.itemsize == 8 else (x.astype(np.int64), ysafe.astype(np.int64))
        q = xp.where((xw % yw != 0) & ((xw < 0) != (yw < 0)), xw // yw + 1, xw // yw).astype(dt)
    if dt.kind == "b":
        return q
    # the type's own scalars: a Python int 2**64 - 1 is an int64 overflow to where()
    info = np.iinfo(dt)
    hi, lo, z = dt.type(info.max), dt.type(info.min), dt.type(0)
    return xp.where(zero, xp.where(x == 0, z, xp.where(x > 0, hi, lo)), q).astype(dt)


def _div(xp, x, y):
    dt = xp.result_type(x, y)
    if dt.kind == "f":
        return xp.true_divide(x, y)
    return _int_div(xp, x, y)


def _pow(xp, x, y):
    """x ** y; for integers a negative power is 1 / x ** -y truncated toward
    zero like div: 1 for x == 1, +-1 for x == -1, 0 for |x| > 1, and for
    x == 0 the type's max (1 / 0); a non-negative power wraps like NumPy."""
    dt = xp.result_type(x, y)
    if dt.kind != "i":
        return xp.power(x, y)
    x = xp.asarray(x, dtype=dt)
    y = xp.asarray(y, dtype=dt)
    neg = y < 0
    r = xp.power(x, xp.where(neg, 0, y).astype(dt))
    one, z = dt.type(1), dt.type(0)
    inv = xp.where(x == 1, one, xp.where(x == -1, xp.where(y % 2 == 0, one, -one),
                                         xp.where(x == 0, dt.type(np.iinfo(dt).max), z)))
    return xp.where(neg, inv, r).astype(dt)


def _np(f):
    return lambda xp, x, y: getattr(xp, f)(x, y)


_next_opcode = iter(range(1 << 16))


def _b(name, py, c, vec, result=SAME, reads=(True, True), positional=None, comm=False,
       kernel=True, ufunc=None):
    """A predefined BinaryOp; the loop kernels number the ones they run
    (``opcode``) in the order of definition.  ``ufunc``: the NumPy/CuPy ufunc
    whose ``reduceat`` is the array form of the operator's reductions (and
    ``vec`` when none is given)."""
    op = BinaryOp(name, pyexpr=py, cexpr=c, vec=vec if vec is not None or ufunc is None
                  else _np(ufunc), result=result, opcode=next(_next_opcode) if kernel else -1,
                  reads=reads, positional=positional, commutative=comm, kernel=kernel)
    op.ufunc = ufunc
    return binary._add(op)


_b("times", "x * y", "x * y", None, ARITH, comm=True, ufunc="multiply")
_b("plus", "x + y", "x + y", None, ARITH, comm=True, ufunc="add")
_b("minus", "x - y", "x - y", _np("subtract"), ARITH)
_b("min", *_FMIN, lambda xp, x, y: xp.fmin(x, y) if xp.result_type(x, y).kind == "f"
   else xp.minimum(x, y), comm=True, ufunc="fmin")
_b("max", *_FMAX, lambda xp, x, y: xp.fmax(x, y) if xp.result_type(x, y).kind == "f"
   else xp.maximum(x, y), comm=True, ufunc="fmax")
_b("first", "x", "x", lambda xp, x, y: x, reads=(True, False))
_b("second", "y", "y", lambda xp, x, y: y, reads=(False, True))
_b("pair", "1", "1", lambda xp, x, y: None, reads=(False, False), comm=True)
binary._ops["oneb"] = binary.pair
_b("land", "bool(x) and bool(y)", "((bool)x && (bool)y)", None, BOOL, comm=True,
   ufunc="logical_and")
_b("lor", "bool(x) or bool(y)", "((bool)x || (bool)y)", None, BOOL, comm=True,
   ufunc="logical_or")
_b("lxor", "bool(x) != bool(y)", "((bool)x != (bool)y)", None, BOOL, comm=True,
   ufunc="logical_xor")
# positional: the row of the first operand (i), the inner index (k), the
# column of the second operand (j) of the product A(i,k) (x) B(k,j)
for _name, _ix in (("firsti", "i"), ("firstj", "k"), ("secondi", "k"), ("secondj", "j")):
    _b(_name, _ix, _ix, None, INT64, reads=(False, False), positional=_name)
_b("any", "x", "x", lambda xp, x, y: x, reads=(True, False), comm=True)
_b("rminus", "y - x", "y - x", lambda xp, x, y: xp.subtract(y, x), ARITH)
for _name, _f, _c in (("eq", "equal", "=="), ("ne", "not_equal", "!="), ("lt", "less", "<"),
                      ("le", "less_equal", "<="), ("gt", "greater", ">"),
                      ("ge", "greater_equal", ">=")):
    _b(_name, f"x {_c} y", f"(x {_c} y)", _np(_f), BOOL, comm=_name in ("eq", "ne"))
_b("lxnor", "bool(x) == bool(y)", "((bool)x == (bool)y)",
   lambda xp, x, y: xp.logical_not(xp.logical_xor(x, y)), BOOL, comm=True)
_b("div", "x / y", "x / y", _div, ARITH, kernel=False)
binary._ops["truediv"] = binary.div
_b("pow", "x ** y", "pow(x, y)", _pow, kernel=False)

# ---------------------------------------------------------------- monoids
_next_add = iter(range(1 << 16))


def _m(op, identity, terminal, name=None):
    """A predefined Monoid; the loop kernels number them (``opcode``) in the
    order of definition."""
    m = Monoid(op, identity, terminal, name=name, opcode=next(_next_add))
    return monoid._add(m, *(() if name is None else (op.name,)))


_m(binary.plus, 0, None)
_m(binary.times, 1, lambda t: 0 if t.kind in "iu" else None)
_m(binary.min, dtypes.max_value, dtypes.min_value)
_m(binary.max, dtypes.min_value, dtypes.max_value)
_m(binary.lor, False, True)
_m(binary.land, True, False)
_m(binary.lxor, False, None)
_m(binary.any, 0, "any")
_m(binary.lxnor, True, None, name="eq")

# ---------------------------------------------------------------- semirings
for _name in ("plus_times", "plus_plus", "plus_min", "plus_max", "plus_first", "plus_second",
              "min_plus", "max_plus", "min_max", "max_min", "min_times", "max_times",
              "min_first", "min_second", "max_first", "max_second", "min_min", "max_max",
              "lor_land", "land_lor", "lxor_land", "eq_lor", "any_pair", "plus_pair",
              "any_first", "any_second", "any_secondi", "any_firsti", "any_secondj",
              "any_firstj", "min_secondi", "min_firsti", "min_secondj", "min_firstj",
              "max_secondi", "max_firsti", "any_lor", "any_land", "lor_pair", "min_pair",
              "max_pair", "plus_land", "times_times", "any_times", "any_plus"):
    getattr(semiring, _name)


# ---------------------------------------------------------------- index-unary
def _i(name, vec, cexpr, result, reads_x=False):
    return indexunary._add(IndexUnaryOp(name, vec=vec, cexpr=cexpr, result=result,
                                        reads_x=reads_x))


_i("rowindex", lambda xp, x, i, j, t: i + t, "i + thunk", INT64)
_i("colindex", lambda xp, x, i, j, t: j + t, "j + thunk", INT64)
_i("diagindex", lambda xp, x, i, j, t: j - (i + t), "j - (i + thunk)", INT64)   # GrB spec
_i("tril", lambda xp, x, i, j, t: j <= i + t, "(j <= i + thunk)", BOOL)
_i("triu", lambda xp, x, i, j, t: j >= i + t, "(j >= i + thunk)", BOOL)
_i("diag", lambda xp, x, i, j, t: j == i + t, "(j == i + thunk)", BOOL)
_i("offdiag", lambda xp, x, i, j, t: j != i + t, "(j != i + thunk)", BOOL)
_i("rowle", lambda xp, x, i, j, t: i <= t, "(i <= thunk)", BOOL)
_i("rowgt", lambda xp, x, i, j, t: i > t, "(i > thunk)", BOOL)
_i("colle", lambda xp, x, i, j, t: j <= t, "(j <= thunk)", BOOL)
_i("colgt", lambda xp, x, i, j, t: j > t, "(j > thunk)", BOOL)
for _name, _f, _c in (("valueeq", "equal", "=="), ("valuene", "not_equal", "!="),
                      ("valuelt", "less", "<"), ("valuele", "less_equal", "<="),
                      ("valuegt", "greater", ">"), ("valuege", "greater_equal", ">=")):
    _i(_name, (lambda f: lambda xp, x, i, j, t: getattr(xp, f)(x, t))(_f), f"(x {_c} thunk)",
       BOOL, reads_x=True)

SELECT_STRINGS = {"tril": "tril", "triu": "triu", "diag": "diag", "offdiag": "offdiag",
                  "==": "valueeq", "!=": "valuene", "<": "valuelt", "<=": "valuele",
                  ">": "valuegt", ">=": "valuege", "row<=": "rowle", "row>": "rowgt",
                  "col<=": "colle", "col>": "colgt"}


_NAMESPACES = {"unary": unary, "binary": binary, "monoid": monoid, "semiring": semiring,
               "indexunary": indexunary}


def publish(kind, op):
    """Add a user-defined operator to its namespace under its name (see
    ``register``): refused for a predefined name, replacing an earlier
    user-defined operator of that name."""
    ns = _NAMESPACES[kind]
    old = ns._ops.get(op.name)
    if old is None and ns._factory is not None:
        old = ns._factory(op.name)
    if old is not None and not old.is_user:
        raise InvalidValue(f"cannot register {ns._kind} {op.name!r}: a predefined {ns._kind} "
                           f"has that name; choose another name")
    ns._ops[op.name] = op
    ns.__dict__.pop(op.name, None)      # (an earlier one kept by __getattr__)


def lookup(kind, op):
    """Accept an operator object or the name of a predefined one."""
    ns = _NAMESPACES[kind]
    if isinstance(op, str):
        name = SELECT_STRINGS.get(op, op) if kind == "indexunary" else op
        try:
            return getattr(ns, name)
        except AttributeError as e:
            raise InvalidValue(str(e)) from None
    return op
