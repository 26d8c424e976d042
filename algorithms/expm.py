"""The action of the matrix exponential, e^{tA} x, for symmetric A, accurate
at every vertex relative to the largest entry of its connected component
(the accuracy contract below).

Definition
----------
A is symmetric (an undirected graph, weights allowed), x a vector (``None``:
the ones vector), t real.  The result is y = e^{tA} x.  Total
communicability (Benzi & Klymko 2013) is TC(β) = e^{βA} 1, the row sums of
e^{βA}.

Method
------
A Krylov approximation is accurate relative to the norm of what it
approximates, and on a graph with several connected components the entries
of a small component are about e^{tλ_small}, far below eps·e^{tλ_max}: one
Lanczos run over the whole graph returns them as noise.  So the graph is
split by its connected components C (``connected_components``), and since
e^{tA} is block diagonal over them, y_C = e^{tA_C} x_C separately:

* a one-vertex component: y_i = e^{t a_ii} x_i, exactly;
* a component of at most 64 vertices: the dense exponential from the
  eigendecomposition A_C = V Λ Vᵀ;
* every larger component its own Lanczos process (all of them in one run:
  one sparse product per step, inner products summed per component):
  with A_C Q_k ≈ Q_k T_k and T_k = V Λ Vᵀ,

      y_C ≈ ‖x_C‖ Q_k e^{tT_k} e_1 = e^{s_C} · ‖x_C‖ Q_k V e^{t(Λ − s_C)} Vᵀ e_1,
      s_C = max tΛ

  (Saad 1992; Gallopoulos & Saad 1992), k grown until two successive
  approximations agree to ``tol`` relative to ‖y_C‖, or fixed by
  ``krylov_dim``; a breakdown (β ≈ 0: the Krylov space is invariant) ends a
  component early with the exact result.

Each component keeps its own scale s_C, so nothing overflows or underflows
across components.  For A ≥ 0, x ≥ 0 and t ≥ 0 the exact result satisfies
e^{tA} x ≥ x entrywise (e^{tA} ≥ e^{t diag(A)} ≥ I), and the returned y is
held to that bound: no entry is ever negative.

Accuracy contract
-----------------
Per entry, relative to the entry's own component: every entry y_i of a
component C is returned with an absolute error of about tol·‖y_C‖ (the
estimate the convergence test measures; in practice far below it), so an
entry of size at least ρ·max_C|y| is accurate to about tol/ρ relatively.
One-vertex components are exact; components of at most 64 vertices to
about 1e-12 of max_C|y| (at most 2.3e-13 measured against a 40-digit
reference, ``benchmarks/expm_small.py``; SciPy's dense ``expm``: up to
3.6e-11 on the same graphs).  When ``krylov_dim`` fixes the Krylov
dimension and a component does not reach ``tol``, an
:class:`AccuracyWarning` says how many entries that concerns and the
estimated error; without ``krylov_dim`` that is a
:class:`ConvergenceError`.

With ``return_log_scale=True`` the result is ``(y, s)``: two Vectors with
e^{tA} x = e^{s_i} y_i entrywise (s_i is the log scale of vertex i's
component); otherwise e^s ∘ y is returned and :class:`Overflow` is raised
when an entry exceeds the dtype's range.

Cost: one ``connected_components`` and one symmetry check per matrix (both
kept with the matrix until it changes, as is the sparse operator; or pass
``components=``), then per Lanczos step one sparse product and O(n) vector
work, with α and β read back only for the convergence test.
"""
from graphblast_py import InvalidValue, Vector
from graphblast_py.checks import check_bool, check_int, check_real
from graphblast_py.progress import progress_bar
from graphblast_py.lanczos import (apply_scale, check_finite_vector, check_operator, components_of,
                                   expm_components)
from graphblast_py.hints import GraphLike, Tuple, Union

from .connected_components import connected_components


def expm_multiply(A: GraphLike, x: Union[Vector, None] = None, t: float = 1.0, *,
                  tol: float = 1e-12, max_krylov: int = 300, krylov_dim: Union[int, None] = None,
                  return_log_scale: bool = False, dtype: str = "float64",
                  components: Union[Vector, None] = None,
                  progress: bool = False) -> Union[Vector, Tuple[Vector, Vector]]:
    """e^{tA} x for a symmetric Matrix A: a Vector, or ``(y, s)`` (two
    Vectors, e^{tA} x = e^s ∘ y) with ``return_log_scale``.  See the module.

    ``components``: an int Vector of component labels of A (as
    ``connected_components`` returns) to reuse; computed when ``None``.
    ``progress=True``: a tqdm bar on stderr counting the Lanczos steps (needs
    tqdm)."""
    t = check_real(t, "expm_multiply", "t")
    tol = check_real(tol, "expm_multiply", "tol", lo=0, lo_open=True)
    max_krylov = check_int(max_krylov, "expm_multiply", "max_krylov")
    if krylov_dim is not None:
        krylov_dim = check_int(krylov_dim, "expm_multiply", "krylov_dim")
    check_bool(return_log_scale, "expm_multiply", "return_log_scale")
    check_bool(progress, "expm_multiply", "progress")
    A = check_operator(A, "expm_multiply", dtype)
    if x is None:
        x = Vector(A.dtype, A.nrows, device=A.device)
        x.assign(1)
    else:
        if not isinstance(x, Vector) or x.size != A.nrows:
            raise InvalidValue(f"expm_multiply: x must be a Vector of size {A.nrows}, got {x!r}")
        check_finite_vector(x, "expm_multiply", "x")
    if components is None:
        components = components_of(A, connected_components)
    elif not isinstance(components, Vector) or components.size != A.nrows or \
            components.dtype.kind not in "iu":
        raise InvalidValue(f"expm_multiply: components must be an integer Vector of size "
                           f"{A.nrows} (connected_components(A)), got {components!r}")
    limit = krylov_dim or max_krylov
    with progress_bar(limit, "expm_multiply", progress) as bar:
        y, s, _ = expm_components(A, x, t, components, tol=tol, limit=limit,
                                  fixed=krylov_dim is not None, progress=bar.update)
    return (y, s) if return_log_scale else apply_scale(y, s)


def total_communicability(A: GraphLike, beta: float = 1.0,
                          **kwargs) -> Union[Vector, Tuple[Vector, Vector]]:
    """e^{βA} 1 (Benzi & Klymko): a Vector, or ``(y, s)`` with
    ``return_log_scale=True``; keywords as :func:`expm_multiply`."""
    return expm_multiply(A, None, t=beta, **kwargs)
