"""Does each headline finding hold at every setting of its sweep? A pure function of the sweep results.

:func:`findings` is the chapter's summary table (``results/robustness/tables/summary.csv``): one
:func:`finding_row` per finding (does it hold at every setting, the range of the number behind it, its value
at the paper's setting) with a "how sure is this?" note (:func:`how_sure_notes`) from the resampling checks
of :mod:`.sampling`. Nothing here phrases prose (that is :mod:`.summary`) or computes a sweep (:mod:`.sweeps`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from compendium.chapter.numbers import share

from .sampling import share_text
from .sweeps import DEFAULT_SCHEME

__all__ = [
    "TOP_MODEL",
    "finding_row",
    "split_has",
    "split_pwb",
    "untied_flags",
    "how_sure_notes",
    "pwb_gain_ci_text",
    "findings",
    "headline_findings",
]

#: the PWB model whose first place is a headline finding
TOP_MODEL = "GLM 5.1"


def finding_row(
    key: str,
    study: str,
    finding: str,
    holds,
    values,
    fmt: str = "{:.1f}",
    settings: str = "",
    measure: str = "",
    reference_value: float | None = None,
    how_sure: str = "",
    headline: str | None = None,
    bound: bool = False,
) -> dict:
    """One row of the summary table: does ``finding`` hold at every setting, and the range of its number.

    ``holds``: one bool per setting; ``values``: the quantity behind the finding at each setting
    (same length). Returns ``key, study, finding, settings, n_settings, n_hold, holds_all, verdict``
    (``"yes (n/n)"`` or ``"no (k/n)"``), ``measure`` (what ``values`` are), ``min, max, range``
    (formatted with ``fmt``), ``paper_setting`` (``reference_value`` formatted; empty if None),
    ``how_sure``: what else was checked (a resampling of the data, a count of comparisons) and what
    would overturn the finding (a sweep alone varies only the analysis choice); and how the row counts among the
    headline findings (:func:`headline_findings`): ``headline``, the key of the finding it tests (``key`` itself
    unless the row re-runs another row's finding under a second family of settings), and ``bound``, True for a
    row shown for completeness that tests no finding of its own (the mixed tie rules' lopsided bound).
    """
    h = np.asarray(list(holds), dtype=bool)
    v = np.asarray(list(values), dtype=float)
    if h.size == 0:
        raise ValueError(f"finding_row {key!r}: no settings")
    if h.shape != v.shape:
        raise ValueError(f"finding_row {key!r}: {h.size} holds flags but {v.size} values")
    if np.isnan(v).any():
        raise ValueError(f"finding_row {key!r}: values contain NaN")
    n, k = int(h.size), int(h.sum())
    lo, hi = float(v.min()), float(v.max())
    return {
        "key": key,
        "study": study,
        "finding": finding,
        "settings": settings,
        "n_settings": n,
        "n_hold": k,
        "holds_all": bool(k == n),
        "verdict": f"{'yes' if k == n else 'no'} ({k}/{n})",
        "measure": measure,
        "min": lo,
        "max": hi,
        "range": f"{fmt.format(lo)} to {fmt.format(hi)}",
        "paper_setting": "" if reference_value is None else fmt.format(reference_value),
        "how_sure": how_sure,
        "headline": headline or key,
        "bound": bool(bound),
    }


def split_has(has: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series]:
    """The HAS sweep's rows with one rule for both sides, with mixed rules, and the paper's row."""
    return has[has["same_rule"]], has[~has["same_rule"]], has[has["reference"]].iloc[0]


def split_pwb(pwb: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series]:
    """The PWB sweep's named schemes, random schemes, and the v2.1 row."""
    return (
        pwb[pwb["family"] != "random"],
        pwb[pwb["family"] == "random"],
        pwb.set_index("scheme").loc[DEFAULT_SCHEME],
    )


def untied_flags(same: pd.DataFrame, untied: Mapping) -> tuple[list, list]:
    """ "Workers want more agency" under each symmetric tie rule and on the untied tasks: (holds, margins)."""
    holds = list(same["workers_more_exceeds"]) + [untied["workers_more"] > untied["experts_more"]]
    margins = list(same["margin"]) + [untied["workers_more"] - untied["experts_more"]]
    return holds, margins


def pwb_gain_ci_text(ps: Mapping) -> str:
    """What the PWB's printed intervals say about "every model gains" (:func:`.sampling.pwb_gain_intervals`),
    one clause: the models whose prompted interval lies wholly above their baseline one, and the smallest gap."""
    n, k, gap = int(ps["pwb_ci_models"]), int(ps["pwb_ci_separated"]), float(ps["pwb_ci_min_gap"])
    who = f"all {n} models" if k == n else f"{k} of the {n} models"
    return (f"for {who} the prompted interval lies wholly above the baseline one (the smallest gap between them "
            f"{gap:+.1f} points)")  # fmt: skip


def how_sure_notes(has: pd.DataFrame, pwb: pd.DataFrame, zs: Mapping, bs: Mapping, ps: Mapping) -> dict[str, str]:
    """The "how sure is this?" note of each finding, by key: what the resampling checks ``zs``
    (:func:`~compendium.robustness.sampling.zone_sampling_check`) and ``bs``
    (:func:`~compendium.robustness.sampling.bt_sampling_check` with
    :func:`~compendium.robustness.sampling.c_beats_d_shares`) and the PWB's printed intervals ``ps``
    (:func:`~compendium.robustness.sampling.pwb_gain_intervals`) found, and what would overturn the finding."""
    ref_h = split_has(has)[2]
    named, _, ref_p = split_pwb(pwb)
    nz, nb = int(zs["n_draws"]), int(bs["n_boot"])

    def zshare(key: str) -> str:  # a share of the rater resamples, to the digits its Monte Carlo error supports
        return share_text(zs[key], nz)

    def bshare(key: str) -> str:  # a share of the preference resamples, likewise
        return share_text(bs[key], nb)

    ties = f"{bs['ties_per_model_min']}-{bs['ties_per_model_max']}"
    gain_ci = pwb_gain_ci_text(ps)
    weightings = "Random weights around v2.1; shares are over weightings, not a sampling interval."
    return {
        "wb_green_largest": f"Fragile to the cut-off, not to sampling: at 3.0 Green is largest in "
        f"{zshare('p_green_largest')} of rater-cluster resamples, and in "
        f"{zshare('p_green_largest_experts_only')} when only the expert panel is resampled. Overturned by a "
        "cut-off above 3.",
        "wb_red_gt_rnd": f"Holds at every cut-off and in {zshare('p_red_gt_rnd')} of rater-cluster resamples at 3.0. "
        "Overturned by a sweep setting or resample with R&D ≥ Red; none found.",
        "wb_workers_more_same_rule": "Direction holds for every symmetric tie rule and on untied tasks; the size (the "
        f"paper's {ref_h['workers_more']:.1f} %) is the top of the symmetric range. No "
        "sampling interval computed (ranges are over rules and random tie-breaks of the "
        "same data). Overturned by a symmetric rule with experts wanting more.",
        "wb_workers_more_any_rule": "Mixed rules are lopsided bounds, shown for completeness; a 'no' here is expected "
        "and is not evidence against the finding.",
        "pwb_all_gain": "Over weightings of fixed released scores; the run-level data to resample are on the "
        "Hugging Face hub, not bundled here. Sampling, as far as the paper's printed 95 % intervals go (they treat "
        f"the runs as independent, with no judge term): {gain_ci}. Overturned by a scheme or a re-run with a "
        "model's ΔPWI ≤ 0.",
        "pwb_top_glm": "Over weightings only; sampling: the audit chapter's tie groups of the printed intervals. "
        f"GLM 5.1 leads by {ref_p['glm_lead']:+.1f} points at "
        "v2.1 and "
        + (
            "loses first place under some named schemes."
            if not (named["glm_lead"] > 0).all()
            else "keeps first place under every named scheme."
        ),
        "pwb_top3": "Over weightings only; sampling: the audit chapter's tie groups of the printed intervals.",
        "pwb_all_gain_random": "Random weights around v2.1 (one Dirichlet family); shares are over weightings, not a "
        "sampling interval.",
        "pwb_top_glm_random": weightings,
        "pwb_top3_random": weightings,
        "bt_top_c": f"Holds at every tie credit because each model has a similar number of ties ({ties}). "
        "Resampling judgements, C beats D in "
        f"{share(bs['p_c_beats_d_judgements'])} of replicates ({share(bs['p_c_beats_d_categories'])} with "
        "prompt categories resampled): not settled. Overturned by an interval of log(C/D) that excludes 0 "
        "on the other side.",
        "bt_ranking": f"Holds at every tie credit because each model has a similar number of ties ({ties}). "
        "The exact order recurs in "
        f"{bshare('p_same_ranking_judgements')} of {nb:,} judgement resamples "
        f"({bshare('p_same_ranking_categories')} with categories).",
        "bt_rho": f"ρ = 0.8 recurs in {bshare('p_same_rho_judgements')} of {nb:,} judgement resamples "
        f"({bshare('p_same_rho_categories')} with categories); with four recipes ρ moves in steps of 0.2.",
    }


def _workbank_rows(zones: pd.DataFrame, has: pd.DataFrame, untied: Mapping) -> list[dict]:
    ref_z = zones[zones["reference"]].iloc[0]
    same, _, ref_h = split_has(has)
    zone_settings, has_measure = "zone cut-off × boundary", "workers more − experts more (pp)"
    same_holds, same_margins = untied_flags(same, untied)
    return [
        finding_row(
            "wb_green_largest",
            "WORKBank",
            "Green Light is the largest of the four zones",
            zones["green_largest"],
            zones["green_lead"],
            "{:+.0f}",
            zone_settings,
            "Green − largest other zone (tasks)",
            float(ref_z["green_lead"]),
        ),
        finding_row(
            "wb_red_gt_rnd",
            "WORKBank",
            "More tasks are Red Light (capable, unwanted) than R&D Opportunity (wanted, not yet capable)",
            zones["red_gt_rnd"],
            zones["red_minus_rnd"],
            "{:+.0f}",
            zone_settings,
            "Red − R&D (tasks)",
            float(ref_z["red_minus_rnd"]),
        ),
        finding_row(
            "wb_workers_more_same_rule",
            "WORKBank",
            "Workers want more agency than experts on more tasks than the reverse",
            same_holds,
            same_margins,
            "{:+.1f}",
            "one tie rule for both sides; untied tasks only",
            has_measure,
            float(ref_h["margin"]),
        ),
        finding_row(
            "wb_workers_more_any_rule",
            "WORKBank",
            "… the same, under any combination of tie rules",
            has["workers_more_exceeds"],
            has["margin"],
            "{:+.1f}",
            "workers' × experts' tie rule",
            has_measure,
            float(ref_h["margin"]),
            headline="wb_workers_more_same_rule",
            bound=True,  # lopsided rule pairs: a bound on the finding above, shown for completeness
        ),
    ]


#: the PWB findings: key, text, holds flag column (None: GLM 5.1 leads), number column, format, measure
_PWB_FINDINGS = (
    ("pwb_all_gain", "Every model gains from the pro-worker prompt", "all_gain", "min_delta", "{:+.1f}",
     "smallest ΔPWI (points)"),
    ("pwb_top_glm", "GLM 5.1 has the highest prompted PWI", None, "glm_lead", "{:+.1f}",
     "GLM 5.1 − best other (points)"),
    ("pwb_top3", "The same three models lead the prompted ranking", "top3_stable", "kendall_tau", "{:.2f}",
     "Kendall τ vs v2.1"),
)  # fmt: skip


def _pwb_rows(pwb: pd.DataFrame) -> list[dict]:
    """The PWB findings over the named schemes, then (if any) over the random ones (key suffix ``_random``)."""
    named, rnd, ref_p = split_pwb(pwb)
    rows = []
    for frame, suffix, settings in [
        (named, "", "named weight schemes"),
        (rnd, "_random", f"{len(rnd)} random weight schemes"),
    ]:
        if suffix and not len(rnd):
            continue
        for key, text, flag, col, fmt, measure in _PWB_FINDINGS:
            holds = frame["glm_lead"] > 0 if flag is None else frame[flag]
            rows.append(
                finding_row(
                    key + suffix,
                    "PWB",
                    text,
                    holds,
                    frame[col],
                    fmt,
                    settings,
                    measure,
                    float(ref_p[col]),
                    headline=key,
                )
            )
    return rows


def _bt_rows(bt: pd.DataFrame) -> list[dict]:
    ref_b = bt[bt["reference"]].iloc[0]
    return [
        finding_row(
            "bt_top_c",
            "Preferences",
            "Recipe C is the most preferred model",
            bt["top_model"] == "recipe_c",
            bt["log_c_over_d"],
            "{:+.3f}",
            "tie conventions",
            "log(C / D strength)",
            float(ref_b["log_c_over_d"]),
        ),
        finding_row(
            "bt_ranking",
            "Preferences",
            f"The ranking is {ref_b['ranking']}",
            bt["same_ranking_as_published"],
            bt["min_adjacent_log_gap"],
            "{:+.3f}",
            "tie conventions",
            "smallest log-strength gap between neighbours",
            float(ref_b["min_adjacent_log_gap"]),
        ),
        finding_row(
            "bt_rho",
            "Preferences",
            f"Spearman ρ(strength, val_pref_acc) = {ref_b['rho_val_pref_acc']:.1f}",
            np.isclose(bt["rho_val_pref_acc"], ref_b["rho_val_pref_acc"]),
            bt["rho_val_pref_acc"],
            "{:.1f}",
            "tie conventions",
            "ρ",
            float(ref_b["rho_val_pref_acc"]),
        ),
    ]


def findings(
    zones: pd.DataFrame,
    has: pd.DataFrame,
    untied: Mapping,
    pwb: pd.DataFrame,
    bt: pd.DataFrame,
    zs: Mapping,
    bs: Mapping,
    ps: Mapping,
) -> pd.DataFrame:
    """The chapter's summary table (``results/robustness/tables/summary.csv``): one :func:`finding_row` per
    finding, with its "how sure is this?" note (:func:`how_sure_notes`).

    ``zones``/``has``/``pwb``/``bt``: the four sweeps of :mod:`.sweeps` (``pwb`` with its ``glm_lead`` column);
    ``untied``: :func:`compendium.workbank.agency.untied_only`; ``zs``/``bs``: the resampling checks of
    :mod:`.sampling`; ``ps``: the PWB's printed intervals (:func:`.sampling.pwb_gain_intervals`).
    """
    rows: Iterable[dict] = [*_workbank_rows(zones, has, untied), *_pwb_rows(pwb), *_bt_rows(bt)]
    sure = how_sure_notes(has, pwb, zs, bs, ps)
    for r in rows:
        r["how_sure"] = sure.get(r["key"], "")
    return pd.DataFrame(rows)


def headline_findings(found: pd.DataFrame) -> pd.DataFrame:
    """The summary table's rows counted by finding, as the landing page counts them: one row per headline finding
    (``headline``; a finding re-run under two families of settings, the PWB's named and random weightings, is one
    finding, which holds only if it holds under both), the bound rows (``bound``) left out. Columns ``headline``,
    ``finding`` (its first row's text), ``n_rows`` (the families it was re-run under) and ``holds_all``."""
    rows = found[~found["bound"].astype(bool)]
    g = rows.groupby("headline", sort=False)
    return pd.DataFrame(
        {
            "finding": g["finding"].first(),
            "n_rows": g.size(),
            "holds_all": g["holds_all"].all().astype(bool),
        }
    ).reset_index()
