"""Rater agreement (Krippendorff's alpha) and the mixed model of paper Table 1.

Definitions (METHODS, WORKBank):
  * Krippendorff's alpha, **ordinal**, on the task x rater matrix (``krippendorff`` package), for expert
    capability, expert HAS, worker desire and worker HAS.
  * Mixed model: response-level desire ~ 22 demographic/attitude covariates (age numeric, the rest
    categorical) + random intercept per task, REML (statsmodels ``MixedLM``), on the desires merged with
    the worker metadata on (User ID, occupation), rows with NaN dropped (4,804 obs, 843 tasks).
    ICC = sigma_u^2 / (sigma_u^2 + sigma_e^2). The default L-BFGS fit can stop at a singular
    random-effects covariance on current statsmodels; ``method="bfgs"`` reproduces the paper.
"""

from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pandas as pd

from compendium.pipeline.results import significant

from .common import CAPABILITY, DESIRE, HAS, OCC, TASK, USER, drop_repeated_rows, require_columns

__all__ = [
    "MIXED_MODEL_COVARIATES",
    "alpha_authors",
    "alpha_values",
    "group_var_se",
    "krippendorff_alpha_ordinal",
    "mixed_model_data",
    "fit_mixed_model",
]

#: The 22 covariates of Table 1: every worker-metadata column except the IDs, occupation, zip code and
#: recruitment source. Age is numeric, the rest are categorical (treatment coding, first level in sorted
#: order as the reference, as patsy does).
MIXED_MODEL_COVARIATES = (
    "Gender",
    "Race",
    "Income",
    "Age",
    "Education",
    "Experience",
    "AI Tedious Work Attitude",
    "AI Job Importance Attitude",
    "AI Daily Interest Attitude",
    "AI Suffering Attitude",
    "Political Affiliation",
    "LLM Familiarity",
    "LLM Use in Work",
    "LLM Usage by Type - Information Access",
    "LLM Usage by Type - Edit",
    "LLM Usage by Type - Idea Generation",
    "LLM Usage by Type - Communication",
    "LLM Usage by Type - Analysis",
    "LLM Usage by Type - Decision",
    "LLM Usage by Type - Coding",
    "LLM Usage by Type - System Design",
    "LLM Usage by Type - Data Processing",
)
NUMERIC_COVARIATES = ("Age",)


def krippendorff_alpha_ordinal(
    ratings: pd.DataFrame, value: str, unit: str = TASK, rater: str = USER, levels=(1, 2, 3, 4, 5)
) -> float:
    """Krippendorff's alpha (ordinal) of ``value`` on the rater x unit matrix (missing = not rated).

    Exact duplicate (rater, unit, value) rows count once; one rater giving one unit two different values
    raises ``ValueError``.
    """
    require_columns(ratings, [unit, rater, value], "ratings for Krippendorff's alpha")
    r = ratings[[rater, unit, value]].drop_duplicates()
    dup = r.duplicated([rater, unit], keep=False)
    if dup.any():
        row = r.loc[dup].iloc[0]
        raise ValueError(
            f"Krippendorff's alpha: rater {row[rater]!r} gave unit {row[unit]!r} two different values of {value!r}"
        )
    bad = ~r[value].isin(levels)
    if bad.any():
        raise ValueError(
            f"Krippendorff's alpha: column {value!r} has values outside {list(levels)}, "
            f"e.g. {r.loc[bad, value].iloc[0]!r}"
        )
    m = r.pivot(index=rater, columns=unit, values=value).to_numpy(dtype=float)
    return float(krippendorff.alpha(reliability_data=m, level_of_measurement="ordinal", value_domain=list(levels)))


def mixed_model_data(desires: pd.DataFrame, metadata: pd.DataFrame, covariates=MIXED_MODEL_COVARIATES) -> pd.DataFrame:
    """Response-level rows for Table 1: desires merged with worker metadata on (User ID, occupation),
    rows with any missing covariate dropped. Columns: desire, Task, covariates.

    What is left out is counted, never silent: ``.attrs`` holds ``n_responses`` (desire rows given),
    ``n_unmatched`` (no metadata row for the worker and occupation) and ``n_dropped_missing`` (a
    missing covariate)."""
    covariates = list(covariates)
    require_columns(desires, [USER, OCC, TASK, DESIRE], "worker desires")
    require_columns(metadata, [USER, OCC, *covariates], "worker metadata")
    m = desires[[USER, OCC, TASK, DESIRE]].merge(
        metadata[[USER, OCC, *covariates]], on=[USER, OCC], how="inner", validate="many_to_one"
    )
    n_merged = len(m)
    m = m.dropna(subset=[DESIRE, *covariates]).reset_index(drop=True)
    out = m.rename(columns={DESIRE: "desire"})[["desire", TASK, *covariates]]
    out.attrs.update(n_responses=len(desires), n_unmatched=len(desires) - n_merged, n_dropped_missing=n_merged - len(m))
    return out


def design_matrix(data: pd.DataFrame, covariates=MIXED_MODEL_COVARIATES) -> pd.DataFrame:
    """Intercept + numeric covariates + treatment-coded dummies (reference = first level, sorted)."""
    parts = [pd.Series(1.0, index=data.index, name="Intercept")]
    for c in covariates:
        if c in NUMERIC_COVARIATES:
            parts.append(pd.to_numeric(data[c], errors="raise").astype(float).rename(c))
        else:
            cat = pd.Categorical(data[c].astype(str), categories=sorted(data[c].astype(str).unique()))
            d = pd.get_dummies(cat, prefix=c, prefix_sep="[T.", dtype=float).iloc[:, 1:]
            d.columns = [f"{col}]" for col in d.columns]
            d.index = data.index
            parts.append(d)
    return pd.concat(parts, axis=1)


def fit_mixed_model(data: pd.DataFrame, covariates=MIXED_MODEL_COVARIATES, *, method: str):
    """REML random-intercept model of desire (statsmodels ``MixedLM``), fit with ``method``.

    Returns ``(summary, coefficients, result)``: ``summary`` a dict with sigma_u2, sigma_e2, icc, n_obs,
    n_groups, converged, llf, singular_warning; ``coefficients`` a table term, coef, se, z, p, ci_low,
    ci_high (fixed effects). Every float is rounded to 8 significant digits
    (:func:`compendium.pipeline.results.significant`): BFGS's last digits depend on the BLAS kernel.
    The chapter fits it once per run (:func:`.sections.reliability_section`); Table 1 of the register reads
    that fit.
    """
    require_columns(data, ["desire", TASK, *covariates], "mixed-model data")
    return _fit_mixed_model(data, covariates, method)


def _fit_mixed_model(data: pd.DataFrame, covariates, method: str):
    # imported here: only the workbank_models stage fits the model, and statsmodels' formula machinery costs
    # the workbank stage, which imports this module for the register's alpha values, about 0.2 s
    from statsmodels.regression.mixed_linear_model import MixedLM

    X = design_matrix(data, covariates)
    model = MixedLM(data["desire"].astype(float), X, groups=data[TASK])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = model.fit(reml=True, method=method)
    singular = any("singular" in str(w.message).lower() for w in caught)
    su2 = float(res.cov_re.iloc[0, 0])
    se2 = float(res.scale)
    summary = {
        "sigma_u2": significant(su2),
        "sigma_e2": significant(se2),
        "icc": significant(su2 / (su2 + se2)),
        "n_obs": int(res.nobs),
        "n_groups": int(data[TASK].nunique()),
        "n_fixed": int(X.shape[1]),
        "converged": bool(res.converged),
        "llf": significant(float(res.llf)),
        "singular_warning": singular,
    }
    fe = res.fe_params.index
    ci = res.conf_int().loc[fe]
    coefs = pd.DataFrame(
        {
            "term": fe,
            "coef": significant(res.fe_params.to_numpy()),
            "se": significant(res.bse_fe.to_numpy()),
            "z": significant(res.tvalues.loc[fe].to_numpy()),
            "p": significant(res.pvalues.loc[fe].to_numpy()),
            "ci_low": significant(ci.iloc[:, 0].to_numpy()),
            "ci_high": significant(ci.iloc[:, 1].to_numpy()),
        }
    )
    return summary, coefs, res


def group_var_se(res) -> float:
    """Standard error of the random-intercept variance as statsmodels' summary prints it ("Group Var"),
    rounded to 8 significant digits as the fit's other outputs are (:func:`significant`): its last digits
    follow the BLAS kernel (seen: 0.013881887393862553 with Haswell, ...861767 with SkylakeX), and unrounded
    it made the ``workbank_models`` stage's output, and so ``dvc.lock``, differ between machines."""
    return significant(float(np.asarray(res.bse_re)[0]))


def alpha_authors(ratings: pd.DataFrame, value: str, unit: str = TASK) -> float:
    """Krippendorff's alpha, ordinal, exactly as robustness.ipynb ``compute_krippendorff_alpha``: group the
    rows by task text, take each task's ratings in file order, keep *every* row (repeated rows too), pad
    with NaN to the longest task, pass the slots x tasks matrix, value domain inferred from the data."""
    require_columns(ratings, [unit, value], "ratings for Krippendorff's alpha")
    groups = [g.to_numpy(dtype=float) for _, g in ratings.groupby(unit, sort=True)[value]]
    if not groups:
        raise ValueError("alpha_authors: no ratings")
    width = max(len(g) for g in groups)
    data = np.vstack([np.pad(g, (0, width - len(g)), constant_values=np.nan) for g in groups]).T
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal"))


def alpha_values(desires: pd.DataFrame, experts: pd.DataFrame) -> dict[str, float]:
    """``wb.alpha.*`` by the authors' construction, and ``.variant.dedup_rows`` (the project's earlier
    choice: the 19 repeated expert rows dropped, one value per rater and task)."""
    uniq, _ = drop_repeated_rows(experts)
    v = {}
    for key, df, dd, col in [
        ("expert_capability", experts, uniq, CAPABILITY),
        ("expert_has", experts, uniq, HAS),
        ("worker_desire", desires, desires, DESIRE),
        ("worker_has", desires, desires, HAS),
    ]:
        v[f"wb.alpha.{key}"] = alpha_authors(df, col)
        v[f"wb.alpha.{key}.variant.dedup_rows"] = krippendorff_alpha_ordinal(dd, col)
    return v
