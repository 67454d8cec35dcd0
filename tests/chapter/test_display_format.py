"""Display-only formatting of compendium.chapter.display.table (rename, formats, labels, spaces) and glue_all."""

import math

import pandas as pd

from compendium.chapter import display
from compendium.chapter.display import format_columns, relabel, table


def test_format_columns_formats_floats_and_dashes_nan():
    df = pd.DataFrame({"a": [1.23456, math.nan], "b": [1, 2], "c": [0.5, 0.25], "s": ["x", "y"]})
    out = format_columns(df, {"c": "{:+.1%}"}, precision=2)
    assert out["a"].tolist() == ["1.23", "–"] and out["b"].tolist() == [1, 2]
    assert out["c"].tolist() == ["+50.0%", "+25.0%"] and out["s"].tolist() == ["x", "y"]
    assert df["a"].iloc[0] == 1.23456  # a copy


def test_relabel_maps_values_and_column_names():
    df = pd.DataFrame({"condition": ["with_system_prompt", "baseline"], "dimension": ["a_b", "c"], "n_runs": [1, 2]})
    out = relabel(
        df, {"condition": {"with_system_prompt": "prompted"}, "dimension": str.upper, "absent": str}, spaces=True
    )
    assert out.columns.tolist() == ["condition", "dimension", "n runs"]
    assert out["condition"].tolist() == ["prompted", "baseline"] and out["dimension"].tolist() == ["A_B", "C"]


def test_table_applies_rename_then_formats_then_labels():
    df = pd.DataFrame({"delta_printed": [1.234], "mean_x": [0.5], "dimension": ["cf"]})
    md = table(
        df,
        "tbl-t",
        "cap",
        rename={"delta_printed": "ΔPWI"},
        formats={"ΔPWI": "{:+.1f}"},
        precision=3,
        labels={"dimension": {"cf": "CF"}},
        spaces=True,
    ).data
    assert "| ΔPWI | mean x | dimension |" in md and "| +1.2 | 0.500 | CF |" in md
    # without the new keywords the table is what it was
    assert table(df, "tbl-t", "cap").data == display.table(df, "tbl-t", "cap").data
    assert "| 1.23 | 0.5 | cf |" in table(df, "tbl-t", "cap").data


def test_glue_all_glues_every_entry_as_plain_values(monkeypatch):
    import myst_nb
    import numpy as np

    glued = {}
    monkeypatch.setattr(myst_nb, "glue", lambda k, v, display=True: glued.setdefault(k, (v, display)))
    display.glue_all({"a": np.float64(0.5), "b": "phrase", "c": np.int64(3)})
    assert glued == {"a": (0.5, False), "b": ("phrase", False), "c": (3, False)}
    assert type(glued["c"][0]) is int
