"""Beyond the report: bootstrap uncertainty of the BT ranking, the Davidson ties model, and TrueSkill
(the HUMANE method) over many random orders of the same judgements."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..stats import pairwise as pw
from .report import MODELS, _indices, validate_pair_counts, win_matrix


# ----------------------------------------------------------------------------------------------
# Bootstrap
# ----------------------------------------------------------------------------------------------

def bootstrap_pair_counts(counts: pd.DataFrame, n_boot: int, seed: int) -> np.ndarray:
    """Resample the judgements within each pair: ``(n_boot, P, 3)`` counts of (x wins, y wins, ties).

    Each replicate draws ``n`` judgements with replacement from the pair's own ``n`` judgements,
    i.e. a multinomial with the observed proportions; pair sizes stay fixed (the design). Seeded.
    """
    df = validate_pair_counts(counts)
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    k = df[["x_wins", "y_wins", "ties"]].to_numpy(dtype=float)
    n = df["n"].to_numpy()
    rng = np.random.default_rng(seed)
    return rng.multinomial(n, k / n[:, None], size=(n_boot, len(df)))


@dataclass(frozen=True)
class BootstrapBT:
    """Bootstrap replicates of the BT strengths (``strengths``: (B, K) in :data:`MODELS` order)."""

    strengths: np.ndarray
    point: np.ndarray

    def summary(self, level: float = 0.95) -> pd.DataFrame:
        """Per model: point strength, percentile CI, SD of the log-strength, P(best), mean rank."""
        a = (1.0 - level) / 2.0
        lo, hi = np.quantile(self.strengths, [a, 1.0 - a], axis=0)
        best = np.bincount(self.strengths.argmax(1), minlength=len(MODELS)) / len(self.strengths)
        ranks = (-self.strengths).argsort(1).argsort(1) + 1
        logc = np.log(self.strengths) - np.log(self.strengths).mean(1, keepdims=True)
        return pd.DataFrame({"model": list(MODELS), "strength": self.point, "ci_lo": lo, "ci_hi": hi,
                             "sd_log_strength": logc.std(0, ddof=1), "p_best": best, "mean_rank": ranks.mean(0)})

    def rank_probabilities(self) -> pd.DataFrame:
        """model x rank table: share of replicates in which each model takes each rank (1 = best)."""
        K = len(MODELS)
        ranks = (-self.strengths).argsort(1).argsort(1)
        tab = np.stack([np.bincount(ranks[:, k], minlength=K) for k in range(K)]) / len(ranks)
        return pd.DataFrame(tab, index=pd.Index(list(MODELS), name="model"), columns=[f"rank_{r + 1}" for r in range(K)])

    def prob_greater(self) -> pd.DataFrame:
        """model x model table: share of replicates with strength(row) > strength(column)."""
        s = self.strengths
        P = (s[:, :, None] > s[:, None, :]).mean(0)
        return pd.DataFrame(P, index=pd.Index(list(MODELS), name="model"), columns=list(MODELS))

    def log_ratio_interval(self, a: str, b: str, level: float = 0.95) -> dict[str, float]:
        """Percentile interval of ``log(pi_a / pi_b)`` and ``P(pi_a > pi_b)``; ``separable`` when the
        interval excludes 0."""
        ia, ib = MODELS.index(a), MODELS.index(b)
        d = np.log(self.strengths[:, ia]) - np.log(self.strengths[:, ib])
        q = (1.0 - level) / 2.0
        lo, hi = np.quantile(d, [q, 1.0 - q])
        return {"log_ratio": float(np.log(self.point[ia] / self.point[ib])), "ci_lo": float(lo), "ci_hi": float(hi),
                "p_greater": float((d > 0).mean()), "separable": bool(lo > 0 or hi < 0)}


def bootstrap_bradley_terry(counts: pd.DataFrame, n_boot: int, seed: int, tol: float = 1e-6,
                            max_iter: int = 500) -> BootstrapBT:
    """Bootstrap the published BT fit: resample judgements within each pair (:func:`bootstrap_pair_counts`)
    and refit every replicate with the published procedure, all replicates at once (vectorised)."""
    df = validate_pair_counts(counts)
    draws = bootstrap_pair_counts(df, n_boot, seed)
    i, j = _indices(df)
    W = pw.win_matrix_from_counts(i, j, draws[..., 0], draws[..., 1], draws[..., 2], len(MODELS))
    res = pw.bradley_terry_mm(W, tol=tol, max_iter=max_iter)
    if not res.converged.all():
        raise RuntimeError(f"{int((~res.converged).sum())} bootstrap replicate(s) did not converge")
    point = pw.bradley_terry_mm(win_matrix(df), tol=tol, max_iter=max_iter).strengths
    return BootstrapBT(strengths=res.strengths, point=point)


def asymptotic_log_se(counts: pd.DataFrame, strengths) -> np.ndarray:
    """Asymptotic SE of each centred log-strength (inverse Fisher information), to set beside the bootstrap SD."""
    cov = pw.bradley_terry_log_covariance(np.asarray(strengths), win_matrix(counts))
    return np.sqrt(np.diag(cov))


# ----------------------------------------------------------------------------------------------
# Davidson ties model
# ----------------------------------------------------------------------------------------------

def davidson_comparison(counts: pd.DataFrame, bt: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, float]]:
    """Fit the Davidson (1970) model (explicit tie parameter) and set it beside the half-win BT fit.

    Returns ``(table, info)``: per model the half-win strength and rank, the Davidson strength and
    rank; ``info`` has ``nu``, the implied tie probability of two equal models ``nu / (2 + nu)``, the
    observed tie share, and ``same_ranking`` (1/0).
    """
    df = validate_pair_counts(counts)
    i, j = _indices(df)
    K = len(MODELS)
    zeros = np.zeros(len(df))
    wins = pw.win_matrix_from_counts(i, j, df["x_wins"].to_numpy(), df["y_wins"].to_numpy(), zeros, K)
    ties = pw.win_matrix_from_counts(i, j, zeros, zeros, df["ties"].to_numpy(), K, tie_weight=1.0)
    fit = pw.davidson_fit(wins, ties)
    if not fit.converged:
        raise RuntimeError("Davidson fit did not converge")
    b = bt.set_index("model").loc[list(MODELS)]
    d_rank = (-fit.strengths).argsort().argsort() + 1
    table = pd.DataFrame({"model": list(MODELS), "bt_half_win": b["strength"].to_numpy(),
                          "bt_rank": b["rank"].to_numpy(), "davidson": fit.strengths, "davidson_rank": d_rank})
    info = {"nu": fit.nu, "tie_prob_equal_models": fit.nu / (2.0 + fit.nu),
            "observed_tie_share": float(df["ties"].sum() / df["n"].sum()), "loglik": fit.loglik,
            "same_ranking": int(np.array_equal(d_rank, b["rank"].to_numpy()))}
    return table, info


# ----------------------------------------------------------------------------------------------
# TrueSkill over random orders (HUMANE)
# ----------------------------------------------------------------------------------------------

def expand_judgements(counts: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One row per judgement: ``(winner, loser, drawn)`` model indices. For a tie the pair's X model is
    listed first (the order of a drawn game does not matter to TrueSkill)."""
    df = validate_pair_counts(counts)
    i, j = _indices(df)
    w, l, d = [], [], []
    for a, b, xw, yw, t in zip(i, j, df["x_wins"], df["y_wins"], df["ties"]):
        w += [a] * xw + [b] * yw + [a] * t
        l += [b] * xw + [a] * yw + [b] * t
        d += [False] * (xw + yw) + [True] * t
    return np.array(w), np.array(l), np.array(d)


@dataclass(frozen=True)
class TrueSkillOrders:
    """TrueSkill ratings after each of ``R`` random orders: ``mu``, ``sigma`` of shape (R, K)."""

    mu: np.ndarray
    sigma: np.ndarray
    orders: np.ndarray
    draw_probability: float

    def centred_mu(self) -> np.ndarray:
        """mu minus the mean mu of the five models in the same order: TrueSkill's mu has no fixed zero,
        and the whole scale floats with the order, which does not affect the ranking."""
        return self.mu - self.mu.mean(1, keepdims=True)

    def summary(self) -> pd.DataFrame:
        """Per model over the orders: mean and SD of mu, mean and SD of the centred mu (the part that
        moves the ranking), mean sigma, conservative mu - 3 sigma, P(top by mu), mean rank."""
        K = len(MODELS)
        top = np.bincount(self.mu.argmax(1), minlength=K) / len(self.mu)
        ranks = (-self.mu).argsort(1).argsort(1) + 1
        mc = self.centred_mu()
        sd = (lambda a: a.std(0, ddof=1)) if len(self.mu) > 1 else (lambda a: np.full(K, np.nan))
        return pd.DataFrame({"model": list(MODELS), "mu_mean": self.mu.mean(0), "mu_sd_over_orders": sd(self.mu),
                             "centred_mu_mean": mc.mean(0), "centred_mu_sd_over_orders": sd(mc),
                             "sigma_mean": self.sigma.mean(0), "conservative_mean": (self.mu - 3 * self.sigma).mean(0),
                             "p_top": top, "mean_rank": ranks.mean(0)})

    def share_matching_ranking(self, strengths) -> float:
        """Share of orders whose ranking by mu equals the ranking by ``strengths``."""
        target = np.argsort(-np.asarray(strengths))
        return float((np.argsort(-self.mu, axis=1) == target).all(1).mean())


def trueskill_orders(counts: pd.DataFrame, n_orders: int, seed: int, draw_probability: float | None = None,
                     **env) -> TrueSkillOrders:
    """TrueSkill ratings from the same judgements in ``n_orders`` seeded random orders.

    TrueSkill is an online filter, so its ratings depend on the order of the games; the study's data
    carry no order (the pair counts are pooled), so we average over random orders and report the
    spread. ``draw_probability`` defaults to the observed tie share; other environment settings
    (``mu, sigma, beta, tau``) default to the ``trueskill`` package's. Runs all orders at once
    (:func:`compendium.stats.pairwise.trueskill_batched`).
    """
    if n_orders < 1:
        raise ValueError(f"n_orders must be >= 1, got {n_orders}")
    w, l, d = expand_judgements(counts)
    if draw_probability is None:
        draw_probability = float(d.mean())
    rng = np.random.default_rng(seed)
    orders = np.argsort(rng.random((n_orders, len(w))), axis=1)
    mu, sigma = pw.trueskill_batched(w[orders], l[orders], d[orders], len(MODELS),
                                     draw_probability=draw_probability, **env)
    return TrueSkillOrders(mu=mu, sigma=sigma, orders=orders, draw_probability=draw_probability)


def trueskill_library_check(counts: pd.DataFrame, result: TrueSkillOrders, n_check: int = 2, **env) -> float:
    """Re-rate the first ``n_check`` orders with the ``trueskill`` package itself and return the
    largest absolute difference in mu or sigma from the batched computation."""
    w, l, d = expand_judgements(counts)
    worst = 0.0
    for r in range(min(n_check, len(result.orders))):
        o = result.orders[r]
        mu, sigma = pw.trueskill_sequential(w[o], l[o], d[o], len(MODELS), draw_probability=result.draw_probability, **env)
        worst = max(worst, float(np.abs(mu - result.mu[r]).max()), float(np.abs(sigma - result.sigma[r]).max()))
    return worst
