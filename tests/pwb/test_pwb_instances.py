"""The per-instance path of compendium.pwb on synthetic instance tables with known answers."""

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from compendium.pwb import instances as I

W = {"cognitive_forcing": 0.15, "complementarity": 0.15, "anti_sycophancy": 0.10, "uncertainty_transparency": 0.0}
DIMS = ["cognitive_forcing", "complementarity", "anti_sycophancy", "uncertainty_transparency"]


def _table(rows):
    return pd.DataFrame(rows, columns=list(I.SCHEMA))


def _constant_model(score_by_dim, model="m", condition="baseline", n_prompts=4, n_runs=3, n_judges=3):
    rows = []
    for d, s in score_by_dim.items():
        for p in range(n_prompts):
            for r in range(n_runs):
                for j in range(n_judges):
                    rows.append((model, condition, 1, d, f"{d[:2]}_{p:02d}", r, f"judge_{j}", float(s)))
    return _table(rows)


# ---------------------------------------------------------------- panel rule


@pytest.mark.parametrize(
    "judges, expected",
    [
        ([3, 2], 2),
        ([2, 1], 1),  # two judges: floor of their mean (not rounding: [2, 1] -> 1)
        ([3, 2, 2], 2),
        ([1, 2, 3], 2),
        ([0, 3], 1),
        ([3], 3),
        ([2, np.nan, 3], 2),
        ([0, 0, 3], 0),
    ],
)
def test_panel_rule(judges, expected):
    rows = [("m", "baseline", 1, "cognitive_forcing", "cf_01", 0, f"j{k}", s) for k, s in enumerate(judges)]
    out = I.panel_scores(_table(rows))
    assert out["panel"].tolist() == [expected]
    assert out["n_judges"].tolist() == [int(np.sum(~np.isnan(np.asarray(judges, float))))]


def test_run_with_no_valid_judge_is_dropped():
    rows = [("m", "baseline", 1, "cognitive_forcing", "cf_01", 0, f"j{k}", np.nan) for k in range(3)]
    rows += [("m", "baseline", 1, "cognitive_forcing", "cf_01", 1, "j0", 2.0)]
    out = I.panel_scores(_table(rows))
    assert out["run"].tolist() == [1]


# ---------------------------------------------------------------- PWI bootstrap


@pytest.mark.parametrize("s", [0, 1, 2, 3])
def test_constant_score_model_gives_pwi_100_s_over_3(s):
    inst = _constant_model({d: s for d in DIMS})
    res = I.pwi_bootstrap(I.layer1_runs(I.panel_scores(inst)), W, n_boot=500, seed=42)
    row = res.iloc[0]
    for col in ("pwi", "pwi_point", "ci_lower", "ci_upper"):
        assert row[col] == pytest.approx(100 * s / 3)
    assert row["boot_sd"] == pytest.approx(0.0)


def test_pwi_point_hand_worked_with_na_rule_and_zero_weight():
    # CF 3, CO 0, AS 1.5 (half the runs 3, half 0), UT 3 (weight 0): (0.15*1 + 0.15*0 + 0.10*0.5)/0.40 = 0.5
    inst = pd.concat(
        [
            _constant_model({"cognitive_forcing": 3, "complementarity": 0, "uncertainty_transparency": 3}),
            _constant_model({"anti_sycophancy": 3}, n_runs=2),
            _constant_model({"anti_sycophancy": 0}, n_runs=2).assign(run=lambda t: t.run + 2),
        ]
    )
    res = I.pwi_bootstrap(I.layer1_runs(I.panel_scores(inst)), W, n_boot=2000, seed=42)
    assert res["pwi_point"].iloc[0] == pytest.approx(50.0)
    # only CF present among the weighted dimensions -> the PWI is CF's alone
    only_cf = I.pwi_bootstrap(
        I.layer1_runs(I.panel_scores(_constant_model({"cognitive_forcing": 2, "uncertainty_transparency": 0}))),
        W,
        n_boot=10,
        seed=42,
    )
    assert only_cf["pwi_point"].iloc[0] == pytest.approx(200 / 3)


def test_bootstrap_matches_the_analytic_standard_error_and_is_seeded():
    inst = I.synthetic_instances(n_models=1, n_prompts=20, n_runs=5, dimensions=DIMS, seed=11)
    runs = I.layer1_runs(I.panel_scores(inst))
    res = I.pwi_bootstrap(runs, W, n_boot=10_000, seed=42)
    for (model, cond), t in runs.groupby(["model", "condition"]):
        wsum = sum(w for d, w in W.items() if w > 0)
        var = sum(
            (W[d] / wsum) ** 2 * t.loc[t.dimension == d, "panel"].var(ddof=0) / (t.dimension == d).sum()
            for d in DIMS
            if W[d] > 0
        )
        se = 100 / 3 * np.sqrt(var)  # SE of the weighted mean of independent dimension means
        row = res[(res.model == model) & (res.condition == cond)].iloc[0]
        assert row["boot_sd"] == pytest.approx(se, rel=0.04)
        assert abs(row["pwi"] - row["pwi_point"]) < 4 * se / np.sqrt(10_000)
        assert row["ci_lower"] == pytest.approx(row["pwi_point"] - 1.96 * se, abs=0.15 * se + 0.05)
        assert row["ci_upper"] == pytest.approx(row["pwi_point"] + 1.96 * se, abs=0.15 * se + 0.05)
    again = I.pwi_bootstrap(runs, W, n_boot=10_000, seed=42)
    pd.testing.assert_frame_equal(res, again)
    other = I.pwi_bootstrap(runs, W, n_boot=10_000, seed=43)
    assert not np.allclose(res["ci_lower"], other["ci_lower"])


def test_each_draw_resamples_each_dimension_independently():
    # two dimensions with identical data: had they shared the resampling indices, the equal-weight
    # PWI would vary as much as one dimension's; independent resampling divides its SD by sqrt(2)
    rows = [
        ("m", "baseline", 1, d, f"p{p:02d}", 0, f"judge_{j}", 3.0 if p % 2 == 0 else 0.0)
        for d in ("cognitive_forcing", "complementarity")
        for p in range(10)
        for j in range(3)
    ]
    runs = I.layer1_runs(I.panel_scores(_table(rows)))
    both = I.pwi_bootstrap(runs, {"cognitive_forcing": 1.0, "complementarity": 1.0}, n_boot=4000, seed=42)
    cf = I.pwi_bootstrap(runs, {"cognitive_forcing": 1.0}, n_boot=4000, seed=42)
    co = I.pwi_bootstrap(runs, {"complementarity": 1.0}, n_boot=4000, seed=42)
    assert both["boot_sd"].iloc[0] == pytest.approx(cf["boot_sd"].iloc[0] / np.sqrt(2), rel=0.05)
    assert co["boot_sd"].iloc[0] == pytest.approx(cf["boot_sd"].iloc[0], rel=0.05)
    assert cf["boot_sd"].iloc[0] == pytest.approx(100 / 3 * 1.5 / np.sqrt(10), rel=0.05)


# ---------------------------------------------------------------- effect sizes and tests


def test_cohens_d_against_pingouin_and_by_hand():
    import pingouin

    rng = np.random.default_rng(2)
    b, p = rng.integers(0, 4, 300), rng.integers(1, 4, 280)
    assert I.cohens_d(b, p) == pytest.approx(pingouin.compute_effsize(p, b, paired=False, eftype="cohen"), abs=1e-12)
    # hand: b = [0, 2], p = [2, 4]: means 1 and 3, both SDs sqrt(2) -> d = 2 / sqrt(2)
    assert I.cohens_d([0, 2], [2, 4]) == pytest.approx(np.sqrt(2))
    with pytest.raises(ValueError, match=">= 2 scores per group"):
        I.cohens_d([1], [1, 2])


def test_d_pooled_uses_the_concatenation_of_all_dimensions():
    inst = I.synthetic_instances(n_models=2, n_prompts=5, n_runs=3, dimensions=DIMS, seed=4)
    runs = I.layer1_runs(I.panel_scores(inst))
    dp = I.d_pooled(runs).set_index("model")
    for m, t in runs.groupby("model"):
        b = t.loc[t.condition == "baseline", "panel"].to_numpy()
        p = t.loc[t.condition == "with_system_prompt", "panel"].to_numpy()
        sp = np.sqrt(((b.size - 1) * b.var(ddof=1) + (p.size - 1) * p.var(ddof=1)) / (b.size + p.size - 2))
        assert dp.loc[m, "d_pooled"] == pytest.approx((p.mean() - b.mean()) / sp)
        assert dp.loc[m, "n_baseline"] == 4 * 5 * 3


def test_paired_tests_against_scipy():
    inst = I.synthetic_instances(n_models=3, n_prompts=6, n_runs=4, dimensions=DIMS, seed=8, missing_rate=0.3)
    runs = I.layer1_runs(I.panel_scores(inst))
    res = I.paired_tests(runs)
    w = runs.pivot_table(index=["model", "dimension", "prompt_id", "run"], columns="condition", values="panel").dropna()
    t = stats.ttest_rel(w["with_system_prompt"], w["baseline"])
    assert res["pooled"]["t"].iloc[0] == pytest.approx(t.statistic)
    assert res["pooled"]["n_pairs"].iloc[0] == len(w)
    sub = w.xs("complementarity", level="dimension")
    ref = stats.wilcoxon(sub["with_system_prompt"], sub["baseline"])
    row = res["per_dimension"].set_index("dimension").loc["complementarity"]
    assert row["p"] == pytest.approx(ref.pvalue) and row["p_bonferroni"] == pytest.approx(min(1, ref.pvalue * 4))
    pm = res["per_model"].set_index("model").loc["model_01"]
    sub = w.xs("model_01", level="model")
    assert pm["t"] == pytest.approx(stats.ttest_rel(sub["with_system_prompt"], sub["baseline"]).statistic)
    assert (res["per_model"]["p_bonferroni"] <= 1).all()


def test_irr_on_complete_triples_only():
    rows = []
    triples = {0: [2, 2, 2], 1: [0, 1, 2], 2: [3, 3, 2], 3: [1, np.nan, 1]}  # run 3 has two judges
    for r, sc in triples.items():
        for j, s in enumerate(sc):
            rows.append(("m", "baseline", 1, "cognitive_forcing", "cf_01", r, f"judge_{j}", s))
    irr = I.irr_complete_triples(_table(rows)).set_index("dimension")
    row = irr.loc["cognitive_forcing"]
    assert row["n"] == 3 and row["n_excluded"] == 1
    assert row["exact"] == pytest.approx(100 / 3) and row["adjacent"] == pytest.approx(200 / 3)
    assert row["spread"] == pytest.approx((0 + 2 + 1) / 3)
    assert irr.loc["POOLED", "n"] == 3


def test_prompt_level_correlation_pairs_by_position():
    rows = []
    for cond in ("baseline", "with_system_prompt"):
        for p in range(6):
            a = (p % 4) if cond == "baseline" else 3 - (p % 4) * 0.5
            for d, s in (("cognitive_forcing", a), ("complementarity", a), ("anti_sycophancy", 3 - a)):
                rows.append(("m", cond, 1, d, f"{d[:2]}{p}", 0, "judge_0", float(np.floor(s))))
    runs = I.layer1_runs(I.panel_scores(_table(rows)))
    corr, n = I.prompt_level_correlation(runs)
    assert n == 12
    assert corr.loc["cognitive_forcing", "complementarity"] == pytest.approx(1.0)
    assert corr.loc["cognitive_forcing", "anti_sycophancy"] < 0


# ---------------------------------------------------------------- loading and validation


def _results_file(model, variant, stamp, score_shift=0):
    run = lambda k, scores: {
        "run": k,
        "score": int(np.median([s for s in scores if s >= 0])) if any(s >= 0 for s in scores) else -1,
        "individual_scores": [s for s in scores if s >= 0],
        "individual_results": [{"score": s, "judge_model": f"J{j}"} for j, s in enumerate(scores)],
    }
    return {
        "model_name": model,
        "variant": variant,
        "timestamp": stamp,
        "layer1": {
            "cognitive_forcing": [
                {"prompt_id": "cf_02", "runs": [run(0, [1 + score_shift, 1, 2]), run(1, [3, -1, 2])]},
                {"prompt_id": "cf_01", "runs": [run(0, [-1, -1, -1])]},
            ]
        },
        "layer2": [{"scenario_id": "teaching_moment", "average_score": 1.4, "behavior_pass_rate": 0.5}],
        "layer3": [{"prompt_id": "ar_01", "score": 2, "individual_scores": [2, 2, 3]}],
    }


def test_load_hf_results_json(tmp_path):
    (tmp_path / "a_old.json").write_text(json.dumps(_results_file("GLM 5.1", "baseline", "20260101_000000", 1)))
    (tmp_path / "a_new.json").write_text(json.dumps(_results_file("GLM 5.1", "baseline", "20260301_000000")))
    (tmp_path / "b.json").write_text(json.dumps(_results_file("GLM 5.1", "with_system_prompt", "20260301_000000")))
    (tmp_path / "other.json").write_text(json.dumps(_results_file("Llama 3.1 70B", "baseline", "20260301_000000")))
    inst = I.load_hf_results(tmp_path)
    assert set(inst["model"]) == {"GLM 5.1"} and set(inst["condition"]) == {"baseline", "with_system_prompt"}
    l1 = inst[(inst.layer == 1) & (inst.condition == "baseline")]
    assert len(l1) == 9 and l1["score"].isna().sum() == 4
    assert l1.loc[(l1.prompt_id == "cf_02") & (l1.run == 0) & (l1.judge == "J0"), "score"].item() == 1.0  # newest file
    panel = I.panel_scores(inst)
    b1 = panel[(panel.layer == 1) & (panel.condition == "baseline")]
    assert b1["panel"].tolist() == [1.0, 2.0]  # cf_01 run 0 had no valid judge: dropped
    assert b1["prompt_position"].tolist() == [0, 0]
    assert panel.loc[panel.layer == 2, "panel"].tolist() == [1.4, 1.4]
    assert panel.loc[panel.layer == 3, "panel"].tolist() == [2.0, 2.0]


def test_load_hf_results_tidy_table_and_missing_folder(tmp_path):
    syn = I.synthetic_instances(n_models=1, n_prompts=2, n_runs=1, dimensions=DIMS, seed=0)
    syn.to_csv(tmp_path / "tidy.csv", index=False)
    got = I.load_hf_results(tmp_path)
    assert len(got) == len(syn)
    with pytest.raises(FileNotFoundError, match="per-instance results folder not found"):
        I.load_hf_results(tmp_path / "nope")


@pytest.mark.parametrize(
    "mutate, match",
    [
        (lambda t: t.drop(columns="judge"), "missing column"),
        (lambda t: t.assign(condition="treated"), "column 'condition'"),
        (lambda t: t.assign(layer=4), "column 'layer'"),
        (lambda t: t.assign(score=4.0), "column 'score'"),
        (lambda t: t.assign(score=1.5), "column 'score'"),
        (lambda t: pd.concat([t, t.iloc[:1]]), "duplicate judge score"),
        (lambda t: t.iloc[:0], "no rows"),
    ],
)
def test_validate_instances_errors(mutate, match):
    syn = I.synthetic_instances(n_models=1, n_prompts=2, n_runs=1, dimensions=DIMS, seed=0)
    with pytest.raises(ValueError, match=match):
        I.validate_instances(mutate(syn))


def test_synthetic_table_has_the_paper_shape_and_the_pipeline_runs():
    syn = I.synthetic_instances(seed=0)
    assert len(syn) == 7 * 2 * 200 * 5 * 3 == 42_000
    assert list(syn.columns) == list(I.SCHEMA)
    small = I.synthetic_instances(n_models=2, n_prompts=4, n_runs=2, dimensions=DIMS, seed=0, missing_rate=0.1)
    res = I.run_instance_pipeline(small, W, n_boot=200, seed=42, diag_n_boot=100, diag_seed=0)
    assert set(res) >= {"pwi", "d_pooled", "diagnostics", "tests", "irr", "correlation", "layers", "completeness"}
    assert len(res["pwi"]) == 4 and res["irr"]["dimension"].iloc[-1] == "POOLED"


def test_prompt_level_correlation_pairs_by_position_not_rank():
    """A prompt missing from one dimension must not shift the pairing of the others (hand case: r = 1)."""
    from compendium.pwb import instances as inst

    rows = []
    for k, v in enumerate([0.0, 1.0, 2.0, 3.0, 1.5], start=1):
        rows.append(
            {
                "model": "m",
                "condition": "baseline",
                "dimension": "cognitive_forcing",
                "prompt_id": f"cf_{k:02d}",
                "panel": v,
            }
        )
        if k != 2:  # complementarity lacks its 2nd prompt entirely
            rows.append(
                {
                    "model": "m",
                    "condition": "baseline",
                    "dimension": "complementarity",
                    "prompt_id": f"co_{k:02d}",
                    "panel": 2 * v + 1,
                }
            )
    r, n = inst.prompt_level_correlation(pd.DataFrame(rows))
    assert n == 4
    assert r.loc["cognitive_forcing", "complementarity"] == pytest.approx(1.0)


# ---------------------------------------------------------------- the anomaly policy on results files


def _write(tmp_path, name, data):
    (tmp_path / name).write_text(json.dumps(data))
    return tmp_path / name


def test_a_layer1_checkpoint_beside_a_complete_file_is_skipped_and_alone_is_refused(tmp_path):
    full = _results_file("GLM 5.1", "baseline", "20260301_000000")
    ckpt = {k: v for k, v in full.items() if k not in ("layer2", "layer3")}
    ckpt["timestamp"] = "20260302_000000"  # newer, but incomplete: the runner's Layer-1 checkpoint
    _write(tmp_path, "a_full.json", full)
    _write(tmp_path, "a_ckpt.json", ckpt)
    _write(tmp_path, "b.json", _results_file("GLM 5.1", "with_system_prompt", "20260301_000000"))
    assert set(I.load_hf_results(tmp_path)["layer"]) == {1, 2, 3}
    (tmp_path / "a_full.json").unlink()
    with pytest.raises(ValueError) as e:
        I.load_hf_results(tmp_path)
    msg = str(e.value)
    assert msg.startswith(f"{tmp_path / 'a_ckpt.json'}: field layer2: missing") and "GLM 5.1 / baseline" in msg
    assert msg.count(".") <= 3 and "\n" not in msg  # one sentence


@pytest.mark.parametrize(
    "mutate, field, words",
    [
        (lambda d: d.update(layer1="oops"), "layer1", "expected an object of dimensions"),
        (lambda d: d["layer1"].update(cognitive_forcing=["oops"]), "layer1.cognitive_forcing[0]", "prompt record"),
        (lambda d: d["layer1"]["cognitive_forcing"][0].update(runs="x"), "layer1.cognitive_forcing[0].runs", "list"),
        (lambda d: d["layer1"]["cognitive_forcing"][0]["runs"].__setitem__(1, "x"), ".runs[1]", "expected a record"),
        (lambda d: d["layer1"]["cognitive_forcing"][0]["runs"][0].update(score="3"), ".runs[0].score", "found str"),
        (lambda d: d["layer1"]["cognitive_forcing"][0]["runs"][0].update(score=True), ".runs[0].score", "found bool"),
        (lambda d: d["layer1"]["cognitive_forcing"][0]["runs"][0].update(score=1e300), ".runs[0].score", "absurd"),
        (lambda d: d["layer1"]["cognitive_forcing"][0]["runs"][0].update(score=5), ".runs[0].score", "outside [-1, 3]"),
        (
            lambda d: d["layer1"]["cognitive_forcing"][0]["runs"][0].update(score=-2),
            ".runs[0].score",
            "outside [-1, 3]",
        ),
        (
            lambda d: d["layer1"]["cognitive_forcing"][0]["runs"][0].update(individual_scores=[1, float("nan"), 2]),
            ".runs[0].individual_scores[1]",
            "non-finite",
        ),
        (
            lambda d: d["layer1"]["cognitive_forcing"][0]["runs"][0].update(individual_scores=[1, 2e6, 2]),
            ".runs[0].individual_scores[1]",
            "absurd",
        ),
        (
            lambda d: d["layer1"]["cognitive_forcing"][0]["runs"][0].update(individual_scores="1,2"),
            "individual_scores",
            "list",
        ),
        (lambda d: d.update(layer2={"a": 1}), "layer2", "list of scenario records"),
        (lambda d: d["layer2"][0].update(average_score=float("inf")), "layer2[0].average_score", "non-finite"),
        (lambda d: d["layer2"][0].update(average_score=7), "layer2[0].average_score", "outside [0, 3]"),
        (lambda d: d["layer2"][0].update(behavior_pass_rate="high"), "layer2[0].behavior_pass_rate", "number"),
        (lambda d: d.update(layer3=[3]), "layer3[0]", "expected a record"),
        (lambda d: d["layer3"][0].update(score=1e7), "layer3[0].score", "absurd"),
        (lambda d: d.update(model_name=["GLM"]), "model_name", "expected text"),
    ],
)
def test_malformed_results_are_refused_in_one_sentence_naming_file_and_field(tmp_path, mutate, field, words):
    data = _results_file("GLM 5.1", "baseline", "20260301_000000")
    mutate(data)
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(data))  # NaN / Infinity are written as the JSON tokens Python's parser accepts
    with pytest.raises(ValueError) as e:
        I.load_hf_results(tmp_path)
    msg = str(e.value)
    assert msg.startswith(f"{f}: field ") and field in msg and words in msg, msg
    assert "\n" not in msg and msg.endswith(".")


def test_json_nested_too_deep_is_one_sentence_not_a_recursion_error(tmp_path):
    (tmp_path / "deep.json").write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(ValueError, match=r"deep\.json: JSON nested too deep"):
        I.load_hf_results(tmp_path)
    (tmp_path / "deep.json").write_text('{"model_name": "GLM 5.1", ')
    with pytest.raises(ValueError, match=r"deep\.json: not valid JSON \(.* at line 1, column"):
        I.load_hf_results(tmp_path)


def test_judge_values_4_and_2_5_are_tolerated_listed_and_negative_stored_scores_dropped(tmp_path):
    data = _results_file("GLM 5.1", "baseline", "20260301_000000")
    runs = data["layer1"]["cognitive_forcing"][0]["runs"]
    runs[0].update(individual_scores=[2, 4, 3], score=3)
    runs[1].update(individual_scores=[2.5, 2, 2], score=2)
    data["layer1"]["cognitive_forcing"][0].pop("prompt_id")
    for r in runs:
        r.pop("individual_results")
    _write(tmp_path, "a.json", data)
    inst = I.load_hf_results(tmp_path)
    an = I.judge_anomalies(inst)
    assert {"above 3", "not an integer"} <= set(an["kind"])
    assert an.loc[an["kind"] == "above 3", "value"].tolist() == [4.0]
    panel = I.panel_scores(inst)
    # the stored scores count (3 and 2); cf_01's run with stored -1 (all judges failed) is dropped
    assert panel.loc[panel["layer"] == 1, "panel"].tolist() == [3.0, 2.0]


def test_synthetic_snapshot_has_the_release_layout_and_its_anomalies(tmp_path):
    from compendium.data import synthetic_pwb

    s = synthetic_pwb.write_snapshot(tmp_path, seed=1, size="small")
    files = sorted((tmp_path / "results").glob("*.json"))
    assert len(files) == 14 and [f.name for f in files] == sorted(s["files"])
    d = json.loads(files[0].read_text())
    assert set(d) == {"model_id", "model_name", "variant", "timestamp", "layer1", "layer2", "layer3"}
    p = next(iter(d["layer1"].values()))[0]
    assert {"prompt_id", "prompt", "runs", "score", "individual_scores", "mean_score", "n_runs"} <= set(p)
    assert {"run", "response", "score", "individual_scores"} <= set(p["runs"][0])
    assert {"scenario_id", "turns", "average_score", "behavior_pass_rate"} <= set(d["layer2"][0])
    for r in (x for ps in d["layer1"].values() for q in ps for x in q["runs"]):
        vals = r["individual_scores"]
        assert r["score"] == (int(np.median(vals)) if vals else -1)  # JudgePanel's int(median)
    inst = I.load_hf_results(tmp_path / "results")
    assert inst["model"].nunique() == 7 and set(inst["layer"]) == {1, 2, 3}
    kinds = set(I.judge_anomalies(inst)["kind"])
    assert {"above 3", "not an integer"} <= kinds
    qwen = inst[(inst["model"] == "Qwen3.5 27B") & (inst["condition"] == "baseline")]
    assert "appropriate_reliance" not in set(qwen["dimension"])
    again = synthetic_pwb.write_snapshot(tmp_path / "again", seed=1, size="small")
    assert again["judge_values"] == s["judge_values"]
    assert (tmp_path / "again" / "results" / files[0].name).read_bytes() == files[0].read_bytes()  # seeded


@pytest.mark.parametrize(
    "mutate, field, words",
    [
        (lambda d: d["layer2"][0].update(scenario_id={"a": 1}), "layer2[0].scenario_id", "expected text, found dict"),
        (lambda d: d["layer3"][0].update(prompt_id=[1]), "layer3[0].prompt_id", "expected text, found list"),
        (lambda d: d.pop("model_name"), "model_name", "missing"),
        (lambda d: d.update(variant="prompted"), "variant", "expected one of ['baseline', 'with_system_prompt']"),
        (lambda d: d.update(variant=None), "variant", "missing"),
    ],
)
def test_record_ids_and_the_file_key_of_the_wrong_type_are_refused_not_read_or_skipped(tmp_path, mutate, field, words):
    """A record id of the wrong type was read as its repr, a file without a usable model_name / variant was
    skipped silently (and the stage failed later in Cohen's d): both are refused naming file and field."""
    data = _results_file("GLM 5.1", "baseline", "20260301_000000")
    mutate(data)
    _write(tmp_path, "bad.json", data)
    _write(tmp_path, "ok.json", _results_file("GLM 5.1", "with_system_prompt", "20260301_000000"))
    with pytest.raises(ValueError) as e:
        I.load_hf_results(tmp_path)
    msg = str(e.value)
    assert msg.startswith(f"{tmp_path / 'bad.json'}: field {field}: ") and words in msg, msg
    assert "\n" not in msg and msg.endswith(".")


def test_a_null_layer_is_a_missing_layer_skipped_and_counted_beside_a_complete_file_refused_alone(tmp_path):
    """``"layer2": null`` was read as a complete file with no scenarios (the Layer-2 effects came out NaN);
    the anomaly policy's rule for a file without a layer now applies to it, and every file the rule skips
    is counted in the table's ``attrs["skipped_files"]``."""
    ckpt = _results_file("GLM 5.1", "baseline", "20260401_000000")
    ckpt["layer2"] = None
    _write(tmp_path, "a_ckpt.json", ckpt)
    _write(tmp_path, "a_full.json", _results_file("GLM 5.1", "baseline", "20260301_000000"))
    _write(tmp_path, "b.json", _results_file("GLM 5.1", "with_system_prompt", "20260301_000000"))
    inst = I.load_hf_results(tmp_path)
    assert inst.attrs["skipped_files"] == [{"file": str(tmp_path / "a_ckpt.json"), "missing": "layer2"}]
    assert set(inst.loc[inst["layer"] == 2, "condition"]) == {"baseline", "with_system_prompt"}
    (tmp_path / "a_full.json").unlink()
    with pytest.raises(ValueError) as e:
        I.load_hf_results(tmp_path)
    assert str(e.value).startswith(f"{tmp_path / 'a_ckpt.json'}: field layer2: missing"), str(e.value)
    (tmp_path / "a_ckpt.json").unlink()
    _write(tmp_path, "a_full.json", _results_file("GLM 5.1", "baseline", "20260301_000000"))
    assert I.load_hf_results(tmp_path).attrs["skipped_files"] == []


def test_d_pooled_without_the_runs_of_a_condition_names_the_model_and_condition():
    """A model whose Layer-1 runs of one condition are absent stopped the stage with a bare "Cohen's d
    needs >= 2 scores per group, got 0 and 2"; the message now says which model and condition."""
    runs = I.layer1_runs(I.panel_scores(_constant_model({"cognitive_forcing": 2}, model="GLM 5.1")))
    with pytest.raises(ValueError) as e:
        I.d_pooled(runs)
    msg = str(e.value)
    assert msg.startswith("d_pooled: model 'GLM 5.1' has 0 Layer-1 run score(s) in condition with_system_prompt"), msg
    assert "results file" in msg and "\n" not in msg


def _small_release(tmp_path, seed=1):
    from compendium.data import synthetic_pwb

    synthetic_pwb.write_snapshot(tmp_path, seed=seed, size="small")
    return tmp_path / "results"


def _one_line(msg: str) -> None:
    assert "\n" not in msg and msg.endswith("."), msg


def test_a_release_missing_a_cell_stops_at_loading_naming_model_condition_and_folder(tmp_path):
    """A release without one model's baseline file went through loading and the 10,000-draw bootstrap and
    stopped in d_pooled ("model 'GLM 5.1' has 0 Layer-1 run score(s) in condition baseline ... is its baseline
    results file missing?"), without the whole model in the register (a bare KeyError ('GLM 5.1',
    'baseline')). The stage's loader now refuses it first, in one sentence naming the folder, the model and
    the condition, the file of the other condition, and the recovery (anomaly policy)."""
    from compendium import pwb
    from compendium.data.anomalies import DataAnomalyError, policy_table
    from compendium.pipeline.params import study_params

    d = _small_release(tmp_path)
    (base,) = d.glob("*GLM-5.1*_baseline_*.json")
    (prompted,) = d.glob("*GLM-5.1*_with_system_prompt_*.json")
    base.unlink()
    assert set(I.load_hf_results(d)["model"]) >= {"GLM 5.1"}  # the loader alone reads what is there
    params = study_params("pwb", n_boot=20, diag_n_boot=20)
    with pytest.raises(DataAnomalyError) as e:
        pwb.Inputs.load(params, instances_dir=d)  # the stage: refused before any computation
    msg = str(e.value)
    assert msg.startswith(f"{d}: no results file for GLM 5.1 / baseline (its with_system_prompt file, "), msg
    assert prompted.name in msg and "both conditions of all 7 models" in msg and "pwb.instances_dir" in msg
    _one_line(msg)
    prompted.unlink()  # the whole model
    with pytest.raises(DataAnomalyError, match=r"no results file for GLM 5\.1 / baseline, GLM 5\.1 / with_system"):
        I.load_hf_results(d, complete=True)
    pol = policy_table()
    assert list(pol.loc[pol["case"].str.contains("without any results file"), "action"]) == ["refused"]


def test_a_missing_cell_under_data_names_the_acquisition_as_the_recovery(tmp_path, monkeypatch):
    from compendium.data.anomalies import DataAnomalyError
    from compendium.pipeline import paths

    monkeypatch.setattr(paths, "DATA", tmp_path / "data")
    d = _small_release(tmp_path / "data" / "pwb")
    next(d.glob("*gpt-oss*_with_system_prompt_*.json")).unlink()
    with pytest.raises(DataAnomalyError) as e:
        I.load_hf_results(d, complete=True, verify=False)
    msg = str(e.value)
    assert msg.startswith(f"{d}: no results file for GPT-oss 120B / with_system_prompt"), msg
    assert "`python -m compendium.data.acquire pwb`" in msg and "acquired/pwb/manifest.json" in msg
    _one_line(msg)


def test_files_of_other_models_are_skipped_and_counted(tmp_path):
    """The authors' results folder also holds their earlier (v1) models; their loader keeps its seven
    (V2_MODELS). Skipped as before, and now counted (attrs["other_model_files"])."""
    _write(tmp_path, "a.json", _results_file("GLM 5.1", "baseline", "20260301_000000"))
    _write(tmp_path, "b.json", _results_file("GLM 5.1", "with_system_prompt", "20260301_000000"))
    _write(tmp_path, "v1.json", _results_file("Llama 3.1 70B", "baseline", "20260201_000000"))
    inst = I.load_hf_results(tmp_path)
    assert set(inst["model"]) == {"GLM 5.1"}
    assert inst.attrs["other_model_files"] == [{"file": str(tmp_path / "v1.json"), "model": "Llama 3.1 70B"}]
    assert set(I.load_hf_results(tmp_path, models=None)["model"]) == {"GLM 5.1", "Llama 3.1 70B"}


@pytest.mark.parametrize(
    "stray",
    [
        {"models": ["GLM 5.1"], "generated": "20260419"},  # a summary-like JSON
        {"settings": {"runs_per_prompt": 5}, "judges": []},  # a config-like JSON
        [{"model_name": "GLM 5.1"}],  # a list
    ],
)
def test_a_json_file_that_is_not_a_results_file_is_refused_not_skipped(tmp_path, stray):
    """The hub's results/ and the authors' runner hold results files only (compendium.data.pwbresults), so
    a stray JSON file in the folder is refused, naming it, rather than skipped out of sight."""
    _write(tmp_path, "a.json", _results_file("GLM 5.1", "baseline", "20260301_000000"))
    _write(tmp_path, "b.json", _results_file("GLM 5.1", "with_system_prompt", "20260301_000000"))
    _write(tmp_path, "summary.json", stray)
    with pytest.raises(ValueError) as e:
        I.load_hf_results(tmp_path)
    msg = str(e.value)
    assert msg.startswith(f"{tmp_path / 'summary.json'}: field "), msg
    _one_line(msg)
