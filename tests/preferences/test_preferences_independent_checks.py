"""Referee checks of the preferences beyond-the-report analyses (issue 14, items 2, 3, 8, 9).

Each test fails on the old behaviour: a simulation truth taken from the half-win fit (shrunk by the
ties), a judgement-level bootstrap where prompt categories differ, unadjusted "beyond chance" calls,
and a Monte Carlo comparison read without its detectable difference.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from compendium import preferences as pref

PI = np.array([0.6, 0.8, 1.0, 1.2, 1.4])
NU = 0.8


def _davidson_counts(pi=PI, nu=NU, n=20000):
    """Expected counts of a Davidson model, rounded: the generating strengths are known."""
    rows = []
    for a in range(5):
        for b in range(a + 1, 5):
            s = np.sqrt(pi[a] * pi[b])
            d = pi[a] + pi[b] + nu * s
            xw, yw = round(n * pi[a] / d), round(n * pi[b] / d)
            t = n - xw - yw
            rows.append(
                {"model_x": pref.MODELS[a], "model_y": pref.MODELS[b], "x_wins": xw, "y_wins": yw, "ties": t, "n": n}
            )
    return pd.DataFrame(rows)


def test_simulation_truth_is_a_decisive_model_not_the_tie_shrunk_half_win_fit():
    counts = _davidson_counts()
    truth = PI / PI.sum() * 5
    for model in pref.TRUTHS:
        assert np.allclose(pref.decisive_truth(counts, model), truth, rtol=2e-3)
    half = pref.bradley_terry_table(counts).set_index("model").loc[list(pref.MODELS), "strength"].to_numpy()
    spread = lambda s: np.log(s.max() / s.min())
    # the half-win fit (the old truth) understates every gap by a lot when ties are common
    assert spread(half) < 0.85 * spread(truth)
    with pytest.raises(ValueError, match="unknown model"):
        pref.decisive_truth(counts, "half_win")


def test_judgements_needed_scale_as_one_over_gap_squared():
    res = {}
    for g in (0.4, 0.2):
        sim = pref.simulate_active_sampling(
            np.exp([g, 0.0]), budget=800, repetitions=2000, checkpoint_every=5, batch=5, seed=7, strategies=("uniform",)
        )
        res[g] = float(sim.judgements_needed(0.9, n_boot=1, seed=0).loc[0, "n_for_ranking"])
    assert 3.0 < res[0.2] / res[0.4] < 5.5


def _category_counts(heterogeneous: bool, n=40, cats=8, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for c in range(cats):
        for a in range(5):
            for b in range(a + 1, 5):
                p = (0.8 if c % 2 else 0.2) if heterogeneous and (a, b) == (3, 4) else 0.5
                xw = int(rng.binomial(n, p))
                rows.append(
                    {
                        "category": f"c{c}",
                        "model_x": pref.MODELS[a],
                        "model_y": pref.MODELS[b],
                        "x_wins": xw,
                        "y_wins": n - xw,
                        "ties": 0,
                        "n": n,
                    }
                )
    return pd.DataFrame(rows)


def test_category_heterogeneity_sums_scipy_tests_over_pairs():
    bc = _category_counts(True)
    h = pref.category_heterogeneity(bc)
    one = bc[(bc["model_x"] == "recipe_c") & (bc["model_y"] == "recipe_d")][["x_wins", "y_wins"]].to_numpy()
    assert h["df"] == 10 * 7 and h["n_categories"] == 8
    assert h["chi2"] > stats.chi2_contingency(one, correction=False).statistic > 0
    assert h["p"] < 1e-6
    assert pref.category_heterogeneity(_category_counts(False))["dispersion"] < 1.6


def test_category_cluster_bootstrap_is_wider_when_categories_differ():
    bc = _category_counts(True)
    pooled = bc.groupby(["model_x", "model_y"], as_index=False)[["x_wins", "y_wins", "ties", "n"]].sum()
    old = pref.bootstrap_bradley_terry(pooled, n_boot=2000, seed=1).log_ratio_interval("recipe_c", "recipe_d")
    new = pref.bootstrap_bradley_terry_clustered(bc, n_boot=2000, seed=1).log_ratio_interval("recipe_c", "recipe_d")
    assert new["log_ratio"] == pytest.approx(old["log_ratio"])
    assert (new["ci_hi"] - new["ci_lo"]) > 2 * (old["ci_hi"] - old["ci_lo"])
    # homogeneous categories: the two bootstraps agree roughly
    hb = _category_counts(False)
    hp = hb.groupby(["model_x", "model_y"], as_index=False)[["x_wins", "y_wins", "ties", "n"]].sum()
    a = pref.bootstrap_bradley_terry(hp, 2000, 1).summary()["sd_log_strength"].mean()
    b = pref.bootstrap_bradley_terry_clustered(hb, 2000, 1).summary()["sd_log_strength"].mean()
    assert 0.7 < b / a < 1.4


def test_holm_pair_tests_match_statsmodels():
    counts = _davidson_counts(n=60)
    pairs = pref.pair_table(counts)
    t = pref.holm_pair_tests(pairs)
    p = [
        stats.binomtest(int(w), int(w + lo)).pvalue for w, lo in zip(pairs["higher_val_wins"], pairs["lower_val_wins"])
    ]
    assert np.allclose(t["p"], p)
    assert np.allclose(t["p_holm"], multipletests(p, method="holm")[1])
    assert t["significant_holm"].sum() <= t["significant_unadjusted"].sum()


def test_detectable_difference_hand_worked():
    # (1.959964 + 0.841621) * sqrt(2 * 0.95 * 0.05 / 1000)
    assert pref.detectable_difference(0.95, 1000) == pytest.approx(2.801585 * np.sqrt(0.095 / 1000), rel=1e-5)
    curves = pd.DataFrame({"strategy": "uniform", "n_judgements": [100, 200, 400], "p_ranking": [0.5, 0.9, 0.95]})
    d = pref.detectable_saving(curves, 200, 1000)
    # at 200 the curve must rise by mdd; 0.9 -> 0.95 over 200 judgements
    x = 200 + 200 * d["mdd"] / 0.05
    assert d["saving"] == pytest.approx(1 - 200 / x, abs=2e-3)
