"""Demographic groups and the raked headline on hand-made data."""

import numpy as np
import pandas as pd
import pytest

from compendium.workbank import demographics
from compendium.workbank.common import DESIRE, HAS, OCC, TASK, USER


def test_age_bands_match_bls_edges():
    b = demographics.age_band([18, 19, 20, 24, 25, 64, 65, 90])
    assert list(b) == [
        "16 to 19 years",
        "16 to 19 years",
        "20 to 24 years",
        "20 to 24 years",
        "25 to 34 years",
        "55 to 64 years",
        "65 years and over",
        "65 years and over",
    ]
    with pytest.raises(ValueError, match=">= 16"):
        demographics.age_band([15])


def test_weighted_task_share_hand_worked():
    d = pd.DataFrame({USER: ["a", "b", "a", "b"], OCC: ["o"] * 4, TASK: ["t1", "t1", "t2", "t2"], DESIRE: [5, 1, 4, 3]})
    w = pd.Series([3.0, 1.0], index=pd.MultiIndex.from_tuples([("a", "o"), ("b", "o")], names=[USER, OCC]))
    share, m = demographics.weighted_task_share(d, w, 3.0)
    assert m["t1"] == pytest.approx((3 * 5 + 1) / 4) and m["t2"] == pytest.approx((12 + 3) / 4)
    assert share == 100.0
    share_eq, _ = demographics.weighted_task_share(d, w * 0 + 1, 3.0)
    assert share_eq == 50.0  # t1 mean 3 is not > 3


def test_a_weighted_mean_equal_to_the_cutoff_is_a_tie_not_above_whatever_the_rounding():
    # two raters of one raking cell (weight 0.1 each) rating 2 and 4: exactly 3, but the floating-point mean is
    # 3.0000000000000004; with weight 0.7 it is 2.9999999999999996. Neither is above 3.
    d = pd.DataFrame({USER: ["a", "b", "c", "d"], OCC: ["o"] * 4, TASK: ["t1", "t1", "t2", "t2"], DESIRE: [2, 4, 2, 4]})
    idx = pd.MultiIndex.from_tuples([(u, "o") for u in "abcd"], names=[USER, OCC])
    w = pd.Series([0.1, 0.1, 0.7, 0.7], index=idx)
    share, m = demographics.weighted_task_share(d, w, 3.0)
    assert m["t1"] > 3.0 and m["t2"] < 3.0  # the rounding this test is about
    assert share == 0.0
    assert demographics.tie_robust_share(m, 3.0)["share_at"] == 100.0


def test_raking_frame_mapping_and_errors():
    workers = pd.DataFrame({"Age": [30, 18], "Gender": ["Female", "Other"], "Race": ["Hispanic", "Black"]})
    f = demographics.raking_frame(workers, "hispanic_as_white")
    assert list(f["race"]) == ["white", "black"] and list(f["hispanic"]) == ["hispanic", "not_hispanic"]
    assert list(f["gender"]) == ["women", "other_or_undisclosed"]
    assert demographics.raking_frame(workers, "hispanic_as_other")["race"].iloc[0] == "other_race"
    with pytest.raises(ValueError, match="no BLS mapping"):
        demographics.raking_frame(workers.assign(Race=["Martian", "Black"]))
    with pytest.raises(ValueError, match="unknown race mapping"):
        demographics.raking_frame(workers, "nope")


def test_demographic_groups_point_estimates_are_response_means():
    d = pd.DataFrame(
        {
            USER: ["a", "a", "b", "c"],
            OCC: ["o"] * 4,
            TASK: ["t1", "t2", "t1", "t2"],
            DESIRE: [5, 3, 1, 4],
            HAS: [1, 2, 3, 4],
        }
    )
    meta = pd.DataFrame({USER: ["a", "b", "c"], OCC: ["o"] * 3, "Age": [30, 40, 50], "Gender": ["F", "M", "M"]})
    g = demographics.demographic_groups(d, meta, variables=("Gender",), n_draws=200, seed=1, min_workers=1).set_index(
        "group"
    )
    assert g.loc["F", "mean_desire"] == 4.0 and g.loc["M", "mean_desire"] == 2.5
    assert g.loc["F", "n_responses"] == 2 and g.loc["M", "n_workers"] == 2
    # desire minus task mean: t1 mean 3, t2 mean 3.5 -> F: (2 + -0.5)/2 = 0.75
    assert g.loc["F", "desire_vs_task"] == pytest.approx(0.75)
    assert g.loc["F", "mean_desire_lo"] == g.loc["F", "mean_desire_hi"] == 4.0  # one worker: no variation
    assert g.loc["M", "mean_desire_lo"] <= 2.5 <= g.loc["M", "mean_desire_hi"]
    assert g.loc["F", "share_desire_gt3"] == 50.0


def test_category_mapping_table_covers_every_survey_category():
    t = demographics.category_mapping_table()
    assert set(t.loc[t["margin"] == "race", "survey category"]) == set(demographics.RACE_MAPS["hispanic_as_white"])
    assert set(t.loc[t["margin"] == "gender", "survey category"]) == set(demographics.GENDER_MAP)


def test_task_effective_sizes_kish_by_hand():
    """Task a: weights 1, 1, 2 -> (4)^2 / 6 = 2.667; task b: weights 1, 1 -> 2; equal weights give the count."""
    import pandas as pd

    from compendium.workbank import demographics as dm
    from compendium.workbank.common import OCC, TASK, USER

    desires = pd.DataFrame({USER: [1, 2, 3, 1, 2], OCC: "o", TASK: ["a", "a", "a", "b", "b"]})
    w = pd.Series([1.0, 1.0, 2.0], index=pd.MultiIndex.from_tuples([(1, "o"), (2, "o"), (3, "o")], names=[USER, OCC]))
    got = dm.task_effective_sizes(desires, w)
    assert got["a"] == pytest.approx(16 / 6) and got["b"] == pytest.approx(2.0)
    assert dm.task_effective_sizes(desires, w * 0 + 1.0)["a"] == pytest.approx(3.0)


# ------------------------------------------------------------------ the raking's occupation mix, its sampling interval


def _index(pairs):
    return pd.MultiIndex.from_tuples(pairs, names=[USER, OCC])


def _bls_wages(rows):
    """A minimal OEWS frame: (2-digit code, title, employment) per SOC major group."""
    return pd.DataFrame(
        {
            "OCC_CODE": [f"{c}-0000" for c, _, _ in rows],
            "OCC_TITLE": [f"{t} Occupations" for _, t, _ in rows],
            "O_GROUP": "major",
            "TOT_EMP": [f"{e:,}" for _, _, e in rows],
        }
    )


def test_raked_sector_mix_by_hand():
    """Workers a, b in occupation x (sector 11), c in y (sector 15); weights 1, 1, 2: raked 50 / 50 against 67 / 33
    unweighted; the third group has no worker and keeps its employment share (600 of 1,000)."""
    w = pd.Series([1.0, 1.0, 2.0], index=_index([("a", "x"), ("b", "x"), ("c", "y")]))
    sectors = pd.DataFrame({"sector_code": ["11", "15"]}, index=pd.Index(["x", "y"], name=OCC))
    bls = _bls_wages([("11", "Management", 300), ("15", "Computer", 100), ("35", "Food", 600)])
    mix = demographics.raked_sector_mix(w, sectors, bls).set_index("sector")
    assert mix.loc["Management", "raked_pct"] == pytest.approx(50.0)
    assert mix.loc["Computer", "raked_pct"] == pytest.approx(50.0)
    assert mix.loc["Management", "sample_pct"] == pytest.approx(200 / 3)
    assert mix.loc["Food", "n_workers"] == 0 and mix.loc["Food", "raked_pct"] == 0.0
    assert mix["bls_pct"].tolist() == pytest.approx([30.0, 10.0, 60.0])  # sorted by raked share, then employment
    assert mix["raked_pct"].sum() == pytest.approx(100.0) and mix["sample_pct"].sum() == pytest.approx(100.0)
    with pytest.raises(ValueError, match="occupation 'z' has no SOC sector"):
        demographics.raked_sector_mix(pd.Series([1.0], index=_index([("d", "z")])), sectors, bls)


def _hand_ipf(cells, counts, targets, sweeps=500):
    """Rake by plain iteration over the units (loops, no package code): ``cells`` one tuple of categories per
    unit, ``counts`` its multiplicity, ``targets`` one {category: share} per margin."""
    w = [float(c) for c in counts]
    for _ in range(sweeps):
        for m, target in enumerate(targets):
            total = sum(w)
            cur = {}
            for cell, x in zip(cells, w):
                cur[cell[m]] = cur.get(cell[m], 0.0) + x / total
            w = [x * target[cell[m]] / cur[cell[m]] if x > 0 else 0.0 for cell, x in zip(cells, w)]
    return np.array(w)


def test_rake_columns_matches_plain_iteration_and_the_one_draw_rake():
    """The vectorised re-raking of every replicate gives, column by column, what raking each replicate alone by
    plain iteration gives, and what compendium.stats.weighting.rake gives on the units drawn (base weights = counts)."""
    from compendium.stats.weighting import rake

    rng = np.random.default_rng(11)
    n, draws = 60, 5
    a, b = rng.integers(0, 3, n), rng.integers(0, 2, n)
    a[:6], b[:6] = [0, 1, 2, 0, 1, 2], [0, 0, 0, 1, 1, 1]  # every cell has a unit drawn in every replicate
    counts = rng.poisson(1.0, (n, draws)).astype(float)
    counts[:6] += 1.0
    ta, tb = np.array([0.5, 0.3, 0.2]), np.array([0.4, 0.6])
    margins = {"a": dict(enumerate(ta)), "b": dict(enumerate(tb))}
    got, sweeps = demographics._rake_columns([a, b], [ta, tb], counts, max_iter=1000, tol=1e-12)
    assert sweeps > 1 and (counts == 0).any()
    cells = list(zip(a.tolist(), b.tolist()))
    for j in range(draws):
        hand = _hand_ipf(cells, counts[:, j], [margins["a"], margins["b"]])
        np.testing.assert_allclose(got[:, j] / got[:, j].sum(), hand / hand.sum(), rtol=1e-9)
        k = counts[:, j] > 0
        one = rake(pd.DataFrame({"a": a[k], "b": b[k]}), margins, base_weights=counts[k, j], tol=1e-12)
        np.testing.assert_allclose(got[k, j] / got[k, j].sum(), one.weights / one.weights.sum(), rtol=1e-9)
        assert (got[~k, j] == 0).all()  # a worker not drawn keeps weight 0
        assert np.bincount(a, got[:, j], 3) / got[:, j].sum() == pytest.approx(ta, abs=1e-10)
    # a draw without any unit of a category that has a target cannot be raked: named, not a silent NaN
    with pytest.raises(RuntimeError, match="did not converge"):
        demographics._rake_columns([a], [ta], (a != 0).astype(float)[:, None], max_iter=5, tol=1e-12)


def test_quantile_mc_se_matches_the_spread_of_quantiles_over_repeated_draws():
    """Brute force: the 2.5% and 97.5% quantiles of 1,000 normal draws, read off 2,000 independent sets of draws,
    have an SD of about 0.085 (the asymptotic sqrt(p(1-p)/n)/phi(z_p)); Maritz-Jarrett on one set agrees within 25%."""
    rng = np.random.default_rng(5)
    sets = rng.normal(size=(2000, 1000))
    brute = np.quantile(sets, [0.025, 0.975], axis=1).std(axis=1, ddof=1)
    est = np.mean([demographics.quantile_mc_se(s, [0.025, 0.975]) for s in sets[:50]], axis=0)
    np.testing.assert_allclose(est, brute, rtol=0.25)
    np.testing.assert_allclose(brute, np.sqrt(0.025 * 0.975 / 1000) / 0.05844, rtol=0.15)
    # 20 draws are too few for Maritz-Jarrett at 2.5%: the asymptotic normal-fit error instead
    few = sets[0, :20]
    np.testing.assert_allclose(
        demographics.quantile_mc_se(few, [0.025]), np.sqrt(0.025 * 0.975 / 20) * few.std(ddof=1) / 0.05844, rtol=1e-3
    )
    with pytest.raises(ValueError, match="at least 2 draws"):
        demographics.quantile_mc_se([1.0], 0.5)
    with pytest.raises(ValueError, match=r"in \(0, 1\)"):
        demographics.quantile_mc_se([1.0, 2.0], 1.0)


def test_raking_bootstrap_values_by_hand():
    """The section's intervals are numpy's percentiles of the draws; the difference is paired (same draw)."""
    from compendium.workbank import sections

    rng = np.random.default_rng(2)
    boot = pd.DataFrame(
        {
            "share_gt": rng.normal(50, 2, 400),
            "share_mid": rng.normal(51, 2, 400),
            "unweighted_gt": 0.0,
            "unweighted_mid": rng.normal(50.5, 2, 400),
            "n_tasks": rng.integers(830, 845, 400),
        }
    )
    v = sections._raking_bootstrap_values(boot)
    assert v["wb.raking.boot.share_mid_ci"] == pytest.approx(np.percentile(boot["share_mid"], [2.5, 97.5]).tolist())
    d = boot["share_mid"] - boot["unweighted_mid"]
    assert v["wb.raking.boot.diff_mid_ci"] == pytest.approx(np.percentile(d, [2.5, 97.5]).tolist())
    assert v["wb.raking.boot.n_draws"] == 400 and v["wb.raking.boot.mean_tasks"] == boot["n_tasks"].mean()
    # the largest MC error of the 8 endpoints: ~ 0.085 * SD * sqrt(1000 / 400) for normal draws
    assert 0.5 * 0.085 * 2 * np.sqrt(2.5) < v["wb.raking.boot.mc_se"] < 2 * 0.085 * 2.9 * np.sqrt(2.5)


def test_sector_mix_values_by_hand():
    from compendium.workbank import sections

    mix = pd.DataFrame(
        {
            "n_workers": [5, 3, 2, 0],
            "sample_pct": [50.0, 30.0, 20.0, 0.0],
            "raked_pct": [55.0, 25.0, 20.0, 0.0],
            "bls_pct": [10.0, 20.0, 30.0, 40.0],
        }
    )
    v = sections._sector_mix_values(mix, top=2)
    assert (v["wb.raking.sector_top_raked_pct"], v["wb.raking.sector_top_sample_pct"]) == (80.0, 80.0)
    assert v["wb.raking.sector_top_bls_pct"] == 30.0 and v["wb.raking.sector_max_shift"] == 5.0
    assert v["wb.raking.sector_gap_raked"] == 0.5 * (45 + 5 + 10 + 40)
    assert v["wb.raking.sector_gap_unweighted"] == 0.5 * (40 + 10 + 10 + 40)
    assert (v["wb.raking.sector_groups_without_workers"], v["wb.raking.sector_bls_pct_without_workers"]) == (1, 40.0)
