"""The audit chapter's figures (matplotlib in the theme of :mod:`compendium.chapter.figstyle`; each returns a Figure).

Each function has an alt-text function of the same name and arguments in :mod:`.alttext`, attached with
:func:`compendium.chapter.display.with_alt`, so the alt text states the numbers drawn.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from compendium.chapter import figstyle as fs
from compendium.chapter.display import with_alt

from . import alttext as _alt

__all__ = ["self_preference", "rank_intervals"]

_REF = {"other panel judges": "against the other two panel judges", "outside judge": "against the outside judge"}


@with_alt(_alt.self_preference)
def self_preference(sp: pd.DataFrame):
    """Each judge's self-preference (difference in differences) with its interval, one marker per reference, and
    the detectable size (80 % power) as a grey band."""
    judges = list(dict.fromkeys(sp["judge"]))
    refs = list(dict.fromkeys(sp["reference_kind"]))
    with plt.rc_context(fs.THEME):
        fig, ax = plt.subplots(figsize=(6.4, 0.9 + 0.75 * len(judges)))
        for k, ref in enumerate(refs):
            t = sp[sp["reference_kind"] == ref].set_index("judge").loc[judges]
            y = np.arange(len(judges)) + (k - (len(refs) - 1) / 2) * 0.22
            ax.errorbar(
                t["estimate"],
                y,
                xerr=[t["estimate"] - t["lo"], t["hi"] - t["estimate"]],
                fmt=fs.MARKERS[k],
                color=fs.CATEGORICAL[k],
                capsize=3,
                label=_REF.get(ref, ref),
            )
        mde = float(sp["mde"].max())
        ax.axvspan(-mde, mde, color=fs.GREY, alpha=0.15, lw=0, label=f"smaller than detectable (±{mde:.2f})")
        ax.axvline(0, color="k", lw=0.8)
        ax.set_yticks(np.arange(len(judges)), [j.removesuffix(" (judge)") for j in judges])
        ax.invert_yaxis()
        ax.set_xlabel("own model's items minus the other models' (points, 0-3 scale)")
        ax.set_title("Does a judge favour its own model?")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=2, frameon=False, fontsize=8.5)
        fig.tight_layout()
    return fig


@with_alt(_alt.rank_intervals)
def rank_intervals(boards: Mapping[str, pd.DataFrame], labels: Mapping[str, str] | None = None):
    """One panel per leaderboard, one under the other: each model's simultaneous rank interval as a bar, coloured
    by tie group."""
    labels = labels or {}
    with plt.rc_context(fs.THEME):
        # one panel under the other: side by side, the panels would be shrunk below a readable size on the page
        heights = [len(t) for t in boards.values()]
        fig, axes = plt.subplots(
            len(boards),
            1,
            figsize=(6.2, 0.9 * len(boards) + 0.33 * sum(heights)),
            squeeze=False,
            gridspec_kw={"height_ratios": heights},
        )
        for ax, (name, t) in zip(axes[:, 0], boards.items(), strict=True):
            K = len(t)
            for r in t.itertuples():
                c = fs.CATEGORICAL[(int(r.group) - 1) % len(fs.CATEGORICAL)]
                ax.plot(
                    [r.rank_lo - 0.2, r.rank_hi + 0.2],
                    [r.rank, r.rank],
                    color=c,
                    lw=6,
                    solid_capstyle="round",
                    alpha=0.6,
                )
                ax.plot([r.rank], [r.rank], "o", color="k", ms=4)
            ax.set_yticks(t["rank"], [labels.get(m, m) for m in t["model"]], fontsize=8)
            ax.set_xticks(range(1, K + 1))
            ax.set_xlim(0.5, K + 0.5)
            ax.invert_yaxis()
            ax.set_title(f"{name}: {int(t['group'].max())} tie group(s)", fontsize=9.5, loc="left")
        axes[-1, 0].set_xlabel("compatible ranks")
        fig.tight_layout()
    return fig
