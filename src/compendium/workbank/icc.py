"""The unconditional intraclass correlation of a random-intercept model, by exact REML.

The paper's Table 1 ICC (:func:`compendium.workbank.reliability.fit_mixed_model`) is conditional on
22 covariates. The same model without covariates, y_ij = mu + u_i + e_ij, has a one-dimensional REML
profile likelihood in the variance ratio lambda = sigma_u^2 / sigma_e^2, which we minimise directly
(statsmodels' optimisers disagree with each other on this fit: BFGS stops unconverged, L-BFGS at 0).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import optimize

__all__ = ["icc_reml_intercept_only"]


def icc_reml_intercept_only(y, groups) -> dict[str, float]:
    """REML fit of ``y = mu + u_group + e``: returns ``sigma_u2``, ``sigma_e2``, ``icc``, ``mu``, ``n``.

    For group i with n_i observations and mean ybar_i, with w_i = n_i / (1 + n_i lambda),
    mu(lambda) = sum w_i ybar_i / sum w_i and Q(lambda) = sum_ij (y_ij - ybar_i)^2 + sum_i w_i (ybar_i - mu)^2,
    minus twice the REML log-likelihood profiled over sigma_e^2 = Q / (N - 1) is
    (N - 1) log Q + sum_i log(1 + n_i lambda) + log sum_i w_i (+ constant).
    """
    y = np.asarray(y, dtype=float)
    g = np.asarray(groups)
    if y.shape != g.shape or y.size < 3 or np.isnan(y).any():
        raise ValueError("icc_reml_intercept_only: y and groups must be equal-length, free of NaN, with >= 3 rows")
    codes, _ = pd.factorize(pd.Series(g))
    n = np.bincount(codes).astype(float)
    if n.size < 2:
        raise ValueError("icc_reml_intercept_only: need at least two groups")
    ybar = np.bincount(codes, weights=y) / n
    ssw = float(((y - ybar[codes]) ** 2).sum())
    N = y.size

    def parts(lam):
        w = n / (1.0 + n * lam)
        mu = float((w * ybar).sum() / w.sum())
        q = ssw + float((w * (ybar - mu) ** 2).sum())
        return w, mu, q

    def neg2(log_lam):
        lam = np.exp(log_lam)
        w, _, q = parts(lam)
        return (N - 1) * np.log(q) + np.log1p(n * lam).sum() + np.log(w.sum())

    res = optimize.minimize_scalar(neg2, bounds=(-20.0, 10.0), method="bounded", options={"xatol": 1e-10})
    lam = float(np.exp(res.x))
    if neg2(-20.0) <= res.fun:  # boundary: no between-group variance
        lam = 0.0
    _, mu, q = parts(lam)
    se2 = q / (N - 1)
    return {"sigma_u2": lam * se2, "sigma_e2": se2, "icc": lam / (1.0 + lam), "mu": mu, "n": int(N)}
