"""compendium.chapter.numbers: the book's one way to write a percentage ("47.5 %") and a difference that may be
exactly zero ("0", not "0.0e+00"), on hand-worked cases (issue 33)."""

import math

import pandas as pd
import pytest

from compendium.chapter import numbers
from compendium.chapter.display import format_columns, markdown_table


@pytest.mark.parametrize(
    ("x", "text"),
    [(0.0, "0"), (0, "0"), (-0.0, "0"), (8.4e-07, "8.4e-07"), (1.5e-07, "1.5e-07"), (2.0, "2.0e+00"), (math.nan, "–")],
)
def test_a_difference_that_is_exactly_zero_reads_0(x, text):
    assert numbers.difference(x) == text
    assert numbers.difference(x) != f"{0.0:.1e}"  # "0.0e+00", what the chapters printed before


def test_a_difference_keeps_the_digits_asked_for():
    assert numbers.difference(8.4321e-07, digits=3) == "8.43e-07" and numbers.difference(8.4e-07, 1) == "8e-07"


@pytest.mark.parametrize(
    ("value", "decimals", "signed", "text"),
    [
        (47.51, 1, False, "47.5 %"),
        (100, 0, False, "100 %"),
        (13.87, 2, False, "13.87 %"),
        (3.0, 1, True, "+3.0 %"),
        (-3.0, 1, True, "-3.0 %"),
        (math.nan, 1, False, "–"),
    ],
)
def test_a_percentage_has_a_space_before_its_sign(value, decimals, signed, text):
    assert numbers.percent(value, decimals, signed) == text


def test_a_share_is_written_as_python_would_with_the_books_space():
    for p, d in [(0.97, 0), (0.307, 1), (0.0, 0), (1.0, 1), (0.125, 1)]:
        assert numbers.share(p, d) == format(p, f".{d}%").replace("%", " %")
    assert numbers.share(0.5) == "50 %" and numbers.share(0.356, 1) == "35.6 %"


def test_a_table_column_can_be_formatted_by_a_function():
    df = pd.DataFrame({"model": ["a", "b", "c"], "diff": [0.0, 8.4e-07, math.nan], "share": [0.307, 0.5, 1.0]})
    out = format_columns(df, {"diff": numbers.difference, "share": lambda p: numbers.share(p, 1)})
    assert out["diff"].tolist() == ["0", "8.4e-07", "–"] and out["share"].tolist() == ["30.7 %", "50.0 %", "100.0 %"]
    md = markdown_table(out)
    assert "| a | 0 | 30.7 % |" in md and "e+00" not in md  # a formatted number is a plain cell, never escaped
