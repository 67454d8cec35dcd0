"""One grid point of the HUMANE scale study: simulated leaderboards, one repetition at a time.

A *point* fixes the number of models, their true strengths, the tie propensity, the number of
demographic groups with the size of their strength perturbations, the pair-selection design and the
budget. A *repetition* is one simulated leaderboard study at that point; everything random in it is
drawn from its own generator, ``SeedSequence(seed, spawn_key=(point_key, repetition))``, with the
point's key a stable hash of its parameter values (:func:`point_key`). So a repetition's result
depends only on the seed, the point's values and the repetition's number: not on the block it was
computed in, the block size, the worker or the order (tested).

Per repetition, all the randomness is drawn up front (uniforms for the pair, the outcome and the
group of each judgement, the groups' perturbations, the arena's release order, the normal draws for
P(best)); the arithmetic is then batched over the repetitions of a block, elementwise, with no BLAS
or LAPACK (``compendium.stats.pairwise.spd_inverse``), so its bits do not depend on the batch size.

Designs (pair selection; the outcome model is the same for all):

* ``uniform`` -- every pair equally likely (the study's balanced design);
* ``ig_trueskill`` -- HUMANE's rule: rounds of ``batch`` judgements of the pair with the largest
  expected information gain under the TrueSkill belief (updated judgement by judgement with
  :func:`compendium.stats.pairwise.trueskill_batched`); the gain is the linearised entropy reduction
  of the Gaussian belief for a probit comparison, ``1/2 log(1 + (s2_i + s2_j) phi(t)^2 / (c^2 p (1-p)))``,
  ``c^2 = 2 beta^2 + s2_i + s2_j``, ``t = (mu_i - mu_j) / c``, ``p = Phi(t)``; gains equal to 1e-9 (relative)
  count as tied and go to the lowest pair index (:func:`best_pair`), so rounding noise does not choose;
* ``ig_davidson`` -- the same rule under a Bradley-Terry-Davidson posterior: the Laplace belief of
  the MAP Bradley-Terry fit to wins plus half the ties (the Davidson model's sufficient statistic),
  :func:`~compendium.stats.pairwise.bradley_terry_map` warm-started each round, and
  :func:`~compendium.stats.pairwise.expected_information_gain`;
* ``arena`` -- arena-like skew towards new models: a random release order per repetition, the
  newest model weight 1, the k-th newest ``(k+1)^-skew``, a pair drawn with probability proportional
  to the product of its weights (the preferences chapter's arena design, by import).

Outcomes follow the Davidson (1970) model of each judgement's group: ``P(i wins) = pi_i / D``,
``P(tie) = nu sqrt(pi_i pi_j) / D``. With ``n_groups = G > 1`` every judgement comes from a group
drawn uniformly (equal census shares), and group ``g`` has log-strengths ``theta + group_sd z_g``
with ``z`` standard normal, centred over the groups, so the population's board is ``theta``.

Every design is scored with one estimator, the MAP Bradley-Terry fit (ties as half wins, weak
``N(0, prior_sd^2)`` prior) of the pooled judgements at each checkpoint (``pooled``); with ``G > 1``
also the per-group boards and their equal-weight consolidation (mean of the groups' log-strengths,
``consolidated``). Recorded per repetition and checkpoint: full ranking / top model recovered
(pooled and consolidated), decisive judgements so far, the reported P(best) of the pooled leader
(Laplace posterior, Monte Carlo) and whether that leader is truly best, the pooled board's mean
posterior standard deviation and the smallest group board's. Models fitted equal (to 1e-9) are tied on the
board, and a tie recovers no order (:func:`recovered`): a board whose top two tie has no leader that is
truly best.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy import special, stats

from ..preferences.simulation import _pair_probs_arena
from ..stats import pairwise as pw

DESIGNS = ("uniform", "ig_trueskill", "ig_davidson", "arena")
#: columns of one repetition-by-checkpoint row, in the stored block order
COLUMNS = (
    "repetition",
    "checkpoint",
    "n_judgements",
    "n_decisive",
    "rank_pooled",
    "top_pooled",
    "rank_consolidated",
    "top_consolidated",
    "pbest",
    "leader_is_best",
    "sd_pooled",
    "sd_min_group",
)
TS_MU, TS_SIGMA, TS_BETA, TS_TAU = 25.0, 25.0 / 3, 25.0 / 6, 25.0 / 300


@dataclass(frozen=True)
class Point:
    """One grid point. ``theta``: true log-strengths (centred); ``nu``: Davidson tie parameter (0: no
    ties); ``checkpoints``: judgement counts (increasing, multiples of ``batch``) at which boards are scored."""

    n_models: int
    spread: str
    theta: tuple[float, ...]
    nu: float
    n_groups: int
    group_sd: float
    design: str
    checkpoints: tuple[int, ...]
    batch: int = 20
    arena_skew: float = 1.0
    prior_sd: float = 1.0
    pbest_draws: int = 200

    def __post_init__(self):
        if self.design not in DESIGNS:
            raise ValueError(f"unknown design {self.design!r}; expected one of {list(DESIGNS)}")
        if len(self.theta) != self.n_models or self.n_models < 2:
            raise ValueError(f"theta has {len(self.theta)} values for n_models={self.n_models} (need >= 2)")
        ck = np.asarray(self.checkpoints)
        if ck.size == 0 or np.any(np.diff(ck) <= 0) or np.any(ck % self.batch):
            raise ValueError(f"checkpoints must increase and be multiples of batch={self.batch}: {self.checkpoints}")
        if self.n_groups < 1 or self.nu < 0 or self.group_sd < 0:
            raise ValueError("n_groups >= 1, nu >= 0 and group_sd >= 0 are required")

    @property
    def budget(self) -> int:
        return int(self.checkpoints[-1])

    def label(self) -> dict:
        """The point's values without the strength vector (for tables)."""
        d = asdict(self)
        d.pop("theta")
        d.pop("checkpoints")
        d["budget"] = self.budget
        return d


def point_key(point: Point) -> int:
    """A 63-bit integer from the point's parameter values (BLAKE2b of their canonical JSON, floats with
    17 significant digits): the same on every machine and Python, independent of the grid's order."""

    def canon(v):
        if isinstance(v, float):
            return format(v, ".17g")
        if isinstance(v, (tuple, list)):
            return [canon(x) for x in v]
        return v

    text = json.dumps({k: canon(v) for k, v in asdict(point).items()}, sort_keys=True, separators=(",", ":"))
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1


def repetition_rng(seed: int, key: int, repetition: int) -> np.random.Generator:
    """The generator of one repetition: ``SeedSequence(seed, spawn_key=(key, repetition))``."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(key, repetition)))


def davidson_pair_probs(theta_i, theta_j, nu: float):
    """``(P(i wins), P(tie))`` of the Davidson model for log-strengths (any matching shapes);
    the same numbers as :func:`compendium.stats.pairwise.davidson_probabilities`, batched."""
    m = np.maximum(theta_i, theta_j)
    ei, ej = np.exp(theta_i - m), np.exp(theta_j - m)
    g = np.exp((theta_i + theta_j) / 2.0 - m)
    D = ei + ej + nu * g
    return ei / D, nu * g / D


def cholesky(S: np.ndarray) -> np.ndarray:
    """Lower Cholesky factor of each SPD matrix in a stack (..., K, K), elementwise (no LAPACK, whose last
    bits depend on the BLAS kernel: P(best) is compared with thresholds in the calibration table)."""
    K = S.shape[-1]
    L = np.zeros_like(S)
    for k in range(K):
        d = S[..., k, k] - (L[..., k, :k] ** 2).sum(-1)
        L[..., k, k] = np.sqrt(d)
        if k + 1 < K:
            L[..., k + 1 :, k] = (S[..., k + 1 :, k] - (L[..., k + 1 :, :k] * L[..., k, None, :k]).sum(-1)) / L[
                ..., k, k, None
            ]
    return L


def _draws(point: Point, seed: int, reps) -> dict[str, np.ndarray]:
    """Every random number of each repetition, drawn from its own generator, stacked over ``reps``."""
    K, G, T = point.n_models, point.n_groups, point.budget
    key = point_key(point)
    out = {"u_pair": [], "u_out": [], "u_grp": [], "z_grp": [], "arena": [], "z_post": []}
    for r in reps:
        rng = repetition_rng(seed, key, int(r))
        out["u_pair"].append(rng.random(T))
        out["u_out"].append(rng.random(T))
        out["u_grp"].append(rng.random(T))
        z = rng.standard_normal((G, K))
        out["z_grp"].append(z - z.mean(0) if G > 1 else np.zeros((G, K)))
        out["arena"].append(_pair_probs_arena(rng, 1, K, point.arena_skew)[0])
        out["z_post"].append(rng.standard_normal((point.pbest_draws, K)))
    return {k: np.stack(v) for k, v in out.items()}


def _codes(u, pw_i, pt):
    """Outcome codes (0: i wins, 1: j wins, 2: tie) of uniform draws ``u`` against ``(P(i wins), P(tie))``."""
    return np.where(u < pw_i, 0, np.where(u < pw_i + pt, 2, 1))


def _outcomes(theta_g, i, j, pair, grp, u, nu):
    """Outcome codes (0: i wins, 1: j wins, 2: tie) for judgements of ``pair`` in group ``grp``, shapes (R, n)."""
    rows = np.arange(pair.shape[0])[:, None]
    ti, tj = theta_g[rows, grp, i[pair]], theta_g[rows, grp, j[pair]]
    return _codes(u, *davidson_pair_probs(ti, tj, nu))


def _counts_nonadaptive(point, d, theta_g, i, j):
    """Cumulative (R, C, G, P, 3) counts at the checkpoints for uniform or arena pair choice."""
    R, T = d["u_pair"].shape
    P, G, C = i.size, point.n_groups, len(point.checkpoints)
    if point.design == "uniform":
        pair = np.minimum((d["u_pair"] * P).astype(np.int64), P - 1)
    else:
        cdf = np.cumsum(d["arena"], axis=1)
        cdf[:, -1] = 1.0
        pair = np.stack([np.searchsorted(cdf[r], d["u_pair"][r], side="right") for r in range(R)])
        pair = np.minimum(pair, P - 1)
    grp = np.minimum((d["u_grp"] * G).astype(np.int64), G - 1)
    # the probabilities once per (study, group, pair), then looked up for each judgement: the same numbers as
    # computing them per judgement (:func:`_outcomes`; the formula is elementwise), for R * G * P evaluations of
    # three exponentials instead of R * T (T, the budget, is about 10 to 4,000 times G * P in the book's grid)
    pw_tab, pt_tab = davidson_pair_probs(theta_g[:, :, i], theta_g[:, :, j], point.nu)
    rows = np.arange(R)[:, None]
    out = _codes(d["u_out"], pw_tab[rows, grp, pair], pt_tab[rows, grp, pair])
    seg = np.searchsorted(np.asarray(point.checkpoints), np.arange(T), side="right")  # judgement t -> segment
    flat = ((np.arange(R)[:, None] * C + seg[None, :]) * G + grp) * (P * 3) + pair * 3 + out
    n = np.bincount(flat.ravel(), minlength=R * C * G * P * 3).reshape(R, C, G, P, 3)
    return n.cumsum(1)


def _trueskill_gain(m, s2, i, j):
    s2ij = s2[:, i] + s2[:, j]
    c2 = 2.0 * TS_BETA * TS_BETA + s2ij
    t = (m[:, i] - m[:, j]) / np.sqrt(c2)
    p = np.clip(special.ndtr(t), 1e-300, 1 - 1e-16)
    phi = pw.std_normal_pdf(t)
    return np.log1p(s2ij * phi * phi / (c2 * p * (1.0 - p)))


#: gains within this relative distance of a round's largest count as tied (see :func:`best_pair`)
TIE_REL = 1e-9


def best_pair(gain: np.ndarray, rel: float = TIE_REL) -> np.ndarray:
    """The pair each row picks, shape ``gain.shape[:-1]``: the largest gain, ties broken by the lowest pair index,
    gains within ``rel`` (relative) of the row's largest counting as tied.

    Why not ``gain.argmax(-1)``: a symmetric belief (every model alike at the start, or two models with the same
    record) gives pairs whose gains are equal in exact arithmetic, and their last bits then depend on which SIMD
    code NumPy dispatches ``exp``/``log1p`` to (its AVX-512 routines or glibc's); a plain argmax picked by that
    rounding noise, so one simulated study came out differently on a CPU with AVX-512 and on one without
    (repetition 13 of the default grid's BT-Davidson point: pair 9 against pair 8 in its third round, the
    two gains 1.7e-16 apart), and so did the stage's tables. Rounding noise is about 1e-16 relative; a real
    difference between two pairs' gains below 1e-9 is no reason to prefer one.
    """
    best = gain.max(axis=-1, keepdims=True)
    return (gain >= best - rel * np.abs(best)).argmax(-1)


def _counts_adaptive(point, d, theta_g, i, j):
    """Cumulative (R, C, G, P, 3) counts at the checkpoints for an information-gain design."""
    R = d["u_pair"].shape[0]
    K, P, G, B = point.n_models, i.size, point.n_groups, point.batch
    rows = np.arange(R)
    counts = np.zeros((R, G, P, 3), dtype=np.int64)
    snaps = []
    tie_share = point.nu / (2.0 + point.nu)  # tie probability of two equal models, TrueSkill's draw_probability
    m = np.full((R, K), TS_MU)
    s = np.full((R, K), TS_SIGMA)
    theta = np.zeros((R, K))
    t = 0
    for ck in point.checkpoints:
        while t < ck:
            if point.design == "ig_trueskill":
                pick = best_pair(_trueskill_gain(m, s * s, i, j))
            else:
                n = counts.sum(1)
                W = pw.win_matrix_from_counts(i, j, n[..., 0], n[..., 1], n[..., 2], K)
                theta, cov = pw.bradley_terry_map(W, prior_sd=point.prior_sd, theta0=theta, n_iter=1)
                pick = best_pair(pw.expected_information_gain(theta, cov))
            pair = np.repeat(pick[:, None], B, axis=1)
            grp = np.minimum((d["u_grp"][:, t : t + B] * G).astype(np.int64), G - 1)
            out = _outcomes(theta_g, i, j, pair, grp, d["u_out"][:, t : t + B], point.nu)
            np.add.at(counts, (rows[:, None], grp, pair, out), 1)
            if point.design == "ig_trueskill":
                a, b = i[pick][:, None], j[pick][:, None]
                win = np.where(out == 1, b, a)
                lose = np.where(out == 1, a, b)
                m, s = pw.trueskill_batched(
                    win, lose, out == 2, K, mu=TS_MU, sigma=TS_SIGMA, beta=TS_BETA, tau=TS_TAU,
                    draw_probability=tie_share, mu0=m, sigma0=s,
                )  # fmt: skip
            t += B
        snaps.append(counts.copy())
    return np.stack(snaps, axis=1)


def centred_sd(cov: np.ndarray) -> np.ndarray:
    """Mean posterior SD of the centred log-strengths ``theta_i - mean(theta)`` (the board's uncertainty:
    the common shift, which only the prior pins down, is no part of a ranking)."""
    v = np.diagonal(cov, axis1=-2, axis2=-1) - 2.0 * cov.mean(-1) + cov.mean((-1, -2))[..., None]
    return np.sqrt(np.maximum(v, 0.0)).mean(-1)


def _boards(n, K, i, j, prior_sd):
    """MAP BT log-strengths and posterior covariances from (..., P, 3) counts (ties as half wins). Always 25
    Newton steps (``tol=-1``: the library's early stop looks at the whole batch, so the number of steps, and
    the last bits, would depend on which repetitions share a block)."""
    W = pw.win_matrix_from_counts(i, j, n[..., 0], n[..., 1], n[..., 2], K)
    return pw.bradley_terry_map(W, prior_sd=prior_sd, n_iter=25, tol=-1.0)


#: fitted log-strengths closer than this count as equal: the board does not order them (see :func:`recovered`)
TIE_ABS = 1e-9


def recovered(th: np.ndarray, order: np.ndarray, true_order: np.ndarray, tol: float = TIE_ABS):
    """``(full ranking recovered, top model recovered)`` of boards ``th`` (..., K) sorted as ``order``.

    Two models whose fitted log-strengths are equal to ``tol`` are tied on the board, and a tie recovers no
    order: the ranking is recovered only if no two neighbours tie, the top model only if the second does not
    tie with it. Why: equal records give equal strengths in exact arithmetic (about 1 % of the boards of the
    BT-Davidson design with the study's strengths, whose balanced pairs make equal records common), and their
    last bits come from the CPU's ``exp``; sorting them by those bits made the recovery differ between CPUs
    and, since the true order runs by index, favoured the truth when the bits were equal.
    """
    s = np.take_along_axis(th, order, axis=-1)
    apart = (s[..., :-1] - s[..., 1:]) >= tol
    rank = (order == true_order).all(-1) & apart.all(-1)
    top = (order[..., 0] == true_order[0]) & apart[..., 0]
    return rank, top


def simulate_block(point: Point, reps, seed: int) -> pd.DataFrame:
    """The rows (:data:`COLUMNS`) of the repetitions ``reps`` at ``point``, sorted by repetition and checkpoint."""
    reps = np.asarray(sorted(int(r) for r in reps), dtype=np.int64)
    K, G = point.n_models, point.n_groups
    i, j = pw.pair_index(K)
    theta = np.asarray(point.theta, dtype=float)
    d = _draws(point, seed, reps)
    theta_g = theta[None, None, :] + point.group_sd * d["z_grp"]  # (R, G, K)
    if point.design in ("uniform", "arena"):
        counts = _counts_nonadaptive(point, d, theta_g, i, j)
    else:
        counts = _counts_adaptive(point, d, theta_g, i, j)
    R, C = counts.shape[:2]
    pooled = counts.sum(2)  # (R, C, P, 3)
    th, cov = _boards(pooled, K, i, j, point.prior_sd)
    true_order = np.argsort(-theta, kind="stable")
    order = np.argsort(-th, axis=-1, kind="stable")
    rank_p, top_p = recovered(th, order, true_order)
    # P(best) of the pooled leader: Monte Carlo over the Laplace posterior (the repetition's own normals)
    L = cholesky(cov)  # (R, C, K, K)
    z = d["z_post"][:, None]  # (R, 1, D, K)
    sample = th[:, :, None, :] + (L[:, :, None, :, :] * z[..., None, :]).sum(-1)
    best = sample.argmax(-1)  # (R, C, D)
    pbest = (best == order[..., :1]).mean(-1)
    sd_pooled = centred_sd(cov)
    if G > 1:
        thg, covg = _boards(counts, K, i, j, point.prior_sd)  # (R, C, G, K)
        cons = thg.mean(2)
        rank_c, top_c = recovered(cons, np.argsort(-cons, axis=-1, kind="stable"), true_order)
        sd_group = centred_sd(covg).min(-1)
    else:
        rank_c, top_c, sd_group = rank_p, top_p, sd_pooled
    ck = np.asarray(point.checkpoints)
    df = pd.DataFrame(
        {
            "repetition": np.repeat(reps, C),
            "checkpoint": np.tile(np.arange(C), R),
            "n_judgements": np.tile(ck, R),
            "n_decisive": pooled[..., :2].sum((-1, -2)).ravel(),
            "rank_pooled": rank_p.ravel(),
            "top_pooled": top_p.ravel(),
            "rank_consolidated": rank_c.ravel(),
            "top_consolidated": top_c.ravel(),
            "pbest": pbest.ravel(),
            "leader_is_best": top_p.ravel(),
            "sd_pooled": sd_pooled.ravel(),
            "sd_min_group": sd_group.ravel(),
        }
    )
    return df[list(COLUMNS)]


def strengths(n_models: int, spread: str, study_theta, wide_sd: float) -> np.ndarray:
    """True log-strengths (centred, decreasing). ``study``: with 5 models the study's own Davidson
    estimates; otherwise normal quantiles ``Phi^-1((k + 1/2) / n)`` scaled to the study's standard
    deviation. ``wide``: the same quantiles scaled to ``wide_sd`` (a leaderboard-like spread)."""
    st = np.log(np.asarray(study_theta, dtype=float))
    st = st - st.mean()
    if spread == "study" and n_models == st.size:
        return np.sort(st)[::-1]
    if spread not in ("study", "wide"):
        raise ValueError(f"unknown spread {spread!r}; expected 'study' or 'wide'")
    sd = st.std(ddof=0) if spread == "study" else float(wide_sd)
    q = stats.norm.ppf((np.arange(n_models) + 0.5) / n_models)
    q = q / q.std(ddof=0) * sd
    return np.sort(q - q.mean())[::-1]
