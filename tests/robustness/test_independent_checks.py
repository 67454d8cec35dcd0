"""Independent checks of the robustness chapter: a sweep is no sampling check (issue 14, item 8, from the
referee report, and the "how sure is this?" notes).

A tie-credit sweep varies an analysis choice with the data fixed. The old summary read "Recipe C is
most preferred: 6/6" as robustness; these tests show that the sweep agrees with itself even on pure
noise, so the summary must carry a resampling check beside it.
"""

import numpy as np
import pandas as pd
import pytest

from compendium import preferences as pref
from compendium.robustness import findings as fd, sampling, sweeps
from compendium.workbank.common import CAPABILITY, DESIRE, OCC, TASK, USER


def _noise_counts(seed, n=300):
    rng = np.random.default_rng(seed)
    rows = []
    for a in range(5):
        for b in range(a + 1, 5):
            k = rng.multinomial(n, [0.41, 0.41, 0.18])  # five equally good models
            rows.append(
                {
                    "model_x": pref.MODELS[a],
                    "model_y": pref.MODELS[b],
                    "x_wins": k[0],
                    "y_wins": k[1],
                    "ties": k[2],
                    "n": n,
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("seed", range(6))
def test_tie_credit_sweep_agrees_with_itself_on_pure_noise_but_a_resampling_check_does_not(seed):
    counts = _noise_counts(seed)
    bt = sweeps.bt_sweep(counts, [0, 0.25, 0.5, 0.75, 1])
    assert bt["top_model"].nunique() == 1  # "top model: 6/6 settings" on noise
    chk = sampling.bt_sampling_check(counts, None, n_boot=400, seed=1)
    assert chk["p_same_ranking_judgements"] < 0.5  # ... which the bootstrap does not support
    assert chk["ties_per_model_min"] <= chk["ties_per_model_max"]


def test_bt_sampling_check_with_categories_reports_both_bootstraps():
    rows = []
    rng = np.random.default_rng(3)
    for c in range(8):
        for a in range(5):
            for b in range(a + 1, 5):
                k = rng.multinomial(20, [0.45, 0.4, 0.15])
                rows.append(
                    {
                        "category": f"c{c}",
                        "model_x": pref.MODELS[a],
                        "model_y": pref.MODELS[b],
                        "x_wins": k[0],
                        "y_wins": k[1],
                        "ties": k[2],
                        "n": 20,
                    }
                )
    bc = pd.DataFrame(rows)
    pooled = bc.groupby(["model_x", "model_y"], as_index=False)[["x_wins", "y_wins", "ties", "n"]].sum()
    chk = sampling.bt_sampling_check(pooled, bc, n_boot=300, seed=2)
    assert {"p_c_top_judgements", "p_c_top_categories", "p_same_rho_categories"} <= set(chk)


def test_finding_row_carries_a_how_sure_note():
    r = fd.finding_row("k", "S", "f", [True, True], [1.0, 2.0], how_sure="bootstrap: 70 %")
    assert r["how_sure"] == "bootstrap: 70 %" and r["verdict"] == "yes (2/2)"
    assert fd.finding_row("k", "S", "f", [True], [1.0])["how_sure"] == ""


def test_zone_sampling_check_on_a_clear_landscape():
    """Every task clearly Green (all ratings 5): the finding survives every rater resample."""
    des = pd.DataFrame({TASK: np.repeat(["a", "b", "c"], 3), OCC: "o", USER: [f"w{k}" for k in range(9)], DESIRE: 5})
    exp = pd.DataFrame({TASK: ["a", "b", "c", "a"], OCC: "o", USER: ["e1", "e2", "e1", "e2"], CAPABILITY: 5})
    chk = sampling.zone_sampling_check(des, exp, 3.0, n_draws=200, seed=1)
    assert chk["p_green_largest"] == 1.0 and chk["p_red_gt_rnd"] == 0.0
    assert chk["p_green_largest_experts_only"] == 1.0
