"""compendium.pwb.build computes every number once: a count of the section functions' and the analyses'
calls through one build + register + summary + outputs pass, as notebooks/10_pwb.md runs it (issue 19)."""

from __future__ import annotations

import contextlib
import dataclasses
from collections import Counter
from unittest import mock

import pytest

from compendium import pwb
from compendium.pwb import (
    aggregates as agg,
    compute,
    effects,
    instances as inst,
    outputs,
    register,
    summary,
    validation as val,
)

#: the analyses the sections call, by module: each runs once per chapter pass, except those in TWICE
ANALYSES = {
    agg: (
        "reconstruct_cells",
        "reconstruction_checks",
        "dimension_diagnostics",
        "table2",
        "d_pooled_approx",
        "layer1_summary",
        "weight_sensitivity",
        "restore_grid",
        "leaderboard",
        "stale_table_comparison",
        "incomplete_run_agreement_needed",
        "completeness_share",
        "smaller_points",
        "layer_table",
    ),
    val: ("pilot_agreement", "dedupe_sensitivity", "sample_panel_irr"),
    effects: ("d_pooled_intervals", "cell_d_intervals", "dimension_d_pooled_intervals", "paired_tests"),
    inst: ("run_instance_pipeline", "layer2_authors_filter", "layer2_low_cluster"),
}


#: called twice on purpose, on different inputs: the per-model d_pooled approximation (aggregates_section) and
#: the same formula per dimension inside effects.dimension_d_pooled_intervals (models and dimensions swapped);
#: Table 2 under the run's weights and, inside agg.leaderboard, under the v2.0 weights
TWICE = {"compendium.pwb.aggregates.d_pooled_approx": 2, "compendium.pwb.aggregates.table2": 2}


def _chapter_pass(params: pwb.PwbParams, inputs: pwb.PwbInputs) -> None:
    """What the chapter calls, in its order (its figures and displays only read the result)."""
    result = pwb.build(params, inputs)
    reg_values, _ = register.register_values(result)
    slips = summary.register_slips(result.inputs.notes, result.inputs.published, reg_values)
    summary.summary(result)
    summary.instances_markdown(result)
    summary.anomaly_table(result.anomalies, result.instances_present)
    summary.d_interval_matrix(result.effects.cell_ci, result.effects.dim_ci)
    outputs.data_levels(result.instances_present)
    outputs.tables(result, slips)
    outputs.all_values(result, reg_values)


def _counted(params, inputs) -> Counter:
    calls: Counter = Counter()
    with contextlib.ExitStack() as stack:
        targets = [(compute, name) for name in compute.SECTIONS]
        targets += [(mod, name) for mod, names in ANALYSES.items() for name in names]
        for mod, name in targets:
            f = getattr(mod, name)

            def counting(*a, _f=f, _key=f"{mod.__name__}.{name}", **k):
                calls[_key] += 1
                return _f(*a, **k)

            stack.enter_context(mock.patch.object(mod, name, side_effect=counting))
        _chapter_pass(params, inputs)
    return calls


@pytest.fixture(scope="module")
def inputs():
    return pwb.load_inputs(pwb.PwbParams())


def _assert_once(calls: Counter, with_instances: bool) -> None:
    expected = [f"compendium.pwb.compute.{n}" for n in compute.SECTIONS]
    expected += [f"{m.__name__}.{n}" for m, names in ANALYSES.items() for n in names]
    if not with_instances:
        expected = [k for k in expected if not k.startswith("compendium.pwb.instances.") and "paired_tests" not in k]
    assert {k: calls[k] for k in expected} == {k: TWICE.get(k, 1) for k in expected}
    assert set(calls) == set(expected)


def test_every_section_and_analysis_runs_once_without_instance_data(inputs):
    _assert_once(_counted(pwb.PwbParams(), inputs), with_instances=False)


def test_every_section_and_analysis_runs_once_with_the_per_instance_path(tmp_path, inputs):
    from compendium.data import synthetic_pwb

    synthetic_pwb.write_snapshot(tmp_path, seed=5, size="small")
    params = pwb.PwbParams(n_boot=30, diag_n_boot=20, instances_dir=str(tmp_path / "results"))
    with_data = dataclasses.replace(
        inputs, results_dir=params.results_dir, instances=inst.load_hf_results(params.results_dir)
    )
    calls = _counted(params, with_data)
    _assert_once(calls, with_instances=True)


def test_the_result_is_frozen(inputs):
    result = pwb.build(pwb.PwbParams(), inputs)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.aggregates = None  # type: ignore[misc]
    assert result.instances is None and result.anomalies.empty
    assert set(result.aggregates.matrices) == {"baseline", "prompted", "delta"}
