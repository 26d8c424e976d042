"""gb.io: Matrix Market, edge lists and conversions, held against SciPy,
networkx, python-graphblas and the files in tests/data (see its README)."""
import gzip
import io
import re

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import graphblast_py as gb
from tests.conftest import host

VALID = ["A.mtx", "karate.mtx", "ldbc-undirected-example.mtx", "matrix_int32.mtx", "s6.mtx",
         "skew_fp64.mtx", "west0067.mtx"]
MANGLED = [f"mangled{k}.mtx" for k in range(1, 6)]


def dense_of(A):
    """(values with 0 where absent, presence) as NumPy arrays."""
    r, c, v = (host(x) for x in A.to_coo())
    D = np.zeros(A.shape, dtype=A.dtype)
    P = np.zeros(A.shape, dtype=bool)
    D[r, c] = v
    P[r, c] = True
    return D, P


def assert_matches_scipy(A, S):
    S = sp.coo_matrix(S)
    S.sum_duplicates()
    assert A.shape == S.shape
    assert A.nvals == S.nnz
    D, P = dense_of(A)
    Pref = np.zeros(S.shape, dtype=bool)
    Pref[S.row, S.col] = True
    assert np.array_equal(P, Pref)
    np.testing.assert_array_equal(D[S.row, S.col].astype(S.dtype), S.data)


def mm(text, **kw):
    return gb.io.mmread(io.StringIO(text), **kw)


# ------------------------------------------------------------------ the data files
def test_lazy_namespace():
    assert gb.io.mmread is gb.io.matrixmarket.mmread
    assert gb.generators.kronecker(3, seed=1).shape == (8, 8)     # resolves and runs


@pytest.mark.parametrize("name", VALID)
def test_data_files_match_scipy(data_dir, name):
    A = gb.io.mmread(data_dir / name)
    S = scipy.io.mmread(str(data_dir / name))
    assert_matches_scipy(A, S)
    field = gb.io.mminfo(data_dir / name)[4]
    if field == "pattern":
        assert A.dtype == np.bool_ and A.iso and A.iso_value
    elif field == "integer":
        assert A.dtype.kind == "i"
    else:
        assert A.dtype == np.float64


def test_data_files_dtypes_and_symmetry(data_dir):
    A = gb.io.mmread(data_dir / "matrix_int32.mtx")
    assert A.dtype == np.int32          # from the %%GraphBLAS type line
    assert A[3, 0] == -2147483648 and A[0, 1] == 2147483647 and A[3, 2] == 0
    assert gb.io.mmread(data_dir / "matrix_int32.mtx", dtype="int64").dtype == np.int64
    K = gb.io.mmread(data_dir / "karate.mtx")
    assert K.shape == (34, 34) and K.nvals == 156 and K.isequal(K.T)
    L = gb.io.mmread(data_dir / "ldbc-undirected-example.mtx")
    assert L.dtype == np.float64 and L.isequal(L.T) and L[1, 0] == 0.9 and L[0, 1] == 0.9


def test_skew_file(data_dir):
    A = gb.io.mmread(data_dir / "skew_fp64.mtx")
    assert A.nvals == 20                 # 10 stored entries, mirrored; no diagonal
    r, c, v = (host(x) for x in A.to_coo())
    assert not np.any(r == c)
    D, P = dense_of(A)
    assert np.array_equal(P, P.T)
    assert np.array_equal(D, -D.T)
    assert A[4, 0] == np.inf and A[0, 4] == -np.inf
    assert A[3, 0] == -.12565458736262625 and A[0, 3] == .12565458736262625


@pytest.mark.parametrize("name", MANGLED)
def test_mangled_files(data_dir, name):
    with pytest.raises(gb.MatrixMarketError, match=rf"{name}, line \d+: ") as e:
        gb.io.mmread(data_dir / name)
    want = {"1": "line 1: unknown object", "2": "line 1: unknown format",   # what and where
            "3": "line 1: unknown field", "4": "line 1: unknown symmetry",
            "5": "line 5: expected 2 numbers"}[name[len("mangled")]]
    assert want in str(e.value), str(e.value)


def test_mangled_messages(data_dir):
    msgs = {}
    for name in MANGLED:
        with pytest.raises(gb.MatrixMarketError) as e:
            gb.io.mmread(data_dir / name)
        msgs[name] = str(e.value)
    assert "unknown object 'mangled'" in msgs["mangled1.mtx"]
    assert "unknown format 'mangled'" in msgs["mangled2.mtx"]
    assert "unknown field 'mangled'" in msgs["mangled3.mtx"]
    assert "unknown symmetry 'mangled'" in msgs["mangled4.mtx"]
    assert "line 5" in msgs["mangled5.mtx"] and "got 4" in msgs["mangled5.mtx"]


def test_read_on_device(data_dir, device):
    A = gb.io.mmread(data_dir / "west0067.mtx", device=device)
    assert A.device == device
    assert_matches_scipy(A, scipy.io.mmread(str(data_dir / "west0067.mtx")))


# ------------------------------------------------------------------ malformed headers/entries
HDR = "%%MatrixMarket matrix coordinate real general\n"
BAD = [
    ("", 1, "empty"),
    ("hello\n3 3 1\n1 1 1\n", 1, "banner"),
    ("%%MatrixMarket matrix coordinate real\n3 3 0\n", 1, "4 words"),
    ("%%MatrixMarket vector coordinate real general\n3 3 0\n", 1, "unknown object"),
    ("%%MatrixMarket matrix sparse real general\n3 3 0\n", 1, "unknown format"),
    ("%%MatrixMarket matrix coordinate complex general\n3 3 1\n1 1 1 0\n", 1, "complex"),
    ("%%MatrixMarket matrix coordinate double general\n3 3 0\n", 1, "unknown field"),
    ("%%MatrixMarket matrix coordinate real upper\n3 3 0\n", 1, "unknown symmetry"),
    ("%%MatrixMarket matrix array pattern general\n3 3\n", 1, "pattern"),
    ("%%MatrixMarket matrix coordinate pattern skew-symmetric\n3 3 0\n", 1, "pattern"),
    (HDR + "% only comments\n", 2, "ends before the size line"),
    (HDR, 1, "ends before the size line"),
    (HDR + "3 3\n", 2, "3 integers"),
    (HDR + "3 3 1 1\n1 1 1\n", 2, "3 integers"),
    (HDR + "3 x 1\n1 1 1\n", 2, "ncols .* integer"),
    (HDR + "3 3.0 1\n1 1 1\n", 2, "ncols .* integer"),
    (HDR + "-3 3 1\n1 1 1\n", 2, "non-negative"),
    (HDR + "3 3 -1\n", 2, "non-negative"),
    (HDR + "2 2 5\n", 2, "larger than the 4 positions"),
    ("%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", 2, "square"),
    ("%%MatrixMarket matrix array real general\n2 2 4\n", 2, "2 integers"),
    ("%%MatrixMarket matrix coordinate real general\n%%GraphBLAS type GxB_FC64\n1 1 0\n", 2,
     "unknown %%GraphBLAS type"),
    (HDR + "3 3 2\n1 1 1\n", 3, "ends after 1 of the 2"),
    (HDR + "3 3 0\n", None, None),                                  # valid, empty
    (HDR + "3 3 1\n1 1 1\n2 2 2\n", 4, "more entries than the 1"),
    (HDR + "3 3 1\n\n% c\n1 1 1\n2 2 2\n", 6, "more entries than the 1"),
    (HDR + "3 3 2\n1 1 1\n2 2\n", 4, "expected 3 numbers"),
    (HDR + "3 3 2\n1 1 1\n2 2 2 2\n", 4, "expected 3 numbers"),
    (HDR + "3 3 2\n1 1 1\n2 x 2\n", 4, "column index must be an integer"),
    (HDR + "3 3 2\n1 1 1\n2.0 1 2\n", 4, "row index must be an integer"),
    (HDR + "3 3 2\n1 1 1\n2 1 abc\n", 4, "real number"),
    (HDR + "3 3 2\n1 1 1\n2 1 1_0\n", 4, "real number"),
    (HDR + "3 3 2\n1 1 1\n4 1 2\n", 4, r"row index 4 is outside 1\.\.3"),
    (HDR + "3 3 2\n1 1 1\n1 0 2\n", 4, r"column index 0 is outside 1\.\.3"),
    (HDR + "3 3 2\n1 1 1\n-1 1 2\n", 4, "row index -1"),
    (HDR + "3 3 2\n2 1 1\n% x\n2 1 2\n", 5, "entry \\(2, 1\\) is given more than once: "
     "lines 3 and 5"),
    ("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n1 2 1\n", 4,
     "more than once"),
    ("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", 3, "integer"),
    ("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 99999999999999999999\n", 3,
     "does not fit in int64"),
    ("%%MatrixMarket matrix coordinate integer general\n%%GraphBLAS type int8_t\n3 3 1\n"
     "1 1 300\n", 4, "does not fit in int8"),
    ("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n", 3, "expected 2"),
    ("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 5, "ends after 3 of the 4"),
    ("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3 4\n5\n", 5, "expected 1 number"),
    ("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n", 6, "more entries"),
    ("%%MatrixMarket matrix coordinate integer skew-symmetric\n%%GraphBLAS type uint8_t\n"
     "2 2 0\n", 1, "signed"),
]


@pytest.mark.parametrize("text,line,msg", BAD)
def test_malformed(text, line, msg):
    if line is None:
        A = mm(text)
        assert A.shape == (3, 3) and A.nvals == 0
        return
    with pytest.raises(gb.MatrixMarketError) as e:
        mm(text)
    s = str(e.value)
    assert s.startswith(f"<stream>, line {line}: "), s
    assert re.search(msg, s), s


def test_bad_line_found_in_big_file(tmp_path):
    n = 20000
    rng = np.random.default_rng(1)
    r, c = rng.integers(1, 1001, n), rng.integers(1, 1001, n)
    keys = np.unique(r * 2000 + c)
    r, c = keys // 2000, keys % 2000
    lines = [f"{a} {b} {k}.5" for k, (a, b) in enumerate(zip(r.tolist(), c.tolist()))]
    bad = len(lines) - 7
    good = HDR + f"1000 1000 {len(lines)}\n" + "\n".join(lines) + "\n"
    A = mm(good)
    assert A.nvals == len(lines) and A[int(r[3]) - 1, int(c[3]) - 1] == 3.5
    lines[bad] = lines[bad].replace(".5", "e")
    with pytest.raises(gb.MatrixMarketError, match=rf"line {bad + 3}: .*real number"):
        mm(HDR + f"1000 1000 {len(lines)}\n" + "\n".join(lines) + "\n")
    lines[bad] = "1001 1 2"
    with pytest.raises(gb.MatrixMarketError, match=rf"line {bad + 3}: row index 1001"):
        mm(HDR + f"1000 1000 {len(lines)}\n" + "\n".join(lines) + "\n")


@pytest.mark.parametrize("text", [
    HDR + "1000000000000 1000000000000 1000000000000\n1 1 1\n",
    HDR + "100000000000000000 2 0\n",
    "%%MatrixMarket matrix array real general\n10000000 10000000\n1\n",
])
def test_absurd_sizes_refused_before_allocating(text):
    with pytest.raises(gb.OutOfMemory, match="size line"):
        mm(text)


def test_tolerated_variants():
    A = mm("%%matrixmarket MATRIX Coordinate REAL General\r\n% c\r\n\r\n2 2 2\r\n"
           "1 1 1e3 % trailing comment\r\n\r\n2 2 -.5\r\n")
    assert A[0, 0] == 1000.0 and A[1, 1] == -0.5
    H = mm("%%MatrixMarket matrix coordinate real hermitian\n2 2 2\n1 1 1\n2 1 3\n")
    assert H.isequal(mm("%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1\n"
                        "2 1 3\n"))
    S = mm("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n1 2\n3 3\n")
    assert S.nvals == 3 and S.iso and S[1, 0] and S[0, 1] and S[2, 2]
    B = gb.io.mmread(io.BytesIO(b"%%MatrixMarket matrix coordinate integer general\n"
                                b"1 2 1\n1 2 7\n"))
    assert B.dtype == np.int64 and B[0, 1] == 7


def test_dtype_override_and_dup_op():
    text = HDR + "2 2 3\n1 1 1.5\n1 1 2.5\n2 1 -3\n"
    with pytest.raises(gb.MatrixMarketError, match="lines 3 and 4"):
        mm(text)
    A = mm(text, dup_op=gb.binary.plus)
    assert A[0, 0] == 4.0
    assert_matches_scipy(A, scipy.io.mmread(io.StringIO(text)))
    B = mm(text, dup_op="max", dtype="int32")
    assert B.dtype == np.int32 and B[0, 0] == 2 and B[1, 0] == -3
    P = mm("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n", dtype="float32")
    assert P.dtype == np.float32 and P.iso and P[0, 1] == 1.0
    Bo = mm(text, dup_op="plus", dtype=bool)
    assert Bo.dtype == np.bool_ and Bo[1, 0] is True


def test_array_format():
    text = "%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n"
    A = mm(text)
    assert np.array_equal(host(A.to_dense()), scipy.io.mmread(io.StringIO(text)))
    assert A.nvals == 6
    sym = "%%MatrixMarket matrix array integer symmetric\n3 3\n1\n2\n3\n4\n5\n6\n"
    np.testing.assert_array_equal(host(mm(sym).to_dense()), scipy.io.mmread(io.StringIO(sym)))
    skew = "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n"
    D = host(mm(skew).to_dense())
    np.testing.assert_array_equal(D, scipy.io.mmread(io.StringIO(skew)))
    assert np.array_equal(D, -D.T) and D[1, 0] == 1 and D[2, 1] == 3


# ------------------------------------------------------------------ writing
def rand_matrix(n, m, density, dtype, seed, device="cpu"):
    rng = np.random.default_rng(seed)
    S = sp.random(n, m, density=density, random_state=rng, format="coo")
    vals = (rng.standard_normal(S.nnz) * 1000).astype(dtype) if np.dtype(dtype) != bool \
        else rng.random(S.nnz) < 0.5
    return gb.Matrix.from_coo(S.row, S.col, vals, n, m, dtype=dtype, device=device)


def roundtrip(A, **kw):
    f = io.StringIO()
    gb.io.mmwrite(f, A, **kw)
    text = f.getvalue()
    return gb.io.mmread(io.StringIO(text)), text


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "int8", "uint16",
                                   "uint64", "bool"])
def test_roundtrip_general(dtype):
    A = rand_matrix(30, 20, 0.2, dtype, 3)
    if dtype == "float64":
        A[0, 0] = 0.1
        A[1, 1] = np.inf
        A[2, 2] = -1e-300
    B, text = roundtrip(A)
    assert B.dtype == A.dtype and B.isequal(A)
    assert "general" in text.splitlines()[0]
    if dtype != "uint64":   # SciPy reads integers as int64
        assert_matches_scipy(B, scipy.io.mmread(io.StringIO(text)))


def test_roundtrip_symmetric_and_skew():
    S0 = rand_matrix(25, 25, 0.2, "float64", 5)
    S = S0.ewise_add(S0.T, gb.binary.plus)
    B, text = roundtrip(S)
    assert text.splitlines()[0].endswith("real symmetric") and B.isequal(S)
    body = [ln for ln in text.splitlines()[3:]]
    assert len(body) == (S.nvals + S.select("diag").nvals) // 2
    assert_matches_scipy(B, scipy.io.mmread(io.StringIO(text)))
    L = S0.select("tril", -1)
    K = L.ewise_union(L.T, gb.binary.minus, 0.0, 0.0)
    B, text = roundtrip(K)
    assert text.splitlines()[0].endswith("real skew-symmetric") and B.isequal(K)
    assert_matches_scipy(B, scipy.io.mmread(io.StringIO(text)))
    Ki = K.dup("int64")
    B, text = roundtrip(Ki)
    assert text.splitlines()[0].endswith("integer skew-symmetric") and B.isequal(Ki)
    B, text = roundtrip(S, symmetry="general")
    assert "general" in text.splitlines()[0] and B.isequal(S)
    B, text = roundtrip(S, symmetry="hermitian")
    assert "hermitian" in text.splitlines()[0] and B.isequal(S)
    with pytest.raises(gb.InvalidValue, match="not symmetric"):
        gb.io.mmwrite(io.StringIO(), K, symmetry="symmetric")
    with pytest.raises(gb.InvalidValue, match="not skew-symmetric"):
        gb.io.mmwrite(io.StringIO(), S, symmetry="skew-symmetric")


def test_roundtrip_pattern_and_integer(data_dir):
    K = gb.io.mmread(data_dir / "karate.mtx")
    B, text = roundtrip(K)
    assert text.splitlines()[0] == "%%MatrixMarket matrix coordinate pattern symmetric"
    assert B.isequal(K, check_dtype=True) and B.iso
    B, text = roundtrip(K, field="integer", symmetry="general", comment="two\nlines")
    assert text.splitlines()[:4] == ["%%MatrixMarket matrix coordinate integer general",
                                     "%%GraphBLAS type bool", "%two", "%lines"]
    assert B.isequal(K, check_dtype=True)
    F = K.dup("float64")
    B, text = roundtrip(F, field="integer")
    assert " integer " in text.splitlines()[0] and B.isequal(F, check_dtype=True)
    B, text = roundtrip(F, field="pattern")
    assert B.dtype == np.float64 and B.iso and B.isequal(F)
    with pytest.raises(gb.InvalidValue, match="non-integer"):
        gb.io.mmwrite(io.StringIO(), rand_matrix(5, 5, 0.5, "float64", 1), field="integer")
    with pytest.raises(gb.InvalidValue, match="complex"):
        gb.io.mmwrite(io.StringIO(), K, field="complex")


def test_roundtrip_array_format():
    A = rand_matrix(7, 5, 1.0, "float64", 2)
    B, text = roundtrip(A, format="array")
    assert text.splitlines()[0] == "%%MatrixMarket matrix array real general"
    assert B.isequal(A)
    np.testing.assert_array_equal(scipy.io.mmread(io.StringIO(text)), host(A.to_dense()))
    S = A[:5, :5].ewise_add(A[:5, :5].T, gb.binary.plus)
    B, text = roundtrip(S, format="array")
    assert "symmetric" in text.splitlines()[0] and len(text.splitlines()) == 3 + 15
    assert B.isequal(S)
    sparse = rand_matrix(6, 6, 0.3, "int32", 4)
    B, text = roundtrip(sparse, format="array")
    assert B.nvals == 36 and np.array_equal(host(B.to_dense()), host(sparse.to_dense()))
    with pytest.raises(gb.InvalidValue, match="pattern"):
        gb.io.mmwrite(io.StringIO(), sparse, format="array", field="pattern")


def test_write_files_and_streams(tmp_path, device):
    A = rand_matrix(40, 40, 0.1, "float64", 7, device=device)
    for name in ("a.mtx", "a.mtx.gz", "a.mtx.bz2"):
        gb.io.mmwrite(tmp_path / name, A)
        B = gb.io.mmread(tmp_path / name, device=device)
        assert B.device == device and B.isequal(A)
    with gzip.open(tmp_path / "a.mtx.gz", "rt") as f:
        assert f.readline().startswith("%%MatrixMarket")
    buf = io.BytesIO()
    gb.io.mmwrite(buf, A)
    assert gb.io.mmread(io.BytesIO(buf.getvalue())).isequal(A.to("cpu"))
    with open(tmp_path / "b.mtx", "w") as f:
        gb.io.mmwrite(f, A)
    with open(tmp_path / "b.mtx", "rb") as f:
        assert gb.io.mmread(f).isequal(A.to("cpu"))
    assert_matches_scipy(A.to("cpu"), scipy.io.mmread(str(tmp_path / "b.mtx")))
    with pytest.raises(gb.InvalidValue):
        gb.io.mmwrite(io.StringIO(), np.eye(3))
    with pytest.raises(gb.InvalidValue):
        gb.io.mmread(42)


def test_empty_and_degenerate():
    E = gb.Matrix("float64", 0, 0)
    B, _ = roundtrip(E)
    assert B.shape == (0, 0) and B.nvals == 0
    E = gb.Matrix("int16", 3, 5)
    B, text = roundtrip(E)
    assert B.shape == (3, 5) and B.dtype == np.int16 and B.nvals == 0


# ------------------------------------------------------------------ edge lists
def test_edgelist_roundtrip(tmp_path, device):
    A = rand_matrix(50, 50, 0.05, "float64", 11, device=device)
    gb.io.write_edgelist(tmp_path / "e.txt", A, comment="weighted\ngraph")
    text = (tmp_path / "e.txt").read_text()
    assert text.startswith("# weighted\n# graph\n")
    B = gb.io.read_edgelist(tmp_path / "e.txt", nrows=50, device=device)
    assert B.device == device and B.isequal(A)
    P = A.apply(gb.unary.one).dup(bool)
    gb.io.write_edgelist(tmp_path / "p.txt", P, one_based=True, delimiter=",")
    Q = gb.io.read_edgelist(tmp_path / "p.txt", one_based=True, delimiter=",", nrows=50)
    assert Q.iso and Q.dtype == np.bool_ and Q.isequal(P.to("cpu"))


def test_edgelist_undirected_and_networkx():
    import networkx as nx
    text = "# comment\n0 1 2.5\n1 2 1\n\n2 0 4 # trailing\n1 0 2.5\n3 3 7\n"
    A = gb.io.read_edgelist(io.StringIO(text), directed=False)
    G = nx.read_edgelist(io.BytesIO(text.encode()), nodetype=int, data=[("weight", float)])
    ref = nx.to_scipy_sparse_array(G, nodelist=range(4))
    assert_matches_scipy(A, ref)
    assert A.isequal(A.T)
    D = gb.io.read_edgelist(io.StringIO(text), dup_op="plus")
    assert D.nvals == 5 and D[0, 1] == 2.5 and D[1, 0] == 2.5
    U = gb.io.read_edgelist(io.StringIO(text), weighted=False)
    assert U.iso and U.nvals == 5
    I = gb.io.read_edgelist(io.StringIO(text), directed=False, dtype="int64", weighted=False)
    assert I.dtype == np.int64 and I.iso and I.nvals == 7
    Sp = gb.io.read_edgelist(io.StringIO("0 1\n1 0\n0 1\n"), directed=False)
    assert Sp.nvals == 2


@pytest.mark.parametrize("text,kw,line,msg", [
    ("0 1\n1\n", {}, 2, "at least 2 columns"),
    ("0 1 1.0\n1 2\n", {}, 2, "at least 3 columns"),
    ("0\n", {}, 1, "expected 'u v'"),
    ("0 1\n", {"weighted": True}, 1, "third column"),
    ("0 1\na 2\n", {}, 2, "source vertex id must be an integer"),
    ("0 1\n2 1.5\n", {}, 2, "target vertex id must be an integer"),
    ("0 1 x\n", {}, 1, "weight must be a number"),
    ("0 1 1.5\n", {"dtype": "int32"}, 1, "weight must be an integer"),
    ("0 1 -1\n", {"dtype": "uint8"}, 1, "does not fit in uint8"),
    ("0 1\n-1 2\n", {}, 2, "vertex id -1 is below 0"),
    ("1 2\n0 1\n", {"one_based": True}, 2, "vertex id 0 is below 1"),
    ("0 1\n1 5\n", {"nrows": 4}, 2, "vertex id 5 is outside the 4"),
    ("0 1 1\n% x\n0 1 2\n", {"comment": "%"}, 3, r"edge \(0, 1\) has two different weights "
     r"\(lines 1 and 3\)"),
    ("0 1 1\n1 0 2\n", {"directed": False}, 2, "two different weights"),
])
def test_edgelist_errors(text, kw, line, msg):
    with pytest.raises(gb.InvalidValue) as e:
        gb.io.read_edgelist(io.StringIO(text), **kw)
    s = str(e.value)
    assert s.startswith(f"<stream>, line {line}: ") and re.search(msg, s), s


def test_edgelist_misc():
    E = gb.io.read_edgelist(io.StringIO("# nothing\n"), nrows=3)
    assert E.shape == (3, 3) and E.nvals == 0
    A = gb.io.read_edgelist(io.StringIO("0 1 1 2020-01-01\n1 2 3 x\n"))
    assert A.dtype == np.float64 and A[1, 2] == 3.0
    S = gb.io.read_edgelist(io.StringIO("0 1\n1 2\n"), directed=False)
    f = io.StringIO()
    gb.io.write_edgelist(f, S, directed=False)
    assert f.getvalue() == "0 1\n1 2\n"
    with pytest.raises(gb.InvalidValue, match="symmetric"):
        gb.io.write_edgelist(io.StringIO(), gb.io.read_edgelist(io.StringIO("0 1\n")),
                             directed=False)
    with pytest.raises(gb.InvalidValue, match="square"):
        gb.io.write_edgelist(io.StringIO(), gb.Matrix(bool, 2, 3))
    with pytest.raises(gb.InvalidValue, match="nrows"):
        gb.io.read_edgelist(io.StringIO("0 1\n"), nrows=-1)


# ------------------------------------------------------------------ conversions
def test_scipy_wrappers(device):
    S = sp.random(20, 30, density=0.2, random_state=3, format="csr")
    A = gb.io.from_scipy(S, device=device)
    assert A.device == device
    T = gb.io.to_scipy(A)
    assert (abs(sp.csr_matrix(T.get() if hasattr(T, "get") else T) - S)).nnz == 0
    with pytest.raises(gb.InvalidValue):
        gb.io.to_scipy(S)


def test_networkx_roundtrip(data_dir, device):
    import networkx as nx
    G = nx.karate_club_graph()
    A = gb.io.from_networkx(G, device=device)
    assert A.device == device and A.dtype == np.int64 and A.nvals == 2 * G.number_of_edges()
    assert_matches_scipy(A.to("cpu"), nx.to_scipy_sparse_array(G))
    P = gb.io.from_networkx(G, weight=None)
    assert P.iso and P.dtype == np.bool_ and P.isequal(gb.io.mmread(data_dir / "karate.mtx"))
    H = gb.io.to_networkx(A)
    assert not H.is_directed()
    assert nx.utils.edges_equal(H.edges(data="weight"), G.edges(data="weight"))
    D = nx.gnp_random_graph(30, 0.1, seed=2, directed=True)
    D.add_edge(3, 3)
    for u, v in D.edges:
        D[u][v]["w"] = float(u * 100 + v)
    M = gb.io.from_networkx(D, weight="w", dtype="float32")
    assert M.dtype == np.float32 and M[3, 3] == 303.0
    H = gb.io.to_networkx(M, weight="w")
    assert H.is_directed() and sorted(H.edges(data="w")) == sorted(D.edges(data="w"))
    H = gb.io.to_networkx(P, directed=True)
    assert H.is_directed() and H.number_of_edges() == P.nvals and \
        all(not d for _, _, d in H.edges(data=True))
    with pytest.raises(gb.InvalidValue, match="symmetric"):
        gb.io.to_networkx(M, directed=False)


def test_networkx_nodelist_and_special_cases():
    import networkx as nx
    G = nx.Graph()
    G.add_edge("a", "b", weight=0.0)      # an explicit zero stays an entry
    G.add_edge("b", "c", weight=2.0)
    G.add_edge("c", "c", weight=5.0)
    G.add_node("d")
    A = gb.io.from_networkx(G, nodelist=["d", "c", "b", "a"])
    assert A.shape == (4, 4) and A.nvals == 5
    assert A[3, 2] == 0.0 and A[1, 1] == 5.0 and A[1, 2] == 2.0
    H = gb.io.to_networkx(A, nodelist=["d", "c", "b", "a"])
    assert nx.utils.graphs_equal(H, G)
    M = nx.MultiGraph([(0, 1), (0, 1), (1, 2)])
    C = gb.io.from_networkx(M)
    assert C[0, 1] == 2 and C[1, 2] == 1
    assert gb.io.from_networkx(nx.Graph()).shape == (0, 0)
    with pytest.raises(gb.InvalidValue, match="more than once"):
        gb.io.from_networkx(G, nodelist=["a", "a"])
    with pytest.raises(gb.InvalidValue, match="not in the graph"):
        gb.io.from_networkx(G, nodelist=["zz"])
    with pytest.raises(gb.InvalidValue):
        gb.io.from_networkx([(0, 1)])
    with pytest.raises(gb.DimensionMismatch):
        gb.io.to_networkx(gb.Matrix(bool, 2, 3))


def test_graphblas_roundtrip(data_dir, device):
    import graphblas as gbl
    K = gb.io.mmread(data_dir / "karate.mtx", device=device)
    g = gb.io.to_graphblas(K)
    assert isinstance(g, gbl.Matrix) and g.ss.is_iso and g.nvals == K.nvals
    ref = gbl.io.mmread(str(data_dir / "karate.mtx"))
    assert g.isequal(ref.apply(gbl.unary.one).new(dtype=bool))
    B = gb.io.from_graphblas(g, device=device)
    assert B.device == device and B.iso and B.isequal(K)
    W = gb.io.mmread(data_dir / "west0067.mtx")
    gw = gb.io.to_graphblas(W)
    assert gw.isequal(gbl.io.mmread(str(data_dir / "west0067.mtx")))
    assert gb.io.from_graphblas(gw).isequal(W, check_dtype=True)
    assert gb.io.from_graphblas(gw.T).isequal(W.T)
    v = gb.Vector.from_coo([1, 4], [2, -3], size=6, dtype="int16")
    gv = gb.io.to_graphblas(v)
    assert isinstance(gv, gbl.Vector) and gv.dtype == gbl.dtypes.INT16 and gv[4].value == -3
    assert gb.io.from_graphblas(gv).isequal(v)
    with pytest.raises(gb.InvalidValue):
        gb.io.from_graphblas(np.zeros(3))
    with pytest.raises(gb.InvalidValue):
        gb.io.to_graphblas(np.zeros(3))


# ================================================================ issue 14: typing, raw errors
# The typed files in tests/data were written for this project (see its README)
# to exercise LAGraph's typed-file cases; their known answers are their text.
TYPED = [
    ("typed_fp32_inf.mtx", np.float32, (3, 3),
     {(0, 0): np.inf, (1, 2): -np.inf, (2, 1): 2.5, (2, 2): 7.0}),
    ("typed_fp64_inf.mtx", np.float64, (2, 4), {(0, 1): -np.inf, (1, 0): np.inf, (1, 3): -12.0}),
    ("typed_int8.mtx", np.int8, (3, 3), {(0, 0): -128, (1, 1): 127, (2, 0): 5}),
]


@pytest.mark.parametrize("name,dtype,shape,entries", TYPED, ids=[t[0] for t in TYPED])
def test_graphblas_type_line_is_honoured(data_dir, name, dtype, shape, entries, device):
    A = gb.io.mmread(data_dir / name, device=device)
    assert A.dtype == dtype and A.shape == shape and A.nvals == len(entries)
    for (i, j), v in entries.items():
        assert A[i, j] == v
    # and a round trip keeps type and values (mmwrite records the type line)
    f = io.StringIO()
    gb.io.mmwrite(f, A)
    f.seek(0)
    B = gb.io.mmread(f, device=device)
    assert B.dtype == dtype and B.isequal(A)


@pytest.mark.parametrize("name,line,msg", [
    ("typed_bool_bad.mtx", 5, "value 2 is not a bool"),
    ("typed_int8_bad.mtx", 5, "value 128 does not fit in int8"),
    ("typed_uint8_bad.mtx", 4, "value -1 does not fit in uint8"),
    ("skew_diagonal.mtx", 4, r"skew-symmetric .* diagonal"),
    ("headerless.mtx", 1, "header-less files are refused"),
])
def test_typed_and_skew_files_that_must_fail(data_dir, name, line, msg):
    with pytest.raises(gb.MatrixMarketError, match=rf"{name}, line {line}: .*{msg}"):
        gb.io.mmread(data_dir / name)


INT_TYPES = ["int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
             "uint64_t"]


@pytest.mark.parametrize("ctype", INT_TYPES + ["bool"])
def test_every_type_checks_its_range(ctype):
    """For each integer type: its min and max read exactly; one beyond either
    end, a fraction and inf fail naming the line.  bool: only 0 and 1."""
    dt = np.dtype(bool) if ctype == "bool" else np.dtype(ctype[:-2])
    lo, hi = (0, 1) if ctype == "bool" else (int(np.iinfo(dt).min), int(np.iinfo(dt).max))
    head = f"%%MatrixMarket matrix coordinate integer general\n%%GraphBLAS type {ctype}\n"
    A = mm(head + f"2 2 2\n1 1 {lo}\n2 2 {hi}\n")
    assert A.dtype == dt and A[0, 0] == dt.type(lo) and A[1, 1] == dt.type(hi)
    for bad in (lo - 1, hi + 1, "1.5", "inf", "nan"):
        with pytest.raises(gb.MatrixMarketError, match=r"<stream>, line 5: "):
            mm(head + f"2 2 2\n1 1 {lo}\n2 2 {bad}\n")


@pytest.mark.parametrize("ctype,dt", [("float", np.float32), ("double", np.float64)])
@pytest.mark.parametrize("field", ["integer", "real"])
def test_float_types_accept_inf_nan_with_any_numeric_field(ctype, dt, field):
    A = mm(f"%%MatrixMarket matrix coordinate {field} general\n%%GraphBLAS type {ctype}\n"
           "2 2 3\n1 1 inf\n1 2 -Inf\n2 2 nan\n")
    assert A.dtype == dt and A[0, 0] == np.inf and A[0, 1] == -np.inf and np.isnan(A[1, 1])
    # without the type line an integer field stays an integer field
    with pytest.raises(gb.MatrixMarketError, match="line 3: .*integer"):
        mm(f"%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 inf\n")


def test_type_line_decides_the_check_dtype_decides_the_result():
    """dtype= is a cast of the values the file type accepted (C semantics)."""
    text = ("%%MatrixMarket matrix coordinate integer general\n%%GraphBLAS type int8_t\n"
            "1 2 2\n1 1 -5\n1 2 100\n")
    assert mm(text, dtype="float64")[0, 0] == -5.0
    with pytest.raises(gb.MatrixMarketError, match="int8"):
        mm(text.replace("100", "200"), dtype="int64")          # still checked as int8_t


@pytest.mark.parametrize("fmt", ["coordinate", "array"])
def test_skew_symmetric_diagonal(fmt):
    if fmt == "coordinate":
        for diag in ("0", "1.5"):
            with pytest.raises(gb.MatrixMarketError, match="line 4: .*diagonal"):
                mm("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n"
                   f"3 3 {diag}\n")
        A = mm("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n3 1 2\n")
        ref = np.zeros((3, 3))
        ref[2, 0], ref[0, 2] = 2, -2
        np.testing.assert_array_equal(A.to_dense(), ref)
    else:     # the array format stores only the strictly lower triangle: no diagonal to give
        A = mm("%%MatrixMarket matrix array real skew-symmetric\n2 2\n4\n")
        np.testing.assert_array_equal(A.to_dense(), [[0, -4], [4, 0]])


def test_headerless_refused_with_a_hint():
    for text in ("3 3 1\n1 1 2\n", "1 2\n2 3\n"):
        with pytest.raises(gb.MatrixMarketError, match="header-less .*read_edgelist"):
            mm(text)
    with pytest.raises(gb.MatrixMarketError, match="banner"):
        mm("hello\n")


@pytest.mark.parametrize("ext", [".gz", ".bz2", ".xz"])
@pytest.mark.parametrize("damage", ["truncated", "garbage", "not compressed"])
def test_corrupt_compressed_files_name_the_file(tmp_path, ext, damage):
    import bz2
    import lzma
    text = b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 2.5\n"
    blob = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}[ext](text)
    path = tmp_path / f"m.mtx{ext}"
    good = tmp_path / f"good.mtx{ext}"
    good.write_bytes(blob)
    assert gb.io.mmread(good)[0, 0] == 2.5
    path.write_bytes({"truncated": blob[:len(blob) // 2], "garbage": blob[:6] + b"\x00" * 64,
                      "not compressed": text}[damage])
    with pytest.raises(gb.MatrixMarketError, match=re.escape(str(path)) + ": cannot decompress"):
        gb.io.mmread(path)
    with pytest.raises(gb.MatrixMarketError, match="cannot decompress"):
        gb.io.mminfo(path)
    edges = tmp_path / f"e.txt{ext}"
    edges.write_bytes(path.read_bytes())
    with pytest.raises(gb.InvalidValue, match=re.escape(str(edges)) + ": cannot decompress"):
        gb.io.read_edgelist(edges)


@pytest.mark.parametrize("big", ["9223372036854775808", "99999999999999999999", "1" + "0" * 40])
@pytest.mark.parametrize("col", [0, 1])
def test_edgelist_ids_beyond_int64_name_the_line(big, col):
    edge = f"{big} 1" if col == 0 else f"1 {big}"
    with pytest.raises(gb.InvalidValue, match=r"<stream>, line 3: .*vertex id .* larger"):
        gb.io.read_edgelist(io.StringIO(f"0 1\n# c\n{edge}\n"))


@pytest.mark.parametrize("weight", ["abc", None, [1, 2], {"w": 1}, object(), b"1"])
def test_networkx_non_numeric_weights(weight):
    import networkx as nx
    G = nx.Graph()
    G.add_edge("a", "b", weight=1.5)
    G.add_edge("b", "c", weight=weight)
    with pytest.raises(gb.DomainMismatch, match=r"edge \('b', 'c'\) has weight="):
        gb.io.from_networkx(G)
    A = gb.io.from_networkx(G, weight=None)           # the structure alone is fine
    assert A.nvals == 4


def test_byte_order_mark_is_skipped():
    text = "%%MatrixMarket matrix coordinate real general\r\n2 2 1\r\n1 2 3.5\r\n"
    for src in (io.BytesIO(b"\xef\xbb\xbf" + text.encode()), io.StringIO("\ufeff" + text)):
        A = gb.io.mmread(src)
        assert A[0, 1] == 3.5 and A.nvals == 1
    E = gb.io.read_edgelist(io.BytesIO(b"\xef\xbb\xbf0 1 2.5\r\n1 0 1\r\n"))
    assert E[0, 1] == 2.5 and E[1, 0] == 1.0


def test_edgelist_undirected_self_loop_and_nrows_bound():
    """An undirected self-loop is one diagonal entry (not mirrored onto itself:
    with dup_op=plus its weight would double); an id equal to nrows is outside
    and named with its line (added by the tests helper, issue 18)."""
    A = gb.io.read_edgelist(io.StringIO("0 0 2\n0 1 1\n"), directed=False, weighted=True,
                            dup_op=gb.binary.plus)
    assert A.nvals == 3 and A[0, 0] == 2.0 and A[0, 1] == A[1, 0] == 1.0
    with pytest.raises(gb.InvalidValue, match=r"line 2: vertex id 3 is outside the 3 vertices"):
        gb.io.read_edgelist(io.StringIO("0 1\n2 3\n"), nrows=3)
