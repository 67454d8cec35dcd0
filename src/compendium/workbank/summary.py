"""Every number and phrase the WORKBank chapter's prose quotes, each a function of the one result.

:func:`summary` maps each glue key of ``notebooks/20_workbank.md`` (``{glue:text}`wb_...```) to its value,
phrased from the :class:`~compendium.workbank.build.WorkbankResult` of :func:`compendium.workbank.build`
(its values, tables, facts, parameters and register) and, for the register paragraph, the register's mapping of
it (:func:`.register.register_values`). Nothing here computes a statistic: one small ``*_phrases(result)``
function per section of the chapter (:data:`PHRASES`) picks and phrases what the result holds. The notebook
glues the whole dict in one call (:func:`compendium.chapter.display.glue_all`). :func:`verdicts` gives the
"does it reproduce" sentences from the claims check's statuses.

The display copies of the chapter's tables are :mod:`.views`'; the values and tables it writes, :mod:`.values`'.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
from IPython.display import Markdown

from compendium.chapter.numbers import percent
from compendium.chapter.publish import phrases
from compendium.chapter.safetext import code
from compendium.pipeline.params import REFERENCE, WORKBANK_PAPER_CUTOFF
from compendium.stats.mcdigits import mc_format, mc_step

from .register import register_summary, register_values

__all__ = ["summary", "verdicts", "published_value", "PHRASES", "VERDICT_NAMES", "HEADLINE_CLAIMS"]

ZONES = ("green", "red", "rnd", "low")
REASONS = ("free_time", "repetitive", "human_error", "stress", "difficulty", "scale")
ALPHAS = ("expert_capability", "expert_has", "worker_desire", "worker_has")
LLM_REGULAR = "I use them regularly."
LLM_HEARD = "I have heard of them but don't know much about their functionalities."
MIXED = (
    "sigma_u2",
    "sigma_e2",
    "icc",
    "n_obs",
    "n_tasks",
    "n_fixed_effects",
    "n_significant_05",
    "n_responses",
    "n_unmatched",
    "n_dropped_missing",
)
BREAKDOWN = ("desire_side", "desire_side_only", "capability_side", "experts_1", "experts_2", "uncertain_experts_3plus")


def published_value(claim_id: str, register: Mapping) -> float:
    """The number the register (the parsed ``published/workbank.yaml``, the result's ``register``) prints for
    ``claim_id`` (quoted in the prose, never an input)."""
    for c in register["claims"]:
        if c["id"] == claim_id:
            return float(c["published"])
    raise KeyError(f"published/workbank.yaml has no claim {claim_id!r}")


def _md_code(text: str) -> Markdown:
    return Markdown(code(text))  # a parameter's value: a literal code span


def _lo_hi(pair) -> tuple:
    return pair[0], pair[1]


# ------------------------------------------------------------------------------------ the sections
# Each takes the result ``r`` (``r.values``, ``r.tables``, ``r.facts``, ``r.params``, ``r.register``) and returns
# its glue keys.


def data_phrases(r) -> dict:
    """The data: sample sizes."""
    v = r.values
    return {
        "wb_n_workers": v["wb.counts.workers"],
        "wb_n_workers_rated": v["wb.counts.workers_with_ratings"],
        "wb_n_occupations": v["wb.counts.occupations"],
        "wb_n_tasks": v["wb.counts.tasks"],
        "wb_n_ratings": v["wb.counts.worker_ratings"],
        "wb_n_expert_rows": v["wb.counts.expert_rows"],
        "wb_n_expert_repeats": v["wb.counts.expert_repeated_rows"],
        "wb_n_experts": v["wb.slips.n_experts"],
        "wb_single_expert": v["wb.slips.single_expert_tasks"],
        "wb_n_expert_tasks": v["wb.counts.expert_tasks"],
    }


def desire_phrases(r) -> dict:
    """Automation desire: shares, reasons, correlations."""
    v, f = r.values, r.facts
    g = {
        f"wb_{k}": v[f"wb.desire.{k}"] for k in ("share_gt3", "share_ge3", "share_ge4", "share_le2", "share_gt_cutoff")
    }
    g["wb_cutoff"] = r.params.cutoff
    g["wb_reasons_n"] = v["wb.reasons.n"]
    g.update({f"wb_reason_{k}": v[f"wb.reasons.{k}"] for k in REASONS})
    g["wb_arts_gt3"] = v["wb.sector.arts_share_gt3"]
    g.update(
        wb_rho_js=v["wb.rho.desire_jobsecurity"],
        wb_p_js=v["wb.p.desire_jobsecurity"],
        wb_rho_enj=v["wb.rho.desire_enjoyment"],
        wb_p_enj=v["wb.p.desire_enjoyment"],
        wb_rep_err_agree=f["reason_flags_agree"],
        wb_strict_incl_gap=v["wb.desire.share_ge3"] - v["wb.desire.share_gt3"],
        wb_n_at_three=f["n_at_paper_cutoff"],
        wb_as_zones_below=as_the_zones(r.params.cutoff, "as the zones below do"),
    )
    return g


def as_the_zones(cutoff: float, words: str) -> str:
    """``words`` ("as the zones do") where the run's zones count a mean of 3.0 as high, i.e. at the paper's cut-off;
    at another cut-off the same words qualified: the paper's zones do, this run's draw the line elsewhere."""
    if cutoff == WORKBANK_PAPER_CUTOFF:
        return words
    return f"{words} at the paper's cut-off (this run's zones draw the line at {cutoff:g})"


def landscape_phrases(r) -> dict:
    """The desire-capability landscape."""
    v = r.values
    g = {f"wb_zone_{z}": v[f"wb.zones.{z}"] for z in ZONES}
    g.update({f"wb_zone_share_{z}": v[f"wb.zones.share_{z}"] for z in ZONES})
    g.update(
        wb_rho_cap=v["wb.rho.capability_desire"],
        wb_p_cap=v["wb.p.capability_desire"],
        wb_n_des_at_cut=v["wb.zones.n_desire_at_cutoff"],
        wb_n_cap_at_cut=v["wb.zones.n_capability_at_cutoff"],
        wb_n_on_cut=r.facts["n_tasks_on_cutoff"],  # either mean on the cut-off: its zone follows ">=" or ">"
    )
    g["wb_rho_cap_lo"], g["wb_rho_cap_hi"] = _lo_hi(v["wb.zones.rho_capability_desire_ci"])
    return g


def agency_phrases(r) -> dict:
    """The Human Agency Scale; the raters per task it qualifies."""
    v, f = r.values, r.facts
    g = {
        "wb_diagonal": v["wb.has.diagonal"],
        "wb_workers_more": v["wb.has.workers_more"],
        "wb_experts_more": v["wb.has.experts_more"],
        "wb_expert_tied": v["wb.has.expert_tied_tasks"],
        "wb_worker_tied": v["wb.has.worker_tied_tasks"],
    }
    for k in range(5):
        g[f"wb_occ_w_h{k + 1}"] = f["occ_worker_levels"][k]
        g[f"wb_occ_e_h{k + 1}"] = v["wb.has.occ_expert_levels"][k]
    g.update(
        wb_mean_has_w=v["wb.has.mean_worker"],
        wb_mean_has_e=v["wb.has.mean_expert"],
        wb_rho_we_has=v["wb.rho.worker_expert_human_agency"],
        wb_dominant_md=Markdown(dominant_level_phrase(r.params.has_tie_rule)),
        wb_h5_md=Markdown(
            h5_sets_phrase(r.params.has_tie_rule, v["wb.has.h5_worker_tasks"], v["wb.has.h5_expert_tasks"])
        ),
        wb_ept_min=f["experts_per_task_min"],
        wb_ept_max=f["experts_per_task_max"],
        wb_ept_median=f["experts_per_task_median"],
        wb_wpt_min=f["workers_per_task_min"],
        wb_wpt_max=f["workers_per_task_max"],
    )
    return g


#: how each tie rule finds a task's dominant HAS level (``compendium.workbank.agency.dominant_level``)
DOMINANT = {
    "lowest": "the mode of its ratings, with ties going to the lowest level",
    "highest": "the mode of its ratings, with ties going to the highest level",
    "random": "the mode of its ratings, with ties broken by a seeded random draw",
    "mean": "the mean of its ratings rounded to the nearest level, halves up",
}


def _paper_tie_rule() -> str:
    return REFERENCE["workbank"]["has_tie_rule"][0]


def dominant_level_phrase(rule: str) -> str:
    """How this run finds a task's dominant HAS level (MyST), and, under another rule than the paper's, the paper's
    way beside it."""
    paper = _paper_tie_rule()
    if rule == paper:
        return f"{DOMINANT[rule]} (tie rule here: {code(rule)})"
    if DOMINANT[rule].startswith("the mode"):
        return f"{DOMINANT[rule]} (tie rule here: {code(rule)}; the paper's is {code(paper)})"
    return f"{DOMINANT[rule]} (tie rule here: {code(rule)}; the paper's, {code(paper)}, takes {DOMINANT[paper]})"


def h5_sets_phrase(rule: str, n_worker: int, n_expert: int) -> str:
    """The two H5 task sets of Fig 6d (MyST): their sizes are this run's, so under another tie rule than the paper's
    the sentence names the rule that gives them."""
    lead = "Its code drew the experts' profile on the tasks the *workers* put at H5"
    paper = _paper_tie_rule()
    if rule == paper:
        return f"{lead} ({n_worker} tasks); the experts' own H5 set is different ({n_expert} tasks)."
    return (
        f"{lead}; the experts' own H5 set is different. With this run's tie rule, {code(rule)} (the paper's is "
        f"{code(paper)}), the workers put {n_worker} tasks at H5 and the experts {n_expert}."
    )


def skills_phrases(r) -> dict:
    """Skills: wage versus agency."""
    v = r.values
    return {
        "wb_n_skills": v["wb.skills.count"],
        "wb_skill_rows": v["wb.skills.joined_rows"],
        "wb_skill_small": v["wb.skills.n_under_7_tasks"],
        "wb_skill_min": v["wb.skills.min_tasks"],
        "wb_skill_rho": v["wb.skills.rho_wage_has"],
        "wb_skill_no_wage": v["wb.skills.rows_without_wage"],
        "wb_skill_no_skill": v["wb.skills.rows_without_skill"],
    }


def reliability_phrases(r) -> dict:
    """Agreement between raters, and the mixed model."""
    v, method = r.values, r.params.mixed_method
    g = {f"wb_alpha_{k}": v[f"wb.alpha.{k}"] for k in ALPHAS}
    g.update({f"wb_mixed_{k}": v[f"wb.mixed.{k}"] for k in MIXED})
    su0, se0 = v["wb.mixed.sigma_u2_unconditional"], v["wb.mixed.sigma_e2_unconditional"]
    g.update(
        wb_mixed_icc0=v["wb.mixed.icc_unconditional"],
        wb_mixed_sigma_u2_0=su0,
        wb_mixed_sigma_e2_0=se0,
        # the shares of the task and the residual variance the covariates take
        wb_mixed_task_var_removed=100 * (1 - v["wb.mixed.sigma_u2"] / su0),
        wb_mixed_resid_var_removed=100 * (1 - v["wb.mixed.sigma_e2"] / se0),
        wb_mixed_method=method.upper() if method == "bfgs" else method,
        wb_mixed_fit=mixed_fit_phrase(r.reliability.extra["summary"]),
        wb_alpha_cap_dedup=v["wb.alpha.expert_capability.variant.dedup_rows"],
        wb_alpha_has_dedup=v["wb.alpha.expert_has.variant.dedup_rows"],
    )
    return g


def mixed_fit_phrase(fit: Mapping) -> str:
    """What this run's optimiser reached (``fit``: the mixed model's summary, :func:`.reliability.fit_mixed_model`):
    the REML log-likelihood, and statsmodels' warnings as it gave them."""
    out = f"reaches a REML log-likelihood of {fit['llf']:.3f}"
    if fit["singular_warning"]:
        var = (
            f"the task variance σu² = {fit['sigma_u2']:.4f} is not zero"
            if fit["sigma_u2"] > 0
            else "the task variance is 0"
        )
        out += f" (statsmodels warns of a singular random-effects covariance; {var})"
    if not fit["converged"]:
        out += ", but statsmodels reports that the fit did not converge"
    return out


def external_phrases(r) -> dict:
    """WORKBank against outside data; the paper's slips."""
    v = r.values
    n_sectors = len(r.tables["sample_vs_bls_sectors"])
    return {
        "wb_claude": v["wb.external.claude_top10_share"],
        "wb_yc_rl": v["wb.external.yc_red_low_share"],
        "wb_ax_rl": v["wb.external.arxiv_red_low_share"],
        "wb_yc_rl2": v["wb.external.yc_red_low_share_task_occupation"],
        "wb_ax_low_sentence": low_density_sentence(
            r.params.cutoff,
            v["wb.external.arxiv_density_low"],
            v["wb.slips.low_paper_density"],
            published_value("wb.fig5c.low.per_task", r.register),
        ),
        "wb_sectors_in_sample": v["wb.external.sectors_in_sample"],
        "wb_sector_gap": v["wb.external.sector_share_abs_gap"],
        "wb_n_sectors_bls": n_sectors,
        "wb_sectors_missing": n_sectors - v["wb.external.sectors_in_sample"],
        "wb_cm_green": v["wb.slips.cm_green_pct"],
        "wb_cm_rnd": v["wb.slips.cm_rnd_pct"],
        "wb_cm_n": v["wb.slips.cm_n_tasks"],
    }


def low_density_sentence(cutoff: float, at_cutoff: float, at_paper_cutoff: float, printed: float) -> str:
    """The Low-Priority arXiv density at this run's cut-off, and the data's value at the paper's cut-off beside the
    paper's printed one (the same number at the paper's cut-off)."""
    if cutoff == WORKBANK_PAPER_CUTOFF:
        return (
            f"The Low-Priority paper density is {at_cutoff:.2f} papers per task, printed as {printed:.2f} in the paper."
        )
    return (
        f"At this run's cut-off of {cutoff:g} the Low-Priority paper density is {at_cutoff:.2f} papers per task; at "
        f"the paper's {WORKBANK_PAPER_CUTOFF:.1f} it is {at_paper_cutoff:.2f}, printed as {printed:.2f} in the paper."
    )


def tie_rule_phrases(r) -> dict:
    """How fragile: the tie rule (against the paper's printed share)."""
    v, p = r.values, r.params
    grid = r.tables["has_tie_rules"]
    sym = grid[grid["worker_rule"] == grid["expert_rule"]]
    g = {
        "wb_more_min": v["wb.robust.workers_more_min"],
        "wb_more_max": v["wb.robust.workers_more_max"],
        "wb_more_highest": v["wb.robust.workers_more_highest"],
        "wb_more_mean": v["wb.robust.workers_more_mean"],
        "wb_more_random": v["wb.robust.workers_more_random_mean"],
        "wb_more_untied": v["wb.robust.workers_more_untied"],
        "wb_untied_n": v["wb.robust.untied_tasks"],
        "wb_n_tie_draws": p.n_tie_draws,
        "wb_n_sym": len(sym),
        "wb_n_sym_more": int((sym["workers_more"] > sym["experts_more"]).sum()),
        "wb_more_same_min": v["wb.robust.workers_more_same_rule_min"],
        "wb_more_same_max": v["wb.robust.workers_more_same_rule_max"],
        "wb_more_same_min_rule": _md_code(v["wb.robust.workers_more_same_rule_min_rule"]),
        "wb_pub_workers_more": published_value("wb.has.workers_more", r.register),
    }
    g["wb_more_random_lo"], g["wb_more_random_hi"] = _lo_hi(v["wb.robust.workers_more_random_ci"])
    return g


def zone_phrases(r) -> dict:
    """How fragile: the cut-off sweep and the raters (zone bootstraps)."""
    v, p, f = r.values, r.params, r.facts
    sw = r.tables["cutoff_sweep"].set_index("cutoff")
    g = {
        "wb_zone_uncertain": v["wb.robust.zone_uncertain_share"],
        "wb_stable_pct": 100 * p.stable_level,
        "wb_zone_minority": v["wb.robust.zone_minority_share"],
        "wb_n_boot": p.n_boot,
        "wb_zone_widen": v["wb.robust.zone_ci_cluster_widening"],
        "wb_zone_widen_keep": v["wb.robust.zone_ci_cluster_widening_keep"],
        "wb_green_largest_sentence": green_largest_sentence(
            {z: v[f"wb.zones.{z}"] for z in ZONES}, v["wb.robust.zone_green_largest_share.experts"]
        ),
        "wb_sweep_look": sweep_advice(r.tables["cutoff_sweep"], p.cutoff, f["n_tasks_on_cutoff"]),
        "wb_expert_max_tasks": f["expert_max_tasks"],
        "wb_zone_cl_defined": v["wb.robust.zone_cluster_mean_tasks_defined"],
        "wb_sweep_min": p.sweep_min,
        "wb_sweep_max": p.sweep_max,
        "wb_green_at_min": sw["green"].iloc[0],
        "wb_green_at_max": sw["green"].iloc[-1],
        "wb_gt_at_min": sw["share_desire_gt"].iloc[0],
        "wb_gt_at_max": sw["share_desire_gt"].iloc[-1],
    }
    g.update({f"wb_zb_{k}": v[f"wb.robust.zone_breakdown.{k}"] for k in BREAKDOWN})
    # share of the widening (beyond 1) that the drop-and-rescale step adds
    g["wb_zone_widen_rescale_share"] = 100 * (g["wb_zone_widen"] - g["wb_zone_widen_keep"]) / (g["wb_zone_widen"] - 1)
    # printed to the tens: across runs of 2,000 draws it moves by a few points (an independent re-run: 39 +/- 2.3 %);
    # a fixed step, not a rule of compendium.stats.mcdigits (this run does not estimate that spread)
    g["wb_zone_widen_rescale_tens"] = int(10 * round(g["wb_zone_widen_rescale_share"] / 10))
    g["wb_zone_source_comparison"] = source_comparison(
        {
            src: {z: v[f"wb.robust.zone_sd_by_source.{src}.{z}"] for z in ZONES}
            for src in ("experts", "workers", "tasks")
        }
    )
    for src in ("experts", "workers", "tasks"):
        sds = [v[f"wb.robust.zone_sd_by_source.{src}.{z}"] for z in ZONES]
        g[f"wb_zone_sd_{src}_min"], g[f"wb_zone_sd_{src}_max"] = float(min(sds)), float(max(sds))
    for z in ZONES:
        g[f"wb_zone_{z}_clo"], g[f"wb_zone_{z}_chi"] = _lo_hi(v[f"wb.robust.zone_{z}_ci_cluster"])
        g[f"wb_zone_{z}_lo"], g[f"wb_zone_{z}_hi"] = _lo_hi(v[f"wb.robust.zone_{z}_ci"])
    return g


SHORT_ZONE = {"green": "Green", "red": "Red", "rnd": "R&D", "low": "Low Priority"}


def green_largest_sentence(zones: Mapping[str, int], share: float) -> str:
    """How often a different expert panel leaves Green the largest zone (``share``, % of draws), said as "keeps"
    only where Green is the largest of this run's ``zones`` (task counts)."""
    largest = max(ZONES, key=lambda z: zones[z])
    if zones["green"] >= zones[largest]:
        return f"A different expert panel keeps Green the largest zone in {percent(share, 0)} of draws."
    return (
        f"At this run's cut-off {SHORT_ZONE[largest]}, not Green, is the largest zone; a different expert panel "
        f"makes Green the largest in {percent(share, 0)} of draws."
    )


def sweep_advice(sweep, cutoff: float, n_on_cutoff: int) -> str:
    """Where the cut-off sweep's caption sends the reader: the jumps just above the run's cut-off where the sweep's
    largest Green Light drop starts there (and task means sit on it); otherwise the largest jump, with where the
    run's cut-off (the dotted line) sits against the sweep."""
    c = sweep["cutoff"].to_numpy(dtype=float)
    green = sweep["green"].to_numpy()
    at = c[int(np.argmax(green[:-1] - green[1:]))]  # the sweep value after which Green Light drops most
    why = "the zone sizes depend on the exact threshold, because so many task means sit exactly on"
    if np.isclose(at, cutoff) and n_on_cutoff > 0:
        return f"Look at the jumps just above it: {why} it."
    look = f"the jumps, the largest just above {at:g}: {why} round values."
    if np.isclose(cutoff, c[-1]):
        return f"The sweep ends at it, so no jump above it is drawn; look at {look}"
    if cutoff > c[-1] or cutoff < c[0]:
        return f"It lies outside the sweep's range; look at {look}"
    return f"Look at {look}"


#: two standard deviations within this ratio of each other count as "about as much" (the Monte-Carlo spread
#: of a zone total's SD over 2,000 draws is a few per cent)
SAME_SD = 1.1


def source_comparison(sds: Mapping[str, Mapping[str, float]]) -> str:
    """Which source moves each zone total more than a different expert panel: ``sds[source][zone]`` is the
    standard deviation of the zone total when only ``source`` (experts, workers, tasks) is resampled.
    A ratio within :data:`SAME_SD` is "about as much"; zones are named in :data:`ZONES` order."""
    parts = []
    for src, what in (("tasks", "a new draw of as many tasks"), ("workers", "a new draw of workers")):
        verdict = {}
        for z in ZONES:
            ratio = sds[src][z] / sds["experts"][z]
            verdict[z] = "more" if ratio > SAME_SD else "less" if ratio < 1 / SAME_SD else "about as much"
        kinds = [k for k in ("more", "about as much", "less") if k in verdict.values()]
        than = {"more": "more than", "about as much": "about as much as", "less": "less than"}
        if len(kinds) == 1:
            parts.append(f"{what} would move every zone total {than[kinds[0]]} a different expert panel")
            continue
        groups = [_and([SHORT_ZONE[z] for z in ZONES if verdict[z] == k]) for k in kinds]
        rest = _and([f"{g} {k}" for g, k in zip(groups[1:], kinds[1:])])
        parts.append(f"{what} would move {groups[0]} {than[kinds[0]]} a different expert panel, {rest}")
    return "; ".join(parts)


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def sample_phrases(r) -> dict:
    """Who is the sample: against the workforce, and by group."""
    v, t = r.values, r.tables
    comp = t["sample_vs_bls_demographics"].set_index(["variable", "category"])
    dg = t["demographic_groups"].set_index(["variable", "group"])
    g = {f"wb_sample_{k}": v[f"wb.demo.sample_pct.race.{k}"] for k in ("white", "black", "asian")}
    g.update(
        wb_age18=v["wb.demo.age18_workers"],
        wb_age19=v["wb.demo.age19_workers"],
        wb_sample_1619=v["wb.demo.sample_pct.age_band.16 to 19 years"],
        wb_bls_white=comp.loc[("race", "white"), "bls_pct"],
        wb_bls_black=comp.loc[("race", "black"), "bls_pct"],
        wb_bls_1619=comp.loc[("age_band", "16 to 19 years"), "bls_pct"],
        wb_bls_hisp=comp.loc[("hispanic", "hispanic"), "bls_pct"],
        wb_sample_hisp=comp.loc[("hispanic", "hispanic"), "sample_pct"],
        wb_llm_regular=dg.loc[("LLM Familiarity", LLM_REGULAR), "mean_desire"],
        wb_llm_heard=dg.loc[("LLM Familiarity", LLM_HEARD), "mean_desire"],
        wb_green_party_n=dg.loc[("Political Affiliation", "Green Party"), "n_workers"],
        wb_n_demo_groups=v["wb.demo.n_groups"],
        wb_n_small_groups=v["wb.demo.n_small_groups"],
        wb_min_group_workers=v["wb.demo.min_group_workers"],
        wb_n_boot_groups=r.params.n_boot_groups,
    )
    return g


def raking_phrases(r) -> dict:
    """Who is the sample: the raked headline against the random-weights null."""
    v = r.values
    g = {
        "wb_raked_share": v["wb.raking.share_gt3"],
        "wb_raked_min": v["wb.raking.share_gt3_min"],
        "wb_raked_max": v["wb.raking.share_gt3_max"],
        "wb_raked_deff": v["wb.raking.design_effect"],
        "wb_raked_mid": v["wb.raking.share_mid3"],
        "wb_unw_mid": v["wb.raking.unweighted_share_mid3"],
        "wb_raked_mid_min": v["wb.raking.share_mid3_min"],
        "wb_raked_mid_max": v["wb.raking.share_mid3_max"],
        "wb_raked_ge": v["wb.raking.share_ge3"],
        "wb_unw_ge": v["wb.raking.unweighted_share_ge3"],
        "wb_task_ess_median": v["wb.raking.task_ess_median"],
        "wb_task_ess_below_3": v["wb.raking.task_ess_share_below_3"],
        "wb_raked_ge_drop_min": v["wb.raking.share_ge3_drop_min"],
        "wb_raked_ge_drop_max": v["wb.raking.share_ge3_drop_max"],
        "wb_raked_mean": v["wb.raking.mean_of_task_means"],
        "wb_unw_mean": v["wb.raking.unweighted_mean_of_task_means"],
        "wb_n_at3": v["wb.raking.n_at_cutoff"],
        "wb_null_spread": 100 * v["wb.raking.null_spread"],
        "wb_null_random_gt_med": v["wb.raking.null_random.share_gt_median"],
        "wb_unw_gt": v["wb.desire.share_gt3"],
        "wb_as_zones": as_the_zones(r.params.cutoff, "as the zones do"),
    }
    g["wb_null_permuted_share_ge_lo"], g["wb_null_permuted_share_ge_hi"] = _lo_hi(v["wb.raking.null_permuted.share_ge"])
    for name in ("random", "permuted"):
        for col in ("share_gt", "share_mid"):
            g[f"wb_null_{name}_{col}_lo"], g[f"wb_null_{name}_{col}_hi"] = _lo_hi(v[f"wb.raking.null_{name}.{col}"])
    return g


def _interval(pair, step: float, signed: bool = False) -> str:
    """``"47.1-54.1"`` (or, ``signed``, ``"-2.5 to +1.7"``): an interval's endpoints written to ``step``
    (:func:`compendium.stats.mcdigits.mc_format`, ``"plain"``: the endpoints' own digits at the step's decimals)."""
    lo, hi = (mc_format(x, step, "plain") for x in pair)
    if signed:  # a sign on each end, as Python's "+" format flag writes it (a "-0.0" keeps its minus)
        lo, hi = (x if x.startswith("-") else f"+{x}" for x in (lo, hi))
        return f"{lo} to {hi}"
    return f"{lo}-{hi}"


def raking_sampling_phrases(r) -> dict:
    """Who is the sample: the occupation mix behind the raking, and the raked share's sampling interval
    (a bootstrap over workers, every replicate re-raked), printed to the digits its Monte-Carlo error supports."""
    v = r.values
    se = v["wb.raking.boot.mc_se"]
    # the intervals' ends, rule "leading" (compendium.stats.mcdigits): to the power of ten of the leading digit of
    # the largest Monte-Carlo SE of the eight ends (an SE of 0.19 points supports tenths, one of 1.3 whole points)
    step = mc_step(se, rule="leading")
    g = {
        "wb_rsec_top_n": v["wb.raking.sector_top_n"],
        "wb_rsec_top_raked": v["wb.raking.sector_top_raked_pct"],
        "wb_rsec_top_sample": v["wb.raking.sector_top_sample_pct"],
        "wb_rsec_top_bls": v["wb.raking.sector_top_bls_pct"],
        "wb_rsec_max_shift": v["wb.raking.sector_max_shift"],
        "wb_rsec_gap_raked": v["wb.raking.sector_gap_raked"],
        "wb_rsec_gap_unw": v["wb.raking.sector_gap_unweighted"],
        "wb_rsec_n_missing": v["wb.raking.sector_groups_without_workers"],
        "wb_rsec_missing_bls": v["wb.raking.sector_bls_pct_without_workers"],
        "wb_rboot_n": v["wb.raking.boot.n_draws"],
        "wb_rboot_tasks": v["wb.raking.boot.mean_tasks"],
        "wb_rboot_mid_ci": _interval(v["wb.raking.boot.share_mid_ci"], step),
        "wb_rboot_gt_ci": _interval(v["wb.raking.boot.share_gt_ci"], step),
        "wb_rboot_unw_mid_ci": _interval(v["wb.raking.boot.unweighted_mid_ci"], step),
        "wb_rboot_diff_ci": _interval(v["wb.raking.boot.diff_mid_ci"], step, signed=True),
        "wb_rboot_mc_se": f"{se:.1g}",  # the SE itself, to one significant digit
    }
    lo, hi = v["wb.raking.boot.diff_mid_ci"]
    g["wb_rboot_diff_zero"] = "contains 0" if lo <= 0 <= hi else "does not contain 0"
    return g


def register_phrases(r) -> dict:
    """Every number the paper prints: the register's size (its mapping of the result,
    :func:`.register.register_values`), and the expert-SD reading."""
    values, _ = register_values(r)
    cells = register_summary(values, r.register)
    return {
        "wb_reg_cells": int(cells["cells"].sum()),
        "wb_reg_tables": len(cells),
        "wb_reg_null": int(cells["null"].sum()),
        "wb_reg_keys": len(values),
        "wb_sd_pop": values["wb.counts.expert_sd_max"],
        "wb_sd_sample": values["wb.counts.expert_sd_max.variant.sample_sd"],
    }


#: the section phrase functions of :func:`summary`, in the chapter's order (each ``f(result) -> dict``)
PHRASES: tuple[Callable, ...] = (
    data_phrases,
    desire_phrases,
    landscape_phrases,
    agency_phrases,
    skills_phrases,
    reliability_phrases,
    external_phrases,
    zone_phrases,
    sample_phrases,
    raking_phrases,
    raking_sampling_phrases,
    tie_rule_phrases,
    register_phrases,
)


def summary(result) -> dict:
    """``{glue key: value}`` for every number and phrase of the chapter's prose: the union of :data:`PHRASES`
    (:func:`compendium.chapter.publish.phrases`; two functions giving one key different values raise).

    ``result``: :func:`compendium.workbank.build`'s (any object with ``values``, ``tables``, ``facts``,
    ``params`` and ``register``, and the sections :func:`.register.register_values` maps). Values are plain
    numbers or strings, except the two ``{glue:md}`` keys (``Markdown``).
    """
    return phrases(result, PHRASES, what="workbank phrases")


HEADLINE_CLAIMS = (
    "wb.desire.share_gt3",
    "wb.has.workers_more",
    "wb.zones.green",
    "wb.zones.red",
    "wb.zones.rnd",
    "wb.zones.low",
)


#: how the opening's verdict names each headline number that moved
HEADLINE_NAMES = {
    "wb.desire.share_gt3": "the share of tasks with a mean desire above 3",
    "wb.has.workers_more": "the share of tasks where workers want more agency",
    "wb.zones.green": "the zone counts",
    "wb.zones.red": "the zone counts",
    "wb.zones.rnd": "the zone counts",
    "wb.zones.low": "the zone counts",
}


#: the names :func:`verdicts` glues (the chapter quotes them beside those of :func:`summary`)
VERDICT_NAMES = ("wb_headline_verdict", "wb_slips_lead", "wb_mixed_verdict")

#: the mixed model's fit statistics the authors' notebook prints, as the verdict names them
MIXED_FIT_CLAIMS = {"wb.mixed.loglik": "log-likelihood", "wb.mixed.group_var_se": "task variance's standard error"}
#: how the mixed-model verdict says each status of a Table 1 cell that does not reproduce (one, several)
STATUS_WORDS = {
    "differs": ("differs", "differ"),
    "off_paper": ("is an off-paper run", "are off-paper runs"),
    "needs_data": ("needs data", "need data"),
    "quoted": ("is quoted", "are quoted"),
    "unexplained": ("is unexplained", "are unexplained"),
}


def verdicts(values: Mapping, results_dir=None) -> dict[str, str]:
    """The opening's sentences on the headline numbers ("The headline numbers reproduce."), generated from the
    statuses the claims check gives :data:`HEADLINE_CLAIMS` at this run's settings
    (``compendium.claims.own_statuses``), never fixed text: off the paper's settings they say so."""
    from .. import claims

    own = claims.own_statuses("workbank", values, HEADLINE_CLAIMS, results_dir=results_dir)
    published = claims.load_published()
    table1 = [c for c in published.loc[published["study"] == "workbank", "claim_id"] if c.startswith("wb.table1.")]
    mixed = claims.own_statuses("workbank", values, [*MIXED_FIT_CLAIMS, *table1], results_dir=results_dir)
    return {
        "wb_headline_verdict": claims.verdict(
            own,
            "The headline numbers reproduce.",
            "Off the paper's settings ({keys}), {moved} moved away from the paper's; {n} of the {m} headline numbers "
            "still reproduce.",
            "{n} of the {m} headline numbers reproduce.",
            unmoved="Off the paper's settings ({keys}), the headline numbers do not move: they still reproduce.",
            names=HEADLINE_NAMES,
        ),
        "wb_slips_lead": claims.verdict(
            own,
            "Where the paper prints something else, the paper disagrees with its own data;",
            "At the paper's settings, where the paper prints something else, the paper disagrees with its own data;",
            "Where the paper prints something else, the paper may disagree with its own data;",
        ),
        "wb_mixed_verdict": mixed_verdict(mixed["statuses"]),
    }


def mixed_verdict(statuses: Mapping[str, str]) -> str:
    """What this run's mixed-model fit reproduces, from the claims' ``statuses`` (:func:`verdicts`): the fit
    statistics the authors' notebook prints (:data:`MIXED_FIT_CLAIMS`) and the cells of Table 1 (``wb.table1.*``)."""
    ok = [name for c, name in MIXED_FIT_CLAIMS.items() if statuses[c] == "reproduced"]
    both = "the log-likelihood and the task variance's standard error that the authors' notebook prints"
    if len(ok) == len(MIXED_FIT_CLAIMS):
        fit = f"{both} reproduce"
    elif not ok:
        fit = f"neither {both.replace(' and ', ' nor ', 1)} reproduces"
    else:
        fit = f"of {both}, only the {ok[0]} reproduces"
    t1 = [s for c, s in statuses.items() if c.startswith("wb.table1.")]
    n, m = t1.count("reproduced"), len(t1)
    cells = f"all {m} cells of Table 1" if n == m else f"{n} of Table 1's {m} cells"
    out = f"With it, {fit}" + (f", and so do {cells}" if len(ok) == len(MIXED_FIT_CLAIMS) else f"; {cells} reproduce")
    other = {s: t1.count(s) for s in STATUS_WORDS if s in t1}
    if len(other) == 1:
        ((s, k),) = other.items()
        out += f" (the other {k} {STATUS_WORDS[s][k > 1]})" if k > 1 else f" (the other one {STATUS_WORDS[s][0]})"
    elif other:
        out += f" (of the other {m - n}, " + _and([f"{k} {STATUS_WORDS[s][k > 1]}" for s, k in other.items()]) + ")"
    return out + "."
