import pandas as pd
import pytest

from compendium.display import markdown_table, table


def test_markdown_table_formats_and_aligns():
    df = pd.DataFrame({"name": ["a|b", "c"], "x": [1.23456, float("nan")], "n": [3, 4]})
    assert markdown_table(df).splitlines() == [
        "| name | x | n |", "|---|---:|---:|", "| a\\|b | 1.23 | 3 |", "| c |  | 4 |"]


def test_table_is_a_numbered_myst_directive():
    md = table(pd.DataFrame({"a": [1]}), "tbl-x", "A   caption\n over lines.").data
    assert md.startswith(":::{table} A caption over lines.\n:name: tbl-x\n")
    assert md.rstrip().endswith(":::")
    with pytest.raises(ValueError, match="table name 'bad name'"):
        table(pd.DataFrame({"a": [1]}), "bad name", "c")
