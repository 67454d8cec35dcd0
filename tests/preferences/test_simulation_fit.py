"""The probit reading's fit statistics (issue 33, C8): the deviance is the binomial deviance by hand, and the
top model's sentence follows the fit."""

import numpy as np
import pytest
from scipy import stats

from compendium.preferences import simulation, summary


def _binomial_deviance(k, m, p):
    """2 * sum(k log(k / (m p)) + (m - k) log((m - k) / (m (1 - p)))), 0 log 0 = 0: written from the definition."""
    k, m, p = (np.asarray(a, float) for a in (k, m, p))
    a = np.where(k > 0, k * np.log(np.where(k > 0, k, 1) / (m * p)), 0.0)
    b = np.where(m - k > 0, (m - k) * np.log(np.where(m - k > 0, m - k, 1) / (m * (1 - p))), 0.0)
    return float(2 * (a + b).sum())


def test_the_deviance_is_the_binomial_deviance_of_the_fitted_probit_line():
    ck = np.array([800.0, 900, 1000, 1100, 1200, 1300])
    m = 5000
    k = np.array([4300, 4480, 4600, 4700, 4770, 4830])
    res = simulation.probit_crossing(k, m, ck, 0.95)

    # the probit line fitted by maximum likelihood here (scipy's Nelder-Mead), independently of statsmodels
    def nll(b):
        p = np.clip(stats.norm.cdf(b[0] + b[1] * np.log(ck)), 1e-12, 1 - 1e-12)
        return -(k * np.log(p) + (m - k) * np.log(1 - p)).sum()

    from scipy.optimize import minimize

    b = minimize(
        nll, x0=[-10.0, 1.7], method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-10, "maxiter": 20000}
    ).x
    dev = _binomial_deviance(k, m, stats.norm.cdf(b[0] + b[1] * np.log(ck)))
    assert res["df"] == 4
    assert res["deviance"] == pytest.approx(dev, rel=1e-4, abs=1e-6)
    assert res["n"] == pytest.approx(np.exp((stats.norm.ppf(0.95) - b[0]) / b[1]), rel=1e-4)


def _values(deviance, df=7, linear=10604.0):
    key = "pref_mc.uniform.n_for_top"
    return {key: 10615.9, f"{key}_mc_se": 72.9, f"{key}_deviance": deviance, f"{key}_df": df,
            f"{key}_linear": linear, "pref_mc.ratio": 1.06}  # fmt: skip


def test_the_top_model_sentence_follows_the_fit():
    ok = summary.top_fit_text(_values(7.65))
    assert "describes the curve within its binomial noise (deviance 7.7 on 7 degrees of freedom, p = 0.36)" in ok
    assert "(6 % apart) reads it at 10,600" in ok and "holds the reading's whole uncertainty" in ok
    bad = summary.top_fit_text(_values(40.0))
    assert "does not describe" in bad and "adds an error the interval omits" in bad and "whole" not in bad
    assert summary.top_fit_text({"pref_mc.uniform.n_for_top": 1.0}) == ""
