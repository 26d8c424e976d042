"""Structural and value comparison shared by Matrix and Vector
(``isequal`` / ``isclose``)."""


def same_entries(a, b, check_dtype, values_match):
    """True when ``b`` is the same kind of object as ``a`` with the same shape,
    the same stored positions, and ``values_match(xp, va, vb)`` holds for all
    of their values (``b`` is moved to ``a``'s device to compare)."""
    if type(b) is not type(a) or b.shape != a.shape:
        return False
    if check_dtype and b.dtype != a.dtype:
        return False
    dense = getattr(a, "_compare_dense", None)
    if dense is not None:
        r = dense(b, values_match)
        if r is not None:
            return r
    k1, v1 = a._keys_vals()
    k2, v2 = b.to(a.device)._keys_vals()
    if k1.shape != k2.shape:
        return False
    xp = a._be.xp
    return bool(xp.all(k1 == k2)) and bool(xp.all(values_match(xp, v1, v2)))


def equal_values(xp, x, y):
    return x == y


def close_values(rel_tol, abs_tol):
    return lambda xp, x, y: xp.isclose(x, y, rtol=rel_tol, atol=abs_tol, equal_nan=True)


def refuse_comparison(kind):
    """``__eq__``/``__ne__`` for Matrix and Vector: ``==`` would only compare
    identity (``B == B.dup()`` False), so it raises, naming what to use."""
    var = "A" if kind == "Matrix" else "u"

    def refuse(self, other):
        from .errors import InvalidObject
        raise InvalidObject(
            f"== / != are not defined on a {kind}: use {var}.isequal(other) (same stored "
            f"positions and values), {var}.isclose(other, rel_tol, abs_tol) (values within "
            f"a tolerance), {var} is other (the same object), or "
            f"{var}.ewise_mult(other, gb.binary.eq) for an elementwise comparison")
    refuse.__name__ = "__eq__"
    return refuse
