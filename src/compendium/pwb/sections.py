"""The sections of the PWB chapter, each computed once by :func:`compendium.pwb.build.build`.

Each ``*_section`` function computes one part of the chapter from the study's inputs
(:class:`compendium.pwb.build.Inputs`) and returns a frozen section (typed fields, frames not to be edited
in place), in the chapter's order: from the released aggregates (:func:`aggregates_section`), the weighting
schemes (:func:`sensitivity_section`), the effect sizes with intervals (:func:`effects_section`), the
judge-level samples (:func:`validation_section`), the benchmark's design (:func:`design_section`) and the
per-instance path (:func:`instances_section`, only with ``data/pwb/results/``). The analyses themselves are
in :mod:`.aggregates`, :mod:`.weights`, :mod:`.effects`, :mod:`.validation` and :mod:`.instances`; here they
are called, each once (``tests/pwb/test_pwb_build.py`` counts them).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from . import (
    aggregates as agg,
    effects as eff,
    instances as inst,
    paper_printed as printed,
    validation as val,
    weights as wts,
)
from .constants import DIMENSIONS

if TYPE_CHECKING:
    from compendium.pipeline.params import Pwb

    from .build import Inputs

__all__ = [
    "STAGE",
    "Aggregates",
    "Sensitivity",
    "Effects",
    "Validation",
    "Instances",
    "aggregates_section",
    "sensitivity_section",
    "effects_section",
    "validation_section",
    "design_section",
    "instances_section",
    "no_anomalies",
    "SECTIONS",
]

STAGE = "pwb"  # the stage that runs the chapter (its progress lines name it)


@dataclass(frozen=True)
class Aggregates:
    """From the released aggregates (``analysis_output/*.csv``): the exact cell sums and all they determine."""

    cells: pd.DataFrame  # agg.reconstruct_cells
    checks: pd.DataFrame  # agg.reconstruction_checks
    t2: pd.DataFrame  # agg.table2 with the released PWIs beside (columns *_released, diff_*)
    d_approx: pd.DataFrame  # agg.d_pooled_approx with printed_table2 and rounds_to_printed
    diag: pd.DataFrame  # agg.dimension_diagnostics with the released columns and the v2.1 weight
    l1: pd.DataFrame  # agg.layer1_summary
    matrices: Mapping[str, pd.DataFrame]  # agg.model_dimension_matrix: baseline, prompted, delta
    layers: pd.DataFrame  # agg.layer_table (Layer 1 recomputed, Layers 2 and 3 released)
    stale: pd.DataFrame  # agg.stale_table_comparison
    stale_printed: pd.DataFrame  # the stale appendix table as printed
    stale_irr: pd.DataFrame  # agg.incomplete_run_agreement_needed for the Section 4.3 figures
    completeness: pd.Series  # agg.completeness_share
    smaller: pd.DataFrame  # agg.smaller_points


@dataclass(frozen=True)
class Sensitivity:
    """The weighting schemes and what they change (point PWIs from the cell sums)."""

    weights: Mapping[str, float]  # the run's scheme (params.weight_scheme)
    w21: Mapping[str, float]  # the v2.1 weights
    v20: Mapping[str, float]  # the v2.0 weights
    schemes: Mapping[str, Mapping[str, float]]  # wts.sensitivity_schemes
    sens: pd.DataFrame  # agg.weight_sensitivity (per scheme)
    sens_pwis: pd.DataFrame  # agg.weight_sensitivity (the PWIs)
    cmp: pd.DataFrame  # sens beside printed.SENSITIVITY_TABLE (suffix _printed)
    grid: pd.DataFrame  # agg.restore_grid
    lb: pd.DataFrame  # agg.leaderboard (v2.0 weights)
    lb_cmp: pd.DataFrame  # lb beside printed.LEADERBOARD_V2_0 (suffix _printed)


@dataclass(frozen=True)
class Effects:
    """Effect sizes with confidence intervals (pingouin)."""

    d_ci: pd.DataFrame  # effects.d_pooled_intervals
    cell_ci: pd.DataFrame  # effects.cell_d_intervals
    dim_ci: pd.DataFrame  # effects.dimension_d_pooled_intervals


@dataclass(frozen=True)
class Validation:
    """The judge-level samples: the human pilot and the fourth-judge sample."""

    pilot: Mapping  # val.pilot_agreement
    pilot_table: pd.DataFrame  # overall, UT + AR_d, per dimension
    sample: pd.DataFrame  # val.fourth_judge_sample (the records kept)
    audit: Mapping  # val.fourth_judge_sample (the audit)
    dups: pd.DataFrame  # the duplicated fourth-judge records (line numbers 1-based)
    rules: pd.DataFrame  # val.dedupe_sensitivity
    fa: Mapping  # val.fourth_judge_agreement
    fj_table: pd.DataFrame  # overall and per dimension
    sirr: pd.DataFrame  # val.sample_panel_irr
    irr_cmp: pd.DataFrame  # sirr beside the released full-data IRR table


@dataclass(frozen=True)
class Instances:
    """The per-instance path (only with ``data/pwb/results/``)."""

    res: Mapping  # instances.run_instance_pipeline
    n_scores: int  # judge scores loaded
    pingouin: Mapping[str, pd.DataFrame]  # effects.paired_tests and effects.layer_ttests by table name
    max_sum_diff: float  # largest |per-cell score sum of the runs - sum recovered from the aggregates|
    layer2_authors: pd.DataFrame  # instances.layer2_authors_filter
    layer2_cluster: Mapping[str, float] | None  # instances.layer2_low_cluster


def aggregates_section(inputs: Inputs, weights: Mapping[str, float], w21: Mapping[str, float]) -> Aggregates:
    """Every number the released aggregates determine (the chapter's "From the released aggregates")."""
    rel = inputs.released
    cells = agg.reconstruct_cells(rel["dimension_scores"], rel["effect_sizes"])
    t2 = agg.table2(cells, weights)
    pub = rel["pwi"].pivot(index="Model", columns="Variant", values="PWI")
    t2["baseline_released"] = t2["model"].map(pub["baseline"])
    t2["prompted_released"] = t2["model"].map(pub["with_system_prompt"])
    t2["diff_baseline"] = t2["baseline"] - t2["baseline_released"]
    t2["diff_prompted"] = t2["prompted"] - t2["prompted_released"]
    d_approx = agg.d_pooled_approx(cells)
    d_approx["printed_table2"] = d_approx["model"].map(printed.D_POOLED_TABLE2)
    d_approx["rounds_to_printed"] = d_approx["d_pooled"].round(2) == d_approx["printed_table2"]
    diag = agg.dimension_diagnostics(cells)
    rd = rel["diagnostics"].set_index("Dimension")
    for col, rcol in (
        ("released_ci_lower", "CI_lower"),
        ("released_ci_upper", "CI_upper"),
        ("released_qwk", "QWK"),
        ("released_spread", "Spread"),
    ):
        diag[col] = diag["dimension"].map(rd[rcol])
    diag["weight_v2_1"] = diag["dimension"].map(lambda d: w21.get(d, 0.0))
    l1 = agg.layer1_summary(cells)
    stale_printed = printed.stale_appendix_table()
    ut = next(x for x in printed.INCONSISTENCIES if x["topic"] == "UT exact agreement")["printed"]
    comp = agg.completeness_share(cells)
    return Aggregates(
        cells=cells,
        checks=agg.reconstruction_checks(cells, rel["diagnostics"], rel["layers"], diag=diag, l1=l1),
        t2=t2,
        d_approx=d_approx,
        diag=diag,
        l1=l1,
        matrices={w: agg.model_dimension_matrix(cells, w) for w in ("baseline", "prompted", "delta")},
        layers=agg.layer_table(rel["layers"], l1),
        stale=agg.stale_table_comparison(cells, stale_printed),
        stale_printed=stale_printed,
        stale_irr=agg.incomplete_run_agreement_needed(cells, rel["irr"], ut),
        completeness=comp,
        smaller=agg.smaller_points(cells, t2, rel, printed.SMALLER_PRINTED, comp),
    )


def sensitivity_section(
    config: Mapping, cells: pd.DataFrame, params: Pwb, weights: Mapping[str, float], w21: Mapping[str, float]
) -> Sensitivity:
    """The alternative schemes, their sensitivity table, the restore grid, the v2.0 leaderboard (``weights``:
    the run's scheme, ``w21``: the v2.1 weights, both from ``config``)."""
    v20 = wts.scheme_weights(config, "legacy_weights_v2_0")
    schemes = wts.sensitivity_schemes(
        config, cf_heavy_weight=params.cf_heavy_weight, restore_weight=params.restore_weight
    )
    sens, sens_pwis = agg.weight_sensitivity(cells, schemes)
    lb = agg.leaderboard(cells, v20)
    return Sensitivity(
        weights=weights,
        w21=w21,
        v20=v20,
        schemes=schemes,
        sens=sens,
        sens_pwis=sens_pwis,
        cmp=sens.merge(printed.SENSITIVITY_TABLE, on="scheme", suffixes=("", "_printed")),
        grid=agg.restore_grid(cells, w21),
        lb=lb,
        lb_cmp=lb.merge(printed.LEADERBOARD_V2_0, on="model", suffixes=("", "_printed")),
    )


def effects_section(inputs: Inputs, a: Aggregates) -> Effects:
    """Confidence intervals of d_pooled (approximation), of the released per-cell d and of the pooled d per dimension."""
    rel = inputs.released
    return Effects(
        d_ci=eff.d_pooled_intervals(a.d_approx, a.cells),
        cell_ci=eff.cell_d_intervals(rel["effect_sizes"], rel["dimension_scores"]),
        dim_ci=eff.dimension_d_pooled_intervals(a.cells),
    )


def validation_section(inputs: Inputs, params: Pwb) -> Validation:
    """The human pilot's agreement; the fourth-judge sample under ``params.fourth_judge_rule``, its audit,
    the rules compared, its agreement with the panel and the panel's IRR on it."""
    pilot = val.pilot_agreement(inputs.pilot_scores, inputs.pilot_truth)
    pilot_table = pd.concat(
        [
            pd.DataFrame([{"dimension": "ALL", **pilot["overall"]}]),
            pd.DataFrame([{"dimension": "UT + AR_d", **pilot["low_irr"]}]),
            pilot["per_dimension"],
        ],
        ignore_index=True,
    )
    fj = inputs.fourth_scores
    sample, audit = val.fourth_judge_sample(fj, inputs.fourth_errors, rule=params.fourth_judge_rule)
    dups = fj.reset_index().rename(columns={"index": "line"})
    dups = dups[dups["item_id"].isin(audit["duplicated_items"])][
        ["line", "item_id", "dimension", "model", "condition", "prompt_id", "panel_median", "claude_score", "attempts"]
    ]
    dups["line"] += 1
    fa = val.fourth_judge_agreement(sample)
    sirr = val.sample_panel_irr(sample)
    irr_rel = inputs.released["irr"].rename(columns={"Dimension": "dimension", "N": "n"})
    return Validation(
        pilot=pilot,
        pilot_table=pilot_table,
        sample=sample,
        audit=audit,
        dups=dups,
        rules=val.dedupe_sensitivity(fj),
        fa=fa,
        fj_table=pd.concat(
            [pd.DataFrame([{"dimension": "ALL", **fa["overall"]}]), fa["per_dimension"]], ignore_index=True
        ),
        sirr=sirr,
        irr_cmp=sirr.merge(irr_rel, on="dimension", suffixes=("_sample", "_full_released")),
    )


def design_section(inputs: Inputs, cells: pd.DataFrame) -> dict[str, Any]:
    """The benchmark's design as its files hold it (prompt files, ``config.yaml``) and the planned and scored
    Layer-1 runs per dimension (cell counts): plain counts by name, for the register's design claims."""
    config = inputs.config
    n_prompts = {d: len(doc.get("prompts", [])) for d, doc in inputs.layer1_prompts.items()}
    n_models = int(cells["model"].nunique())
    runs_per_prompt = int(config.get("settings", {}).get("runs_per_prompt", 0)) or None
    planned = {d: n_models * 2 * n_prompts.get(d, 0) * (runs_per_prompt or 0) for d in DIMENSIONS}
    judges = [str(j.get("name", "")).replace(" (judge)", "") for j in config.get("judges", [])]
    temps = {float(j.get("temperature")) for j in config.get("judges", []) if j.get("temperature") is not None}
    turns = {len(s.get("turns", [])) for s in inputs.layer2_scenarios}
    return {
        "n_models": n_models,
        "n_prompts": n_prompts,
        "runs_per_prompt": runs_per_prompt,
        "planned_per_dimension": planned,
        "scored_per_dimension": cells.groupby("dimension")["n"].sum(),
        "n_scored": int(cells["n"].sum()),
        "n_per_dimension_condition": float(cells.groupby(["dimension", "condition"])["n"].sum().mean()),
        "n_domains": len({p.get("domain") for doc in inputs.layer1_prompts.values() for p in doc.get("prompts", [])}),
        "turns_per_scenario": turns.pop() if len(turns) == 1 else None,
        "n_adversarial": len(inputs.layer3_prompts.get("prompts", [])),
        "judges": judges,
        "judge_subject_overlap": len(set(judges) & set(cells["model"])),
        "judge_temperature": temps.pop() if len(temps) == 1 else None,
        "settings": dict(config.get("settings", {})),
        "score_max": config.get("scoring", {}).get("max_score_per_item"),
    }


def _no_progress(*_a, **_k):
    return contextlib.nullcontext()


def instances_section(
    inputs: Inputs,
    cells: pd.DataFrame,
    weights: Mapping[str, float],
    params: Pwb,
    *,
    progress: Callable | None = None,
) -> Instances | None:
    """The per-instance path when the results were loaded: the pipeline (PWI and Table 3 bootstraps, d_pooled,
    tests, IRR, correlations), the pingouin tests, the check against the aggregates' cell sums and the
    authors' Layer-2 filter. None without the data. ``progress`` is :func:`compendium.pipeline.progress.step` in the
    stage (passed in, so that this module does not make every importer depend on the progress reporter)."""
    if inputs.instances is None:
        return None
    step = progress or _no_progress
    with step(
        STAGE, "per-instance path: PWI and Table 3 bootstraps, tests, IRR", n=params.n_boot, unit="draws per PWI"
    ):
        res = inst.run_instance_pipeline(
            inputs.instances,
            weights,
            n_boot=params.n_boot,
            seed=params.seed,
            ci=params.ci_level,
            diag_n_boot=params.diag_n_boot,
            diag_seed=params.diag_seed,
        )
    tests = dict(eff.paired_tests(res["runs"], params.ci_level))
    for layer in (2, 3):
        if (res["panel"]["layer"] == layer).any():
            tests[f"layer{layer}"] = eff.layer_ttests(res["panel"], layer, params.ci_level)
    cm = res["runs"].groupby(["model", "condition", "dimension"])["panel"].agg(["sum", "size"]).reset_index()
    chk = cells.merge(cm, on=["model", "condition", "dimension"], how="outer")
    return Instances(
        res=res,
        n_scores=len(inputs.instances),
        pingouin=tests,
        max_sum_diff=float(np.nanmax(np.abs(chk["score_sum"] - chk["sum"]))) if len(chk) else float("nan"),
        layer2_authors=inst.layer2_authors_filter(res["panel"]),
        layer2_cluster=inst.layer2_low_cluster(res.get("layer2")),
    )


def no_anomalies() -> pd.DataFrame:
    """The judge data-quality table without per-instance data: its columns, no rows."""
    return inst.judge_anomalies(pd.DataFrame(columns=list(inst.SCHEMA) + ["score_raw", "stored_score"]))


#: the section functions :func:`compendium.pwb.build.build` calls, each once (tests/pwb/test_pwb_build.py counts them)
SECTIONS = (
    aggregates_section,
    sensitivity_section,
    effects_section,
    validation_section,
    design_section,
    instances_section,
)
