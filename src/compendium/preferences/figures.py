"""Figures of the Human preferences chapter (matplotlib; each function returns a Figure)."""
from __future__ import annotations

import functools

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ..display import with_alt
from . import alttext
from .report import MODEL_LABELS, MODELS, TRAINED, VAL_PREF_ACC

#: One colour per model: grey for the untrained model, blues for the agent's recipes (A, B),
#: oranges for the agent + researcher recipes (C, D), as in the study's report.
MODEL_COLOURS = {"untrained": "#7f7f7f", "recipe_a": "#6baed6", "recipe_b": "#2171b5",
                 "recipe_c": "#fd8d3c", "recipe_d": "#b63c02"}
SIGNAL_COLOURS = {"tracks": "#1b7837", "flips": "#b2182b", "noisy": "#8c8c8c"}
SIGNAL_MARKERS = {"tracks": "o", "flips": "X", "noisy": "s"}
STRATEGY_LABELS = {"uniform": "uniform pairs", "information_gain": "information gain (HUMANE)",
                   "arena": "arena-like skew"}
STRATEGY_COLOURS = {"uniform": "#4d4d4d", "information_gain": "#d95f02", "arena": "#7570b3"}
STRATEGY_LINES = {"uniform": "-", "information_gain": "--", "arena": "-."}

STYLE = {"font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10, "figure.dpi": 100,
         "axes.spines.top": False, "axes.spines.right": False}


def _styled(func):
    """Draw inside ``plt.rc_context(STYLE)`` so the chapter's style does not leak into other code."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with plt.rc_context(STYLE):
            return func(*args, **kwargs)
    return wrapper


def _lab(m: str) -> str:
    return MODEL_LABELS.get(m, m)


@with_alt(alttext.pair_forest)
@_styled
def plot_pair_forest(pairs: pd.DataFrame) -> plt.Figure:
    """Win rate of the higher-``val_pref_acc`` model in each pair, with its Wilson 95 % interval."""
    df = pairs.sort_values("higher_val_win_rate").reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    y = np.arange(len(df))
    for k, r in df.iterrows():
        c = SIGNAL_COLOURS.get(r["signal"], "k")
        ax.plot([r["wilson_lo"], r["wilson_hi"]], [k, k], color=c, lw=2.5, solid_capstyle="butt")
        ax.plot(r["higher_val_win_rate"], k, SIGNAL_MARKERS.get(r["signal"], "o"), color=c, ms=7)
        ax.text(1.005, k, f"{int(r['higher_val_wins'])}–{int(r['lower_val_wins'])} (+{int(r['ties'])} ties)",
                transform=ax.get_yaxis_transform(), va="center", fontsize=8.5, color="#333333")
    ax.axvline(0.5, color="k", lw=0.8, ls=":")
    ax.set_yticks(y, [f"{_lab(a)} vs {_lab(b)}  (Δval {d:.3f})" for a, b, d in
                      zip(df["higher_val_model"], df["lower_val_model"], df["delta_val_pref_acc"])])
    ax.set_xlabel("win rate of the model with the higher val_pref_acc (ties excluded)")
    ax.set_xlim(0.3, 0.8)
    for s, c in SIGNAL_COLOURS.items():
        ax.plot([], [], color=c, lw=2.5, marker=SIGNAL_MARKERS[s], ms=7, label=s)
    ax.legend(title="signal", loc="lower right", frameon=False)
    ax.set_title("Does the metric's ordering agree with people, pair by pair?")
    fig.tight_layout()
    return fig


@with_alt(alttext.bt_uncertainty)
@_styled
def plot_bt_uncertainty(summary: pd.DataFrame, rank_probs: pd.DataFrame, level: float = 0.95) -> plt.Figure:
    """Top: BT strengths with bootstrap intervals. Bottom: probability of each rank."""
    s = summary.set_index("model").loc[list(MODELS)]
    order = s["strength"].sort_values().index.tolist()
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7, 7), gridspec_kw={"height_ratios": [1, 1], "hspace": 0.45})
    for k, m in enumerate(order):
        r = s.loc[m]
        a1.plot([r["ci_lo"], r["ci_hi"]], [k, k], color=MODEL_COLOURS[m], lw=3, solid_capstyle="butt")
        a1.plot(r["strength"], k, "o", color=MODEL_COLOURS[m], ms=8, mec="k", mew=0.6)
        a1.text(r["ci_hi"] + 0.01, k, f"P(best) = {r['p_best']:.2f}", va="center", fontsize=8.5)
    a1.set_yticks(range(len(order)), [_lab(m) for m in order])
    a1.axvline(1.0, color="k", lw=0.6, ls=":")
    a1.set_xlabel(f"Bradley–Terry strength (sum = 5), {level:.0%} bootstrap interval")
    a1.set_xlim(0.65, 1.55)
    a1.set_title("Strengths and their uncertainty")
    rp = rank_probs.loc[order[::-1]]
    im = a2.imshow(rp.to_numpy(), cmap="Blues", vmin=0, vmax=1, aspect="auto")
    for (i, j), v in np.ndenumerate(rp.to_numpy()):
        if v >= 0.005:
            a2.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=9.5, color="white" if v > 0.55 else "k")
    a2.set_xticks(range(rp.shape[1]), [str(k + 1) for k in range(rp.shape[1])])
    a2.set_yticks(range(rp.shape[0]), [_lab(m) for m in rp.index])
    a2.set_xlabel("rank (1 = most preferred)")
    a2.set_title("Probability of each rank")
    a2.spines[:].set_visible(False)
    fig.colorbar(im, ax=a2, shrink=0.9, label="share of replicates")
    return fig


@with_alt(alttext.bt_vs_val)
@_styled
def plot_bt_vs_val(bt: pd.DataFrame, rho: float) -> plt.Figure:
    """BT strength against val_pref_acc for the five models (the trained four carry the correlation)."""
    s = bt.set_index("model")["strength"]
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    for m in MODELS:
        trained = m in TRAINED
        ax.plot(VAL_PREF_ACC[m], s[m], "o", ms=9, color=MODEL_COLOURS[m] if trained else "white",
                mec=MODEL_COLOURS[m], mew=1.5)
        ax.annotate(_lab(m), (VAL_PREF_ACC[m], s[m]), textcoords="offset points", xytext=(6, 4), fontsize=9)
    ax.set_xlabel("val_pref_acc (the autoresearch metric)")
    ax.set_ylabel("Bradley–Terry strength")
    ax.set_title(f"Metric vs people: Spearman ρ = {rho:+.2f} over the 4 trained recipes")
    ax.set_xlim(0.45, 0.68)
    fig.tight_layout()
    return fig


@with_alt(alttext.category_heatmaps)
@_styled
def plot_category_heatmaps(cat_bt: pd.DataFrame, cat_wr: pd.DataFrame) -> plt.Figure:
    """Per prompt category: BT strength (log colour scale centred on 1) and pooled win rate."""
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7, 8.6), gridspec_kw={"hspace": 0.35})
    cats = [c.replace("_", " ") for c in cat_bt.index]
    lim = float(np.abs(np.log(cat_bt.to_numpy())).max())
    im1 = a1.imshow(np.log(cat_bt.to_numpy()), cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto")
    for (i, j), v in np.ndenumerate(cat_bt.to_numpy()):
        a1.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=9.5)
    a1.set_title("Bradley–Terry strength within each category")
    cb1 = fig.colorbar(im1, ax=a1, shrink=0.9, label="strength (log scale)")
    ticks = np.log([0.5, 0.7, 1.0, 1.4, 2.0])
    cb1.set_ticks(ticks[np.abs(ticks) <= lim + 1e-9], labels=[f"{np.exp(t):.1f}" for t in ticks[np.abs(ticks) <= lim + 1e-9]])
    im2 = a2.imshow(cat_wr.to_numpy(), cmap="RdBu_r", vmin=0.2, vmax=0.8, aspect="auto")
    for (i, j), v in np.ndenumerate(cat_wr.to_numpy()):
        a2.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=9.5)
    a2.set_title("Win rate against all others (ties excluded)")
    fig.colorbar(im2, ax=a2, shrink=0.9, label="win rate")
    for a in (a1, a2):
        a.set_xticks(range(len(MODELS)), [_lab(m) for m in MODELS])
        a.set_yticks(range(len(cats)), cats)
        a.spines[:].set_visible(False)
    return fig


@with_alt(alttext.trueskill)
@_styled
def plot_trueskill(results: dict[str, object], bt: pd.DataFrame) -> plt.Figure:
    """Centred TrueSkill mu after each random order of the same judgements, one panel per environment;
    black bars: +/- the mean sigma TrueSkill itself reports."""
    fig, axes = plt.subplots(len(results), 1, figsize=(7, 3.4 * len(results)), sharex=True)
    axes = np.atleast_1d(axes)
    order = bt.sort_values("strength")["model"].tolist()
    for ax, (title, r) in zip(axes, results.items()):
        mc = r.centred_mu()
        data = [mc[:, MODELS.index(m)] for m in order]
        bp = ax.boxplot(data, vert=False, widths=0.5, patch_artist=True, showfliers=False,
                        medianprops={"color": "k"})
        for patch, m in zip(bp["boxes"], order):
            patch.set_facecolor(MODEL_COLOURS[m])
            patch.set_alpha(0.8)
        for k, m in enumerate(order):
            sig = float(r.sigma[:, MODELS.index(m)].mean())
            ax.errorbar(float(mc[:, MODELS.index(m)].mean()), k + 1.36, xerr=sig, fmt="none", ecolor="k",
                        capsize=3, lw=1)
        ax.set_yticks(range(1, len(order) + 1), [_lab(m) for m in order])
        ax.axvline(0, color="k", lw=0.6, ls=":")
        ax.set_xlabel("TrueSkill μ minus the five models' mean μ")
        ax.tick_params(axis="x", labelbottom=True)
        share = r.share_matching_ranking(bt.set_index("model").loc[list(MODELS), "strength"].to_numpy())
        ax.set_title(f"{title}\n{share:.0%} of orders reproduce the BT ranking", fontsize=10)
    fig.tight_layout()
    return fig


@with_alt(alttext.simulation)
@_styled
def plot_simulation(curves: pd.DataFrame, needed: pd.DataFrame, target: float, study_n: int) -> plt.Figure:
    """Recovery probability against the number of (decisive) judgements, per sampling strategy."""
    fig, axes = plt.subplots(2, 1, figsize=(7, 7.2), sharex=True)
    nd = needed.set_index("strategy")
    for ax, col, title, key in ((axes[0], "p_ranking", "all five places in the true order", "n_for_ranking"),
                                (axes[1], "p_top", "the true top model", "n_for_top")):
        for s, g in curves.groupby("strategy", sort=False):
            ax.plot(g["n_judgements"] / 1000, g[col], color=STRATEGY_COLOURS[s], lw=1.8, ls=STRATEGY_LINES[s],
                    label=STRATEGY_LABELS[s])
            n = nd.loc[s, key]
            if np.isfinite(n):
                ax.plot(n / 1000, target, "o", color=STRATEGY_COLOURS[s], ms=6)
        ax.axhline(target, color="k", lw=0.8, ls=":")
        ax.axvline(study_n / 1000, color="#999999", lw=1, ls="--")
        ax.text(study_n / 1000, 0.04, "  ← this study", color="#666666", fontsize=9, va="bottom", ha="left")
        ax.set_title(f"P(recover {title})")
        ax.set_ylabel("share of simulated studies")
        ax.set_ylim(0, 1.01)
    axes[-1].set_xlabel("decisive judgements (thousands)")
    axes[0].legend(frameon=False, loc="lower right")
    fig.tight_layout()
    return fig


@with_alt(alttext.participant_activity)
@_styled
def plot_participant_activity(per_participant: pd.DataFrame) -> plt.Figure:
    """Histogram of judgements per participant (row-level data only)."""
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    n = per_participant["n_judgements"]
    ax.hist(n, bins=np.arange(n.min() - 0.5, n.max() + 1.5, 1), color="#2171b5", alpha=0.8)
    ax.set_xlabel("judgements per participant")
    ax.set_ylabel("participants")
    ax.set_title(f"{len(n)} participants, median {n.median():.0f} judgements each")
    fig.tight_layout()
    return fig
