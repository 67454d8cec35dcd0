"""compendium.pwb.summary: every number and phrase of the PWB chapters' prose, checked against the released
files read independently (pandas/json on the raw files, hand formulas), and against the chapters' own text."""

import json
import re

import numpy as np
import pandas as pd
import pytest

import compendium.data as data
from compendium import paths
from compendium.pwb import (
    aggregates as agg,
    benchmark as bench,
    effects,
    instances as inst,
    paper_printed as printed,
    summary,
    validation as val,
    weights as wts,
)

OUT = paths.PWB / "analysis_output"


def _chapter(released, config, notes=None, reg_values=None):
    """The chapter's visible cells (notebooks/10_pwb.md), default parameters."""
    cells = agg.reconstruct_cells(released["dimension_scores"], released["effect_sizes"])
    checks = agg.reconstruction_checks(cells, released["diagnostics"], released["layers"])
    t2 = agg.table2(cells, wts.scheme_weights(config, "weights"))
    rel = released["pwi"].pivot(index="Model", columns="Variant", values="PWI")
    t2["baseline_released"] = t2["model"].map(rel["baseline"])
    t2["prompted_released"] = t2["model"].map(rel["with_system_prompt"])
    t2["diff_baseline"] = t2["baseline"] - t2["baseline_released"]
    t2["diff_prompted"] = t2["prompted"] - t2["prompted_released"]
    d_approx = agg.d_pooled_approx(cells)
    d_approx["printed_table2"] = d_approx["model"].map(printed.D_POOLED_TABLE2)
    d_approx["rounds_to_printed"] = d_approx["d_pooled"].round(2) == d_approx["printed_table2"]
    diag = agg.dimension_diagnostics(cells)
    rd = released["diagnostics"].set_index("Dimension")
    for col, rcol in (("released_ci_lower", "CI_lower"), ("released_ci_upper", "CI_upper"), ("released_qwk", "QWK")):
        diag[col] = diag["dimension"].map(rd[rcol])
    l1 = agg.layer1_summary(cells)
    sens, sens_pwis = agg.weight_sensitivity(cells, wts.sensitivity_schemes(config))
    cmp = sens.merge(printed.SENSITIVITY_TABLE, on="scheme", suffixes=("", "_printed"))
    pilot = val.pilot_agreement(data.load_pwb_pilot_scores(), data.load_pwb_pilot_ground_truth())
    fj_scores, fj_errors = data.load_pwb_fourth_judge_scores(), data.load_pwb_fourth_judge_errors()
    sample, audit = val.fourth_judge_sample(fj_scores, fj_errors, rule="first")
    dups = fj_scores.reset_index().rename(columns={"index": "line"})
    dups = dups[dups["item_id"].isin(audit["duplicated_items"])]
    dups["line"] += 1
    slips = summary.register_slips(notes or {}, summary.published_claims(), reg_values or {})
    return summary.Chapter(
        cells=cells,
        checks=checks,
        t2=t2,
        d_approx=d_approx,
        diag=diag,
        l1=l1,
        sens=sens,
        sens_pwis=sens_pwis,
        cmp=cmp,
        grid=agg.restore_grid(cells, wts.scheme_weights(config)),
        lb=agg.leaderboard(cells, wts.scheme_weights(config, "legacy_weights_v2_0")),
        pilot=pilot,
        audit=audit,
        dups=dups,
        rules=val.dedupe_sensitivity(fj_scores),
        fj_errors=fj_errors,
        fa=val.fourth_judge_agreement(sample),
        sirr=val.sample_panel_irr(sample),
        stale=agg.stale_table_comparison(cells, printed.stale_appendix_table()),
        released=released,
        published=summary.published_claims(),
        slips=slips,
        d_ci=effects.d_pooled_intervals(d_approx, cells),
        cell_ci=effects.cell_d_intervals(released["effect_sizes"], released["dimension_scores"]),
        dim_ci=effects.dimension_d_pooled_intervals(cells),
        extra={"pwb_inst_status": "status"},
    )


@pytest.fixture(scope="module")
def ch():
    return _chapter(summary.released_aggregates(), data.load_pwb_config())


@pytest.fixture(scope="module")
def s(ch):
    return summary.summary(ch)


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
        {f: data.load_pwb_yaml(f"prompts/layer1_behavioral/{f}.yaml") for f in summary.LAYER1_FILES},
        [data.load_pwb_yaml(f"prompts/layer2_scenarios/{f}.yaml") for f in summary.LAYER2_FILES],
        data.load_pwb_yaml("prompts/layer3_adversarial/stress_tests.yaml"),
    )
    sp = data.load_pwb_system_prompt()
    b = summary.benchmark_summary(bench.dimension_table(rubrics, config), inv, sp)
    assert quoted == set(b)
    # independent: the prompt files themselves
    l1_files = sorted((paths.PWB / "prompts" / "layer1_behavioral").glob("*.yaml"))
    assert set(summary.LAYER1_FILES) == {f.stem for f in l1_files}
    assert set(summary.LAYER2_FILES) == {f.stem for f in (paths.PWB / "prompts" / "layer2_scenarios").glob("*.yaml")}
    assert b["pwbb_n_l2"] == len(summary.LAYER2_FILES)
    assert b["pwbb_sp_words"] == len((paths.PWB / "system_prompt.md").read_text().split())
    assert b["pwbb_w_sum"] == pytest.approx(sum(w for w in config["scoring"]["weights"].values() if w > 0))
    v = summary.benchmark_values(b)
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
    assert sorted(s["pwb_irr_below_names"].split(", ")) == sorted(summary.dim_label(d) for d in below)


def test_pwi_phrases(s, ch):
    pwi = pd.read_csv(OUT / "pwi_scores.csv")
    t2 = ch.t2.set_index("model")
    ours = {
        (m, c): round(float(t2.loc[m, c if c == "baseline" else "prompted"]), 1)
        for m in t2.index
        for c in ("baseline", "prompted")
    }
    pub = {(r["Model"], "baseline" if r["Variant"] == "baseline" else "prompted"): r["PWI"] for _, r in pwi.iterrows()}
    off = [k for k in ours if ours[k] != pub[k]]
    assert s["pwb_n_pwi_off"] == ["No", "One", "Two", "Three"][len(off)]
    assert s["pwb_pwi_off_names"] == (" and ".join(f"{m} {c}" for m, c in off) or "none")
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
    assert named == {(r["Model"], summary.dim_label(r["Dimension"])) for _, r in neg.iterrows()}


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


def test_effect_interval_phrases(s, ch):
    es = pd.read_csv(OUT / "effect_sizes.csv")
    assert s["pwb_cell_d_n"] == len(es)
    lo, hi = ch.cell_ci["ci_lower"], ch.cell_ci["ci_upper"]
    assert s["pwb_cell_d_n_pos"] == (lo > 0).sum() and s["pwb_cell_d_n_neg"] == (hi < 0).sum()
    assert s["pwb_cell_d_n_pos"] + s["pwb_cell_d_n_zero"] + s["pwb_cell_d_n_neg"] == len(es)
    assert (es["Cohens_d"] < 0).sum() >= s["pwb_cell_d_n_neg"]
    d = ch.d_ci.set_index("model")
    assert (
        s["pwb_dci_min_lower"] == d["ci_lower"].min()
        and d.loc[s["pwb_dci_min_model"], "ci_lower"] == d["ci_lower"].min()
    )
    assert s["pwb_dci_halfwidth"] == pytest.approx(((d["ci_upper"] - d["ci_lower"]) / 2).max())
    m = summary.d_interval_matrix(ch.cell_ci, ch.dim_ci)
    dc = ch.dim_ci.set_index("dimension")
    assert (
        m.set_index("dimension")
        .loc["complementarity", "all models"]
        .startswith(f"{dc.loc['complementarity', 'd_pooled']:.2f} [")
    )
    assert s["pwb_dim_d_max"] == dc["d_pooled"].max() and s["pwb_dim_d_min"] == dc["d_pooled"].min()
    assert s["pwb_dim_d_min_name"] == summary.dim_label(dc["d_pooled"].idxmin(), long=True)
    assert list(m["dimension"]) == list(summary.DIMENSIONS)
    r = ch.cell_ci.iloc[0]
    assert (
        m.set_index("dimension").loc[r["dimension"], r["model"]]
        == f"{r['d']:.2f} [{r['ci_lower']:.2f}, {r['ci_upper']:.2f}]"
    )


def test_stage_values_and_tables(ch):
    v = summary.stage_values(ch)
    assert v["pwb.fourth_judge.n_items"] == summary.summary(ch)["pwb_fj_items"]
    assert v["pwb.restore_grid.ut_0.05.ar_0.05"] == pytest.approx(summary.summary(ch)["pwb_grid_005"])
    assert v["pwb.data_level.instances_present"] == 0
    allv = summary.all_values(ch, {"pwb.inst.x": 1}, 0, {"pwb.sensitivity.equal.kendall_tau": "register wins"})
    assert allv["pwb.sensitivity.equal.kendall_tau"] == "register wins" and allv["pwb.inst.x"] == 1
    assert "pwb.agg.delta.mean" in allv
    t = summary.tables(ch)
    assert {"cells", "table2_pwi", "cell_d_intervals", "d_pooled_intervals", "paper_smaller_points"} <= set(t)
    assert t["model_dimension_delta"][1] is True and t["cells"][1] is False


def test_small_helpers():
    assert summary.count_word(6) == "Six" and summary.count_word(6, capital=False) == "six"
    assert summary.count_word(12) == "12"
    assert summary.dim_label("appropriate_reliance") == "AR_d"
    assert summary.dim_label("appropriate_reliance", long=True) == "appropriate reliance (AR_d)"
    notes = {
        "a": {"kind": "differs", "reason": "paper_slip", "note": "x  y"},
        "b": {"kind": "differs", "reason": "stale_table", "note": "z"},
        "c": {"kind": "other"},
    }
    sl = summary.register_slips(notes, {"a": 1.0, "b": 2.0}, {"a": 1.5})
    assert sl.to_dict("records") == [{"claim": "a", "printed": 1.0, "data": 1.5, "reason": "paper slip", "why": "x y"}]
    assert summary.register_slips({}, {}, {}).columns.tolist() == ["claim", "printed", "data", "reason", "why"]
    show, cap = summary.anomaly_table(pd.DataFrame(columns=["kind", "dimension"]), False)
    assert show["kind"].tolist() == ["(no per-instance data in this build)"] and "not in this build" in cap
    an = pd.DataFrame({"kind": ["above 3", "above 3"], "dimension": ["x", "x"]})
    show, cap = summary.anomaly_table(an, True)
    assert show["judge values / runs"].tolist() == [2] and cap.startswith("The 2 judge anomalies")
    st, md = summary.instances_text(paths.ROOT / "data" / "pwb" / "results", paths.ROOT, n_boot=10_000, seed=42)
    assert "not in this build" in st and "`data/pwb/results` does not exist" in md and "10,000-draw" in md


def test_instance_outputs_compare_sums_with_the_aggregates(tmp_path):
    """All three layers, as the release has them: the Layer-2/3 paired-test tables (a p, no p_bonferroni)
    render beside the Layer-1 ones (this crashed the stage with a KeyError on every well-formed release)."""
    from compendium.data import synthetic_pwb

    synthetic_pwb.write_snapshot(tmp_path, seed=3, size="small")
    ins = inst.load_hf_results(tmp_path / "results")
    assert set(ins["layer"]) == {1, 2, 3}
    res = inst.run_instance_pipeline(ins, {d: 1.0 for d in summary.DIMENSIONS}, n_boot=50, diag_n_boot=50)
    sums = res["runs"].groupby(["model", "condition", "dimension"])["panel"].sum().rename("score_sum").reset_index()
    tables, values = summary.instance_outputs(sums, res)
    assert values["pwb.inst.vs_aggregates.max_abs_sum_diff"] == 0
    assert {
        "instances_pingouin_per_dimension",
        "instances_pingouin_per_model",
        "instances_pingouin_layer2",
        "instances_pingouin_layer3",
        "instances_tests_pooled",
    } <= set(tables)
    assert "p_bonferroni" not in tables["instances_pingouin_layer2"][0].columns
    sums.loc[0, "score_sum"] += 2
    assert summary.instance_outputs(sums, res)[1]["pwb.inst.vs_aggregates.max_abs_sum_diff"] == 2
    tests = {k: t for k, (t, _) in tables.items() if k.startswith("instances_pingouin_")}
    st, md = summary.instances_text(
        paths.ROOT / "x", paths.ROOT, res=res, n_scores=len(ins), max_sum_diff=0.0, tests=tests
    )
    assert "present in this build" in st and f"{len(ins):,} judge scores" in md
    for name in ("wilcoxon", "ttest", "layer2", "layer3"):
        assert f":name: tbl-pwb-inst-{name}" in md


def test_layer_table_replaces_layer1_only(ch):
    lay = summary.layer_table(ch.released["layers"], ch.l1)
    assert (lay.loc[lay["layer"] != "Layer 1", "source"] == "released").all()
    l1 = lay[lay["layer"] == "Layer 1"].set_index("condition")
    assert l1.loc["baseline", "n"] == ch.l1.set_index("condition").loc["baseline", "n"]


def test_run_instances_without_data_names_nothing_and_writes_an_empty_anomaly_table(tmp_path):
    run = summary.run_instances("pwb", tmp_path / "absent", pd.DataFrame(), {})
    assert run["res"] is None and run["values"] == {} and run["text"] == {}
    assert list(run["tables"]) == ["judge_anomalies"] and run["anomalies"].empty


def test_the_table2_verdict_follows_the_claims_statuses():
    from compendium import claims

    pub = claims.load_published()
    ids = [c for c in pub["claim_id"] if re.fullmatch(r"pwb\.pwi\.[a-z0-9]+\.(baseline|prompted)", c)]
    values = dict(zip(pub["claim_id"], pub["published"]))
    at_paper = {k: values[k] for k in ids}
    v = summary.verdicts(at_paper)
    assert v == {"pwb_n_pwi": 14, "pwb_pwi_verdict": ", and it does"}
    off = {k: x + 5 for k, x in at_paper.items()}
    assert summary.verdicts(off)["pwb_pwi_verdict"] == ", but only 0 of the 14 reproduce"
