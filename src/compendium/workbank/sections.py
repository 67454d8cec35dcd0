"""The WORKBank chapter's sections, one function per section of the chapter, each returning a :class:`Section`.

Values are keyed by the claim ids of ``published/workbank.yaml`` where a claim exists (``wb.*``), and by
descriptive keys otherwise. Tables are the CSVs of ``results/workbank/tables/``. :func:`compendium.workbank.build`
(:mod:`.build`) calls every section once, in order, and hands each the frames of the sections before it; no two
sections publish the same value key. Every parameter is a required argument: the defaults live in
:mod:`compendium.pipeline.params` (``REFERENCE["workbank"]``, ``WORKBANK_PAPER_CUTOFF``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import pandas as pd

from compendium.pipeline.params import WORKBANK_PAPER_CUTOFF as PAPER_CUTOFF

from ..stats.resampling import percentile_interval
from . import agency, authors, demographics, desire, external, icc, landscape, reliability, skills, slips
from .common import HAS, OCC, TASK, TASK_CHARACTERISTICS, USER, drop_repeated_rows

__all__ = [
    "Section",
    "counts_section",
    "desire_section",
    "landscape_section",
    "agency_section",
    "skills_section",
    "reliability_section",
    "external_section",
    "demographics_section",
    "slips_section",
    "paper_section",
]

COMPUTER_MATH = "Computer and Mathematical"


#: weights unrelated to demographics, uniform on [1 - spread, 1 + spread] (the raking's null)
NULL_SPREAD = 0.01


@dataclass(frozen=True, eq=False)
class Section:
    """What one section of the chapter computed (read-only).

    ``values``: published numbers (``results/workbank/values.json``); ``tables``: the CSVs of
    ``results/workbank/tables/``; ``extra``: frames later sections and the figures read (not written);
    ``facts``: numbers only the prose quotes (not published)."""

    values: Mapping = field(default_factory=dict)
    tables: Mapping = field(default_factory=dict)
    extra: Mapping = field(default_factory=dict)
    facts: Mapping = field(default_factory=dict)

    def __post_init__(self):
        for name in ("values", "tables", "extra", "facts"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))


def counts_section(desires: pd.DataFrame, metadata: pd.DataFrame, experts: pd.DataFrame) -> Section:
    """Sample sizes (§2): tasks and occupations rated by workers, workers in the metadata file."""
    ec = slips.expert_counts(experts)
    v = {
        "wb.counts.tasks": int(desires[TASK].nunique()),
        "wb.counts.occupations": int(desires[OCC].nunique()),
        "wb.counts.workers": int(metadata[USER].nunique()),
        "wb.counts.workers_with_ratings": int(desires[USER].nunique()),
        "wb.counts.worker_ratings": len(desires),
        "wb.counts.expert_rows": len(experts),
        "wb.counts.expert_tasks": ec["n_tasks"],
        "wb.slips.n_experts": ec["n_experts"],
        "wb.slips.single_expert_tasks": ec["single_expert_tasks"],
        "wb.counts.expert_repeated_rows": int(experts.duplicated().sum()),
    }
    ept = experts.drop_duplicates().groupby(TASK)[USER].nunique()  # distinct experts per task
    wpt = desires.groupby(TASK)[USER].nunique()  # workers per task
    facts = {
        "experts_per_task_min": int(ept.min()),
        "experts_per_task_max": int(ept.max()),
        "experts_per_task_median": float(ept.median()),
        "workers_per_task_min": int(wpt.min()),
        "workers_per_task_max": int(wpt.max()),
        "expert_max_tasks": int(experts.drop_duplicates().groupby(USER)[TASK].nunique().max()),
    }
    return Section(values=v, facts=facts)


def desire_section(
    desires: pd.DataFrame, task_metadata: pd.DataFrame, bls_wages: pd.DataFrame, cutoff: float, n_top: int = 20
) -> Section:
    """Automation desire (§3.1-3.2): shares (at the paper's cut-off and at ``cutoff``), top/bottom tasks,
    sectors, reasons, correlations. The arts sector's claim is the authors' construction
    (:func:`paper_section`); the sector table here gives every sector the chapter's way."""
    tasks = desire.task_desire(desires)
    sh = desire.desire_shares(tasks["desire"], PAPER_CUTOFF)
    shc = sh if cutoff == PAPER_CUTOFF else desire.desire_shares(tasks["desire"], cutoff)
    sectors = desire.occupation_sectors(task_metadata, bls_wages)
    by_sector = desire.desire_by_sector(tasks, sectors, PAPER_CUTOFF)
    n_reason, reasons = desire.desire_reasons(desires, 3)  # the survey asks for reasons from a rating of 3
    v = {
        "wb.desire.share_gt3": sh["share_gt_cutoff"],
        "wb.desire.share_ge3": sh["share_ge_cutoff"],
        "wb.desire.share_ge4": sh["share_ge4"],
        "wb.desire.share_le2": sh["share_le2"],
        "wb.desire.share_gt_cutoff": shc["share_gt_cutoff"],
        "wb.desire.mean_of_task_means": tasks["desire"].mean(),
        "wb.reasons.n": n_reason,
    }
    for _, r in reasons.iterrows():
        v[f"wb.reasons.{r['reason']}"] = r["pct"]
    corr = []
    for key, col in [("desire_jobsecurity", "job_security"), ("desire_enjoyment", "enjoyment")]:
        r = desire.spearman_ci(tasks["desire"], tasks[col])
        rho, p = r["rho"], r["p"]
        v[f"wb.rho.{key}"], v[f"wb.p.{key}"] = rho, p
        corr.append(
            {
                "pair": f"desire vs {col.replace('_', ' ')}",
                "rho": rho,
                "p": p,
                "n_tasks": len(tasks),
                "paper_style_bound": desire.format_p_truncated(p),
                "ci_low": r["ci_low"],
                "ci_high": r["ci_high"],
            }
        )
    return Section(
        values=v,
        tables={
            "top20_desire": desire.ranked_tasks(tasks, n_top, top=True),
            "bottom20_desire": desire.ranked_tasks(tasks, n_top, top=False),
            "desire_by_sector": by_sector,
            "reasons": reasons,
            "correlations": pd.DataFrame(corr),
        },
        extra={"tasks": tasks, "sectors": sectors},
        facts={
            "reason_flags_agree": _reason_flags_agree(desires),
            "n_at_paper_cutoff": int((tasks["desire"] == PAPER_CUTOFF).sum()),
        },
    )


def _reason_flags_agree(desires: pd.DataFrame) -> float:
    """% of the responses with desire >= 3 on which the "repetitive" and "human error" flags agree."""
    from .common import DESIRE, DESIRE_REASONS

    same = desires[DESIRE_REASONS["repetitive"]] == desires[DESIRE_REASONS["human_error"]]
    return 100 * float(same[desires[DESIRE] >= 3].mean())


def landscape_section(
    desires: pd.DataFrame,
    experts: pd.DataFrame,
    sectors: pd.DataFrame,
    *,
    cutoff: float,
    sweep: tuple[float, float, float],
    n_boot: int,
    seed: int,
    stable_level: float,
) -> Section:
    """Desire-capability landscape (§3.2, Fig 5), cut-off sweep and bootstrap zone stability."""
    land = landscape.task_landscape(desires, experts)
    land["zone"] = landscape.assign_zones(land["capability"], land["desire"], cutoff)
    zc = landscape.zone_counts(land["zone"])
    zs = landscape.zones_by_sector(land, sectors)
    rc = desire.spearman_ci(land["capability"], land["desire"])
    rho, p = rc["rho"], rc["p"]
    v = {f"wb.zones.{z}": n for z, n in zc.items()}
    v["wb.zones.rho_capability_desire_ci"] = [rc["ci_low"], rc["ci_high"]]
    v.update({f"wb.zones.share_{z}": 100 * n / len(land) for z, n in zc.items()})
    cm = zs.set_index("sector").loc[COMPUTER_MATH]
    v.update(
        {
            "wb.zones.cm_n_tasks": int(cm["n_tasks"]),
            "wb.rho.capability_desire": rho,
            "wb.p.capability_desire": p,
            "wb.zones.n_tasks": len(land),
            "wb.zones.cutoff": cutoff,
            "wb.zones.n_desire_at_cutoff": int(np.isclose(land["desire"], cutoff).sum()),
            "wb.zones.n_capability_at_cutoff": int(np.isclose(land["capability"], cutoff).sum()),
        }
    )
    lo, hi, step = sweep
    cutoffs = np.round(np.arange(lo, hi + step / 2, step), 10)
    sw = landscape.cutoff_sweep(land, cutoffs)
    uniq, _ = drop_repeated_rows(experts)
    per_task, draws = landscape.zone_bootstrap(desires, uniq, land, cutoff, n_boot, seed, stable_level)
    v.update(_within_task_bootstrap_values(per_task, draws, stable_level))
    cl, cluster_values = _cluster_bootstrap_values(desires, uniq, land, cutoff, n_boot, seed, draws)
    v.update(cluster_values)
    stab = per_task.reset_index().rename(columns={TASK: "task"})[list(STABILITY_COLUMNS)]
    lt = land.reset_index().rename(columns={TASK: "task"})
    # the tasks whose zone depends on whether a mean equal to the cut-off counts as high (a mean on it, either axis)
    on_cutoff = np.isclose(land["desire"], cutoff) | np.isclose(land["capability"], cutoff)
    return Section(
        values=v,
        tables={
            "landscape": lt,
            "zones_by_sector": zs,
            "cutoff_sweep": sw,
            "zone_stability": stab,
            "zone_totals_cluster_bootstrap": cl.describe(percentiles=[0.025, 0.5, 0.975])
            .reset_index()
            .rename(columns={"index": "stat"}),
        },
        extra={"landscape": land, "boot_counts": draws, "cluster_counts": cl},
        facts={"n_tasks_on_cutoff": int(on_cutoff.sum())},
    )


#: the columns of the zone_stability table
STABILITY_COLUMNS = (
    "task",
    "zone",
    "p_observed",
    "stable",
    "n_workers",
    "n_experts",
    "p_green",
    "p_red",
    "p_rnd",
    "p_low",
    "p_desire_side",
    "p_capability_side",
)
ZONE_NAMES = ("green", "red", "rnd", "low")


def _ci(x) -> list[float]:
    return [float(np.quantile(x, 0.025)), float(np.quantile(x, 0.975))]


def _width(draws: pd.DataFrame) -> float:
    return sum(np.quantile(draws[z], 0.975) - np.quantile(draws[z], 0.025) for z in ZONE_NAMES)


def _within_task_bootstrap_values(per_task: pd.DataFrame, draws: pd.DataFrame, stable_level: float) -> dict:
    """The zone-stability values of :func:`.landscape.zone_bootstrap` (raters resampled within each task)."""
    v = {
        "wb.robust.zone_uncertain_share": 100 * float((~per_task["stable"]).mean()),
        "wb.robust.zone_uncertain_n": int((~per_task["stable"]).sum()),
        "wb.robust.zone_minority_share": 100 * float((per_task["p_observed"] < 0.5).mean()),
        "wb.robust.zone_stable_level": stable_level,
    }
    for z in ZONE_NAMES:
        v[f"wb.robust.zone_{z}_ci"] = _ci(draws[z])
        v[f"wb.robust.zone_{z}_uncertain_share"] = 100 * float((~per_task.loc[per_task["zone"] == z, "stable"]).mean())
    single = per_task["n_experts"] == 1
    v["wb.robust.zone_uncertain_share_single_expert"] = 100 * float((~per_task.loc[single, "stable"]).mean())
    # referee checks: why zones are "not stable"
    for k, x in landscape.zone_uncertainty_breakdown(per_task, stable_level).items():
        v[f"wb.robust.zone_breakdown.{k}"] = x
    return v


def _cluster_bootstrap_values(desires, uniq, land, cutoff, n_boot, seed, draws) -> tuple[pd.DataFrame, dict]:
    """Zone totals with the raters as clusters (:func:`.landscape.zone_cluster_bootstrap`), their widening over
    the within-task ``draws``, and the spread by source (experts alone, workers alone, a new draw of tasks)."""
    cl = landscape.zone_cluster_bootstrap(desires, uniq, land, cutoff, n_boot, seed)
    v = {f"wb.robust.zone_{z}_ci_cluster": _ci(cl[z]) for z in ZONE_NAMES}
    w_task = _width(draws)
    v["wb.robust.zone_ci_cluster_widening"] = float(_width(cl) / w_task)
    v["wb.robust.zone_cluster_mean_tasks_defined"] = float(cl["n_defined"].mean())
    # the same widening with the undefined tasks kept at their observed mean (no drop-and-rescale)
    kept = landscape.zone_cluster_bootstrap(desires, uniq, land, cutoff, n_boot, seed, undefined="keep")
    v["wb.robust.zone_ci_cluster_widening_keep"] = float(_width(kept) / w_task)
    for src in ("experts", "workers"):
        one = landscape.zone_cluster_bootstrap(
            desires, uniq, land, cutoff, n_boot, seed, resample=(src,), undefined="keep"
        )
        for z in ZONE_NAMES:
            v[f"wb.robust.zone_sd_by_source.{src}.{z}"] = float(one[z].std(ddof=1))
        v[f"wb.robust.zone_green_largest_share.{src}"] = 100 * float(
            (one["green"] > one[["red", "rnd", "low"]].max(axis="columns")).mean()
        )
    n_tasks = len(land)
    for z in ZONE_NAMES:  # a new draw of tasks: the zone total is binomial(n_tasks, observed share)
        share = float((land["zone"] == z).mean())
        v[f"wb.robust.zone_sd_by_source.tasks.{z}"] = float(np.sqrt(n_tasks * share * (1 - share)))
    return cl, v


def agency_section(desires: pd.DataFrame, experts: pd.DataFrame, *, tie_rule: str, seed: int, n_random: int) -> Section:
    """Human Agency Scale (§3.3, Fig 6, Table 5) and the tie-rule sensitivity of the 47.5%."""
    wc = agency.has_counts(desires, TASK, "worker desires")
    ec = agency.has_counts(experts, TASK, "expert ratings")
    wl = agency.dominant_level(wc, tie_rule, seed)
    el = agency.dominant_level(ec, tie_rule, seed + 1 if tie_rule == "random" else None)
    mat = agency.has_matrix(wl, el)
    comp = agency.agency_comparison(wl, el)
    occ = agency.occupation_levels(desires, experts, tie_rule, seed)
    wmean, emean = agency.has_task_means(desires), agency.has_task_means(experts)
    common = wmean.index.intersection(emean.index)
    v = {
        "wb.has.matrix": mat.to_numpy().tolist(),
        "wb.has.diagonal": comp["diagonal"],
        "wb.has.workers_more": comp["workers_more"],
        "wb.has.experts_more": comp["experts_more"],
        "wb.has.n_tasks": comp["n_tasks"],
        "wb.has.occ_expert_levels": np.bincount(occ["expert_level"], minlength=6)[1:].tolist(),
        "wb.has.mean_worker": float(wmean.loc[common].mean()),
        "wb.has.mean_expert": float(emean.loc[common].mean()),
        "wb.has.mean_worker_all_tasks": float(wmean.mean()),
        "wb.has.mean_expert_all_tasks": float(emean.mean()),
        "wb.has.expert_tied_tasks": agency.n_tied(ec.loc[common]),
        "wb.has.worker_tied_tasks": agency.n_tied(wc.loc[common]),
    }
    grid, rnd = agency.tie_rule_sensitivity(wc, ec, seed, n_random)
    v["wb.robust.workers_more_min"] = float(grid["workers_more"].min())
    v["wb.robust.workers_more_max"] = float(grid["workers_more"].max())
    v["wb.robust.workers_more_random_mean"] = float(rnd.mean())
    v["wb.robust.workers_more_random_ci"] = [float(np.quantile(rnd, 0.025)), float(np.quantile(rnd, 0.975))]
    sr = agency.same_rule_range(grid)
    v["wb.robust.workers_more_same_rule_min"], v["wb.robust.workers_more_same_rule_max"] = sr["min"], sr["max"]
    v["wb.robust.workers_more_same_rule_min_rule"] = sr["min_rule"]
    ut = agency.untied_only(wc, ec)
    v["wb.robust.workers_more_untied"], v["wb.robust.untied_tasks"] = ut["workers_more"], ut["n_tasks"]
    for _, r in grid[grid["worker_rule"] == grid["expert_rule"]].iterrows():
        v[f"wb.robust.workers_more_{r['worker_rule']}"] = r["workers_more"]
    h5 = agency.h5_profiles(desires, experts, wl, el)
    v["wb.has.h5_worker_tasks"] = int(h5.loc[0, "n_tasks"])
    v["wb.has.h5_expert_tasks"] = int(h5.loc[1, "n_tasks"])
    # worker vs expert task means (Spearman), HAS and the four task characteristics
    rows = []
    for name, col in [("human_agency", HAS), *TASK_CHARACTERISTICS.items()]:
        a = desires.groupby(TASK)[col].mean().loc[common]
        b = experts.groupby(TASK)[col].mean().loc[common]
        r = desire.spearman_ci(a, b)
        rho, p = r["rho"], r["p"]
        rows.append(
            {
                "measure": name,
                "rho": rho,
                "p": p,
                "n_tasks": len(common),
                "ci_low": r["ci_low"],
                "ci_high": r["ci_high"],
            }
        )
        v[f"wb.rho.worker_expert_{name}"] = rho
    matrix_df = mat.copy()
    matrix_df.index = [f"worker H{k}" for k in mat.index]
    matrix_df.columns = [f"expert H{k}" for k in mat.columns]
    return Section(
        values=v,
        tables={
            "has_matrix": matrix_df.reset_index().rename(columns={"index": "worker_level"}),
            "has_jsd_top10": agency.jsd_top(occ, 10),
            "has_occupation_levels": occ,
            "has_tie_rules": grid,
            "h5_profiles": h5,
            "has_worker_vs_expert": pd.DataFrame(rows),
        },
        extra={"worker_level": wl, "expert_level": el, "matrix": mat},
        # under the run's tie rule (the register's wb.has.occ_worker_levels is the authors' construction)
        facts={"occ_worker_levels": np.bincount(occ["worker_level"], minlength=6)[1:].tolist()},
    )


def skills_section(experts: pd.DataFrame, task_metadata: pd.DataFrame) -> Section:
    """Skills ranked by wage and by expert agency (Fig 7)."""
    t = skills.skill_ranks(experts, task_metadata)
    v = {
        "wb.skills.count": len(t),
        "wb.skills.joined_rows": skills.n_joined_rows(experts, task_metadata),
        "wb.skills.min_tasks": int(t["n_tasks"].min()),
        "wb.skills.n_under_7_tasks": int((t["n_tasks"] < 7).sum()),
    }
    v["wb.skills.rho_wage_has"], v["wb.skills.p_wage_has"] = desire.spearman(t["mean_wage"], t["mean_has"])
    coverage, left_out = skills.wage_coverage(experts, task_metadata)
    v.update({f"wb.skills.{k}": n for k, n in left_out.items()})
    return Section(values=v, tables={"skill_ranks": t, "skill_wage_coverage": coverage})


def reliability_section(
    desires: pd.DataFrame, experts: pd.DataFrame, metadata: pd.DataFrame, *, method: str
) -> Section:
    """Krippendorff's alpha (ordinal) and the Table 1 mixed model, fit once (the register's Table 1 reads it)."""
    # the paper's alpha keeps every row (the authors' construction); the variant drops the repeated rows
    v = reliability.alpha_values(desires, experts)
    data = reliability.mixed_model_data(desires, metadata)
    summ, coefs, res = reliability.fit_mixed_model(data, method=method)
    sizes = data.groupby(TASK).size()
    summ.update(
        group_var_se=reliability.group_var_se(res),
        min_group=int(sizes.min()),
        max_group=int(sizes.max()),
        mean_group=float(sizes.mean()),
    )
    # the same rows without covariates: the ICC above is conditional on them
    null = icc.icc_reml_intercept_only(data["desire"], data[TASK])
    v["wb.mixed.icc_unconditional"] = null["icc"]
    v["wb.mixed.sigma_u2_unconditional"] = null["sigma_u2"]
    v["wb.mixed.sigma_e2_unconditional"] = null["sigma_e2"]
    v.update(
        {
            "wb.mixed.sigma_u2": summ["sigma_u2"],
            "wb.mixed.sigma_e2": summ["sigma_e2"],
            "wb.mixed.icc": summ["icc"],
            "wb.mixed.n_obs": summ["n_obs"],
            "wb.mixed.n_tasks": summ["n_groups"],
            "wb.mixed.n_fixed_effects": summ["n_fixed"],
            "wb.mixed.converged": int(summ["converged"]),
            "wb.mixed.n_significant_05": int((coefs["p"].iloc[1:] < 0.05).sum()),
            "wb.mixed.n_responses": data.attrs["n_responses"],
            "wb.mixed.n_unmatched": data.attrs["n_unmatched"],
            "wb.mixed.n_dropped_missing": data.attrs["n_dropped_missing"],
        }
    )
    return Section(values=v, tables={"mixed_model_coefficients": coefs}, extra={"summary": summ})


def external_section(
    tasks: pd.DataFrame, land: pd.DataFrame, usage: pd.DataFrame, yc: pd.DataFrame, papers: pd.DataFrame
) -> Section:
    """Claude.ai usage and YC/arXiv density per zone (the sample against BLS sector employment, which no zone
    reaches, is in :func:`demographics_section`)."""
    share, top = external.claude_top_share(tasks, usage, 10)
    v = {"wb.external.claude_top10_share": share}
    tables = {"claude_top10": top}
    by_task = {}
    for name, df, col in [("yc", yc, "company_count"), ("arxiv", papers, "paper_count")]:
        dens, rl = external.mapping_density(land, df, col, "task")
        by_task[name] = dens
        dens2, rl2 = external.mapping_density(land, df, col, "task_occupation")
        tables[f"{name}_density"] = pd.concat(
            [dens.assign(join="task"), dens2.assign(join="task_occupation")], ignore_index=True
        )
        v[f"wb.external.{name}_red_low_share"] = rl
        v[f"wb.external.{name}_red_low_share_task_occupation"] = rl2
        for _, r in dens.iterrows():
            v[f"wb.external.{name}_density_{r['zone']}"] = r["density"]
    return Section(values=v, tables=tables, extra={"density_by_task": by_task})


def demographics_section(
    desires: pd.DataFrame,
    metadata: pd.DataFrame,
    bls_age: pd.DataFrame,
    bls_race_gender: pd.DataFrame,
    *,
    n_boot: int,
    seed: int,
    max_iter: int,
    tol: float,
    sectors: pd.DataFrame,
    bls_wages: pd.DataFrame,
    null_spread: float = NULL_SPREAD,
) -> Section:
    """Desire/agency by demographic group; the 46.1% raked to BLS CPS 2024 margins, read against a
    random-weights null (weights unrelated to demographics move the strict share by breaking ties), with
    the occupation mix the raking leaves (``sectors``: occupation -> SOC major group; ``bls_wages``: OEWS
    employment) and a sampling interval (workers resampled within occupation, every replicate re-raked);
    and the sample against the BLS, by demographic category and by sector (the values keep their register
    ids, ``wb.demo.sample_pct.*`` and ``wb.external.sector*``)."""
    groups = demographics.demographic_groups(desires, metadata, n_draws=n_boot, seed=seed)
    raked, weights = demographics.raked_headline(
        desires, metadata, bls_age, bls_race_gender, PAPER_CUTOFF, max_iter=max_iter, tol=tol
    )
    comp = demographics.sample_vs_bls_demographics(desires, metadata, bls_age, bls_race_gender)
    by_sector = external.sample_vs_bls_sectors(metadata, sectors, bls_wages)
    r = raked.set_index("variant")["share_gt_cutoff"]
    primary = "age + gender + race (Hispanic as White)"
    v = {
        "wb.raking.share_gt3": float(r.loc[primary]),
        "wb.raking.share_gt3_min": float(r.iloc[1:].min()),
        "wb.raking.share_gt3_max": float(r.iloc[1:].max()),
        "wb.raking.design_effect": float(raked.set_index("variant").loc[primary, "design_effect"]),
        "wb.demo.age18_workers": int((metadata["Age"] == 18).sum()),
        "wb.raking.share_ge3": float(raked.set_index("variant").loc[primary, "share_ge_cutoff"]),
        "wb.raking.share_mid3": float(raked.set_index("variant").loc[primary, "share_mid"]),
        "wb.raking.share_mid3_min": float(raked["share_mid"].iloc[1:].min()),
        "wb.raking.share_mid3_max": float(raked["share_mid"].iloc[1:].max()),
        "wb.raking.unweighted_share_ge3": float(raked["share_ge_cutoff"].iloc[0]),
        # the >= 3 share falls under every mapping (the tie artefact of the strict share, reversed)
        "wb.raking.share_ge3_drop_min": float(
            raked["share_ge_cutoff"].iloc[0] - raked["share_ge_cutoff"].iloc[1:].max()
        ),
        "wb.raking.share_ge3_drop_max": float(
            raked["share_ge_cutoff"].iloc[0] - raked["share_ge_cutoff"].iloc[1:].min()
        ),
        "wb.raking.unweighted_share_mid3": float(raked["share_mid"].iloc[0]),
        "wb.raking.mean_of_task_means": float(raked.set_index("variant").loc[primary, "mean_of_task_means"]),
        "wb.raking.unweighted_mean_of_task_means": float(raked["mean_of_task_means"].iloc[0]),
        "wb.demo.age19_workers": int((metadata["Age"] == 19).sum()),
    }
    workers = weights[primary].index
    ess = demographics.task_effective_sizes(desires, weights[primary])  # per task, under the primary raking
    v["wb.raking.task_ess_median"] = float(ess.median())
    v["wb.raking.task_ess_share_below_3"] = 100 * float((ess < 3).mean())
    mix = demographics.raked_sector_mix(weights[primary], sectors, bls_wages)
    v.update(_sector_mix_values(mix))
    variables, race_map, _ = demographics.RAKING_VARIANTS[primary]
    boot = demographics.raking_bootstrap(
        desires, metadata, bls_age, bls_race_gender, PAPER_CUTOFF, variables, race_map,
        n_draws=n_boot, seed=seed + 9, max_iter=max_iter, tol=tol,
    )  # fmt: skip
    v.update(_raking_bootstrap_values(boot))
    null = demographics.random_weights_null(desires, workers, n_boot, seed + 7, PAPER_CUTOFF, spread=null_spread)
    perm = demographics.random_weights_null(desires, workers, n_boot, seed + 8, PAPER_CUTOFF, template=weights[primary])
    for name, nd in (("random", null), ("permuted", perm)):
        for col in ("share_gt", "share_ge", "share_mid"):
            v[f"wb.raking.null_{name}.{col}"] = [float(np.quantile(nd[col], 0.025)), float(np.quantile(nd[col], 0.975))]
        v[f"wb.raking.null_{name}.share_gt_median"] = float(np.median(nd["share_gt"]))
    v["wb.raking.null_spread"] = null_spread
    v["wb.raking.n_at_cutoff"] = int(
        demographics.tie_robust_share(
            demographics.weighted_task_share(desires, pd.Series(1.0, index=workers), PAPER_CUTOFF)[1], PAPER_CUTOFF
        )["n_at"]
    )
    v["wb.demo.n_groups"] = len(groups)
    v["wb.demo.n_small_groups"] = int(groups["small_group"].sum())
    v["wb.demo.min_group_workers"] = demographics.MIN_GROUP_WORKERS
    for _, row in comp.iterrows():
        if np.isfinite(row["bls_pct"]):
            v[f"wb.demo.sample_pct.{row['variable']}.{row['category']}"] = row["sample_pct"]
    v["wb.external.sectors_in_sample"] = int((by_sector["n_workers"] > 0).sum())
    v["wb.external.sector_share_abs_gap"] = float(
        0.5 * (by_sector["sample_share"] - by_sector["bls_share"]).abs().sum()
    )
    return Section(
        values=v,
        tables={
            "demographic_groups": groups,
            "raking_variants": raked,
            "sample_vs_bls_demographics": comp,
            "sample_vs_bls_sectors": by_sector,
            "raking_category_map": demographics.category_mapping_table(),
            "raking_sector_mix": mix,
        },
        extra={"weights": weights, "primary": primary},
        facts=_response_means(desires, metadata),
    )


#: the largest SOC major groups of the raked sample that the prose sums
SECTOR_TOP = 4


def _sector_mix_values(mix: pd.DataFrame, top: int = SECTOR_TOP) -> dict:
    """What the raked sample's sector mix says (:func:`.demographics.raked_sector_mix`, largest raked first):
    the ``top`` largest groups' share raked, unweighted and of US employment; the largest move of one group's
    share under raking (points); the dissimilarity index against employment (half the summed absolute gaps)
    raked and unweighted; the number of groups without a worker and their share of employment."""
    head = mix.iloc[:top]
    return {
        "wb.raking.sector_top_n": top,
        "wb.raking.sector_top_raked_pct": float(head["raked_pct"].sum()),
        "wb.raking.sector_top_sample_pct": float(head["sample_pct"].sum()),
        "wb.raking.sector_top_bls_pct": float(head["bls_pct"].sum()),
        "wb.raking.sector_max_shift": float((mix["raked_pct"] - mix["sample_pct"]).abs().max()),
        "wb.raking.sector_gap_raked": float(0.5 * (mix["raked_pct"] - mix["bls_pct"]).abs().sum()),
        "wb.raking.sector_gap_unweighted": float(0.5 * (mix["sample_pct"] - mix["bls_pct"]).abs().sum()),
        "wb.raking.sector_groups_without_workers": int((mix["n_workers"] == 0).sum()),
        "wb.raking.sector_bls_pct_without_workers": float(mix.loc[mix["n_workers"] == 0, "bls_pct"].sum()),
    }


def _raking_bootstrap_values(boot: pd.DataFrame, level: float = 0.95) -> dict:
    """95% percentile intervals of the re-raked bootstrap (:func:`.demographics.raking_bootstrap`): the raked
    strict and ties-half shares, the unweighted ties-half share and the paired difference raked minus
    unweighted (ties half), each ``[lo, hi]``; the largest Monte-Carlo standard error of these eight
    endpoints (:func:`.demographics.quantile_mc_se`); the draws and the mean number of tasks with a mean."""
    a = (1 - level) / 2
    series = {
        "share_gt": boot["share_gt"],
        "share_mid": boot["share_mid"],
        "unweighted_mid": boot["unweighted_mid"],
        "diff_mid": boot["share_mid"] - boot["unweighted_mid"],
    }
    v: dict = {"wb.raking.boot.n_draws": len(boot), "wb.raking.boot.mean_tasks": float(boot["n_tasks"].mean())}
    se = []
    for name, x in series.items():
        lo, hi = percentile_interval(x.to_numpy(), level)
        v[f"wb.raking.boot.{name}_ci"] = [float(lo), float(hi)]
        se.extend(demographics.quantile_mc_se(x.to_numpy(), [a, 1 - a]))
    v["wb.raking.boot.mc_se"] = float(max(se))
    return v


def _response_means(desires: pd.DataFrame, metadata: pd.DataFrame) -> dict[str, float]:
    """Response-level mean desire and HAS of the ratings with a metadata row (the demographic figure's lines)."""
    from .common import DESIRE

    w = desires.merge(metadata, on=[USER, OCC])
    return {"response_mean_desire": float(w[DESIRE].mean()), "response_mean_has": float(w[HAS].mean())}


def slips_section(
    values: Mapping,
    land: pd.DataFrame,
    sectors: pd.DataFrame,
    papers: pd.DataFrame,
    *,
    cutoff: float,
    zones_by_sector: pd.DataFrame,
    paper_density: pd.DataFrame,
) -> Section:
    """The slip table. Always evaluated at the paper's own definitions (its cut-off), whatever the
    chapter's ``cutoff`` parameter, since it is about what the paper printed. ``land``, ``zones_by_sector``
    and ``paper_density`` (arXiv mappings per zone, joined on task text) are the landscape section's and the
    external section's at ``cutoff``: only when the run's cut-off is not the paper's are they recomputed at
    the paper's."""
    zs, dens = zones_by_sector, paper_density
    if cutoff != PAPER_CUTOFF:
        l3 = land.copy()
        l3["zone"] = landscape.assign_zones(l3["capability"], l3["desire"], PAPER_CUTOFF)
        zs = landscape.zones_by_sector(l3, sectors)
        dens, _ = external.mapping_density(l3, papers, "paper_count", "task")
    zs = zs.set_index("sector").loc[COMPUTER_MATH]
    low = dens.set_index("zone").loc["low"]
    cm_rnd_n = int(round(zs["rnd"] * zs["n_tasks"] / 100))
    t = slips.paper_slips(
        cm_rnd_pct=zs["rnd"],
        cm_rnd_n=cm_rnd_n,
        cm_n=int(zs["n_tasks"]),
        cm_low_pct=zs["low"],
        low_paper_density=low["density"],
        low_paper_total=low["total"],
        low_n=int(low["n_tasks"]),
        p_jobsecurity=values["wb.p.desire_jobsecurity"],
        n_experts=values["wb.slips.n_experts"],
        single_expert_tasks=values["wb.slips.single_expert_tasks"],
        n_expert_tasks=values["wb.counts.expert_tasks"],
        expert_h5_n=values["wb.has.h5_expert_tasks"],
        worker_h5_n=values["wb.has.h5_worker_tasks"],
    )
    v = {
        "wb.slips.p_desire_jobsecurity": values["wb.p.desire_jobsecurity"],
        "wb.slips.cm_rnd_n": cm_rnd_n,
        "wb.slips.cm_rnd_pct": zs["rnd"],
        "wb.slips.cm_low_pct": zs["low"],
        "wb.slips.cm_green_pct": zs["green"],
        "wb.slips.cm_n_tasks": int(zs["n_tasks"]),
        "wb.slips.low_paper_density": low["density"],
    }
    return Section(values=v, tables={"paper_slips": t})


def paper_section(
    desires: pd.DataFrame,
    metadata: pd.DataFrame,
    experts: pd.DataFrame,
    task_metadata: pd.DataFrame,
    land: pd.DataFrame,
    sectors: pd.DataFrame,
    *,
    usage: pd.DataFrame | None,
    yc: pd.DataFrame | None,
    papers: pd.DataFrame | None,
    row_labels: Mapping[str, Mapping[str, str]],
) -> Section:
    """What only the register needs, by the authors' constructions (:mod:`.authors`): the text claims no
    other section computes (values) and the data frames behind the register's tables (``extra``, keyed by
    register table; :mod:`.register` maps them to cell ids). ``land``: the landscape with zones at the
    run's cut-off; ``row_labels``: ``{table slug: row_labels}`` of the register (nb_has_avg selects its
    occupations by them)."""
    pools = authors.occupation_pools(desires, metadata, experts)
    occ_has = authors.occupation_has(pools=pools)
    merged = authors.merged_task_means(desires, experts)
    v = authors.text_claim_stats(desires, metadata, experts, task_metadata, sectors, merged, papers)
    v["wb.has.occ_worker_levels"] = occ_has["worker_level"].value_counts().reindex(range(1, 6), fill_value=0).tolist()
    v["wb.has.occ_expert_h1"] = int((occ_has["expert_level"] == 1).sum())
    extra = {
        "table2": authors.participants_per_occupation(metadata),
        "table3_4": authors.occupation_task_desire(desires),
        "occupation_has": occ_has,
        "fig4b": authors.fig4b_frame(desires),
        "fig5a": authors.fig5a_frame(land, sectors),
        "mapping": authors.mapping_frames(land, yc, papers),
        "fig6b": authors.fig6b_frame(occ_has),
        "nb_claude": authors.claude_occupations(desires, usage),
        "nb_has_avg": authors.nb_has_avg_frame(merged, row_labels.get("nb_has_avg")),
        "nb_h5": authors.nb_h5_frame(merged, pools, "worker"),
        "nb_h5_expert_set": authors.nb_h5_frame(merged, pools, "expert"),
    }
    return Section(values=v, extra=extra)
