"""Alt text of the audit chapter's figures: what each shows and its main finding, from the numbers drawn.

Each function takes the same arguments as the figure function of the same name in :mod:`compendium.audit.figures`
(which attaches the text with :func:`compendium.chapter.display.with_alt`).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd


def self_preference(sp: pd.DataFrame) -> str:
    n_excl = int(((sp["lo"] > 0) | (sp["hi"] < 0)).sum())
    rows = "; ".join(
        f"{j.removesuffix(' (judge)')} against the {k}: {e:+.2f} ({lo:.2f} to {hi:.2f})"
        for j, k, e, lo, hi in zip(sp["judge"], sp["reference_kind"], sp["estimate"], sp["lo"], sp["hi"], strict=True)
    )
    return (
        f"Forest plot of each judge's self-preference (own-model minus other-model score difference, in points of the "
        f"0-3 scale) with its interval, against two references. {n_excl} of {len(sp)} intervals exclude zero. {rows}."
    )


def rank_intervals(boards: Mapping[str, pd.DataFrame], labels: Mapping[str, str] | None = None) -> str:
    labels = labels or {}
    parts = []
    for name, t in boards.items():
        g = int(t["group"].max())
        ranks = ", ".join(
            f"{labels.get(m, m)} {lo}-{hi}" for m, lo, hi in zip(t["model"], t["rank_lo"], t["rank_hi"], strict=True)
        )
        parts.append(f"{name}: {g} tie group{'s' if g != 1 else ''} (rank intervals {ranks})")
    return (
        "Three panels, one under the other, of simultaneous rank intervals, one bar per model from its best to its worst compatible rank, "
        "coloured by tie group. " + "; ".join(parts) + "."
    )
