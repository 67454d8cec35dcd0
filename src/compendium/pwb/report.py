"""Assembling the chapter's ``values.json`` entries and its data-level table from computed results.

Claim ids follow ``published/pwb.yaml``. A claim gets a value only from a data level that computes the
claim's own statistic (or, for the PWI, the statistic the published bootstrap mean estimates: the
point PWI of the same run scores); a claim that needs run-level data and has none gets no value, and
its aggregate approximation goes under a ``pwb.approx.*`` key instead.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from . import CONDITION_KEYS, DIMENSIONS, MODEL_KEYS

__all__ = ["DATA_LEVELS", "data_levels", "values_from_aggregates", "values_from_instances", "mean_printed_delta"]

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


def mean_printed_delta(baseline: pd.Series, prompted: pd.Series, decimals: int = 1) -> float:
    """Mean over models of (printed prompted − printed baseline), the paper's mean ΔPWI."""
    return float((prompted.round(decimals) - baseline.round(decimals)).mean())


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
