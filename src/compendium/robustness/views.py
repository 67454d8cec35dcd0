"""The display copies of the robustness chapter's tables: columns chosen and named for the page.

Each function takes a table of the result (:class:`.build.RobustnessResult`) and returns a new frame; the
written CSVs (``results/robustness/tables/``) keep the full columns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .findings import split_pwb
from .sweeps import DEFAULT_SCHEME, PAPER_CUTOFF, PAPER_TIE_RULE, PAPER_TIE_WEIGHT, ZONE_LABELS

if TYPE_CHECKING:
    from .build import Grids

__all__ = ["grids_view", "zones_view", "has_view", "pwb_view", "bt_view", "findings_view"]


def _grid(xs) -> str:
    return ", ".join(f"{x:g}" if isinstance(x, float) else str(x) for x in xs)


def grids_view(grids: Grids, n_random: int, concentration: float) -> pd.DataFrame:
    """The grids of this build, one row per analysis choice (the chapter's first table); ``n_random`` random
    PWB weight schemes of Dirichlet ``concentration``."""
    g = grids
    return pd.DataFrame(
        [
            ("WORKBank", "zone cut-off (both axes)", "zone_cutoffs", _grid(g.cutoffs), f"{PAPER_CUTOFF:g}"),
            (
                "WORKBank",
                "mean on the cut-off counts as",
                "zone_boundaries",
                _grid(g.boundaries).replace("ge", "high (ge)").replace("gt", "low (gt)"),
                "high (ge)",
            ),
            ("WORKBank", "HAS tie rule (workers × experts)", "has_tie_rules", _grid(g.tie_rules), PAPER_TIE_RULE),
            ("PWB", "scheme (fixed)", "", "v2.1, equal, v2.0", "v2.1"),
            ("PWB", "CF-heavy: weight of cognitive forcing", "pwb_cf_heavy_weights", _grid(g.cf_weights), ""),
            ("PWB", "restore: weight of UT and AR_d", "pwb_restore_weights", _grid(g.restore_weights), ""),
            (
                "PWB",
                "random weights around v2.1",
                "pwb_random_schemes, pwb_random_concentration",
                f"{n_random} draws, concentration {concentration:g}",
                "",
            ),
            (
                "Preferences",
                "tie credited to each side (w)",
                "bt_tie_weights",
                _grid(g.tie_weights) + "; Davidson model",
                f"{PAPER_TIE_WEIGHT:g}",
            ),
        ],
        columns=["study", "choice", "params.yaml key (robustness.)", "grid", "paper"],
    )


def zones_view(zones: pd.DataFrame) -> pd.DataFrame:
    """Tasks per zone at every setting, named for the page."""
    view = zones.assign(
        cutoff=zones["cutoff"].map("{:g}".format),
        boundary=zones["boundary"].map({"ge": "high", "gt": "low"}),
        largest_zone=zones["largest_zone"].map(lambda s: " = ".join(ZONE_LABELS[z] for z in s.split("="))),
        setting=np.where(zones["reference"], "paper", ""),
    )
    cols = ["cutoff", "boundary", "green", "red", "rnd", "low", "largest_zone", "red_minus_rnd", "setting"]
    return view[cols].rename(
        columns={
            "boundary": "mean on cut-off",
            "green": "Green Light",
            "red": "Red Light",
            "rnd": "R&D Opp.",
            "low": "Low Priority",
            "largest_zone": "largest zone",
            "red_minus_rnd": "Red − R&D",
        }
    )


def has_view(has: pd.DataFrame, untied: Mapping) -> pd.DataFrame:
    """The HAS tie-rule grid with the untied-tasks row, named for the page."""
    hv = has.assign(
        setting=np.where(has["reference"], "paper", ""),
        random_range=[
            f"{a:.1f}–{b:.1f}" if a != b else ""
            for a, b in zip(has["workers_more_lo"], has["workers_more_hi"], strict=True)
        ],
    )
    extra = pd.DataFrame(
        [
            {
                "worker_rule": "(untied tasks only)",
                "expert_rule": f"n = {untied['n_tasks']}",
                "diagonal": untied["diagonal"],
                "workers_more": untied["workers_more"],
                "experts_more": untied["experts_more"],
                "margin": untied["workers_more"] - untied["experts_more"],
                "random_range": "",
                "setting": "",
            }
        ]
    )
    hv = pd.concat([hv, extra], ignore_index=True)
    cols = [
        "worker_rule",
        "expert_rule",
        "diagonal",
        "workers_more",
        "experts_more",
        "margin",
        "random_range",
        "setting",
    ]
    return hv[cols].rename(
        columns={
            "worker_rule": "workers' rule",
            "expert_rule": "experts' rule",
            "diagonal": "same level %",
            "workers_more": "workers want more %",
            "experts_more": "experts want more %",
            "margin": "difference (pp)",
            "random_range": "95 % of random draws",
        }
    )


def pwb_view(pwb: pd.DataFrame) -> pd.DataFrame:
    """The PWB findings under each named weight scheme, named for the page."""
    named = split_pwb(pwb)[0]
    yes_no = {True: "yes", False: "no"}
    pv = named.assign(
        setting=np.where(named["scheme"] == DEFAULT_SCHEME, "paper (v2.1)", ""),
        all_gain=named["all_gain"].map(yes_no),
        top3_stable=named["top3_stable"].map(yes_no),
    )
    cols = [
        "scheme",
        "kendall_tau",
        "max_dev",
        "min_delta",
        "mean_delta",
        "all_gain",
        "top_model",
        "glm_lead",
        "top3_stable",
        "setting",
    ]
    return pv[cols].rename(
        columns={
            "kendall_tau": "Kendall τ",
            "max_dev": "max |ΔPWI vs v2.1|",
            "min_delta": "smallest gain",
            "mean_delta": "mean gain",
            "all_gain": "all gain?",
            "top_model": "top prompted model",
            "glm_lead": "GLM 5.1 lead",
            "top3_stable": "same top 3?",
        }
    )


def bt_view(bt: pd.DataFrame, models: Sequence[str], labels: Mapping[str, str]) -> pd.DataFrame:
    """Bradley-Terry strengths under each tie convention, named for the page."""
    bv = bt.assign(
        setting=np.where(bt["reference"], "paper", ""),
        same=bt["same_ranking_as_published"].map({True: "yes", False: "no"}),
        cd=np.exp(bt["log_c_over_d"]),
    )
    cols = ["convention", *models, "ranking", "same", "rho_val_pref_acc", "cd", "setting"]
    return bv[cols].rename(
        columns={
            **labels,
            "same": "same ranking?",
            "rho_val_pref_acc": "ρ vs val_pref_acc",
            "cd": "C / D strength ratio",
        }
    )


def findings_view(found: pd.DataFrame) -> pd.DataFrame:
    """The summary table for the page (a finding that holds everywhere in bold)."""
    from compendium.chapter.safetext import myst

    sv = found.assign(verdict=[str(myst(v)).replace("yes", "**yes**") for v in found["verdict"]])
    cols = ["study", "finding", "settings", "verdict", "measure", "paper_setting", "range", "how_sure"]
    out = sv[cols].rename(
        columns={
            "settings": "swept over",
            "verdict": "holds under all settings?",
            "paper_setting": "paper's setting",
            "range": "range over the settings",
            "how_sure": "how sure is this?",
        }
    )
    out.attrs["markup"] = ["holds under all settings?"]  # escaped above, bold added (compendium.chapter.display.table)
    return out
