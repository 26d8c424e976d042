"""The CPU backend's counting-sort transpose against SciPy and the generic
(argsort) transpose: same arrays, same dtypes, stable row order."""
import numpy as np
import pytest
import scipy.sparse as sp

import graphblast_py as gb
from graphblast_py.backend.generic import ArrayBackend


@pytest.mark.parametrize("shape,density", [((300, 200), 0.05), ((0, 5), 0.0), ((5, 0), 0.0),
                                           ((50, 70), 0.0), ((1, 1), 1.0), ((40, 40), 0.5)])
def test_transpose_matches_scipy_and_generic(shape, density):
    S = sp.random(*shape, density=density, format="csr", random_state=3)
    S.sort_indices()
    A = gb.Matrix.from_scipy(S)
    be = A._be
    ip, ix, v = A._csr()
    got = be.transpose_csr(ip, ix, v, *shape)
    ref = ArrayBackend.transpose_csr(be, ip, ix, v, *shape)
    for g, r in zip(got, ref):
        assert g.dtype == r.dtype
        np.testing.assert_array_equal(g, r)
    T = S.T.tocsr()
    T.sort_indices()
    np.testing.assert_array_equal(got[0], T.indptr)
    np.testing.assert_array_equal(got[1], T.indices)
    np.testing.assert_array_equal(got[2], T.data)
    assert (A.T.to_scipy() != S.T).nnz == 0
    assert be.transpose_csr(ip, ix, None, *shape)[2] is None
