"""Where each Pro-Worker Benchmark claim is computed: claim-id prefix -> "function (test)".

Plain data, no imports: the claims stage loads this file on its own (:func:`compendium.claims.load_provenance`),
without importing the study, so linking the claims to their code costs milliseconds, not the study's imports.
The claims check links each claim to the entry of its longest matching prefix.
"""

#: id prefix -> "function (test)"; the claims engine links each claim to the longest matching prefix.
PROVENANCE: dict[str, str] = {
    "pwb.": "compendium.pwb.register.register_values (tests/pwb/test_pwb_register.py::test_every_register_cell_is_a_key)",
    "pwb.pwi.": "compendium.pwb.aggregates.table2 / compendium.pwb.instances.pwi_bootstrap (tests/pwb/test_pwb_bootstrap.py::test_pwi_bootstrap_reproduces_the_methods_stream_on_a_full_size_fixture)",
    "pwb.table2.": "compendium.pwb.aggregates.table2 (tests/pwb/test_pwb_aggregates.py::test_point_pwi_within_0_06_of_released_bootstrap_means)",
    "pwb.delta.": "compendium.pwb.aggregates.mean_printed_delta (tests/pwb/test_pwb_aggregates.py::test_point_pwi_within_0_06_of_released_bootstrap_means)",
    "pwb.d_pooled.": "compendium.pwb.instances.d_pooled (tests/pwb/test_pwb_instances.py::test_d_pooled_uses_the_concatenation_of_all_dimensions)",
    "pwb.dim.": "compendium.pwb.aggregates.dimension_diagnostics (tests/pwb/test_pwb_aggregates.py::test_dimension_diagnostics_and_layer1_from_known_runs)",
    "pwb.table3.": "compendium.pwb.aggregates.dimension_diagnostics / compendium.pwb.instances.table3_bootstrap (tests/pwb/test_pwb_bootstrap.py::test_table3_cis_follow_the_authors_stream)",
    "pwb.layer1.": "compendium.pwb.aggregates.layer1_summary (tests/pwb/test_pwb_aggregates.py::test_reconstruction_matches_the_released_full_precision_means)",
    "pwb.cf_co.r": "compendium.pwb.instances.prompt_level_correlation_authors (tests/pwb/test_pwb_bootstrap.py::test_cf_co_authors_rule_concatenates_and_cuts_and_differs_from_pairing)",
    "pwb.table1.": "compendium.pwb.weights.scheme_weights (tests/pwb/test_pwb_register.py::test_design_constants_from_config)",
    "pwb.table4.": "compendium.pwb.weights.scheme_weights (tests/pwb/test_pwb_register.py::test_design_constants_from_config)",
    "pwb.table5.": "compendium.pwb.register.register_values (tests/pwb/test_pwb_register.py::test_layer_means_from_layer_summary)",
    "pwb.table6.": "compendium.pwb.register.register_values (tests/pwb/test_pwb_register.py::test_layer_means_from_layer_summary)",
    "pwb.table7.": "compendium.pwb.instances.irr_complete_triples (tests/pwb/test_pwb_instances.py::test_irr_on_complete_triples_only)",
    "pwb.table8.": "compendium.pwb.aggregates.model_dimension_matrix (tests/pwb/test_pwb_aggregates.py::test_stale_table_comparison_shape)",
    "pwb.table9.": "compendium.pwb.aggregates.weight_sensitivity (tests/pwb/test_pwb_aggregates.py::test_sensitivity_and_leaderboard_match_what_the_authors_printed)",
    "pwb.leaderboard_v2_0.": "compendium.pwb.aggregates.leaderboard (tests/pwb/test_pwb_aggregates.py::test_sensitivity_and_leaderboard_match_what_the_authors_printed)",
    "pwb.pilot.": "compendium.pwb.validation.pilot_agreement (tests/pwb/test_pwb_validation.py::test_released_pilot_agreement)",
    "pwb.fourth_judge.": "compendium.pwb.validation.fourth_judge_agreement (tests/pwb/test_pwb_validation.py::test_released_fourth_judge_sample_rule_gives_n_500)",
    "pwb.sensitivity.": "compendium.pwb.aggregates.weight_sensitivity (tests/pwb/test_pwb_aggregates.py::test_weight_sensitivity_hand_worked)",
    "pwb.completeness.": "compendium.pwb.register.register_values (tests/pwb/test_pwb_register.py::test_text_claims_from_cells)",
    "pwb.design.": "compendium.pwb.register.register_values (tests/pwb/test_pwb_register.py::test_design_constants_from_config)",
    "pwb.params.": "compendium.pwb.register.register_values (tests/pwb/test_pwb_register.py::test_design_constants_from_config)",
    "pwb.tiers.": "compendium.pwb.register.register_values (tests/pwb/test_pwb_register.py::test_design_constants_from_config)",
    "pwb.irr.": "compendium.pwb.instances.irr_complete_triples (tests/pwb/test_pwb_instances.py::test_irr_on_complete_triples_only)",
    "pwb.sig.": "compendium.pwb.instances.paired_tests (tests/pwb/test_pwb_instances.py::test_paired_tests_against_scipy)",
}
