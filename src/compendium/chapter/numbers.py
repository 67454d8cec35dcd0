"""How the book writes two kinds of number in its prose and tables: a percentage, and a difference that may be
exactly zero. One style for each, so that no two chapters write the same kind of number two ways.

- **A percentage** has a space before its sign: ``"47.5 %"``, ``"100 %"``. That is the style most of the book
  used when the two were counted over the built pages for issue 33 (357 against 338, and 154 of the 338 were
  the papers' own printed values on the claims page). A quotation of a paper keeps the paper's own ``"46.1%"``;
  everything the book computes goes through :func:`percent` or :func:`share` (or, in a notebook's prose, a
  ``{glue:text}`` value followed by ``" %"``), and ``tests/chapter/test_percent_style.py`` fails on a ``"47.5%"`` the
  book writes itself.
- **A difference** between two computations of one number (our fit against the published one, a library's
  against ours): ``"0"`` when they agree exactly, not ``"0.0e+00"``; any other in scientific notation with two
  significant digits, ``"8.4e-07"`` (:func:`difference`).

Imports nothing of the package (the wings, the robustness chapter and the claims check use it).
"""

from __future__ import annotations

import math
from collections.abc import Callable

__all__ = ["PERCENT_SIGN", "difference", "percent", "percent_format", "share", "share_format"]

#: what follows the number of a percentage: a space, then the sign
PERCENT_SIGN = " %"


def percent(value: float, decimals: int = 1, signed: bool = False) -> str:
    """``value``, a number already in percent, as the book writes a percentage: ``decimals`` decimals, a space
    and the sign (``percent(47.51)`` -> ``"47.5 %"``, ``percent(100, 0)`` -> ``"100 %"``); with ``signed`` a
    ``+`` before a positive number (a change). NaN is ``"–"`` (no number)."""
    x = float(value)
    if math.isnan(x):
        return "–"
    return f"{x:{'+' if signed else ''}.{decimals}f}{PERCENT_SIGN}"


def share(p: float, decimals: int = 0, signed: bool = False) -> str:
    """A share from 0 to 1 as a percentage (:func:`percent` of ``100 * p``): ``share(0.97)`` -> ``"97 %"``,
    ``share(0.307, 1)`` -> ``"30.7 %"``. What Python's ``f"{p:.0%}"`` gives, with the book's space."""
    return percent(100 * float(p), decimals, signed)


def difference(x: float, digits: int = 2) -> str:
    """The size of a difference between two computations of the same numbers: ``"0"`` when they agree exactly
    (a largest absolute difference of 0.0, which ``f"{x:.1e}"`` would print as ``"0.0e+00"``), else ``digits``
    significant digits in scientific notation (``difference(8.4e-07)`` -> ``"8.4e-07"``). NaN is ``"–"``."""
    v = float(x)
    if math.isnan(v):
        return "–"
    if v == 0:
        return "0"
    return f"{v:.{max(digits, 1) - 1}e}"


def percent_format(decimals: int = 1, signed: bool = False) -> Callable[[float], str]:
    """:func:`percent` with these decimals, as a table column's format
    (:func:`compendium.chapter.display.format_columns`: ``formats={"share (%)": percent_format(1)}``)."""
    return lambda value: percent(value, decimals, signed)


def share_format(decimals: int = 0, signed: bool = False) -> Callable[[float], str]:
    """:func:`share` with these decimals, as a table column's format (``formats={"needed": share_format(1)}``,
    where Python's ``"{:.1%}"`` would print ``"30.7%"``)."""
    return lambda p: share(p, decimals, signed)
