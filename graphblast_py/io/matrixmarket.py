"""Matrix Market files: :func:`mmread` and :func:`mmwrite`.

Supported: the ``coordinate`` and ``array`` formats; the ``real``,
``integer`` and ``pattern`` fields (``complex`` is rejected with
:class:`~graphblast_py.MatrixMarketError`); the ``general``, ``symmetric``,
``skew-symmetric`` and ``hermitian`` symmetries (for real data ``hermitian``
means ``symmetric``).

Types read: ``integer`` -> ``int64``, ``real`` -> ``float64``, ``pattern`` ->
an iso ``bool`` matrix whose values are all ``True``.  A comment line
``%%GraphBLAS type <t>`` (written by LAGraph and by :func:`mmwrite`; ``t`` is
``bool``, ``int8_t`` .. ``uint64_t``, ``float`` or ``double``) selects that type
instead; ``dtype=`` overrides both.

The numeric body is parsed in one call to NumPy's C reader; only when that
fails (or a vectorised check finds a bad index, value or duplicate) is the text
scanned line by line, to name the offending line in the error.  Every malformed
file raises :class:`~graphblast_py.MatrixMarketError` (a ``ValueError``) naming
the file, the line and what was expected; a header whose sizes would need more
memory than the device has raises :class:`~graphblast_py.OutOfMemory` before
anything is allocated.
"""

import numpy as np

from .. import dtypes
from ..device import backend_for
from ..errors import InvalidValue, MatrixMarketError
from ..matrix import Matrix
from ._files import (INT_RE, format_lines, iter_lines, loadtxt, number_token_problem,
                     read_text, text_writer)

__all__ = ["mmread", "mmwrite", "mminfo"]

FORMATS = ("coordinate", "array")
FIELDS = ("real", "integer", "pattern")
SYMMETRIES = ("general", "symmetric", "skew-symmetric", "hermitian")
_BANNER = "%%MatrixMarket matrix <format> <field> <symmetry>"

# LAGraph's ``%%GraphBLAS type`` names (C types) and a few aliases.
_GB_TYPES = {
    "bool": dtypes.BOOL, "int8_t": dtypes.INT8, "int16_t": dtypes.INT16,
    "int32_t": dtypes.INT32, "int64_t": dtypes.INT64, "uint8_t": dtypes.UINT8,
    "uint16_t": dtypes.UINT16, "uint32_t": dtypes.UINT32, "uint64_t": dtypes.UINT64,
    "float": dtypes.FP32, "double": dtypes.FP64,
}
for _k, _v in list(_GB_TYPES.items()):
    _GB_TYPES.setdefault(_k[:-2] if _k.endswith("_t") else _k, _v)
_GB_TYPES.update({"float32": dtypes.FP32, "float64": dtypes.FP64, "fp32": dtypes.FP32,
                  "fp64": dtypes.FP64})
_C_NAMES = {v: k for k, v in _GB_TYPES.items() if k.endswith("_t") or k in ("bool", "float",
                                                                                "double")}


class _Header:
    """What the banner, comments and size line say."""

    def __init__(self, name):
        self.name = name
        self.format = self.field = self.symmetry = None
        self.gb_type = None
        self.nrows = self.ncols = self.nnz = None
        self.size_line = None
        self.body_pos = 0

    def error(self, line, msg):
        return MatrixMarketError(f"{self.name}, line {line}: {msg}")

    @property
    def nentries(self):
        """Number of entry lines the body must hold."""
        if self.format == "coordinate":
            return self.nnz
        n, m = self.nrows, self.ncols
        if self.symmetry == "general":
            return n * m
        if self.symmetry == "skew-symmetric":
            return n * (n - 1) // 2
        return n * (n + 1) // 2

    @property
    def ntokens(self):
        if self.format == "array":
            return 1
        return 2 if self.field == "pattern" else 3

    def describe_entry(self):
        if self.format == "array":
            return "one value"
        return "'row col'" if self.field == "pattern" else "'row col value'"


def _parse_header(text, name):
    h = _Header(name)
    lines = iter_lines(text)
    pos = 0

    def nxt():
        nonlocal pos
        for k, line in lines:
            start = pos
            pos += len(line) + 1
            return k + 1, line, start
        return None, None, None

    lineno, line, _ = nxt()
    if line is None:
        raise h.error(1, f"the file is empty; expected the banner '{_BANNER}'")
    toks = line.split()
    if not toks or toks[0].lower() != "%%matrixmarket":
        if toks and all(INT_RE.match(t) for t in toks):
            raise h.error(1, f"no '%%MatrixMarket' banner: header-less files are refused (their "
                             "field, symmetry and index base are unknown); add the banner "
                             f"'{_BANNER}' as the first line, or read an edge list with "
                             f"gb.io.read_edgelist; got {line[:80]!r}")
        raise h.error(1, f"the first line must be the banner '{_BANNER}', got {line[:80]!r}")
    if len(toks) != 5:
        raise h.error(1, f"the banner needs 4 words after %%MatrixMarket (object, format, "
                         f"field, symmetry), got {len(toks) - 1}: {line[:80]!r}")
    obj, fmt, field, sym = (t.lower() for t in toks[1:])
    if obj != "matrix":
        raise h.error(1, f"unknown object {toks[1]!r} in the banner; expected 'matrix'")
    if fmt not in FORMATS:
        raise h.error(1, f"unknown format {toks[2]!r} in the banner; expected 'coordinate' "
                         "or 'array'")
    if field == "complex":
        raise h.error(1, "complex matrices are not supported (field 'complex'); graphblast_py "
                         "reads real, integer and pattern matrices")
    if field not in FIELDS:
        raise h.error(1, f"unknown field {toks[3]!r} in the banner; expected 'real', "
                         "'integer' or 'pattern'")
    if sym not in SYMMETRIES:
        raise h.error(1, f"unknown symmetry {toks[4]!r} in the banner; expected 'general', "
                         "'symmetric', 'skew-symmetric' or 'hermitian'")
    if field == "pattern" and fmt == "array":
        raise h.error(1, "the 'pattern' field is only valid with the 'coordinate' format")
    if field == "pattern" and sym == "skew-symmetric":
        raise h.error(1, "a 'pattern' matrix cannot be 'skew-symmetric' (it has no values to "
                         "negate)")
    h.format, h.field = fmt, field
    h.symmetry = "symmetric" if sym == "hermitian" else sym   # real data: the same thing

    while True:   # comments (and blank lines) up to the size line
        lineno, line, start = nxt()
        if line is None:
            raise h.error(_lineno_end(text), "the file ends before the size line "
                          + ("'nrows ncols nnz'" if fmt == "coordinate" else "'nrows ncols'"))
        s = line.strip()
        if not s:
            continue
        if s.startswith("%"):
            t = s.split()
            if t[0].lower() == "%%graphblas" and len(t) >= 2 and t[1].lower() == "type":
                if len(t) != 3:
                    raise h.error(lineno, f"expected '%%GraphBLAS type <type>', got {s[:80]!r}")
                gt = _GB_TYPES.get(t[2].lower())
                if gt is None:
                    raise h.error(lineno, f"unknown %%GraphBLAS type {t[2]!r}; expected one of "
                                          "bool, int8_t..int64_t, uint8_t..uint64_t, float, "
                                          "double")
                h.gb_type = gt
            continue
        break
    h.size_line = lineno
    toks = line.split()
    want = 3 if fmt == "coordinate" else 2
    what = "'nrows ncols nnz'" if fmt == "coordinate" else "'nrows ncols'"
    if len(toks) != want:
        raise h.error(lineno, f"the size line must hold {want} integers {what} for the "
                              f"{fmt} format, got {len(toks)}: {line.strip()[:80]!r}")
    sizes = []
    for tok, nm in zip(toks, ("nrows", "ncols", "nnz")):
        if not INT_RE.match(tok):
            raise h.error(lineno, f"{nm} in the size line must be an integer, got {tok!r}")
        v = int(tok)
        if v < 0:
            raise h.error(lineno, f"{nm} in the size line must be non-negative, got {v}")
        sizes.append(v)
    h.nrows, h.ncols = sizes[0], sizes[1]
    h.nnz = sizes[2] if fmt == "coordinate" else None
    if h.nrows > 2**62 or h.ncols > 2**62:
        raise h.error(lineno, f"dimensions {h.nrows} x {h.ncols} exceed the largest supported "
                              "dimension 2**62")
    if h.symmetry != "general" and h.nrows != h.ncols:
        raise h.error(lineno, f"a {sym} matrix must be square, but the size line says "
                              f"{h.nrows} x {h.ncols}")
    if fmt == "coordinate":
        if h.symmetry == "general":
            most = h.nrows * h.ncols
        else:
            most = h.nrows * (h.nrows + 1) // 2
        if h.nnz > most:
            raise h.error(lineno, f"nnz {h.nnz} is larger than the {most} positions a {sym} "
                                  f"{h.nrows} x {h.ncols} matrix has")
    h.body_pos = pos
    return h


def _lineno_end(text):
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def _file_dtype(h):
    """The type the file declares: its ``%%GraphBLAS type`` line, else its field."""
    if h.gb_type is not None:
        return h.gb_type
    return {"integer": dtypes.INT64, "real": dtypes.FP64, "pattern": dtypes.BOOL}[h.field]


def _target_dtype(h, dtype):
    if dtype is not None:
        return dtypes.lookup(dtype)
    return _file_dtype(h)


def _value_parse_dtype(h):
    """dtype the value column is parsed into: each value is checked against the
    type the file declares (as LAGraph does), whatever ``dtype=`` asks for.
    A float type (``real`` field, or ``%%GraphBLAS type float/double`` even
    with an ``integer`` field) accepts any real number, ``inf`` and ``nan``;
    an integer type accepts integers in its range (NumPy's reader checks it);
    ``bool`` accepts the integers 0 and 1 (checked after parsing)."""
    ft = _file_dtype(h)
    if ft.kind == "f":
        return dtypes.FP64
    if ft.kind in "iu":
        return ft
    return dtypes.INT64        # bool: parsed as integers, then 0/1 checked
def _check_memory(h, dt, device, name):
    """Refuse headers that would need absurd memory before allocating."""
    n = h.nentries
    mult = 1 if h.symmetry == "general" else 2
    if h.format == "coordinate":
        host = n * (16 + 8) * mult * 2          # parsed entries, expanded, sorting keys
        dev = (h.nrows + 1) * 8 + n * mult * (8 + dt.itemsize) + n * mult * 8
    else:
        host = h.nrows * h.ncols * (dt.itemsize + 16) + n * 8
        dev = h.nrows * h.ncols * dt.itemsize
    what = f"{name}: the size line (line {h.size_line}) describes a {h.nrows} x {h.ncols} " \
           f"{h.format} matrix" + (f" with {h.nnz} entries" if h.nnz is not None else "") + \
           ", which"
    backend_for("cpu").check_alloc(host, what)
    backend_for(device).check_alloc(dev, what)


def _slow_scan(text, h, dt, exc=None):
    """Walk the body line by line and raise at the first malformed entry.
    Called only after the fast reader failed; returns normally when it finds
    nothing (then the caller reports ``exc``)."""
    nent, ntok = h.nentries, h.ntokens
    first = h.size_line + 1
    count = 0
    last = h.size_line
    vdt = _value_parse_dtype(h)
    if _file_dtype(h) == dtypes.BOOL:
        lo_v, hi_v = 0, 1
    else:
        lo_v, hi_v = (dtypes.min_value(vdt), dtypes.max_value(vdt)) if vdt.kind in "iu" else (0, 0)
    for k, line in iter_lines(text, h.body_pos):
        lineno = first + k
        toks = line.split("%", 1)[0].split()
        if not toks:
            continue
        last = lineno
        if count == nent:
            raise h.error(lineno, f"more entries than the {nent} the size line (line "
                                  f"{h.size_line}) announces")
        count += 1
        if len(toks) != ntok:
            raise h.error(lineno, f"expected {ntok} number{'s' if ntok > 1 else ''} "
                                  f"({h.describe_entry()}), got {len(toks)}: "
                                  f"{line.strip()[:80]!r}")
        if h.format == "coordinate":
            for tok, nm, n in ((toks[0], "row", h.nrows), (toks[1], "column", h.ncols)):
                if not INT_RE.match(tok):
                    raise h.error(lineno, f"the {nm} index must be an integer, got {tok!r}")
                i = int(tok)
                if i < 1 or i > n:
                    raise h.error(lineno, f"{nm} index {i} is outside 1..{n} (Matrix Market "
                                          "indices are 1-based)")
        if ntok in (1, 3):
            problem = number_token_problem(toks[-1], vdt, lo_v, hi_v, "value")
            if problem and _file_dtype(h) == dtypes.BOOL and INT_RE.match(toks[-1]):
                problem = f"the value {toks[-1]} is not a bool (%%GraphBLAS type bool: 0 or 1)"
            if problem:
                raise h.error(lineno, problem)
    if count < nent:
        raise h.error(max(last, h.size_line), f"the file ends after {count} of the {nent} "
                      f"entries the size line (line {h.size_line}) announces")
    return None


def _entry_lines(text, h, ks):
    """Line numbers of the data lines with entry numbers ``ks`` (error paths)."""
    want = {int(k) for k in ks}
    found = {}
    first = h.size_line + 1
    count = 0
    for k, line in iter_lines(text, h.body_pos):
        if line.split("%", 1)[0].strip():
            if count in want:
                found[count] = first + k
                if len(found) == len(want):
                    break
            count += 1
    return [found.get(int(k), "?") for k in ks]


def mminfo(source):
    """``(nrows, ncols, nnz, format, field, symmetry)`` from a file's header
    (``nnz`` is the number of entry lines)."""
    text, name = read_text(source, "mminfo", MatrixMarketError)
    h = _parse_header(text, name)
    return h.nrows, h.ncols, h.nentries, h.format, h.field, h.symmetry


def mmread(source, *, dtype=None, dup_op=None, device=None):
    """Read a Matrix Market file into a :class:`~graphblast_py.Matrix`.

    ``source``: a path (``.gz``/``.bz2``/``.xz`` decompressed) or an open file
    (text or binary).  ``dtype``: the result type (default from the header:
    ``integer`` -> int64, ``real`` -> float64, ``pattern`` -> iso bool ``True``,
    or the ``%%GraphBLAS type`` line); values are cast to it (C semantics).
    Symmetric/hermitian files are expanded (``A[j, i] = A[i, j]``),
    skew-symmetric ones get ``A[j, i] = -A[i, j]``; diagonal entries are kept
    once.  A position given twice (after expansion) raises
    :class:`~graphblast_py.MatrixMarketError` naming both lines unless
    ``dup_op`` (e.g. ``gb.binary.plus``, what SciPy does) combines them.
    ``array`` files give a matrix in dense form with every entry present.
    """
    text, name = read_text(source, "mmread", MatrixMarketError)
    h = _parse_header(text, name)
    dt = _target_dtype(h, dtype)
    if h.symmetry == "skew-symmetric" and dt.kind in "ub":
        raise h.error(1, f"a skew-symmetric matrix cannot be read as {dt} (its mirrored "
                         "entries are negated); pass a signed dtype=")
    _check_memory(h, dt, device, name)
    vdt = _value_parse_dtype(h)
    nent = h.nentries
    if h.format == "coordinate":
        fields = [("r", np.int64), ("c", np.int64)]
        if h.field != "pattern":
            fields.append(("v", vdt))
    else:
        fields = [("v", vdt)]
    body = text[h.body_pos:]
    try:
        data = loadtxt(body, np.dtype(fields), "%", max_rows=nent + 1)
    except (ValueError, OverflowError, Warning) as e:
        _slow_scan(text, h, dt, e)
        raise h.error(h.size_line, f"could not read the entries: {e}") from None
    del body
    if data.shape[0] != nent:
        _slow_scan(text, h, dt)   # raises: too many / too few entries
    line_of = lambda k: _entry_lines(text, h, [k])[0]     # noqa: E731 - error paths only
    check_bool_values(h, None if h.field == "pattern" else data["v"], line_of)
    if h.format == "array":
        return _array_matrix(h, data["v"], dt, device)

    r, c = data["r"], data["c"]
    check_coordinates(h, r, c, line_of)
    r = r - 1
    c = c - 1
    values = True if h.field == "pattern" else data["v"]
    del data
    if h.field == "pattern" and dt != dtypes.BOOL:
        values = dt.type(1)
    elif h.field != "pattern":
        values = values.astype(dt, copy=False) if dt != dtypes.BOOL else values != 0
    r, c, values, src = expand_symmetry(h, r, c, values)
    try:
        return Matrix.from_coo(r, c, values, h.nrows, h.ncols, dtype=dt, dup_op=dup_op,
                               device=device)
    except InvalidValue:
        if dup_op is not None:
            raise
        _raise_duplicate(text, h, r, c, nent, src)
        raise


def check_bool_values(h, v, line_of):
    """A ``%%GraphBLAS type bool`` file's parsed values must be 0 or 1 (``v``
    None: no values); ``line_of(k)`` names the file line of entry ``k``."""
    if v is None or _file_dtype(h) != dtypes.BOOL or not v.shape[0]:
        return
    bad = (v != 0) & (v != 1)
    if bad.any():
        k = int(np.argmax(bad))
        raise h.error(line_of(k), f"the value {int(v[k])} is not a bool "
                      "(%%GraphBLAS type bool: 0 or 1)")


def check_coordinates(h, r, c, line_of):
    """The 1-based indices ``r``, ``c`` of parsed coordinate entries: within
    the size line's dimensions, and off the diagonal of a skew-symmetric
    matrix; ``line_of(k)`` names the file line of entry ``k``."""
    if not r.shape[0]:
        return
    for arr, nm, n in ((r, "row", h.nrows), (c, "column", h.ncols)):
        bad = (arr < 1) | (arr > n)
        if bad.any():
            k = int(np.argmax(bad))
            raise h.error(line_of(k), f"{nm} index {int(arr[k])} is outside 1..{n} (Matrix "
                                      "Market indices are 1-based)")
    if h.symmetry == "skew-symmetric":
        diag = r == c
        if diag.any():
            k = int(np.argmax(diag))
            raise h.error(line_of(k), f"a skew-symmetric matrix has a zero diagonal (A = "
                          f"-A^T), so entry ({int(r[k])}, {int(c[k])}) on the diagonal is "
                          "not allowed")


def expand_symmetry(h, r, c, values):
    """The stored triangle of a symmetric / skew-symmetric file made whole:
    ``A[j, i] = A[i, j]`` (negated when skew) for every off-diagonal entry
    (0-based ``r``, ``c``; ``values`` an array, or a scalar for a pattern).
    Returns ``(r, c, values, src)``, ``src`` the entries mirrored (None for
    a general file)."""
    if h.symmetry == "general":
        return r, c, values, None
    off = np.flatnonzero(r != c)
    rr = np.concatenate([r, c[off]])
    cc = np.concatenate([c, r[off]])
    if h.field != "pattern":
        mv = values[off]
        if h.symmetry == "skew-symmetric":
            mv = -mv
        values = np.concatenate([values, mv])
    return rr, cc, values, off


def _raise_duplicate(text, h, r, c, nent, src):
    keys = r.astype(np.int64) * np.int64(max(h.ncols, 1)) + c
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    d = np.flatnonzero(sk[1:] == sk[:-1])
    if d.shape[0] == 0:
        return
    e1, e2 = int(order[d[0]]), int(order[d[0] + 1])
    i, j = int(r[e1]) + 1, int(c[e1]) + 1
    ent = sorted(e if e < nent else int(src[e - nent]) for e in (e1, e2))
    lines = _entry_lines(text, h, ent)
    if ent[0] == ent[1]:   # pragma: no cover - cannot happen (diagonal not mirrored)
        where = f"line {lines[0]}"
    else:
        where = f"lines {lines[0]} and {lines[1]}"
    extra = (" (a {} file stores each off-diagonal pair once, e.g. only the lower "
             "triangle)".format(h.symmetry)) if h.symmetry != "general" else ""
    raise h.error(lines[1], f"entry ({i}, {j}) is given more than once: {where}{extra}; pass "
                            "dup_op=gb.binary.plus (or another operator) to combine "
                            "duplicates")


def _array_matrix(h, v, dt, device):
    n, m = h.nrows, h.ncols
    v = v.astype(dt, copy=False) if dt != dtypes.BOOL else v != 0
    if h.symmetry == "general":
        dense = v.reshape(m, n).T
    else:
        dense = np.zeros((n, m), dtype=dt)
        k = 1 if h.symmetry == "skew-symmetric" else 0
        cols, rows = np.triu_indices(n, k)     # column-major lower triangle
        dense[rows, cols] = v
        dense[cols, rows] = -v if h.symmetry == "skew-symmetric" else v
    return Matrix.from_dense(np.ascontiguousarray(dense), dtype=dt, device=device)


# ---------------------------------------------------------------------- write
def _check_matrix(A, what):
    if not isinstance(A, Matrix):
        raise InvalidValue(f"{what}: expected a graphblast_py Matrix, got {type(A).__name__}")


def _transpose_perm(r, c, n):
    """Permutation p with (c[p], r[p]) in row-major order, or None when the
    structure is not symmetric (r, c are in row-major order)."""
    keys = r * np.int64(n) + c
    tkeys = c * np.int64(n) + r
    p = np.argsort(tkeys, kind="stable")
    if not np.array_equal(keys, tkeys[p]):
        return None
    return p


def _same(a, b):
    return np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


def _holds_coo(sym, r, c, v, shape, dtype, pattern):
    """Whether the COO matrix (row-major order) is symmetric / skew-symmetric."""
    if shape[0] != shape[1]:
        return False
    p = _transpose_perm(r, c, shape[0])
    if p is None:
        return False
    if sym == "symmetric":
        return pattern or _same(v, v[p])
    return (dtype.kind in "if" and not pattern and not bool((r == c).any())
            and _same(v, -v[p]))


def _holds_dense(sym, D, dtype):
    if D.shape[0] != D.shape[1]:
        return False
    if sym == "symmetric":
        return _same(D, D.T)
    return dtype.kind in "if" and _same(D, -D.T)


def _field_of(A, v, field):
    dt = A.dtype
    if field is None:
        if dt == dtypes.BOOL:
            return "pattern" if bool(np.all(v)) else "integer"
        return "real" if dt.kind == "f" else "integer"
    f = str(field).lower()
    if f == "complex":
        raise InvalidValue("mmwrite: field 'complex' is not supported")
    if f not in FIELDS:
        raise InvalidValue(f"mmwrite: unknown field {field!r}; expected 'real', 'integer' or "
                           "'pattern'")
    if f == "integer" and dt.kind == "f":
        fin = v[np.isfinite(v)]
        if not (np.isfinite(v).all() and np.array_equal(fin, np.trunc(fin))):
            raise InvalidValue("mmwrite: field='integer' but the matrix holds non-integer "
                               "values; use field='real'")
    return f


def mmwrite(target, A, *, symmetry=None, field=None, comment="", format="coordinate"):
    """Write ``A`` as a Matrix Market file.

    ``target``: a path (``.gz``/``.bz2``/``.xz`` compressed) or an open file.
    ``symmetry``: ``None`` detects ``symmetric`` (``A == A.T``), then
    ``skew-symmetric`` (``A == -A.T``, no diagonal entries; signed and float
    types), else ``general``; an explicit ``symmetric``/``hermitian``/
    ``skew-symmetric`` that does not hold raises :class:`InvalidValue`.  Only
    the lower triangle of a symmetric matrix is written.  ``field``: ``None``
    picks ``pattern`` for a bool matrix whose values are all ``True``,
    ``integer`` for integer (and other bool) matrices, ``real`` for floats.
    ``comment``: text written as ``%`` lines.  ``format="array"`` writes every
    entry column by column (missing entries as 0).  A ``%%GraphBLAS type``
    line records ``A.dtype`` so that :func:`mmread` gives the same type back.
    Values are written exactly (shortest round-trip decimal form).
    """
    _check_matrix(A, "mmwrite")
    fmt = str(format).lower()
    if fmt not in FORMATS:
        raise InvalidValue(f"mmwrite: unknown format {format!r}; expected 'coordinate' or "
                           "'array'")
    if symmetry is not None:
        sym = str(symmetry).lower()
        if sym not in SYMMETRIES:
            raise InvalidValue(f"mmwrite: unknown symmetry {symmetry!r}; expected one of "
                               f"{SYMMETRIES}")
    else:
        sym = None
    H = A.to("cpu")
    dt = A.dtype
    n, m = A.shape
    if fmt == "array":
        D = np.asarray(H.to_dense(fill=0))
        f = _field_of(A, D.reshape(-1), field)
        if f == "pattern":
            raise InvalidValue("mmwrite: the 'pattern' field cannot be used with the 'array' "
                               "format")
        holds = lambda s: _holds_dense(s, D, dt)  # noqa: E731
    else:
        r, c, v = (np.asarray(a) for a in H.to_coo())
        r, c = r.astype(np.int64, copy=False), c.astype(np.int64, copy=False)
        f = _field_of(A, v, field)
        holds = lambda s: _holds_coo(s, r, c, v, (n, m), dt, f == "pattern")  # noqa: E731
    if sym is None:
        sym = next((s for s in ("symmetric", "skew-symmetric") if holds(s)), "general")
    elif sym != "general":
        want = "symmetric" if sym == "hermitian" else sym
        if not holds(want):
            why = " (a pattern matrix has no values to negate)" if f == "pattern" and \
                want == "skew-symmetric" else ""
            raise InvalidValue(f"mmwrite: symmetry={symmetry!r} but the {n} x {m} matrix is "
                               f"not {want}{why}; use symmetry='general' or None")
    if fmt == "array":
        if sym == "general":
            vals = D.T.reshape(-1)
        else:
            k = 1 if sym == "skew-symmetric" else 0
            cols, rows = np.triu_indices(n, k)
            vals = D[rows, cols]
        cols_out = [_value_column(vals, f)]
        size = f"{n} {m}"
        line_fmt = "{}"
    else:
        if sym in ("symmetric", "hermitian"):
            keep = r >= c
        elif sym == "skew-symmetric":
            keep = r > c
        else:
            keep = None
        if keep is not None:
            r, c, v = r[keep], c[keep], v[keep]
        cols_out = [r + 1, c.astype(np.int64) + 1]
        if f != "pattern":
            cols_out.append(_value_column(v, f))
        size = f"{n} {m} {r.shape[0]}"
        line_fmt = " ".join(["{}"] * len(cols_out))
    with text_writer(target, "mmwrite") as write:
        write(f"%%MatrixMarket matrix {fmt} {f} {sym}\n")
        write(f"%%GraphBLAS type {_C_NAMES[dt]}\n")
        for line in str(comment).splitlines() if comment else ():
            write(f"%{line}\n")
        write(size + "\n")
        format_lines(write, cols_out, line_fmt)


def _value_column(v, field):
    if field == "integer":
        if v.dtype.kind == "f":
            return v.astype(np.int64)
        return v.astype(np.int64) if v.dtype == np.bool_ else v
    return v.astype(np.float64, copy=False)
