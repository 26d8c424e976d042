"""The computed result an operation hands to the output rule.

Every operation computes its result ``T`` fully, then hands it to
:func:`graphblast_py.operations.output.write`, which applies
``out<mask, replace> = accum(out, T)`` and gives the new content to the
object's ``_assign_result``.  ``T`` is one of four small named types (one
per storage layout, so no operation converts a result just to pass it on):

* :class:`SparseResult` -- sorted, duplicate-free int64 ``keys`` (vector
  index, or ``i * ncols + j`` for a matrix) and their ``vals``;
* :class:`DenseVectorResult` -- a vector over all positions: ``vals`` and a
  boolean ``present`` (``None``: every position present);
* :class:`CSRResult` -- a matrix in CSR: ``indptr``, ``indices``, ``vals``
  (``None`` for an iso result) and ``iso`` (the one value, else ``None``);
* :class:`DenseMatrixResult` -- a matrix in dense form: 2-D ``vals`` and
  ``present`` (``None``: full).

The backends build :class:`SparseResult` and :class:`CSRResult` too (e.g.
``spgemm_result``), so this module depends on nothing in the package.
"""
from typing import Any, NamedTuple


class SparseResult(NamedTuple):
    keys: Any
    vals: Any


class DenseVectorResult(NamedTuple):
    vals: Any
    present: Any


class CSRResult(NamedTuple):
    indptr: Any
    indices: Any
    vals: Any
    iso: Any


class DenseMatrixResult(NamedTuple):
    vals: Any
    present: Any
