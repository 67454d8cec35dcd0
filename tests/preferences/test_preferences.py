"""compendium.preferences: the report's numbers, the bootstrap, Davidson, TrueSkill orders, simulation."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from compendium import preferences as pref
from compendium.pipeline import paths
from compendium.stats import pairwise as pw

Z_ALPHA = 2 * (1 - stats.norm.cdf(1.96))


@pytest.fixture(scope="module")
def counts():
    return pd.read_csv(paths.HITL / "published_pair_counts.csv")


@pytest.fixture(scope="module")
def by_category():
    return pd.read_csv(paths.HITL / "published_pair_counts_by_category.csv")


@pytest.fixture(scope="module")
def published():
    return yaml.safe_load((paths.PUBLISHED / "hitl.yaml").read_text())


def small_counts(rows):
    return pd.DataFrame(rows, columns=["model_x", "model_y", "x_wins", "y_wins", "ties"]).assign(
        n=lambda d: d.x_wins + d.y_wins + d.ties
    )


# ---------------------------------------------------------------- report claims


def test_report_claims_reproduce_published(counts, by_category, published):
    from compendium.preferences import build, register

    inputs = build.Inputs(counts=counts, by_category=by_category, prompts=pd.DataFrame(), themes={})
    values = register.report_claims(build.reproduce_report(inputs))
    claims = {c["id"]: c for c in published["claims"]}
    checked = [k for k in values if k in claims]
    assert len(checked) >= 13
    for k in checked:
        assert abs(values[k] - claims[k]["published"]) <= claims[k]["tol"] + 1e-9, k
    assert "hitl.n_participants" not in values


def test_spearman_matches_scipy_and_report_value(counts):
    bt = pref.bradley_terry_table(counts)
    rho = pref.spearman_bt_vs_val(bt)
    s = bt.set_index("model")["strength"]
    ref = stats.spearmanr([s[m] for m in pref.TRAINED], [pref.VAL_PREF_ACC[m] for m in pref.TRAINED]).statistic
    assert rho == pytest.approx(ref, abs=1e-12)
    assert rho == 0.8  # the report's +0.80, exactly (sum d^2 = 2)
    tied = bt.assign(strength=[1.0, 1.0, 1.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="tied"):
        pref.spearman_bt_vs_val(tied)


def test_pair_table_signal_and_wilson():
    c = small_counts(
        [
            ("untrained", "recipe_c", 10, 40, 5),  # C (higher val) wins clearly -> tracks
            ("recipe_a", "recipe_b", 30, 5, 0),  # B higher val, loses clearly -> flips
            ("untrained", "recipe_a", 12, 10, 3),
        ]
    )  # untrained higher val, close -> noisy
    t = pref.pair_table(c).set_index(["model_x", "model_y"])
    assert list(t["signal"]) == ["tracks", "flips", "noisy"]
    r = t.loc[("untrained", "recipe_c")]
    assert r.higher_val_model == "recipe_c" and r.higher_val_wins == 40 and r.higher_val_win_rate == 0.8
    lo, hi = proportion_confint(40, 50, alpha=Z_ALPHA, method="wilson")
    assert (r.wilson_lo, r.wilson_hi) == (pytest.approx(lo, abs=1e-12), pytest.approx(hi, abs=1e-12))
    r = t.loc[("untrained", "recipe_a")]
    assert r.higher_val_model == "untrained" and r.higher_val_wins == 12  # orientation by val_pref_acc
    assert r.delta_val_pref_acc == pytest.approx(0.036)


def test_model_record_pools_both_orientations():
    c = small_counts([("untrained", "recipe_c", 10, 40, 5), ("recipe_c", "recipe_d", 7, 3, 2)])
    rec = pref.model_record(c).set_index("model")
    assert rec.loc["recipe_c", ["wins", "losses", "ties", "n"]].tolist() == [47, 13, 7, 67]
    assert rec.loc["recipe_a", "n"] == 0 and np.isnan(rec.loc["recipe_a", "win_rate"])


@pytest.mark.parametrize(
    "mutate,msg",
    [
        (lambda d: d.drop(columns="ties"), "missing column"),
        (lambda d: d.assign(model_x="recipe_z"), "unknown model"),
        (lambda d: d.assign(n=d.n + 1), "'n' != x_wins"),
        (lambda d: d.assign(x_wins=-1, n=d.n - d.x_wins - 1), "non-negative"),
        (lambda d: pd.concat([d, d]), "more than once"),
        (lambda d: d.assign(model_y=d.model_x), "itself"),
    ],
)
def test_validate_pair_counts_errors(counts, mutate, msg):
    with pytest.raises(ValueError, match=msg):
        pref.validate_pair_counts(mutate(counts.copy()))


def test_bt_crosscheck_table(counts):
    x = pref.bradley_terry_crosscheck(counts)
    assert x["abs_diff_converged_vs_choix"].max() < 1e-10
    assert x["abs_diff_procedure_vs_choix"].max() < 1e-6
    bt = pref.bradley_terry_table(counts)
    assert list(bt.columns) == ["model", "strength", "rank"]
    assert bt.set_index("model")["rank"].to_dict() == {
        "recipe_c": 1,
        "recipe_d": 2,
        "recipe_b": 3,
        "recipe_a": 4,
        "untrained": 5,
    }


def test_winrate_vs_base_and_head_to_head(counts):
    wr = pref.winrate_vs_base(counts)
    assert wr["recipe_c"] == 81 / 122
    h = pref.head_to_head(counts, "recipe_d", "recipe_c")
    assert (h["wins"], h["losses"], h["ties"]) == (62, 57, 31)
    assert h["binom_p"] == pytest.approx(stats.binomtest(62, 119).pvalue)
    lo, hi = proportion_confint(62, 119, alpha=Z_ALPHA, method="wilson")
    assert h["wilson_lo"] == pytest.approx(lo) and h["wilson_hi"] == pytest.approx(hi)
    with pytest.raises(ValueError, match="not found"):
        pref.head_to_head(counts.iloc[:3], "recipe_d", "recipe_c")


# ---------------------------------------------------------------- categories and themes


def test_category_tables(counts, by_category):
    assert pref.category_sums_match(by_category, counts)["match"].all()
    cat_bt = pref.category_bradley_terry(by_category)
    assert cat_bt.shape == (8, 5)
    np.testing.assert_allclose(cat_bt.sum(axis=1), 5.0)
    one = by_category[by_category.category == "personal_advice"]
    np.testing.assert_allclose(
        cat_bt.loc["personal_advice"].to_numpy(), pref.bradley_terry_table(one)["strength"].to_numpy()
    )
    wr = pref.category_win_rates(by_category)
    rec = pref.model_record(one).set_index("model")["win_rate"]
    np.testing.assert_allclose(wr.loc["personal_advice"].to_numpy(), rec.loc[list(pref.MODELS)].to_numpy())
    broken = by_category.copy()
    broken.loc[0, "x_wins"] += 1
    broken.loc[0, "n"] += 1
    assert not pref.category_sums_match(broken, counts)["match"].all()


def test_comment_themes_count_gap():
    themes = json.loads((paths.HITL / "comment_themes_llm.json").read_text())
    tbl, check = pref.comment_themes_table(themes)
    assert check == {"sum_counts": 788, "n_comments": 856, "difference": 68}
    assert len(tbl) == 8 and tbl["count"].is_monotonic_decreasing
    assert tbl["share_of_assigned"].sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="n_comments"):
        pref.comment_themes_table({"themes": []})


# ---------------------------------------------------------------- bootstrap


def test_bootstrap_resamples_within_pairs(counts):
    draws = pref.bootstrap_pair_counts(counts, 500, seed=1)
    assert draws.shape == (500, 10, 3)
    np.testing.assert_array_equal(draws.sum(-1), np.broadcast_to(counts["n"].to_numpy(), (500, 10)))
    # mean of the resampled counts = observed counts (multinomial with the observed proportions)
    np.testing.assert_allclose(draws.mean(0), counts[["x_wins", "y_wins", "ties"]].to_numpy(), rtol=0.05)
    np.testing.assert_array_equal(draws, pref.bootstrap_pair_counts(counts, 500, seed=1))
    with pytest.raises(ValueError, match="n_boot"):
        pref.bootstrap_pair_counts(counts, 0, seed=1)


def test_bootstrap_bt_summary(counts):
    b = pref.bootstrap_bradley_terry(counts, 400, seed=2)
    s = b.summary()
    assert s["p_best"].sum() == pytest.approx(1.0)
    assert ((s["ci_lo"] < s["strength"]) & (s["strength"] < s["ci_hi"])).all()
    rp = b.rank_probabilities()
    np.testing.assert_allclose(rp.sum(axis=1), 1.0)
    np.testing.assert_allclose(rp.sum(axis=0), 1.0)
    pg = b.prob_greater()
    np.testing.assert_allclose((pg + pg.T).to_numpy()[~np.eye(5, dtype=bool)], 1.0)
    cd = b.log_ratio_interval("recipe_c", "recipe_d")
    assert cd["ci_lo"] < 0 < cd["ci_hi"] and not cd["separable"]
    assert cd["p_greater"] == pytest.approx(pg.loc["recipe_c", "recipe_d"])


def test_bootstrap_sd_matches_asymptotic_se_without_ties():
    """No ties: the bootstrap SD of the log-strengths is the asymptotic (Fisher) SE, within MC error."""
    rng = np.random.default_rng(8)
    i, j = pw.pair_index(5)
    n = 400
    true = np.array([0.8, 0.9, 1.0, 1.1, 1.2])
    xw = rng.binomial(n, true[i] / (true[i] + true[j]))
    c = pd.DataFrame(
        {
            "model_x": [pref.MODELS[k] for k in i],
            "model_y": [pref.MODELS[k] for k in j],
            "x_wins": xw,
            "y_wins": n - xw,
            "ties": 0,
            "n": n,
        }
    )
    b = pref.bootstrap_bradley_terry(c, 3000, seed=9)
    se = pref.asymptotic_log_se(c, b.point)
    np.testing.assert_allclose(b.summary()["sd_log_strength"].to_numpy(), se, rtol=0.08)


# ---------------------------------------------------------------- Davidson, TrueSkill orders


def test_davidson_comparison(counts):
    bt = pref.bradley_terry_table(counts)
    tbl, info = pref.davidson_comparison(counts, bt)
    assert info["same_ranking"] == 1
    assert 0 < info["nu"] < 1
    assert info["tie_prob_equal_models"] == pytest.approx(info["nu"] / (2 + info["nu"]))
    assert abs(info["tie_prob_equal_models"] - info["observed_tie_share"]) < 0.01
    assert tbl["davidson"].sum() == pytest.approx(5.0)


def test_expand_judgements(counts):
    w, l, d = pref.expand_judgements(counts)
    assert len(w) == 1507 and d.sum() == 268
    c_idx, d_idx = pref.MODELS.index("recipe_c"), pref.MODELS.index("recipe_d")
    assert ((w == d_idx) & (l == c_idx) & ~d).sum() == 62
    assert ((w == c_idx) & (l == d_idx) & ~d).sum() == 57


def test_trueskill_orders_reproducible_and_match_library(counts):
    a = pref.trueskill_orders(counts, n_orders=4, seed=5)
    b = pref.trueskill_orders(counts, n_orders=4, seed=5)
    np.testing.assert_array_equal(a.mu, b.mu)
    assert a.draw_probability == pytest.approx(268 / 1507)
    assert pref.trueskill_library_check(counts, a, n_check=1) < 1e-9
    s = a.summary()
    np.testing.assert_allclose(s["centred_mu_mean"].sum(), 0.0, atol=1e-9)
    assert s["p_top"].sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="n_orders"):
        pref.trueskill_orders(counts, n_orders=0, seed=1)


def test_trueskill_without_drift_reproduces_bt_ranking(counts):
    bt = pref.bradley_terry_table(counts).set_index("model").loc[list(pref.MODELS), "strength"].to_numpy()
    static = pref.trueskill_orders(counts, n_orders=20, seed=3, tau=0.0)
    assert static.share_matching_ranking(bt) >= 0.9


# ---------------------------------------------------------------- simulation


def test_simulation_two_models_matches_binomial():
    """Two models, uniform: MAP ranks model 1 first iff it has more wins (ties -> model 0 first), so
    P(top) = P(Binomial(n, p) > n/2) exactly; the simulation must agree within Monte Carlo error."""
    pi = np.array([1.0, 1.3])
    p = 1.3 / 2.3
    R = 4000
    res = pref.simulate_active_sampling(
        pi, budget=60, repetitions=R, checkpoint_every=20, seed=7, batch=10, strategies=("uniform",)
    )
    for n in (20, 40, 60):
        exact = stats.binom.sf(n // 2, n, p)  # P(wins > n/2)
        got = res.curves.set_index("n_judgements").loc[n, "p_top"]
        assert abs(got - exact) < 4 * np.sqrt(exact * (1 - exact) / R)


def test_simulation_shapes_reproducibility_and_allocation():
    pi = np.array([0.8, 0.9, 1.0, 1.2, 1.5])
    kw = dict(budget=400, repetitions=60, checkpoint_every=100, seed=1, batch=10)
    a = pref.simulate_active_sampling(pi, **kw)
    b = pref.simulate_active_sampling(pi, **kw)
    pd.testing.assert_frame_equal(a.curves, b.curves)
    assert set(a.curves["strategy"]) == set(pref.STRATEGIES) and len(a.curves) == 3 * 4
    share = a.allocation.groupby("strategy")["mean_share"].sum()
    np.testing.assert_allclose(share.to_numpy(), 1.0)
    uni = a.allocation[a.allocation.strategy == "uniform"]["mean_share"]
    assert (uni.sub(0.1).abs() < 0.03).all()
    # a strategy's result does not depend on which other strategies run
    only = pref.simulate_active_sampling(pi, strategies=("arena",), **kw)
    pd.testing.assert_frame_equal(
        only.curves.reset_index(drop=True), a.curves[a.curves.strategy == "arena"].reset_index(drop=True)
    )
    need = a.judgements_needed(target=0.5, n_boot=20, seed=0)
    assert list(need["strategy"]) == list(pref.STRATEGIES)
    cmp = pref.compare_with_uniform(a, 400)
    assert cmp.set_index("strategy").loc["uniform", "difference"] == 0


def test_simulation_result_is_the_same_in_one_process_or_two():
    """jobs=2 runs information gain here and the other strategies in a worker process (pickled through a
    pipe); every array and table must be the same as in one process, byte for byte."""
    pi = np.array([0.8, 0.9, 1.0, 1.2, 1.5])
    kw = dict(budget=400, repetitions=60, checkpoint_every=100, seed=3, batch=10, labels=tuple("abcde"))
    one = pref.simulate_active_sampling(pi, jobs=1, **kw)
    two = pref.simulate_active_sampling(pi, jobs=2, **kw)
    assert one.curves.to_csv() == two.curves.to_csv()
    assert one.allocation.to_csv() == two.allocation.to_csv()
    assert list(one.recovered) == list(two.recovered) == list(pref.STRATEGIES)
    for s in pref.STRATEGIES:
        for key in ("ranking", "top"):
            np.testing.assert_array_equal(one.recovered[s][key], two.recovered[s][key])
    with pytest.raises(ValueError, match="jobs must be a positive whole number"):
        pref.simulate_active_sampling(pi, jobs=0, **kw)


def test_simulation_worker_failure_names_the_worker_and_its_error():
    import subprocess
    import sys

    from compendium.preferences import simulation

    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stderr.write('ValueError: boom\\n'); sys.exit(3)"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdin.close()
    proc.stdin = None
    with pytest.raises(RuntimeError, match=r"(?s)worker process .* failed \(exit 3\).*ValueError: boom"):
        simulation._worker_results(proc)


def test_simulation_recovers_easy_ranking():
    res = pref.simulate_active_sampling(
        np.array([1.0, 3.0, 9.0]), budget=300, repetitions=200, checkpoint_every=100, seed=2, batch=10
    )
    last = res.curves.groupby("strategy")["p_ranking"].last()
    assert (last > 0.97).all()


def test_arena_sampling_is_skewed_within_repetitions():
    from compendium.preferences.simulation import _pair_probs_arena

    p = _pair_probs_arena(np.random.default_rng(0), 50, 5, skew=1.0)
    np.testing.assert_allclose(p.sum(1), 1.0)
    assert (p.max(1) / p.min(1) > 9.9).all()  # (1 * 1/2) / (1/4 * 1/5) = 10


def test_information_gain_concentrates_on_uncertain_pairs():
    """One lopsided pair and one close pair: information gain spends less on the lopsided one."""
    pi = np.array([1.0, 1.05, 20.0])
    res = pref.simulate_active_sampling(
        pi, budget=600, repetitions=50, checkpoint_every=200, seed=3, batch=10, strategies=("information_gain",)
    )
    share = res.allocation.set_index(["model_i", "model_j"])["mean_share"]
    assert share[("0", "1")] > share[("0", "2")]


def test_uniform_recovery_at_study_size_is_low():
    pi = np.array([0.8087, 0.8623, 1.0433, 1.1728, 1.1129])
    r = pref.uniform_recovery_at(pi, 1239, repetitions=300, seed=1)
    assert r["p_ranking"] < 0.5 < r["p_top"] < 0.8


@pytest.mark.parametrize(
    "kw,msg",
    [
        (dict(budget=450), "divide"),
        (dict(checkpoint_every=55, budget=550), "multiple of batch"),
        (dict(strategies=("random",)), "unknown strategy"),
        (dict(repetitions=0), ">= 1"),
    ],
)
def test_simulation_errors(kw, msg):
    base = dict(budget=400, repetitions=5, checkpoint_every=100, seed=1, batch=10)
    base.update(kw)
    with pytest.raises(ValueError, match=msg):
        pref.simulate_active_sampling(np.ones(3), **base)
    with pytest.raises(ValueError, match="positive"):
        pref.simulate_active_sampling(np.array([1.0, 0.0]), budget=100, repetitions=2, checkpoint_every=100, seed=1)


def test_winrate_vs_base_rejects_a_ties_only_pair():
    c = small_counts([("untrained", "recipe_a", 0, 0, 5)])
    with pytest.raises(ValueError, match="untrained vs recipe_a has no decisive judgement"):
        pref.winrate_vs_base(c)


# --- judgements needed: simulated at every gap ---------------------------------------------------------------


def test_uniform_recovery_curve_two_models_matches_the_binomial():
    """Two models: the MAP ranking is right exactly when the stronger wins more than half (odd n, no
    ties), so P(recovered) = P(Binomial(n, q) > n / 2); within 4 standard errors at each checkpoint."""
    from scipy import special, stats

    gap = 0.05
    ck = np.array([501, 2001, 4001, 8001])
    rec = pref.uniform_recovery_curve(np.exp([0.0, gap]), ck, repetitions=20_000, seed=3)
    q = special.expit(gap)
    ref = stats.binom.sf(ck // 2, ck, q)
    se = np.sqrt(ref * (1 - ref) / 20_000)
    assert np.all(np.abs(rec.mean(0) - ref) < 4 * se)


def test_chord_map_is_the_simulation_estimator():
    """The fast chord iteration lands on the same MAP as bradley_terry_map and as scipy's optimiser."""
    from scipy import optimize, special

    from compendium.preferences.simulation import _map_theta_chord
    from compendium.stats import pairwise as pw

    theta_true = np.log([0.6, 0.9, 1.1, 1.17, 1.25])
    i, j = pw.pair_index(5)
    rng = np.random.default_rng(0)
    n = rng.multinomial(3000, np.full(10, 0.1), size=(40, 1)).astype(float)
    w = rng.binomial(n.astype(int), special.expit(theta_true[i] - theta_true[j])).astype(float)
    got = _map_theta_chord(w, n, theta_true, np.array([3000]), prior_sd=1.0)
    W = pw.win_matrix_from_counts(i, j, w, n - w, np.zeros_like(w), 5)
    ref, _ = pw.bradley_terry_map(W, prior_sd=1.0, n_iter=100)
    assert np.abs(got - ref).max() < 1e-9

    def neg_log_post(t, ww, nn):
        d = t[i] - t[j]
        return -(ww * -np.logaddexp(0, -d) + (nn - ww) * -np.logaddexp(0, d)).sum() + 0.5 * (t * t).sum()

    t0 = optimize.minimize(neg_log_post, np.zeros(5), args=(w[0, 0], n[0, 0]), method="BFGS", options={"gtol": 1e-9}).x
    assert got[0, 0] == pytest.approx(t0, abs=1e-5)


def test_recovery_crossing_interpolates_in_log_n():
    ck = np.array([100, 400, 1600])
    # reaches 0.9 half-way (in log n) between 100 and 400: n = 200
    assert pref.recovery_crossing([0.8, 1.0, 1.0], ck, 0.9)[0] == pytest.approx(200.0)
    got = pref.recovery_crossing([[0.95, 1.0, 1.0], [0.1, 0.2, 0.3]], ck, 0.9)
    assert np.isnan(got).all()  # reached at once / never: not bracketed


def test_needed_by_gap_is_simulated_not_scaled_with_three_close_pairs():
    """Four models with three equal adjacent gaps of 0.1: halving the top gap does not quadruple the
    judgements needed (the old (gap / g)^2 rule), because the other two close pairs still cause
    misorderings. Brute-force reasoning: with error shares ~1.7 % per pair at N(1), the halved pair alone
    must reach ~5 %, i.e. N(0.5) / N(1) ~ (1.645 * 2 / 2.12)^2 ~ 2.4. Rows where the pair would no
    longer be the closest (factor 2) are not simulated."""
    truth = np.exp([0.0, 0.1, 0.2, 0.3])
    t = pref.needed_by_gap(
        truth,
        (2.0, 1.0, 0.5),
        pair=(3, 2),
        target=0.95,
        repetitions=1500,
        seed=11,
        pilot_repetitions=400,
        ratio=1.06,
        half_width=4,
    )
    assert list(t["closest_pair"]) == [False, True, True]
    assert np.isnan(t.loc[0, "n_needed"])
    n1, n_half = t.loc[1, "n_needed"], t.loc[2, "n_needed"]
    assert 1.8 < n_half / n1 < 3.3  # the old rule says 4.0
    assert (t.loc[1:, "n_mc_lo"] <= t.loc[1:, "n_needed"]).all() and (
        t.loc[1:, "n_needed"] <= t.loc[1:, "n_mc_hi"]
    ).all()


def test_simulated_numbers_print_the_shortest_number_within_one_standard_error():
    """Hand-worked, the chapter's two rules of compendium.stats.mcdigits: an estimate ("estimate") to the
    smallest power of ten at least as large as the SE when rounding to it moves the number by no more than
    the SE, else the SE's leading digit; an interval's ends ("leading") to the SE's leading digit. The old
    rule (always the leading digit) printed 166,000 for 165,890 +- 7,601 (the quarter-gap row of the old
    table, whose crossing is about 172,000) and 14,300 for 14,297 +- 423."""
    from compendium.preferences.summary import _mc_estimate, mc_text
    from compendium.stats.mcdigits import mc_format, mc_step

    assert mc_step(423.0) == 100 and mc_step(1894.0) == 1000 and mc_step(0.6) == pytest.approx(0.1)
    assert _mc_estimate(165_890.5, 7_601.5) == 170_000  # 10,000s move it by 4,110 <= 7,601
    assert _mc_estimate(14_297.4, 423.0) == 14_000  # 1,000s move it by 297 <= 423
    assert _mc_estimate(14_253.0, 134.0) == 14_300  # 1,000s would move it by 253 > 134: hundreds
    assert _mc_estimate(17_793.0, 1_063.0) == 18_000  # 10,000s would move it by 2,207 > 1,063: thousands
    assert mc_format(1.6552, mc_step(0.0072, 1.6552, "estimate")) == "1.66"
    assert mc_format(3.0007, mc_step(0.0135, 3.0007, "estimate")) == "3.0"
    for x, se in ((14_297.4, 423.0), (123.456, 0.37), (0.5, 0.2), (99_999.0, 10.0)):
        assert abs(_mc_estimate(x, se) - x) <= se
    assert mc_text(14_297.4, 13_837.2, 15_232.5, 423.0) == "14,000 (90 % Monte Carlo interval 13,800–15,200)"
    with pytest.raises(ValueError, match="standard error"):
        mc_text(14_297.4, 13_837.2, 15_232.5, 0.0)


def test_probit_crossing_recovers_a_known_curve_and_its_error_by_brute_force():
    """Counts drawn from a known probit curve Phi(a + b log n): the fitted crossing is unbiased (mean of
    400 synthetic data sets within 3 of their SEs of the truth) and its delta-method SE agrees with the
    spread of the estimates over the data sets (within 15 %)."""
    from scipy import stats

    a, b, target, R = -12.0, 1.5, 0.95, 4000
    truth = np.exp((stats.norm.ppf(target) - a) / b)
    ck = np.round(truth * 1.06 ** np.arange(-4, 5)).astype(int)
    rng = np.random.default_rng(5)
    est, ses = [], []
    for _ in range(400):
        k = rng.binomial(R, stats.norm.cdf(a + b * np.log(ck)))
        r = pref.probit_crossing(k, R, ck, target)
        assert r["mc_lo"] < r["n"] < r["mc_hi"] and r["inside"]
        est.append(r["n"])
        ses.append(r["mc_se"])
    est = np.array(est)
    assert abs(est.mean() - truth) < 3 * est.std() / np.sqrt(est.size)
    assert np.mean(ses) == pytest.approx(est.std(ddof=1), rel=0.15)
    with pytest.raises(ValueError, match="at least 3 checkpoints"):
        pref.probit_crossing([1, 2], 10, [100, 200], target)


def test_uniform_needed_two_models_matches_the_binomial_crossing():
    """Two models, the stronger second: a study recovers the ranking (and the top model) exactly when
    the stronger wins more than half, P(n) = P(Binomial(n, q) > n / 2). The crossing of 95 % from that
    exact curve is the brute-force reference; both ``what`` give it, within 2 %."""
    from scipy import optimize, special, stats

    gap = 0.08
    q = special.expit(gap)
    exact = np.array([stats.binom.sf(n // 2, n, q) for n in range(500, 3000)])
    n_star = 500 + int(np.argmax(exact >= 0.95))
    smooth = optimize.brentq(lambda n: stats.norm.cdf((q - 0.5) * np.sqrt(n) / np.sqrt(q * (1 - q))) - 0.95, 50, 1e5)
    assert abs(smooth - n_star) / n_star < 0.03  # the binomial step curve and its normal approximation agree
    for what in ("ranking", "top"):
        got = pref.uniform_needed(np.exp([0.0, gap]), 0.95, repetitions=6000, seed=2, pilot_repetitions=400, what=what)
        assert got["n"] == pytest.approx(n_star, rel=0.02), what
        assert got["mc_lo"] < got["n"] < got["mc_hi"]


def test_top_model_recovery_needs_far_fewer_judgements_when_only_the_others_are_close():
    """Three models, the top one well ahead and the other two almost equal: the full ranking needs many
    times the judgements that find the top model (about (0.09 / 0.03)^2 = 9 times for the pair gaps alone)."""
    truth = np.exp([0.0, 0.03, 0.12])
    top = pref.uniform_needed(truth, 0.95, repetitions=3000, seed=4, pilot_repetitions=300, what="top")
    full = pref.uniform_needed(truth, 0.95, repetitions=3000, seed=4, pilot_repetitions=300, what="ranking")
    assert full["n"] > 4 * top["n"]
    with pytest.raises(ValueError, match="what must be one of"):
        pref.uniform_recovery_curve(truth, [100], 10, 0, what="bottom")


def test_curve_crossing_fits_a_probit_line_near_the_crossing():
    """On an exact probit curve the fitted crossing is exact; a curve that never reaches the target gives
    NaN; rows of resampled curves use the window of the given curve."""
    from scipy import stats

    ck = np.arange(500, 40_001, 500)
    p = stats.norm.cdf(-10.0 + 1.2 * np.log(ck))
    truth = np.exp((stats.norm.ppf(0.95) + 10.0) / 1.2)
    assert pref.curve_crossing(p, ck, 0.95, 1000) == pytest.approx(truth, rel=1e-6)
    assert np.isnan(pref.curve_crossing(p * 0.5, ck, 0.95, 1000))
    rows = pref.curve_crossing(np.stack([p, p]), ck, 0.95, 1000, window_from=p)
    assert rows.shape == (2,) and rows == pytest.approx([truth, truth], rel=1e-6)
    with pytest.raises(ValueError, match="window_from"):
        pref.curve_crossing(np.stack([p, p]), ck, 0.95, 1000)


def test_quarter_gap_crossing_is_where_brute_force_recovery_is_95_percent():
    """The stage's settings at a quarter of the C-D gap (the row the old table printed as 166,000, where
    100,000 independent studies recover the ranking 94.7 % of the time): at the estimate, 60,000 fresh
    simulated studies recover the full ranking with probability 95 % within 0.35 points (three combined
    standard errors: 0.09 points from the 60,000 studies, 0.08 from the estimate's own error of about
    1,300 judgements on a curve that rises about 0.06 points per 1,000 there)."""
    from compendium import data
    from compendium.preferences import montecarlo as mc

    truth = pref.decisive_truth(data.load_hitl_pair_counts(), "davidson")
    c, d = pref.MODELS.index("recipe_c"), pref.MODELS.index("recipe_d")
    th = np.log(truth)
    th[c] = th[d] + 0.25 * (th[c] - th[d])
    got = pref.uniform_needed(np.exp(th), seed=31, what="ranking", **mc._needed_kwargs())
    assert got["mc_se"] < 2_000
    p = pref.uniform_recovery_curve(np.exp(th), [round(got["n"])], 60_000, 32, nested=False).mean()
    assert abs(p - 0.95) < 0.0035


def test_wilson_rule_familywise_error_against_statsmodels_and_brute_force():
    from scipy import stats
    from statsmodels.stats.proportion import proportion_confint

    ns = [121, 131, 122, 124, 127, 125, 119, 121, 130, 119]  # the study's decisive judgements per pair
    got = pref.wilson_rule_familywise_error(ns)
    alpha = 2 * (1 - stats.norm.cdf(1.96))  # statsmodels' z is norm.ppf(1 - alpha / 2): exactly 1.96
    levels = []
    for n in ns:
        k = np.arange(n + 1)
        lo, hi = proportion_confint(k, n, alpha=alpha, method="wilson")
        levels.append(stats.binom.pmf(k, n, 0.5)[(lo > 0.5) | (hi < 0.5)].sum())
    assert got["familywise"] == pytest.approx(1 - np.prod(1 - np.array(levels)), abs=1e-12)
    assert got["per_pair_min"] == pytest.approx(min(levels)) and got["per_pair_max"] == pytest.approx(max(levels))
    assert got["nominal"] == pytest.approx(1 - 0.95**10)
    # brute force: coin-toss studies of these sizes, the rule applied to each pair
    rng = np.random.default_rng(0)
    R = 100_000
    k = rng.binomial(np.array(ns)[None, :], 0.5, size=(R, len(ns)))
    lo, hi = proportion_confint(k, np.array(ns)[None, :], alpha=alpha, method="wilson")
    share = ((lo > 0.5) | (hi < 0.5)).any(1).mean()
    assert abs(share - got["familywise"]) < 4 * np.sqrt(got["familywise"] * (1 - got["familywise"]) / R)
