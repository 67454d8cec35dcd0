"""What the robustness chapter records: the ``rob.*`` values of ``results/robustness/values.json`` and its
result tables (``results/robustness/tables/``), each a pure function of the result.

The keys are a contract (the metrics of ``metrics/robustness.json``, :mod:`compendium.pipeline.metrics`, read
``rob.n_findings`` and ``rob.n_hold_all``); :func:`stage_values` keeps them and their order. The chapter writes
both once, with :func:`compendium.chapter.publish.publish`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from compendium.pipeline.results import merge_values

from .findings import TOP_MODEL, split_has, split_pwb

if TYPE_CHECKING:
    from .build import RobustnessResult

__all__ = ["stage_values", "tables"]


def _reference_values(r: RobustnessResult) -> dict:
    """The paper's setting in each sweep, the untied tasks and the resampling checks."""
    zones, has, untied, bt = r.zones.sweep, r.agency.sweep, r.agency.untied, r.bt.sweep
    ref_z = zones[zones["reference"]].iloc[0]
    ref_h = split_has(has)[2]
    ref_p = split_pwb(r.pwb.sweep)[2]
    ref_b = bt[bt["reference"]].iloc[0]
    v: dict = {f"rob.reference.zones.{z}": int(ref_z[z]) for z in ("green", "red", "rnd", "low")}
    v["rob.reference.has.workers_more"] = float(ref_h["workers_more"])
    v["rob.has.untied.workers_more"] = float(untied["workers_more"])
    v["rob.has.untied.experts_more"] = float(untied["experts_more"])
    v["rob.has.untied.n_tasks"] = int(untied["n_tasks"])
    v["rob.reference.pwb.min_delta"] = float(ref_p["min_delta"])
    v["rob.reference.pwb.mean_delta"] = float(ref_p["mean_delta"])
    for m in r.bt.models:
        v[f"rob.reference.bt.{m}"] = float(ref_b[m])
    return merge_values(
        v,
        {f"rob.sampling.zones.{k}": x for k, x in r.zones.sampling.items()},
        {f"rob.sampling.bt.{k}": x for k, x in r.bt.sampling.items()},
        {f"rob.sampling.pwb.{k}": x for k, x in r.pwb.intervals.items()},
        what="robustness: the paper's settings and the resampling checks",
    )


def stage_values(result: RobustnessResult) -> dict:
    """The ``rob.*`` values of ``results/robustness/values.json``."""
    zones, has, bt, found = result.zones.sweep, result.agency.sweep, result.bt.sweep, result.findings
    same = split_has(has)[0]
    named, rnd, _ = split_pwb(result.pwb.sweep)
    v = _reference_values(result)
    for f in found.itertuples():
        v[f"rob.{f.key}.holds_all"] = int(f.holds_all)
        v[f"rob.{f.key}.n_hold"] = int(f.n_hold)
        v[f"rob.{f.key}.n_settings"] = int(f.n_settings)
        v[f"rob.{f.key}.min"] = float(f.min)
        v[f"rob.{f.key}.max"] = float(f.max)
    v["rob.n_findings"] = int(len(found))
    v["rob.n_hold_all"] = int(found["holds_all"].sum())
    v["rob.zones.green.min"] = int(zones["green"].min())
    v["rob.zones.green.max"] = int(zones["green"].max())
    v["rob.has.workers_more.min"] = float(has["workers_more"].min())
    v["rob.has.workers_more.max"] = float(has["workers_more"].max())
    v["rob.has.workers_more.same_rule.min"] = float(same["workers_more"].min())
    v["rob.has.workers_more.same_rule.max"] = float(same["workers_more"].max())
    v["rob.pwb.mean_delta.min"] = float(named["mean_delta"].min())
    v["rob.pwb.mean_delta.max"] = float(named["mean_delta"].max())
    v["rob.pwb.random.n"] = int(len(rnd))
    v["rob.pwb.random.share_all_gain"] = float(rnd["all_gain"].mean()) if len(rnd) else None
    v["rob.pwb.random.share_top_glm"] = float((rnd["top_model"] == TOP_MODEL).mean()) if len(rnd) else None
    v["rob.pwb.random.share_top3_stable"] = float(rnd["top3_stable"].mean()) if len(rnd) else None
    for m in result.bt.models:
        v[f"rob.bt.{m}.min"] = float(bt[m].min())
        v[f"rob.bt.{m}.max"] = float(bt[m].max())
    return v


def tables(result: RobustnessResult) -> dict[str, pd.DataFrame]:
    """The chapter's result tables, ``results/robustness/tables/<name>.csv``: each sweep, the PWB schemes' PWIs
    and weights (one row per scheme, its name in the column ``scheme``), and the findings (``summary``)."""
    return {
        "zone_sweep": result.zones.sweep,
        "has_sweep": result.agency.sweep,
        "pwb_schemes": result.pwb.sweep,
        "pwb_named_pwis": result.pwb.named_pwis,
        "pwb_scheme_weights": result.pwb.weights.reset_index(),
        "bt_conventions": result.bt.sweep,
        "summary": result.findings,
    }
