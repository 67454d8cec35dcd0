"""Skill shift: O*NET generalised work activities ranked by wage and by expert agency (paper Fig 7).

Definition (METHODS, WORKBank): He(t) = mean expert HAS per task text, inner-joined to the task metadata
**on task text** (897 rows: 13 texts sit under several task IDs), exploded over
``Skill (O*NET Work Activity)``. Per skill: unweighted mean He and unweighted mean
``Occupation Mean Annual Wage`` (NaN ignored). Six physical skills and "Working with Computers" are
dropped, leaving 27 skills ranked by wage and by agency (rank 1 = highest).
"""

from __future__ import annotations

import ast

import pandas as pd

from .common import HAS, SKILL, TASK, WAGE, require_columns

__all__ = ["EXCLUDED_SKILLS", "parse_skill_list", "skill_ranks"]

EXCLUDED_SKILLS = (
    "Identifying Objects, Actions, and Events",
    "Performing General Physical Activities",
    "Controlling Machines and Processes",
    "Inspecting Equipment, Structures, or Materials",
    "Handling and Moving Objects",
    "Repairing and Maintaining Mechanical Equipment",
    "Working with Computers",
)


def parse_skill_list(value) -> list[str]:
    """The skill cell is a Python-list literal as text (``"['Getting Information']"``); parse it safely."""
    if isinstance(value, list):
        return value
    try:
        out = ast.literal_eval(value)
    except (ValueError, SyntaxError) as exc:
        raise ValueError(
            f"task metadata: column {SKILL!r}: expected a list literal like \"['Getting Information']\", got {value!r}"
        ) from exc
    if not isinstance(out, list) or not all(isinstance(x, str) for x in out):
        raise ValueError(f"task metadata: column {SKILL!r}: expected a list of skill names, got {value!r}")
    return out


def skill_ranks(experts: pd.DataFrame, task_metadata: pd.DataFrame, exclude=EXCLUDED_SKILLS) -> pd.DataFrame:
    """Skills ranked by mean wage and by mean expert HAS.

    Columns exactly: skill, n_tasks, mean_wage, wage_rank, mean_has, has_rank. ``n_tasks`` counts the
    joined task rows carrying the skill (the rows the means average over). Ranks: 1 = highest;
    ties share the lowest rank ("min"). Sorted by wage_rank.
    """
    require_columns(experts, [TASK, HAS], "expert ratings")
    require_columns(task_metadata, [TASK, WAGE, SKILL], "task metadata")
    he = experts.groupby(TASK)[HAS].mean().rename("has")
    j = task_metadata[[TASK, WAGE, SKILL]].join(he, on=TASK, how="inner")
    j = j.assign(skill=j[SKILL].map(parse_skill_list)).explode("skill")
    j = j[j["skill"].notna() & ~j["skill"].isin(exclude)]
    g = j.groupby("skill")
    out = pd.DataFrame({"n_tasks": g.size(), "mean_wage": g[WAGE].mean(), "mean_has": g["has"].mean()})
    out["wage_rank"] = out["mean_wage"].rank(ascending=False, method="min").astype("Int64")
    out["has_rank"] = out["mean_has"].rank(ascending=False, method="min").astype("Int64")
    out = out.reset_index().sort_values(["wage_rank", "skill"], kind="mergesort")
    return out[["skill", "n_tasks", "mean_wage", "wage_rank", "mean_has", "has_rank"]].reset_index(drop=True)


def wage_coverage(
    experts: pd.DataFrame, task_metadata: pd.DataFrame, exclude=EXCLUDED_SKILLS
) -> tuple[pd.DataFrame, dict[str, int]]:
    """What the skill means rest on: per skill, ``n_with_wage`` (task rows with a wage, the rows the
    mean wage averages; ``n_tasks`` of :func:`skill_ranks` also counts rows without one), and the
    joined rows that carry no wage or no skill at all (left out of the wage means / of every skill)."""
    require_columns(experts, [TASK, HAS], "expert ratings")
    require_columns(task_metadata, [TASK, WAGE, SKILL], "task metadata")
    j = task_metadata[[TASK, WAGE, SKILL]][task_metadata[TASK].isin(experts[TASK])]
    parsed = j[SKILL].map(parse_skill_list)
    no_skill = int(parsed.map(lambda xs: len([x for x in xs if x]) == 0 if isinstance(xs, list) else True).sum())
    e = j.assign(skill=parsed).explode("skill")
    e = e[e["skill"].notna() & ~e["skill"].isin(exclude)]
    per_skill = e.groupby("skill")[WAGE].count().rename("n_with_wage").reset_index()
    return per_skill, {"rows_without_wage": int(j[WAGE].isna().sum()), "rows_without_skill": no_skill}


def n_joined_rows(experts: pd.DataFrame, task_metadata: pd.DataFrame) -> int:
    """Rows of the text join of expert task means with the task metadata (METHODS: 897)."""
    he = experts.groupby(TASK)[HAS].mean()
    return int(task_metadata[TASK].isin(he.index).sum())
