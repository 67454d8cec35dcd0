"""compendium.preferences.summary, .values and .views: the preferences chapter's prose numbers and verdicts, its
values and tables, and their display copies."""

from __future__ import annotations

import dataclasses
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import compendium.data as data
from compendium import claims, preferences as pref
from compendium.chapter import display
from compendium.claims import compare
from compendium.pipeline import paths
from compendium.pipeline.params import study_params
from compendium.pipeline.results import merge_values
from compendium.preferences import montecarlo, register, summary, values as pref_values, views
from compendium.preferences.build import Inputs, build, rank_shares
from compendium.preferences.reproduce import spearman_bt_vs_val_ci
from compendium.stats.mcdigits import mc_step

NOTEBOOK = paths.ROOT / "notebooks" / "30_preferences.md"


# --- pingouin Spearman -------------------------------------------------------------------------------------


def test_spearman_ci_matches_scipy_and_fisher_z():
    bt = pd.DataFrame({"model": list(pref.TRAINED), "strength": [0.9, 1.1, 1.4, 1.2]})
    val = dict(zip(pref.TRAINED, [0.60, 0.62, 0.66, 0.67], strict=True))
    got = spearman_bt_vs_val_ci(bt, val_pref_acc=val)
    ref = stats.spearmanr([0.9, 1.1, 1.4, 1.2], [0.60, 0.62, 0.66, 0.67])
    assert got["rho"] == pytest.approx(ref.statistic, abs=1e-12)
    assert got["rho"] == pytest.approx(0.8, abs=1e-12)  # one neighbour swap of four: 1 - 6*2/60
    assert got["p"] == pytest.approx(ref.pvalue, abs=1e-12)
    z, half = np.arctanh(0.8), 1.959963984540054 / np.sqrt(4 - 3)  # hand-worked Fisher-z interval, n = 4
    assert got["ci_lo"] == pytest.approx(np.tanh(z - half), abs=1e-12)
    assert got["ci_hi"] == pytest.approx(np.tanh(z + half), abs=1e-12)
    assert [round(got["ci_lo"], 2), round(got["ci_hi"], 2)] == got["ci_pingouin"]  # pingouin prints 2 decimals


def test_spearman_ci_on_the_study_keeps_the_published_rho():
    bt = pref.bradley_terry_table(data.load_hitl_pair_counts())
    got = spearman_bt_vs_val_ci(bt)
    assert got["rho"] == pytest.approx(pref.spearman_bt_vs_val(bt), abs=1e-12)
    assert got["ci_lo"] < 0 < got["rho"] < got["ci_hi"] < 1


def test_spearman_ci_needs_four_models():
    bt = pd.DataFrame({"model": ["recipe_a", "recipe_b", "recipe_c"], "strength": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match="at least 4"):
        spearman_bt_vs_val_ci(bt, models=("recipe_a", "recipe_b", "recipe_c"))


# --- small helpers, hand-worked -------------------------------------------------------------------------------


def test_category_leaders_groups_categories_by_model():
    cat_bt = pd.DataFrame(
        {"untrained": [0.5, 0.5, 2.0], "recipe_c": [2.0, 0.4, 1.0], "recipe_d": [1.0, 3.0, 1.0]},
        index=["advice_x", "coding", "teaching"],
    )
    assert summary.category_leaders(
        cat_bt
    ) == "Untrained in teaching; Recipe C in advice x; Recipe D in coding".replace(
        "Untrained", pref.MODEL_LABELS["untrained"]
    ).replace("Recipe C", pref.MODEL_LABELS["recipe_c"]).replace("Recipe D", pref.MODEL_LABELS["recipe_d"])


def test_rank_shares_hand_case():
    # columns in MODELS order: untrained, a, b, c, d; strengths -> ranks
    s = np.array(
        [
            [1, 2, 3, 4, 5],  # untrained last, A 4th: bottom pair, untrained last
            [2, 1, 3, 4, 5],  # A last, untrained 4th: bottom pair, untrained not last
            [5, 1, 2, 3, 4],
        ],
        dtype=float,
    )  # untrained first
    got = rank_shares(SimpleNamespace(strengths=s))
    assert got == {"bottom_pair": pytest.approx(2 / 3), "untrained_last": pytest.approx(1 / 3)}


def test_register_missing_counts_empty_values_by_the_input_they_wait_for():
    got = pref_values.register_missing(
        {
            "c": "data/hitl/annotations.parquet (rows)",
            "d": "data/hitl/annotations.parquet (rows); and response texts",
            "e": register.DESIGN_MISSING,
            "f": "something else",
        }
    )
    assert got.to_dict("records") == [
        {"missing input": "row-level annotations", "empty values": 2},
        {"missing input": "design constant (quoted)", "empty values": 1},
        {"missing input": "something else", "empty values": 1},
    ]


def test_c_vs_d_view_says_when_the_two_disagree():
    cd = {"log_ratio": 0.05, "ci_lo": -0.1, "ci_hi": 0.2, "p_greater": 0.7, "separable": False}
    h2h = {
        "wins": 55,
        "losses": 45,
        "ties": 10,
        "win_rate": 0.55,
        "wilson_lo": 0.45,
        "wilson_hi": 0.65,
        "binom_p": 0.37,
    }
    view, tail = views.c_vs_d_view(cd, h2h, 0.95)
    assert tail == "opposite directions; neither interval excludes equality."
    assert view["value"].tolist()[:2] == ["+0.050", "[-0.100, +0.200]"]
    assert view["value"].iloc[3] == "55–45 (10)"


def test_claims_view_marks_agreement():
    tbl = pd.DataFrame(
        {
            "claim_id": ["x", "y", "z"],
            "level": "raw",
            "published": [1, 2, 3],
            "ours": pd.Series([1.0, 2.5, None], dtype=object),
            "tol": 0.1,
            "agrees": [True, False, None],
            "missing": ["", "", "m"],
        }
    )
    view = views.claims_view(tbl)
    assert view["agrees"].tolist() == ["✓ yes", "✗ no", "— empty"]
    assert view["ours"].tolist() == ["1", "2.5", ""]


# --- the whole chapter on the real counts, cheap settings --------------------------------------------------------


CHEAP = dict(
    seed=1,
    n_bootstrap=200,
    ci_level=0.95,
    trueskill_orders=3,
    sim_budget=400,
    sim_repetitions=20,
    sim_checkpoint_every=200,
    sim_batch=20,
    sim_arena_skew=1.0,
    sim_prior_sd=1.0,
    sim_target=0.95,
    annotations_path="data/hitl/annotations.parquet",
)


def cheap_mc(counts: pd.DataFrame) -> dict:
    """A small stand-in for the preferences_mc stage's outputs (few repetitions)."""
    truth = pref.decisive_truth(counts, "davidson")
    cd_pair = (pref.MODELS.index("recipe_c"), pref.MODELS.index("recipe_d"))
    gap = pref.needed_by_gap(
        truth, (2.0, 1.0, 0.5, 0.25), cd_pair, repetitions=300, seed=1, pilot_repetitions=200, ratio=1.06, half_width=4
    )
    at1 = gap[gap["factor"] == 1.0].iloc[0]
    top = pref.uniform_needed(truth, repetitions=300, seed=2, pilot_repetitions=200, what="top")
    values = {
        "pref_mc.target": 0.95,
        "pref_mc.repetitions": 300,
        "pref_mc.checkpoints": 9,
        "pref_mc.uniform.n_for_ranking": at1["n_needed"],
        "pref_mc.uniform.n_for_ranking_mc_lo": at1["n_mc_lo"],
        "pref_mc.uniform.n_for_ranking_mc_hi": at1["n_mc_hi"],
        "pref_mc.uniform.n_for_ranking_mc_se": at1["n_mc_se"],
        "pref_mc.uniform.n_for_top": top["n"],
        "pref_mc.uniform.n_for_top_mc_lo": top["mc_lo"],
        "pref_mc.uniform.n_for_top_mc_hi": top["mc_hi"],
        "pref_mc.uniform.n_for_top_mc_se": top["mc_se"],
    }
    w = montecarlo.widening(counts, data.load_hitl_pair_counts_by_category(), 400, 3)
    values["pref_mc.cluster_widen.replicates"] = 400
    for r in w.itertuples():
        values[f"pref_mc.cluster_widen.{r.model}"] = r.ratio
        values[f"pref_mc.cluster_widen.{r.model}_mc_se"] = r.mc_se
    return {"values": values, "gap": gap}


def cheap_inputs() -> Inputs:
    """The study's inputs without row-level annotations, with :func:`cheap_mc`."""
    inputs = Inputs.load(study_params("preferences", **CHEAP), mc=False)
    return dataclasses.replace(inputs, mc=cheap_mc(inputs.counts), annotations=None)


def cheap_build(inputs: Inputs | None = None, **changes):
    return build(study_params("preferences", **(CHEAP | changes)), inputs or cheap_inputs())


@pytest.fixture(scope="module")
def res():
    return cheap_build()


def test_summary_numbers_from_the_counts(res):
    s = summary.summary(res)
    counts = res.inputs.counts
    assert s["pref_n_pairs"] == 10 and s["pref_n_categories"] == 8 and s["pref_cat_match"] == 10
    assert s["pref_n_ratings"] == int(counts["n"].sum())
    assert s["pref_n_ties"] == int(counts["ties"].sum())
    assert s["pref_n_decisive"] == s["pref_n_ratings"] - s["pref_n_ties"]
    assert s["pref_tie_share"] == pytest.approx(s["pref_n_ties"] / s["pref_n_ratings"])
    assert s["pref_rho"] == pytest.approx(0.8) and s["pref_rho_n"] == 4
    assert s["pref_bt_maxdiff"] < 1e-6  # bit for bit against the published strengths
    h2h = res.tests.d_vs_c
    assert s["pref_h2h_d"] + s["pref_h2h_c"] == int(h2h["wins"] + h2h["losses"])
    assert sum(s[f"pref_p_best_{m.replace('recipe_', '')}"] for m in pref.MODELS) == pytest.approx(1.0)
    assert s["pref_fwer"] == pytest.approx(1 - 0.95**10)
    assert s["pref_sim_tie_factor"] == pytest.approx(1 / (1 - s["pref_tie_share"]))


def test_a_fit_that_agrees_exactly_reads_0_in_the_prose_and_in_table_5_4(res):
    """Issue 33: the converged MM fit and choix agree exactly, and the chapter printed 0.0e+00 for it (prose and
    the |converged − choix| column); an exact agreement reads "0", any other difference keeps two digits."""
    from compendium.chapter.display import table

    cc = res.report.crosscheck
    s = summary.summary(res)
    assert (cc["abs_diff_converged_vs_choix"] == 0).all()
    assert s["pref_bt_choix_conv"] == "0" and s["pref_bt_maxdiff_text"] == "0"
    assert s["pref_bt_choix_diff"] == f"{cc['abs_diff_procedure_vs_choix'].max():.1e}" != "0"
    md = table(cc, "tbl-pref-bt", "cap", **views.VIEWS["crosscheck"]).data
    assert "e+00" not in md
    rows = [ln.split(" | ") for ln in md.splitlines() if ln.startswith("| Untrained")]
    assert rows and rows[0][-1].rstrip(" |") == "0" and rows[0][-2].endswith("e-07")


def test_summary_covers_every_glued_name_of_the_chapter(res):
    """Every {glue:text}/{glue:figure} name the chapter's prose uses is glued by the summary or a figure cell."""
    text = NOTEBOOK.read_text()
    used = set(re.findall(r"\{glue:text\}`([a-z0-9_]+)", text)) | set(re.findall(r"\{glue:figure\} (\w+)", text))
    reg_values, reg_missing = register.register_values(res)
    reg = summary.register_phrases(reg_values, reg_missing) | summary.verdicts(reg_values)
    figs = set(re.findall(r'glue_figure\(STAGE, "\w+", fig, "(\w+)"\)', text))
    provided = set(summary.summary(res)) | set(reg) | figs
    assert used - provided == set()


def test_the_category_bootstrap_is_read_as_new_categories_not_new_prompts():
    """Resampling the 8 categories answers what prompts from *new categories* would give, not new prompts of
    these categories (those would resample prompts within a category, which the published counts cannot)."""
    text = NOTEBOOK.read_text()
    assert not re.search(r"new prompts(?! from new categories)", text), "the category bootstrap read as 'new prompts'"
    assert text.count("new categories") >= 2  # the prose and the cluster table's caption


@pytest.mark.parametrize("section", summary.PHRASES, ids=lambda f: f.__name__)
def test_each_section_is_a_pure_function_of_the_result(res, section):
    """Each section gives prose values (numbers or text) under pref_ names, the same twice, without
    touching the result."""
    before = pd.util.hash_pandas_object(res.report.pairs).sum(), res.bootstrap.summary.to_csv()
    got = section(res)
    assert got and all(k.startswith("pref_") for k in got)
    assert all(isinstance(v, (int, float, str, np.integer, np.floating)) for v in got.values()), section.__name__
    assert section(res) == got
    assert (pd.util.hash_pandas_object(res.report.pairs).sum(), res.bootstrap.summary.to_csv()) == before


def test_sections_give_disjoint_names(res):
    names = [k for f in summary.PHRASES for k in f(res)]
    pct = {f"{k}_pct" for k in summary.PERCENTS}  # the shares the prose prints as percentages ("67 %")
    assert len(names) == len(set(names)) == len(set(summary.summary(res)) - pct)
    assert pct <= set(summary.summary(res)) and all(summary.summary(res)[k].endswith(" %") for k in pct)


def test_section_numbers_by_hand(res):
    rep, cat = res.report, res.categories
    assert summary.pair_phrases(res)["pref_db_d"] == rep.d_vs_b["wins"]
    assert summary.data_phrases(res)["pref_ratings_per_cell"] == pytest.approx(
        rep.n_ratings / (10 * len(res.inputs.prompts))
    )
    per = cat.model_decisive
    assert summary.category_phrases(res)["pref_cat_halfwidth"] == pytest.approx(1.96 * 0.5 / np.sqrt(per.median()))
    ts = summary.trueskill_phrases(res)
    assert ts["pref_ts_gap_min"] <= ts["pref_ts_gap_max"] and ts["pref_ts_orders"] == 3
    assert (
        summary.theme_phrases(res)["pref_themes_gap"] == res.themes.check["n_comments"] - res.themes.check["sum_counts"]
    )
    cd = summary.c_vs_d_phrases(res)
    assert cd["pref_cd_answer"] == ("Yes, at this interval level" if res.bootstrap.c_vs_d["separable"] else "No")
    assert summary.davidson_phrases(res)["pref_nu"] == res.davidson.fit["nu"]
    sim = summary.simulation_phrases(res)
    assert sim["pref_sim_reps"] == 20 and sim["pref_sim_batch"] == 20
    cmp = summary.comparison_phrases(res)
    assert cmp["pref_sim_cmp_n"] == res.simulation.n_compare
    assert summary.multiplicity_phrases(res)["pref_holm_n"] == int(res.tests.holm["significant_holm"].sum())
    assert summary.mc_phrases(res)["pref_mc_reps"] == 300


def test_rowlevel_text_without_rows_names_the_file(res):
    text = summary.rowlevel_text(res)
    assert "were not available" in text and "annotations.parquet" in text and "305" in text


@pytest.mark.parametrize("texts", [True, False], ids=["card-shaped", "no-texts"])
def test_rowlevel_text_says_when_the_rows_have_no_response_texts(res, texts):
    """With card-shaped rows (response texts as response_a / response_b) the paragraph says nothing of texts;
    without either pair of text columns it says, in one sentence, which columns the length ratios need."""
    from compendium.chapter.safetext import myst
    from compendium.data.synthetic_hitl import make_study_rows
    from compendium.preferences import build as pbuild, rowlevel

    rows = make_study_rows(seed=1)
    if not texts:
        rows = rows.drop(columns=["response_a", "response_b"])
    with_rows = dataclasses.replace(res, rows=pbuild.row_level(dataclasses.replace(res.inputs, annotations=rows)))
    text = summary.rowlevel_text(with_rows)
    assert text.startswith("The row-level annotations are present")
    assert (str(myst(rowlevel.TEXTS_ABSENT)) in text) is not texts
    assert ("response" in text) is not texts  # the sentence is the only mention of the texts


def test_stage_values_and_tables(res):
    reg, missing = register.register_values(res)
    v = merge_values(pref_values.stage_values(res), reg)
    assert v["hitl.spearman.bt_vs_val_pref_acc"] == pytest.approx(0.8)
    assert v["pref.spearman.pingouin.rho"] == pytest.approx(0.8)
    lo, hi = v["pref.spearman.pingouin.ci"]
    assert lo < 0.8 < hi and 0 < v["pref.spearman.pingouin.p"] < 1
    assert v["pref.n_decisive"] == res.report.n_decisive
    assert v["pref.rowlevel.available"] == 0
    tables = pref_values.tables(res)
    assert {"pairs", "bradley_terry", "trueskill", "simulation_vs_uniform"} <= set(tables)
    # a table indexed by category or model is written with its index as the first column
    assert list(tables["category_win_rates"])[:2] == ["category", "untrained"]
    assert list(tables["bt_prob_greater"]) == ["model", *pref.MODELS]
    assert all(isinstance(df.index, pd.RangeIndex) for df in tables.values())


def test_stage_values_refuse_a_key_two_sections_give_different_values(res, monkeypatch):
    monkeypatch.setattr(pref_values, "VALUE_SECTIONS", (*pref_values.VALUE_SECTIONS, lambda r: {"pref.n_decisive": -1}))
    with pytest.raises(ValueError, match="pref.n_decisive"):
        pref_values.stage_values(res)


# --- does it reproduce: the claims check's statuses ---------------------------------------------------------------


def test_verdicts_say_how_many_claims_reproduce_from_the_claims_statuses(res, monkeypatch):
    """At the paper's settings every claim with a value reproduces; one changed value is counted as not
    reproducing; off the paper's settings the sentence names the changed key."""
    # at the paper's settings: no record of a changed parameter (the workspace's records may be an exercise's, off
    # the paper: make test must pass after one too)
    monkeypatch.setattr(compare, "off_paper_studies", lambda *a, **k: {})
    reg, missing = register.register_values(res)
    v = summary.verdicts(reg)
    ids = [c["id"] for c in summary._register_claims()]
    n = sum(reg.get(i) is not None for i in ids)  # the register's claims with a value here
    assert v["pref_n_claims"] == len(ids) == v["pref_n_empty"] + n
    assert v["pref_claims_verdict"] == (
        f"{n} of the {n} with a value here agree with the printed number within the register's tolerance "
        "(labels as text) and 0 do not"
    )
    wrong = reg | {"hitl.n_ratings": reg["hitl.n_ratings"] + 100}
    assert summary.verdicts(wrong)["pref_claims_verdict"].startswith(f"{n - 1} of the {n} with a value here agree")
    assert summary.verdicts(wrong)["pref_claims_verdict"].endswith("and 1 do not")
    monkeypatch.setattr(
        compare, "off_paper_studies", lambda *a, **k: {"hitl": ["preferences.seed=1 (reference 20260513)"]}
    )
    got = summary.verdicts(wrong)["pref_claims_verdict"]
    assert got.startswith("off the paper's settings (preferences.seed=1 (reference 20260513)), ")


def test_claims_check_lists_every_claim_with_the_claims_status(res):
    reg, missing = register.register_values(res)
    tbl = summary.claims_check(reg | {"hitl.n_ratings": reg["hitl.n_ratings"] + 100}, missing)
    assert list(tbl.columns) == ["claim_id", "level", "published", "ours", "tol", "agrees", "missing"]
    assert len(tbl) == summary.verdicts(reg)["pref_n_claims"]
    by_id = tbl.set_index("claim_id")
    assert by_id.loc["hitl.n_ratings", "agrees"] is False and by_id.loc["hitl.n_ties", "agrees"] is True
    empty = by_id[by_id["ours"].isna()]
    assert empty["agrees"].isna().all() and (empty.loc[empty.index.isin(missing), "missing"] != "").all()


# --- display helpers --------------------------------------------------------------------------------------------


def test_table_keeps_columns_then_renames_formats_and_labels():
    df = pd.DataFrame({"model": ["a", "b"], "x": [0.123456, 2.0], "drop": [1, 2]})
    md = display.table(
        df,
        "tbl-t",
        "cap",
        columns=["model", "x"],
        rename={"x": "value", "unused": "?"},
        formats={"value": "{:.2f}"},
        labels={"model": {"a": "A", "b": "B"}},
    ).data
    assert "| model | value |" in md and "| A | 0.12 |" in md and "drop" not in md
    assert list(df.columns) == ["model", "x", "drop"] and df["model"].tolist() == ["a", "b"]  # input untouched


def test_views_name_existing_columns(res):
    """Every column a VIEWS entry keeps, renames, formats or labels exists in the table it displays."""
    frames = {
        "counts": res.inputs.counts,
        "pairs": res.report.pairs,
        "record": res.report.record,
        "crosscheck": res.report.crosscheck,
        "themes": res.themes.table,
        "bootstrap": res.bootstrap.summary,
        "davidson": res.davidson.table,
        "trueskill": res.trueskill.table,
        "gap": res.gap.table,
    }
    assert set(frames) == set(views.VIEWS)
    for key, view in views.VIEWS.items():
        df = frames[key]
        if df is None:
            continue
        shown = df[view.get("columns", list(df.columns))].rename(columns=view.get("rename", {}))
        for col in list(view.get("formats", {})) + list(view.get("labels", {})):
            assert col in shown.columns, (key, col)
        md = display.table(df, f"tbl-{key}", "cap", **view).data
        assert "recipe_c" not in md.split("\n", 4)[-1] or key == "themes", key  # model ids shown as names


# --- claims chapter ---------------------------------------------------------------------------------------------


def test_claims_prose_values():
    ev = SimpleNamespace(
        counts={"reproduced": 5, "unexplained": 0},
        table=pd.DataFrame({"x": range(7)}),
        tables=["t1", "t2"],
        missing_cells={"t1": ["c1", "c2"]},
        off_paper={},
        moved={},
    )
    v = claims.prose_values(ev)
    assert v["claims_reproduced"] == 5 and v["claims_total"] == 7 and v["claims_n_tables"] == 2
    assert "claims_n_changed" not in v  # status changes go to results/.history, not the chapter
    assert v["claims_missing_cells_sentence"].startswith("2 cell ids of 1 tables")
    assert v["claims_unexplained_sentence"] == "Every claim is accounted for."
    ev.counts["unexplained"], ev.missing_cells = 3, {}
    v = claims.prose_values(ev)
    assert v["claims_unexplained_sentence"].startswith("3 claims are UNEXPLAINED")
    assert v["claims_missing_cells_sentence"] == "Every cell id is."
    assert v["claims_approx_pct"] == f"{claims.APPROX_REL * 100:g}"


def test_count_phrases_agree_with_their_number():
    from compendium.preferences.summary import pairs_phrase, survive_phrase

    assert [survive_phrase(n) for n in (0, 1, 2, 4)] == ["none survives", "1 survives", "2 survive", "4 survive"]
    assert [pairs_phrase(n) for n in (0, 1, 3)] == ["no pair", "1 pair", "3 pairs"]
    with pytest.raises(ValueError):
        survive_phrase(-1)


def test_gap_table_keeps_only_gaps_where_c_d_stays_the_closest_pair(res):
    g = res.gap
    assert g.dropped == ["×2"]  # at twice the gap C-D (0.128) is wider than D-B (0.079)
    assert summary.dropped_text(res) == "×2"
    assert list(g.table["ratio_to_estimate"]) == [1.0, 0.5, 0.25]
    for shown, n, se in zip(g.table["n_needed"], g.kept["n_needed"], g.kept["n_mc_se"], strict=True):
        unit = 10 ** np.floor(np.log10(se))
        assert shown % unit == 0 and abs(shown - n) <= se  # rounded to the digits its MC error supports
    s = summary.summary(res)
    v = res.inputs.mc["values"]
    n, se = v["pref_mc.uniform.n_for_ranking"], v["pref_mc.uniform.n_for_ranking_mc_se"]
    printed = round(n / mc_step(se, n, "estimate")) * mc_step(se, n, "estimate")
    assert s["pref_mc_uniform_rank"] == printed
    assert s["pref_sim_ratio"] == round(printed / s["pref_n_decisive"])  # the ratio follows the printed number
    assert "90 % Monte Carlo interval" in s["pref_mc_uniform_rank_txt"]
    assert s["pref_gap_adjacent"].startswith("C–D 0.064, D–B 0.079, B–A 0.232, A–")
    p, n = s["pref_cd_p"], res.params.n_bootstrap
    assert s["pref_cd_p_se"] == pytest.approx(100 * np.sqrt(p * (1 - p) / n))


def test_category_bootstrap_widening_is_given_per_model(res):
    s = summary.summary(res)
    cl = res.cluster.summary.set_index("model")["sd_log_strength"]
    jb = res.bootstrap.summary.set_index("model")["sd_log_strength"]
    ratios = [cl[m] / jb[m] for m in pref.MODELS]
    assert s["pref_cl_widen_min"] == pytest.approx(min(ratios)) and s["pref_cl_widen_max"] == pytest.approx(max(ratios))
    assert s["pref_cl_widen_min"] <= s["pref_cl_widen"] <= s["pref_cl_widen_max"]
    v = res.inputs.mc["values"]
    assert s["pref_cl_widen_reps"] == v["pref_mc.cluster_widen.replicates"]
    assert s["pref_cl_widen_se"] == max(v[f"pref_mc.cluster_widen.{m}_mc_se"] for m in pref.MODELS)


def test_widening_range_prints_each_end_to_the_digits_its_error_supports():
    """Hand-worked: the old 5,000-replicate run's 1.62 +- 0.023 and 3.05 +- 0.043 printed "1.6- to 3.1-fold";
    to its error the upper end is 3.05 (3.1 would move it by more than 0.043); the 50,000-replicate ratios
    1.6552 +- 0.0072 and 3.0007 +- 0.0135 give 1.66 and 3.0."""
    old = pd.DataFrame({"model": list("ab"), "ratio": [1.6205, 3.052], "mc_se": [0.023, 0.043]})
    assert summary.widen_range_text(old) == "about 1.6- to 3.05-fold"
    new = pd.DataFrame({"model": list("abc"), "ratio": [1.9, 3.0007, 1.6552], "mc_se": [0.01, 0.0135, 0.0072]})
    assert summary.widen_range_text(new) == "about 1.66- to 3.0-fold"


def test_widening_ratio_and_its_error_against_repeated_bootstraps():
    """The delta-method SE of sd_ratio against brute force: the SD of the ratio over 200 pairs of
    independent synthetic bootstraps with known SDs (within 20 %); the ratio itself is unbiased to 1 %."""
    rng = np.random.default_rng(0)
    sd_wide = np.array([0.2, 0.3, 0.1, 0.25, 0.15])
    got, ses = [], []
    for _ in range(200):

        def boot(sd):
            return pref.BootstrapBT(strengths=np.exp(rng.standard_t(8, (2000, 5)) * sd), point=np.ones(5))

        r = pref.sd_ratio(boot(sd_wide), boot(np.full(5, 0.1)))
        got.append(r["ratio"].to_numpy())
        ses.append(r["mc_se"].to_numpy())
    got, ses = np.array(got), np.array(ses)
    # centring over the 5 models changes the SDs; the reference is the ratio of the centred population SDs
    C = np.eye(5) - 1 / 5
    ref = np.sqrt((C**2 @ sd_wide**2) / (C**2 @ np.full(5, 0.01)))
    assert got.mean(0) == pytest.approx(ref, rel=0.01)
    assert ses.mean(0) == pytest.approx(got.std(0, ddof=1), rel=0.2)
