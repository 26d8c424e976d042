"""Operator classes: UnaryOp, BinaryOp, IndexUnaryOp, Monoid, Semiring.

An operator carries everything a backend needs to run it, never the backend
itself.  A predefined operator (operators/predefined.py) is defined once, with

* ``pyexpr`` -- its scalar form as a Python expression in ``x``/``y``
  (``i``, ``k``, ``j`` for positional ones); ``func`` is that expression as a
  function.  The CPU backend compiles it with numba (the loop kernels embed
  the expressions: backend/cpu/kernels.py, generated from these definitions);
* ``cexpr`` -- the same scalar form in CUDA C, compiled by the GPU backend into
  its kernels once per signature;
* ``vec(xp, ...)`` -- its array form, written against an array namespace
  ``xp`` (NumPy or CuPy): the vectorized path of both backends;
* ``result`` -- the result-type rule; for monoids identity and terminal;
* ``opcode`` -- its number in the CPU loop kernels' dispatch (the order of
  definition), -1 where ``kernel`` is False: the scalar forms lack the
  integer meaning of the array form (div, pow, minv), so every backend runs
  the operator vectorized.

A user-defined operator (``register``) gives ``func`` (numba-compiled on the
CPU) and ``cexpr`` and takes the same kernels, with ``func`` in place of an
opcode; ``register`` also makes it available by name (``gb.binary.<name>``,
or the name as a string wherever an operator is expected).
"""
import math

import numpy as np

from .. import dtypes
from ..errors import DomainMismatch, InvalidValue

# Operand/result typing rules
SAME = "same"      # common type of the inputs
BOOL = "bool"      # comparison / logical
INT64 = "int64"    # positional
ARITH = "arith"    # like SAME, but bool inputs compute in int64


_RESOLVED = {}


def _resolve(rule, tx, ty=None):
    key = (rule, tx, ty)
    try:
        return _RESOLVED[key]
    except KeyError:
        pass
    _RESOLVED[key] = t = _resolve_uncached(rule, tx, ty)
    return t


def _resolve_uncached(rule, tx, ty):
    if isinstance(rule, np.dtype):      # an explicit result type
        return rule
    if rule == BOOL:
        return dtypes.BOOL
    if rule == INT64:
        return dtypes.INT64
    t = tx if ty is None else dtypes.result_type(tx, ty)
    if rule == ARITH and t == dtypes.BOOL:
        return dtypes.INT64
    return t


class UnaryOp:
    """``z = f(x)``.  Predefined ones live in ``gb.unary``."""

    def __init__(self, name, func=None, cexpr=None, vec=None, result=SAME, opcode=-1,
                 pyexpr=None, kernel=True):
        if func is None and pyexpr is not None:
            func = scalar_function(name, pyexpr, "x")
        self.name, self.func, self.cexpr, self.vec = name, func, cexpr, vec
        self.result, self.opcode, self.pyexpr, self.kernel = result, opcode, pyexpr, kernel
        self.is_user = vec is None

    def out_dtype(self, tx):
        return _resolve(self.result, tx)

    @classmethod
    def register(cls, name, func, cuda_expr=None, result=SAME):
        """A user-defined unary operator: ``func(x)`` in Python (numba-compiled
        on the CPU) and ``cuda_expr`` in C over ``x`` for GPU objects.

        ``result`` (see :func:`_check_result`): ``"same"`` (the input type),
        ``"bool"``, or a dtype (``"float64"``, ``np.int32``...): the type of
        the output values.  Afterwards the operator is also ``gb.unary.<name>``
        (a predefined name is refused; a user-defined one is replaced)."""
        _check_user(name, func, cuda_expr)
        return _publish("unary", cls(name, func=func, cexpr=cuda_expr,
                                     result=_check_result(name, result)))

    def __repr__(self):
        return f"UnaryOp({self.name!r})"


class BinaryOp:
    """``z = f(x, y)``.  Predefined ones live in ``gb.binary``.

    ``reads`` says which operand values the operator looks at: ``pair`` reads
    neither, ``first`` only x, positional ones (``firsti``...) neither -- the
    framework then never touches the corresponding values array
    ("structure only").  ``positional`` is ``None`` or one of ``"firsti"``,
    ``"firstj"``, ``"secondi"``, ``"secondj"``.
    """

    def __init__(self, name, func=None, cexpr=None, vec=None, result=SAME, opcode=-1,
                 reads=(True, True), positional=None, commutative=False, pyexpr=None,
                 kernel=True):
        if func is None and pyexpr is not None and positional is None:
            func = scalar_function(name, pyexpr, "x, y")
        self.name, self.func, self.cexpr, self.vec = name, func, cexpr, vec
        self.result, self.opcode, self.pyexpr, self.kernel = result, opcode, pyexpr, kernel
        self.ufunc = None       # predefined: the ufunc whose reduceat reduces with it
        self.reads_x, self.reads_y = reads
        self.positional = positional
        self.commutative = commutative
        self.is_user = vec is None and positional is None

    def out_dtype(self, tx, ty):
        return _resolve(self.result, tx, ty)

    @classmethod
    def register(cls, name, func, cuda_expr=None, result=SAME):
        """A user-defined binary operator: ``func(x, y)`` in Python and
        ``cuda_expr`` in C over ``x`` and ``y`` (for GPU objects), e.g.
        ``BinaryOp.register("absdiff", lambda x, y: abs(x - y), "(x > y ? x - y : y - x)")``.
        ``result`` (see :func:`_check_result`): ``"same"`` (the common input
        type), ``"arith"`` (like ``"same"`` but bool inputs give int64),
        ``"bool"``, or a dtype (``"float64"``...): the type of the output.
        Afterwards the operator is also ``gb.binary.<name>`` and can be given
        by name (a predefined name is refused; a user-defined one is replaced)."""
        _check_user(name, func, cuda_expr)
        return _publish("binary", cls(name, func=func, cexpr=cuda_expr,
                                      result=_check_result(name, result, (SAME, BOOL, ARITH))))

    def __repr__(self):
        return f"BinaryOp({self.name!r})"


class IndexUnaryOp:
    """``z = f(x, i, j, thunk)`` -- sees the value, its row and column (for a
    vector: its index and 0) and a scalar.  Used by ``apply`` (e.g. ``rowindex``)
    and ``select`` (``result == "bool"``: keep the entries where it is true)."""

    def __init__(self, name, func=None, cexpr=None, vec=None, result=SAME, reads_x=True):
        self.name, self.func, self.cexpr, self.vec = name, func, cexpr, vec
        self.result, self.reads_x = result, reads_x
        self.is_user = vec is None

    def out_dtype(self, tx, tthunk=None):
        same = isinstance(self.result, str) and self.result == SAME
        if same and tthunk is not None and not self.reads_x:
            return tthunk
        return _resolve(self.result, tx)

    @classmethod
    def register(cls, name, func, cuda_expr=None, result=BOOL):
        """User-defined: ``func(x, i, j, thunk)`` and a CUDA expression over
        ``x, i, j, thunk``; ``result="bool"`` makes it a select predicate;
        ``"same"`` (the input type) or a dtype for ``apply``.  Afterwards the
        operator is also ``gb.indexunary.<name>``."""
        _check_user(name, func, cuda_expr)
        return _publish("indexunary", cls(name, func=func, cexpr=cuda_expr,
                                          result=_check_result(name, result)))

    def __repr__(self):
        return f"IndexUnaryOp({self.name!r})"


class Monoid:
    """An associative, commutative BinaryOp with an identity, and optionally a
    terminal (annihilator) value that lets reductions stop early.

    ``identity`` and ``terminal`` are either constants or callables
    ``f(dtype) -> value``.  ``terminal="any"`` marks the ``any`` monoid: every
    value is terminal."""

    def __init__(self, op, identity, terminal=None, name=None, opcode=-1):
        if not isinstance(op, BinaryOp):
            raise InvalidValue(f"Monoid needs a BinaryOp, got {type(op).__name__}")
        self.op, self._identity, self._terminal = op, identity, terminal
        self._term_cache = {}
        self.name = name or op.name
        self.opcode = opcode
        self.is_user = op.is_user

    def identity(self, dtype):
        v = self._identity(dtype) if callable(self._identity) else self._identity
        return np.asarray(v).astype(dtype, casting="unsafe")[()]

    def terminal(self, dtype):
        """The terminal value for ``dtype`` (None when there is none)."""
        try:
            return self._term_cache[dtype]
        except KeyError:
            pass
        t = self._terminal
        if t is None or (isinstance(t, str) and t == "any"):
            v = None
        else:
            v = t(dtype) if callable(t) else t
            v = None if v is None else np.asarray(v).astype(dtype, casting="unsafe")[()]
        self._term_cache[dtype] = v
        return v

    @property
    def is_any(self):
        return isinstance(self._terminal, str) and self._terminal == "any"

    def out_dtype(self, tx):
        return self.op.out_dtype(tx, tx)

    @classmethod
    def register(cls, name, op, identity, terminal=None):
        """A user-defined monoid over a (user-defined) BinaryOp, available
        afterwards as ``gb.monoid.<name>``."""
        _check_name(name)
        return _publish("monoid", cls(op, identity, terminal, name=name))

    def __repr__(self):
        return f"Monoid({self.name!r})"


class Semiring:
    """``add`` monoid and ``mult`` BinaryOp: ``C(i,j) = add_k mult(A(i,k), B(k,j))``."""

    def __init__(self, monoid, mult, name=None):
        if not isinstance(monoid, Monoid):
            raise InvalidValue(f"Semiring needs a Monoid as its add, got {type(monoid).__name__}")
        if not isinstance(mult, BinaryOp):
            raise InvalidValue(f"Semiring needs a BinaryOp as its mult, got {type(mult).__name__}")
        self.monoid, self.mult = monoid, mult
        self._dt_cache = {}
        self.name = name or f"{monoid.name}_{mult.name}"
        self.is_user = monoid.is_user or mult.is_user

    def out_dtype(self, ta, tb):
        try:
            return self._dt_cache[(ta, tb)]
        except KeyError:
            t = self.monoid.out_dtype(self.mult.out_dtype(ta, tb))
            self._dt_cache[(ta, tb)] = t
            return t

    @classmethod
    def register(cls, name, monoid, mult):
        """A user-defined semiring, available afterwards as ``gb.semiring.<name>``."""
        _check_name(name)
        return _publish("semiring", cls(monoid, mult, name=name))

    def __repr__(self):
        return f"Semiring({self.name!r})"


def scalar_function(name, expr, args):
    """The Python function of a scalar expression (``x + y``): numba compiles
    it like a user's function; ``np`` and ``math`` are in scope."""
    code = compile(f"lambda {args}: ({expr})", f"<operator {name}>", "eval")
    return eval(code, {"np": np, "math": math})   # noqa: S307 - our own definitions


def _publish(kind, op):
    """Make a registered operator available by name in its namespace
    (``gb.binary.<name>``, and as a string wherever an operator is expected).
    A predefined operator's name cannot be taken; registering a user-defined
    name again replaces the earlier operator."""
    from . import predefined
    predefined.publish(kind, op)
    return op


def _check_name(name):
    if not isinstance(name, str) or not name.isidentifier():
        raise InvalidValue(f"operator name must be an identifier, got {name!r}")


def _check_user(name, func, cexpr):
    _check_name(name)
    if not callable(func):
        raise InvalidValue(f"operator {name!r}: func must be callable, got {type(func).__name__}")
    if cexpr is not None and not isinstance(cexpr, str):
        raise InvalidValue(f"operator {name!r}: cuda_expr must be a string of C, got "
                           f"{type(cexpr).__name__}")


def _check_result(name, result, names=(SAME, BOOL)):
    """The result type of a user-defined operator, made explicit.

    * ``"same"``: the (common) input type.  The Python function's value is
      stored in that type, so a function that returns a float for integer
      inputs (``lambda x: x / 2`` on int64) is *refused* when it is first
      compiled (:class:`DomainMismatch`) instead of silently truncated:
      register it with ``result="float64"``, or make the truncation explicit
      in the function (``x // 2``, ``int(x / 2)``).
    * ``"bool"``: bool output (comparisons, select predicates).
    * ``"arith"`` (binary only): like ``"same"``, but bool inputs give int64.
    * a dtype (``"float64"``, ``"int32"``, ``np.float32``...): always that
      type; the function's value is cast to it with C semantics (an explicit
      choice, so a float value stored as an integer type is truncated).

    Whatever the rule, the function must return a number or a bool: an
    operator returning a string, tuple or other object is refused when it is
    compiled.
    """
    if isinstance(result, str) and result in names:
        return result
    if result is not None and not isinstance(result, (bool, int, float)):
        try:
            return dtypes.lookup(result)    # (np.dtype(None) would mean float64: refused)
        except (DomainMismatch, TypeError):
            pass
    raise InvalidValue(f"operator {name!r}: result must be one of {', '.join(map(repr, names))} "
                       f"or a dtype such as 'float64', got {result!r}")
