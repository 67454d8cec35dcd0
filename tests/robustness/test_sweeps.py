"""Robustness sweeps (compendium.robustness.sweeps) on hand-worked small cases, plus the paper's setting on
the real data (each sweep must give back the published number at the published setting)."""

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from compendium.preferences import MODELS
from compendium.robustness import sweeps as rob

sys.path.insert(0, str(Path(__file__).resolve().parent))
from robustness_cases import E, W, proportional_counts, small_cells, small_landscape  # noqa: E402

# ----------------------------------------------------------------------------------------------
# Grids
# ----------------------------------------------------------------------------------------------


def test_parse_grid_strings_numbers_and_lists():
    assert rob.parse_grid("2.5, 3,3.5", float) == (2.5, 3.0, 3.5)
    assert rob.parse_grid("3,2.5,3.0", float) == (3.0, 2.5)  # duplicates dropped, order kept
    assert rob.parse_grid(0.5, float) == (0.5,)  # dvc -S key=0.5 arrives as a number
    assert rob.parse_grid(0, float) == (0.0,)
    assert rob.parse_grid([1, "2"], float) == (1.0, 2.0)
    assert rob.parse_grid("lowest,mean", str) == ("lowest", "mean")
    assert rob.parse_grid("lowest,", str) == ("lowest",)
    with pytest.raises(ValueError, match="zone_cutoffs: empty grid"):
        rob.parse_grid(" , ", float, "zone_cutoffs")
    with pytest.raises(ValueError, match="bt_tie_weights: entry 'half' is not a valid float"):
        rob.parse_grid("0,half", float, "bt_tie_weights")
    with pytest.raises(ValueError, match="not finite"):
        rob.parse_grid("1,nan", float)


def test_with_reference_adds_the_paper_setting_once():
    assert rob.with_reference((3.5, 2.5), 3.0, sort=True) == (2.5, 3.0, 3.5)
    assert rob.with_reference((3.0, 2.5), 3.0, sort=True) == (2.5, 3.0)
    assert rob.with_reference(("mean",), "lowest") == ("mean", "lowest")


# ----------------------------------------------------------------------------------------------
# WORKBank zones
# ----------------------------------------------------------------------------------------------


def test_zone_sweep_hand_worked():
    z = rob.zone_sweep(small_landscape(), [3.0], ("ge", "gt")).set_index("boundary")
    # >= 3 is high: t1 (3, 3) and t5 (3, 3.2) green, t2 red, t3 R&D, t4 low
    ge = z.loc["ge"]
    assert (ge["green"], ge["red"], ge["rnd"], ge["low"]) == (2, 1, 1, 1)
    assert ge["largest_zone"] == "green" and ge["green_lead"] == 1 and bool(ge["green_largest"])
    assert ge["red_minus_rnd"] == 0 and not bool(ge["red_gt_rnd"]) and bool(ge["reference"])
    assert ge["share_green"] == pytest.approx(40.0)
    # > 3 is high: t1 becomes low (both axes at 3), t5 becomes R&D (capability exactly 3)
    gt = z.loc["gt"]
    assert (gt["green"], gt["red"], gt["rnd"], gt["low"]) == (0, 1, 2, 2)
    assert gt["largest_zone"] == "rnd=low" and gt["green_lead"] == -2 and not bool(gt["green_largest"])
    assert gt["red_minus_rnd"] == -1 and not bool(gt["reference"])


def test_zone_sweep_strict_boundary_is_exact_for_float_means_and_sorted():
    land = pd.DataFrame({"capability": [33 / 10, 4.0], "desire": [4.0, 33 / 10]})
    z = rob.zone_sweep(land, [3.3, 2.0], ("gt", "ge"))
    assert list(z["cutoff"]) == [2.0, 2.0, 3.3, 3.3] and list(z["boundary"]) == ["gt", "ge", "gt", "ge"]
    at = z[z["cutoff"] == 3.3].set_index("boundary")
    assert at.loc["ge", "green"] == 2  # 3.3 >= 3.3 on both tasks
    assert (at.loc["gt", "green"], at.loc["gt", "red"], at.loc["gt", "rnd"]) == (0, 1, 1)
    assert not z["reference"].any()  # 3.0 / ge is not in this grid
    with pytest.raises(ValueError, match="boundary"):
        rob.zone_sweep(land, [3.0], ("ge", "strict"))
    with pytest.raises(ValueError, match="column 'desire'"):
        rob.zone_sweep(land.drop(columns="desire"), [3.0])


# ----------------------------------------------------------------------------------------------
# WORKBank HAS tie rules
# ----------------------------------------------------------------------------------------------


def test_has_sweep_hand_worked():
    h = rob.has_sweep(W, E, ("lowest", "highest"), seed=1, n_random=10)
    assert list(zip(h["worker_rule"], h["expert_rule"])) == [
        ("lowest", "lowest"),
        ("lowest", "highest"),
        ("highest", "lowest"),
        ("highest", "highest"),
    ]
    g = h.set_index(["worker_rule", "expert_rule"])
    third = 100 / 3
    # lowest/lowest: a 2 > 1 (workers more), b 3 < 4, c 1 < 2 (experts more)
    assert g.loc[("lowest", "lowest"), "workers_more"] == pytest.approx(third)
    assert g.loc[("lowest", "lowest"), "experts_more"] == pytest.approx(2 * third)
    assert g.loc[("lowest", "lowest"), "margin"] == pytest.approx(-third)
    assert not g.loc[("lowest", "lowest"), "workers_more_exceeds"]
    # lowest workers / highest experts: a 2 < 3, b 3 < 4, c 1 < 2
    assert g.loc[("lowest", "highest"), "experts_more"] == pytest.approx(100.0)
    # highest workers / lowest experts: a 2 > 1, b 4 = 4, c 1 < 2
    r = g.loc[("highest", "lowest")]
    assert (r["workers_more"], r["diagonal"], r["experts_more"]) == pytest.approx((third, third, third))
    # highest/highest: a 2 < 3, b 4 = 4, c 1 < 2
    assert g.loc[("highest", "highest"), "diagonal"] == pytest.approx(third)
    assert g.loc[("highest", "highest"), "workers_more"] == pytest.approx(0.0)
    assert list(h["same_rule"]) == [True, False, False, True]
    assert list(h["reference"]) == [True, False, False, False]


def test_has_sweep_mean_and_random_rules():
    h = rob.has_sweep(W, E, ("mean", "random"), seed=3, n_random=50).set_index(["worker_rule", "expert_rule"])
    # mean/mean: a 2 = 2, b 4 = 4, c 1 < 2
    assert h.loc[("mean", "mean"), "diagonal"] == pytest.approx(200 / 3)
    assert h.loc[("mean", "mean"), "experts_more"] == pytest.approx(100 / 3)
    # random on both sides: task c is always "experts more"; a and b depend on the draws
    rr = h.loc[("random", "random")]
    assert rr["workers_more_lo"] <= rr["workers_more"] <= rr["workers_more_hi"]
    assert rr["experts_more"] >= 100 / 3 - 1e-9
    again = rob.has_sweep(W, E, ("mean", "random"), seed=3, n_random=50).set_index(["worker_rule", "expert_rule"])
    assert again.equals(h)
    assert not h["reference"].any()  # 'lowest' is not in this grid
    with pytest.raises(ValueError, match="tie rule"):
        rob.has_sweep(W, E, ("lowest", "median"), seed=1)


# ----------------------------------------------------------------------------------------------
# PWB weights
# ----------------------------------------------------------------------------------------------

CONFIG = {
    "scoring": {
        "weights": {
            "cognitive_forcing": 0.15,
            "complementarity": 0.15,
            "contrastive_explanation": 0.10,
            "uncertainty_transparency": 0.0,
            "appropriate_reliance": 0.0,
        },
        "legacy_weights_v2_0": {
            "cognitive_forcing": 0.2,
            "complementarity": 0.1,
            "contrastive_explanation": 0.1,
            "uncertainty_transparency": 0.1,
            "appropriate_reliance": 0.05,
        },
    }
}


def test_pwb_named_schemes_grids():
    schemes, fam = rob.pwb_named_schemes(CONFIG, (0.4,), (0.05, 0.1))
    assert list(schemes) == ["default", "equal", "v2_0", "cf_heavy_0.4", "restore_0.05", "restore_0.1"]
    assert fam["cf_heavy_0.4"] == "cf_heavy" and fam["restore_0.1"] == "restore" and fam["default"] == "default"
    # CF-heavy at 0.4: CF 0.4, the others share 0.6 in their v2.1 proportions 0.15 : 0.10
    cf = schemes["cf_heavy_0.4"]
    assert cf == pytest.approx({"cognitive_forcing": 0.4, "complementarity": 0.36, "contrastive_explanation": 0.24})
    assert schemes["restore_0.05"]["uncertainty_transparency"] == 0.05
    assert schemes["restore_0.05"]["appropriate_reliance"] == 0.05
    assert schemes["equal"] == pytest.approx({d: 1 / 3 for d in cf})
    with pytest.raises(ValueError, match="cf_heavy weight"):
        rob.pwb_named_schemes(CONFIG, (1.0,), ())
    with pytest.raises(ValueError, match="restore weight"):
        rob.pwb_named_schemes(CONFIG, (), (-0.1,))


def test_random_schemes_dirichlet_mean_and_spread():
    base = {"a": 0.3, "b": 0.1, "c": 0.0, "d": 0.6}
    s = rob.random_schemes(base, 20000, 19.0, seed=7)
    assert list(s)[:2] == ["random_0000", "random_0001"] and len(s) == 20000
    w = pd.DataFrame(s).T
    assert list(w.columns) == ["a", "b", "d"]  # zero-weight dimension left out
    assert np.allclose(w.sum(axis=1), 1.0)
    assert w.mean().to_numpy() == pytest.approx([0.3, 0.1, 0.6], abs=0.005)
    # Dirichlet variance p (1 - p) / (concentration + 1)
    assert w.var().to_numpy() == pytest.approx([0.3 * 0.7 / 20, 0.1 * 0.9 / 20, 0.6 * 0.4 / 20], rel=0.05)
    assert rob.random_schemes(base, 3, 19.0, seed=7) == {k: s[k] for k in list(s)[:3]}  # seeded
    assert rob.random_schemes(base, 0, 19.0, seed=7) == {}
    with pytest.raises(ValueError, match="concentration"):
        rob.random_schemes(base, 5, 0.0, seed=1)
    with pytest.raises(ValueError, match="at least two"):
        rob.random_schemes({"a": 1.0, "b": 0.0}, 5, 10.0, seed=1)


def test_pwb_sweep_hand_worked():
    schemes = {"default": {"d1": 1, "d2": 1}, "d2only": {"d1": 0, "d2": 1}}
    per, pwis = rob.pwb_sweep(small_cells(), schemes, {"default": "default", "d2only": "alt"}, top_k=1)
    p = per.set_index("scheme")
    # default: PWI = 100 (m1/3 + m2/3) / 2 -> X 50 -> 83.33, Y 16.67 -> 75
    assert p.loc["default", "min_delta"] == pytest.approx(100 / 3)
    assert p.loc["default", "mean_delta"] == pytest.approx((100 / 3 + 175 / 3) / 2)
    assert p.loc["default", "top_model"] == "X" and p.loc["default", "all_gain"]
    # d2 only: X 66.67 -> 66.67 (no gain), Y 33.33 -> 83.33
    assert p.loc["d2only", "min_delta"] == pytest.approx(0.0, abs=1e-9)
    assert not p.loc["d2only", "all_gain"]
    assert p.loc["d2only", "mean_delta"] == pytest.approx(25.0)
    assert p.loc["d2only", "top_model"] == "Y" and p.loc["d2only", "family"] == "alt"
    assert p.loc["d2only", "kendall_tau"] == pytest.approx(-1.0) and not p.loc["d2only", "top3_stable"]
    lead = rob.pwb_lead(pwis, "X")
    assert lead["default"] == pytest.approx(250 / 3 - 75) and lead["d2only"] == pytest.approx(200 / 3 - 250 / 3)
    with pytest.raises(ValueError, match="'default'"):
        rob.pwb_sweep(small_cells(), {"d2only": {"d2": 1}})
    with pytest.raises(ValueError, match="model 'Z'"):
        rob.pwb_lead(pwis, "Z")


# ----------------------------------------------------------------------------------------------
# Bradley-Terry tie conventions
# ----------------------------------------------------------------------------------------------


def test_bt_sweep_ties_dropped_recovers_known_strengths():
    bt = rob.bt_sweep(proportional_counts(ties=4), (0.0, 0.5, 1.0), davidson=True)
    assert list(bt["convention"]) == [
        "ties dropped (w = 0)",
        "half win each (w = 0.5, published)",
        "full win each (w = 1)",
        "Davidson ties model",
    ]
    dropped = bt.iloc[0]
    assert dropped[list(MODELS)].to_numpy(dtype=float) == pytest.approx(np.arange(1, 6) / 3, abs=1e-5)
    assert dropped["ranking"] == "Recipe D > Recipe C > Recipe B > Recipe A > Untrained"
    assert dropped["top_model"] == "recipe_d"
    assert dropped["rho_val_pref_acc"] == pytest.approx(1.0)  # strength and val_pref_acc both rise A -> D
    assert dropped["log_c_over_d"] == pytest.approx(math.log(4 / 5), abs=1e-5)
    assert dropped["min_adjacent_log_gap"] == pytest.approx(math.log(5 / 4), abs=1e-5)
    # crediting ties to both sides pulls the strengths together, without reordering them
    spread = (bt[list(MODELS)].max(axis=1) / bt[list(MODELS)].min(axis=1)).to_numpy()
    assert spread[0] > spread[1] > spread[2] > 1
    assert bt["same_ranking_as_published"].all()
    assert list(bt["reference"]) == [False, True, False, False]
    assert math.isnan(bt.iloc[3]["tie_weight"])
    assert np.allclose(bt[list(MODELS)].sum(axis=1), 5.0)


def test_bt_sweep_matches_choix_on_the_same_win_matrix():
    import choix

    counts = proportional_counts(ties=4)
    counts.loc[0, "ties"] = 11  # uneven ties so w matters per pair
    counts["n"] = counts["x_wins"] + counts["y_wins"] + counts["ties"]
    bt = rob.bt_sweep(counts, (0.25, 1.0), davidson=False)
    for k, w in enumerate((0.25, 1.0)):
        Wm = np.zeros((5, 5))
        for r in counts.itertuples():
            i, j = MODELS.index(r.model_x), MODELS.index(r.model_y)
            Wm[i, j] += r.x_wins + w * r.ties
            Wm[j, i] += r.y_wins + w * r.ties
        pi = np.exp(choix.ilsr_pairwise_dense(Wm, alpha=0.0, tol=1e-12, max_iter=10_000))
        assert bt.iloc[k][list(MODELS)].to_numpy(dtype=float) == pytest.approx(5 * pi / pi.sum(), abs=1e-5)


def test_bt_sweep_equal_strengths_and_bad_weight():
    sym = proportional_counts(ties=2)
    sym["x_wins"] = 3
    sym["y_wins"] = 3
    sym["n"] = 8
    bt = rob.bt_sweep(sym, (0.5,), davidson=False)
    assert bt.iloc[0][list(MODELS)].to_numpy(dtype=float) == pytest.approx(np.ones(5))
    assert " > " not in bt.iloc[0]["ranking"] and bt.iloc[0]["ranking"].count(" = ") == 4
    assert math.isnan(bt.iloc[0]["rho_val_pref_acc"])  # tied strengths: the report's rho is undefined
    with pytest.raises(ValueError, match="tie weight"):
        rob.bt_sweep(sym, (-0.5,))


def test_ranking_string():
    assert rob.ranking_string({"a": 1.0, "b": 3.0, "c": 3.0}) == "b = c > a"
    assert rob.ranking_string(pd.Series({"a": 2.0, "b": 1.0}), {"a": "A"}) == "A > b"


# ----------------------------------------------------------------------------------------------
# Summary rows
# ----------------------------------------------------------------------------------------------


# ----------------------------------------------------------------------------------------------
# The paper's setting on the real data gives back the published numbers
# ----------------------------------------------------------------------------------------------


def test_paper_settings_reproduce_published_values():
    import compendium.data as data
    from compendium.pwb import aggregates as agg
    from compendium.workbank import agency, landscape
    from compendium.workbank.common import TASK

    desires, experts = data.load_worker_desires(), data.load_expert_ratings()
    z = rob.zone_sweep(landscape.task_landscape(desires, experts), [3.0])
    ref = z[z["reference"]].iloc[0]
    assert (ref["green"], ref["red"], ref["rnd"], ref["low"]) == (364, 267, 107, 106)  # wb.zones.*
    h = rob.has_sweep(
        agency.has_counts(desires, TASK), agency.has_counts(experts, TASK), ("lowest",), seed=0, n_random=1
    )
    assert h.iloc[0]["workers_more"] == pytest.approx(47.5, abs=0.05)  # wb.has.workers_more
    assert h.iloc[0]["diagonal"] == pytest.approx(26.9, abs=0.05)  # wb.has.diagonal
    bt = rob.bt_sweep(data.load_hitl_pair_counts(), (0.5,), davidson=False).iloc[0]
    assert bt["recipe_c"] == pytest.approx(1.1728131357279115, abs=1e-6)  # hitl.bt.recipe_c
    assert bt["recipe_a"] == pytest.approx(0.8623494595865299, abs=1e-6)  # hitl.bt.recipe_a
    assert bt["rho_val_pref_acc"] == pytest.approx(0.8)  # hitl.spearman
    cells = agg.reconstruct_cells(data.load_pwb_dimension_scores(), data.load_pwb_effect_sizes())
    schemes, fam = rob.pwb_named_schemes(data.load_pwb_config())
    per, _ = rob.pwb_sweep(cells, schemes, fam)
    d = per.set_index("scheme").loc["default"]
    assert round(d["min_delta"], 1) == 24.1 and round(d["mean_delta"], 1) == 34.7  # Table 2 / pwb.delta.mean
    assert d["top_model"] == "GLM 5.1"  # Table 2


def _bt_centred_reference(W: np.ndarray) -> np.ndarray:
    """Centred Bradley-Terry log-strengths by direct maximisation of the log-likelihood (scipy), not by
    the package's MM update."""
    from scipy.optimize import minimize

    def nll(t):
        d = t[:, None] - t[None, :]
        return -(W * -np.logaddexp(0.0, -d)).sum()

    t = minimize(nll, np.zeros(W.shape[0]), method="BFGS", options={"gtol": 1e-10}).x
    return t - t.mean()


def test_equal_tie_credit_can_reorder_a_bradley_terry_ranking_when_ties_are_uneven():
    """Three models, decisive wins i over j in D, ties T01 = 3, T02 = 6, T12 = 4 (model 1 ties least):
    ties dropped rank 2 > 1 > 0, any credit of 0.25 or more ranks 1 > 2 > 0. The same credit to both
    sides is no guarantee of the same ranking."""
    from compendium.stats import pairwise as pw

    D = np.array([[0, 5, 0], [8, 0, 4], [10, 0, 0]], dtype=float)
    T = np.array([[0, 3, 6], [3, 0, 4], [6, 4, 0]], dtype=float)
    expected = {0.0: (-0.858, 0.385, 0.474), 0.25: (-0.684, 0.355, 0.329)}
    orders = {}
    for w in (0.0, 0.25, 0.5, 1.0):
        W = D + w * T
        ref = _bt_centred_reference(W)
        fit = np.log(pw.bradley_terry_mm(W, tol=1e-12, max_iter=100_000).strengths)
        assert fit - fit.mean() == pytest.approx(ref, abs=1e-6)
        if w in expected:
            assert ref == pytest.approx(expected[w], abs=1e-3)
        orders[w] = tuple(np.argsort(-ref))
    assert orders[0.0] == (2, 1, 0)
    assert orders[0.25] == orders[0.5] == orders[1.0] == (1, 2, 0)


def test_ties_per_model_counts_every_tie_a_model_took_part_in():
    counts = proportional_counts(ties=0)
    counts["ties"] = range(1, 11)  # pair k (in MODELS pair order) has k + 1 ties
    counts["n"] = counts["x_wins"] + counts["y_wins"] + counts["ties"]
    per = rob.ties_per_model(counts)
    by_hand = {m: 0 for m in MODELS}
    for r in counts.itertuples():
        by_hand[r.model_x] += r.ties
        by_hand[r.model_y] += r.ties
    assert per.to_dict() == by_hand
    assert list(per.index) == list(MODELS)
    assert per.sum() == 2 * counts["ties"].sum()


def test_ties_per_model_on_the_study_are_similar():
    """The reason no tie credit reorders the published ranking: every model took part in 101-111 ties."""
    import compendium.data as data

    counts = data.load_hitl_pair_counts()
    per = rob.ties_per_model(counts)
    assert (per.min(), per.max()) == (101, 111)
    assert per.sum() == 2 * counts["ties"].sum()
