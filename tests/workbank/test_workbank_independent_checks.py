"""Referee checks of the WORKBank beyond-the-paper analyses (issue 14, items 1 and 4-7).

Each test fails on the old behaviour: the raked share compared with the unweighted one on the strict
"> 3" share (a tie artefact), zone totals bootstrapped as if tasks were independent, the tie-rule range
taken over lopsided mixed rules, and percentile intervals drawn for groups of two workers.
"""

import numpy as np
import pandas as pd
import pytest

from compendium.workbank import agency, demographics, landscape
from compendium.workbank.common import CAPABILITY, DESIRE, HAS, OCC, TASK, USER


def _tied_survey(n_tied=40, n_hi=30, n_lo=30):
    """Each task rated by its own two workers: (2, 4) -> mean exactly 3, (4, 4) and (2, 2)."""
    rows = []
    for k in range(n_tied + n_hi + n_lo):
        pair = (2, 4) if k < n_tied else (4, 4) if k < n_tied + n_hi else (2, 2)
        for j, r in enumerate(pair):
            rows.append({USER: f"w{k}_{j}", OCC: "o", TASK: f"t{k:03d}", DESIRE: r})
    d = pd.DataFrame(rows)
    workers = pd.MultiIndex.from_frame(d[[USER, OCC]].drop_duplicates())
    return d, workers


def test_tie_robust_share_hand_worked():
    s = demographics.tie_robust_share(pd.Series([3.0, 3.0, 3.5, 2.0]), 3.0)
    assert s["share_gt"] == 25.0 and s["share_ge"] == 75.0 and s["share_mid"] == 50.0 and s["n_at"] == 2
    assert s["mean_of_task_means"] == pytest.approx(2.875)


def test_random_weights_break_ties_so_the_strict_share_jumps_but_the_mid_share_does_not():
    d, workers = _tied_survey()
    _, m0 = demographics.weighted_task_share(d, pd.Series(1.0, index=workers), 3.0)
    base = demographics.tie_robust_share(m0, 3.0)
    assert base["share_gt"] == 30.0 and base["share_mid"] == 50.0
    null = demographics.random_weights_null(d, workers, n_draws=400, seed=3, cutoff=3.0, spread=0.01)
    # weights within +-1 % and unrelated to anything "raise" the strict share by ~half the ties ...
    assert null["share_gt"].median() == pytest.approx(50.0, abs=3)
    assert null["share_gt"].quantile(0.025) > base["share_gt"] + 10
    # ... so a weighted strict share must be read against this band, not against the unweighted 30 %
    # (the old chapter did the latter); the mid share and the mean of task means do not move
    assert abs(null["share_mid"].median() - base["share_mid"]) < 3
    assert np.allclose(null["mean_of_task_means"], base["mean_of_task_means"], atol=0.01)


def test_permuted_template_weights_keep_the_template_distribution():
    d, workers = _tied_survey(4, 3, 3)
    tmpl = pd.Series(np.linspace(0.5, 2.0, len(workers)), index=workers)
    null = demographics.random_weights_null(d, workers, n_draws=50, seed=1, cutoff=3.0, template=tmpl)
    assert len(null) == 50 and null["share_gt"].between(30, 70).all()
    with pytest.raises(ValueError, match="template"):
        demographics.random_weights_null(d, workers, 5, 1, 3.0, template=tmpl.iloc[1:])


def test_small_groups_get_no_bootstrap_interval():
    d = pd.DataFrame(
        {
            USER: ["a", "b", "c", "c"],
            OCC: ["o"] * 4,
            TASK: ["t1", "t1", "t1", "t2"],
            DESIRE: [5, 1, 4, 2],
            HAS: [1, 2, 3, 4],
        }
    )
    meta = pd.DataFrame({USER: ["a", "b", "c"], OCC: ["o"] * 3, "Age": [30, 40, 50], "Gender": ["F", "F", "M"]})
    g = demographics.demographic_groups(d, meta, variables=("Gender",), n_draws=100, seed=1).set_index("group")
    # a bootstrap over 2 people has only 3 possible means: no interval is better than a false one
    assert g.loc["F", "small_group"] and np.isnan(g.loc["F", "mean_desire_lo"]) and np.isnan(g.loc["F", "mean_has_hi"])
    assert g.loc["F", "mean_desire"] == 3.0


def _zone_data():
    """Three tasks: 1 expert; 2 experts on the same side; 2 experts straddling 3 (means 3.0)."""
    des = pd.DataFrame(
        {TASK: ["a"] * 4 + ["b"] * 4 + ["c"] * 4, OCC: "o", USER: [f"w{k}" for k in range(12)], DESIRE: [4] * 12}
    )
    exp = pd.DataFrame(
        {TASK: ["a", "b", "b", "c", "c"], OCC: "o", USER: ["e1", "e1", "e2", "e1", "e2"], CAPABILITY: [2, 4, 5, 2, 4]}
    )
    return des, exp


def test_zone_bootstrap_capability_side_is_degenerate_with_one_or_two_experts():
    des, exp = _zone_data()
    land = landscape.task_landscape(des, exp)
    pt, _ = landscape.zone_bootstrap(des, exp, land, 3.0, n_draws=4000, seed=2, stable_level=0.95)
    assert pt.loc["a", "p_capability_side"] == 1.0  # one expert: never varies
    assert pt.loc["b", "p_capability_side"] == 1.0  # two experts on the same side: never varies
    assert pt.loc["c", "p_capability_side"] == pytest.approx(0.75, abs=0.03)  # (2,4): 3 of 4 resamples >= 3
    assert (pt["p_desire_side"] == 1.0).all()
    br = landscape.zone_uncertainty_breakdown(pt, 0.95)
    assert br["experts_1"] == pytest.approx(100 / 3) and br["experts_2"] == pytest.approx(200 / 3)
    assert br["capability_side"] == pytest.approx(100 / 3) and br["desire_side"] == 0.0


def test_cluster_counts_keep_stratum_sizes():
    c = landscape.cluster_counts(["x", "x", "y", "y", "y"], 200, np.random.default_rng(0))
    assert c.shape == (200, 5) and (c[:, :2].sum(1) == 2).all() and (c[:, 2:].sum(1) == 3).all()


def test_cluster_bootstrap_widens_zone_totals_when_raters_repeat_across_tasks():
    """Four experts, each rating half of 200 tasks; two rate everything 4, two rate everything 2. A
    task's capability depends on *which* experts rated it, so the zone totals move together when an
    expert is drawn twice: resampling raters (clusters) gives far wider totals than resampling within
    tasks, which treats the 200 tasks as independent (the old intervals)."""
    rng = np.random.default_rng(5)
    n = 200
    tasks = [f"t{k:03d}" for k in range(n)]
    des = pd.DataFrame(
        {TASK: np.repeat(tasks, 4), OCC: "o", USER: [f"w{k}" for k in range(4 * n)], DESIRE: rng.choice([2, 4], 4 * n)}
    )
    lenient = {"e0": 4, "e1": 4, "e2": 2, "e3": 2}
    rows = []
    for k, t in enumerate(tasks):
        for e in ["e0", "e2"] if k % 2 else ["e1", "e3"]:
            rows.append({TASK: t, OCC: "o", USER: e, CAPABILITY: lenient[e]})
    exp = pd.DataFrame(rows)
    land = landscape.task_landscape(des, exp)
    _, per_task_draws = landscape.zone_bootstrap(des, exp, land, 3.0, n_draws=1000, seed=1, stable_level=0.95)
    cl = landscape.zone_cluster_bootstrap(des, exp, land, 3.0, n_draws=1000, seed=1)
    width = lambda s: s.quantile(0.975) - s.quantile(0.025)
    assert width(cl["green"]) > 1.5 * width(per_task_draws["green"])
    assert (cl[["green", "red", "rnd", "low"]].sum(axis=1).round(6) == n).all()


def test_same_rule_range_ignores_lopsided_mixed_rules():
    grid = pd.DataFrame(
        {
            "worker_rule": ["lowest", "lowest", "highest", "highest"],
            "expert_rule": ["lowest", "highest", "lowest", "highest"],
            "workers_more": [47.5, 27.4, 60.5, 39.1],
        }
    )
    r = agency.same_rule_range(grid)
    assert (r["min"], r["max"], r["min_rule"], r["max_rule"]) == (39.1, 47.5, "highest", "lowest")
    assert grid["workers_more"].min() < r["min"]  # the old range reached into the mixed cells


def test_unconditional_icc_matches_anova_on_balanced_data_and_statsmodels():
    """Balanced one-way layout: REML equals the ANOVA estimator (MSB - MSW) / n when positive."""
    import statsmodels.api as sm

    from compendium.workbank.icc import icc_reml_intercept_only

    rng = np.random.default_rng(4)
    k, n = 60, 5
    g = np.repeat(np.arange(k), n)
    y = 3 + rng.normal(0, 0.5, k)[g] + rng.normal(0, 1.0, k * n)
    ybar = np.bincount(g, weights=y) / n
    msb = n * ((ybar - y.mean()) ** 2).sum() / (k - 1)
    msw = ((y - ybar[g]) ** 2).sum() / (k * (n - 1))
    r = icc_reml_intercept_only(y, g)
    assert r["sigma_u2"] == pytest.approx((msb - msw) / n, rel=1e-5)
    assert r["sigma_e2"] == pytest.approx(msw, rel=1e-5)
    # unbalanced: agrees with statsmodels' REML (Powell converges on this fit)
    keep = rng.random(k * n) > 0.3
    fit = sm.MixedLM(y[keep], np.ones((keep.sum(), 1)), groups=g[keep]).fit(reml=True, method="powell")
    su2, se2 = float(np.asarray(fit.cov_re)[0, 0]), float(fit.scale)
    assert icc_reml_intercept_only(y[keep], g[keep])["icc"] == pytest.approx(su2 / (su2 + se2), abs=1e-4)


# ------------------------------------------------------------------------ the raked share's sampling interval


@pytest.fixture(scope="module")
def wb_inputs():
    from compendium.pipeline.params import study_params
    from compendium.workbank import Inputs

    return Inputs.load(study_params("workbank"))


def _plain_rake(cells: pd.DataFrame, targets: dict, sweeps: int = 200) -> np.ndarray:
    """Raking by plain iteration with pandas groupby, one margin after the other (no package code)."""
    w = np.ones(len(cells))
    for _ in range(sweeps):
        for col, t in targets.items():
            cur = pd.Series(w).groupby(cells[col].to_numpy()).sum() / w.sum()
            w = w * cells[col].map(lambda c, t=t, cur=cur: t[c] / cur[c]).to_numpy()
    return w


def test_one_raking_bootstrap_draw_recomputed_from_its_resampled_workers(wb_inputs, monkeypatch):
    """Draw 0 of the re-raked bootstrap, recomputed independently: the resampled workers written out one row per
    draw of a worker, raked by plain iteration to the BLS targets (the undisclosed gender at its share in the
    replicate), every task's weighted mean over the ratings of those rows, and the strict / ties-half shares."""
    i = wb_inputs
    seen = {}
    orig = demographics.cluster_counts

    def spy(strata, n_draws, rng):
        seen["counts"], seen["strata"] = orig(strata, n_draws, rng), np.asarray(strata)
        return seen["counts"]

    monkeypatch.setattr(demographics, "cluster_counts", spy)
    boot = demographics.raking_bootstrap(
        i.desires, i.metadata, i.bls_age, i.bls_race_gender, 3.0, n_draws=3, seed=99, max_iter=1000, tol=1e-12
    )
    counts = seen["counts"][0]
    workers = i.desires[[USER, OCC]].drop_duplicates().sort_values([USER, OCC]).reset_index(drop=True)
    assert len(workers) == len(counts)
    # within-occupation resampling: every occupation keeps its number of workers
    per_occ = pd.Series(counts).groupby(workers[OCC].to_numpy()).sum()
    assert (per_occ == workers[OCC].value_counts().reindex(per_occ.index)).all()
    rows = workers.loc[np.repeat(np.arange(len(workers)), counts)].reset_index(drop=True)
    rows["copy"] = np.arange(len(rows))
    meta = rows.merge(i.metadata, on=[USER, OCC], how="left")
    frame = demographics.raking_frame(meta)
    targets = demographics.raking_margins(frame, i.bls_age, i.bls_race_gender, ("age_band", "gender", "race"))
    # raking_margins on the expanded rows gives the undisclosed their share in the replicate (by hand, too)
    other = float((frame["gender"] == "other_or_undisclosed").mean())
    assert targets["gender"]["other_or_undisclosed"] == pytest.approx(other)
    rows["w"] = _plain_rake(frame, targets)
    r = rows.merge(i.desires[[USER, OCC, TASK, DESIRE]], on=[USER, OCC])
    means = (r["w"] * r[DESIRE]).groupby(r[TASK]).sum() / r["w"].groupby(r[TASK]).sum()
    u = r.groupby(TASK)[DESIRE].mean()
    at, above = np.isclose(means, 3.0, atol=1e-9, rtol=0), (means > 3.0) & ~np.isclose(means, 3.0, atol=1e-9, rtol=0)
    assert boot.loc[0, "n_tasks"] == len(means) < i.desires[TASK].nunique()  # a task without a rater is left out
    assert boot.loc[0, "share_gt"] == pytest.approx(100 * above.mean(), abs=1e-9)
    assert boot.loc[0, "share_mid"] == pytest.approx(100 * (above.mean() + 0.5 * at.mean()), abs=1e-9)
    assert boot.loc[0, "unweighted_gt"] == pytest.approx(100 * (u > 3).mean(), abs=1e-9)
    assert boot.loc[0, "unweighted_mid"] == pytest.approx(100 * ((u > 3).mean() + 0.5 * (u == 3).mean()), abs=1e-9)


def test_raking_bootstrap_with_every_worker_once_is_the_raked_headline(wb_inputs, monkeypatch):
    """A replicate that draws every worker once is the sample itself: its shares are raked_headline's primary row."""
    i = wb_inputs
    monkeypatch.setattr(demographics, "cluster_counts", lambda strata, n, rng: np.ones((n, len(strata)), dtype=int))
    boot = demographics.raking_bootstrap(
        i.desires, i.metadata, i.bls_age, i.bls_race_gender, 3.0, n_draws=2, seed=1, max_iter=1000, tol=1e-10
    )
    raked, _ = demographics.raked_headline(
        i.desires, i.metadata, i.bls_age, i.bls_race_gender, 3.0, max_iter=1000, tol=1e-10
    )
    unw, prim = raked.iloc[0], raked.set_index("variant").loc["age + gender + race (Hispanic as White)"]
    assert boot.loc[1, "share_gt"] == pytest.approx(prim["share_gt_cutoff"]) and boot.loc[1, "n_tasks"] == 844
    assert boot.loc[1, "share_mid"] == pytest.approx(prim["share_mid"])
    assert boot.loc[1, "unweighted_gt"] == pytest.approx(unw["share_gt_cutoff"])
    assert boot.loc[1, "unweighted_mid"] == pytest.approx(unw["share_mid"])
