"""What the released aggregates (``data/pwb/analysis_output``) can reproduce, computed exactly.

The key step is :func:`reconstruct_cells`. Two released files describe each (model, condition,
dimension) cell of run-level panel scores:

- ``effect_sizes.csv``: the raw mean of the cell, ``round(mean, 2)`` (``Baseline_mean`` /
  ``Prompted_mean``, written by the authors' ``run_analysis.py`` from ``compute_effect_size``), and
  Cohen's d between the two conditions of a (model, dimension), ``round(d, 3)``;
- ``dimension_scores.csv``: the cell's number of scored runs ``N`` and the *posterior* mean of a
  Dirichlet(1, 1, 1, 1) model of the four score levels (``src/statistics.py``,
  ``bayesian_score_estimate``), which is (S + 6) / (N + 4) up to Monte-Carlo error -- not the raw mean.

A cell's score sum S is an integer in [0, 3N]. With N <= 100 the two-decimal raw mean fixes S
uniquely (consecutive sums differ by 1/N >= 0.01); where it would not, the posterior mean breaks the
tie. From the exact (S, N) of the 140 cells follow, with no approximation: the point PWI per model and
condition, ΔPWI, the pooled Table 3 means, models improving, the Layer-1 means, the
weight-sensitivity appendix and the v2.0 leaderboard. The reconstruction is checked against the two
released files that carry pooled means at full precision (``dimension_diagnostics.csv``,
``layer_summary.csv``).

What stays approximate: d_pooled (needs the within-cell variances; recovered from the per-dimension
d, which is rounded to 3 decimals -- :func:`d_pooled_approx` gives the value and its rounding bounds)
and everything that needs individual runs (bootstrap CIs, paired tests, IRR, prompt-level
correlations).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from ..data.errors import require_columns
from .constants import CONDITIONS, DIMENSIONS, dim_label
from .weights import MAX_SCORE, pwi_matrix

#: Dirichlet prior pseudo-counts per score level used by the authors' posterior mean.
DIRICHLET_PRIOR = (1.0, 1.0, 1.0, 1.0)

__all__ = [
    "reconstruct_cells",
    "cell_means_wide",
    "reconstruction_checks",
    "pwi_table",
    "table2",
    "mean_delta",
    "d_pooled_approx",
    "dimension_diagnostics",
    "layer1_summary",
    "weight_sensitivity",
    "leaderboard",
    "restore_grid",
    "model_dimension_matrix",
    "stale_table_comparison",
    "incomplete_run_agreement_needed",
    "layer_table",
    "completeness_share",
    "smaller_points",
    "mean_printed_delta",
]


_require = require_columns


def reconstruct_cells(
    dimension_scores: pd.DataFrame,
    effect_sizes: pd.DataFrame,
    mean_decimals: int = 2,
    posterior_tolerance: float = 0.01,
) -> pd.DataFrame:
    """Exact run-level score sum and count of every (model, condition, dimension) cell.

    Returns one row per cell: ``model, condition, dimension, n, score_sum, mean`` (= score_sum / n,
    the exact raw mean), ``cohens_d`` (released, per model x dimension), ``posterior_released`` and
    ``posterior_implied`` = (score_sum + sum_k k*a_k) / (n + sum_k a_k) with the Dirichlet prior a.

    Raises ``ValueError`` when a released mean is inconsistent with every integer sum, when the sum is
    not identifiable, or when the implied posterior mean misses the released one by more than
    ``posterior_tolerance`` (files from different runs).
    """
    _require(dimension_scores, ["Model", "Variant", "Dimension", "Mean", "N"], "dimension_scores")
    _require(effect_sizes, ["Model", "Dimension", "Cohens_d", "Baseline_mean", "Prompted_mean"], "effect_sizes")
    bad_var = sorted(set(dimension_scores["Variant"]) - set(CONDITIONS))
    if bad_var:
        raise ValueError(
            f"dimension_scores: column 'Variant' has unknown condition(s) {bad_var}; expected {list(CONDITIONS)}"
        )
    if dimension_scores.duplicated(["Model", "Variant", "Dimension"]).any():
        raise ValueError("dimension_scores: duplicate (Model, Variant, Dimension) rows")
    if effect_sizes.duplicated(["Model", "Dimension"]).any():
        raise ValueError("effect_sizes: duplicate (Model, Dimension) rows")
    es = pd.concat(
        [
            effect_sizes.assign(Variant="baseline", raw=effect_sizes["Baseline_mean"]),
            effect_sizes.assign(Variant="with_system_prompt", raw=effect_sizes["Prompted_mean"]),
        ]
    )[["Model", "Variant", "Dimension", "raw", "Cohens_d"]]
    m = dimension_scores.merge(es, on=["Model", "Variant", "Dimension"], how="outer", indicator=True)
    if (m["_merge"] != "both").any():
        odd = m.loc[m["_merge"] != "both", ["Model", "Variant", "Dimension", "_merge"]]
        raise ValueError(
            f"dimension_scores and effect_sizes do not describe the same cells:\n{odd.to_string(index=False)}"
        )
    n = m["N"].to_numpy(dtype=float)
    if np.any(n <= 0) or np.any(n != np.round(n)):
        raise ValueError("dimension_scores: column 'N' must hold positive integers")
    raw = m["raw"].to_numpy(dtype=float)
    if np.any((raw < 0) | (raw > MAX_SCORE)):
        raise ValueError(f"effect_sizes: raw means must lie in [0, {MAX_SCORE}]")
    half = 0.5 * 10.0 ** (-mean_decimals) + 1e-9
    kmin = np.clip(np.ceil((raw - half) * n - 1e-9), 0, MAX_SCORE * n)
    kmax = np.clip(np.floor((raw + half) * n + 1e-9), 0, MAX_SCORE * n)
    prior = np.asarray(DIRICHLET_PRIOR)
    prior_sum, prior_score = prior.sum(), float(np.arange(prior.size) @ prior)
    post = m["Mean"].to_numpy(dtype=float)
    sums = np.empty(len(m), dtype=np.int64)
    for i in range(len(m)):  # 140 cells; each has one or very few candidates
        cand = np.arange(kmin[i], kmax[i] + 1)
        if cand.size == 0:
            r = m.iloc[i]
            raise ValueError(
                f"cell ({r.Model}, {r.Variant}, {r.Dimension}): released mean {raw[i]} with N={int(n[i])} "
                f"matches no integer score sum"
            )
        if cand.size > 1:
            implied = (cand + prior_score) / (n[i] + prior_sum)
            # the posterior mean is printed to 2 decimals (±0.005) after a 10,000-draw Monte-Carlo
            # average (error ~0.001): keep the sums whose implied posterior mean is within 0.008
            cand = cand[np.abs(implied - post[i]) <= 0.008]
            if cand.size != 1:
                r = m.iloc[i]
                raise ValueError(
                    f"cell ({r.Model}, {r.Variant}, {r.Dimension}): score sum not identifiable from the "
                    f"released means (candidates {cand.tolist()})"
                )
        sums[i] = int(cand[0])
    out = pd.DataFrame(
        {
            "model": m["Model"].astype(str).to_numpy(),
            "condition": m["Variant"].astype(str).to_numpy(),
            "dimension": m["Dimension"].astype(str).to_numpy(),
            "n": n.astype(np.int64),
            "score_sum": sums,
        }
    )
    out["mean"] = out["score_sum"] / out["n"]
    out["cohens_d"] = m["Cohens_d"].to_numpy(dtype=float)
    out["posterior_released"] = post
    out["posterior_implied"] = (out["score_sum"] + prior_score) / (out["n"] + prior_sum)
    dev = np.abs(out["posterior_implied"] - out["posterior_released"])
    if (dev > posterior_tolerance).any():
        worst = out.loc[dev.idxmax()]
        raise ValueError(
            f"cell ({worst.model}, {worst.condition}, {worst.dimension}): implied posterior mean "
            f"{worst.posterior_implied:.4f} vs released {worst.posterior_released} -- the two files "
            f"do not come from the same scores"
        )
    order = {d: i for i, d in enumerate(DIMENSIONS)}
    out["_o"] = out["dimension"].map(order).fillna(len(order))
    out = out.sort_values(["model", "condition", "_o", "dimension"]).drop(columns="_o").reset_index(drop=True)
    return out


def cell_means_wide(cells: pd.DataFrame) -> pd.DataFrame:
    """Means as a (model, condition) x dimension table (NaN where a cell has no data)."""
    _require(cells, ["model", "condition", "dimension", "mean"], "cells")
    wide = cells.pivot(index=["model", "condition"], columns="dimension", values="mean")
    cols = [d for d in DIMENSIONS if d in wide.columns] + [d for d in wide.columns if d not in DIMENSIONS]
    return wide[cols]


def reconstruction_checks(
    cells: pd.DataFrame,
    released_diagnostics: pd.DataFrame,
    released_layers: pd.DataFrame,
    diag: pd.DataFrame | None = None,
    l1: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Compare the reconstruction with the released full-precision pooled means.

    Rows: pooled baseline and prompted mean per dimension vs ``dimension_diagnostics.csv``; Layer-1
    mean and N per condition vs ``layer_summary.csv``. Columns: check, reconstructed, released, abs_diff.
    ``diag`` and ``l1``: :func:`dimension_diagnostics` and :func:`layer1_summary` of ``cells`` when the
    caller has them (computed here otherwise).
    """
    _require(released_diagnostics, ["Dimension", "Baseline", "Prompted"], "released_diagnostics")
    _require(released_layers, ["Layer", "Variant", "Mean", "N"], "released_layers")
    diag = (dimension_diagnostics(cells) if diag is None else diag).set_index("dimension")
    rel = released_diagnostics.set_index("Dimension")
    rows = []
    for dim in diag.index:
        if dim not in rel.index:
            raise ValueError(f"released_diagnostics has no row for dimension {dim!r}")
        for col, rcol in (("baseline", "Baseline"), ("prompted", "Prompted")):
            rows.append(
                {
                    "check": f"pooled {col} mean, {dim}",
                    "reconstructed": diag.loc[dim, col],
                    "released": float(rel.loc[dim, rcol]),
                }
            )
    l1 = (layer1_summary(cells) if l1 is None else l1).set_index("condition")
    lay = released_layers[released_layers["Layer"] == "Layer 1"].set_index("Variant")
    for cond in CONDITIONS:
        rows.append(
            {
                "check": f"Layer-1 mean, {cond}",
                "reconstructed": l1.loc[cond, "mean"],
                "released": float(lay.loc[cond, "Mean"]),
            }
        )
        rows.append(
            {
                "check": f"Layer-1 N, {cond}",
                "reconstructed": float(l1.loc[cond, "n"]),
                "released": float(lay.loc[cond, "N"]),
            }
        )
    out = pd.DataFrame(rows)
    out["abs_diff"] = (out["reconstructed"] - out["released"]).abs()
    return out


def pwi_table(cells: pd.DataFrame, weights: Mapping[str, float]) -> pd.DataFrame:
    """Point PWI of every (model, condition) from the exact cell means (N/A rule applies)."""
    wide = cell_means_wide(cells)
    return pwi_matrix(wide, weights).reset_index()


def table2(cells: pd.DataFrame, weights: Mapping[str, float], decimals: int = 1) -> pd.DataFrame:
    """Paper Table 2 from the aggregates: one row per model.

    Columns: model, baseline, prompted (point PWI, unrounded), baseline_printed, prompted_printed
    (rounded to ``decimals``), delta (unrounded prompted - baseline) and delta_printed (printed
    prompted - printed baseline, the paper's ΔPWI). Sorted by prompted PWI, highest first.
    """
    p = pwi_table(cells, weights).pivot(index="model", columns="condition", values="pwi")
    missing = [c for c in CONDITIONS if c not in p.columns]
    if missing:
        raise ValueError(f"cells lack condition(s) {missing}: Table 2 needs both conditions for every model")
    out = pd.DataFrame(
        {"model": p.index, "baseline": p["baseline"].to_numpy(), "prompted": p["with_system_prompt"].to_numpy()}
    )
    out["baseline_printed"] = out["baseline"].round(decimals)
    out["prompted_printed"] = out["prompted"].round(decimals)
    out["delta"] = out["prompted"] - out["baseline"]
    out["delta_printed"] = (out["prompted_printed"] - out["baseline_printed"]).round(decimals)
    return out.sort_values("prompted", ascending=False, kind="stable").reset_index(drop=True)


def mean_delta(table: pd.DataFrame, printed: bool = True) -> float:
    """Mean ΔPWI over models (the paper's +34.7 uses the printed deltas)."""
    col = "delta_printed" if printed else "delta"
    _require(table, [col], "table")
    return float(table[col].mean())


def _within_ss(
    delta_mean: np.ndarray, d: np.ndarray, dof: np.ndarray, released_zero: np.ndarray | None = None
) -> np.ndarray:
    """Within-cell sum of squares of a (model, dimension) from its Cohen's d: (Δm / d)^2 * dof.

    A *released* d of exactly 0 with different condition means is the authors' ``compute_effect_size``
    convention for two constant cells (both SDs 0 -> d = 0): the within-cell spread is zero, so the
    sum of squares is 0 (not unbounded). A d of 0 with equal means leaves it unidentifiable (NaN).
    ``released_zero`` marks those cells when ``d`` has been moved to a rounding bound.
    """
    zero = (d == 0) if released_zero is None else released_zero
    with np.errstate(divide="ignore", invalid="ignore"):
        ss = (delta_mean / d) ** 2 * dof
    ss = np.where(d == 0, np.inf, ss)
    ss = np.where(zero, np.where(delta_mean == 0, np.nan, 0.0), ss)
    return ss


def d_pooled_approx(cells: pd.DataFrame, d_halfwidth: float = 0.0005) -> pd.DataFrame:
    """Approximate d_pooled per model from the aggregates, with rounding bounds.

    d_pooled (METHODS.md) = Cohen's d, independent samples, pooled SD (ddof 1), prompted vs baseline,
    over the concatenation of the model's ten Layer-1 dimensions' run-level scores. Its numerator is
    exact here (exact cell sums). Its pooled SD needs the within-condition sums of squares of the two
    concatenations, which decompose exactly into

    * the within-cell sums of squares, known per (model, dimension) only as the sum over the two
      conditions, recovered from the released per-dimension d: SSW_d = (Δm_d / d_d)^2 (n_b + n_p - 2);
    * the between-cell parts n_cell (m_cell - M_condition)^2, exact.

    The only error is the rounding of the released d (3 decimals, ±``d_halfwidth``). ``d_lo`` /
    ``d_hi`` take every d at the end of its rounding interval that makes d_pooled smallest / largest.
    A released d of 0 with Δm != 0 means both cells are constant (the authors' code returns d = 0 when
    both SDs are 0): within-cell spread 0. A dimension with d = 0 and Δm = 0 makes the SD
    unidentifiable (NaN).
    """
    _require(cells, ["model", "condition", "dimension", "n", "score_sum", "mean", "cohens_d"], "cells")
    rows = []
    for model, t in cells.groupby("model", sort=True):
        b = t[t["condition"] == "baseline"].set_index("dimension")
        p = t[t["condition"] == "with_system_prompt"].set_index("dimension")
        dims = b.index.intersection(p.index)
        if len(dims) != len(b) or len(dims) != len(p):
            raise ValueError(f"model {model!r}: baseline and prompted cells cover different dimensions")
        b, p = b.loc[dims], p.loc[dims]
        dm = (p["mean"] - b["mean"]).to_numpy()
        d = b["cohens_d"].to_numpy()
        if np.any(np.sign(d) * np.sign(dm) < 0):
            raise ValueError(f"model {model!r}: a released Cohen's d has the opposite sign of its mean difference")
        dof = (b["n"] + p["n"] - 2).to_numpy(dtype=float)
        nb, np_ = int(b["n"].sum()), int(p["n"].sum())
        mb, mp = b["score_sum"].sum() / nb, p["score_sum"].sum() / np_
        ssb = float((b["n"] * (b["mean"] - mb) ** 2).sum() + (p["n"] * (p["mean"] - mp) ** 2).sum())
        ad = np.abs(d)
        z = ad == 0
        ss_mid = _within_ss(np.abs(dm), ad, dof, z)
        ss_small = _within_ss(np.abs(dm), ad + d_halfwidth, dof, z)  # larger |d| -> smaller SSW
        ss_large = _within_ss(np.abs(dm), np.maximum(ad - d_halfwidth, 0.0), dof, z)

        def dpool(ssw):
            tot = ssw.sum() + ssb
            if not np.isfinite(tot):
                return 0.0 if tot == np.inf else float("nan")
            return float((mp - mb) / np.sqrt(tot / (nb + np_ - 2)))

        rows.append(
            {
                "model": model,
                "d_pooled": dpool(ss_mid),
                "d_lo": dpool(ss_large),
                "d_hi": dpool(ss_small),
                "n_baseline": nb,
                "n_prompted": np_,
                "mean_baseline": mb,
                "mean_prompted": mp,
                "sd_pooled": float(np.sqrt((ss_mid.sum() + ssb) / (nb + np_ - 2))),
            }
        )
    return pd.DataFrame(rows)


def dimension_diagnostics(cells: pd.DataFrame) -> pd.DataFrame:
    """Paper Table 3 columns computable from cell sums: all models' run scores pooled per condition.

    Columns: dimension, baseline, prompted, delta (prompted - baseline), n_baseline, n_prompted,
    models_improving (models whose prompted mean exceeds their baseline mean).
    """
    _require(cells, ["model", "condition", "dimension", "n", "score_sum", "mean"], "cells")
    g = cells.groupby(["dimension", "condition"])[["score_sum", "n"]].sum()
    pooled = (g["score_sum"] / g["n"]).unstack("condition")
    ns = g["n"].unstack("condition")
    wide = cells.pivot(index=["model", "dimension"], columns="condition", values="mean")
    improving = (wide["with_system_prompt"] > wide["baseline"]).groupby("dimension").sum()
    dims = [d for d in DIMENSIONS if d in pooled.index] + [d for d in pooled.index if d not in DIMENSIONS]
    out = pd.DataFrame(
        {
            "dimension": dims,
            "baseline": pooled.loc[dims, "baseline"].to_numpy(),
            "prompted": pooled.loc[dims, "with_system_prompt"].to_numpy(),
            "n_baseline": ns.loc[dims, "baseline"].astype(int).to_numpy(),
            "n_prompted": ns.loc[dims, "with_system_prompt"].astype(int).to_numpy(),
            "models_improving": improving.loc[dims].astype(int).to_numpy(),
        }
    )
    out.insert(3, "delta", out["prompted"] - out["baseline"])
    return out


def layer1_summary(cells: pd.DataFrame) -> pd.DataFrame:
    """Mean of all Layer-1 run-level scores per condition (pooled over models and dimensions), and N."""
    _require(cells, ["condition", "n", "score_sum"], "cells")
    g = cells.groupby("condition")[["score_sum", "n"]].sum()
    return pd.DataFrame({"condition": g.index, "mean": (g["score_sum"] / g["n"]).to_numpy(), "n": g["n"].to_numpy()})


def weight_sensitivity(
    cells: pd.DataFrame, schemes: Mapping[str, Mapping[str, float]], default: str = "default", top_k: int = 3
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The weight-sensitivity appendix: the 14 PWIs under each scheme against the default.

    Returns (summary, pwis). summary columns: scheme, kendall_tau (Kendall's tau-b between the default
    and the scheme's ranking of the prompted PWIs, scipy), max_dev (largest |PWI - default PWI| over
    all model x condition), min_delta (smallest prompted - baseline over models, unrounded) and
    top3_stable (the scheme's top-``top_k`` prompted set equals the default's). pwis: long table
    scheme, model, condition, pwi.
    """
    if default not in schemes:
        raise ValueError(f"schemes must include the default scheme {default!r}; got {list(schemes)}")
    wide = cell_means_wide(cells)
    pw = {name: pwi_matrix(wide, w).to_numpy() for name, w in schemes.items()}
    # positions, in the table's row order, of each model's prompted and baseline PWI (numpy per scheme:
    # the pandas selections of the first version took 2 s over the robustness chapter's 510 schemes)
    model = wide.index.get_level_values("model")
    condition = wide.index.get_level_values("condition")
    rows_p = np.flatnonzero(condition == "with_system_prompt")
    where_b = {m: k for k, (m, c) in enumerate(zip(model, condition)) if c == "baseline"}
    missing = [m for m in model[rows_p] if m not in where_b]
    if missing:
        raise ValueError(f"weight_sensitivity: no baseline cell for models {missing}")
    rows_b = np.array([where_b[m] for m in model[rows_p]], dtype=int)
    models_p = model[rows_p]
    base = pw[default]
    base_p = base[rows_p]

    def top(values: np.ndarray) -> set:
        return set(pd.Series(values, index=models_p).sort_values(ascending=False).index[:top_k])

    top_base = top(base_p)
    rows = []
    for name, s in pw.items():
        sp, sb = s[rows_p], s[rows_b]
        rows.append(
            {
                "scheme": name,
                "kendall_tau": float(stats.kendalltau(base_p, sp).statistic),
                "max_dev": float(np.nanmax(np.abs(s - base))),
                "min_delta": float(np.nanmin(sp - sb)),
                "top3_stable": bool(top(sp) == top_base),
            }
        )
    n = len(wide)
    pwis = pd.DataFrame(
        {
            "scheme": np.repeat(np.array(list(pw), dtype=object), n),
            "model": np.tile(model.to_numpy(), len(pw)),
            "condition": np.tile(condition.to_numpy(), len(pw)),
            "pwi": np.concatenate(list(pw.values())),
        }
    )
    return pd.DataFrame(rows), pwis


def leaderboard(cells: pd.DataFrame, weights: Mapping[str, float]) -> pd.DataFrame:
    """A leaderboard under ``weights``: model, baseline, prompted, delta (point PWIs, sorted by prompted)."""
    t = table2(cells, weights)
    return t[["model", "baseline", "prompted", "delta"]].copy()


def restore_grid(
    cells: pd.DataFrame,
    base_weights: Mapping[str, float],
    grid: Sequence[float] = (0.0, 0.05, 0.10, 0.15),
    dims: tuple[str, str] = ("uncertainty_transparency", "appropriate_reliance"),
) -> pd.DataFrame:
    """Minimum ΔPWI over models when ``dims`` are added to ``base_weights`` at each pair of grid weights.

    Rows: weight of ``dims[0]``; columns: weight of ``dims[1]``. The (0.10, 0.10) cell is the
    sensitivity appendix's "restore UT + AR_d" row.
    """
    wide = cell_means_wide(cells)
    out = pd.DataFrame(
        index=pd.Index(list(grid), name=f"w_{dims[0]}"), columns=pd.Index(list(grid), name=f"w_{dims[1]}"), dtype=float
    )
    for a in grid:
        for b in grid:
            w = {**{k: v for k, v in base_weights.items() if k not in dims}, dims[0]: a, dims[1]: b}
            s = pwi_matrix(wide, w)
            delta = s.xs("with_system_prompt", level="condition") - s.xs("baseline", level="condition")
            out.loc[a, b] = float(delta.min())
    return out


def model_dimension_matrix(cells: pd.DataFrame, what: str = "delta") -> pd.DataFrame:
    """Model x dimension matrix of the baseline mean, the prompted mean, or their difference."""
    if what not in ("baseline", "prompted", "delta"):
        raise ValueError(f"what must be 'baseline', 'prompted' or 'delta', got {what!r}")
    wide = cells.pivot(index=["model", "dimension"], columns="condition", values="mean")
    val = {
        "baseline": wide["baseline"],
        "prompted": wide["with_system_prompt"],
        "delta": wide["with_system_prompt"] - wide["baseline"],
    }[what]
    mat = val.unstack("dimension")
    return mat[[d for d in DIMENSIONS if d in mat.columns]]


def stale_table_comparison(cells: pd.DataFrame, printed: pd.DataFrame) -> pd.DataFrame:
    """The appendix table of per-model prompted scores as printed vs regenerated from the CSVs.

    ``printed``: model x dimension (the paper's values). Returns long rows model, dimension, printed,
    data (exact raw prompted mean), diff = printed - data, sorted by |diff|.
    """
    data = model_dimension_matrix(cells, "prompted")
    miss_m = sorted(set(printed.index) - set(data.index))
    miss_d = sorted(set(printed.columns) - set(data.columns))
    if miss_m or miss_d:
        raise ValueError(f"printed table has models {miss_m} / dimensions {miss_d} absent from the data")
    long = printed.stack().rename("printed").to_frame()
    long.index.names = ["model", "dimension"]
    long["data"] = [data.loc[m, d] for m, d in long.index]
    long["diff"] = long["printed"] - long["data"]
    return long.reset_index()


def incomplete_run_agreement_needed(
    cells: pd.DataFrame, released_irr: pd.DataFrame, printed_exact: Mapping[str, float], decimals: int = 1
) -> pd.DataFrame:
    """What a printed exact-agreement figure would require if it had been computed over *all* scored
    runs (complete triples and runs with fewer judges) instead of complete triples only.

    For each dimension: scored runs (cell counts), complete triples and their exact-agreement count
    (released IRR table), and the share of the incomplete runs that would have to show exact agreement
    for the overall rate to print as ``printed_exact`` (low / mid / high for the rounding interval).
    A share outside [0, 1] means that explanation is impossible.
    """
    _require(released_irr, ["Dimension", "N", "exact"], "released_irr")
    scored = cells.groupby("dimension")["n"].sum()
    irr = released_irr.set_index("Dimension")
    half = 0.5 * 10.0 ** (-decimals)
    rows = []
    for dim, p in printed_exact.items():
        if dim not in scored.index or dim not in irr.index:
            raise ValueError(f"dimension {dim!r} missing from the cells or the released IRR table")
        n_all, n_tri = int(scored[dim]), int(irr.loc[dim, "N"])
        e_tri = float(irr.loc[dim, "exact"]) * n_tri / 100.0
        n_inc = n_all - n_tri
        need = [((q / 100.0) * n_all - e_tri) / n_inc if n_inc > 0 else np.nan for q in (p - half, p, p + half)]
        rows.append(
            {
                "dimension": dim,
                "scored_runs": n_all,
                "complete_triples": n_tri,
                "incomplete_runs": n_inc,
                "exact_triples_pct": float(irr.loc[dim, "exact"]),
                "printed_exact": p,
                "needed_share_lo": need[0],
                "needed_share": need[1],
                "needed_share_hi": need[2],
            }
        )
    return pd.DataFrame(rows)


def layer_table(layers_released: pd.DataFrame, l1: pd.DataFrame) -> pd.DataFrame:
    """The released layer summary with Layer 1 replaced by the recomputed means and counts (``source`` says which)."""
    lay = layers_released.rename(columns={"Layer": "layer", "Variant": "condition", "Mean": "mean", "N": "n"})
    lay["source"] = np.where(lay["layer"] == "Layer 1", "recomputed (exact cell sums)", "released")
    for _, r in l1.iterrows():
        m = (lay["layer"] == "Layer 1") & (lay["condition"] == r["condition"])
        lay.loc[m, "mean"], lay.loc[m, "n"] = r["mean"], r["n"]
    return lay


def completeness_share(cells: pd.DataFrame) -> pd.Series:
    """Share of the design's runs (7 models x 2 conditions x 20 prompts x 5 runs) scored, per dimension."""
    return cells.groupby("dimension")["n"].sum() / (cells.groupby("dimension")["model"].nunique() * 2 * 20 * 5)


def smaller_points(
    cells: pd.DataFrame, t2: pd.DataFrame, released: Mapping, sp: Mapping, comp: pd.Series
) -> pd.DataFrame:
    """The "smaller points" table: what the paper says (``sp``: ``paper_printed.SMALLER_PRINTED``), what the
    data (or the authors' code) give, our verdict; ``comp`` is :func:`completeness_share`."""
    l1n = int(cells["n"].sum())
    pwi_rel = released["pwi"].pivot(index="Model", columns="Variant", values="PWI").diff(axis=1)
    irr = released["irr"].set_index("Dimension")
    below = irr.drop("POOLED")["qwk"].sort_values()
    below = below[below < 0.70]
    min_pairs = int(cells.pivot_table(index=["model", "dimension"], columns="condition", values="n").min(axis=1).sum())
    rows = [
        {
            "topic": "ΔPWI of DeepSeek V3.2",
            "paper": f"+{sp['deepseek_delta_pwi']} (paper's Table 2)",
            "data": f"the printed bootstrap means give +{pwi_rel.loc['DeepSeek V3.2', 'with_system_prompt']:.1f}; "
            f"the point PWIs give +{float(t2.set_index('model').loc['DeepSeek V3.2', 'delta']):.2f}, which "
            "`summary_table.csv` prints as "
            f"+{float(released['summary'].set_index('Model').loc['DeepSeek V3.2', 'Delta_PWI']):.1f}",
            "verdict": "both legitimate; the paper's Table 2 is consistent with its own columns",
        },
        {
            "topic": "scored Layer-1 runs",
            "paper": f"{sp['scored_layer1_runs']:,} carry a panel median (Appendix A)",
            "data": f"{l1n:,} from the cell counts",
            "verdict": "consistent" if l1n == sp["scored_layer1_runs"] else "differs",
        },
        {
            "topic": "per-dimension completeness",
            "paper": f"{sp['completeness_min_pct']} % (complementarity) to {sp['completeness_max_pct']} % (UT)",
            "data": f"{100 * comp.min():.2f} % ({comp.idxmin()}) to {100 * comp.max():.2f} % ({comp.idxmax()})",
            "verdict": "consistent" if abs(100 * comp.min() - sp["completeness_min_pct"]) < 0.005 else "differs",
        },
        {
            "topic": "Layer-1 paired N",
            "paper": f"N = {sp['paired_n']:,} paired observations (Sec. 5.4)",
            "data": f"{sp['paired_n']:,} is the baseline run count; runs scored in both conditions of a cell number "
            f"at most {min_pairs:,}",
            "verdict": "pairing rule not published; needs per-instance data",
        },
        {
            "topic": "dimensions below QW-κ 0.70",
            "paper": "three (MC, UT, AR_d): Sec. 6.3 and Limitations; four: Fig. 2 caption",
            "data": f"{len(below)} in the released IRR table: "
            + ", ".join(f"{dim_label(d)} {k:.3f}" for d, k in below.items()),
            "verdict": "the text omits skill preservation"
            if irr.loc["skill_preservation", "qwk"] < 0.70
            else "consistent",
        },
        {
            "topic": "per-dimension HDI",
            "paper": "Beta fitted by moment matching (appendix)",
            "data": "the authors' code and the released Mean column: Dirichlet(1,1,1,1) posterior",
            "verdict": "text differs from code",
        },
        {
            "topic": "radar figure",
            "paper": "averaged across all seven models (caption)",
            "data": "the authors' figure code plots the top three models",
            "verdict": "caption differs from code",
        },
    ]
    out = pd.DataFrame(rows)
    # authored MyST (a code span) around numbers and the dimension and model names the schema allows
    out.attrs["markup"] = ["data"]
    return out


def mean_printed_delta(baseline: pd.Series, prompted: pd.Series, decimals: int = 1) -> float:
    """Mean over models of (printed prompted − printed baseline), the paper's mean ΔPWI."""
    return float((prompted.round(decimals) - baseline.round(decimals)).mean())
