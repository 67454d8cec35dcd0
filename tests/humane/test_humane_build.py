"""The chapter's one computation (compendium.humane.build) on a tiny book grid, and what reads its result: the
phrases (summary), the recorded values and tables (values), no register, the provenance of each value, and the
chapter that builds once and publishes."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pandas as pd
import pytest

from compendium.humane import baseline, build as hb, grid, register, report, simulate as sim, summary, sweep, values
from compendium.pipeline import paths
from compendium.pipeline.params import SCHEMA, study_params
from compendium.pipeline.results import write_exports

STUDY = np.array([1.2, 1.1, 1.0, 0.85, 0.8])
NU = 0.44
SEED = 5


def tiny_book(params) -> tuple[tuple[int, tuple[sim.Point, ...]], ...]:
    """Two blocks as the book's grid has them: 5 models (uniform and TrueSkill information gain, one group; uniform
    with 3 groups) and 20 models (uniform, one group), on a small budget."""
    ck = grid.checkpoints(400, 20, 3)
    th5 = tuple(float(x) for x in sim.strengths(5, "study", STUDY, params.wide_sd))
    th20 = tuple(float(x) for x in sim.strengths(20, "wide", STUDY, params.wide_sd))
    five = (
        sim.Point(5, "study", th5, NU, 1, 0.0, "uniform", ck),
        sim.Point(5, "study", th5, NU, 1, 0.0, "ig_trueskill", ck),
        sim.Point(5, "study", th5, NU, 3, params.group_sd, "uniform", ck),
    )
    twenty = (sim.Point(20, "wide", th20, NU, 1, 0.0, "uniform", ck),)
    return ((6, five), (4, twenty))


@pytest.fixture(scope="module")
def params():
    return study_params("humane", seed=SEED, default_repetitions=2, block_size=2)


@pytest.fixture(scope="module")
def inputs(params):
    book = tiny_book(params)
    rows = []
    for reps, pts in book:
        frames = [sweep._compute(p, list(range(reps)), params.seed) for p in sorted(pts, key=sim.point_key)]
        rows.append(pd.concat(frames, ignore_index=True))
    return hb.Inputs(pi=STUDY, nu=NU, book=book, rows=pd.concat(rows, ignore_index=True))


@pytest.fixture(scope="module")
def client():
    from distributed import Client

    c = Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0")
    yield c
    c.close()


@pytest.fixture(scope="module")
def result(params, inputs, client):
    return hb.build(params, inputs, client=client)


def test_build_computes_each_answer_once(params, inputs, client):
    """One build: judgements needed for the book and for the default grid (two questions), the savings of both
    targets as one family, calibration once per number of models and once per setting, consolidation, its cells
    and the curves once, and one live sweep (the default grid); the book's blocks are the inputs', not swept
    again; no shared baseline where the grid lacks the preferences chapter's experiment."""
    from counting import calls_of, key_of

    counted = (report.needed, report.savings, report.calibration, report.calibration_by_setting,
               report.consolidation, report.consolidation_cells, report.curves, baseline.shared_baseline)  # fmt: skip
    with calls_of(*counted, sweep.run_sweep, grid.default_grid, only_from=("compendium.",)) as calls:
        hb.build(params, inputs, client=client)
    assert {key_of(f): calls[key_of(f)] for f in counted} == {
        key_of(report.needed): 2,
        key_of(report.savings): 1,
        key_of(report.calibration): 2,
        key_of(report.calibration_by_setting): 1,
        key_of(report.consolidation): 1,
        key_of(report.consolidation_cells): 1,
        key_of(report.curves): 1,
        key_of(baseline.shared_baseline): 0,
    }
    assert calls[key_of(sweep.run_sweep)] == 1 and calls[key_of(grid.default_grid)] == 1


def test_the_same_answers_on_one_core(params, inputs, client, result, monkeypatch):
    """On two cores the book grid's answers run in a thread beside the default grid, and the savings' two targets
    at once (compendium.stats.threads); on one, everything in turn: the same frames."""
    from compendium.stats import threads

    monkeypatch.setattr(threads, "cores", lambda: 1)
    one = hb.build(params, inputs, client=client)
    for part in ("needed", "saving", "calibration", "calibration_settings", "consolidation", "consolidation_cells",
                 "curves"):  # fmt: skip
        pd.testing.assert_frame_equal(getattr(one, part), getattr(result, part))
    pd.testing.assert_frame_equal(one.default.needed, result.default.needed)


def test_the_result_holds_the_reports_of_the_inputs(params, inputs, result):
    points = list(inputs.points)
    pd.testing.assert_frame_equal(result.needed, report.needed(inputs.rows, points, seed=params.seed))
    pd.testing.assert_frame_equal(result.saving, report.savings(inputs.rows, points, seed=params.seed))
    assert list(result.saving["target"].unique()) == ["top", "rank"]
    assert sorted(result.calibration["n_models"].unique()) == [5, 20]
    assert len(result.calibration_settings) == 3 * len(report.SETTING_RANGES)  # the three single-group settings
    assert result.consolidation["n_groups"].tolist() == [3] and result.shared is None
    assert set(result.consolidation_cells["checkpoint"]) == {0, 1, 2}
    assert result.repetitions == {5: (6,), 20: (4,)} and result.budget == 400 and result.nu == NU
    d = result.default
    assert len(d.points) == len(sim.DESIGNS) and d.repetitions == 2 and (d.needed["repetitions"] == 2).all()
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.needed = pd.DataFrame()  # type: ignore[misc]
    with pytest.raises(TypeError):
        result.repetitions[5] = (1,)  # type: ignore[index]


def test_summary_is_the_union_of_its_phrases_and_values_leave_out_the_paragraphs(result):
    sections = [f(result) for f in summary.PHRASES]
    keys = [set(s) for s in sections]
    assert sum(len(k) for k in keys) == len(set().union(*keys)) == len(summary.summary(result))
    g = summary.summary(result)
    assert g["h_reps_5"] == "6" and g["h_reps_20"] == "4" and g["h_budget"] == 400 and g["h_nu"] == NU
    assert g["h_default_reps"] == 2 and g["h_wide_sd"] == 0.6
    assert type(g["h_when"]).__name__ == "Markdown" and "**At 5 models.**" in g["h_when"].data
    v = values.stage_values(result)
    assert set(v) == set(g) - {"h_when", "h_claims"}
    assert all(v[k] == g[k] for k in v if isinstance(v[k], str))


def test_tables_are_every_table_of_the_chapter(result):
    t = values.tables(result)
    assert list(t) == ["needed", "saving", "calibration", "calibration_settings", "consolidation",
                       "consolidation_cells", "curves", "default_needed"]  # fmt: skip
    assert t["default_needed"] is result.default.needed and t["curves"] is result.curves


def test_the_chapter_has_no_register_values(result):
    assert register.register_values(result) == ({}, {})


def test_every_value_has_a_provenance_that_resolves(result):
    """Each ``h_*`` value falls under a prefix of provenance.py, and each function and test it names is defined in
    its file (so a renamed function or test fails here)."""
    from compendium import claims
    from compendium.claims import links
    from compendium.humane import provenance

    prov = provenance.PROVENANCE
    for key in values.stage_values(result):
        assert any(key.startswith(p) for p in prov), key
    for text in prov.values():
        fns, test = claims.split_provenance(text)
        assert test, text
        for name in [*links.split_functions(fns), test]:
            target = links.source_target(name)
            assert target is not None, name
            file, anchor = target
            assert anchor in links.objects((paths.ROOT / file).read_text(encoding="utf-8")), name


def test_the_studys_nu_is_the_preferences_export_for_this_stage(tmp_path):
    """study_truth reads the Davidson table and the few values the preferences chapter exports for this stage,
    not its whole values.json."""
    pref = tmp_path / "results" / "preferences"
    (pref / "tables").mkdir(parents=True)
    pd.DataFrame({"model": list("abcde"), "davidson": STUDY}).to_csv(pref / "tables" / "davidson.csv", index=False)
    with pytest.raises(FileNotFoundError, match="dvc repro preferences"):
        grid.study_truth(tmp_path)
    write_exports("preferences", {"pref.davidson.nu": NU, "pref.c_vs_d.p_c_stronger": 0.7,
                                  "pref.bootstrap_cluster.p_c_stronger_than_d": 0.6, "pref.c_vs_d.n_bootstrap": 10},
                  root=pref)  # fmt: skip
    pi, nu = grid.study_truth(tmp_path)
    assert nu == NU and pi.tolist() == STUDY.tolist()


def test_inputs_refuse_a_store_without_the_books_blocks(tmp_path):
    params = study_params("humane")
    try:
        grid.study_truth()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    with pytest.raises(RuntimeError, match="python -m compendium.humane.sweep --grid book"):
        hb.Inputs.load(params, store=tmp_path)


def test_the_chapter_builds_once_and_publishes_the_result():
    text = (paths.ROOT / "notebooks" / "35_humane_scale.md").read_text()
    assert len(re.findall(r"\bbuild\(", text)) == 1 and len(re.findall(r"\bInputs\.load\(", text)) == 1
    assert "glue_all(summary.summary(result))" in text
    assert "values = publish(STAGE, stage_values(result), None, tables(result))" in text
    assert "write_table(" not in text and "write_values(" not in text  # publish writes them, once
    # the chapter passes every parameter of its parameters cell, by name, and no other notebook variable
    call = re.search(r'study_params\(\n    "humane", (.*?)\n\)', text, re.S).group(1)
    assert set(re.findall(r"(\w+)=(\w+)", call)) == {(f, f) for f in SCHEMA["humane"].model_fields}


def test_the_claims_lines_say_when_every_resolvable_setting_has_one_strength_vector(fresh_stage):
    """Issue 33, C4: "4 of 4 resolvable settings" that all share one spread of strengths must say so."""
    import pandas as pd

    from compendium.humane import summary

    tables = fresh_stage("humane") / "tables"
    names = ("saving", "calibration", "consolidation", "calibration_settings", "consolidation_cells")
    sav, cal, cons, cs, cells = (pd.read_csv(tables / f"{n}.csv") for n in names)
    text = summary.claims_text(sav, cal, cons, cs, cells)
    for design in ("ig_trueskill", "ig_davidson", "arena"):
        for n in sorted(sav["n_models"].unique()):
            t = summary._resolvable(sav[(sav["design"] == design) & (sav["n_models"] == n)])
            if len(t) > 1 and t["spread"].nunique() == 1:
                assert "resolvable settings a saving, " in text and f"all with the {t['spread'].iloc[0]} spread" in text
    one = sav.assign(spread="wide")
    assert "all with the wide spread of strengths" in summary.claims_text(one, cal, cons, cs, cells) or not any(
        len(summary._resolvable(one[(one["design"] == d) & (one["n_models"] == n)])) > 1
        for d in ("ig_trueskill", "ig_davidson", "arena")
        for n in one["n_models"].unique()
    )


# --- issue 33, C1: the uniform baseline the chapter shares with the preferences chapter -------------------------


def test_the_uniform_baseline_is_the_preferences_chapters_simulation(params, client):
    """Issue 33, C1: the point that is the preferences chapter's experiment (uniform pairs, the study's strengths, no
    ties) takes its studies from that chapter's simulation, ``uniform_boards``, scored by this chapter's rule, with
    BASELINE_REPETITIONS studies; a build shows them in every recovery answer (not the sweep's rows) and keeps the
    committed rows for P(best). The sweep's simulator gives the same recovery curve (the same experiment)."""
    from compendium.preferences.simulation import uniform_boards

    study = np.exp([0.8, 0.4, 0.0, -0.4, -0.8])  # a study whose ranking the small budget recovers
    ck = grid.checkpoints(1600, 20, 7)
    th = tuple(float(x) for x in sim.strengths(5, "study", study, params.wide_sd))
    shared = sim.Point(5, "study", th, 0.0, 1, 0.0, "uniform", ck)
    ts = sim.Point(5, "study", th, 0.0, 1, 0.0, "ig_trueskill", ck)
    others = (
        sim.Point(5, "study", th, NU, 1, 0.0, "uniform", ck),
        sim.Point(
            5,
            "wide",
            tuple(float(x) for x in sim.strengths(5, "wide", study, params.wide_sd)),
            0.0,
            1,
            0.0,
            "uniform",
            ck,
        ),
    )
    assert baseline.shared_point([*others, ts, shared], study) == shared
    assert baseline.shared_point(list(others), study) is None  # ties, or another spread: not that experiment
    # the rows: uniform_boards' studies, seeded apart from the sweep's repetitions, scored with the tie rule
    rows = baseline.shared_baseline(shared, SEED, repetitions=300)
    thb = uniform_boards(np.exp(th), ck, 300, np.random.SeedSequence(SEED, spawn_key=(sim.point_key(shared),)))
    rank, top = sim.recovered(thb, np.argsort(-thb, axis=-1, kind="stable"), np.arange(5))
    assert rank[:, 0].mean() < 0.95 <= rank[:, -1].mean()  # the curve crosses 95 % within the grid
    assert rows["rank_pooled"].tolist() == rank.ravel().tolist() and rows["top_pooled"].tolist() == top.ravel().tolist()
    assert (rows["n_decisive"] == rows["n_judgements"]).all() and rows["repetition"].nunique() == 300
    with pytest.raises(ValueError, match="not uniform pairs with one group and no ties"):
        baseline.shared_baseline(ts, SEED)
    # the same experiment as the sweep's simulator: recovery curves within 4 standard errors
    swept = sim.simulate_block(shared, range(400), SEED).groupby("checkpoint")[["rank_pooled", "top_pooled"]].mean()
    big = baseline.shared_baseline(shared, SEED, repetitions=4000).groupby("checkpoint")[["rank_pooled", "top_pooled"]]
    diff = (big.mean() - swept).abs().to_numpy()
    se = np.sqrt(swept.to_numpy() * (1 - swept.to_numpy()) / 400 + 1e-4)
    assert (diff < 4 * se).all(), (big.mean(), swept)
    # a build: the shared point's recovery comes from BASELINE_REPETITIONS studies, P(best) from the committed rows
    book = ((6, (shared, ts, sim.Point(5, "study", th, NU, 3, params.group_sd, "uniform", ck))),)
    frames = [sweep._compute(p, list(range(6)), params.seed) for p in sorted(book[0][1], key=sim.point_key)]
    inputs = hb.Inputs(pi=study, nu=NU, book=book, rows=pd.concat(frames, ignore_index=True),
                       shared={k: 1.0 for k in baseline.SHARED_KEYS})  # fmt: skip
    result = hb.build(params, inputs, client=client)
    need = result.needed[result.needed["n_groups"] == 1].set_index("design")
    assert (
        need.loc["uniform", "repetitions"] == baseline.BASELINE_REPETITIONS
        and need.loc["ig_trueskill", "repetitions"] == 6
    )
    assert result.shared["repetitions"] == baseline.BASELINE_REPETITIONS
    assert result.calibration["n"].sum() == 3 * 6 * len(ck)  # the committed boards, not the baseline's
    g = summary.baseline_phrases(result)
    assert g["h_base_reps"] == f"{baseline.BASELINE_REPETITIONS:,}" and g["h_base_rank_probit"] > 0
    assert g["h_base_pref_rank_txt"].startswith("1 (90 % Monte Carlo interval")  # the inputs' stand-in numbers


def test_the_chapter_agrees_with_the_preferences_chapter_on_their_shared_baseline(fresh_stage):
    """Issue 33, C1, on the committed results: the scale chapter's uniform baseline for the preferences chapter's
    experiment has BASELINE_REPETITIONS studies (the grid's 1,000 put it 9.7 % below the preferences chapter's
    14,000 for the full ranking, about two of its standard errors), and read as the preferences chapter reads a
    curve it is within twice their combined Monte Carlo standard error of that chapter's number."""
    tables = fresh_stage("humane") / "tables"
    need, curves = pd.read_csv(tables / "needed.csv"), pd.read_csv(tables / "curves.csv")
    theirs = baseline.read_shared()
    row = need[(need["n_models"] == 5) & (need["spread"] == "study") & (need["nu"] == 0) & (need["n_groups"] == 1)
               & (need["design"] == "uniform")].iloc[0]  # fmt: skip
    assert row["repetitions"] == baseline.BASELINE_REPETITIONS
    point = sim.Point(5, "study", (0.0,) * 5, 0.0, 1, 0.0, "uniform", (20, 40))  # its setting, for the curve's rows
    probit = baseline.read_as_preferences(curves, point, int(row["repetitions"]))
    for what, key in (("rank", "ranking"), ("top", "top")):
        ours_se = (row[f"n_{what}_hi"] - row[f"n_{what}_lo"]) / (2 * 1.96)
        se = np.hypot(ours_se, theirs[f"pref_mc.uniform.n_for_{key}_mc_se"])
        assert abs(probit[what] - theirs[f"pref_mc.uniform.n_for_{key}"]) < 2 * se, (what, probit, theirs)
        assert abs(row[f"n_{what}"] / theirs[f"pref_mc.uniform.n_for_{key}"] - 1) < 0.06
