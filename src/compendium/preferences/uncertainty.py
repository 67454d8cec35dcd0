"""Beyond the report: bootstrap uncertainty of the BT ranking, the Davidson ties model, and TrueSkill
(the HUMANE method) over many random orders of the same judgements."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..stats import pairwise as pw
from .reproduce import MODELS, _indices, validate_pair_counts, win_matrix

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
        return pd.DataFrame(
            {
                "model": list(MODELS),
                "strength": self.point,
                "ci_lo": lo,
                "ci_hi": hi,
                "sd_log_strength": logc.std(0, ddof=1),
                "p_best": best,
                "mean_rank": ranks.mean(0),
            }
        )

    def rank_probabilities(self) -> pd.DataFrame:
        """model x rank table: share of replicates in which each model takes each rank (1 = best)."""
        K = len(MODELS)
        ranks = (-self.strengths).argsort(1).argsort(1)
        tab = np.stack([np.bincount(ranks[:, k], minlength=K) for k in range(K)]) / len(ranks)
        return pd.DataFrame(
            tab, index=pd.Index(list(MODELS), name="model"), columns=[f"rank_{r + 1}" for r in range(K)]
        )

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
        return {
            "log_ratio": float(np.log(self.point[ia] / self.point[ib])),
            "ci_lo": float(lo),
            "ci_hi": float(hi),
            "p_greater": float((d > 0).mean()),
            "separable": bool(lo > 0 or hi < 0),
        }


def bootstrap_bradley_terry(
    counts: pd.DataFrame, n_boot: int, seed: int, tol: float = 1e-6, max_iter: int = 500, point=None
) -> BootstrapBT:
    """Bootstrap the published BT fit: resample judgements within each pair (:func:`bootstrap_pair_counts`)
    and refit every replicate with the published procedure, all replicates at once (vectorised).
    ``point``: the published fit's strengths when already fitted (not fitted again)."""
    df = validate_pair_counts(counts)
    draws = bootstrap_pair_counts(df, n_boot, seed)
    i, j = _indices(df)
    W = pw.win_matrix_from_counts(i, j, draws[..., 0], draws[..., 1], draws[..., 2], len(MODELS))
    res = pw.bradley_terry_mm(W, tol=tol, max_iter=max_iter)
    if not res.converged.all():
        raise RuntimeError(f"{int((~res.converged).sum())} bootstrap replicate(s) did not converge")
    if point is None:
        point = pw.bradley_terry_mm(win_matrix(df), tol=tol, max_iter=max_iter).strengths
    return BootstrapBT(strengths=res.strengths, point=np.asarray(point))


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
    table = pd.DataFrame(
        {
            "model": list(MODELS),
            "bt_half_win": b["strength"].to_numpy(),
            "bt_rank": b["rank"].to_numpy(),
            "davidson": fit.strengths,
            "davidson_rank": d_rank,
        }
    )
    info = {
        "nu": fit.nu,
        "tie_prob_equal_models": fit.nu / (2.0 + fit.nu),
        "observed_tie_share": float(df["ties"].sum() / df["n"].sum()),
        "loglik": fit.loglik,
        "same_ranking": int(np.array_equal(d_rank, b["rank"].to_numpy())),
    }
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
        return pd.DataFrame(
            {
                "model": list(MODELS),
                "mu_mean": self.mu.mean(0),
                "mu_sd_over_orders": sd(self.mu),
                "centred_mu_mean": mc.mean(0),
                "centred_mu_sd_over_orders": sd(mc),
                "sigma_mean": self.sigma.mean(0),
                "conservative_mean": (self.mu - 3 * self.sigma).mean(0),
                "p_top": top,
                "mean_rank": ranks.mean(0),
            }
        )

    def share_matching_ranking(self, strengths) -> float:
        """Share of orders whose ranking by mu equals the ranking by ``strengths``."""
        target = np.argsort(-np.asarray(strengths))
        return float((np.argsort(-self.mu, axis=1) == target).all(1).mean())


def trueskill_orders(
    counts: pd.DataFrame, n_orders: int, seed: int, draw_probability: float | None = None, **env
) -> TrueSkillOrders:
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
    mu, sigma = pw.trueskill_batched(
        w[orders], l[orders], d[orders], len(MODELS), draw_probability=draw_probability, **env
    )
    return TrueSkillOrders(mu=mu, sigma=sigma, orders=orders, draw_probability=draw_probability)


def trueskill_library_check(counts: pd.DataFrame, result: TrueSkillOrders, n_check: int = 2, **env) -> float:
    """Re-rate the first ``n_check`` orders with the ``trueskill`` package itself and return the
    largest absolute difference in mu or sigma from the batched computation."""
    w, l, d = expand_judgements(counts)
    worst = 0.0
    for r in range(min(n_check, len(result.orders))):
        o = result.orders[r]
        mu, sigma = pw.trueskill_sequential(
            w[o], l[o], d[o], len(MODELS), draw_probability=result.draw_probability, **env
        )
        worst = max(worst, float(np.abs(mu - result.mu[r]).max()), float(np.abs(sigma - result.sigma[r]).max()))
    return worst


# ----------------------------------------------------------------------------------------------
# Referee checks: prompt categories as clusters, multiplicity
# ----------------------------------------------------------------------------------------------


def category_heterogeneity(by_category: pd.DataFrame) -> dict[str, float]:
    """Do decisive win rates vary across prompt categories more than chance allows?

    For each pair, a Pearson chi-squared test of homogeneity on the categories x (x wins, y wins)
    table of decisive judgements (scipy ``chi2_contingency``, no continuity correction; categories
    with no decisive judgement for the pair are left out), summed over the pairs (independent tables):
    ``chi2``, ``df`` (sum of (categories - 1)), ``p``, ``n_pairs``, ``n_categories``, and
    ``dispersion`` = chi2 / df (1 under homogeneity). Expected counts are small (about 6 per cell),
    so read the p-value as approximate.
    """
    from scipy import stats

    for c in ("category", "model_x", "model_y", "x_wins", "y_wins"):
        if c not in by_category.columns:
            raise ValueError(f"category_heterogeneity: counts lack column {c!r}; expected the per-category pair counts")
    chi2, df = 0.0, 0
    for _, g in by_category.groupby(["model_x", "model_y"], sort=True):
        t = g[["x_wins", "y_wins"]].to_numpy(float)
        t = t[t.sum(1) > 0]
        if len(t) < 2 or (t.sum(0) == 0).any():
            continue
        res = stats.chi2_contingency(t, correction=False)
        chi2 += float(res.statistic)
        df += int(res.dof)
    if df == 0:
        raise ValueError("category_heterogeneity: no pair has decisive judgements in two categories")
    return {
        "chi2": chi2,
        "df": df,
        "p": float(stats.chi2.sf(chi2, df)),
        "dispersion": chi2 / df,
        "n_pairs": int(by_category.groupby(["model_x", "model_y"]).ngroups),
        "n_categories": int(by_category["category"].nunique()),
    }


def bootstrap_category_counts(by_category: pd.DataFrame, n_boot: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Two-stage cluster bootstrap of the pair counts: ``(pairs, draws)`` with ``draws`` of shape
    ``(n_boot, P, 3)`` counts of (x wins, y wins, ties) per pair (rows of ``pairs``).

    Stage 1 resamples the prompt categories with replacement (a category drawn m times counts m
    times); stage 2 resamples the judgements within each drawn category and pair. The sum of m
    independent multinomial(n, p) draws is multinomial(m n, p), which is how stage 2 is drawn, all
    replicates at once. Seeded. Prompts within a category are not told apart (the data give counts per
    category only), so this captures category-to-category variation, not prompt-to-prompt variation
    within a category; with 8 categories the bootstrap distribution is itself rough.
    """
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    df = by_category.copy()
    cats = sorted(df["category"].unique())
    pairs = df[["model_x", "model_y"]].drop_duplicates().sort_values(["model_x", "model_y"]).reset_index(drop=True)
    full = pd.MultiIndex.from_product([cats, range(len(pairs))], names=["category", "pair"])
    key = df.merge(pairs.reset_index().rename(columns={"index": "pair"}), on=["model_x", "model_y"])
    k = (
        key.set_index(["category", "pair"])[["x_wins", "y_wins", "ties"]]
        .reindex(full, fill_value=0)
        .to_numpy(float)
        .reshape(len(cats), len(pairs), 3)
    )  # (C, P, 3)
    n = k.sum(-1)  # (C, P)
    p = np.divide(k, n[..., None], out=np.full_like(k, 1.0 / 3), where=n[..., None] > 0)
    rng = np.random.default_rng(seed)
    m = rng.multinomial(len(cats), np.full(len(cats), 1.0 / len(cats)), size=n_boot)  # (B, C)
    draws = rng.multinomial((m[:, :, None] * n[None]).astype(np.int64), p[None])  # (B, C, P, 3)
    return pairs, draws.sum(1)


def bootstrap_bradley_terry_clustered(
    by_category: pd.DataFrame, n_boot: int, seed: int, tol: float = 1e-6, max_iter: int = 500, point=None
) -> BootstrapBT:
    """:func:`bootstrap_bradley_terry` with prompt categories as clusters (:func:`bootstrap_category_counts`).

    Win rates differ between categories far beyond chance (:func:`category_heterogeneity`), so a
    bootstrap that treats judgements as independent describes a re-run on *the same prompts*; this one
    describes a re-run on new categories of prompts like these, and is wider. ``point``: the published fit of
    the pooled counts when already fitted (the categories sum to them; not fitted again)."""
    pairs, draws = bootstrap_category_counts(by_category, n_boot, seed)
    pc = pairs.assign(
        x_wins=draws[0, :, 0].astype(int), y_wins=draws[0, :, 1].astype(int), ties=draws[0, :, 2].astype(int)
    )
    pc["n"] = pc["x_wins"] + pc["y_wins"] + pc["ties"]
    i, j = _indices(validate_pair_counts(pc))
    W = pw.win_matrix_from_counts(i, j, draws[..., 0], draws[..., 1], draws[..., 2], len(MODELS))
    res = pw.bradley_terry_mm(W, tol=tol, max_iter=max_iter)
    if not res.converged.all():
        raise RuntimeError(f"{int((~res.converged).sum())} cluster-bootstrap replicate(s) did not converge")
    if point is None:
        total = by_category.groupby(["model_x", "model_y"], as_index=False)[["x_wins", "y_wins", "ties", "n"]].sum()
        point = pw.bradley_terry_mm(win_matrix(validate_pair_counts(total)), tol=tol, max_iter=max_iter).strengths
    return BootstrapBT(strengths=res.strengths, point=np.asarray(point))


def sd_ratio(wide: BootstrapBT, narrow: BootstrapBT) -> pd.DataFrame:
    """Per model, how many times wider one bootstrap is than another: the ratio of the SDs of the centred
    log-strengths (the ``sd_log_strength`` of :meth:`BootstrapBT.summary`), ``ratio = sqrt(V_wide / V_narrow)``,
    with its Monte Carlo standard error. The replicates of each bootstrap are independent draws, so each
    variance is a mean of independent squared deviations with SE ``sd(d^2) / sqrt(B)``, and the delta
    method gives ``se(ratio) = ratio / 2 * sqrt((se_w / V_w)^2 + (se_n / V_n)^2)`` (the two bootstraps
    use independent streams). Columns: ``model, ratio, mc_se``."""

    def var_and_se(b: BootstrapBT) -> tuple[np.ndarray, np.ndarray]:
        logc = np.log(b.strengths) - np.log(b.strengths).mean(1, keepdims=True)
        d2 = (logc - logc.mean(0)) ** 2
        B = d2.shape[0]
        if B < 2:
            raise ValueError("sd_ratio: each bootstrap needs at least 2 replicates")
        return d2.sum(0) / (B - 1), d2.std(0, ddof=1) / np.sqrt(B)

    vw, sw = var_and_se(wide)
    vn, sn = var_and_se(narrow)
    ratio = np.sqrt(vw / vn)
    return pd.DataFrame(
        {"model": list(MODELS), "ratio": ratio, "mc_se": ratio / 2 * np.sqrt((sw / vw) ** 2 + (sn / vn) ** 2)}
    )


def holm_pair_tests(pairs: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """The report's per-pair "beyond chance" calls as a family of tests, with Holm's adjustment.

    For each pair of :func:`compendium.preferences.pair_table`: the exact two-sided binomial p-value of
    the higher-``val_pref_acc`` model's decisive wins against 50 % (scipy ``binomtest``), the Holm
    adjusted p-value over all pairs (statsmodels ``multipletests``), and whether each is below ``alpha``.
    The report's Wilson-interval call is one unadjusted test per pair: with 10 pairs about two in five
    such families have at least one false "beyond chance" when nothing differs
    (:func:`wilson_rule_familywise_error` gives the exact share).
    """
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    for c in ("higher_val_model", "lower_val_model", "higher_val_wins", "lower_val_wins"):
        if c not in pairs.columns:
            raise ValueError(f"holm_pair_tests: pair table lacks column {c!r}; expected pair_table() output")
    p = np.array(
        [
            stats.binomtest(int(w), int(w + lo), 0.5).pvalue
            for w, lo in zip(pairs["higher_val_wins"], pairs["lower_val_wins"])
        ]
    )
    reject, p_holm, _, _ = multipletests(p, alpha=alpha, method="holm")
    return pd.DataFrame(
        {
            "higher_val_model": pairs["higher_val_model"].to_numpy(),
            "lower_val_model": pairs["lower_val_model"].to_numpy(),
            "p": p,
            "p_holm": p_holm,
            "significant_unadjusted": p < alpha,
            "significant_holm": reject,
        }
    )


def wilson_rule_familywise_error(n_decisive, z: float = 1.96) -> dict[str, float]:
    """The chance that the report's rule (a pair "tracks" or "flips" when its Wilson interval excludes
    50 %) calls at least one pair beyond chance when every pair is a coin toss, with each pair's number
    of decisive judgements held at ``n_decisive``: exactly, by summing Binomial(n, 1/2) over the win
    counts whose interval (:func:`compendium.stats.pairwise.wilson_interval`, ``z``) excludes 0.5, per
    pair (``per_pair``, min and max), then 1 - prod(1 - level). Compare ``nominal`` = 1 - 0.95^pairs."""
    from scipy import stats

    ns = [int(n) for n in n_decisive]
    levels = []
    for n in ns:
        k = np.arange(n + 1)
        lo, hi = pw.wilson_interval(k, np.full(k.shape, n), z=z)
        levels.append(float(stats.binom.pmf(k, n, 0.5)[(lo > 0.5) | (hi < 0.5)].sum()))
    lv = np.array(levels)
    return {
        "familywise": float(1 - np.prod(1 - lv)),
        "nominal": float(1 - 0.95 ** len(ns)),
        "per_pair_min": float(lv.min()),
        "per_pair_max": float(lv.max()),
    }
