"""The chapter's one computation (compendium.robustness.build): typed, immutable, each section computed once."""

import dataclasses
import re

import pandas as pd
import pytest

from compendium.pipeline import paths
from compendium.robustness import build as rb, sampling, sweeps


def test_grids_carry_the_papers_setting(small_params):
    g = rb.Grids.from_params(dataclasses.replace(small_params, zone_cutoffs="3.5,2.5", bt_tie_weights="1,0"))
    assert g.cutoffs == (2.5, 3.0, 3.5) and g.tie_weights == (0.0, 0.5, 1.0)
    assert g.boundaries == ("ge", "gt") and g.tie_rules == ("lowest", "highest", "mean")
    assert g.cf_weights == (0.3, 0.5) and g.restore_weights == (0.1,)  # free weights: no paper setting to add
    with pytest.raises(ValueError, match="bt_tie_weights: entry 'half'"):
        rb.Grids.from_params(dataclasses.replace(small_params, bt_tie_weights="0,half"))


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


def test_load_inputs_with_given_values_reads_no_results(monkeypatch):
    def no_file():
        raise AssertionError("read results/preferences/values.json")

    monkeypatch.setattr(sampling, "preference_values", no_file)
    inputs = rb.load_inputs(pref_values={"pref.c_vs_d.n_bootstrap": 1})
    assert inputs.pref_values["pref.c_vs_d.n_bootstrap"] == 1
    with pytest.raises(AssertionError, match="values.json"):
        rb.load_inputs()


def test_the_chapter_builds_once_and_glues_the_summary_of_the_result():
    text = (paths.ROOT / "notebooks" / "40_robustness.md").read_text()
    assert len(re.findall(r"\brb\.build\(", text)) == 1
    assert "globals()" not in text
    assert "glue_all(summary.summary(result))" in text
    # the chapter passes every parameter of its parameters cell, by name, and no other notebook variable
    fields = {f.name for f in dataclasses.fields(rb.Params)}
    call = re.search(r"rb\.Params\((.*?)\n\)", text, re.S).group(1)
    assert set(re.findall(r"(\w+)=(\w+)", call)) == {(f, f) for f in fields}
