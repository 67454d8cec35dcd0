"""What the preferences chapter says: every number and phrase its prose quotes, from one build's result.

:func:`summary` turns a :class:`compendium.preferences.build.PreferencesResult` into the ``{glue:text}`` values of
the chapter's prose (one flat dict, glued in one call by :func:`compendium.chapter.display.glue_all`): the union of
one small pure function per section (:data:`PHRASES`, collected by :func:`compendium.chapter.publish.phrases`),
each reading the result and computing nothing the result holds. :func:`rowlevel_text` phrases the row-level
section and :func:`register_phrases` the register's counts. :func:`verdicts` says how many of the register's
claims reproduce, from the statuses the claims check gives them at this run's settings
(``compendium.claims.own_statuses``, ``compendium.claims.verdict``), and :func:`claims_check` lists them. The
tables' display copies are in :mod:`.views`.

Simulated numbers are printed to the digits their Monte Carlo error supports (:mod:`compendium.stats.mcdigits`):
a number of judgements or a widening ratio by the rule ``"estimate"`` (the shortest number within one standard
error), the ends of its Monte Carlo interval by the rule ``"leading"`` (the error's leading digit).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from compendium.chapter import numbers
from compendium.chapter.publish import phrases
from compendium.pipeline import paths, yamlfile
from compendium.stats.mcdigits import mc_format, mc_step, mc_text  # mc_text: this chapter's, shared

from . import register, rowlevel
from .build import STUDY
from .reproduce import MODEL_LABELS, MODELS
from .simulation import STRATEGIES

if TYPE_CHECKING:
    from .build import PreferencesResult

__all__ = [
    "PHRASES",
    "summary",
    "verdicts",
    "claims_check",
    "register_phrases",
    "rowlevel_text",
    "dropped_text",
    "mc_text",
    "overlap_share",
    "overlap_word",
    "interval_overlap_text",
    "error_ratio_text",
    "mc_settings_off",
]


def _mc_estimate(x: float, se: float) -> float:
    """``x`` rounded to the unit its Monte Carlo SE supports (rule ``"estimate"``), as a number."""
    step = mc_step(se, x, "estimate")
    return round(x / step) * step


def survive_phrase(n: int) -> str:
    """How many pairs survive a correction, as the prose says it: "none survives", "1 survives", "2 survive"."""
    if n < 0:
        raise ValueError(f"a count of pairs cannot be negative: {n}")
    return "none survives" if n == 0 else f"{n} survives" if n == 1 else f"{n} survive"


def pairs_phrase(n: int) -> str:
    """``n`` pairs with the noun agreeing: "no pair", "1 pair", "3 pairs"."""
    if n < 0:
        raise ValueError(f"a count of pairs cannot be negative: {n}")
    return "no pair" if n == 0 else "1 pair" if n == 1 else f"{n} pairs"


#: how much two intervals overlap, in words: (smallest share of the narrower interval's width, word), largest first
OVERLAP_WORDS = ((0.75, "almost entirely"), (0.4, "widely"), (0.0, "only partly"))


def overlap_share(a: tuple[float, float], b: tuple[float, float]) -> float:
    """The length two intervals ``(lo, hi)`` share, as a share of the narrower one's width (0 when disjoint)."""
    shared = min(a[1], b[1]) - max(a[0], b[0])
    return max(0.0, shared) / min(a[1] - a[0], b[1] - b[0])


def overlap_word(share: float) -> str:
    """:data:`OVERLAP_WORDS` for a share of the narrower interval (:func:`overlap_share`); "not at all" for 0."""
    if share <= 0:
        return "not at all"
    return next(word for lo, word in OVERLAP_WORDS if share >= lo)


def interval_overlap_text(boot_summary: pd.DataFrame) -> str:
    """How the bootstrap intervals of Recipes B, C and D overlap, from the intervals themselves (``boot_summary``:
    columns ``model, ci_lo, ci_hi``): "the intervals of Recipes C and D overlap almost entirely, those of B, C and
    D widely", or, where B's overlaps with C and with D differ, each pair on its own ("..., those of B and D widely
    and those of B and C only partly")."""
    s = boot_summary.set_index("model")
    iv = {
        m[-1].upper(): (float(s.loc[m, "ci_lo"]), float(s.loc[m, "ci_hi"]))
        for m in ("recipe_b", "recipe_c", "recipe_d")
    }
    cd, bd, bc = (overlap_word(overlap_share(iv[x], iv[y])) for x, y in (("C", "D"), ("B", "D"), ("B", "C")))
    lead = "the intervals of Recipes C and D " + ("do not overlap" if cd == "not at all" else f"overlap {cd}")
    return (
        f"{lead}, those of B, C and D {bd}" if bd == bc else f"{lead}, those of B and D {bd} and those of B and C {bc}"
    )


_TIMES = {2: "twice", 3: "three times", 4: "four times", 5: "five times", 6: "six times", 7: "seven times",
          8: "eight times", 9: "nine times", 10: "ten times"}  # fmt: skip


def error_ratio_text(n_reference: int, n_own: int) -> str:
    """The Monte Carlo error of a statistic over ``n_own`` replicates against the same statistic's over
    ``n_reference`` (errors scale as 1/sqrt(n)): "about three times that error" (5,000 against 50,000), "about 1.6
    times that error" (20,000), "about the same error"."""
    f = float(np.sqrt(n_reference / n_own))
    if abs(f - 1) < 0.05:
        return "about the same error"
    k = round(f)
    if k in _TIMES and abs(f - k) <= 0.2:
        return f"about {_TIMES[k]} that error"
    return f"about {f:.1f} times that error"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def category_leaders(cat_bt: pd.DataFrame) -> str:
    """ "Recipe C in advice, ...; ..." : the strongest model per prompt category, grouped by model."""
    leaders = cat_bt.idxmax(axis=1)
    return "; ".join(
        f"{MODEL_LABELS[m]} in {', '.join(c.replace('_', ' ') for c in leaders.index[leaders == m])}"
        for m in MODELS
        if (leaders == m).any()
    )


# ----------------------------------------------------------------------------------------------
# One function per section of the chapter: (result) -> {glue name: value}
# ----------------------------------------------------------------------------------------------


def data_phrases(r: PreferencesResult) -> dict[str, Any]:
    """The data: pair, prompt and category counts, the category-sum check."""
    counts, bc, prompts = r.inputs.counts, r.inputs.by_category, r.inputs.prompts
    return dict(
        pref_cat_match=int(r.report.cat_check["match"].sum()),
        pref_n_pairs=len(counts),
        pref_n_prompts=len(prompts),
        pref_n_categories=int(bc["category"].nunique()),
        pref_ratings_per_cell=float(counts["n"].sum() / (len(counts) * len(prompts))),
        pref_cat_nmin=int(bc["n"].min()),
        pref_cat_nmax=int(bc["n"].max()),
    )


def pair_phrases(r: PreferencesResult) -> dict[str, Any]:
    """The pair table: totals, signals, Recipe D against Recipe B, the win rates against the untrained model."""
    rep = r.report
    out = dict(
        pref_n_ratings=rep.n_ratings,
        pref_n_ties=rep.n_ties,
        pref_tracking=rep.tracking,
        pref_flipping=rep.flipping,
        pref_n_decisive=rep.n_decisive,
        pref_tie_share=float(rep.n_ties / rep.n_ratings),
        pref_db_d=rep.d_vs_b["wins"],
        pref_db_b=rep.d_vs_b["losses"],
    )
    for m, w in rep.vs_base.items():
        out[f"pref_vs_base_{m}"] = float(w)
    return out


def bt_phrases(r: PreferencesResult) -> dict[str, Any]:
    """Bradley-Terry as published: against the published strengths, iterations, the choix cross-check."""
    rep, pub, cc = r.report, r.inputs.published, r.report.crosscheck
    return dict(
        pref_bt_maxdiff=rep.max_diff_vs_published,
        pref_bt_maxdiff_text=numbers.difference(rep.max_diff_vs_published),  # "0", not "0e+00", when exact
        pref_bt_iter=rep.bt_n_iter,
        pref_bt_choix_diff=numbers.difference(cc["abs_diff_procedure_vs_choix"].max()),
        pref_bt_choix_conv=numbers.difference(cc["abs_diff_converged_vs_choix"].max()),
        pref_pub_bt_untrained=f"{pub['hitl.bt.untrained']}",
        pref_pub_participants=f"{pub['hitl.n_participants']}",
        pref_bt_untrained=float(rep.bt.set_index("model").loc["untrained", "strength"]),
    )


def rho_phrases(r: PreferencesResult) -> dict[str, Any]:
    """The metric and people: Spearman rho, its pingouin interval and p-value."""
    ci = r.report.rho_ci
    return dict(
        pref_rho=float(r.report.rho),
        pref_rho_lo=ci["ci_lo"],
        pref_rho_hi=ci["ci_hi"],
        pref_rho_p=ci["p"],
        pref_rho_n=ci["n"],
    )


def category_phrases(r: PreferencesResult) -> dict[str, Any]:
    """Per prompt category: the leaders, the decisive judgements per model and category, a win rate's half-width."""
    per_model = r.categories.model_decisive
    return dict(
        pref_cat_leaders=category_leaders(r.categories.bt),
        pref_cat_model_nmin=int(per_model.min()),
        pref_cat_model_nmax=int(per_model.max()),
        pref_cat_halfwidth=float(1.96 * np.sqrt(0.25 / per_model.median())),
    )


def theme_phrases(r: PreferencesResult) -> dict[str, Any]:
    """The comment themes and the comments they leave out."""
    tc = r.themes.check
    return dict(
        pref_themes_sum=tc["sum_counts"],
        pref_n_themes=len(r.themes.table),
        pref_themes_n=tc["n_comments"],
        pref_themes_gap=tc["difference"],
        pref_themes_gap_share=tc["difference"] / tc["n_comments"],
    )


def bootstrap_phrases(r: PreferencesResult) -> dict[str, Any]:
    """The judgement bootstrap: SDs, P(best) per model, the rank shares, how the intervals of B, C and D overlap."""
    b = r.bootstrap
    bs = b.summary.set_index("model")
    out = dict(
        pref_n_boot=int(r.params.n_bootstrap),
        pref_boot_sd=float(bs["sd_log_strength"].mean()),
        pref_asym_se=float(bs["asymptotic_se_log"].mean()),
    )
    for m in MODELS:
        out[f"pref_p_best_{m.replace('recipe_', '')}"] = float(bs.loc[m, "p_best"])
    out["pref_p_top2_cd"] = float(b.rank_probs.loc[["recipe_c", "recipe_d"], "rank_1"].sum())
    out.update(pref_p_bottom_pair=b.rank_shares["bottom_pair"], pref_p_untrained_last=b.rank_shares["untrained_last"])
    out["pref_bt_overlap"] = interval_overlap_text(b.summary)
    return out


def _mc_se_points(p: float, n: int) -> float:
    """Monte Carlo SE of a share ``p`` of ``n`` replicates, in percentage points."""
    return 100 * float(np.sqrt(p * (1 - p) / n))


def cluster_phrases(r: PreferencesResult) -> dict[str, Any]:
    """The heterogeneity test and the category-cluster bootstrap beside the judgement bootstrap."""
    het, cd_cl = r.categories.heterogeneity, r.cluster.c_vs_d
    bs = r.bootstrap.summary.set_index("model")
    cl = r.cluster.summary
    widen = cl.set_index("model")["sd_log_strength"] / bs["sd_log_strength"]  # per model
    return dict(
        pref_het_chi2=het["chi2"],
        pref_het_df=het["df"],
        pref_het_p=het["p"],
        pref_het_disp=het["dispersion"],
        pref_cl_sd=float(cl["sd_log_strength"].mean()),
        pref_cl_widen=float(cl["sd_log_strength"].mean() / bs["sd_log_strength"].mean()),
        pref_cl_widen_min=float(widen.min()),
        pref_cl_widen_max=float(widen.max()),
        **widen_phrases(r),
        pref_cl_p_best_c=float(cl.set_index("model").loc["recipe_c", "p_best"]),
        pref_cl_cd_p=cd_cl["p_greater"],
        pref_cl_cd_p_se=_mc_se_points(cd_cl["p_greater"], r.params.n_bootstrap),
        pref_cl_cd_lo=cd_cl["ci_lo"],
        pref_cl_cd_hi=cd_cl["ci_hi"],
    )


def widen_range_text(ratios: pd.DataFrame) -> str:
    """``"about 1.65- to 3.0-fold"``: the smallest and largest per-model widening (``ratios``: columns
    ``model, ratio, mc_se``, :func:`compendium.preferences.uncertainty.sd_ratio`), each to the digits its
    own Monte Carlo error supports."""
    lo, hi = ratios.loc[ratios["ratio"].idxmin()], ratios.loc[ratios["ratio"].idxmax()]

    def one(row) -> str:  # rule "estimate": the shortest number within one SE
        return mc_format(row["ratio"], mc_step(row["mc_se"], row["ratio"], "estimate"))

    return f"about {one(lo)}- to {one(hi)}-fold"


def widen_phrases(r: PreferencesResult) -> dict[str, Any]:
    """The widening the category-cluster bootstrap brings, per model, from the ``preferences_mc`` stage's
    many-replicate run (the chapter's own replicates give the same ratios within their own Monte Carlo error): the
    range as printed, its replicates, the largest standard error, and how the error of ratios from this run's
    ``n_bootstrap`` replicates compares with it (:func:`error_ratio_text`)."""
    v = r.inputs.mc["values"]
    if "pref_mc.cluster_widen.replicates" not in v:
        raise ValueError(
            "results/preferences_mc/values.json lacks the widening ratios; re-run `dvc repro preferences_mc`"
        )
    ratios = pd.DataFrame(
        {
            "model": list(MODELS),
            "ratio": [v[f"pref_mc.cluster_widen.{m}"] for m in MODELS],
            "mc_se": [v[f"pref_mc.cluster_widen.{m}_mc_se"] for m in MODELS],
        }
    )
    return dict(
        pref_cl_widen_txt=widen_range_text(ratios),
        pref_cl_widen_reps=int(v["pref_mc.cluster_widen.replicates"]),
        pref_cl_widen_se=float(ratios["mc_se"].max()),
        pref_cl_widen_own_error=error_ratio_text(int(v["pref_mc.cluster_widen.replicates"]), int(r.params.n_bootstrap)),
    )


def c_vs_d_phrases(r: PreferencesResult) -> dict[str, Any]:
    """Are Recipes C and D separable: the pooled interval, P(C stronger), the head-to-head, the verdicts."""
    cd, h2h = r.bootstrap.c_vs_d, r.tests.d_vs_c
    same_dir = (cd["log_ratio"] > 0) == (h2h["win_rate"] < 0.5)  # pooled C > D and C won the head-to-head
    sep = cd["separable"]
    return dict(
        pref_cd_lo=cd["ci_lo"],
        pref_cd_hi=cd["ci_hi"],
        pref_cd_p=cd["p_greater"],
        pref_cd_p_se=_mc_se_points(cd["p_greater"], r.params.n_bootstrap),
        pref_cd_verdict="are separable: the interval excludes equality"
        if sep
        else "cannot be separated: the interval of their strength ratio contains 1",
        pref_h2h_d=h2h["wins"],
        pref_h2h_c=h2h["losses"],
        pref_h2h_rate=float(h2h["win_rate"]),
        pref_h2h_lo=float(h2h["wilson_lo"]),
        pref_h2h_hi=float(h2h["wilson_hi"]),
        pref_h2h_p=float(h2h["binom_p"]),
        pref_ci_level=float(r.params.ci_level),
        pref_cd_answer="Yes, at this interval level" if sep else "No",
        pref_cd_contains="excludes 0" if sep else "contains 0",
        pref_h2h_direction=(
            "the same direction as the pooled ranking" if same_dir else "the opposite direction from the pooled ranking"
        )
        + (", and not significant either" if h2h["binom_p"] >= 0.05 else ""),
        pref_cd_report_verdict="At this interval level the data support the report's \"humans disambiguated the top "
        'two recipes".'
        if sep
        else 'The report\'s "humans disambiguated the top two recipes" is not '
        "supported by these data: Recipe C ranks first on the point estimate only.",
    )


def multiplicity_phrases(r: PreferencesResult) -> dict[str, Any]:
    """How many pairs are beyond chance: unadjusted, Holm, the Wilson rule's familywise error."""
    holm = r.tests.holm
    sig = holm.loc[holm["significant_holm"], ["higher_val_model", "lower_val_model", "p_holm"]]
    n_holm = len(sig)
    return dict(
        pref_unadj_n=int(holm["significant_unadjusted"].sum()),
        pref_holm_n=n_holm,
        pref_holm_survive=survive_phrase(n_holm),
        pref_holm_n_pairs=pairs_phrase(n_holm),
        pref_fwer=float(1 - 0.95 ** len(holm)),
        **{f"pref_fwer_wilson_{k}": x for k, x in r.tests.wilson_fwer.items()},
        pref_holm_pairs="; ".join(
            f"{MODEL_LABELS[a]} vs {MODEL_LABELS[b]}, Holm p = {q:.3f}" for a, b, q in sig.itertuples(index=False)
        )
        or "none",
    )


def davidson_phrases(r: PreferencesResult) -> dict[str, Any]:
    """Ties done properly: nu, the tie probability of equal models, the ranking verdict."""
    dav = r.davidson.fit
    return dict(
        pref_nu=dav["nu"],
        pref_nu_tie=dav["tie_prob_equal_models"],
        pref_davidson_verdict="the same ranking as the half-win fit"
        if dav["same_ranking"]
        else "a different ranking from the half-win fit",
    )


def trueskill_phrases(r: PreferencesResult) -> dict[str, Any]:
    """TrueSkill over random orders: the order effect with and without drift, the gaps it compares with."""
    ts = r.trueskill
    tsd, tss = ts.summary_default, ts.summary_static
    gaps = np.diff(np.sort(tsd["centred_mu_mean"].to_numpy()))
    return dict(
        pref_ts_orders=int(r.params.trueskill_orders),
        pref_ts_libdiff=ts.libdiff,
        pref_ts_match_default=ts.match_default,
        pref_ts_match_static=ts.match_static,
        pref_ts_sd_default=float(tsd["centred_mu_sd_over_orders"].mean()),
        pref_ts_sd_static=float(tss["centred_mu_sd_over_orders"].mean()),
        pref_ts_rawsd_static=float(tss["mu_sd_over_orders"].mean()),
        pref_ts_sigma_static=float(tss["sigma_mean"].mean()),
        pref_ts_gap_min=float(gaps.min()),
        pref_ts_gap_max=float(gaps.max()),
        pref_ts_sigma_default=float(tsd["sigma_mean"].mean()),
        pref_ts_ptop_c=float(tsd.loc["recipe_c", "p_top"]),
    )


def gap_phrases(r: PreferencesResult) -> dict[str, Any]:
    """The truth and its C-D gap: the ties-dropped alternative, the estimate, the adjacent gaps."""
    g, dav = r.gap, r.davidson
    return dict(
        pref_truth_diff=float(np.abs(dav.truth_ties_dropped - dav.truth).max()),
        pref_gap_hat=g.gap_hat,
        pref_gap_p_nonpos=float((g.cd_draws <= 0).mean()),
        pref_gap_adjacent=", ".join(
            f"{MODEL_LABELS[a].replace('Recipe ', '')}–{MODEL_LABELS[b].replace('Recipe ', '')} {x:.3f}"
            for a, b, x in g.adjacent
        ),
        pref_gap_dropped=dropped_text(r),
    )


def dropped_text(r: PreferencesResult) -> str:
    """The gap multiples left out of the needed-by-gap table, "×2" or "none"."""
    return " and ".join(r.gap.dropped) or "none"


def _needed_text(v: float, lo: float, hi: float, se: float, budget: int) -> str:
    """A simulated number of judgements with its 90 % Monte Carlo interval, to the digits its standard
    error ``se`` supports (:func:`mc_text`)."""
    if not np.isfinite(v):
        return f"more than {budget:,}"
    if not (np.isfinite(se) and se > 0):
        return f"about {v:,.0f} (Monte Carlo error not estimable)"
    return mc_text(v, lo, hi, se)


def simulation_phrases(r: PreferencesResult) -> dict[str, Any]:
    """The simulation's settings, recovery at the study's size, and the judgements each design needs."""
    p, sim = r.params, r.simulation
    out: dict[str, Any] = dict(
        pref_sim_batch=int(p.sim_batch),
        pref_sim_round=f"each round of {p.sim_batch} judgements" if p.sim_batch != 1 else "each single judgement",
        pref_sim_skew=float(p.sim_arena_skew),
        pref_sim_every=int(p.sim_checkpoint_every),
        pref_sim_reps=int(p.sim_repetitions),
        pref_sim_target=float(p.sim_target),
        pref_sim_p_rank_study=sim.at_study["p_ranking"],
        pref_sim_p_top_study=sim.at_study["p_top"],
        pref_sim_tie_factor=float(1 / (1 - r.report.n_ties / r.report.n_ratings)),
    )
    nd, budget = sim.needed.set_index("strategy"), p.sim_budget
    for s in STRATEGIES:
        short = {"uniform": "uniform", "information_gain": "ig", "arena": "arena"}[s]
        for k, col in (("rank", "n_for_ranking"), ("top", "n_for_top")):
            v = nd.loc[s, col]
            out[f"pref_sim_{short}_{k}"] = float(v) if np.isfinite(v) else float(budget)
            out[f"pref_sim_{short}_{k}_txt"] = _own_needed(r, s, col)
    return out


def _verdict(cmp: pd.DataFrame, s: str) -> str:
    row = cmp.loc[s]
    word = {
        "more": "recovers the full ranking more often than uniform sampling",
        "less": "recovers the full ranking less often than uniform sampling",
        "no detectable difference": "recovers the full ranking about as often as uniform sampling",
    }[row["verdict"]]
    return (
        f"{word} ({numbers.share(row['p_ranking'], 1)} vs {numbers.share(row['p_ranking_uniform'], 1)} of simulated "
        "studies; difference "
        f"{100 * row['difference']:+.1f} percentage points, 95 % interval {100 * row['diff_lo']:+.1f} to "
        f"{100 * row['diff_hi']:+.1f})"
    )


def comparison_phrases(r: PreferencesResult) -> dict[str, Any]:
    """Each design against uniform sampling at the budget where uniform reaches the target, and what that
    comparison can detect."""
    sim = r.simulation
    cmp = sim.vs_uniform.set_index("strategy")
    ig = cmp.loc["information_gain", "verdict"]
    alloc = sim.sim.allocation.pivot_table(
        index=["model_i", "model_j"], columns="strategy", values="mean_share", sort=False
    )
    ds = sim.detectable
    off = mc_settings_off(r)  # the opening's number is the preferences_mc stage's: "that number" only at its settings
    return dict(
        pref_sim_cmp_n=sim.n_compare,
        pref_sim_ig_verdict=_verdict(cmp, "information_gain"),
        pref_sim_arena_verdict=_verdict(cmp, "arena"),
        pref_sim_ig_short={
            "more": "recovers the ranking with fewer judgements than uniform sampling",
            "less": "needs more judgements than uniform sampling",
            "no detectable difference": "does not detectably reduce that number"
            if off is None
            else f"does not detectably reduce the number needed at this run's {off[1]}",
        }[ig],
        pref_sim_claim_verdict="is supported" if ig == "more" else "is not supported",
        pref_sim_ig_max_share=float(alloc["information_gain"].max()),
        pref_sim_ig_min_share=float(alloc["information_gain"].min()),
        pref_sim_mdd=100 * ds["mdd"],
        pref_sim_saving=ds["saving"] if np.isfinite(ds["saving"]) else 1.0,
    )


def mc_phrases(r: PreferencesResult) -> dict[str, Any]:
    """The ``preferences_mc`` numbers the prose quotes: judgements needed for the full ranking and the top
    model at the estimated gap, and for the full ranking at half and a quarter of it, each to the digits
    its Monte Carlo error supports; how many times the study's decisive judgements that is (from the
    rounded number, as printed)."""
    v, kept = r.inputs.mc["values"], r.gap.kept.set_index("factor")

    def txt(f: float) -> str:
        if f not in kept.index:
            return "not simulated"
        row = kept.loc[f]
        return mc_text(row["n_needed"], row["n_mc_lo"], row["n_mc_hi"], row["n_mc_se"])

    missing = [k for k in ("pref_mc.uniform.n_for_top", "pref_mc.checkpoints") if k not in v]
    if missing:
        raise ValueError(f"results/preferences_mc/values.json lacks {missing}; re-run `dvc repro preferences_mc`")
    n1, n1_txt = _mc_needed(v, "ranking")
    out = dict(
        pref_mc_uniform_rank=n1,
        pref_mc_uniform_rank_txt=n1_txt,
        pref_mc_gap_half_txt=txt(0.5),
        pref_mc_gap_quarter_txt=txt(0.25),
        pref_mc_reps=int(v["pref_mc.repetitions"]),
        pref_mc_checkpoints=int(v["pref_mc.checkpoints"]),
        pref_mc_target=float(v["pref_mc.target"]),
        pref_sim_ratio=round(n1 / r.report.n_decisive),
    )
    out["pref_mc_uniform_top"], out["pref_mc_uniform_top_txt"] = _mc_needed(v, "top")
    out["pref_mc_top_fit_txt"] = top_fit_text(v)
    return out


def top_fit_text(v: Mapping[str, Any]) -> str:
    """Whether the top model's interval holds the whole of the reading's uncertainty (the referee's C8, issue 33:
    an independent reading gave 10,830-10,990 against 10,600 (10,500-10,740)): how well the probit line fits the
    main pass's checkpoints (deviance on its degrees of freedom, about equal when the line describes the curve
    within binomial noise) and where a straight line between the two checkpoints either side reads the same
    curve, to the digits of the estimate. Older values without these keys get an empty sentence."""
    key = "pref_mc.uniform.n_for_top"
    if f"{key}_deviance" not in v:
        return ""
    dev, df = float(v[f"{key}_deviance"]), int(v[f"{key}_df"])
    from scipy import stats

    p_fit = float(stats.chi2.sf(dev, df))
    linear = _mc_estimate(float(v[f"{key}_linear"]), float(v[f"{key}_mc_se"]))
    step = numbers.percent((float(v["pref_mc.ratio"]) - 1) * 100, 0)
    fits = p_fit >= 0.05
    return (
        f"For the top model the probit line {'describes' if fits else 'does not describe'} the curve within its "
        f"binomial noise (deviance {dev:.1f} on {df} degrees of freedom, p = {p_fit:.2f}), and a straight line "
        f"between the two checkpoints either side ({step} apart) reads it at {linear:,.0f}"
        + (
            ": the interval holds the reading's whole uncertainty. A straight line across checkpoints further "
            "apart (the HUMANE chapter's are a factor √2 apart) reads it later, on a curve that flattens as it nears 1."
            if fits
            else ": the line's shape adds an error the interval omits."
        )
    )


def _mc_needed(v: Mapping[str, Any], what: str) -> tuple[float, str]:
    """The ``preferences_mc`` stage's judgements needed for the full ranking or the top model (``what``:
    ``"ranking"``, ``"top"``; ``v``: its values): the number to the digits its Monte Carlo error supports, and
    as the prose prints it with its interval (:func:`mc_text`)."""
    key = f"pref_mc.uniform.n_for_{what}"
    n, se = v[key], v[f"{key}_mc_se"]
    return _mc_estimate(n, se), mc_text(n, v[f"{key}_mc_lo"], v[f"{key}_mc_hi"], se)


def _own_needed(r: PreferencesResult, strategy: str, col: str) -> str:
    """This run's judgements needed by ``strategy`` (``col``: ``"n_for_ranking"``, ``"n_for_top"``) at its target,
    from its own curves, as the prose prints it (:func:`_needed_text`)."""
    row = r.simulation.needed.set_index("strategy").loc[strategy]
    return _needed_text(*(row[f"{col}{x}"] for x in ("", "_mc_lo", "_mc_hi", "_mc_se")), r.params.sim_budget)


def mc_settings_off(r: PreferencesResult) -> tuple[str, str] | None:
    """Where the ``preferences_mc`` stage's settings, which are constants (:mod:`.montecarlo`), differ from this
    run's simulation settings (its recovery target, its estimator's prior SD): ``(the stage's, this run's)`` in
    words, e.g. ``("95 % recovery", "80 % target")``; None where they agree, so that the stage's uniform numbers
    answer this run's question."""
    from .montecarlo import PRIOR_SD

    v, p = r.inputs.mc["values"], r.params
    mc_target, mc_prior = float(v["pref_mc.target"]), float(v.get("pref_mc.prior_sd", PRIOR_SD))
    theirs, ours = [], []
    if not np.isclose(p.sim_target, mc_target):
        theirs.append(f"{numbers.share(mc_target)} recovery")
        ours.append(f"{numbers.share(p.sim_target)} target")
    if not np.isclose(p.sim_prior_sd, mc_prior):
        theirs.append(f"a prior SD of {mc_prior:g}")
        ours.append(f"prior SD of {p.sim_prior_sd:g}")
    return (" and ".join(theirs), " and ".join(ours)) if theirs else None


def uniform_row_phrases(r: PreferencesResult) -> dict[str, Any]:
    """The uniform row of the table of judgements needed, at this run's target, and where it comes from: the
    ``preferences_mc`` stage's many-study run where its settings are this run's (:func:`mc_settings_off`), else
    this run's own uniform curve, like the other two rows, with the stage's numbers quoted as what they are (its
    target, never under this run's). ``pref_mc_source`` and ``pref_mc_quote`` frame the paragraph after the table,
    ``pref_tbl_*`` the table's caption and uniform cells."""
    v = r.inputs.mc["values"]
    (_, rank), (_, top) = _mc_needed(v, "ranking"), _mc_needed(v, "top")
    off = mc_settings_off(r)
    needs = f"the full ranking needs {rank}, the number quoted at the top of this chapter, and the top model {top}."
    if off is None:
        return dict(
            pref_tbl_uniform_rank_txt=rank,
            pref_tbl_uniform_top_txt=top,
            pref_tbl_uniform_src="Uniform pairs:",
            pref_tbl_rows_src="Information gain and arena-like skew",
            pref_mc_source="The uniform row comes from a separate run",
            pref_mc_quote=f": the top-model curve is nearly flat near {numbers.share(r.params.sim_target)}, so where its noisy "
            f"estimate crosses the line is poorly determined. {_capital(needs)}",
        )
    theirs, ours = off
    return dict(
        pref_tbl_uniform_rank_txt=_own_needed(r, "uniform", "n_for_ranking"),
        pref_tbl_uniform_top_txt=_own_needed(r, "uniform", "n_for_top"),
        pref_tbl_uniform_src=f"The text below, not this table, quotes the uniform pairs at {theirs} from",
        pref_tbl_rows_src="All three designs",
        pref_mc_source=f"The uniform numbers at {theirs} come from a separate run",
        pref_mc_quote=f". At {theirs} {needs[:-1]}; at this run's {ours} the table's uniform row comes from the "
        "curves instead, like the other two rows.",
    )


def tryit_phrases(r: PreferencesResult) -> dict[str, Any]:
    """The "Try it" box's questions compare a command's setting with the committed run's: the reference values
    they name (``params.REFERENCE``, whatever this run's)."""
    from compendium.pipeline.params import REFERENCE

    ref = REFERENCE[STUDY.id]
    return dict(pref_ref_n_boot=int(ref["n_bootstrap"][0]), pref_ref_sim_batch=int(ref["sim_batch"][0]))


#: the chapter's sections, in its order: each a pure function of the result
PHRASES = (
    data_phrases,
    pair_phrases,
    bt_phrases,
    rho_phrases,
    category_phrases,
    theme_phrases,
    bootstrap_phrases,
    cluster_phrases,
    c_vs_d_phrases,
    multiplicity_phrases,
    davidson_phrases,
    trueskill_phrases,
    gap_phrases,
    simulation_phrases,
    comparison_phrases,
    mc_phrases,
    uniform_row_phrases,
    tryit_phrases,
)


#: the shares the chapter's prose prints as percentages, with their decimals: each also glued as ``<key>_pct``
#: (``"67 %"``, :func:`compendium.chapter.publish.phrases`)
PERCENTS = {
    "pref_p_best_c": 0,
    "pref_p_best_d": 0,
    "pref_cl_p_best_c": 0,
    "pref_ts_match_default": 0,
    "pref_ts_match_static": 0,
    "pref_mc_target": 0,
    "pref_vs_base_recipe_a": 1,
    "pref_vs_base_recipe_b": 1,
    "pref_vs_base_recipe_c": 1,
    "pref_vs_base_recipe_d": 1,
    "pref_themes_gap_share": 1,
    "pref_cl_cd_p": 0,
    "pref_p_bottom_pair": 0,
    "pref_p_untrained_last": 0,
    "pref_p_top2_cd": 0,
    "pref_ci_level": 0,
    "pref_cd_p": 0,
    "pref_fwer_wilson_familywise": 0,
    "pref_fwer_wilson_per_pair_min": 1,
    "pref_fwer_wilson_per_pair_max": 1,
    "pref_fwer": 0,
    "pref_nu_tie": 1,
    "pref_tie_share": 1,
    "pref_ts_ptop_c": 0,
    "pref_sim_target": 0,
    "pref_sim_p_rank_study": 0,
    "pref_sim_p_top_study": 0,
    "pref_gap_p_nonpos": 0,
    "pref_sim_ig_min_share": 1,
    "pref_sim_ig_max_share": 1,
    "pref_sim_saving": 0,
}


def summary(result: PreferencesResult) -> dict[str, Any]:
    """Every ``{glue:text}`` value of the chapter's prose, keyed by its glue name: the union of :data:`PHRASES`
    (a name two sections give different values raises)."""
    return phrases(result, PHRASES, what="preferences phrases", percents=PERCENTS)


def rowlevel_text(r: PreferencesResult) -> str:
    """The row-level paragraph (Markdown): what the annotations add, or which cells wait for them."""
    from compendium.chapter.safetext import code, myst  # the path is a parameter: a literal code span in the Markdown

    path, rows = r.params.annotations_path, r.rows
    if rows is None:
        return (
            f"The row-level annotations ({code(path)}, the `annotations` config of the Hugging Face "
            "dataset ProlificAI/autoresearch-hitl-annotations, one row per judgement) were not available to this "
            "build, so these register cells are published as empty, each with the missing file named in "
            "`results/preferences/missing.json`: "
            f"`hitl.n_participants` (the report's {r.inputs.published['hitl.n_participants']}), the 10 × 3 cells "
            "of the Fleiss table, the 8 × 3 cells of the disagreement table, the 5 × 3 example tallies and the two "
            "length ratios (which also need the response texts)."
        )
    ann, agg, cat, kappa = rows.rows, rows.pairs_check, rows.categories_check, rows.kappa
    side, bias, activity = rows.side, rows.position, rows.activity
    bias_text = (
        "The rows record the displayed order: the response shown first was chosen in "
        f"{numbers.share(bias['share_first'], 1)} of decisive judgements (exact binomial p = {bias['binom_p']:.3f})."
        if bias is not None
        else "The rows do not record the displayed order, so no position bias is computed."
    )
    # without response texts the two length ratios stay empty: say which columns were looked for
    texts_text = "" if rows.length_ratios is not None else f"{myst(rowlevel.TEXTS_ABSENT)}. "
    text = (
        f"The row-level annotations are present ({code(path)}, {len(ann):,} rows). "
        f"They aggregate to the published pair counts in {int(agg['match'].sum())} of {len(agg)} "
        f"pairs and to the category counts in {int(cat['match'].sum())} of {len(cat)} cells. "
        f"**{activity['n_participants']} distinct participants** made between {activity['min']} and "
        f"{activity['max']} judgements each (median {activity['median']:.0f}). Fleiss' κ per pair over its "
        f"scenarios with exactly three ratings ({kappa['n_items'].min()}–{kappa['n_items'].max()} per pair) "
        f"ranges from {kappa['kappa'].min():.2f} to {kappa['kappa'].max():.2f}. Canonical-side asymmetry: side A "
        f"was chosen in {numbers.share(side['share_a'], 1)} of {side['n_decisive']:,} decisive judgements (Wilson 95 % interval "
        f"{side['wilson_lo']:.3f}–{side['wilson_hi']:.3f}, exact binomial p = {side['binom_p']:.3f}). {bias_text} "
        f"{texts_text}The tables are `rowlevel_*.csv`."
    )
    skipped, dup = ann.attrs["n_without_choice"], ann.attrs["n_duplicate_rows"]
    return text + (
        f" Of the {ann.attrs['n_rows_read']:,} rows read, {skipped:,} had no choice and were skipped, as the "
        "study's report skips them (their participants still count among the participants, as in the report); "
        + (
            f"{dup:,} row(s) repeat a participant's judgement of the same scenario and are counted, as the "
            "report counts every row."
            if dup
            else "no row repeats a participant's judgement of the same scenario."
        )
    )


def register_phrases(reg_values: Mapping[str, Any], reg_missing: Mapping[str, str]) -> dict[str, int]:
    """The register section's counts (``reg_values, reg_missing``: :func:`compendium.preferences.register.register_values`):
    the register's table cells, its other claims (text claims and design constants; variants not counted) and
    the values this build leaves empty."""
    n_cells = sum(len(register.cell_ids(t)) for t in register.load_layout())
    return {
        "pref_reg_cells": n_cells,
        "pref_reg_text": len(reg_values) - n_cells - sum(".variant." in k for k in reg_values),
        "pref_reg_null": len(reg_missing),
    }


def _register_claims() -> list[dict]:
    """The claims of the study's register (``published/hitl.yaml``), in its order."""
    return yamlfile.load(paths.PUBLISHED / f"{STUDY.register}.yaml")["claims"]


def _statuses(values: Mapping[str, Any], claims_of: list[dict]) -> dict:
    """The statuses the claims check gives the register's claims that have a value in ``values``, at this run's
    settings (:func:`compendium.claims.own_statuses`; the claims without a value wait for an input)."""
    from .. import claims

    computed = [c["id"] for c in claims_of if values.get(c["id"]) is not None]
    return claims.own_statuses(STUDY.register, dict(values), computed)


def verdicts(values: Mapping[str, Any]) -> dict[str, Any]:
    """The claims-check section's sentence ("391 of the 391 with a value here agree with the printed number ...
    and 0 do not"), generated from the statuses the claims check gives the register's claims that have a value in
    ``values`` at this run's settings (``compendium.claims.own_statuses``, ``compendium.claims.verdict``): off
    the paper's settings it names the changed keys. Also the register's number of claims and of claims waiting
    for an input."""
    from .. import claims

    claims_of = _register_claims()
    own = _statuses(values, claims_of)
    m = sum(own["counts"].values())  # the claims with a value here
    n = own["counts"]["reproduced"]
    agree = "{n} of the {m} with a value here agree with the printed number within the register's tolerance (labels as text)"
    return {
        "pref_n_claims": len(claims_of),
        "pref_n_empty": len(claims_of) - m,
        "pref_claims_verdict": claims.verdict(
            own,
            agree.format(n=m, m=m) + " and 0 do not",
            "off the paper's settings ({keys}), " + agree + f" and {m - n} do not",
            agree + f" and {m - n} do not",
        ),
    }


def claims_check(values: Mapping[str, Any], missing: Mapping[str, str]) -> pd.DataFrame:
    """Every claim of the register beside this stage's value, ``claim_id, level, published, ours, tol, agrees,
    missing``: ``agrees`` is True where the claims check reproduces it at this run's settings
    (:func:`compendium.claims.own_statuses`), False where it does not, None where our value is empty (``missing``
    names the input it waits for). ``results/preferences/tables/claims_check.csv``; the claims chapter shows the
    same statuses with their reasons."""
    claims_of = _register_claims()
    statuses = _statuses(values, claims_of)["statuses"]
    rows = []
    for c in claims_of:
        ours = values.get(c["id"])
        rows.append(
            {
                "claim_id": c["id"],
                "level": c["level"],
                "published": c["published"],
                "ours": ours,
                "tol": c["tol"],
                "agrees": None if ours is None else statuses[c["id"]] == "reproduced",
                "missing": missing.get(c["id"], ""),
            }
        )
    return pd.DataFrame(rows)
