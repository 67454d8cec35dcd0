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
from .common import CAPABILITY, DESIRE, OCC, TASK, USER, ZONES, require_columns, require_ratings, task_means

__all__ = [
    "task_landscape",
    "assign_zones",
    "zone_counts",
    "zones_by_sector",
    "cutoff_sweep",
    "zone_bootstrap",
    "cluster_counts",
    "zone_cluster_bootstrap",
    "zone_uncertainty_breakdown",
]


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
    out = pd.DataFrame(
        {
            "occupation": j["occupation_w"],
            "desire": j[DESIRE],
            "capability": j[CAPABILITY],
            "n_workers": j["n_ratings_w"],
            "n_experts": j["n_ratings_e"],
        }
    )
    out.index.name = TASK
    return out


def assign_zones(capability, desire, cutoff: float) -> np.ndarray:
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
        rows.append(
            {
                "cutoff": round(float(c), 10),
                **z,
                "share_desire_gt": 100 * float(np.mean(d > c)),
                "share_desire_ge": 100 * float(np.mean(d >= c)),
            }
        )
    return pd.DataFrame(rows)


def zone_bootstrap(
    desires: pd.DataFrame,
    experts: pd.DataFrame,
    landscape: pd.DataFrame,
    cutoff: float,
    n_draws: int,
    seed: int,
    stable_level: float,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Bootstrap stability of each task's zone.

    Within every task, worker desire ratings and expert capability ratings are resampled with
    replacement (each task keeps its number of raters), the two task means recomputed and the zone
    re-assigned, ``n_draws`` times (vectorised, seeded). A task's zone is *uncertain* when fewer than
    ``stable_level`` of the draws put it in its observed zone. Tasks with a single expert rating can only
    move through the worker side: their capability never varies under this bootstrap.

    Returns ``(per_task, zone_count_draws)``: per task the observed zone, the share of draws in each
    zone and ``stable`` (bool), ``p_desire_side`` / ``p_capability_side`` (share of draws keeping that
    axis on its observed side of the cut-off), ``n_workers`` and ``n_experts``; and a frame of zone
    counts per draw. The zone-count draws treat tasks as independent; raters who rate many tasks make
    them dependent (:func:`zone_cluster_bootstrap` resamples the raters instead).

    "Not stable" means "not kept in ``stable_level`` of the draws", not "probably in another zone"
    (``p_observed < 0.5`` is that). With 2 experts the capability side is stable exactly when both
    rate on the same side of the cut-off; with 1 expert it never varies (:func:`zone_uncertainty_breakdown`).
    """
    lab_d, sum_d = stratified_resample_sums(
        desires[DESIRE].to_numpy(float), desires[TASK].to_numpy(), n_draws, np.random.default_rng([seed, 1])
    )
    lab_e, sum_e = stratified_resample_sums(
        experts[CAPABILITY].to_numpy(float), experts[TASK].to_numpy(), n_draws, np.random.default_rng([seed, 2])
    )
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
    obs_d = landscape["desire"].to_numpy(float) >= cutoff
    obs_e = landscape["capability"].to_numpy(float) >= cutoff
    per_task["p_desire_side"] = ((mean_d >= cutoff) == obs_d[None, :]).mean(axis=0)
    per_task["p_capability_side"] = ((mean_e >= cutoff) == obs_e[None, :]).mean(axis=0)
    per_task["stable"] = per_task["p_observed"] >= stable_level
    per_task["n_workers"] = n_d[pos_d]
    per_task["n_experts"] = n_e[pos_e]
    counts = pd.DataFrame({z: (zones == z).sum(axis=1) for z in ZONES})
    return per_task, counts


def zone_uncertainty_breakdown(per_task: pd.DataFrame, stable_level: float) -> dict[str, float]:
    """Why tasks' zones are "not stable" in :func:`zone_bootstrap` (shares in % of tasks).

    ``uncertain``: kept in the observed zone in fewer than ``stable_level`` of the draws;
    ``desire_side`` / ``capability_side``: that axis alone leaves its observed side in more than
    ``1 - stable_level`` of the draws; ``desire_side_only``: the desire axis fails and the capability
    axis does not; ``minority``: kept in fewer than half the draws (the task would more often than not
    land in another zone); ``experts_1`` / ``experts_2``: tasks with 1 or 2 distinct experts, for whom
    the within-task bootstrap of the capability side is degenerate (never varies / varies only when
    the two experts straddle the cut-off); ``uncertain_experts_3plus``: the uncertain share among
    tasks with 3 or more experts.
    """
    des = per_task["p_desire_side"] < stable_level
    cap = per_task["p_capability_side"] < stable_level
    ne = per_task["n_experts"]
    unc = per_task["p_observed"] < stable_level
    big = ne >= 3
    return {
        "uncertain": 100 * float(unc.mean()),
        "desire_side": 100 * float(des.mean()),
        "capability_side": 100 * float(cap.mean()),
        "desire_side_only": 100 * float((des & ~cap).mean()),
        "minority": 100 * float((per_task["p_observed"] < 0.5).mean()),
        "experts_1": 100 * float((ne == 1).mean()),
        "experts_2": 100 * float((ne == 2).mean()),
        "uncertain_experts_3plus": 100 * float(unc[big].mean()) if big.any() else float("nan"),
    }


def cluster_counts(strata, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """Bootstrap multiplicities of clusters: ``(n_draws, n)`` integer counts, each draw resampling the
    ``n`` clusters with replacement *within their stratum* (a stratum keeps its number of clusters).
    Row sums per stratum equal the stratum's size. Vectorised, seeded through ``rng``."""
    codes, _ = pd.factorize(pd.Series(np.asarray(strata)), sort=True)
    n = codes.size
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    slot_start = np.repeat(starts, sizes)
    slot_size = np.repeat(sizes, sizes)
    u = rng.random((n_draws, n))
    picked = order[slot_start + (u * slot_size).astype(np.intp)]  # positions of drawn clusters
    flat = (np.arange(n_draws)[:, None] * n + picked).ravel()
    return np.bincount(flat, minlength=n_draws * n).reshape(n_draws, n)


def _task_rater_matrices(ratings: pd.DataFrame, value: str, rater_keys: list[str], tasks: pd.Index):
    from scipy import sparse

    keys = pd.MultiIndex.from_frame(ratings[rater_keys])
    col, raters = pd.factorize(keys, sort=True)
    row = tasks.get_indexer(ratings[TASK])
    keep = row >= 0
    shape = (len(tasks), len(raters))
    num = sparse.csr_matrix((ratings[value].to_numpy(float)[keep], (row[keep], col[keep])), shape=shape)
    den = sparse.csr_matrix((np.ones(int(keep.sum())), (row[keep], col[keep])), shape=shape)
    return raters, num, den


def zone_cluster_bootstrap(
    desires: pd.DataFrame,
    experts: pd.DataFrame,
    landscape: pd.DataFrame,
    cutoff: float,
    n_draws: int,
    seed: int,
    worker_keys=(USER, OCC),
    expert_keys=(USER,),
    resample: tuple[str, ...] = ("workers", "experts"),
    undefined: str = "drop",
) -> pd.DataFrame:
    """Zone totals with the *raters* as the resampling units: a crossed cluster bootstrap.

    One expert rates up to ~190 tasks and experts differ systematically (some rate everything higher),
    so tasks are not independent and :func:`zone_bootstrap`'s zone-count intervals are too narrow.
    Here each draw resamples the workers with replacement within their occupation and the experts
    with replacement from all experts (a rater drawn k times counts k times on every task they rated),
    recomputes each task's two means and re-assigns the zones. A task none of whose raters on one side
    were drawn has no mean in that draw; it is left out of the draw and the zone totals of the draw
    are scaled back to all tasks (``n_tasks * share``; the column ``n_defined`` says how many tasks
    the draw rests on). Vectorised: sparse task x rater matrices times the draws' multiplicities.

    ``resample`` names the sides resampled (``"workers"``, ``"experts"``; a side left out keeps every
    rater once), so the spread can be split by source. ``undefined="keep"`` keeps a task without a mean
    in a draw at its observed mean on that side instead of dropping it and rescaling (``"drop"``, the
    default), which separates the rescaling's own spread from the raters'.

    Returns one row per draw: ``green, red, rnd, low`` (scaled totals) and ``n_defined``.
    """
    bad = set(resample) - {"workers", "experts"}
    if bad or undefined not in ("drop", "keep"):
        raise ValueError(
            f"zone_cluster_bootstrap: resample must name 'workers' and/or 'experts' (got {tuple(resample)}) and "
            f"undefined must be 'drop' or 'keep' (got {undefined!r})"
        )
    require_columns(desires, [TASK, DESIRE, *worker_keys], "worker desires")
    require_columns(experts, [TASK, CAPABILITY, *expert_keys], "expert ratings")
    if n_draws < 1:
        raise ValueError(f"zone_cluster_bootstrap: n_draws must be >= 1, got {n_draws}")
    tasks = landscape.index
    wr, num_d, den_d = _task_rater_matrices(desires, DESIRE, list(worker_keys), tasks)
    er, num_e, den_e = _task_rater_matrices(experts, CAPABILITY, list(expert_keys), tasks)
    occ = (
        wr.get_level_values(list(worker_keys).index(OCC))
        if OCC in worker_keys and isinstance(wr, pd.MultiIndex)
        else np.zeros(len(wr))
    )
    Cw = (
        cluster_counts(occ, n_draws, np.random.default_rng([seed, 11])).T.astype(float)  # (workers, draws)
        if "workers" in resample
        else np.ones((len(wr), n_draws))
    )
    Ce = (
        cluster_counts(np.zeros(len(er)), n_draws, np.random.default_rng([seed, 12])).T.astype(float)
        if "experts" in resample
        else np.ones((len(er), n_draws))
    )
    dd, de = np.asarray(den_d @ Cw), np.asarray(den_e @ Ce)
    with np.errstate(invalid="ignore", divide="ignore"):
        md = np.asarray(num_d @ Cw) / dd
        me = np.asarray(num_e @ Ce) / de
    if undefined == "keep":
        obs_d = np.asarray(num_d.sum(1)).ravel() / np.asarray(den_d.sum(1)).ravel()
        obs_e = np.asarray(num_e.sum(1)).ravel() / np.asarray(den_e.sum(1)).ravel()
        md = np.where(dd > 0, md, obs_d[:, None])
        me = np.where(de > 0, me, obs_e[:, None])
        dd, de = np.ones_like(dd), np.ones_like(de)
    ok = (dd > 0) & (de > 0)  # (tasks, draws)
    hi_d, hi_e = md >= cutoff, me >= cutoff
    z = {"green": hi_e & hi_d, "red": hi_e & ~hi_d, "rnd": ~hi_e & hi_d, "low": ~hi_e & ~hi_d}
    n_def = ok.sum(0)
    out = pd.DataFrame({k: len(tasks) * (v & ok).sum(0) / n_def for k, v in z.items()})
    out["n_defined"] = n_def
    return out
