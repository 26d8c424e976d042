"""Progress bars for long algorithms (``progress=True``), off by default.

Algorithms stay "the math": they ask :func:`progress_bar` for a bar and call
``update()`` on it once per unit of work (a batch of sources, a restart); the
bar is a ``tqdm`` bar on stderr when ``enabled`` is True and an object that
does nothing otherwise.  tqdm is optional: install the ``progress`` (or
``suite``) extra, ``pip install graphblast-py[progress]``.
"""
from __future__ import annotations

from typing import Optional

from .checks import check_bool
from .errors import InvalidValue


class NoProgress:
    """The bar of ``progress=False``: every method does nothing."""

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> "NoProgress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def progress_bar(total: Optional[int], desc: str, enabled: bool, *, what: Optional[str] = None):
    """A tqdm bar of ``total`` steps labelled ``desc`` (on stderr) when
    ``enabled`` is True, a :class:`NoProgress` when False.

    ``enabled`` must be a bool (InvalidObject names ``what`` and the
    ``progress`` parameter otherwise); True without tqdm installed raises
    InvalidValue naming the extra to install.  Use it as a context manager so
    the bar closes when the algorithm ends or fails."""
    what = what or desc
    if not check_bool(enabled, what, "progress"):
        return NoProgress()
    try:
        from tqdm import tqdm
    except ImportError:
        raise InvalidValue(f"{what}: progress=True needs tqdm, which is not installed; "
                           "install the 'progress' extra (pip install graphblast-py[progress]) "
                           "or the 'suite' extra, or pass progress=False") from None
    return tqdm(total=total, desc=desc, dynamic_ncols=True)
