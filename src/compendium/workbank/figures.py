"""The WORKBank chapter's figures (seaborn, themed by compendium.chapter.figstyle; every function returns a Figure and
draws nothing else)."""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from compendium.chapter.display import with_alt
from compendium.chapter.figstyle import CATEGORICAL, GREY, ZONE_COLORS, ZONE_MARKERS, heatmap, point_ranges, styled
from compendium.chapter.numbers import percent, percent_format

from . import alttext
from .common import ZONE_LABELS, ZONES

ZONE_STYLE = {"hue_order": list(ZONES), "palette": ZONE_COLORS, "markers": ZONE_MARKERS}


def _wrap(s: str, width: int = 38) -> str:
    return "\n".join(textwrap.wrap(str(s), width))


@with_alt(alttext.desire_by_sector)
@styled
def desire_by_sector(by_sector: pd.DataFrame, overall: float) -> plt.Figure:
    """Horizontal bars: % of each sector's tasks with mean desire > 3, n tasks printed, overall line."""
    d = by_sector.sort_values("share_gt_cutoff", ascending=False)
    d = d.assign(label=[f"{s} (n={n})" for s, n in zip(d["sector"], d["n_tasks"])])
    fig, ax = plt.subplots(figsize=(7.5, 0.38 * len(d) + 1.2))
    sns.barplot(d, x="share_gt_cutoff", y="label", color=CATEGORICAL[0], saturation=1, ax=ax, zorder=2)
    ax.bar_label(
        ax.containers[0],
        fmt="%.1f",
        padding=3,
        fontsize=8,
        zorder=3,
        bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none"},
    )
    ax.axvline(overall, color="k", ls="--", lw=1, zorder=1)
    # label beside (not across) the dashed line, above the top bar
    ax.text(overall + 1, -0.55, f"all tasks: {percent(overall, 1)}", ha="left", va="bottom", fontsize=9)
    ax.set_ylim(len(d) - 0.4, -1.4)
    ax.set(
        xlabel="% of the sector's tasks with mean automation desire > 3",
        ylabel="",
        xlim=(0, max(100, d["share_gt_cutoff"].max() + 8)),
        title="Automation desire by sector (SOC major group)",
    )
    fig.tight_layout()
    return fig


@with_alt(alttext.reasons)
@styled
def reasons(reasons_table: pd.DataFrame, n: int) -> plt.Figure:
    """Bars of % of responses (desire >= 3) citing each reason; Scale (collected, not in the paper's plot) hatched."""
    labels = {
        "free_time": "Free up time for\nhigh-value work",
        "repetitive": "Task is repetitive\nor tedious",
        "human_error": "Quality (reduces\nhuman error)",
        "stress": "Task is stressful\nor draining",
        "difficulty": "Task is difficult\nor complex",
        "scale": "Scale (collected,\nnot in paper's Fig 4b)",
    }
    d = reasons_table.sort_values("pct", ascending=False)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    sns.barplot(
        d.assign(label=d["reason"].map(lambda r: labels.get(r, r))),
        x="pct",
        y="label",
        color=CATEGORICAL[2],
        saturation=1,
        ax=ax,
    )
    for b, r in zip(ax.containers[0], d["reason"]):
        if r == "scale":
            b.set(hatch="//", facecolor="white", edgecolor=CATEGORICAL[2])
    ax.bar_label(ax.containers[0], fmt=percent_format(1), padding=3, fontsize=9)
    ax.set(
        xlim=(0, 100),
        xlabel=f"% of the {n:,} responses with desire rating >= 3",
        ylabel="",
        title="Why workers want a task automated",
    )
    fig.tight_layout()
    return fig


@with_alt(alttext.landscape)
@styled
def landscape(land: pd.DataFrame, cutoff: float, rho: float) -> plt.Figure:
    """Scatter of expert capability (x) vs worker desire (y) per task, coloured and marked by zone, cut-off
    lines, each quadrant named."""
    fig, ax = plt.subplots(figsize=(7, 6))
    n = land["zone"].value_counts()
    sns.scatterplot(
        land,
        x="capability",
        y="desire",
        hue="zone",
        style="zone",
        s=16,
        alpha=0.7,
        edgecolor="none",
        ax=ax,
        **ZONE_STYLE,
    )
    ax.axvline(cutoff, color="k", lw=1)
    ax.axhline(cutoff, color="k", lw=1)
    for z, x, y, ha, va in (
        ("green", 5.05, 5.05, "right", "top"),
        ("rnd", 0.95, 5.05, "left", "top"),  # low capability, high desire
        ("red", 5.05, 0.95, "right", "bottom"),  # high capability, low desire
        ("low", 0.95, 0.95, "left", "bottom"),
    ):
        ax.text(
            x,
            y,
            ZONE_LABELS[z],
            ha=ha,
            va=va,
            fontsize=9,
            fontweight="bold",
            color=ZONE_COLORS[z],
            bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none", "alpha": 0.8},
        )
    ax.set(
        xlim=(0.9, 5.1),
        ylim=(0.9, 5.1),
        xlabel="Expert-rated automation capability Ae(t) (task mean, 1-5)",
        ylabel="Worker automation desire Aw(t) (task mean, 1-5)",
        title=f"Desire-capability landscape, {len(land)} tasks (Spearman rho = {rho:.3f})",
    )
    handles, _ = ax.get_legend_handles_labels()
    ax.legend(
        handles,
        [f"{ZONE_LABELS[z]} ({n.get(z, 0)})" for z in ZONES],
        loc="upper left",
        bbox_to_anchor=(1.01, 1),
        title=f"zone (cut-off {cutoff:g}, >= is high)",
    )
    fig.tight_layout()
    return fig


@with_alt(alttext.has_heatmap)
@styled
def has_heatmap(matrix: pd.DataFrame, diagonal: float, workers_more: float) -> plt.Figure:
    """5x5 heatmap of task counts, rows = worker dominant level, cols = expert dominant level; diagonal outlined."""
    levels = [f"H{k}" for k in range(1, 6)]
    m = pd.DataFrame(matrix.to_numpy(), index=levels, columns=levels)
    fig, ax = plt.subplots(figsize=(5.8, 5))
    heatmap(ax, m, fmt="d", cbar_label="tasks", square=True)
    for k in range(5):
        ax.add_patch(plt.Rectangle((k, k), 1, 1, fill=False, ec="k", lw=1.5))
    ax.set(
        xlabel="Expert dominant level",
        ylabel="Worker dominant level",
        title=f"Dominant Human Agency Scale level per task\ndiagonal {percent(diagonal, 1)}, "
        f"below diagonal (workers want more) {percent(workers_more, 1)}",
    )
    fig.tight_layout()
    return fig


@with_alt(alttext.h5_radar)
@styled
def h5_radar(profiles: pd.DataFrame) -> plt.Figure:
    """Radar of the four task characteristics for H5 task sets (and all-task baselines)."""
    keys = ["physical_action", "interpersonal_communication", "uncertainty", "domain_expertise"]
    labels = ["Physical action", "Interpersonal\ncommunication", "Involved\nuncertainty", "Domain\nexpertise"]
    ang = np.linspace(0, 2 * np.pi, len(keys), endpoint=False).tolist()
    ang += ang[:1]
    w, e = CATEGORICAL[1], CATEGORICAL[0]
    styles = {
        "workers (worker H5 set)": (w, "-"),
        "experts (expert H5 set)": (e, "-"),
        "experts (worker H5 set, authors' code)": (e, ":"),
        "workers (all tasks)": (w, "--"),
        "experts (all tasks)": (e, "--"),
    }
    fig, ax = plt.subplots(figsize=(6.2, 7.2), subplot_kw={"polar": True})
    for _, r in profiles.iterrows():
        vals = [r[k] for k in keys] + [r[keys[0]]]
        c, ls = styles.get(r["profile"], ("k", "-"))
        ax.plot(
            ang,
            vals,
            color=c,
            ls=ls,
            lw=2 if "H5" in r["profile"] else 1.2,
            ms=5,
            marker="o" if r["profile"].startswith("workers") else "s",  # workers vs experts without colour
            label=f"{r['profile']} (n={r['n_tasks']})",
        )
    ax.set_xticks(ang[:-1], labels)
    ax.set_ylim(1, 5)
    ax.set_yticks([1, 2, 3, 4, 5])
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.08), fontsize=9)
    ax.set_title("Task characteristics (mean rating 1-5) of H5 tasks", pad=18)
    fig.tight_layout()
    return fig


@with_alt(alttext.skill_shift)
@styled
def skill_shift(skills_table: pd.DataFrame) -> plt.Figure:
    """Slope chart: each skill's rank by mean wage (left) and by mean expert agency (right)."""
    d = skills_table.copy()
    n = len(d)
    # plot positions: ties in a rank (e.g. two skills with the same mean HAS) are spread by name so
    # their labels do not overprint; the table keeps the tied ("min") ranks
    d["wage_pos"] = d.sort_values(["wage_rank", "skill"]).reset_index().reset_index().set_index("index")["level_0"] + 1
    d["has_pos"] = d.sort_values(["has_rank", "skill"]).reset_index().reset_index().set_index("index")["level_0"] + 1
    fig, ax = plt.subplots(figsize=(8, 0.42 * n + 1.5))
    for _, r in d.iterrows():
        up = r["has_rank"] < r["wage_rank"]
        down = r["has_rank"] > r["wage_rank"]
        c, ls, mk = (CATEGORICAL[0], "-", "^") if up else ((CATEGORICAL[3], "--", "v") if down else (GREY, ":", "o"))
        ax.plot([0, 1], [r["wage_pos"], r["has_pos"]], color=c, ls=ls, lw=1.5, marker=mk, ms=5)
        ax.text(
            -0.03,
            r["wage_pos"],
            f"{r['wage_rank']}. {_wrap(r['skill'], 34)} (n={r['n_tasks']})",
            ha="right",
            va="center",
            fontsize=8.5,
        )
        ax.text(1.03, r["has_pos"], f"{r['has_rank']}. {_wrap(r['skill'], 34)}", ha="left", va="center", fontsize=8.5)
    ax.set_ylim(n + 0.8, 0.2)
    ax.set_xlim(-0.05, 1.05)
    ax.set_xticks([0, 1], ["rank by mean wage", "rank by mean expert HAS"])
    ax.set_yticks([])
    for s in ("left", "bottom"):
        ax.spines[s].set_visible(False)
    ax.xaxis.set_ticks_position("top")
    ax.set_title(
        "Skills: rank by wage vs rank by required human agency\n"
        "blue solid ▲ = more valued by agency than by wage, vermilion dashed ▼ = less;\n"
        "n = tasks behind the means",
        pad=28,
    )
    fig.tight_layout()
    return fig


@with_alt(alttext.demographic_groups)
@styled
def demographic_groups(groups: pd.DataFrame, overall_desire: float, overall_has: float) -> plt.Figure:
    """Forest plot: response-level mean desire and mean HAS by group, with worker-bootstrap 95% intervals."""
    g = groups.reset_index(drop=True)
    small = g["small_group"].fillna(False).astype(bool) if "small_group" in g else pd.Series(False, index=g.index)
    few, ok = "too few workers, no interval", "95 % interval"
    g = g.assign(
        key=g["variable"] + "|" + g["group"].astype(str) + "|" + g.index.astype(str),
        kind=np.where(small, few, ok),
        label=[
            f"{_wrap(r, 40)} (n={n}{', no interval' if sm else ''})"
            for r, n, sm in zip(g["group"], g["n_workers"], small)
        ],
    )
    order, labels = [], []
    for v, t in g.groupby("variable", sort=False):  # a title row, then the variable's groups
        order += [f"title|{v}", *t["key"]]
        labels += [f"— {v.replace('_', ' ')} —", *t["label"]]
    specs = [
        ("mean_desire", "mean desire\n(1-5)", overall_desire),
        ("desire_vs_task", "desire minus\ntask mean", 0.0),
        ("mean_has", "mean HAS\n(1-5)", overall_has),
    ]
    fig, axes = plt.subplots(1, 3, figsize=(7.6, 0.3 * len(order) + 1.4), sharey=True)
    for ax, (col, lab, ref) in zip(axes, specs):
        d = g[~small].rename(columns={f"{col}_lo": "lo", f"{col}_hi": "hi"})
        point_ranges(
            ax,
            d,
            "key",
            col,
            "lo",
            "hi",
            order=order,
            color=CATEGORICAL[0],
            markers="o",
            markersize=4,
            err_kws={"linewidth": 1.5},
            capsize=0.3,
        )
        # the small groups: a grey x alone (an interval of zero width drawn with caps would cover the x)
        ys = [order.index(k) for k in g.loc[small, "key"]]
        ax.plot(g.loc[small, col], ys, linestyle="none", marker="x", color=GREY, markersize=5, markeredgewidth=1.5)
        ax.axvline(ref, color="k", ls="--", lw=0.8)
        ax.set_xlabel(lab, fontsize=9)
        ax.tick_params(axis="x", labelsize=8)
        ax.xaxis.set_major_locator(plt.MaxNLocator(4))
    axes[0].set_yticks(range(len(order)), labels, fontsize=8)
    fig.suptitle(
        "Desire and agency by worker group\n(95 % worker-bootstrap intervals, per group, unadjusted; "
        "grey × = too few workers)",
        fontsize=10,
    )
    fig.tight_layout()
    return fig


@with_alt(alttext.cutoff_sweep)
@styled
def cutoff_sweep(sweep: pd.DataFrame, cutoff: float) -> plt.Figure:
    """Zone counts as the cut-off moves, and the share of tasks above the cut-off."""
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7, 7), sharex=True)
    zones = sweep.melt(id_vars="cutoff", value_vars=list(ZONES), var_name="zone", value_name="tasks")
    sns.lineplot(zones, x="cutoff", y="tasks", hue="zone", style="zone", dashes=False, ms=5, ax=a1, **ZONE_STYLE)
    handles, _ = a1.get_legend_handles_labels()
    a1.legend(handles, [ZONE_LABELS[z] for z in ZONES])
    a1.set(ylabel="tasks in zone", title="Zone sizes vs cut-off")
    share = sweep.rename(
        columns={"share_desire_gt": "desire > cut-off (strict)", "share_desire_ge": "desire >= cut-off (inclusive)"}
    )
    share = share.melt(
        id_vars="cutoff",
        value_vars=["desire > cut-off (strict)", "desire >= cut-off (inclusive)"],
        var_name="rule",
        value_name="pct",
    )
    sns.lineplot(share, x="cutoff", y="pct", hue="rule", style="rule", markers=["o", "s"], dashes=False, ms=4, ax=a2)
    a2.legend(title=None)
    a2.set(
        xlabel="cut-off on both axes (>= is high)", ylabel="% of tasks", title="'Workers want automation' vs cut-off"
    )
    for a in (a1, a2):
        a.axvline(cutoff, color="k", ls=":", lw=1)
    fig.tight_layout()
    return fig


@with_alt(alttext.robustness)
@styled
def robustness(tie_grid: pd.DataFrame, stability: pd.DataFrame, stable_level: float) -> plt.Figure:
    """(a) % tasks where workers want more agency under every pair of tie rules; (b) zone stability."""
    rules = list(dict.fromkeys(tie_grid["worker_rule"]))
    g = tie_grid.pivot(index="worker_rule", columns="expert_rule", values="workers_more").reindex(
        index=rules, columns=rules
    )
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7, 9), gridspec_kw={"height_ratios": [1.1, 1]})
    heatmap(a1, g, fmt=".1f", vmin=20, vmax=65, cbar_label="% of tasks", square=True)
    a1.set(xlabel="expert tie rule", ylabel="worker tie rule", title="% tasks where workers want more agency")
    for z, ls in zip(ZONES, ("-", "--", "-.", ":")):
        s = stability.loc[stability["zone"] == z, "p_observed"]
        sns.histplot(
            s,
            bins=np.linspace(0, 1, 21),
            element="step",
            fill=False,
            lw=1.8,
            ls=ls,
            color=ZONE_COLORS[z],
            label=f"{ZONE_LABELS[z]} (n={len(s)})",
            ax=a2,
        )
    a2.axvline(stable_level, color="k", ls=":", lw=1)
    a2.set(
        xlabel="share of bootstrap draws keeping the task in its observed zone",
        ylabel="tasks",
        title="Bootstrap zone stability (raters resampled within task)",
    )
    a2.legend(loc="upper left")
    fig.tight_layout()
    return fig


@with_alt(alttext.representativeness)
@styled
def representativeness(sectors: pd.DataFrame, demo: pd.DataFrame) -> plt.Figure:
    """Sample vs BLS: (a) SOC major groups, (b) age bands, (c) gender, race and Hispanic ethnicity."""
    fig = plt.figure(figsize=(7.5, 11))
    top = fig.add_gridspec(1, 1, left=0.38, right=0.97, top=0.95, bottom=0.37)
    low = fig.add_gridspec(1, 2, left=0.15, right=0.97, top=0.29, bottom=0.045, wspace=0.5)
    axes = [fig.add_subplot(top[0, 0]), fig.add_subplot(low[0, 0]), fig.add_subplot(low[0, 1])]
    short = {"age_band": "", "gender": "", "race": "race: ", "hispanic": ""}
    d = demo[demo["bls_pct"].notna()].assign(
        label=lambda t: [
            f"{short.get(v, v + ': ')}{c.replace('_', ' ').replace(' years', '')}"
            for v, c in zip(t["variable"], t["category"])
        ]
    )
    panels = [
        (
            sectors.sort_values("bls_share", ascending=False),
            "sector",
            "bls_share",
            "sample_share",
            "BLS OEWS 2024 employment",
            "Sector",
        ),
        (d[d["variable"] == "age_band"], "label", "bls_pct", "sample_pct", "BLS CPS 2024 employed", "Age (years)"),
        (
            d[d["variable"].isin(["gender", "race", "hispanic"])],
            "label",
            "bls_pct",
            "sample_pct",
            "BLS CPS 2024 employed",
            "Gender, race, ethnicity",
        ),
    ]
    for ax, (t, y, bls, sample, bls_name, title) in zip(axes, panels):
        long = t.melt(id_vars=y, value_vars=[bls, sample], var_name="source", value_name="pct")
        long["source"] = long["source"].map({bls: bls_name, sample: "WORKBank workers"})
        sns.barplot(long, x="pct", y=y, hue="source", palette=["#bbbbbb", CATEGORICAL[0]], saturation=1, ax=ax)
        for bar in ax.containers[0]:  # hatched BLS bars: the two sources differ without colour too
            bar.set(hatch="///", edgecolor="white")
        ax.set(xlabel="% of workers", ylabel="", title=title)
        ax.tick_params(axis="y", labelsize=8.5)
        if ax is axes[2]:
            ax.get_legend().remove()
        else:
            sns.move_legend(ax, "lower right", title=None, fontsize=8)
            ax.get_legend().legend_handles[0].set(hatch="///", edgecolor="white")
    fig.suptitle("Is the WORKBank sample like the U.S. workforce?", y=0.99)
    return fig
