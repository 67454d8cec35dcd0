"""compendium.pwb.register: every cell of every register table and every claim gets a key; each value
comes from the input that determines it (checked against independent computations on the released
files), and per-instance cells are null with the missing input named until the instance data exist."""

import copy
import dataclasses

import numpy as np
import pandas as pd
import pytest
import yaml

from compendium import pwb
from compendium.pipeline import paths
from compendium.pipeline.params import study_params
from compendium.pwb import MODEL_KEYS, instances as I, register as R


@pytest.fixture(scope="module")
def inputs():
    return pwb.Inputs.load(study_params("pwb"))


def _register(inputs, params=None, **replace):
    """build + register, as the chapter runs them (``replace``: fields of the inputs to change)."""
    params = params or study_params("pwb")
    r = pwb.build(params, dataclasses.replace(inputs, **replace) if replace else inputs)
    return r, *R.register_values(r)


def _with_instances(inputs, table, n_boot=50):
    """The register on a per-instance table (the per-instance path of the build, at a few draws)."""
    return _register(inputs, study_params("pwb", n_boot=n_boot, diag_n_boot=20), instances=table)


@pytest.fixture(scope="module")
def out(inputs):
    return _register(inputs)[1:]


def test_every_register_cell_is_a_key(out):
    values, missing = out
    reg = yaml.safe_load((paths.PUBLISHED / "pwb.yaml").read_text())
    for t in reg["tables"]:
        ex, blank = t.get("existing_ids") or {}, set(t.get("blank_cells") or [])
        for r in t["rows"]:
            for c in t["cols"]:
                if f"{r}.{c}" in blank:
                    continue
                cid = ex.get(f"{r}.{c}", t["id_pattern"].format(row=r, col=c))
                assert cid in values, f"table {t['slug']}: cell {r}.{c} ({cid}) not published"
    for c in reg["claims"]:
        if c["level"] != "none":
            assert c["id"] in values, c["id"]
    nulls = {k for k, x in values.items() if x is None}
    assert nulls == set(missing), "every null needs its missing input named, and only nulls"
    # without data/pwb/results every per-instance claim is null and names that folder
    per = [c["id"] for c in reg["claims"] if c["level"] == "per_instance"]
    assert all(values[i] is None and "data/pwb/results/" in missing[i] for i in per)
    assert all(values[c["id"]] is not None for c in reg["claims"] if c["level"] == "raw")
    assert all(k.startswith("pwb.") for k in R.PROVENANCE)


def test_existing_claim_values_are_kept(out, inputs):
    values, _ = out
    from compendium.pwb import aggregates as A, weights as W

    cells = A.reconstruct_cells(inputs.released["dimension_scores"], inputs.released["effect_sizes"])
    t2 = A.table2(cells, W.scheme_weights(inputs.config)).set_index("model")
    for m, k in MODEL_KEYS.items():
        assert values[f"pwb.pwi.{k}.baseline"] == t2.loc[m, "baseline"]
        assert values[f"pwb.table2.{k}.delta_pwi"] == pytest.approx(
            round(t2.loc[m, "prompted"], 1) - round(t2.loc[m, "baseline"], 1)
        )
    diag = inputs.released["diagnostics"].set_index("Dimension")  # full-precision pooled means, released
    for d in diag.index:
        assert values[f"pwb.dim.{d}.baseline"] == pytest.approx(diag.loc[d, "Baseline"], abs=1e-12)
        assert values[f"pwb.table3.{d}.models"] == diag.loc[d, "Models_improving"]


def test_design_constants_from_config(inputs, out):
    values, _ = out
    assert (
        values["pwb.table1.cognitive_forcing.weight"] == 0.15
        and "pwb.table1.uncertainty_transparency.weight" not in values
    )
    assert (
        values["pwb.table4.appropriate_reliance.tier"] == "excl." and values["pwb.table4.draft_annotation.tier"] == 0.05
    )
    assert values["pwb.pwi.weight_sum"] == pytest.approx(0.80) and values["pwb.pwi.n_contributing"] == 8
    assert (values["pwb.tiers.n_tiers"], values["pwb.tiers.n_top"], values["pwb.tiers.n_low"]) == (3, 2, 2)
    assert values["pwb.design.n_judge_subject_overlap"] == 3 and values["pwb.design.n_judges"] == 3
    # the values follow the config, not the paper: change a weight and the cells move
    cfg = copy.deepcopy(inputs.config)
    cfg["scoring"]["weights"]["draft_annotation"] = 0.0
    _, v2, _ = _register(inputs, config=cfg)
    assert v2["pwb.table1.draft_annotation.weight"] is None and v2["pwb.table4.draft_annotation.tier"] == "excl."
    assert v2["pwb.pwi.n_contributing"] == 7 and v2["pwb.pwi.weight_sum"] == pytest.approx(0.75)


def test_layer_means_from_layer_summary(inputs, out):
    values, _ = out
    lay = inputs.released["layers"].set_index(["Layer", "Variant"])["Mean"]
    assert values["pwb.table5.mean_pooled.base"] == lay[("Layer 2", "baseline")]
    assert values["pwb.table6.mean_pooled.delta"] == pytest.approx(
        lay[("Layer 3", "with_system_prompt")] - lay[("Layer 3", "baseline")]
    )
    assert values["pwb.table6.mean_pooled.prompted"] == pytest.approx(2.1146953, abs=1e-7)  # the paper prints 2.10
    assert values["pwb.sig.l2_n"] == 112 and values["pwb.sig.l3_n"] == 280


def test_text_claims_from_cells(inputs, out):
    values, _ = out
    ds = inputs.released["dimension_scores"]  # N of every cell, independent of the sums
    assert values["pwb.completeness.l1_runs_scored"] == int(ds["N"].sum()) == 13961
    per_dim = ds.groupby("Dimension")["N"].sum() / 1400 * 100
    assert values["pwb.completeness.min_dim_pct"] == pytest.approx(per_dim.min())
    assert round(values["pwb.completeness.pct_scored"], 2) == 99.72
    assert values["pwb.sig.l1_n_paired"] == int(ds.loc[ds.Variant == "baseline", "N"].sum())
    assert values["pwb.design.n_domains"] == 13 and values["pwb.design.n_single_turn"] == 200
    assert values["pwb.table9.default.kendall_tau"] == 1.0 and values["pwb.table9.default.max_dev"] == 0.0
    ranks = sorted(values[f"pwb.leaderboard_v2_0.{k}.rank"] for k in MODEL_KEYS.values())
    assert ranks == list(range(1, 8))


def test_register_slips_have_the_stated_numbers(out):
    """Evidence for published/notes/pwb.yaml: the numbers the notes quote."""
    values, _ = out
    assert round(values["pwb.fourth_judge.mc_qwk"], 3) == 0.505 and round(values["pwb.fourth_judge.mc_qwk"], 2) == 0.50
    assert round(values["pwb.table6.mean_pooled.prompted"], 2) == 2.11
    assert round(values["pwb.table6.mean_pooled.delta"], 2) == 1.56
    assert round(values["pwb.sensitivity.text_default_min_delta"], 1) == 24.1
    assert values["pwb.params.max_tokens_model"] == 8192
    assert values["pwb.checklist.judge_subject_overlap"] == 3


def test_instances_fill_the_per_instance_cells(inputs):
    syn = I.synthetic_instances(n_models=7, n_prompts=3, n_runs=2, seed=1, missing_rate=0.05)
    names = dict(zip(sorted(syn["model"].unique()), MODEL_KEYS))
    syn["model"] = syn["model"].map(names)
    r, values, missing = _with_instances(inputs, syn)
    res = r.instances.res
    for k in MODEL_KEYS.values():
        assert values[f"pwb.d_pooled.{k}"] is not None
        assert values[f"pwb.pwi.{k}.prompted.mc_se"] > 0
    assert values["pwb.table7.pooled.n"] == int(res["irr"].set_index("dimension").loc["POOLED", "n"])
    assert values["pwb.table3.complementarity.ci_low.mc_se"] > 0
    assert values["pwb.cf_co.r"] == res["correlation_authors"].loc["cognitive_forcing", "complementarity"]
    assert values["pwb.cf_co.r.variant.paired"] == res["correlation"].loc["cognitive_forcing", "complementarity"]
    pm = res["tests"]["per_model"]
    assert values["pwb.sig.l1_models_p_bound"] == pm["p"].max()
    assert values["pwb.fig_sig_models.d_glm51"] == pm.set_index("model").loc["GLM 5.1", "d_z"]
    # the synthetic table has no Layer 2: those cells stay null and name the input
    assert values["pwb.table5.gemma4.d"] is None and "data/pwb/results/" in missing["pwb.table5.gemma4.d"]


def test_results_json_end_to_end(tmp_path, inputs):
    """The authors' results files (7 models x 2 variants, all three layers, with judge anomalies) through
    the loader, the instance pipeline and the register: no crash, and the per-instance cells filled."""
    import json

    rng = np.random.default_rng(3)
    for m in MODEL_KEYS:
        for variant, shift in (("baseline", 0), ("with_system_prompt", 1)):
            l1 = {}
            for d in I.DIMENSIONS:
                prompts = []
                for p in range(3):
                    runs = []
                    for r in range(2):
                        js = [int(np.clip(rng.integers(0, 3) + shift, 0, 3)) for _ in range(3)]
                        if rng.random() < 0.05:
                            js[0] = 4  # an anomalous judge value
                        runs.append(
                            {"run": r, "score": int(np.median([x for x in js if x <= 3])), "individual_scores": js}
                        )
                    prompts.append({"prompt_id": f"{d[:2]}_{p:02d}", "runs": runs})
                l1[d] = prompts
            l2 = [
                {
                    "scenario_id": f"s{i}",
                    "average_score": float(rng.uniform(0, 2) + shift * 0.8),
                    "behavior_pass_rate": float(rng.uniform(0.5, 1)),
                }
                for i in range(4)
            ]
            l3 = [
                {
                    "prompt_id": f"ar_{i:02d}",
                    "score": int(np.clip(rng.integers(0, 3) + shift, 0, 3)),
                    "individual_scores": [1, 2, 2],
                }
                for i in range(5)
            ]
            (tmp_path / f"{MODEL_KEYS[m]}_{variant}.json").write_text(
                json.dumps(
                    {
                        "model_name": m,
                        "variant": variant,
                        "timestamp": "20260501_000000",
                        "layer1": l1,
                        "layer2": l2,
                        "layer3": l3,
                    }
                )
            )
    inst = I.load_hf_results(tmp_path)
    r, values, missing = _with_instances(inputs, inst, n_boot=30)
    assert (r.anomalies["kind"] == "above 3").sum() == (inst["score_raw"] == 4).sum() > 0
    for k in MODEL_KEYS.values():
        for key in (f"pwb.table5.{k}.d", f"pwb.table5.{k}.behavior_pct", f"pwb.table6.{k}.base", f"pwb.d_pooled.{k}"):
            assert values[key] is not None, key
    assert values["pwb.sig.l2_t"] is not None and values["pwb.text.l3_n_prompted_gt_2_4"] is not None
    assert {k for k, x in values.items() if x is None} == set(missing)


def test_every_per_instance_claim_gets_a_value_from_a_full_release_layout(tmp_path, inputs):
    """All 209 per-instance claims are computed from a results folder in the release's layout (the small
    synthetic snapshot: all three layers, 7 models x 2 conditions), none left 'needs data'."""
    from compendium.data import synthetic_pwb

    synthetic_pwb.write_snapshot(tmp_path, seed=2, size="small")
    _, values, missing = _with_instances(inputs, I.load_hf_results(tmp_path / "results"), n_boot=30)
    claims = yaml.safe_load((paths.ROOT / "published" / "pwb.yaml").read_text())["claims"]
    ids = [c["id"] for c in claims if c["level"] == "per_instance"]
    assert len(ids) == 209
    assert [i for i in ids if values.get(i) is None] == []
    assert values["pwb.irr.n_low_reliability"] == values["pwb.irr.n_kappa_below_070"]


def test_l2_cluster_is_the_models_below_the_mean_prompted_layer2_score():
    # Table 5's prompted column: Devstral 1.50, Qwen3.5 1.50, Nemotron 1.39 below the mean of the seven
    e2 = pd.DataFrame({"model": [*MODEL_KEYS, "POOLED"], "prompted": [2.04, 2.04, 1.94, 1.99, 1.39, 1.50, 1.50, 9.0]})
    assert I.layer2_low_cluster(e2) == {"n": 3, "low": 1.39, "high": 1.5}
    assert I.layer2_low_cluster(None) is None


def test_layer2_authors_nonzero_filter_is_a_variant_beside_the_papers_mean(tmp_path, inputs):
    """Item 5 of issue 21: the paper averages all scenarios; the authors' script drops an average of exactly
    0.0 (``if s.get("average_score")``). The snapshot's Devstral baseline has one all-zero scenario."""
    import json

    from compendium.data import synthetic_pwb

    synthetic_pwb.write_snapshot(tmp_path, seed=4, size="small")
    _, values, _ = _with_instances(inputs, I.load_hf_results(tmp_path / "results"), n_boot=20)
    slug = R.L2_FILTER_SLUG
    # by hand from the JSON: every scenario (the paper) and the non-zero ones (the authors' filter)
    for f in (tmp_path / "results").glob("*Devstral*_baseline_*.json"):
        avgs = [s["average_score"] for s in json.loads(f.read_text())["layer2"]]
    assert 0.0 in avgs
    assert values["pwb.table5.devstral.base"] == pytest.approx(np.mean(avgs), abs=1e-12)
    assert values[f"pwb.table5.devstral.base.variant.{slug}"] == pytest.approx(
        np.mean([a for a in avgs if a]), abs=1e-12
    )
    assert values[f"pwb.table5.devstral.base.variant.{slug}"] > values["pwb.table5.devstral.base"]
    # a model without a zero scenario: the variant equals the paper's number
    assert values[f"pwb.table5.glm51.prompted.variant.{slug}"] == pytest.approx(values["pwb.table5.glm51.prompted"])
