"""compendium.pwb.build computes every number once: a count of the section functions' and the analyses' calls
through one build + register + summary + values + views pass, as notebooks/10_pwb.md runs it (issue 19), with
the shared call counter (tests/counting.py)."""

from __future__ import annotations

import dataclasses

import pytest
from counting import calls_of, key_of

from compendium import pwb
from compendium.pipeline import paths
from compendium.pipeline.params import study_params
from compendium.pwb import (
    aggregates as agg,
    effects,
    instances as inst,
    register,
    sections,
    summary,
    validation as val,
    values,
    views,
)

#: the analyses the sections call: each runs once per chapter pass, except those in TWICE
ANALYSES = (
    agg.reconstruct_cells,
    agg.reconstruction_checks,
    agg.dimension_diagnostics,
    agg.table2,
    agg.d_pooled_approx,
    agg.layer1_summary,
    agg.weight_sensitivity,
    agg.restore_grid,
    agg.leaderboard,
    agg.stale_table_comparison,
    agg.incomplete_run_agreement_needed,
    agg.completeness_share,
    agg.smaller_points,
    agg.layer_table,
    val.pilot_agreement,
    val.dedupe_sensitivity,
    val.sample_panel_irr,
    effects.d_pooled_intervals,
    effects.cell_d_intervals,
    effects.dimension_d_pooled_intervals,
    effects.paired_tests,
    inst.run_instance_pipeline,
    inst.layer2_authors_filter,
    inst.layer2_low_cluster,
)
#: only on the per-instance path
INSTANCE_ONLY = (effects.paired_tests, inst.run_instance_pipeline, inst.layer2_authors_filter, inst.layer2_low_cluster)

#: called twice on purpose, on different inputs: the per-model d_pooled approximation (aggregates_section) and
#: the same formula per dimension inside effects.dimension_d_pooled_intervals (models and dimensions swapped);
#: Table 2 under the run's weights and, inside agg.leaderboard, under the v2.0 weights
TWICE = {key_of(agg.d_pooled_approx): 2, key_of(agg.table2): 2}


def _chapter_pass(params, inputs) -> None:
    """What the chapter calls, in its order (its figures and displays only read the result)."""
    result = pwb.build(params, inputs)
    values.data_levels(result.instances_present)
    views.d_interval_matrix(result.effects.cell_ci, result.effects.dim_ci)
    views.instances_markdown(result)
    views.anomaly_table(result.anomalies, result.instances_present)
    values.register_slips(result.inputs.notes, result.inputs.published, register.register_values(result)[0])
    summary.summary(result)
    values.stage_values(result)
    register.register_values(result)
    values.tables(result)


def _counts(params, inputs) -> dict[str, int]:
    functions = (*sections.SECTIONS, *ANALYSES)
    with calls_of(*functions) as calls:
        _chapter_pass(params, inputs)
    return dict(calls)


def _expected(with_instances: bool) -> dict[str, int]:
    functions = (*sections.SECTIONS, *ANALYSES)
    return {key_of(f): (TWICE.get(key_of(f), 1) if with_instances or f not in INSTANCE_ONLY else 0) for f in functions}


@pytest.fixture(scope="module")
def inputs():
    return pwb.Inputs.load(study_params("pwb"))


def test_every_section_and_analysis_runs_once_without_instance_data(inputs):
    assert _counts(study_params("pwb"), inputs) == _expected(with_instances=False)


def test_every_section_and_analysis_runs_once_with_the_per_instance_path(tmp_path, inputs):
    from compendium.data import synthetic_pwb

    synthetic_pwb.write_snapshot(tmp_path, seed=5, size="small")
    params = study_params("pwb", n_boot=30, diag_n_boot=20)
    with_data = pwb.Inputs.load(params, instances_dir=tmp_path / "results")
    assert with_data.instances is not None
    assert _counts(params, with_data) == _expected(with_instances=True)


def test_a_second_call_is_counted(inputs):
    """The count can fail: a section the pass ran twice is counted twice."""
    params = study_params("pwb")
    with calls_of(sections.design_section) as calls:
        result = pwb.build(params, inputs)
        sections.design_section(inputs, result.aggregates.cells)
    assert calls[key_of(sections.design_section)] == 2


def test_the_result_is_frozen_and_takes_the_study_params(inputs):
    result = pwb.build(study_params("pwb"), inputs)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.aggregates = None  # type: ignore[misc]
    assert result.instances is None and result.anomalies.empty
    assert set(result.aggregates.matrices) == {"baseline", "prompted", "delta"}
    assert result.params == study_params("pwb") and result.params.n_boot == 10_000
    assert result.inputs.results_dir == paths.PWB / "results"  # Inputs.load's default folder
