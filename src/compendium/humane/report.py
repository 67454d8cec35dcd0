"""The scale study's answers, from the sweep's rows: judgements needed, saving (and whether it is one),
calibration, consolidation, and the recovery curves.

Every interval is a Monte Carlo interval: quantiles over ``n_boot`` bootstrap resamples of the repetitions
(seeded with ``humane.seed``, passed explicitly; :func:`bootstrap_curves`), so it says how far the finite number
of simulated studies leaves the answer open; it is no statement about a real leaderboard. The judgements needed
carry 95 % intervals; the savings, which the chapter turns into verdicts, carry simultaneous ones
(:func:`savings`: Bonferroni over every verdict, so that all of them hold together with 95 % probability).
"""

from __future__ import annotations

from types import SimpleNamespace

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


#: bootstrap resamples per 95 % Monte Carlo interval of the judgements needed (:func:`needed`)
N_BOOT = 4000
#: bootstrap resamples per simultaneous interval of a saving (:func:`savings`): its ends are the 0.1 % and 99.9 %
#: quantiles when the chapter reads about 26 intervals as verdicts, which 4,000 resamples (4 beyond each end)
#: would leave to a handful of draws; 40,000 put about 40 beyond each
N_BOOT_FAMILY = 40_000
#: the chance, at most, that any of the saving table's verdicts is wrong (:func:`savings`, Bonferroni)
FAMILY_ALPHA = 0.05
#: a checkpoint is left out of a bootstrap resample's curve when the Chernoff bound puts the chance that the
#: resample falls on the other side of the 95 % target than the whole curve below this (:func:`bootstrap_window`)
NEGLIGIBLE = 1e-12


def _kl(t: float, p: np.ndarray) -> np.ndarray:
    """The binary Kullback-Leibler divergence ``D(t || p)`` (``inf`` where ``p`` is 0 or 1 and ``t`` is not)."""
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = t * np.log(t / p) + (1 - t) * np.log((1 - t) / (1 - p))
    return np.where(np.isnan(out), np.inf, out)


def bootstrap_window(p: np.ndarray, R: int, target: float = TARGET, eps: float = NEGLIGIBLE) -> tuple[int, int]:
    """The checkpoints ``(first, last)`` of a recovery curve ``p`` (the mean of ``R`` studies) on which a bootstrap
    resample's :func:`first_reach` and :func:`reach_bounds` depend.

    A resample's recovery at one checkpoint is a Binomial(R, p_c) share, so by Chernoff's bound it lies on the other
    side of ``target`` than ``p_c`` with probability at most ``exp(-R D(target || p_c))``. Checkpoints before
    ``lo``, the first where that is not negligible (``> eps``) for a curve below the target, are below it in every
    resample; ``hi``, the first checkpoint from ``lo`` on that is above the target in every resample, is where every
    resample has got there. Every resample's first reach is then between ``lo`` and ``hi``, and its interpolation
    reads one checkpoint before: ``first = max(lo - 1, 0)``, ``last = hi`` (the last checkpoint if none is
    sure). So the window holds every checkpoint the answer depends on, but for resamples of total probability at
    most ``len(p) * eps``."""
    p = np.asarray(p, dtype=float)
    C = p.size
    other_side = np.exp(-R * _kl(target, p))  # the chance a resample is on the other side of the target
    can_reach = (p >= target) | (other_side > eps)
    if not can_reach.any():  # below the target everywhere, in every resample: never there
        return C - 1, C - 1
    lo = int(can_reach.argmax())
    sure = (p >= target) & (other_side <= eps)
    sure[:lo] = False
    hi = int(sure.argmax()) if sure.any() else C - 1
    return max(lo - 1, 0), hi


def bootstrap_curves(rec: np.ndarray, n_boot: int, seed: int, target: float = TARGET) -> np.ndarray:
    """``n_boot`` bootstrap resamples of the recovery curve of the studies ``rec`` (rows, shape (R, C), 0/1), as
    far as where each first reaches ``target`` depends on them: ``(n_boot, C)``.

    A resample of the studies (R drawn with replacement) is drawn as its counts of each distinct row, multinomial
    with the rows' shares: the same distribution as drawing the rows, at a cost that grows with the distinct rows,
    not with R. Only the checkpoints of :func:`bootstrap_window` are drawn; the resamples' curves are 0 before it
    and 1 after it, which changes neither :func:`first_reach` nor :func:`reach_bounds` of any resample (but for
    a total chance below ``C * NEGLIGIBLE``), and keeps the distinct rows few (at most ``2 ** window``), so
    that 40,000 resamples of 20,000 studies take a fraction of a second. The recovery at the checkpoints is an
    exact integer product of the counts and the rows, whatever the BLAS. For the curves themselves (a figure),
    average the rows."""
    R, C = rec.shape
    a, b = bootstrap_window(rec.mean(0), R, target)
    rows, inverse = np.unique(rec[:, a : b + 1].astype(np.int64), axis=0, return_inverse=True)
    share = np.bincount(inverse.ravel(), minlength=len(rows)) / R
    counts = np.random.default_rng(seed).multinomial(R, share, size=n_boot)  # (n_boot, distinct rows)
    out = np.zeros((n_boot, C))
    out[:, b + 1 :] = 1.0
    out[:, a : b + 1] = (counts @ rows) / R
    return out


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
            nb = first_reach(ck, bootstrap_curves(rec, n_boot, seed)) * share
            lo, hi = np.quantile(nb, [0.025, 0.975], method="inverted_cdf")
            row |= {f"n_{what}": n, f"n_{what}_lo": lo, f"n_{what}_hi": hi, f"p_{what}_budget": rec[:, -1].mean()}
        out.append(row)
    return pd.DataFrame(out)


def _reach(rows: pd.DataFrame, q: Point, what: str, seed: int, n_boot: int):
    """What point ``q``'s studies say about the decisive judgements it needs for ``what``: ``(low, high)`` of the
    whole curve and ``(low, high)`` arrays of ``n_boot`` bootstrap resamples (:func:`reach_bounds`,
    :func:`bootstrap_curves`), in decisive judgements."""
    r = rows[rows["point_key"] == point_key(q)]
    R, C = r["repetition"].nunique(), len(q.checkpoints)
    rec = r[f"{what}_pooled"].to_numpy().reshape(R, C).astype(float)
    sh = r["n_decisive"].sum() / r["n_judgements"].sum()
    ck = np.asarray(q.checkpoints, float)
    full = tuple(b[0] * sh for b in reach_bounds(ck, rec.mean(0)))
    boot = tuple(b * sh for b in reach_bounds(ck, bootstrap_curves(rec, n_boot, seed)))
    return full, boot


def _saving_draws(rows: pd.DataFrame, points: list[Point], what: str, *, seed: int, n_boot: int) -> list:
    """Per information-gain or arena point: ``(row, lower ends, upper ends)``, the saving's point estimate and
    bounds (``row``) and its ``n_boot`` bootstrap resamples' intervals (see :func:`saving`). Each uniform
    point's resamples are drawn once and set against each design at its setting."""
    by = {}
    for p in points:
        if p.n_groups == 1:
            by[(p.n_models, p.spread, p.nu, p.design)] = p
    out, uniform = [], {}
    for (n, spread, nu, design), p in sorted(by.items(), key=lambda kv: str(kv[0])):
        u = by.get((n, spread, nu, "uniform"))
        if design == "uniform" or u is None:
            continue
        if u not in uniform:
            uniform[u] = _reach(rows, u, what, seed + 1, n_boot)
        ((d_lo, d_hi), (bd_lo, bd_hi)), ((u_lo, u_hi), (bu_lo, bu_hi)) = _reach(rows, p, what, seed, n_boot), uniform[u]
        with np.errstate(invalid="ignore", divide="ignore"):
            s_min, s_max = 1 - d_hi / u_lo, 1 - d_lo / u_hi
            b_min, b_max = 1 - bd_hi / bu_lo, 1 - bd_lo / bu_hi
        exact = s_min == s_max
        row = {"n_models": n, "spread": spread, "nu": nu, "design": design, "target": what,
               "n_design": d_hi, "n_uniform": u_hi, "n_design_min": d_lo, "n_uniform_min": u_lo,
               "saving": s_min if exact else np.nan, "saving_min": s_min, "saving_max": s_max}  # fmt: skip
        out.append((row, b_min, b_max))
    return out


def _with_intervals(draws: list, tail: float, level: float) -> pd.DataFrame:
    """The rows of :func:`_saving_draws` with their Monte Carlo interval at ``level``: the ``tail`` quantile of the
    resamples' lower ends and the ``1 - tail`` quantile of their upper ends (``tail = (1 - level) / 2``, passed as
    computed from its own terms: ``1 - 0.95`` in floating point is not 0.05, and with 200 resamples the 2.5 %
    quantile would move one resample)."""
    out = []
    for row, b_min, b_max in draws:
        lo = np.quantile(b_min, tail, method="inverted_cdf")
        hi = np.quantile(b_max, 1 - tail, method="inverted_cdf")
        out.append(row | {"saving_lo": float(lo), "saving_hi": float(hi), "level": level})
    return pd.DataFrame(out)


def saving(rows: pd.DataFrame, points: list[Point], what: str, *, seed: int, level: float = 0.95,
           n_boot: int = N_BOOT) -> pd.DataFrame:  # fmt: skip
    """Per information-gain or arena point: the share of decisive judgements it saves against the uniform
    design at the same setting, ``1 - n_design / n_uniform``, with a Monte Carlo interval at ``level``
    (independent bootstrap of each design's repetitions, :func:`bootstrap_curves`).

    Censoring: a design that never reaches 95 % within the budget needs more than the budget; one that is
    there at the first checkpoint needs at most that (:func:`reach_bounds`). Each resample's saving is then
    an interval ``[1 - high_d / low_u, 1 - low_d / high_u]``; the Monte Carlo interval is the ``(1 - level) / 2``
    quantile of the lower ends and the ``(1 + level) / 2`` quantile of the upper ends (conservative: an end that
    censoring leaves open is -inf or +1). ``saving`` is the point estimate where neither design is censored (else
    NaN, with its bounds in ``saving_min`` and ``saving_max``). One interval alone; the chapter's table, whose
    intervals are read together, is :func:`savings`."""
    tail = round((1 - level) / 2, 15)  # 0.025 for 0.95, not 0.025000000000000022
    return _with_intervals(_saving_draws(rows, points, what, seed=seed, n_boot=n_boot), tail, level)


def savings(rows: pd.DataFrame, points: list[Point], *, seed: int, alpha: float = FAMILY_ALPHA,
            n_boot: int = N_BOOT_FAMILY) -> pd.DataFrame:  # fmt: skip
    """The chapter's saving table: :func:`saving` for the top model, then for the full ranking, every interval
    at the level ``1 - alpha / m``, ``m`` the rows the chapter turns into verdicts (those the budget can resolve,
    :func:`censored_both`, counted over both targets and every design; column ``family``), from ``n_boot``
    resamples of each design's studies (column ``resamples``).

    Why: each verdict reads whether its interval excludes zero. At 95 % each, about one in twenty of the ``m``
    verdicts would be wrong by chance even where every design needed what uniform pairs need (an independent
    referee found one such, a loss of BT-Davidson at 5 models that a more precise uniform baseline removes).
    Bonferroni's level makes the chance that *any* of them is wrong at most ``alpha``. The point estimates do
    not depend on the level, so ``m`` is known before the intervals are read."""
    from compendium.stats.threads import thread_map

    # the two targets at once (their resamples, numpy's multinomial, release the GIL); the same draws either way
    parts = thread_map(lambda what: _saving_draws(rows, points, what, seed=seed, n_boot=n_boot), ("top", "rank"))
    draws = [d for part in parts for d in part]
    m = sum(censored_both(SimpleNamespace(**row)) == "" for row, _, _ in draws)
    out = _with_intervals(draws, alpha / (2 * max(m, 1)), 1 - alpha / max(m, 1))
    out["family"], out["resamples"] = m, n_boot
    return out


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


#: the ranges of reported P(best) judged per setting (:func:`calibration_by_setting`): at most 95 %, above
SETTING_RANGES = ((0.0, 0.95), (0.95, 1.0))
#: the fewest simulated studies with a board in a range for a verdict on it: the clustered standard error of
#: :func:`calibration_by_setting` is a large-sample one
MIN_STUDIES = 30


def calibration_by_setting(rows: pd.DataFrame, points: list[Point], *, alpha: float = FAMILY_ALPHA) -> pd.DataFrame:
    """Per single-group point (a setting: models, spread, ties, design) and range of the reported P(best)
    (:data:`SETTING_RANGES`: at most 95 %, above): how many boards and studies, the mean reported P(best), the share
    whose leader is truly best, and their gap (observed minus reported) with a simultaneous interval and a verdict.

    The P(best) is the simulation board's: the Laplace posterior of its MAP Bradley-Terry fit, 200 draws
    (:func:`compendium.humane.simulate.simulate_block`), whatever design chose the pairs. The boards of one study
    are correlated, so the gap's standard error is the clustered (sandwich) one of a ratio of sums over the studies,
    ``sqrt(S / (S - 1) * sum_s (D_s - gap n_s)^2) / N`` (``D_s``: a study's sum of observed minus reported over its
    ``n_s`` boards in the range); the interval is ``gap -+ z se`` with Bonferroni's ``z`` over the rows judged
    (those with at least :data:`MIN_STUDIES` studies). Verdict: ``calibrated`` (the interval holds 0),
    ``conservative`` (above 0: the leader is best more often than reported), ``over-confident`` (below 0), or
    ``too few boards``. Why per setting: pooled over settings, the wide spread's many boards above 95 % (whose
    leader is nearly always best) can hide a setting whose P(best) says more than it knows."""
    from scipy import stats

    out = []
    for p in points:
        if p.n_groups != 1:
            continue
        r = rows[rows["point_key"] == point_key(p)]
        for lo, hi in SETTING_RANGES:
            g = r[(r["pbest"] > lo) & (r["pbest"] <= hi)] if lo > 0 else r[r["pbest"] <= hi]
            d = g["leader_is_best"].astype(float) - g["pbest"]
            D, n = d.groupby(g["repetition"]).sum(), g.groupby("repetition").size()
            N, S = int(n.sum()), len(n)
            gap = float(D.sum() / N) if N else np.nan
            se = float(np.sqrt(S / (S - 1) * ((D - gap * n) ** 2).sum()) / N) if S > 1 else np.nan
            out.append({"n_models": p.n_models, "spread": p.spread, "nu": p.nu, "design": p.design,
                        "reported_lo": lo, "reported_hi": hi, "boards": N, "studies": S,
                        "mean_reported": float(g["pbest"].mean()) if N else np.nan,
                        "observed": float(g["leader_is_best"].mean()) if N else np.nan, "gap": gap, "gap_se": se})  # fmt: skip
    df = pd.DataFrame(out)
    judged = df["studies"] >= MIN_STUDIES
    m = int(judged.sum())
    z = float(stats.norm.ppf(1 - alpha / (2 * max(m, 1))))
    df["gap_lo"] = np.where(judged, df["gap"] - z * df["gap_se"], np.nan)
    df["gap_hi"] = np.where(judged, df["gap"] + z * df["gap_se"], np.nan)
    df["verdict"] = np.select(
        [~judged, df["gap_lo"] > 0, df["gap_hi"] < 0],
        ["too few boards", "conservative", "over-confident"],
        "calibrated",
    )
    df["family"], df["z"] = m, z
    return df


#: recovery shares between which a checkpoint's comparison of two boards is not saturated: outside, both boards
#: recover (almost) always or (almost) never, and their gap can say nothing
UNSATURATED = (0.05, 0.95)


def consolidation_cells(rows: pd.DataFrame, points: list[Point]) -> pd.DataFrame:
    """Per multi-group point, checkpoint and target (full ranking, top model): the recovery of the pooled board and
    of the consolidated one (the mean of the groups' boards), their paired gap (pooled minus consolidated, over the
    same simulated studies) with its Monte Carlo standard error (of the mean of the per-study differences), the
    decisive judgements, and whether the cell is ``unsaturated`` (both recoveries within :data:`UNSATURATED`)."""
    out = []
    for p in points:
        if p.n_groups == 1:
            continue
        r = rows[rows["point_key"] == point_key(p)]
        for c, g in r.groupby("checkpoint", sort=True):
            for what in ("rank", "top"):
                a, b = g[f"{what}_pooled"].to_numpy(float), g[f"{what}_consolidated"].to_numpy(float)
                d = a - b
                row = {"n_models": p.n_models, "spread": p.spread, "n_groups": p.n_groups, "checkpoint": int(c),
                       "n_decisive": float(g["n_decisive"].mean()), "target": what, "studies": len(d),
                       "p_pooled": a.mean(), "p_consolidated": b.mean(), "gap": d.mean(),
                       "gap_se": d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else np.nan}  # fmt: skip
                row["unsaturated"] = bool(all(UNSATURATED[0] <= x <= UNSATURATED[1] for x in (a.mean(), b.mean())))
                out.append(row)
    return pd.DataFrame(out)


def consolidation(rows: pd.DataFrame, points: list[Point], cells: pd.DataFrame) -> pd.DataFrame:
    """Per multi-group point: at the budget, the pooled board's mean posterior SD of the centred log-strengths
    against the least uncertain group board's (ratio; sqrt(1/G) if groups only split the data); and, per target,
    how many of its checkpoints compare the pooled and the consolidated board unsaturated (``cells``, of
    :func:`consolidation_cells`) and the one whose gap is largest against its standard error (its gap, SE and
    decisive judgements; NaN if none). At the budget itself both boards recover nearly always (or, for the full
    ranking at 20 models and the study's spread, never), where no gap can show."""
    out = []
    for p in points:
        if p.n_groups == 1:
            continue
        r = rows[(rows["point_key"] == point_key(p)) & (rows["checkpoint"] == len(p.checkpoints) - 1)]
        row = {"n_models": p.n_models, "spread": p.spread, "n_groups": p.n_groups, "group_sd": p.group_sd,
               "studies": len(r), "sd_pooled": r["sd_pooled"].mean(), "sd_min_group": r["sd_min_group"].mean(),
               "ratio": (r["sd_pooled"] / r["sd_min_group"]).mean(), "sqrt_1_over_g": (1 / p.n_groups) ** 0.5}  # fmt: skip
        mine = cells[(cells["n_models"] == p.n_models) & (cells["spread"] == p.spread)
                     & (cells["n_groups"] == p.n_groups) & cells["unsaturated"]]  # fmt: skip
        for what in ("rank", "top"):
            t = mine[mine["target"] == what]
            z = gap_z(t)
            top = t.loc[z.abs().idxmax()] if len(t) else None
            row |= {f"{what}_cells": len(t),
                    f"{what}_gap": top["gap"] if top is not None else np.nan,
                    f"{what}_gap_se": top["gap_se"] if top is not None else np.nan,
                    f"{what}_gap_at": top["n_decisive"] if top is not None else np.nan}  # fmt: skip
        out.append(row)
    return pd.DataFrame(out)


def gap_z(cells: pd.DataFrame) -> pd.Series:
    """Each cell's gap over its standard error (0 where both are 0: the two boards agreed in every study)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        z = cells["gap"] / cells["gap_se"]
    return z.where(~((cells["gap"] == 0) & (cells["gap_se"] == 0)), 0.0)


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
