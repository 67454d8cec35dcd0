"""Every number of the PWB register (``published/pwb.yaml``): all cells of its 10 tables and every
text claim, each from the lowest data level that determines it.

:func:`register_values` maps a :class:`~compendium.pwb.build.PwbResult` to ``(values, missing)`` for ``results/pwb/values.json`` and
``missing.json`` (the values contract): a value where the inputs determine it, ``None`` with the
missing input named where they do not. Levels (the register's ``level``):

- ``raw``: from the released files (``analysis_output`` aggregates via the exact cell sums of
  :func:`compendium.pwb.aggregates.reconstruct_cells`, the prompt YAMLs, the pilot and fourth-judge
  samples);
- ``per_instance``: from the per-instance path (:func:`compendium.pwb.instances.run_instance_pipeline`)
  when ``data/pwb/results/`` exists, else ``None`` + missing;
- ``none`` (design constants): published where the project's inputs hold them (``config.yaml``
  weights, settings and judges, prompt files, the stage parameters), otherwise left out (the claims
  engine marks them quoted).

The paper's method is always the value under the claim id; the project's alternatives go under
``<id>.variant.<slug>`` (here ``pwb.cf_co.r.variant.paired``), and bootstrap statistics carry
``<id>.mc_se``. Nothing is computed here: every statistic comes from :func:`compendium.pwb.build`'s
result, and each ``_table*`` / ``_*_claims`` function maps one of its sections to ids. Where the instance data are present the PWIs are the bootstrap means of the authors'
exact random stream; without them, the point PWI of the exact cell means (the quantity the bootstrap
mean estimates, within 0.06 of it).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from compendium.pipeline import paths, yamlfile

from ..claims.cells import expand_cells
from .build import PwbResult
from .constants import CONDITION_KEYS, DIMENSIONS, MODEL_KEYS
from .provenance import PROVENANCE

__all__ = ["INSTANCES_INPUT", "PROVENANCE", "REGISTER", "register_ids", "register_values"]

REGISTER = "pwb.yaml"
INSTANCES_INPUT = (
    "data/pwb/results/ (per-instance run and judge scores, Hugging Face angelo-leone/"
    "pro-worker-ai-benchmark; `python -m compendium.data.acquire pwb`)"
)
_NO_CODE = " -- and the authors' code for this statistic is not released"

#: register table row slugs that differ from the code's names
_SCHEME_ROW = {
    "default": "default",
    "equal": "equal",
    "cf_heavy": "cf_heavy",
    "restore_ut_ard": "restore_ut_ar",
    "v2_0": "v2_0",
}
_KEY_MODEL = {k: m for m, k in MODEL_KEYS.items()}


def _register(path: Path | None = None) -> dict:
    return yamlfile.load(path or paths.PUBLISHED / REGISTER)


def register_ids(register: Mapping | None = None) -> tuple[dict[str, tuple[str, str, str]], dict[str, dict]]:
    """(cell ids -> (table slug, row, col), claims by id) of the register; blank cells excluded."""
    reg = register or _register()
    cells = {c.id: (t["slug"], c.row, c.col) for t in reg["tables"] for c in expand_cells(t, REGISTER)}
    return cells, {c["id"]: c for c in reg["claims"]}


def _printed_delta(b: float, p: float) -> float:
    return round(round(p, 1) - round(b, 1), 1)


class _Out:
    """The values being mapped and, for each ``None``, the input it needs."""

    def __init__(self) -> None:
        self.v: dict[str, Any] = {}
        self.miss: dict[str, str] = {}

    def need(self, key: str, extra: str = "") -> None:
        self.v[key] = None
        self.miss[key] = INSTANCES_INPUT + extra


def register_values(result: PwbResult) -> tuple[dict, dict]:
    """All register cells and text claims of PWB as ``(values, missing)``, mapped from ``result``
    (:func:`compendium.pwb.build`; the per-instance cells from its ``instances`` section, or ``None``
    with the missing input named without it). At the default parameters the values are the paper's methods."""
    cell_ids, claims = register_ids(result.inputs.register)
    o = _Out()
    _tables_1_and_4(o, result)
    _table2(o, result)
    _d_pooled(o, result)
    dl = _table3(o, result, cell_ids)
    _layer1(o, result)
    _tables_5_and_6(o, result)
    _table7(o, result)
    _table8(o, result)
    _table9(o, result)
    _leaderboard(o, result)
    _cf_co(o, result)
    _completeness(o, result)
    _design(o, result)
    _params(o, result)
    _samples(o, result)
    _instance_text_claims(o, result.instances.res if result.instances else None, dl)
    _layer2_cluster(o, result)
    _every_key(o, claims, cell_ids, result.instances is None)
    v = o.v
    return v, {k: s for k, s in o.miss.items() if v.get(k) is None}


def _tables_1_and_4(o: _Out, r: PwbResult) -> None:
    """Table 1 and Table 4: weights (design constants held by config.yaml)."""
    w21 = r.sensitivity.w21
    for d, w in w21.items():
        if w > 0:
            o.v[f"pwb.table1.{d}.weight"] = w
    for d in DIMENSIONS:
        o.v[f"pwb.table4.{d}.tier"] = w21[d] if w21.get(d, 0) > 0 else "excl."


def _claim_pwis(r: PwbResult) -> tuple[dict[str, float], dict[str, float]]:
    """Baseline and prompted PWI per model: the bootstrap means with the per-instance data, else the point PWIs."""
    t2 = r.aggregates.t2.set_index("model")
    pwi_b = {m: float(t2.loc[m, "baseline"]) for m in t2.index}
    pwi_p = {m: float(t2.loc[m, "prompted"]) for m in t2.index}
    if r.instances is not None:
        pw = r.instances.res["pwi"].set_index(["model", "condition"])
        for m in t2.index:
            pwi_b[m], pwi_p[m] = float(pw.loc[(m, "baseline"), "pwi"]), float(pw.loc[(m, "with_system_prompt"), "pwi"])
    return pwi_b, pwi_p


def _table2(o: _Out, r: PwbResult) -> None:
    """Table 2 and the PWI text claims."""
    v = o.v
    pwi_b, pwi_p = _claim_pwis(r)
    pw = r.instances.res["pwi"].set_index(["model", "condition"]) if r.instances is not None else None
    for m, k in MODEL_KEYS.items():
        if m not in pwi_b:
            for c in ("baseline", "prompted"):
                o.miss[f"pwb.pwi.{k}.{c}"] = f"model {m} absent from analysis_output/effect_sizes.csv"
                v[f"pwb.pwi.{k}.{c}"] = None
            continue
        v[f"pwb.pwi.{k}.baseline"], v[f"pwb.pwi.{k}.prompted"] = pwi_b[m], pwi_p[m]
        v[f"pwb.table2.{k}.delta_pwi"] = _printed_delta(pwi_b[m], pwi_p[m])
        if pw is not None:
            for cond, ck in (("baseline", "baseline"), ("with_system_prompt", "prompted")):
                row = pw.loc[(m, cond)]
                v[f"pwb.pwi.{k}.{ck}.mc_se"] = float(row["mc_se"])
                v[f"pwb.pwi.{k}.{ck}.variant.point"] = float(row["pwi_point"])
    deltas = [
        v[f"pwb.table2.{k}.delta_pwi"] for k in MODEL_KEYS.values() if v.get(f"pwb.table2.{k}.delta_pwi") is not None
    ]
    v["pwb.delta.mean"] = float(np.mean(deltas))
    v["pwb.delta.min"], v["pwb.delta.max"] = float(min(deltas)), float(max(deltas))
    v["pwb.pwi.baseline_min"], v["pwb.pwi.baseline_max"] = float(min(pwi_b.values())), float(max(pwi_b.values()))
    v["pwb.pwi.prompted_min"], v["pwb.pwi.prompted_max"] = float(min(pwi_p.values())), float(max(pwi_p.values()))
    v["pwb.pwi.baseline_spread"] = round(max(pwi_b.values()), 1) - round(min(pwi_b.values()), 1)
    v["pwb.fig1.baseline_bound"] = v["pwb.pwi.baseline_max"]  # relation <=: every baseline PWI
    v["pwb.fig1.prompted_bound"] = v["pwb.pwi.prompted_min"]  # relation >: every prompted PWI


def _d_pooled(o: _Out, r: PwbResult) -> None:
    """d_pooled (Table 2 and the leaderboard): run-level data only."""
    v = o.v
    if r.instances is None:
        for k in MODEL_KEYS.values():
            o.need(f"pwb.d_pooled.{k}", " (aggregates only approximate it: pwb.approx.d_pooled.*)")
            o.need(f"pwb.leaderboard_v2_0.{k}.d")
        for key in ("pwb.d_pooled.min", "pwb.d_pooled.max", "pwb.d_pooled.n_large"):
            o.need(key)
        return
    dp = r.instances.res["d_pooled"].set_index("model")["d_pooled"]
    for m, k in MODEL_KEYS.items():
        v[f"pwb.d_pooled.{k}"] = float(dp[m]) if m in dp.index else None
        v[f"pwb.leaderboard_v2_0.{k}.d"] = v[f"pwb.d_pooled.{k}"]
    ds = [x for x in (v[f"pwb.d_pooled.{k}"] for k in MODEL_KEYS.values()) if x is not None]
    v["pwb.d_pooled.min"], v["pwb.d_pooled.max"] = min(ds), max(ds)
    v["pwb.d_pooled.n_large"] = int(sum(x > 0.80 for x in ds))


def _table3(o: _Out, r: PwbResult, cell_ids: Mapping[str, tuple[str, str, str]]) -> pd.Series:
    """Table 3 (pooled means from the instances where present, else the cell sums; bootstrap CIs and QW-κ
    from the instances) and the older ``pwb.dim.*`` ids; returns the Δ per dimension."""
    v = o.v
    diag = r.aggregates.diag.set_index("dimension")
    res = r.instances.res if r.instances is not None else None
    inst_diag = res["diagnostics"].set_index("dimension") if res is not None else None
    inst_irr = res["irr"].set_index("dimension") if res is not None else None
    w21 = r.sensitivity.w21
    for d in DIMENSIONS:
        src = inst_diag if inst_diag is not None and d in inst_diag.index else diag
        base = {
            "base": float(src.loc[d, "baseline"]),
            "prompted": float(src.loc[d, "prompted"]),
            "delta": float(src.loc[d, "delta"]),
            "models": int(src.loc[d, "models_improving"]),
        }
        for col, x in base.items():
            v[_cell_id(cell_ids, "table3", d, col)] = x
        if inst_diag is not None and d in inst_diag.index:
            for col, src_col in (("ci_low", "ci_lower"), ("ci_high", "ci_upper")):
                key = _cell_id(cell_ids, "table3", d, col)
                v[key] = float(inst_diag.loc[d, src_col])
                v[f"{key}.mc_se"] = float(inst_diag.loc[d, f"{src_col}_mc_se"])
        else:
            o.need(_cell_id(cell_ids, "table3", d, "ci_low"))
            o.need(_cell_id(cell_ids, "table3", d, "ci_high"))
        if inst_irr is not None and d in inst_irr.index:
            v[_cell_id(cell_ids, "table3", d, "qwk")] = float(inst_irr.loc[d, "qwk"])
        else:
            o.need(_cell_id(cell_ids, "table3", d, "qwk"))
        if w21.get(d, 0) > 0:
            v[_cell_id(cell_ids, "table3", d, "w")] = w21[d]
    # keep the Table 3 claims' older ids consistent (pwb.dim.<d>.<baseline|prompted|delta> for every d)
    for d in DIMENSIONS:
        for col, key in (("base", "baseline"), ("prompted", "prompted"), ("delta", "delta")):
            v[f"pwb.dim.{d}.{key}"] = v[_cell_id(cell_ids, "table3", d, col)]
    dl = pd.Series({d: v[f"pwb.dim.{d}.delta"] for d in DIMENSIONS})
    v["pwb.dim.n_improving"] = int((dl > 0).sum())
    v["pwb.dim.delta_ratio"] = float(dl.max() / dl.min())
    return dl


def _layer1(o: _Out, r: PwbResult) -> None:
    """The Layer-1 means: from the instances where present, else the cell sums."""
    l1 = r.aggregates.l1.set_index("condition")
    l1src = None
    if r.instances is not None:
        lay = r.instances.res["layers"].set_index(["layer", "condition"])
        l1src = {c: float(lay.loc[("Layer 1", c), "mean"]) for c in ("baseline", "with_system_prompt")}
    for c in ("baseline", "with_system_prompt"):
        o.v[f"pwb.layer1.{CONDITION_KEYS[c]}_mean"] = l1src[c] if l1src else float(l1.loc[c, "mean"])


def _tables_5_and_6(o: _Out, r: PwbResult) -> None:
    """Tables 5 and 6: Layers 2 and 3 (pooled means from the instances where they hold the layer, else as
    released; per-model cells from the instances only), and the authors' Layer-2 filter as a variant."""
    v = o.v
    res = r.instances.res if r.instances is not None else None
    lays = r.inputs.released["layers"].set_index(["Layer", "Variant"])[["Mean", "N"]]
    if res is not None:
        il = res["layers"].rename(columns={"layer": "Layer", "condition": "Variant", "mean": "Mean", "n": "N"})
        il = il.set_index(["Layer", "Variant"])[["Mean", "N"]]
        lays = pd.concat([il, lays[~lays.index.isin(il.index)]])
    for table, layer in (("table5", "Layer 2"), ("table6", "Layer 3")):
        b, p = float(lays.loc[(layer, "baseline"), "Mean"]), float(lays.loc[(layer, "with_system_prompt"), "Mean"])
        v[f"pwb.{table}.mean_pooled.base"], v[f"pwb.{table}.mean_pooled.prompted"] = b, p
        v[f"pwb.{table}.mean_pooled.delta"] = p - b
    v["pwb.sig.l2_n"] = int(lays.loc[("Layer 2", "baseline"), "N"])
    v["pwb.sig.l3_n"] = int(lays.loc[("Layer 3", "baseline"), "N"])
    for table, layer, cols in (
        ("table5", 2, ("base", "prompted", "delta", "d", "behavior_pct")),
        ("table6", 3, ("base", "prompted", "delta", "d")),
    ):
        eff = res[f"layer{layer}"].set_index("model") if res is not None and f"layer{layer}" in res else None
        for k in list(MODEL_KEYS.values()) + ["mean_pooled"]:
            m = "POOLED" if k == "mean_pooled" else _KEY_MODEL[k]
            for col in cols:
                key = f"pwb.{table}.{k}.{col}"
                if key in v:
                    continue
                x = eff.loc[m, col] if eff is not None and m in eff.index and col in eff.columns else np.nan
                if col == "behavior_pct" and k == "mean_pooled" and eff is not None and col in eff.columns:
                    x = eff.drop(index="POOLED", errors="ignore")[col].mean()  # mean over models
                if pd.notna(x):
                    v[key] = float(x)
                else:
                    o.need(key)
    if r.instances is not None:
        _layer2_authors_filter(o, r.instances.layer2_authors)


def _table7(o: _Out, r: PwbResult) -> None:
    """Table 7: IRR on complete triples (per-instance)."""
    inst_irr = r.instances.res["irr"].set_index("dimension") if r.instances is not None else None
    t7 = next(t for t in r.inputs.register["tables"] if t["slug"] == "table7")
    for row in t7["rows"]:
        dim = "POOLED" if row == "pooled" else row
        for col in t7["cols"]:
            key = f"pwb.table7.{row}.{col}"
            if inst_irr is not None and dim in inst_irr.index:
                x = inst_irr.loc[dim, col]
                o.v[key] = int(x) if col == "n" else float(x)
            else:
                o.need(key)


def _table8(o: _Out, r: PwbResult) -> None:
    """Table 8: per-model prompted means (the paper's table is stale; these are the data's)."""
    prom = r.aggregates.matrices["prompted"]
    for k in MODEL_KEYS.values():
        for d in DIMENSIONS:
            m = _KEY_MODEL[k]
            o.v[f"pwb.table8.{k}.{d}"] = float(prom.loc[m, d]) if m in prom.index else None
            if m not in prom.index:
                o.miss[f"pwb.table8.{k}.{d}"] = f"model {m} absent from analysis_output"


def _table9(o: _Out, r: PwbResult) -> None:
    """Table 9 (weight sensitivity) and the sensitivity text."""
    sens = r.sensitivity.sens.set_index("scheme")
    for row, scheme in _SCHEME_ROW.items():
        for col in ("kendall_tau", "max_dev", "min_delta"):
            o.v[f"pwb.table9.{row}.{col}"] = float(sens.loc[scheme, col])
        o.v[f"pwb.table9.{row}.top3_stable"] = int(sens.loc[scheme, "top3_stable"])
    o.v["pwb.sensitivity.text_default_min_delta"] = float(sens.loc["default", "min_delta"])


def _leaderboard(o: _Out, r: PwbResult) -> None:
    """The v2.0 leaderboard (point PWIs under the v2.0 weights), ranked by prompted PWI."""
    lb = r.sensitivity.lb.sort_values("prompted", ascending=False)
    for rank, (_, row) in enumerate(lb.iterrows(), start=1):
        k = MODEL_KEYS[row["model"]]
        o.v[f"pwb.leaderboard_v2_0.{k}.rank"] = rank
        for col in ("baseline", "prompted", "delta"):
            o.v[f"pwb.leaderboard_v2_0.{k}.{col}"] = float(row[col])


def _cf_co(o: _Out, r: PwbResult) -> None:
    """r(CF, CO): the paper's rule, the pairing by prompt beside it (per-instance)."""
    res = r.instances.res if r.instances is not None else None
    if res is not None and res.get("correlation_authors") is not None:
        o.v["pwb.cf_co.r"] = float(res["correlation_authors"].loc["cognitive_forcing", "complementarity"])
        o.v["pwb.cf_co.r.variant.paired"] = float(res["correlation"].loc["cognitive_forcing", "complementarity"])
    else:
        o.need("pwb.cf_co.r")
        o.need("pwb.cf_co.r.variant.paired")


def _completeness(o: _Out, r: PwbResult) -> None:
    """Completeness and the paired N, from the cell counts (:func:`~compendium.pwb.sections.design_section`)."""
    v, ds = o.v, r.design
    n_prompts, rpp, planned = ds["n_prompts"], ds["runs_per_prompt"], ds["planned_per_dimension"]
    if rpp:
        total = sum(planned[d] for d in DIMENSIONS)
        v["pwb.completeness.l1_runs_total"] = total
        v["pwb.completeness.l1_runs_scored"] = ds["n_scored"]
        v["pwb.completeness.pct_scored"] = 100.0 * ds["n_scored"] / total
        pct = {d: 100.0 * ds["scored_per_dimension"][d] / planned[d] for d in DIMENSIONS if planned[d]}
        v["pwb.completeness.min_dim_pct"] = float(min(pct.values()))
        v["pwb.completeness.max_dim_pct"] = float(max(pct.values()))
        v["pwb.completeness.threshold_pct"] = float(min(pct.values()))  # relation >: every dimension
        v["pwb.design.irr_max_n_per_dim"] = ds["n_models"] * 2 * max(n_prompts.values()) * rpp
        v["pwb.params.medians_per_cell_text"] = ds["n_models"] * sum(n_prompts.values()) * rpp
    v["pwb.sig.l1_n_paired"] = int(r.aggregates.l1.set_index("condition").loc["baseline", "n"])
    v["pwb.fig_sig_dims.n_per_dim"] = ds["n_per_dimension_condition"]
    if r.instances is not None:
        l1p = r.instances.res["panel"][r.instances.res["panel"]["layer"] == 1]
        v["pwb.completeness.two_judge_runs"] = int((l1p["n_judges"] == 2).sum())
    else:
        o.need("pwb.completeness.two_judge_runs")


def _design(o: _Out, r: PwbResult) -> None:
    """The benchmark's design, from its files (:func:`~compendium.pwb.sections.design_section`)."""
    v, ds = o.v, r.design
    n_prompts = ds["n_prompts"]
    v["pwb.design.n_layer1_dimensions"] = len(n_prompts)
    v["pwb.design.n_single_turn"] = int(sum(n_prompts.values()))
    v["pwb.design.n_prompts_per_dimension"] = (
        int(max(n_prompts.values())) if len(set(n_prompts.values())) == 1 else None
    )
    if v["pwb.design.n_prompts_per_dimension"] is None:
        o.miss["pwb.design.n_prompts_per_dimension"] = (
            "data/pwb/prompts/layer1_behavioral: dimensions differ in prompt count"
        )
    v["pwb.design.n_domains"] = ds["n_domains"]
    v["pwb.design.turns_per_scenario"] = ds["turns_per_scenario"]
    if v["pwb.design.turns_per_scenario"] is None:
        o.miss["pwb.design.turns_per_scenario"] = "data/pwb/prompts/layer2_scenarios: scenarios differ in turn count"
    v["pwb.design.n_adversarial"] = ds["n_adversarial"]
    v["pwb.sig.n_l3_per_model"] = v["pwb.design.n_adversarial"]
    v2, w21 = r.sensitivity.v20, r.sensitivity.w21
    v["pwb.design.n_dimensions"] = len(v2)
    v["pwb.params.v2_0_n_weights"] = len(v2)
    v["pwb.design.n_excluded_dims"] = len(v2) - sum(1 for w in w21.values() if w > 0)
    v["pwb.design.n_models"] = ds["n_models"]
    v["pwb.params.n_model_variant_combinations"] = 2 * ds["n_models"]
    v["pwb.design.n_judges"] = len(ds["judges"])
    v["pwb.design.n_judge_subject_overlap"] = ds["judge_subject_overlap"]
    v["pwb.checklist.judge_subject_overlap"] = ds["judge_subject_overlap"]
    if ds["judge_temperature"] is not None:
        v["pwb.params.judge_temperature"] = ds["judge_temperature"]
    settings = ds["settings"]
    if ds["runs_per_prompt"]:
        v["pwb.design.n_runs"] = ds["runs_per_prompt"]
    for key, skey in (
        ("pwb.params.model_temperature", "model_temperature"),
        ("pwb.params.max_tokens_model", "max_tokens"),
        ("pwb.params.max_tokens_judge", "judge_max_tokens"),
    ):
        if skey in settings:
            v[key] = settings[skey]
    if ds["score_max"] is not None:
        v["pwb.design.score_max"] = int(ds["score_max"])
    pos = [w for w in w21.values() if w > 0]
    v["pwb.pwi.weight_sum"] = float(sum(pos))
    v["pwb.pwi.n_contributing"] = len(pos)
    v["pwb.tiers.n_tiers"] = len(set(pos))
    v["pwb.tiers.n_top"] = sum(1 for w in pos if w == max(pos))
    v["pwb.tiers.n_low"] = sum(1 for w in pos if w == min(pos))


def _params(o: _Out, r: PwbResult) -> None:
    """The stage's own parameters (params.yaml pwb; the paper's values by default)."""
    p, v = r.params, o.v
    v["pwb.params.bootstrap_iterations"] = p.n_boot
    v["pwb.params.ci_percentile_low"] = 50 * (1 - p.ci_level)
    v["pwb.params.ci_percentile_high"] = 50 * (1 + p.ci_level)
    v["pwb.params.cf_heavy_weight"] = p.cf_heavy_weight
    v["pwb.params.restore_weight"] = p.restore_weight
    v["pwb.params.n_alt_schemes"] = len(r.sensitivity.schemes) - 1


def _samples(o: _Out, r: PwbResult) -> None:
    """The judge-level samples: the human pilot and the fourth judge."""
    v, pa, fa = o.v, r.validation.pilot, r.validation.fa
    v["pwb.pilot.n"] = int(pa["overall"]["n"])
    v["pwb.pilot.mad"] = float(pa["overall"]["mad"])
    if pa["low_irr"] is not None:
        v["pwb.pilot.ut_ard_n"] = int(pa["low_irr"]["n"])
        v["pwb.pilot.ut_ard_exact"] = float(pa["low_irr"]["exact"])
        v["pwb.pilot.ut_ard_adjacent"] = float(pa["low_irr"]["adjacent"])
    v["pwb.fourth_judge.n"] = int(fa["overall"]["n"])
    fpd = fa["per_dimension"].set_index("dimension")
    v["pwb.fourth_judge.mc_qwk"] = float(fpd.loc["metacognitive_calibration", "qwk"])
    v["pwb.fourth_judge.ut_qwk"] = float(fpd.loc["uncertainty_transparency", "qwk"])


def _every_key(o: _Out, claims: Mapping[str, dict], cell_ids: Mapping, no_instances: bool) -> None:
    """Every register claim gets a key; nothing else is guessed."""
    for cid, c in claims.items():
        if cid in o.v:
            continue
        if c["level"] in ("per_instance", "row_level"):
            o.need(cid, "" if no_instances else _NO_CODE)
        elif c["level"] == "raw":
            o.v[cid] = None
            o.miss[cid] = "no computation for this raw claim yet"
        # level none: a design constant the project's inputs do not hold -> not published (quoted)
    for cid in cell_ids:  # a table cell is always a key (the values contract), even a design constant
        if cid not in o.v:
            if claims.get(cid, {}).get("level") == "none":
                o.v[cid] = None
                o.miss[cid] = "a design constant that the project's inputs (config.yaml, prompts, params) do not hold"
            else:
                o.need(cid)


def _cell_id(cell_ids: Mapping[str, tuple[str, str, str]], table: str, row: str, col: str) -> str:
    for cid, (t, r, c) in cell_ids.items():
        if (t, r, c) == (table, row, col):
            return cid
    return f"pwb.{table}.{row}.{col}"  # a blank cell: published anyway, harmless


def _instance_text_claims(o: _Out, res: Mapping | None, delta: pd.Series) -> None:
    """Text claims that need runs: IRR counts, completeness, paired tests (when ``res`` is given)."""
    keys_irr = [
        "pwb.irr.n_kappa_ge_070",
        "pwb.irr.n_kappa_below_070",
        "pwb.irr.n_delta_gt_spread",
        "pwb.irr.delta_spread_ratio_min",
        "pwb.irr.delta_spread_ratio_max",
        "pwb.irr.text_exact_max",
        "pwb.irr.text_exact_min",
        "pwb.irr.text_exact_ard",
        "pwb.irr.text_n_exact_gt60",
        "pwb.irr.text_n_exact_lt20",
    ]
    keys_sig = [
        "pwb.sig.l1_t",
        "pwb.sig.l1_pooled_d",
        "pwb.sig.l1_raw_shift",
        "pwb.sig.l1_models_p_bound",
        "pwb.sig.l1_dims_p_bound",
        "pwb.fig_sig_dims.p_bound",
        "pwb.sig.l1_cf_co_p",
        "pwb.fig_sig_models.d_gptoss",
        "pwb.fig_sig_models.d_glm51",
        "pwb.sig.l2_t",
        "pwb.sig.l2_p",
        "pwb.sig.l3_t",
        "pwb.sig.l3_p",
        "pwb.sig.abstract_p_bound",
        "pwb.sig.l2_models_p_bound",
        "pwb.sig.l3_models_p_bound",
        "pwb.sig.permodel_l2l3_bound",
        "pwb.sig.l3_baseline_zero_pct",
        "pwb.text.glm51_l2_prompted",
        "pwb.text.l2_top_prompted",
        "pwb.text.l3_n_prompted_gt_2_4",
    ]
    if res is None:
        for k in keys_irr + keys_sig:
            o.need(k)
        return
    v = o.v
    _significance_claims(v, res)
    irr = res["irr"].set_index("dimension").drop(index="POOLED", errors="ignore")
    v["pwb.irr.n_kappa_ge_070"] = int((irr["qwk"] >= 0.70).sum())
    v["pwb.irr.n_kappa_below_070"] = int((irr["qwk"] < 0.70).sum())
    # "Three do not [reach 0.70]": the same count, quoted in other sections (the paper says three; Table 7
    # has four below 0.70 on the released data)
    v["pwb.irr.n_low_reliability"] = v["pwb.irr.n_kappa_below_070"]
    ratio = (delta.reindex(irr.index) / irr["spread"]).dropna()
    above = ratio[ratio > 1]
    v["pwb.irr.n_delta_gt_spread"] = len(above)
    if len(above):
        v["pwb.irr.delta_spread_ratio_min"], v["pwb.irr.delta_spread_ratio_max"] = (
            float(above.min()),
            float(above.max()),
        )
    v["pwb.irr.text_exact_max"] = float(irr["exact"].max())
    v["pwb.irr.text_exact_min"] = float(irr["exact"].min())
    if "appropriate_reliance" in irr.index:
        v["pwb.irr.text_exact_ard"] = float(irr.loc["appropriate_reliance", "exact"])
    v["pwb.irr.text_n_exact_gt60"] = int((irr["exact"] > 60).sum())
    v["pwb.irr.text_n_exact_lt20"] = int((irr["exact"] < 20).sum())
    pooled = res["tests"]["pooled"].iloc[0]
    v["pwb.sig.l1_t"] = float(pooled["t"])
    v["pwb.sig.l1_pooled_d"] = float(pooled["d_z"])
    v["pwb.sig.l1_raw_shift"] = float(pooled["mean_diff"])


def _significance_claims(v: dict, res: Mapping) -> None:
    """Section 5.4 / App B / forest-plot claims from the paired tests of the instance path. Bounds
    ("p < x" for every model or dimension) get the largest p; "≈" orders of magnitude get the p itself."""
    tests = res["tests"]
    pm = tests["per_model"].set_index("model")
    pdim = tests["per_dimension"].set_index("dimension")
    v["pwb.sig.l1_models_p_bound"] = float(pm["p"].max())
    v["pwb.sig.l1_dims_p_bound"] = float(pdim["p_bonferroni"].max())
    v["pwb.fig_sig_dims.p_bound"] = float(pdim["p_bonferroni"].max())
    cfco = [d for d in ("cognitive_forcing", "complementarity") if d in pdim.index]
    if cfco:
        v["pwb.sig.l1_cf_co_p"] = float(pdim.loc[cfco, "p"].max())
    for k, m in (("gptoss", "GPT-oss 120B"), ("glm51", "GLM 5.1")):
        if m in pm.index:
            v[f"pwb.fig_sig_models.d_{k}"] = float(pm.loc[m, "d_z"])
    eff = {layer: res.get(f"layer{layer}") for layer in (2, 3)}
    for layer, e in eff.items():
        if e is None or e.empty or "t" not in e.columns:
            continue
        e = e.set_index("model")
        if "POOLED" in e.index:
            v[f"pwb.sig.l{layer}_t"] = float(e.loc["POOLED", "t"])
            v[f"pwb.sig.l{layer}_p"] = float(e.loc["POOLED", "p"])
        models = e.drop(index="POOLED", errors="ignore")
        if len(models):
            v[f"pwb.sig.l{layer}_models_p_bound"] = float(models["p"].max())
    if "pwb.sig.l2_p" in v and "pwb.sig.l3_p" in v:
        v["pwb.sig.abstract_p_bound"] = max(v["pwb.sig.l2_p"], v["pwb.sig.l3_p"])
    if "pwb.sig.l2_models_p_bound" in v and "pwb.sig.l3_models_p_bound" in v:
        v["pwb.sig.permodel_l2l3_bound"] = max(v["pwb.sig.l2_models_p_bound"], v["pwb.sig.l3_models_p_bound"])
    panel = res["panel"]
    l3b = panel[(panel["layer"] == 3) & (panel["condition"] == "baseline")]["panel"]
    if len(l3b):
        v["pwb.sig.l3_baseline_zero_pct"] = float(100 * (l3b == 0).mean())
    if eff[2] is not None and not eff[2].empty:
        e2 = eff[2].set_index("model").drop(index="POOLED", errors="ignore")
        if "GLM 5.1" in e2.index:
            v["pwb.text.glm51_l2_prompted"] = float(e2.loc["GLM 5.1", "prompted"])
        v["pwb.text.l2_top_prompted"] = float(e2["prompted"].max())
    if eff[3] is not None and not eff[3].empty:
        e3 = eff[3].set_index("model").drop(index="POOLED", errors="ignore")
        v["pwb.text.l3_n_prompted_gt_2_4"] = int((e3["prompted"] > 2.4).sum())


def _layer2_cluster(o: _Out, r: PwbResult) -> None:
    """App B.1 "three models cluster at 1.40-1.50/3" (:func:`compendium.pwb.instances.layer2_low_cluster`)."""
    c = r.instances.layer2_cluster if r.instances is not None else None
    if c is None:
        return
    o.v["pwb.text.l2_cluster_n"] = c["n"]
    o.v["pwb.text.l2_cluster_low"] = c["low"]
    o.v["pwb.text.l2_cluster_high"] = c["high"]


#: slug of the Layer-2 variant that follows the authors' per-model filter (issue 21, item 5)
L2_FILTER_SLUG = "authors_nonzero"


def _layer2_authors_filter(o: _Out, means: pd.DataFrame) -> None:
    """Table 5 per-model base / prompted / delta as the authors' script prints them
    (:func:`compendium.pwb.instances.layer2_authors_filter`), published as
    ``pwb.table5.<model>.<col>.variant.authors_nonzero`` beside the paper's number."""
    for _, row in means.iterrows():
        k = MODEL_KEYS.get(row["model"])
        if k is None:
            continue
        for col in ("base", "prompted", "delta"):
            o.v[f"pwb.table5.{k}.{col}.variant.{L2_FILTER_SLUG}"] = float(row[col])
