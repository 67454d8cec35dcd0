"""Automation desire (compendium.workbank.desire) on small hand-checked frames."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from compendium.workbank import desire
from compendium.workbank.common import DESIRE, DESIRE_REASONS, ENJOYMENT, JOB_SECURITY, OCC, TASK


def frame(rows):
    """rows: (task, occupation, desire, job_security, enjoyment)."""
    df = pd.DataFrame(rows, columns=[TASK, OCC, DESIRE, JOB_SECURITY, ENJOYMENT])
    for c in DESIRE_REASONS.values():
        df[c] = False
    return df


def test_task_means_group_by_text_and_strict_vs_inclusive():
    df = frame(
        [
            ("t1", "o", 3, 1, 1),
            ("t1", "o", 3, 1, 1),  # mean exactly 3
            ("t2", "o", 4, 2, 2),
            ("t2", "o", 3, 2, 2),  # 3.5
            ("t3", "p", 1, 3, 3),
            ("t3", "p", 2, 3, 3),
            ("t3", "p", 3, 3, 3),  # 2.0
            ("t4", "p", 5, 4, 4),
        ]
    )  # 5
    t = desire.task_desire(df)
    assert t.loc["t2", "desire"] == 3.5 and t.loc["t3", "n_ratings"] == 3
    sh = desire.desire_shares(t["desire"], 3.0)
    assert sh["share_gt_cutoff"] == 50.0  # t2, t4 (3.0 is not > 3)
    assert sh["share_ge_cutoff"] == 75.0  # t1 counts when inclusive
    assert sh["share_ge4"] == 25.0 and sh["share_le2"] == 25.0


def test_ranked_tasks_breaks_ties_by_text():
    t = pd.DataFrame(
        {"occupation": ["o"] * 3, "n_ratings": [3, 3, 3], "desire": [4.0, 4.0, 2.0]},
        index=pd.Index(["b", "a", "c"], name=TASK),
    )
    top = desire.ranked_tasks(t, 2)
    assert list(top.columns) == ["rank", "task", "occupation", "mean_desire", "n_ratings"]
    assert list(top["task"]) == ["a", "b"]
    assert list(desire.ranked_tasks(t, 1, top=False)["task"]) == ["c"]


def test_reasons_use_responses_with_rating_at_least_3():
    df = frame([("t", "o", 3, 1, 1), ("t", "o", 4, 1, 1), ("t", "o", 2, 1, 1), ("t", "o", 5, 1, 1)])
    df[DESIRE_REASONS["free_time"]] = [True, True, True, False]  # the rating-2 row must not count
    df[DESIRE_REASONS["stress"]] = [False, False, False, True]
    n, tab = desire.desire_reasons(df)
    tab = tab.set_index("reason")
    assert n == 3
    assert tab.loc["free_time", "n_true"] == 2 and tab.loc["free_time", "pct"] == pytest.approx(200 / 3)
    assert tab.loc["stress", "pct"] == pytest.approx(100 / 3)


def test_sectors_from_soc_code_and_bls_major_groups():
    meta = pd.DataFrame(
        {
            OCC: ["Data Scientists", "Data Scientists", "Actors"],
            "O*NET-SOC Code": ["15-2051.00", "15-2051.00", "27-2011.00"],
        }
    )
    bls = pd.DataFrame(
        {
            "OCC_CODE": ["15-0000", "27-0000", "15-2051"],
            "OCC_TITLE": [
                "Computer and Mathematical Occupations",
                "Arts, Design, Entertainment, Sports, and Media Occupations",
                "Data Scientists",
            ],
            "O_GROUP": ["major", "major", "detailed"],
        }
    )
    s = desire.occupation_sectors(meta, bls)
    assert s.loc["Actors", "sector"] == "Arts, Design, Entertainment, Sports, and Media"
    assert s.loc["Data Scientists", "sector_code"] == "15"
    tasks = pd.DataFrame({"occupation": ["Actors", "Actors", "Data Scientists"], "desire": [3.5, 2.0, 4.0]})
    by = desire.desire_by_sector(tasks, s, 3.0).set_index("sector")
    assert by.loc["Arts, Design, Entertainment, Sports, and Media", "share_gt_cutoff"] == 50.0
    bad = meta.assign(**{"O*NET-SOC Code": ["15-2051.00", "11-2051.00", "27-2011.00"]})
    with pytest.raises(ValueError, match="several SOC major groups"):
        desire.occupation_sectors(bad, bls)


def test_spearman_matches_pearson_of_ranks_and_p_format():
    x = np.array([1, 2, 3, 4, 5, 6, 7.0])
    y = np.array([2, 1, 4, 3, 7, 5, 6.0])
    rho, p = desire.spearman(x, y)
    assert rho == pytest.approx(np.corrcoef(stats.rankdata(x), stats.rankdata(y))[0, 1])
    assert 0 < p < 0.05
    assert desire.format_p_truncated(5.7436e-11) == "p<5e-11"
    assert desire.format_p_truncated(3.9e-17) == "p<3e-17"


def test_bad_ratings_and_missing_columns_raise():
    df = frame([("t", "o", 6, 1, 1)])
    with pytest.raises(ValueError, match="Automation Desire Rating"):
        desire.task_desire(df)
    with pytest.raises(ValueError, match="missing column"):
        desire.task_desire(df.drop(columns=[ENJOYMENT]))
    two_occ = frame([("t", "o", 3, 1, 1), ("t", "p", 3, 1, 1)])
    with pytest.raises(ValueError, match="several occupations"):
        desire.task_desire(two_occ)
