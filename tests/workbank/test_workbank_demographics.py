"""Demographic groups and the raked headline on hand-made data."""

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
