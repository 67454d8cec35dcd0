"""The WORKBank chapter's figures (matplotlib; every function returns a Figure and draws nothing else)."""
from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ..display import with_alt
from . import alttext
from .common import ZONE_COLORS, ZONE_LABELS, ZONES

# zones differ by marker (and line style) as well as colour, so colour never carries the meaning alone
ZONE_MARKERS = {"green": "o", "red": "s", "rnd": "^", "low": "D"}
ZONE_LINES = {"green": "-", "red": "--", "rnd": "-.", "low": ":"}

plt.rcParams.update({"font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10, "figure.dpi": 100,
                     "axes.spines.top": False, "axes.spines.right": False, "svg.hashsalt": "workbank"})


def _wrap(s: str, width: int = 38) -> str:
    return "\n".join(textwrap.wrap(str(s), width))


@with_alt(alttext.desire_by_sector)
def desire_by_sector(by_sector: pd.DataFrame, overall: float) -> plt.Figure:
    """Horizontal bars: % of each sector's tasks with mean desire > 3, n tasks printed, overall line."""
    d = by_sector.sort_values("share_gt_cutoff")
    fig, ax = plt.subplots(figsize=(7.5, 0.38 * len(d) + 1.2))
    y = np.arange(len(d))
    ax.barh(y, d["share_gt_cutoff"], color="#4c72b0", zorder=2)
    ax.set_yticks(y, [f"{s} (n={n})" for s, n in zip(d["sector"], d["n_tasks"])])
    ax.axvline(overall, color="k", ls="--", lw=1, zorder=1)
    # label beside (not across) the dashed line; value labels on a white box so the line never crosses them
    ax.text(overall + 1, len(d) - 0.45, f"all tasks: {overall:.1f}%", ha="left", va="bottom", fontsize=9)
    ax.set_ylim(-0.6, len(d) + 0.4)
    for yi, v in zip(y, d["share_gt_cutoff"]):
        ax.text(v + 0.8, yi, f"{v:.1f}", va="center", fontsize=8, zorder=3,
                bbox=dict(boxstyle="square,pad=0.1", facecolor="white", edgecolor="none"))
    ax.set_xlabel("% of the sector's tasks with mean automation desire > 3")
    ax.set_xlim(0, max(100, d["share_gt_cutoff"].max() + 8))
    ax.set_title("Automation desire by sector (SOC major group)")
    fig.tight_layout()
    return fig


@with_alt(alttext.reasons)
def reasons(reasons_table: pd.DataFrame, n: int) -> plt.Figure:
    """Bars of % of responses (desire >= 3) citing each reason; Scale (collected, not in the paper's plot) hatched."""
    labels = {"free_time": "Free up time for\nhigh-value work", "repetitive": "Task is repetitive\nor tedious",
              "human_error": "Quality (reduces\nhuman error)", "stress": "Task is stressful\nor draining",
              "difficulty": "Task is difficult\nor complex", "scale": "Scale (collected,\nnot in paper's Fig 4b)"}
    d = reasons_table.sort_values("pct")
    fig, ax = plt.subplots(figsize=(7, 3.6))
    y = np.arange(len(d))
    bars = ax.barh(y, d["pct"], color="#55a868")
    for b, r in zip(bars, d["reason"]):
        if r == "scale":
            b.set_hatch("//"); b.set_facecolor("#cfe8d5")
    ax.set_yticks(y, [labels.get(r, r) for r in d["reason"]])
    for yi, v in zip(y, d["pct"]):
        ax.text(v + 0.8, yi, f"{v:.1f}%", va="center", fontsize=9)
    ax.set_xlim(0, 100)
    ax.set_xlabel(f"% of the {n:,} responses with desire rating >= 3")
    ax.set_title("Why workers want a task automated")
    fig.tight_layout()
    return fig


@with_alt(alttext.landscape)
def landscape(land: pd.DataFrame, cutoff: float, rho: float) -> plt.Figure:
    """Scatter of expert capability (x) vs worker desire (y) per task, coloured by zone, cut-off lines."""
    fig, ax = plt.subplots(figsize=(7, 6))
    for z in ZONES:
        s = land[land["zone"] == z]
        ax.scatter(s["capability"], s["desire"], s=12, alpha=0.65, color=ZONE_COLORS[z], marker=ZONE_MARKERS[z],
                   label=f"{ZONE_LABELS[z]} ({len(s)})", edgecolors="none")
    ax.axvline(cutoff, color="k", lw=1); ax.axhline(cutoff, color="k", lw=1)
    ax.set_xlim(0.9, 5.1); ax.set_ylim(0.9, 5.1)
    ax.set_xlabel("Expert-rated automation capability Ae(t) (task mean, 1-5)")
    ax.set_ylabel("Worker automation desire Aw(t) (task mean, 1-5)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, title=f"zone (cut-off {cutoff:g}, >= is high)")
    ax.set_title(f"Desire-capability landscape, {len(land)} tasks (Spearman rho = {rho:.3f})")
    fig.tight_layout()
    return fig


@with_alt(alttext.has_heatmap)
def has_heatmap(matrix: pd.DataFrame, diagonal: float, workers_more: float) -> plt.Figure:
    """5x5 heatmap of task counts, rows = worker dominant level, cols = expert dominant level."""
    m = matrix.to_numpy()
    fig, ax = plt.subplots(figsize=(5.8, 5))
    im = ax.imshow(m, cmap="Blues")
    for i in range(5):
        for j in range(5):
            ax.text(j, i, str(m[i, j]), ha="center", va="center", color="white" if m[i, j] > m.max() / 2 else "black")
    for k in range(5):
        ax.add_patch(plt.Rectangle((k - 0.5, k - 0.5), 1, 1, fill=False, ec="k", lw=1.5))
    ax.set_xticks(range(5), [f"H{k}" for k in range(1, 6)]); ax.set_yticks(range(5), [f"H{k}" for k in range(1, 6)])
    ax.set_xlabel("Expert dominant level"); ax.set_ylabel("Worker dominant level")
    ax.set_title(f"Dominant Human Agency Scale level per task\ndiagonal {diagonal:.1f}%, "
                 f"below diagonal (workers want more) {workers_more:.1f}%")
    fig.colorbar(im, ax=ax, shrink=0.8, label="tasks")
    fig.tight_layout()
    return fig


@with_alt(alttext.h5_radar)
def h5_radar(profiles: pd.DataFrame) -> plt.Figure:
    """Radar of the four task characteristics for H5 task sets (and all-task baselines)."""
    keys = ["physical_action", "interpersonal_communication", "uncertainty", "domain_expertise"]
    labels = ["Physical action", "Interpersonal\ncommunication", "Involved\nuncertainty", "Domain\nexpertise"]
    ang = np.linspace(0, 2 * np.pi, len(keys), endpoint=False).tolist()
    ang += ang[:1]
    styles = {"workers (worker H5 set)": ("#dd8452", "-"), "experts (expert H5 set)": ("#4c72b0", "-"),
              "experts (worker H5 set, authors' code)": ("#4c72b0", ":"),
              "workers (all tasks)": ("#dd8452", "--"), "experts (all tasks)": ("#4c72b0", "--")}
    fig, ax = plt.subplots(figsize=(6.2, 7.2), subplot_kw={"polar": True})
    for _, r in profiles.iterrows():
        vals = [r[k] for k in keys] + [r[keys[0]]]
        c, ls = styles.get(r["profile"], ("k", "-"))
        ax.plot(ang, vals, color=c, ls=ls, lw=2 if "H5" in r["profile"] else 1.2,
                label=f"{r['profile']} (n={r['n_tasks']})")
    ax.set_xticks(ang[:-1], labels)
    ax.set_ylim(1, 5); ax.set_yticks([1, 2, 3, 4, 5])
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.08), frameon=False, fontsize=9)
    ax.set_title("Task characteristics (mean rating 1-5) of H5 tasks", pad=18)
    fig.tight_layout()
    return fig


@with_alt(alttext.skill_shift)
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
        c = "#2ca02c" if up else ("#d62728" if r["has_rank"] > r["wage_rank"] else "#7f7f7f")
        ax.plot([0, 1], [r["wage_pos"], r["has_pos"]], color=c, lw=1.5, marker="o", ms=4)
        ax.text(-0.03, r["wage_pos"], f"{r['wage_rank']}. {_wrap(r['skill'], 34)} (n={r['n_tasks']})", ha="right",
                va="center", fontsize=8.5)
        ax.text(1.03, r["has_pos"], f"{r['has_rank']}. {_wrap(r['skill'], 34)}", ha="left", va="center", fontsize=8.5)
    ax.set_ylim(n + 0.8, 0.2)
    ax.set_xlim(-0.05, 1.05)
    ax.set_xticks([0, 1], ["rank by mean wage", "rank by mean expert HAS"])
    ax.set_yticks([])
    for s in ("left", "bottom"):
        ax.spines[s].set_visible(False)
    ax.xaxis.set_ticks_position("top")
    ax.set_title("Skills: rank by wage vs rank by required human agency\n"
                 "green = more valued by agency than by wage, red = less;\nn = tasks behind the means", pad=28)
    fig.tight_layout()
    return fig


@with_alt(alttext.demographic_groups)
def demographic_groups(groups: pd.DataFrame, overall_desire: float, overall_has: float) -> plt.Figure:
    """Forest plot: response-level mean desire and mean HAS by group, with worker-bootstrap 95% intervals."""
    vars_ = list(dict.fromkeys(groups["variable"]))
    rows = []
    for v in vars_:
        rows.append(("title", v, None))
        for _, r in groups[groups["variable"] == v].iterrows():
            rows.append(("row", v, r))
    fig, axes = plt.subplots(1, 3, figsize=(7.6, 0.3 * len(rows) + 1.4), sharey=True)
    y = np.arange(len(rows))[::-1]
    specs = [("mean_desire", "mean desire\n(1-5)", overall_desire),
             ("desire_vs_task", "desire minus\ntask mean", 0.0),
             ("mean_has", "mean HAS\n(1-5)", overall_has)]
    labels = []
    for (kind, v, r), yi in zip(rows, y):
        if kind == "title":
            labels.append(f"— {v.replace('_', ' ')} —")
            continue
        small = bool(r.get("small_group", False))
        labels.append(f"{_wrap(r['group'], 40)} (n={r['n_workers']}{', no interval' if small else ''})")
        for ax, (col, _, _) in zip(axes, specs):
            if small:   # too few workers for a bootstrap interval: an open marker, no bar
                ax.plot(r[col], yi, "o", ms=4, mfc="none", color="#999999")
                continue
            ax.errorbar(r[col], yi, xerr=[[r[col] - r[f'{col}_lo']], [r[f'{col}_hi'] - r[col]]], fmt="o", ms=4,
                        color="#4c72b0", ecolor="#4c72b0", capsize=2)
    for ax, (col, lab, ref) in zip(axes, specs):
        ax.axvline(ref, color="k", ls="--", lw=0.8)
        ax.set_xlabel(lab, fontsize=9)
        ax.tick_params(axis="x", labelsize=8)
        ax.xaxis.set_major_locator(plt.MaxNLocator(4))
    axes[0].set_yticks(y, labels, fontsize=8)
    fig.suptitle("Desire and agency by worker group\n(95% worker-bootstrap intervals, per group, unadjusted; "
                 "open grey = too few workers)", fontsize=10)
    fig.tight_layout()
    return fig


@with_alt(alttext.cutoff_sweep)
def cutoff_sweep(sweep: pd.DataFrame, cutoff: float) -> plt.Figure:
    """Zone counts as the cut-off moves, and the share of tasks above the cut-off."""
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7, 7), sharex=True)
    for z in ZONES:
        a1.plot(sweep["cutoff"], sweep[z], marker=ZONE_MARKERS[z], ms=3, ls=ZONE_LINES[z], color=ZONE_COLORS[z],
                label=ZONE_LABELS[z])
    a1.axvline(cutoff, color="k", ls=":", lw=1)
    a1.set_ylabel("tasks in zone")
    a1.legend(frameon=False, fontsize=9); a1.set_title("Zone sizes vs cut-off")
    a2.plot(sweep["cutoff"], sweep["share_desire_gt"], marker="o", ms=3, label="desire > cut-off (strict)")
    a2.plot(sweep["cutoff"], sweep["share_desire_ge"], marker="s", ms=3, label="desire >= cut-off (inclusive)")
    a2.axvline(cutoff, color="k", ls=":", lw=1)
    a2.set_xlabel("cut-off on both axes (>= is high)"); a2.set_ylabel("% of tasks"); a2.legend(frameon=False, fontsize=9)
    a2.set_title("'Workers want automation' vs cut-off")
    fig.tight_layout()
    return fig


@with_alt(alttext.robustness)
def robustness(tie_grid: pd.DataFrame, stability: pd.DataFrame, stable_level: float) -> plt.Figure:
    """(a) % tasks where workers want more agency under every pair of tie rules; (b) zone stability."""
    rules = list(dict.fromkeys(tie_grid["worker_rule"]))
    g = tie_grid.pivot(index="worker_rule", columns="expert_rule", values="workers_more").reindex(index=rules, columns=rules)
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7, 9), gridspec_kw={"height_ratios": [1.1, 1]})
    im = a1.imshow(g.to_numpy(), cmap="viridis", vmin=20, vmax=65)
    for i in range(len(rules)):
        for j in range(len(rules)):
            a1.text(j, i, f"{g.iat[i, j]:.1f}", ha="center", va="center", color="w" if g.iat[i, j] < 45 else "k")
    a1.set_xticks(range(len(rules)), rules); a1.set_yticks(range(len(rules)), rules)
    a1.set_xlabel("expert tie rule"); a1.set_ylabel("worker tie rule")
    a1.set_title("% tasks where workers want more agency")
    fig.colorbar(im, ax=a1, shrink=0.9, label="% of tasks")
    for z in ZONES:
        s = stability.loc[stability["zone"] == z, "p_observed"]
        a2.hist(s, bins=np.linspace(0, 1, 21), histtype="step", lw=1.8, color=ZONE_COLORS[z], ls=ZONE_LINES[z],
                label=f"{ZONE_LABELS[z]} (n={len(s)})")
    a2.axvline(stable_level, color="k", ls=":", lw=1)
    a2.set_xlabel("share of bootstrap draws keeping the task in its observed zone")
    a2.set_ylabel("tasks"); a2.legend(frameon=False, fontsize=9, loc="upper left")
    a2.set_title("Bootstrap zone stability (raters resampled within task)")
    fig.tight_layout()
    return fig


@with_alt(alttext.representativeness)
def representativeness(sectors: pd.DataFrame, demo: pd.DataFrame) -> plt.Figure:
    """Sample vs BLS: (a) SOC major groups, (b) age bands, (c) gender, race and Hispanic ethnicity."""
    fig = plt.figure(figsize=(7.5, 11))
    top = fig.add_gridspec(1, 1, left=0.38, right=0.97, top=0.95, bottom=0.37)
    low = fig.add_gridspec(1, 2, left=0.15, right=0.97, top=0.29, bottom=0.045, wspace=0.5)
    axes = [fig.add_subplot(top[0, 0]), fig.add_subplot(low[0, 0]), fig.add_subplot(low[0, 1])]
    s = sectors.sort_values("bls_share")
    y = np.arange(len(s))
    axes[0].barh(y - 0.2, s["bls_share"], 0.4, label="BLS OEWS 2024 employment", color="#bbbbbb")
    axes[0].barh(y + 0.2, s["sample_share"], 0.4, label="WORKBank workers", color="#4c72b0")
    axes[0].set_yticks(y, s["sector"], fontsize=8.5); axes[0].set_xlabel("% of workers")
    axes[0].legend(frameon=False, fontsize=9, loc="lower right")
    axes[0].set_title("Sector")
    for ax, vars_, title in [(axes[1], ["age_band"], "Age"), (axes[2], ["gender", "race", "hispanic"], "Gender, race, ethnicity")]:
        d = demo[demo["variable"].isin(vars_) & demo["bls_pct"].notna()].iloc[::-1]
        y = np.arange(len(d))
        ax.barh(y - 0.2, d["bls_pct"], 0.4, color="#bbbbbb", label="BLS CPS 2024 employed")
        ax.barh(y + 0.2, d["sample_pct"], 0.4, color="#4c72b0", label="WORKBank workers")
        short = {"age_band": "", "gender": "", "race": "race: ", "hispanic": ""}
        ax.set_yticks(y, [f"{short.get(v, v + ': ')}{c.replace('_', ' ').replace(' years', '')}"
                          for v, c in zip(d["variable"], d["category"])], fontsize=8.5)
        ax.set_xlabel("% of workers"); ax.set_title(title)
    axes[1].legend(frameon=False, fontsize=8, loc="lower right")
    axes[1].set_title("Age (years)")
    fig.suptitle("Is the WORKBank sample like the U.S. workforce?", y=0.99)
    return fig
