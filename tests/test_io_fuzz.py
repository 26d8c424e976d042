"""Reader fuzzing (Hypothesis): Matrix Market texts and edge lists, valid and
corrupted -- CRLF line ends, byte-order marks, tabs, comments, blank lines,
huge numbers.  The contract:

* a valid text reads into exactly the matrix it was generated from (the
  generated data is the reference; SciPy's ``mmread`` and networkx's
  ``parse_edgelist`` are second references for the plain variants), and a
  round trip through ``mmwrite``/``write_edgelist`` gives it back;
* a corrupted text either reads into a matrix that survives the same round
  trip, or raises ``MatrixMarketError`` / ``InvalidValue`` (``OutOfMemory``
  only for a size line whose sizes cannot fit) -- never anything else.

About 2,200 examples in all, derandomized in CI (the "ci" profile); the
explicit ``max_examples`` below keep the run under ~30 s (about 15 s of CPU time).
"""
import io

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

import graphblast_py as gb

ALLOWED = (gb.MatrixMarketError, gb.InvalidValue, gb.OutOfMemory)
FAST = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                  HealthCheck.data_too_large])

INT_TYPES = {"int8_t": np.int8, "int16_t": np.int16, "int32_t": np.int32, "int64_t": np.int64,
             "uint8_t": np.uint8, "uint16_t": np.uint16, "uint32_t": np.uint32,
             "uint64_t": np.uint64}
FLOAT_TYPES = {"float": np.float32, "double": np.float64}


# ---------------------------------------------------------------- generated matrices
@st.composite
def mm_matrices(draw):
    """(header fields, type line or None, dtype, shape, {(i, j): value})."""
    sym = draw(st.sampled_from(["general", "symmetric", "skew-symmetric"]))
    field = draw(st.sampled_from(["real", "integer", "pattern"]))
    if sym == "skew-symmetric" and field == "pattern":
        field = "real"
    n = draw(st.integers(0, 6))
    m = n if sym != "general" else draw(st.integers(0, 6))
    if sym == "general":
        cells = [(i, j) for i in range(n) for j in range(m)]
    elif sym == "symmetric":
        cells = [(i, j) for i in range(n) for j in range(i + 1)]
    else:
        cells = [(i, j) for i in range(n) for j in range(i)]
    pos = draw(st.lists(st.sampled_from(cells), unique=True, max_size=10)) if cells else []
    ctype = None
    if field == "integer":
        ctype = draw(st.sampled_from([None] + [t for t in INT_TYPES
                                               if not (sym == "skew-symmetric" and t[0] == "u")]))
        dt = np.dtype(INT_TYPES[ctype]) if ctype else np.dtype(np.int64)
        info = np.iinfo(dt)
        lo = int(info.min) if sym != "skew-symmetric" else -int(info.max)   # -x must fit
        vals = st.one_of(st.integers(lo, int(info.max)),
                         st.sampled_from([lo, int(info.max), 0]))
    elif field == "real":
        ctype = draw(st.sampled_from([None, "double", "float"]))
        dt = np.dtype(FLOAT_TYPES[ctype]) if ctype else np.dtype(np.float64)
        vals = st.one_of(st.floats(allow_nan=False, allow_infinity=False, width=64),
                         st.sampled_from([1e300, -1e-300, 0.0, -0.0, 2.5, 3.0]))
        if ctype == "float":
            vals = st.floats(allow_nan=False, allow_infinity=False, width=32)
    else:
        dt = np.dtype(bool)
        vals = st.just(True)
    entries = {p: draw(vals) for p in pos}
    return sym, field, ctype, dt, (n, m), entries


def expected_dense(sym, field, dt, shape, entries):
    D = np.zeros(shape, dtype=dt)
    P = np.zeros(shape, dtype=bool)
    for (i, j), v in entries.items():
        D[i, j], P[i, j] = v, True
        if sym != "general" and i != j:
            D[j, i] = v if sym == "symmetric" else -dt.type(v)
            P[j, i] = True
    return D, P


@st.composite
def layouts(draw):
    """How the text is laid out: line end, separator, BOM, comments, number form."""
    return dict(nl=draw(st.sampled_from(["\n", "\r\n"])),
                sep=draw(st.sampled_from([" ", "\t", "  ", " \t "])),
                bom=draw(st.booleans()),
                comment=draw(st.sampled_from([None, "% a comment", "%", "%%  other"])),
                blank=draw(st.booleans()),
                trailing=draw(st.sampled_from(["", " ", "\t", " % note"])),
                efmt=draw(st.sampled_from(["repr", "e", "E"])))


def number(v, field, efmt):
    if field == "integer":
        return str(int(v))
    if efmt == "repr":
        return repr(float(v))
    s = f"{float(v):.17e}"
    return s.upper() if efmt == "E" else s


def render(mat, lay):
    sym, field, ctype, dt, (n, m), entries = mat
    nl, sep = lay["nl"], lay["sep"]
    lines = [f"%%MatrixMarket matrix coordinate {field} {sym}"]
    if ctype:
        lines.append(f"%%GraphBLAS type {ctype}")
    if lay["comment"]:
        lines.append(lay["comment"])
    if lay["blank"]:
        lines.append("")
    lines.append(sep.join(map(str, (n, m, len(entries)))))
    for (i, j), v in entries.items():
        toks = [str(i + 1), str(j + 1)]
        if field != "pattern":
            toks.append(number(v, field, lay["efmt"]))
        lines.append(sep.join(toks) + lay["trailing"])
    text = nl.join(lines) + nl
    return ("\ufeff" if lay["bom"] else "") + text


def check_round_trip(A):
    f = io.StringIO()
    gb.io.mmwrite(f, A)
    f.seek(0)
    B = gb.io.mmread(f)
    assert B.dtype == A.dtype and B.isclose(A, rel_tol=0.0)


@settings(max_examples=500, **FAST)
@given(mm_matrices(), layouts(), st.booleans())
def test_valid_matrix_market_reads_exactly(mat, lay, as_bytes):
    sym, field, ctype, dt, shape, entries = mat
    text = render(mat, lay)
    src = io.BytesIO(text.encode("utf-8")) if as_bytes else io.StringIO(text)
    A = gb.io.mmread(src)
    D, P = expected_dense(sym, field, dt, shape, entries)
    assert A.dtype == dt and A.shape == shape and A.nvals == int(P.sum())
    r, c, v = A.to_coo()
    assert P[r, c].all()
    np.testing.assert_array_equal(v, D[r, c])
    check_round_trip(A)
    if not ctype and not lay["bom"] and field != "pattern" and entries:
        import scipy.io
        S = scipy.io.mmread(io.StringIO(text), spmatrix=True).toarray()
        np.testing.assert_array_equal(S, D.astype(S.dtype))


# ---------------------------------------------------------------- corruption
TOKENS = ["-", "e", "9" * 25, "-" + "9" * 25, "1e999", "-1e999", "nan", "inf", "\t", "\r", "%",
          " ", "\n", "x", "0x1F", "\ufeff", "1.5", "-0", "1_0", "+", ".", "\x00", "é"]


@st.composite
def corrupted(draw, text):
    """``text`` with 1-3 mutations: a token inserted between or replacing
    tokens, a character inserted anywhere, a token or line removed, a line
    duplicated or two lines swapped (never a digit run that could name a
    matrix too large to build quickly)."""
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["insert", "replace", "char", "drop", "dupline", "swap",
                                     "dropline"]))
        lines = text.split("\n")
        k = draw(st.integers(0, max(len(lines) - 1, 0)))
        toks = lines[k].split(" ")
        t = draw(st.integers(0, max(len(toks) - 1, 0)))
        tok = draw(st.sampled_from(TOKENS))
        if kind == "insert":
            toks.insert(t, tok)
        elif kind == "replace" and toks:
            toks[t] = tok
        elif kind == "drop" and toks:
            del toks[t]
        elif kind == "char":
            p = draw(st.integers(0, len(text)))
            text = text[:p] + draw(st.sampled_from(["-", "e", ".", "\t", "\r", "%", "x", " ",
                                                    "\n", "9", "0"])) + text[p:]
            continue
        lines[k] = " ".join(toks)
        if kind == "dupline":
            lines.insert(k, lines[k])
        elif kind == "swap" and len(lines) > 1:
            j = draw(st.integers(0, len(lines) - 1))
            lines[k], lines[j] = lines[j], lines[k]
        elif kind == "dropline":
            del lines[k]
        text = "\n".join(lines)
    return text


@settings(max_examples=900, **FAST)
@given(st.data())
def test_corrupted_matrix_market_reads_or_raises_a_library_error(data):
    mat = data.draw(mm_matrices())
    lay = data.draw(layouts())
    text = data.draw(corrupted(render(mat, lay)))
    try:
        A = gb.io.mmread(io.StringIO(text))
    except ALLOWED as e:
        assert str(e)
        if isinstance(e, gb.OutOfMemory):
            assert "size line" in str(e)
        return
    assert A.nrows <= 10**4 and A.ncols <= 10**4
    check_round_trip(A)


# ---------------------------------------------------------------- edge lists
@st.composite
def edge_lists(draw):
    edges = draw(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), unique=True,
                          max_size=12))
    weighted = draw(st.booleans())
    w = [draw(st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                        st.integers(-10**6, 10**6).map(float)))
         for _ in edges] if weighted else None
    return edges, w


def render_edges(edges, w, lay):
    lines = []
    if lay["comment"]:
        lines.append("# " + lay["comment"])
    for k, (u, v) in enumerate(edges):
        toks = [str(u), str(v)] + ([number(w[k], "real", lay["efmt"])] if w is not None else [])
        lines.append(lay["sep"].join(toks) + ("" if "%" in lay["trailing"] else lay["trailing"]))
        if lay["blank"] and k == 0:
            lines.append("")
    return ("\ufeff" if lay["bom"] else "") + lay["nl"].join(lines) + lay["nl"]


def edge_round_trip(A):
    f = io.StringIO()
    gb.io.write_edgelist(f, A)
    f.seek(0)
    B = gb.io.read_edgelist(f, nrows=A.nrows, dtype=A.dtype)
    assert B.isclose(A, rel_tol=0.0)


@settings(max_examples=300, **FAST)
@given(edge_lists(), layouts())
def test_valid_edge_lists_read_exactly(el, lay):
    import networkx as nx
    edges, w = el
    text = render_edges(edges, w, lay)
    A = gb.io.read_edgelist(io.StringIO(text))
    n = 1 + max((max(e) for e in edges), default=-1)
    D = np.zeros((n, n))
    P = np.zeros((n, n), dtype=bool)
    for k, (u, v) in enumerate(edges):
        D[u, v], P[u, v] = (w[k] if w is not None else 1.0), True
    assert A.shape == (n, n) and A.nvals == len(edges)
    # an empty list has no first line to say whether it is weighted: bool
    assert A.dtype == (np.float64 if w is not None and edges else np.bool_)
    r, c, v = A.to_coo()
    assert P[r, c].all()
    np.testing.assert_array_equal(np.asarray(v, dtype=np.float64), D[r, c])
    edge_round_trip(A)
    # networkx's parser as a second reference
    clean = text.lstrip("\ufeff").replace("\r\n", "\n").split("\n")
    G = nx.parse_edgelist(clean, nodetype=int, create_using=nx.DiGraph,
                          data=[("weight", float)] if w is not None else False)
    got = {(int(i), int(j)) for i, j in zip(r, c)}
    assert got == set(G.edges())
    if w is not None:
        for i, j, x in zip(r.tolist(), c.tolist(), v.tolist()):
            assert G[i][j]["weight"] == x


@settings(max_examples=500, **FAST)
@given(st.data())
def test_corrupted_edge_lists_read_or_raise_invalid_value(data):
    edges, w = data.draw(edge_lists())
    lay = data.draw(layouts())
    text = data.draw(corrupted(render_edges(edges, w, lay)))
    try:
        A = gb.io.read_edgelist(io.StringIO(text))
    except ALLOWED as e:
        assert str(e) and not isinstance(e, gb.MatrixMarketError)
        return
    assume(A.nrows <= 10**4)
    edge_round_trip(A)


@pytest.mark.parametrize("text", ["\ufeff\ufeff0 1\n", "0 1\r\r\n1 2\n", "0\t1\t\n", "\r\n\r\n"])
def test_edge_list_odd_whitespace(text):
    try:
        A = gb.io.read_edgelist(io.StringIO(text))
    except gb.InvalidValue:
        return
    edge_round_trip(A)
