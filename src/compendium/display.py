"""Numbered, captioned tables for the book.

myst-nb numbers glued objects as figures. A table should be numbered as a table, so notebooks display
:func:`table` instead: it prints a MyST ``{table}`` directive holding a Markdown pipe table, which the
book (``nb_render_markdown_format: myst``) renders as "Table N" with its caption and a ``:name:`` to
cross-reference with ``{numref}``.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from numbers import Number

import pandas as pd
from IPython.display import Markdown


def _cell(v, floatfmt: str) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
        return ""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, Number) and not isinstance(v, int) and float(v) != int(float(v)) or isinstance(v, float):
        return format(float(v), floatfmt)
    return str(v).replace("|", "\\|").replace("\n", " ")


def markdown_table(df: pd.DataFrame, floatfmt: str = ".3g", index: bool = False) -> str:
    """A GitHub/MyST pipe table of ``df`` (numbers right-aligned, floats formatted with ``floatfmt``)."""
    if index:
        df = df.reset_index()
    cols = [str(c) for c in df.columns]
    num = [pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c]) for c in df.columns]
    lines = ["| " + " | ".join(c.replace("|", "\\|") for c in cols) + " |",
             "|" + "|".join("---:" if n else "---" for n in num) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v, floatfmt) for v in row) + " |")
    return "\n".join(lines)


def format_columns(df: pd.DataFrame, formats: Mapping[str, str] | None = None,
                   precision: int | None = 3) -> pd.DataFrame:
    """A copy of ``df`` with columns formatted as strings: ``formats`` maps a column to a format string (e.g.
    ``"{:+.1f}"``, applied to any column it names); other float columns get ``precision`` decimals (left to
    the table's ``floatfmt`` when ``precision`` is None); NaN becomes an en dash."""
    out = df.copy()
    for c in out.columns:
        fmt = (formats or {}).get(c)
        if fmt is None and precision is not None and pd.api.types.is_float_dtype(out[c]):
            fmt = f"{{:.{precision}f}}"
        if fmt is not None:
            out[c] = [("–" if (isinstance(v, float) and math.isnan(v)) else fmt.format(v)) for v in out[c]]
    return out


def relabel(df: pd.DataFrame, labels: Mapping[str, Mapping | Callable] | None = None,
            spaces: bool = False) -> pd.DataFrame:
    """A display copy of ``df``: each column named in ``labels`` has its values mapped (a mapping replaces the
    values it names, a function maps every value); with ``spaces``, underscores in column names become
    spaces (so that headers wrap)."""
    out = df.copy()
    for col, lab in (labels or {}).items():
        if col in out:
            out[col] = out[col].replace(lab) if isinstance(lab, Mapping) else out[col].map(lab)
    if spaces:
        out = out.rename(columns=lambda c: str(c).replace("_", " "))
    return out


def table(df: pd.DataFrame, name: str, caption: str, floatfmt: str = ".3g", index: bool = False, *,
          rename: Mapping[str, str] | None = None, formats: Mapping[str, str] | None = None,
          precision: int | None = None, labels: Mapping[str, Mapping | Callable] | None = None,
          spaces: bool = False) -> Markdown:
    """Display ``df`` as a numbered table: ``{numref}`name``` refers to it as "Table N".

    Display-only changes, applied in this order to a copy: ``rename`` (columns), ``formats`` / ``precision``
    (:func:`format_columns`, when either is given; ``formats`` names columns after renaming; without
    ``precision`` the other columns keep ``floatfmt``), ``labels`` and ``spaces`` (:func:`relabel`).
    """
    if not name.replace("-", "").replace("_", "").isalnum():
        raise ValueError(f"table name {name!r}: use letters, digits, '-' and '_' only")
    if rename:
        df = df.rename(columns=rename)
    missing = [c for c in (formats or {}) if c not in df.columns]
    if missing:
        raise KeyError(f"table {name!r}: no column {missing[0]!r} to format (columns: {list(df.columns)})")
    if formats is not None or precision is not None:
        df = format_columns(df, formats, precision)
    if labels or spaces:
        df = relabel(df, labels, spaces)
    body = markdown_table(df, floatfmt=floatfmt, index=index)
    caption = " ".join(caption.split())
    return Markdown(f":::{{table}} {caption}\n:name: {name}\n:align: left\n\n{body}\n:::\n")


def plain(value):
    """``value`` as a plain Python number/bool (numpy scalars would be glued as ``np.float64(...)``)."""
    import numpy as np

    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    return value


def glue_value(name: str, value, display: bool = False) -> None:
    """myst-nb ``glue`` of a number for the prose (``{glue:text}`name:.1f```), as a plain Python type."""
    from myst_nb import glue

    glue(name, plain(value), display=display)


def glue_figure(stage: str, name: str, fig, key: str):
    """Save ``fig`` as ``results/<stage>/figures/<name>.png``, close it, and glue *that PNG* under ``key``.

    The page then shows exactly the file a reader finds in ``results/`` (``{glue:figure} key``).
    Returns the PNG's path.
    """
    import matplotlib.pyplot as plt
    from IPython.display import Image
    from myst_nb import glue

    from .results import save_figure

    path = save_figure(stage, name, fig)
    plt.close(fig)
    glue(key, Image(filename=str(path)), display=False)
    return path


def glue_all(values: Mapping[str, object]) -> None:
    """myst-nb ``glue`` of every entry of ``values`` (e.g. a study's ``summary(...)`` dict), each under its key,
    numbers as plain Python types; an IPython display object (``Markdown``) is glued as it is, for ``{glue:md}``."""
    for name, value in values.items():
        glue_value(name, value)
