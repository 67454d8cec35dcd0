"""Claude usage share, mapping densities and the BLS table parsers on hand-made frames."""

import numpy as np
import pandas as pd
import pytest

from compendium.workbank import external
from compendium.workbank.common import TASK


def test_bls_number_and_headers():
    assert external.bls_number("161,346") == 161346.0
    assert np.isnan(external.bls_number("–")) and np.isnan(external.bls_number("#"))
    with pytest.raises(ValueError, match="cannot read"):
        external.bls_number("n/a")
    df = pd.DataFrame(columns=["Occupation", "Total, 16\nyears and\n over", "16 to 19 \nyears"])
    assert list(external.tidy_bls_columns(df).columns) == ["Occupation", "Total, 16 years and over", "16 to 19 years"]


def age_table(total_label="Total employed"):
    cols = (
        ["Occupation", "Total, 16\nyears and\n over"]
        + [b.replace(" years", " \nyears") for b in external.AGE_BANDS]
        + ["Median\n age"]
    )
    rows = [
        [total_label, "1,000", "100", "100", "200", "200", "200", "100", "100", "42.2"],
        [None] * 10,
        ["Lawyers", "50", "0", "1", "10", "10", "10", "10", "9", "–"],
    ]
    return pd.DataFrame(rows, columns=cols)


def test_age_shares_from_total_row_with_odd_headers():
    s = external.bls_age_shares(age_table())
    assert s.sum() == pytest.approx(1.0)
    assert s["16 to 19 years"] == pytest.approx(0.1) and s["25 to 34 years"] == pytest.approx(0.2)
    with pytest.raises(ValueError, match="total row"):
        external.bls_age_shares(age_table("Everyone"))


def test_race_gender_shares_other_is_remainder():
    df = pd.DataFrame(
        [["Total, 16 years and over", "161,346", "47.1", "76.3", "12.8", "7.0", "19.4"]],
        columns=[
            "Occupation",
            "Total employed",
            "Women",
            "White",
            "Black or African American",
            "Asian",
            "Hispanic or Latino",
        ],
    )
    r = external.bls_race_gender_shares(df)
    assert r["women"] == pytest.approx(0.471) and r["other_race"] == pytest.approx(1 - 0.763 - 0.128 - 0.07)
    assert r["hispanic"] == pytest.approx(0.194)


def test_claude_share_lowercase_join_and_top_n():
    tasks = pd.DataFrame(
        {"occupation": ["A", "A", "B", "C"], "desire": [5.0, 4.0, 4.4, 1.0]},
        index=pd.Index(["Do X.", "Do Y.", "Do Z.", "Do W."], name=TASK),
    )
    usage = pd.DataFrame({"task_name": ["do x.", "do z.", "do w."], "pct": [1.0, 2.0, 50.0]})
    share, table = external.claude_top_share(tasks, usage, n_top=2)
    assert share == pytest.approx(3.0)  # A (4.5) and B (4.4); C excluded
    assert list(table["occupation"]) == ["A", "B"]
    assert table.set_index("occupation").loc["A", "n_tasks_in_usage"] == 1


def test_mapping_density_task_vs_task_occupation_join():
    land = pd.DataFrame(
        {"occupation": ["T1", "T1", "X"], "zone": ["green", "red", "low"]},
        index=pd.Index(["grade", "plan", "file"], name=TASK),
    )
    maps = pd.DataFrame(
        {
            "task": ["grade", "grade", "plan", "file", "other"],
            "occupation": ["T1", "T2", "T1", "X", "X"],
            "n": [10, 5, 4, 6, 100],
        }
    )
    t, rl = external.mapping_density(land, maps, "n", "task")
    t = t.set_index("zone")
    assert t.loc["green", "total"] == 15 and t.loc["green", "density"] == 15  # both 'grade' rows
    assert t.loc["rnd", "n_tasks"] == 0
    assert rl == pytest.approx(100 * (4 + 6) / 25)
    t2, rl2 = external.mapping_density(land, maps, "n", "task_occupation")
    assert t2.set_index("zone").loc["green", "total"] == 10
    assert rl2 == pytest.approx(100 * 10 / 20)
    with pytest.raises(ValueError, match="join"):
        external.mapping_density(land, maps, "n", "occupation")
