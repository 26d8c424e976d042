"""``mxv`` (w = A u) and ``vxm`` (w = u A) with direction optimization.

* push: SpMSpV over the stored entries of ``u`` -- cost ~ edges leaving them;
  uses the rows of A for ``vxm`` and its columns (CSC) for ``mxv``; the mask
  is tested per product.
* pull: row-wise SpMV over only the output positions the mask allows -- cost
  ~ edges of those rows, less with early exit for a monoid with a terminal
  value; uses the CSC for ``vxm`` and the CSR for ``mxv``.

``direction="auto"`` compares the two estimates (``push_cost = d * nvals(u)``,
``pull_cost = d * allowed rows * (1/4 when the monoid can exit early)``, d the
mean degree; push only when strictly cheaper; the backend's
``push_cost_weight`` scales push's estimate where its per-edge cost differs
from pull's, its ``pull_row_cost`` adds a cost per allowed row, and where
``exact_push_edges`` is set the frontier's exact edge count replaces
``d * nvals(u)`` for vxm -- see ``_choose``) -- GraphBLAST's switch; the choice is recorded in ``gb.stats``.  Counts not known on the host are taken
as their upper bound (see ``Vector._nvals_estimate``): choosing never waits
on the device.

Descriptor switches (GraphBLAST's GrB_STRUCONLY, mask-first, GrB_EARLYEXIT;
``pull_input`` is GrB_OPREUSE and ``direction`` GrB_MXVMODE), all True by
default; switching one off never changes the result, only the work:

* ``structure_only=False`` -- the kernels read the matrix's values even when
  the multiply ignores them (an iso matrix materialises its value array);
* ``mask_first=False`` -- pull computes every row and push tests no mask in
  the kernel; the output rule applies the mask afterwards;
* ``early_exit=False`` -- pull reduces every term of a row, even after the
  monoid's terminal value (or, for ``any``, the first term).

A call with a switch off is recorded in ``gb.stats`` history with
``switches={...}``; the auto cost model counts the work the switches imply
(all rows without mask-first, no early-exit discount without early exit).
"""
from ..dtypes import lookup
from ..errors import DimensionMismatch, InvalidValue
from ..mask import Mask
from ..matrix import Matrix
from ..vector import Vector
from ..stats import stats
from ..results import SparseResult
from . import relax, speculate
from ..operators.core import Semiring
from .common import as_semiring, check_replace, check_user_op, finish, prepare

EARLY_EXIT_FACTOR = 0.25


def mxv(A, u, semiring, *, mask=None, accum=None, replace=False, out=None, direction="auto",
        pull_input=None, structure_only=True, mask_first=True, early_exit=True):
    """``w<mask> = accum(w, A (+).(x) u)``: see :meth:`Matrix.mxv`."""
    return _matvec("mxv", A, u, semiring, mask, accum, replace, out, direction, pull_input,
                   structure_only, mask_first, early_exit, swap=False)


def vxm(u, A, semiring, *, mask=None, accum=None, replace=False, out=None, direction="auto",
        pull_input=None, structure_only=True, mask_first=True, early_exit=True):
    """``w<mask> = accum(w, u (+).(x) A)``: see :meth:`Vector.vxm`."""
    return _matvec("vxm", A, u, semiring, mask, accum, replace, out, direction, pull_input,
                   structure_only, mask_first, early_exit, swap=True)


def _check_switches(what, structure_only, mask_first, early_exit):
    for name, v in (("structure_only", structure_only), ("mask_first", mask_first),
                    ("early_exit", early_exit)):
        if type(v) is not bool:
            raise InvalidValue(f"{what}: {name} must be True or False, got {v!r} "
                               f"({type(v).__name__})")


def _matvec(what, A, u, semiring, mask, accum, replace, out, direction, pull_input,
            structure_only, mask_first, early_exit, swap):
    defaults = structure_only is True and mask_first is True and early_exit is True
    if (defaults and accum is None and u.__class__ is Vector and u._spec is not None
            and mask.__class__ is Mask and direction.__class__ is str and direction == "auto"):
        # a later level of a traversal already computed: the lean path, taken
        # only where every check below would pass (operations/speculate.py)
        r = speculate.answer(what, A, u, semiring, mask, replace, out, pull_input, swap)
        if r is not None:
            return r
    if (mask is None and out is None and accum is None and defaults and replace is False
            and pull_input is None and direction.__class__ is str and direction == "auto"
            and u.__class__ is Vector and A.__class__ is Matrix):
        # a plain product of a small sparse vector (an SSSP round's ``t =
        # f min.+ A``): the lean path, taken only where every check below
        # would pass and the cost model would push
        if u._spec is not None:
            # a round of a shortest-path chain a kernel run already answers
            # (operations/relax.py)
            r = relax.product(what, A, u, semiring, swap)
            if r is not None:
                return r
        r = _plain_push(what, A, u, semiring, swap)
        if r is not None:
            relax.note_product(A, u, semiring, swap, r)
            return r
    if not defaults:
        _check_switches(what, structure_only, mask_first, early_exit)
    plain = (mask is None and out is None and accum is None and defaults and replace is False
             and pull_input is None and direction.__class__ is str and direction == "auto")
    semiring = as_semiring(semiring, what)
    if not isinstance(A, Matrix) or not isinstance(u, Vector):
        raise InvalidValue(f"{what}: expected a Matrix and a Vector, got {type(A).__name__} and "
                           f"{type(u).__name__}")
    n_in, n_out = (A.nrows, A.ncols) if swap else (A.ncols, A.nrows)
    if u.size != n_in:
        if swap:
            raise DimensionMismatch(f"vxm: vector of size {u.size} times a {A.nrows}x{A.ncols} "
                                    f"matrix: the size must equal nrows ({A.nrows})")
        raise DimensionMismatch(f"mxv: {A.nrows}x{A.ncols} matrix times a vector of size "
                                f"{u.size}: the size must equal ncols ({A.ncols})")
    if direction not in ("auto", "push", "pull"):
        raise InvalidValue(f"{what}: direction must be 'auto', 'push' or 'pull', got "
                           f"{direction!r}")
    check_replace(replace, what)
    ops = [("the matrix", A), ("the vector", u)]
    if pull_input is not None:
        if not isinstance(pull_input, Vector) or pull_input.size != u.size:
            raise InvalidValue(f"{what}: pull_input must be a Vector of size {u.size}")
        ops.append(("pull_input", pull_input))
    accum = prepare(what, ops, out, (n_out,), True, mask, accum)
    be = A._be
    if n_out > 1 << 26:
        be.check_alloc(n_out * 16, f"{what}: an output accumulator of size {n_out}")
    check_user_op(semiring, be, what)
    out_dtype = semiring.out_dtype(*((u.dtype, A.dtype) if swap else (A.dtype, u.dtype)))
    mult_reads_a = semiring.mult.reads_y if swap else semiring.mult.reads_x
    reads_a = mult_reads_a or not structure_only
    # an iso matrix whose value the multiply reads: the kernels get the one
    # value, not an array of it (structure_only=False still loads an array)
    a_iso = A.iso_value if (mult_reads_a and structure_only) else None
    if a_iso is not None:
        reads_a = False
    kmask = mask if mask_first else None       # the mask the kernel sees

    link = None
    if (accum is None and defaults and direction == "auto" and mask is not None
            and mask.complement and mask.structure and be.speculate
            and (replace or out is None or out._is_empty_fresh())):
        # a BFS-shaped step: answered from a whole-traversal kernel when it
        # continues a chain of them (operations/speculate.py)
        T, link = speculate.begin(what, A, u, mask.parent, out, semiring, out_dtype, swap,
                                  n_out, be)
        if T is not None:
            out = speculate.store(out, T, out_dtype, n_out, be)
            speculate.end(out, mask.parent, link)
            return out
    if direction == "auto":
        direction = _choose(A, u, kmask, semiring, n_in, n_out, early_exit, swap)
    if defaults:
        stats.record(what, direction)
    else:
        stats.record(what, direction, switches={"structure_only": structure_only,
                                                "mask_first": mask_first,
                                                "early_exit": early_exit})
    # the mask as a dense array the kernel tests (and whether it is the
    # complement).  The kernels only read their vector operands and the mask
    # during the call and keep none of them (their results are new arrays),
    # so these are lent (Vector._lend): the vectors keep their arrays as
    # their own, and a later in-place update (a BFS level update of the
    # visited vector that was the mask and pull's input) copies nothing
    allowed, comp = kmask.dense_parts() if kmask is not None else (None, False)
    if direction == "push":
        P = A._csr(reads_a) if swap else A._csc_arrays(reads_a)
        # the frontier as stored when the backend's push takes a dense one (no
        # conversion, no device wait), else its sorted indices
        x = u._lend() if be.dense_vectors else SparseResult(*u._sparse())
        longest = None
        if x.__class__ is not SparseResult:     # a dense frontier: tell the backend how
            longest = _longest_row(A, swap, P[0])   # long P's rows get
        T = be.push(P, x, semiring, allowed, swap, out_dtype, n_out,
                    structure_only=structure_only, complement=comp, max_row_length=longest,
                    a_iso=a_iso)
    else:
        R = A._csc_arrays(reads_a) if swap else A._csr(reads_a)
        if (accum is not None and kmask is None and out is not None and not replace
                and not reads_a and pull_input is None):
            if _pull_into(be, R, u, semiring, accum, out, out_dtype, swap,
                          A._cached(("pull", swap), dict), a_iso):
                return out
        src = pull_input if pull_input is not None else u
        T = be.pull(R, src._dense(lend=True), semiring, allowed, swap, out_dtype,
                    structure_only=structure_only, early_exit=early_exit, complement=comp,
                    a_iso=a_iso, cache=A._cached(("pull", swap), dict))
    # the kernel applied the mask it was given (mask_first): the output rule
    # trusts it and, with replace or into an empty out, takes T as it is
    out = finish(out, T, out_dtype, (n_out,), be, mask, accum, replace, True,
                 masked=kmask is not None)
    if link is not None:
        speculate.end(out, mask.parent, link)
    elif plain and be.relax:
        # a plain product the plain push did not take (the GPU's, a pull):
        # a round of a shortest-path chain all the same (operations/relax.py)
        relax.note_product(A, u, semiring, swap, out)
    return out


def _plain_plan(A, u, semiring, swap, n_in, n_out):
    """What a plain push of ``u``'s type through ``A`` with ``semiring``
    needs that depends only on them (kept with A until it changes): the
    output type, whether the kernel reads A's values, A's iso value for
    the kernel, pull's cost without its per-row term and the longest row
    of push's operand (None where the cost model does not use it)."""
    # (the output type as finish() looks it up: the plain push builds its
    # result itself)
    out_dtype = lookup(semiring.out_dtype(*((u.dtype, A.dtype) if swap else
                                            (A.dtype, u.dtype))))
    mult_reads_a = semiring.mult.reads_y if swap else semiring.mult.reads_x
    a_iso = A.iso_value if mult_reads_a else None
    reads_a = mult_reads_a and a_iso is None
    nnz = A.nvals
    per_row = nnz / max(n_out, 1)
    if _exits(semiring, A.dtype, u.dtype):
        per_row *= EARLY_EXIT_FACTOR
    be = A._be
    longest = None
    if swap and be.exact_push_edges:
        longest = _longest_row(A, True, A._csr(False)[0])
    # (the backend's push plan is made at the first push, from the arrays
    # it pushes along: a CSC the matrix does not keep is not built here)
    return out_dtype, reads_a, a_iso, nnz, per_row, longest, _UNSET


_UNSET = object()


def _plain_push(what, A, u, semiring, swap):
    """``u A`` (``A u``) with no mask, accum or out, the default switches
    and direction "auto", for a sparse ``u`` where the cost model's first
    test already chooses push: the ordinary path's result (the same kernel
    and output) without its set-up -- the argument checks (each would pass:
    a predefined Semiring object, sizes that agree, one device), the output
    type, iso value and cost terms, which are worked out once per matrix
    contents, semiring and ``u``'s type (``_plain_plan``).  None where any
    of that does not hold (the ordinary path then runs)."""
    be = A._be
    if (u._be is not be or u._form != "sparse" or be.dense_vectors
            or semiring.__class__ is not Semiring or semiring.is_user):
        return None
    n_in, n_out = (A.nrows, A.ncols) if swap else (A.ncols, A.nrows)
    if u.size != n_in or n_out > 1 << 26:
        return None
    key = ("plain", swap, semiring, u.dtype)
    d = A._derived
    plan = d.get(key) if d is not None else None
    if plan is None:
        plan = A._cached(key, lambda: _plain_plan(A, u, semiring, swap, n_in, n_out))
    out_dtype, reads_a, a_iso, nnz, per_row, longest, run = plan
    if nnz == 0:
        return None
    # _choose's push tests (no mask: every output row is allowed)
    pull_cost = (per_row + be.pull_row_cost) * n_out
    nv = u._nvals_estimate()
    if longest is not None:
        if not nv * longest * be.push_cost_weight < pull_cost:
            return None
    elif not nnz / max(n_in, 1) * nv * be.push_cost_weight < pull_cost:
        return None
    stats.record_key(_PUSH_KEYS[swap])
    P = A._csr(reads_a) if swap else A._csc_arrays(reads_a)
    if run is _UNSET:
        run = be.push_plan(P, semiring, out_dtype, a_iso, u.dtype, swap)
        d = A._derived
        if d is not None and d.get(key) is plan:   # (kept unless the matrix changed form)
            d[key] = plan[:-1] + (run,)
    xidx, xvals = u._idx, u._vals
    r = run(P, xidx, xvals, n_out) if run is not None else None
    if r is not None:
        if r[1].dtype == out_dtype:
            # finish's first case for a new vector (a sparse result, no mask:
            # Z = T), its values already of the output type (no cast)
            return Vector._new_sparse(out_dtype, n_out, be, r[0], r[1])
        T = SparseResult(r[0], r[1])
    else:
        T = be.push(P, SparseResult(xidx, xvals), semiring, None, swap, out_dtype, n_out,
                    a_iso=a_iso)
    return finish(None, T, out_dtype, (n_out,), be, None, None, False, True)


# the plain push's record in gb.stats, by swap (record_key: no tuple per call)
_PUSH_KEYS = {False: ("mxv", "push"), True: ("vxm", "push")}


def _pull_into(be, R, u, semiring, accum, out, out_dtype, swap, cache, a_iso=None):
    """``out = accum(out, A (+).(x) u)`` without a mask, ``u`` and ``out``
    full: the backend's kernel writes the output directly (``pull_accum``:
    no product vector, no presence array, no second pass of the output
    rule; connected components' ``A.mxv(gf, min_second, accum=min,
    out=mngf)``), into ``out``'s own array when it owns it and ``u`` is not
    ``out``.  False where the backend has no such kernel for these
    operators and types (the ordinary path then runs).  ``cache``: the
    matrix's dict for what the backend derives from R (as for ``pull``);
    ``a_iso``: the value of every entry of an iso R (R then has no values)."""
    full = out._full_values()
    if full is None or out.dtype != out_dtype:
        return False
    xv, xpres = u._dense(lend=True)
    if xpres is not None:
        return False
    vals, own = full
    new = be.pull_accum(R, xv, semiring, accum, swap, vals, own and vals is not xv, cache=cache,
                        a_iso=a_iso)
    if new is None:
        return False
    out._set_full(new, True)
    return True


def _choose(A, u, mask, semiring, n_in, n_out, early_exit=True, swap=True):
    """GraphBLAST's cost model: push while the frontier's edges are fewer
    than the edges pull would scan (``mask``: the mask the kernel uses).
    Counts come from what the host already knows (``_nvals_estimate``: the
    exact count, else the bound the output rule kept), so choosing never
    waits on the device.  A tie goes to pull (a full input vector without a
    mask: pull is a plain SpMV, push would combine every product atomically).

    Two backend terms refine it where they are cheap: ``frontier_edges``
    (the exact edge count of a sparse frontier, from the row pointers push
    would use; None where it would cost a device read or a transpose) in
    place of ``d * nvals(u)`` -- a frontier next to a hub has many times the
    mean degree -- and ``pull_row_cost``, the cost of visiting an allowed
    row in units of a scanned edge (zero by default)."""
    nnz = A.nvals
    if nnz == 0:
        return "push"
    be = A._be
    if mask is None:
        allowed = n_out
    else:
        m = mask.parent._nvals_estimate()
        allowed = (n_out - m) if mask.complement else m
    per_row = nnz / max(n_out, 1)
    if early_exit and _exits(semiring, A.dtype, u.dtype):
        per_row *= EARLY_EXIT_FACTOR
    pull_cost = (per_row + be.pull_row_cost) * allowed
    nv = u._nvals_estimate()
    edges = None
    if swap and be.exact_push_edges:        # vxm pushes along the rows (the CSR)
        indptr = A._csr(False)[0]
        longest = _longest_row(A, True, indptr)
        if nv * longest * be.push_cost_weight < pull_cost:
            return "push"                   # cheaper even if every row were the longest
        edges = be.frontier_edges(indptr, u._lend())
    if edges is None:
        edges = nnz / max(n_in, 1) * nv
    return "push" if edges * be.push_cost_weight < pull_cost else "pull"


def _longest_row(A, swap, indptr):
    """The longest row of push's operand (A's CSR for vxm, its CSC for mxv;
    ``indptr`` its row pointers), kept with A until it changes."""
    return A._cached(("max_row_length", swap), lambda: A._be.max_row_length(indptr))


_exit_cache = {}


def _exits(semiring, a_dtype, u_dtype):
    """Whether the monoid can stop a row early (any, or a terminal value in
    the output type); cached per semiring and operand types (a BFS asks once
    per level)."""
    key = (semiring, a_dtype, u_dtype)
    r = _exit_cache.get(key)
    if r is None:
        r = _exit_cache[key] = bool(
            semiring.monoid.is_any
            or semiring.monoid.terminal(semiring.out_dtype(a_dtype, u_dtype)) is not None)
    return r
