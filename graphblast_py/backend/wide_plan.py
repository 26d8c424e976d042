"""How a wide traversal run starts (``backend/gpu/traverse.py``,
``traverse_wide``): written without CuPy so that the decision is tested on
every machine.

Before its first level a run needs the frontier's size, the first
level's direction, the frontier listed (a top-down level reads a list) and
its vertices labelled (a bottom-up level looks for them).  Beamer's rule
(direction-optimizing BFS, SC 2012) picks the direction from the
frontier's out-edges, which only a read of a counter gives; its second
rule -- bottom-up while the frontier has at least n/beta vertices -- needs
only the size.  So the size decides, with no read, where it is known and
either small for a *listed* frontier (a source, a few vertices) or big;
a dense frontier of unknown or small size is listed, labelled, its
out-edges counted and read first: a small set of hubs can hold most of
the graph's edges (at Kronecker 22 the hub's neighbours are fewer than
n/24, and pushing from them took 6.6 ms against 1.9 ms bottom-up).
"""
from typing import NamedTuple, Optional


class WideStart(NamedTuple):
    """``nf``: the frontier's size (-1: counted on the device and read);
    ``push``: the first level top-down (None: decided after the read);
    ``compact``: list a dense frontier first; ``count_start``: label the
    listed frontier and count its out-edges (``wide_start``)."""
    nf: int
    push: Optional[bool]
    compact: bool
    count_start: bool


def plan_start(form: str, n: int, count: Optional[int], beta: float) -> WideStart:
    """The plan for a frontier of ``form`` "listed" (``count`` its length),
    "all" (every vertex) or "dense" (``count`` known on the host, or None)
    over ``n`` vertices."""
    if form == "listed":
        nf = int(count)
    elif form == "all":
        nf = n
    elif form == "dense":
        nf = int(count) if count is not None and count * beta >= n else -1
    else:
        raise ValueError(f"plan_start: form must be 'listed', 'all' or 'dense', got {form!r}")
    push = nf * beta < n if nf >= 0 else None
    # a dense frontier's labels come from its presence (wide_init); a listed
    # one pushed from first needs none (its vertices are visited: never
    # claimed)
    count_start = nf < 0 or (form != "dense" and not push)
    return WideStart(nf, push, form == "dense" and nf < 0, count_start)
