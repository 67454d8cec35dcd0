"""Active-sampling simulation: how many judgements until the true ranking is recovered?

The fitted Bradley-Terry strengths are taken as the truth and battles are simulated under three
ways of choosing which pair to show next:

* ``uniform``: every one of the 10 pairs equally likely (the study's own balanced design);
* ``information_gain``: the pair whose outcome is expected to reduce rating uncertainty the most
  (the HUMANE selection rule), computed from a Gaussian belief over the log-strengths
  (:func:`compendium.stats.pairwise.bradley_terry_map` and
  :func:`~compendium.stats.pairwise.expected_information_gain`);
* ``arena``: arena-like skew, where a few popular models get most of the battles: model ``k`` of a
  random popularity order has weight ``(k + 1) ** -arena_skew`` and a pair is drawn with probability
  proportional to the product of its two weights (a new popularity order in every repetition).

Judgements are decisive (win/loss) draws from the true BT probabilities. The truth must be a model of
*decisive* judgements: the strengths fitted with ties as half-wins are pulled towards 50/50 by the
ties and would understate every gap; :func:`decisive_truth` gives the Davidson (or ties-dropped)
strengths, whose ``pi_i / (pi_i + pi_j)`` is the probability that ``i`` wins a decisive judgement. Every strategy is scored
with the same estimator: the MAP BT log-strengths (weak ``N(0, prior_sd^2)`` prior, so a ranking
exists from the first judgement) at checkpoints every ``checkpoint_every`` judgements. The curve is
the share of repetitions whose estimated ranking equals the true one (all five places, or only the
top model). Everything is vectorised over repetitions; uniform and arena sampling are drawn
checkpoint-to-checkpoint in one go, information-gain sampling loops over selection rounds of
``batch`` judgements with all repetitions batched.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from ..stats import pairwise as pw

STRATEGIES = ("uniform", "information_gain", "arena")
TRUTHS = ("davidson", "ties_dropped")


def decisive_truth(counts: pd.DataFrame, model: str = "davidson") -> np.ndarray:
    """Strengths (in :data:`compendium.preferences.MODELS` order, sum K) whose BT probability is the
    chance of winning a *decisive* judgement: the Davidson (1970) fit (``davidson``), under which
    P(i beats j | not a tie) = pi_i / (pi_i + pi_j) exactly, or BT with the ties dropped
    (``ties_dropped``). Not the half-win fit, which the ties shrink towards equality."""
    from .reproduce import MODELS, _indices, validate_pair_counts, win_matrix

    if model not in TRUTHS:
        raise ValueError(f"decisive_truth: unknown model {model!r}; expected one of {TRUTHS}")
    df = validate_pair_counts(counts)
    if model == "ties_dropped":
        res = pw.bradley_terry_mm(win_matrix(df, tie_weight=0.0), tol=1e-12, max_iter=100_000)
        return np.asarray(res.strengths, dtype=float)
    i, j = _indices(df)
    K = len(MODELS)
    zeros = np.zeros(len(df))
    wins = pw.win_matrix_from_counts(i, j, df["x_wins"].to_numpy(), df["y_wins"].to_numpy(), zeros, K)
    ties = pw.win_matrix_from_counts(i, j, zeros, zeros, df["ties"].to_numpy(), K, tie_weight=1.0)
    fit = pw.davidson_fit(wins, ties)
    if not fit.converged:
        raise RuntimeError("decisive_truth: Davidson fit did not converge")
    return np.asarray(fit.strengths, dtype=float)


def _map_theta_chord(
    wins: np.ndarray,
    n: np.ndarray,
    theta_true: np.ndarray,
    n_ck: np.ndarray,
    prior_sd: float,
    tol: float = 1e-10,
    max_iter: int = 200,
) -> np.ndarray:
    """MAP Bradley-Terry log-strengths with the objective of
    :func:`compendium.stats.pairwise.bradley_terry_map` (the simulation's estimator), for studies given
    by pair counts ``wins`` (``i`` beat ``j``) and ``n`` (judgements), shape ``(R, C, P)`` in the order
    of :func:`~compendium.stats.pairwise.pair_index`. Found by a chord Newton iteration: started at the
    truth, every step uses the Hessian of the *expected* counts at the truth for its checkpoint
    (``n_ck[c]`` judgements spread uniformly over the pairs), inverted once per checkpoint rather than
    once per study and step. The objective is strictly concave, so the fixed point (gradient 0) is the
    same MAP; only the path to it differs, and it is much faster for many studies."""
    K = theta_true.size
    i, j = pw.pair_index(K)
    prec0 = 1.0 / (prior_sd * prior_sd)
    P0 = special.expit(theta_true[:, None] - theta_true[None, :])
    off = 1.0 - np.eye(K)
    A0 = (np.asarray(n_ck, dtype=float) / i.size)[:, None, None] * (P0 * (1.0 - P0) * off)[None]  # (C, K, K)
    Hinv = pw.spd_inverse(np.eye(K) * (A0.sum(-1)[:, None, :] + prec0) - A0)
    theta = np.broadcast_to(theta_true, n.shape[:-1] + (K,)).copy()
    grad = np.empty_like(theta)
    for _ in range(max_iter):
        resid = wins - n * special.expit(theta[..., i] - theta[..., j])  # (R, C, P)
        np.multiply(theta, -prec0, out=grad)
        for p_, (a, b) in enumerate(zip(i, j)):
            grad[..., a] += resid[..., p_]
            grad[..., b] -= resid[..., p_]
        step = np.einsum("ckl,rcl->rck", Hinv, grad)
        theta += step
        if np.abs(step).max() < tol:
            return theta
    raise RuntimeError(f"uniform_needed: the MAP iteration did not converge in {max_iter} steps")


RECOVERY = ("ranking", "top")


def uniform_boards(
    true_strengths, checkpoints, repetitions: int, seed, prior_sd: float = 1.0, nested: bool = True
) -> np.ndarray:
    """The fitted boards, MAP Bradley-Terry log-strengths ``(repetitions, len(checkpoints), K)`` with an
    ``N(0, prior_sd^2)`` prior (:func:`_map_theta_chord`), of simulated studies with uniform pairs and decisive
    judgements drawn from ``true_strengths``: the simulation behind :func:`uniform_recovery_curve` (and so behind
    this chapter's judgements needed, :func:`uniform_needed`), given whole so that another chapter can score the
    same studies by its own rule (the HUMANE scale chapter's shared uniform baseline,
    :func:`compendium.humane.baseline.shared_baseline`).

    ``nested=True``: each study is observed at every checkpoint (its judgements up to one checkpoint are part
    of the next); ``nested=False``: every checkpoint has its own ``repetitions`` independent studies.
    ``checkpoints``: increasing numbers of decisive judgements; ``seed``: int or SeedSequence."""
    pi = np.asarray(true_strengths, dtype=float)
    ck = np.asarray(checkpoints, dtype=np.int64)
    if pi.ndim != 1 or np.any(pi <= 0):
        raise ValueError("uniform_boards: true_strengths must be a vector of positive strengths")
    if ck.ndim != 1 or ck.size == 0 or ck[0] < 1 or np.any(np.diff(ck) <= 0):
        raise ValueError("uniform_boards: checkpoints must be increasing positive numbers of judgements")
    K = pi.size
    theta_true = np.log(pi)
    i, j = pw.pair_index(K)
    p_win = special.expit(theta_true[i] - theta_true[j])
    rng = np.random.default_rng(seed)
    uniform = np.full(i.size, 1.0 / i.size)
    if nested:
        inc = np.diff(ck, prepend=0)
        n_inc = np.stack([rng.multinomial(m, uniform, size=repetitions) for m in inc], 1)
        w_inc = rng.binomial(n_inc, p_win)
        wins, n = w_inc.cumsum(1), n_inc.cumsum(1)
    else:
        n = np.stack([rng.multinomial(m, uniform, size=repetitions) for m in ck], 1)
        wins = rng.binomial(n, p_win)
    return _map_theta_chord(wins.astype(float), n.astype(float), theta_true, ck, prior_sd)


def uniform_recovery_curve(
    true_strengths,
    checkpoints,
    repetitions: int,
    seed,
    prior_sd: float = 1.0,
    what: str = "ranking",
    nested: bool = True,
) -> np.ndarray:
    """Recovery (boolean, ``(repetitions, len(checkpoints))``) of simulated studies with uniform pairs,
    scored with the simulation's estimator (MAP Bradley-Terry, ``N(0, prior_sd^2)`` prior; the boards of
    :func:`uniform_boards`): the exact ranking (``what="ranking"``) or only the true top model (``what="top"``).

    ``nested=True``: each study is observed at every checkpoint (its judgements up to one checkpoint
    are part of the next), so a column is a recovery curve; ``nested=False``: every checkpoint has its
    own ``repetitions`` independent studies, so the columns are independent binomial samples (what a
    fitted crossing needs, :func:`probit_crossing`). ``checkpoints``: increasing numbers of decisive
    judgements; ``seed``: int or SeedSequence."""
    if what not in RECOVERY:
        raise ValueError(f"uniform_recovery_curve: what must be one of {RECOVERY}, got {what!r}")
    theta = uniform_boards(true_strengths, checkpoints, repetitions, seed, prior_sd, nested)
    theta_true = np.log(np.asarray(true_strengths, dtype=float))
    if what == "top":
        return theta.argmax(-1) == int(np.argmax(theta_true))
    return (np.argsort(-theta, axis=-1) == np.argsort(-theta_true)).all(-1)


def recovery_crossing(p, checkpoints, target: float) -> np.ndarray:
    """Where each recovery curve (rows of ``p`` over ``checkpoints``) first reaches ``target``, by linear
    interpolation in log n between the checkpoints either side; NaN if it never does or already does at
    the first checkpoint (not bracketed)."""
    p = np.atleast_2d(np.asarray(p, dtype=float))
    ck = np.asarray(checkpoints, dtype=float)
    reached = p >= target
    first = np.where(reached.any(1), reached.argmax(1), -1)
    out = np.full(p.shape[0], np.nan)
    r = np.nonzero(first > 0)[0]
    b = first[r]
    a = b - 1
    x0, x1, y0, y1 = np.log(ck[a]), np.log(ck[b]), p[r, a], p[r, b]
    out[r] = np.exp(x0 + (target - y0) / (y1 - y0) * (x1 - x0))
    return out


def probit_crossing(successes, trials, checkpoints, target: float, level: float = 0.90) -> dict[str, float]:
    """Where a recovery probability reaches ``target``, from *independent* binomial counts
    (``successes`` of ``trials`` studies at each of ``checkpoints`` judgements): a binomial GLM with
    probit link, ``Phi^-1(P) = b0 + b1 log n`` (:mod:`statsmodels`), solved for ``P = target``, with the
    delta-method standard error of ``log n`` from the fit's covariance. Every checkpoint is used, so the
    estimate does not hang on the two checkpoints around a noisy first crossing.

    Returns ``n``, ``se_log``, ``mc_se`` (``n * se_log``), ``mc_lo``/``mc_hi`` (a ``level`` interval,
    symmetric in log n), ``inside`` (whether ``n`` lies within the checkpoints, where the local
    probit line is a good description of the curve) and the fit's ``deviance`` on ``df`` residual degrees of
    freedom (about ``df`` when the line describes the curve within binomial noise: the interval then holds the
    whole of the reading's uncertainty; far above, the line's shape would add an error the interval omits)."""
    import statsmodels.api as sm
    from scipy import stats

    k = np.asarray(successes, dtype=float)
    m = np.broadcast_to(np.asarray(trials, dtype=float), k.shape)
    ck = np.asarray(checkpoints, dtype=float)
    if not (k.ndim == 1 and k.shape == ck.shape and k.size >= 3 and np.all((0 <= k) & (k <= m))):
        raise ValueError("probit_crossing: need at least 3 checkpoints with 0 <= successes <= trials each")
    if not 0 < target < 1:
        raise ValueError(f"probit_crossing: target must be between 0 and 1, got {target}")
    X = sm.add_constant(np.log(ck))
    fit = sm.GLM(np.column_stack([k, m - k]), X, family=sm.families.Binomial(sm.families.links.Probit())).fit()
    b0, b1 = fit.params
    if not b1 > 0:
        raise ValueError("probit_crossing: the recovery probability does not rise over these checkpoints")
    g = (stats.norm.ppf(target) - b0) / b1
    jac = np.array([-1.0 / b1, -g / b1])
    se_log = float(np.sqrt(jac @ np.asarray(fit.cov_params()) @ jac))
    z = stats.norm.ppf(0.5 + level / 2)
    n = float(np.exp(g))
    return {
        "n": n,
        "se_log": se_log,
        "mc_se": n * se_log,
        "mc_lo": float(np.exp(g - z * se_log)),
        "mc_hi": float(np.exp(g + z * se_log)),
        "inside": bool(ck[0] <= n <= ck[-1]),
        "deviance": float(fit.deviance),
        "df": int(round(fit.df_resid)),
    }


def curve_crossing(p, checkpoints, target: float, repetitions: int, window: float = 0.25, window_from=None):
    """Where a recovery curve reaches ``target``, from a probit line fitted to it near the crossing: the
    weighted least-squares line of ``Phi^-1(p)`` on ``log n`` over the checkpoints within ``window`` (in
    log n) of the curve's interpolated first crossing (:func:`recovery_crossing`), weights
    ``repetitions * phi(z)^2 / (p (1 - p))`` (the inverse binomial variance of ``z``). Less noisy than
    the first checkpoint past the target, which hangs on one or two noisy checkpoints where the curve is
    flat. ``p``: a curve or rows of curves (e.g. bootstrap resamples); ``window_from``: the curve that
    fixes the window and the weights for every row (default: ``p`` itself, which must then be one
    curve). A float for one curve, an array for rows; NaN where the curve does not reach the target, or
    fewer than 3 checkpoints fall in the window."""
    from scipy import stats

    one = np.ndim(p) == 1
    p = np.atleast_2d(np.asarray(p, dtype=float))
    ck = np.asarray(checkpoints, dtype=float)
    if window_from is None and not one:
        raise ValueError("curve_crossing: rows of curves need window_from, the curve that fixes the window")
    ref = np.asarray(p[0] if window_from is None else window_from, dtype=float)

    def result(g):
        out = np.exp(g)
        return float(out[0]) if one else out

    n1 = recovery_crossing(ref, ck, target)[0]
    x = np.log(ck)
    sel = np.abs(x - np.log(n1)) <= window if np.isfinite(n1) else np.zeros(ck.size, bool)
    if sel.sum() < 3:
        return result(np.full(p.shape[0], np.nan))
    lo_clip = 0.5 / repetitions
    pr = np.clip(ref[sel], lo_clip, 1 - lo_clip)
    w = repetitions * stats.norm.pdf(stats.norm.ppf(pr)) ** 2 / (pr * (1 - pr))
    z = stats.norm.ppf(np.clip(p[:, sel], lo_clip, 1 - lo_clip))  # (B, S)
    xs = x[sel]
    xm = (w * xs).sum() / w.sum()
    zm = (z * w).sum(1) / w.sum()
    slope = ((w * (xs - xm)) * (z - zm[:, None])).sum(1) / (w * (xs - xm) ** 2).sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(slope > 0, xm + (stats.norm.ppf(target) - zm) / slope, np.nan)
    return result(g)


def uniform_needed(
    true_strengths,
    target: float = 0.95,
    repetitions: int = 4_000,
    *,
    seed: int | np.random.SeedSequence,
    prior_sd: float = 1.0,
    pilot_repetitions: int = 250,
    ratio: float = 1.06,
    half_width: int = 4,
    what: str = "ranking",
) -> dict[str, float]:
    """Decisive judgements with uniform pairs at which the exact ranking (``what="ranking"``) or the
    true top model (``what="top"``) is recovered with probability ``target``, with a 90 % Monte Carlo
    interval.

    A pilot (``pilot_repetitions`` nested studies on a coarse grid, ratio 1.3 from 1,000 judgements)
    locates the crossing; the main pass puts ``repetitions`` *independent* studies at each of
    ``2 * half_width + 1`` checkpoints spaced by ``ratio`` around it, and :func:`probit_crossing` fits
    the crossing to all of them. If the estimate falls outside the checkpoints (a pilot that missed),
    the grid is centred on it and the pass re-run (up to 3 times). Returns ``n``, ``mc_lo``, ``mc_hi``,
    ``mc_se``, ``repetitions`` (studies per checkpoint), the probit fit's ``deviance`` on ``df`` degrees of
    freedom and ``n_linear`` (the main pass's curve read by a straight line between the checkpoints either
    side)."""
    if not 0 < target < 1:
        raise ValueError(f"uniform_needed: target must be between 0 and 1, got {target}")
    seeds = (seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)).spawn(4)
    coarse = np.unique(np.round(1000 * 1.3 ** np.arange(28)).astype(np.int64))
    pilot = uniform_recovery_curve(true_strengths, coarse, pilot_repetitions, seeds[0], prior_sd, what)
    n0 = recovery_crossing(pilot.mean(0), coarse, target)[0]
    if not np.isfinite(n0):
        raise ValueError(
            "uniform_needed: the pilot did not bracket the target between 1,000 and 1.2 million judgements"
        )
    for attempt in range(3):
        ck = np.unique(np.round(n0 * ratio ** np.arange(-half_width, half_width + 1)).astype(np.int64))
        rec = uniform_recovery_curve(true_strengths, ck, repetitions, seeds[1 + attempt], prior_sd, what, nested=False)
        res = probit_crossing(rec.sum(0), repetitions, ck, target)
        if res["inside"]:
            # the same curve read by a straight line between the two checkpoints either side (the read-out of
            # recovery_crossing): on this fine grid it should agree with the probit line if the line fits
            linear = float(recovery_crossing(rec.mean(0), ck, target)[0])
            return {k: res[k] for k in ("n", "mc_lo", "mc_hi", "mc_se", "deviance", "df")} | {
                "repetitions": int(repetitions),
                "n_linear": linear,
            }
        n0 = res["n"]
    raise RuntimeError("uniform_needed: the fitted crossing never fell inside the checkpoint grid")


def needed_by_gap(
    true_strengths,
    factors,
    pair: tuple[int, int],
    target: float = 0.95,
    repetitions: int = 20_000,
    *,
    seed: int,
    prior_sd: float = 1.0,
    executor=None,
    **kwargs,
) -> pd.DataFrame:
    """Judgements needed (uniform pairs, exact ranking with probability ``target``) if the log-strength
    gap of ``pair = (a, b)`` (``a`` the stronger) were ``f`` times its value with every other strength
    unchanged (``theta_a`` moves to ``theta_b + f * (theta_a - theta_b)``): simulated at each gap by
    :func:`uniform_needed` (an independent stream per factor), not scaled from one gap. ``executor``
    (a :class:`concurrent.futures.Executor`, e.g. :func:`compendium.stats.threads.pool`): the gaps are simulated
    on it, at once; the same numbers, since each has its own stream.

    Only factors under which ``a`` and ``b`` stay neighbours and their gap stays the smallest (or tied) adjacent
    gap of the true order are simulated; the others come back with ``closest_pair = False`` and NaN.
    Columns: ``factor, log_gap, closest_pair, n_needed, n_mc_lo, n_mc_hi, n_mc_se``."""
    theta = np.log(np.asarray(true_strengths, dtype=float))
    a, b = pair
    gap = theta[a] - theta[b]
    if gap <= 0:
        raise ValueError("needed_by_gap: the first model of the pair must be the stronger one")
    factors = [float(f) for f in factors]
    from ..stats.threads import Serial

    ex = Serial() if executor is None else executor
    rows, runs = [], []
    for f, stream in zip(factors, np.random.SeedSequence(seed).spawn(len(factors)), strict=True):
        th = theta.copy()
        th[a] = th[b] + f * gap
        order = list(np.argsort(-th, kind="stable"))  # strongest first
        steps = -np.diff(th[order])  # the adjacent log-gaps of the true order
        k = order.index(a)
        closest = bool(f > 0 and k + 1 < th.size and order[k + 1] == b and steps[k] <= steps.min() + 1e-12)
        rows.append({"factor": f, "log_gap": f * gap, "closest_pair": closest})
        opts = dict(seed=stream, prior_sd=prior_sd, **kwargs)
        runs.append(ex.submit(uniform_needed, np.exp(th), target, repetitions, **opts) if closest else None)
    for row, run in zip(rows, runs, strict=True):
        res = None if run is None else run.result()
        row |= (
            dict.fromkeys(("n_needed", "n_mc_lo", "n_mc_hi", "n_mc_se"), np.nan)
            if res is None
            else {"n_needed": res["n"], "n_mc_lo": res["mc_lo"], "n_mc_hi": res["mc_hi"], "n_mc_se": res["mc_se"]}
        )
    return pd.DataFrame(rows)


def detectable_difference(p0: float, repetitions: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest difference in a recovery probability (around ``p0``) that two independent sets of
    ``repetitions`` simulated studies detect with the given two-sided ``alpha`` and ``power``
    (normal approximation: (z_{1-alpha/2} + z_power) * sqrt(2 p0 (1 - p0) / R))."""
    from scipy import stats

    if not 0 < p0 < 1 or repetitions < 1:
        raise ValueError("detectable_difference: need 0 < p0 < 1 and repetitions >= 1")
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
    return float(z * np.sqrt(2 * p0 * (1 - p0) / repetitions))


def detectable_saving(
    curves: pd.DataFrame,
    n_judgements: int,
    repetitions: int,
    alpha: float = 0.05,
    power: float = 0.8,
    strategy: str = "uniform",
) -> dict[str, float]:
    """How large a saving of judgements the comparison at ``n_judgements`` could detect.

    A design that needs a share ``s`` fewer judgements than ``strategy`` reaches, at ``n``, the
    recovery ``strategy`` has at ``n / (1 - s)``; the comparison detects it when that gain exceeds
    :func:`detectable_difference`. Returns ``mdd`` (probability) and the smallest detectable ``saving``
    (share of judgements; NaN when even the budget's curve does not rise by ``mdd``), from the
    strategy's recovery curve (linear interpolation between checkpoints)."""
    c = curves[curves["strategy"] == strategy].sort_values("n_judgements")
    if c.empty:
        raise ValueError(f"detectable_saving: no curve for strategy {strategy!r}")
    x, y = c["n_judgements"].to_numpy(float), c["p_ranking"].to_numpy(float)
    p0 = float(np.interp(n_judgements, x, y))
    mdd = detectable_difference(min(max(p0, 1e-6), 1 - 1e-6), repetitions, alpha, power)
    grid = np.linspace(n_judgements, x[-1], 2001)
    gain = np.interp(grid, x, y) - p0
    hit = np.nonzero(gain >= mdd)[0]
    saving = float(1 - n_judgements / grid[hit[0]]) if hit.size else float("nan")
    return {"p0": p0, "mdd": mdd, "saving": saving}


@dataclass(frozen=True)
class SimulationResult:
    """``curves``: strategy x checkpoint recovery probabilities; ``allocation``: mean share of
    judgements each pair received; ``recovered``: per strategy, boolean arrays ``(R, C)`` of exact
    ranking / true top recovered in each repetition at each checkpoint; ``params``: the settings."""

    curves: pd.DataFrame
    allocation: pd.DataFrame
    recovered: dict
    params: dict

    def judgements_needed(self, target: float = 0.95, n_boot: int = 200, *, seed: int) -> pd.DataFrame:
        """Per strategy: where P(exact ranking) and P(true top model) reach ``target``, from a probit line
        fitted to the recovery curve near the crossing (:func:`curve_crossing`; NaN when the curve does
        not reach the target within the budget), a 90 % Monte Carlo interval and standard error for it
        (the same fit on ``n_boot`` bootstrap resamples of the repetitions; NaN when some resample never
        reaches the target), ``first_checkpoint_{ranking,top}`` (the first checkpoint at which the curve
        itself reaches the target) and the probabilities at the budget."""
        ck = np.sort(self.curves["n_judgements"].unique())
        rng = np.random.default_rng(seed)
        rows = []
        for s in self.curves["strategy"].unique():
            row = {"strategy": s}
            for key, name in (("ranking", "ranking"), ("top", "top")):
                rec = self.recovered[s][key]  # (R, C)
                R = rec.shape[0]
                p = rec.mean(0)
                hit = np.nonzero(p >= target)[0]
                pb = rec[rng.integers(0, R, size=(n_boot, R))].mean(1)  # (B, C)
                n, nb = curve_crossing(p, ck, target, R), curve_crossing(pb, ck, target, R, window_from=p)
                ok = np.isfinite(n) and np.isfinite(nb).all()
                lo, hi = np.quantile(nb, [0.05, 0.95]) if ok else (np.nan, np.nan)
                row[f"n_for_{name}"] = float(n)
                row[f"n_for_{name}_mc_lo"] = float(lo)
                row[f"n_for_{name}_mc_hi"] = float(hi)
                row[f"n_for_{name}_mc_se"] = float(nb.std(ddof=1)) if ok and n_boot > 1 else np.nan
                row[f"first_checkpoint_{name}"] = float(ck[hit[0]]) if hit.size else np.nan
                row[f"p_{name}_at_budget"] = float(p[-1])
            rows.append(row)
        return pd.DataFrame(rows)

    def recovery_at(self, n_judgements: int, z: float = 1.96) -> pd.DataFrame:
        """Per strategy: P(exact ranking) and P(true top) at the first checkpoint >= ``n_judgements``,
        with Wilson intervals over the repetitions (the strategies use independent random streams)."""
        ck = np.sort(self.curves["n_judgements"].unique())
        if n_judgements > ck[-1]:
            raise ValueError(f"n_judgements={n_judgements} is beyond the budget ({ck[-1]})")
        c = int(np.searchsorted(ck, n_judgements))
        rows = []
        for s, rec in self.recovered.items():
            row = {"strategy": s, "n_judgements": int(ck[c])}
            for key in ("ranking", "top"):
                k, R = int(rec[key][:, c].sum()), rec[key].shape[0]
                lo, hi = pw.wilson_interval(k, R, z=z)
                row.update({f"p_{key}": k / R, f"p_{key}_lo": lo, f"p_{key}_hi": hi})
            rows.append(row)
        return pd.DataFrame(rows)


def compare_with_uniform(result: SimulationResult, n_judgements: int, z: float = 1.96) -> pd.DataFrame:
    """Difference in P(exact ranking) between each strategy and uniform sampling at the same budget,
    with a normal-approximation interval (independent streams: SE^2 = p1 q1 / R1 + p0 q0 / R0) and a
    verdict ``more`` / ``less`` / ``no detectable difference``."""
    rec = result.recovery_at(n_judgements).set_index("strategy")
    if "uniform" not in rec.index:
        raise ValueError("compare_with_uniform: the simulation did not run the uniform strategy")
    R = {s: v["ranking"].shape[0] for s, v in result.recovered.items()}
    p0 = rec.loc["uniform", "p_ranking"]
    rows = []
    for s in rec.index:
        p1 = rec.loc[s, "p_ranking"]
        se = np.sqrt(p1 * (1 - p1) / R[s] + p0 * (1 - p0) / R["uniform"])
        d = p1 - p0
        lo, hi = d - z * se, d + z * se
        verdict = "more" if lo > 0 else "less" if hi < 0 else "no detectable difference"
        rows.append(
            {
                "strategy": s,
                "n_judgements": int(rec.loc[s, "n_judgements"]),
                "p_ranking": p1,
                "p_ranking_uniform": p0,
                "difference": d,
                "diff_lo": lo,
                "diff_hi": hi,
                "verdict": verdict,
            }
        )
    return pd.DataFrame(rows)


def uniform_recovery_at(
    true_strengths, n_judgements: int, repetitions: int, seed: int, prior_sd: float = 1.0
) -> dict[str, float]:
    """P(exact ranking) and P(true top) after exactly ``n_judgements`` decisive judgements spread
    uniformly over the pairs (e.g. the study's own size), same estimator as the simulation."""
    pi = np.asarray(true_strengths, dtype=float)
    K = pi.size
    theta_true = np.log(pi)
    i, j = pw.pair_index(K)
    p_win = special.expit(theta_true[i] - theta_true[j])
    rng = np.random.default_rng(seed)
    W = _nonadaptive(rng, np.full((repetitions, i.size), 1.0 / i.size), p_win, K, 1, n_judgements)
    exact, top = _recovery(W, theta_true, prior_sd)
    return {"n_judgements": n_judgements, "p_ranking": float(exact.mean()), "p_top": float(top.mean())}


def _pair_probs_arena(rng, repetitions: int, n_models: int, skew: float) -> np.ndarray:
    i, j = pw.pair_index(n_models)
    popularity = np.argsort(rng.random((repetitions, n_models)), axis=1)  # popularity rank of each model
    weight = (popularity + 1.0) ** (-skew)
    p = weight[:, i] * weight[:, j]
    return p / p.sum(1, keepdims=True)


def _recovery(W_snap: np.ndarray, true_theta: np.ndarray, prior_sd: float) -> tuple[np.ndarray, np.ndarray]:
    theta, _ = pw.bradley_terry_map(W_snap, prior_sd=prior_sd, n_iter=50)
    order = np.argsort(-theta, axis=-1)
    true_order = np.argsort(-true_theta)
    exact = (order == true_order).all(-1)
    top = order[..., 0] == true_order[0]
    return exact, top


def _nonadaptive(rng, pair_probs: np.ndarray, p_win: np.ndarray, n_models: int, n_ck: int, every: int) -> np.ndarray:
    """Win matrices at each checkpoint, shape (R, C, K, K), for pair probabilities (R, P)."""
    R = pair_probs.shape[0]
    i, j = pw.pair_index(n_models)
    n_inc = rng.multinomial(every, pair_probs[:, None, :], size=(R, n_ck))  # (R, C, P)
    w_inc = rng.binomial(n_inc, p_win)  # i beats j
    n_cum = n_inc.cumsum(1)
    w_cum = w_inc.cumsum(1)
    return pw.win_matrix_from_counts(i, j, w_cum, n_cum - w_cum, np.zeros_like(w_cum), n_models)


def _information_gain(
    rng, p_win: np.ndarray, n_models: int, repetitions: int, n_ck: int, every: int, batch: int, prior_sd: float
) -> tuple[np.ndarray, np.ndarray]:
    """Selection rounds of ``batch`` judgements; each round: Laplace belief at the current estimate
    (one warm-started Newton step of :func:`~compendium.stats.pairwise.bradley_terry_map`, fused here so
    one matrix inverse per round serves both the covariance and the step), the pair with the largest
    expected information gain, ``batch`` outcomes for that pair."""
    i, j = pw.pair_index(n_models)
    R = repetitions
    rows = np.arange(R)
    W = np.zeros((R, n_models, n_models))
    N = np.zeros((R, n_models, n_models))
    theta = np.zeros((R, n_models))
    snaps = np.empty((R, n_ck, n_models, n_models))
    prec0 = 1.0 / (prior_sd * prior_sd)
    eye = np.eye(n_models)
    rounds_per_ck = every // batch
    for c in range(n_ck):
        for _ in range(rounds_per_ck):
            P = special.expit(theta[:, :, None] - theta[:, None, :])
            A = N * P * (1.0 - P)
            cov = pw.spd_inverse(eye * (A.sum(-1)[:, None, :] + prec0) - A)  # no LAPACK: kernel-independent
            var = cov[:, i, i] + cov[:, j, j] - 2.0 * cov[:, i, j]
            pij = P[:, i, j]
            pick = np.log1p(pij * (1.0 - pij) * var).argmax(1)  # = argmax of expected_information_gain
            grad = (W - N * P).sum(-1) - prec0 * theta
            theta = theta + (cov * grad[:, None, :]).sum(-1)  # Newton step (warm start), no BLAS
            k = rng.binomial(batch, p_win[pick])
            a, b = i[pick], j[pick]
            W[rows, a, b] += k
            W[rows, b, a] += batch - k
            N[rows, a, b] += batch
            N[rows, b, a] += batch
        snaps[:, c] = W
    return snaps, N[:, i, j]


def _one_strategy(
    s: str,
    stream,
    theta_true: np.ndarray,
    p_win: np.ndarray,
    repetitions: int,
    n_ck: int,
    every: int,
    batch: int,
    prior_sd: float,
    skew: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One strategy's simulated studies: (exact ranking recovered, top recovered) per repetition and
    checkpoint, and each repetition's judgements per pair at the budget. Module-level, so that a worker
    process can run it."""
    rng = np.random.default_rng(stream)
    K = theta_true.size
    if s == "information_gain":
        snaps, n_pair = _information_gain(rng, p_win, K, repetitions, n_ck, every, batch, prior_sd)
    else:
        i, j = pw.pair_index(K)
        probs = (
            np.full((repetitions, i.size), 1.0 / i.size)
            if s == "uniform"
            else _pair_probs_arena(rng, repetitions, K, skew)
        )
        snaps = _nonadaptive(rng, probs, p_win, K, n_ck, every)
        n_pair = (snaps[:, -1] + np.swapaxes(snaps[:, -1], 1, 2))[:, i, j]
    exact, top = _recovery(snaps, theta_true, prior_sd)
    return exact, top, n_pair


def _run_strategies(args: dict[str, tuple], jobs: int | None) -> dict[str, tuple]:
    """:func:`_one_strategy` for every strategy: with ``jobs >= 2``, the slowest (information gain) in
    this process and the others in one worker process meanwhile (more workers would not help: the other
    two together take about as long as information gain alone).

    The worker is a fresh interpreter (``python -c``, arguments and results pickled through its stdin
    and stdout) rather than :mod:`multiprocessing`: ``fork`` is unsafe inside a Jupyter kernel's threads,
    and ``spawn`` re-runs the caller's ``__main__``, which breaks any script without an
    ``if __name__ == "__main__"`` guard."""
    import os

    n = len(args)
    jobs = min(n, os.cpu_count() or 1) if jobs is None else min(jobs, n)
    order = sorted(args, key=lambda s: s != "information_gain")  # the slowest first
    if jobs <= 1:
        return {s: _one_strategy(*args[s]) for s in order}
    here, rest = order[0], order[1:]
    worker = _start_worker([args[s] for s in rest])
    try:
        out = {here: _one_strategy(*args[here])}
        out.update(zip(rest, _worker_results(worker)))
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    return out


def _start_worker(calls: list[tuple]):
    import os
    import pickle
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[2])  # the folder that holds this compendium package
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.Popen(
        [sys.executable, "-c", "from compendium.preferences.simulation import _worker_main; _worker_main()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    proc.stdin.write(pickle.dumps(calls))  # a few kB: fits the pipe, never blocks
    proc.stdin.close()
    proc.stdin = None  # so that communicate() reads stdout and stderr together (no deadlock on either)
    return proc


def _worker_results(proc) -> list[tuple]:
    import pickle

    out, err = proc.communicate()
    code = proc.returncode
    if code != 0:
        tail = err.decode(errors="replace").strip().splitlines()[-15:]
        raise RuntimeError(
            f"simulate_active_sampling: the worker process running the other strategies failed (exit {code}):\n"
            + "\n".join(tail)
        )
    return pickle.loads(out)


def _worker_main() -> None:
    """Entry point of the worker process: pickled argument tuples on stdin, pickled results on stdout."""
    import pickle
    import sys

    calls = pickle.loads(sys.stdin.buffer.read())
    sys.stdout.buffer.write(pickle.dumps([_one_strategy(*a) for a in calls]))
    sys.stdout.flush()


def simulate_active_sampling(
    true_strengths,
    budget: int,
    repetitions: int,
    checkpoint_every: int,
    seed: int,
    batch: int = 10,
    arena_skew: float = 1.0,
    prior_sd: float = 1.0,
    strategies: tuple[str, ...] = STRATEGIES,
    labels: tuple[str, ...] | None = None,
    jobs: int | None = None,
) -> SimulationResult:
    """Run the simulation (see the module docstring). ``true_strengths``: BT strengths (ratio scale).

    ``budget`` judgements per repetition, recorded every ``checkpoint_every`` (which must divide the
    budget and be a multiple of ``batch``); ``seed`` seeds an independent stream per strategy (so a
    strategy's result does not depend on which others run).

    ``jobs``: 1 runs the strategies one after another in this process; 2 or more (the default when the
    machine has two cores or more and several strategies run) runs the information-gain design (the
    slowest, about 4 s) here and the others meanwhile in one worker process, so never more than two.
    Each strategy draws from its own stream and runs the same code wherever it runs, so the result is
    the same, byte for byte, for every ``jobs`` (tested).
    """
    pi = np.asarray(true_strengths, dtype=float)
    K = pi.size
    if np.any(pi <= 0):
        raise ValueError("true_strengths must be positive")
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ValueError(f"jobs must be a positive whole number of processes (or None), got {jobs!r}")
    if budget < 1 or repetitions < 1 or checkpoint_every < 1 or batch < 1:
        raise ValueError("budget, repetitions, checkpoint_every and batch must all be >= 1")
    if budget % checkpoint_every:
        raise ValueError(f"checkpoint_every ({checkpoint_every}) must divide budget ({budget})")
    if checkpoint_every % batch:
        raise ValueError(f"checkpoint_every ({checkpoint_every}) must be a multiple of batch ({batch})")
    bad = [s for s in strategies if s not in STRATEGIES]
    if bad:
        raise ValueError(f"unknown strategy {bad}; expected some of {list(STRATEGIES)}")
    theta_true = np.log(pi)
    i, j = pw.pair_index(K)
    p_win = special.expit(theta_true[i] - theta_true[j])
    n_ck = budget // checkpoint_every
    ck = np.arange(1, n_ck + 1) * checkpoint_every
    streams = dict(zip(STRATEGIES, np.random.SeedSequence(seed).spawn(len(STRATEGIES))))
    args = {
        s: (s, streams[s], theta_true, p_win, repetitions, n_ck, checkpoint_every, batch, prior_sd, arena_skew)
        for s in strategies
    }
    runs = _run_strategies(args, jobs)
    curves, alloc, recovered = [], [], {}
    names = labels or tuple(str(k) for k in range(K))
    for s in strategies:
        exact, top, n_pair = runs[s]
        recovered[s] = {"ranking": exact, "top": top}
        curves.append(
            pd.DataFrame({"strategy": s, "n_judgements": ck, "p_ranking": exact.mean(0), "p_top": top.mean(0)})
        )
        share = (n_pair / n_pair.sum(1, keepdims=True)).mean(0)
        alloc.append(
            pd.DataFrame(
                {
                    "strategy": s,
                    "model_i": [names[a] for a in i],
                    "model_j": [names[b] for b in j],
                    "true_p_i_beats_j": p_win,
                    "mean_share": share,
                }
            )
        )
    params = {
        "budget": budget,
        "repetitions": repetitions,
        "checkpoint_every": checkpoint_every,
        "seed": seed,
        "batch": batch,
        "arena_skew": arena_skew,
        "prior_sd": prior_sd,
    }
    return SimulationResult(
        curves=pd.concat(curves, ignore_index=True),
        allocation=pd.concat(alloc, ignore_index=True),
        recovered=recovered,
        params=params,
    )
