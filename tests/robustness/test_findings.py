"""Whether each finding holds (compendium.robustness.findings): the summary table's rows, verdicts and notes."""

import pandas as pd
import pytest

from compendium.robustness import findings as fd


def test_finding_row():
    r = fd.finding_row("k", "S", "f", [True, False, True], [1.0, -2.0, 3.0], "{:+.1f}", "grid", "margin", 1.0)
    assert (r["n_settings"], r["n_hold"], r["holds_all"], r["verdict"]) == (3, 2, False, "no (2/3)")
    assert (r["min"], r["max"], r["range"], r["paper_setting"]) == (-2.0, 3.0, "-2.0 to +3.0", "+1.0")
    ok = fd.finding_row("k", "S", "f", pd.Series([True, True]), pd.Series([0.5, 0.7]))
    assert ok["verdict"] == "yes (2/2)" and ok["holds_all"] and ok["paper_setting"] == ""
    with pytest.raises(ValueError, match="2 holds flags but 3 values"):
        fd.finding_row("k", "S", "f", [True, True], [1, 2, 3])
    with pytest.raises(ValueError, match="no settings"):
        fd.finding_row("k", "S", "f", [], [])
    with pytest.raises(ValueError, match="NaN"):
        fd.finding_row("k", "S", "f", [True], [float("nan")])


def test_findings_table_rows_and_verdicts(result):
    f = result.findings.set_index("key")
    assert list(f.index) == [
        "wb_green_largest",
        "wb_red_gt_rnd",
        "wb_workers_more_same_rule",
        "wb_workers_more_any_rule",
        "pwb_all_gain",
        "pwb_top_glm",
        "pwb_top3",
        "pwb_all_gain_random",
        "pwb_top_glm_random",
        "pwb_top3_random",
        "bt_top_c",
        "bt_ranking",
        "bt_rho",
    ]
    z = result.zones.sweep
    g = f.loc["wb_green_largest"]
    assert (g["n_settings"], g["n_hold"]) == (len(z), int(z["green_largest"].sum()))
    assert g["min"] == z["green_lead"].min()
    assert g["paper_setting"] == f"{z.loc[z['reference'], 'green_lead'].iloc[0]:+.0f}"
    # the symmetric-rule finding adds the untied-tasks check to the same-rule rows
    same = result.agency.sweep[result.agency.sweep["same_rule"]]
    assert f.loc["wb_workers_more_same_rule", "n_settings"] == len(same) + 1
    assert f.loc["pwb_all_gain_random", "settings"] == "20 random weight schemes"
    assert all(f["how_sure"].str.len() > 0)
    assert "of rater-cluster resamples" in f.loc["wb_green_largest", "how_sure"]


def test_counted_by_finding_the_table_gives_the_landing_pages_count(result):
    """Issue 33: the landing page said "6 of the 9 headline findings", the chapter "7 of the 13" with nothing to
    connect them. Each row says which headline finding it tests (a PWB finding under random weightings is the named
    schemes' finding again) and whether it is only a bound (the mixed tie rules); counted by finding, a finding
    holds if every one of its rows holds. The chapter's sentence gives both counts and why they differ."""
    from compendium.robustness import summary as rs

    f = result.findings.set_index("key")
    assert f.loc["pwb_top_glm_random", "headline"] == "pwb_top_glm" and f.loc["bt_rho", "headline"] == "bt_rho"
    assert f["bound"].tolist() == [k == "wb_workers_more_any_rule" for k in f.index]
    hf = fd.headline_findings(result.findings).set_index("headline")
    assert len(hf) == len(f) - 1 - 3 == 9  # 13 rows: one bound, three findings re-run under random weightings
    by_hand = {
        h: bool(f.loc[(f["headline"] == h) & ~f["bound"], "holds_all"].all()) for h in dict.fromkeys(f["headline"])
    }
    assert hf["holds_all"].to_dict() == by_hand and hf.loc["pwb_top_glm", "n_rows"] == 2
    sentence = rs.summary(result)["rob_by_finding"]
    held = sum(by_hand.values())
    assert sentence.startswith(f"The landing page counts the same table by finding, and {held} of its 9 headline")
    assert "each of the three PWB findings re-run under named weight schemes and under 20 random weight schemes" in (
        sentence
    )
    assert "the row over the workers' × experts' tie rule, a bound shown for completeness, is no finding" in sentence


def test_findings_is_a_pure_function_of_the_sweep_results(result):
    """The same sweep tables give the same table, and deciding does not change them."""
    r = result
    before = [t.copy() for t in (r.zones.sweep, r.agency.sweep, r.pwb.sweep, r.bt.sweep)]
    again = fd.findings(
        r.zones.sweep,
        r.agency.sweep,
        r.agency.untied,
        r.pwb.sweep,
        r.bt.sweep,
        r.zones.sampling,
        r.bt.sampling,
        r.pwb.intervals,
    )
    pd.testing.assert_frame_equal(again, r.findings)
    for old, new in zip(before, (r.zones.sweep, r.agency.sweep, r.pwb.sweep, r.bt.sweep)):
        pd.testing.assert_frame_equal(old, new)


def test_how_sure_notes_cover_every_finding(result):
    r = result
    notes = fd.how_sure_notes(r.agency.sweep, r.pwb.sweep, r.zones.sampling, r.bt.sampling, r.pwb.intervals)
    assert set(notes) == set(r.findings["key"])
    # issue 33, C5: the run-level data are on the hub (not "not released"), and the printed intervals give a
    # sampling statement about the gains (pwi_scores.csv by hand: Qwen3.5 27B, 56.4 - 36.1 = 20.3 points)
    assert "not released" not in notes["pwb_all_gain"] and "Hugging Face hub" in notes["pwb_all_gain"]
    assert (
        "for all 7 models the prompted interval lies wholly above the baseline one (the smallest gap between "
        "them +20.3 points)"
    ) in notes["pwb_all_gain"], notes["pwb_all_gain"]
    assert "(64 % with prompt categories resampled)" in notes["bt_top_c"]  # P(C beats D) from the preferences chapter


def test_the_printed_intervals_separate_each_models_gain_by_hand():
    """sampling.pwb_gain_intervals against a hand-worked case: two models, one whose intervals overlap (a gap of
    -0.5) and one separated by 2.0 points; a model without its prompted row is one sentence naming it."""
    from compendium.robustness import sampling

    rows = [("A", "baseline", 30.0, 28.0, 32.0), ("A", "with_system_prompt", 40.0, 34.0, 46.0),
            ("B", "baseline", 30.0, 29.0, 31.0), ("B", "with_system_prompt", 33.0, 30.5, 35.0)]  # fmt: skip
    df = pd.DataFrame(rows, columns=["Model", "Variant", "PWI", "CI_lower", "CI_upper"])
    assert sampling.pwb_gain_intervals(df) == {"pwb_ci_models": 2, "pwb_ci_separated": 1, "pwb_ci_min_gap": -0.5}
    assert fd.pwb_gain_ci_text(sampling.pwb_gain_intervals(df)) == (
        "for 1 of the 2 models the prompted interval lies wholly above the baseline one (the smallest gap between "
        "them -0.5 points)"
    )
    with pytest.raises(ValueError, match=r"pwi_scores.csv: every model needs .* \['B'\] lack one"):
        sampling.pwb_gain_intervals(df.iloc[:3])
