"""Edge-list text files: one edge ``u v`` or ``u v weight`` per line.

Vertex ids are non-negative integers (``one_based=True``: ids start at 1).
Lines starting with ``comment`` (default ``#``) and blank lines are skipped;
text after ``comment`` on a line is ignored.  The file is parsed by NumPy's C
reader; a malformed file is scanned again line by line only to name the bad
line in the :class:`~graphblast_py.InvalidValue` it raises.
"""

import numpy as np

from .. import dtypes
from ..errors import InvalidValue
from ..matrix import Matrix
from ._files import (INT_RE, format_lines, iter_lines, loadtxt, number_token_problem,
                     read_text, text_writer)

__all__ = ["read_edgelist", "write_edgelist"]

_MAX_ID = 2**63 - 1



class _Src:
    def __init__(self, text, name, comment, delimiter):
        self.text, self.name, self.comment, self.delimiter = text, name, comment, delimiter

    def error(self, line, msg):
        return InvalidValue(f"{self.name}, line {line}: {msg}")

    def tokens(self, line):
        if self.comment:
            line = line.split(self.comment, 1)[0]
        if self.delimiter is None:
            return line.split()
        if not line.strip():
            return []
        return [t.strip() for t in line.split(self.delimiter)]

    def data_lines(self):
        """(line number, tokens) of each data line (error paths and the first line)."""
        for k, line in iter_lines(self.text):
            toks = self.tokens(line)
            if toks:
                yield k + 1, toks


def read_edgelist(source, *, directed=True, weighted=None, comment="#", delimiter=None,
                  nrows=None, dtype=None, one_based=False, dup_op=None, device=None):
    """Read an edge list into an ``n x n`` :class:`~graphblast_py.Matrix`.

    ``weighted``: ``None`` uses a third column when the first data line has
    one; ``True`` requires it; ``False`` ignores columns after the second.
    Columns after the ones used are ignored.  ``nrows``: the
    number of vertices (default: largest id + 1).  ``directed=False`` adds the
    reverse of every edge.  An unweighted matrix is iso (``bool`` ``True`` by
    default); weights are ``float64`` unless ``dtype`` says otherwise.  An
    edge given twice (including ``u v`` and ``v u`` in an undirected file)
    is kept once when the weights agree; different weights raise
    :class:`InvalidValue` unless ``dup_op`` (e.g. ``gb.binary.plus``)
    combines all duplicates.
    """
    text, name = read_text(source, "read_edgelist")
    src = _Src(text, name, comment, delimiter)
    first = next(src.data_lines(), None)
    if first is None:
        n = 0 if nrows is None else _check_nrows(nrows)
        dt = dtypes.lookup(dtype) if dtype is not None else (
            dtypes.FP64 if weighted else dtypes.BOOL)
        return Matrix(dt, n, n, device=device)
    ncol = len(first[1])
    if ncol < 2:
        raise src.error(first[0], f"expected 'u v' or 'u v weight', got {len(first[1])} "
                                  f"column: {' '.join(first[1])[:80]!r}")
    if weighted is None:
        weighted = ncol >= 3
    if weighted and ncol < 3:
        raise src.error(first[0], "weighted=True needs a third column (the weight), got 2")
    dt = dtypes.lookup(dtype) if dtype is not None else (dtypes.FP64 if weighted
                                                          else dtypes.BOOL)
    wdt = dt if dt.kind in "iu" else dtypes.FP64
    fields = [("u", np.int64), ("v", np.int64)] + ([("w", wdt)] if weighted else [])
    try:
        data = loadtxt(text, np.dtype(fields), comment or None, delimiter=delimiter,
                       usecols=tuple(range(len(fields))))
    except (ValueError, OverflowError, Warning) as e:
        _slow_scan(src, len(fields), weighted, wdt)
        raise InvalidValue(f"{name}: could not read the edges: {e}") from None
    u, v = data["u"], data["v"]
    w = data["w"] if weighted else None
    del data
    base = 1 if one_based else 0
    lo = min(int(u.min()), int(v.min())) if u.shape[0] else base
    if lo < base:
        k = int(np.argmax((u < base) | (v < base)))
        raise src.error(_line_of(src, k), f"vertex id {lo} is below {base}" +
                        (" (one_based=True)" if one_based else " (ids are 0-based)"))
    if base:
        u, v = u - 1, v - 1
    hi = max(int(u.max()), int(v.max())) if u.shape[0] else -1
    if nrows is None:
        n = hi + 1
    else:
        n = _check_nrows(nrows)
        if hi >= n:
            k = int(np.argmax((u >= n) | (v >= n)))
            raise src.error(_line_of(src, k), f"vertex id {hi + base} is outside the "
                                              f"{n} vertices given by nrows={n}")
    ent = np.arange(u.shape[0])
    if not directed:
        off = np.flatnonzero(u != v)
        u, v = np.concatenate([u, v[off]]), np.concatenate([v, u[off]])
        if weighted:
            w = np.concatenate([w, w[off]])
        ent = np.concatenate([ent, off])
    if dup_op is None:
        u, v, w, ent = _collapse(src, u, v, w, ent, n)
    if weighted:
        vals = w.astype(dt, copy=False) if dt != dtypes.BOOL else w != 0
    else:
        vals = dt.type(True)
    return Matrix.from_coo(u, v, vals, n, n, dtype=dt, dup_op=dup_op, device=device)


def _check_nrows(nrows):
    if isinstance(nrows, (bool, np.bool_)) or not isinstance(nrows, (int, np.integer)) or \
            nrows < 0:
        raise InvalidValue(f"read_edgelist: nrows must be a non-negative integer, got {nrows!r}")
    return int(nrows)


def _collapse(src, u, v, w, ent, n):
    """Drop repeated (u, v, w); raise on a repeated (u, v) with another weight."""
    if u.shape[0] < 2:
        return u, v, w, ent
    keys = u * np.int64(max(n, 1)) + v
    order = np.lexsort((w, keys)) if w is not None else np.argsort(keys, kind="stable")
    sk = keys[order]
    same_key = sk[1:] == sk[:-1]
    if not same_key.any():
        return u, v, w, ent
    if w is not None:
        sw = w[order]
        same = same_key & ((sw[1:] == sw[:-1]) | (sw[1:] != sw[1:]) & (sw[:-1] != sw[:-1]))
        conflict = same_key & ~same
        if conflict.any():
            d = int(np.flatnonzero(conflict)[0])
            e1, e2 = sorted((int(ent[order[d]]), int(ent[order[d + 1]])))
            l1, l2 = _line_of(src, e1), _line_of(src, e2)
            i, j = int(u[order[d]]), int(v[order[d]])
            where = f"lines {l1} and {l2}" if l1 != l2 else f"line {l1}"
            raise src.error(l2, f"edge ({i}, {j}) has two different weights ({where}); pass "
                                "dup_op=gb.binary.plus (or another operator) to combine "
                                "duplicate edges")
    else:
        same = same_key
    keep = np.ones(sk.shape[0], dtype=bool)
    keep[1:] = ~same
    sel = order[keep]
    return u[sel], v[sel], (w[sel] if w is not None else None), ent[sel]


def _line_of(src, k):
    for count, (lineno, _) in enumerate(src.data_lines()):
        if count == k:
            return lineno
    return "?"


def _slow_scan(src, need, weighted, wdt):
    lo, hi = (dtypes.min_value(wdt), dtypes.max_value(wdt)) if wdt.kind in "iu" else (0, 0)
    for lineno, toks in src.data_lines():
        if len(toks) < need:
            raise src.error(lineno, f"expected at least {need} columns "
                                    f"({'u v weight' if weighted else 'u v'}), got "
                                    f"{len(toks)}: {' '.join(toks)[:80]!r}")
        for tok, nm in zip(toks[:2], ("source", "target")):
            if not INT_RE.match(tok):
                raise src.error(lineno, f"the {nm} vertex id must be an integer, got {tok!r}")
            if int(tok) > _MAX_ID:
                raise src.error(lineno, f"the {nm} vertex id {tok} is larger than the largest "
                                        f"supported id 2**63 - 1")
        if weighted:
            problem = number_token_problem(toks[2], wdt, lo, hi, "weight", "a number")
            if problem:
                raise src.error(lineno, problem)


def write_edgelist(target, A, *, weighted=None, directed=True, delimiter=" ",
                   one_based=False, comment=""):
    """Write ``A``'s entries as ``u v [weight]`` lines.

    ``weighted``: ``None`` writes weights unless ``A`` is ``bool``.
    ``directed=False`` needs a symmetric ``A`` and writes each edge once
    (``u <= v``).  ``comment`` lines are written first, prefixed by ``#`` and a space.
    """
    if not isinstance(A, Matrix):
        raise InvalidValue(f"write_edgelist: expected a graphblast_py Matrix, got "
                           f"{type(A).__name__}")
    if A.nrows != A.ncols:
        raise InvalidValue(f"write_edgelist: the matrix must be square (an adjacency "
                           f"matrix), got {A.nrows} x {A.ncols}")
    r, c, v = (np.asarray(x) for x in A.to("cpu").to_coo())
    r, c = r.astype(np.int64, copy=False), c.astype(np.int64, copy=False)
    if weighted is None:
        weighted = A.dtype != dtypes.BOOL
    if not directed:
        from .matrixmarket import _holds_coo
        if not _holds_coo("symmetric", r, c, v, A.shape, A.dtype, not weighted):
            raise InvalidValue("write_edgelist: directed=False needs a symmetric matrix "
                               "(A == A.T)")
        keep = r <= c
        r, c, v = r[keep], c[keep], v[keep]
    if one_based:
        r, c = r + 1, c + 1
    cols = [r, c]
    if weighted:
        if v.dtype == np.bool_:
            v = v.astype(np.int8)
        elif v.dtype.kind == "f":
            v = v.astype(np.float64, copy=False)
        cols.append(v)
    with text_writer(target, "write_edgelist") as write:
        for line in str(comment).splitlines() if comment else ():
            write(f"# {line}\n")
        format_lines(write, cols, delimiter.join(["{}"] * len(cols)))
