"""Shared file helpers for the readers and writers (host side only).

Sources and targets may be a path (``str`` or ``os.PathLike``; a name ending in
``.gz``, ``.bz2`` or ``.xz`` is (de)compressed transparently) or an open file
object in text or binary mode.
"""
import re
import bz2
import gzip
import lzma
import os
import warnings
import zlib
from contextlib import contextmanager

import numpy as np

from ..errors import InvalidValue

_OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
CHUNK = 1 << 20   # entries formatted per write


def _opener(name):
    return _OPENERS.get(os.path.splitext(name)[1].lower(), open)


def read_text(source, what, error=InvalidValue):
    """(text, name): the whole content as ``str`` with ``\\r\\n``/``\\r``
    turned into ``\\n`` and a leading UTF-8 byte-order mark removed, and a
    name for error messages.  A compressed file
    that cannot be decompressed raises ``error`` naming the file."""
    if isinstance(source, (str, os.PathLike)):
        name = os.fsdecode(source)
        opener = _opener(name)
        try:
            with opener(name, "rb") as f:
                data = f.read()
        except (zlib.error, EOFError, lzma.LZMAError, gzip.BadGzipFile) as e:
            raise error(f"{name}: cannot decompress the file ({type(e).__name__}: {e}); it is "
                        "corrupt or truncated") from None
        except OSError as e:
            if opener is open:
                raise   # file not found, permission denied: the usual Python errors
            raise error(f"{name}: cannot decompress the file ({type(e).__name__}: {e}); it is "
                        "corrupt or not in the format its name says") from None
    elif hasattr(source, "read"):
        name = str(getattr(source, "name", "<stream>"))
        data = source.read()
    else:
        raise InvalidValue(f"{what}: expected a path or an open file, got {type(source).__name__}")
    if isinstance(data, (bytes, bytearray, memoryview)):
        data = bytes(data)
        if data.startswith(b"\xef\xbb\xbf"):   # a UTF-8 byte-order mark (Windows editors)
            data = data[3:]
        data = data.decode("latin-1")   # ASCII formats; never fails
    elif data.startswith("\ufeff"):
        data = data[1:]
    if "\r" in data:
        data = data.replace("\r\n", "\n").replace("\r", "\n")
    return data, name


@contextmanager
def text_writer(target, what):
    """Yield a ``write(str)`` function for a path or an open (text/binary) file."""
    if isinstance(target, (str, os.PathLike)):
        name = os.fsdecode(target)
        with _opener(name)(name, "wt", encoding="ascii", newline="\n") as f:
            yield f.write
        return
    if not hasattr(target, "write"):
        raise InvalidValue(f"{what}: expected a path or an open file, got {type(target).__name__}")
    try:
        target.write("")
        yield target.write
    except TypeError:   # a binary file
        yield lambda s: target.write(s.encode("ascii"))


def iter_lines(text, start_pos=0):
    """Yield (offset, line) over ``text`` from ``start_pos`` (error paths only)."""
    n = len(text)
    pos = start_pos
    k = 0
    while pos < n:
        end = text.find("\n", pos)
        if end < 0:
            end = n
        yield k, text[pos:end]
        k += 1
        pos = end + 1


def loadtxt(body, dtype, comments, delimiter=None, max_rows=None, usecols=None):
    """``np.loadtxt`` on a string with warnings turned into errors (a caller
    falls back to a line-by-line scan to name the bad line)."""
    import io
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=".*contained no data.*")
        kw = {} if max_rows is None else {"max_rows": max_rows}
        return np.loadtxt(io.StringIO(body), dtype=dtype, comments=comments,
                          delimiter=delimiter, ndmin=1, usecols=usecols, **kw)


def format_lines(write, columns, fmt):
    """Write ``fmt.format(*row)`` lines for the rows of ``columns`` (NumPy
    arrays of equal length), a chunk at a time: the conversion to text runs in
    CPython's ``str.format``/``map`` (C code), not in a Python loop per entry."""
    n = columns[0].shape[0] if columns else 0
    for lo in range(0, n, CHUNK):
        parts = [c[lo:lo + CHUNK].tolist() for c in columns]
        write("\n".join(map(fmt.format, *parts)))
        write("\n")


INT_RE = re.compile(r"^[+-]?[0-9]+$")


def number_token_problem(tok, dtype, lo, hi, what, real="a real number"):
    """Why ``tok`` is not a valid ``what`` of ``dtype`` (integers within
    [lo, hi], else any real number), or None when it is."""
    if dtype.kind in "iu":
        if not INT_RE.match(tok):
            return f"the {what} must be an integer (dtype {dtype}), got {tok!r}"
        if not lo <= int(tok) <= hi:
            return f"the {what} {tok} does not fit in {dtype}"
        return None
    try:
        if "_" in tok:
            raise ValueError(tok)
        float(tok)
    except ValueError:
        return f"the {what} must be {real}, got {tok!r}"
    return None
