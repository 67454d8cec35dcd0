"""The robustness chapter's figures (seaborn, in the theme of :mod:`compendium.chapter.figstyle`; each returns a Figure).

Each function has an alt-text function of the same name and arguments in :mod:`.alttext`, attached with
:func:`compendium.chapter.display.with_alt`, so the alt text states the numbers drawn. :func:`pwb_model_order` is
the order of the models in the PWB figure (by prompted PWI under v2.1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from compendium.chapter import figstyle as fs
from compendium.chapter.display import with_alt

from . import alttext as _alt
from .sweeps import DEFAULT_SCHEME, PAPER_CUTOFF, PAPER_TIE_RULE, PAPER_TIE_WEIGHT, ZONE_LABELS, ZONE_NAMES

__all__ = ["zone_sweep", "has_sweep", "pwb_sweep", "bt_sweep", "pwb_model_order"]


def pwb_model_order(pwis: pd.DataFrame) -> list[str]:
    """The models by increasing prompted PWI under the v2.1 weights (the PWB figure's order)."""
    prompted = pwis[(pwis["scheme"] == DEFAULT_SCHEME) & (pwis["condition"] == "with_system_prompt")]
    return list(prompted.sort_values("pwi")["model"])


@with_alt(_alt.zone_sweep)
def zone_sweep(zones: pd.DataFrame):
    """Tasks per zone against the cut-off, one panel per boundary rule (the mean at the cut-off counts as
    high, as in the paper, or as low)."""
    long = zones.melt(
        id_vars=["cutoff", "boundary", "reference"], value_vars=list(ZONE_NAMES), var_name="zone", value_name="tasks"
    )
    long["zone"] = long["zone"].map(ZONE_LABELS)
    long["boundary"] = long["boundary"].map({"ge": "mean = cut-off is high (paper)", "gt": "mean = cut-off is low"})
    with plt.rc_context(fs.THEME):
        g = sns.relplot(
            long,
            kind="line",
            x="cutoff",
            y="tasks",
            col="boundary",
            hue="zone",
            style="zone",
            hue_order=[ZONE_LABELS[z] for z in ZONE_NAMES],
            palette={ZONE_LABELS[z]: fs.ZONE_COLORS[z] for z in ZONE_NAMES},
            markers={ZONE_LABELS[z]: fs.ZONE_MARKERS[z] for z in ZONE_NAMES},
            dashes=False,
            ms=5,
            height=3.6,
            aspect=0.95,
            facet_kws={"sharey": True},
        )
        g.set_titles(col_template="{col_name}")
        g.set_axis_labels("cut-off on both axes (task mean, 1-5)", "tasks in zone")
        if zones["reference"].any():
            for ax in g.axes.flat:
                ax.axvline(PAPER_CUTOFF, color="k", lw=0.8, ls=":")
                ax.text(PAPER_CUTOFF, ax.get_ylim()[1], " paper", va="top", fontsize=8.5)
        sns.move_legend(g, "lower center", bbox_to_anchor=(0.5, -0.02), ncol=4, title=None, frameon=False)
        g.figure.suptitle("Zone sizes move with the cut-off")
        g.tight_layout()
        g.figure.subplots_adjust(bottom=0.22)
    return g.figure


@with_alt(_alt.has_sweep)
def has_sweep(has: pd.DataFrame):
    """Heat map of "workers want more agency" (%) over worker x expert tie rules; a cell where it does
    not exceed "experts want more" is hatched."""
    wr = list(dict.fromkeys(has["worker_rule"]))
    er = list(dict.fromkeys(has["expert_rule"]))
    M = has.pivot(index="worker_rule", columns="expert_rule", values="workers_more").reindex(index=wr, columns=er)
    E = has.pivot(index="worker_rule", columns="expert_rule", values="experts_more").reindex(index=wr, columns=er)
    with plt.rc_context(fs.THEME):
        fig, ax = plt.subplots(figsize=(1.4 * len(er) + 2.6, 1.0 * len(wr) + 1.6))
        annot = [[f"{M.iat[i, j]:.1f}\n(vs {E.iat[i, j]:.1f})" for j in range(len(er))] for i in range(len(wr))]
        fs.heatmap(
            ax,
            M,
            annot=np.array(annot),
            fmt="",
            vmin=0,
            vmax=max(70.0, float(M.to_numpy().max())),
            cbar_label="% tasks: workers want more agency",
            annot_kws={"fontsize": 8.5},
        )
        for i, j in zip(*np.nonzero((M <= E).to_numpy())):
            ax.add_patch(plt.Rectangle((j, i), 1, 1, fill=False, hatch="///", ec="#b2182b", lw=0))
        if PAPER_TIE_RULE in wr and PAPER_TIE_RULE in er:
            ax.add_patch(
                plt.Rectangle(
                    (er.index(PAPER_TIE_RULE) + 0.02, wr.index(PAPER_TIE_RULE) + 0.02),
                    0.96,
                    0.96,
                    fill=False,
                    ec="k",
                    lw=2,
                )
            )
        ax.set(
            xlabel="experts' tie rule",
            ylabel="workers' tie rule",
            title="Workers want more agency (vs experts want more)",
        )
        fig.tight_layout()
    return fig


@with_alt(_alt.pwb_sweep)
def pwb_sweep(per_scheme: pd.DataFrame, pwis: pd.DataFrame, model_order: Sequence[str] | None = None):
    """Top: prompted PWI per model under each non-random scheme. Bottom: smallest ΔPWI over models,
    for every random scheme (histogram) and each named scheme (ticks)."""
    named = per_scheme[per_scheme["family"] != "random"]
    rnd = per_scheme[per_scheme["family"] == "random"]
    p = pwis[(pwis["condition"] == "with_system_prompt") & pwis["scheme"].isin(named["scheme"])]
    order = (
        list(model_order)
        if model_order is not None
        else list(p[p["scheme"] == DEFAULT_SCHEME].sort_values("pwi", ascending=False)["model"])
    )
    schemes = list(named["scheme"])
    others = iter(c for c in fs.CATEGORICAL if c != fs.GREY)
    colours = {s: "k" if s == DEFAULT_SCHEME else next(others, fs.GREY) for s in schemes}
    markers = {s: "D" if s == DEFAULT_SCHEME else fs.MARKERS[k % len(fs.MARKERS)] for k, s in enumerate(schemes)}
    with plt.rc_context(fs.THEME):
        # stacked, not side by side: a 10.5-inch-wide figure was shown at 61 % of its size in the book's column
        # (7-px labels); 7.2 inches at 120 dpi fits the column at about 90 %
        fig, (a1, a2) = plt.subplots(2, 1, figsize=(7.2, 8.6), gridspec_kw={"height_ratios": [1.3, 1], "hspace": 0.45})
        sns.pointplot(
            p,
            x="pwi",
            y="model",
            hue="scheme",
            order=order,
            hue_order=schemes,
            palette=colours,
            markers=[markers[s] for s in schemes],
            linestyle="none",
            dodge=0.6 if len(schemes) > 1 else False,
            errorbar=None,
            markersize=5,
            ax=a1,
        )
        a1.set(xlabel="prompted PWI", ylabel="", title="Prompted PWI under each scheme")
        handles, names = a1.get_legend_handles_labels()
        a1.get_legend().remove()
        if len(rnd):
            sns.histplot(
                rnd["min_delta"], bins=30, color="#9ecae1", edgecolor="white", label=f"{len(rnd)} random schemes", ax=a2
            )
        for s, v in zip(named["scheme"], named["min_delta"]):  # each line topped by its scheme's marker
            a2.axvline(v, color=colours[s], lw=1.6 if s == DEFAULT_SCHEME else 1)
            a2.plot(v, 1.0, markers[s], color=colours[s], ms=5, transform=a2.get_xaxis_transform(), clip_on=False)
        a2.axvline(0, color="#b2182b", ls=":", lw=1)
        a2.set(
            xlabel=f"smallest gain from the prompt over the {pwis['model'].nunique()} models (ΔPWI)",
            ylabel="random schemes",
        )
        a2.set_title("Does every model still gain?", pad=12)
        if len(rnd):
            a2.legend(fontsize=8, loc="upper left")
        fig.tight_layout(rect=(0, 0.06, 1, 1))
        # one legend for both panels (the right panel's lines share the schemes' colours), below them
        fig.legend(handles, names, loc="lower center", ncol=min(len(schemes), 6), fontsize=8)
    return fig


@with_alt(_alt.bt_sweep)
def bt_sweep(
    bt: pd.DataFrame, models: Sequence[str], labels: Mapping[str, str], colours: Mapping[str, str] | None = None
):
    """Bradley-Terry strength of each model against the tie weight w (lines), Davidson at the right."""
    num = bt[bt["tie_weight"].notna()].sort_values("tie_weight")
    dav = bt[bt["tie_weight"].isna()]
    names = [labels.get(m, m) for m in models]
    pal = {labels.get(m, m): (colours or {}).get(m, fs.CATEGORICAL[k % 10]) for k, m in enumerate(models)}
    mk = {n: fs.MARKERS[k % len(fs.MARKERS)] for k, n in enumerate(names)}
    long = num.melt(id_vars="tie_weight", value_vars=list(models), var_name="model", value_name="strength")
    long["model"] = long["model"].map(lambda m: labels.get(m, m))
    with plt.rc_context(fs.THEME):
        fig, ax = plt.subplots(figsize=(7.2, 4.2))
        xmax = float(num["tie_weight"].max()) if len(num) else 1.0
        xd = xmax + 0.25
        sns.lineplot(
            long,
            x="tie_weight",
            y="strength",
            hue="model",
            style="model",
            hue_order=names,
            palette=pal,
            markers=mk,
            dashes=False,
            ms=6,
            ax=ax,
        )
        for m, n in zip(models, names):
            if len(dav):
                ax.plot([xd], dav[m], mk[n], color=pal[n], ms=7, mec="k", mew=0.5)
        if (num["tie_weight"] == PAPER_TIE_WEIGHT).any():
            ax.axvline(PAPER_TIE_WEIGHT, color="k", lw=0.8, ls=":")
            ax.text(PAPER_TIE_WEIGHT, ax.get_ylim()[1], " published", va="top", fontsize=8.5)
        ticks = list(num["tie_weight"]) + ([xd] if len(dav) else [])
        ax.set_xticks(ticks, [f"{t:g}" for t in num["tie_weight"]] + (["Davidson"] if len(dav) else []))
        ax.set(
            xlabel="weight w of a tie, credited to each side",
            ylabel="Bradley-Terry strength (sum 5)",
            title="Strengths under each tie convention",
        )
        sns.move_legend(ax, "center left", bbox_to_anchor=(1.0, 0.5), title=None, fontsize=8.5)
        fig.tight_layout()
    return fig
