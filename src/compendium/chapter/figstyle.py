"""One theme and one set of palettes for every figure of the book (seaborn on matplotlib).

Colour-blind safe by construction:

* categorical: seaborn's ``colorblind`` palette (the Okabe-Ito/Wong hues), whose colours stay apart under a
  deuteranopia, protanopia and tritanopia simulation (tests/chapter/test_figstyle.py checks it);
* sequential: ``cividis`` (designed to read the same with and without colour-vision deficiency);
* diverging: ``vlag`` (blue-white-red, no green), centred on the neutral value.

Colour is never the only carrier of meaning: zones, models, signals and statuses also get a marker (and a
text label in the legend or on the figure); heat maps print their values in the cells.

Usage: decorate a figure function with :func:`styled` (it draws inside ``plt.rc_context`` so the theme
never leaks into other code) and take colours and markers from the mappings below.
"""

from __future__ import annotations

import functools

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

__all__ = [
    "CATEGORICAL",
    "SEQUENTIAL",
    "DIVERGING",
    "THEME",
    "styled",
    "ZONE_COLORS",
    "ZONE_MARKERS",
    "CONDITION_COLORS",
    "CONDITION_MARKERS",
    "MARKERS",
    "GREY",
    "heatmap",
    "point_ranges",
]

#: categorical palette (hex), seaborn "colorblind"
CATEGORICAL: list[str] = sns.color_palette("colorblind").as_hex()
SEQUENTIAL = "cividis"
DIVERGING = "vlag"
GREY = CATEGORICAL[7]
#: one marker per category, in the order of CATEGORICAL, so a grey-scale print still tells them apart
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"]

#: WORKBank zones: green light / red light keep their names, but their colours are the colour-blind
#: palette's bluish green and vermilion, and each zone has its own marker
ZONE_COLORS = {"green": CATEGORICAL[2], "red": CATEGORICAL[3], "rnd": CATEGORICAL[0], "low": GREY}
ZONE_MARKERS = {"green": "o", "red": "s", "rnd": "^", "low": "D"}
#: PWB conditions
CONDITION_COLORS = {"baseline": CATEGORICAL[1], "with_system_prompt": CATEGORICAL[0]}
CONDITION_MARKERS = {"baseline": "s", "with_system_prompt": "o"}

THEME = {
    **sns.axes_style("ticks"),
    "axes.spines.top": False,
    "axes.spines.right": False,
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "figure.dpi": 100,
    "image.cmap": SEQUENTIAL,
    "axes.prop_cycle": plt.cycler(color=CATEGORICAL),
    "svg.hashsalt": "compendium",
    # labels come from data (task statements, domains): "$5 and $6" is text, never mathtext
    "text.parse_math": False,
}


def styled(func):
    """Draw inside ``plt.rc_context(THEME)`` so the book's theme does not leak into other code."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with plt.rc_context(THEME):
            return func(*args, **kwargs)

    return wrapper


def heatmap(ax, data: pd.DataFrame, fmt: str = ".1f", cmap: str = SEQUENTIAL, cbar_label: str = "", annot=True, **kw):
    """``sns.heatmap`` with the book's defaults: values printed in the cells (text colour picked by seaborn
    for contrast), thin white grid, horizontal labels, colour bar labelled. Centre a diverging map with
    symmetric ``vmin``/``vmax``, not ``center=`` (seaborn 0.13.2 then calls a deprecated matplotlib API)."""
    sns.heatmap(
        data,
        ax=ax,
        annot=annot,
        fmt=fmt,
        cmap=cmap,
        linewidths=0.5,
        linecolor="white",
        cbar_kws={"label": cbar_label, "shrink": 0.85, "pad": 0.02},
        **kw,
    )
    ax.tick_params(axis="both", length=0)
    ax.tick_params(axis="y", rotation=0)
    ax.set(xlabel="", ylabel="")
    return ax


def point_ranges(
    ax,
    data: pd.DataFrame,
    y: str,
    est: str,
    lo: str,
    hi: str,
    hue: str | None = None,
    order=None,
    hue_order=None,
    palette=None,
    markers=None,
    color=None,
    dodge=False,
    **kw,
):
    """A forest plot of precomputed estimates and intervals, drawn by ``sns.pointplot``.

    Each row becomes three observations (lo, est, hi) of its (y, hue) cell; the estimator picks the
    middle one and the "error bar" spans the outer two, so seaborn draws exactly the given interval
    (no resampling). Rows must be unique by (y, hue).
    """
    keys = list(dict.fromkeys([y] + ([hue] if hue else [])))
    if data.duplicated(keys).any():
        raise ValueError(f"point_ranges: rows are not unique by {keys}")
    long = data[keys + [lo, est, hi]].melt(id_vars=keys, value_vars=[lo, est, hi], value_name="_v")
    hue_order = hue_order if hue_order is not None else (list(dict.fromkeys(data[hue])) if hue else None)
    dodge = dodge if hue_order and len(hue_order) > 1 else False  # seaborn divides by (levels - 1)
    sns.pointplot(
        long,
        x="_v",
        y=y,
        hue=hue,
        order=order,
        hue_order=hue_order,
        palette=palette,
        color=color,
        markers=markers if markers is not None else "o",
        linestyle="none",
        dodge=dodge,
        estimator=lambda v: v.iloc[1],
        errorbar=lambda v: (v.iloc[0], v.iloc[2]),
        ax=ax,
        **kw,
    )
    ax.set_ylabel("")
    return ax
