"""The scale study's answers, from the sweep's rows: judgements needed, saving, calibration, consolidation.

Every interval is a Monte Carlo interval: the 2.5 and 97.5 % quantiles over ``n_boot`` bootstrap
resamples of the repetitions (seeded), so it says how far the finite number of simulated studies
leaves the answer open; it is no statement about a real leaderboard.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats.pairwise import wilson_interval
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


def _bootstrap_idx(n_reps: int, n_boot: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, n_reps, size=(n_boot, n_reps))


def needed(rows: pd.DataFrame, points: list[Point], n_boot: int = 500, seed: int = 0) -> pd.DataFrame:
    """Per point: decisive judgements needed for P(full ranking) and P(top model) >= 95 % (pooled board),
    with Monte Carlo intervals (``inf``: not within the budget), and the recoveries at the budget."""
    out = []
    for p in points:
        r = rows[rows["point_key"] == point_key(p)]
        R, C = r["repetition"].nunique(), len(p.checkpoints)
        ck = np.asarray(p.checkpoints, dtype=float)
        share = r["n_decisive"].sum() / r["n_judgements"].sum()  # decisive share of all judgements shown
        row = p.label() | {"repetitions": R, "decisive_share": share}
        idx = _bootstrap_idx(R, n_boot, seed)
        for what in ("rank", "top"):
            rec = r[f"{what}_pooled"].to_numpy().reshape(R, C).astype(float)
            n = first_reach(ck, rec.mean(0))[0] * share
            nb = first_reach(ck, rec[idx].mean(1)) * share
            lo, hi = np.quantile(nb, [0.025, 0.975], method="inverted_cdf")
            row |= {f"n_{what}": n, f"n_{what}_lo": lo, f"n_{what}_hi": hi, f"p_{what}_budget": rec[:, -1].mean()}
        out.append(row)
    return pd.DataFrame(out)


def saving(rows: pd.DataFrame, points: list[Point], what: str = "rank", n_boot: int = 500, seed: int = 0):
    """Per information-gain point: the share of decisive judgements it saves against the uniform design at
    the same setting, ``1 - n_design / n_uniform``, with a Monte Carlo interval (independent bootstrap of
    each design's repetitions); NaN where either never reaches 95 % within the budget."""
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
            draws.append(
                (first_reach(ck, rec.mean(0))[0] * sh, first_reach(ck, rec[_bootstrap_idx(R, n_boot, s)].mean(1)) * sh)
            )
        (nd, bd), (nu_, bu) = draws
        with np.errstate(invalid="ignore", divide="ignore"):
            est = 1 - nd / nu_ if np.isfinite(nd) and np.isfinite(nu_) else np.nan
            sb = 1 - bd / bu
        sb = sb[np.isfinite(sb)]
        ok = sb.size == n_boot
        lo, hi = np.quantile(sb, [0.025, 0.975], method="inverted_cdf") if ok else (np.nan, np.nan)
        out.append({"n_models": n, "spread": spread, "nu": nu, "design": design, "target": what,
                    "n_design": nd, "n_uniform": nu_, "saving": est, "saving_lo": lo, "saving_hi": hi})  # fmt: skip
    return pd.DataFrame(out)


def calibration(rows: pd.DataFrame, bins=CAL_BINS) -> pd.DataFrame:
    """Reported P(best) of the pooled leader against how often that leader is truly best, in bins of the
    reported value, over every repetition and checkpoint given; Wilson 95 % intervals."""
    b = pd.cut(rows["pbest"], bins=list(bins), include_lowest=True, right=True)
    out = []
    for interval, g in rows.groupby(b, observed=True):
        k, n = int(g["leader_is_best"].sum()), len(g)
        lo, hi = wilson_interval(k, n)
        out.append({"reported_lo": interval.left, "reported_hi": interval.right, "n": n,
                    "mean_reported": g["pbest"].mean(), "observed": k / n, "observed_lo": lo, "observed_hi": hi})  # fmt: skip
    return pd.DataFrame(out)


def consolidation(rows: pd.DataFrame, points: list[Point]) -> pd.DataFrame:
    """Per multi-group point, at the budget: the pooled board's mean posterior SD of the centred
    log-strengths against the least uncertain group board's (ratio; sqrt(1/G) if groups only split the
    data), and P(full ranking) / P(top) of the pooled and of the consolidated (mean of groups) boards."""
    out = []
    for p in points:
        if p.n_groups == 1:
            continue
        r = rows[(rows["point_key"] == point_key(p)) & (rows["checkpoint"] == len(p.checkpoints) - 1)]
        out.append({"n_models": p.n_models, "spread": p.spread, "n_groups": p.n_groups, "group_sd": p.group_sd,
                    "sd_pooled": r["sd_pooled"].mean(), "sd_min_group": r["sd_min_group"].mean(),
                    "ratio": (r["sd_pooled"] / r["sd_min_group"]).mean(), "sqrt_1_over_g": (1 / p.n_groups) ** 0.5,
                    "p_rank_pooled": r["rank_pooled"].mean(), "p_rank_consolidated": r["rank_consolidated"].mean(),
                    "p_top_pooled": r["top_pooled"].mean(), "p_top_consolidated": r["top_consolidated"].mean()})  # fmt: skip
    return pd.DataFrame(out)
