"""Where each robustness value is computed: value-id prefix -> "function (test)".

Plain data, no imports, as every study's ``provenance.py``. The robustness chapter has no register (no source
prints its numbers, :mod:`.register`), so these prefixes are those of its own values, the ``rob.*`` keys of
``results/robustness/values.json`` (:mod:`.values`); a value is linked to the entry of its longest matching
prefix. ``tests/robustness/test_values.py`` checks that every value has one and that each name resolves.
"""

_S = "tests/robustness/test_sweeps.py"
_C = "tests/robustness/test_independent_checks.py"
_F = "tests/robustness/test_findings.py"
_CD = "compendium.robustness.sampling.c_beats_d_shares (tests/robustness/test_sampling.py::"
_CD += "test_c_beats_d_shares_come_from_the_preferences_chapter_with_their_monte_carlo_error)"
_BT = f"compendium.robustness.sweeps.bt_sweep ({_S}::test_bt_sweep_matches_choix_on_the_same_win_matrix)"

#: id prefix -> "function (test)"; a value is linked to the longest matching prefix.
PROVENANCE: dict[str, str] = {
    # the paper's setting in each sweep, and each sweep's range
    "rob.reference.zones.": f"compendium.robustness.sweeps.zone_sweep ({_S}::test_zone_sweep_hand_worked)",
    "rob.zones.": f"compendium.robustness.sweeps.zone_sweep ({_S}::test_zone_sweep_hand_worked)",
    "rob.reference.has.": f"compendium.robustness.sweeps.has_sweep ({_S}::test_has_sweep_hand_worked)",
    "rob.has.": f"compendium.robustness.sweeps.has_sweep ({_S}::test_has_sweep_hand_worked)",
    "rob.has.untied.": "compendium.workbank.agency.untied_only "
    "(tests/workbank/test_workbank_agency.py::test_tie_sensitivity_grid_contains_the_plain_comparison)",
    "rob.reference.pwb.": f"compendium.robustness.sweeps.pwb_sweep ({_S}::test_pwb_sweep_hand_worked)",
    "rob.pwb.": f"compendium.robustness.sweeps.pwb_sweep ({_S}::test_pwb_sweep_hand_worked)",
    "rob.pwb.random.": "compendium.robustness.sweeps.random_schemes / compendium.robustness.sweeps.pwb_sweep "
    f"({_S}::test_random_schemes_dirichlet_mean_and_spread)",
    "rob.reference.bt.": _BT,
    "rob.bt.": _BT,
    # the "how sure?" resampling checks at the paper's setting
    "rob.sampling.zones.": f"compendium.robustness.sampling.zone_sampling_check "
    f"({_C}::test_zone_sampling_check_on_a_clear_landscape)",
    "rob.sampling.bt.": f"compendium.robustness.sampling.bt_sampling_check "
    f"({_C}::test_bt_sampling_check_with_categories_reports_both_bootstraps)",
    "rob.sampling.pwb.": f"compendium.robustness.sampling.pwb_gain_intervals "
    f"({_F}::test_the_printed_intervals_separate_each_models_gain_by_hand)",
    # P(C beats D): the preferences chapter's, read from its export
    "rob.sampling.bt.p_c_beats_d_": _CD,
    "rob.sampling.bt.c_beats_d_": _CD,
    # whether each finding holds at every setting of its sweep
    "rob.wb_": f"compendium.robustness.findings.findings ({_F}::test_findings_table_rows_and_verdicts)",
    "rob.pwb_": f"compendium.robustness.findings.findings ({_F}::test_findings_table_rows_and_verdicts)",
    "rob.bt_": f"compendium.robustness.findings.findings ({_F}::test_findings_table_rows_and_verdicts)",
    "rob.n_": f"compendium.robustness.findings.findings ({_F}::test_findings_table_rows_and_verdicts)",
}
