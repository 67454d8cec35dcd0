"""compendium.audit.ranks: tie groups at a simultaneous level and the Bradley-Terry transitivity test, on cases whose
answer is known, against closed forms (the normal quantile, the studentized range, Bonferroni), brute force
(coverage by simulation, circular triads by formula) and statsmodels (the deviance of the binomial logit GLM)."""

from __future__ import annotations

import subprocess
import sys
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from compendium.audit import ranks as R
from compendium.pipeline import paths
from compendium.stats import pairwise as pw


def _counts(rows):
    df = pd.DataFrame(rows, columns=["model_x", "model_y", "x_wins", "y_wins", "ties"])
    df["n"] = df["x_wins"] + df["y_wins"] + df["ties"]
    return df


def _bt_table(strengths, n, tie_share, rng):
    """One table simulated from a Bradley-Terry truth: ties at ``tie_share``, decisive wins binomial with the
    probability that makes the half-win score the BT probability."""
    names = [f"m{k}" for k in range(len(strengths))]
    rows = []
    for a, b in combinations(range(len(strengths)), 2):
        p = strengths[a] / (strengths[a] + strengths[b])
        t = rng.binomial(n, tie_share)
        q = (p * n - t / 2) / (n - t)
        x = rng.binomial(n - t, q)
        rows.append((names[a], names[b], x, n - t - x, t))
    return _counts(rows)


@pytest.fixture(scope="module")
def study_counts():
    return pd.read_csv(paths.HITL / "published_pair_counts.csv")


@pytest.fixture(scope="module")
def pwi_scores():
    return pd.read_csv(paths.DATA / "pwb" / "analysis_output" / "pwi_scores.csv")


# ---------------------------------------------------------------- tie groups: known answers


def test_three_models_far_apart_give_three_groups_and_exact_ranks():
    out = R.tie_groups(["c", "a", "b"], [0.0, 20.0, 10.0], np.eye(3), level=0.95, seed=0, n_sims=2000)
    assert list(out.columns) == list(R.TIE_GROUP_COLUMNS)
    assert out["model"].tolist() == ["a", "b", "c"]
    assert out["group"].tolist() == [1, 2, 3]
    assert out["separable_from_next"].tolist() == [True, True, False]
    assert (out["rank_lo"] == out["rank"]).all() and (out["rank_hi"] == out["rank"]).all()
    assert out["mc_stable"].all() and (out["method"] == "normal").all() and (out["level"] == 0.95).all()
    assert out["diff_next"].iloc[:2].tolist() == [10.0, 10.0] and np.isnan(out["diff_next"].iloc[2])


def test_identical_models_give_one_group_and_every_rank():
    out = R.tie_groups(list("abcd"), [1.0] * 4, 0.3 * np.eye(4), level=0.95, seed=0, n_sims=2000)
    assert out["model"].tolist() == list("abcd")  # equal estimates keep the given order
    assert (out["group"] == 1).all() and not out["separable_from_next"].any()
    assert (out["rank_lo"] == 1).all() and (out["rank_hi"] == 4).all()


def test_two_models_the_simultaneous_interval_is_the_ordinary_one():
    """With one difference, max |t| is |t|: the critical value is z_0.975, within its own Monte-Carlo error."""
    cov = np.array([[0.04, 0.01], [0.01, 0.09]])
    out = R.tie_groups(["a", "b"], [0.5, 0.2], cov, level=0.95, seed=1, n_sims=40_000)
    c, c_se = out["critical_value"].iloc[0], out["critical_value_mc_se"].iloc[0]
    z = stats.norm.ppf(0.975)
    assert abs(c - z) < 4 * c_se and c_se < 0.03
    se = np.sqrt(0.04 + 0.09 - 0.02)
    assert out["diff_next_se"].iloc[0] == pytest.approx(se)
    assert out["diff_next_lo"].iloc[0] == pytest.approx(0.3 - c * se)
    assert out["diff_next_hi"].iloc[0] == pytest.approx(0.3 + c * se)
    assert out["mc_stable"].all()  # |t| = 0.3 / 0.33 is far from c
    edge = R.tie_groups(["a", "b"], [z * se, 0.0], cov, level=0.95, seed=1, n_sims=40_000)
    assert not edge["mc_stable"].any()  # |t| = z: the verdict could go either way with another seed
    three = R.tie_groups(["a", "b", "c"], [40.0, 0.0, 0.0], np.eye(3), level=0.95, seed=1, n_sims=40_000)
    c3 = three["critical_value"].iloc[0]
    three = R.tie_groups(["a", "b", "c"], [40.0, c3 * np.sqrt(2), 0.0], np.eye(3), level=0.95, seed=1, n_sims=40_000)
    assert three.set_index("model")["mc_stable"].to_dict() == {"a": True, "b": False, "c": False}


def test_equicorrelated_critical_value_is_the_studentized_range():
    """Independent estimates with one variance: max_ij |x_i - x_j| / (s sqrt 2) is the range over s sqrt 2, so the
    critical value is the studentized range quantile q(level; K, inf) / sqrt 2 (Tukey's HSD)."""
    K = 5
    out = R.tie_groups(list("abcde"), np.arange(K, dtype=float), 2.5 * np.eye(K), level=0.95, seed=3, n_sims=100_000)
    c, c_se = out["critical_value"].iloc[0], out["critical_value_mc_se"].iloc[0]
    q = stats.studentized_range.ppf(0.95, K, np.inf) / np.sqrt(2)
    assert abs(c - q) < 4 * c_se and c_se < 0.02


def test_critical_value_lies_between_one_comparison_and_bonferroni(study_counts):
    """At least the single-comparison z (the max of m |t|'s exceeds each) and at most Bonferroni's
    z_{1 - alpha / 2m}, for a correlated covariance (the study's Bradley-Terry log-strengths)."""
    names, theta, cov = R.bt_estimates(study_counts, 0.5)
    for level in (0.8, 0.95):
        out = R.tie_groups(names, theta, cov, level=level, seed=0, n_sims=20_000)
        c = out["critical_value"].iloc[0]
        m = len(names) * (len(names) - 1) / 2
        assert stats.norm.ppf(1 - (1 - level) / 2) < c < stats.norm.ppf(1 - (1 - level) / (2 * m))


def test_mc_standard_error_matches_the_spread_between_seeds():
    cov = np.diag([1.0, 2.0, 0.5, 1.5])
    crits, ses = [], []
    for seed in range(30):
        out = R.tie_groups(list("abcd"), [0.0, 1.0, 2.0, 3.0], cov, level=0.95, seed=seed, n_sims=3000)
        crits.append(out["critical_value"].iloc[0])
        ses.append(out["critical_value_mc_se"].iloc[0])
    ratio = np.std(crits, ddof=1) / np.mean(ses)
    assert 0.6 < ratio < 1.6


def test_null_and_planted_leaderboards_at_the_simultaneous_level():
    """Brute-force calibration: equal truths are split (some rank interval narrower than 1..K) in at most about
    1 - level of the studies; with distinct truths every model's true rank lies in its interval at least about
    level of the time (jointly); a planted gap of 8 standard errors is found every time."""
    rng = np.random.default_rng(7)
    K, reps, level = 5, 300, 0.95
    cov = 0.5 * np.eye(K) + 0.5  # equicorrelated, like sum-to-zero estimates; differences have variance 1
    L = np.linalg.cholesky(cov)
    names = list("abcde")
    truth = np.array([0.0, 0.4, 0.8, 1.2, 9.2])  # the last model 8 SE above the rest
    true_rank = {m: r + 1 for r, m in enumerate(np.array(names)[np.argsort(-truth)])}
    split_null = covered = found = 0
    for _ in range(reps):
        e = L @ rng.standard_normal(K)
        null = R.tie_groups(names, e, cov, level=level, seed=0, n_sims=2000)
        split_null += bool(((null["rank_lo"] > 1) | (null["rank_hi"] < K)).any())
        out = R.tie_groups(names, truth + e, cov, level=level, seed=0, n_sims=2000)
        ok = [lo <= true_rank[m] <= hi for m, lo, hi in zip(out["model"], out["rank_lo"], out["rank_hi"])]
        covered += all(ok)
        found += bool(out["model"].iloc[0] == "e" and out["separable_from_next"].iloc[0])
    sd = np.sqrt(0.05 * 0.95 / reps)
    assert split_null / reps < 0.05 + 3 * sd
    assert covered / reps > 0.95 - 3 * sd
    assert found == reps


def test_bootstrap_draws_give_the_normal_answer_for_normal_draws():
    """Draws from the same normal law as ``cov``: the studentised max over the draws estimates the same quantile,
    and the groups agree (a clear case: two tiers)."""
    names = ["a", "b", "c", "d"]
    est = np.array([10.0, 9.8, 2.0, 1.7])
    cov = np.array([[1.0, 0.3, 0, 0], [0.3, 1.2, 0, 0], [0, 0, 0.8, 0.1], [0, 0, 0.1, 0.9]])
    draws = est + np.random.default_rng(11).multivariate_normal(np.zeros(4), cov, size=40_000)
    nor = R.tie_groups(names, est, cov, level=0.95, seed=0, n_sims=40_000)
    boo = R.tie_groups(names, est, draws=draws, level=0.95, seed=0, n_sims=40_000)
    assert boo["method"].iloc[0] == "bootstrap" and nor["method"].iloc[0] == "normal"
    diff = abs(boo["critical_value"].iloc[0] - nor["critical_value"].iloc[0])
    assert diff < 4 * np.hypot(boo["critical_value_mc_se"].iloc[0], nor["critical_value_mc_se"].iloc[0])
    assert boo["group"].tolist() == nor["group"].tolist() == [1, 1, 2, 2]
    np.testing.assert_allclose(boo["se"], np.sqrt(np.diag(cov)), rtol=0.02)


def test_seeded_and_byte_stable():
    cov = np.diag([1.0, 2.0, 0.5])
    a = R.tie_groups(list("abc"), [0.0, 1.0, 3.0], cov, level=0.9, seed=5, n_sims=1000)
    b = R.tie_groups(list("abc"), [0.0, 1.0, 3.0], cov, level=0.9, seed=5, n_sims=1000)
    c = R.tie_groups(list("abc"), [0.0, 1.0, 3.0], cov, level=0.9, seed=6, n_sims=1000)
    pd.testing.assert_frame_equal(a, b)
    assert a["critical_value"].iloc[0] != c["critical_value"].iloc[0]


@pytest.mark.parametrize(
    "kwargs,msg",
    [
        ({"cov": None, "draws": None}, "exactly one of cov"),
        ({"cov": np.eye(3), "draws": np.zeros((5, 3))}, "exactly one of cov"),
        ({"cov": np.eye(2)}, r"finite \(3, 3\)"),
        ({"cov": np.ones((3, 3))}, "has no variance"),
        ({"cov": np.array([[1, 0.5, 0], [0, 1, 0], [0, 0, 1.0]])}, "symmetric"),
        ({"draws": np.ones((10, 3))}, "does not vary"),
        ({"cov": np.eye(3), "level": 1.0}, "level must lie"),
        ({"cov": np.eye(3), "n_sims": 10}, "n_sims"),
    ],
)
def test_tie_groups_refuses_bad_input(kwargs, msg):
    args = {"level": 0.95, "seed": 0, "n_sims": 1000} | kwargs
    with pytest.raises(ValueError, match=msg):
        R.tie_groups(["a", "b", "c"], [1.0, 2.0, 3.0], **args)


# ---------------------------------------------------------------- the two leaderboards' estimates


def test_bt_estimates_are_the_study_fit_and_its_covariance(study_counts):
    names, theta, cov = R.bt_estimates(study_counts, 0.5)
    assert names == ["untrained", "recipe_b", "recipe_a", "recipe_c", "recipe_d"]  # first appearance
    pos = [names.index(m) for m in pw_models()]
    i = [pw_models().index(m) for m in study_counts["model_x"]]
    j = [pw_models().index(m) for m in study_counts["model_y"]]
    W = pw.win_matrix_from_counts(i, j, study_counts["x_wins"], study_counts["y_wins"], study_counts["ties"], 5)
    ref = pw.bradley_terry_choix(W)  # an independent fitter (the choix library)
    np.testing.assert_allclose(theta[pos], np.log(ref) - np.log(ref).mean(), atol=1e-8)
    assert abs(theta.sum()) < 1e-12
    np.testing.assert_allclose(cov[np.ix_(pos, pos)], pw.bradley_terry_log_covariance(ref, W), atol=1e-9)
    np.testing.assert_allclose(cov.sum(axis=1), 0.0, atol=1e-12)  # sum-to-zero identification


def pw_models():
    return ["untrained", "recipe_a", "recipe_b", "recipe_c", "recipe_d"]


def test_study_top_two_are_not_separated(study_counts):
    """The study's bootstrap has recipe C above D in about 70 % of resamples: the top two cannot be one group each."""
    names, theta, cov = R.bt_estimates(study_counts, 0.5)
    out = R.tie_groups(names, theta, cov, level=0.95, seed=0, n_sims=5000)
    assert out["model"].iloc[:2].tolist() == ["recipe_c", "recipe_d"]
    assert out["group"].iloc[0] == out["group"].iloc[1] and out["rank_hi"].iloc[0] >= 2


def test_pwi_estimates_read_the_interval_width(pwi_scores):
    names, est, cov = R.pwi_estimates(pwi_scores, "baseline", R.PWI_Z)
    assert len(names) == 7 and names[0] == "DeepSeek V3.2"
    assert est[0] == 29.8
    assert np.sqrt(cov[0, 0]) == pytest.approx((31.7 - 28.0) / (2 * stats.norm.ppf(0.975)))
    assert np.count_nonzero(cov - np.diag(np.diag(cov))) == 0  # independent models
    assert R.PWI_Z == pytest.approx(1.959963984540054)


@pytest.mark.parametrize(
    "edit,variant,msg",
    [
        (lambda d: d, "prompted", "no row has Variant 'prompted'"),
        (lambda d: pd.concat([d, d.iloc[[0]]]), "baseline", "a second time"),
        (lambda d: d.assign(CI_upper=d["CI_lower"]), "baseline", "no width"),
        (lambda d: d.assign(PWI="n/a"), "baseline", "'PWI' is not a number"),
        (lambda d: d.drop(columns="CI_upper"), "baseline", "missing column"),
    ],
)
def test_pwi_estimates_refuse_bad_rows(pwi_scores, edit, variant, msg):
    with pytest.raises(ValueError, match=msg):
        R.pwi_estimates(edit(pwi_scores.copy()), variant, R.PWI_Z)


@pytest.mark.parametrize(
    "rows,msg",
    [
        ([("a", "b", 3, 2, 1, 5)], "'n' is 5 but"),
        ([("a", "a", 3, 2, 1, 6)], "with itself"),
        ([("a", "b", 3, 2, 1, 6), ("b", "a", 1, 1, 0, 2)], "rows 0 and 1 both count a vs b"),
        ([("a", "b", -3, 2, 1, 0)], "'x_wins' is '-3'"),
    ],
)
def test_pair_counts_refused_with_row_and_column(rows, msg):
    df = pd.DataFrame(rows, columns=["model_x", "model_y", "x_wins", "y_wins", "ties", "n"])
    with pytest.raises(ValueError, match=msg):
        R.bt_estimates(df, 0.5)


# ---------------------------------------------------------------- transitivity


def _deviance_statsmodels(counts, tie_weight):
    """The deviance of the binomial logit GLM on the pair design (+1 for model_x, -1 for model_y, no intercept, the
    last model's column dropped): the weighted score share as the response, its total as the variance weight."""
    import statsmodels.api as sm

    names = sorted(set(counts["model_x"]) | set(counts["model_y"]))
    X = np.zeros((len(counts), len(names)))
    for r, (x, y) in enumerate(zip(counts["model_x"], counts["model_y"])):
        X[r, names.index(x)], X[r, names.index(y)] = 1.0, -1.0
    wx = counts["x_wins"] + tie_weight * counts["ties"]
    tot = counts["x_wins"] + counts["y_wins"] + 2 * tie_weight * counts["ties"]
    fit = sm.GLM(wx / tot, X[:, :-1], family=sm.families.Binomial(), var_weights=tot).fit(tol=1e-12)
    return fit.deviance, fit.df_resid


def test_deviance_is_the_glm_deviance(study_counts):
    res = R.transitivity_test(study_counts, tie_weight=0.5, n_sims=200, seed=0, level=0.95, p_cycle=())
    dev, df_resid = _deviance_statsmodels(study_counts, 0.5)
    assert res["G2"] == pytest.approx(dev, rel=1e-7)
    assert res["df"] == df_resid == 6
    assert res["p_chi2"] == pytest.approx(stats.chi2.sf(dev, 6), rel=1e-6)
    no_ties = R.transitivity_test(study_counts, tie_weight=0.0, n_sims=200, seed=0, level=0.95, p_cycle=())
    assert no_ties["G2"] == pytest.approx(_deviance_statsmodels(study_counts, 0.0)[0], rel=1e-7)


def test_a_strong_cycle_fails_the_test():
    """A > B > C > A, 80 % each, 200 judgements a pair: no Bradley-Terry order fits (its fit is three equal models)."""
    rows = [("A", "B", 150, 38, 12), ("B", "C", 152, 36, 12), ("A", "C", 36, 152, 12)]
    res = R.transitivity_test(_counts(rows), tie_weight=0.5, n_sims=1000, seed=0, level=0.95, p_cycle=(0.6,))
    assert res["df"] == 1
    assert res["p_chi2"] < 1e-30 and res["p_boot"] == pytest.approx(1 / 1001)
    assert res["circular_triads"] == 1 and res["triads"] == (("A", "B", "C"),)
    assert res["consistency_zeta"] == 0.0  # one triad is the most three models can have


def test_tables_simulated_from_bradley_terry_pass_at_about_the_level_rate():
    """Under a BT truth (ties 20 %), the bootstrap p-value is about uniform: the test rejects at about 1 - level;
    the chi-square p-value is conservative with split ties (a tie's half does not vary)."""
    rng = np.random.default_rng(2024)
    p_boot, p_chi2 = [], []
    for _ in range(100):
        table = _bt_table([1.0, 1.3, 0.8, 1.6], n=120, tie_share=0.2, rng=rng)
        res = R.transitivity_test(table, tie_weight=0.5, n_sims=200, seed=1, level=0.95, p_cycle=())
        p_boot.append(res["p_boot"])
        p_chi2.append(res["p_chi2"])
    p_boot, p_chi2 = np.array(p_boot), np.array(p_chi2)
    assert np.mean(p_boot <= 0.05) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 100)
    assert abs(np.mean(p_boot) - 0.5) < 0.1  # uniform: mean 1/2, SE of the mean 0.029
    assert np.mean(p_chi2) > np.mean(p_boot)


def test_chi_square_is_calibrated_without_ties():
    """No ties: the deviance is a binomial one and chi-square(3) is its reference (four models, six pairs); 1,000
    tables fitted at once with the module's own fitter and deviance (the public function is checked against
    statsmodels above)."""
    rng = np.random.default_rng(5)
    s = np.array([1.0, 1.3, 0.8, 1.6])
    i, j = pw.pair_index(4)
    x = rng.binomial(150, s[i] / (s[i] + s[j]), size=(1000, len(i)))
    W = pw.win_matrix_from_counts(i, j, x, 150 - x, np.zeros_like(x), 4)
    g2 = R._deviance(W, R._fit_bt(W, "test"))
    assert stats.kstest(g2, stats.chi2(3).cdf).pvalue > 0.001
    assert abs(np.mean(g2) - 3) < 4 * np.sqrt(6 / 1000)


def test_simulated_tables_have_the_stated_expected_score():
    """The simulation keeps each pair's n and ties and draws the decisive judgements so that the expected weighted
    score is the stated probability, for half-win and for dropped ties."""
    n, ties = np.array([150.0, 120.0, 90.0]), np.array([30.0, 0.0, 45.0])
    prob = np.array([0.7, 0.4, 0.55])
    u = np.random.default_rng(3).random((40_000, 3))
    for w in (0.5, 0.0):
        x, m = R._simulate_counts(prob, n, ties, w, u)
        assert (x >= 0).all() and (x <= m).all() and (x == np.floor(x)).all()
        score = (x + w * ties) / (m + 2 * w * ties)
        np.testing.assert_allclose(score.mean(axis=0), prob, atol=4 * 0.5 / np.sqrt(90 * 40_000) * 2)


def test_power_finds_a_strong_cycle_and_not_a_null_one():
    """Equal models: a cycle of 0.501 is (almost) the null, so the bootstrap test's power is its level; a cycle of
    0.8 with 200 a pair is found every time; the power grid rises with the cycle's strength."""
    rows = [("A", "B", 80, 80, 40), ("A", "C", 80, 80, 40), ("A", "D", 80, 80, 40)]
    rows += [("B", "C", 80, 80, 40), ("B", "D", 80, 80, 40), ("C", "D", 80, 80, 40)]
    res = R.transitivity_test(
        _counts(rows), tie_weight=0.5, n_sims=2000, seed=0, level=0.95, p_cycle=(0.501, 0.6, 0.8), cycle=("A", "B", "C")
    )
    pw_ = res["power"]
    assert list(pw_.columns) == list(R.POWER_COLUMNS)
    assert abs(pw_["power"].iloc[0] - 0.05) < 4 * np.sqrt(0.05 * 0.95 / 2000)
    assert pw_["power"].iloc[2] == 1.0 and pw_["power"].is_monotonic_increasing
    assert (pw_["power_chi2"] <= pw_["power"]).all()  # the chi-square test is the conservative one with ties
    assert res["mdc"] == pw_.loc[pw_["power"] >= 0.8, "p_cycle"].min()
    assert res["circular_triads"] == 0  # every pair even: no arrows, no triads
    assert res["cycle"] == ("A", "B", "C")


def test_circular_triads_match_kendalls_formula():
    """With no even pair the count is C(K,3) - sum_i C(s_i, 2) (Kendall & Babington Smith); a regular tournament of
    five (each model beats the next two) has the maximum, (K^3 - K) / 24 = 5."""
    rng = np.random.default_rng(9)
    names = list("abcde")
    for trial in range(20):
        rows, score = [], dict.fromkeys(names, 0)
        for a, b in combinations(names, 2):
            if trial == 0:
                x_beats = (names.index(b) - names.index(a)) % 5 in (1, 2)
            else:
                x_beats = bool(rng.random() < 0.5)
            score[a if x_beats else b] += 1
            rows.append((a, b, 30, 20, 5) if x_beats else (a, b, 20, 30, 5))
        res = R.transitivity_test(_counts(rows), tie_weight=0.5, n_sims=100, seed=0, level=0.95, p_cycle=())
        expected = 10 - sum(s * (s - 1) // 2 for s in score.values())
        assert res["circular_triads"] == expected
        if trial == 0:
            assert expected == res["max_circular_triads"] == 5 and res["consistency_zeta"] == 0.0


def test_transitivity_refuses_a_table_without_a_test():
    rows = [("A", "B", 10, 5, 1), ("B", "C", 10, 5, 1)]
    with pytest.raises(ValueError, match="no degree of freedom"):
        R.transitivity_test(_counts(rows), tie_weight=0.5, n_sims=100, seed=0, level=0.95, p_cycle=())
    rows.append(("A", "C", 10, 5, 1))
    with pytest.raises(ValueError, match="strictly between 0.5 and 1"):
        R.transitivity_test(_counts(rows), tie_weight=0.5, n_sims=100, seed=0, level=0.95, p_cycle=(0.4,))
    with pytest.raises(ValueError, match="three distinct models"):
        R.transitivity_test(
            _counts(rows), tie_weight=0.5, n_sims=100, seed=0, level=0.95, p_cycle=(0.6,), cycle=("A", "B", "Z")
        )


def test_import_loads_no_heavy_library():
    code = (
        "import sys, compendium.audit.ranks; "
        "print([m for m in ('statsmodels', 'pingouin', 'matplotlib.pyplot') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
