"""Where each WORKBank claim is computed: claim-id prefix -> "function (test)".

Plain data, no imports: the claims stage loads this file on its own (:func:`compendium.claims.load_provenance`),
without importing the study, so linking the claims to their code costs milliseconds, not the study's imports.
The claims check links each claim to the entry of its longest matching prefix.
"""

T = "tests/workbank/test_workbank_register.py"

#: id prefix -> "function (test)"; the claims engine links each claim to the longest matching prefix.
PROVENANCE: dict[str, str] = {
    "wb.table1.": f"compendium.workbank.register.table1_frame ({T}::test_table1_matches_statsmodels_formula)",
    "wb.table2.": f"compendium.workbank.register.table2_frame ({T}::test_table2_counts_by_hand)",
    "wb.table3.": f"compendium.workbank.register.ranked_desire_frame ({T}::test_ranked_desire_frame_groupby)",
    "wb.table4.": f"compendium.workbank.register.ranked_desire_frame ({T}::test_ranked_desire_frame_groupby)",
    "wb.table5.": f"compendium.workbank.register.table5_frame ({T}::test_table5_hand_case)",
    "wb.table6.": f"compendium.workbank.register.register_values ({T}::test_every_register_cell_is_produced)",
    "wb.table7.": f"compendium.workbank.register.register_values ({T}::test_every_register_cell_is_produced)",
    "wb.fig4b.": f"compendium.workbank.authors.fig4b_frame ({T}::test_fig4b_crosstab)",
    "wb.fig5a.": f"compendium.workbank.authors.fig5a_frame ({T}::test_fig5a_hand_case)",
    "wb.zones.cm_": f"compendium.workbank.authors.fig5a_frame ({T}::test_fig5a_hand_case)",
    "wb.fig5b.": f"compendium.workbank.authors.mapping_frames ({T}::test_mapping_frames_hand_case)",
    "wb.fig5c.": f"compendium.workbank.authors.mapping_frames ({T}::test_mapping_frames_hand_case)",
    "wb.nb_unique.": f"compendium.workbank.authors.mapping_frames ({T}::test_mapping_frames_hand_case)",
    "wb.nb.unique_": f"compendium.workbank.authors.mapping_frames ({T}::test_mapping_frames_hand_case)",
    "wb.papers.top_task_": f"compendium.workbank.register.text_claims ({T}::test_text_claims_on_real_data)",
    "wb.fig6b.": f"compendium.workbank.authors.fig6b_frame ({T}::test_fig6b_and_table5_loop)",
    "wb.has.occ_": f"compendium.workbank.authors.fig6b_frame ({T}::test_fig6b_and_table5_loop)",
    "wb.has.matrix": f"compendium.workbank.register.text_claims ({T}::test_has_matrix_loop)",
    "wb.has.": f"compendium.workbank.register.text_claims ({T}::test_has_matrix_loop)",
    "wb.fig7.": f"compendium.workbank.register.fig7_frame ({T}::test_fig7_loop)",
    "wb.nb_claude.": f"compendium.workbank.register.nb_claude_frame ({T}::test_nb_claude_hand_case)",
    "wb.nb_has_avg.": f"compendium.workbank.authors.nb_has_avg_frame ({T}::test_nb_has_avg_and_h5_groupby)",
    "wb.nb_has.": f"compendium.workbank.register.text_claims ({T}::test_text_claims_on_real_data)",
    "wb.nb_h5.": f"compendium.workbank.authors.nb_h5_frame ({T}::test_nb_has_avg_and_h5_groupby)",
    "wb.zones.": f"compendium.workbank.register.zones_frame ({T}::test_zones_frame_hand_case)",
    "wb.alpha.": f"compendium.workbank.reliability.alpha_authors ({T}::test_alpha_authors_keeps_repeated_rows)",
    "wb.mixed.": f"compendium.workbank.register.mixed_model_stats ({T}::test_table1_matches_statsmodels_formula)",
    "wb.": f"compendium.workbank.register.text_claims ({T}::test_text_claims_on_real_data)",
}

_W = "workbank/domain_worker_desires.csv"
_M = "workbank/domain_worker_metadata.csv"
_E = "workbank/expert_rated_technological_capability.csv"
_T = "workbank/task_statement_with_metadata.csv"
_X = "workbank/external/"
#: id prefix -> the raw files (names under data/, as the data chapter lists them) the claims are computed from;
#: the claims chapter links each claim to the files of its longest matching prefix.
DATA: dict[str, tuple[str, ...]] = {
    "wb.": (_W, _M, _E, _T),
    "wb.table1.": (_W, _M),
    "wb.mixed.": (_W, _M),
    "wb.table2.": (_M,),
    "wb.table3.": (_W,),
    "wb.table4.": (_W,),
    "wb.table5.": (_W, _M, _E),
    "wb.table6.": (_W,),
    "wb.table7.": (_W,),
    "wb.fig4b.": (_W,),
    "wb.fig5a.": (_W, _E, _T),
    "wb.zones.cm_": (_W, _E, _T),
    "wb.fig5b.": (_W, _E, _X + "company_to_workflow_aggregation.csv"),
    "wb.fig5c.": (_W, _E, _X + "paper_to_workflow_mapping_aggregated.csv"),
    "wb.nb_unique.": (
        _W,
        _E,
        _X + "company_to_workflow_aggregation.csv",
        _X + "paper_to_workflow_mapping_aggregated.csv",
    ),
    "wb.nb.unique_": (
        _W,
        _E,
        _X + "company_to_workflow_aggregation.csv",
        _X + "paper_to_workflow_mapping_aggregated.csv",
    ),
    "wb.papers.": (_W, _E, _X + "paper_to_workflow_mapping_aggregated.csv", _X + "paper_id_to_year_mapping.csv"),
    "wb.fig6b.": (_W, _M, _E),
    "wb.has.occ_": (_W, _M, _E),
    "wb.has.": (_W, _E),
    "wb.fig7.": (_E, _T),
    "wb.nb_claude.": (_W, _X + "usage_from_anthropic.csv"),
    "wb.nb_has_avg.": (_W, _E),
    "wb.nb_has.": (_W, _E),
    "wb.nb_h5.": (_W, _M, _E),
    "wb.zones.": (_W, _E),
    "wb.alpha.": (_W, _E),
    "wb.external.": (_W, _E, _T, _X + "usage_from_anthropic.csv", _X + "M2024_bls_wage_data.csv"),
}
