"""The paper's slips: places where the printed number or statement disagrees with the released data.

Each slip is recomputed from the data by the functions of this package; this module only lays the
evidence side by side (METHODS, "Known paper slips").
"""

from __future__ import annotations

import pandas as pd

from compendium.chapter.numbers import percent

from .common import TASK, USER, require_columns
from .desire import format_p_truncated

__all__ = ["expert_counts", "paper_slips"]


def expert_counts(experts: pd.DataFrame) -> dict[str, int]:
    """Distinct expert IDs, and tasks rated by exactly one distinct expert."""
    require_columns(experts, [TASK, USER], "expert ratings")
    per_task = experts.groupby(TASK)[USER].nunique()
    return {
        "n_experts": int(experts[USER].nunique()),
        "single_expert_tasks": int((per_task == 1).sum()),
        "n_tasks": int(len(per_task)),
    }


def paper_slips(
    *,
    cm_rnd_pct: float,
    cm_rnd_n: int,
    cm_n: int,
    cm_low_pct: float,
    low_paper_density: float,
    low_paper_total: float,
    low_n: int,
    p_jobsecurity: float,
    n_experts: int,
    single_expert_tasks: int,
    n_expert_tasks: int,
    expert_h5_n: int,
    worker_h5_n: int,
) -> pd.DataFrame:
    """The slip table shown in the chapter: slip, paper, data, evidence."""
    rows = [
        (
            "Computer & Mathematical, R&D Opportunity share (Fig 5a)",
            "13.3%",  # verbatim: the label the paper prints
            percent(cm_rnd_pct, 2),
            f"{cm_rnd_n} of the sector's {cm_n} landscape tasks are in R&D Opportunity; the printed '13.3%' "  # verbatim
            f"would need {round(0.133 * cm_n)} tasks ({round(0.133 * cm_n)}/{cm_n} = "
            f"{percent(100 * round(0.133 * cm_n) / cm_n, 2)})"
            + (
                f", which is the sector's Low-Priority share ({percent(cm_low_pct, 2)}): the label looks swapped"
                if round(cm_low_pct, 1) == 13.3
                else ""
            )
            + ". The authors' notebook prints the data value.",
        ),
        (
            "Low Priority arXiv-paper density (Fig 5c)",
            "118.08 papers/task",
            f"{low_paper_density:.2f} papers/task",
            f"{low_paper_total:,.0f} paper mappings over {low_n} Low-Priority tasks; one digit differs.",
        ),
        (
            "p-value bounds (§3.2)",
            "p<5e-11 (desire vs job security)",
            f"p = {p_jobsecurity:.3g}",
            f"The paper truncates the mantissa ({format_p_truncated(p_jobsecurity)}), which gives a bound the "
            f"exact p exceeds; a true bound rounds up (p<6e-11).",
        ),
        (
            "Number of AI experts (§2)",
            "52",
            f"{n_experts}",
            f"{n_experts} distinct expert IDs in expert_rated_technological_capability.csv.",
        ),
        (
            "At least two experts per task (§2)",
            ">= 2 experts per task",
            f"{single_expert_tasks} tasks with one",
            f"{single_expert_tasks} of {n_expert_tasks} expert-rated tasks have a single distinct expert.",
        ),
        (
            "Expert H5 task set in the radar (Fig 6d, authors' code)",
            "expert profile drawn on the worker H5 set",
            f"expert H5 set = {expert_h5_n} tasks",
            f"The authors' code reused the {worker_h5_n} worker-H5 tasks "
            f"for the expert profile; the experts' own H5 set has {expert_h5_n} tasks (both shown in the radar).",
        ),
    ]
    return pd.DataFrame(rows, columns=["slip", "paper", "data", "evidence"])
