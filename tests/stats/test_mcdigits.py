"""The one rule for Monte-Carlo digits (compendium.stats.mcdigits), on hand-worked cases for each of its rules."""

from __future__ import annotations

import math

import pytest

from compendium.stats.mcdigits import mc_decimals, mc_format, mc_step


@pytest.mark.parametrize(
    ("se", "unit"), [(0.19, 0.1), (1.3, 1.0), (0.04, 0.01), (430, 100.0), (1900, 1000.0), (0.001, 0.001)]
)
def test_leading_is_the_power_of_ten_of_the_errors_leading_digit(se, unit):
    assert mc_step(se) == pytest.approx(unit, rel=1e-12)


@pytest.mark.parametrize(("se", "unit"), [(0.03, 0.1), (0.06, 0.1), (0.001, 0.001), (0.0011, 0.01), (1.3, 10.0)])
def test_unit_is_the_smallest_power_of_ten_not_below_the_error(se, unit):
    assert mc_step(se, rule="unit") == pytest.approx(unit, rel=1e-12)
    assert mc_step(se, rule="unit") >= se


@pytest.mark.parametrize(
    ("x", "se", "printed"),
    [
        (14297, 423, "14,000"),  # the nearest thousand moves it by 297 <= 423
        (17793, 1063, "18,000"),  # ten thousands would move it by 2,207 > 1,063: thousands
        (14297, 100, "14,300"),  # an SE that is a power of ten: that power
        (0.1253, 0.0074, "0.13"),
    ],
)
def test_estimate_is_the_shortest_number_within_one_standard_error(x, se, printed):
    step = mc_step(se, x, rule="estimate")
    assert mc_format(x, step, thousands=True) == printed
    assert abs(round(x / step) * step - x) <= se


@pytest.mark.parametrize(
    ("halfwidth", "step"),
    [(0.0123, 0.001), (0.0354, 0.001), (0.036, 0.01), (1500, 100.0), (3600, 1000.0), (99.9, 10.0)],
)
def test_pdg_keeps_two_digits_of_a_half_width_from_100_to_354_else_one(halfwidth, step):
    assert mc_step(halfwidth, rule="pdg") == pytest.approx(step, rel=1e-12)


def test_bounds_round_outwards_and_decimals_follow_the_step():
    assert mc_format(12_345, 1000, "down", thousands=True) == "12,000"
    assert mc_format(12_345, 1000, "up", thousands=True) == "13,000"
    assert mc_format(12_000, 1000, "up", thousands=True) == "12,000"  # on the grid: not pushed a step out
    assert [mc_decimals(s) for s in (1000.0, 1.0, 0.1, 0.01, 0.001)] == [0, 0, 1, 2, 3]
    assert mc_format(47.149, 0.1, "plain") == "47.1" and mc_format(0.125, 0.01) == "0.12"  # halves to even


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf])
def test_an_error_that_is_not_positive_and_finite_is_refused(bad):
    for rule in ("leading", "pdg", "unit"):
        with pytest.raises(ValueError, match="positive finite"):
            mc_step(bad, rule=rule)
    with pytest.raises(ValueError, match="needs the estimate"):
        mc_step(1.0, rule="estimate")
    with pytest.raises(ValueError, match="rule must be"):
        mc_step(1.0, rule="other")
