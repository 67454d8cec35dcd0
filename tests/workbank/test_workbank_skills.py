"""Skill ranks by wage and by expert agency, on a hand-made join."""

import numpy as np
import pandas as pd
import pytest

from compendium.workbank import skills
from compendium.workbank.common import HAS, SKILL, TASK, WAGE


def test_skill_ranks_text_join_exclusion_and_nan_wages():
    experts = pd.DataFrame({TASK: ["t1", "t1", "t2", "t3"], HAS: [2, 4, 5, 1]})
    meta = pd.DataFrame(
        {
            TASK: ["t1", "t1", "t2", "t3", "t9"],  # t1 appears under two IDs: both rows join
            WAGE: [100.0, 200.0, np.nan, 50.0, 999.0],
            SKILL: [
                "['Getting Information']",
                "['Getting Information', 'Working with Computers']",
                "['Getting Information', 'Thinking Creatively']",
                "['Thinking Creatively']",
                "['Getting Information']",
            ],
        }
    )
    t = skills.skill_ranks(experts, meta)
    assert list(t.columns) == ["skill", "n_tasks", "mean_wage", "wage_rank", "mean_has", "has_rank"]
    t = t.set_index("skill")
    assert "Working with Computers" not in t.index
    gi = t.loc["Getting Information"]
    assert gi["n_tasks"] == 3  # t1 twice + t2; t9 has no expert rating
    assert gi["mean_has"] == pytest.approx((3 + 3 + 5) / 3)
    assert gi["mean_wage"] == pytest.approx(150.0)  # NaN wage of t2 ignored
    assert t.loc["Thinking Creatively", "mean_wage"] == 50.0
    assert gi["wage_rank"] == 1 and t.loc["Thinking Creatively", "has_rank"] == 2
    assert skills.n_joined_rows(experts, meta) == 4


def test_bad_skill_cell_raises():
    with pytest.raises(ValueError, match="list literal"):
        skills.parse_skill_list("Getting Information, Thinking")
    with pytest.raises(ValueError, match="list of skill names"):
        skills.parse_skill_list("[1, 2]")


def test_wage_coverage_counts_rows_without_wage_or_skill():
    import numpy as np
    import pandas as pd

    from compendium.workbank import skills
    from compendium.workbank.common import TASK

    experts = pd.DataFrame({TASK: ["t1", "t2", "t3"], "Human Agency Scale Rating": [1, 2, 3]})
    meta = pd.DataFrame(
        {
            TASK: ["t1", "t2", "t3", "t4"],
            "Occupation Mean Annual Wage": [100.0, np.nan, 50.0, 10.0],
            "Skill (O*NET Work Activity)": ["['A', 'B']", "['A']", "[]", "['A']"],
        }
    )
    per_skill, left_out = skills.wage_coverage(experts, meta, exclude=())
    assert per_skill.set_index("skill")["n_with_wage"].to_dict() == {"A": 1, "B": 1}
    assert left_out == {"rows_without_wage": 1, "rows_without_skill": 1}
