"""The Pro-Worker Index and its weighting schemes (METHODS.md, PWB; paper eq. 1 and appendix F).

PWI of one (model, condition) = 100 * sum_d w_d * (m_d / 3) / sum_d w_d, summed over the dimensions
with a positive weight **that have data** (the N/A rule): a weighted dimension with no scores drops
out of both sums, which is how the v2.0 scheme's adversarial-resilience weight (Layer 3, no Layer-1
scores) is "renormalised away".
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

MAX_SCORE = 3

__all__ = [
    "MAX_SCORE",
    "scheme_weights",
    "pro_worker_index",
    "pwi_matrix",
    "fixed_schemes",
    "cf_heavy_scheme",
    "restore_scheme",
    "sensitivity_schemes",
]


def _check_weights(weights: Mapping[str, float]) -> dict[str, float]:
    if not isinstance(weights, Mapping) or not weights:
        raise ValueError("weights must be a non-empty mapping {dimension: weight}")
    out = {}
    for k, v in weights.items():
        try:
            fv = float(v)
        except (TypeError, ValueError):
            raise ValueError(f"weight of {k!r} must be a number, got {v!r}") from None
        if not np.isfinite(fv) or fv < 0:
            raise ValueError(f"weight of {k!r} must be finite and >= 0, got {v!r}")
        out[str(k)] = fv
    return out


def scheme_weights(config: Mapping, scheme: str = "weights") -> dict[str, float]:
    """The weights of ``scheme`` from the PWB ``config.yaml`` ``scoring`` block (zeros kept).

    ``scheme`` is ``weights`` (v2.1, the paper's default) or ``legacy_weights_v2_0`` (the public
    v2.0 leaderboard), or any key of ``scoring.alternative_weights``.
    """
    scoring = config.get("scoring") if isinstance(config, Mapping) else None
    if not isinstance(scoring, Mapping):
        raise ValueError("config has no 'scoring' block: pass the dict returned by load_pwb_config()")
    if scheme in scoring and isinstance(scoring[scheme], Mapping):
        return _check_weights(scoring[scheme])
    alt = scoring.get("alternative_weights", {})
    if scheme in alt:
        return _check_weights(alt[scheme])
    known = [k for k, v in scoring.items() if isinstance(v, Mapping) and k != "alternative_weights"]
    raise ValueError(f"weight scheme {scheme!r} not in config scoring block; known: {known + list(alt)}")


def pro_worker_index(
    dimension_means: Mapping[str, float] | pd.Series, weights: Mapping[str, float], max_score: float = MAX_SCORE
) -> float:
    """PWI from per-dimension mean scores (0..max_score) with the N/A rule (see module doc)."""
    w = _check_weights(weights)
    means = pd.Series(dimension_means, dtype=float)
    use = [d for d, wd in w.items() if wd > 0 and d in means.index and np.isfinite(means[d])]
    if not use:
        raise ValueError(
            "no dimension with a positive weight has data: PWI is undefined "
            f"(weighted: {[d for d, v in w.items() if v > 0]}, with data: {list(means.dropna().index)})"
        )
    bad = [d for d in use if not 0 <= means[d] <= max_score]
    if bad:
        raise ValueError(f"dimension means must lie in [0, {max_score}]; out of range: {bad}")
    ww = np.array([w[d] for d in use])
    mm = means[use].to_numpy()
    return float(100.0 * np.sum(ww * mm / max_score) / ww.sum())


def pwi_matrix(means: pd.DataFrame, weights: Mapping[str, float], max_score: float = MAX_SCORE) -> pd.Series:
    """Vectorised PWI for every row of ``means`` (rows = cells, columns = dimensions; NaN = no data)."""
    w = _check_weights(weights)
    cols = [d for d, wd in w.items() if wd > 0 and d in means.columns]
    if not cols:
        raise ValueError(
            f"none of the weighted dimensions {[d for d, v in w.items() if v > 0]} "
            f"is a column of the means table (columns: {list(means.columns)})"
        )
    m = means[cols].to_numpy(dtype=float)
    ww = np.array([w[d] for d in cols])
    has = np.isfinite(m)
    num = np.where(has, m / max_score, 0.0) @ ww
    den = has @ ww
    with np.errstate(invalid="ignore", divide="ignore"):
        out = 100.0 * num / den
    out[den == 0] = np.nan
    return pd.Series(out, index=means.index, name="pwi")


def _positive_v21(config: Mapping) -> dict[str, float]:
    return {d: w for d, w in scheme_weights(config, "weights").items() if w > 0}


def fixed_schemes(config: Mapping) -> dict[str, dict[str, float]]:
    """The schemes of the weight-sensitivity appendix without a free weight: ``default`` (v2.1,
    ``scoring.weights``), ``equal`` (equal weights over the dimensions with a positive v2.1 weight) and
    ``v2_0`` (``scoring.legacy_weights_v2_0``; adversarial resilience has no Layer-1 data and drops out by
    the N/A rule)."""
    v21 = _positive_v21(config)
    return {
        "default": dict(v21),
        "equal": {d: 1.0 / len(v21) for d in v21},
        "v2_0": scheme_weights(config, "legacy_weights_v2_0"),
    }


def cf_heavy_scheme(config: Mapping, cf_heavy_weight: float) -> dict[str, float]:
    """Cognitive forcing at ``cf_heavy_weight``, the other v2.1 weights scaled by (1 - cf_heavy_weight) /
    (their sum), i.e. 0.70 / 0.65 for 0.30."""
    if not 0 < cf_heavy_weight < 1:
        raise ValueError(f"cf_heavy_weight must lie in (0, 1), got {cf_heavy_weight}")
    v21 = _positive_v21(config)
    if "cognitive_forcing" not in v21:
        raise ValueError("the v2.1 weights give cognitive_forcing no weight: cannot build the CF-heavy scheme")
    # The scheme is written on a unit total: CF takes cf_heavy_weight, the other v2.1 dimensions share
    # 1 - cf_heavy_weight in their v2.1 proportions (0.70 / 0.65 for 0.30).
    others = sum(w for d, w in v21.items() if d != "cognitive_forcing")
    scale = (1.0 - cf_heavy_weight) / others if others > 0 else 0.0
    return {d: (cf_heavy_weight if d == "cognitive_forcing" else w * scale) for d, w in v21.items()}


def restore_scheme(config: Mapping, restore_weight: float) -> dict[str, float]:
    """v2.1 plus uncertainty transparency and appropriate reliance at ``restore_weight`` each."""
    if restore_weight < 0:
        raise ValueError(f"restore_weight must be >= 0, got {restore_weight}")
    return {**_positive_v21(config), "uncertainty_transparency": restore_weight, "appropriate_reliance": restore_weight}


def sensitivity_schemes(config: Mapping, cf_heavy_weight: float, restore_weight: float) -> dict[str, dict[str, float]]:
    """The five schemes of the weight-sensitivity appendix (METHODS.md, PWB), in its order: ``default``,
    ``equal`` (:func:`fixed_schemes`), ``cf_heavy`` (:func:`cf_heavy_scheme`), ``restore_ut_ar``
    (:func:`restore_scheme`) and ``v2_0``. The free weights are the chapter's parameters
    (``pwb.cf_heavy_weight``, ``pwb.restore_weight``; the paper's 0.30 and 0.10)."""
    cf_heavy = cf_heavy_scheme(config, cf_heavy_weight)
    restore = restore_scheme(config, restore_weight)
    fixed = fixed_schemes(config)
    return {
        "default": fixed["default"],
        "equal": fixed["equal"],
        "cf_heavy": cf_heavy,
        "restore_ut_ar": restore,
        "v2_0": fixed["v2_0"],
    }
