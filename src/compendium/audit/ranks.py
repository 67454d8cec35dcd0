"""Can the leaderboards' orders be trusted? Tie groups at a simultaneous level, and one Bradley-Terry order or not.

Two leaderboards are audited: the human-preference study's five models ranked by Bradley-Terry from ten pairwise
counts, and the PWB leaderboard's seven models ranked by the Pro-Worker Index in each condition. A published order
reads every adjacent gap as real; these functions say which gaps the data carry when all the comparisons that an
order makes are controlled together ("audit a pairwise leaderboard before you trust its order", the idea of the
``arenakit`` package), and whether one strength per model describes who beats whom at all.

* :func:`tie_groups`: simultaneous confidence intervals for all ``K(K-1)/2`` pairwise differences (single-step
  max-|t|), the tie groups of adjacent models they cannot separate, and each model's simultaneous rank interval
  (Klein, Wright & Wieczorek 2020). Fed by :func:`bt_estimates` (the pairwise leaderboard: log-strengths and their
  asymptotic covariance), :func:`pwi_estimates` (the PWB leaderboard from its printed intervals: a normal
  approximation with independent models), or bootstrap draws (``draws``: the PWB leaderboard when its per-instance
  data are present, the draws' joint distribution).
* :func:`transitivity_test`: the deviance of the Bradley-Terry fit against the saturated model (each pair its own
  probability), its chi-square and parametric-bootstrap p-values, the circular triads of the majority tournament,
  and the power of the test against a planted three-model cycle.

Everything here is a pure function of DataFrames and arrays; nothing reads a file. Every simulation draws from its
own stream, ``np.random.default_rng([seed, k])`` with the ``k`` its docstring states. The simulations multiply
matrices elementwise (no BLAS): the critical values and p-values are then the same bytes on every machine.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..data.errors import require_columns
from ..stats import pairwise as pw

__all__ = [
    "tie_groups",
    "bt_estimates",
    "pwi_estimates",
    "transitivity_test",
    "PWI_CI_LEVEL",
    "PWI_Z",
    "POWER_TARGET",
    "TIE_GROUP_COLUMNS",
    "POWER_COLUMNS",
]

#: the level of the bundled PWB intervals (``pwi_scores.csv``'s CI_lower, CI_upper: bootstrap percentile 95 %)
PWI_CI_LEVEL = 0.95
#: the normal quantile that turns one of those intervals' width into a standard error, ``z_0.975``
PWI_Z = float(stats.norm.ppf(1.0 - (1.0 - PWI_CI_LEVEL) / 2.0))
#: the power a detectable cycle must reach (the audit's minimum detectable effects are at 80 % power)
POWER_TARGET = 0.80

#: the columns of :func:`tie_groups`, one row per model, best first
TIE_GROUP_COLUMNS = (
    "model",
    "estimate",
    "se",
    "rank",
    "rank_lo",
    "rank_hi",
    "group",
    "separable_from_next",
    "diff_next",
    "diff_next_se",
    "diff_next_lo",
    "diff_next_hi",
    "critical_value",
    "critical_value_mc_se",
    "mc_stable",
    "level",
    "method",
)
#: the columns of :func:`transitivity_test`'s power grid
POWER_COLUMNS = ("p_cycle", "power", "power_mc_se", "power_chi2")

#: the random streams (``np.random.default_rng([seed, k])``), one fixed k per task
_K_MAXT = 1  # tie_groups: the multivariate-normal max-|t| simulation
_K_NULL = 2  # transitivity_test: the parametric bootstrap under the fitted Bradley-Terry model
_K_POWER = 3  # transitivity_test: the planted cycles (one stream shared by the grid: common random numbers)

#: a verdict is Monte-Carlo stable when its |t| is this many MC standard errors of the critical value away from it
_MC_MARGIN = 3.0

_BT_TOL = 1e-10
_BT_MAX_ITER = 100_000


# ----------------------------------------------------------------------------------------------
# Tie groups and simultaneous rank intervals
# ----------------------------------------------------------------------------------------------


def tie_groups(
    names: Sequence[str],
    estimates,
    cov=None,
    draws=None,
    *,
    level: float,
    seed: int,
    n_sims: int,
) -> pd.DataFrame:
    """Which adjacent places of a leaderboard the data separate, all comparisons controlled together.

    **Method: single-step max-|t| simultaneous confidence intervals for all pairwise differences** (Tukey's
    all-pairs comparisons generalised to a correlated estimate, Hothorn, Bretz & Westfall 2008, "Simultaneous
    inference in general parametric models"; with bootstrap draws the studentised max-t of Romano & Wolf 2005),
    then **tie groups of adjacent models** and **simultaneous rank intervals** (Klein, Wright & Wieczorek 2020,
    "A joint confidence region for an overall ranking of populations", JRSS C 69(3)).

    For every pair ``i < j`` of the ``K`` models the difference ``d_ij = est_i - est_j`` gets the interval
    ``d_ij -/+ c se_ij``, where ``c`` is the ``level`` quantile of ``max_ij |d*_ij - d_ij| / se_ij`` over all
    ``K(K-1)/2`` pairs, so that all the intervals hold together with probability ``level``:

    * ``cov`` given (a ``(K, K)`` covariance of the estimates, singular allowed as long as every contrast has a
      positive variance, e.g. sum-to-zero Bradley-Terry log-strengths): ``se_ij^2 = cov_ii + cov_jj - 2 cov_ij``
      and ``c`` is the multivariate-normal quantile, simulated with ``n_sims`` draws from stream
      ``default_rng([seed, 1])``;
    * ``draws`` given (an ``(n_boot, K)`` matrix of bootstrap replicates of the estimates, e.g. PWB's per-model
      bootstraps stacked): ``se_ij`` is the standard deviation of ``draw_i - draw_j`` over the draws and ``c`` the
      ``level`` quantile of the studentised max over the draws themselves (``seed`` and ``n_sims`` are then
      unused: the draws are the simulation). Exactly one of ``cov`` and ``draws``.

    The quantile is the order statistic ``ceil(level n)`` of the ``n`` simulated maxima; its Monte-Carlo standard
    error (``critical_value_mc_se``) is half the distance between the order statistics ``n level -/+
    sqrt(n level (1 - level))`` (the binomial spread of the count below the true quantile, mapped through the
    simulated distribution: distribution-free, no density estimate).

    Models are ordered by estimate, largest first (a tie in the estimates keeps the given order: stable sort);
    ``rank`` is that position. Two adjacent models are **separable** when the simultaneous interval of their
    difference excludes 0; a **tie group** is a maximal run of adjacent models with no separable step (numbered
    ``1, 2, ...`` from the top). Each model's **simultaneous rank interval** is ``rank_lo = 1 + #{j: the interval
    of est_j - est_i lies above 0}``, ``rank_hi = K - #{j: the interval of est_i - est_j lies above 0}``: the
    ranks compatible with all the intervals, which hold for all ``K`` models jointly with probability at least
    ``level`` (Klein et al.'s Theorem). The groups use only the adjacent intervals, the rank intervals all of
    them, so a model can be separated from a non-neighbour inside a group's reach.

    Written by hand: statsmodels' Tukey HSD assumes independent groups with a common variance (here the
    estimates are correlated and their variances differ), and no installed library gives Klein et al.'s joint
    rank intervals. ``arenakit`` takes the max over the K-1 *adjacent* gaps only (chosen by the same data) and
    gives marginal bootstrap rank intervals; the max over all pairs here is the conservative, fully simultaneous
    version.

    Returns one row per model, best first, with the columns :data:`TIE_GROUP_COLUMNS`: ``model``, ``estimate``,
    ``se`` (its marginal standard error), ``rank``, ``rank_lo``, ``rank_hi``, ``group``, ``separable_from_next``,
    ``diff_next`` (estimate minus the next model's; NaN for the last), ``diff_next_se``, ``diff_next_lo``,
    ``diff_next_hi`` (its simultaneous interval), ``critical_value`` (``c``), ``critical_value_mc_se``,
    ``mc_stable`` (True when every pair that involves the model has ``|d_ij| / se_ij`` more than 3 Monte-Carlo SEs
    of ``c`` away from it: its rank interval and its step to the next model stand at any seed), ``level`` and ``method`` (``"normal"`` or
    ``"bootstrap"``).
    """
    names = [str(m) for m in names]
    est = np.asarray(estimates, dtype=float)
    K = len(names)
    if est.shape != (K,):
        raise ValueError(f"tie_groups: estimates must have one value per model ({K}), got shape {est.shape}")
    if K < 2:
        raise ValueError(f"tie_groups: a leaderboard needs at least two models, got {K}")
    if len(set(names)) != K:
        raise ValueError(f"tie_groups: model names must be distinct, got {names}")
    if not np.all(np.isfinite(est)):
        raise ValueError("tie_groups: every estimate must be a finite number")
    _check_level(level, "tie_groups")
    if (cov is None) == (draws is None):
        raise ValueError("tie_groups: give exactly one of cov (a normal approximation) and draws (bootstrap draws)")
    i, j = pw.pair_index(K)
    d_hat = est[i] - est[j]
    if cov is not None:
        S = np.asarray(cov, dtype=float)
        if S.shape != (K, K) or not np.all(np.isfinite(S)):
            raise ValueError(f"tie_groups: cov must be a finite ({K}, {K}) matrix, got shape {S.shape}")
        if not np.allclose(S, S.T, rtol=1e-10, atol=1e-14):
            raise ValueError("tie_groups: cov must be symmetric")
        _check_sims(n_sims, "tie_groups")
        se_pair = np.sqrt(np.clip(S[i, i] + S[j, j] - 2.0 * S[i, j], 0.0, None))
        if np.any(se_pair <= 0):
            k = int(np.argmin(se_pair))
            raise ValueError(
                f"tie_groups: the difference {names[i[k]]} - {names[j[k]]} has no variance under cov; "
                "give a covariance in which every difference of two models varies"
            )
        maxima = _maxt_normal(S, se_pair, n_sims, np.random.default_rng([seed, _K_MAXT]))
        se_model = np.sqrt(np.clip(np.diag(S), 0.0, None))
        method = "normal"
    else:
        D = np.asarray(draws, dtype=float)
        if D.ndim != 2 or D.shape[1] != K:
            raise ValueError(f"tie_groups: draws must be an (n_boot, {K}) matrix, got shape {D.shape}")
        if D.shape[0] < 2 or not np.all(np.isfinite(D)):
            raise ValueError("tie_groups: draws must hold at least two rows of finite numbers")
        diffs = D[:, i] - D[:, j]
        se_pair = diffs.std(axis=0, ddof=1)
        if np.any(se_pair <= 0):
            k = int(np.argmin(se_pair))
            raise ValueError(
                f"tie_groups: the difference {names[i[k]]} - {names[j[k]]} does not vary over the draws; "
                "give draws of a resampling in which every difference of two models varies"
            )
        maxima = (np.abs(diffs - d_hat) / se_pair).max(axis=1)
        se_model = D.std(axis=0, ddof=1)
        method = "bootstrap"
    crit, crit_se = _quantile_with_mc_se(maxima, level)
    lo_pair, hi_pair = d_hat - crit * se_pair, d_hat + crit * se_pair
    # a pair's verdict (its interval excludes 0 or not) stands at any seed when its |t| is not within 3 MC SEs of c
    near = np.abs(np.abs(d_hat) / se_pair - crit) <= _MC_MARGIN * crit_se
    unstable = np.zeros(K, dtype=bool)
    np.logical_or.at(unstable, i, near)
    np.logical_or.at(unstable, j, near)

    # every ordered pair's verdict: above[a, b] = the interval of est_a - est_b lies above 0
    above = np.zeros((K, K), dtype=bool)
    above[i, j] = lo_pair > 0
    above[j, i] = hi_pair < 0
    order = np.argsort(-est, kind="stable")
    rank_lo = 1 + above.sum(axis=0)  # the models surely above
    rank_hi = K - above.sum(axis=1)  # minus the models surely below

    pos = {(int(a), int(b)): k for k, (a, b) in enumerate(zip(i, j))}
    rows = []
    group = 1
    for r, m in enumerate(order):
        row: dict[str, Any] = {
            "model": names[m],
            "estimate": float(est[m]),
            "se": float(se_model[m]),
            "rank": r + 1,
            "rank_lo": int(rank_lo[m]),
            "rank_hi": int(rank_hi[m]),
            "group": group,
        }
        if r + 1 < K:
            nxt = order[r + 1]
            k = pos[(min(m, nxt), max(m, nxt))]
            sign = 1.0 if m < nxt else -1.0  # the pair table holds est_i - est_j for i < j
            dn = sign * d_hat[k]
            lo, hi = (lo_pair[k], hi_pair[k]) if sign > 0 else (-hi_pair[k], -lo_pair[k])
            sep = bool(lo > 0 or hi < 0)
            row.update(
                separable_from_next=sep,
                diff_next=float(dn),
                diff_next_se=float(se_pair[k]),
                diff_next_lo=float(lo),
                diff_next_hi=float(hi),
            )
            group += int(sep)
        else:
            row.update(
                separable_from_next=False,
                diff_next=np.nan,
                diff_next_se=np.nan,
                diff_next_lo=np.nan,
                diff_next_hi=np.nan,
            )
        row.update(
            critical_value=crit,
            critical_value_mc_se=crit_se,
            mc_stable=not bool(unstable[m]),
            level=float(level),
            method=method,
        )
        rows.append(row)
    return pd.DataFrame(rows, columns=list(TIE_GROUP_COLUMNS))


def _maxt_normal(S: np.ndarray, se_pair: np.ndarray, n_sims: int, rng: np.random.Generator) -> np.ndarray:
    """``n_sims`` draws of ``max_ij |x_i - x_j| / se_ij`` for ``x ~ N(0, S)``.

    Only differences matter, so ``x`` is drawn as the differences from the last model, ``y = L z`` with ``L`` the
    Cholesky factor of their covariance ``A S A'`` (positive definite when every contrast varies, also for a
    singular sum-to-zero ``S``), and ``x = (y, 0)``. The factor and the product are elementwise numpy (no LAPACK,
    no BLAS), so the maxima are the same bytes on every machine."""
    K = S.shape[0]
    A = np.hstack([np.eye(K - 1), -np.ones((K - 1, 1))])
    C = (A[:, :, None] * S[None, :, :]).sum(1)
    C = (C[:, :, None] * A.T[None, :, :]).sum(1)
    L = _cholesky(C)
    z = rng.standard_normal((n_sims, K - 1))
    y = (z[:, None, :] * L[None, :, :]).sum(-1)
    x = np.hstack([y, np.zeros((n_sims, 1))])
    i, j = pw.pair_index(K)
    return (np.abs(x[:, i] - x[:, j]) / se_pair).max(axis=1)


def _cholesky(C: np.ndarray) -> np.ndarray:
    """Lower Cholesky factor of a small positive-definite matrix, in plain numpy arithmetic (see
    :func:`_maxt_normal`). Raises ValueError naming the failing pivot when ``C`` is not positive definite."""
    n = C.shape[0]
    L = np.zeros_like(C)
    for k in range(n):
        piv = C[k, k] - np.sum(L[k, :k] * L[k, :k])
        if not piv > 1e-14 * max(1.0, float(np.max(np.abs(np.diag(C))))):
            raise ValueError(
                "tie_groups: cov is singular on the differences between models (a combination of differences has "
                "no variance); give a covariance in which every contrast of the models varies"
            )
        L[k, k] = math.sqrt(piv)
        for r in range(k + 1, n):
            L[r, k] = (C[r, k] - np.sum(L[r, :k] * L[k, :k])) / L[k, k]
    return L


def _quantile_with_mc_se(x: np.ndarray, level: float) -> tuple[float, float]:
    """The ``level`` quantile of a simulated sample (order statistic ``ceil(level n)``, numpy's
    ``inverted_cdf``) and its Monte-Carlo standard error: half the distance between the order statistics at
    ``n level -/+ sqrt(n level (1 - level))``, i.e. one binomial standard deviation of the count below the
    quantile either side (the distribution-free interval for a quantile, Conover 1999, section 3.2, at z = 1)."""
    s = np.sort(np.asarray(x, dtype=float))
    n = s.size
    k = min(n, max(1, math.ceil(level * n))) - 1
    h = math.sqrt(n * level * (1.0 - level))
    lo = min(n - 1, max(0, math.floor(level * n - h) - 1))
    hi = min(n - 1, max(0, math.ceil(level * n + h) - 1))
    return float(s[k]), float((s[hi] - s[lo]) / 2.0)


# ----------------------------------------------------------------------------------------------
# The two leaderboards' estimates
# ----------------------------------------------------------------------------------------------

_COUNT_COLUMNS = ("model_x", "model_y", "x_wins", "y_wins", "ties", "n")


def _pair_arrays(counts: pd.DataFrame, what: str):
    """Check a pair-count table (any model ids) and return ``names, i, j, x_wins, y_wins, ties, n``.

    ``names`` in order of first appearance (row by row, ``model_x`` before ``model_y``). Raises ValueError naming
    the row and the column for a model paired with itself, a count that is not a non-negative whole number,
    ``n != x_wins + y_wins + ties``, or a pair listed twice."""
    require_columns(counts, _COUNT_COLUMNS, what)
    df = counts.reset_index(drop=True)
    for c in ("x_wins", "y_wins", "ties", "n"):
        v = pd.to_numeric(df[c], errors="coerce")
        bad = v.isna() | (v < 0) | (v != np.floor(v))
        if bad.any():
            r = int(np.flatnonzero(bad.to_numpy())[0])
            raise ValueError(
                f"{what}: row {r} ({df.at[r, 'model_x']} vs {df.at[r, 'model_y']}), column {c!r} is "
                f"'{df.at[r, c]}'; counts must be non-negative whole numbers"
            )
    a, b, t, n = (df[c].to_numpy(dtype=float) for c in ("x_wins", "y_wins", "ties", "n"))
    bad = np.flatnonzero(a + b + t != n)
    if bad.size:
        r = int(bad[0])
        raise ValueError(
            f"{what}: row {r} ({df.at[r, 'model_x']} vs {df.at[r, 'model_y']}), column 'n' is {int(n[r])} but "
            f"x_wins + y_wins + ties = {int(a[r] + b[r] + t[r])}; correct the counts so that they add up"
        )
    names: list[str] = []
    for x, y in zip(df["model_x"].astype(str), df["model_y"].astype(str)):
        for m in (x, y):
            if m not in names:
                names.append(m)
    pos = {m: k for k, m in enumerate(names)}
    i = df["model_x"].astype(str).map(pos).to_numpy()
    j = df["model_y"].astype(str).map(pos).to_numpy()
    if np.any(i == j):
        r = int(np.flatnonzero(i == j)[0])
        raise ValueError(f"{what}: row {r} compares {df.at[r, 'model_x']} with itself; drop the row")
    seen: dict[tuple[int, int], int] = {}
    for r, key in enumerate(zip(np.minimum(i, j), np.maximum(i, j))):
        if key in seen:
            raise ValueError(
                f"{what}: rows {seen[key]} and {r} both count {names[key[0]]} vs {names[key[1]]}; add them into one row"
            )
        seen[key] = r
    return names, i, j, a, b, t, n


def _fit_bt(W: np.ndarray, what: str) -> np.ndarray:
    """Bradley-Terry maximum-likelihood strengths (sum ``K``) of a stack of win matrices, by the study's MM update
    (:func:`compendium.stats.pairwise.bradley_terry_mm`) run to ``tol`` 1e-10 rather than the published 1e-6: a
    deviance needs the optimum, not the published digits. Raises when a fit does not converge (a model that wins
    or loses all its comparisons has no finite strength)."""
    res = pw.bradley_terry_mm(W, tol=_BT_TOL, max_iter=_BT_MAX_ITER)
    if not np.all(res.converged):
        raise RuntimeError(
            f"{what}: {int(np.size(res.converged) - np.sum(res.converged))} Bradley-Terry fit(s) did not converge "
            "(a model won or lost every comparison, so its strength is infinite); more judgements per pair avoid it"
        )
    return res.strengths


def bt_estimates(counts: pd.DataFrame, tie_weight: float) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The pairwise leaderboard's estimates for :func:`tie_groups`: Bradley-Terry log-strengths and their covariance.

    ``counts``: one row per pair, columns ``model_x, model_y, x_wins, y_wins, ties, n`` (the study's
    ``published_pair_counts.csv``; any model ids). The win matrix gives a tie ``tie_weight`` of a win to each side
    (the study's 0.5, :func:`compendium.stats.pairwise.win_matrix_from_counts`); the strengths are the maximum
    likelihood fit of the study's MM update run to convergence (``tol`` 1e-10). Strengths are identified only up to
    a common factor, so the log-strengths are **identified by sum-to-zero** (centred) and ``cov`` is the inverse
    Fisher information on that subspace (the Moore-Penrose inverse of the information, as
    :func:`compendium.stats.pairwise.bradley_terry_log_covariance`, computed as ``(I + J/K)^-1 - J/K`` with ``J`` the
    all-ones matrix, elementwise: the same bytes on every machine). Differences of log-strengths, all that the tie
    groups use, do not depend on the identification.

    With ties split, a tie counts as one comparison in the information, i.e. the binomial variance of a judgement
    scored 1, 1/2 or 0, which overstates the variance of a half-win score (a tie has none): the intervals are then
    somewhat conservative, never too narrow.

    Returns ``(names, log_strengths, cov)``: names in order of first appearance in the table.
    """
    what = "pair counts"
    names, i, j, a, b, t, _ = _pair_arrays(counts, what)
    _check_tie_weight(tie_weight)
    K = len(names)
    W = pw.win_matrix_from_counts(i, j, a, b, t, K, tie_weight=tie_weight)
    s = _fit_bt(W, what)
    theta = np.log(s)
    theta = theta - theta.mean()
    N = (W + W.T) * (1.0 - np.eye(K))
    P = s[:, None] / (s[:, None] + s[None, :])
    A = N * P * P.T
    info = np.eye(K) * A.sum(1)[None, :] - A
    J = np.full((K, K), 1.0 / K)
    cov = pw.spd_inverse(info + J) - J
    return names, theta, (cov + cov.T) / 2.0


def pwi_estimates(pwi_scores: pd.DataFrame, variant: str, z: float) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The PWB leaderboard's estimates for :func:`tie_groups` from its printed intervals: a normal approximation.

    ``pwi_scores``: columns ``Model, Variant, PWI, CI_lower, CI_upper`` (``pwi_scores.csv``); the rows of ``variant``
    (``baseline`` or ``with_system_prompt``) are the leaderboard. With the bundled data only the intervals are
    available, so each model's standard error is read off its interval's width, ``SE = (CI_upper - CI_lower) /
    (2 z)`` (``z`` the normal quantile of the intervals' level: :data:`PWI_Z` for the bundled bootstrap percentile
    95 % intervals), and the **models are taken as independent** (a diagonal covariance): each model's bootstrap
    resamples its own responses. If the models answered the same prompts, their estimates are positively correlated
    and independence overstates the variance of a difference: the groups are then conservative (too coarse, never too
    fine). A percentile interval need not be symmetric; the width averages its two halves.
    When the per-instance data are present, pass the bootstrap draws to :func:`tie_groups` instead.

    Returns ``(names, estimates, cov)`` in the file's order. Raises ValueError naming the row and the column for an
    unknown variant, a model listed twice, a missing number or an interval of no width.
    """
    what = "PWI scores"
    require_columns(pwi_scores, ("Model", "Variant", "PWI", "CI_lower", "CI_upper"), what)
    if not (np.isfinite(z) and z > 0):
        raise ValueError(f"pwi_estimates: z must be a positive normal quantile (e.g. {PWI_Z:.4f}), got {z!r}")
    df = pwi_scores.reset_index(drop=True)
    rows = df[df["Variant"].astype(str) == str(variant)]
    if rows.empty:
        raise ValueError(
            f"{what}: no row has Variant {variant!r}; the file has {sorted(df['Variant'].astype(str).unique())}"
        )
    dup = rows["Model"].astype(str).duplicated()
    if dup.any():
        r = int(rows.index[dup.to_numpy()][0])
        raise ValueError(f"{what}: row {r} lists Model {df.at[r, 'Model']!r} a second time for Variant {variant!r}")
    vals = {c: pd.to_numeric(rows[c], errors="coerce").to_numpy(dtype=float) for c in ("PWI", "CI_lower", "CI_upper")}
    for c, v in vals.items():
        if not np.all(np.isfinite(v)):
            r = int(rows.index[~np.isfinite(v)][0])
            raise ValueError(f"{what}: row {r} ({df.at[r, 'Model']}, {variant}), column {c!r} is not a number")
    width = vals["CI_upper"] - vals["CI_lower"]
    if np.any(width <= 0):
        r = int(rows.index[width <= 0][0])
        raise ValueError(
            f"{what}: row {r} ({df.at[r, 'Model']}, {variant}) has CI_upper <= CI_lower; an interval of no width "
            "gives no standard error"
        )
    se = width / (2.0 * z)
    return rows["Model"].astype(str).tolist(), vals["PWI"], np.diag(se**2)


# ----------------------------------------------------------------------------------------------
# One Bradley-Terry order or not: the deviance test, circular triads, power against a cycle
# ----------------------------------------------------------------------------------------------


def _deviance(W: np.ndarray, s: np.ndarray) -> np.ndarray:
    """``G^2 = 2 sum_{i != j} W_ij log(W_ij / (N_ij p_ij))`` of Bradley-Terry strengths ``s`` against the saturated
    model (each pair its own probability ``W_ij / N_ij``), ``N = W + W'``, ``0 log 0 = 0``; batch axes allowed."""
    K = W.shape[-1]
    off = 1.0 - np.eye(K)
    W = W * off
    N = W + np.swapaxes(W, -1, -2)
    P = s[..., :, None] / (s[..., :, None] + s[..., None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(W > 0, W * np.log(W / (N * P)), 0.0)
    return 2.0 * (term * off).sum(axis=(-2, -1))


def _simulate_counts(prob, n, ties, tie_weight, u):
    """Decisive wins of each pair's first model given uniforms ``u`` (batch, P): the ties fixed at the observed
    count, the ``m = n - t`` decisive judgements binomial with the probability ``q`` that makes the expected
    weighted score ``prob`` (``q = (prob (m + 2 w t) - w t) / m``, clipped to [0, 1]), drawn by inversion
    (``binom.ppf(u)``) so that one set of uniforms serves every probability (common random numbers)."""
    m = n - ties
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(m > 0, (prob * (m + 2.0 * tie_weight * ties) - tie_weight * ties) / m, 0.0)
    q = np.clip(q, 0.0, 1.0)
    a = np.maximum(stats.binom.ppf(u, m, q), 0.0)  # ppf(0) is -1 by scipy's convention (u = 0 has probability 2^-53)
    return np.where(m > 0, a, 0.0), m


def _circular_triads(W: np.ndarray, names: list[str]) -> list[tuple[str, str, str]]:
    """The directed 3-cycles of the majority tournament (``i -> j`` when ``W_ij > W_ji``; an even pair has no
    arrow), each written from its first model in ``names`` order."""
    K = W.shape[0]
    beats = W > W.T
    out = []
    for a, b, c in combinations(range(K), 3):
        if beats[a, b] and beats[b, c] and beats[c, a]:
            out.append((names[a], names[b], names[c]))
        elif beats[a, c] and beats[c, b] and beats[b, a]:
            out.append((names[a], names[c], names[b]))
    return out


def transitivity_test(
    counts: pd.DataFrame,
    *,
    tie_weight: float,
    n_sims: int,
    seed: int,
    level: float,
    p_cycle: Sequence[float],
    cycle: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Is the table of pairwise results consistent with one Bradley-Terry order? A goodness-of-fit test and its power.

    **The test.** The likelihood-ratio (deviance) statistic of the Bradley-Terry fit against the saturated model,
    in which each of the ``P`` pairs has its own probability: ``G^2 = 2 sum_{i != j} W_ij log(W_ij / (N_ij
    p_ij))``, ``df = P - (K - 1)`` (6 for five models and ten pairs; Agresti 2013, *Categorical Data Analysis*,
    section 11.6.3). Ties are handled as the study's Bradley-Terry does: a tie gives ``tie_weight`` of a win to each
    side (the study's 0.5: a tie is half a win), and ``W`` holds these weighted scores. Two p-values:

    * ``p_chi2``: the chi-square reference ``chi2.sf(G^2, df)``. With split ties it is conservative: a tie's half
      is not a coin flip, so the weighted scores vary less than the binomial the chi-square assumes;
    * ``p_boot``: a parametric bootstrap, ``(1 + #{G*^2 >= G^2}) / (1 + n_sims)`` over ``n_sims`` tables simulated
      from the fitted model with each pair's ``n`` and its observed ties fixed, the decisive judgements binomial
      with the probability that makes the expected weighted score the fitted ``p_ij`` (stream
      ``default_rng([seed, 2])``); each table is refitted. It is the p-value to read; ``p_boot_mc_se`` is its
      Monte-Carlo standard error ``sqrt(p (1 - p) / n_sims)``.

    **A descriptive.** The circular triads of the observed majority tournament (``i -> j`` when ``i`` scored more
    against ``j``), counted directly over the ``C(K, 3)`` triples (Kendall & Babington Smith 1940, "On the method
    of paired comparisons", Biometrika 31; with no even pair the count is ``C(K,3) - sum_i C(s_i, 2)``), with the
    maximum possible ``(K^3 - K) / 24`` for odd ``K`` (``(K^3 - 4K) / 24`` for even) and Kendall's coefficient of
    consistency ``zeta = 1 - triads / max``.

    **The power.** How strong a cycle would the test see? The truth is a three-model cycle ``A > B > C > A`` in
    which each beats the next with probability ``p_cycle`` (every other pair at the fitted Bradley-Terry
    probability); ``cycle`` names ``(A, B, C)``, by default the three best models of the fit in rank order (the
    order the leaderboard's top is read in). Tables are simulated as above (stream ``default_rng([seed, 3])``, the
    same uniforms for every ``p_cycle``: common random numbers) and the test rejects when ``G^2`` exceeds the
    ``level`` quantile of the bootstrap's null ``G*^2`` (the bootstrap test at ``1 - level``; ``power_chi2`` uses
    the chi-square quantile instead). ``mdc`` (minimum detectable cycle) is the smallest ``p_cycle`` of the grid with
    power at least :data:`POWER_TARGET` (NaN when none reaches it).

    Written by hand: the deviance of a Bradley-Terry fit is that of a binomial logit GLM on the pair design (the
    test checks it against statsmodels), but statsmodels fits one table at a time and the bootstrap and the power
    need ``n_sims`` refits at once (the study's MM update is vectorised over tables).

    Returns a dict: ``G2``, ``df``, ``p_chi2``, ``p_boot``, ``p_boot_mc_se``, ``critical_boot`` (the bootstrap's
    ``level`` quantile of G^2) and ``critical_boot_mc_se``, ``critical_chi2``, ``n_sims``, ``level``,
    ``tie_weight``, ``circular_triads``, ``max_circular_triads``, ``consistency_zeta``, ``triads`` (the cyclic
    triples, a tuple of name triples), ``cycle`` (the three models of the planted cycle), ``power`` (a DataFrame
    with :data:`POWER_COLUMNS`: ``p_cycle``, ``power``, ``power_mc_se``, ``power_chi2``), ``mdc``, ``power_target``.
    """
    what = "pair counts"
    names, i, j, a, b, t, n = _pair_arrays(counts, what)
    _check_tie_weight(tie_weight)
    _check_level(level, "transitivity_test")
    _check_sims(n_sims, "transitivity_test")
    K = len(names)
    P = len(i)
    df = P - (K - 1)
    if df < 1:
        raise ValueError(
            f"transitivity_test: {P} pairs of {K} models leave no degree of freedom for a test of fit "
            f"(df = pairs - (models - 1) = {df}); a table needs more pairs than a tree of its models"
        )
    grid = np.asarray(list(p_cycle), dtype=float)
    if grid.ndim != 1 or np.any(~(grid > 0.5)) or np.any(~(grid < 1.0)):
        raise ValueError(f"transitivity_test: every p_cycle must lie strictly between 0.5 and 1, got {list(p_cycle)}")

    W = pw.win_matrix_from_counts(i, j, a, b, t, K, tie_weight=tie_weight)
    s = _fit_bt(W, what)
    G2 = float(_deviance(W, s))
    p_fit = s[i] / (s[i] + s[j])

    def table_g2(prob, u):
        x, m = _simulate_counts(prob, n, t, tie_weight, u)
        Ws = pw.win_matrix_from_counts(i, j, x, m - x, np.broadcast_to(t, x.shape), K, tie_weight=tie_weight)
        return _deviance(Ws, _fit_bt(Ws, "transitivity_test (a simulated table)"))

    null = table_g2(p_fit, np.random.default_rng([seed, _K_NULL]).random((n_sims, P)))
    p_boot = float((1 + np.sum(null >= G2)) / (1 + n_sims))
    crit_boot, crit_boot_se = _quantile_with_mc_se(null, level)
    crit_chi2 = float(stats.chi2.ppf(level, df))

    if cycle is None:
        best = np.argsort(-s, kind="stable")[:3]
        cyc = [names[k] for k in best]
    else:
        cyc = [str(m) for m in cycle]
        unknown = [m for m in cyc if m not in names]
        if len(cyc) != 3 or len(set(cyc)) != 3 or unknown:
            raise ValueError(
                f"transitivity_test: cycle must name three distinct models of the table {names}, got {cyc}"
            )
    pos = {m: k for k, m in enumerate(names)}
    pair_of = {(int(x), int(y)): k for k, (x, y) in enumerate(zip(i, j))}
    legs = []  # (pair index, True when the row's model_x is the winner of the leg)
    for w, l in zip(cyc, cyc[1:] + cyc[:1]):
        kw, kl = pos[w], pos[l]
        if (kw, kl) in pair_of:
            legs.append((pair_of[(kw, kl)], True))
        elif (kl, kw) in pair_of:
            legs.append((pair_of[(kl, kw)], False))
        else:
            raise ValueError(f"transitivity_test: the table has no row for {w} vs {l}, a leg of the cycle {cyc}")
    u = np.random.default_rng([seed, _K_POWER]).random((n_sims, P))
    rows = []
    for pc in grid:
        prob = p_fit.copy()
        for k, x_wins in legs:
            prob[k] = pc if x_wins else 1.0 - pc
        g = table_g2(prob, u)
        power = float(np.mean(g > crit_boot))
        rows.append(
            {
                "p_cycle": float(pc),
                "power": power,
                "power_mc_se": math.sqrt(power * (1.0 - power) / n_sims),
                "power_chi2": float(np.mean(g > crit_chi2)),
            }
        )
    power = pd.DataFrame(rows, columns=list(POWER_COLUMNS))
    ok = power.loc[power["power"] >= POWER_TARGET, "p_cycle"]

    triads = _circular_triads(W, names)
    max_triads = (K**3 - K) / 24 if K % 2 else (K**3 - 4 * K) / 24
    return {
        "G2": G2,
        "df": df,
        "p_chi2": float(stats.chi2.sf(G2, df)),
        "p_boot": p_boot,
        "p_boot_mc_se": math.sqrt(p_boot * (1.0 - p_boot) / n_sims),
        "critical_boot": crit_boot,
        "critical_boot_mc_se": crit_boot_se,
        "critical_chi2": crit_chi2,
        "n_sims": int(n_sims),
        "level": float(level),
        "tie_weight": float(tie_weight),
        "circular_triads": len(triads),
        "max_circular_triads": int(max_triads),
        "consistency_zeta": 1.0 - len(triads) / max_triads if max_triads else 1.0,
        "triads": tuple(triads),
        "cycle": tuple(cyc),
        "power": power,
        "mdc": float(ok.min()) if len(ok) else float("nan"),
        "power_target": POWER_TARGET,
    }


# ----------------------------------------------------------------------------------------------
# Argument checks
# ----------------------------------------------------------------------------------------------


def _check_level(level: float, fn: str) -> None:
    if not (0.0 < float(level) < 1.0):
        raise ValueError(f"{fn}: level must lie strictly between 0 and 1 (e.g. 0.95), got {level!r}")


def _check_sims(n_sims: int, fn: str) -> None:
    if int(n_sims) != n_sims or n_sims < 100:
        raise ValueError(f"{fn}: n_sims must be a whole number of at least 100 simulations, got {n_sims!r}")


def _check_tie_weight(tie_weight: float) -> None:
    if not (0.0 <= float(tie_weight) <= 1.0):
        raise ValueError(
            f"tie_weight must lie between 0 and 1 (the study's 0.5: a tie is half a win), got {tie_weight!r}"
        )
