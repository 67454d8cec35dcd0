"""The one anomaly policy (compendium.data.anomalies): the table and the checks the loaders call."""

import math

import pandas as pd
import pytest

from compendium.data import anomalies as A
from compendium.data.errors import DataValidationError
from compendium.data.load import load_table
from compendium.pipeline import paths


def test_policy_table_lists_what_is_tolerated_dropped_and_refused():
    t = A.policy_table()
    assert list(t.columns) == ["dataset", "case", "action", "handling"]
    assert set(t["action"]) <= {"tolerated", "dropped", "skipped", "refused"}
    tolerated = " ".join(t.loc[t["action"] == "tolerated", "case"])
    assert "4" in tolerated and "2.5" in tolerated
    assert "-1" in " ".join(t.loc[t["action"] == "dropped", "case"])
    refused = " ".join(t.loc[t["action"] == "refused", "case"])
    for words in ("non-finite", "[-1, 3]", "1e+06", "wrong type", "nested too deep"):
        assert words in refused, words


@pytest.mark.parametrize(
    "value, kw, words",
    [
        ("3", {}, "expected a number, found str '3'"),
        (True, {}, "found bool"),
        (None, {}, "found NoneType"),
        ([1], {}, "found list"),
        (math.nan, {}, "non-finite"),
        (-math.inf, {}, "non-finite"),
        (1_000_001, {}, "absurd value"),
        (-2e6, {}, "absurd value"),
        (3.5, {"lo": -1, "hi": 3}, "outside [-1, 3]"),
    ],
)
def test_number_refuses_with_where_and_field(value, kw, words):
    with pytest.raises(A.DataAnomalyError) as e:
        A.number(value, "f.json", "layer1.x[0].score", **kw)
    msg = str(e.value)
    assert msg.startswith("f.json: field layer1.x[0].score: ") and words in msg and msg.endswith(".")


def test_number_accepts_what_the_policy_tolerates():
    assert A.number(4, "f", "x") == 4.0  # a judge value above the scale: tolerated (listed elsewhere)
    assert A.number(2.5, "f", "x") == 2.5
    assert A.number(-1, "f", "x", lo=-1, hi=3) == -1.0
    assert A.number(1e6, "f", "x") == 1e6  # the bound itself passes


def test_load_json_names_the_file(tmp_path):
    f = tmp_path / "x.json"
    f.write_bytes(b"\xff\xfe{")
    with pytest.raises(A.DataAnomalyError, match=r"x\.json: not UTF-8 text"):
        A.load_json(f)
    f.write_text("[" * 100_000)
    with pytest.raises(A.DataAnomalyError, match=r"x\.json: JSON nested too deep"):
        A.load_json(f)


def _copy_aggregates(tmp_path, name, edit):
    src = paths.DATA / "pwb" / "analysis_output" / name
    dst = tmp_path / "pwb" / "analysis_output" / name
    dst.parent.mkdir(parents=True)
    edit(pd.read_csv(src)).to_csv(dst, index=False)
    return tmp_path


@pytest.mark.parametrize(
    "table, file", [("pwb_dimension_scores", "dimension_scores.csv"), ("pwb_effect_sizes", "effect_sizes.csv")]
)
def test_a_cell_with_no_valid_run_does_not_make_the_aggregates_loaders_refuse(tmp_path, table, file):
    """The authors' analysis leaves out a cell whose dimension has no valid run (``if scores:``): 139 of
    140 rows (69 of 70) load; more rows than the grid, or a repeated key, are still refused."""
    root = _copy_aggregates(tmp_path, file, lambda t: t.iloc[1:])
    full = load_table(table)
    assert len(load_table(table, root=root, verify=False)) == len(full) - 1
    root2 = _copy_aggregates(tmp_path / "b", file, lambda t: pd.concat([t, t.iloc[:1]]))
    with pytest.raises(DataValidationError, match="unique|at most"):
        load_table(table, root=root2, verify=False)
