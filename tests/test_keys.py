"""split_keys (the one row/column split of linear keys) against NumPy's divmod."""
import numpy as np
import pytest

from graphblast_py.backend.keys import split_keys


@pytest.mark.parametrize("ncols", [1, 2, 3, 7, 8, 64, 1000, 1024, 2**31 + 5, 2**32])
def test_split_keys_matches_divmod(ncols):
    rng = np.random.default_rng(ncols % 1000)
    nrows = 2**62 // ncols
    keys = np.sort(rng.integers(0, nrows * ncols, 500, dtype=np.int64))
    keys[0] = 0
    r, c = split_keys(keys, np.int64(ncols))
    er, ec = np.divmod(keys, ncols)
    assert r.dtype == np.int64 and c.dtype == np.int64
    np.testing.assert_array_equal(r, er)
    np.testing.assert_array_equal(c, ec)


def test_split_keys_empty_and_zero_columns():
    keys = np.zeros(0, dtype=np.int64)
    for ncols in (0, 1, 5, 8):
        r, c = split_keys(keys, ncols)
        assert r.shape == (0,) and c.shape == (0,)


def test_split_keys_scalar():
    assert tuple(map(int, split_keys(np.int64(17), 5))) == (3, 2)
    assert tuple(map(int, split_keys(np.int64(17), 4))) == (4, 1)
