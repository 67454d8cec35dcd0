"""Numbered, captioned tables for the book.

myst-nb numbers glued objects as figures. A table should be numbered as a table, so notebooks display
:func:`table` instead: it prints a MyST ``{table}`` directive holding a Markdown pipe table, which the
book (``nb_render_markdown_format: myst``) renders as "Table N" with its caption and a ``:name:`` to
cross-reference with ``{numref}``.
"""
from __future__ import annotations

import math
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


def table(df: pd.DataFrame, name: str, caption: str, floatfmt: str = ".3g", index: bool = False, *,
          columns: list | None = None, relabel: dict | None = None, formats: dict | None = None,
          rename: dict | None = None) -> Markdown:
    """Display ``df`` as a numbered table: ``{numref}`name``` refers to it as "Table N".

    Display only, in this order: keep ``columns``; map the values of each column in ``relabel``
    (``{column: {code: label}}``); format each column in ``formats`` (``{column: "{:.3f}"}``); rename
    columns by ``rename`` (``{code name: display name}``; names not in ``df`` are ignored).
    """
    if not name.replace("-", "").replace("_", "").isalnum():
        raise ValueError(f"table name {name!r}: use letters, digits, '-' and '_' only")
    if columns is not None:
        df = df[list(columns)]
    if relabel or formats:
        df = df.copy()
        for col, mapping in (relabel or {}).items():
            df[col] = df[col].map(mapping)
        for col, fmt in (formats or {}).items():
            df[col] = df[col].map(fmt.format)
    if rename:
        df = df.rename(columns=rename)
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


def glue_all(values: dict) -> None:
    """Glue every key of ``values`` for the prose (``display=False``), each as a plain Python type."""
    for name, value in values.items():
        glue_value(name, value, display=False)
