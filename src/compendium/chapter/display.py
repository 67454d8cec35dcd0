"""Numbered, captioned tables for the book.

myst-nb numbers glued objects as figures. A table should be numbered as a table, so notebooks display
:func:`table` instead: it prints a MyST ``{table}`` directive holding a Markdown pipe table, which the
book (``nb_render_markdown_format: myst``) renders as "Table N" with its caption and a ``:name:`` to
cross-reference with ``{numref}``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from numbers import Number
from pathlib import Path

import pandas as pd
from IPython.display import Markdown

from compendium.chapter.pngtext import PNG_ALT_KEY, clean_alt, png_description, png_with_description  # noqa: F401 (re-exported)
from compendium.chapter.safetext import Markup, myst, visible

#: a formatted number: digits, signs, separators, an exponent, a percent sign, an en dash (NaN); no letter
#: but "e" (so no URL for linkify), no character that opens MyST syntax
_NUMBER_TEXT = re.compile(r"[0-9eE.,+\-−–% ]*")


def _cell(v, floatfmt: str, trusted: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
        return ""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, Number) and not isinstance(v, int) and float(v) != int(float(v)) or isinstance(v, float):
        return format(float(v), floatfmt)
    if trusted or isinstance(v, Markup):
        return " ".join(str(v).split())
    if _NUMBER_TEXT.fullmatch(str(v)):
        return str(v)  # a formatted number ("+1.2", "12,345", "3.4%"): nothing in it can be markup
    return myst(v)  # text from data, parameters or file names: literal, never MyST


def markdown_table(df: pd.DataFrame, floatfmt: str = ".3g", index: bool = False, markup: Sequence[str] = ()) -> str:
    """A GitHub/MyST pipe table of ``df`` (numbers right-aligned, floats formatted with ``floatfmt``).

    Every string cell and header is literal text (:func:`compendium.chapter.safetext.myst`) unless it is a
    :class:`~compendium.chapter.safetext.Markup`, MyST built from escaped parts (e.g. a file name as
    :func:`~compendium.chapter.safetext.code`) or in a column named in ``markup`` (pandas keeps no ``str``
    subclass in a column, so a column of MyST built with :mod:`compendium.chapter.safetext` is named here)."""
    if index:
        df = df.reset_index()
    cols = [c if isinstance(c, Markup) else str(c) for c in df.columns]
    num = [pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c]) for c in df.columns]
    lines = [
        "| " + " | ".join(c if isinstance(c, Markup) else myst(c) for c in cols) + " |",
        "|" + "|".join("---:" if n else "---" for n in num) + "|",
    ]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v, floatfmt, str(c) in markup) for v, c in zip(row, cols)) + " |")
    return "\n".join(lines)


def format_columns(
    df: pd.DataFrame, formats: Mapping[str, str | Callable[[object], str]] | None = None, precision: int | None = 3
) -> pd.DataFrame:
    """A copy of ``df`` with columns formatted as strings: ``formats`` maps a column to a format string (e.g.
    ``"{:+.1f}"``, applied to any column it names) or to a function of the value (one of
    :mod:`compendium.chapter.numbers`: ``numbers.difference``, a percentage with the book's sign); other float
    columns get ``precision`` decimals (left to the table's ``floatfmt`` when ``precision`` is None); NaN becomes
    an en dash."""
    out = df.copy()
    for c in out.columns:
        fmt = (formats or {}).get(c)
        if fmt is None and precision is not None and pd.api.types.is_float_dtype(out[c]):
            fmt = f"{{:.{precision}f}}"
        if fmt is not None:
            apply = fmt if callable(fmt) else fmt.format
            out[c] = [("–" if (isinstance(v, float) and math.isnan(v)) else apply(v)) for v in out[c]]
    return out


def relabel(
    df: pd.DataFrame, labels: Mapping[str, Mapping | Callable] | None = None, spaces: bool = False
) -> pd.DataFrame:
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


def table(
    df: pd.DataFrame,
    name: str,
    caption: str,
    floatfmt: str = ".3g",
    index: bool = False,
    *,
    rename: Mapping[str, str] | None = None,
    formats: Mapping[str, str | Callable[[object], str]] | None = None,
    precision: int | None = None,
    labels: Mapping[str, Mapping | Callable] | None = None,
    spaces: bool = False,
    columns: Sequence[str] | None = None,
    markup: Sequence[str] = (),
) -> Markdown:
    """Display ``df`` as a numbered table: ``{numref}`name``` refers to it as "Table N".

    Display-only changes, applied in this order to a copy: ``columns`` (the columns kept, in this order, by
    their names in ``df``), ``rename`` (columns), ``formats`` / ``precision``
    (:func:`format_columns`, when either is given; ``formats`` names columns after renaming; without
    ``precision`` the other columns keep ``floatfmt``), ``labels`` and ``spaces`` (:func:`relabel`).
    """
    if not name.replace("-", "").replace("_", "").isalnum():
        raise ValueError(f"table name {name!r}: use letters, digits, '-' and '_' only")
    markup = [*markup, *df.attrs.get("markup", ())]  # a view function may name its MyST columns itself
    if columns is not None:
        df = df[list(columns)]
    if rename:
        df = df.rename(columns=rename)
    missing = [c for c in (formats or {}) if c not in df.columns]
    if missing:
        raise KeyError(f"table {name!r}: no column {missing[0]!r} to format (columns: {list(df.columns)})")
    if formats is not None or precision is not None:
        df = format_columns(df, formats, precision)
    if labels or spaces:
        df = relabel(df, labels, spaces)
    body = markdown_table(df, floatfmt=floatfmt, index=index, markup=markup)
    caption = " ".join(caption.split())
    return Markdown(f":::{{table}} {caption}\n:name: {name}\n:align: left\n\n{body}\n:::\n")


def plain(value):
    """``value`` as a plain Python number/bool (numpy scalars would be glued as ``np.float64(...)``).

    Floats keep 12 significant digits: the executed chapter stores the glued value's repr, and the last
    bits of a sum computed through BLAS differ between machines (the prose prints far fewer digits)."""
    import numpy as np

    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(f"{float(value):.12g}")
    return value


def glue_value(name: str, value, display: bool = False) -> None:
    """myst-nb ``glue`` of a number for the prose (``{glue:text}`name:.1f```), as a plain Python type."""
    from myst_nb import glue

    value = plain(value)
    if isinstance(value, str):
        value = visible(value)  # {glue:text} is a text node, but a bidi or zero-width control would still act
    glue(name, value, display=display)


ALT_ATTR = "_compendium_alt"


def set_alt(fig, text: str):
    """Attach alt text to a Matplotlib figure (read by :func:`glue_figure`); returns ``fig``."""
    setattr(fig, ALT_ATTR, clean_alt(text))
    return fig


def figure_alt(fig) -> str | None:
    """The alt text attached with :func:`set_alt`, or None."""
    return getattr(fig, ALT_ATTR, None)


def save_png(path: Path, fig, alt: str | None = None) -> Path:
    """Save ``fig`` as the PNG ``path`` (as :func:`compendium.pipeline.results.save_figure` does: no
    timestamp or software metadata), close it, and write its alt text (``alt``, else the one the figure
    function attached with :func:`set_alt`) into the PNG as its "Description". Returns ``path``."""
    import matplotlib.pyplot as plt

    from compendium.pipeline.results import save_png as _save

    alt = alt if alt is not None else figure_alt(fig)
    _save(path, fig)
    plt.close(fig)
    if alt is not None:
        path.write_bytes(png_with_description(path.read_bytes(), alt))
    else:
        import warnings

        warnings.warn(
            f"figure {path.stem!r} has no alt text: pass alt= or attach it with compendium.chapter.display.set_alt",
            stacklevel=3,
        )
    return path


def glue_figure(stage: str, name: str, fig, key: str, alt: str | None = None):
    """Save ``fig`` as ``results/<stage>/figures/<name>.png``, close it, and glue *that PNG* under ``key``.

    The page then shows exactly the file a reader finds in ``results/`` (``{glue:figure} key``).
    The alt text (``alt``, else the one the figure function attached with :func:`set_alt`) is written
    into the PNG as its "Description"; the book's Sphinx extension :mod:`compendium.book.sphinx_alt` turns it
    into the ``<img alt>`` (myst-nb drops alt text from a glued image's metadata).
    Returns the PNG's path.
    """
    from IPython.display import Image
    from myst_nb import glue

    from compendium.pipeline import paths

    path = save_png(paths.stage_dir(stage) / "figures" / f"{name}.png", fig, alt)
    glue(key, Image(filename=str(path)), display=False)
    return path


def glue_png(stage: str, name: str, source: Path, key: str) -> Path:
    """A PNG another stage drew (e.g. :func:`compendium.workbank.models.figure`), alt text included:
    copied to ``results/<stage>/figures/<name>.png`` and glued from there under ``key``, as
    :func:`glue_figure` does with a figure it draws. Returns the copy's path."""
    import shutil

    from IPython.display import Image
    from myst_nb import glue

    from compendium.pipeline import paths

    if not Path(source).is_file():
        raise FileNotFoundError(
            f"{source}: missing (the figure {name!r} is drawn by an earlier stage; run `dvc repro`)"
        )
    path = paths.stage_dir(stage) / "figures" / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, path)
    glue(key, Image(filename=str(path)), display=False)
    return path


def glue_all(values: Mapping[str, object]) -> None:
    """myst-nb ``glue`` of every entry of ``values`` (e.g. a study's ``summary(...)`` dict), each under its key,
    numbers as plain Python types; an IPython display object (``Markdown``) is glued as it is, for ``{glue:md}``."""
    for name, value in values.items():
        glue_value(name, value)


def with_alt(alt_fn):
    """Decorator of a figure function: attach ``alt_fn(*same arguments)`` as the figure's alt text.

    The alt-text function gets exactly the data the figure is drawn from, so its numbers follow a re-run."""
    import functools

    def deco(plot_fn):
        @functools.wraps(plot_fn)
        def wrapper(*args, **kwargs):
            fig = plot_fn(*args, **kwargs)
            return set_alt(fig, alt_fn(*args, **kwargs))

        wrapper.alt_text = alt_fn
        return wrapper

    return deco
