"""A Matrix Market file read in parallel by the workers of a layout.

The client reads the header only.  The body (the entry lines) is cut into one
byte range per worker; worker ``b`` reads its range from the file (a path all
workers can open: a local or shared file system), parses it with NumPy's C
reader, checks the indices and sends each row block its entries (mirrored ones
too for a symmetric file); the row blocks are built where they live.  The
entries never pass through the client.  Errors name the file and the line.
"""
import os

import numpy as np

from .. import dtypes
from ..errors import MatrixMarketError
from ..io import matrixmarket as mmio
from ..io._files import loadtxt
from . import _blocks as B
from .layout import Layout, NotDistributed

HEAD_CHUNK = 1 << 16


def _read_head(path):
    """(header, byte offset of the body): the header parsed from the file's
    first lines (read in chunks until the size line is found)."""
    name = os.fsdecode(path)
    with open(name, "rb") as f:
        raw = b""
        while True:
            more = f.read(HEAD_CHUNK)
            raw += more
            text = raw.decode("latin-1").replace("\r\n", "\n").replace("\r", "\n")
            if raw.startswith(b"\xef\xbb\xbf"):
                raise NotDistributed(f"{name}: a byte-order mark: read it with "
                                     "gb.io.mmread and distribute the matrix")
            try:
                h = mmio._parse_header(text, name)
            except MatrixMarketError as e:
                if more and "ends before the size line" in str(e):
                    continue            # the size line lies further on
                raise
            # the body starts after the size line: find its end in the bytes
            pos = -1
            for _ in range(h.size_line):
                pos = raw.find(b"\n", pos + 1)
                if pos < 0:
                    if more:
                        break
                    return h, len(raw)   # a file that ends with the size line
            else:
                return h, pos + 1


def _lines_before(path, offset):
    with open(path, "rb") as f:
        return f.read(offset).count(b"\n")


def _parse_range(path, start, stop, first, h, dt, offsets):
    """Worker side: the entries whose lines start in [start, stop), checked
    as ``gb.io.mmread`` checks them, split by destination row block:
    ``(count, [(rows, cols, vals) per block])``."""
    name, field, vdt = h.name, h.field, mmio._value_parse_dtype(h)
    with open(path, "rb") as f:
        if not first:                  # skip the line that started before `start`
            f.seek(start - 1)
            head = f.read(stop - start + 1)
            cut = head.find(b"\n")
            data = head[cut + 1:] if cut >= 0 else b""
            start = start + cut if cut >= 0 else stop
        else:
            f.seek(start)
            data = f.read(stop - start)
        if data and not data.endswith(b"\n"):   # finish the line that crosses `stop`
            rest = b""
            while True:
                more = f.read(1 << 16)
                if not more:
                    break
                k = more.find(b"\n")
                if k >= 0:
                    rest += more[:k + 1]
                    break
                rest += more
            data += rest
    text = data.decode("latin-1").replace("\r\n", "\n").replace("\r", "\n")
    fields = [("r", np.int64), ("c", np.int64)]
    if field != "pattern":
        fields.append(("v", np.dtype(vdt)))

    def line_of(k):
        """The file line of this range's k-th entry (error paths only)."""
        before = _lines_before(path, start) + 1
        seen = -1
        for j, line in enumerate(text.split("\n")):
            s = line.strip()
            if s and not s.startswith("%"):
                seen += 1
                if seen == k:
                    return before + j
        return before

    try:
        rows = loadtxt(text, np.dtype(fields), "%") if text.strip() else \
            np.zeros(0, np.dtype(fields))
    except (ValueError, OverflowError, Warning) as e:
        before = _lines_before(path, start) + 1
        want = 2 if field == "pattern" else 3
        for j, line in enumerate(text.split("\n")):
            toks = line.split()
            if not toks or toks[0].startswith("%"):
                continue
            if len(toks) != want:
                raise MatrixMarketError(
                    f"{name}, line {before + j}: expected {want} numbers "
                    f"({'row col' if want == 2 else 'row col value'}), got {len(toks)}: "
                    f"{line.strip()[:80]!r}") from None
            try:
                int(toks[0]), int(toks[1])
                if want == 3:
                    np.array([toks[2]]).astype(np.dtype(vdt))
            except (ValueError, OverflowError):
                raise MatrixMarketError(f"{name}, line {before + j}: cannot read the entry "
                                        f"{line.strip()[:80]!r} as integers and a "
                                        f"{np.dtype(vdt)} value") from None
        raise MatrixMarketError(f"{name}: could not read the entries of the byte range "
                                f"[{start}, {stop}) (the lines after line {before - 1}): "
                                f"{e}; gb.io.mmread names the line") from None
    r, c = rows["r"], rows["c"]
    mmio.check_bool_values(h, None if field == "pattern" else rows["v"], line_of)
    mmio.check_coordinates(h, r, c, line_of)
    count = r.shape[0]
    r, c = r - 1, c - 1
    v = None
    if field != "pattern":
        v = rows["v"]
        v = v.astype(dt, copy=False) if dt != dtypes.BOOL else v != 0
    r, c, v, _ = mmio.expand_symmetry(h, r, c, v)
    order = np.argsort(r, kind="stable")
    r, c = r[order], c[order]
    v = None if v is None else v[order]
    cut = np.searchsorted(r, np.asarray(offsets, np.int64))
    pieces = [(r[cut[d]:cut[d + 1]] - offsets[d], c[cut[d]:cut[d + 1]],
               None if v is None else v[cut[d]:cut[d + 1]]) for d in range(len(offsets) - 1)]
    return count, pieces


def _piece(res, d):
    return res[1][d]


def _count(res):
    return res[0]


def _assemble(pieces, nrows, ncols, dt, dup_op, name, iso):
    from ..errors import InvalidValue
    from ..matrix import Matrix
    r = np.concatenate([p[0] for p in pieces])
    c = np.concatenate([p[1] for p in pieces])
    vals = iso if pieces[0][2] is None else np.concatenate([p[2] for p in pieces])
    try:
        return Matrix.from_coo(r, c, vals, nrows, ncols, dtype=dt,
                               dup_op=None if dup_op is None else B.decode(dup_op),
                               device=B.BLOCK_DEVICE)
    except InvalidValue as e:
        raise MatrixMarketError(f"{name}: {e} (gb.io.mmread names both lines)") from None


def mmread(layout, path, *, dtype=None, dup_op=None):
    """A DistMatrix split like ``layout`` from the Matrix Market file ``path``,
    read in parallel: the client reads the header, each worker parses one byte
    range of the entry lines and sends each row block its entries.  ``path``
    must be a file every worker can open (the same path on a shared or local
    file system).  Uncompressed ``coordinate`` files only; for an ``array`` or
    compressed file read it with ``gb.io.mmread`` and ``gb.dist.distribute``
    it.  ``dtype`` and ``dup_op`` as in ``gb.io.mmread``; every malformed file
    raises ``MatrixMarketError`` naming the file (and the line where a worker
    can tell it)."""
    from .objects import DistMatrix, _portable
    if not isinstance(layout, Layout) or getattr(layout, "spmd", False):
        raise MatrixMarketError(f"gb.dist.mmread: layout must be a gb.dist.Layout, got "
                                f"{layout!r}")
    name = os.fsdecode(path)
    if os.path.splitext(name)[1].lower() in (".gz", ".bz2", ".xz"):
        raise NotDistributed(f"gb.dist.mmread: {name} is compressed (a byte range cannot be "
                             "read alone); read it with gb.io.mmread and distribute it")
    h, body = _read_head(name)
    if h.format != "coordinate":
        raise NotDistributed(f"gb.dist.mmread: {name} is in the 'array' format; read it with "
                             "gb.io.mmread and distribute it")
    dt = mmio._target_dtype(h, dtype)
    if h.symmetry == "skew-symmetric" and dt.kind in "ub":
        raise MatrixMarketError(f"{name}, line 1: a skew-symmetric matrix cannot be read as "
                                f"{dt} (its mirrored entries are negated); pass a signed dtype=")
    lay = layout.for_size(h.nrows)
    size = os.path.getsize(name)
    p = lay.nblocks
    cuts = [body + (size - body) * k // p for k in range(p + 1)]
    parsed = [lay.submit(b, "mmread", _parse_range, name, cuts[b], cuts[b + 1], b == 0, h, dt,
                         lay.offsets) for b in range(p)]
    counts = lay.gather([lay.submit(b, "mmread", _count, parsed[b]) for b in range(p)],
                        "mmread")
    total = int(sum(counts))
    if total != h.nnz:
        raise MatrixMarketError(f"{name}, line {h.size_line}: the size line says {h.nnz} "
                                f"entries but the file holds {total}")
    iso = dt.type(True) if h.field == "pattern" else None
    pdup = None if dup_op is None else _portable(dup_op, "mmread")
    pieces = [[lay.submit(b, "mmread", _piece, parsed[b], d) for d in range(p)]
              for b in range(p)]
    rows = lay.map("mmread", _assemble, lambda d: (
        [pieces[b][d] for b in range(p)], lay.block_size(d), h.ncols, dt, pdup, name, iso))
    M = DistMatrix(dt, h.nrows, h.ncols, layout=lay, rows=rows)
    M.nvals                     # surfaces a duplicate (or another block error) here
    return M
