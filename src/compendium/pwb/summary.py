"""What the PWB chapter says: every number and phrase of its prose, phrased from the chapter's one result.

The chapter (``notebooks/10_pwb.md``) computes once, ``result = compendium.pwb.build(params, inputs)``, and
phrases the result here:

- :func:`summary` -- the dict of every number and phrase its prose quotes (glued in one call with
  :func:`compendium.chapter.display.glue_all`; the keys are the ``{glue:text}`` names of the chapter): the union of
  the small ``*_phrases(result)`` functions of :data:`PHRASES`, one per section of the chapter, each a pure
  function of the result (:func:`compendium.chapter.publish.phrases`: two that give a key different values raise);
- :func:`verdicts` -- the Table 2 sentence and the opening's sentence on the judge-level samples, from the
  statuses the claims check gives the chapter's values.

A sentence whose fact a parameter can change is generated here, so that it is true at every setting (issue 38): from
the result's values, the run's parameters and the claims' statuses, keeping the paper's numbers and the run's apart,
and naming a parameter's run value where the text at the reference names the paper's (the weights of Table 2, the
fourth-judge rule).

Nothing is computed here: the analyses are in :mod:`compendium.pwb.sections` (and the modules it calls), the
``values.json`` entries and result tables in :mod:`compendium.pwb.values`, the claim ids in
:mod:`compendium.pwb.register`, the display copies of the tables in :mod:`compendium.pwb.views`.

Digits: no number phrased here is rounded to a Monte-Carlo error; the chapter prints each to the fixed
decimals of its ``{glue:text}`` format. Two of them carry one: ``pwb_pwi_maxdiff`` (``:.3f``, our point PWIs
against the published 10,000-draw bootstrap means) and ``pwb_post_maxdev`` (``:.4f``, the implied posterior
means against the released ones, the authors' 10,000-draw posterior average); their digits are the committed
book's and stay as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from compendium.chapter import numbers
from compendium.chapter.publish import phrases

from . import paper_printed as printed
from .aggregates import mean_printed_delta
from .build import PwbResult
from .constants import dim_label
from .values import slip_notes

__all__ = [
    "PHRASES",
    "summary",
    "verdicts",
    "VERDICT_NAMES",
    "count_word",
    "instances_status",
]

_WORDS = {0: "No", 1: "One", 2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven", 8: "Eight", 9: "Nine"}


def count_word(n: int, capital: bool = True, small: int = 9) -> str:
    """``n`` as an English word up to ``small`` ("Seven", or "seven" with ``capital=False``), else digits."""
    if 0 <= n <= small:
        w = _WORDS[n]
        return w if capital else w.lower()
    return str(n)


def _phrase_list(items: list[str]) -> str:
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def _pwi_off(t2: pd.DataFrame) -> list[tuple[str, str]]:
    """(model, condition) of the published PWIs that differ from our point PWI rounded to 1 decimal."""
    return [
        (r["model"], cond)
        for _, r in t2.iterrows()
        for cond in ("baseline", "prompted")
        if round(float(r[cond]), 1) != float(r[f"{cond}_released"])
    ]


def _sens_n_match(cmp: pd.DataFrame) -> int:
    return int(
        sum(
            (cmp[c].round(d) == cmp[f"{c}_printed"]).sum()
            for c, d in (("kendall_tau", 3), ("max_dev", 1), ("min_delta", 1))
        )
        + (cmp["top3_stable"] == cmp["top3_stable_printed"]).sum()
    )


def _paper_weights(r: PwbResult) -> bool:
    """Whether the run weights the PWI with the paper's scheme (``weight_scheme`` at its reference value)."""
    from compendium.pipeline.params import REFERENCE

    return str(r.params.weight_scheme) == str(REFERENCE["pwb"]["weight_scheme"][0])


def instances_status(r: PwbResult) -> str:
    """The chapter's sentence on the per-instance data (``pwb_inst_status``)."""
    if r.instances is not None:
        return (
            "The per-instance results are present in this build: the bootstrap PWIs, d_pooled, the Table 3 CIs, "
            "paired tests, IRR on complete triples and r(CF, CO) are computed from them and fill the claim ids."
        )
    return (
        "The per-instance results are not in this build (they are on the Hugging Face hub only), so d_pooled, "
        "the bootstrap intervals, the paired tests, the full IRR table and r(CF, CO) carry no reproduced value; "
        "acquiring them (python -m compendium.data.acquire pwb) makes the stage compute all of them."
    )


# ------------------------------------------------------------------------------------ the sections
# Each takes the result ``r`` and returns its glue keys, in the order the chapter quotes them.


def reconstruction_phrases(r: PwbResult) -> dict:
    """The models and dimensions, the published Table 2 quoted, the cell sums and their checks, the scheme."""
    from IPython.display import Markdown

    from compendium.chapter.safetext import code

    a, published = r.aggregates, r.inputs.published
    cells = a.cells
    n_models = int(cells["model"].nunique())
    pub_base = [v for k, v in published.items() if k.startswith("pwb.pwi.") and k.endswith(".baseline")]
    scheme_note = "the paper's v2.1 weights" if _paper_weights(r) else "not the paper's v2.1 weights"
    return {
        "pwb_n_models": n_models,
        "pwb_n_pwis": 2 * n_models,
        "pwb_n_models_word": {7: "Seven"}.get(n_models, str(n_models)),
        "pwb_n_dims": int(cells["dimension"].nunique()),
        "pwb_pub_base_min": float(min(pub_base)),
        "pwb_pub_base_max": float(max(pub_base)),
        "pwb_pub_mean_delta": float(published["pwb.delta.mean"]),
        "pwb_n_cells": len(cells),
        "pwb_n_checks": len(a.checks),
        "pwb_recon_maxdiff": numbers.difference(a.checks["abs_diff"].max()),  # "0" when exact, not "0.0e+00"
        # a released posterior mean is the authors' 10,000-draw average: printed to 4 decimals (no MC rule)
        "pwb_post_maxdev": float((cells["posterior_implied"] - cells["posterior_released"]).abs().max()),
        "pwb_weight_scheme_md": Markdown(f"{code(r.params.weight_scheme)} ({scheme_note})"),
    }


def table2_phrases(r: PwbResult) -> dict:
    """Table 2: our point PWIs against the published bootstrap means, the gains."""
    t2 = r.aggregates.t2
    gaps = pd.concat([t2["diff_baseline"], t2["diff_prompted"]]).abs()
    g = {
        # against the published 10,000-draw bootstrap means: printed to 3 decimals (no MC rule)
        "pwb_pwi_maxdiff": float(gaps.max()),
        "pwb_pwi_within": pwi_within(r),
        "pwb_pwi_off_md": pwi_off_sentence(r),
        "pwb_n_within_tol": int((gaps <= 0.1).sum()),
        "pwb_mean_delta": mean_printed_delta(t2["baseline"], t2["prompted"]),
    }
    for name, col in (("delta", "delta_printed"), ("base", "baseline"), ("prompt", "prompted")):
        g[f"pwb_{name}_min"], g[f"pwb_{name}_max"] = float(t2[col].min()), float(t2[col].max())
    return g


def pwi_within(r: PwbResult) -> str:
    """The opening's "within 0.06 points of the published bootstrap mean", naming this run's weights where they
    are not the paper's (the published PWIs are the paper's v2.1 ones)."""
    t2 = r.aggregates.t2
    gap = float(pd.concat([t2["diff_baseline"], t2["diff_prompted"]]).abs().max())
    text = f"{gap:.2f} points of the published bootstrap mean"
    if _paper_weights(r):
        return text
    return f"{text}, which uses the paper's v2.1 weights where this run uses {r.params.weight_scheme}"


def pwi_off_sentence(r: PwbResult):
    """The Table 2 paragraph on the published PWIs that differ from our point PWI rounded to one decimal, true at
    every setting (issue 38): how many, by how much (the largest difference, from the values), and why: at the
    paper's weights a difference of one unit in the last digit is the bootstrap's Monte-Carlo noise (the released
    point PWIs of ``summary_table.csv`` are checked against ours, "as we do" only where they equal them); at other
    weights the difference is the weights', since the published PWIs are the paper's v2.1 ones. Markdown."""
    from IPython.display import Markdown

    from compendium.chapter.safetext import code, markup

    t2 = r.aggregates.t2.set_index("model")
    off = _pwi_off(t2.reset_index())
    summ = r.inputs.released["summary"].set_index("Model")
    if not off:
        return Markdown("No published PWI differs from the point value rounded to one decimal.")
    ours = [round(float(t2.loc[m, c]), 1) for m, c in off]
    gaps = [round(abs(o - float(t2.loc[m, f"{c}_released"])), 1) for o, (m, c) in zip(ours, off, strict=True)]
    by = f"by {gaps[0]:.1f}" if len(set(gaps)) == 1 else f"by up to {max(gaps):.1f}"
    one = len(off) == 1
    if not _paper_weights(r):
        n_all = 2 * len(t2)
        which = f"all {n_all} published PWIs" if len(off) == n_all else f"{len(off)} of the {n_all} published PWIs"
        return Markdown(
            markup(
                "At this run's weights, {} (not the paper's v2.1 weights), {} {} from our point value rounded to one "
                "decimal, {}: the published PWIs are computed with the paper's weights, so the difference is the "
                "weights', not the bootstrap's Monte-Carlo noise.",
                code(r.params.weight_scheme),
                which,
                "differs" if one else "differ",
                by,
            )
        )
    names = " and ".join(f"{m} {c}" for m, c in off)
    released = [float(summ.loc[m, "PWI_" + c]) for m, c in off]
    head = markup(
        "{} published {} ({}) {} from the point value rounded to one decimal, {}.",
        count_word(len(off)),
        "PWI" if one else "PWIs",
        names,
        "differs" if one else "differ",
        by,
    )
    prints = " and ".join(f"{x:.1f}" for x in released)
    them = "it" if one else "them"
    if max(gaps) <= 0.1 and released == ours:
        tail = markup(
            " That is the bootstrap's Monte-Carlo noise, not an error: the released {}, which holds point PWIs, "
            "prints {} for {}, as we do.",
            code("summary_table.csv"),
            prints,
            them,
        )
    else:
        tail = markup(
            " The released {}, which holds point PWIs, prints {} for {}; we give {}.",
            code("summary_table.csv"),
            prints,
            them,
            " and ".join(f"{x:.1f}" for x in ours),
        )
    return Markdown(head + tail)


def d_pooled_phrases(r: PwbResult) -> dict:
    """d_pooled approximated from the aggregates, with its rounding bounds."""
    d = r.aggregates.d_approx
    return {
        "pwb_dpool_n_match": int(d["rounds_to_printed"].sum()),
        "pwb_dpool_maxwidth": float((d["d_hi"] - d["d_lo"]).max()),
        "pwb_dpool_min": float(d["d_pooled"].min()),
        "pwb_dpool_max": float(d["d_pooled"].max()),
    }


def dimension_phrases(r: PwbResult) -> dict:
    """Table 3, the Layer-1 means and the model x dimension profile."""
    a = r.aggregates
    d_ = a.diag.set_index("dimension")
    g = {}
    for dim, col in (
        ("complementarity", "delta"),
        ("cognitive_forcing", "baseline"),
        ("cognitive_forcing", "prompted"),
        ("anti_sycophancy", "baseline"),
        ("anti_sycophancy", "prompted"),
        ("contrastive_explanation", "delta"),
        ("ethical_surfacing", "prompted"),
        ("appropriate_reliance", "prompted"),
        ("draft_annotation", "prompted"),
    ):
        g[f"pwb_dim_{dim}_{col}"] = float(d_.loc[dim, col])
    g["pwb_dim_ratio"] = float(d_["delta"].max() / d_["delta"].min())
    l1_ = a.l1.set_index("condition")
    g["pwb_l1_base"] = float(l1_.loc["baseline", "mean"])
    g["pwb_l1_prompt"] = float(l1_.loc["with_system_prompt", "mean"])
    g["pwb_l1_nb"] = int(l1_.loc["baseline", "n"])
    g["pwb_l1_np"] = int(l1_.loc["with_system_prompt", "n"])
    neg = a.matrices["delta"].stack()
    neg = neg[neg < 0]
    by_model: dict[str, list[str]] = {}
    for (m, dd), _v in neg.items():
        by_model.setdefault(m, []).append(dim_label(dd))
    g["pwb_neg_cells"] = "; ".join(f"{m} on {', '.join(ds)}" for m, ds in by_model.items()) or "none"
    return g


def correlation_phrases(r: PwbResult) -> dict:
    """The released correlation matrix."""
    corr = r.inputs.released["correlation"]
    offd = corr.where(~np.eye(len(corr), dtype=bool)).stack()
    cf_co = float(corr.loc["cognitive_forcing", "complementarity"])
    return {
        "pwb_cf_co_released": cf_co,
        "pwb_corr_n_above": int((offd.abs() > 0.70).sum() // 2),
        "pwb_corr_second": float(offd[offd < cf_co - 1e-12].max()),
    }


def sensitivity_phrases(r: PwbResult) -> dict:
    """Weight sensitivity, the restore grid and the v2.0 leaderboard."""
    sen = r.sensitivity
    s_ = sen.sens.set_index("scheme")
    lbc = sen.lb_cmp
    return {
        "pwb_cf_heavy_weight": float(r.params.cf_heavy_weight),
        "pwb_restore_weight": float(r.params.restore_weight),
        "pwb_tau_equal": float(s_.loc["equal", "kendall_tau"]),
        "pwb_min_gain": float(s_["min_delta"].min()),
        "pwb_min_gain_scheme": SCHEME_NAMES[str(s_["min_delta"].idxmin())],
        "pwb_restore_min": float(s_.loc["restore_ut_ar", "min_delta"]),
        "pwb_default_min": float(s_.loc["default", "min_delta"]),
        "pwb_v20_min": float(s_.loc["v2_0", "min_delta"]),
        "pwb_sens_n_match": _sens_n_match(sen.cmp),
        "pwb_sens_n_entries": int(4 * len(sen.cmp)),
        "pwb_grid_005": float(sen.grid.loc[0.05, 0.05]),
        "pwb_sensitivity_lead": sensitivity_lead(r),
        "pwb_lb_n_match": int(
            sum((lbc[c].round(1) == lbc[f"{c}_printed"]).sum() for c in ("baseline", "prompted", "delta"))
        ),
        "pwb_lb_n_printed": int(3 * len(lbc)),
    }


#: each weighting scheme as the weight-sensitivity figure's caption names it
SCHEME_NAMES = {
    "default": "the default",
    "equal": "equal weights",
    "cf_heavy": "CF-heavy",
    "restore_ut_ar": "the restored UT + AR_d",
    "v2_0": "the v2.0 weights",
}


#: the pwb keys the weight-sensitivity appendix depends on (its schemes: the run's weights and the two free weights)
SENSITIVITY_KEYS = ("weight_scheme", "cf_heavy_weight", "restore_weight")


def sensitivity_lead(r: PwbResult) -> str:
    """The opening's sentence on the weight-sensitivity appendix and its slip about the restored dimensions, true
    at every setting (issue 38): whether the appendix reproduces comes from how many of its printed entries this
    run's values round to, and the paper's numbers are kept apart from the run's: the text's "+24.8" and the
    table's printed value beside what the data give at 0.05 and at the paper's 0.10 (the restore grid, which no
    parameter moves), and, off the paper's weights, this run's own restored scheme named as this run's."""
    from compendium.pipeline.params import REFERENCE

    sen = r.sensitivity
    n_match, n = _sens_n_match(sen.cmp), int(4 * len(sen.cmp))
    s_ = sen.cmp.set_index("scheme")
    printed_restore = float(s_.loc["restore_ut_ar", "min_delta_printed"])
    changed = [
        f"pwb.{k} = {getattr(r.params, k)} (the paper: {REFERENCE['pwb'][k][0]})"
        for k in SENSITIVITY_KEYS
        if str(getattr(r.params, k)) != str(REFERENCE["pwb"][k][0])
    ]
    if n_match == n:
        lead = "The weight-sensitivity appendix reproduces to the printed digit, and with it two of the paper's slips"
    else:
        where = f" at this run's settings ({'; '.join(changed)})" if changed else ""
        lead = (
            f"The weight-sensitivity appendix matches {n_match} of its {n} printed entries{where}"
            + ("; at the paper's weights it reproduces to the printed digit" if changed else "")
            + ". Two of the paper's slips hold at any setting"
        )
    own = (
        f"; this run restores them at {r.params.restore_weight:g}: +{float(s_.loc['restore_ut_ar', 'min_delta']):.1f}"
        if str(r.params.restore_weight) != str(REFERENCE["pwb"]["restore_weight"][0])
        else ""
    )
    return (
        f'{lead}: the "+24.8" the text quotes for restoring the two excluded dimensions is what restoring them at '
        f"0.05 instead of 0.10 gives (+{float(sen.grid.loc[0.05, 0.05]):.1f}; the paper's own table prints "
        f"+{printed_restore:.1f}, and the data give +{float(sen.grid.loc[0.10, 0.10]):.1f} at 0.10{own})"
    )


def pilot_phrases(r: PwbResult) -> dict:
    """The human pilot."""
    p = r.validation.pilot
    g = {
        "pwb_pilot_n": p["overall"]["n"],
        "pwb_pilot_dim_min": int(p["per_dimension"]["n"].min()),
        "pwb_pilot_dim_max": int(p["per_dimension"]["n"].max()),
    }
    g["pwb_pilot_exact"], g["pwb_pilot_adj"], g["pwb_pilot_qwk"] = (
        p["overall"][k] for k in ("exact", "adjacent", "qwk")
    )
    g["pwb_pilot_low_n"], g["pwb_pilot_low_exact"], g["pwb_pilot_low_adj"] = (
        p["low_irr"][k] for k in ("n", "exact", "adjacent")
    )
    return g


def fourth_judge_records_phrases(r: PwbResult) -> dict:
    """The fourth-judge file: records, duplicates, failed calls, the rules compared."""
    val = r.validation
    au = val.audit
    att = sorted({int(x) for x in r.inputs.fourth_errors["attempts"]})
    per_dim_n = sorted(set(au["per_dimension_n"].values()))
    return {
        "pwb_fj_records": au["n_records"],
        "pwb_fj_items": au["n_items"],
        "pwb_fj_dup_ids": _phrase_list([str(i) for i in au["duplicated_items"]]),
        "pwb_fj_dup_lastpos": int(val.dups["line"].max()),
        "pwb_fj_dup_disagree": sum(len(set(v)) > 1 for v in au["duplicate_scores"].values()),
        "pwb_fj_dup_n": len(au["duplicated_items"]),
        "pwb_fj_dup_records": len(val.dups),
        "pwb_fj_err_attempts": str(att[0]) if len(att) == 1 else f"{att[0]}–{att[-1]}",
        "pwb_fj_err_records": au["n_error_records"],
        "pwb_fj_err_range": f"{au['error_item_range'][0]}–{au['error_item_range'][1]}",
        "pwb_fj_n": au["n_sample"],
        "pwb_fj_per_dim": str(per_dim_n[0]) if len(per_dim_n) == 1 else f"{per_dim_n[0]}–{per_dim_n[-1]}",
        "pwb_fj_rule_md": fourth_judge_rule_sentence(r),
        "pwb_fj_rule_spread": float(val.rules["qwk"].max() - val.rules["qwk"].min()),
        "pwb_fj_rules_list": ", ".join(
            RULE_ROWS[x] + (" (used)" if x == r.params.fourth_judge_rule else "") for x in val.rules["rule"]
        ),
    }


#: the fourth-judge file's duplicate-handling rules (``pwb.fourth_judge_rule``), as the rule sentence states each
RULE_TEXT = {
    "first": "keep the first valid record (score 0–3) of each {item_id} in file order",
    "last": "keep the last valid record (score 0–3) of each {item_id} in file order",
    "drop": "keep the valid record (score 0–3) of each {item_id} scored once, and drop every item scored twice",
    "all": "keep every valid record (score 0–3), both records of an {item_id} scored twice included",
}
#: each rule as the agreement paragraph names it
RULE_NAMES = {
    "first": "the first-record rule",
    "last": "the last-record rule",
    "drop": "the rule that drops the items scored twice",
    "all": "the all-records rule",
}
#: each rule as the caption of the rules table lists it, in the table's order
RULE_ROWS = {
    "first": "first valid record",
    "last": "last valid record",
    "drop": "drop duplicated items",
    "all": "keep all records",
}
#: the rule of the authors' own ``pilot/analyze.py``
AUTHORS_RULE = "first"


def _off_rule(r: PwbResult) -> str:
    """The run's rule named as its parameter (" (this run's pwb.fourth_judge_rule = all)") where it is not the
    reference one, else the empty string."""
    from compendium.pipeline.params import REFERENCE

    rule = r.params.fourth_judge_rule
    return "" if rule == REFERENCE["pwb"]["fourth_judge_rule"][0] else f" (this run's pwb.fourth_judge_rule = {rule})"


def fourth_judge_rule_sentence(r: PwbResult):
    """The rule of the fourth-judge sample, as this run applies it, and what it yields (issue 38): the run's rule
    (named as the run's parameter where it is not the reference one), its *N* and its per-dimension counts ("exactly"
    only where every dimension has the same), and the authors' own rule beside it where the run's is another.
    Markdown."""
    from IPython.display import Markdown

    from compendium.chapter.safetext import code, markup

    val, rule = r.validation, r.params.fourth_judge_rule
    au = val.audit
    per_dim = sorted(set(au["per_dimension_n"].values()))
    each = f"exactly {per_dim[0]}" if len(per_dim) == 1 else f"{per_dim[0]}–{per_dim[-1]}"
    name = "Rule" + (markup(" (this run's {})", code(f"fourth_judge_rule = {rule}")) if _off_rule(r) else "")
    text = markup(RULE_TEXT[rule], item_id=code("item_id"))
    head = f"**{name}: {text}; failed calls never enter.** It yields *N* = {au['n_sample']}, {each} per dimension"
    if rule == AUTHORS_RULE:
        return Markdown(head + markup(", and is the rule of the authors' own {}.", code("pilot/analyze.py")))
    n_authors = int(val.rules.set_index("rule").loc[AUTHORS_RULE, "n"])
    return Markdown(
        head
        + markup(
            "; the authors' own {} keeps the first valid record of each item instead, which yields *N* = {}.",
            code("pilot/analyze.py"),
            n_authors,
        )
    )


def agreement_phrases(r: PwbResult) -> dict:
    """The fourth judge's agreement with the panel, the panel's IRR on the sample and the released full IRR."""
    val = r.validation
    fa, fpd = val.fa, val.fa["per_dimension"].set_index("dimension")
    sirr_ = val.sirr.set_index("dimension")
    irr_rel = r.inputs.released["irr"].rename(columns={"Dimension": "dimension", "N": "n"}).set_index("dimension")
    g = {}
    g["pwb_fj_exact"], g["pwb_fj_adj"], g["pwb_fj_qwk"] = (fa["overall"][k] for k in ("exact", "adjacent", "qwk"))
    g["pwb_fj_agreement"] = fourth_judge_agreement_sentence(r)
    g["pwb_fj_weakest"] = fourth_judge_weakest_sentence(r)
    g["pwb_fj_n_triples"] = int(sirr_.loc["POOLED", "n"])
    g["pwb_irr_full_n"] = int(irr_rel.loc["POOLED", "n"])
    below = irr_rel.drop("POOLED")["qwk"].sort_values()
    below = below[below < 0.70]
    g["pwb_irr_below_n"] = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}.get(len(below), str(len(below)))
    g["pwb_irr_below_names"] = ", ".join(dim_label(dd) for dd in below.index)
    g["pwb_fj_beats_panel"] = int(sum(fpd.loc[dd, "qwk"] > sirr_.loc[dd, "qwk"] for dd in below.index))
    return g


def _fj_printed_triple(x: Mapping) -> str:
    return f"{x['exact']:.1f} %, {x['adjacent']:.1f} % and {x['qwk']:.3f}"


def _fj_rounds_to_printed(x: Mapping) -> bool:
    p = printed.FOURTH_JUDGE_PRINTED
    return (
        round(x["exact"], 1) == p["exact"]
        and round(x["adjacent"], 1) == p["adjacent"]
        and round(x["qwk"], 3) == p["qwk"]
    )


def fourth_judge_agreement_sentence(r: PwbResult) -> str:
    """The fourth judge's agreement with the panel median under this run's rule (issue 38), named as the run's
    parameter where it is not the reference one; this run's numbers are set equal to the paper's three only where
    they round to them, else the paper's are quoted apart, with the rule that gives them (the rules table)."""
    o = r.validation.fa["overall"]
    rule = r.params.fourth_judge_rule
    lead = (
        f"With {RULE_NAMES[rule]}{_off_rule(r)} the fourth judge agrees with the panel median exactly on "
        f"{o['exact']:.1f} % of runs, within one point on {o['adjacent']:.1f} %, with κ = {o['qwk']:.3f}"
    )
    paper = _fj_printed_triple(printed.FOURTH_JUDGE_PRINTED)
    if _fj_rounds_to_printed(o):
        return f"{lead}: the paper's {paper}."
    rules = r.validation.rules.set_index("rule")
    giving = [x for x in rules.index if _fj_rounds_to_printed(rules.loc[x])]
    which = f"what {' and '.join(RULE_NAMES[x] for x in giving)} gives" if giving else "what no rule gives"
    return f"{lead}; the paper's figures are {paper}, {which}."


def fourth_judge_weakest_sentence(r: PwbResult) -> str:
    """The fourth judge's two weakest dimensions in this run's sample (lowest κ), and whether they are the two the
    paper names (it prints their κ: ``paper_printed.FOURTH_JUDGE_PRINTED``)."""
    fpd = r.validation.fa["per_dimension"].dropna(subset=["qwk"]).sort_values("qwk", kind="stable")
    (d1, k1), (d2, k2) = fpd[["dimension", "qwk"]].head(2).itertuples(index=False)
    paper = [k.removeprefix("qwk_") for k in printed.FOURTH_JUDGE_PRINTED if k.startswith("qwk_")]
    names = " and ".join(d.replace("_", " ") for d in paper)
    named = ", as the paper says" if {d1, d2} == set(paper) else f"; the paper names {names}"
    return (
        f"Its weakest dimensions are {d1.replace('_', ' ')} (κ = {k1:.2f}) and {d2.replace('_', ' ')} "
        f"({k2:.2f}){named}."
    )


def stale_phrases(r: PwbResult) -> dict:
    """Where the paper disagrees with its data: the stale appendix table, the stale IRR figures of Section 4.3,
    the figure caption's d, the register's slips."""
    a, released = r.aggregates, r.inputs.released
    stale, prom_m, stale_printed = a.stale, a.matrices["prompted"], a.stale_printed
    irr_ = released["irr"].set_index("Dimension")
    sirr_ = r.validation.sirr.set_index("dimension")
    need = a.stale_irr.set_index("dimension")
    sp = printed.SMALLER_PRINTED
    g = {
        "pwb_stale_n_cells": len(stale),
        "pwb_stale_n_off": int((stale["diff"].abs() > 0.005 + 1e-9).sum()),
        "pwb_stale_max": float(stale["diff"].abs().max()),
        "pwb_stale_mean": float(stale["diff"].abs().mean()),
        "pwb_stale_gpt_cf": float(prom_m.loc["GPT-oss 120B", "cognitive_forcing"]),
        "pwb_stale_gpt_cf_printed": float(stale_printed.loc["GPT-oss 120B", "cognitive_forcing"]),
        "pwb_stale_gpt_cf_rank": int(prom_m["cognitive_forcing"].rank(ascending=False).loc["GPT-oss 120B"]),
        "pwb_irr_ut": float(irr_.loc["uncertainty_transparency", "exact"]),
        "pwb_irr_ar": float(irr_.loc["appropriate_reliance", "exact"]),
        "pwb_irr_as": float(irr_.loc["anti_sycophancy", "exact"]),
        "pwb_sample_ut_exact": float(sirr_.loc["uncertainty_transparency", "exact"]),
        "pwb_sample_ut_n": int(sirr_.loc["uncertainty_transparency", "n"]),
    }
    for dim, key in (("uncertainty_transparency", "ut"), ("appropriate_reliance", "ar"), ("anti_sycophancy", "as")):
        g[f"pwb_need_{key}"] = float(need.loc[dim, "needed_share"])
    g["pwb_dz_check"] = float(sp["paired_t"] / np.sqrt(sp["paired_n"]))
    g["pwb_n_slips"] = count_word(len(slip_notes(r.inputs.notes)), capital=False)  # mid-sentence
    return g


def effect_interval_phrases(r: PwbResult) -> dict:
    """Effect sizes with confidence intervals (pingouin)."""
    e = r.effects
    lowest = e.d_ci.loc[e.d_ci["ci_lower"].idxmin()]
    c = e.cell_ci
    n_pos, n_neg = int((c["ci_lower"] > 0).sum()), int((c["ci_upper"] < 0).sum())
    dc = e.dim_ci.set_index("dimension")
    return {
        "pwb_dci_halfwidth": float(((e.d_ci["ci_upper"] - e.d_ci["ci_lower"]) / 2).max()),
        "pwb_dci_min_lower": float(lowest["ci_lower"]),
        "pwb_dci_min_model": str(lowest["model"]),
        "pwb_cell_d_n": len(c),
        "pwb_cell_d_n_pos": n_pos,
        "pwb_cell_d_n_neg": n_neg,
        "pwb_cell_d_n_zero": len(c) - n_pos - n_neg,
        "pwb_dim_d_min": float(dc["d_pooled"].min()),
        "pwb_dim_d_max": float(dc["d_pooled"].max()),
        "pwb_dim_d_min_name": dim_label(str(dc["d_pooled"].idxmin()), long=True),
        "pwb_dim_d_max_name": dim_label(str(dc["d_pooled"].idxmax()), long=True),
    }


def instances_phrases(r: PwbResult) -> dict:
    """The per-instance data: present or not."""
    return {"pwb_inst_status": instances_status(r)}


#: the chapter's phrases, section by section (:func:`summary` merges them)
PHRASES: tuple[Callable, ...] = (
    reconstruction_phrases,
    table2_phrases,
    d_pooled_phrases,
    dimension_phrases,
    correlation_phrases,
    sensitivity_phrases,
    pilot_phrases,
    fourth_judge_records_phrases,
    agreement_phrases,
    stale_phrases,
    effect_interval_phrases,
    instances_phrases,
)


#: the shares the chapter's prose prints as percentages, with their decimals: each also glued as ``<key>_pct``
#: (``"67 %"``, :func:`compendium.chapter.publish.phrases`)
PERCENTS = {
    "pwb_need_ut": 0,
    "pwb_need_ar": 0,
    "pwb_need_as": 0,
}


def summary(result: PwbResult) -> dict:
    """Every number and phrase the chapter's prose quotes, by its ``{glue:text}`` name (plain Python values;
    ``pwb_weight_scheme_md`` is Markdown for ``{glue:md}``): the union of :data:`PHRASES`."""
    return phrases(result, PHRASES, what="pwb phrases", percents=PERCENTS)


#: the names :func:`verdicts` glues (the chapter quotes them beside those of :func:`summary`)
VERDICT_NAMES = ("pwb_n_pwi", "pwb_pwi_verdict", "pwb_samples_verdict")


def verdicts(values: Mapping, results_dir=None) -> dict[str, object]:
    """The chapter's sentences on reproducing, generated from the statuses the claims check gives its values at
    this run's settings (``compendium.claims.own_statuses``), never fixed text: :func:`pwi_verdict` (Table 2) and
    :func:`samples_verdict` (the opening's sentence on the judge-level samples)."""
    return {**pwi_verdict(values, results_dir), **samples_verdict(values, results_dir)}


def pwi_verdict(values: Mapping, results_dir=None) -> dict[str, object]:
    """The chapter's sentence on Table 2 ("it should match to Monte-Carlo error, and it does"), generated from
    the statuses the claims check gives the 14 PWIs at this run's settings (``compendium.claims.own_statuses``),
    never fixed text: off the paper's settings it says so and names the changed keys."""
    from .. import claims

    ids = [k for k in values if k.startswith("pwb.pwi.") and k.endswith((".baseline", ".prompted"))]
    own = claims.own_statuses("pwb", values, ids, results_dir=results_dir)
    return {
        "pwb_n_pwi": len(ids),
        "pwb_pwi_verdict": claims.verdict(
            own,
            ", and it does",
            ", but this run is off the paper's settings ({keys}), so it does not",
            ", but only {n} of the {m} reproduce",
        ),
    }


#: the register's claims on the judge-level samples (the human pilot, the fourth judge), by prefix
SAMPLE_PREFIXES = ("pwb.pilot.", "pwb.fourth_judge.")
#: how the opening's sentence names each of them that moved away from the paper's
SAMPLE_NAMES = {
    "pwb.pilot.n": "the pilot's size",
    "pwb.pilot.mad": "the pilot's mean absolute deviation",
    "pwb.pilot.ut_ard_n": "the pilot's UT + AR_d subset",
    "pwb.pilot.ut_ard_exact": "the pilot's agreement on UT + AR_d",
    "pwb.pilot.ut_ard_adjacent": "the pilot's agreement on UT + AR_d",
    "pwb.fourth_judge.n": "the fourth-judge sample's size",
    "pwb.fourth_judge.mc_qwk": "the fourth judge's κ on metacognitive calibration",
    "pwb.fourth_judge.ut_qwk": "the fourth judge's κ on uncertainty transparency",
}


def samples_verdict(values: Mapping, results_dir=None) -> dict[str, str]:
    """The opening's sentence on the judge-level samples ("The human pilot and the fourth-judge sample reproduce
    the paper's agreement figures (κ = 0.702 and 0.840)"), true at every setting (issue 38): generated from the
    statuses the claims check gives the register's pilot and fourth-judge claims at this run's settings
    (``compendium.claims.own_statuses``, ``compendium.claims.verdict``; a documented slip among them, *differs*,
    is the slips table's, not this sentence's), and from this run's overall κ of each sample beside the one the
    paper prints (``paper_printed``): "the paper's" only where they round to it; off the paper's settings the
    changed keys and the claims that moved are named."""
    from .. import claims

    published = claims.load_published()
    register = published.loc[published["study"] == "pwb", "claim_id"]
    ids = [c for c in register if c.startswith(SAMPLE_PREFIXES) and values.get(c) is not None]
    own = claims.own_statuses("pwb", values, ids, results_dir=results_dir)
    statuses = {c: st for c, st in own["statuses"].items() if st != "differs"}
    own = {**own, "statuses": statuses, "counts": {**own["counts"], "differs": 0}}
    ours = (float(values["pwb.pilot.qwk"]), float(values["pwb.fourth_judge.qwk"]))
    paper = (printed.PILOT_PRINTED["qwk"], printed.FOURTH_JUDGE_PRINTED["qwk"])
    k_ours, k_paper = f"κ = {ours[0]:.3f} and {ours[1]:.3f}", f"{paper[0]:.3f} and {paper[1]:.3f}"
    same = all(round(o, 3) == q for o, q in zip(ours, paper, strict=True))
    at = "at this run's settings ({keys})"
    reproduce = f"reproduce the paper's agreement figures ({k_ours})"
    give = f"give {k_ours} {at}, where the paper prints {k_paper}"
    return {
        "pwb_samples_verdict": claims.verdict(
            own,
            reproduce if same else f"give {k_ours}, where the paper prints {k_paper}",
            (f"reproduce the paper's κ values ({k_ours}) {at}, but " if same else give + ", and ")
            + "{moved} moved away from the paper's",
            f"reproduce only {{n}} of the {{m}} agreement figures checked ({k_ours}; the paper prints {k_paper})",
            unmoved=reproduce if same else give + ", and the paper's other agreement figures still reproduce",
            names=SAMPLE_NAMES,
        )
    }
