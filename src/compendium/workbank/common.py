"""Column names of the WORKBank release and small shared helpers (validation, grouping by task text).

The authors group every analysis by the ``Task`` text (METHODS, WORKBank): in the worker and expert
files text and ``Task ID`` are 1:1, but in the task metadata 13 texts appear under several IDs.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from ..data.errors import require_columns  # noqa: F401  (the WORKBank modules import it from here)

TASK = "Task"
TASK_ID = "Task ID"
OCC = "Occupation (O*NET-SOC Title)"
USER = "User ID"
SOC_CODE = "O*NET-SOC Code"
DESIRE = "Automation Desire Rating"
CAPABILITY = "Automation Capacity Rating"
HAS = "Human Agency Scale Rating"
JOB_SECURITY = "Job Security Rating"
ENJOYMENT = "Enjoyment Rating"
WAGE = "Occupation Mean Annual Wage"
SKILL = "Skill (O*NET Work Activity)"

#: Reasons for automation desire (Fig 4b). "Quality" in the paper is the ``Human Error`` flag.
DESIRE_REASONS = {
    "free_time": "Reasons for Automation Desire - Free Time",
    "repetitive": "Reasons for Automation Desire - Repetitive",
    "human_error": "Reasons for Automation Desire - Human Error",
    "stress": "Reasons for Automation Desire - Stress",
    "difficulty": "Reasons for Automation Desire - Difficulty",
    "scale": "Reasons for Automation Desire - Scale",
}

#: Task characteristics rated by both workers and experts (the H5 radar, Fig 6d).
TASK_CHARACTERISTICS = {
    "physical_action": "Physical Action Requirement",
    "interpersonal_communication": "Interpersonal Communication Requirement",
    "uncertainty": "Involved Uncertainty",
    "domain_expertise": "Domain Expertise Requirement",
}

HAS_LEVELS = (1, 2, 3, 4, 5)
ZONES = ("green", "red", "rnd", "low")
#: one colour per zone, shared by every figure that shows zones (WORKBank and robustness chapters)
ZONE_COLORS = {"green": "#2ca02c", "red": "#d62728", "rnd": "#1f77b4", "low": "#7f7f7f"}
ZONE_LABELS = {
    "green": "Automation 'Green Light'",
    "red": "Automation 'Red Light'",
    "rnd": "R&D Opportunity",
    "low": "Low Priority",
}


def require_ratings(df: pd.DataFrame, column: str, what: str, lo: int = 1, hi: int = 5) -> None:
    """Raise ``ValueError`` unless ``df[column]`` holds integer ratings in ``[lo, hi]`` with no missing values."""
    s = df[column]
    if s.isna().any():
        raise ValueError(f"{what}: column {column!r} has {int(s.isna().sum())} missing rating(s); expected {lo}..{hi}")
    x = s.to_numpy(dtype=float)
    bad = (x < lo) | (x > hi) | (x != np.round(x))
    if bad.any():
        raise ValueError(
            f"{what}: column {column!r}: expected integer ratings {lo}..{hi}, "
            f"found {int(bad.sum())} bad value(s), e.g. {s[bad].iloc[0]!r}"
        )


def task_means(ratings: pd.DataFrame, columns: Iterable[str], what: str = "ratings") -> pd.DataFrame:
    """Per-task plain means of ``columns``, grouped by the task text, with the occupation and n ratings.

    Returns a frame indexed by ``Task`` (sorted) with columns ``occupation``, ``n_ratings`` and one column
    per requested rating column (same names).
    """
    columns = list(columns)
    require_columns(ratings, [TASK, OCC, *columns], what)
    occ = ratings.groupby(TASK)[OCC].agg(["first", "nunique"])
    if (occ["nunique"] > 1).any():
        bad = occ.index[occ["nunique"] > 1][0]
        raise ValueError(f"{what}: task text {bad!r} appears under several occupations; expected one per task")
    g = ratings.groupby(TASK)
    out = g[columns].mean()
    out.insert(0, "n_ratings", g.size())
    out.insert(0, "occupation", occ["first"])
    return out.sort_index()


def pct(x) -> float:
    """Mean of a boolean array in percent."""
    x = np.asarray(x, dtype=bool)
    if x.size == 0:
        raise ValueError("pct: empty selection")
    return float(100.0 * x.mean())


def drop_repeated_rows(ratings: pd.DataFrame, what: str = "expert ratings") -> tuple[pd.DataFrame, int]:
    """Drop exact duplicate rows (the expert file repeats 19 whole rows) and return ``(frame, n_dropped)``.

    If one rater gives the same task two *different* ratings, that is not a repeat but a conflict, and a
    ``ValueError`` names it. Means and modes of the published analyses are unchanged by the 19 repeats
    (every rater of those tasks is repeated), but rater-level methods (alpha, rater bootstrap) need each
    rater once.
    """
    dedup = ratings.drop_duplicates()
    if USER in ratings.columns and TASK in ratings.columns:
        conflict = dedup.duplicated([USER, TASK], keep=False)
        if conflict.any():
            row = dedup.loc[conflict, [USER, TASK]].iloc[0].to_dict()
            raise ValueError(
                f"{what}: rater {row[USER]!r} rated task {row[TASK]!r} more than once with different values"
            )
    return dedup, len(ratings) - len(dedup)
