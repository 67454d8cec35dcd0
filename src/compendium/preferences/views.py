"""How the preferences chapter displays its tables: display names of columns, formats and model labels.

Display only: the CSVs under ``results/preferences/tables`` (:func:`compendium.preferences.values.tables`) keep
the data and its code names. :data:`VIEWS` holds the keyword arguments of :func:`compendium.chapter.display.table`
for each displayed table; :func:`bootstrap_view`, :func:`c_vs_d_view` and :func:`claims_view` build the views that
depend on a parameter or on two results.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from compendium.chapter import numbers

from .reproduce import MODEL_LABELS

__all__ = ["COLUMNS", "VIEWS", "bootstrap_view", "c_vs_d_view", "claims_view"]

#: display names of the chapter's table columns (display only; the CSVs keep the code names)
COLUMNS = {
    "higher_val_model": "metric's favourite",
    "lower_val_model": "other",
    "higher_val_wins": "wins",
    "lower_val_wins": "losses",
    "higher_val_win_rate": "win rate",
    "wilson_lo": "Wilson low",
    "wilson_hi": "Wilson high",
    "delta_val_pref_acc": "Δ metric",
    "sd_log_strength": "bootstrap SD (log)",
    "asymptotic_se_log": "asymptotic SE (log)",
    "p_best": "P(best)",
    "mean_rank": "mean rank",
    "share_of_assigned": "share",
    "bt_half_win": "BT (tie = half win)",
    "bt_rank": "rank",
    "davidson": "Davidson",
    "davidson_rank": "rank ",
    "centred_mu_mean": "centred μ",
    "centred_mu_sd_over_orders": "SD over orders",
    "mu_sd_over_orders": "raw μ SD",
    "sigma_mean": "mean σ",
    "p_top": "P(top)",
    "log_gap": "log(π_C/π_D)",
    "ratio_to_estimate": "× estimate",
    "n_needed": "decisive judgements needed",
    "n_mc_interval": "90 % Monte Carlo interval",
    "share_of_bootstrap_gaps_below": "share of bootstrap gaps below",
    "published_procedure": "published procedure",
    "mm_converged": "MM converged",
    "abs_diff_procedure_vs_choix": "|procedure − choix|",
    "abs_diff_converged_vs_choix": "|converged − choix|",
}

_LABELS = {"model": MODEL_LABELS}

#: how each table of the chapter is displayed: keyword arguments of :func:`compendium.chapter.display.table`, which
#: applies them in this order: ``columns`` kept, ``rename`` (code -> display names), ``formats`` (by display
#: name), ``labels`` (model ids -> names, by display name). Display only: the CSVs keep the data
VIEWS: dict[str, dict[str, Any]] = {
    "counts": {
        "columns": ["model_x", "model_y", "x_wins", "y_wins", "ties", "n"],
        "labels": {"model_x": MODEL_LABELS, "model_y": MODEL_LABELS},
    },
    "pairs": {
        "columns": [
            "higher_val_model",
            "lower_val_model",
            "higher_val_wins",
            "lower_val_wins",
            "ties",
            "n",
            "higher_val_win_rate",
            "wilson_lo",
            "wilson_hi",
            "delta_val_pref_acc",
            "signal",
        ],
        "rename": COLUMNS,
        "labels": {"metric's favourite": MODEL_LABELS, "other": MODEL_LABELS},
    },
    "record": {"labels": _LABELS},
    "crosscheck": {
        "columns": [
            "model",
            "published_procedure",
            "mm_converged",
            "choix",
            "abs_diff_procedure_vs_choix",
            "abs_diff_converged_vs_choix",
        ],
        "rename": COLUMNS,
        "labels": _LABELS,
        "formats": {
            "published procedure": "{:.10f}",
            "MM converged": "{:.10f}",
            "choix": "{:.10f}",
            "|procedure − choix|": numbers.difference,
            "|converged − choix|": numbers.difference,
        },
    },
    "themes": {"columns": ["label", "count", "share_of_assigned", "example_quote"], "rename": COLUMNS},
    "bootstrap": {"rename": COLUMNS, "labels": _LABELS},  # bootstrap_view adds the level to ci_lo / ci_hi
    "davidson": {"rename": COLUMNS, "labels": _LABELS},
    "trueskill": {
        "columns": [
            "environment",
            "model",
            "centred_mu_mean",
            "centred_mu_sd_over_orders",
            "mu_sd_over_orders",
            "sigma_mean",
            "p_top",
            "mean_rank",
        ],
        "rename": COLUMNS,
        "labels": _LABELS,
    },
    "gap": {"rename": COLUMNS, "formats": {"decisive judgements needed": "{:,.0f}"}},
}


def bootstrap_view(ci_level: float) -> dict[str, Any]:
    """:data:`VIEWS` entry of the bootstrap tables, with the interval level in the names of its bounds."""
    v = VIEWS["bootstrap"]
    return v | {
        "rename": v["rename"] | {"ci_lo": f"{numbers.share(ci_level)} low", "ci_hi": f"{numbers.share(ci_level)} high"}
    }


def c_vs_d_view(cd: Mapping[str, Any], h2h: Mapping[str, Any], ci_level: float) -> tuple[pd.DataFrame, str]:
    """The C-vs-D table for display and the end of its caption (which says whether the two agree)."""
    view = pd.DataFrame(
        {
            "quantity": [
                "log(π_C / π_D), pooled fit",
                f"{numbers.share(ci_level)} bootstrap interval",
                "P(π_C > π_D) over replicates",
                "head to head, D–C (ties)",
                "D's win rate, Wilson 95 %",
                "exact binomial p (50 %)",
            ],
            "value": [
                f"{cd['log_ratio']:+.3f}",
                f"[{cd['ci_lo']:+.3f}, {cd['ci_hi']:+.3f}]",
                f"{cd['p_greater']:.3f}",
                f"{h2h['wins']}–{h2h['losses']} ({h2h['ties']})",
                f"{h2h['win_rate']:.3f} [{h2h['wilson_lo']:.3f}, {h2h['wilson_hi']:.3f}]",
                f"{h2h['binom_p']:.3f}",
            ],
        }
    )
    tail = ("opposite directions" if (cd["log_ratio"] > 0) == (h2h["win_rate"] > 0.5) else "the same direction") + (
        "; neither interval excludes equality."
        if not cd["separable"] and h2h["wilson_lo"] < 0.5 < h2h["wilson_hi"]
        else "; read the intervals for whether equality is excluded."
    )
    return view, tail


def claims_view(claims_tbl: pd.DataFrame) -> pd.DataFrame:
    """The claims-check table for display: ✓ / ✗ / — and our value to 6 significant digits."""

    def ours(v):
        return "" if v is None else f"{v:.6g}" if isinstance(v, float) else str(v)

    view = claims_tbl.assign(
        agrees=claims_tbl["agrees"].map({True: "✓ yes", False: "✗ no"}).fillna("— empty"),
        ours=claims_tbl["ours"].map(ours),
        published=claims_tbl["published"].map(str),
    )
    return view[["claim_id", "level", "published", "ours", "tol", "agrees", "missing"]]
