"""The desire-capability landscape (paper §3.2, Fig 5) and how fragile its zones are.

Definitions (METHODS, WORKBank): Ae(t) = mean expert ``Automation Capacity Rating`` per task text,
inner-joined with Aw(t) (844 tasks). Cut-off 3.0 on both axes and **3.0 counts as high**:
Green (Ae>=c, Aw>=c), Red (Ae>=c, Aw<c), R&D Opportunity (Ae<c, Aw>=c), Low Priority (Ae<c, Aw<c).
Sector zone shares divide by the sector's tasks in the landscape.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats.resampling import stratified_resample_sums
from .common import CAPABILITY, DESIRE, OCC, TASK, ZONES, require_columns, require_ratings, task_means

__all__ = ["task_landscape", "assign_zones", "zone_counts", "zones_by_sector", "cutoff_sweep",
           "zone_bootstrap"]


def task_landscape(desires: pd.DataFrame, experts: pd.DataFrame) -> pd.DataFrame:
    """One row per task rated by both workers and experts: ``occupation``, ``desire`` (Aw),
    ``capability`` (Ae), ``n_workers``, ``n_experts`` (expert *rows*; the release repeats 19 rows)."""
    require_columns(desires, [TASK, OCC, DESIRE], "worker desires")
    require_columns(experts, [TASK, OCC, CAPABILITY], "expert ratings")
    require_ratings(desires, DESIRE, "worker desires")
    require_ratings(experts, CAPABILITY, "expert ratings")
    aw = task_means(desires, [DESIRE], "worker desires")
    ae = task_means(experts, [CAPABILITY], "expert ratings")
    j = aw.merge(ae, how="inner", left_index=True, right_index=True, suffixes=("_w", "_e"))
    if j.empty:
        raise ValueError("task_landscape: no task text is rated by both workers and experts")
    out = pd.DataFrame({"occupation": j["occupation_w"], "desire": j[DESIRE], "capability": j[CAPABILITY],
                        "n_workers": j["n_ratings_w"], "n_experts": j["n_ratings_e"]})
    out.index.name = TASK
    return out


def assign_zones(capability, desire, cutoff: float = 3.0) -> np.ndarray:
    """Zone label per task; both axes use ``>= cutoff`` as high (METHODS). Works on arrays of any shape."""
    cap = np.asarray(capability, dtype=float)
    des = np.asarray(desire, dtype=float)
    if cap.shape != des.shape:
        raise ValueError(f"assign_zones: capability shape {cap.shape} != desire shape {des.shape}")
    if np.isnan(cap).any() or np.isnan(des).any():
        raise ValueError("assign_zones: capability or desire contains NaN")
    hi_c, hi_d = cap >= cutoff, des >= cutoff
    return np.select([hi_c & hi_d, hi_c & ~hi_d, ~hi_c & hi_d], ["green", "red", "rnd"], "low")


def zone_counts(zones) -> dict[str, int]:
    """Number of tasks per zone (all four zones present, zero if empty)."""
    z = pd.Series(np.asarray(zones)).value_counts()
    return {k: int(z.get(k, 0)) for k in ZONES}


def zones_by_sector(landscape: pd.DataFrame, sectors: pd.DataFrame) -> pd.DataFrame:
    """Zone shares (%) per SOC major group: columns exactly sector, n_tasks, green, red, rnd, low.

    The denominator is the sector's tasks in the landscape (METHODS). Sorted by n_tasks, then name.
    """
    require_columns(landscape, ["occupation", "zone"], "landscape")
    s = landscape.join(sectors, on="occupation")
    if s["sector"].isna().any():
        raise ValueError(f"occupation {s.loc[s['sector'].isna(), 'occupation'].iloc[0]!r} has no SOC sector")
    ct = pd.crosstab(s["sector"], s["zone"]).reindex(columns=list(ZONES), fill_value=0)
    ct.columns.name = None
    n = ct.sum(axis=1)
    out = ct.div(n, axis=0) * 100
    out.insert(0, "n_tasks", n)
    out = out.reset_index().rename(columns={"index": "sector"})
    out = out.sort_values(["n_tasks", "sector"], ascending=[False, True], kind="mergesort")
    return out[["sector", "n_tasks", *ZONES]].reset_index(drop=True)


def cutoff_sweep(landscape: pd.DataFrame, cutoffs) -> pd.DataFrame:
    """Zone counts and the share of tasks with desire > cutoff (strict) / >= cutoff for each cut-off."""
    rows = []
    for c in np.asarray(cutoffs, dtype=float):
        z = zone_counts(assign_zones(landscape["capability"], landscape["desire"], c))
        d = landscape["desire"].to_numpy()
        rows.append({"cutoff": round(float(c), 10), **z, "share_desire_gt": 100 * float(np.mean(d > c)),
                     "share_desire_ge": 100 * float(np.mean(d >= c))})
    return pd.DataFrame(rows)


def zone_bootstrap(desires: pd.DataFrame, experts: pd.DataFrame, landscape: pd.DataFrame,
                   cutoff: float = 3.0, n_draws: int = 2000, seed: int = 0,
                   stable_level: float = 0.95) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Bootstrap stability of each task's zone.

    Within every task, worker desire ratings and expert capability ratings are resampled with
    replacement (each task keeps its number of raters), the two task means recomputed and the zone
    re-assigned, ``n_draws`` times (vectorised, seeded). A task's zone is *uncertain* when fewer than
    ``stable_level`` of the draws put it in its observed zone. Tasks with a single expert rating can only
    move through the worker side: their capability never varies under this bootstrap.

    Returns ``(per_task, zone_count_draws)``: per task the observed zone, the share of draws in each
    zone and ``stable`` (bool); and a frame of zone counts per draw (for intervals on the zone totals).
    """
    lab_d, sum_d = stratified_resample_sums(desires[DESIRE].to_numpy(float), desires[TASK].to_numpy(),
                                            n_draws, np.random.default_rng([seed, 1]))
    lab_e, sum_e = stratified_resample_sums(experts[CAPABILITY].to_numpy(float), experts[TASK].to_numpy(),
                                            n_draws, np.random.default_rng([seed, 2]))
    n_d = desires.groupby(TASK).size().reindex(lab_d).to_numpy()
    n_e = experts.groupby(TASK).size().reindex(lab_e).to_numpy()
    tasks = landscape.index
    pos_d = lab_d.get_indexer(tasks)
    pos_e = lab_e.get_indexer(tasks)
    if (pos_d < 0).any() or (pos_e < 0).any():
        raise ValueError("zone_bootstrap: landscape has tasks missing from the rating files")
    mean_d = sum_d[:, pos_d] / n_d[pos_d]
    mean_e = sum_e[:, pos_e] / n_e[pos_e]
    zones = assign_zones(mean_e, mean_d, cutoff)  # (n_draws, n_tasks)
    observed = assign_zones(landscape["capability"], landscape["desire"], cutoff)
    per_task = pd.DataFrame({"zone": observed}, index=tasks)
    for z in ZONES:
        per_task[f"p_{z}"] = (zones == z).mean(axis=0)
    per_task["p_observed"] = (zones == observed[None, :]).mean(axis=0)
    per_task["stable"] = per_task["p_observed"] >= stable_level
    per_task["n_workers"] = n_d[pos_d]
    per_task["n_experts"] = n_e[pos_e]
    counts = pd.DataFrame({z: (zones == z).sum(axis=1) for z in ZONES})
    return per_task, counts
