"""The chapter's one computation (compendium.robustness.build): typed, immutable, each section computed once."""

import dataclasses
import re
import sys
from pathlib import Path

import pandas as pd
import pytest

from compendium.pipeline import paths
from compendium.pipeline.params import SCHEMA, ParamsError, study_params
from compendium.pipeline.results import write_exports
from compendium.robustness import build as rb, sampling, sweeps

sys.path.insert(0, str(Path(__file__).resolve().parent))
from robustness_cases import PREF_VALUES  # noqa: E402


def test_grids_carry_the_papers_setting(small_params):
    g = rb.Grids.from_params(small_params.model_copy(update={"zone_cutoffs": "3.5,2.5", "bt_tie_weights": "1,0"}))
    assert g.cutoffs == (2.5, 3.0, 3.5) and g.tie_weights == (0.0, 0.5, 1.0)
    assert g.boundaries == ("ge", "gt") and g.tie_rules == ("lowest", "highest", "mean")
    assert g.cf_weights == (0.3, 0.5) and g.restore_weights == (0.1,)  # free weights: no paper setting to add
    # a bad grid is refused by the params schema, naming the key; unvalidated, by the grid's parser
    with pytest.raises(ParamsError, match="robustness.bt_tie_weights"):
        study_params("robustness", bt_tie_weights="0,half")
    with pytest.raises(ValueError, match="bt_tie_weights: entry 'half'"):
        rb.Grids.from_params(small_params.model_copy(update={"bt_tie_weights": "0,half"}))


def test_result_is_immutable(result):
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.findings = pd.DataFrame()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.zones.sweep = pd.DataFrame()  # type: ignore[misc]
    with pytest.raises(TypeError):
        result.bt.sampling["p_c_beats_d_judgements"] = 1.0  # type: ignore[index]
    with pytest.raises(TypeError):
        result.pwb.schemes["extra"] = {}  # type: ignore[index]


def test_sections_are_the_sweeps_of_the_parsed_grids(result, small_inputs):
    r, g = result, result.grids
    pd.testing.assert_frame_equal(r.zones.sweep, sweeps.zone_sweep(r.zones.land, g.cutoffs, g.boundaries))
    at3 = r.zones.at_paper_cutoff
    assert list(at3.index) == ["ge", "gt"] and at3.loc["ge", "green"] == 364  # the paper's count, whatever the grid
    pd.testing.assert_frame_equal(r.bt.sweep, sweeps.bt_sweep(small_inputs.counts, g.tie_weights, davidson=True))
    assert set(r.pwb.sweep["family"]) >= {"default", "random"} and (r.pwb.sweep["family"] == "random").sum() == 20
    assert r.pwb.sweep["glm_lead"].notna().all()
    assert set(r.pwb.named_pwis["scheme"]) == set(r.pwb.schemes)
    assert list(r.pwb.weights.index) == list(r.pwb.all_schemes) and (r.pwb.weights.sum(axis=1) > 0).all()
    assert r.bt.sampling["c_beats_d_n_boot"] == 5000
    assert r.bt.sampling["n_boot"] == sampling.BT_FACTOR * r.params.n_sampling  # the cheap checks get more replicates
    assert r.zones.sampling["n_draws"] == r.params.n_sampling
    assert r.bt.n_ties == int(small_inputs.counts["ties"].sum())


def test_build_is_reproducible(small_params, small_inputs, result):
    again = rb.build(small_params, small_inputs)
    pd.testing.assert_frame_equal(again.findings, result.findings)
    pd.testing.assert_frame_equal(again.agency.sweep, result.agency.sweep)  # seeded random tie-breaks
    pd.testing.assert_frame_equal(again.pwb.sweep, result.pwb.sweep)  # seeded random weight schemes


def test_inputs_load_with_given_values_reads_no_results(monkeypatch, small_params):
    def no_file():
        raise AssertionError("read results/preferences/exports/robustness.json")

    monkeypatch.setattr(sampling, "preference_values", no_file)
    inputs = rb.Inputs.load(small_params, pref_values={"pref.c_vs_d.n_bootstrap": 1})
    assert inputs.pref_values["pref.c_vs_d.n_bootstrap"] == 1
    with pytest.raises(AssertionError, match="exports/robustness.json"):
        rb.Inputs.load(small_params)


def test_the_preference_values_are_the_preferences_export_for_this_stage(tmp_path, monkeypatch):
    """The stage reads the few values the preferences chapter exports for it (written by write_exports), not
    the preferences chapter's whole values.json."""
    root = tmp_path / "preferences"
    values = {**PREF_VALUES, "pref.davidson.nu": 0.44, "pref.other": 1.0}
    write_exports("preferences", values, root=root)
    monkeypatch.setattr(paths, "RESULTS", tmp_path)
    assert sampling.preference_values() == PREF_VALUES
    (root / "exports" / "robustness.json").unlink()
    with pytest.raises(FileNotFoundError, match="dvc repro preferences"):
        sampling.preference_values()


def test_the_build_computes_each_sweep_and_check_once(small_params, small_inputs):
    """One build runs each sweep and resampling check once (the zone sweep twice: the grid, and both boundaries
    at the paper's cut-off whatever the grid), and decides the findings once."""
    from counting import calls_of, key_of

    from compendium.robustness import findings

    once = (
        sweeps.has_sweep,
        sweeps.pwb_named_schemes,
        sweeps.random_schemes,
        sweeps.pwb_sweep,
        sweeps.bt_sweep,
        sampling.zone_sampling_check,
        sampling.bt_sampling_check,
        sampling.c_beats_d_shares,
        findings.findings,
    )
    with calls_of(sweeps.zone_sweep, *once, only_from=("compendium.",)) as calls:
        rb.build(small_params, small_inputs)
    assert calls[key_of(sweeps.zone_sweep)] == 2
    assert {key_of(f): calls[key_of(f)] for f in once} == {key_of(f): 1 for f in once}


def test_the_chapter_builds_once_and_publishes_the_result():
    text = (paths.ROOT / "notebooks" / "40_robustness.md").read_text()
    assert len(re.findall(r"\bbuild\(", text)) == 1
    assert "globals()" not in text
    assert "glue_all(summary.summary(result))" in text
    assert "values = publish(STAGE, stage_values(result), None, tables(result))" in text
    assert "write_table(" not in text and "write_values(" not in text  # publish writes them, once
    # the chapter passes every parameter of its parameters cell, by name, and no other notebook variable
    fields = set(SCHEMA["robustness"].model_fields)
    call = re.search(r'study_params\(\n    "robustness", (.*?)\n\)', text, re.S).group(1)
    assert set(re.findall(r"(\w+)=(\w+)", call)) == {(f, f) for f in fields}
