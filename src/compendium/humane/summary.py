"""What the scale chapter says: every number and phrase of its prose, each a pure function of the result.

:func:`summary` is ``{glue key: value}`` for the whole prose (``notebooks/35_humane_scale.md`` glues it in one
call, :func:`compendium.chapter.display.glue_all`): the union of the small functions of :data:`PHRASES`
(collected by :func:`compendium.chapter.publish.phrases`; two that gave one key different values would raise).
``*_txt`` values are rounded to the digits their Monte Carlo interval supports (:mod:`.digits`). The verdict
sentences -- when information gain pays off (:func:`answer`), which of the talk's claims hold (:func:`claims_text`)
-- are the chapter's analysis of its savings (each saving's verdict, :func:`compendium.humane.report.saving_verdict`),
glued as Markdown; the wing has no register (:mod:`.register`), so no sentence here reports a claims check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from compendium.chapter.publish import phrases

from .digits import fmt_n, fmt_saving
from .report import BORDERLINE, censored_both, saving_verdicts
from .views import DESIGN_NAMES

if TYPE_CHECKING:
    from .build import HumaneResult

__all__ = [
    "TARGETS",
    "needed_phrases",
    "saving_phrases",
    "calibration_phrases",
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


def saving_phrases(result: HumaneResult) -> dict:
    """Per saving row: the saving and its interval (-9 where open), as printed, and its verdict; per number of
    models and information-gain design: of the settings the budget can resolve, how many save and how many cost."""
    sav = result.saving
    v: dict[str, object] = {}
    for r, verdict in zip(sav.itertuples(), saving_verdicts(sav)):
        tag = f"{r.target}_{_tag(r)}"
        v[f"h_sav_{tag}"] = r.saving if np.isfinite(r.saving) else -9.0
        v[f"h_sav_{tag}_lo"] = r.saving_lo if np.isfinite(r.saving_lo) else -9.0
        v[f"h_sav_{tag}_hi"] = r.saving_hi if np.isfinite(r.saving_hi) else -9.0
        v[f"h_sav_{tag}_txt"] = fmt_saving(r.saving, r.saving_lo, r.saving_hi, r.saving_min, r.saving_max)
        v[f"h_sav_{tag}_verdict"] = verdict
    ig = sav[sav["design"].isin(["ig_trueskill", "ig_davidson"])]
    for n in sorted(ig["n_models"].unique()):
        for design in ("ig_trueskill", "ig_davidson"):
            t = _resolvable(ig[(ig["n_models"] == n) & (ig["design"] == design)])
            vd = saving_verdicts(t)
            v[f"h_ig_{n}_{design}_n"] = len(t)
            v[f"h_ig_{n}_{design}_n_saving"] = vd.count("a saving")
            v[f"h_ig_{n}_{design}_n_loss"] = vd.count("a loss")
    return v


def calibration_phrases(result: HumaneResult) -> dict:
    """Per number of models, the boards reporting P(best) above 95 %: how many, the mean reported and the share
    whose leader is truly best; and the largest gap between reported and observed over every bin."""
    cal = result.calibration
    v: dict[str, object] = {}
    for n in sorted(cal["n_models"].unique()):
        hi = cal[(cal["n_models"] == n) & (cal["reported_lo"] >= 0.95)]
        v[f"h_cal_{n}_hi_n"] = int(hi["n"].sum())
        if len(hi):
            v[f"h_cal_{n}_hi_reported"] = float((hi["mean_reported"] * hi["n"]).sum() / hi["n"].sum())
            v[f"h_cal_{n}_hi_observed"] = float((hi["observed"] * hi["n"]).sum() / hi["n"].sum())
    v["h_cal_max_gap"] = float((cal["mean_reported"] - cal["observed"]).abs().max())
    return v


def consolidation_values(cons: pd.DataFrame) -> dict:
    """What the prose says of pooled against per-group boards: the SD ratio's range and how far it is above
    √(1/G), the largest recovery gaps between the pooled and the consolidated board, and whether any of them
    exceeds twice its Monte Carlo standard error (paired over the same simulated studies)."""
    excess = cons["ratio"] / cons["sqrt_1_over_g"] - 1
    v: dict[str, object] = {
        "h_cons_ratio_min": float(cons["ratio"].min()),
        "h_cons_ratio_max": float(cons["ratio"].max()),
        "h_cons_all_below_one": "in every setting" if (cons["ratio"] < 1).all() else "not in every setting",
        "h_cons_rank_gap_max": float(cons["rank_gap"].abs().max()),
        "h_cons_top_gap_max": float(cons["top_gap"].abs().max()),
        "h_cons_excess_max": float(excess.max()),
        "h_cons_excess_max_txt": f"{excess.max() * 100:.0f} %",
    }
    gaps = pd.concat([cons[["n_models", "spread", "n_groups", "studies"]].assign(target=t, gap=cons[f"{t}_gap"],
                                                                                 se=cons[f"{t}_gap_se"])
                      for t in ("top", "rank")], ignore_index=True)  # fmt: skip
    big = gaps[gaps["gap"].abs() > 2 * gaps["se"].fillna(0)]
    two_se = float((2 * gaps["se"]).max())
    fewest = int(cons["studies"].min())
    if big.empty:
        v["h_cons_gap_phrase"] = (
            f"no gap exceeds twice its Monte Carlo standard error (twice the standard error is at most "
            f"{two_se:.2f}, with as few as {fewest:,} simulated studies a point), so the simulation detects no "
            "difference between pooling and consolidating"
        )
    else:
        v["h_cons_gap_phrase"] = "the gap exceeds twice its Monte Carlo standard error for " + "; ".join(
            f"{TARGETS[r.target]} at {r.n_models} models, {r.spread} spread, {r.n_groups} groups "
            f"({r.gap:+.3f} ± {r.se:.3f})"
            for r in big.itertuples()
        )
    return v


def consolidation_phrases(result: HumaneResult) -> dict:
    """:func:`consolidation_values` of the result's consolidation table."""
    return consolidation_values(result.consolidation)


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
    out = f"{name} pays off (a saving whose interval excludes zero) for: {_items(t[vd == 'a saving'])}."
    for v, phrase in (("no detectable difference", "It is not detectably different from uniform pairs for"),
                      (BORDERLINE, "It is not detectably different, but only just (an end of the interval "
                       "rounds to 0 %, and which side of zero it falls on follows the resampling), for"),
                      ("not resolved within the budget", "The budget leaves it open for"),
                      ("a loss", "It needs more judgements than uniform pairs for")):  # fmt: skip
        if (vd == v).any():
            out += f" {phrase}: {_items(t[vd == v])}."
    return out


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
            lines.append(f"In short, {DESIGN_NAMES[d]} pays off "
                         + (f"here with the {' and the '.join(pays)} spread" if pays else "nowhere here")
                         + (f" and costs judgements with the {' and the '.join(costs)} spread" if costs else "") + ".")  # fmt: skip
        one = need[(need["n_models"] == n) & (need["n_groups"] == 1)]
        for kind, phrase in (("floor", "uniform pairs and both information-gain designs are at 95 % by the grid's first "
                                       "checkpoint, below which the grid cannot see, so it can show no saving"),
                             ("never", "no design reaches 95 % within the budget")):  # fmt: skip
            cases = sorted(
                {f"{TARGETS[r.target]} at {r.spread} spread" for r in s.itertuples() if censored_both(r) == kind}
            )
            if cases:
                first = f" (≤ {one['n_first'].max():,.0f} decisive judgements)" if kind == "floor" else ""
                lines.append(f"For {', '.join(cases)}, {phrase}{first}.")
        paras.append(f"**At {n} models.** " + " ".join(lines))
    return "\n\n".join(paras)


def claims_text(sav: pd.DataFrame, cal: pd.DataFrame, cons: pd.DataFrame) -> str:
    """The talk's claims, one line each, with what the simulation says at each number of models
    (Markdown built from the tables; no free text from data)."""
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
    lines.append("- *A reported P(best) above 95 % means what it says*: " + "; ".join(per) + ".")
    per = []
    for n in sorted(cons["n_models"].unique()):
        c = cons[cons["n_models"] == n]
        below = bool((c["ratio"] < 1).all())
        per.append(f"at {n} models {'holds' if below else 'fails'} (posterior SD ratio "
                   f"{c['ratio'].min():.2f} to {c['ratio'].max():.2f}; √(1/G) would be "
                   f"{c['sqrt_1_over_g'].min():.2f} to {c['sqrt_1_over_g'].max():.2f})")  # fmt: skip
    lines.append("- *The consolidated board is less uncertain than any group's board*: true by construction, "
                 "since the pooled board has G times the judgements of each group's board, so the simulation "
                 "tests only by how much: " + "; ".join(per) + ".")  # fmt: skip
    return "\n".join(lines)


def paragraph_phrases(result: HumaneResult) -> dict:
    """The two paragraphs the prose quotes as Markdown (``{glue:md}``): which of the talk's claims hold
    (``h_claims``, :func:`claims_text`) and when information gain pays off (``h_when``, :func:`answer`)."""
    from IPython.display import Markdown

    return {
        "h_claims": Markdown(claims_text(result.saving, result.calibration, result.consolidation)),
        "h_when": Markdown(answer(result.saving, result.needed)),
    }


#: the chapter's phrases, in the order the chapter glues them
PHRASES = (
    needed_phrases,
    saving_phrases,
    calibration_phrases,
    consolidation_phrases,
    setup_phrases,
    paragraph_phrases,
)


def summary(result: HumaneResult) -> dict:
    """``{glue key: value}`` for every number and phrase of the chapter's prose: the union of :data:`PHRASES`."""
    return phrases(result, PHRASES, what="humane phrases")
