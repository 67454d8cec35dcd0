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


def test_share_text_prints_the_digits_the_replicates_support():
    """Hand-worked: 2,000 replicates leave a share near 11 % uncertain by 0.7 points, 20,000 by 0.23; the
    printed share never moves by more than its standard error, and an all-or-none share prints whole."""
    assert sampling.share_text(0.1065, 2000) == "11 %"  # SE 0.69 points
    assert sampling.share_text(0.12475, 20_000) == "12.5 %"  # SE 0.23 points: 12 would move it by 0.48
    assert sampling.share_text(0.3605, 2000) == "36 %"  # SE 1.07: 40 would move it by 3.95
    assert sampling.share_text(1.0, 2000) == "100 %" and sampling.share_text(0.0, 50) == "0 %"
    for p, n in ((0.1065, 2000), (0.5287, 20_000), (0.3316, 20_000), (0.999, 2000)):
        se = 100 * math.sqrt(p * (1 - p) / n)
        assert abs(float(sampling.share_text(p, n).removesuffix(" %")) - 100 * p) <= se
    with pytest.raises(ValueError, match="share in"):
        sampling.share_text(1.2, 10)


def test_preference_checks_run_enough_replicates_for_whole_points_at_the_committed_setting():
    """At the committed robustness.n_sampling (2,000), the preference shares' Monte Carlo SE is at most
    0.35 points (p = 0.5), so a whole percentage is determined; with 2,000 replicates it was 1.1 points
    and the exact-ranking share under category resampling printed 11 % for about 12.4 %."""
    from compendium.pipeline.params import REFERENCE

    n = sampling.BT_FACTOR * REFERENCE["robustness"]["n_sampling"][0]
    assert 100 * math.sqrt(0.25 / n) <= 0.36
