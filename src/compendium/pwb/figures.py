"""Figures of the PWB chapter (matplotlib; each returns a Figure, the notebook saves and glues it)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ..display import with_alt
from . import ABBREV, DIMENSIONS, alttext

BASE = "#c2703d"
PROMPT = "#3d7ac2"
SCHEME_LABELS = {"default": "Default\n(v2.1)", "equal": "Equal", "cf_heavy": "CF-heavy",
                 "restore_ut_ar": "Restore\nUT + AR_d", "v2_0": "v2.0"}

__all__ = ["dim_label", "plot_pwi_dumbbell", "plot_model_dimension_heatmaps", "plot_radar",
           "plot_effect_vs_reliability", "plot_weight_sensitivity", "plot_stale_table",
           "plot_agreement_by_dimension", "plot_correlation", "plot_instance_pwi", "plot_prompt_domains"]


def dim_label(d: str, long: bool = False) -> str:
    name = d.replace("_", " ")
    return f"{name} ({ABBREV.get(d, '')})" if long else ABBREV.get(d, name)


def _style(ax):
    ax.spines[["top", "right"]].set_visible(False)


@with_alt(alttext.pwi_dumbbell)
def plot_pwi_dumbbell(t2: pd.DataFrame, released: pd.DataFrame | None = None):
    """Baseline and prompted PWI per model (rows sorted by prompted PWI); released bootstrap CIs as bars."""
    t = t2.sort_values("prompted").reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(7.5, 3.9))
    y = np.arange(len(t))
    ax.hlines(y, t["baseline"], t["prompted"], color="#999", lw=2, zorder=1)
    right = t["prompted"].to_numpy().copy()
    if released is not None:
        r = released.set_index(["Model", "Variant"])
        for i, m in enumerate(t["model"]):
            for v, c in (("baseline", BASE), ("with_system_prompt", PROMPT)):
                ax.hlines(i, r.loc[(m, v), "CI_lower"], r.loc[(m, v), "CI_upper"], color=c, lw=6, alpha=0.25, zorder=2)
            right[i] = max(right[i], r.loc[(m, "with_system_prompt"), "CI_upper"])
    ax.scatter(t["baseline"], y, color=BASE, s=45, zorder=3, marker="s", label="baseline")
    ax.scatter(t["prompted"], y, color=PROMPT, s=45, zorder=3, label="with pro-worker system prompt")
    for i, row in t.iterrows():
        ax.text(right[i] + 1.5, i, f"Δ +{row['delta_printed']:.1f}", va="center", fontsize=8, color=PROMPT)
    ax.set_yticks(y, t["model"])
    ax.set_xlim(0, 100)
    ax.set_xlabel("Pro-Worker Index (0 = fully substitutional, 100 = fully augmentative)")
    ax.axvline(50, color="#ccc", lw=0.8, ls="--", zorder=0)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False, fontsize=8)
    _style(ax)
    fig.tight_layout()
    return fig


@with_alt(alttext.model_dimension_heatmaps)
def plot_model_dimension_heatmaps(base: pd.DataFrame, prompted: pd.DataFrame, delta: pd.DataFrame):
    """Three model x dimension heatmaps: baseline mean, prompted mean (0-3) and their difference."""
    order = prompted.mean(axis=1).sort_values(ascending=False).index
    # stacked (not side by side) so each panel is shown at the page's full width and its numbers stay legible
    fig, axes = plt.subplots(3, 1, figsize=(7.4, 10.5), sharex=True, gridspec_kw={"hspace": 0.22})
    for ax, mat, title, cmap, lim in ((axes[0], base, "baseline", "RdYlGn", (0, 3)),
                                      (axes[1], prompted, "with system prompt", "RdYlGn", (0, 3)),
                                      (axes[2], delta, "difference (prompted − baseline)", "PuOr", (-3, 3))):
        m = mat.loc[order, [d for d in DIMENSIONS if d in mat.columns]]
        im = ax.imshow(m.to_numpy(), cmap=cmap, vmin=lim[0], vmax=lim[1], aspect="auto")
        ax.set_xticks(range(m.shape[1]), [dim_label(d) for d in m.columns], fontsize=9)
        ax.tick_params(axis="x", labelbottom=True)
        ax.set_yticks(range(m.shape[0]), m.index, fontsize=9)
        ax.set_title(title, fontsize=10)
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                v = m.iat[i, j]
                txt = f"{v:+.1f}" if lim[0] < 0 else f"{v:.1f}"
                dark = abs(v) > 2.0 if lim[0] < 0 else (v < 0.6 or v > 2.4)
                ax.text(j, i, txt, ha="center", va="center", fontsize=8.5, color="white" if dark else "black")
        fig.colorbar(im, ax=ax, shrink=0.9, pad=0.02, label="score difference" if lim[0] < 0 else "mean score (0–3)")
    return fig


@with_alt(alttext.radar)
def plot_radar(diag: pd.DataFrame):
    """Pooled baseline and prompted mean per dimension (all seven models), on a 0-3 radial scale."""
    d = diag.set_index("dimension").loc[[x for x in DIMENSIONS if x in set(diag["dimension"])]]
    ang = np.linspace(0, 2 * np.pi, len(d), endpoint=False)
    ang_c = np.concatenate([ang, ang[:1]])
    fig, ax = plt.subplots(figsize=(5.6, 5.6), subplot_kw={"polar": True})
    for col, c, lab, fmt in (("baseline", BASE, "baseline", "s--"), ("prompted", PROMPT, "with system prompt", "o-")):
        v = np.concatenate([d[col].to_numpy(), d[col].to_numpy()[:1]])
        ax.plot(ang_c, v, fmt, color=c, lw=1.6, ms=4, label=lab)
        ax.fill(ang_c, v, color=c, alpha=0.12)
    ax.set_xticks(ang, [dim_label(x) for x in d.index], fontsize=9)
    ax.set_ylim(0, 3)
    ax.set_yticks([1, 2, 3], ["1", "2", "3"], fontsize=7)
    ax.legend(loc="upper right", bbox_to_anchor=(1.25, 1.12), frameon=False, fontsize=8)
    fig.tight_layout()
    return fig


@with_alt(alttext.effect_vs_reliability)
def plot_effect_vs_reliability(diag: pd.DataFrame, kappa_threshold: float = 0.70):
    """Pooled Δ per dimension with the released 95 % CI, coloured by the panel's QW-kappa (released),
    and the released mean judge spread as a grey tick for comparison."""
    d = diag.sort_values("delta").reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    y = np.arange(len(d))
    ok = d["released_qwk"] >= kappa_threshold
    for i, row in d.iterrows():
        c = PROMPT if ok[i] else "#aaa"
        ax.hlines(i, row["released_ci_lower"], row["released_ci_upper"], color=c, lw=3)
        ax.scatter(row["delta"], i, color=c, s=40, zorder=3)
        ax.scatter(row["released_spread"], i, marker="|", color="#555", s=120, zorder=2)
        ax.text(2.25, i, f"κ = {row['released_qwk']:.2f}", va="center", fontsize=8, color=c)
    ax.set_yticks(y, [dim_label(x, long=True) for x in d["dimension"]], fontsize=8)
    ax.set_xlim(0, 2.6)
    ax.set_xlabel("pooled prompted − baseline mean (0–3 scale); | = mean judge spread")
    ax.scatter([], [], color=PROMPT, label=f"Δ, panel QW-κ ≥ {kappa_threshold:.2f}")
    ax.scatter([], [], color="#aaa", label=f"Δ, panel QW-κ < {kappa_threshold:.2f}")
    ax.scatter([], [], marker="|", color="#555", s=120, label="mean judge spread")
    ax.legend(loc="lower center", bbox_to_anchor=(0.45, 1.0), ncol=3, frameon=False, fontsize=8)
    _style(ax)
    fig.tight_layout()
    return fig


@with_alt(alttext.weight_sensitivity)
def plot_weight_sensitivity(pwis: pd.DataFrame):
    """The 14 PWIs under each weighting scheme: one line per model and condition."""
    schemes = list(dict.fromkeys(pwis["scheme"]))
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    x = np.arange(len(schemes))
    last = {}
    for (model, cond), t in pwis.groupby(["model", "condition"], sort=True):
        t = t.set_index("scheme").loc[schemes]
        c = PROMPT if cond == "with_system_prompt" else BASE
        ax.plot(x, t["pwi"], "o-" if cond == "with_system_prompt" else "s--", color=c, alpha=0.7, lw=1.2, ms=3.5)
        if cond == "with_system_prompt":
            last[model] = float(t["pwi"].iloc[-1])
    # labels of the prompted lines at the right edge, nudged apart so they do not overlap
    ys, prev = {}, None
    for model, v in sorted(last.items(), key=lambda kv: kv[1]):
        ys[model] = v if prev is None else max(v, prev + 3.8)
        prev = ys[model]
    for model, v in ys.items():
        ax.annotate(model, (x[-1], last[model]), xytext=(x[-1] + 0.15, v), fontsize=8.5, va="center", color=PROMPT,
                    arrowprops={"arrowstyle": "-", "color": "#bbb", "lw": 0.6})
    ax.set_xticks(x, [SCHEME_LABELS.get(s, s) for s in schemes], fontsize=9)
    ax.set_xlim(-0.2, len(schemes) + 1.0)
    ax.set_ylim(0, 100)
    ax.set_ylabel("PWI")
    ax.plot([], [], "o-", color=PROMPT, label="with system prompt")
    ax.plot([], [], "s--", color=BASE, label="baseline")
    ax.legend(loc="lower right", frameon=False, fontsize=9)
    _style(ax)
    fig.tight_layout()
    return fig


@with_alt(alttext.stale_table)
def plot_stale_table(stale: pd.DataFrame):
    """Printed appendix value minus the value the released CSVs give, per model and dimension."""
    m = stale.pivot(index="model", columns="dimension", values="diff")
    m = m[[d for d in DIMENSIONS if d in m.columns]]
    fig, ax = plt.subplots(figsize=(8.5, 3.6))
    im = ax.imshow(m.to_numpy(), cmap="RdBu_r", vmin=-1.2, vmax=1.2, aspect="auto")
    ax.set_xticks(range(m.shape[1]), [dim_label(d) for d in m.columns], fontsize=8)
    ax.set_yticks(range(m.shape[0]), m.index, fontsize=8)
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            v = m.iat[i, j]
            ax.text(j, i, f"{v:+.2f}", ha="center", va="center", fontsize=7, color="white" if abs(v) > 0.8 else "black")
    fig.colorbar(im, ax=ax, shrink=0.85, pad=0.02, label="printed − data")
    fig.tight_layout()
    return fig


@with_alt(alttext.agreement_by_dimension)
def plot_agreement_by_dimension(fourth: pd.DataFrame, sample_irr: pd.DataFrame, released_irr: pd.DataFrame):
    """QW-kappa per dimension: fourth judge vs panel median, panel judges among themselves on the same
    sample, and the panel on the full data (released IRR table)."""
    dims = [d for d in DIMENSIONS if d in set(fourth["dimension"])]
    f = fourth.set_index("dimension").loc[dims, "qwk"]
    s = sample_irr.set_index("dimension").loc[dims, "qwk"]
    r = released_irr.set_index("Dimension").loc[dims, "qwk"]
    order = np.argsort(r.to_numpy())
    fig, ax = plt.subplots(figsize=(7.5, 5.0))
    y = np.arange(len(dims))
    h = 0.26
    ax.barh(y + h, f.to_numpy()[order], h, color="#6a4c93", label="fourth judge vs panel median (sample, N = 50 each)")
    ax.barh(y, s.to_numpy()[order], h, color="#8ac", label="panel judges, mean pairwise (same sample)")
    ax.barh(y - h, r.to_numpy()[order], h, color="#999", label="panel judges, mean pairwise (full data, released)")
    ax.axvline(0.70, color="k", ls=":", lw=0.8)
    ax.set_yticks(y, [dim_label(dims[i], long=True) for i in order], fontsize=8)
    ax.set_xlabel("quadratic-weighted κ")
    ax.set_xlim(0, 1)
    ax.legend(loc="lower center", bbox_to_anchor=(0.4, 1.0), ncol=1, frameon=False, fontsize=7)
    _style(ax)
    fig.tight_layout()
    return fig


@with_alt(alttext.correlation)
def plot_correlation(corr: pd.DataFrame, threshold: float = 0.70):
    """Dimension x dimension Pearson correlation matrix; cells above ``threshold`` outlined."""
    dims = [d for d in DIMENSIONS if d in corr.index]
    m = corr.loc[dims, dims]
    fig, ax = plt.subplots(figsize=(5.8, 5.0))
    im = ax.imshow(m.to_numpy(), cmap="RdBu_r", vmin=-1, vmax=1)
    ax.set_xticks(range(len(dims)), [dim_label(d) for d in dims], fontsize=8)
    ax.set_yticks(range(len(dims)), [dim_label(d) for d in dims], fontsize=8)
    for i in range(len(dims)):
        for j in range(len(dims)):
            v = m.iat[i, j]
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=6.5, color="white" if abs(v) > 0.6 else "black")
            if i != j and abs(v) > threshold:
                ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="k", lw=1.5))
    fig.colorbar(im, ax=ax, shrink=0.8, pad=0.02, label="Pearson r")
    fig.tight_layout()
    return fig


@with_alt(alttext.instance_pwi)
def plot_instance_pwi(pwi: pd.DataFrame):
    """Bootstrap PWI and 95 % percentile interval per model and condition (per-instance path)."""
    p = pwi.pivot(index="model", columns="condition", values="pwi")
    order = p["with_system_prompt"].sort_values().index
    fig, ax = plt.subplots(figsize=(7.5, 3.9))
    for k, (cond, c, mk) in enumerate((("baseline", BASE, "s"), ("with_system_prompt", PROMPT, "o"))):
        t = pwi[pwi["condition"] == cond].set_index("model").loc[order]
        y = np.arange(len(order)) + (k - 0.5) * 0.25
        ax.hlines(y, t["ci_lower"], t["ci_upper"], color=c, lw=2)
        ax.scatter(t["pwi"], y, color=c, s=30, zorder=3, marker=mk, label=cond.replace("_", " "))
    ax.set_yticks(np.arange(len(order)), order)
    ax.set_xlim(0, 100)
    ax.set_xlabel("PWI, bootstrap mean and 95 % percentile interval")
    ax.legend(frameon=False, fontsize=8, loc="lower right")
    _style(ax)
    fig.tight_layout()
    return fig


@with_alt(alttext.prompt_domains)
def plot_prompt_domains(inventory: pd.DataFrame):
    """Layer-1 prompt counts per professional domain (rows) and dimension (columns)."""
    l1 = inventory[inventory["layer"] == 1]
    tab = pd.crosstab(l1["domain"], l1["dimension"])
    tab = tab[[d for d in DIMENSIONS if d in tab.columns]]
    tab = tab.loc[tab.sum(axis=1).sort_values(ascending=False).index]
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    im = ax.imshow(tab.to_numpy(), cmap="Blues", vmin=0, aspect="auto")
    ax.set_xticks(range(tab.shape[1]), [dim_label(d) for d in tab.columns], fontsize=8)
    ax.set_yticks(range(tab.shape[0]), [f"{d.replace('_', ' ')} ({n})" for d, n in tab.sum(axis=1).items()], fontsize=8)
    for i in range(tab.shape[0]):
        for j in range(tab.shape[1]):
            v = tab.iat[i, j]
            if v:
                ax.text(j, i, str(v), ha="center", va="center", fontsize=7, color="white" if v > 5 else "black")
    fig.colorbar(im, ax=ax, shrink=0.8, pad=0.02, label="prompts")
    fig.tight_layout()
    return fig
