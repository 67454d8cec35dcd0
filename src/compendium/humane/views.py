"""The scale chapter's tables for display: each number printed to the digits its Monte Carlo interval supports
(:mod:`.digits`), the designs and settings in words. The result tables themselves (``results/humane/tables/``)
are :func:`compendium.humane.values.tables`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .digits import fmt_gap, fmt_gap_se, fmt_n, fmt_saving, fmt_share
from .report import SETTING_RANGES, saving_verdicts

__all__ = [
    "DESIGN_NAMES",
    "needed_table",
    "default_needed_table",
    "saving_table",
    "saving_caption",
    "calibration_table",
    "calibration_settings_table",
    "consolidation_table",
]

#: how the book names each pair-selection design (:data:`compendium.humane.simulate.DESIGNS`)
DESIGN_NAMES = {
    "uniform": "uniform pairs",
    "ig_trueskill": "information gain, TrueSkill (HUMANE)",
    "ig_davidson": "information gain, BT–Davidson",
    "arena": "arena-like, new models favoured",
}


def needed_table(need: pd.DataFrame) -> pd.DataFrame:
    """One row per single-group point: decisive judgements for 95 % full ranking and top model."""
    d = need[need["n_groups"] == 1].copy()
    b = d["budget"] * d["decisive_share"]
    R = d["repetitions"]
    return pd.DataFrame(
        {
            "models": d["n_models"],
            "spread": d["spread"],
            "ties": np.where(d["nu"] > 0, "study ν", "none"),
            "design": d["design"].map(DESIGN_NAMES),
            "studies": R,
            "full ranking": [fmt_n(*v) for v in zip(d["n_rank"], d["n_rank_lo"], d["n_rank_hi"], b, d["n_first"])],
            "top model": [fmt_n(*v) for v in zip(d["n_top"], d["n_top_lo"], d["n_top_hi"], b, d["n_first"])],
            "P(ranking) at budget": [fmt_share(round(p * r), r) for p, r in zip(d["p_rank_budget"], R)],
            "P(top) at budget": [fmt_share(round(p * r), r) for p, r in zip(d["p_top_budget"], R)],
        }
    ).sort_values(["models", "spread", "ties", "design"], kind="stable")


def default_needed_table(need: pd.DataFrame) -> pd.DataFrame:
    """:func:`needed_table` of the default grid, whose models, spread and ties are one setting (in the caption)."""
    return needed_table(need).drop(columns=["models", "spread", "ties"])


def saving_table(sav: pd.DataFrame, need: pd.DataFrame) -> pd.DataFrame:
    """The saving rows for display: each design's judgements exactly as the needed table prints them
    (:func:`needed_table`, rounded to the digits their own Monte Carlo interval supports; ``> budget`` where
    95 % is not reached, ``≤ first checkpoint`` where it is reached there), the saving with its simultaneous Monte
    Carlo interval as percentages (:func:`compendium.humane.report.savings`), and the verdict
    (:func:`compendium.humane.report.saving_verdicts`)."""
    one = need[need["n_groups"] == 1]
    by = {(r.n_models, r.spread, r.nu, r.design): r for r in one.itertuples()}

    def n(r, design):
        q = by[(r.n_models, r.spread, r.nu, design)]
        w = r.target
        text = fmt_n(getattr(q, f"n_{w}"), getattr(q, f"n_{w}_lo"), getattr(q, f"n_{w}_hi"),
                     q.budget * q.decisive_share, q.n_first)  # fmt: skip
        return text.split(" (")[0]  # the estimate; the needed table gives its interval

    return pd.DataFrame(
        {
            "target": sav["target"].map({"top": "top model", "rank": "full ranking"}),
            "models": sav["n_models"],
            "spread": sav["spread"],
            "ties": np.where(sav["nu"] > 0, "study ν", "none"),
            "design": sav["design"].map(DESIGN_NAMES),
            "judgements, design": [n(r, r.design) for r in sav.itertuples()],
            "judgements, uniform": [n(r, "uniform") for r in sav.itertuples()],
            "saving [simultaneous MC interval]": [
                fmt_saving(r.saving, r.saving_lo, r.saving_hi, r.saving_min, r.saving_max) for r in sav.itertuples()
            ],  # fmt: skip
            "verdict": saving_verdicts(sav),
        }
    )


def saving_caption(sav: pd.DataFrame, level_txt: str) -> str:
    """The saving table's caption: what its intervals are, with the number of verdicts and each interval's level
    (``level_txt``, :func:`compendium.humane.summary.level_text`) from the table."""
    m = int(sav["family"].iloc[0])
    return (f"Share of decisive judgements saved against uniform pairs to reach 95 %, with simultaneous Monte Carlo "
            f"intervals: each at {level_txt} (Bonferroni over the {m} intervals read as verdicts), so that all of "
            "them hold together with 95 % probability; negative: more judgements needed.")  # fmt: skip


def calibration_table(cal: pd.DataFrame) -> pd.DataFrame:
    """The pooled calibration table (:func:`.report.calibration`, one row per number of models and bin of reported
    P(best)) in the reader's words: the bin as "0.5–0.7" (the first one from 0: pandas puts its left edge a hair
    below, to include 0), the boards and the most of them one simulated study gives, the mean reported, the share
    right and its interval (Wilson, clustered by study), three decimals."""

    def edge(x: float) -> str:
        return f"{max(float(x), 0.0):g}"

    return pd.DataFrame(
        {
            "models": cal["n_models"].astype(int),
            "reported P(best)": [f"{edge(lo)}–{edge(hi)}" for lo, hi in zip(cal["reported_lo"], cal["reported_hi"])],
            "boards": cal["n"].map("{:,}".format),
            "most boards from one study": cal["max_per_study"].astype(int),
            "mean reported": cal["mean_reported"].map("{:.3f}".format),
            "share right": cal["observed"].map("{:.3f}".format),
            "share right: 95 % interval": [
                f"[{lo:.3f}, {hi:.3f}]" for lo, hi in zip(cal["observed_lo"], cal["observed_hi"])
            ],
        }
    )


#: the per-setting table's two ranges of reported P(best), as its headers name them (short: ten columns share the
#: page, and a header word wider than its column breaks inside the word in print; the caption says what they are)
CAL_RANGE_WORDS = ("≤ 95 %", "> 95 %")


def calibration_settings_table(cs: pd.DataFrame) -> pd.DataFrame:
    """One row per setting: for the boards reporting P(best) at most 95 % and above it, the mean reported, the share
    right and their gap with its simultaneous interval (:func:`.digits.fmt_gap`), and the verdict."""
    out = []
    for key, t in cs.groupby(["n_models", "spread", "nu", "design"], sort=True):
        row = {"models": key[0], "spread": key[1], "ties": "study ν" if key[2] > 0 else "none",
               "design": DESIGN_NAMES[key[3]]}  # fmt: skip
        for (lo, hi), words in zip(SETTING_RANGES, CAL_RANGE_WORDS):
            r = t[(t["reported_lo"] == lo) & (t["reported_hi"] == hi)].iloc[0]
            judged = r.verdict != "too few boards"
            row[f"{words}: boards"] = int(r.boards)
            row[f"{words}: reported → right: gap"] = (
                fmt_gap(r.mean_reported, r.observed, r.gap, r.gap_lo, r.gap_hi, compact=True) if judged else "—")  # fmt: skip
            row[f"{words}: verdict"] = r.verdict
        out.append(row)
    return pd.DataFrame(out)


def consolidation_table(cons: pd.DataFrame) -> pd.DataFrame:
    """One row per multi-group setting: the posterior SDs at the budget and their ratio against √(1/G), and per target
    the checkpoints compared unsaturated with the largest gap (pooled minus consolidated) ± its Monte Carlo SE."""
    out = pd.DataFrame(
        {
            "models": cons["n_models"],
            "spread": cons["spread"],
            "groups": cons["n_groups"],
            "studies": cons["studies"],
            "posterior SD, pooled": cons["sd_pooled"].map("{:.3f}".format),
            "posterior SD, least uncertain group": cons["sd_min_group"].map("{:.3f}".format),
            "ratio": cons["ratio"].map("{:.3f}".format),
            "√(1/G)": cons["sqrt_1_over_g"].map("{:.3f}".format),
        }
    )
    for what, name in (("rank", "full ranking"), ("top", "top model")):
        out[f"{name}: checkpoints compared"] = cons[f"{what}_cells"]
        out[f"{name}: largest gap ± SE"] = [
            f"{fmt_gap_se(g, e)} at {a:,.0f}" if k else "—"
            for g, e, a, k in zip(cons[f"{what}_gap"], cons[f"{what}_gap_se"], cons[f"{what}_gap_at"], cons[f"{what}_cells"])
        ]  # fmt: skip
    return out
