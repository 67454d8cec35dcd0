"""Effect sizes with confidence intervals and the paper's significance tests, computed with pingouin.

- From the released aggregates: Cohen's d of the system-prompt effect per model x dimension (the released
  ``effect_sizes.csv`` d, independent samples with pooled SD, with the cell sizes of
  ``dimension_scores.csv``) and per model (the d_pooled approximation of
  :func:`compendium.pwb.aggregates.d_pooled_approx`, with the model's run counts) and per dimension
  (all models' runs pooled, :func:`dimension_d_pooled_intervals`), each with its confidence interval
  from :func:`pingouin.compute_esci`.
- From the per-instance results (METHODS.md, "Significance tests"): the per-dimension paired Wilcoxon
  signed-rank tests with Bonferroni over the 10 dimensions, the per-model and pooled paired t-tests
  (:func:`paired_tests`), and the Layer 2 / Layer 3 paired t-tests (:func:`layer_ttests`), with
  :func:`pingouin.wilcoxon`, :func:`pingouin.ttest` and :func:`pingouin.multicomp`.

Rounding: pingouin 0.7 rounds ``compute_esci`` to ``decimals`` (default 2) and the ``CI95`` column of
``ttest`` to 2 decimals. The chapter prints d to 2 decimals, but the d_pooled values it compares with
the paper are read at 2 decimals *after* an approximation whose bounds are a few thousandths wide, and
the layer means are printed to 4 decimals; an interval rounded to 2 decimals could move a printed
bound by 0.005. So :func:`d_intervals` asks ``compute_esci`` for 6 decimals, and :func:`layer_ttests`
and :func:`paired_tests` compute the mean-difference interval unrounded (mean ± t-quantile × SE, the
same interval pingouin rounds; the tests check that rounding ours to 2 decimals gives pingouin's).

pingouin is imported inside the functions that use it (it loads statsmodels and matplotlib's pyplot, about
0.7 s of CPU), so importing :mod:`compendium.pwb` does not.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from . import aggregates as agg
from .constants import CONDITIONS, DIMENSIONS

__all__ = [
    "d_intervals",
    "cell_d_intervals",
    "d_pooled_intervals",
    "dimension_d_pooled_intervals",
    "paired_tests",
    "layer_ttests",
]

_DECIMALS = 6


def d_intervals(d, n_baseline, n_prompted, confidence: float = 0.95) -> np.ndarray:
    """(lower, upper) of Cohen's d for independent samples of sizes ``n_baseline``, ``n_prompted``
    (:func:`pingouin.compute_esci`, ``eftype="cohen"``), one row per d; 6 decimals (see the module)."""
    import pingouin as pg

    d, nb, npr = (np.atleast_1d(np.asarray(x, dtype=float)) for x in (d, n_baseline, n_prompted))
    if not (len(d) == len(nb) == len(npr)):
        raise ValueError("d_intervals: d, n_baseline and n_prompted must have the same length")
    if (nb < 2).any() or (npr < 2).any():
        raise ValueError("d_intervals: every group needs at least 2 runs")
    return np.array(
        [
            pg.compute_esci(
                stat=float(x), nx=int(a), ny=int(b), eftype="cohen", confidence=confidence, decimals=_DECIMALS
            )
            for x, a, b in zip(d, nb, npr, strict=True)
        ]
    ).reshape(-1, 2)


def cell_d_intervals(
    effect_sizes: pd.DataFrame, dimension_scores: pd.DataFrame, confidence: float = 0.95
) -> pd.DataFrame:
    """Per model x dimension: the released Cohen's d (``effect_sizes.csv``) with the cell sizes
    (``dimension_scores.csv`` ``N`` per condition) and its confidence interval."""
    n = dimension_scores.pivot_table(index=["Model", "Dimension"], columns="Variant", values="N", aggfunc="first")
    missing = [c for c in CONDITIONS if c not in n.columns]
    if missing:
        raise ValueError(f"dimension_scores.csv: column Variant has no {missing} rows")
    t = effect_sizes[["Model", "Dimension", "Cohens_d"]].merge(n.reset_index(), on=["Model", "Dimension"], how="left")
    if t[list(CONDITIONS)].isna().any().any():
        bad = t.loc[t[list(CONDITIONS)].isna().any(axis=1), ["Model", "Dimension"]].head(3).to_dict("records")
        raise ValueError(f"effect_sizes.csv: no cell size in dimension_scores.csv for {bad}")
    ci = d_intervals(t["Cohens_d"], t["baseline"], t["with_system_prompt"], confidence)
    out = pd.DataFrame(
        {
            "model": t["Model"],
            "dimension": t["Dimension"],
            "d": t["Cohens_d"].astype(float),
            "n_baseline": t["baseline"].astype(int),
            "n_prompted": t["with_system_prompt"].astype(int),
            "ci_lower": ci[:, 0],
            "ci_upper": ci[:, 1],
        }
    )
    order = {d: i for i, d in enumerate(DIMENSIONS)}
    return out.sort_values(
        ["model", "dimension"], key=lambda s: s.map(order) if s.name == "dimension" else s, ignore_index=True
    )


def d_pooled_intervals(d_approx: pd.DataFrame, cells: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Per model: the d_pooled approximation with its confidence interval, the samples being all of the
    model's Layer-1 runs per condition (the counts of the reconstructed cells)."""
    n = cells.pivot_table(index="model", columns="condition", values="n", aggfunc="sum")
    t = d_approx[["model", "d_pooled"]].merge(n.reset_index(), on="model", how="left")
    ci = d_intervals(t["d_pooled"], t["baseline"], t["with_system_prompt"], confidence)
    return pd.DataFrame(
        {
            "model": t["model"],
            "d_pooled": t["d_pooled"],
            "n_baseline": t["baseline"].astype(int),
            "n_prompted": t["with_system_prompt"].astype(int),
            "ci_lower": ci[:, 0],
            "ci_upper": ci[:, 1],
        }
    )


def dimension_d_pooled_intervals(cells: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Per dimension: Cohen's d of all models' runs pooled (independent samples, pooled SD, as d_pooled but
    concatenating the models of one dimension instead of the dimensions of one model), approximated from
    the aggregates exactly as :func:`compendium.pwb.aggregates.d_pooled_approx` does for a model (same
    within-cell sums of squares, same rounding bounds ``d_lo`` / ``d_hi``), with its confidence interval."""
    swapped = cells.rename(columns={"model": "dimension", "dimension": "model"})
    t = agg.d_pooled_approx(swapped).rename(columns={"model": "dimension"})
    ci = d_intervals(t["d_pooled"], t["n_baseline"], t["n_prompted"], confidence)
    out = pd.DataFrame(
        {
            "dimension": t["dimension"],
            "d_pooled": t["d_pooled"],
            "d_lo": t["d_lo"],
            "d_hi": t["d_hi"],
            "n_baseline": t["n_baseline"].astype(int),
            "n_prompted": t["n_prompted"].astype(int),
            "ci_lower": ci[:, 0],
            "ci_upper": ci[:, 1],
        }
    )
    order = {d: i for i, d in enumerate(DIMENSIONS)}
    return out.sort_values("dimension", key=lambda x: x.map(order), ignore_index=True)


def _mean_ci(diff: np.ndarray, confidence: float) -> tuple[float, float]:
    """The t interval of the mean difference, unrounded (pingouin's ``CI95`` is this, rounded to 2 decimals)."""
    n = len(diff)
    se = diff.std(ddof=1) / np.sqrt(n)
    q = stats.t.ppf(0.5 + confidence / 2, n - 1)
    return float(diff.mean() - q * se), float(diff.mean() + q * se)


def _paired_t(prompted: np.ndarray, baseline: np.ndarray, confidence: float) -> dict:
    import pingouin as pg

    r = pg.ttest(prompted, baseline, paired=True, confidence=confidence).iloc[0]
    diff = prompted - baseline
    sd = diff.std(ddof=1)
    lo, hi = _mean_ci(diff, confidence)
    return {
        "n_pairs": len(diff),
        "mean_diff": float(diff.mean()),
        "t": float(r["T"]),
        "dof": int(r["dof"]),
        "p": float(r["p_val"]),
        "ci_lower": lo,
        "ci_upper": hi,
        "d_z": float(diff.mean() / sd) if sd > 0 else np.nan,
    }


def _pairs(runs: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    need = set(keys) | {"condition", "panel"}
    missing = need - set(runs.columns)
    if missing:
        raise ValueError(f"paired data: columns {sorted(missing)} missing (expected {sorted(need)})")
    w = runs.pivot_table(index=keys, columns="condition", values="panel", aggfunc="first")
    if not set(CONDITIONS) <= set(w.columns):
        raise ValueError("paired data: no unit is scored under both conditions")
    return w.dropna(subset=list(CONDITIONS)).reset_index()


def paired_tests(runs: pd.DataFrame, confidence: float = 0.95) -> dict[str, pd.DataFrame]:
    """The paper's Layer-1 significance tests with pingouin, runs paired by (model, dimension, prompt, run).

    ``per_dimension``: paired Wilcoxon signed-rank over all models' pairs (:func:`pingouin.wilcoxon` with
    ``correction=False``: pingouin turns scipy's continuity correction on by default, the paper names no
    correction and :func:`compendium.pwb.instances.paired_tests` uses scipy's default, so the two agree;
    zero differences dropped), Bonferroni over the dimensions
    (:func:`pingouin.multicomp`, ``"bonf"``); ``per_model``: paired t (:func:`pingouin.ttest`), Bonferroni
    over the models; ``pooled``: paired t over all pairs. d_z = mean / SD of the differences.
    """
    import pingouin as pg

    w = _pairs(runs, ["model", "dimension", "prompt_id", "run"])
    w["diff"] = w["with_system_prompt"] - w["baseline"]
    dims = [d for d in DIMENSIONS if d in set(w["dimension"])] + sorted(set(w["dimension"]) - set(DIMENSIONS))
    per_dim = []
    for d in dims:
        t = w[w["dimension"] == d]
        if (t["diff"] != 0).any():
            r = pg.wilcoxon(t["with_system_prompt"].to_numpy(), t["baseline"].to_numpy(), correction=False).iloc[0]
            stat, p, rbc = float(r["W_val"]), float(r["p_val"]), float(r["RBC"])
        else:
            stat, p, rbc = np.nan, 1.0, np.nan
        per_dim.append(
            {
                "dimension": d,
                "n_pairs": len(t),
                "mean_diff": float(t["diff"].mean()),
                "wilcoxon_stat": stat,
                "rank_biserial": rbc,
                "p": p,
            }
        )
    per_dim = pd.DataFrame(per_dim)
    per_dim["reject_bonferroni"], per_dim["p_bonferroni"] = pg.multicomp(per_dim["p"].to_numpy(), method="bonf")
    models = sorted(w["model"].unique())
    per_model = pd.DataFrame(
        [
            {"model": m, **_paired_t(g["with_system_prompt"].to_numpy(), g["baseline"].to_numpy(), confidence)}
            for m, g in ((m, w[w["model"] == m]) for m in models)
        ]
    )
    per_model["reject_bonferroni"], per_model["p_bonferroni"] = pg.multicomp(per_model["p"].to_numpy(), method="bonf")
    pooled = pd.DataFrame([_paired_t(w["with_system_prompt"].to_numpy(), w["baseline"].to_numpy(), confidence)])
    return {"per_dimension": per_dim, "per_model": per_model, "pooled": pooled}


def layer_ttests(panel: pd.DataFrame, layer: int, confidence: float = 0.95) -> pd.DataFrame:
    """The Layer 2 (scenario) or Layer 3 (adversarial prompt) paired t-tests of METHODS.md, per model and
    pooled (model ``POOLED``): units matched by (model, prompt_id), both conditions scored."""
    if "layer" not in panel.columns:
        raise ValueError("layer_ttests: the panel table has no column 'layer'")
    w = _pairs(panel[panel["layer"] == layer], ["model", "prompt_id"])
    rows = [
        {"model": m, **_paired_t(g["with_system_prompt"].to_numpy(), g["baseline"].to_numpy(), confidence)}
        for m, g in w.groupby("model", sort=True)
        if len(g) > 1
    ]
    rows.append(
        {"model": "POOLED", **_paired_t(w["with_system_prompt"].to_numpy(), w["baseline"].to_numpy(), confidence)}
    )
    return pd.DataFrame(rows)
