"""compendium.pwb.summary: every number and phrase of the PWB chapter's prose, phrased from the chapter's own
computation (``compendium.pwb.build``), checked against the released files read independently (pandas/json
on the raw files, hand formulas) and against the chapter's own text; the appendix's (compendium.pwb.benchmark);
and compendium.pwb.values (values.json entries and result tables) and compendium.pwb.views (display copies)
from the same result."""

import json
import re

import numpy as np
import pandas as pd
import pytest

import compendium.data as data
from compendium import pwb
from compendium.pipeline import paths
from compendium.pipeline.params import study_params
from compendium.pwb import benchmark as bench, instances as inst, sections, summary, values, views

OUT = paths.PWB / "analysis_output"


@pytest.fixture(scope="module")
def result():
    """The chapter's one computation at the default parameters, as notebooks/10_pwb.md runs it."""
    params = study_params("pwb")
    return pwb.build(params, pwb.Inputs.load(params))


@pytest.fixture(scope="module")
def s(result):
    return summary.summary(result)


def _glued(md_path):
    text = md_path.read_text()
    return set(re.findall(r"\{glue:(?:text|md)\}`([a-z0-9_]+)", text))


def test_every_name_the_chapter_quotes_comes_from_summary(s):
    quoted = _glued(paths.ROOT / "notebooks" / "10_pwb.md")
    assert quoted - set(s) - set(summary.VERDICT_NAMES) == set()
    # table captions glue some names inside the code cells: they too must come from summary
    code_quoted = set(
        re.findall(
            r"\{glue:text\}`([a-z0-9_]+)",
            "".join(
                re.findall(r"```\{code-cell\}.*?```", (paths.ROOT / "notebooks" / "10_pwb.md").read_text(), flags=re.S)
            ),
        )
    )
    assert code_quoted and code_quoted - set(s) == set()


def test_every_name_the_appendix_quotes_comes_from_benchmark_summary():
    quoted = _glued(paths.ROOT / "notebooks" / "11_pwb_benchmark.md")
    config, rubrics = data.load_pwb_config(), data.load_pwb_yaml("rubrics/dimension_rubrics.yaml")
    inv = bench.prompt_inventory(
        {f: data.load_pwb_yaml(f"prompts/layer1_behavioral/{f}.yaml") for f in bench.LAYER1_FILES},
        [data.load_pwb_yaml(f"prompts/layer2_scenarios/{f}.yaml") for f in bench.LAYER2_FILES],
        data.load_pwb_yaml("prompts/layer3_adversarial/stress_tests.yaml"),
    )
    sp = data.load_pwb_system_prompt()
    b = bench.benchmark_summary(bench.dimension_table(rubrics, config), inv, sp)
    assert quoted == set(b)
    # independent: the prompt files themselves
    l1_files = sorted((paths.PWB / "prompts" / "layer1_behavioral").glob("*.yaml"))
    assert set(bench.LAYER1_FILES) == {f.stem for f in l1_files}
    assert set(bench.LAYER2_FILES) == {f.stem for f in (paths.PWB / "prompts" / "layer2_scenarios").glob("*.yaml")}
    assert b["pwbb_n_l2"] == len(bench.LAYER2_FILES)
    assert b["pwbb_sp_words"] == len((paths.PWB / "system_prompt.md").read_text().split())
    assert b["pwbb_w_sum"] == pytest.approx(sum(w for w in config["scoring"]["weights"].values() if w > 0))
    v = bench.benchmark_values(b)
    assert v["pwb.benchmark.n_layer1_prompts"] == b["pwbb_n_l1"] == 10 * int(b["pwbb_per_dim"])


def test_counts_and_full_precision_means_from_the_raw_csvs(s):
    ds = pd.read_csv(OUT / "dimension_scores.csv")
    assert s["pwb_n_models"] == ds["Model"].nunique() == 7 and s["pwb_n_models_word"] == "Seven"
    assert s["pwb_n_cells"] == len(ds) == 140 and s["pwb_n_dims"] == ds["Dimension"].nunique()
    dd = pd.read_csv(OUT / "dimension_diagnostics.csv").set_index("Dimension")
    assert s["pwb_dim_ratio"] == pytest.approx(dd["Delta"].max() / dd["Delta"].min(), rel=1e-9)
    assert s["pwb_dim_complementarity_delta"] == pytest.approx(dd.loc["complementarity", "Delta"], abs=1e-9)
    assert s["pwb_dim_cognitive_forcing_baseline"] == pytest.approx(dd.loc["cognitive_forcing", "Baseline"], abs=1e-9)
    ls = pd.read_csv(OUT / "layer_summary.csv")
    l1 = ls[ls["Layer"] == "Layer 1"].set_index("Variant")
    assert s["pwb_l1_base"] == pytest.approx(l1.loc["baseline", "Mean"], abs=1e-9)
    assert s["pwb_l1_np"] == int(l1.loc["with_system_prompt", "N"])
    irr = pd.read_csv(OUT / "irr_table.csv").set_index("Dimension")
    assert s["pwb_irr_ut"] == irr.loc["uncertainty_transparency", "exact"]
    assert s["pwb_irr_full_n"] == irr.loc["POOLED", "N"]
    below = sorted(d for d in irr.index if d != "POOLED" and irr.loc[d, "qwk"] < 0.70)
    assert s["pwb_irr_below_n"] == {3: "three", 4: "four"}[len(below)]
    assert sorted(s["pwb_irr_below_names"].split(", ")) == sorted(views.dim_label(d) for d in below)


def test_an_exact_reconstruction_reads_largest_difference_0(s, result):
    """Issue 33: the chapter printed "largest difference 0.0e+00"; a difference that is exactly zero reads "0"."""
    diff = result.aggregates.checks["abs_diff"].max()
    assert diff == 0.0  # the released files' full-precision means are reproduced exactly
    assert s["pwb_recon_maxdiff"] == "0"
    text = (paths.ROOT / "notebooks" / "10_pwb.md").read_text()
    assert "{glue:text}`pwb_recon_maxdiff`" in text and "pwb_recon_maxdiff:" not in text  # no format spec of its own


def test_pwi_phrases(s, result):
    pwi = pd.read_csv(OUT / "pwi_scores.csv")
    t2 = result.aggregates.t2.set_index("model")
    ours = {
        (m, c): round(float(t2.loc[m, c if c == "baseline" else "prompted"]), 1)
        for m in t2.index
        for c in ("baseline", "prompted")
    }
    pub = {(r["Model"], "baseline" if r["Variant"] == "baseline" else "prompted"): r["PWI"] for _, r in pwi.iterrows()}
    off = [k for k in ours if ours[k] != pub[k]]
    md = s["pwb_pwi_off_md"].data.replace("\\", "")
    assert md.startswith(["No", "One", "Two", "Three"][len(off)] + " published PWI")
    assert "(" + " and ".join(f"{m} {c}" for m, c in off) + ")" in md
    gaps = [abs(t2.loc[m, c] - pub[(m, c)]) for m, c in ours]
    assert s["pwb_pwi_maxdiff"] == pytest.approx(max(gaps)) and s["pwb_n_within_tol"] == sum(g <= 0.1 for g in gaps)
    assert s["pwb_mean_delta"] == pytest.approx(
        np.mean([ours[(m, "prompted")] - ours[(m, "baseline")] for m in t2.index])
    )
    pub_base = [v for (m, c), v in pub.items() if c == "baseline"]
    assert (s["pwb_pub_base_min"], s["pwb_pub_base_max"]) == (min(pub_base), max(pub_base))


def test_negative_cells_are_the_released_negative_d(s):
    es = pd.read_csv(OUT / "effect_sizes.csv")
    neg = es[es["Prompted_mean"] < es["Baseline_mean"]]
    named = {
        (part.split(" on ")[0], a) for part in s["pwb_neg_cells"].split("; ") for a in part.split(" on ")[1].split(", ")
    }
    assert named == {(r["Model"], views.dim_label(r["Dimension"])) for _, r in neg.iterrows()}


def test_correlation_phrases(s):
    c = pd.read_csv(OUT / "correlation_matrix.csv", index_col=0).to_numpy()
    upper = c[np.triu_indices_from(c, k=1)]
    assert s["pwb_corr_n_above"] == int((np.abs(upper) > 0.70).sum())
    assert s["pwb_corr_second"] == pytest.approx(np.sort(upper)[-2])


def test_fourth_judge_phrases_from_the_jsonl(s):
    lines = [
        json.loads(x) for x in (paths.PWB / "pilot" / "fourth_judge_scores.jsonl").read_text().splitlines() if x.strip()
    ]
    ids = [r["item_id"] for r in lines]
    assert s["pwb_fj_records"] == len(lines) and s["pwb_fj_items"] == len(set(ids))
    dup = sorted({i for i in ids if ids.count(i) > 1})
    assert s["pwb_fj_dup_n"] == len(dup) and s["pwb_fj_dup_records"] == sum(ids.count(i) for i in dup)
    assert s["pwb_fj_dup_ids"] == ", ".join(map(str, dup[:-1])) + " and " + str(dup[-1])
    first = {}
    for r in lines:
        if 0 <= r["claude_score"] <= 3:
            first.setdefault(r["item_id"], r)
    assert s["pwb_fj_n"] == len(first) == 500
    exact = np.mean([r["claude_score"] == r["panel_median"] for r in first.values()]) * 100
    assert s["pwb_fj_exact"] == pytest.approx(exact)


def test_paper_quotes_and_hand_worked_numbers(s):
    assert s["pwb_dz_check"] == pytest.approx(54.11 / np.sqrt(6972))
    assert s["pwb_pilot_n"] == 30 and s["pwb_stale_n_cells"] == 70
    assert s["pwb_stale_gpt_cf_printed"] == 1.55
    assert s["pwb_sens_n_entries"] == 20 and 0 <= s["pwb_sens_n_match"] <= 20


def test_effect_interval_phrases(s, result):
    e = result.effects
    es = pd.read_csv(OUT / "effect_sizes.csv")
    assert s["pwb_cell_d_n"] == len(es)
    lo, hi = e.cell_ci["ci_lower"], e.cell_ci["ci_upper"]
    assert s["pwb_cell_d_n_pos"] == (lo > 0).sum() and s["pwb_cell_d_n_neg"] == (hi < 0).sum()
    assert s["pwb_cell_d_n_pos"] + s["pwb_cell_d_n_zero"] + s["pwb_cell_d_n_neg"] == len(es)
    assert (es["Cohens_d"] < 0).sum() >= s["pwb_cell_d_n_neg"]
    d = e.d_ci.set_index("model")
    assert (
        s["pwb_dci_min_lower"] == d["ci_lower"].min()
        and d.loc[s["pwb_dci_min_model"], "ci_lower"] == d["ci_lower"].min()
    )
    assert s["pwb_dci_halfwidth"] == pytest.approx(((d["ci_upper"] - d["ci_lower"]) / 2).max())
    m = views.d_interval_matrix(e.cell_ci, e.dim_ci)
    dc = e.dim_ci.set_index("dimension")
    assert (
        m.set_index("dimension")
        .loc["complementarity", "all models"]
        .startswith(f"{dc.loc['complementarity', 'd_pooled']:.2f} [")
    )
    assert s["pwb_dim_d_max"] == dc["d_pooled"].max() and s["pwb_dim_d_min"] == dc["d_pooled"].min()
    assert s["pwb_dim_d_min_name"] == views.dim_label(dc["d_pooled"].idxmin(), long=True)
    assert list(m["dimension"]) == list(pwb.DIMENSIONS)
    r = e.cell_ci.iloc[0]
    assert (
        m.set_index("dimension").loc[r["dimension"], r["model"]]
        == f"{r['d']:.2f} [{r['ci_lower']:.2f}, {r['ci_upper']:.2f}]"
    )


def test_stage_values_and_tables(result, s):
    v = values.stage_values(result)
    assert v["pwb.fourth_judge.n_items"] == s["pwb_fj_items"]
    assert v["pwb.restore_grid.ut_0.05.ar_0.05"] == pytest.approx(s["pwb_grid_005"])
    assert v["pwb.data_level.instances_present"] == 0 and v["pwb.inst.anomalies.n"] == 0
    assert "pwb.agg.delta.mean" in v and not any(k.startswith("pwb.inst.pwi.") for k in v)
    t = values.tables(result)
    assert {"cells", "table2_pwi", "cell_d_intervals", "d_pooled_intervals", "paper_smaller_points"} <= set(t)
    assert {"data_levels", "register_slips"} <= set(t) and all(isinstance(x, pd.DataFrame) for x in t.values())
    # a table whose index carries data has it as its first column, under the index's name
    delta = result.aggregates.matrices["delta"]
    assert list(t["model_dimension_delta"].columns) == [delta.index.name, *delta.columns]
    assert t["model_dimension_delta"].iloc[:, 1:].equals(delta.reset_index(drop=True))


def test_a_table_with_its_index_as_a_column_writes_the_bytes_of_the_indexed_table(result, tmp_path):
    """publish writes tables without their index: the index becomes a first column whose CSV is the indexed
    table's, byte for byte (an unnamed index under an empty header, float column labels as the format prints)."""
    from compendium.pipeline.results import write_table

    for name, df in (
        ("grid", result.sensitivity.grid),  # float labels, a named index
        ("corr", result.inputs.released["correlation"]),  # an unnamed index
        ("matrix", result.aggregates.matrices["prompted"]),
    ):
        a = write_table("x", name + "_indexed", df, index=True, root=tmp_path).read_bytes()
        b = write_table("x", name, values._with_index(df), root=tmp_path).read_bytes()
        assert a == b, name


def test_the_chapter_values_and_the_register_agree_on_every_shared_key(result):
    """publish raises on a key the chapter's values and the register give differently: at the reference
    parameters they share keys (the leaderboard, the samples) and agree on each."""
    from compendium.pipeline.results import ValueClash, merge_values
    from compendium.pwb import register

    own, (reg, _) = values.stage_values(result), register.register_values(result)
    shared = set(own) & set(reg)
    assert shared and merge_values(own, reg).keys() == set(own) | set(reg)
    key = sorted(shared)[0]
    with pytest.raises(ValueClash, match=re.escape(key)):
        merge_values(own, {**reg, key: "another value"})


def test_small_helpers():
    assert summary.count_word(6) == "Six" and summary.count_word(6, capital=False) == "six"
    assert summary.count_word(12) == "12"
    assert views.dim_label("appropriate_reliance") == "AR_d"
    assert views.dim_label("appropriate_reliance", long=True) == "appropriate reliance (AR_d)"
    notes = {
        "a": {"kind": "differs", "reason": "paper_slip", "note": "x  y"},
        "b": {"kind": "differs", "reason": "stale_table", "note": "z"},
        "c": {"kind": "other"},
    }
    sl = values.register_slips(notes, {"a": 1.0, "b": 2.0}, {"a": 1.5})
    assert sl.to_dict("records") == [{"claim": "a", "printed": 1.0, "data": 1.5, "reason": "paper slip", "why": "x y"}]
    assert values.register_slips({}, {}, {}).columns.tolist() == ["claim", "printed", "data", "reason", "why"]
    show, cap = views.anomaly_table(pd.DataFrame(columns=["kind", "dimension"]), False)
    assert show["kind"].tolist() == ["(no per-instance data in this build)"] and "not in this build" in cap
    an = pd.DataFrame({"kind": ["above 3", "above 3"], "dimension": ["x", "x"]})
    show, cap = views.anomaly_table(an, True)
    assert show["judge values / runs"].tolist() == [2] and cap.startswith("The 2 judge anomalies")


def test_the_per_instance_text_without_data(result):
    st, md = summary.instances_status(result), views.instances_markdown(result)
    assert "not in this build" in st and "`data/pwb/results` does not exist" in md and "10,000-draw" in md


def test_the_per_instance_section_compares_sums_with_the_aggregates(tmp_path, result):
    """All three layers, as the release has them: the Layer-2/3 paired-test tables (a p, no p_bonferroni)
    render beside the Layer-1 ones (this crashed the stage with a KeyError on every well-formed release)."""
    import dataclasses

    from compendium.data import synthetic_pwb

    synthetic_pwb.write_snapshot(tmp_path, seed=3, size="small")
    ins = inst.load_hf_results(tmp_path / "results")
    assert set(ins["layer"]) == {1, 2, 3}
    params = study_params("pwb", n_boot=50, diag_n_boot=50)
    inputs = dataclasses.replace(result.inputs, instances=ins, results_dir=tmp_path / "results")
    res = inst.run_instance_pipeline(ins, result.weights, n_boot=50, seed=42, diag_n_boot=50, diag_seed=0)
    sums = res["runs"].groupby(["model", "condition", "dimension"])["panel"].sum().rename("score_sum").reset_index()
    section = sections.instances_section(inputs, sums, result.weights, params)
    assert section.max_sum_diff == 0
    r = dataclasses.replace(result, params=params, inputs=inputs, instances=section, anomalies=section.res["anomalies"])
    tables = values.tables(r)
    assert {
        "instances_pingouin_per_dimension",
        "instances_pingouin_per_model",
        "instances_pingouin_layer2",
        "instances_pingouin_layer3",
        "instances_tests_pooled",
    } <= set(tables)
    assert "p_bonferroni" not in tables["instances_pingouin_layer2"].columns
    sums.loc[0, "score_sum"] += 2
    assert sections.instances_section(inputs, sums, result.weights, params).max_sum_diff == 2
    st, md = summary.instances_status(r), views.instances_markdown(r)
    assert "present in this build" in st and f"{len(ins):,} judge scores" in md
    for name in ("wilcoxon", "ttest", "layer2", "layer3"):
        assert f":name: tbl-pwb-inst-{name}" in md


def test_layer_table_replaces_layer1_only(result):
    lay, l1_ = result.aggregates.layers, result.aggregates.l1
    assert (lay.loc[lay["layer"] != "Layer 1", "source"] == "released").all()
    l1 = lay[lay["layer"] == "Layer 1"].set_index("condition")
    assert l1.loc["baseline", "n"] == l1_.set_index("condition").loc["baseline", "n"]


def test_without_data_the_build_names_nothing_and_writes_an_empty_anomaly_table(result):
    assert result.instances is None and not result.instances_present
    assert values._instance_values(result) == {"pwb.inst.anomalies.n": 0}
    t = values._instance_tables(result)
    assert list(t) == ["judge_anomalies"] and t["judge_anomalies"].empty


def test_the_table2_verdict_follows_the_claims_statuses(tmp_path):
    from compendium import claims

    pub = claims.load_published()
    ids = [c for c in pub["claim_id"] if re.fullmatch(r"pwb\.pwi\.[a-z0-9]+\.(baseline|prompted)", c)]
    values = dict(zip(pub["claim_id"], pub["published"]))
    at_paper = {k: values[k] for k in ids}
    # at the paper's settings: a results folder with no record of a changed parameter (the workspace's may be an
    # exercise's: make test must pass after one too)
    v = summary.pwi_verdict(at_paper, results_dir=tmp_path)
    assert v == {"pwb_n_pwi": 14, "pwb_pwi_verdict": ", and it does"}
    off = {k: x + 5 for k, x in at_paper.items()}
    assert summary.pwi_verdict(off, results_dir=tmp_path)["pwb_pwi_verdict"] == ", but only 0 of the 14 reproduce"


def test_the_summary_is_the_union_of_the_small_phrase_functions(result, s):
    """Each glue name comes from one *_phrases function of PHRASES, each a function of the result alone."""
    parts = [f(result) for f in summary.PHRASES]
    keys = [k for p in parts for k in p]
    pct = [f"{k}_pct" for k in summary.PERCENTS]  # the shares the prose prints as percentages ("32 %"), made last
    assert len(keys) == len(set(keys)) == len(s) - len(pct) and keys + pct == list(s)
    assert all(s[k] == f"{round(100 * s[k[:-4]])} %" for k in pct)
    assert all(f.__name__.endswith("_phrases") for f in summary.PHRASES)
