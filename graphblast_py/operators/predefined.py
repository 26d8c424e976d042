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

# Opcodes understood by the loop kernels (numba on CPU, generated CUDA on GPU).
# Keep in sync with backend/cpu/kernels.py and backend/gpu/kernels.py.
MULT_OPCODES = {
    "times": 0, "plus": 1, "minus": 2, "min": 3, "max": 4, "first": 5, "second": 6,
    "pair": 7, "land": 8, "lor": 9, "lxor": 10, "firsti": 11, "firstj": 12,
    "secondi": 13, "secondj": 14, "any": 15, "rminus": 16, "eq": 17, "ne": 18,
}
ADD_OPCODES = {"plus": 0, "times": 1, "min": 2, "max": 3, "lor": 4, "land": 5,
               "lxor": 6, "any": 7, "eq": 8}


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
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._ops[name]
        except KeyError:
            pass
        if self._factory is not None:
            op = self._factory(name)
            if op is not None:
                self._ops[name] = op
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

# ---------------------------------------------------------------- unary
_u = unary._add
_u(UnaryOp("identity", vec=lambda xp, x: x, cexpr="x", opcode=0))
_u(UnaryOp("ainv", vec=lambda xp, x: xp.negative(x) if x.dtype != bool else x, cexpr="-x"))
_u(UnaryOp("abs", vec=lambda xp, x: xp.abs(x) if x.dtype.kind not in "ub" else x,
           cexpr="(x < 0 ? -x : x)"))
_u(UnaryOp("minv", vec=lambda xp, x: xp.reciprocal(x) if x.dtype.kind == "f"
           else _int_div(xp, xp.ones_like(x), x), cexpr="1 / x"))
_u(UnaryOp("lnot", vec=lambda xp, x: xp.logical_not(x), cexpr="!x", result=BOOL))
_u(UnaryOp("one", vec=lambda xp, x: xp.ones_like(x), cexpr="1"))
for _name, _c in (("sqrt", "sqrt"), ("exp", "exp"), ("log", "log"), ("floor", "floor"),
                  ("ceil", "ceil"), ("sin", "sin"), ("cos", "cos"), ("tanh", "tanh"),
                  ("log2", "log2"), ("exp2", "exp2"), ("log10", "log10")):
    _u(UnaryOp(_name, vec=(lambda f: lambda xp, x: getattr(xp, f)(x))(_name),
               cexpr=f"{_c}((double)x)"))
_u(UnaryOp("round", vec=lambda xp, x: xp.round(x), cexpr="round((double)x)"))


# ---------------------------------------------------------------- binary
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
    info = np.iinfo(dt)
    return xp.where(zero, xp.where(x == 0, 0, xp.where(x > 0, info.max, info.min)), q).astype(dt)


def _div(xp, x, y):
    dt = xp.result_type(x, y)
    if dt.kind == "f":
        return xp.true_divide(x, y)
    return _int_div(xp, x, y)


def _np(f):
    return lambda xp, x, y: getattr(xp, f)(x, y)


def _b(name, vec, cexpr, result=SAME, reads=(True, True), positional=None, comm=False):
    return binary._add(BinaryOp(name, vec=vec, cexpr=cexpr, result=result,
                                opcode=MULT_OPCODES.get(name, -1), reads=reads,
                                positional=positional, commutative=comm))


_b("plus", _np("add"), "x + y", ARITH, comm=True)
_b("minus", _np("subtract"), "x - y", ARITH)
_b("rminus", lambda xp, x, y: xp.subtract(y, x), "y - x", ARITH)
_b("times", _np("multiply"), "x * y", ARITH, comm=True)
_b("div", _div, "x / y", ARITH)
binary._ops["truediv"] = binary.div
# min/max follow fmin/fmax (SuiteSparse): a NaN operand loses, min(2, NaN) = 2 -- the
# same rule in the numba kernels (backend/cpu/kernels.py) and the CUDA table
# (backend/gpu/kernels.py _EXPR); tests/test_direction.py checks every path.
_b("min", lambda xp, x, y: xp.fmin(x, y) if xp.result_type(x, y).kind == "f" else xp.minimum(x, y),
   "(x < y ? x : (y == y ? y : x))", comm=True)
_b("max", lambda xp, x, y: xp.fmax(x, y) if xp.result_type(x, y).kind == "f" else xp.maximum(x, y),
   "(x > y ? x : (y == y ? y : x))", comm=True)
_b("first", lambda xp, x, y: x, "x", reads=(True, False))
_b("second", lambda xp, x, y: y, "y", reads=(False, True))
_b("any", lambda xp, x, y: x, "x", reads=(True, False), comm=True)
_b("pair", lambda xp, x, y: None, "1", reads=(False, False), comm=True)
binary._ops["oneb"] = binary.pair
for _name, _f, _c in (("eq", "equal", "=="), ("ne", "not_equal", "!="), ("lt", "less", "<"),
                      ("le", "less_equal", "<="), ("gt", "greater", ">"),
                      ("ge", "greater_equal", ">=")):
    _b(_name, _np(_f), f"x {_c} y", BOOL, comm=_name in ("eq", "ne"))
_b("lor", lambda xp, x, y: xp.logical_or(x, y), "(x || y)", BOOL, comm=True)
_b("land", lambda xp, x, y: xp.logical_and(x, y), "(x && y)", BOOL, comm=True)
_b("lxor", lambda xp, x, y: xp.logical_xor(x, y), "((bool)x != (bool)y)", BOOL, comm=True)
_b("lxnor", lambda xp, x, y: xp.logical_not(xp.logical_xor(x, y)), "((bool)x == (bool)y)",
   BOOL, comm=True)
_b("pow", _np("power"), "pow(x, y)")
for _name in ("firsti", "firstj", "secondi", "secondj"):
    _b(_name, None, None, INT64, reads=(False, False), positional=_name)

# ---------------------------------------------------------------- monoids
_m = monoid._add
_m(Monoid(binary.plus, 0, None, opcode=ADD_OPCODES["plus"]))
_m(Monoid(binary.times, 1, lambda t: 0 if t.kind in "iu" else None, opcode=ADD_OPCODES["times"]))
_m(Monoid(binary.min, dtypes.max_value, dtypes.min_value, opcode=ADD_OPCODES["min"]))
_m(Monoid(binary.max, dtypes.min_value, dtypes.max_value, opcode=ADD_OPCODES["max"]))
_m(Monoid(binary.lor, False, True, opcode=ADD_OPCODES["lor"]))
_m(Monoid(binary.land, True, False, opcode=ADD_OPCODES["land"]))
_m(Monoid(binary.lxor, False, None, opcode=ADD_OPCODES["lxor"]))
_m(Monoid(binary.lxnor, True, None, name="eq", opcode=ADD_OPCODES["eq"]), "lxnor")
_m(Monoid(binary.any, 0, "any", opcode=ADD_OPCODES["any"]))

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


def lookup(kind, op):
    """Accept an operator object or the name of a predefined one."""
    ns = {"unary": unary, "binary": binary, "monoid": monoid, "semiring": semiring,
          "indexunary": indexunary}[kind]
    if isinstance(op, str):
        name = SELECT_STRINGS.get(op, op) if kind == "indexunary" else op
        try:
            return getattr(ns, name)
        except AttributeError as e:
            raise InvalidValue(str(e)) from None
    return op
