"""Every number of the PWB register (``published/pwb.yaml``): all cells of its 10 tables and every
text claim, each from the lowest data level that determines it.

:func:`register_values` returns ``(values, missing)`` for ``results/pwb/values.json`` and
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
``<id>.mc_se``. Where the instance data are present the PWIs are the bootstrap means of the authors'
exact random stream; without them, the point PWI of the exact cell means (the quantity the bootstrap
mean estimates, within 0.06 of it).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import paths, yamlfile
from ..claims.cells import expand_cells
from . import CONDITION_KEYS, DIMENSIONS, MODEL_KEYS, aggregates as agg, validation as val, weights as wts

__all__ = ["INSTANCES_INPUT", "PROVENANCE", "REGISTER", "load_inputs", "register_ids", "register_values"]

REGISTER = "pwb.yaml"
INSTANCES_INPUT = (
    "data/pwb/results/ (per-instance run and judge scores, Hugging Face angelo-leone/"
    "pro-worker-ai-benchmark; `python -m compendium.data.acquire pwb`)"
)
_NO_CODE = " -- and the authors' code for this statistic is not released"

#: id prefix -> "function (test)"; the claims engine links each claim to the longest matching prefix.
PROVENANCE: dict[str, str] = {
    "pwb.": "compendium.pwb.register.register_values (tests/unit/test_pwb_register.py::test_every_register_cell_is_a_key)",
    "pwb.pwi.": "compendium.pwb.aggregates.table2 / compendium.pwb.instances.pwi_bootstrap (tests/unit/test_pwb_bootstrap.py::test_pwi_bootstrap_reproduces_the_methods_stream_on_a_full_size_fixture)",
    "pwb.table2.": "compendium.pwb.aggregates.table2 (tests/unit/test_pwb_aggregates.py::test_point_pwi_within_0_06_of_released_bootstrap_means)",
    "pwb.delta.": "compendium.pwb.report.mean_printed_delta (tests/unit/test_pwb_aggregates.py::test_point_pwi_within_0_06_of_released_bootstrap_means)",
    "pwb.d_pooled.": "compendium.pwb.instances.d_pooled (tests/unit/test_pwb_instances.py::test_d_pooled_uses_the_concatenation_of_all_dimensions)",
    "pwb.dim.": "compendium.pwb.aggregates.dimension_diagnostics (tests/unit/test_pwb_aggregates.py::test_dimension_diagnostics_and_layer1_from_known_runs)",
    "pwb.table3.": "compendium.pwb.aggregates.dimension_diagnostics / compendium.pwb.instances.dimension_diagnostics (tests/unit/test_pwb_bootstrap.py::test_table3_cis_follow_the_authors_stream)",
    "pwb.layer1.": "compendium.pwb.aggregates.layer1_summary (tests/unit/test_pwb_aggregates.py::test_reconstruction_matches_the_released_full_precision_means)",
    "pwb.cf_co.r": "compendium.pwb.instances.prompt_level_correlation_authors (tests/unit/test_pwb_bootstrap.py::test_cf_co_authors_rule_concatenates_and_cuts_and_differs_from_pairing)",
    "pwb.table1.": "compendium.pwb.weights.scheme_weights (tests/unit/test_pwb_register.py::test_design_constants_from_config)",
    "pwb.table4.": "compendium.pwb.weights.scheme_weights (tests/unit/test_pwb_register.py::test_design_constants_from_config)",
    "pwb.table5.": "compendium.pwb.register.register_values (tests/unit/test_pwb_register.py::test_layer_means_from_layer_summary)",
    "pwb.table6.": "compendium.pwb.register.register_values (tests/unit/test_pwb_register.py::test_layer_means_from_layer_summary)",
    "pwb.table7.": "compendium.pwb.instances.irr_complete_triples (tests/unit/test_pwb_instances.py::test_irr_on_complete_triples_only)",
    "pwb.table8.": "compendium.pwb.aggregates.model_dimension_matrix (tests/unit/test_pwb_aggregates.py::test_stale_table_comparison_shape)",
    "pwb.table9.": "compendium.pwb.aggregates.weight_sensitivity (tests/unit/test_pwb_aggregates.py::test_sensitivity_and_leaderboard_match_what_the_authors_printed)",
    "pwb.leaderboard_v2_0.": "compendium.pwb.aggregates.leaderboard (tests/unit/test_pwb_aggregates.py::test_sensitivity_and_leaderboard_match_what_the_authors_printed)",
    "pwb.pilot.": "compendium.pwb.validation.pilot_agreement (tests/unit/test_pwb_validation.py::test_released_pilot_agreement)",
    "pwb.fourth_judge.": "compendium.pwb.validation.fourth_judge_agreement (tests/unit/test_pwb_validation.py::test_released_fourth_judge_sample_rule_gives_n_500)",
    "pwb.sensitivity.": "compendium.pwb.aggregates.weight_sensitivity (tests/unit/test_pwb_aggregates.py::test_weight_sensitivity_hand_worked)",
    "pwb.completeness.": "compendium.pwb.register.register_values (tests/unit/test_pwb_register.py::test_text_claims_from_cells)",
    "pwb.design.": "compendium.pwb.register.register_values (tests/unit/test_pwb_register.py::test_design_constants_from_config)",
    "pwb.params.": "compendium.pwb.register.register_values (tests/unit/test_pwb_register.py::test_design_constants_from_config)",
    "pwb.tiers.": "compendium.pwb.register.register_values (tests/unit/test_pwb_register.py::test_design_constants_from_config)",
    "pwb.irr.": "compendium.pwb.instances.irr_complete_triples (tests/unit/test_pwb_instances.py::test_irr_on_complete_triples_only)",
    "pwb.sig.": "compendium.pwb.instances.paired_tests (tests/unit/test_pwb_instances.py::test_paired_tests_against_scipy)",
}

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


def load_inputs() -> dict[str, Any]:
    """Every released PWB input the register needs (validated loaders of :mod:`compendium.data`)."""
    from compendium import data

    prompts = paths.PWB / "prompts"
    return {
        "config": data.load_pwb_config(),
        "dimension_scores": data.load_pwb_dimension_scores(),
        "effect_sizes": data.load_pwb_effect_sizes(),
        "layers": data.load_pwb_layer_summary(),
        "diagnostics": data.load_pwb_dimension_diagnostics(),
        "pilot_scores": data.load_pwb_pilot_scores(),
        "pilot_truth": data.load_pwb_pilot_ground_truth(),
        "fourth_scores": data.load_pwb_fourth_judge_scores(),
        "fourth_errors": data.load_pwb_fourth_judge_errors(),
        "layer1_prompts": {f.stem: yamlfile.load(f) for f in sorted((prompts / "layer1_behavioral").glob("*.yaml"))},
        "layer2_scenarios": [yamlfile.load(f) for f in sorted((prompts / "layer2_scenarios").glob("*.yaml"))],
        "layer3_prompts": yamlfile.load(prompts / "layer3_adversarial" / "stress_tests.yaml"),
    }


def _printed_delta(b: float, p: float) -> float:
    return round(round(p, 1) - round(b, 1), 1)


def register_values(
    inputs: Mapping[str, Any] | None = None,
    *,
    instances: Mapping | None = None,
    weight_scheme: str = "weights",
    n_boot: int = 10_000,
    ci_level: float = 0.95,
    cf_heavy_weight: float = 0.30,
    restore_weight: float = 0.10,
    fourth_judge_rule: str = "first",
    register: Mapping | None = None,
) -> tuple[dict, dict]:
    """All register cells and text claims of PWB as ``(values, missing)``.

    ``inputs``: :func:`load_inputs` (loaded when None). ``instances``: the dict returned by
    :func:`compendium.pwb.instances.run_instance_pipeline`, or None when ``data/pwb/results/`` is absent.
    The keyword parameters are the stage's (params.yaml ``pwb``); at their defaults they are the paper's.
    """
    inp = dict(inputs) if inputs is not None else load_inputs()
    cell_ids, claims = register_ids(register)
    v: dict[str, Any] = {}
    miss: dict[str, str] = {}

    def need(key: str, extra: str = "") -> None:
        v[key] = None
        miss[key] = INSTANCES_INPUT + extra

    config = inp["config"]
    w21 = wts.scheme_weights(config, "weights")
    weights = wts.scheme_weights(config, weight_scheme)
    cells = agg.reconstruct_cells(inp["dimension_scores"], inp["effect_sizes"])
    t2 = agg.table2(cells, weights).set_index("model")
    diag = agg.dimension_diagnostics(cells).set_index("dimension")
    l1 = agg.layer1_summary(cells).set_index("condition")
    res = instances

    # ---------------- Table 1 and Table 4: weights (design constants held by config.yaml)
    for d, w in w21.items():
        if w > 0:
            v[f"pwb.table1.{d}.weight"] = w
    for d in DIMENSIONS:
        v[f"pwb.table4.{d}.tier"] = w21[d] if w21.get(d, 0) > 0 else "excl."

    # ---------------- Table 2 and the PWI text claims
    pwi_b = {m: float(t2.loc[m, "baseline"]) for m in t2.index}
    pwi_p = {m: float(t2.loc[m, "prompted"]) for m in t2.index}
    if res is not None:
        pw = res["pwi"].set_index(["model", "condition"])
        for m in t2.index:
            pwi_b[m], pwi_p[m] = float(pw.loc[(m, "baseline"), "pwi"]), float(pw.loc[(m, "with_system_prompt"), "pwi"])
    for m, k in MODEL_KEYS.items():
        if m not in t2.index:
            for c in ("baseline", "prompted"):
                miss[f"pwb.pwi.{k}.{c}"] = f"model {m} absent from analysis_output/effect_sizes.csv"
                v[f"pwb.pwi.{k}.{c}"] = None
            continue
        v[f"pwb.pwi.{k}.baseline"], v[f"pwb.pwi.{k}.prompted"] = pwi_b[m], pwi_p[m]
        v[f"pwb.table2.{k}.delta_pwi"] = _printed_delta(pwi_b[m], pwi_p[m])
        if res is not None:
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

    # d_pooled (Table 2 and the leaderboard): run-level data only
    if res is not None:
        dp = res["d_pooled"].set_index("model")["d_pooled"]
        for m, k in MODEL_KEYS.items():
            v[f"pwb.d_pooled.{k}"] = float(dp[m]) if m in dp.index else None
            v[f"pwb.leaderboard_v2_0.{k}.d"] = v[f"pwb.d_pooled.{k}"]
        ds = [x for x in (v[f"pwb.d_pooled.{k}"] for k in MODEL_KEYS.values()) if x is not None]
        v["pwb.d_pooled.min"], v["pwb.d_pooled.max"] = min(ds), max(ds)
        v["pwb.d_pooled.n_large"] = int(sum(x > 0.80 for x in ds))
    else:
        for k in MODEL_KEYS.values():
            need(f"pwb.d_pooled.{k}", " (aggregates only approximate it: pwb.approx.d_pooled.*)")
            need(f"pwb.leaderboard_v2_0.{k}.d")
        for key in ("pwb.d_pooled.min", "pwb.d_pooled.max", "pwb.d_pooled.n_large"):
            need(key)

    # ---------------- Table 3
    inst_diag = res["diagnostics"].set_index("dimension") if res is not None else None
    inst_irr = res["irr"].set_index("dimension") if res is not None else None
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
            need(_cell_id(cell_ids, "table3", d, "ci_low"))
            need(_cell_id(cell_ids, "table3", d, "ci_high"))
        if inst_irr is not None and d in inst_irr.index:
            v[_cell_id(cell_ids, "table3", d, "qwk")] = float(inst_irr.loc[d, "qwk"])
        else:
            need(_cell_id(cell_ids, "table3", d, "qwk"))
        if w21.get(d, 0) > 0:
            v[_cell_id(cell_ids, "table3", d, "w")] = w21[d]
    # keep the Table 3 claims' older ids consistent (pwb.dim.<d>.<baseline|prompted|delta> for every d)
    for d in DIMENSIONS:
        for col, key in (("base", "baseline"), ("prompted", "prompted"), ("delta", "delta")):
            v[f"pwb.dim.{d}.{key}"] = v[_cell_id(cell_ids, "table3", d, col)]
    dl = pd.Series({d: v[f"pwb.dim.{d}.delta"] for d in DIMENSIONS})
    v["pwb.dim.n_improving"] = int((dl > 0).sum())
    v["pwb.dim.delta_ratio"] = float(dl.max() / dl.min())

    # Layer-1 means
    l1src = None
    if res is not None:
        lay = res["layers"].set_index(["layer", "condition"])
        l1src = {c: float(lay.loc[("Layer 1", c), "mean"]) for c in ("baseline", "with_system_prompt")}
    for c in ("baseline", "with_system_prompt"):
        v[f"pwb.layer1.{CONDITION_KEYS[c]}_mean"] = l1src[c] if l1src else float(l1.loc[c, "mean"])

    # ---------------- Tables 5 and 6: Layers 2 and 3
    lays = inp["layers"].set_index(["Layer", "Variant"])[["Mean", "N"]]
    if res is not None:  # recomputed from the instances where they hold the layer, else as released
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
                    need(key)

    if res is not None:
        _layer2_authors_filter(v, res["panel"])

    # ---------------- Table 7: IRR on complete triples
    t7 = next(t for t in (register or _register())["tables"] if t["slug"] == "table7")
    for r in t7["rows"]:
        dim = "POOLED" if r == "pooled" else r
        for col in t7["cols"]:
            key = f"pwb.table7.{r}.{col}"
            if inst_irr is not None and dim in inst_irr.index:
                x = inst_irr.loc[dim, col]
                v[key] = int(x) if col == "n" else float(x)
            else:
                need(key)

    # ---------------- Table 8: per-model prompted means (the paper's table is stale; these are the data's)
    prom = agg.model_dimension_matrix(cells, "prompted")
    for k in MODEL_KEYS.values():
        for d in DIMENSIONS:
            m = _KEY_MODEL[k]
            v[f"pwb.table8.{k}.{d}"] = float(prom.loc[m, d]) if m in prom.index else None
            if m not in prom.index:
                miss[f"pwb.table8.{k}.{d}"] = f"model {m} absent from analysis_output"

    # ---------------- Table 9 and the sensitivity text
    schemes = wts.sensitivity_schemes(config, cf_heavy_weight=cf_heavy_weight, restore_weight=restore_weight)
    sens = agg.weight_sensitivity(cells, schemes)[0].set_index("scheme")
    for row, scheme in _SCHEME_ROW.items():
        for col in ("kendall_tau", "max_dev", "min_delta"):
            v[f"pwb.table9.{row}.{col}"] = float(sens.loc[scheme, col])
        v[f"pwb.table9.{row}.top3_stable"] = int(sens.loc[scheme, "top3_stable"])
    v["pwb.sensitivity.text_default_min_delta"] = float(sens.loc["default", "min_delta"])

    # ---------------- v2.0 leaderboard (point PWIs under the v2.0 weights)
    lb = agg.leaderboard(cells, wts.scheme_weights(config, "legacy_weights_v2_0")).sort_values(
        "prompted", ascending=False
    )
    for rank, (_, r) in enumerate(lb.iterrows(), start=1):
        k = MODEL_KEYS[r["model"]]
        v[f"pwb.leaderboard_v2_0.{k}.rank"] = rank
        for col in ("baseline", "prompted", "delta"):
            v[f"pwb.leaderboard_v2_0.{k}.{col}"] = float(r[col])

    # ---------------- r(CF, CO): the paper's rule, the pairing by prompt beside it
    if res is not None and res.get("correlation_authors") is not None:
        v["pwb.cf_co.r"] = float(res["correlation_authors"].loc["cognitive_forcing", "complementarity"])
        v["pwb.cf_co.r.variant.paired"] = float(res["correlation"].loc["cognitive_forcing", "complementarity"])
    else:
        need("pwb.cf_co.r")
        need("pwb.cf_co.r.variant.paired")

    # ---------------- completeness, paired N (from the cell counts)
    n_models = int(cells["model"].nunique())
    n_prompts = {d: len(doc.get("prompts", [])) for d, doc in inp["layer1_prompts"].items()}
    runs_per_prompt = int(config.get("settings", {}).get("runs_per_prompt", 0)) or None
    planned_dim = {d: n_models * 2 * n_prompts.get(d, 0) * (runs_per_prompt or 0) for d in DIMENSIONS}
    scored_dim = cells.groupby("dimension")["n"].sum()
    if runs_per_prompt:
        total = sum(planned_dim.values())
        v["pwb.completeness.l1_runs_total"] = total
        v["pwb.completeness.l1_runs_scored"] = int(cells["n"].sum())
        v["pwb.completeness.pct_scored"] = 100.0 * int(cells["n"].sum()) / total
        pct = {d: 100.0 * scored_dim[d] / planned_dim[d] for d in DIMENSIONS if planned_dim[d]}
        v["pwb.completeness.min_dim_pct"] = float(min(pct.values()))
        v["pwb.completeness.max_dim_pct"] = float(max(pct.values()))
        v["pwb.completeness.threshold_pct"] = float(min(pct.values()))  # relation >: every dimension
        v["pwb.design.irr_max_n_per_dim"] = n_models * 2 * max(n_prompts.values()) * runs_per_prompt
        v["pwb.params.medians_per_cell_text"] = n_models * sum(n_prompts.values()) * runs_per_prompt
    v["pwb.sig.l1_n_paired"] = int(l1.loc["baseline", "n"])
    v["pwb.fig_sig_dims.n_per_dim"] = float(cells.groupby(["dimension", "condition"])["n"].sum().mean())
    if res is not None:
        l1p = res["panel"][res["panel"]["layer"] == 1]
        v["pwb.completeness.two_judge_runs"] = int((l1p["n_judges"] == 2).sum())
    else:
        need("pwb.completeness.two_judge_runs")

    # ---------------- the benchmark's design, from its files
    v["pwb.design.n_layer1_dimensions"] = len(inp["layer1_prompts"])
    v["pwb.design.n_single_turn"] = int(sum(n_prompts.values()))
    v["pwb.design.n_prompts_per_dimension"] = (
        int(max(n_prompts.values())) if len(set(n_prompts.values())) == 1 else None
    )
    if v["pwb.design.n_prompts_per_dimension"] is None:
        miss["pwb.design.n_prompts_per_dimension"] = (
            "data/pwb/prompts/layer1_behavioral: dimensions differ in prompt count"
        )
    v["pwb.design.n_domains"] = len(
        {p.get("domain") for doc in inp["layer1_prompts"].values() for p in doc.get("prompts", [])}
    )
    turns = {len(s.get("turns", [])) for s in inp["layer2_scenarios"]}
    v["pwb.design.turns_per_scenario"] = turns.pop() if len(turns) == 1 else None
    if v["pwb.design.turns_per_scenario"] is None:
        miss["pwb.design.turns_per_scenario"] = "data/pwb/prompts/layer2_scenarios: scenarios differ in turn count"
    v["pwb.design.n_adversarial"] = len(inp["layer3_prompts"].get("prompts", []))
    v["pwb.sig.n_l3_per_model"] = v["pwb.design.n_adversarial"]
    v2 = wts.scheme_weights(config, "legacy_weights_v2_0")
    v["pwb.design.n_dimensions"] = len(v2)
    v["pwb.params.v2_0_n_weights"] = len(v2)
    v["pwb.design.n_excluded_dims"] = len(v2) - sum(1 for w in w21.values() if w > 0)
    v["pwb.design.n_models"] = n_models
    v["pwb.params.n_model_variant_combinations"] = 2 * n_models
    judges = [str(j.get("name", "")).replace(" (judge)", "") for j in config.get("judges", [])]
    v["pwb.design.n_judges"] = len(judges)
    overlap = len(set(judges) & set(cells["model"]))
    v["pwb.design.n_judge_subject_overlap"] = overlap
    v["pwb.checklist.judge_subject_overlap"] = overlap
    temps = {float(j.get("temperature")) for j in config.get("judges", []) if j.get("temperature") is not None}
    if len(temps) == 1:
        v["pwb.params.judge_temperature"] = temps.pop()
    settings = config.get("settings", {})
    if runs_per_prompt:
        v["pwb.design.n_runs"] = runs_per_prompt
    for key, skey in (
        ("pwb.params.model_temperature", "model_temperature"),
        ("pwb.params.max_tokens_model", "max_tokens"),
        ("pwb.params.max_tokens_judge", "judge_max_tokens"),
    ):
        if skey in settings:
            v[key] = settings[skey]
    if "max_score_per_item" in config.get("scoring", {}):
        v["pwb.design.score_max"] = int(config["scoring"]["max_score_per_item"])
    pos = [w for w in w21.values() if w > 0]
    v["pwb.pwi.weight_sum"] = float(sum(pos))
    v["pwb.pwi.n_contributing"] = len(pos)
    v["pwb.tiers.n_tiers"] = len(set(pos))
    v["pwb.tiers.n_top"] = sum(1 for w in pos if w == max(pos))
    v["pwb.tiers.n_low"] = sum(1 for w in pos if w == min(pos))
    # the stage's own parameters (params.yaml pwb; the paper's values by default)
    v["pwb.params.bootstrap_iterations"] = n_boot
    v["pwb.params.ci_percentile_low"] = 50 * (1 - ci_level)
    v["pwb.params.ci_percentile_high"] = 50 * (1 + ci_level)
    v["pwb.params.cf_heavy_weight"] = cf_heavy_weight
    v["pwb.params.restore_weight"] = restore_weight
    v["pwb.params.n_alt_schemes"] = len(schemes) - 1

    # ---------------- judge-level samples
    pa = val.pilot_agreement(inp["pilot_scores"], inp["pilot_truth"])
    v["pwb.pilot.n"] = int(pa["overall"]["n"])
    v["pwb.pilot.mad"] = float(pa["overall"]["mad"])
    if pa["low_irr"] is not None:
        v["pwb.pilot.ut_ard_n"] = int(pa["low_irr"]["n"])
        v["pwb.pilot.ut_ard_exact"] = float(pa["low_irr"]["exact"])
        v["pwb.pilot.ut_ard_adjacent"] = float(pa["low_irr"]["adjacent"])
    sample, _ = val.fourth_judge_sample(inp["fourth_scores"], inp["fourth_errors"], rule=fourth_judge_rule)
    fa = val.fourth_judge_agreement(sample)
    v["pwb.fourth_judge.n"] = int(fa["overall"]["n"])
    fpd = fa["per_dimension"].set_index("dimension")
    v["pwb.fourth_judge.mc_qwk"] = float(fpd.loc["metacognitive_calibration", "qwk"])
    v["pwb.fourth_judge.ut_qwk"] = float(fpd.loc["uncertainty_transparency", "qwk"])

    # ---------------- per-instance text claims
    _instance_text_claims(v, need, res, dl)

    # ---------------- every register claim gets a key; nothing else is guessed
    for cid, c in claims.items():
        if cid in v:
            continue
        if c["level"] in ("per_instance", "row_level"):
            need(cid, "" if res is None else _NO_CODE)
        elif c["level"] == "raw":
            v[cid] = None
            miss[cid] = "no computation for this raw claim yet"
        # level none: a design constant the project's inputs do not hold -> not published (quoted)
    for cid in cell_ids:  # a table cell is always a key (the values contract), even a design constant
        if cid not in v:
            if claims.get(cid, {}).get("level") == "none":
                v[cid] = None
                miss[cid] = "a design constant that the project's inputs (config.yaml, prompts, params) do not hold"
            else:
                need(cid)
    return v, {k: s for k, s in miss.items() if v.get(k) is None}


def _cell_id(cell_ids: Mapping[str, tuple[str, str, str]], table: str, row: str, col: str) -> str:
    for cid, (t, r, c) in cell_ids.items():
        if (t, r, c) == (table, row, col):
            return cid
    return f"pwb.{table}.{row}.{col}"  # a blank cell: published anyway, harmless


def _instance_text_claims(v: dict, need, res: Mapping | None, delta: pd.Series) -> None:
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
            need(k)
        return
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
        _l2_cluster(v, e2["prompted"])
    if eff[3] is not None and not eff[3].empty:
        e3 = eff[3].set_index("model").drop(index="POOLED", errors="ignore")
        v["pwb.text.l3_n_prompted_gt_2_4"] = int((e3["prompted"] > 2.4).sum())


def _l2_cluster(v: dict, prompted: pd.Series) -> None:
    """App B.1 "three models cluster at 1.40-1.50/3", the low group of the prompted Layer-2 means: the models
    whose prompted mean lies below the mean of all models' prompted means; publishes their number and the
    lowest and highest of their means. The paper does not define the group; this reading is the one its
    three numbers determine (on Table 5: Devstral 1.50, Qwen3.5 1.50, Nemotron 1.39)."""
    vals = prompted.dropna()
    low = vals[vals < vals.mean()]
    if not len(low):
        return
    v["pwb.text.l2_cluster_n"] = len(low)
    v["pwb.text.l2_cluster_low"] = float(low.min())
    v["pwb.text.l2_cluster_high"] = float(low.max())


#: slug of the Layer-2 variant that follows the authors' per-model filter (issue 21, item 5)
L2_FILTER_SLUG = "authors_nonzero"


def _layer2_authors_filter(v: dict, panel: pd.DataFrame) -> None:
    """Table 5 per-model base / prompted / delta as the authors' script prints them, published as
    ``pwb.table5.<model>.<col>.variant.authors_nonzero`` beside the paper's number.

    The paper's Table 5 (and the authors' own ``layer_summary.csv``) average every scenario with an
    ``average_score`` (all 16 per model and condition): that is the claim's value. The per-model summary
    of ``run_analysis.py`` section 7 instead keeps a scenario only ``if s.get("average_score")``, which is
    false for an average of exactly 0.0 as well as for a missing one, so a scenario on which every judged
    turn scored 0 -- the lowest rubric level, a valid score -- leaves the mean, and the mean rises. In
    METHODS terms the variant averages the scenario-level scores that are non-zero, not the valid ones."""
    l2 = panel[panel["layer"] == 2]
    if l2.empty:
        return
    for model, g in l2.groupby("model", sort=True):
        k = MODEL_KEYS.get(model)
        if k is None:
            continue
        keep = g[g["panel"] != 0]
        means = {
            c: float(keep.loc[keep["condition"] == cond, "panel"].mean()) if (keep["condition"] == cond).any() else 0.0
            for c, cond in (("base", "baseline"), ("prompted", "with_system_prompt"))
        }  # the authors' script prints 0 when no scenario passes the filter
        v[f"pwb.table5.{k}.base.variant.{L2_FILTER_SLUG}"] = means["base"]
        v[f"pwb.table5.{k}.prompted.variant.{L2_FILTER_SLUG}"] = means["prompted"]
        v[f"pwb.table5.{k}.delta.variant.{L2_FILTER_SLUG}"] = means["prompted"] - means["base"]
