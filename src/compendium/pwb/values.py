"""What the PWB stage records, mapped from :func:`compendium.pwb.build.build`'s result: its own ``values.json``
entries (:func:`stage_values`; the register's claim ids beside them come from
:func:`compendium.pwb.register.register_values`) and every result table it writes under
``results/pwb/tables/`` (:func:`tables`). The chapter's last cell hands both to
:func:`compendium.chapter.publish.publish`, which merges the values with the register's so that a key the two
give different values raises. Nothing is computed here.

Claim ids follow ``published/pwb.yaml``. A claim gets a value only from a data level that computes the
claim's own statistic (or, for the PWI, the statistic the published bootstrap mean estimates: the
point PWI of the same run scores); a claim that needs run-level data and has none gets no value, and
its aggregate approximation goes under a ``pwb.approx.*`` key instead.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping

import numpy as np
import pandas as pd

from compendium.pipeline.results import FLOAT_FORMAT, merge_values

from .aggregates import mean_printed_delta
from .build import PwbResult
from .constants import CONDITION_KEYS, DIMENSIONS, MODEL_KEYS
from .register import register_values

__all__ = [
    "DATA_LEVELS",
    "data_levels",
    "register_slips",
    "slip_notes",
    "values_from_aggregates",
    "values_from_instances",
    "stage_values",
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


def _section_values(r: PwbResult) -> dict:
    """``pwb.agg.*`` checks, ``pwb.released.*``, ``pwb.sensitivity.*``, ``pwb.restore_grid.*``,
    ``pwb.leaderboard_v2_0.*``, ``pwb.pilot.*``, ``pwb.fourth_judge.*``, ``pwb.sample_irr.*``, ``pwb.stale.*``."""
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
    """``pwb.inst.*`` (:func:`values_from_instances` and the check against the aggregates' cell sums) and the
    anomaly count (0 without the per-instance data)."""
    v = {}
    if r.instances is not None:
        v = values_from_instances(r.instances.res)
        v["pwb.inst.vs_aggregates.max_abs_sum_diff"] = r.instances.max_sum_diff
    return merge_values(v, {"pwb.inst.anomalies.n": int(len(r.anomalies))}, what="pwb: the per-instance values")


def stage_values(result: PwbResult) -> dict:
    """The chapter's own ``values.json`` entries: the sections' values (``pwb.agg.*`` checks, ``pwb.released.*``,
    ``pwb.sensitivity.*``, ``pwb.restore_grid.*``, ``pwb.leaderboard_v2_0.*``, ``pwb.pilot.*``,
    ``pwb.fourth_judge.*``, ``pwb.sample_irr.*``, ``pwb.stale.*``), the per-instance values (``pwb.inst.*``) and
    :func:`values_from_aggregates` (``pwb.agg.*``, ``pwb.approx.*``). The register's cells and text claims are
    not among them: :func:`compendium.chapter.publish.publish` merges them in, and a key both give must have
    the same value."""
    a = result.aggregates
    return merge_values(
        _section_values(result),
        _instance_values(result),
        values_from_aggregates(a.t2, a.diag, a.l1, a.d_approx, write_claims=False),
        what="pwb: the chapter's values",
    )


def slip_notes(notes: Mapping) -> dict:
    """The register's ``differs`` notes other than the stale table (``published/notes/pwb.yaml``): the printed
    numbers that the released files contradict, each for a reason the chapter shows."""
    return {k: n for k, n in notes.items() if n.get("kind") == "differs" and n.get("reason") != "stale_table"}


def register_slips(notes: Mapping, published: Mapping, reg_values: Mapping) -> pd.DataFrame:
    """The register's ``differs`` notes other than the stale table: claim, printed, our value (``reg_values``:
    :func:`compendium.pwb.register.register_values`), reason, why."""
    rows = [
        {
            "claim": k,
            "printed": published[k],
            "data": reg_values.get(k),
            "reason": n["reason"].replace("_", " "),
            "why": " ".join(n["note"].split()),
        }
        for k, n in slip_notes(notes).items()
    ]
    return pd.DataFrame(rows, columns=["claim", "printed", "data", "reason", "why"])


def _with_index(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with its index as the first column, under the header ``df.to_csv(index=True)`` writes (the index's
    name or nothing, the column labels as the fixed float format prints them): the table a reader of the CSV
    sees, for :func:`compendium.chapter.publish.publish`, which writes every table without its index."""
    header = next(csv.reader(io.StringIO(df.iloc[:0].to_csv(float_format=FLOAT_FORMAT, lineterminator="\n"))))
    out = df.reset_index()
    out.columns = header
    return out


def _instance_tables(r: PwbResult) -> dict[str, pd.DataFrame]:
    out: dict[str, pd.DataFrame] = {}
    if r.instances is not None:
        res = r.instances.res
        names = ("pwi", "d_pooled", "diagnostics", "irr", "layers", "completeness")
        out.update({f"instances_{n}": res[n] for n in names})
        out.update({f"instances_tests_{n}": t for n, t in res["tests"].items()})
        out.update({f"instances_pingouin_{n}": t for n, t in r.instances.pingouin.items()})
        out["instances_correlation"] = _with_index(res["correlation"])
        if res.get("correlation_authors") is not None:
            out["instances_correlation_authors"] = _with_index(res["correlation_authors"])
    out["judge_anomalies"] = r.anomalies
    return out


def tables(result: PwbResult) -> dict[str, pd.DataFrame]:
    """Every result table the stage writes under ``results/pwb/tables/``, by name (a table whose index carries
    data has it as its first column, :func:`_with_index`)."""
    a, s, val, e = result.aggregates, result.sensitivity, result.validation, result.effects
    out = {
        "data_levels": data_levels(result.instances_present),
        "cells": a.cells,
        "reconstruction_checks": a.checks,
        "table2_pwi": a.t2,
        "d_pooled_approx": a.d_approx,
        "dimension_diagnostics": a.diag,
        "model_dimension_baseline": _with_index(a.matrices["baseline"]),
        "model_dimension_prompted": _with_index(a.matrices["prompted"]),
        "model_dimension_delta": _with_index(a.matrices["delta"]),
        "layer_summary": a.layers,
        "correlation_matrix_released": _with_index(result.inputs.released["correlation"]),
        "weight_sensitivity": s.sens[["scheme", "kendall_tau", "max_dev", "min_delta", "top3_stable"]],
        "weight_sensitivity_pwis": s.sens_pwis,
        "restore_grid_min_delta": _with_index(s.grid),
        "leaderboard_v2_0": s.lb,
        "pilot_agreement": val.pilot_table,
        "fourth_judge_duplicates": val.dups,
        "fourth_judge_rules": val.rules,
        "fourth_judge_agreement": val.fj_table,
        "fourth_judge_agreement_per_model": val.fa["per_model"],
        "fourth_judge_agreement_per_condition": val.fa["per_condition"],
        "panel_irr_sample_vs_full": val.irr_cmp,
        "stale_appendix_comparison": a.stale,
        "stale_irr_requirement": a.stale_irr,
        "paper_smaller_points": a.smaller,
        "register_slips": register_slips(result.inputs.notes, result.inputs.published, register_values(result)[0]),
    }
    out.update(_instance_tables(result))
    out["d_pooled_intervals"] = e.d_ci
    out["cell_d_intervals"] = e.cell_ci
    out["dimension_d_pooled_intervals"] = e.dim_ci
    return out
