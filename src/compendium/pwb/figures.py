"""Figures of the PWB chapter (seaborn, themed by compendium.chapter.figstyle; each returns a Figure, the notebook
saves and glues it)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from compendium.chapter.display import with_alt
from compendium.chapter.figstyle import (
    CONDITION_COLORS,
    CONDITION_MARKERS,
    DIVERGING,
    GREY,
    heatmap,
    point_ranges,
    styled,
)

from . import alttext
from .constants import DIMENSIONS, dim_label

BASE = CONDITION_COLORS["baseline"]
PROMPT = CONDITION_COLORS["with_system_prompt"]
COND_LABELS = {"baseline": "baseline", "with_system_prompt": "with pro-worker system prompt"}
SCHEME_LABELS = {
    "default": "Default\n(v2.1)",
    "equal": "Equal",
    "cf_heavy": "CF-heavy",
    "restore_ut_ar": "Restore\nUT + AR_d",
    "v2_0": "v2.0",
}

__all__ = [
    "dim_label",
    "plot_pwi_dumbbell",
    "plot_model_dimension_heatmaps",
    "plot_radar",
    "plot_effect_vs_reliability",
    "plot_weight_sensitivity",
    "plot_stale_table",
    "plot_agreement_by_dimension",
    "plot_correlation",
    "plot_instance_pwi",
    "plot_prompt_domains",
]


def _dims(cols) -> list[str]:
    return [d for d in DIMENSIONS if d in set(cols)]


def _cond_style(conds=("baseline", "with_system_prompt")) -> dict:
    return {
        "hue_order": [COND_LABELS[c] for c in conds],
        "palette": [CONDITION_COLORS[c] for c in conds],
        "markers": [CONDITION_MARKERS[c] for c in conds],
    }


@with_alt(alttext.pwi_dumbbell)
@styled
def plot_pwi_dumbbell(t2: pd.DataFrame, released: pd.DataFrame | None = None):
    """Baseline and prompted PWI per model (rows sorted by prompted PWI); released bootstrap CIs as bars."""
    t = t2.sort_values("prompted", ascending=False).reset_index(drop=True)
    long = t.rename(columns={"prompted": "with_system_prompt"}).melt(
        id_vars="model", value_vars=["baseline", "with_system_prompt"], var_name="cond", value_name="pwi"
    )
    if released is not None:
        r = released.rename(columns={"Model": "model", "Variant": "cond", "CI_lower": "lo", "CI_upper": "hi"})
        long = long.merge(r[["model", "cond", "lo", "hi"]], on=["model", "cond"], how="left")
    else:
        long["lo"] = long["hi"] = long["pwi"]
    long["cond"] = long["cond"].map(COND_LABELS)
    fig, ax = plt.subplots(figsize=(7.5, 3.9))
    ax.hlines(range(len(t)), t["baseline"], t["prompted"], color="#bbb", lw=2, zorder=0)
    point_ranges(ax, long, "model", "pwi", "lo", "hi", hue="cond", order=list(t["model"]), **_cond_style())
    right = long.groupby("model")[["pwi", "hi"]].max().max(axis=1)
    for i, row in t.iterrows():
        ax.text(right[row["model"]] + 1.5, i, f"Δ +{row['delta_printed']:.1f}", va="center", fontsize=8, color=PROMPT)
    ax.set_xlim(0, 100)
    ax.set_xlabel("Pro-Worker Index (0 = fully substitutional, 100 = fully augmentative)")
    ax.axvline(50, color="#ccc", lw=0.8, ls="--", zorder=0)
    sns.move_legend(ax, "lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, title=None, fontsize=8)
    fig.tight_layout()
    return fig


@with_alt(alttext.model_dimension_heatmaps)
@styled
def plot_model_dimension_heatmaps(base: pd.DataFrame, prompted: pd.DataFrame, delta: pd.DataFrame):
    """Three model x dimension heatmaps: baseline mean, prompted mean (0-3) and their difference."""
    order = prompted.mean(axis=1).sort_values(ascending=False).index
    # stacked (not side by side) so each panel is shown at the page's full width and its numbers stay legible
    fig, axes = plt.subplots(3, 1, figsize=(7.4, 10.5), gridspec_kw={"hspace": 0.3})
    for ax, mat, title, diverging in (
        (axes[0], base, "baseline", False),
        (axes[1], prompted, "with system prompt", False),
        (axes[2], delta, "difference (prompted − baseline)", True),
    ):
        m = mat.loc[order, _dims(mat.columns)].rename(columns=dim_label)
        if diverging:
            heatmap(ax, m, fmt="+.1f", cmap=DIVERGING, vmin=-3, vmax=3, cbar_label="score difference")
        else:
            heatmap(ax, m, fmt=".1f", vmin=0, vmax=3, cbar_label="mean score (0–3)")
        ax.set_title(title, fontsize=10)
    return fig


@with_alt(alttext.radar)
@styled
def plot_radar(diag: pd.DataFrame):
    """Pooled baseline and prompted mean per dimension (all seven models), on a 0-3 radial scale."""
    d = diag.set_index("dimension").loc[_dims(diag["dimension"])]
    ang = np.linspace(0, 2 * np.pi, len(d), endpoint=False)
    ang_c = np.concatenate([ang, ang[:1]])
    fig, ax = plt.subplots(figsize=(5.6, 5.6), subplot_kw={"polar": True})
    for col, cond in (("baseline", "baseline"), ("prompted", "with_system_prompt")):
        v = np.concatenate([d[col].to_numpy(), d[col].to_numpy()[:1]])
        c = CONDITION_COLORS[cond]
        ax.plot(
            ang_c,
            v,
            marker=CONDITION_MARKERS[cond],
            color=c,
            lw=1.6,
            ms=4,
            label=COND_LABELS[cond],
            ls="--" if cond == "baseline" else "-",
        )
        ax.fill(ang_c, v, color=c, alpha=0.12)
    ax.set_xticks(ang, [dim_label(x) for x in d.index], fontsize=9)
    ax.set_ylim(0, 3)
    ax.set_yticks([1, 2, 3], ["1", "2", "3"], fontsize=7)
    ax.legend(loc="upper right", bbox_to_anchor=(1.25, 1.12), fontsize=8)
    fig.tight_layout()
    return fig


@with_alt(alttext.effect_vs_reliability)
@styled
def plot_effect_vs_reliability(diag: pd.DataFrame, kappa_threshold: float = 0.70):
    """Pooled Δ per dimension with the released 95 % CI, coloured (and marked) by the panel's QW-kappa
    (released), and the released mean judge spread as a grey tick for comparison."""
    d = diag.sort_values("delta", ascending=False).reset_index(drop=True)
    d["label"] = [dim_label(x, long=True) for x in d["dimension"]]
    hi_lab, lo_lab = f"Δ, panel QW-κ ≥ {kappa_threshold:.2f}", f"Δ, panel QW-κ < {kappa_threshold:.2f}"
    d["panel"] = np.where(d["released_qwk"] >= kappa_threshold, hi_lab, lo_lab)
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    point_ranges(
        ax,
        d,
        "label",
        "delta",
        "released_ci_lower",
        "released_ci_upper",
        hue="panel",
        order=list(d["label"]),
        hue_order=[hi_lab, lo_lab],
        palette=[PROMPT, GREY],
        markers=["o", "X"],
    )
    ax.scatter(d["released_spread"], d.index, marker="|", color="#555", s=120, zorder=2, label="mean judge spread")
    for i, row in d.iterrows():
        ax.text(
            2.25,
            i,
            f"κ = {row['released_qwk']:.2f}",
            va="center",
            fontsize=8,
            color=PROMPT if row["panel"] == hi_lab else GREY,
        )
    ax.tick_params(axis="y", labelsize=8)
    ax.set_xlim(0, 2.6)
    ax.set_xlabel("pooled prompted − baseline mean (0–3 scale); | = mean judge spread")
    ax.legend(loc="lower center", bbox_to_anchor=(0.45, 1.0), ncol=3, fontsize=8)
    fig.tight_layout()
    return fig


@with_alt(alttext.weight_sensitivity)
@styled
def plot_weight_sensitivity(pwis: pd.DataFrame):
    """The 14 PWIs under each weighting scheme: one line per model and condition."""
    schemes = list(dict.fromkeys(pwis["scheme"]))
    p = pwis.assign(
        x=pwis["scheme"].map({s: k for k, s in enumerate(schemes)}), cond=pwis["condition"].map(COND_LABELS)
    )
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    st = _cond_style(("with_system_prompt", "baseline"))
    sns.lineplot(
        p,
        x="x",
        y="pwi",
        hue="cond",
        style="cond",
        units="model",
        estimator=None,
        hue_order=st["hue_order"],
        palette=st["palette"],
        markers=st["markers"],
        dashes=False,
        alpha=0.75,
        lw=1.2,
        ms=5,
        ax=ax,
    )
    # labels of the prompted lines at the right edge, nudged apart so they do not overlap
    last = p[(p["condition"] == "with_system_prompt") & (p["x"] == len(schemes) - 1)].set_index("model")["pwi"]
    prev = None
    for model, v in last.sort_values().items():
        y = v if prev is None else max(v, prev + 3.8)
        prev = y
        ax.annotate(
            model,
            (len(schemes) - 1, v),
            xytext=(len(schemes) - 0.85, y),
            fontsize=8.5,
            va="center",
            color=PROMPT,
            arrowprops={"arrowstyle": "-", "color": "#bbb", "lw": 0.6},
        )
    ax.set_xticks(range(len(schemes)), [SCHEME_LABELS.get(s, s) for s in schemes], fontsize=9)
    ax.set(xlim=(-0.2, len(schemes) + 1.0), ylim=(0, 100), xlabel="", ylabel="PWI")
    sns.move_legend(ax, "lower right", title=None)
    fig.tight_layout()
    return fig


@with_alt(alttext.stale_table)
@styled
def plot_stale_table(stale: pd.DataFrame):
    """Printed appendix value minus the value the released CSVs give, per model and dimension."""
    m = stale.pivot(index="model", columns="dimension", values="diff")
    m = m[_dims(m.columns)].rename(columns=dim_label)
    fig, ax = plt.subplots(figsize=(8.5, 3.6))
    heatmap(
        ax, m, fmt="+.2f", cmap=DIVERGING, vmin=-1.2, vmax=1.2, cbar_label="printed − data", annot_kws={"fontsize": 7}
    )
    ax.tick_params(labelsize=8)
    fig.tight_layout()
    return fig


@with_alt(alttext.agreement_by_dimension)
@styled
def plot_agreement_by_dimension(fourth: pd.DataFrame, sample_irr: pd.DataFrame, released_irr: pd.DataFrame):
    """QW-kappa per dimension: fourth judge vs panel median, panel judges among themselves on the same
    sample, and the panel on the full data (released IRR table)."""
    dims = _dims(fourth["dimension"])
    series = {
        "fourth judge vs panel median (sample, N = 50 each)": fourth.set_index("dimension")["qwk"],
        "panel judges, mean pairwise (same sample)": sample_irr.set_index("dimension")["qwk"],
        "panel judges, mean pairwise (full data, released)": released_irr.set_index("Dimension")["qwk"],
    }
    long = pd.concat({k: s.loc[dims] for k, s in series.items()}, names=["measure", "dimension"]).rename("qwk")
    long = long.reset_index()
    long["label"] = long["dimension"].map(lambda x: dim_label(x, long=True))
    order = [dim_label(x, long=True) for x in series[list(series)[2]].loc[dims].sort_values(ascending=False).index]
    fig, ax = plt.subplots(figsize=(7.5, 5.0))
    sns.barplot(
        long,
        x="qwk",
        y="label",
        hue="measure",
        order=order,
        palette=["#6a4c93", "#88aacc", "#999999"],
        ax=ax,
        saturation=1,
    )
    for bars, hatch in zip(ax.containers, ("", "//", "..")):  # hatches: the three measures without colour
        for b in bars:
            b.set_hatch(hatch)
            b.set_edgecolor("white")
    ax.axvline(0.70, color="k", ls=":", lw=0.8)
    ax.tick_params(axis="y", labelsize=8)
    ax.set(xlabel="quadratic-weighted κ", ylabel="", xlim=(0, 1))
    sns.move_legend(ax, "lower center", bbox_to_anchor=(0.4, 1.0), ncol=1, title=None, fontsize=7)
    for h, hatch in zip(ax.get_legend().legend_handles, ("", "//", "..")):
        h.set(hatch=hatch, edgecolor="white")
    fig.tight_layout()
    return fig


@with_alt(alttext.correlation)
@styled
def plot_correlation(corr: pd.DataFrame, threshold: float = 0.70):
    """Dimension x dimension Pearson correlation matrix; cells above ``threshold`` outlined."""
    dims = [d for d in DIMENSIONS if d in corr.index]
    m = corr.loc[dims, dims].rename(index=dim_label, columns=dim_label)
    fig, ax = plt.subplots(figsize=(5.8, 5.0))
    heatmap(
        ax,
        m,
        fmt=".2f",
        cmap=DIVERGING,
        vmin=-1,
        vmax=1,
        cbar_label="Pearson r",
        square=True,
        annot_kws={"fontsize": 6.5},
    )
    for (i, j), v in np.ndenumerate(m.to_numpy()):
        if i != j and abs(v) > threshold:
            ax.add_patch(plt.Rectangle((j, i), 1, 1, fill=False, ec="k", lw=1.5))
    ax.tick_params(labelsize=8)
    fig.tight_layout()
    return fig


@with_alt(alttext.instance_pwi)
@styled
def plot_instance_pwi(pwi: pd.DataFrame):
    """Bootstrap PWI and 95 % percentile interval per model and condition (per-instance path)."""
    p = pwi.assign(cond=pwi["condition"].map(COND_LABELS))
    order = p[p["condition"] == "with_system_prompt"].sort_values("pwi", ascending=False)["model"].tolist()
    fig, ax = plt.subplots(figsize=(7.5, 3.9))
    point_ranges(ax, p, "model", "pwi", "ci_lower", "ci_upper", hue="cond", order=order, dodge=0.3, **_cond_style())
    ax.set_xlim(0, 100)
    ax.set_xlabel("PWI, bootstrap mean and 95 % percentile interval")
    sns.move_legend(ax, "lower right", title=None, fontsize=8)
    fig.tight_layout()
    return fig


@with_alt(alttext.prompt_domains)
@styled
def plot_prompt_domains(inventory: pd.DataFrame):
    """Layer-1 prompt counts per professional domain (rows) and dimension (columns)."""
    l1 = inventory[inventory["layer"] == 1]
    tab = pd.crosstab(l1["domain"], l1["dimension"])
    tab = tab[_dims(tab.columns)]
    tab = tab.loc[tab.sum(axis=1).sort_values(ascending=False).index]
    tab.index = [f"{d.replace('_', ' ')} ({n})" for d, n in tab.sum(axis=1).items()]
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    heatmap(
        ax,
        tab.rename(columns=dim_label),
        mask=tab.to_numpy() == 0,
        fmt="d",
        vmin=0,
        cbar_label="prompts",
        annot_kws={"fontsize": 7},
    )  # empty cells left blank
    ax.tick_params(labelsize=8)
    fig.tight_layout()
    return fig
