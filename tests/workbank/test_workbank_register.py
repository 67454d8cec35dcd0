"""compendium.workbank.register: every register table builder against an independent computation (a hand
case, or the authors' loop / a pandas computation written differently), and every register cell id produced."""

import math

import krippendorff
import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf

from compendium.pipeline.params import study_params
from compendium.workbank import Inputs, authors, build, register as R, reliability, skills
from compendium.workbank.build import load_register
from compendium.workbank.common import (
    CAPABILITY,
    DESIRE,
    DESIRE_REASONS,
    ENJOYMENT,
    HAS,
    JOB_SECURITY,
    OCC,
    SKILL,
    TASK,
    TASK_CHARACTERISTICS,
    USER,
    WAGE,
)
from compendium.workbank.reliability import MIXED_MODEL_COVARIATES

CHAR = list(TASK_CHARACTERISTICS.values())


# ------------------------------------------------------------------------------------ fixtures


def synthetic(seed=0, n_occ=4, tasks_per_occ=5, workers_per_occ=6, n_experts=5):
    """Worker desires, metadata and expert ratings with every column the builders read."""
    rng = np.random.default_rng(seed)
    d_rows, m_rows, e_rows = [], [], []
    for o in range(n_occ):
        occ = f"Occ {o}"
        tasks = [f"Task {o}-{t}." for t in range(tasks_per_occ)]
        for w in range(workers_per_occ):
            uid = f"w{o}-{w}"
            m_rows.append({USER: uid, OCC: occ})
            for t in rng.choice(tasks, size=3, replace=False):
                r = {
                    USER: uid,
                    OCC: occ,
                    TASK: t,
                    DESIRE: int(rng.integers(1, 6)),
                    HAS: int(rng.integers(1, 6)),
                    JOB_SECURITY: int(rng.integers(1, 6)),
                    ENJOYMENT: int(rng.integers(1, 6)),
                }
                r.update({c: int(rng.integers(1, 6)) for c in CHAR})
                r.update({c: bool(rng.random() < 0.5) and r[DESIRE] >= 3 for c in DESIRE_REASONS.values()})
                d_rows.append(r)
        for t in tasks:
            for x in rng.choice(n_experts, size=int(rng.integers(2, 4)), replace=False):
                r = {
                    USER: f"e{x}",
                    OCC: occ,
                    TASK: t,
                    CAPABILITY: int(rng.integers(1, 6)),
                    HAS: int(rng.integers(1, 6)),
                }
                r.update({c: int(rng.integers(1, 6)) for c in CHAR})
                e_rows.append(r)
    return pd.DataFrame(d_rows), pd.DataFrame(m_rows), pd.DataFrame(e_rows)


#: few bootstrap draws: the register's cells do not depend on them (the committed run's draws give the chapter)
FAST = study_params("workbank", n_boot=20, n_tie_draws=5, n_boot_groups=20)


@pytest.fixture(scope="module")
def inputs():
    return Inputs.load(FAST)


@pytest.fixture(scope="module")
def real(inputs):
    i = inputs
    return {"d": i.desires, "m": i.metadata, "e": i.experts, "t": i.task_metadata, "w": i.bls_wages, "p": i.papers}


@pytest.fixture(scope="module")
def result(inputs):
    return build(FAST, inputs)


@pytest.fixture(scope="module")
def reg_out(result):
    return R.register_values(result)


# ------------------------------------------------------------------------------------- helpers


def test_cell_ids_patterns_existing_and_blank():
    t = {
        "rows": ["a", "b"],
        "cols": ["x", "y"],
        "id_pattern": "wb.t.{row}.{col}",
        "existing_ids": {"a.x": "wb.old"},
        "blank_cells": ["b.y"],
    }
    assert R.cell_ids(t) == {("a", "x"): "wb.old", ("a", "y"): "wb.t.a.y", ("b", "x"): "wb.t.b.x"}
    whole = {"rows": ["h1"], "cols": ["h1", "h2"], "id_pattern": "(whole)", "existing_ids": {"*": "wb.m"}}
    assert set(R.cell_ids(whole).values()) == {"wb.m"}


def test_label_matching_normalises_quotes_case_and_final_period():
    assert R.norm_text("Plan the publication’s style") == R.norm_text("plan the publication's  style.")
    # the paper's two underscores and the notebook's three name the same statsmodels term
    assert R._term_key("llm_usage_by_type__edit[T.Monthly]") == R._term_key("LLM Usage by Type - Edit[T.Monthly]")
    assert R._term_key("education[T.Master’s Degree]") == R._term_key("Education[T.Master's Degree]")


# --------------------------------------------------------------------------------------- table 1


def test_table1_matches_statsmodels_formula():
    """Our design matrix + MixedLM against the authors' route: make_safe names, a patsy formula, smf.mixedlm."""
    rng = np.random.default_rng(3)
    n_workers, n_tasks = 160, 40
    meta = {USER: [f"u{i}" for i in range(n_workers)], OCC: ["Occ"] * n_workers}
    for c in MIXED_MODEL_COVARIATES:
        meta[c] = rng.integers(18, 65, n_workers) if c == "Age" else rng.choice(["Alpha", "Beta", "Gamma’s"], n_workers)
    meta = pd.DataFrame(meta)
    task_eff = rng.normal(0, 0.5, n_tasks)
    rows = []
    for i in range(n_workers):
        for t in rng.choice(n_tasks, 4, replace=False):
            rows.append(
                {
                    USER: f"u{i}",
                    OCC: "Occ",
                    TASK: f"t{t}",
                    DESIRE: float(np.clip(np.round(3 + task_eff[t] + rng.normal(0, 1)), 1, 5)),
                }
            )
    des = pd.DataFrame(rows)

    def safe(s):
        return s.strip().replace(" ", "_").replace("-", "_").replace("(", "").replace(")", "").replace("*", "").lower()

    df = des.merge(meta, on=[USER, OCC]).rename(columns=lambda c: safe(c))
    covs = [safe(c) for c in MIXED_MODEL_COVARIATES]
    res = smf.mixedlm("automation_desire_rating ~ " + " + ".join(covs), df, groups=df["task"]).fit(method="bfgs")
    labels = {f"r{i}": name for i, name in enumerate(res.fe_params.index)}
    data = reliability.mixed_model_data(des, meta)
    summ, coefs, fit = reliability.fit_mixed_model(data, method="bfgs")
    frame = R.table1_frame(coefs, labels)
    ci = res.conf_int()
    for slug, name in labels.items():
        assert frame.loc[slug, "coef"] == pytest.approx(res.fe_params[name], abs=1e-4), name
        assert frame.loc[slug, "se"] == pytest.approx(res.bse_fe[name], abs=1e-4), name
        assert frame.loc[slug, "ci_high"] == pytest.approx(ci.loc[name, 1], abs=1e-4), name
    assert not frame.isna().any().any()  # every term of the authors' formula is matched
    assert summ["llf"] == pytest.approx(res.llf, abs=1e-4)
    assert reliability.group_var_se(fit) == pytest.approx(float(res.bse_re.iloc[0]), rel=1e-3)
    sizes = des.groupby(TASK).size()
    summ.update(group_var_se=0.1, min_group=int(sizes.min()), max_group=int(sizes.max()), mean_group=sizes.mean())
    stats_ = R.mixed_model_stats(summ)
    assert (stats_["wb.mixed.min_group"], stats_["wb.mixed.max_group"]) == (sizes.min(), sizes.max())
    assert stats_["wb.mixed.mean_group"] == pytest.approx(len(des) / sizes.size)


def test_table1_rounding_boundary_cells(reg_out):
    """The four Table 1 cells that differ from the print sit within 2.5e-5 of a 3-decimal rounding boundary:
    an optimiser difference of 1e-5 (the authors' L-BFGS stopped at a singular covariance) tips them."""
    v, _ = reg_out
    for cid in [
        "wb.table1.political_republican.z",
        "wb.table1.usage_idea_generation_weekly.z",
        "wb.table1.ai_tedious_somewhat_disagree.z",
        "wb.table1.ai_tedious_somewhat_disagree.ci_high",
    ]:
        x = v[cid] * 1000
        assert abs(x - math.floor(x) - 0.5) < 0.025, (cid, v[cid])


# ---------------------------------------------------------------------------------- tables 2-5


def test_table2_counts_by_hand():
    meta = pd.DataFrame({USER: ["a", "b", "c", "d"], OCC: ["Editors", "Editors", "Lawyers", "Editors"]})
    f = R.table2_frame(
        authors.participants_per_occupation(meta), {"editors": "Editors", "lawyers": "Lawyers", "judges": "Judges"}
    )
    assert f.loc["editors", "n"] == 3 and f.loc["lawyers", "n"] == 1
    assert np.isnan(f.loc["judges", "n"])


def test_ranked_desire_frame_groupby():
    d, _, _ = synthetic(1)
    labels = {f"r{i}": f"{o}: {t.rstrip('.')}" for i, (o, t) in enumerate(d[[OCC, TASK]].drop_duplicates().values[:6])}
    f = R.ranked_desire_frame(authors.occupation_task_desire(d), labels)
    for slug, lab in labels.items():
        occ, task = lab.split(": ", 1)
        sel = d[(d[OCC] == occ) & (d[TASK] == task + ".")][DESIRE]
        assert f.loc[slug, "aw"] == pytest.approx(sel.sum() / len(sel))


def authors_occupation_loop(d, m, e):
    """human_agency_scale.ipynb, transcribed as a loop: dominant levels and JS distance per occupation."""
    task_to_occupation = {row[TASK]: row[OCC] for _, row in d.iterrows()}
    occupation_to_tasks = {}
    for task, occ in task_to_occupation.items():
        occupation_to_tasks.setdefault(occ, []).append(task)
    out = {}
    for occ, tasks in occupation_to_tasks.items():
        users = m[m[OCC] == occ][USER]
        w = d[d[USER].isin(users) & d[TASK].isin(tasks)][HAS].value_counts(normalize=True)
        x = e[e[TASK].isin(tasks)][HAS].value_counts(normalize=True)
        wy = [w.get(i, 0) for i in range(1, 6)]
        ey = [x.get(i, 0) for i in range(1, 6)]
        mid = [(a + b) / 2 for a, b in zip(wy, ey)]
        kl = lambda p, q: sum(pi * math.log2(pi / qi) for pi, qi in zip(p, q) if pi > 0)
        out[occ] = (wy.index(max(wy)) + 1, ey.index(max(ey)) + 1, math.sqrt(kl(wy, mid) / 2 + kl(ey, mid) / 2))
    return out


def test_fig6b_and_table5_loop():
    d, m, e = synthetic(2, n_occ=6)
    occ = R.occupation_has(d, m, e)
    ref = authors_occupation_loop(d, m, e)
    assert set(occ.index) == set(ref)
    for o, (wl, el, js) in ref.items():
        assert (occ.loc[o, "worker_level"], occ.loc[o, "expert_level"]) == (wl, el)
        assert occ.loc[o, "jsd"] == pytest.approx(js, abs=1e-12)
    f = R.fig6b_frame(occ)
    levels = [wl for wl, _, _ in ref.values()]
    for k in range(1, 6):
        assert f.loc[f"h{k}", "pct"] == pytest.approx(100 * levels.count(k) / len(levels))
    t5 = R.table5_frame(occ, {"o1": "Occ 1", "none": "Nobody"})
    assert t5.loc["o1", "jsd"] == pytest.approx(ref["Occ 1"][2]) and t5.loc["none"].isna().all()


def test_table5_hand_case():
    # workers all H2, experts half H2 half H4: JSD^2 = 1/2 KL(P||M) + 1/2 KL(Q||M) with M = (0, .75, 0, .25, 0)
    d = pd.DataFrame({USER: ["a", "b"], OCC: ["O", "O"], TASK: ["t", "t"], HAS: [2, 2]})
    m = pd.DataFrame({USER: ["a", "b"], OCC: ["O", "O"]})
    e = pd.DataFrame({TASK: ["t", "t"], HAS: [2, 4]})
    occ = R.occupation_has(d, m, e)
    js2 = 0.5 * math.log2(1 / 0.75) + 0.5 * (0.5 * math.log2(0.5 / 0.75) + 0.5 * math.log2(0.5 / 0.25))
    assert occ.loc["O", "jsd"] == pytest.approx(math.sqrt(js2))
    assert (occ.loc["O", "worker_level"], occ.loc["O", "expert_level"]) == (2, 2)  # tie H2/H4 -> lowest


# ------------------------------------------------------------------------------------- figures


def test_fig4b_crosstab():
    d, _, _ = synthetic(4)
    f = R.fig4b_frame(d)
    for slug, col in R.FIG4B_REASONS.items():
        ct = pd.crosstab(d[DESIRE], d[col]).reindex(index=[3, 4, 5], columns=[True], fill_value=0)[True]
        assert [f.loc[slug, f"rating{k}"] for k in (3, 4, 5)] == ct.tolist()


def test_fig5a_hand_case():
    land = pd.DataFrame(
        {"occupation": ["A", "A", "A", "B"], "zone": ["green", "green", "low", "red"]},
        index=pd.Index(["t1", "t2", "t3", "t4"], name=TASK),
    )
    sectors = pd.DataFrame({"sector": ["Computer and Mathematical", "Management"]}, index=["A", "B"])
    f = R.fig5a_frame(land, sectors)
    assert f.loc["computer_math", "green"] == pytest.approx(200 / 3)
    assert f.loc["computer_math", ["green_n", "red_n", "rnd_n", "low_n"]].tolist() == [2, 0, 0, 1]
    assert f.loc["management", "red"] == 100 and np.isnan(f.loc["sales", "green"])


def test_zones_frame_hand_case():
    from compendium.workbank.landscape import zone_counts

    land = pd.DataFrame({"zone": ["green", "green", "rnd"]})
    assert R.zones_frame(zone_counts(land["zone"]))["n"].tolist() == [2, 0, 1, 0]


def test_mapping_frames_hand_case():
    land = pd.DataFrame({"zone": ["green", "green", "red", "low"]}, index=["t1", "t2", "t3", "t4"])
    yc = pd.DataFrame(
        {
            "task": ["t1", "t1", "t3", "tx"],
            "occupation": ["A", "B", "C", "D"],
            "company_count": [2, 1, 5, 9],
            "company": ["X; Y", "Y", "Z;X", "Q"],
        }
    )
    papers = pd.DataFrame(
        {"task": ["t2", "t4"], "occupation": ["A", "D"], "paper_count": [3, 4], "paper_ids": ["1, 2,3", "3"]}
    )
    f5b, f5c, nbu, tot = R.mapping_frames(land, yc, papers)
    assert f5c.loc["low", "mappings"] == 4 and f5c.loc["low", "per_task"] == 4
    # green: t1 twice (2 + 1) over 2 tasks; the row for an unknown task (tx) is ignored
    assert f5b.loc["green", "mappings"] == 3 and f5b.loc["green", "per_task"] == 1.5
    assert f5b.loc["red", "per_task"] == 5 and f5b.loc["rnd", "mappings"] == 0
    assert nbu.loc["green", "yc"] == 2 and nbu.loc["red", "yc"] == 2 and nbu.loc["green", "papers"] == 3
    assert nbu.loc["low", "papers_per_task"] == 1
    assert tot == {"yc": 3, "papers": 3}
    f5b, _f5c, nbu, tot = R.mapping_frames(land, None, papers)
    assert f5b is None and nbu["yc"].isna().all() and tot["yc"] is None


def test_fig7_loop():
    e = pd.DataFrame({TASK: ["a", "a", "b", "c"], HAS: [1, 3, 4, 5]})
    t = pd.DataFrame(
        {
            TASK: ["a", "b", "c"],
            WAGE: [100.0, 50.0, np.nan],
            SKILL: ["['S1', 'S2']", "['S2']", "['S1', 'Working with Computers']"],
        }
    )
    f = R.fig7_frame(skills.skill_ranks(e, t), {"s1": "S1", "s2": "S2"})
    # S1: HAS (2 + 5) / 2 = 3.5, wage 100; S2: HAS (2 + 4) / 2 = 3, wage 75
    assert f.loc["s1"].tolist() == [1, 1] and f.loc["s2"].tolist() == [2, 2]


def test_nb_claude_hand_case():
    d = pd.DataFrame({TASK: ["Do A", "Do B", "Do C"], OCC: ["X", "X", "Y"], DESIRE: [5, 3, 1]})
    usage = pd.DataFrame({"task_name": ["do a", "do a", "do c"], "pct": [0.1, 0.2, 0.5]})
    f, total = R.nb_claude_frame(authors.claude_occupations(d, usage), {"x": "X", "y": "Y"})
    # the left join keeps both usage rows of "do a"
    assert f.loc["x", "pct"] == pytest.approx(0.3) and f.loc["y", "pct"] == pytest.approx(0.5)
    assert total == pytest.approx(0.8)
    assert authors.claude_occupations(d, None) is None and R.nb_claude_frame(None, {}) == (None, None)


def test_nb_has_avg_and_h5_groupby():
    d, m, e = synthetic(5, n_occ=5)
    merged, pools = authors.merged_task_means(d, e), authors.occupation_pools(d, m, e)
    f = R.nb_has_avg_frame(merged, {"editors": "Occ 1"})
    wt = d.groupby(TASK)[HAS].mean()
    et = e.groupby(TASK)[HAS].mean()
    common = wt.index.intersection(et.index)
    assert f.loc["all", "has_worker"] == pytest.approx(wt[common].mean())
    occ1 = [t for t in common if t.startswith("Task 1-")]
    assert f.loc["editors", "has_expert"] == pytest.approx(et[occ1].mean())
    # H5 sets from the authors' loop; the authors' expert line reuses the worker H5 set
    ref = authors_occupation_loop(d, m, e)
    w5 = [t for t in common if ref[d.loc[d[TASK] == t, OCC].iloc[-1]][0] == 5]
    e5 = [t for t in common if ref[d.loc[d[TASK] == t, OCC].iloc[-1]][1] == 5]
    h5 = R.nb_h5_frame(merged, pools, "worker")
    h5e = R.nb_h5_frame(merged, pools, "expert")
    col = TASK_CHARACTERISTICS["domain_expertise"]
    exp_w = d.groupby(TASK)[col].mean()[w5].mean() if w5 else np.nan
    np.testing.assert_allclose(h5.loc["domain", "worker"], exp_w)
    np.testing.assert_allclose(h5.loc["domain", "expert"], e.groupby(TASK)[col].mean()[w5].mean() if w5 else np.nan)
    np.testing.assert_allclose(h5e.loc["domain", "expert"], e.groupby(TASK)[col].mean()[e5].mean() if e5 else np.nan)


# ---------------------------------------------------------------------------------- alpha, SD


def test_alpha_authors_keeps_repeated_rows():
    """The paper's alpha keeps the repeated row; the variant drops it; both against the krippendorff package
    on matrices written by hand (slots x tasks)."""
    e = pd.DataFrame(
        {
            USER: ["u1", "u2", "u1", "u1", "u2", "u3", "u3"],
            TASK: ["A", "A", "B", "A", "B", "C", "C"],
            CAPABILITY: [1, 2, 3, 1, 3, 4, 4],
            HAS: [1, 2, 3, 1, 3, 4, 4],
        }
    )
    e = e.iloc[[0, 1, 2, 4, 3, 5, 6]]  # rows: A u1, A u2, B u1, B u2, A u1 (repeat), C, C
    e.loc[e.index[-1], USER] = "u4"
    with_rep = np.array([[1, 3, 4], [2, 3, 4], [1, np.nan, np.nan]], dtype=float)
    without = np.array([[1, 3, 4], [2, 3, 4]], dtype=float)
    a_auth = R.alpha_authors(e, CAPABILITY)
    assert a_auth == pytest.approx(krippendorff.alpha(reliability_data=with_rep, level_of_measurement="ordinal"))
    d = pd.DataFrame({USER: ["w"], TASK: ["A"], DESIRE: [1], HAS: [1]})
    d = pd.concat([d, d.assign(**{USER: "x", DESIRE: 2, HAS: 2})])
    v = R.alpha_values(pd.concat([d, d.assign(**{TASK: "B"})]), e)
    assert v["wb.alpha.expert_capability"] == pytest.approx(a_auth)
    assert v["wb.alpha.expert_capability.variant.dedup_rows"] == pytest.approx(
        krippendorff.alpha(reliability_data=without, level_of_measurement="ordinal", value_domain=[1, 2, 3, 4, 5])
    )
    assert v["wb.alpha.expert_capability"] != pytest.approx(v["wb.alpha.expert_capability.variant.dedup_rows"])


def test_alpha_real_data_both_methods(real):
    """On the release the two constructions differ only for the experts (the 19 repeated rows)."""
    v = R.alpha_values(real["d"], real["e"])
    for k in ["worker_desire", "worker_has"]:
        assert v[f"wb.alpha.{k}"] == pytest.approx(v[f"wb.alpha.{k}.variant.dedup_rows"], abs=1e-12)
    for k in ["expert_capability", "expert_has"]:
        assert v[f"wb.alpha.{k}"] - v[f"wb.alpha.{k}.variant.dedup_rows"] > 1e-3


def test_expert_sd_population_vs_sample():
    e = pd.DataFrame({TASK: ["a", "a", "b", "b", "b"], CAPABILITY: [1, 3, 2, 2, 2], HAS: [2, 2, 1, 2, 3]})
    assert R.expert_sd_max(e, ddof=0) == pytest.approx(1.0)
    assert R.expert_sd_max(e, ddof=1) == pytest.approx(math.sqrt(2))


# -------------------------------------------------------------------------------- whole register


def test_every_register_cell_is_produced(reg_out):
    values, missing = reg_out
    reg = load_register()
    for t in reg["tables"]:
        for (r, c), vid in R.cell_ids(t).items():
            assert vid in values, (t["slug"], r, c, vid)
    for c in reg["claims"]:
        assert c["id"] in values, c["id"]
    for k, x in values.items():
        if x is None:
            assert missing.get(k), k
    # only the audio-interview tables and a few quoted/outside claims have no value
    null_cells = {vid for t in reg["tables"] for vid in R.cell_ids(t).values() if values[vid] is None}
    assert all(v.startswith(("wb.table6.", "wb.table7.")) for v in null_cells)
    assert set(R.PROVENANCE) and all(k.startswith("wb.") for k in R.PROVENANCE)


def test_external_files_absent_give_null_with_reason(inputs, result):
    """The register's part of the result (the paper section) without the authors' external files."""
    from dataclasses import replace

    from compendium.workbank import sections

    i, land = inputs, result.landscape.extra["landscape"]
    labels = {t["slug"]: t.get("row_labels") or {} for t in i.register["tables"]}
    args = (i.desires, i.metadata, i.experts, i.task_metadata, land, result.desire.extra["sectors"])
    paper = sections.paper_section(*args, usage=None, yc=None, papers=None, row_labels=labels)
    values, missing = R.register_values(replace(result, paper=paper))
    assert values["wb.fig5b.green.per_task"] is None and "company_to_workflow" in missing["wb.fig5b.green.per_task"]
    assert (
        values["wb.nb_claude.web_administrators.pct"] is None
        and "usage_from_anthropic" in missing["wb.nb_claude.web_administrators.pct"]
    )
    assert values["wb.zones.green"] == 364


def test_text_claims_on_real_data(reg_out, real):
    """Independent recomputations (plain pandas / scipy) of text claims on the release."""
    from scipy import stats

    v, _ = reg_out
    d, e, t, p = real["d"], real["e"], real["t"], real["p"]
    assert v["wb.counts.experts"] == len(set(e[USER]))
    assert v["wb.counts.onet_tasks"] == t.shape[0] and v["wb.counts.onet_occupations"] == len(set(t[OCC]))
    assert v["wb.counts.min_experts_per_task"] == min(len(set(g[USER])) for _, g in e.groupby(TASK))
    r = stats.spearmanr(d[DESIRE], d[ENJOYMENT])
    assert v["wb.rho.resp_desire_enjoyment"] == pytest.approx(r[0]) and v[
        "wb.rho.resp_desire_enjoyment_p"
    ] == pytest.approx(r[1])
    assert v["wb.papers.top_task_1"] == max(p["paper_count"])
    assert v["wb.design.followup_threshold"] == 3 and v["wb.design.likert_points"] == 5
    assert v["wb.has.occ_worker_levels"] == [
        round(x * 104 / 100) for x in [v[f"wb.fig6b.h{k}.pct"] for k in range(1, 6)]
    ]
    # a sector share: task means over the sector's responses, strictly above 3
    arts = v["wb.sector.arts_share_gt3"]
    assert 0 < arts < 100


def test_register_summary_counts_cells():
    s = R.register_summary({"wb.zones.green": 1, "wb.zones.red": None}, load_register())
    z = s.set_index("table").loc["zones"]
    assert z["cells"] == 4 and z["computed"] == 1


def test_printed_slips_evidence(reg_out):
    """Where the print and the data disagree by a slip of the print, the printed token is a truncation or
    a one-digit change of the computed value (evidence for published/notes/workbank.yaml)."""
    from compendium.workbank.desire import format_p_truncated

    v, _ = reg_out
    # p-value bounds: the paper truncates the mantissa, so the exact p exceeds the printed bound
    for cid, printed in [
        ("wb.rho.capability_desire_p_bound", "p<1e-6"),
        ("wb.rho.desire_jobsecurity_p_bound", "p<5e-11"),
        ("wb.rho.desire_enjoyment_p_bound", "p<3e-17"),
    ]:
        assert format_p_truncated(v[cid]) == printed
        assert v[cid] > float(printed[2:])
    # Fig 5b Red Light: 117.6367 truncated is 117.63, rounded 117.64; the other bars are rounded (Low 118.8679 -> 118.87)
    assert math.floor(v["wb.fig5b.red.per_task"] * 100) / 100 == pytest.approx(117.63)
    assert round(v["wb.fig5b.red.per_task"], 2) == pytest.approx(117.64)
    assert round(v["wb.fig5b.low.per_task"], 2) == pytest.approx(118.87)
    # Fig 5c Low Priority: the data's 119.08 printed as 118.08 (one digit), 12,622 mappings over 106 tasks
    assert round(v["wb.fig5c.low.per_task"], 2) == pytest.approx(119.08)
    assert v["wb.fig5c.low.mappings"] / v["wb.zones.low"] == pytest.approx(v["wb.fig5c.low.per_task"])
    # experts: 53 distinct IDs (paper: 52); 21 tasks rated by one expert (paper: at least two)
    assert v["wb.counts.experts"] == 53 and v["wb.counts.min_experts_per_task"] == 1


def test_has_matrix_loop(reg_out, real):
    """Fig 6a and the shares, against the authors' loop (human_agency_scale.ipynb cell 2) on the release:
    per task, the worker ratings of the occupation's metadata users and every expert row, value_counts,
    ``list.index(max)`` (lowest level on ties)."""
    v, _ = reg_out
    d, m, e = real["d"], real["m"], real["e"]
    task_to_occupation = dict(zip(d[TASK], d[OCC]))
    users = m.groupby(OCC)[USER].apply(set)
    w_by_task = {t: g for t, g in d.groupby(TASK)}
    e_by_task = {t: g for t, g in e.groupby(TASK)}
    mat = [[0] * 5 for _ in range(5)]
    for task, occ in task_to_occupation.items():
        w = w_by_task[task]
        w = w[w[USER].isin(users[occ])][HAS].value_counts(normalize=True)
        x = e_by_task[task][HAS].value_counts(normalize=True)
        wy = [w.get(i, 0) for i in range(1, 6)]
        ey = [x.get(i, 0) for i in range(1, 6)]
        mat[wy.index(max(wy))][ey.index(max(ey))] += 1
    assert v["wb.has.matrix"] == mat
    n = sum(map(sum, mat))
    assert v["wb.has.diagonal"] == pytest.approx(100 * sum(mat[i][i] for i in range(5)) / n)
    assert v["wb.has.workers_more"] == pytest.approx(100 * sum(mat[i][j] for i in range(5) for j in range(i)) / n)
