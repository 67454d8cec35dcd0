"""Artifacts are byte-stable: values.json, CSV tables, executed notebooks; the offline check finds CDN assets."""

import json

import nbformat
import numpy as np
import pandas as pd
import pytest

from compendium import book
from compendium.pipeline import results
from compendium.pipeline.notebooks import strip_timestamps


def test_write_values_is_flat_sorted_and_rejects_other_types(tmp_path):
    out = results.write_values(
        "x", {"b": np.float64(1 / 3), "a": np.int64(2), "m": [[1, 2], [3, 4]], "n": float("nan")}, root=tmp_path
    )
    text = out.read_text()
    assert list(json.loads(text)) == ["a", "b", "m", "n"]
    assert json.loads(text) == {"a": 2, "b": 0.333333333333, "m": [[1, 2], [3, 4]], "n": None}
    with pytest.raises(TypeError, match="'bad' must be a number"):
        results.write_values("x", {"bad": {"a": 1}}, root=tmp_path)
    assert json.loads(results.write_values("x", {"lbl": "Recipe C"}, root=tmp_path).read_text()) == {"lbl": "Recipe C"}


def test_missing_names_the_input_of_each_null(tmp_path):
    results.write_missing("x", {"k": "data/pwb/results/  (per-instance)"}, root=tmp_path)
    assert results.read_missing("x", root=tmp_path) == {"k": "data/pwb/results/ (per-instance)"}
    assert results.read_missing("y", root=tmp_path / "other") == {}


def test_write_table_is_byte_identical_on_rewrite(tmp_path):
    df = pd.DataFrame({"x": [0.1 + 0.2, 1e-12, 12345.678901234], "k": ["a", "b", "c"]})
    p = results.write_table("s", "t", df, root=tmp_path)
    first = p.read_bytes()
    results.write_table("s", "t", df, root=tmp_path)
    assert p.read_bytes() == first
    assert first.decode().splitlines()[1] == "0.3,a"


def test_strip_timestamps_removes_everything_volatile():
    nb = nbformat.v4.new_notebook()
    nb.metadata["papermill"] = {"start_time": "t0", "end_time": "t1", "duration": 2.5, "parameters": {"a": 1}}
    c = nbformat.v4.new_code_cell("1")
    c.metadata["papermill"] = {"start_time": "t0", "end_time": "t1", "duration": 0.1, "status": "completed"}
    c.metadata["execution"] = {"iopub.status.busy": "t"}
    inj = nbformat.v4.new_code_cell("a = 1")
    inj.metadata["tags"] = ["injected-parameters"]
    nb.cells = [c, inj]
    assert strip_timestamps(nb) == 2.5
    assert nb.metadata["papermill"] == {"parameters": {"a": 1}}
    assert c.metadata["papermill"] == {"status": "completed"} and "execution" not in c.metadata
    assert inj["id"] == "injected-parameters"


def test_offline_check_flags_cdn_scripts_and_styles(tmp_path):
    (tmp_path / "a.html").write_text(
        '<script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js"></script>'
        '<link rel="stylesheet" href="//fonts.googleapis.com/css?family=Lato">'
        '<link rel="canonical" href="https://example.org/a.html">'
        '<script src="_static/local.js"></script><a href="https://dvc.org">DVC</a>'
    )
    hits = book.remote_assets(tmp_path)
    assert [h[1][:7] for h in hits] == ["<script", "<link r"]
    assert all("a.html" == h[0] for h in hits)


def test_strip_paths_makes_outputs_independent_of_the_checkout():
    import nbformat

    from compendium.pipeline.notebooks import strip_paths

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("p")
    cell.outputs = [
        nbformat.v4.new_output("execute_result", {"text/plain": "PosixPath('/x/repo/results/.staging/s/f.png')"}),
        nbformat.v4.new_output("stream", name="stdout", text="wrote /x/repo/results/.staging/s/t.csv\n"),
        nbformat.v4.new_output("display_data", {"image/png": "/x/repo/AAAA"}),
    ]
    nb.cells = [cell]
    n = strip_paths(nb, {"/x/repo/": "", "/x/repo/results/.staging/s": "results/s"})
    assert n == 2
    assert cell.outputs[0]["data"]["text/plain"] == "PosixPath('results/s/f.png')"
    assert cell.outputs[1]["text"] == "wrote results/s/t.csv\n"
    assert cell.outputs[2]["data"]["image/png"] == "/x/repo/AAAA"  # images untouched


def test_significant_and_agreement_round_as_documented():
    import numpy as np

    assert results.significant(0.76982486243, 8) == 0.76982486
    assert results.significant(2.828791183e-34, 8) == 2.8287912e-34
    assert results.significant(-1234.56789, 4) == -1235.0
    assert results.significant(0.0) == 0.0 and np.isnan(results.significant(float("nan")))
    np.testing.assert_array_equal(results.significant(np.array([1.23456789e-7, 5.0]), 3), [1.23e-7, 5.0])
    # two runs that differ only in floating-point noise give the same bytes
    assert results.significant(0.7698248624, 8) == results.significant(0.7698248626, 8)
    assert results.agreement(4.1e-15) == 0.0 == results.agreement(-4.3e-15)
    assert results.agreement(1.502834361e-07) == results.agreement(1.502834359e-07) == 1.5e-07
