"""compendium.preferences.build: one computation per study.

The chapter builds the result once, maps it to the register's claim ids and the chapter's values, collects its
tables and phrases it. During that pass every analysis function runs exactly as often as the study has
distinct questions for it (once, or once per environment / pair), and no Bradley-Terry or Davidson fit is
ever repeated on the same data: a number computed twice fails here (counted with the shared ``counting.calls_of``).
"""

from __future__ import annotations

import dataclasses
from contextlib import ExitStack
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from counting import calls_of, key_of
from test_preferences_summary import CHEAP, cheap_build, cheap_inputs

from compendium import preferences as pref
from compendium.pipeline.params import Preferences, study_params
from compendium.pipeline.results import merge_values
from compendium.preferences import build as pbuild, register, reproduce, simulation, summary, uncertainty, values
from compendium.robustness import sampling as robustness_sampling
from compendium.stats import pairwise as pw

#: analysis function -> calls expected in one pass (more than 1 only for distinct questions, named)
EXPECTED = {
    # the report
    reproduce.bradley_terry_fit: 1,
    reproduce.bradley_terry_table: 1,
    reproduce.bradley_terry_crosscheck: 1,
    reproduce.pair_table: 1,
    reproduce.model_record: 1,
    reproduce.category_sums_match: 1,
    reproduce.winrate_vs_base: 1,
    reproduce.head_to_head: 2,  # D against B, D against C
    reproduce.spearman_bt_vs_val: 1,
    reproduce.spearman_bt_vs_val_ci: 1,
    reproduce.category_bradley_terry: 1,
    reproduce.category_win_rates: 1,
    reproduce.category_pair_table: 1,
    reproduce.comment_themes_table: 1,
    # beyond the report
    uncertainty.bootstrap_bradley_terry: 1,
    uncertainty.bootstrap_bradley_terry_clustered: 1,
    uncertainty.asymptotic_log_se: 1,
    uncertainty.category_heterogeneity: 1,
    uncertainty.davidson_comparison: 1,
    uncertainty.holm_pair_tests: 1,
    uncertainty.wilson_rule_familywise_error: 1,
    uncertainty.trueskill_orders: 2,  # package defaults, tau = 0
    uncertainty.trueskill_library_check: 2,  # one per environment
    simulation.simulate_active_sampling: 1,
    simulation.decisive_truth: 1,  # ties dropped (the Davidson truth is the Davidson section's fit)
    simulation.uniform_recovery_at: 1,
    simulation.compare_with_uniform: 1,
    simulation.detectable_saving: 1,
    pw.davidson_fit: 1,
    # the sections, the mappings and the phrasing
    pbuild.reproduce_report: 1,
    pbuild.per_category: 1,
    pbuild.comment_themes: 1,
    pbuild.judgement_bootstrap: 1,
    pbuild.category_bootstrap: 1,
    pbuild.pair_tests: 1,
    pbuild.davidson: 1,
    pbuild.trueskill: 1,
    pbuild.simulation: 1,
    pbuild.c_d_gap: 1,
    pbuild.row_level: 1,
    pbuild.rank_shares: 1,
    pbuild.category_model_decisive: 1,
    register.report_claims: 1,
    register.register_values: 1,
    **{f: 1 for f in summary.PHRASES},
    **{f: 1 for f in values.VALUE_SECTIONS},
}
#: methods of the result objects -> calls expected (one per bootstrap / environment)
METHODS = {
    (uncertainty.BootstrapBT, "summary"): 2,
    (uncertainty.BootstrapBT, "log_ratio_interval"): 2,
    (uncertainty.BootstrapBT, "rank_probabilities"): 1,
    (uncertainty.BootstrapBT, "prob_greater"): 1,
    (uncertainty.TrueSkillOrders, "summary"): 2,
    (uncertainty.TrueSkillOrders, "share_matching_ranking"): 2,
    (simulation.SimulationResult, "judgements_needed"): 1,
}


def chapter_pass(inputs):
    """What the chapter does with one build: register, values, tables, prose, verdicts, the row-level paragraph
    (everything :func:`compendium.chapter.publish.publish` is handed, without writing)."""
    res = cheap_build(inputs)
    reg, missing = register.register_values(res)
    published = merge_values(values.stage_values(res), reg)
    tables = values.tables(res) | {
        "register_missing": values.register_missing(missing),
        "claims_check": summary.claims_check(reg, missing),
    }
    prose = summary.summary(res) | summary.register_phrases(reg, missing) | summary.verdicts(published)
    return res, published, tables, prose, summary.rowlevel_text(res)


@pytest.fixture(scope="module")
def counted():
    inputs = cheap_inputs()
    with ExitStack() as stack:
        calls = stack.enter_context(calls_of(*EXPECTED))
        meths = {}
        for (cls, name), _ in METHODS.items():
            orig = getattr(cls, name)
            meths[(cls, name)] = stack.enter_context(mock.patch.object(cls, name, autospec=True, side_effect=orig))
        mm = stack.enter_context(mock.patch.object(pw, "bradley_terry_mm", wraps=pw.bradley_terry_mm))
        out = chapter_pass(inputs)
        return out, dict(calls), {k: m.call_count for k, m in meths.items()}, mm


def test_every_analysis_runs_as_often_as_it_has_questions(counted):
    _, calls, meths, _ = counted
    wrong = {key_of(f): (calls[key_of(f)], n) for f, n in EXPECTED.items() if calls[key_of(f)] != n}
    assert wrong == {}, "calls (got, expected)"
    wrong = {f"{c.__name__}.{n}": (k, METHODS[(c, n)]) for (c, n), k in meths.items() if k != METHODS[(c, n)]}
    assert wrong == {}, "calls (got, expected)"


def test_no_bradley_terry_fit_is_repeated_on_the_same_data(counted):
    """The published fit, its full-convergence cross-check, each bootstrap, each category, the ties-dropped
    truth: every bradley_terry_mm call has its own win matrix or tolerance."""
    *_, mm = counted
    keys = [(np.asarray(c.args[0]).tobytes(), tuple(sorted(c.kwargs.items()))) for c in mm.call_args_list]
    assert len(keys) == len(set(keys)) == 1 + 1 + 2 + 8 + 1


def test_result_is_frozen(counted):
    (res, *_), *_ = counted
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.report = None
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.bootstrap.c_vs_d = {}
    for a in (res.report.bt_point, res.davidson.truth, res.gap.cd_draws):
        with pytest.raises(ValueError):
            a[0] = 0.0


def test_sections_agree_with_the_functions_they_call(counted):
    (res, _, tables, *_), *_ = counted
    counts = res.inputs.counts
    assert np.array_equal(res.report.bt_point, pref.bradley_terry_table(counts)["strength"].to_numpy())
    assert np.array_equal(res.bootstrap.boot.point, res.report.bt_point)
    assert np.array_equal(res.cluster.boot.point, res.report.bt_point)  # the categories sum to the pooled counts
    assert np.array_equal(res.davidson.truth, pref.decisive_truth(counts, "davidson"))
    fresh = pref.bootstrap_bradley_terry(counts, n_boot=res.params.n_bootstrap, seed=res.params.seed)
    assert np.array_equal(fresh.strengths, res.bootstrap.boot.strengths)
    assert res.report.bt_n_iter == pw.bradley_terry_mm(pref.win_matrix(counts)).n_iter
    pd.testing.assert_frame_equal(tables["bt_bootstrap"], res.bootstrap.summary)


def test_p_c_beats_d_is_exposed_for_robustness(counted):
    """robustness reads P(C beats D) from this result (or its values.json) and never bootstraps it again."""
    (res, published, *_), *_ = counted
    assert res.c_beats_d() == pytest.approx(robustness_sampling.c_beats_d_shares(published))
    assert res.c_beats_d()["p_c_beats_d_judgements"] == published["pref.c_vs_d.p_c_stronger"]
    assert res.c_beats_d()["c_beats_d_n_boot"] == res.params.n_bootstrap


def test_build_records_a_time_per_section(counted):
    (res, *_), *_ = counted
    assert set(res.timings) == {
        "report",
        "categories",
        "rows",
        "bootstrap",
        "cluster_bootstrap",
        "tests",
        "davidson",
        "trueskill",
        "simulation",
        "gap",
    }
    assert all(t >= 0 for t in res.timings.values())


def test_reaches_names_real_parameters():
    fields = set(Preferences.model_fields)
    assert {p for ps in pbuild.REACHES.values() for p in ps} <= fields


def test_a_parameter_changes_only_the_sections_it_reaches(counted):
    """ci_level reaches the bootstrap summaries, not the replicates, TrueSkill or the simulation."""
    (res, *_), *_ = counted
    other = cheap_build(res.inputs, ci_level=0.8)
    assert np.array_equal(other.bootstrap.boot.strengths, res.bootstrap.boot.strengths)
    assert np.array_equal(other.trueskill.default.mu, res.trueskill.default.mu)
    pd.testing.assert_frame_equal(other.simulation.sim.curves, res.simulation.sim.curves)
    assert other.bootstrap.c_vs_d["ci_lo"] != res.bootstrap.c_vs_d["ci_lo"]


def test_inputs_read_the_annotations_at_the_parameters_path(counted, tmp_path, monkeypatch):
    """Inputs.load reads the row-level annotations at ``params.annotations_path`` (no default of its own), and
    the row-level paragraph names that path."""
    from compendium.pipeline import paths

    params = study_params("preferences", **(CHEAP | {"annotations_path": "rows/mine.csv"}))
    (tmp_path / "rows").mkdir()
    (tmp_path / "rows" / "mine.csv").write_text("participant_id,choice\nP001,A\n")
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    assert pbuild.Inputs.load(params, mc=False).annotations["participant_id"].tolist() == ["P001"]
    (res, *_), *_ = counted
    assert "rows/mine.csv" in summary.rowlevel_text(dataclasses.replace(res, params=params))
