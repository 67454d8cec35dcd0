"""The robustness chapter's prose numbers and phrases (compendium.robustness.summary)."""

import re

import numpy as np
import pandas as pd
import pytest

from compendium.pipeline import paths
from compendium.robustness import summary as rs


def test_holds_phrase_and_fmt_list():
    assert rs.holds_phrase([True, True, True]) == "at every one of the 3 settings"
    assert rs.holds_phrase([True, False, np.bool_(True)]) == "at 2 of 3 settings"
    assert rs.holds_phrase([1, 0], "under all {n}", "under {k} of the {n}") == "under 1 of the 2"
    with pytest.raises(ValueError, match="no settings"):
        rs.holds_phrase([])
    assert rs.fmt_list(["a"]) == "a" and rs.fmt_list(["a", "b"]) == "a and b"
    assert rs.fmt_list(iter(["a", "b", "c"])) == "a, b and c"
    with pytest.raises(ValueError, match="no items"):
        rs.fmt_list([])


def _zones(flags, largest, cutoffs=(2.5, 3.0, 3.5)):
    return pd.DataFrame({"cutoff": list(cutoffs), "green_largest": flags, "largest_zone": largest})


def test_green_largest_where_in_words():
    assert rs.green_largest_where(_zones([True] * 3, ["green"] * 3)) == "every setting"
    assert rs.green_largest_where(_zones([False] * 3, ["red"] * 3)) == "no setting"
    where = rs.green_largest_where(_zones([True, True, False], ["green", "green", "red=low"]))
    assert where == "cut-offs up to 3; above that, Low Priority or Red Light is larger"
    assert rs.green_largest_where(_zones([True, False, True], ["green", "red", "green"])) == "cut-offs 2.5, 3.5"


def test_summary_numbers_and_every_quoted_key(result, small_inputs):
    r = result
    g = rs.summary(r)
    assert (g["rob_ref_green"], g["rob_ref_red"], g["rob_ref_rnd"], g["rob_ref_low"]) == (364, 267, 107, 106)
    assert g["rob_ge_gt_moved"] == g["rob_ref_green"] - g["rob_gt_green"] > 0
    assert (g["rob_cut_min"], g["rob_cut_max"], g["rob_zone_n"]) == (2.5, 3.5, 6)
    assert g["rob_bt_grid"] == "0, 0.5, 1" and g["rob_bt_n_ties"] == int(small_inputs.counts["ties"].sum())
    assert g["rob_has_ref"] == pytest.approx(47.5, abs=0.05)
    # mixed rules lowest/highest are in the grid: the smallest share comes from one of them
    assert g["rob_has_mixed_min"] == r.agency.sweep.loc[~r.agency.sweep["same_rule"], "workers_more"].min()
    # Dirichlet(c * w): a weight's sd relative to its mean is sqrt((1 - w) / (w (c + 1))), at w = 1/n, c = 40
    w = 1 / r.pwb.n_weights
    assert g["rob_pwb_rel_sd"] == pytest.approx(np.sqrt((1 - w) / (w * 41)))
    assert g["rob_pwb_top_verdict"].endswith(f"of {int((r.pwb.sweep['family'] != 'random').sum())}")
    text = (paths.ROOT / "notebooks" / "40_robustness.md").read_text()
    quoted = set(re.findall(r"\{glue:(?:text|md)\}`([A-Za-z0-9_]+)", text))
    assert quoted and quoted <= set(g), sorted(quoted - set(g))


def test_each_phrase_section_is_a_pure_function_of_the_result(result):
    """The sections of PHRASES partition the glue keys, and phrasing twice gives the same values (the result
    unchanged)."""
    sections = [
        rs.zone_phrases,
        rs.agency_phrases,
        rs.pwb_phrases,
        rs.bt_phrases,
        rs.how_sure_phrases,
        rs.verdict_phrases,
    ]
    assert rs.PHRASES == tuple(sections)
    keys = [set(f(result)) for f in sections]
    pct = {f"{k}_pct" for k in rs.PERCENTS}  # the shares the prose prints as percentages, as the book writes them
    assert sum(len(k) for k in keys) == len(set().union(*keys)) == len(set(rs.summary(result)) - pct)
    assert pct <= set(rs.summary(result)) and all(rs.summary(result)[k].endswith(" %") for k in pct)
    zones = result.zones.sweep.copy()
    first, second = rs.summary(result), rs.summary(result)
    assert first.keys() == second.keys()
    assert all(first[k] == second[k] or (first[k] != first[k] and second[k] != second[k]) for k in first)
    assert result.zones.sweep.equals(zones)
