"""Who is the sample? Desire and agency by demographic group, and the headline re-weighted to BLS.

Beyond the paper. The HUMANE talk's point (who answers shapes what a survey "finds"), applied to
WORKBank: (1) response-level mean desire and HAS by age band, gender, education, political affiliation
and LLM familiarity, with worker-cluster bootstrap intervals; (2) the headline "46.1% of tasks have mean
desire > 3" recomputed with worker weights raked to the BLS CPS 2024 margins of the employed (age bands;
women share; race), under several documented mappings of the survey's categories to BLS's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats.resampling import percentile_interval, stratified_resample_sums
from ..stats.weighting import rake
from .common import DESIRE, HAS, OCC, TASK, USER, pct, require_columns
from .external import AGE_BANDS, bls_age_shares, bls_race_gender_shares, bls_sector_employment
from .landscape import cluster_counts

__all__ = [
    "DEMOGRAPHIC_VARIABLES",
    "age_band",
    "demographic_groups",
    "GENDER_MAP",
    "RACE_MAPS",
    "category_mapping_table",
    "raking_frame",
    "raking_margins",
    "weighted_task_share",
    "raked_headline",
    "RAKING_VARIANTS",
    "sample_vs_bls_demographics",
    "tie_robust_share",
    "random_weights_null",
    "raked_sector_mix",
    "raking_bootstrap",
    "quantile_mc_se",
    "MIN_GROUP_WORKERS",
]

#: groups with fewer workers than this get no bootstrap interval: a percentile bootstrap over a
#: handful of people cannot show its own uncertainty (2 workers give at most 3 distinct means)
MIN_GROUP_WORKERS = 10
#: a (weighted) task mean within this of the cut-off is *at* it: floating-point sums of weights put an exact
#: tie one unit in the last place above or below (every share of this module counts ties this way)
TIE_ATOL = 1e-9

DEMOGRAPHIC_VARIABLES = ("age_band", "Gender", "Education", "Political Affiliation", "LLM Familiarity")


def age_band(age) -> pd.Series:
    """BLS CPS age bands (16-19, 20-24, ..., 65+) for integer ages; ages below 16 raise."""
    a = pd.Series(age, dtype=float)
    if (a < 16).any() or a.isna().any():
        raise ValueError("age_band: ages must be present and >= 16 (the BLS population is 16+)")
    edges = [16, 20, 25, 35, 45, 55, 65, np.inf]
    return pd.Series(
        pd.cut(a, edges, right=False, labels=list(AGE_BANDS)).astype(str).to_numpy(), index=a.index, name="age_band"
    )


def _worker_frame(desires: pd.DataFrame, metadata: pd.DataFrame) -> pd.DataFrame:
    """Per worker who rated tasks: n ratings, sums of desire / HAS / desire minus task mean, + metadata."""
    require_columns(desires, [USER, OCC, TASK, DESIRE, HAS], "worker desires")
    require_columns(metadata, [USER, OCC, "Age"], "worker metadata")
    d = desires[[USER, OCC, TASK, DESIRE, HAS]].copy()
    d["dev"] = d[DESIRE] - d.groupby(TASK)[DESIRE].transform("mean")
    g = d.groupby([USER, OCC])
    w = pd.DataFrame(
        {"n": g.size(), "desire": g[DESIRE].sum(), "has": g[HAS].sum(), "dev": g["dev"].sum()}
    ).reset_index()
    w = w.merge(metadata, on=[USER, OCC], how="left", validate="one_to_one", indicator=True)
    if (w["_merge"] != "both").any():
        bad = w.loc[w["_merge"] != "both", USER].iloc[0]
        raise ValueError(f"worker {bad!r} rated tasks but has no row in the worker metadata")
    w = w.drop(columns="_merge")
    w["age_band"] = age_band(w["Age"]).to_numpy()
    return w


def demographic_groups(
    desires: pd.DataFrame,
    metadata: pd.DataFrame,
    variables=DEMOGRAPHIC_VARIABLES,
    *,
    n_draws: int,
    seed: int,
    level: float = 0.95,
    min_workers: int = MIN_GROUP_WORKERS,
) -> pd.DataFrame:
    """Response-level means by demographic group with worker-cluster bootstrap intervals.

    Columns: variable, group, n_workers, n_responses, mean_desire (+ _lo/_hi), desire_vs_task (mean of
    rating minus the task's mean desire: >0 = this group wants more automation than others rating the
    same tasks; + _lo/_hi), mean_has (+ _lo/_hi), share_desire_gt3 (% of responses with rating > 3),
    ``small_group`` (fewer than ``min_workers`` workers). A small group's intervals are NaN: a
    bootstrap over 2 people resamples 3 possible means and gives intervals that are far too narrow.
    The intervals are per group and unadjusted for the number of groups compared.
    """
    w = _worker_frame(desires, metadata)
    rows = []
    for vi, var in enumerate(variables):
        require_columns(w, [var], "worker metadata")
        grp = w[var].astype(str).to_numpy()
        labels, sums = stratified_resample_sums(
            w[["desire", "dev", "has", "n"]].to_numpy(float), grp, n_draws, np.random.default_rng([seed, vi])
        )
        est = w.groupby(grp)[["desire", "dev", "has", "n"]].sum().reindex(labels)
        ratios = {k: sums[..., j] / sums[..., 3] for j, k in enumerate(["desire", "dev", "has"])}
        gt3 = (
            desires.merge(w[[USER, OCC]].assign(g=grp), on=[USER, OCC]).groupby("g")[DESIRE].apply(lambda x: pct(x > 3))
        )
        for i, lab in enumerate(labels):
            row = {
                "variable": var,
                "group": lab,
                "n_workers": int((grp == lab).sum()),
                "n_responses": int(est.loc[lab, "n"]),
            }
            for k, name in [("desire", "mean_desire"), ("dev", "desire_vs_task"), ("has", "mean_has")]:
                lo, hi = percentile_interval(ratios[k][:, i], level)
                row[name] = float(est.loc[lab, k] / est.loc[lab, "n"])
                row[f"{name}_lo"], row[f"{name}_hi"] = float(lo), float(hi)
            row["share_desire_gt3"] = float(gt3.loc[lab])
            row["small_group"] = bool(row["n_workers"] < min_workers)
            if row["small_group"]:
                for name in ("mean_desire", "desire_vs_task", "mean_has"):
                    row[f"{name}_lo"] = row[f"{name}_hi"] = float("nan")
            rows.append(row)
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------ raking

#: Survey gender -> BLS. BLS reports only the women share; respondents answering "Other" or "Prefer not
#: to say" are kept in a third category whose target is its own sample share (they are neither up- nor
#: down-weighted on gender).
GENDER_MAP = {
    "Female": "women",
    "Male": "men",
    "Other": "other_or_undisclosed",
    "Prefer not to say": "other_or_undisclosed",
}

#: Survey race (one choice, with "Hispanic" offered *as a race*) -> BLS race groups. BLS reports White,
#: Black or African American and Asian (the rest, 3.9%, we call "other_race"), and Hispanic or Latino
#: separately as an ethnicity of any race. Two mappings of the survey's "Hispanic":
#:   * ``hispanic_as_white``: the CPS counts Hispanic workers under the race they report, mostly White;
#:   * ``hispanic_as_other``: treat it as a race outside the three BLS groups.
RACE_MAPS = {
    "hispanic_as_white": {
        "White": "white",
        "Black": "black",
        "Asian American and Pacific Islander": "asian",
        "Hispanic": "white",
        "Native American": "other_race",
        "Other": "other_race",
    },
    "hispanic_as_other": {
        "White": "white",
        "Black": "black",
        "Asian American and Pacific Islander": "asian",
        "Hispanic": "other_race",
        "Native American": "other_race",
        "Other": "other_race",
    },
}

#: name -> (margins used, race mapping, drop the spike of workers aged exactly 18?)
RAKING_VARIANTS = {
    "age + gender + race (Hispanic as White)": (("age_band", "gender", "race"), "hispanic_as_white", False),
    "age + gender + race (Hispanic as other race)": (("age_band", "gender", "race"), "hispanic_as_other", False),
    "age + gender + Hispanic ethnicity": (("age_band", "gender", "hispanic"), "hispanic_as_white", False),
    "age only": (("age_band",), "hispanic_as_white", False),
    "gender only": (("gender",), "hispanic_as_white", False),
    "race only (Hispanic as White)": (("race",), "hispanic_as_white", False),
    "age + gender + race, without the age-18 spike": (("age_band", "gender", "race"), "hispanic_as_white", True),
}


def raking_frame(workers: pd.DataFrame, race_map: str = "hispanic_as_white") -> pd.DataFrame:
    """Map worker metadata to BLS categories: age_band, gender, race, hispanic (one row per worker)."""
    require_columns(workers, ["Age", "Gender", "Race"], "worker metadata")
    if race_map not in RACE_MAPS:
        raise ValueError(f"unknown race mapping {race_map!r}; expected one of {list(RACE_MAPS)}")
    out = pd.DataFrame(index=workers.index)
    out["age_band"] = age_band(workers["Age"]).to_numpy()
    for col, mapping, name in [("Gender", GENDER_MAP, "gender"), ("Race", RACE_MAPS[race_map], "race")]:
        m = workers[col].map(mapping)
        if m.isna().any():
            raise ValueError(
                f"worker metadata: column {col!r} has category {workers.loc[m.isna(), col].iloc[0]!r} "
                f"with no BLS mapping; expected one of {list(mapping)}"
            )
        out[name] = m
    out["hispanic"] = np.where(workers["Race"] == "Hispanic", "hispanic", "not_hispanic")
    return out


def raking_margins(
    frame: pd.DataFrame, bls_age: pd.DataFrame, bls_race_gender: pd.DataFrame, variables
) -> dict[str, dict[str, float]]:
    """Target shares for the requested margins from the BLS total rows (see module docstring)."""
    rg = bls_race_gender_shares(bls_race_gender)
    margins = {}
    for v in variables:
        if v == "age_band":
            margins[v] = bls_age_shares(bls_age).to_dict()
        elif v == "gender":
            other = float((frame["gender"] == "other_or_undisclosed").mean())
            margins[v] = {
                "women": rg["women"] * (1 - other),
                "men": (1 - rg["women"]) * (1 - other),
                "other_or_undisclosed": other,
            }
        elif v == "race":
            margins[v] = {k: rg[k] for k in ("white", "black", "asian", "other_race")}
        elif v == "hispanic":
            margins[v] = {"hispanic": rg["hispanic"], "not_hispanic": 1 - rg["hispanic"]}
        else:
            raise ValueError(f"unknown raking margin {v!r}; expected age_band, gender, race or hispanic")
    return margins


def weighted_task_share(desires: pd.DataFrame, worker_weights: pd.Series, cutoff: float) -> tuple[float, pd.Series]:
    """% of tasks whose *weighted* mean desire exceeds ``cutoff`` (strict), with weights per (User ID,
    occupation); returns the share and the weighted task means. Tasks whose raters all have weight 0
    are dropped (none are, with raking)."""
    d = desires[[USER, OCC, TASK, DESIRE]].join(worker_weights.rename("w"), on=[USER, OCC])
    if d["w"].isna().any():
        raise ValueError("weighted_task_share: some ratings have no worker weight")
    num = (d["w"] * d[DESIRE]).groupby(d[TASK]).sum()
    den = d["w"].groupby(d[TASK]).sum()
    m = (num / den)[den > 0]
    # a weighted mean that equals the cut-off exactly (two raters of one raking cell rating 2 and 4) can come
    # out one unit in the last place above it (0.1*2 + 0.1*4)/0.2 = 3.0000000000000004: it is a tie, not
    # above, as in tie_robust_share (under race-only raking 25 task means are exactly 3 and 5 of them came out above)
    return pct((m > cutoff) & ~(np.abs(m - cutoff) <= TIE_ATOL)), m


def task_effective_sizes(desires: pd.DataFrame, worker_weights: pd.Series) -> pd.Series:
    """Kish effective sample size of each task's weighted mean, (sum w)^2 / sum w^2 over the workers who
    rated it (weights per (User ID, occupation)): how many equally weighted workers the raked mean of
    that task is worth."""
    d = desires[[USER, OCC, TASK]].join(worker_weights.rename("w"), on=[USER, OCC])
    if d["w"].isna().any():
        raise ValueError("task_effective_sizes: some ratings have no worker weight")
    g = d.groupby(TASK)["w"]
    return (g.sum() ** 2 / (d["w"] ** 2).groupby(d[TASK]).sum()).rename("effective_n")


def tie_robust_share(task_means: pd.Series, cutoff: float, atol: float | None = None) -> dict[str, float]:
    """Shares of tasks (%) above / at / at-or-above ``cutoff`` and the *mid* share (above + half of at).

    Task means of a handful of integer ratings sit exactly on the cut-off often (82 WORKBank tasks at
    3.0). Any non-integer weights move those ties off 3.0, about half of them upwards, so the strict
    share ``> cutoff`` jumps by about half the ties whatever the weights are. The mid share counts a
    tie as half above, so it does not jump when weights break ties at random; compare weighted and
    unweighted shares on it (and on the mean of task means), never on the strict share alone.
    """
    m = np.asarray(task_means, dtype=float)
    if m.size == 0 or np.isnan(m).any():
        raise ValueError("tie_robust_share: task means must be non-empty and free of NaN")
    at = np.abs(m - cutoff) <= (TIE_ATOL if atol is None else atol)
    above = (m > cutoff) & ~at
    return {
        "share_gt": 100 * float(above.mean()),
        "share_at": 100 * float(at.mean()),
        "share_ge": 100 * float((above | at).mean()),
        "share_mid": 100 * float(above.mean() + 0.5 * at.mean()),
        "n_at": int(at.sum()),
        "mean_of_task_means": float(m.mean()),
    }


def _rating_matrices(desires: pd.DataFrame, workers: pd.Index):
    """Sparse task x worker matrices of summed ratings and rating counts (rows: sorted task texts)."""
    from scipy import sparse

    d = desires[[USER, OCC, TASK, DESIRE]]
    col = workers.get_indexer(pd.MultiIndex.from_frame(d[[USER, OCC]]))
    if (col < 0).any():
        raise ValueError("random_weights_null: some ratings come from workers missing from the weights")
    row, tasks = pd.factorize(d[TASK], sort=True)
    shape = (len(tasks), len(workers))
    num = sparse.csr_matrix((d[DESIRE].to_numpy(float), (row, col)), shape=shape)
    den = sparse.csr_matrix((np.ones(len(d)), (row, col)), shape=shape)
    return pd.Index(tasks), num, den


def random_weights_null(
    desires: pd.DataFrame,
    workers: pd.Index,
    n_draws: int,
    seed: int,
    cutoff: float,
    spread: float = 0.01,
    template: pd.Series | None = None,
) -> pd.DataFrame:
    """What weights *unrelated to demographics* do to the share of tasks above ``cutoff``: the null
    against which a raked share must be read.

    Each draw gives every worker (a ``(User ID, occupation)`` in ``workers``) a weight: uniform on
    ``[1 - spread, 1 + spread]``, or, with ``template`` (e.g. a raking's weights), a random
    permutation of the template's weights (the same weight distribution, assigned at random). Returns
    one row per draw with the tie-robust shares of :func:`tie_robust_share` (``share_gt``, ``share_ge``,
    ``share_mid``, ``mean_of_task_means``). Vectorised (sparse rating matrix times a weight matrix), seeded.
    """
    if n_draws < 1:
        raise ValueError(f"random_weights_null: n_draws must be >= 1, got {n_draws}")
    _, num, den = _rating_matrices(desires, workers)
    rng = np.random.default_rng(seed)
    if template is None:
        if not 0 < spread < 1:
            raise ValueError(f"random_weights_null: spread must be in (0, 1), got {spread}")
        W = 1.0 + spread * (2.0 * rng.random((len(workers), n_draws)) - 1.0)
    else:
        t = template.reindex(workers).to_numpy(float)
        if np.isnan(t).any():
            raise ValueError("random_weights_null: the template has no weight for some workers")
        W = t[np.argsort(rng.random((n_draws, len(workers))), axis=1)].T
    m = np.asarray(num @ W) / np.asarray(den @ W)  # (tasks, draws)
    at = np.abs(m - cutoff) <= TIE_ATOL
    above = (m > cutoff) & ~at
    return pd.DataFrame(
        {
            "share_gt": 100 * above.mean(0),
            "share_ge": 100 * (above | at).mean(0),
            "share_mid": 100 * (above.mean(0) + 0.5 * at.mean(0)),
            "mean_of_task_means": m.mean(0),
        }
    )


def raked_headline(
    desires: pd.DataFrame,
    metadata: pd.DataFrame,
    bls_age: pd.DataFrame,
    bls_race_gender: pd.DataFrame,
    cutoff: float,
    variants=None,
    *,
    max_iter: int,
    tol: float,
) -> tuple[pd.DataFrame, dict]:
    """The share of tasks with mean desire > cutoff, unweighted and under each raking variant.

    Unit of weighting: the workers who rated tasks (keyed by User ID and occupation). Returns
    ``(table, weights)``: the table has variant, margins, n_workers, share_gt_cutoff, the tie-robust
    ``share_ge_cutoff``, ``share_mid`` (ties at the cut-off count half) and ``mean_of_task_means``
    (:func:`tie_robust_share`), design_effect, effective_n, max_weight, min_weight, iterations;
    ``weights`` maps variant -> weight Series. Read ``share_gt_cutoff`` of a weighted row only against
    :func:`random_weights_null`: non-integer weights break the ties at the cut-off by themselves.
    """
    variants = RAKING_VARIANTS if variants is None else variants
    w = _worker_frame(desires, metadata).set_index([USER, OCC])
    base, m0 = weighted_task_share(desires, pd.Series(1.0, index=w.index), cutoff)
    tr0 = tie_robust_share(m0, cutoff)
    rows = [
        {
            "variant": "unweighted (the paper)",
            "margins": "",
            "n_workers": len(w),
            "share_gt_cutoff": base,
            "share_ge_cutoff": tr0["share_ge"],
            "share_mid": tr0["share_mid"],
            "mean_of_task_means": tr0["mean_of_task_means"],
            "design_effect": 1.0,
            "effective_n": float(len(w)),
            "max_weight": 1.0,
            "min_weight": 1.0,
            "iterations": 0,
        }
    ]
    weights = {}
    for name, (variables, race_map, drop18) in variants.items():
        frame = raking_frame(w, race_map)
        keep = ~(w["Age"] == 18) if drop18 else pd.Series(True, index=w.index)
        frame = frame[keep.to_numpy()]
        margins = raking_margins(frame, bls_age, bls_race_gender, variables)
        res = rake(frame[list(variables)], margins, max_iter=max_iter, tol=tol)
        wt = pd.Series(res.weights, index=frame.index)
        sub = desires.merge(frame.reset_index()[[USER, OCC]], on=[USER, OCC])
        share, m = weighted_task_share(sub, wt, cutoff)
        tr = tie_robust_share(m, cutoff)
        rows.append(
            {
                "variant": name,
                "margins": " + ".join(variables),
                "n_workers": len(frame),
                "share_gt_cutoff": share,
                "share_ge_cutoff": tr["share_ge"],
                "share_mid": tr["share_mid"],
                "mean_of_task_means": tr["mean_of_task_means"],
                "design_effect": res.design_effect,
                "effective_n": res.effective_n,
                "max_weight": float(wt.max()),
                "min_weight": float(wt.min()),
                "iterations": res.iterations,
            }
        )
        weights[name] = wt
    return pd.DataFrame(rows), weights


def sample_vs_bls_demographics(
    desires: pd.DataFrame,
    metadata: pd.DataFrame,
    bls_age: pd.DataFrame,
    bls_race_gender: pd.DataFrame,
    race_map: str = "hispanic_as_white",
) -> pd.DataFrame:
    """Sample shares (workers who rated tasks) vs BLS CPS 2024 shares (%) for age band, gender, race and
    Hispanic ethnicity. Columns: variable, category, n_workers, sample_pct, bls_pct."""
    w = _worker_frame(desires, metadata)
    frame = raking_frame(w, race_map)
    rg = bls_race_gender_shares(bls_race_gender)
    targets = {
        "age_band": bls_age_shares(bls_age).to_dict(),
        "gender": {"women": rg["women"], "men": 1 - rg["women"], "other_or_undisclosed": np.nan},
        "race": {k: rg[k] for k in ("white", "black", "asian", "other_race")},
        "hispanic": {"hispanic": rg["hispanic"], "not_hispanic": 1 - rg["hispanic"]},
    }
    rows = []
    for var, t in targets.items():
        counts = frame[var].value_counts()
        for cat, share in t.items():
            n = int(counts.get(cat, 0))
            rows.append(
                {
                    "variable": var,
                    "category": cat,
                    "n_workers": n,
                    "sample_pct": 100 * n / len(frame),
                    "bls_pct": 100 * share if np.isfinite(share) else np.nan,
                }
            )
    return pd.DataFrame(rows)


def category_mapping_table() -> pd.DataFrame:
    """The mapping from the survey's categories to BLS CPS 2024 categories, as documented in the chapter."""
    rows = [
        (
            "age",
            "Age (integer)",
            "16 to 19 years ... 65 years and over (7 CPS bands)",
            "cut at 20, 25, 35, 45, 55, 65; the survey's youngest workers are 18-19",
        )
    ]
    rows += [
        ("gender", k, v, "BLS gives % women; 'other' keeps its sample share as its target")
        for k, v in GENDER_MAP.items()
    ]
    rows += [
        ("race", k, f"{v} | {RACE_MAPS['hispanic_as_other'][k]}", "primary mapping | alternative")
        for k, v in RACE_MAPS["hispanic_as_white"].items()
    ]
    rows += [
        (
            "Hispanic ethnicity",
            "Race == 'Hispanic'",
            "hispanic (BLS: Hispanic or Latino, any race)",
            "the survey offers Hispanic as a race, so Hispanic workers who are also White, Black, ... "
            "cannot be told apart",
        )
    ]
    return pd.DataFrame(rows, columns=["margin", "survey category", "BLS category", "note"])


# ------------------------------------------------------------------- what the raking does not reach


def raked_sector_mix(worker_weights: pd.Series, sectors: pd.DataFrame, bls_wages: pd.DataFrame) -> pd.DataFrame:
    """The occupation composition behind the raked shares: per SOC major group (every group of BLS OEWS May
    2024), the workers who rated tasks (``n_workers``; weights keyed by (User ID, occupation)), their share
    unweighted (``sample_pct``) and under ``worker_weights`` (``raked_pct``: the group's sum of weights over
    the total), and the group's share of US employment (``bls_pct``). Raking to national age, gender and race
    margins re-weights people, not occupations; this table shows how little that moves the sample's sector
    mix. Sorted by ``raked_pct`` (largest first), then by ``bls_pct``."""
    if OCC not in worker_weights.index.names:
        raise ValueError(
            f"raked_sector_mix: the weights must be indexed by (User ID, occupation), got {worker_weights.index.names}"
        )
    occ = pd.Series(worker_weights.index.get_level_values(OCC))
    code = occ.map(sectors["sector_code"])
    if code.isna().any():
        raise ValueError(
            f"raked_sector_mix: occupation {occ[code.isna()].iloc[0]!r} has no SOC sector in the task metadata"
        )
    w = worker_weights.to_numpy(float)
    if (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
        raise ValueError("raked_sector_mix: weights must be finite, >= 0 and not all 0")
    emp = bls_sector_employment(bls_wages)
    n = code.value_counts()
    ws = pd.Series(w).groupby(code.to_numpy()).sum()
    out = emp[["sector_code", "sector"]].copy()
    out["n_workers"] = out["sector_code"].map(n).fillna(0).astype(int)
    out["sample_pct"] = 100 * out["n_workers"] / len(w)
    out["raked_pct"] = 100 * out["sector_code"].map(ws).fillna(0.0) / w.sum()
    out["bls_pct"] = emp["share"].to_numpy()
    return out.sort_values(["raked_pct", "bls_pct"], ascending=False, kind="stable").reset_index(drop=True)


def _rake_columns(codes, targets, base: np.ndarray, *, max_iter: int, tol: float) -> tuple[np.ndarray, int]:
    """Rake every column of ``base`` (units x draws; 0 = unit not in that draw) at once: the iterative
    proportional fitting of :func:`compendium.stats.weighting.rake`, vectorised over the draws. ``codes``:
    one integer array per margin (a unit's category); ``targets``: one array per margin, ``(categories,)``
    or ``(categories, draws)`` (shares summing to 1). Returns ``(weights, sweeps)``; raises if a column has
    not reached every target within ``tol`` after ``max_iter`` sweeps."""
    from scipy import sparse

    w = np.array(base, dtype=float)
    n = w.shape[0]
    onehot = [sparse.csr_matrix((np.ones(n), (c, np.arange(n))), shape=(t.shape[0], n)) for c, t in zip(codes, targets)]
    tg = [t if t.ndim == 2 else t[:, None] for t in targets]

    def gaps(w):
        total = w.sum(0)
        return max(float(np.max(np.abs(m @ w / total - t))) for m, t in zip(onehot, tg))

    it, err = 0, gaps(w)
    while err > tol and it < max_iter:
        for m, c, t in zip(onehot, codes, tg):
            cur = (m @ w) / w.sum(0)
            factor = np.divide(t, cur, out=np.zeros(cur.shape), where=cur > 0)
            w = w * factor[c]
        it += 1
        err = gaps(w)
    if err > tol:
        raise RuntimeError(
            f"raking_bootstrap: a replicate did not converge in {max_iter} sweeps (largest margin gap {err:.3g} > "
            f"tol {tol:.3g}); a category with a target may have no worker in that replicate"
        )
    return w, it


def raking_bootstrap(
    desires: pd.DataFrame,
    metadata: pd.DataFrame,
    bls_age: pd.DataFrame,
    bls_race_gender: pd.DataFrame,
    cutoff: float,
    variables=("age_band", "gender", "race"),
    race_map: str = "hispanic_as_white",
    *,
    n_draws: int,
    seed: int,
    max_iter: int,
    tol: float,
) -> pd.DataFrame:
    """Sampling distribution of the raked share: a bootstrap over workers that re-rakes every replicate.

    Each draw resamples the workers who rated tasks with replacement *within their occupation* (the survey
    recruited by occupation; :func:`.landscape.cluster_counts`), rakes the replicate to the same BLS CPS
    2024 margins as :func:`raked_headline` (the "other or undisclosed" gender target is the replicate's own
    share), and recomputes every task's weighted mean over its resampled raters (a worker drawn k times
    counts k times with their raked weight). The tasks are held fixed; a task that lost all its raters in a
    draw is left out of that draw's shares. Returns one row per draw: the raked ``share_gt``,
    ``share_mid`` (ties at the cut-off half; :func:`tie_robust_share`), the *unweighted* ``unweighted_gt``
    and ``unweighted_mid`` of the same replicate, and ``n_tasks`` (tasks with a mean). Seeded, vectorised.
    """
    if n_draws < 1:
        raise ValueError(f"raking_bootstrap: n_draws must be >= 1, got {n_draws}")
    w = _worker_frame(desires, metadata).set_index([USER, OCC])
    frame = raking_frame(w, race_map)
    margins = raking_margins(frame, bls_age, bls_race_gender, variables)
    counts = cluster_counts(w.index.get_level_values(OCC), n_draws, np.random.default_rng(seed)).T.astype(float)
    codes, targets = [], []
    for v in variables:
        t = pd.Series(margins[v], dtype=float)
        t = t / t.sum()
        c = pd.Categorical(frame[v], categories=t.index).codes.astype(np.intp)
        if (c < 0).any():
            raise ValueError(f"raking_bootstrap: column {v!r} has a category without a target")
        tt = t.to_numpy()
        if v == "gender":  # the undisclosed keep the replicate's own share; women and men split the rest as BLS
            other = t.index == "other_or_undisclosed"
            share = counts[other[c]].sum(0) / counts.sum(0)
            tt = np.where(other, 0.0, tt / tt[~other].sum())[:, None] * (1 - share) + other[:, None] * share
        codes.append(c)
        targets.append(tt)
    raked, _ = _rake_columns(codes, targets, counts, max_iter=max_iter, tol=tol)
    _, num, den = _rating_matrices(desires, w.index)

    def shares(weights):
        s, n = np.asarray(num @ weights), np.asarray(den @ weights)
        ok = n > 0
        m = np.divide(s, n, out=np.full(s.shape, np.nan), where=ok)
        at = ok & (np.abs(m - cutoff) <= TIE_ATOL)
        above = ok & (m > cutoff) & ~at
        k = ok.sum(0)
        return 100 * above.sum(0) / k, 100 * (above.sum(0) + 0.5 * at.sum(0)) / k, k

    gt, mid, k = shares(raked)
    ugt, umid, _ = shares(counts)
    return pd.DataFrame({"share_gt": gt, "share_mid": mid, "unweighted_gt": ugt, "unweighted_mid": umid, "n_tasks": k})


def quantile_mc_se(draws, q) -> np.ndarray:
    """Monte-Carlo standard error of the sample ``q``-quantiles of ``draws`` (Maritz-Jarrett,
    :func:`scipy.stats.mstats.mjci`): how far an interval endpoint read off these draws would move with
    another set of as many draws. ``q`` in (0, 1), one or several. Where too few draws lie beyond a quantile
    for Maritz-Jarrett (e.g. the 2.5% quantile of fewer than about 60 draws), the asymptotic
    ``sqrt(q(1-q)/n) / f(x_q)`` with the density of a normal fit to the draws is given instead."""
    from scipy import stats
    from scipy.stats import mstats

    x = np.asarray(draws, dtype=float)
    if x.ndim != 1 or x.size < 2 or np.isnan(x).any():
        raise ValueError("quantile_mc_se: need a 1-D array of at least 2 draws without NaN")
    q = np.atleast_1d(np.asarray(q, dtype=float))
    if ((q <= 0) | (q >= 1)).any():
        raise ValueError(f"quantile_mc_se: quantiles must be in (0, 1), got {q.tolist()}")
    se = np.asarray(mstats.mjci(x, prob=q), dtype=float)
    if np.isnan(se).any():
        sd = float(np.std(x, ddof=1))
        normal = np.sqrt(q * (1 - q) / x.size) * sd / stats.norm.pdf(stats.norm.ppf(q))
        se = np.where(np.isnan(se), normal, se)
    return se
