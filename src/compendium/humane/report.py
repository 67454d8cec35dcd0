"""The scale study's answers, from the sweep's rows: judgements needed, saving (and whether it is one),
calibration, consolidation, and the recovery curves.

Every interval is a Monte Carlo interval: the 2.5 and 97.5 % quantiles over ``n_boot`` bootstrap
resamples of the repetitions (seeded with ``humane.seed``, passed explicitly), so it says how far the finite
number of simulated studies leaves the answer open; it is no statement about a real leaderboard.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats.pairwise import wilson_interval
from .digits import saving_ends, saving_step
from .simulate import Point, point_key

TARGET = 0.95
CAL_BINS = (0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0)


def first_reach(ck: np.ndarray, p: np.ndarray, target: float = TARGET) -> np.ndarray:
    """Judgements at which the recovery curve(s) ``p`` (..., C) first reach ``target``: interpolated
    linearly in log2(judgements) between the bracketing checkpoints; the first checkpoint if already
    there; ``inf`` if never within the budget."""
    p = np.atleast_2d(p)
    lg = np.log2(np.asarray(ck, dtype=float))
    hit = p >= target
    first = hit.argmax(-1)
    out = np.full(p.shape[:-1], np.inf)
    ok = hit.any(-1)
    k = first[ok]
    rows = np.nonzero(ok)[0]
    prev = np.maximum(k - 1, 0)
    p0, p1 = p[rows, prev], p[rows, k]
    frac = np.where((k > 0) & (p1 > p0), (target - p0) / np.where(p1 > p0, p1 - p0, 1.0), 1.0)
    ckf = np.asarray(ck, dtype=float)
    out[rows] = np.where(k == 0, ckf[k], 2.0 ** (lg[prev] + frac * (lg[k] - lg[prev])))
    return out


def reach_bounds(ck: np.ndarray, p: np.ndarray, target: float = TARGET) -> tuple[np.ndarray, np.ndarray]:
    """What the checkpoints say about the judgements needed, as ``(low, high)``: the interpolated value
    (:func:`first_reach`) for both where the curve crosses ``target`` between two checkpoints; ``(0, first
    checkpoint)`` where it is already there at the first (the grid cannot tell how much earlier); ``(budget,
    inf)`` where it never gets there."""
    n = first_reach(ck, p, target)
    ck = np.asarray(ck, dtype=float)
    low = np.where(n == ck[0], 0.0, np.where(np.isinf(n), ck[-1], n))
    return low, n


#: bootstrap resamples of the simulated studies per Monte Carlo interval. With 500 the 2.5 % quantile of a
#: saving moved by about a point between bootstrap seeds, enough to flip a verdict whose interval ended at
#: +0.5 %; 4,000 keep that movement to a few tenths, below the digits the intervals are printed to.
N_BOOT = 4000


def _bootstrap_means(rec: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """The recovery curves of ``n_boot`` bootstrap resamples of the studies (rows of ``rec``, shape (R, C),
    0/1): ``(n_boot, C)``. Each resample is stored as its counts of each study (an exact integer product with
    ``rec``, whatever the BLAS), not as a (n_boot, R, C) array."""
    R = rec.shape[0]
    idx = np.random.default_rng(seed).integers(0, R, size=(n_boot, R))
    counts = np.bincount((idx + R * np.arange(n_boot)[:, None]).ravel(), minlength=n_boot * R).reshape(n_boot, R)
    return (counts.astype(float) @ rec) / R


def needed(rows: pd.DataFrame, points: list[Point], *, seed: int, n_boot: int = N_BOOT) -> pd.DataFrame:
    """Per point: decisive judgements needed for P(full ranking) and P(top model) >= 95 % (pooled board),
    with Monte Carlo intervals (``inf``: not within the budget), and the recoveries at the budget."""
    out = []
    for p in points:
        r = rows[rows["point_key"] == point_key(p)]
        R, C = r["repetition"].nunique(), len(p.checkpoints)
        ck = np.asarray(p.checkpoints, dtype=float)
        share = r["n_decisive"].sum() / r["n_judgements"].sum()  # decisive share of all judgements shown
        row = p.label() | {"repetitions": R, "decisive_share": share, "n_first": ck[0] * share}
        for what in ("rank", "top"):
            rec = r[f"{what}_pooled"].to_numpy().reshape(R, C).astype(float)
            n = first_reach(ck, rec.mean(0))[0] * share
            nb = first_reach(ck, _bootstrap_means(rec, n_boot, seed)) * share
            lo, hi = np.quantile(nb, [0.025, 0.975], method="inverted_cdf")
            row |= {f"n_{what}": n, f"n_{what}_lo": lo, f"n_{what}_hi": hi, f"p_{what}_budget": rec[:, -1].mean()}
        out.append(row)
    return pd.DataFrame(out)


def saving(rows: pd.DataFrame, points: list[Point], what: str, *, seed: int, n_boot: int = N_BOOT):
    """Per information-gain or arena point: the share of decisive judgements it saves against the uniform
    design at the same setting, ``1 - n_design / n_uniform``, with a Monte Carlo interval (independent
    bootstrap of each design's repetitions).

    Censoring: a design that never reaches 95 % within the budget needs more than the budget; one that is
    there at the first checkpoint needs at most that (:func:`reach_bounds`). Each resample's saving is then
    an interval ``[1 - high_d / low_u, 1 - low_d / high_u]``; the Monte Carlo interval is the 2.5 % quantile
    of the lower ends and the 97.5 % quantile of the upper ends (conservative: an end that censoring leaves
    open is -inf or +1). ``saving`` is the point estimate where neither design is censored (else NaN,
    with its bounds in ``saving_min`` and ``saving_max``)."""
    by = {}
    for p in points:
        if p.n_groups == 1:
            by[(p.n_models, p.spread, p.nu, p.design)] = p
    out = []
    for (n, spread, nu, design), p in sorted(by.items(), key=lambda kv: str(kv[0])):
        u = by.get((n, spread, nu, "uniform"))
        if design == "uniform" or u is None:
            continue
        draws = []
        for q, s in ((p, seed), (u, seed + 1)):
            r = rows[rows["point_key"] == point_key(q)]
            R, C = r["repetition"].nunique(), len(q.checkpoints)
            rec = r[f"{what}_pooled"].to_numpy().reshape(R, C).astype(float)
            sh = r["n_decisive"].sum() / r["n_judgements"].sum()
            ck = np.asarray(q.checkpoints, float)
            full = [b[0] * sh for b in reach_bounds(ck, rec.mean(0))]
            boot = [b * sh for b in reach_bounds(ck, _bootstrap_means(rec, n_boot, s))]
            draws.append((full, boot))
        ((d_lo, d_hi), (bd_lo, bd_hi)), ((u_lo, u_hi), (bu_lo, bu_hi)) = draws
        with np.errstate(invalid="ignore", divide="ignore"):
            s_min, s_max = 1 - d_hi / u_lo, 1 - d_lo / u_hi
            b_min, b_max = 1 - bd_hi / bu_lo, 1 - bd_lo / bu_hi
        lo = np.quantile(b_min, 0.025, method="inverted_cdf")
        hi = np.quantile(b_max, 0.975, method="inverted_cdf")
        exact = s_min == s_max
        out.append({"n_models": n, "spread": spread, "nu": nu, "design": design, "target": what,
                    "n_design": d_hi, "n_uniform": u_hi, "n_design_min": d_lo, "n_uniform_min": u_lo,
                    "saving": s_min if exact else np.nan, "saving_min": s_min, "saving_max": s_max,
                    "saving_lo": float(lo), "saving_hi": float(hi)})  # fmt: skip
    return pd.DataFrame(out)


def calibration(rows: pd.DataFrame, bins=CAL_BINS) -> pd.DataFrame:
    """Reported P(best) of the pooled leader against how often that leader is truly best, in bins of the
    reported value, over every repetition and checkpoint given; Wilson 95 % intervals.

    The boards of one simulated study (its checkpoints) are correlated, so where ``rows`` name the study
    (``point_key``, ``repetition``) the interval is the Wilson interval of ``k / m`` successes in ``n / m``
    trials, ``m`` the most boards one study puts into the bin: the design effect of clusters of at most
    ``m`` is at most ``m``, so the interval is conservative (``m = 1``: the plain Wilson interval)."""
    b = pd.cut(rows["pbest"], bins=list(bins), include_lowest=True, right=True)
    clustered = {"point_key", "repetition"} <= set(rows.columns)
    out = []
    for interval, g in rows.groupby(b, observed=True):
        k, n = int(g["leader_is_best"].sum()), len(g)
        m = int(g.groupby(["point_key", "repetition"]).size().max()) if clustered else 1
        lo, hi = wilson_interval(k / m, n / m)
        out.append({"reported_lo": interval.left, "reported_hi": interval.right, "n": n, "max_per_study": m,
                    "mean_reported": g["pbest"].mean(), "observed": k / n, "observed_lo": lo, "observed_hi": hi})  # fmt: skip
    return pd.DataFrame(out)


def consolidation(rows: pd.DataFrame, points: list[Point]) -> pd.DataFrame:
    """Per multi-group point, at the budget: the pooled board's mean posterior SD of the centred
    log-strengths against the least uncertain group board's (ratio; sqrt(1/G) if groups only split the
    data), and P(full ranking) / P(top) of the pooled and of the consolidated (mean of groups) boards, with
    the paired difference pooled minus consolidated and its Monte Carlo standard error (the two boards are
    fitted to the same simulated studies: the SE of the mean of the per-study differences)."""
    out = []
    for p in points:
        if p.n_groups == 1:
            continue
        r = rows[(rows["point_key"] == point_key(p)) & (rows["checkpoint"] == len(p.checkpoints) - 1)]
        gaps = {}
        for what in ("rank", "top"):
            d = r[f"{what}_pooled"].to_numpy(float) - r[f"{what}_consolidated"].to_numpy(float)
            gaps[f"{what}_gap"] = d.mean()
            gaps[f"{what}_gap_se"] = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else np.nan
        out.append({"n_models": p.n_models, "spread": p.spread, "n_groups": p.n_groups, "group_sd": p.group_sd,
                    "studies": len(r),
                    "sd_pooled": r["sd_pooled"].mean(), "sd_min_group": r["sd_min_group"].mean(),
                    "ratio": (r["sd_pooled"] / r["sd_min_group"]).mean(), "sqrt_1_over_g": (1 / p.n_groups) ** 0.5,
                    "p_rank_pooled": r["rank_pooled"].mean(), "p_rank_consolidated": r["rank_consolidated"].mean(),
                    "p_top_pooled": r["top_pooled"].mean(), "p_top_consolidated": r["top_consolidated"].mean()}
                   | gaps)  # fmt: skip
    return pd.DataFrame(out)


def curves(rows: pd.DataFrame, points: list[Point]) -> pd.DataFrame:
    """P(full ranking) and P(top) per single-group point and checkpoint (pooled board)."""
    out = []
    for p in points:
        if p.n_groups != 1:
            continue
        r = rows[rows["point_key"] == point_key(p)]
        g = r.groupby("checkpoint", sort=True)
        out.append(
            pd.DataFrame(
                {
                    "n_models": p.n_models,
                    "spread": p.spread,
                    "nu": p.nu,
                    "design": p.design,
                    "n_decisive": g["n_decisive"].mean().to_numpy(),
                    "p_rank": g["rank_pooled"].mean().to_numpy(),
                    "p_top": g["top_pooled"].mean().to_numpy(),
                }  # fmt: skip
            )
        )
    return pd.concat(out, ignore_index=True)


#: the verdict where an end of the interval, as printed, is 0 %: unrounded it may just exclude zero, and
#: which side it falls on follows the bootstrap's seed (seen: the 5-model BT-Davidson full ranking, with a
#: lower end of 0.0-0.6 % over four seeds)
BORDERLINE = "no detectable difference (borderline)"


def saving_verdict(lo: float, hi: float, est: float = 0.0, step: float | None = None) -> str:
    """``a saving`` (the interval above zero), ``a loss`` (below), ``no detectable difference``, or, where
    censoring leaves the estimate open and the interval straddles zero, ``not resolved within the budget``.
    With ``step`` (percentage points), the interval's ends as printed (:func:`.digits.saving_ends`) decide: one
    that rounds to 0 % is not above zero (:data:`BORDERLINE`)."""
    touches = False
    if step is not None:
        lo, hi = (x / 100 for x in saving_ends(lo, hi, step))
        touches = lo == 0 or hi == 0
    if lo > 0:
        return "a saving"
    if hi < 0:
        return "a loss"
    if not np.isfinite(est):
        return "not resolved within the budget"
    return BORDERLINE if touches else "no detectable difference"


def saving_verdicts(sav: pd.DataFrame) -> list[str]:
    """:func:`saving_verdict` of each row of a :func:`saving` table, its interval read at the digits it is
    printed with (:func:`.digits.saving_step`)."""
    return [
        saving_verdict(r.saving_lo, r.saving_hi, r.saving,
                       saving_step(r.saving, r.saving_lo, r.saving_hi, r.saving_min, r.saving_max))
        for r in sav.itertuples()
    ]  # fmt: skip


def censored_both(r) -> str:
    """Of a :func:`saving` row: ``floor`` if both designs are at 95 % by the first checkpoint, ``never`` if
    neither gets there within the budget, else '' (a setting the budget can resolve)."""
    if r.n_design_min == 0 and r.n_uniform_min == 0:
        return "floor"
    if not np.isfinite(r.n_design) and not np.isfinite(r.n_uniform):
        return "never"
    return ""
