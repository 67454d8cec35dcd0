"""The resampling checks' inputs from other chapters (compendium.robustness.sampling)."""

import math

import pytest

from compendium.robustness import sampling


def test_c_beats_d_shares_come_from_the_preferences_chapter_with_their_monte_carlo_error():
    vals = {
        "pref.c_vs_d.p_c_stronger": 0.7,
        "pref.bootstrap_cluster.p_c_stronger_than_d": 0.64,
        "pref.c_vs_d.n_bootstrap": 5000,
    }
    got = sampling.c_beats_d_shares(vals)
    assert got["p_c_beats_d_judgements"] == 0.7 and got["p_c_beats_d_categories"] == 0.64
    assert got["c_beats_d_n_boot"] == 5000
    assert got["p_c_beats_d_judgements_mc_se"] == pytest.approx(math.sqrt(0.7 * 0.3 / 5000))  # 0.0065
    assert got["p_c_beats_d_categories_mc_se"] == pytest.approx(math.sqrt(0.64 * 0.36 / 5000))
    with pytest.raises(KeyError, match="dvc repro preferences"):
        sampling.c_beats_d_shares({"pref.c_vs_d.p_c_stronger": 0.7})
