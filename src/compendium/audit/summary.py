"""What the audit chapter says: every number and sentence of its prose, each a pure function of the result.

:func:`summary` is ``{glue key: value}`` for the whole prose (``notebooks/45_audit.md`` glues it in one call): the
union of the small functions of :data:`PHRASES`, one per section, each of the
:class:`~compendium.audit.build.AuditResult` alone. Sentences that judge ("no judge ... detectably", "one tie
group", "consistent with one order") are generated from the numbers, so they stay true at any seed, level or
data; a simulated number is printed to the digits its Monte-Carlo error supports
(:mod:`compendium.stats.mcdigits`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from compendium.chapter.publish import phrases
from compendium.stats.mcdigits import mc_format, mc_step, share_text

if TYPE_CHECKING:
    from .build import AuditResult

__all__ = [
    "fmt_list",
    "judge_label",
    "separated_pairs",
    "board_sentence",
    "self_preference_phrases",
    "panel_rule_phrases",
    "agreement_phrases",
    "full_data_phrases",
    "board_phrases",
    "transitivity_phrases",
    "votes_phrases",
    "humaine_phrases",
    "PHRASES",
    "summary",
]


def fmt_list(items: Iterable[str]) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    items = list(items)
    if not items:
        return ""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def judge_label(judge: str) -> str:
    """A judge's name without the config's " (judge)" suffix."""
    return judge.removesuffix(" (judge)")


def _pct(x: float, d: int = 0) -> str:
    return f"{100 * x:.{d}f} %"


def _ends(lo: float, hi: float, mc_se: float) -> tuple[str, str]:
    """An interval's ends to the digits their Monte-Carlo error supports (rule "unit"), outwards."""
    step = mc_step(max(float(mc_se), 1e-12), rule="unit") if mc_se > 0 else 0.01
    step = max(step, 0.01)
    return mc_format(lo, step, "down"), mc_format(hi, step, "up")


def _signed(x: float) -> str:
    return f"{x:+.2f}".replace("-", "−")


# ----------------------------------------------------------------------------------------------
# the judge panel
# ----------------------------------------------------------------------------------------------

_REF_WORDS = {"other panel judges": "the other two panel judges", "outside judge": "the outside judge, Claude"}


def _self_sentence(sp: pd.DataFrame, what: str, level: float) -> str:
    """One sentence on every judge x reference row: none / which intervals exclude 0 (with how many would by chance
    at ``level``), and the detectable size."""
    excl = sp[(sp["lo"] > 0) | (sp["hi"] < 0)]
    lo, hi = f"{sp['mde'].min():.2f}", f"{sp['mde'].max():.2f}"
    mde = f"{lo} points" if lo == hi else f"{lo} to {hi} points"
    if excl.empty:
        return (
            f"No judge scores its own model detectably differently from {what}: all {len(sp)} intervals include "
            f"zero. The sample could detect a self-preference of about {mde} on the 0-3 scale (80 % power), so a "
            "smaller one would go unseen."
        )
    parts = []
    for r in excl.itertuples():
        a, b = _ends(r.lo, r.hi, max(r.mc_se_lo, r.mc_se_hi))
        parts.append(
            f"{judge_label(r.judge)} against {_REF_WORDS.get(r.reference_kind, r.reference_kind)}, "
            f"{_signed(r.estimate)} points ({a} to {b})"
        )
    verb = "excludes" if len(excl) == 1 else "exclude"
    return (
        f"{len(excl)} of the {len(sp)} intervals {verb} zero: {'; '.join(parts)}. At a {100 * level:g} % level "
        f"about {(1 - level) * len(sp):.1f} of {len(sp)} would by chance. The detectable size is about {mde} "
        "(80 % power)."
    )


def self_preference_phrases(r: AuditResult) -> dict:
    """The sample, the judges' identities and the self-preference sentence."""
    j = r.judges
    sp = j.self_preference
    mc = float(np.nanmax(sp[["mc_se_lo", "mc_se_hi"]].to_numpy()))
    return {
        "audit_n_items": int(j.unplaced["n_items"]),
        "audit_n_placed": int(j.unplaced["n_placed"]),
        "audit_n_unplaced": int(j.unplaced["n_unplaced"]),
        "audit_judges": fmt_list(judge_label(n) for n in j.names),
        "audit_n_boot": f"{r.params.n_boot:,}",
        "audit_level": f"{100 * r.params.level:g} %",
        "audit_self_sentence": _self_sentence(sp, "the reference judges", r.params.level),
        "audit_self_mde_min": f"{sp['mde'].min():.2f}",
        "audit_self_mde_max": f"{sp['mde'].max():.2f}",
        "audit_self_mc": mc_format(mc, mc_step(mc, rule="unit"), "up") if mc > 0 else "0",
    }


def _moved(summary: pd.DataFrame, rule: str) -> str:
    s = summary.set_index("rule").loc[rule]
    n, m = int(s["n_moved"]), int(s["max_abs_rank_change"])
    if n == 0:
        return "moves no model"
    return f"moves {n} model{'s' if n != 1 else ''} (by at most {m} place{'s' if m != 1 else ''})"


def panel_rule_phrases(r: AuditResult) -> dict:
    """What the median rule does: who decides, recusal and leave-one-judge-out on the sample."""
    j = r.judges
    piv, rec = j.pivotal, j.recusal
    summ = rec["summary"]
    loo = [
        f"without {judge_label(n)} it {_moved(summ, f'without {n}')}"
        for n in j.names
        if f"without {n}" in set(summ["rule"])
    ]
    net = rec["net"]
    return {
        "audit_median_min": _pct(piv["share_median"].min()),
        "audit_median_max": _pct(piv["share_median"].max()),
        "audit_pivotal_min": _pct(piv["share_pivotal"].min()),
        "audit_pivotal_max": _pct(piv["share_pivotal"].max()),
        "audit_changes_min": _pct(piv["share_changes_if_dropped"].min()),
        "audit_changes_max": _pct(piv["share_changes_if_dropped"].max()),
        "audit_recusal_sentence": (
            f"Recusing each judge from its own model's items {_moved(summ, 'recusal')} of the seven in the "
            f"sample's order of mean panel scores; scoring every item with two judges "
            f"{_moved(summ, 'recusal, two judges everywhere')}; {fmt_list(loo)}."
        ),
        "audit_net_sentence": (
            "Net of what leaving a judge out does to every model, a judge's own model changes by "
            + fmt_list(f"{_signed(x.net)} ({judge_label(x.judge)})" for x in net.itertuples())
            + " points of mean panel score when that judge is left out."
        ),
    }


def agreement_phrases(r: AuditResult) -> dict:
    """Agreement and the effective panel size on the sample."""
    rel = r.judges.reliability
    pooled = rel[rel["dimension"] == "POOLED"].iloc[0]
    dims = rel[rel["dimension"] != "POOLED"]
    lo, hi = dims.loc[dims["n_eff"].idxmin()], dims.loc[dims["n_eff"].idxmax()]
    return {
        "audit_mean_r": f"{pooled['mean_r']:.2f}",
        "audit_n_eff": f"{pooled['n_eff']:.2f}",
        "audit_n_eff_lo": f"{lo['n_eff']:.2f}",
        "audit_n_eff_lo_dim": str(lo["dimension"]).replace("_", " "),
        "audit_n_eff_hi": f"{hi['n_eff']:.2f}",
        "audit_n_eff_hi_dim": str(hi["dimension"]).replace("_", " "),
    }


def full_data_phrases(r: AuditResult) -> dict:
    """The judge audit on the per-instance release: a sentence when it is present, the reason when it is not."""
    f = r.judges.full
    if f is None:
        return {
            "audit_full_sentence": (
                "The per-instance release (about 96,000 judge scores, on the Hugging Face hub) is not present in "
                "this build, so the judge audit rests on the bundled sample; acquiring it (the data chapter says how) "
                "adds the same audit on every Layer-1 run, by dimension "
                "and condition, the PWI under each panel rule, and the length of each response against its score."
            )
        }
    sp, cells = f.self_preference, f.by_cell
    n_ex = int(((cells["lo"] > 0) | (cells["hi"] < 0)).sum())
    s = (
        f"On the per-instance release ({int(f.unplaced['n_placed']):,} of {int(f.unplaced['n_runs']):,} Layer-1 runs "
        "with every judge placed): "
        + _self_sentence(sp, "the other two judges", r.params.level)
        + f" By dimension and condition, "
        f"{n_ex} of {len(cells)} intervals exclude zero (about {(1 - r.params.level) * len(cells):.0f} would by chance at "
        f"{100 * r.params.level:g} %)."
    )
    if f.length is not None and len(f.length):
        p = f.length[f.length["model"] == "POOLED"]
        if len(p) and np.isfinite(p["slope"].iloc[0]):
            p = p.iloc[0]
            s += (
                f" Within model, dimension and condition, the panel score changes by {_signed(p['slope'])} points per "
                f"1,000 characters of response ({_signed(p['slope_lo'])} to {_signed(p['slope_hi'])})."
            )
        else:
            s += (
                " Response length does not vary within model, dimension and condition here, so no length effect is "
                "estimable."
            )
    return {"audit_full_sentence": s}


# ----------------------------------------------------------------------------------------------
# the leaderboards
# ----------------------------------------------------------------------------------------------


def separated_pairs(t: pd.DataFrame) -> int:
    """How many of the board's ``K(K-1)/2`` pairs the simultaneous intervals separate, from the rank intervals:
    a model's ``rank_hi`` is ``K`` minus the number of models significantly below it, so the separated pairs
    are the sum of ``K - rank_hi`` (:func:`compendium.audit.ranks.tie_groups`)."""
    return int((len(t) - t["rank_hi"]).sum())


def board_sentence(t: pd.DataFrame, labels: dict[str, str] | None = None) -> str:
    """The tie groups of one board in words, with the separated pairs: a tie group chains adjacent places, so a
    board of one group may still separate its ends (``"one tie group: no two neighbouring places are separated,
    though 3 of its 10 pairs are"``)."""
    labels = labels or {}
    name = [labels.get(m, m) for m in t["model"]]
    groups = [
        ", ".join(n for n, g in zip(name, t["group"], strict=True) if g == k)
        for k in range(1, int(t["group"].max()) + 1)
    ]
    k, pairs = separated_pairs(t), len(t) * (len(t) - 1) // 2
    if len(groups) == 1:
        tail = (
            "and none of its {pairs} pairs is"
            if k == 0
            else f"though {k} of its {pairs} pairs {'is' if k == 1 else 'are'}"
        )
        return f"one tie group: no two neighbouring places are separated, {tail.format(pairs=pairs)}"
    return f"{len(groups)} tie groups ({k} of its {pairs} pairs separated): " + " | ".join(groups)


def board_phrases(r: AuditResult) -> dict:
    """The tie groups of the three boards."""
    from compendium.preferences import MODEL_LABELS

    rk = r.ranks
    pref = rk.pref_groups
    c = float(pref["critical_value"].iloc[0])
    se = float(pref["critical_value_mc_se"].iloc[0])
    top = pref.iloc[0]
    out = {
        "audit_pref_groups": board_sentence(pref, dict(MODEL_LABELS)),
        "audit_pref_crit": mc_format(c, mc_step(se, rule="unit")),
        "audit_pref_top": MODEL_LABELS[top["model"]],
        "audit_pref_top_ranks": f"{int(top['rank_lo'])} to {int(top['rank_hi'])}",
        "audit_pref_boot_same": (
            "gives the same tie groups"
            if list(pref["group"]) == list(rk.pref_groups_boot["group"])
            else "gives other tie groups (" + board_sentence(rk.pref_groups_boot, dict(MODEL_LABELS)) + ")"
        ),
    }
    for cond, key in (("baseline", "base"), ("with_system_prompt", "prompted")):
        t = rk.pwb_groups[cond]
        out[f"audit_pwb_{key}_groups"] = board_sentence(t)
        out[f"audit_pwb_{key}_n_groups"] = int(t["group"].max())
    return out


def transitivity_phrases(r: AuditResult) -> dict:
    """The transitivity test, its power and the circular triads."""
    tr = r.ranks.transitivity
    n = int(tr["n_sims"])
    p = float(tr["p_boot"])
    pse = float(tr["p_boot_mc_se"])
    power = tr["power"]
    consistent = p > 1 - r.params.level
    mdc = tr["mdc"]
    return {
        "audit_g2": f"{tr['G2']:.1f}",
        "audit_g2_df": int(tr["df"]),
        "audit_p_boot": mc_format(p, mc_step(pse, rule="unit")) if pse > 0 else f"{p:.3f}",
        "audit_p_chi2": f"{tr['p_chi2']:.2f}",
        "audit_triads": int(tr["circular_triads"]),
        "audit_max_triads": int(tr["max_circular_triads"]),
        "audit_transitivity_verdict": (
            "consistent with one Bradley-Terry order" if consistent else "not consistent with one Bradley-Terry order"
        ),
        "audit_mdc": f"{100 * mdc:g} %" if np.isfinite(mdc) else "none of the grid's",
        "audit_mdc_power": (
            share_text(float(power.loc[np.isclose(power["p_cycle"], mdc), "power"].iloc[0]), n)
            if np.isfinite(mdc)
            else ""
        ),
        "audit_power_55": share_text(float(power.loc[np.isclose(power["p_cycle"], 0.55), "power"].iloc[0]), n),
        "audit_cycle": fmt_list(_pref_label(m) for m in tr["cycle"]),
    }


def _pref_label(m: str) -> str:
    from compendium.preferences import MODEL_LABELS

    return MODEL_LABELS.get(m, m)


# ----------------------------------------------------------------------------------------------
# the votes
# ----------------------------------------------------------------------------------------------


def votes_phrases(r: AuditResult) -> dict:
    """Position, style and heavy raters: sentences from the row-level data, or what the counts cannot show."""
    v = r.votes
    if v.position is None:
        return {
            "audit_votes_sentence": (
                "The bundled data are pair counts: they record no display order, no response text, no participant "
                "and no demographic group, so position, length and style effects, one rater's influence and a "
                "post-stratified board cannot be measured from them. With the row-level annotations from the hub "
                "(the data chapter says how to acquire them), this section measures all of them but the last."
            )
        }
    pos = v.position
    lo, hi = float(pos["lo"]), float(pos["hi"])
    side = "the response shown first" if pos["kind"] == "position" else "the grid's side A"
    s = (
        f"Of {int(pos['n_decisive']):,} decisive votes, {_pct(float(pos['share']), 1)} went to {side} "
        f"({_pct(lo, 1)} to {_pct(hi, 1)}); the data could detect a deviation from 50 % of "
        f"{100 * float(pos['mde']):.1f} points."
    )
    if pos["kind"] != "position":
        s += " The rows do not record the display order, so this tests the side assignment, not a position bias."
    st = v.style
    if st is not None:
        feats = st[st["kind"] == "style"]
        models = st[st["kind"] == "model"]
        if len(feats):
            lead_plain = models.loc[models["plain_rank"].idxmin(), "term"]
            lead_ctrl = models.loc[models["controlled_rank"].idxmin(), "term"]
            r2 = float(feats["r2_on_models"].max()) if "r2_on_models" in feats else float("nan")
            s += (
                f" Controlling for style ({fmt_list(feats['term'])}), the leader is {_pref_label(lead_ctrl)} "
                f"(without: {_pref_label(lead_plain)})"
            )
            s += (
                f"; but the models explain {100 * r2:.1f} % of the style differences here, so the control is not "
                "identified and its board should not be read."
                if r2 > 0.95
                else "."
            )
        else:
            s += " The rows hold no response texts, so no style control is possible."
    rs = v.raters_summary
    if rs is not None:
        k = int(rs["n_change_leader"])
        s += (
            f" Leaving out any one of the {int(rs['n_participants']):,} participants "
            + ("changes the leader for none of them" if k == 0 else f"changes the leader for {k} of them")
            + f"; the most influential ({int(rs['top_n_judgements'])} votes) moves a log-strength by "
            f"{float(rs['top_max_abs_change']):.3f}."
        )
    return {"audit_votes_sentence": s}


def humaine_phrases(r: AuditResult) -> dict:
    """HUMAINE's post-stratified board against the consolidation, under equal and skewed census margins."""
    h = r.votes.humaine
    n = int(h["equal.n_reps"])
    out = {"audit_h_n": f"{n:,}", "audit_h_groups": int(h["n_groups"]), "audit_h_budget": f"{int(h['budget']):,}"}
    for m in ("equal", "skewed"):
        out[f"audit_h_{m}_differs"] = share_text(float(h[f"{m}.p_leader_differs_consolidated"]), n)
        out[f"audit_h_{m}_dpbest"] = f"{float(h[f'{m}.mean_abs_dpbest_consolidated']):.2f}"
        out[f"audit_h_{m}_true_ps"] = share_text(float(h[f"{m}.p_top_true_poststratified"]), n)
        out[f"audit_h_{m}_true_cons"] = share_text(float(h[f"{m}.p_top_true_consolidated"]), n)
        out[f"audit_h_{m}_pbest_ps"] = f"{float(h[f'{m}.mean_pbest_poststratified']):.2f}"
        out[f"audit_h_{m}_pbest_cons"] = f"{float(h[f'{m}.mean_pbest_consolidated']):.2f}"
    return out


PHRASES = (
    self_preference_phrases,
    panel_rule_phrases,
    agreement_phrases,
    full_data_phrases,
    board_phrases,
    transitivity_phrases,
    votes_phrases,
    humaine_phrases,
)


def summary(result: AuditResult) -> dict:
    """``{glue key: value}`` for every number and phrase of the chapter's prose: the union of :data:`PHRASES`."""
    return phrases(result, PHRASES, what="audit phrases")
