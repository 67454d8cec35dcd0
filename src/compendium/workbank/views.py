"""The display copies of the WORKBank chapter's numbered tables: which columns, in which order, under which names
(:func:`display_table`), and how their numbers are printed (:data:`FORMATS`, for
:func:`compendium.chapter.display.table`). Nothing here changes a result: the CSVs of ``results/workbank/tables/``
are :func:`.values.tables`'; these are the page's copies of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd

from .common import ZONES
from .summary import ALPHAS

__all__ = ["FORMATS", "DISPLAY", "display_table"]

#: number formats of the displayed tables (compendium.chapter.display.table(..., formats=FORMATS[name]))
FORMATS: dict[str, dict[str, str]] = {
    "wb_tbl_top20": {"mean_desire": "{:.2f}"},
    "wb_tbl_bottom20": {"mean_desire": "{:.2f}"},
    "wb_tbl_corr": {"p": "{:.3g}"},
    "wb_tbl_zones_sector": {z: "{:.1f}" for z in ZONES},
    "wb_tbl_jsd": {"jsd": "{:.3f}"},
    "wb_tbl_we": {"rho": "{:.3f}", "p": "{:.2g}", "ci_low": "{:.3f}", "ci_high": "{:.3f}"},
    "wb_tbl_skills": {"mean_wage": "{:,.0f}", "mean_has": "{:.2f}"},
    "wb_tbl_mixed": {c: "{:.3f}" for c in ("coef", "se", "z", "ci_low", "ci_high")} | {"p": "{:.2g}"},
    "wb_tbl_alpha": {"α (authors: every row)": "{:.3f}", "α (repeated rows dropped)": "{:.3f}"},
    "wb_tbl_density": {"total": "{:,.0f}", "density": "{:.2f}", "share_of_total": "{:.1f}"},
    "wb_tbl_claude": {"mean_desire": "{:.2f}", "usage_pct": "{:.3f}"},
    "wb_tbl_raking_sectors": {c: "{:.1f}" for c in ("% of the workers", "% raked", "% of US employment")},
    "wb_tbl_raking": {
        "% tasks desire > 3": "{:.1f}",
        "% ≥ 3": "{:.1f}",
        "% > 3, ties half": "{:.1f}",
        "mean desire": "{:.3f}",
        "design effect": "{:.2f}",
        "effective n": "{:.0f}",
        "max weight": "{:.2f}",
        "min weight": "{:.2f}",
    },
}

RAKING_COLUMNS = {
    "n_workers": "workers",
    "share_gt_cutoff": "% tasks desire > 3",
    "share_ge_cutoff": "% ≥ 3",
    "share_mid": "% > 3, ties half",
    "mean_of_task_means": "mean desire",
    "design_effect": "design effect",
    "effective_n": "effective n",
    "max_weight": "max weight",
    "min_weight": "min weight",
}

SECTOR_MIX_COLUMNS = {
    "n_workers": "workers",
    "sample_pct": "% of the workers",
    "raked_pct": "% raked",
    "bls_pct": "% of US employment",
}


def _alpha_table(t, v) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "ratings": k.replace("_", " "),
                "α (authors: every row)": v[f"wb.alpha.{k}"],
                "α (repeated rows dropped)": v[f"wb.alpha.{k}.variant.dedup_rows"],
            }
            for k in ALPHAS
        ]
    )


def _density_table(t, v) -> pd.DataFrame:
    dens = pd.concat([t["yc_density"].assign(source="YC companies"), t["arxiv_density"].assign(source="arXiv papers")])
    cols = ["source", "zone", "n_tasks", "n_mapped", "total", "density", "share_of_total"]
    return dens[dens["join"] == "task"][cols].reset_index(drop=True)


def _copy(name: str) -> Callable:
    return lambda t, v: t[name].copy()


#: display table -> ``f(tables, values)`` building its display copy
DISPLAY: dict[str, Callable] = {
    "wb_tbl_top20": _copy("top20_desire"),
    "wb_tbl_bottom20": _copy("bottom20_desire"),
    "wb_tbl_corr": lambda t, v: t["correlations"][
        ["pair", "rho", "ci_low", "ci_high", "n_tasks", "p", "paper_style_bound"]
    ].copy(),
    "wb_tbl_zones_sector": _copy("zones_by_sector"),
    "wb_tbl_jsd": _copy("has_jsd_top10"),
    "wb_tbl_we": lambda t, v: t["has_worker_vs_expert"][["measure", "rho", "ci_low", "ci_high", "p", "n_tasks"]].copy(),
    "wb_tbl_skills": lambda t, v: t["skill_ranks"].merge(t["skill_wage_coverage"], on="skill", how="left")[
        ["skill", "n_tasks", "n_with_wage", "mean_wage", "wage_rank", "mean_has", "has_rank"]
    ],
    "wb_tbl_mixed": lambda t, v: t["mixed_model_coefficients"][t["mixed_model_coefficients"]["p"] < 0.05].copy(),
    "wb_tbl_alpha": _alpha_table,
    "wb_tbl_density": _density_table,
    "wb_tbl_claude": _copy("claude_top10"),
    "wb_tbl_slips": _copy("paper_slips"),
    "wb_tbl_raking": lambda t, v: t["raking_variants"][["variant", *RAKING_COLUMNS]].rename(columns=RAKING_COLUMNS),
    "wb_tbl_mapping": _copy("raking_category_map"),
    "wb_tbl_raking_sectors": lambda t, v: t["raking_sector_mix"][["sector", *SECTOR_MIX_COLUMNS]].rename(
        columns=SECTOR_MIX_COLUMNS
    ),
    "wb_tbl_register": _copy("register_summary"),
}


def display_table(name: str, tables: Mapping[str, pd.DataFrame], values: Mapping) -> pd.DataFrame:
    """The display copy of the chapter's table ``name`` (``wb_tbl_*``): columns chosen, ordered and named
    for the page, index as columns. Print it with ``compendium.chapter.display.table(df, label, caption,
    formats=FORMATS.get(name))``.
    """
    if name not in DISPLAY:
        raise KeyError(f"no display table {name!r} in the WORKBank chapter")
    return DISPLAY[name](tables, values)
