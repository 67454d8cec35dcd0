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
    "pwb.table5.": "compendium.pwb.instances.layer_paired_effects (tests/pwb/test_pwb_bootstrap.py::test_layer2_and_3_paired_effects_by_hand)",
    "pwb.table6.": "compendium.pwb.instances.layer_paired_effects (tests/pwb/test_pwb_bootstrap.py::test_layer2_and_3_paired_effects_by_hand)",
    "pwb.table5.mean_pooled.": "compendium.pwb.instances.layer_summary / compendium.pwb.instances.layer_paired_effects (tests/pwb/test_pwb_register.py::test_layer_means_from_layer_summary)",
    "pwb.table6.mean_pooled.": "compendium.pwb.instances.layer_summary / compendium.pwb.instances.layer_paired_effects (tests/pwb/test_pwb_register.py::test_layer_means_from_layer_summary)",
    "pwb.text.": "compendium.pwb.instances.layer_paired_effects (tests/pwb/test_pwb_bootstrap.py::test_layer2_and_3_paired_effects_by_hand)",
    "pwb.text.l2_cluster": "compendium.pwb.instances.layer2_low_cluster (tests/pwb/test_pwb_register.py::test_l2_cluster_is_the_models_below_the_mean_prompted_layer2_score)",
    "pwb.fig_sig_models.": "compendium.pwb.instances.paired_tests (tests/pwb/test_pwb_instances.py::test_paired_tests_against_scipy)",
    "pwb.fig_sig_dims.p_bound": "compendium.pwb.instances.paired_tests (tests/pwb/test_pwb_instances.py::test_paired_tests_against_scipy)",
    "pwb.fig_sig_dims.n_per_dim": "compendium.pwb.sections.design_section (tests/pwb/test_pwb_register.py::test_text_claims_from_cells)",
    "pwb.completeness.two_judge_runs": "compendium.pwb.instances.panel_scores (tests/pwb/test_pwb_instances.py::test_panel_rule)",
    "pwb.table7.": "compendium.pwb.instances.irr_complete_triples (tests/pwb/test_pwb_instances.py::test_irr_on_complete_triples_only)",
    "pwb.table8.": "compendium.pwb.aggregates.model_dimension_matrix (tests/pwb/test_pwb_aggregates.py::test_stale_table_comparison_shape)",
    "pwb.table9.": "compendium.pwb.aggregates.weight_sensitivity (tests/pwb/test_pwb_aggregates.py::test_sensitivity_and_leaderboard_match_what_the_authors_printed)",
    "pwb.leaderboard_v2_0.": "compendium.pwb.aggregates.leaderboard (tests/pwb/test_pwb_aggregates.py::test_sensitivity_and_leaderboard_match_what_the_authors_printed)",
    "pwb.pilot.": "compendium.pwb.validation.pilot_agreement (tests/pwb/test_pwb_validation.py::test_released_pilot_agreement)",
    "pwb.fourth_judge.": "compendium.pwb.validation.fourth_judge_agreement (tests/pwb/test_pwb_validation.py::test_released_fourth_judge_sample_rule_gives_n_500)",
    "pwb.sensitivity.": "compendium.pwb.aggregates.weight_sensitivity (tests/pwb/test_pwb_aggregates.py::test_weight_sensitivity_hand_worked)",
    "pwb.completeness.": "compendium.pwb.sections.design_section (tests/pwb/test_pwb_register.py::test_text_claims_from_cells)",
    "pwb.design.": "compendium.pwb.sections.design_section (tests/pwb/test_pwb_register.py::test_design_constants_from_config)",
    "pwb.params.": "compendium.pwb.register.register_values (tests/pwb/test_pwb_register.py::test_design_constants_from_config)",
    "pwb.tiers.": "compendium.pwb.weights.scheme_weights (tests/pwb/test_pwb_register.py::test_design_constants_from_config)",
    "pwb.irr.": "compendium.pwb.instances.irr_complete_triples (tests/pwb/test_pwb_instances.py::test_irr_on_complete_triples_only)",
    "pwb.sig.": "compendium.pwb.instances.paired_tests (tests/pwb/test_pwb_instances.py::test_paired_tests_against_scipy)",
}

_A = "pwb/analysis_output/"
#: the per-instance results, on the Hugging Face hub only (data/pwb/results/)
_RUNS = "pwb/results/"
#: id prefix -> the raw files (names under data/, as the data chapter lists them) the claims are computed from;
#: the claims chapter links each claim to the files of its longest matching prefix.
DATA: dict[str, tuple[str, ...]] = {
    "pwb.": (_A + "dimension_scores.csv", "pwb/config.yaml"),
    "pwb.pwi.": (_A + "dimension_scores.csv", "pwb/config.yaml", _RUNS),
    "pwb.table2.": (_A + "dimension_scores.csv", _A + "pwi_scores.csv", "pwb/config.yaml"),
    "pwb.delta.": (_A + "dimension_scores.csv", "pwb/config.yaml"),
    "pwb.d_pooled.": (_RUNS,),
    "pwb.dim.": (_A + "dimension_diagnostics.csv", _A + "dimension_scores.csv"),
    "pwb.table3.": (_A + "dimension_diagnostics.csv", _A + "dimension_scores.csv", _RUNS),
    "pwb.layer1.": (_A + "layer_summary.csv", _A + "dimension_scores.csv"),
    "pwb.cf_co.r": (_RUNS,),
    "pwb.table1.": ("pwb/config.yaml",),
    "pwb.table4.": ("pwb/config.yaml",),
    "pwb.table5.": (_RUNS,),
    "pwb.table6.": (_RUNS,),
    "pwb.table5.mean_pooled.": (_A + "layer_summary.csv", _RUNS),
    "pwb.table6.mean_pooled.": (_A + "layer_summary.csv", _RUNS),
    "pwb.table7.": (_RUNS, _A + "irr_table.csv"),
    "pwb.table8.": (_A + "dimension_scores.csv",),
    "pwb.table9.": (_A + "dimension_scores.csv", "pwb/config.yaml"),
    "pwb.leaderboard_v2_0.": (_A + "dimension_scores.csv", "pwb/config.yaml"),
    "pwb.sensitivity.": (_A + "dimension_scores.csv", "pwb/config.yaml"),
    "pwb.pilot.": ("pwb/pilot/pilot_scores.csv", "pwb/pilot/pilot_ground_truth.json"),
    "pwb.fourth_judge.": ("pwb/pilot/fourth_judge_scores.jsonl", "pwb/pilot/fourth_judge_errors.jsonl"),
    "pwb.completeness.": (_A + "dimension_scores.csv", "pwb/config.yaml", "pwb/prompts/"),
    "pwb.completeness.two_judge_runs": (_RUNS,),
    "pwb.design.": ("pwb/config.yaml", "pwb/prompts/", "pwb/rubrics/dimension_rubrics.yaml"),
    "pwb.params.": ("pwb/config.yaml",),
    "pwb.tiers.": ("pwb/config.yaml",),
    "pwb.checklist.": ("pwb/config.yaml",),
    "pwb.irr.": (_RUNS, _A + "irr_table.csv"),
    "pwb.sig.": (_RUNS,),
    "pwb.fig_sig_models.": (_RUNS,),
    "pwb.fig_sig_dims.": (_RUNS,),
    "pwb.text.": (_RUNS,),
}
