"""Figures of the Human preferences chapter (seaborn, themed by compendium.chapter.figstyle; each function returns a
Figure)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from compendium.chapter.display import with_alt
from compendium.chapter.figstyle import CATEGORICAL, DIVERGING, GREY, heatmap, point_ranges, styled
from compendium.chapter.numbers import share

from . import alttext
from .reproduce import MODEL_LABELS, MODELS, TRAINED, VAL_PREF_ACC

#: One colour per model: grey for the untrained model, blues for the agent's recipes (A, B),
#: oranges for the agent + researcher recipes (C, D), as in the study's report (blue/orange: colour-blind safe);
#: each model also has its own marker.
MODEL_COLOURS = {
    "untrained": "#7f7f7f",
    "recipe_a": "#6baed6",
    "recipe_b": "#2171b5",
    "recipe_c": "#fd8d3c",
    "recipe_d": "#b63c02",
}
MODEL_MARKERS = {"untrained": "o", "recipe_a": "^", "recipe_b": "v", "recipe_c": "s", "recipe_d": "D"}
SIGNAL_COLOURS = {"tracks": CATEGORICAL[0], "flips": CATEGORICAL[3], "noisy": GREY}
SIGNAL_MARKERS = {"tracks": "o", "flips": "X", "noisy": "s"}
STRATEGY_LABELS = {
    "uniform": "uniform pairs",
    "information_gain": "information gain (HUMANE)",
    "arena": "arena-like skew",
}
STRATEGY_COLOURS = {"uniform": "#4d4d4d", "information_gain": CATEGORICAL[1], "arena": CATEGORICAL[4]}
_styled = styled  # the chapter's decorator is the book's theme


def _lab(m: str) -> str:
    return MODEL_LABELS.get(m, m)


@with_alt(alttext.pair_forest)
@_styled
def plot_pair_forest(pairs: pd.DataFrame) -> plt.Figure:
    """Win rate of the higher-``val_pref_acc`` model in each pair, with its Wilson 95 % interval."""
    df = pairs.sort_values("higher_val_win_rate", ascending=False).reset_index(drop=True)
    df["label"] = [
        f"{_lab(a)} vs {_lab(b)}  (Δval {d:.3f})"
        for a, b, d in zip(df["higher_val_model"], df["lower_val_model"], df["delta_val_pref_acc"])
    ]
    sig = [s for s in SIGNAL_COLOURS if s in set(df["signal"])]
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    point_ranges(
        ax,
        df,
        "label",
        "higher_val_win_rate",
        "wilson_lo",
        "wilson_hi",
        hue="signal",
        order=list(df["label"]),
        hue_order=sig,
        palette=SIGNAL_COLOURS,
        markers=[SIGNAL_MARKERS[s] for s in sig],
    )
    for k, r in df.iterrows():
        ax.text(
            1.005,
            k,
            f"{int(r['higher_val_wins'])}–{int(r['lower_val_wins'])} (+{int(r['ties'])} ties)",
            transform=ax.get_yaxis_transform(),
            va="center",
            fontsize=8.5,
            color="#333333",
        )
    ax.axvline(0.5, color="k", lw=0.8, ls=":")
    ax.set(
        xlabel="win rate of the model with the higher val_pref_acc (ties excluded)",
        xlim=(0.3, 0.8),
        title="Does the metric's ordering agree with people, pair by pair?",
    )
    sns.move_legend(ax, "lower right", title="signal")
    fig.tight_layout()
    return fig


@with_alt(alttext.bt_uncertainty)
@_styled
def plot_bt_uncertainty(summary: pd.DataFrame, rank_probs: pd.DataFrame, level: float = 0.95) -> plt.Figure:
    """Top: BT strengths with bootstrap intervals. Bottom: probability of each rank."""
    s = summary.set_index("model").loc[list(MODELS)]
    order = s["strength"].sort_values(ascending=False).index.tolist()
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7, 7), gridspec_kw={"height_ratios": [1, 1], "hspace": 0.45})
    d = s.reset_index().assign(label=lambda t: t["model"].map(_lab))
    point_ranges(
        a1,
        d,
        "label",
        "strength",
        "ci_lo",
        "ci_hi",
        hue="label",
        order=[_lab(m) for m in order],
        hue_order=[_lab(m) for m in order],
        palette=[MODEL_COLOURS[m] for m in order],
        markers=[MODEL_MARKERS[m] for m in order],
        legend=False,
    )
    for k, m in enumerate(order):
        a1.text(s.loc[m, "ci_hi"] + 0.01, k, f"P(best) = {s.loc[m, 'p_best']:.2f}", va="center", fontsize=8.5)
    a1.axvline(1.0, color="k", lw=0.6, ls=":")
    a1.set(
        xlabel=f"Bradley–Terry strength (sum = 5), {share(level)} bootstrap interval",
        xlim=(0.65, 1.55),
        title="Strengths and their uncertainty",
    )
    rp = rank_probs.loc[order].rename(index=_lab)
    rp.columns = [str(k + 1) for k in range(rp.shape[1])]
    heatmap(
        a2,
        rp,
        annot=rp.map(lambda v: f"{v:.2f}" if v >= 0.005 else "").to_numpy(),
        mask=(rp < 0.005).to_numpy(),  # a rank never (or almost never) reached stays blank, not darkest
        fmt="",
        vmin=0,
        vmax=1,
        cbar_label="share of replicates",
        annot_kws={"fontsize": 9.5},
    )
    a2.set(xlabel="rank (1 = most preferred)", title="Probability of each rank")
    return fig


@with_alt(alttext.bt_vs_val)
@_styled
def plot_bt_vs_val(bt: pd.DataFrame, rho: float) -> plt.Figure:
    """BT strength against val_pref_acc for the five models (the trained four carry the correlation)."""
    s = bt.set_index("model")["strength"]
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    for m in MODELS:
        trained = m in TRAINED
        ax.plot(
            VAL_PREF_ACC[m],
            s[m],
            MODEL_MARKERS[m],
            ms=9,
            color=MODEL_COLOURS[m] if trained else "white",
            mec=MODEL_COLOURS[m],
            mew=1.5,
        )
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
    tidy = {"index": lambda c: c.replace("_", " "), "columns": _lab}
    lim = float(np.abs(np.log(cat_bt.to_numpy())).max())
    # symmetric limits centre the diverging map (seaborn's center= calls a deprecated matplotlib API)
    heatmap(
        a1,
        np.log(cat_bt).rename(**tidy),
        annot=cat_bt.to_numpy(),
        fmt=".2f",
        cmap=DIVERGING,
        vmin=-lim,
        vmax=lim,
        cbar_label="strength (log scale)",
        annot_kws={"fontsize": 9.5},
    )
    ticks = np.log([0.5, 0.7, 1.0, 1.4, 2.0])
    ticks = ticks[np.abs(ticks) <= lim + 1e-9]
    a1.collections[0].colorbar.set_ticks(ticks, labels=[f"{np.exp(t):.1f}" for t in ticks])
    a1.set_title("Bradley–Terry strength within each category")
    heatmap(
        a2,
        cat_wr.rename(**tidy),
        fmt=".2f",
        cmap=DIVERGING,
        vmin=0.2,
        vmax=0.8,
        cbar_label="win rate",
        annot_kws={"fontsize": 9.5},
    )
    a2.set_title("Win rate against all others (ties excluded)")
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
        bp = ax.boxplot(
            data, orientation="horizontal", widths=0.5, patch_artist=True, showfliers=False, medianprops={"color": "k"}
        )
        for patch, m in zip(bp["boxes"], order):
            patch.set_facecolor(MODEL_COLOURS[m])
            patch.set_alpha(0.8)
        for k, m in enumerate(order):
            sig = float(r.sigma[:, MODELS.index(m)].mean())
            ax.errorbar(
                float(mc[:, MODELS.index(m)].mean()), k + 1.36, xerr=sig, fmt="none", ecolor="k", capsize=3, lw=1
            )
        ax.set_yticks(range(1, len(order) + 1), [_lab(m) for m in order])
        ax.axvline(0, color="k", lw=0.6, ls=":")
        ax.set_xlabel("TrueSkill μ minus the five models' mean μ")
        ax.tick_params(axis="x", labelbottom=True)
        matching = r.share_matching_ranking(bt.set_index("model").loc[list(MODELS), "strength"].to_numpy())
        ax.set_title(f"{title}\n{share(matching)} of orders reproduce the BT ranking", fontsize=10)
    fig.tight_layout()
    return fig


@with_alt(alttext.simulation)
@_styled
def plot_simulation(curves: pd.DataFrame, needed: pd.DataFrame, target: float, study_n: int) -> plt.Figure:
    """Recovery probability against the number of (decisive) judgements, per sampling strategy."""
    fig, axes = plt.subplots(2, 1, figsize=(7, 7.2), sharex=True)
    nd = needed.set_index("strategy")
    c = curves.assign(k=curves["n_judgements"] / 1000, strategy=curves["strategy"].map(STRATEGY_LABELS))
    pal = {STRATEGY_LABELS[s]: col for s, col in STRATEGY_COLOURS.items()}
    for ax, col, title, key in (
        (axes[0], "p_ranking", "all five places in the true order", "n_for_ranking"),
        (axes[1], "p_top", "the true top model", "n_for_top"),
    ):
        sns.lineplot(
            c, x="k", y=col, hue="strategy", style="strategy", palette=pal, lw=1.8, ax=ax, legend=ax is axes[0]
        )
        for s, n in nd[key].items():
            if np.isfinite(n):
                ax.plot(n / 1000, target, "o", color=STRATEGY_COLOURS[s], ms=6)
        ax.axhline(target, color="k", lw=0.8, ls=":")
        ax.axvline(study_n / 1000, color="#999999", lw=1, ls="--")
        ax.text(study_n / 1000, 0.04, "  ← this study", color="#666666", fontsize=9, va="bottom", ha="left")
        ax.set(title=f"P(recover {title})", ylabel="share of simulated studies", ylim=(0, 1.01))
    axes[-1].set_xlabel("decisive judgements (thousands)")
    sns.move_legend(axes[0], "lower right", title=None)
    fig.tight_layout()
    return fig


@with_alt(alttext.participant_activity)
@_styled
def plot_participant_activity(per_participant: pd.DataFrame) -> plt.Figure:
    """Histogram of judgements per participant (row-level data only)."""
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    n = per_participant["n_judgements"]
    sns.histplot(n, discrete=True, color=CATEGORICAL[0], ax=ax)
    ax.set(
        xlabel="judgements per participant",
        ylabel="participants",
        title=f"{len(n)} participants, median {n.median():.0f} judgements each",
    )
    fig.tight_layout()
    return fig
