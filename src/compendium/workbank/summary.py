"""Every number and phrase the WORKBank chapter's prose quotes, from one tested function.

:func:`summary` maps each glue key of ``notebooks/20_workbank.md`` (``{glue:text}`wb_...```) to its value,
computed from the section values and tables of :mod:`.analysis`, the raw frames and the run's parameters.
The notebook glues the whole dict in one call (:func:`compendium.display.glue_all`).

:func:`display_table` builds the display copy of each numbered table (which columns, in which order,
under which names); :data:`FORMATS` says how its numbers are printed (:func:`compendium.display.table`).
Nothing here changes a result: these are the words and tables of the page.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
from IPython.display import Markdown

from ..safetext import code
from .common import TASK, USER

__all__ = ["summary", "display_table", "FORMATS", "published_value"]

ZONES = ("green", "red", "rnd", "low")
REASONS = ("free_time", "repetitive", "human_error", "stress", "difficulty", "scale")
ALPHAS = ("expert_capability", "expert_has", "worker_desire", "worker_has")
LLM_REGULAR = "I use them regularly."
LLM_HEARD = "I have heard of them but don't know much about their functionalities."
REPETITIVE = "Reasons for Automation Desire - Repetitive"
HUMAN_ERROR = "Reasons for Automation Desire - Human Error"
DESIRE_RATING = "Automation Desire Rating"


def published_value(claim_id: str, register: Mapping | None = None) -> float:
    """The number ``published/workbank.yaml`` prints for ``claim_id`` (quoted in the prose, never an input)."""
    if register is None:
        from .. import paths, yamlfile

        register = yamlfile.load(paths.PUBLISHED / "workbank.yaml")
    for c in register["claims"]:
        if c["id"] == claim_id:
            return float(c["published"])
    raise KeyError(f"published/workbank.yaml has no claim {claim_id!r}")


def _md_code(text: str) -> Markdown:
    return Markdown(code(text))  # a parameter's value: a literal code span


def summary(
    values: Mapping,
    tables: Mapping[str, pd.DataFrame],
    *,
    desires: pd.DataFrame,
    experts: pd.DataFrame,
    tasks: pd.DataFrame,
    params: Mapping,
    register_values: Mapping | None = None,
    register_summary: pd.DataFrame | None = None,
    published: Mapping | None = None,
) -> dict:
    """``{glue key: value}`` for every number and phrase of the chapter's prose.

    ``values``/``tables``: what the sections of :mod:`.analysis` returned (merged); ``desires``/``experts``:
    the raw rating frames; ``tasks``: the task desire table (``desire_section(...).extra["tasks"]``);
    ``params``: the run's parameters (``cutoff``, ``has_tie_rule``, ``n_boot``, ``stable_level``,
    ``n_tie_draws``, ``n_boot_groups``, ``sweep_min``, ``sweep_max``, ``mixed_method``);
    ``register_values``/``register_summary``: :func:`.register.register_values` and
    :func:`.register.register_summary` (the register section's keys are left out without them);
    ``published``: the parsed ``published/workbank.yaml`` (read from disk when None).
    Values are plain numbers or strings, except the two ``{glue:md}`` keys (``Markdown``).
    """
    v, t, p = values, tables, params
    g: dict = {}
    # the data
    g.update(
        wb_n_workers=v["wb.counts.workers"],
        wb_n_workers_rated=v["wb.counts.workers_with_ratings"],
        wb_n_occupations=v["wb.counts.occupations"],
        wb_n_tasks=v["wb.counts.tasks"],
        wb_n_ratings=v["wb.counts.worker_ratings"],
        wb_n_expert_rows=v["wb.counts.expert_rows"],
        wb_n_expert_repeats=v["wb.counts.expert_repeated_rows"],
        wb_n_experts=v["wb.slips.n_experts"],
        wb_single_expert=v["wb.slips.single_expert_tasks"],
        wb_n_expert_tasks=v["wb.counts.expert_tasks"],
    )
    # automation desire
    for k in ("share_gt3", "share_ge3", "share_ge4", "share_le2", "share_gt_cutoff"):
        g[f"wb_{k}"] = v[f"wb.desire.{k}"]
    g["wb_cutoff"] = p["cutoff"]
    g["wb_reasons_n"] = v["wb.reasons.n"]
    for k in REASONS:
        g[f"wb_reason_{k}"] = v[f"wb.reasons.{k}"]
    g["wb_arts_gt3"] = v["wb.sector.arts_share_gt3"]
    g.update(
        wb_rho_js=v["wb.rho.desire_jobsecurity"],
        wb_p_js=v["wb.p.desire_jobsecurity"],
        wb_rho_enj=v["wb.rho.desire_enjoyment"],
        wb_p_enj=v["wb.p.desire_enjoyment"],
    )
    # the two reason flags agree on this share of the responses with desire >= 3
    same = desires[REPETITIVE] == desires[HUMAN_ERROR]
    g["wb_rep_err_agree"] = 100 * float(same[desires[DESIRE_RATING] >= 3].mean())
    g["wb_strict_incl_gap"] = v["wb.desire.share_ge3"] - v["wb.desire.share_gt3"]
    g["wb_n_at_three"] = int((tasks["desire"] == 3.0).sum())
    # the landscape
    for z in ZONES:
        g[f"wb_zone_{z}"] = v[f"wb.zones.{z}"]
        g[f"wb_zone_share_{z}"] = v[f"wb.zones.share_{z}"]
    g.update(
        wb_rho_cap=v["wb.rho.capability_desire"],
        wb_p_cap=v["wb.p.capability_desire"],
        wb_n_des_at_cut=v["wb.zones.n_desire_at_cutoff"],
        wb_n_cap_at_cut=v["wb.zones.n_capability_at_cutoff"],
    )
    g["wb_rho_cap_lo"], g["wb_rho_cap_hi"] = v["wb.zones.rho_capability_desire_ci"]
    # the Human Agency Scale
    g.update(
        wb_diagonal=v["wb.has.diagonal"],
        wb_workers_more=v["wb.has.workers_more"],
        wb_experts_more=v["wb.has.experts_more"],
        wb_expert_tied=v["wb.has.expert_tied_tasks"],
        wb_worker_tied=v["wb.has.worker_tied_tasks"],
    )
    for k in range(5):
        g[f"wb_occ_w_h{k + 1}"] = v["wb.has.occ_worker_levels"][k]
        g[f"wb_occ_e_h{k + 1}"] = v["wb.has.occ_expert_levels"][k]
    g.update(
        wb_mean_has_w=v["wb.has.mean_worker"],
        wb_mean_has_e=v["wb.has.mean_expert"],
        wb_h5_w=v["wb.has.h5_worker_tasks"],
        wb_h5_e=v["wb.has.h5_expert_tasks"],
        wb_rho_we_has=v["wb.rho.worker_expert_human_agency"],
    )
    g["wb_tie_rule_md"] = _md_code(p["has_tie_rule"])
    ept = experts.drop_duplicates().groupby(TASK)[USER].nunique()  # distinct experts per task
    wpt = desires.groupby(TASK)[USER].nunique()  # workers per task
    g.update(
        wb_ept_min=int(ept.min()),
        wb_ept_max=int(ept.max()),
        wb_ept_median=float(ept.median()),
        wb_wpt_min=int(wpt.min()),
        wb_wpt_max=int(wpt.max()),
    )
    # skills
    g.update(
        wb_n_skills=v["wb.skills.count"],
        wb_skill_rows=v["wb.skills.joined_rows"],
        wb_skill_small=v["wb.skills.n_under_7_tasks"],
        wb_skill_min=v["wb.skills.min_tasks"],
        wb_skill_rho=v["wb.skills.rho_wage_has"],
        wb_skill_no_wage=v["wb.skills.rows_without_wage"],
        wb_skill_no_skill=v["wb.skills.rows_without_skill"],
    )
    # agreement and the mixed model
    for k in ALPHAS:
        g[f"wb_alpha_{k}"] = v[f"wb.alpha.{k}"]
    for k in (
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
    ):
        g[f"wb_mixed_{k}"] = v[f"wb.mixed.{k}"]
    g["wb_mixed_icc0"] = v["wb.mixed.icc_unconditional"]
    su0, se0 = v["wb.mixed.sigma_u2_unconditional"], v["wb.mixed.sigma_e2_unconditional"]
    g.update(
        wb_mixed_sigma_u2_0=su0,
        wb_mixed_sigma_e2_0=se0,
        wb_mixed_task_var_removed=100
        * (1 - v["wb.mixed.sigma_u2"] / su0),  # share of the task variance the covariates take
        wb_mixed_resid_var_removed=100 * (1 - v["wb.mixed.sigma_e2"] / se0),
    )
    g["wb_mixed_method"] = p["mixed_method"].upper() if p["mixed_method"] == "bfgs" else p["mixed_method"]
    g["wb_alpha_cap_dedup"] = v["wb.alpha.expert_capability.variant.dedup_rows"]
    g["wb_alpha_has_dedup"] = v["wb.alpha.expert_has.variant.dedup_rows"]
    # outside data
    n_sectors = len(t["sample_vs_bls_sectors"])
    g.update(
        wb_claude=v["wb.external.claude_top10_share"],
        wb_yc_rl=v["wb.external.yc_red_low_share"],
        wb_ax_rl=v["wb.external.arxiv_red_low_share"],
        wb_yc_rl2=v["wb.external.yc_red_low_share_task_occupation"],
        wb_ax_low=v["wb.external.arxiv_density_low"],
        wb_sectors_in_sample=v["wb.external.sectors_in_sample"],
        wb_sector_gap=v["wb.external.sector_share_abs_gap"],
        wb_n_sectors_bls=n_sectors,
        wb_sectors_missing=n_sectors - v["wb.external.sectors_in_sample"],
    )
    # the paper's slips
    g.update(
        wb_cm_green=v["wb.slips.cm_green_pct"], wb_cm_rnd=v["wb.slips.cm_rnd_pct"], wb_cm_n=v["wb.slips.cm_n_tasks"]
    )
    # how fragile
    g.update(
        wb_more_min=v["wb.robust.workers_more_min"],
        wb_more_max=v["wb.robust.workers_more_max"],
        wb_more_highest=v["wb.robust.workers_more_highest"],
        wb_more_mean=v["wb.robust.workers_more_mean"],
        wb_more_random=v["wb.robust.workers_more_random_mean"],
    )
    g["wb_more_random_lo"], g["wb_more_random_hi"] = v["wb.robust.workers_more_random_ci"]
    g.update(
        wb_more_untied=v["wb.robust.workers_more_untied"],
        wb_untied_n=v["wb.robust.untied_tasks"],
        wb_n_tie_draws=p["n_tie_draws"],
    )
    grid = t["has_tie_rules"]
    sym = grid[grid["worker_rule"] == grid["expert_rule"]]
    g.update(wb_n_sym=len(sym), wb_n_sym_more=int((sym["workers_more"] > sym["experts_more"]).sum()))
    g.update(
        wb_zone_uncertain=v["wb.robust.zone_uncertain_share"],
        wb_stable_pct=100 * p["stable_level"],
        wb_zone_minority=v["wb.robust.zone_minority_share"],
        wb_n_boot=p["n_boot"],
        wb_more_same_min=v["wb.robust.workers_more_same_rule_min"],
        wb_more_same_max=v["wb.robust.workers_more_same_rule_max"],
        wb_more_same_min_rule=_md_code(v["wb.robust.workers_more_same_rule_min_rule"]),
    )
    for k in (
        "desire_side",
        "desire_side_only",
        "capability_side",
        "experts_1",
        "experts_2",
        "uncertain_experts_3plus",
    ):
        g[f"wb_zb_{k}"] = v[f"wb.robust.zone_breakdown.{k}"]
    g["wb_zone_widen"] = v["wb.robust.zone_ci_cluster_widening"]
    g["wb_zone_widen_keep"] = v["wb.robust.zone_ci_cluster_widening_keep"]
    # share of the widening (beyond 1) that the drop-and-rescale step adds
    g["wb_zone_widen_rescale_share"] = 100 * (g["wb_zone_widen"] - g["wb_zone_widen_keep"]) / (g["wb_zone_widen"] - 1)
    for src in ("experts", "workers", "tasks"):
        sds = [v[f"wb.robust.zone_sd_by_source.{src}.{z}"] for z in ZONES]
        g[f"wb_zone_sd_{src}_min"], g[f"wb_zone_sd_{src}_max"] = float(min(sds)), float(max(sds))
    g["wb_green_largest_experts"] = v["wb.robust.zone_green_largest_share.experts"]
    g["wb_expert_max_tasks"] = int(experts.drop_duplicates().groupby(USER)[TASK].nunique().max())
    g["wb_zone_cl_defined"] = v["wb.robust.zone_cluster_mean_tasks_defined"]
    for z in ZONES:
        g[f"wb_zone_{z}_clo"], g[f"wb_zone_{z}_chi"] = v[f"wb.robust.zone_{z}_ci_cluster"]
        g[f"wb_zone_{z}_lo"], g[f"wb_zone_{z}_hi"] = v[f"wb.robust.zone_{z}_ci"]
    g["wb_pub_workers_more"] = published_value("wb.has.workers_more", published)
    sw = t["cutoff_sweep"].set_index("cutoff")
    g.update(
        wb_sweep_min=p["sweep_min"],
        wb_sweep_max=p["sweep_max"],
        wb_green_at_min=sw["green"].iloc[0],
        wb_green_at_max=sw["green"].iloc[-1],
        wb_gt_at_min=sw["share_desire_gt"].iloc[0],
        wb_gt_at_max=sw["share_desire_gt"].iloc[-1],
    )
    # who is the sample
    g.update(
        wb_raked_share=v["wb.raking.share_gt3"],
        wb_raked_min=v["wb.raking.share_gt3_min"],
        wb_raked_max=v["wb.raking.share_gt3_max"],
        wb_raked_deff=v["wb.raking.design_effect"],
        wb_age18=v["wb.demo.age18_workers"],
        wb_age19=v["wb.demo.age19_workers"],
    )
    for k in ("white", "black", "asian"):
        g[f"wb_sample_{k}"] = v[f"wb.demo.sample_pct.race.{k}"]
    g["wb_sample_1619"] = v["wb.demo.sample_pct.age_band.16 to 19 years"]
    comp = t["sample_vs_bls_demographics"].set_index(["variable", "category"])
    g.update(
        wb_bls_white=comp.loc[("race", "white"), "bls_pct"],
        wb_bls_black=comp.loc[("race", "black"), "bls_pct"],
        wb_bls_1619=comp.loc[("age_band", "16 to 19 years"), "bls_pct"],
        wb_bls_hisp=comp.loc[("hispanic", "hispanic"), "bls_pct"],
        wb_sample_hisp=comp.loc[("hispanic", "hispanic"), "sample_pct"],
    )
    dg = t["demographic_groups"].set_index(["variable", "group"])
    g.update(
        wb_llm_regular=dg.loc[("LLM Familiarity", LLM_REGULAR), "mean_desire"],
        wb_llm_heard=dg.loc[("LLM Familiarity", LLM_HEARD), "mean_desire"],
        wb_green_party_n=dg.loc[("Political Affiliation", "Green Party"), "n_workers"],
    )
    g.update(
        wb_raked_mid=v["wb.raking.share_mid3"],
        wb_unw_mid=v["wb.raking.unweighted_share_mid3"],
        wb_raked_mid_min=v["wb.raking.share_mid3_min"],
        wb_raked_mid_max=v["wb.raking.share_mid3_max"],
        wb_raked_ge=v["wb.raking.share_ge3"],
        wb_unw_ge=v["wb.raking.unweighted_share_ge3"],
        wb_task_ess_median=v["wb.raking.task_ess_median"],
        wb_task_ess_below_3=v["wb.raking.task_ess_share_below_3"],
        wb_raked_ge_drop_min=v["wb.raking.share_ge3_drop_min"],
        wb_raked_ge_drop_max=v["wb.raking.share_ge3_drop_max"],
        wb_null_permuted_share_ge_lo=v["wb.raking.null_permuted.share_ge"][0],
        wb_null_permuted_share_ge_hi=v["wb.raking.null_permuted.share_ge"][1],
        wb_raked_mean=v["wb.raking.mean_of_task_means"],
        wb_unw_mean=v["wb.raking.unweighted_mean_of_task_means"],
        wb_n_at3=v["wb.raking.n_at_cutoff"],
        wb_null_spread=100 * v["wb.raking.null_spread"],
    )
    for name in ("random", "permuted"):
        for col in ("share_gt", "share_mid"):
            g[f"wb_null_{name}_{col}_lo"], g[f"wb_null_{name}_{col}_hi"] = v[f"wb.raking.null_{name}.{col}"]
    g.update(
        wb_null_random_gt_med=v["wb.raking.null_random.share_gt_median"],
        wb_n_demo_groups=v["wb.demo.n_groups"],
        wb_n_small_groups=v["wb.demo.n_small_groups"],
        wb_min_group_workers=v["wb.demo.min_group_workers"],
        wb_n_boot_groups=p["n_boot_groups"],
        wb_unw_gt=v["wb.desire.share_gt3"],
    )
    # every number the paper prints
    if register_values is not None and register_summary is not None:
        g.update(
            wb_reg_cells=int(register_summary["cells"].sum()),
            wb_reg_tables=len(register_summary),
            wb_reg_null=int(register_summary["null"].sum()),
            wb_reg_keys=len(register_values),
            wb_sd_pop=register_values["wb.counts.expert_sd_max"],
            wb_sd_sample=register_values["wb.counts.expert_sd_max.variant.sample_sd"],
        )
    return g


# number formats of the displayed tables (compendium.display.table(..., formats=FORMATS[name]))
FORMATS: dict[str, dict[str, str]] = {
    "wb_tbl_top20": {"mean_desire": "{:.2f}"},
    "wb_tbl_bottom20": {"mean_desire": "{:.2f}"},
    "wb_tbl_corr": {"p": "{:.3g}"},
    "wb_tbl_zones_sector": {z: "{:.1f}" for z in ZONES},
    "wb_tbl_jsd": {"jsd": "{:.3f}"},
    "wb_tbl_we": {"rho": "{:.3f}", "p": "{:.2g}", "ci_low": "{:.3f}", "ci_high": "{:.3f}"},
    "wb_tbl_skills": {"mean_wage": "{:,.0f}", "mean_has": "{:.2f}"},
    "wb_tbl_mixed": {c: "{:.3f}" for c in ("coef", "se", "z", "ci_low", "ci_high")} | {"p": "{:.2g}"},
    "wb_tbl_alpha": {"α (authors: every row)": "{:.3f}", "α (repeated rows dropped)": "{:.3f}"},
    "wb_tbl_density": {"total": "{:,.0f}", "density": "{:.2f}", "share_of_total": "{:.1f}"},
    "wb_tbl_claude": {"mean_desire": "{:.2f}", "usage_pct": "{:.3f}"},
    "wb_tbl_raking": {
        "% tasks desire > 3": "{:.1f}",
        "% ≥ 3": "{:.1f}",
        "% > 3, ties half": "{:.1f}",
        "mean desire": "{:.3f}",
        "design effect": "{:.2f}",
        "effective n": "{:.0f}",
        "max weight": "{:.2f}",
        "min weight": "{:.2f}",
    },
}

RAKING_COLUMNS = {
    "n_workers": "workers",
    "share_gt_cutoff": "% tasks desire > 3",
    "share_ge_cutoff": "% ≥ 3",
    "share_mid": "% > 3, ties half",
    "mean_of_task_means": "mean desire",
    "design_effect": "design effect",
    "effective_n": "effective n",
    "max_weight": "max weight",
    "min_weight": "min weight",
}


def display_table(name: str, tables: Mapping[str, pd.DataFrame], values: Mapping) -> pd.DataFrame:
    """The display copy of the chapter's table ``name`` (``wb_tbl_*``): columns chosen, ordered and named
    for the page, index as columns. Print it with ``compendium.display.table(df, label, caption,
    formats=FORMATS.get(name))``.
    """
    t, v = tables, values
    if name == "wb_tbl_top20":
        return t["top20_desire"].copy()
    if name == "wb_tbl_bottom20":
        return t["bottom20_desire"].copy()
    if name == "wb_tbl_corr":
        return t["correlations"][["pair", "rho", "ci_low", "ci_high", "n_tasks", "p", "paper_style_bound"]].copy()
    if name == "wb_tbl_zones_sector":
        return t["zones_by_sector"].copy()
    if name == "wb_tbl_jsd":
        return t["has_jsd_top10"].copy()
    if name == "wb_tbl_we":
        return t["has_worker_vs_expert"][["measure", "rho", "ci_low", "ci_high", "p", "n_tasks"]].copy()
    if name == "wb_tbl_skills":
        return t["skill_ranks"].merge(t["skill_wage_coverage"], on="skill", how="left")[
            ["skill", "n_tasks", "n_with_wage", "mean_wage", "wage_rank", "mean_has", "has_rank"]
        ]
    if name == "wb_tbl_mixed":
        coefs = t["mixed_model_coefficients"]
        return coefs[coefs["p"] < 0.05].copy()
    if name == "wb_tbl_alpha":
        return pd.DataFrame(
            [
                {
                    "ratings": k.replace("_", " "),
                    "α (authors: every row)": v[f"wb.alpha.{k}"],
                    "α (repeated rows dropped)": v[f"wb.alpha.{k}.variant.dedup_rows"],
                }
                for k in ALPHAS
            ]
        )
    if name == "wb_tbl_density":
        dens = pd.concat(
            [t["yc_density"].assign(source="YC companies"), t["arxiv_density"].assign(source="arXiv papers")]
        )
        cols = ["source", "zone", "n_tasks", "n_mapped", "total", "density", "share_of_total"]
        return dens[dens["join"] == "task"][cols].reset_index(drop=True)
    if name == "wb_tbl_claude":
        return t["claude_top10"].copy()
    if name == "wb_tbl_slips":
        return t["paper_slips"].copy()
    if name == "wb_tbl_raking":
        rk = t["raking_variants"][["variant", *RAKING_COLUMNS]]
        return rk.rename(columns=RAKING_COLUMNS)
    if name == "wb_tbl_mapping":
        from .demographics import category_mapping_table

        return category_mapping_table()
    if name == "wb_tbl_register":
        return t["register_summary"].copy()
    raise KeyError(f"no display table {name!r} in the WORKBank chapter")


HEADLINE_CLAIMS = (
    "wb.desire.share_gt3",
    "wb.has.workers_more",
    "wb.zones.green",
    "wb.zones.red",
    "wb.zones.rnd",
    "wb.zones.low",
)


#: the names :func:`verdicts` glues (the chapter quotes them beside those of :func:`summary`)
VERDICT_NAMES = ("wb_headline_verdict", "wb_slips_lead")


def verdicts(values: Mapping) -> dict[str, str]:
    """The opening's sentences on the headline numbers ("The headline numbers reproduce."), generated from the
    statuses the claims check gives :data:`HEADLINE_CLAIMS` at this run's settings
    (``compendium.claims.own_statuses``), never fixed text: off the paper's settings they say so."""
    from .. import claims

    own = claims.own_statuses("workbank", values, HEADLINE_CLAIMS)
    return {
        "wb_headline_verdict": claims.verdict(
            own,
            "The headline numbers reproduce.",
            "Off the paper's settings ({keys}), the headline numbers move.",
            "{n} of the {m} headline numbers reproduce.",
        ),
        "wb_slips_lead": claims.verdict(
            own,
            "Where the paper prints something else, the paper disagrees with its own data;",
            "At the paper's settings, where the paper prints something else, the paper disagrees with its own data;",
            "Where the paper prints something else, the paper may disagree with its own data;",
        ),
    }
