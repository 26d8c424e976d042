"""The CPU loop kernels' operator dispatch, generated from the operator
definitions (graphblast_py/operators/predefined.py).

The numba kernels in kernels.py take a monoid and a multiply as small integers
(``Monoid.opcode``, ``BinaryOp.opcode``: the order of definition) and call
``_add(op, x, y)`` / ``_mult(op, x, y, i, k, j)``, if-chains that numba inlines
into every kernel.  Their branches are the operators' Python scalar
expressions (``pyexpr``), written into kernels.py between two marker lines so
that numba's on-disk cache (keyed by that file) is invalidated whenever a
definition changes.  ``python3 -m graphblast_py.backend.cpu.opgen`` rewrites
the block; tests/test_operators_consistency.py fails while it is out of date.
"""
from pathlib import Path

BEGIN = "# ---- BEGIN generated operator dispatch (python3 -m graphblast_py.backend.cpu.opgen)"
END = "# ---- END generated operator dispatch"
KERNELS = Path(__file__).with_name("kernels.py")


def _chain(fn, args, cases):
    """An if-chain over ``op`` returning the expression of each opcode."""
    out = ["@njit(inline=\"always\", cache=True)", f"def {fn}({args}):"]
    for t, (code, name, expr) in enumerate(cases):
        if t == len(cases) - 1:
            out.append(f"    else:  # {code}: {name}")
        else:
            out.append(f"    {'if' if t == 0 else 'elif'} op == {code}:  # {name}")
        out.append(f"        return {expr}")
    return out


def dispatch_source():
    """The generated block (marker lines included)."""
    from ...operators.predefined import binary, monoid
    mult = sorted({(op.opcode, op.name, op.pyexpr) for op in binary._ops.values()
                   if op.opcode >= 0})
    add = sorted({(m.opcode, m.name, m.op.pyexpr) for m in monoid._ops.values()
                  if m.opcode >= 0})
    for cases in (mult, add):
        codes = [c[0] for c in cases]
        if codes != list(range(len(codes))):     # definition order: 0, 1, 2, ...
            raise RuntimeError(f"operator opcodes are not 0..n-1: {codes}")
    lines = [BEGIN,
             "# The predefined operators' Python scalar expressions, by opcode.  The",
             "# operands arrive in the compute type; positional multiplies return the",
             "# row i of A, the inner index k or the column j of B.",
             *_chain("_mult", "op, x, y, i, k, j", mult), "", "",
             *_chain("_add", "op, x, y", add), END]
    return "\n".join(lines) + "\n"


def current_block(text=None):
    text = KERNELS.read_text() if text is None else text
    a = text.index(BEGIN)
    b = text.index(END, a) + len(END) + 1
    return text[a:b]


def write():
    text = KERNELS.read_text()
    new = text.replace(current_block(text), dispatch_source())
    if new != text:
        KERNELS.write_text(new)
    return new != text


if __name__ == "__main__":
    print("kernels.py updated" if write() else "kernels.py is up to date")
