"""compendium.stats.pairwise, each statistic against an independent computation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import optimize, special, stats
from statsmodels.stats.proportion import proportion_confint

from compendium.pipeline import paths
from compendium.stats import pairwise as pw

MODELS = ["untrained", "recipe_a", "recipe_b", "recipe_c", "recipe_d"]


@pytest.fixture(scope="module")
def pair_counts():
    return pd.read_csv(paths.HITL / "published_pair_counts.csv")


@pytest.fixture(scope="module")
def W_pub(pair_counts):
    i = pair_counts["model_x"].map(MODELS.index).to_numpy()
    j = pair_counts["model_y"].map(MODELS.index).to_numpy()
    return pw.win_matrix_from_counts(i, j, pair_counts["x_wins"], pair_counts["y_wins"], pair_counts["ties"], 5)


@pytest.fixture(scope="module")
def published():
    doc = yaml.safe_load((paths.PUBLISHED / "hitl.yaml").read_text())
    return {c["id"]: c for c in doc["claims"]}


# ---------------------------------------------------------------- Wilson


def test_wilson_matches_statsmodels():
    k = np.array([0, 1, 5, 41, 81, 62, 100])
    n = np.array([10, 1, 9, 122, 122, 119, 100])
    alpha = 2 * (1 - stats.norm.cdf(1.96))  # the published z = 1.96 exactly
    lo, hi = pw.wilson_interval(k, n)
    slo, shi = proportion_confint(k, n, alpha=alpha, method="wilson")
    np.testing.assert_allclose(lo, slo, atol=1e-12)
    np.testing.assert_allclose(hi, shi, atol=1e-12)


def test_wilson_scalar_and_edge_cases():
    lo, hi = pw.wilson_interval(81, 122)
    assert isinstance(lo, float) and lo < 81 / 122 < hi
    assert all(math.isnan(v) for v in pw.wilson_interval(0, 0))
    with pytest.raises(ValueError, match="exceed"):
        pw.wilson_interval(5, 4)
    with pytest.raises(ValueError, match="non-negative"):
        pw.wilson_interval(-1, 4)


# ---------------------------------------------------------------- win matrices


def test_win_matrix_ties_half_and_batch():
    W = pw.win_matrix_from_counts([0, 1], [1, 2], [3, 2], [1, 4], [2, 0], 3)
    np.testing.assert_array_equal(W, [[0, 4, 0], [2, 0, 2], [0, 4, 0]])
    Wb = pw.win_matrix_from_counts([0, 1], [1, 2], [[3, 2], [0, 0]], [[1, 4], [1, 1]], [[2, 0], [0, 2]], 3)
    np.testing.assert_array_equal(Wb[0], W)
    np.testing.assert_array_equal(Wb[1], [[0, 0, 0], [1, 0, 1], [0, 2, 0]])


@pytest.mark.parametrize(
    "args,msg",
    [
        (([0], [0], [1], [1], [0], 2), "itself"),
        (([0], [2], [1], [1], [0], 2), "outside"),
        (([0], [1], [-1], [1], [0], 2), "non-negative"),
        (([0], [1], [1, 2], [1], [0], 2), "shape"),
    ],
)
def test_win_matrix_errors(args, msg):
    with pytest.raises(ValueError, match=msg):
        pw.win_matrix_from_counts(*args)


# ---------------------------------------------------------------- Bradley-Terry


def _bt_reference(W, tol=1e-6, max_iter=500):
    """Independent plain-Python transcription of METHODS.md (no numpy)."""
    n = len(W)
    s = [1.0] * n
    for _ in range(max_iter):
        new = []
        for i in range(n):
            num = sum(W[i][j] for j in range(n) if j != i)
            den = sum((W[i][j] + W[j][i]) / (s[i] + s[j]) for j in range(n) if j != i and W[i][j] + W[j][i] > 0)
            new.append(num / den)
        tot = sum(new)
        new = [x / tot * n for x in new]
        if max(abs(a - b) for a, b in zip(s, new)) < tol:
            break
        s = new
    return s


def test_bt_reproduces_published_strengths(W_pub, published):
    s = pw.bradley_terry_mm(W_pub).strengths
    for k, m in enumerate(MODELS):
        c = published[f"hitl.bt.{m}"]
        assert abs(s[k] - c["published"]) <= c["tol"]
    # the four published to full precision agree to far better than the 1e-6 tolerance
    for m in ("recipe_a", "recipe_b", "recipe_c", "recipe_d"):
        assert abs(s[MODELS.index(m)] - published[f"hitl.bt.{m}"]["published"]) < 1e-12


def test_bt_equals_plain_python_reference(W_pub):
    ref = _bt_reference(W_pub.tolist())
    np.testing.assert_allclose(pw.bradley_terry_mm(W_pub).strengths, ref, rtol=0, atol=1e-13)


def test_bt_stops_one_iterate_early_within_tolerance(W_pub):
    r = pw.bradley_terry_mm(W_pub)
    conv = pw.bradley_terry_mm(W_pub, tol=1e-14, max_iter=100_000).strengths
    assert bool(r.converged) and int(r.n_iter) == 15
    diff = np.abs(r.strengths - conv).max()
    assert 1e-8 < diff < 1e-6  # short of the MLE, but by less than the tolerance
    assert r.strengths.sum() == pytest.approx(5.0, abs=1e-12)


def test_bt_converged_matches_choix(W_pub):
    conv = pw.bradley_terry_mm(W_pub, tol=1e-14, max_iter=100_000).strengths
    np.testing.assert_allclose(pw.bradley_terry_choix(W_pub), conv, atol=1e-10)


def test_bt_matches_choix_mm_on_doubled_comparisons():
    """Ties as half wins == every judgement counted twice, a tie once each way (choix list format)."""
    import choix

    rng = np.random.default_rng(3)
    i, j = np.triu_indices(4, 1)
    a, b, t = rng.integers(5, 30, (3, i.size))
    W = pw.win_matrix_from_counts(i, j, a, b, t, 4)
    data = []
    for p in range(i.size):
        data += [(i[p], j[p])] * (2 * a[p]) + [(j[p], i[p])] * (2 * b[p]) + [(i[p], j[p]), (j[p], i[p])] * t[p]
    theta = choix.mm_pairwise(4, data, tol=1e-12, max_iter=100_000)
    ref = np.exp(theta) / np.exp(theta).sum() * 4
    np.testing.assert_allclose(pw.bradley_terry_mm(W, tol=1e-14, max_iter=100_000).strengths, ref, atol=1e-8)


def test_bt_two_models_hand_case():
    s = pw.bradley_terry_mm(np.array([[0.0, 3.0], [1.0, 0.0]]), tol=1e-15, max_iter=10_000).strengths
    np.testing.assert_allclose(s, [1.5, 0.5], atol=1e-12)  # pi_1 / pi_2 = 3, sum 2


def test_bt_batched_equals_one_at_a_time(W_pub):
    rng = np.random.default_rng(0)
    Wb = W_pub * rng.uniform(0.5, 1.5, size=(7, 5, 5))
    res = pw.bradley_terry_mm(Wb)
    for b in range(7):
        one = pw.bradley_terry_mm(Wb[b])
        np.testing.assert_array_equal(res.strengths[b], one.strengths)
        assert res.n_iter[b] == one.n_iter


def test_bt_errors():
    with pytest.raises(ValueError, match="no comparisons"):
        pw.bradley_terry_mm(np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0.0]]))
    with pytest.raises(ValueError, match="shape"):
        pw.bradley_terry_mm(np.ones(3))
    with pytest.raises(ValueError, match="non-negative"):
        pw.bradley_terry_mm(-np.ones((2, 2)))


def test_bt_log_covariance_matches_logistic_regression():
    """BT is a logistic regression on x = e_i - e_j; statsmodels' GLM gives var(theta_i - theta_ref)."""
    import statsmodels.api as sm

    rng = np.random.default_rng(5)
    K = 4
    i, j = np.triu_indices(K, 1)
    a, b = rng.integers(10, 60, (2, i.size))
    W = pw.win_matrix_from_counts(i, j, a, b, np.zeros(i.size), K)
    s = pw.bradley_terry_mm(W, tol=1e-14, max_iter=100_000).strengths
    C = pw.bradley_terry_log_covariance(s, W)
    X = np.zeros((i.size, K))
    X[np.arange(i.size), i] = 1
    X[np.arange(i.size), j] = -1
    fit = sm.GLM(np.column_stack([a, b]), X[:, 1:], family=sm.families.Binomial()).fit()  # model 0 = reference
    for k in range(1, K):
        var_k0 = C[k, k] + C[0, 0] - 2 * C[k, 0]
        assert var_k0 == pytest.approx(fit.cov_params()[k - 1, k - 1], rel=1e-6)
    np.testing.assert_allclose(fit.params, np.log(s[1:] / s[0]), atol=1e-6)


# ---------------------------------------------------------------- Davidson


def test_davidson_two_models_closed_form():
    """Two items: the model is saturated, so pi_1/pi_2 = w/l and nu = t / sqrt(w l)."""
    w, l, t = 30.0, 12.0, 9.0
    fit = pw.davidson_fit(np.array([[0, w], [l, 0]]), np.array([[0, t], [t, 0]]))
    assert fit.converged
    assert fit.strengths[0] / fit.strengths[1] == pytest.approx(w / l, rel=1e-6)
    assert fit.nu == pytest.approx(t / math.sqrt(w * l), rel=1e-6)


def test_davidson_solves_likelihood_equations(pair_counts):
    i = pair_counts["model_x"].map(MODELS.index).to_numpy()
    j = pair_counts["model_y"].map(MODELS.index).to_numpy()
    z = np.zeros(len(i))
    wins = pw.win_matrix_from_counts(i, j, pair_counts["x_wins"], pair_counts["y_wins"], z, 5)
    ties = pw.win_matrix_from_counts(i, j, z, z, pair_counts["ties"], 5, tie_weight=1.0)
    fit = pw.davidson_fit(wins, ties)
    pi, nu = fit.strengths, fit.nu
    N = wins + wins.T + ties
    Pw, Pt = pw.davidson_probabilities(pi, nu)
    # Davidson (1970): W_i + T_i / 2 = sum_j n_ij (P(i beats j) + P(tie)/2);  T = sum_{i<j} n_ij P(tie)
    lhs = wins.sum(1) + ties.sum(1) / 2
    rhs = np.array([sum(N[a, b] * (Pw[a, b] + Pt[a, b] / 2) for b in range(5) if b != a) for a in range(5)])
    np.testing.assert_allclose(lhs, rhs, rtol=1e-6)
    iu = np.triu_indices(5, 1)
    assert ties[iu].sum() == pytest.approx((N[iu] * Pt[iu]).sum(), rel=1e-6)
    # probabilities of the three outcomes add up to one
    np.testing.assert_allclose(Pw + Pw.T + Pt - np.diag(np.diag(Pw + Pw.T + Pt)), 1 - np.eye(5), atol=1e-12)


def test_davidson_errors():
    with pytest.raises(ValueError, match="no ties"):
        pw.davidson_fit(np.array([[0, 3], [1, 0.0]]), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="same shape"):
        pw.davidson_fit(np.zeros((2, 2)), np.zeros((3, 3)))


# ---------------------------------------------------------------- TrueSkill


@pytest.mark.parametrize("draw_probability,tau", [(0.10, 25 / 300), (0.178, 0.0), (0.30, 0.5)])
def test_trueskill_batched_equals_package(draw_probability, tau):
    rng = np.random.default_rng(11)
    T = 250
    w = rng.integers(0, 5, T)
    l = (w + rng.integers(1, 5, T)) % 5
    d = rng.random(T) < 0.2
    mu, sigma = pw.trueskill_sequential(w, l, d, 5, draw_probability=draw_probability, tau=tau)
    order2 = rng.permutation(T)
    mub, sigb = pw.trueskill_batched(
        np.stack([w, w[order2]]),
        np.stack([l, l[order2]]),
        np.stack([d, d[order2]]),
        5,
        draw_probability=draw_probability,
        tau=tau,
    )
    np.testing.assert_allclose(mub[0], mu, atol=1e-9)
    np.testing.assert_allclose(sigb[0], sigma, atol=1e-9)
    mu2, sig2 = pw.trueskill_sequential(w[order2], l[order2], d[order2], 5, draw_probability=draw_probability, tau=tau)
    np.testing.assert_allclose(mub[1], mu2, atol=1e-9)
    np.testing.assert_allclose(sigb[1], sig2, atol=1e-9)


def test_trueskill_single_game_hand_values():
    """First game between two default players, no draws possible: the closed form of Herbrich et al."""
    import trueskill

    env = trueskill.TrueSkill(draw_probability=0.0, backend="scipy")
    a, b = trueskill.rate_1vs1(env.create_rating(), env.create_rating(), env=env)
    mu, sig = pw.trueskill_batched([[0]], [[1]], [[False]], 2, draw_probability=0.0)
    s2 = (25 / 3) ** 2 + (25 / 300) ** 2
    c = math.sqrt(2 * (25 / 6) ** 2 + 2 * s2)
    v = stats.norm.pdf(0) / stats.norm.cdf(0)
    assert mu[0, 0] == pytest.approx(25 + s2 / c * v, abs=1e-12) == pytest.approx(a.mu, abs=1e-12)
    assert sig[0, 1] == pytest.approx(b.sigma, abs=1e-12)


def test_trueskill_errors():
    with pytest.raises(ValueError, match="same model"):
        pw.trueskill_batched([[0]], [[0]], [[False]], 2)
    with pytest.raises(ValueError, match="draw_probability"):
        pw.trueskill_draw_margin(1.0, 4.0)


# ---------------------------------------------------------------- MAP belief and information gain


def _map_objective(theta, W, prior_sd):
    K = len(theta)
    val = 0.0
    for a in range(K):
        for b in range(K):
            if a != b:
                val += W[a, b] * math.log(special.expit(theta[a] - theta[b]))
    return -(val - (theta**2).sum() / (2 * prior_sd**2))


def test_bradley_terry_map_matches_scipy_and_numerical_hessian():
    rng = np.random.default_rng(2)
    W = rng.integers(0, 20, (4, 4)).astype(float)
    np.fill_diagonal(W, 0)
    theta, cov = pw.bradley_terry_map(W, prior_sd=1.5)
    ref = optimize.minimize(_map_objective, np.zeros(4), args=(W, 1.5), method="BFGS", options={"gtol": 1e-10})
    np.testing.assert_allclose(theta, ref.x, atol=1e-6)
    # numerical Hessian of the negative log-posterior at the optimum
    h = 1e-4
    H = np.zeros((4, 4))
    for a in range(4):
        for b in range(4):
            e_a, e_b = np.eye(4)[a] * h, np.eye(4)[b] * h
            H[a, b] = (
                _map_objective(theta + e_a + e_b, W, 1.5)
                - _map_objective(theta + e_a - e_b, W, 1.5)
                - _map_objective(theta - e_a + e_b, W, 1.5)
                + _map_objective(theta - e_a - e_b, W, 1.5)
            ) / (4 * h * h)
    np.testing.assert_allclose(cov, np.linalg.inv(H), rtol=1e-4, atol=1e-8)


def test_expected_information_gain_is_log_det_reduction():
    rng = np.random.default_rng(4)
    A = rng.normal(size=(5, 5))
    S = A @ A.T + 0.5 * np.eye(5)
    m = rng.normal(size=5)
    eig = pw.expected_information_gain(m, S)
    i, j = pw.pair_index(5)
    for p in range(i.size):
        x = np.zeros(5)
        x[i[p]], x[j[p]] = 1, -1
        q = special.expit(m[i[p]] - m[j[p]])
        prec = np.linalg.inv(S)
        ref = 0.5 * (np.linalg.slogdet(prec + q * (1 - q) * np.outer(x, x))[1] - np.linalg.slogdet(prec)[1])
        assert eig[p] == pytest.approx(ref, rel=1e-9)


def test_information_gain_prefers_the_unexplored_pair():
    W = np.zeros((3, 3))
    W[0, 1] = W[1, 0] = 200.0  # 0 and 1 compared a lot; 2 never
    theta, cov = pw.bradley_terry_map(W)
    eig = pw.expected_information_gain(theta, cov)  # pairs (0,1), (0,2), (1,2)
    assert eig.argmin() == 0 and eig[1] > eig[0] and eig[2] > eig[0]


def test_spd_inverse_matches_lapack_on_a_stack():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(50, 5, 8))
    M = X @ np.swapaxes(X, -1, -2) + 0.1 * np.eye(5)
    inv = pw.spd_inverse(M)
    np.testing.assert_allclose(inv, np.linalg.inv(M), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(M @ inv, np.broadcast_to(np.eye(5), M.shape), atol=1e-9)
    assert pw.spd_inverse(np.array([[4.0]]))[0, 0] == 0.25


def test_std_normal_pdf_same_bits_as_scipy():
    from scipy import stats

    x = np.random.default_rng(3).normal(0.0, 4.0, (200, 37))
    x[0, :3] = [0.0, -0.0, 40.0]
    ours = pw.std_normal_pdf(x)
    assert ours.dtype == np.float64
    assert np.array_equal(ours.view(np.int64), stats.norm.pdf(x).view(np.int64))


def test_scipy_normal_backend_same_bits_as_scipy_stats():
    """The TrueSkill check's normal functions give scipy.stats.norm's bits on every number (and at the edges)."""
    from scipy import stats

    rng = np.random.default_rng(8)
    xs = np.concatenate([rng.normal(0.0, 3.0, 3000), rng.normal(0.0, 40.0, 300)])
    xs = np.concatenate([xs, [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-300, 38.5, -38.5, 1e300]])
    qs = np.concatenate([rng.random(3000), [0.0, 1.0, 0.5, 1e-300, np.nextafter(1.0, 0.0), np.nan, -0.1, 1.1]])
    cdf, pdf, ppf = pw.SCIPY_NORMAL
    with np.errstate(over="ignore"):
        for ours, theirs, args in [(cdf, stats.norm.cdf, xs), (pdf, stats.norm.pdf, xs), (ppf, stats.norm.ppf, qs)]:
            got = np.array([ours(float(v)) for v in args])
            want = np.array([theirs(float(v)) for v in args])
            nan = np.isnan(want)  # a NaN's sign bit aside (scipy writes its own NaN)
            assert np.array_equal(np.isnan(got), nan), ours
            assert np.array_equal(got[~nan].view(np.int64), want[~nan].view(np.int64)), ours


def test_trueskill_sequential_same_bits_as_package_scipy_backend():
    import trueskill

    rng = np.random.default_rng(12)
    T = 300
    w = rng.integers(0, 5, T)
    l = (w + rng.integers(1, 5, T)) % 5
    d = rng.random(T) < 0.25
    env = trueskill.TrueSkill(draw_probability=0.178, backend="scipy")
    r = [env.create_rating() for _ in range(5)]
    for a, b, tie in zip(w, l, d):
        r[a], r[b] = trueskill.rate_1vs1(r[a], r[b], drawn=bool(tie), env=env)
    mu, sigma = pw.trueskill_sequential(w, l, d, 5, draw_probability=0.178)
    assert np.array_equal(mu.view(np.int64), np.array([x.mu for x in r]).view(np.int64))
    assert np.array_equal(sigma.view(np.int64), np.array([x.sigma for x in r]).view(np.int64))


def test_spd_inverse_same_bits_as_plain_gauss_jordan():
    """The stacked, axes-first elimination does, element by element, what a textbook loop over one matrix
    does, so the bits agree (the active-sampling simulation's argmax depends on them)."""

    def one(m):
        A = m.astype(float).copy()
        K = len(A)
        inv = np.eye(K)
        for k in range(K):
            piv = A[k, k]
            A[k, :] = A[k, :] / piv
            inv[k, :] = inv[k, :] / piv
            for i in range(K):
                if i != k:
                    f = A[i, k]
                    A[i, :] = A[i, :] - f * A[k, :]
                    inv[i, :] = inv[i, :] - f * inv[k, :]
        return inv

    rng = np.random.default_rng(11)
    X = rng.normal(size=(3, 40, 5, 9))
    M = X @ np.swapaxes(X, -1, -2) + 0.05 * np.eye(5)
    got = pw.spd_inverse(M)
    assert got.shape == M.shape and got.flags.c_contiguous
    want = np.array([[one(m) for m in row] for row in M])
    assert np.array_equal(got.view(np.int64), want.view(np.int64))
