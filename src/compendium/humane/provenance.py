"""Where each value of the scale chapter is computed: value-id prefix -> "function (test)".

Plain data, no imports, as every study's ``provenance.py``. The chapter has no register (no source prints its
numbers, :mod:`.register`), so these prefixes are those of its own values, the ``h_*`` keys of
``results/humane/values.json`` (:mod:`.values`); a value is linked to the entry of its longest matching prefix.
``tests/humane/test_humane_build.py`` checks that every value has one and that each name resolves.
"""

_BF = "tests/humane/test_humane_brute_force.py"
_B = "tests/humane/test_humane_build.py"
_NEEDED = (
    "compendium.humane.report.needed / compendium.humane.digits.fmt_n "
    f"({_BF}::test_judgements_needed_and_the_saving_recomputed_from_the_committed_blocks)"
)

#: id prefix -> "function (test)"; a value is linked to the longest matching prefix.
PROVENANCE: dict[str, str] = {
    # judgements needed for 95 % recovery, and the recovery at the budget
    "h_top_": _NEEDED,
    "h_rank_": _NEEDED,
    "h_ptop_": _NEEDED,
    "h_prank_": _NEEDED,
    # the saving against uniform pairs, its simultaneous interval, and its verdict read at the printed digits
    "h_sav_": "compendium.humane.report.savings / compendium.humane.digits.fmt_saving / "
    "compendium.humane.report.saving_verdict "
    f"({_BF}::test_judgements_needed_and_the_saving_recomputed_from_the_committed_blocks)",
    "h_sav_family": f"compendium.humane.report.savings ({_BF}::test_the_verdicts_hold_together_not_one_by_one)",
    "h_sav_level": "compendium.humane.report.savings / compendium.humane.summary.level_text "
    f"({_BF}::test_the_verdicts_hold_together_not_one_by_one)",
    # the uniform baseline shared with the preferences chapter
    "h_base_": "compendium.humane.baseline.shared_baseline / compendium.humane.summary.baseline_phrases "
    f"({_B}::test_the_uniform_baseline_is_the_preferences_chapters_simulation)",
    "h_ig_": "compendium.humane.summary.saving_phrases / compendium.humane.report.saving_verdicts "
    f"({_BF}::test_a_saving_whose_interval_rounds_to_zero_is_no_detectable_difference)",
    # P(best) against how often the leader is truly best
    "h_cal_": "compendium.humane.report.calibration "
    f"({_BF}::test_calibration_intervals_allow_for_the_correlated_boards_of_one_study)",
    "h_cal_set_": "compendium.humane.report.calibration_by_setting / "
    "compendium.humane.summary.calibration_setting_values "
    f"({_BF}::test_calibration_is_judged_per_setting_where_pooling_hides_a_setting)",
    "h_cal_5_wide": "compendium.humane.summary.calibration_setting_values "
    f"({_BF}::test_calibration_is_judged_per_setting_where_pooling_hides_a_setting)",
    "h_cal_20_wide": "compendium.humane.summary.calibration_setting_values "
    f"({_BF}::test_calibration_is_judged_per_setting_where_pooling_hides_a_setting)",
    # pooled against per-group boards
    "h_cons_": "compendium.humane.report.consolidation_cells / compendium.humane.summary.consolidation_values "
    f"({_BF}::test_pooled_and_consolidated_boards_are_compared_where_recovery_is_not_saturated)",
    "h_cons_ratio": "compendium.humane.report.consolidation / compendium.humane.summary.consolidation_values "
    f"({_BF}::test_consolidation_gaps_carry_their_paired_monte_carlo_error)",
    "h_cons_all": "compendium.humane.report.consolidation / compendium.humane.summary.consolidation_values "
    f"({_BF}::test_consolidation_gaps_carry_their_paired_monte_carlo_error)",
    "h_cons_excess": "compendium.humane.report.consolidation / compendium.humane.summary.consolidation_values "
    f"({_BF}::test_consolidation_gaps_carry_their_paired_monte_carlo_error)",
    # the settings the prose names
    "h_nu": f"compendium.humane.grid.study_truth ({_B}::test_the_studys_nu_is_the_preferences_export_for_this_stage)",
    "h_budget": "compendium.humane.grid.book_grid "
    "(tests/humane/test_humane.py::test_checkpoints_are_a_sqrt2_ladder_ending_at_the_budget)",
    "h_reps_": f"compendium.humane.build.build ({_B}::test_the_result_holds_the_reports_of_the_inputs)",
    "h_": "compendium.humane.summary.setup_phrases "
    f"({_B}::test_summary_is_the_union_of_its_phrases_and_values_leave_out_the_paragraphs)",
}
