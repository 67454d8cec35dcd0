"""The scale chapter's figure: recovery against decisive judgements, one panel per number of models and target."""

from __future__ import annotations

import pandas as pd

from compendium.chapter.display import with_alt
from compendium.chapter.figstyle import CATEGORICAL, styled

from . import alttext
from .report import TARGET
from .simulate import DESIGNS
from .views import DESIGN_NAMES

__all__ = ["COLOURS", "curves"]

COLOURS = dict(zip(DESIGNS, ("#4d4d4d", CATEGORICAL[1], CATEGORICAL[2], CATEGORICAL[4])))


@with_alt(alttext.curves)
@styled
def curves(cv: pd.DataFrame):
    """P(top model) and P(full ranking) against decisive judgements, one column per number of models
    (study spread, study ties)."""
    import matplotlib.pyplot as plt

    c = cv[(cv["spread"] == "study") & (cv["nu"] > 0)]
    ns = sorted(c["n_models"].unique())
    fig, axes = plt.subplots(2, len(ns), figsize=(3.6 * len(ns), 5.6), sharex=True, sharey=True, squeeze=False)
    for col, n in enumerate(ns):
        for row, (what, label) in enumerate((("p_top", "P(top model recovered)"), ("p_rank", "P(full ranking)"))):
            ax = axes[row, col]
            for d in DESIGNS:
                s = c[(c["n_models"] == n) & (c["design"] == d)]
                ax.plot(s["n_decisive"], s[what], marker="o", ms=3, color=COLOURS[d], label=DESIGN_NAMES[d])
            ax.axhline(TARGET, color="0.6", lw=0.8, ls="--")
            ax.set_xscale("log")
            ax.set_title(f"{n} models" if row == 0 else "")
            ax.set_ylabel(label if col == 0 else "")
            if row == 1:
                ax.set_xlabel("decisive judgements")
    axes[0, 0].legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig
