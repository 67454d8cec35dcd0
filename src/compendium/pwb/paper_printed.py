"""Numbers as printed in the paper and the authors' repository, quoted -- never used as inputs.

Nothing in the pipeline computes from these values. They exist only so that the chapter can put a
printed number beside the number the data give, where the two disagree or where a claim has no entry
in ``published/pwb.yaml`` (which remains the target file of the claims stage). Source of every
quotation: the paper's LaTeX source ``paper/pro_worker_benchmark.tex`` in GitHub
``angelo-leone/pro-worker-benchmark`` at commit b8628f5 (the commit the data come from; its Table 2
matches ``published/pwb.yaml``), and ``LEADERBOARD.md`` at commit 0ead8f1 of the same repository.
"""

from __future__ import annotations

import pandas as pd

from .constants import DIMENSIONS

SOURCE_TEX = "paper/pro_worker_benchmark.tex @ b8628f5 (GitHub angelo-leone/pro-worker-benchmark)"
SOURCE_LEADERBOARD = "LEADERBOARD.md @ 0ead8f1 (GitHub angelo-leone/pro-worker-benchmark)"

_STALE_DIMS = list(DIMENSIONS)  # the table's columns, in the authors' order

#: Appendix "Per-model dimension breakdowns", table tab:permodel_prompted (prompted condition, 0-3).
_STALE_ROWS = {
    "GLM 5.1": [2.48, 1.85, 2.31, 1.42, 2.25, 2.78, 2.95, 2.10, 1.35, 2.92],
    "Gemma 4 31B": [1.92, 1.80, 2.15, 1.25, 2.10, 2.35, 2.90, 1.95, 1.15, 2.88],
    "DeepSeek V3.2": [1.85, 1.72, 2.05, 1.18, 2.15, 2.30, 2.85, 1.88, 1.10, 2.82],
    "GPT-oss 120B": [1.55, 1.65, 1.98, 1.05, 1.95, 2.08, 2.82, 1.78, 1.02, 2.78],
    "Nemotron-Cascade 30B": [1.48, 1.58, 1.92, 0.98, 1.88, 1.95, 2.85, 1.72, 0.95, 2.80],
    "Qwen3.5 27B": [1.40, 1.62, 1.95, 0.95, 1.82, 1.88, 2.88, 1.68, 0.98, 2.82],
    "Devstral-2 123B": [1.30, 1.68, 2.12, 1.02, 2.08, 1.98, 2.92, 1.82, 1.15, 2.85],
}


def stale_appendix_table() -> pd.DataFrame:
    """The appendix table of per-model prompted scores as printed (models x dimensions)."""
    return pd.DataFrame(_STALE_ROWS, index=_STALE_DIMS).T.rename_axis("model")


#: Appendix F, table tab:sensitivity, as printed.
SENSITIVITY_TABLE = pd.DataFrame(
    {
        "scheme": ["default", "equal", "cf_heavy", "restore_ut_ar", "v2_0"],
        "kendall_tau": [1.000, 0.619, 0.905, 0.905, 0.905],
        "max_dev": [0.0, 6.5, 5.6, 6.8, 5.8],
        "min_delta": [24.1, 25.1, 22.8, 25.4, 24.6],
        "top3_stable": [True, True, True, True, True],
    }
)

#: Table 2 (tab:pwi_results), d_pooled column, as printed.
D_POOLED_TABLE2 = {
    "GLM 5.1": 1.30,
    "Gemma 4 31B": 0.59,
    "DeepSeek V3.2": 0.95,
    "GPT-oss 120B": 0.63,
    "Nemotron-Cascade 30B": 0.79,
    "Devstral-2 123B": 0.85,
    "Qwen3.5 27B": 0.75,
}

#: Places where the paper states a number that the data or another place in the paper contradicts.
#: Each: where, quote, printed value(s).
INCONSISTENCIES = [
    {
        "topic": "UT exact agreement",
        "where": "Sec. 4.3 'Inter-rater reliability'",
        "quote": "IRR ranges from 79.1% (anti-sycophancy) to 15.0% (uncertainty transparency); ... two fall below "
        "20% (uncertainty transparency 15.0%, appropriate reliance 18.7%)",
        "printed": {"uncertainty_transparency": 15.0, "appropriate_reliance": 18.7, "anti_sycophancy": 79.1},
    },
    {
        "topic": "UT exact agreement",
        "where": "Table 1 caption; Sec. 3.4; Sec. 6.3; Appendix IRR table",
        "quote": "uncertainty transparency (exact three-judge agreement 14.0%) and appropriate reliance (18.6%)",
        "printed": {"uncertainty_transparency": 14.0, "appropriate_reliance": 18.6, "anti_sycophancy": 79.4},
    },
    {
        "topic": "restore UT + AR_d minimum delta",
        "where": "Sec. 6.3",
        "quote": "Restoring them at their evidence-tier weights ... leaving every model with a delta of at least "
        "+24.8 PWI points against +24.1 under the default",
        "printed": {"restore_ut_ar": 24.8, "default": 24.1},
    },
    {
        "topic": "restore UT + AR_d minimum delta",
        "where": "Appendix C.1 (mitigation of low-IRR dimensions)",
        "quote": "restoring them to their evidence-tier weights leaves every model with a prompted-baseline delta of "
        "at least +24.8 points, and the eleven-weight v2.0 scheme leaves at least +24.6, against +23.5 "
        "under the default",
        "printed": {"restore_ut_ar": 24.8, "v2_0": 24.6, "default": 23.5},
    },
    {
        "topic": "restore UT + AR_d minimum delta",
        "where": "Appendix F, sensitivity table",
        "quote": "Restore UT + AR_d ... +25.4; Default (v2.1) ... +24.1",
        "printed": {"restore_ut_ar": 25.4, "default": 24.1},
    },
    {
        "topic": "d range",
        "where": "Abstract; Sec. 1; Sec. 6.4; Table 2",
        "quote": "Cohen's d = 0.59-1.30",
        "printed": {"min": 0.59, "max": 1.30, "GPT-oss 120B": 0.63, "GLM 5.1": 1.30},
    },
    {
        "topic": "d range",
        "where": "Appendix G, Figure 'System-prompt effect by model' caption",
        "quote": "All models achieve p < 10^-39, with effect sizes from medium (d = 0.44, GPT-oss) to large (d = 1.08, GLM)",
        "printed": {"min": 0.44, "max": 1.08, "GPT-oss 120B": 0.44, "GLM 5.1": 1.08},
    },
    {
        "topic": "Layer-1 pooled effect",
        "where": "Sec. 5.4 'Statistical significance'",
        "quote": "Layer 1 (N = 6,972 paired observations) ... pooled t = 54.11, d = 0.65",
        "printed": {"n_pairs": 6972, "t": 54.11, "d": 0.65},
    },
    {
        "topic": "d definition",
        "where": "Appendix 'Statistical methodology details'",
        "quote": "s_pooled is the pooled standard deviation across all prompt-level PWI scores in both conditions",
        "printed": {},
    },
    {
        "topic": "HDI method",
        "where": "Appendix 'Statistical methodology details'",
        "quote": "a Beta distribution is fitted to the normalized scores ... using moment matching",
        "printed": {},
    },
    {
        "topic": "data completeness",
        "where": "Appendix 'Data completeness'",
        "quote": "Of 14,000 Layer-1 runs ... 13,961 carry a panel median (99.72%); per-dimension completeness ranges "
        "from 99.21% (complementarity) to 100.0% (uncertainty transparency). Of the scored runs, 13,672 carry "
        "all three judge scores and 289 carry two",
        "printed": {"scored": 13961, "min_share": 99.21, "max_share": 100.0, "three_judges": 13672, "two_judges": 289},
    },
]

#: Validation numbers printed in Appendix C.1 (not in published/pwb.yaml).
PILOT_PRINTED = {
    "exact": 56.7,
    "adjacent": 86.7,
    "mad": 0.60,
    "qwk": 0.702,
    "low_irr_n": 12,
    "low_irr_exact": 50.0,
    "low_irr_adjacent": 83.3,
}
FOURTH_JUDGE_PRINTED = {
    "n": 500,
    "exact": 66.8,
    "adjacent": 96.8,
    "qwk": 0.840,
    "qwk_metacognitive_calibration": 0.51,
    "qwk_uncertainty_transparency": 0.58,
}

#: The public v2.0 leaderboard (point PWIs under the v2.0 weights), as printed in LEADERBOARD.md.
LEADERBOARD_V2_0 = pd.DataFrame(
    {
        "model": [
            "GLM 5.1",
            "Gemma 4 31B",
            "DeepSeek V3.2",
            "GPT-oss 120B",
            "Nemotron-Cascade 30B",
            "Qwen3.5 27B",
            "Devstral-2 123B",
        ],
        "baseline": [36.0, 39.2, 29.1, 27.8, 32.4, 32.5, 25.4],
        "prompted": [82.3, 71.4, 69.6, 61.9, 58.5, 57.1, 56.9],
        "delta": [46.2, 32.2, 40.5, 34.0, 26.1, 24.6, 31.4],
    }
)

#: Smaller printed numbers the chapter checks against the data (``SOURCE_TEX``): the DeepSeek ΔPWI of
#: Table 2, the scored Layer-1 runs and per-dimension completeness of Appendix A, the paired N and the
#: paired t of Sec. 5.4 (t / sqrt(N) is the paired d_z the figure caption's d range may come from).
SMALLER_PRINTED = {
    "deepseek_delta_pwi": 42.4,
    "scored_layer1_runs": 13961,
    "completeness_min_pct": 99.21,
    "completeness_max_pct": 100.0,
    "paired_n": 6972,
    "paired_t": 54.11,
}
