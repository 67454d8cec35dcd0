"""Pairwise-comparison statistics: Wilson intervals, Bradley-Terry, Davidson ties, TrueSkill,
information-gain pair selection.

Every function here is independent of any one study: it takes plain arrays (counts or win matrices)
and returns arrays. Conventions used throughout:

* ``K`` models are indexed ``0..K-1``. A **win matrix** ``W`` has ``W[..., i, j]`` = (possibly
  fractional) number of times model ``i`` beat model ``j``; the diagonal is ignored. Leading axes are
  batch axes (bootstrap replicates, simulation repetitions): every fitter is vectorised over them.
* Strengths are on the ratio scale ``pi_i > 0`` (``P(i beats j) = pi_i / (pi_i + pi_j)``) unless a
  name says ``theta`` (log-strength).

What is hand-written and why (each is tested against an independent computation in
``tests/stats/test_pairwise.py``):

* :func:`bradley_terry_mm` reproduces the *published* fitting procedure exactly (its start, rescaling
  and stopping rule decide the last digits of the published strengths); :func:`bradley_terry_choix`
  is the cross-check with the ``choix`` library.
* :func:`davidson_fit` (Davidson 1970 ties model): no maintained Python library fits it; it is a
  direct maximum-likelihood fit with :func:`scipy.optimize.minimize`.
* :func:`trueskill_batched` is the two-player TrueSkill update of the ``trueskill`` package written
  in numpy so that hundreds of random orders run at once; :func:`trueskill_sequential` is the plain
  wrapper over the package, and the two agree to floating-point precision.
* :func:`bradley_terry_map` / :func:`expected_information_gain`: Gaussian (Laplace) belief over
  log-strengths and the expected information gain of one more comparison, for active sampling.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

from compendium.pipeline.results import significant

__all__ = [
    "wilson_interval",
    "win_matrix_from_counts",
    "bradley_terry_mm",
    "BTResult",
    "bradley_terry_choix",
    "bradley_terry_log_covariance",
    "davidson_fit",
    "DavidsonResult",
    "davidson_probabilities",
    "trueskill_sequential",
    "trueskill_batched",
    "trueskill_draw_margin",
    "bradley_terry_map",
    "expected_information_gain",
    "pair_index",
]


# ----------------------------------------------------------------------------------------------
# Wilson interval
# ----------------------------------------------------------------------------------------------


def wilson_interval(successes, n, z: float = 1.96):
    """Wilson score interval for a binomial proportion ``successes / n``.

    ``(p + z^2/2n -/+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)`` with ``z = 1.96`` as published (not
    the exact 1.95996...). Vectorised; ``n == 0`` gives ``(nan, nan)``.

    Returns ``(lower, upper)`` arrays (floats for scalar input).
    """
    k = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    if np.any(n < 0) or np.any(k < 0):
        raise ValueError("wilson_interval: successes and n must be non-negative")
    if np.any(k > n):
        raise ValueError("wilson_interval: successes must not exceed n")
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1.0 + z * z / n
        centre = p + z * z / (2.0 * n)
        margin = z * np.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))
        lo = (centre - margin) / denom
        hi = (centre + margin) / denom
    lo = np.where(n > 0, lo, np.nan)
    hi = np.where(n > 0, hi, np.nan)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


# ----------------------------------------------------------------------------------------------
# Bradley-Terry
# ----------------------------------------------------------------------------------------------


def spd_inverse(M: np.ndarray) -> np.ndarray:
    """Inverse of each symmetric positive-definite matrix in a stack ``M`` (..., K, K), by Gauss-Jordan
    elimination written with elementwise numpy operations only.

    ``np.linalg.inv`` calls LAPACK, whose last bits depend on the BLAS kernel the machine picks; the
    active-sampling simulation takes an argmax over quantities built from these inverses, and a flip in a
    near-tie changes a whole simulated study. Without BLAS the simulation gives the same bytes on every
    machine. No pivoting is needed for SPD matrices (the pivots are the positive Schur complements).

    The stack is processed with the matrix axes first, so that each row operation touches contiguous
    memory for all matrices at once (2.4 times faster on the simulation's 1,000 5x5 matrices than the
    matrix-last layout; the arithmetic, and so every bit of the result, is the same)."""
    A = np.moveaxis(np.array(M, dtype=float), (-2, -1), (0, 1)).copy()
    K = A.shape[0]
    inv = np.zeros_like(A)
    for k in range(K):
        inv[k, k] = 1.0
    tmp = np.empty_like(A)
    for k in range(K):
        piv = A[k, k].copy()
        A[k] /= piv
        inv[k] /= piv
        f = A[:, k].copy()
        f[k] = 0.0
        np.multiply(f[:, None], A[k][None], out=tmp)
        A -= tmp
        np.multiply(f[:, None], inv[k][None], out=tmp)
        inv -= tmp
    return np.ascontiguousarray(np.moveaxis(inv, (0, 1), (-2, -1)))


def pair_index(n_models: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(i, j)`` of the ``K(K-1)/2`` unordered pairs ``i < j`` in lexicographic order."""
    i, j = np.triu_indices(n_models, k=1)
    return i, j


def win_matrix_from_counts(i, j, i_wins, j_wins, ties, n_models: int, tie_weight: float = 0.5) -> np.ndarray:
    """Build win matrices from per-pair counts.

    ``i, j``: integer model indices of each pair (shape ``(P,)``); ``i_wins, j_wins, ties``: counts with
    shape ``(..., P)`` (leading batch axes allowed). A tie adds ``tie_weight`` to both ``W[i, j]`` and
    ``W[j, i]`` (the published convention is ``0.5``: a tie is half a win to each side). Repeated
    pairs are summed. Returns ``W`` with shape ``(..., K, K)``.
    """
    i = np.asarray(i, dtype=int)
    j = np.asarray(j, dtype=int)
    if i.shape != j.shape or i.ndim != 1:
        raise ValueError("win_matrix_from_counts: i and j must be 1-d arrays of the same length")
    if np.any(i == j):
        raise ValueError("win_matrix_from_counts: a pair compares a model with itself (i == j)")
    if np.any((i < 0) | (i >= n_models) | (j < 0) | (j >= n_models)):
        raise ValueError(f"win_matrix_from_counts: model index outside 0..{n_models - 1}")
    a = np.asarray(i_wins, dtype=float)
    b = np.asarray(j_wins, dtype=float)
    t = np.asarray(ties, dtype=float)
    if not (a.shape == b.shape == t.shape) or a.shape[-1] != i.size:
        raise ValueError(
            "win_matrix_from_counts: i_wins, j_wins and ties must share a shape ending in the number of pairs"
        )
    if np.any(a < 0) or np.any(b < 0) or np.any(t < 0):
        raise ValueError("win_matrix_from_counts: counts must be non-negative")
    W = np.zeros(a.shape[:-1] + (n_models, n_models))
    for p in range(i.size):  # P pairs (10 here); every batch axis is handled at once
        W[..., i[p], j[p]] += a[..., p] + tie_weight * t[..., p]
        W[..., j[p], i[p]] += b[..., p] + tie_weight * t[..., p]
    return W


@dataclass(frozen=True)
class BTResult:
    """Result of :func:`bradley_terry_mm`: ``strengths`` (..., K), ``n_iter`` (...), ``converged`` (...)."""

    strengths: np.ndarray
    n_iter: np.ndarray
    converged: np.ndarray


def bradley_terry_mm(W, tol: float = 1e-6, max_iter: int = 500, total: float | None = None) -> BTResult:
    """Bradley-Terry strengths by the minorisation-maximisation update, **exactly as published**.

    METHODS.md (Human preferences): pool the judgements into a win matrix (ties = half a win each
    side, see :func:`win_matrix_from_counts`); all strengths start at 1; each iteration applies the
    MM update (Hunter 2004) to every model at once,

        pi_i <- W_i / sum_{j != i} n_ij / (pi_i + pi_j),    W_i = sum_j W[i, j],  n_ij = W[i,j] + W[j,i],

    then rescales the strengths to sum to ``total`` (default ``K``, i.e. 5 for five models); it
    stops when the largest absolute change is below ``tol`` (1e-6), at most ``max_iter`` (500)
    iterations. As in the study's code, the value returned on convergence is the iterate *before*
    the final (sub-tolerance) update -- this decides the last published digits; the fully converged
    MLE differs by less than ``tol``.

    ``W`` may carry leading batch axes (e.g. bootstrap replicates); each replicate follows the same
    algorithm independently (it stops at its own iteration). Raises ``ValueError`` if a model has no
    comparisons at all.
    """
    W = np.asarray(W, dtype=float)
    if W.ndim < 2 or W.shape[-1] != W.shape[-2]:
        raise ValueError(f"bradley_terry_mm: W must have shape (..., K, K), got {W.shape}")
    if np.any(W < 0):
        raise ValueError("bradley_terry_mm: W must be non-negative")
    K = W.shape[-1]
    total = float(K if total is None else total)
    W = W * (1.0 - np.eye(K))
    N = W + np.swapaxes(W, -1, -2)
    if np.any(N.sum(-1) == 0):
        raise ValueError("bradley_terry_mm: a model has no comparisons (its row and column of W are all zero)")
    wins = W.sum(-1)
    batch = W.shape[:-2]
    s = np.ones(batch + (K,))
    done = np.zeros(batch, dtype=bool)
    n_iter = np.zeros(batch, dtype=int)
    for it in range(1, max_iter + 1):
        denom = (N / (s[..., :, None] + s[..., None, :])).sum(-1)
        new = wins / denom
        new = new / new.sum(-1, keepdims=True) * total
        delta = np.abs(s - new).max(-1)
        stop_now = ~done & (delta < tol)
        step = ~done & ~stop_now
        s = np.where(step[..., None], new, s)
        n_iter = np.where(~done, it, n_iter)
        done = done | stop_now
        if done.all():
            break
    return BTResult(strengths=s, n_iter=n_iter, converged=done)


def bradley_terry_choix(W, total: float | None = None, tol: float = 1e-12) -> np.ndarray:
    """Bradley-Terry MLE of one win matrix with the ``choix`` library (``ilsr_pairwise_dense``).

    ``choix`` accepts a dense comparison matrix with fractional entries, so ties enter exactly as in
    the published convention (half a win to each side). Returns strengths rescaled to sum to
    ``total`` (default ``K``). Used to cross-check :func:`bradley_terry_mm`.
    """
    import choix

    W = np.asarray(W, dtype=float)
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        raise ValueError(f"bradley_terry_choix: W must be a single (K, K) matrix, got {W.shape}")
    K = W.shape[0]
    theta = choix.ilsr_pairwise_dense(W * (1.0 - np.eye(K)), alpha=0.0, tol=tol, max_iter=10_000)
    pi = np.exp(theta)
    return pi / pi.sum() * float(K if total is None else total)


def bradley_terry_log_covariance(strengths, W) -> np.ndarray:
    """Asymptotic covariance of the log-strengths at a BT fit (inverse Fisher information).

    Fisher information of ``theta = log(pi)``: ``I_ii = sum_j n_ij p_ij p_ji``,
    ``I_ij = -n_ij p_ij p_ji``; it is singular (strengths are identified up to scale), so the
    Moore-Penrose inverse gives the covariance of the sum-to-zero-centred log-strengths.
    ``n_ij = W[i,j] + W[j,i]`` (ties count as one comparison, as in the half-win convention).
    """
    pi = np.asarray(strengths, dtype=float)
    W = np.asarray(W, dtype=float)
    K = pi.shape[-1]
    N = (W + np.swapaxes(W, -1, -2)) * (1.0 - np.eye(K))
    P = pi[..., :, None] / (pi[..., :, None] + pi[..., None, :])
    A = N * P * np.swapaxes(P, -1, -2)
    info = np.eye(K) * A.sum(-1)[..., None, :] - A
    return np.linalg.pinv(info)


# ----------------------------------------------------------------------------------------------
# Davidson (1970) ties model
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DavidsonResult:
    """``strengths`` (K,) rescaled to sum to K, tie parameter ``nu``, ``loglik``, ``converged``."""

    strengths: np.ndarray
    nu: float
    loglik: float
    converged: bool


def davidson_probabilities(strengths, nu: float):
    """Davidson (1970) outcome probabilities for every ordered pair.

    ``P(i beats j) = pi_i / D_ij``, ``P(tie) = nu sqrt(pi_i pi_j) / D_ij``,
    ``D_ij = pi_i + pi_j + nu sqrt(pi_i pi_j)``. Returns ``(P_win, P_tie)`` as (K, K) matrices.
    """
    pi = np.asarray(strengths, dtype=float)
    g = np.sqrt(pi[:, None] * pi[None, :])
    D = pi[:, None] + pi[None, :] + nu * g
    return pi[:, None] / D, nu * g / D


def _davidson_negloglik(params, wins, ties, N):
    K = wins.shape[0]
    theta = np.concatenate([[0.0], params[: K - 1]])
    log_nu = params[K - 1]
    nu = np.exp(log_nu)
    e = np.exp(theta)
    g = np.exp((theta[:, None] + theta[None, :]) / 2.0)
    D = e[:, None] + e[None, :] + nu * g
    iu = np.triu_indices(K, 1)
    ll = (
        (wins * theta[:, None]).sum()
        + (ties[iu] * (log_nu + (theta[:, None] + theta[None, :])[iu] / 2.0)).sum()
        - (N[iu] * np.log(D[iu])).sum()
    )
    # gradient wrt theta_i: sum_j [w_ij + t_ij/2 - n_ij (e_i + nu g_ij / 2) / D_ij]
    M = N * (e[:, None] + nu * g / 2.0) / D
    np.fill_diagonal(M, 0.0)
    grad_theta = wins.sum(1) + ties.sum(1) / 2.0 - M.sum(1)
    grad_lognu = ties[iu].sum() - (N[iu] * nu * g[iu] / D[iu]).sum()
    grad = np.concatenate([grad_theta[1:], [grad_lognu]])
    return -ll, -grad


def davidson_fit(wins, ties) -> DavidsonResult:
    """Maximum-likelihood fit of the Davidson (1970) Bradley-Terry model with ties.

    ``wins[i, j]`` = decisive wins of ``i`` over ``j``; ``ties[i, j]`` = ties between ``i`` and ``j``
    (symmetric; only ``i < j`` is read). Log-likelihood
    ``sum_{i<j} w_ij log p_ij + w_ji log p_ji + t_ij log(nu sqrt(pi_i pi_j)) - n_ij log D_ij``,
    maximised over ``log pi`` (``log pi_0 = 0`` fixed) and ``log nu`` with L-BFGS and an analytic
    gradient. The likelihood equations are ``W_i + T_i/2 = sum_j n_ij (pi_i + nu sqrt(pi_i pi_j)/2) / D_ij``
    -- the same sufficient statistic (wins plus half the ties) as the half-win convention, which is
    why both usually rank the same way. Returns strengths rescaled to sum to ``K``.
    """
    wins = np.asarray(wins, dtype=float)
    ties = np.asarray(ties, dtype=float)
    if wins.ndim != 2 or wins.shape[0] != wins.shape[1] or ties.shape != wins.shape:
        raise ValueError("davidson_fit: wins and ties must be (K, K) matrices of the same shape")
    if np.any(wins < 0) or np.any(ties < 0):
        raise ValueError("davidson_fit: counts must be non-negative")
    K = wins.shape[0]
    off = 1.0 - np.eye(K)
    wins = wins * off
    ties = np.triu(ties, 1)
    ties = ties + ties.T
    N = wins + wins.T + ties
    if ties.sum() == 0:
        raise ValueError("davidson_fit: no ties in the data, the tie parameter nu is not identified (its MLE is 0)")
    x0 = np.zeros(K)
    res = optimize.minimize(
        _davidson_negloglik,
        x0,
        args=(wins, ties, N),
        jac=True,
        method="L-BFGS-B",
        options={"gtol": 1e-11, "ftol": 1e-15, "maxiter": 10_000},
    )
    # Newton polish to the optimum's floating-point precision (L-BFGS-B stops where its line search stalls,
    # which depends on the BLAS kernel in the last digits), with a central-difference Hessian of the
    # analytic gradient; then 10 significant digits, so every machine returns the same bytes.
    x = res.x.copy()
    for _ in range(4):
        g = _davidson_negloglik(x, wins, ties, N)[1]
        h = 1e-6
        H = np.empty((len(x), len(x)))
        for k in range(len(x)):
            e = np.zeros_like(x)
            e[k] = h
            H[:, k] = (_davidson_negloglik(x + e, wins, ties, N)[1] - _davidson_negloglik(x - e, wins, ties, N)[1]) / (
                2 * h
            )
        step = np.linalg.solve((H + H.T) / 2, g)
        x = x - step
        if np.max(np.abs(step)) < 1e-13:
            break
    fun, jac = _davidson_negloglik(x, wins, ties, N)
    theta = np.concatenate([[0.0], x[: K - 1]])
    pi = np.exp(theta)
    pi = significant(pi / pi.sum() * K, 10)
    converged = bool(np.max(np.abs(jac)) <= 1e-6)
    return DavidsonResult(
        strengths=pi,
        nu=significant(float(np.exp(x[K - 1])), 10),
        loglik=significant(float(-fun), 10),
        converged=converged,
    )


def trueskill_draw_margin(draw_probability: float, beta: float) -> float:
    """Draw margin of a 1-vs-1 TrueSkill game: ``Phi^-1((p_draw + 1) / 2) * sqrt(2) * beta``."""
    if not 0.0 <= draw_probability < 1.0:
        raise ValueError(f"draw_probability must be in [0, 1), got {draw_probability}")
    return float(stats.norm.ppf((draw_probability + 1.0) / 2.0) * np.sqrt(2.0) * beta)


def trueskill_sequential(
    winners,
    losers,
    drawn,
    n_models: int,
    mu: float = 25.0,
    sigma: float = 25.0 / 3,
    beta: float = 25.0 / 6,
    tau: float = 25.0 / 300,
    draw_probability: float = 0.10,
):
    """TrueSkill ratings from judgements in the given order, with the ``trueskill`` package.

    Each judgement ``k`` is a 1-vs-1 game ``winners[k]`` vs ``losers[k]`` (``drawn[k]``: a tie, the
    order of the two then does not matter), rated with ``trueskill.rate_1vs1``. The environment uses
    scipy's normal cdf/pdf/ppf (:data:`SCIPY_NORMAL`: the package's ``"scipy"`` backend, bit for bit). Returns
    ``(mu, sigma)`` arrays of length ``n_models``.
    """
    import trueskill

    env = trueskill.TrueSkill(
        mu=mu, sigma=sigma, beta=beta, tau=tau, draw_probability=draw_probability, backend=SCIPY_NORMAL
    )
    r = [env.create_rating() for _ in range(n_models)]
    for w, l, d in zip(np.asarray(winners, int), np.asarray(losers, int), np.asarray(drawn, bool)):
        r[w], r[l] = trueskill.rate_1vs1(r[w], r[l], drawn=bool(d), env=env)
    return np.array([x.mu for x in r]), np.array([x.sigma for x in r])


_SQRT_2PI = np.sqrt(2 * np.pi)


def _scalar_pdf(x):
    return std_normal_pdf(np.asarray(x, dtype=float))  # a 0-d array: scipy's operations, a numpy float back


#: the ``trueskill`` package's ``"scipy"`` backend (``stats.norm.cdf``, ``pdf``, ``ppf``) as the functions that
#: compute it for one number: ``special.ndtr``, the density in ``stats.norm.pdf``'s own operations, ``special.ndtri``
#: (the same bits on every number, which a unit test checks). With ``stats.norm``, whose per-call argument handling
#: dominates on one number, the preferences stage's check of 3,014 ratings against the package took 1.7 s; 0.4 s.
SCIPY_NORMAL = (special.ndtr, _scalar_pdf, special.ndtri)


def std_normal_pdf(x):
    """The standard normal density, ``exp(-x^2/2) / sqrt(2 pi)``, in the very operations of scipy's
    ``stats.norm.pdf`` (so the same bits, which a unit test checks) without its per-call argument
    handling, which made a third of the batched TrueSkill loop's time."""
    return np.exp(-(x**2) / 2.0) / _SQRT_2PI


def trueskill_batched(
    winners,
    losers,
    drawn,
    n_models: int,
    mu: float = 25.0,
    sigma: float = 25.0 / 3,
    beta: float = 25.0 / 6,
    tau: float = 25.0 / 300,
    draw_probability: float = 0.10,
    mu0=None,
    sigma0=None,
):
    """The same TrueSkill 1-vs-1 updates as :func:`trueskill_sequential`, for many orders at once.

    ``winners, losers, drawn`` have shape ``(R, T)``: ``R`` independent sequences (e.g. random
    orders of the same judgements) of ``T`` games each; the loop runs over the ``T`` games with the
    ``R`` sequences batched in numpy. Update for winner ``w``, loser ``l`` (Herbrich et al. 2007; the
    ``trueskill`` package's factor graph reduces to it for two players): ``s2 <- s2 + tau^2``;
    ``c^2 = 2 beta^2 + s2_w + s2_l``; ``t = (mu_w - mu_l)/c``; ``e = eps/c`` with the draw margin
    ``eps`` of :func:`trueskill_draw_margin`; ``mu_w += s2_w v / c``, ``mu_l -= s2_l v / c``,
    ``s2 <- s2 (1 - s2 w / c^2)`` with the package's ``v, w`` functions for a win or a draw.
    ``mu0, sigma0`` (shape ``(R, n_models)``, optional): ratings to continue from instead of the prior
    ``(mu, sigma)``, to feed a sequence in pieces (e.g. one selection round at a time).
    Returns ``(mu, sigma)`` with shape ``(R, n_models)``.
    """
    W = np.atleast_2d(np.asarray(winners, dtype=int))
    L = np.atleast_2d(np.asarray(losers, dtype=int))
    D = np.atleast_2d(np.asarray(drawn, dtype=bool))
    if not (W.shape == L.shape == D.shape):
        raise ValueError("trueskill_batched: winners, losers and drawn must have the same shape (R, T)")
    if np.any(W == L):
        raise ValueError("trueskill_batched: a game has the same model on both sides")
    R, T = W.shape
    eps = trueskill_draw_margin(draw_probability, beta)
    m = np.full((R, n_models), float(mu)) if mu0 is None else np.array(mu0, dtype=float, copy=True)
    s2 = np.full((R, n_models), float(sigma) ** 2) if sigma0 is None else np.array(sigma0, dtype=float) ** 2
    if m.shape != (R, n_models) or s2.shape != (R, n_models):
        raise ValueError(f"trueskill_batched: mu0 and sigma0 must have shape {(R, n_models)}")
    rows = np.arange(R)
    pdf = std_normal_pdf
    cdf = special.ndtr
    for k in range(T):
        w, l, d = W[:, k], L[:, k], D[:, k]
        s2w = s2[rows, w] + tau * tau
        s2l = s2[rows, l] + tau * tau
        c = np.sqrt(2.0 * beta * beta + s2w + s2l)
        t = (m[rows, w] - m[rows, l]) / c
        e = eps / c
        # win
        x = t - e
        v_win = pdf(x) / cdf(x)
        w_win = v_win * (v_win + x)
        # draw (the package's formulation via |t| and the sign of t)
        at = np.abs(t)
        a, b = e - at, -e - at
        den = cdf(a) - cdf(b)
        with np.errstate(invalid="ignore", divide="ignore"):
            v_abs = (pdf(b) - pdf(a)) / den
            w_draw = v_abs**2 + (a * pdf(a) - b * pdf(b)) / den
        v_draw = v_abs * np.where(t < 0, -1.0, 1.0)
        v = np.where(d, v_draw, v_win)
        ww = np.where(d, w_draw, w_win)
        m[rows, w] = m[rows, w] + s2w / c * v
        m[rows, l] = m[rows, l] - s2l / c * v
        s2[rows, w] = s2w * (1.0 - s2w / (c * c) * ww)
        s2[rows, l] = s2l * (1.0 - s2l / (c * c) * ww)
    return m, np.sqrt(s2)


# ----------------------------------------------------------------------------------------------
# Gaussian belief over log-strengths and information-gain pair selection
# ----------------------------------------------------------------------------------------------


def bradley_terry_map(W, prior_sd: float = 1.0, theta0=None, n_iter: int = 30, tol: float = 1e-10):
    """MAP log-strengths of a Bradley-Terry model with a ``N(0, prior_sd^2)`` prior, by Newton's method.

    Objective ``sum_{i != j} W_ij log sigmoid(theta_i - theta_j) - |theta|^2 / (2 prior_sd^2)``
    (``W`` may be fractional, batch axes allowed). The prior keeps the estimate finite when a model
    has no wins yet, and its Hessian gives the Laplace (Gaussian) posterior used by
    :func:`expected_information_gain`. Returns ``(theta, cov)`` with shapes ``(..., K)`` and
    ``(..., K, K)`` (``cov`` = inverse negative Hessian at ``theta``).
    """
    W = np.asarray(W, dtype=float)
    K = W.shape[-1]
    off = 1.0 - np.eye(K)
    W = W * off
    N = W + np.swapaxes(W, -1, -2)
    theta = np.zeros(W.shape[:-1]) if theta0 is None else np.array(theta0, dtype=float, copy=True)
    prec0 = 1.0 / (prior_sd * prior_sd)
    eye = np.eye(K)
    for _ in range(n_iter):
        P = special.expit(theta[..., :, None] - theta[..., None, :])
        grad = (W - N * P).sum(-1) - prec0 * theta
        A = N * P * (1.0 - P)
        H = eye * (A.sum(-1)[..., None, :] + prec0) - A
        step = (spd_inverse(H) * grad[..., None, :]).sum(-1)  # no LAPACK: the same bytes on every machine
        theta = theta + step
        if np.abs(step).max() < tol:
            break
    P = special.expit(theta[..., :, None] - theta[..., None, :])
    A = N * P * (1.0 - P)
    H = eye * (A.sum(-1)[..., None, :] + prec0) - A
    return theta, spd_inverse(H)


def expected_information_gain(theta, cov) -> np.ndarray:
    """Expected information gain of one more comparison of each pair, under a Gaussian belief.

    For belief ``theta ~ N(m, S)`` and a Bradley-Terry comparison of ``i`` and ``j`` (predicted
    ``p = sigmoid(m_i - m_j)``), the linearised (Laplace) update adds ``p(1-p) x x^T`` to the
    precision, ``x = e_i - e_j``. The information gained about ``theta`` -- the reduction in the
    belief's entropy -- is then ``1/2 log(1 + p(1-p) x^T S x)`` with ``x^T S x = S_ii + S_jj - 2 S_ij``
    (matrix determinant lemma). The pair with the largest value is the one whose outcome most
    reduces rating uncertainty (the HUMANE selection rule). Returns shape ``(..., K(K-1)/2)`` in the
    order of :func:`pair_index`.
    """
    theta = np.asarray(theta, dtype=float)
    cov = np.asarray(cov, dtype=float)
    K = theta.shape[-1]
    i, j = pair_index(K)
    p = special.expit(theta[..., i] - theta[..., j])
    var = cov[..., i, i] + cov[..., j, j] - 2.0 * cov[..., i, j]
    return 0.5 * np.log1p(p * (1.0 - p) * var)
