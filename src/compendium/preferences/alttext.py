"""Alt text of the Human preferences figures: what each shows and its main finding, in one or two sentences.

Each function takes the same arguments as the figure function of the same name in
:mod:`compendium.preferences.figures` (which attaches the text with :func:`compendium.chapter.display.with_alt`),
so the numbers in the alt text are the numbers drawn and follow a re-run like the caption's glued values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from compendium.chapter.numbers import share

from .reproduce import MODEL_LABELS, MODELS, TRAINED, VAL_PREF_ACC

STRATEGY = {"uniform": "uniform pairs", "information_gain": "information gain", "arena": "arena-like skew"}


def _lab(m: str) -> str:
    return MODEL_LABELS.get(m, m)


def pair_forest(pairs: pd.DataFrame) -> str:
    counts = pairs["signal"].value_counts()
    top = pairs.loc[pairs["higher_val_win_rate"].idxmax()]
    sig = ", ".join(f"{int(counts.get(s, 0))} {s}" for s in ("tracks", "flips", "noisy"))
    return (
        f"Forest plot of {len(pairs)} model pairs: the win rate of the model with the higher val_pref_acc, "
        f"with Wilson 95 % intervals and a dotted line at 0.5; each pair's signal is shown by colour and marker "
        f"({sig}). The highest is {_lab(top['higher_val_model'])} over {_lab(top['lower_val_model'])}, "
        f"{top['higher_val_win_rate']:.2f} ({top['wilson_lo']:.2f} to {top['wilson_hi']:.2f})."
    )


def bt_uncertainty(summary: pd.DataFrame, rank_probs: pd.DataFrame, level: float = 0.95) -> str:
    s = summary.set_index("model")
    best = s["strength"].idxmax()
    rp = rank_probs.loc[best]
    return (
        f"Top: Bradley–Terry strengths of {len(s)} models with {share(level)} bootstrap intervals; bottom: a heatmap "
        f"of each model's probability of each rank. {_lab(best)} is strongest ({s.loc[best, 'strength']:.2f}, "
        f"{s.loc[best, 'ci_lo']:.2f} to {s.loc[best, 'ci_hi']:.2f}) and ranks first in "
        f"{share(float(rp.iloc[0]))} of replicates (P(best) = {s.loc[best, 'p_best']:.2f})."
    )


def bt_vs_val(bt: pd.DataFrame, rho: float) -> str:
    s = bt.set_index("model")["strength"]
    pts = "; ".join(f"{_lab(m)} {VAL_PREF_ACC[m]:.3f}, {s[m]:.2f}" for m in MODELS)
    return (
        f"Scatter plot of Bradley–Terry strength against val_pref_acc for {len(MODELS)} models (the untrained model "
        f"as an open circle); Spearman rho over the {len(TRAINED)} trained recipes is {rho:+.2f}. "
        f"val_pref_acc, strength: {pts}."
    )


def category_heatmaps(cat_bt: pd.DataFrame, cat_wr: pd.DataFrame) -> str:
    best = cat_bt.idxmax(axis=1)
    lead = ", ".join(f"{c.replace('_', ' ')}: {_lab(m)}" for c, m in best.items())
    return (
        f"Two heatmaps, prompt categories ({len(cat_bt)}) by models ({cat_bt.shape[1]}), each cell labelled: "
        f"Bradley–Terry strength within the category and win rate against all others. The strongest model per "
        f"category: {lead}."
    )


def trueskill(results: dict, bt: pd.DataFrame) -> str:
    strengths = bt.set_index("model").loc[list(MODELS), "strength"].to_numpy()
    shares = "; ".join(f"{title}: {share(r.share_matching_ranking(strengths))}" for title, r in results.items())
    return (
        f"Box plots of each model's centred TrueSkill mu over many random orders of the same judgements, one panel "
        f"per setting ({len(results)}), with the mean sigma TrueSkill reports as black bars. Share of orders that "
        f"reproduce the Bradley–Terry ranking: {shares}."
    )


def simulation(curves: pd.DataFrame, needed: pd.DataFrame, target: float, study_n: int) -> str:
    nd = needed.set_index("strategy")

    def n(s, key):  # to the digits its Monte Carlo error supports, as the table prints it (rule "estimate")
        from compendium.stats.mcdigits import mc_step

        v, se = nd.loc[s, key], nd.loc[s, f"{key}_mc_se"] if f"{key}_mc_se" in nd else np.nan
        if not np.isfinite(v):
            return "not reached"
        if not (np.isfinite(se) and se > 0):
            return f"about {v:,.0f}"
        step = mc_step(se, v, "estimate")
        return f"about {round(v / step) * step:,.0f}"

    parts = "; ".join(f"{STRATEGY.get(s, s)} {n(s, 'n_for_ranking')}" for s in nd.index)
    return (
        f"Two line charts of the share of simulated studies that recover the true ranking (top) and the true "
        f"top model (bottom) against the number of decisive judgements, for {len(nd)} sampling strategies, with "
        f"this study's {study_n:,} marked. Judgements needed for a {share(target)} chance of the full ranking: {parts}."
    )


def participant_activity(per_participant: pd.DataFrame) -> str:
    n = per_participant["n_judgements"]
    return (
        f"Histogram of judgements per participant for {len(n)} participants: median {n.median():.0f}, "
        f"range {n.min()} to {n.max()}."
    )
