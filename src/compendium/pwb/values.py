"""What the PWB stage writes, mapped from :func:`compendium.pwb.build`'s result: its ``values.json``
entries (beside the register's claim ids, :func:`compendium.pwb.register.register_values`), its result
tables under ``results/pwb/tables/`` and the data-level table. Nothing is computed here.

Claim ids follow ``published/pwb.yaml``. A claim gets a value only from a data level that computes the
claim's own statistic (or, for the PWI, the statistic the published bootstrap mean estimates: the
point PWI of the same run scores); a claim that needs run-level data and has none gets no value, and
its aggregate approximation goes under a ``pwb.approx.*`` key instead.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .aggregates import mean_printed_delta
from .compute import PwbResult
from .constants import CONDITION_KEYS, DIMENSIONS, MODEL_KEYS

__all__ = [
    "DATA_LEVELS",
    "data_levels",
    "values_from_aggregates",
    "values_from_instances",
    "stage_values",
    "all_values",
    "tables",
]

#: Which data level reproduces which published number (claim id prefix -> level, how).
DATA_LEVELS = [
    (
        "pwb.pwi.*",
        "Table 2 PWI (bootstrap mean)",
        "aggregates",
        "point PWI from the exact per-cell means; the bootstrap mean it estimates needs the runs",
    ),
    ("pwb.delta.mean", "mean ΔPWI", "aggregates", "mean of printed prompted − printed baseline"),
    (
        "pwb.d_pooled.*",
        "Table 2 d_pooled",
        "per-instance",
        "needs run-level scores; aggregates give an approximation with rounding bounds (pwb.approx.d_pooled.*)",
    ),
    ("pwb.dim.*", "Table 3 pooled means and Δ", "aggregates", "exact pooled sums"),
    ("pwb.layer1.*", "Layer-1 means", "aggregates", "exact pooled sums"),
    (
        "pwb.cf_co.r",
        "r(CF, CO) over prompt-level means",
        "per-instance",
        (
            "the paper's concatenate-and-cut rule; pairing by prompt beside it (pwb.cf_co.r.variant.paired); "
            "the released matrix value is shown as released (pwb.released.cf_co_r)"
        ),
    ),
    (
        "(table)",
        "Table 3 bootstrap CIs",
        "per-instance",
        ("the authors' exact random stream (default_rng(0)); released CIs shown, labelled as released"),
    ),
    (
        "(table)",
        "IRR table (13,672 complete triples)",
        "per-instance",
        "released table shown; the fourth-judge sample gives a 500-item check",
    ),
    ("(table)", "paired tests (Sec. 5.4), Layer 2/3 means", "per-instance", "released layer means shown, labelled"),
    ("(table)", "weight sensitivity, v2.0 leaderboard", "aggregates", "point PWIs under each scheme"),
    ("(table)", "human pilot, fourth judge", "judge-level samples", "released samples"),
]


def data_levels(instances_present: bool) -> pd.DataFrame:
    """The data-level table: what each level reproduces and whether it is reproduced in this build."""
    rows = []
    for claim, what, level, how in DATA_LEVELS:
        now = level != "per-instance" or instances_present
        rows.append(
            {
                "claim_or_table": claim,
                "what": what,
                "data level": level,
                "method": how,
                "in this build": "yes" if now else "no: needs data/pwb/results",
            }
        )
    return pd.DataFrame(rows)


def _model_key(m: str) -> str:
    if m not in MODEL_KEYS:
        raise ValueError(f"model {m!r} has no claim key; known: {list(MODEL_KEYS)}")
    return MODEL_KEYS[m]


def values_from_aggregates(
    t2: pd.DataFrame, diag: pd.DataFrame, layer1: pd.DataFrame, d_approx: pd.DataFrame, write_claims: bool = True
) -> dict:
    """values.json entries computable from the released aggregates.

    Claim ids (when ``write_claims``): pwb.pwi.<model>.<baseline|prompted> (point PWI), pwb.delta.mean,
    pwb.dim.<dimension>.<baseline|prompted|delta>, pwb.layer1.<condition>_mean. Always: the same
    point values under pwb.agg.*, printed deltas, pwb.approx.d_pooled.<model>[.lo|.hi].
    """
    v: dict = {}
    t = t2.set_index("model")
    for m, row in t.iterrows():
        k = _model_key(m)
        for cond, col in (("baseline", "baseline"), ("prompted", "prompted")):
            v[f"pwb.agg.pwi.{k}.{cond}"] = float(row[col])
            if write_claims:
                v[f"pwb.pwi.{k}.{cond}"] = float(row[col])
        v[f"pwb.agg.delta.{k}"] = float(row["delta_printed"])
    md = mean_printed_delta(t["baseline"], t["prompted"])
    v["pwb.agg.delta.mean"] = md
    v["pwb.agg.delta.mean_unrounded"] = float(t["delta"].mean())
    if write_claims:
        v["pwb.delta.mean"] = md
    for _, row in diag.iterrows():
        for col in ("baseline", "prompted", "delta"):
            v[f"pwb.agg.dim.{row['dimension']}.{col}"] = float(row[col])
            if write_claims:
                v[f"pwb.dim.{row['dimension']}.{col}"] = float(row[col])
        v[f"pwb.agg.dim.{row['dimension']}.models_improving"] = int(row["models_improving"])
    for _, row in layer1.iterrows():
        c = CONDITION_KEYS[row["condition"]]
        v[f"pwb.agg.layer1.{c}_mean"] = float(row["mean"])
        v[f"pwb.agg.layer1.{c}_n"] = int(row["n"])
        if write_claims:
            v[f"pwb.layer1.{c}_mean"] = float(row["mean"])
    for _, row in d_approx.iterrows():
        k = _model_key(row["model"])
        v[f"pwb.approx.d_pooled.{k}"] = float(row["d_pooled"])
        v[f"pwb.approx.d_pooled.{k}.lo"] = float(row["d_lo"])
        v[f"pwb.approx.d_pooled.{k}.hi"] = float(row["d_hi"])
    return v


def values_from_instances(res: Mapping) -> dict:
    """Supplementary values.json entries (``pwb.inst.*``) from
    :func:`~compendium.pwb.instances.run_instance_pipeline`; the claim ids themselves come from
    :func:`compendium.pwb.register.register_values`."""
    v: dict = {}
    for _, row in res["pwi"].iterrows():
        k, c = _model_key(row["model"]), CONDITION_KEYS[row["condition"]]
        for col in ("pwi", "pwi_point", "ci_lower", "ci_upper", "boot_sd", "mc_se"):
            v[f"pwb.inst.pwi.{k}.{c}.{col}"] = float(row[col])
    pooled = res["tests"]["pooled"].iloc[0]
    v["pwb.inst.paired.n_pairs"] = int(pooled["n_pairs"])
    v["pwb.inst.paired.t"] = float(pooled["t"])
    v["pwb.inst.paired.d_z"] = float(pooled["d_z"])
    v["pwb.inst.corr.min_len"] = int(res.get("corr_min_len", 0))
    v["pwb.inst.anomalies.n"] = int(len(res.get("anomalies", [])))
    irr = res["irr"].set_index("dimension")
    for d in list(DIMENSIONS) + ["POOLED"]:
        if d in irr.index:
            for col in ("n", "exact", "adjacent", "qwk", "alpha", "spread"):
                val = irr.loc[d, col]
                v[f"pwb.inst.irr.{d}.{col}"] = int(val) if col == "n" else (float(val) if np.isfinite(val) else None)
    return v


def stage_values(r: PwbResult) -> dict:
    """The chapter's own ``values.json`` entries (``pwb.agg.*``, ``pwb.released.*``, ``pwb.sensitivity.*``,
    ``pwb.restore_grid.*``, ``pwb.leaderboard_v2_0.*``, ``pwb.pilot.*``, ``pwb.fourth_judge.*``,
    ``pwb.sample_irr.*``, ``pwb.stale.*``)."""
    v: dict = {}
    a, s, val = r.aggregates, r.sensitivity, r.validation
    cells, released = a.cells, r.inputs.released
    v["pwb.data_level.instances_present"] = int(r.instances_present)
    v["pwb.agg.reconstruction.max_abs_diff"] = float(a.checks["abs_diff"].max())
    v["pwb.agg.reconstruction.posterior_max_abs_dev"] = float(
        (cells["posterior_implied"] - cells["posterior_released"]).abs().max()
    )
    v["pwb.agg.n_cells_prompt_lowers"] = int((a.matrices["delta"].stack() < 0).sum())
    v["pwb.released.cf_co_r"] = float(released["correlation"].loc["cognitive_forcing", "complementarity"])
    lay = a.layers
    for _, row in lay[lay["layer"] != "Layer 1"].iterrows():
        cond = "prompted" if row["condition"] == "with_system_prompt" else "baseline"
        v[f"pwb.released.{row['layer'].lower().replace(' ', '')}.{cond}_mean"] = float(row["mean"])
    for _, row in s.sens.iterrows():
        for col in ("kendall_tau", "max_dev", "min_delta"):
            v[f"pwb.sensitivity.{row['scheme']}.{col}"] = float(row[col])
        v[f"pwb.sensitivity.{row['scheme']}.top3_stable"] = int(row["top3_stable"])
    v["pwb.restore_grid.ut_0.05.ar_0.05"] = float(s.grid.loc[0.05, 0.05])
    v["pwb.restore_grid.ut_0.10.ar_0.10"] = float(s.grid.loc[0.10, 0.10])
    for _, row in s.lb.iterrows():
        for col in ("baseline", "prompted", "delta"):
            v[f"pwb.leaderboard_v2_0.{MODEL_KEYS[row['model']]}.{col}"] = float(row[col])
    for k in ("n", "exact", "adjacent", "qwk", "mad"):
        v[f"pwb.pilot.{k}"] = val.pilot["overall"][k]
        v[f"pwb.pilot.low_irr.{k}"] = val.pilot["low_irr"][k]
    au = val.audit
    v["pwb.fourth_judge.n_records"] = au["n_records"]
    v["pwb.fourth_judge.n_items"] = au["n_items"]
    v["pwb.fourth_judge.n_duplicated_items"] = len(au["duplicated_items"])
    v["pwb.fourth_judge.n_error_records"] = au["n_error_records"]
    v["pwb.fourth_judge.error_items_rescored"] = au["error_items_rescored"]
    for k in ("n", "exact", "adjacent", "qwk", "mad"):
        v[f"pwb.fourth_judge.{k}"] = val.fa["overall"][k]
    for _, row in val.fa["per_dimension"].iterrows():
        for k in ("n", "exact", "adjacent", "qwk"):
            v[f"pwb.fourth_judge.{row['dimension']}.{k}"] = row[k]
    for _, row in val.sirr.iterrows():
        for k in ("n", "exact", "adjacent", "qwk", "alpha", "spread"):
            v[f"pwb.sample_irr.{row['dimension']}.{k}"] = row[k]
    stale = a.stale
    v["pwb.stale.max_abs_diff"] = float(stale["diff"].abs().max())
    v["pwb.stale.mean_abs_diff"] = float(stale["diff"].abs().mean())
    v["pwb.stale.n_cells_off"] = int((stale["diff"].abs() > 0.005 + 1e-9).sum())
    v["pwb.released.irr.uncertainty_transparency.exact"] = float(
        released["irr"].set_index("Dimension").loc["uncertainty_transparency", "exact"]
    )
    v["pwb.agg.completeness.min_share"] = float(a.completeness.min())
    v["pwb.agg.completeness.max_share"] = float(a.completeness.max())
    return v


def _instance_values(r: PwbResult) -> dict:
    """``pwb.inst.*`` (:func:`values_from_instances` and the check against the aggregates' cell sums)."""
    if r.instances is None:
        return {}
    v = values_from_instances(r.instances.res)
    v["pwb.inst.vs_aggregates.max_abs_sum_diff"] = r.instances.max_sum_diff
    return v


def all_values(r: PwbResult, reg_values: Mapping) -> dict:
    """The stage's whole ``values.json``: :func:`stage_values`, then the per-instance values, the anomaly
    count, :func:`values_from_aggregates` (``pwb.agg.*``, ``pwb.approx.*``) and last the register's cells
    and text claims (which win on a shared key)."""
    a = r.aggregates
    v = {**stage_values(r), **_instance_values(r), "pwb.inst.anomalies.n": int(len(r.anomalies))}
    v.update(values_from_aggregates(a.t2, a.diag, a.l1, a.d_approx, write_claims=False))
    v.update(reg_values)
    return v


def _instance_tables(r: PwbResult) -> dict[str, tuple[pd.DataFrame, bool]]:
    out: dict[str, tuple[pd.DataFrame, bool]] = {}
    if r.instances is not None:
        res = r.instances.res
        names = ("pwi", "d_pooled", "diagnostics", "irr", "layers", "completeness")
        out.update({f"instances_{n}": (res[n], False) for n in names})
        out.update({f"instances_tests_{n}": (t, False) for n, t in res["tests"].items()})
        out.update({f"instances_pingouin_{n}": (t, False) for n, t in r.instances.pingouin.items()})
        out["instances_correlation"] = (res["correlation"], True)
        if res.get("correlation_authors") is not None:
            out["instances_correlation_authors"] = (res["correlation_authors"], True)
    out["judge_anomalies"] = (r.anomalies, False)
    return out


def tables(r: PwbResult, slips: pd.DataFrame) -> dict[str, tuple[pd.DataFrame, bool]]:
    """The result tables the stage writes under ``results/pwb/tables/``: name -> (table, write the index);
    ``slips``: :func:`compendium.pwb.summary.register_slips`."""
    a, s, val, e = r.aggregates, r.sensitivity, r.validation, r.effects
    out = {
        "cells": (a.cells, False),
        "reconstruction_checks": (a.checks, False),
        "table2_pwi": (a.t2, False),
        "d_pooled_approx": (a.d_approx, False),
        "dimension_diagnostics": (a.diag, False),
        "model_dimension_baseline": (a.matrices["baseline"], True),
        "model_dimension_prompted": (a.matrices["prompted"], True),
        "model_dimension_delta": (a.matrices["delta"], True),
        "layer_summary": (a.layers, False),
        "correlation_matrix_released": (r.inputs.released["correlation"], True),
        "weight_sensitivity": (s.sens[["scheme", "kendall_tau", "max_dev", "min_delta", "top3_stable"]], False),
        "weight_sensitivity_pwis": (s.sens_pwis, False),
        "restore_grid_min_delta": (s.grid, True),
        "leaderboard_v2_0": (s.lb, False),
        "pilot_agreement": (val.pilot_table, False),
        "fourth_judge_duplicates": (val.dups, False),
        "fourth_judge_rules": (val.rules, False),
        "fourth_judge_agreement": (val.fj_table, False),
        "fourth_judge_agreement_per_model": (val.fa["per_model"], False),
        "fourth_judge_agreement_per_condition": (val.fa["per_condition"], False),
        "panel_irr_sample_vs_full": (val.irr_cmp, False),
        "stale_appendix_comparison": (a.stale, False),
        "stale_irr_requirement": (a.stale_irr, False),
        "paper_smaller_points": (a.smaller, False),
        "register_slips": (slips, False),
    }
    out.update(_instance_tables(r))
    out["d_pooled_intervals"] = (e.d_ci, False)
    out["cell_d_intervals"] = (e.cell_ci, False)
    out["dimension_d_pooled_intervals"] = (e.dim_ci, False)
    return out
