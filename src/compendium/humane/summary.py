"""What the scale chapter says: every number and phrase of its prose, each a pure function of the result.

:func:`summary` is ``{glue key: value}`` for the whole prose (``notebooks/35_humane_scale.md`` glues it in one
call, :func:`compendium.chapter.display.glue_all`): the union of the small functions of :data:`PHRASES`
(collected by :func:`compendium.chapter.publish.phrases`; two that gave one key different values would raise).
``*_txt`` values are rounded to the digits their Monte Carlo interval supports (:mod:`.digits`). The verdict
sentences -- when information gain pays off (:func:`answer`), which of the talk's claims hold (:func:`claims_text`)
-- are the chapter's analysis of its savings (each saving's verdict, :func:`compendium.humane.report.saving_verdict`,
read from its simultaneous interval, :func:`compendium.humane.report.savings`), glued as Markdown; the wing has no
register (:mod:`.register`), so no sentence here reports a claims check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from compendium.chapter.publish import phrases
from compendium.stats.mcdigits import mc_format, mc_step, mc_text

from .digits import fmt_gap, fmt_gap_se, fmt_n, fmt_saving, halfwidth
from .report import BORDERLINE, MIN_STUDIES, SETTING_RANGES, UNSATURATED, censored_both, gap_z, saving_verdicts
from .views import DESIGN_NAMES

if TYPE_CHECKING:
    from .build import HumaneResult

__all__ = [
    "TARGETS",
    "needed_phrases",
    "saving_phrases",
    "baseline_phrases",
    "calibration_phrases",
    "calibration_setting_values",
    "consolidation_values",
    "consolidation_phrases",
    "setup_phrases",
    "answer",
    "claims_text",
    "paragraph_phrases",
    "PHRASES",
    "summary",
]

TARGETS = {"top": "the top model", "rank": "the full ranking"}


def _tag(r) -> str:
    return f"{r.n_models}_{r.spread}_{'ties' if r.nu > 0 else 'noties'}_{r.design}"


def needed_phrases(result: HumaneResult) -> dict:
    """Per single-group point: the judgements needed for the top model and the full ranking (-1 where not within
    the budget), as printed with their interval, and the recovery probabilities at the budget."""
    v: dict[str, object] = {}
    for r in result.needed[result.needed["n_groups"] == 1].itertuples():
        tag = _tag(r)
        b = r.budget * r.decisive_share
        v[f"h_top_{tag}"] = r.n_top if np.isfinite(r.n_top) else -1.0
        v[f"h_rank_{tag}"] = r.n_rank if np.isfinite(r.n_rank) else -1.0
        v[f"h_top_{tag}_txt"] = fmt_n(r.n_top, r.n_top_lo, r.n_top_hi, b, r.n_first)
        v[f"h_rank_{tag}_txt"] = fmt_n(r.n_rank, r.n_rank_lo, r.n_rank_hi, b, r.n_first)
        v[f"h_ptop_{tag}"] = r.p_top_budget
        v[f"h_prank_{tag}"] = r.p_rank_budget
    return v


def _resolvable(t: pd.DataFrame) -> pd.DataFrame:
    """The saving rows the budget can resolve (not both designs at the floor, not both never there)."""
    return t[[censored_both(r) == "" for r in t.itertuples()]]


def level_text(level: float) -> str:
    """A simultaneous interval's per-interval level in percent, to the first digit that differs from 100 %
    (``0.99808`` -> ``"99.8 %"``; ``0.95`` -> ``"95 %"``)."""
    miss = (1 - level) * 100
    decimals = max(0, -int(np.floor(np.log10(miss)))) if miss > 0 else 0
    return f"{100 - miss:.{decimals}f} %"


def saving_phrases(result: HumaneResult) -> dict:
    """Per saving row: the saving and its simultaneous interval (-9 where open), as printed, and its verdict; how
    many intervals the chapter reads as verdicts and the level of each (Bonferroni); per number of models and
    information-gain design: of the settings the budget can resolve, how many save and how many cost."""
    sav = result.saving
    v: dict[str, object] = {}
    for r, verdict in zip(sav.itertuples(), saving_verdicts(sav)):
        tag = f"{r.target}_{_tag(r)}"
        v[f"h_sav_{tag}"] = r.saving if np.isfinite(r.saving) else -9.0
        v[f"h_sav_{tag}_lo"] = r.saving_lo if np.isfinite(r.saving_lo) else -9.0
        v[f"h_sav_{tag}_hi"] = r.saving_hi if np.isfinite(r.saving_hi) else -9.0
        v[f"h_sav_{tag}_txt"] = fmt_saving(r.saving, r.saving_lo, r.saving_hi, r.saving_min, r.saving_max)
        v[f"h_sav_{tag}_verdict"] = verdict
    v["h_sav_family"] = int(sav["family"].iloc[0])
    v["h_sav_boot"] = f"{int(sav['resamples'].iloc[0]):,}"
    v["h_sav_level_txt"] = level_text(float(sav["level"].iloc[0]))
    ig = sav[sav["design"].isin(["ig_trueskill", "ig_davidson"])]
    for n in sorted(ig["n_models"].unique()):
        for design in ("ig_trueskill", "ig_davidson"):
            t = _resolvable(ig[(ig["n_models"] == n) & (ig["design"] == design)])
            vd = saving_verdicts(t)
            v[f"h_ig_{n}_{design}_n"] = len(t)
            v[f"h_ig_{n}_{design}_n_saving"] = vd.count("a saving")
            v[f"h_ig_{n}_{design}_n_loss"] = vd.count("a loss")
    return v


def baseline_phrases(result: HumaneResult) -> dict:
    """The uniform baseline shared with the preferences chapter (:mod:`.baseline`): its studies; the judgements it
    needs for the full ranking and the top model here (as the needed table prints them), read as the preferences
    chapter reads a curve (:func:`.baseline.read_as_preferences`, to the digits of this chapter's interval), and in
    the preferences chapter (as that chapter prints them, :func:`compendium.stats.mcdigits.mc_text`); and how far
    the second is from the third, in percent of the preferences chapter's number, to the digits twice their combined
    Monte Carlo standard error supports (this chapter's: the half-width of its 95 % interval over 1.96). Nothing
    where the grid has no such point."""
    sh = result.shared
    if sh is None:
        return {}
    need = result.needed
    row = need[(need["n_models"] == sh["n_models"]) & (need["spread"] == sh["spread"]) & (need["nu"] == 0)
               & (need["n_groups"] == 1) & (need["design"] == "uniform")].iloc[0]  # fmt: skip
    v: dict[str, object] = {"h_base_reps": f"{sh['repetitions']:,}"}
    b = row["budget"] * row["decisive_share"]
    for what, theirs in (("rank", "ranking"), ("top", "top")):
        n, lo, hi = row[f"n_{what}"], row[f"n_{what}_lo"], row[f"n_{what}_hi"]
        v[f"h_base_{what}_txt"] = fmt_n(n, lo, hi, b, row["n_first"])
        probit = sh[f"probit_{what}"]
        v[f"h_base_{what}_probit"] = probit if np.isfinite(probit) else -1.0
        if not (np.isfinite(probit) and np.isfinite(halfwidth(n, lo, hi))):  # not reached, or no interval to round by
            v[f"h_base_{what}_probit_txt"] = "not within the budget" if not np.isfinite(probit) else f"{probit:,.0f}"
            continue
        step = mc_step(halfwidth(n, lo, hi), rule="pdg")  # rule "pdg": as fmt_n rounds this chapter's number
        v[f"h_base_{what}_probit_txt"] = mc_format(probit, step, thousands=True)
        if f"pref_mc.uniform.n_for_{theirs}" not in sh:  # inputs made without the preferences chapter's numbers
            continue
        t = {e: sh[f"pref_mc.uniform.n_for_{theirs}{e}"] for e in ("", "_mc_lo", "_mc_hi", "_mc_se")}
        v[f"h_base_pref_{what}_txt"] = mc_text(t[""], t["_mc_lo"], t["_mc_hi"], t["_mc_se"])
        se = np.hypot((hi - lo) / (2 * 1.959963984540054), t["_mc_se"])
        diff = (probit / t[""] - 1) * 100
        step = mc_step(2 * se / t[""] * 100, rule="pdg")  # rule "pdg": twice the combined SE, in percent
        v[f"h_base_{what}_diff"] = diff
        v[f"h_base_{what}_diff_txt"] = f"{'+' if diff >= 0 else '−'}{mc_format(abs(diff), step)} %"
        v[f"h_base_{what}_diff_2se_txt"] = f"{mc_format(2 * se / t[''] * 100, step)} %"
    return v


def calibration_phrases(result: HumaneResult) -> dict:
    """Per number of models, the boards reporting P(best) above 95 %: how many, the mean reported and the share
    whose leader is truly best; the largest gap between reported and observed over every bin; and what each
    setting says (:func:`calibration_setting_values`)."""
    cal = result.calibration
    v: dict[str, object] = {}
    for n in sorted(cal["n_models"].unique()):
        hi = cal[(cal["n_models"] == n) & (cal["reported_lo"] >= 0.95)]
        v[f"h_cal_{n}_hi_n"] = int(hi["n"].sum())
        if len(hi):
            v[f"h_cal_{n}_hi_reported"] = float((hi["mean_reported"] * hi["n"]).sum() / hi["n"].sum())
            v[f"h_cal_{n}_hi_observed"] = float((hi["observed"] * hi["n"]).sum() / hi["n"].sum())
    v["h_cal_max_gap"] = float((cal["mean_reported"] - cal["observed"]).abs().max())
    return v | calibration_setting_values(result.calibration_settings)


def _gap_text(r) -> str:
    """A setting's calibration gap as printed (:func:`.digits.fmt_gap`)."""
    return fmt_gap(r.mean_reported, r.observed, r.gap, r.gap_lo, r.gap_hi)


def _setting_name(r) -> str:
    return f"{DESIGN_NAMES[r.design]} at {r.n_models} models, {_setting(r)}"


def calibration_setting_values(cs: pd.DataFrame) -> dict:
    """What the prose says per setting (:func:`compendium.humane.report.calibration_by_setting`): above 95 % and at
    or below it, how many settings are calibrated, conservative and over-confident (simultaneous intervals over every
    setting and range judged), naming each over-confident one with its numbers; and the share of the boards above
    95 % that the wide spread supplies, per number of models (pooled, those boards decide the calibration table's
    top rows)."""
    v: dict[str, object] = {"h_cal_set_family": int(cs["family"].iloc[0]), "h_cal_set_z": float(cs["z"].iloc[0]),
                            "h_cal_set_n": int(len(cs.drop_duplicates(["n_models", "spread", "nu", "design"])))}  # fmt: skip
    for (lo, hi), key, words in (
        (SETTING_RANGES[1], "hi", "above 95 %"),
        (SETTING_RANGES[0], "lo", "at or below 95 %"),
    ):
        t = cs[(cs["reported_lo"] == lo) & (cs["reported_hi"] == hi)]
        count = {
            w: int((t["verdict"] == w).sum())
            for w in ("calibrated", "conservative", "over-confident", "too few boards")
        }
        judged = len(t) - count["too few boards"]
        over = t[t["verdict"] == "over-confident"]
        text = (f"{words}, {count['calibrated']} of the {judged} settings with enough boards are calibrated within "
                f"their interval, {count['conservative']} conservative and {count['over-confident']} over-confident")  # fmt: skip
        if len(over):
            text += " (" + "; ".join(f"{_setting_name(r)}: {_gap_text(r)}" for r in over.itertuples()) + ")"
        if count["too few boards"]:
            few = count["too few boards"]
            text += f"; {few} {'has' if few == 1 else 'have'} too few boards there to judge"
        v[f"h_cal_set_{key}"] = text
        v[f"h_cal_set_{key}_over"] = count["over-confident"]
    hi = cs[cs["reported_lo"] == SETTING_RANGES[1][0]]
    for n in sorted(hi["n_models"].unique()):
        h = hi[hi["n_models"] == n]
        share = float(h.loc[h["spread"] == "wide", "boards"].sum() / h["boards"].sum())
        v[f"h_cal_{n}_wide_share"] = share
        v[f"h_cal_{n}_wide_share_txt"] = f"{share * 100:.0f} %"  # a count of boards, not a Monte Carlo estimate
    v["h_cal_set_min_studies"] = MIN_STUDIES
    return v


def consolidation_values(cons: pd.DataFrame, cells: pd.DataFrame) -> dict:
    """What the prose says of pooled against per-group boards: the SD ratio's range at the budget and how far it is
    above √(1/G); and, where the recovery of neither the pooled nor the consolidated board is saturated
    (:data:`compendium.humane.report.UNSATURATED`, over every multi-group point, checkpoint and target: ``cells``),
    the largest recovery gaps, how many gaps exceed twice their Monte Carlo standard error (paired over the same
    simulated studies) and with which sign, how many would by chance, and whether any exceeds the family-wise bound
    (Bonferroni over those cells). At the budget itself both boards recover nearly always or never, and a gap
    there can say nothing."""
    from scipy import stats

    excess = cons["ratio"] / cons["sqrt_1_over_g"] - 1
    u = cells[cells["unsaturated"]].copy()
    u["z"] = gap_z(u)
    n = len(u)
    v: dict[str, object] = {
        "h_cons_ratio_min": float(cons["ratio"].min()),
        "h_cons_ratio_max": float(cons["ratio"].max()),
        "h_cons_all_below_one": "in every setting" if (cons["ratio"] < 1).all() else "not in every setting",
        "h_cons_excess_max": float(excess.max()),
        "h_cons_excess_max_txt": f"{excess.max() * 100:.0f} %",
        "h_cons_cells": n,
        "h_cons_band_txt": f"{UNSATURATED[0] * 100:.0f} % and {UNSATURATED[1] * 100:.0f} %",
    }
    for what in ("rank", "top"):
        t = u[u["target"] == what]
        v[f"h_cons_{what}_gap_max"] = float(t["gap"].abs().max()) if len(t) else 0.0
    last = cells[
        cells["checkpoint"] == cells.groupby(["n_models", "spread", "n_groups"])["checkpoint"].transform("max")
    ]
    v["h_cons_budget_cells"] = len(last)  # settings x targets, at the budget
    v["h_cons_budget_saturated"] = int((~last["unsaturated"].astype(bool)).sum())
    if not n:
        v["h_cons_gap_phrase"] = (f"no checkpoint has both boards' recovery between {v['h_cons_band_txt']}, so the "
                                  "simulation cannot compare pooling and consolidating")  # fmt: skip
        return v
    chance = 2 * stats.norm.sf(2)
    bound = float(stats.norm.isf(0.05 / (2 * n)))
    beyond = u[u["z"].abs() > 2]
    ahead, behind = int((beyond["gap"] > 0).sum()), int((beyond["gap"] < 0).sum())
    top = u.loc[u["z"].abs().idxmax()]
    v |= {"h_cons_beyond_2se": len(beyond), "h_cons_chance": n * chance, "h_cons_bound": bound,
          "h_cons_max_z": float(abs(top["z"]))}  # fmt: skip

    def where(r) -> str:
        return (f"{TARGETS[r.target]} at {r.n_models} models, {r.spread} spread, {r.n_groups} groups, "
                f"{r.n_decisive:,.0f} decisive judgements")  # fmt: skip

    def gap(r) -> str:
        return fmt_gap_se(r.gap, r.gap_se)

    text = (f"at the {n} checkpoints (of both targets and every multi-group setting) where both boards' recovery is "
            f"between {v['h_cons_band_txt']}, the pooled and the consolidated board's recovery differ by more than "
            f"twice their paired Monte Carlo standard error in {len(beyond)}"
            + (f" ({ahead} with the pooled board ahead, {behind} behind)" if len(beyond) else "")
            + f", where chance alone gives about {n * chance:.1f}; ")  # fmt: skip
    big = u[u["z"].abs() > bound]
    # cells whose |z| equals the largest to the last bits (two cells can share it exactly: same counts scaled)
    tops = u[np.isclose(u["z"].abs(), abs(top["z"]), rtol=1e-9, atol=0)]
    if big.empty and len(tops) > 1:
        text += (f"the largest, z = {abs(top['z']):.2f}, is shared by {len(tops)} cells ("
                 + "; ".join(f"{gap(r)}, {where(r)}" for r in tops.itertuples())
                 + f"), within the {bound:.1f} standard errors that Bonferroni allows over the {n}, so the simulation "
                 "detects no difference between pooling and consolidating")  # fmt: skip
    elif big.empty:
        text += (f"the largest, {gap(top)} ({where(top)}), is within the {bound:.1f} standard errors that Bonferroni "
                 f"allows over the {n}, so the simulation detects no difference between pooling and consolidating")  # fmt: skip
    else:
        text += (f"beyond the {bound:.1f} standard errors that Bonferroni allows over the {n}: "
                 + "; ".join(f"{gap(r)} ({where(r)})" for r in big.itertuples()))  # fmt: skip
    v["h_cons_gap_phrase"] = text
    return v


def consolidation_phrases(result: HumaneResult) -> dict:
    """:func:`consolidation_values` of the result's consolidation tables."""
    return consolidation_values(result.consolidation, result.consolidation_cells)


def setup_phrases(result: HumaneResult) -> dict:
    """The settings the prose names: the spreads, the study's nu, the budget, the repetitions."""
    p = result.params
    reps_of = {n: f"{min(r):,}" + (f" to {max(r):,}" if max(r) > min(r) else "") for n, r in result.repetitions.items()}
    return {
        "h_wide_sd": p.wide_sd,
        "h_group_sd": p.group_sd,
        "h_nu": result.nu,
        "h_budget": result.budget,
        "h_default_reps": p.default_repetitions,
        "h_reps_5": reps_of[5],
        "h_reps_20": reps_of[20],
        "h_pbest_draws": result.points[0].pbest_draws,
    }


def _setting(r) -> str:
    return f"{r.spread} spread, {'study ties' if r.nu > 0 else 'no ties'}"


def _items(t: pd.DataFrame) -> str:
    return "; ".join(f"{TARGETS[r.target]} at {_setting(r)} "
                     f"({fmt_saving(r.saving, r.saving_lo, r.saving_hi, r.saving_min, r.saving_max)})"
                     for r in t.itertuples()) or "none"  # fmt: skip


def _design_sentence(t: pd.DataFrame, name: str) -> str:
    t = _resolvable(t)
    vd = np.array(saving_verdicts(t), dtype=object)
    out = f"{name} pays off (a saving whose simultaneous interval excludes zero) for: {_items(t[vd == 'a saving'])}."
    for v, phrase in (("no detectable difference", "It is not detectably different from uniform pairs for"),
                      (BORDERLINE, "It is not detectably different, but only just (an end of the interval "
                       "rounds to 0 %, and which side of zero it falls on follows the resampling), for"),
                      ("not resolved within the budget", "The budget leaves it open for"),
                      ("a loss", "It needs more judgements than uniform pairs for")):  # fmt: skip
        if (vd == v).any():
            out += f" {phrase}: {_items(t[vd == v])}."
    return out


def _first_checkpoint(one: pd.DataFrame, rows: list) -> str:
    """ " (≤ N decisive judgements)": the grid's first checkpoint in decisive judgements over the settings of
    ``rows`` (saving-table rows; ``one``: the single-group rows of the needed table at their number of models), a
    range when they differ (a setting with ties has fewer decisive judgements at the same checkpoint: 525 to 535
    against 640 without, issue 33, C4)."""
    keys = {(r.spread, round(float(r.nu), 9)) for r in rows}
    mine = [(sp, round(float(nu), 9)) in keys for sp, nu in zip(one["spread"], one["nu"])]
    firsts = one.loc[mine, "n_first"]
    lo, hi = round(float(firsts.min())), round(float(firsts.max()))
    return f" (≤ {hi:,} decisive judgements)" if lo == hi else f" (≤ {lo:,} to {hi:,} decisive judgements, by setting)"


def answer(sav: pd.DataFrame, need: pd.DataFrame) -> str:
    """The chapter's answer to "when does information gain pay off?", one paragraph per number of models,
    built from the saving table (no free text from data)."""
    paras = []
    for n in sorted(sav["n_models"].unique()):
        s = sav[(sav["n_models"] == n) & sav["design"].isin(["ig_trueskill", "ig_davidson"])]
        lines = [_design_sentence(s[s["design"] == d], f"*{DESIGN_NAMES[d][0].upper() + DESIGN_NAMES[d][1:]}*")
                 for d in ("ig_trueskill", "ig_davidson") if (s["design"] == d).any()]  # fmt: skip
        for d in ("ig_trueskill", "ig_davidson"):
            t = s[(s["design"] == d) & np.array([censored_both(r) == "" for r in s.itertuples()], bool)]
            vd = np.array(saving_verdicts(t), dtype=object)
            pays = sorted(set(t["spread"][vd == "a saving"]))
            costs = sorted(set(t["spread"][vd == "a loss"]))
            if not pays and not costs:  # a verdict that went away is said to have gone, not left out
                lines.append(f"In short, {DESIGN_NAMES[d]} is not detectably different from uniform pairs anywhere "
                             "here: it neither pays off nor costs judgements in any setting the budget resolves.")  # fmt: skip
                continue
            lines.append(f"In short, {DESIGN_NAMES[d]} pays off "
                         + (f"here with the {' and the '.join(pays)} spread" if pays else "nowhere here")
                         + (f" and costs judgements with the {' and the '.join(costs)} spread" if costs else "") + ".")  # fmt: skip
        one = need[(need["n_models"] == n) & (need["n_groups"] == 1)]
        for kind, phrase in (("floor", "uniform pairs and both information-gain designs are at 95 % by the grid's first "
                                       "checkpoint, below which the grid cannot see, so it can show no saving"),
                             ("never", "no design reaches 95 % within the budget")):  # fmt: skip
            rows = [r for r in s.itertuples() if censored_both(r) == kind]
            cases = sorted({f"{TARGETS[r.target]} at {r.spread} spread" for r in rows})
            if cases:
                first = _first_checkpoint(one, rows) if kind == "floor" else ""
                lines.append(f"For {', '.join(cases)}, {phrase}{first}.")
        paras.append(f"**At {n} models.** " + " ".join(lines))
    return "\n\n".join(paras)


def claims_text(sav: pd.DataFrame, cal: pd.DataFrame, cons: pd.DataFrame, cs: pd.DataFrame, cells: pd.DataFrame) -> str:
    """The talk's claims, one line each, with what the simulation says at each number of models (Markdown built
    from the tables; no free text from data): the savings with their simultaneous intervals (``sav``), P(best)
    pooled (``cal``) and per setting (``cs``), and the pooled board against the groups' (``cons``) and against the
    consolidated one at unsaturated checkpoints (``cells``)."""
    lines = []
    for design, claim in (("ig_trueskill", "Choosing pairs by information gain (TrueSkill, HUMANE's rule) needs "
                           "fewer judgements than uniform pairs"),
                          ("ig_davidson", "... and so does information gain under a Bradley–Terry–Davidson posterior"),
                          ("arena", "Uneven, arena-like sampling harms an open arena's board (here: it needs more "
                           "judgements than uniform pairs; with a Bradley–Terry fit it cannot bias the board)")):  # fmt: skip
        per = []
        for n in sorted(sav["n_models"].unique()):
            t = _resolvable(sav[(sav["design"] == design) & (sav["n_models"] == n)])
            vd = saving_verdicts(t)
            good, bad = ("a saving", "a loss") if design != "arena" else ("a loss", "a saving")
            word = (("mixed" if vd.count(bad) else "supported" if vd.count(good) == len(t) else "partly supported")
                    if vd.count(good) else "not supported")  # fmt: skip
            spreads = sorted(set(t["spread"])) if "spread" in t else []
            one = f", all with the {spreads[0]} spread of strengths" if len(t) > 1 and len(spreads) == 1 else ""
            per.append(f"at {n} models {word} "
                       f"({vd.count('a saving')} of {len(t)} resolvable settings a saving, {vd.count('a loss')} a loss"
                       f"{one})")  # fmt: skip
        lines.append(f"- *{claim}*: " + "; ".join(per) + ".")
    per = []
    for n in sorted(cal["n_models"].unique()):
        hi = cal[(cal["n_models"] == n) & (cal["reported_lo"] >= 0.95)]
        if not len(hi):
            per.append(f"at {n} models no board reports more than 95 %")
            continue
        if all(r.observed_lo <= r.mean_reported <= r.observed_hi for r in hi.itertuples()):
            word = "calibrated within the Monte Carlo interval"
        elif all(r.observed_lo > r.mean_reported or r.observed_hi >= r.mean_reported for r in hi.itertuples()):
            word = "conservative (the leader is truly best more often than reported)"
        else:
            word = "over-confident (the leader is truly best less often than reported)"
        per.append(f"at {n} models {word} "
                   f"(reported {', '.join(f'{r.mean_reported:.3f}' for r in hi.itertuples())}; observed "
                   + ", ".join(f"{r.observed:.3f} [{r.observed_lo:.3f}, {r.observed_hi:.3f}]" for r in hi.itertuples())
                   + ")")  # fmt: skip
    sv = calibration_setting_values(cs)
    lines.append("- *A reported P(best) above 95 % means what it says* (tested for the simulation board's P(best): the "
                 "Laplace posterior of its MAP Bradley–Terry fit, whichever design chose the pairs; not TrueSkill's, "
                 "nor the figure HUMAINE publishes): pooled over settings, " + "; ".join(per) + ". Per setting, "
                 + sv["h_cal_set_hi"] + "; " + sv["h_cal_set_lo"] + ".")  # fmt: skip
    per = []
    for n in sorted(cons["n_models"].unique()):
        c = cons[cons["n_models"] == n]
        below = bool((c["ratio"] < 1).all())
        per.append(f"at {n} models {'holds' if below else 'fails'} (posterior SD ratio "
                   f"{c['ratio'].min():.2f} to {c['ratio'].max():.2f}; √(1/G) would be "
                   f"{c['sqrt_1_over_g'].min():.2f} to {c['sqrt_1_over_g'].max():.2f})")  # fmt: skip
    lines.append("- *One board for all groups is less uncertain than any group's board*, said of the pooled board (one "
                 "fit to every group's judgements), whose posterior SD the table shows: true by construction, since it "
                 "has G times the judgements of each group's board, so the simulation tests only by how much: "
                 + "; ".join(per) + ". The consolidated board (the mean of the groups' boards) has no posterior SD "
                 "here; in recovery, " + consolidation_values(cons, cells)["h_cons_gap_phrase"] + ".")  # fmt: skip
    return "\n".join(lines)


def paragraph_phrases(result: HumaneResult) -> dict:
    """The two paragraphs the prose quotes as Markdown (``{glue:md}``): which of the talk's claims hold
    (``h_claims``, :func:`claims_text`) and when information gain pays off (``h_when``, :func:`answer`)."""
    from IPython.display import Markdown

    return {
        "h_claims": Markdown(
            claims_text(
                result.saving,
                result.calibration,
                result.consolidation,
                result.calibration_settings,
                result.consolidation_cells,
            )
        ),
        "h_when": Markdown(answer(result.saving, result.needed)),
    }


#: the chapter's phrases, in the order the chapter glues them
PHRASES = (
    needed_phrases,
    saving_phrases,
    baseline_phrases,
    calibration_phrases,
    consolidation_phrases,
    setup_phrases,
    paragraph_phrases,
)


def summary(result: HumaneResult) -> dict:
    """``{glue key: value}`` for every number and phrase of the chapter's prose: the union of :data:`PHRASES`."""
    return phrases(result, PHRASES, what="humane phrases")
