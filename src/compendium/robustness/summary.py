"""What the robustness chapter says: every number and phrase of its prose, each a pure function of the result.

:func:`summary` is ``{glue key: value}`` for the whole prose (``notebooks/40_robustness.md`` glues it in one
call, :func:`compendium.chapter.display.glue_all`): the union of the small functions of :data:`PHRASES`, one per
section (:func:`zone_phrases`, :func:`agency_phrases`, :func:`pwb_phrases`, :func:`bt_phrases`,
:func:`how_sure_phrases`, and the Summary's :func:`verdict_phrases`), each of the
:class:`~compendium.robustness.build.RobustnessResult` alone, collected by
:func:`compendium.chapter.publish.phrases` (two that gave one key different values would raise). Nothing is
computed here that the result does not hold: whether a finding holds is :mod:`.findings` (the chapter's
analysis of the sweeps, not a claims check: the wing has no register, :mod:`.register`), the recorded values
:mod:`.values`, the tables :mod:`.views`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from compendium.chapter.publish import phrases

from .findings import TOP_MODEL, headline_findings, pwb_gain_ci_text, split_has, split_pwb, untied_flags
from .sampling import share_text
from .sweeps import PAPER_CUTOFF, ZONE_LABELS, ZONE_NAMES

if TYPE_CHECKING:
    from .build import RobustnessResult

__all__ = [
    "holds_phrase",
    "fmt_list",
    "green_largest_where",
    "red_above_where",
    "zone_phrases",
    "agency_phrases",
    "pwb_phrases",
    "bt_phrases",
    "how_sure_phrases",
    "verdict_phrases",
    "PHRASES",
    "summary",
]


def holds_phrase(
    flags: Iterable, all_tpl: str = "at every one of the {n} settings", some_tpl: str = "at {k} of {n} settings"
) -> str:
    """``"at every one of the 5 settings"`` when every flag is true, else ``"at 3 of 5 settings"``."""
    flags = [bool(f) for f in flags]
    k, n = sum(flags), len(flags)
    if n == 0:
        raise ValueError("holds_phrase: no settings")
    return (all_tpl if k == n else some_tpl).format(k=k, n=n)


def fmt_list(items: Iterable[str]) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    items = list(items)
    if not items:
        raise ValueError("fmt_list: no items")
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def green_largest_where(zones: pd.DataFrame) -> str:
    """Where Green Light is the largest zone in a :func:`compendium.robustness.sweeps.zone_sweep` table, in words."""
    ok = zones[zones["green_largest"]]["cutoff"]
    bad = zones[~zones["green_largest"]]["cutoff"]
    if bad.empty:
        return "every setting"
    if ok.empty:
        return "no setting"
    if ok.max() < bad.min():
        above = sorted({z for s in zones.loc[~zones["green_largest"], "largest_zone"] for z in s.split("=")})
        return f"cut-offs up to {ok.max():g}; above that, " + " or ".join(ZONE_LABELS[z] for z in above) + " is larger"
    return "cut-offs " + ", ".join(f"{c:g}" for c in sorted(set(ok)))


def red_above_where(zones: pd.DataFrame) -> str:
    """Where the zone sweep figure's Red Light line lies above its R&D Opportunity line, in words: "everywhere", or
    "everywhere except at a cut-off of 2 (dashed line)" (solid: a mean equal to the cut-off counts as high, the
    paper's ``ge``; dashed: as low)."""
    fails = zones[~zones["red_gt_rnd"].astype(bool)]
    if fails.empty:
        return "everywhere"
    if len(fails) == len(zones):
        return "nowhere"
    items = [
        f"{c:g} ({'solid' if b == 'ge' else 'dashed'} line)"
        for c, b in zip(fails["cutoff"], fails["boundary"], strict=True)
    ]
    return "everywhere except at " + ("a cut-off of " if len(items) == 1 else "cut-offs ") + fmt_list(items)


def zone_phrases(r: RobustnessResult) -> dict:
    """WORKBank zones: the paper's counts, the grid's range, where Green is largest, ge against gt at 3.0."""
    land, zones, at3 = r.zones.land, r.zones.sweep, r.zones.at_paper_cutoff
    ref_z = zones[zones["reference"]].iloc[0]
    g: dict = {f"rob_ref_{z}": int(ref_z[z]) for z in ("green", "red", "rnd", "low")}
    g.update(
        rob_n_tasks=len(land),
        rob_zone_n=len(zones),
        rob_cut_min=float(zones["cutoff"].min()),
        rob_cut_max=float(zones["cutoff"].max()),
        rob_green_min=int(zones["green"].min()),
        rob_green_max=int(zones["green"].max()),
        rob_green_largest_n=int(zones["green_largest"].sum()),
        rob_green_largest_where=green_largest_where(zones),
        rob_redrnd_phrase=holds_phrase(zones["red_gt_rnd"]),
        rob_redrnd_where=red_above_where(zones),
        rob_nw_min=int(land["n_workers"].min()),
        rob_nw_max=int(land["n_workers"].max()),
        rob_paper_cut=float(PAPER_CUTOFF),
        rob_gt_green=int(at3.loc["gt", "green"]),
        rob_gt_low=int(at3.loc["gt", "low"]),
        rob_ge_gt_moved=int(at3.loc["ge", "green"] - at3.loc["gt", "green"]),
    )
    return g


def _mixed_rules(mixed: pd.DataFrame, ref_h: pd.Series) -> dict:
    """The mixed tie rules (workers' rule not the experts'): the lowest share and where the finding reverses."""
    if not len(mixed):
        return dict(
            rob_has_mixed_min=float(ref_h["workers_more"]),
            rob_has_mixed_min_em=float(ref_h["experts_more"]),
            rob_has_mixed_min_rules="no mixed rules in the grid",
            rob_has_fail_n=0,
            rob_has_mixed_n=0,
            rob_has_fail_list="none",
        )
    lo = mixed.loc[mixed["workers_more"].idxmin()]
    fails = mixed[~mixed["workers_more_exceeds"]]
    return dict(
        rob_has_mixed_min=float(lo["workers_more"]),
        rob_has_mixed_min_em=float(lo["experts_more"]),
        rob_has_mixed_min_rules=f"workers {lo['worker_rule']}, experts {lo['expert_rule']}",
        rob_has_fail_n=int(len(fails)),
        rob_has_mixed_n=int(len(mixed)),
        rob_has_fail_list=fmt_list(
            [f"workers {a} / experts {b}" for a, b in zip(fails["worker_rule"], fails["expert_rule"], strict=True)]
        )
        if len(fails)
        else "none",
    )


def agency_phrases(r: RobustnessResult) -> dict:
    """WORKBank Human Agency Scale: one rule for both sides, the untied tasks, the mixed rules."""
    has, untied = r.agency.sweep, r.agency.untied
    same, mixed, ref_h = split_has(has)
    g = dict(
        rob_has_draws=int(r.agency.n_random),
        rob_has_ref=float(ref_h["workers_more"]),
        rob_has_same_phrase=holds_phrase(untied_flags(same, untied)[0]),
        rob_has_same_min=float(same["workers_more"].min()),
        rob_has_same_max=float(same["workers_more"].max()),
        rob_has_untied_wm=float(untied["workers_more"]),
        rob_has_untied_em=float(untied["experts_more"]),
        rob_has_untied_n=int(untied["n_tasks"]),
        rob_has_all_min=float(has["workers_more"].min()),
        rob_has_all_max=float(has["workers_more"].max()),
    )
    return g | _mixed_rules(mixed, ref_h)


def pwb_phrases(r: RobustnessResult) -> dict:
    """PWB weights: the gains and the top model under the named schemes and the random ones."""
    nan = float("nan")
    named, rnd, ref_p = split_pwb(r.pwb.sweep)
    conc = float(r.pwb.concentration)
    p_typ = 1.0 / r.pwb.n_weights
    n_top = int((named["top_model"] == TOP_MODEL).sum())
    lost = named[named["top_model"] != TOP_MODEL]
    t3 = named[~named["top3_stable"]]
    return dict(
        rob_pwb_rand_n=int(len(rnd)),
        rob_pwb_conc=conc,
        rob_pwb_rel_sd=float(np.sqrt((1 - p_typ) / (p_typ * (conc + 1)))),
        rob_pwb_gain_min=float(named["min_delta"].min()),
        rob_pwb_gain_max=float(named["min_delta"].max()),
        rob_pwb_gain_ref=float(ref_p["min_delta"]),
        rob_pwb_mean_min=float(named["mean_delta"].min()),
        rob_pwb_mean_max=float(named["mean_delta"].max()),
        rob_pwb_tau_min=float(named["kendall_tau"].min()),
        rob_pwb_rand_gain=float(rnd["all_gain"].mean()) if len(rnd) else nan,
        rob_pwb_rand_top=float((rnd["top_model"] == TOP_MODEL).mean()) if len(rnd) else nan,
        rob_pwb_rand_top3=float(rnd["top3_stable"].mean()) if len(rnd) else nan,
        rob_pwb_rand_gain_min=float(rnd["min_delta"].min()) if len(rnd) else nan,
        rob_pwb_gain_phrase=holds_phrase(named["all_gain"], "under all {n}", "under {k} of the {n}"),
        rob_pwb_top_verdict=f"{n_top} of {len(named)}",
        rob_pwb_top_lost=fmt_list([f"{s} ({m})" for s, m in zip(lost["scheme"], lost["top_model"], strict=True)])
        if len(lost)
        else "none",
        rob_pwb_top3_lost=fmt_list(list(t3["scheme"])) if len(t3) else "none",
        rob_pwb_gain_ci=pwb_gain_ci_text(r.pwb.intervals),
    )


def bt_phrases(r: RobustnessResult) -> dict:
    """Preferences: the ranking and rho under each tie convention, the spread of the strengths, ties per model."""
    bt, bs = r.bt.sweep, r.bt.sampling
    ref_b = bt[bt["reference"]].iloc[0]
    rho_same = np.isclose(bt["rho_val_pref_acc"], ref_b["rho_val_pref_acc"])
    return dict(
        rob_bt_n=int(len(bt)),
        rob_bt_n_ties=int(r.bt.n_ties),
        rob_bt_ranking=str(ref_b["ranking"]),
        rob_bt_rho=float(ref_b["rho_val_pref_acc"]),
        rob_bt_same_n=int(bt["same_ranking_as_published"].sum()),
        rob_bt_rho_n="all" if rho_same.all() else str(int(rho_same.sum())),
        rob_bt_grid=", ".join(f"{w:g}" for w in r.bt.tie_weights),
        rob_bt_c_min=float(bt["recipe_c"].min()),
        rob_bt_c_max=float(bt["recipe_c"].max()),
        rob_bt_u_min=float(bt["untrained"].min()),
        rob_bt_u_max=float(bt["untrained"].max()),
        rob_bt_cd_min=float(np.exp(bt["log_c_over_d"].min())),
        rob_bt_cd_max=float(np.exp(bt["log_c_over_d"].max())),
        rob_bt_ties_min=int(bs["ties_per_model_min"]),
        rob_bt_ties_max=int(bs["ties_per_model_max"]),
    )


def how_sure_phrases(r: RobustnessResult) -> dict:
    """How sure: the resampling checks at the paper's setting, and the count of findings that hold everywhere."""
    zs, bs, found = r.zones.sampling, r.bt.sampling, r.findings
    return dict(
        rob_n_sampling=int(r.params.n_sampling),
        rob_zs_green=zs["p_green_largest"],
        rob_zs_redrnd=zs["p_red_gt_rnd"],
        rob_bs_cd_j=bs["p_c_beats_d_judgements"],
        rob_bs_cd_c=bs["p_c_beats_d_categories"],
        rob_bs_cd_n=int(bs["c_beats_d_n_boot"]),
        rob_bs_cd_se=100 * max(bs["p_c_beats_d_judgements_mc_se"], bs["p_c_beats_d_categories_mc_se"]),
        rob_bs_rank_j=bs["p_same_ranking_judgements"],
        rob_bs_rank_c=bs["p_same_ranking_categories"],
        rob_bs_rank_j_txt=share_text(bs["p_same_ranking_judgements"], int(bs["n_boot"])),
        rob_bs_rank_c_txt=share_text(bs["p_same_ranking_categories"], int(bs["n_boot"])),
        rob_bs_rank_se=100 * max(bs["p_same_ranking_judgements_mc_se"], bs["p_same_ranking_categories_mc_se"]),
        rob_bs_n=int(bs["n_boot"]),
        rob_n_findings=int(len(found)),
        rob_n_hold_all=int(found["holds_all"].sum()),
        rob_by_finding=by_finding_sentence(found),
    )


def by_finding_sentence(found: pd.DataFrame) -> str:
    """How the summary table's count ("7 of the 13 rows hold") relates to the landing page's ("6 of the 9 headline
    findings"): the page counts by finding (:func:`compendium.robustness.findings.headline_findings`), a finding
    re-run under two families of settings once, and a bound row not at all (issue 33)."""
    hf = headline_findings(found)
    n, held = len(hf), int(hf["holds_all"].sum())
    twice = found[found["headline"].isin(hf.loc[hf["n_rows"] > 1, "headline"])]
    bound = found[found["bound"].astype(bool)]
    parts = []
    if len(twice):
        studies = " and ".join(dict.fromkeys(twice["study"]))
        families = " and under ".join(dict.fromkeys(twice["settings"]))
        k = twice["headline"].nunique()
        parts.append(
            f"each of the {_count(k, studies + ' finding')} re-run under {families} counts once, and holds only if "
            "it holds under both"
        )
    if len(bound):
        over = " and ".join(dict.fromkeys(bound["settings"]))
        one = len(bound) == 1
        parts.append(
            f"the {'row' if one else 'rows'} over the {over}, a bound shown for completeness, "
            f"{'is' if one else 'are'} no finding of {'its' if one else 'their'} own"
        )
    how = (": " + "; ".join(parts)) if parts else ""
    return f"The landing page counts the same table by finding, and {held} of its {n} headline findings hold under every choice tried{how}."


def _count(n: int, noun: str) -> str:
    words = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
    return f"{words.get(n, str(n))} {noun}{'' if n == 1 else 's'}"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _choices_sentence(r: RobustnessResult, found: pd.DataFrame) -> str:
    """What moves with the choices swept: the zone sizes and the share behind "workers want more agency" where
    they differ between the grid's settings (the latter under one tie rule for both sides), and which model tops
    the PWB where GLM 5.1 does not lead under every weighting."""
    zones, same = r.zones.sweep, split_has(r.agency.sweep)[0]
    choices = [
        text
        for text, varies in (
            ("the zone sizes", bool((zones[list(ZONE_NAMES)].nunique() > 1).any())),
            ('the exact share behind "workers want more agency"', bool(same["workers_more"].nunique() > 1)),
        )
        if varies
    ]
    top = [k for k in ("pwb_top_glm", "pwb_top_glm_random") if k in found.index]
    top_moves = not bool(found.loc[top, "holds_all"].all())
    if not choices:
        return (
            "On this build's grids, which model tops the PWB is a choice as much as a result."
            if top_moves
            else f"On this build's grids, {TOP_MODEL} tops the PWB under every weighting."
        )
    plural = len(choices) > 1 or choices[0] == "the zone sizes"
    verb = "are choices as much as results" if plural else "is a choice as much as a result"
    tail = (
        ", and so is which model tops the PWB." if top_moves else f"; {TOP_MODEL} tops the PWB under every weighting."
    )
    return f"On this build's grids, {fmt_list(choices)} {verb}{tail}"


def _robust_sentence(found: pd.DataFrame) -> tuple[str, bool]:
    """Whether the direction of the agency finding (one tie rule for both sides) and the PWB's gains (named and
    random weightings) hold at every setting, as the findings table says; and whether any of the two does."""
    agency, gains = found.loc["wb_workers_more_same_rule"], found.loc["pwb_all_gain"]
    rnd = found.loc["pwb_all_gain_random"] if "pwb_all_gain_random" in found.index else None
    robust, notes = [], []
    if agency["holds_all"]:
        robust.append("the direction of the agency finding")
    else:
        notes.append(
            f"the direction of the agency finding holds at only {agency['n_hold']} of its {agency['n_settings']} "
            "settings with one tie rule for both sides"
        )
    if gains["holds_all"] and (rnd is None or rnd["holds_all"]):
        robust.append("the PWB's gains")
    elif gains["holds_all"]:
        notes.append(
            f"the PWB's gains hold under all {gains['n_settings']} named weight schemes but in only {rnd['n_hold']} "
            f"of the {rnd['n_settings']} random weightings"
        )
    else:
        notes.append(
            f"the PWB's gains fail under {gains['n_settings'] - gains['n_hold']} of the {gains['n_settings']} named "
            "weight schemes"
            + (
                f" and {rnd['n_settings'] - rnd['n_hold']} of the {rnd['n_settings']} random weightings"
                if rnd is not None and not rnd["holds_all"]
                else ""
            )
        )
    parts = [f"{fmt_list(robust)} {'do' if len(robust) > 1 else 'does'} not depend on those choices"] if robust else []
    return _capital("; ".join(parts + notes)) + ".", bool(robust)


def verdict_phrases(r: RobustnessResult) -> dict:
    """The Summary's sentences on what depends on the choices swept and what does not, generated from the findings
    table (:func:`compendium.robustness.findings.findings`, ``holds_all``, ``n_hold`` of ``n_settings``) and the
    sweeps, so that they say what the table says at every setting."""
    found = r.findings.set_index("key")
    robust, any_robust = _robust_sentence(found)
    bt = found.loc["bt_ranking"]
    ranking = (
        "The preference ranking does not depend on the tie convention"
        + (" either" if any_robust else "")
        + ", but that was never in much doubt; it does depend"
        if bt["holds_all"]
        else f"The preference ranking does depend on the tie convention (it holds under {bt['n_hold']} of the "
        f"{bt['n_settings']}); it also depends"
    )
    return dict(rob_summary_choices=_choices_sentence(r, found), rob_summary_robust=robust, rob_summary_ranking=ranking)


#: the chapter's phrases, one function per section, in the order of the prose
PHRASES = (zone_phrases, agency_phrases, pwb_phrases, bt_phrases, how_sure_phrases, verdict_phrases)


#: the shares the chapter's prose prints as percentages, with their decimals: each also glued as ``<key>_pct``
#: (``"67 %"``, :func:`compendium.chapter.publish.phrases`)
PERCENTS = {
    "rob_zs_green": 0,
    "rob_zs_redrnd": 0,
    "rob_pwb_rand_gain": 1,
    "rob_pwb_rand_top": 1,
    "rob_bs_cd_j": 0,
    "rob_bs_cd_c": 0,
    "rob_pwb_rel_sd": 0,
}


def summary(result: RobustnessResult) -> dict:
    """``{glue key: value}`` for every number and phrase of the chapter's prose: the union of :data:`PHRASES`."""
    return phrases(result, PHRASES, what="robustness phrases", percents=PERCENTS)
