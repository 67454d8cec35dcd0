"""The workbank_models stage: the WORKBank sections no zone setting reaches, computed once by a stage of their own.

An exercise on the zone cut-off (``dvc exp run -S workbank.cutoff=3.5``) must not fit the mixed model or
re-rake the sample: those sections are computed by ``workbank_models`` (:mod:`compendium.workbank.models`),
which reads only its keys of the ``workbank`` section, and the ``workbank`` stage takes them from its output.
These tests fail if the split changes a number, if the chapter stage computes a model section again, if a
stale output is used with other parameters, or if the params record of the stage follows the cut-off.
"""

from __future__ import annotations

import json
import pickle

import pandas as pd
import pytest
import test_workbank_build as tb
from committed import committed_params_text
from test_workbank_build import FAST, ONCE, _one_pass

from compendium.pipeline import params as params_mod, studies
from compendium.pipeline.params import study_params
from compendium.workbank import Inputs, build, build_models, models, register, summary
from compendium.workbank.build import MODEL_KEYS, MODEL_SECTIONS, SECTIONS

MODEL_FUNCTIONS = {  # (module name, function) of ONCE that belong to the model sections
    ("compendium.workbank.agency", n)
    for n in ("has_counts", "dominant_level", "occupation_levels", "tie_rule_sensitivity", "h5_profiles")
} | {
    ("compendium.workbank.skills", "skill_ranks"),
    ("compendium.workbank.reliability", "alpha_values"),
    ("compendium.workbank.reliability", "mixed_model_data"),
    ("compendium.workbank.reliability", "fit_mixed_model"),
    ("compendium.workbank.icc", "icc_reml_intercept_only"),
    ("compendium.workbank.demographics", "demographic_groups"),
    ("compendium.workbank.demographics", "raked_headline"),
    ("compendium.workbank.demographics", "raked_sector_mix"),
    ("compendium.workbank.demographics", "raking_bootstrap"),
}


@pytest.fixture(scope="module")
def inputs():
    return Inputs.load(FAST)


@pytest.fixture(scope="module")
def stage_output(inputs, tmp_path_factory):
    """The models stage's output for FAST, written and read back as the two stages do."""
    folder = tmp_path_factory.mktemp("workbank_models")
    models.write(build_models(FAST, inputs), FAST, folder)
    return folder


def _equal(a, b) -> bool:
    """Exactly equal, dtypes and index included (NaN equal to NaN)."""
    import numpy as np

    if isinstance(a, (pd.DataFrame, pd.Series, pd.Index)):
        if type(a) is not type(b):
            return False
        try:
            {pd.DataFrame: pd.testing.assert_frame_equal, pd.Series: pd.testing.assert_series_equal}.get(
                type(a), pd.testing.assert_index_equal
            )(a, b, check_exact=True)
        except AssertionError:
            return False
        return True
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and a != a:
        return isinstance(b, float) and b != b
    return type(a) is type(b) and bool(a == b)


@pytest.fixture(scope="module")
def one_and_two(inputs, stage_output):
    """The result of one build computing every section, and of the two stages (models read back from disk)."""
    return build(FAST, inputs), build(FAST, inputs, models=models.load(FAST, stage_output))


def test_the_two_stages_give_exactly_the_one_pass_result(inputs, one_and_two):
    one, two = one_and_two
    assert list(two.sections()) == list(SECTIONS)
    for name in SECTIONS:
        a, b = one.sections()[name], two.sections()[name]
        for part in ("values", "tables", "facts", "extra"):
            x, y = dict(getattr(a, part)), dict(getattr(b, part))
            assert x.keys() == y.keys(), (name, part)
            bad = [k for k in x if not _equal(x[k], y[k])]
            assert not bad, (name, part, bad)
    # and what the chapter publishes from them: the register's cells and the glued words
    r1, _ = register.register_values(one)
    r2, _ = register.register_values(two)
    assert json.dumps(r1, sort_keys=True, default=str) == json.dumps(r2, sort_keys=True, default=str)


def test_the_chapter_stage_computes_no_model_section_when_given_the_stages_output(inputs, stage_output, monkeypatch):
    """The workbank stage's pass (at the paper's cut-off and off it) calls none of the model sections'
    functions: they ran once, in the models stage."""
    loaded = models.load(FAST, stage_output)
    monkeypatch.setattr(tb, "build", lambda p, i: build(p, i, models=loaded))  # as notebooks/20_workbank.md calls it
    _, off = _one_pass(FAST.model_copy(update={"cutoff": 3.5}), inputs)
    _, counts = _one_pass(FAST, inputs)
    for c in (off, counts):
        called = {f"{m.__name__}.{n}": k for (m, n), k in c.items() if (m.__name__, n) in MODEL_FUNCTIONS and k}
        assert called == {}, called
    # the other functions still run once at the paper's settings
    wrong = {
        f"{m.__name__}.{n}": counts[(m, n)]
        for (m, n), k in ONCE.items()
        if (m.__name__, n) not in MODEL_FUNCTIONS and counts[(m, n)] != k
    }
    assert not wrong


def test_a_stale_or_missing_output_stops_with_the_command_that_makes_it(inputs, stage_output, tmp_path):
    other = FAST.model_copy(update={"seed": FAST.seed + 1})
    with pytest.raises(
        ValueError, match=r"computed with other parameters \(workbank.seed=.*\); run `dvc repro workbank_models`"
    ):
        models.load(other, stage_output)
    with pytest.raises(FileNotFoundError, match="missing; .*run `dvc repro workbank_models`"):
        models.load(FAST, tmp_path)
    # a key the models stage does not read (the cut-off, the zone bootstrap) does not make it stale
    models.load(FAST.model_copy(update={"cutoff": 3.5, "n_boot": 7, "stable_level": 0.9}), stage_output)
    with pytest.raises(ValueError, match="must hold the sections"):
        build(FAST, inputs, models={"agency": models.load(FAST, stage_output)["agency"]})


def test_the_stage_output_is_byte_stable_and_holds_the_figures(inputs, stage_output, tmp_path):
    again = tmp_path / "again"
    models.write(build_models(FAST, inputs), FAST, again)
    for f in sorted(p.relative_to(stage_output) for p in stage_output.rglob("*") if p.is_file()):
        assert (again / f).read_bytes() == (stage_output / f).read_bytes(), f
    # the parameters it was computed with, in the order of the stage's row of the one list of studies (the order
    # of the committed run's bytes; the params record's section order would give other bytes for the same values)
    payload = pickle.loads((stage_output / models.PICKLE).read_bytes())  # noqa: S301 - the stage's own output
    assert list(payload["params"]) == list(studies.stage(models.STAGE).keys)
    from compendium.chapter.pngtext import png_description

    for name in models.FIGURES:
        png = models.figure(name, stage_output)
        assert png_description(png.read_bytes()), name  # the alt text travels with the PNG
    with pytest.raises(ValueError, match="is not a figure of the workbank_models stage"):
        models.figure("landscape", stage_output)


def test_the_params_record_of_the_models_stage_holds_only_its_keys(tmp_path, monkeypatch):
    """``results/params/workbank_models.json`` (the stage's DVC dependency) does not change with the cut-off,
    and changes with each key the stage reads."""
    import yaml

    # params.yaml as committed (the workspace's may be an exercise's, with the keys below set already: make test
    # must pass after one too)
    base = yaml.safe_load(committed_params_text())

    def record(**workbank):
        doc = {**base, "workbank": {**base["workbank"], **workbank}}
        f = tmp_path / "params.yaml"
        f.write_text(yaml.safe_dump(doc, sort_keys=False))
        monkeypatch.setattr(params_mod.paths, "PARAMS", f)
        out = params_mod.check(tmp_path / "rec")
        return (out / "workbank_models.json").read_bytes(), (out / "workbank.json").read_bytes()

    ref_models, ref_wb = record()
    assert json.loads(ref_models) == {k: base["workbank"][k] for k in MODEL_KEYS}
    moved_models, moved_wb = record(cutoff=3.5, n_boot=100, stable_level=0.9, sweep_step=0.2)
    assert moved_models == ref_models and moved_wb != ref_wb
    for key, value in (("seed", 1), ("mixed_method", "lbfgs"), ("n_boot_groups", 10), ("has_tie_rule", "highest")):
        assert record(**{key: value})[0] != ref_models, key
    # every key a model section reads is in the record (the sections take nothing else from params)
    assert set(MODEL_KEYS) == set(params_mod.PARTIAL_RECORDS["workbank_models"][1])
    assert set(MODEL_SECTIONS) <= set(SECTIONS)


def test_the_chapter_summary_reads_the_same_from_the_two_stages(inputs, one_and_two):
    words = []
    for res in one_and_two:
        words.append(summary.summary(res))
    assert json.dumps(words[0], sort_keys=True, default=str) == json.dumps(words[1], sort_keys=True, default=str)


def test_the_model_sections_read_no_key_outside_their_record(inputs):
    """Changing every key outside MODEL_KEYS leaves the model sections' values exactly as they were."""
    moved = study_params(
        "workbank",
        n_boot=20,
        n_tie_draws=5,
        n_boot_groups=20,
        cutoff=3.5,
        stable_level=0.9,
        sweep_min=2.0,
        sweep_max=4.0,
        sweep_step=0.5,
    )
    a, b = build_models(FAST, inputs), build_models(moved, inputs)
    for name in MODEL_SECTIONS:
        assert json.dumps(dict(a[name].values), sort_keys=True, default=str) == json.dumps(
            dict(b[name].values), sort_keys=True, default=str
        ), name


def test_the_chapter_copies_every_figure_of_the_models_stage_and_draws_none_of_them():
    """A figure whose data no zone setting reaches is drawn once, by the workbank_models stage: the chapter shows
    the stage's PNG (``show_models_fig``) and never draws it again (``show_fig``), so an exercise on the cut-off
    does not pay for it."""
    import re

    chapter = (params_mod.paths.NOTEBOOKS / "20_workbank.md").read_text()
    copied = set(re.findall(r'show_models_fig\("(\w+)"\)', chapter))
    drawn = set(re.findall(r'show_fig\("(\w+)"', chapter))
    assert copied == set(models.FIGURES)
    assert not drawn & copied
    assert "representativeness" in copied  # its tables moved into the demographics section, a model section


def test_the_sample_against_the_bls_is_a_model_section_table(inputs, stage_output):
    sections = models.load(FAST, stage_output)
    demo = sections["demographics"]
    assert {"sample_vs_bls_sectors", "sample_vs_bls_demographics"} <= set(demo.tables)
    assert {"wb.external.sectors_in_sample", "wb.external.sector_share_abs_gap"} <= set(demo.values)
    sec = demo.tables["sample_vs_bls_sectors"]
    assert demo.values["wb.external.sectors_in_sample"] == int((sec["n_workers"] > 0).sum())
