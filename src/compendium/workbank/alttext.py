"""Alt text of the WORKBank figures: what each figure shows and its main finding, in one or two sentences.

Each function takes the same arguments as the figure function of the same name in
:mod:`compendium.workbank.figures` (which attaches the text with :func:`compendium.chapter.display.with_alt`),
so the numbers in the alt text are the numbers drawn and follow a re-run like the caption's glued values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .common import ZONE_LABELS, ZONES

REASONS = {
    "free_time": "freeing up time for high-value work",
    "repetitive": "the task being repetitive or tedious",
    "human_error": "quality (fewer human errors)",
    "stress": "the task being stressful or draining",
    "difficulty": "the task being difficult or complex",
    "scale": "scale",
}


def _zone(z: str) -> str:
    return ZONE_LABELS.get(z, z).replace("'", "")


def desire_by_sector(by_sector: pd.DataFrame, overall: float) -> str:
    d = by_sector.sort_values("share_gt_cutoff")
    hi, lo = d.iloc[-1], d.iloc[0]
    return (
        f"Bar chart of the share of each sector's tasks with mean automation desire above 3, for "
        f"{len(d)} sectors, with a dashed line at {overall:.1f} % for all tasks. The share ranges from "
        f"{lo['share_gt_cutoff']:.1f} % ({lo['sector']}) to {hi['share_gt_cutoff']:.1f} % ({hi['sector']})."
    )


def reasons(reasons_table: pd.DataFrame, n: int) -> str:
    d = reasons_table.sort_values("pct", ascending=False)
    top, second = d.iloc[0], d.iloc[1]
    return (
        f"Bar chart of the reasons workers give for wanting a task automated, as % of the {n:,} responses "
        f"with desire 3 or more ({len(d)} reasons). The most cited is {REASONS.get(top['reason'], top['reason'])} "
        f"({top['pct']:.1f} %), then {REASONS.get(second['reason'], second['reason'])} ({second['pct']:.1f} %)."
    )


def landscape(land: pd.DataFrame, cutoff: float, rho: float) -> str:
    counts = land["zone"].value_counts()
    zones = "; ".join(f"{_zone(z)} {int(counts.get(z, 0))}" for z in ZONES)
    return (
        f"Scatter plot of {len(land)} tasks: expert-rated automation capability (x, 1 to 5) against worker "
        f"automation desire (y, 1 to 5), split into four zones by lines at {cutoff:g}, each zone with its own "
        f"colour and marker. Tasks per zone: {zones}; Spearman rho between capability and desire is {rho:.3f}."
    )


def has_heatmap(matrix: pd.DataFrame, diagonal: float, workers_more: float) -> str:
    m = np.asarray(matrix)
    i, j = np.unravel_index(int(m.argmax()), m.shape)
    return (
        f"Heatmap of task counts by the workers' dominant Human Agency Scale level (rows H1 to H5) and the "
        f"experts' (columns), each cell labelled, the diagonal outlined. {diagonal:.1f} % of tasks lie on the "
        f"diagonal and {workers_more:.1f} % below it (workers want more agency than experts think needed); "
        f"the largest cell is workers H{i + 1}, experts H{j + 1} ({int(m[i, j])} tasks)."
    )


KEYS = {
    "physical_action": "physical action",
    "interpersonal_communication": "interpersonal communication",
    "uncertainty": "involved uncertainty",
    "domain_expertise": "domain expertise",
}


def h5_radar(profiles: pd.DataFrame) -> str:
    p = profiles.set_index("profile")
    h5 = [x for x in p.index if "H5" in x]
    parts = []
    for name in h5:
        r = p.loc[name, list(KEYS)].astype(float)
        parts.append(f"{name} (n = {int(p.loc[name, 'n_tasks'])}): highest {KEYS[r.idxmax()]} {r.max():.2f}")
    return (
        f"Radar chart of four task characteristics (mean rating 1 to 5: {', '.join(KEYS.values())}) for "
        f"{len(p)} task sets, the tasks rated H5 (human involvement essential) against all tasks. "
        + "; ".join(parts)
        + "."
    )


def skill_shift(skills_table: pd.DataFrame) -> str:
    d = skills_table.assign(move=skills_table["wage_rank"] - skills_table["has_rank"])
    up, down = d.loc[d["move"].idxmax()], d.loc[d["move"].idxmin()]
    return (
        f"Slope chart of {len(d)} skills, each ranked by mean wage (left) and by the mean human agency experts "
        f"require (right); rising lines are green, falling red. {int((d['move'] > 0).sum())} skills rank higher by "
        f"agency than by wage and {int((d['move'] < 0).sum())} lower; the largest rise is {up['skill']} (rank "
        f"{up['wage_rank']} to {up['has_rank']}), the largest fall {down['skill']} ({down['wage_rank']} to "
        f"{down['has_rank']})."
    )


def demographic_groups(groups: pd.DataFrame, overall_desire: float, overall_has: float) -> str:
    g = groups.dropna(subset=["mean_desire"])
    hi, lo = g.loc[g["mean_desire"].idxmax()], g.loc[g["mean_desire"].idxmin()]
    return (
        f"Forest plot of mean automation desire, desire minus the task mean, and mean Human Agency Scale rating "
        f"for {len(g)} worker groups in {g['variable'].nunique()} demographic variables, with 95 % worker-bootstrap "
        f"intervals and dashed lines at the overall means ({overall_desire:.2f} and {overall_has:.2f}). Mean desire "
        f"ranges from {lo['mean_desire']:.2f} ({lo['group']}) to {hi['mean_desire']:.2f} ({hi['group']})."
    )


def cutoff_sweep(sweep: pd.DataFrame, cutoff: float) -> str:
    s = sweep.sort_values("cutoff")
    a, b = s.iloc[0], s.iloc[-1]
    return (
        f"Two line charts against the cut-off on both axes, from {a['cutoff']:g} to {b['cutoff']:g} (dotted line at "
        f"{cutoff:g}): the number of tasks in each zone, and the % of tasks whose desire is above the cut-off "
        f"(strict and inclusive). The Green Light zone goes from {int(a['green'])} to {int(b['green'])} tasks and the "
        f"strict share from {a['share_desire_gt']:.1f} % to {b['share_desire_gt']:.1f} %."
    )


def robustness(tie_grid: pd.DataFrame, stability: pd.DataFrame, stable_level: float) -> str:
    w = tie_grid["workers_more"]
    zones = "; ".join(
        f"{_zone(z)} {100 * (stability.loc[stability['zone'] == z, 'p_observed'] >= stable_level).mean():.0f} %"
        for z in ZONES
        if (stability["zone"] == z).any()
    )
    return (
        f"Top: heatmap of the % of tasks where workers want more agency than experts, under "
        f"{tie_grid['worker_rule'].nunique()} x {tie_grid['expert_rule'].nunique()} pairs of tie rules, each cell "
        f"labelled; it ranges from {w.min():.1f} % to {w.max():.1f} %. Bottom: histograms of how often a "
        f"bootstrap draw keeps each task in its zone; share of tasks at or above {stable_level:g}: {zones}."
    )


def representativeness(sectors: pd.DataFrame, demo: pd.DataFrame) -> str:
    s = sectors.assign(gap=sectors["sample_share"] - sectors["bls_share"])
    over, under = s.loc[s["gap"].idxmax()], s.loc[s["gap"].idxmin()]
    return (
        f"Paired bar charts comparing the WORKBank worker sample with U.S. employment statistics (BLS) by "
        f"sector ({len(s)} sectors), age band, gender, race and ethnicity. The most over-represented sector is "
        f"{over['sector']} ({over['sample_share']:.1f} % of the sample against {over['bls_share']:.1f} %), the most "
        f"under-represented {under['sector']} ({under['sample_share']:.1f} % against {under['bls_share']:.1f} %)."
    )
