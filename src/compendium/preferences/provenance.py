"""Where each human-preferences (HITL) claim is computed: claim-id prefix -> "function (test)".

Plain data, no imports: the claims stage loads this file on its own (:func:`compendium.claims.load_provenance`),
without importing the study, so linking the claims to their code costs milliseconds, not the study's imports.
The claims check links each claim to the entry of its longest matching prefix.
"""

#: Claim-id prefix -> the function that computes it and its test (longest prefix wins in the claims engine).
_T = "tests/preferences/test_preferences_register.py"

_R = "tests/preferences/test_preferences_rowlevel_fixture.py"

PROVENANCE: dict[str, str] = {
    "hitl.": f"compendium.preferences.register.register_values ({_T}::test_every_register_cell_is_a_key)",
    "hitl.recipes.": f"compendium.preferences.register.recipes_table ({_T}::test_outside_cells_are_none_with_reason)",
    "hitl.pairs.": f"compendium.preferences.register.pairs_table ({_T}::test_pairs_table_by_hand)",
    "hitl.pairs.tracking": f"compendium.preferences.register.report_claims ({_T}::test_signal_counts)",
    "hitl.pairs.flipping": f"compendium.preferences.register.report_claims ({_T}::test_signal_counts)",
    "hitl.bt.": f"compendium.preferences.reproduce.bradley_terry_table ({_T}::test_bt_table_matches_choix)",
    "hitl.bt_table.": f"compendium.preferences.register.bt_table ({_T}::test_bt_table_matches_choix)",
    "hitl.winrate.": f"compendium.preferences.reproduce.winrate_vs_base ({_T}::test_pairs_table_by_hand)",
    "hitl.n_ratings": f"compendium.preferences.register.report_claims ({_T}::test_totals)",
    "hitl.n_ties": f"compendium.preferences.register.report_claims ({_T}::test_totals)",
    "hitl.n_participants": f"compendium.preferences.rowlevel.n_participants ({_R}::test_fixture_reproduces_published_counts)",
    "hitl.fleiss.": f"compendium.preferences.register.fleiss_register_table ({_R}::test_kappa_matches_statsmodels)",
    "hitl.cat_": f"compendium.preferences.register.category_table ({_T}::test_category_tables_by_hand)",
    "hitl.disagree.": f"compendium.preferences.rowlevel.disagreement_by_category ({_R}::test_disagreement_table_by_hand)",
    "hitl.steps.": f"compendium.preferences.register.steps_table ({_T}::test_steps_and_text_claims)",
    "hitl.themes.": f"compendium.preferences.register.themes_table ({_T}::test_themes_rows_and_counts)",
    "hitl.comments.": f"compendium.preferences.register.text_claims ({_T}::test_themes_rows_and_counts)",
    "hitl.examples.": f"compendium.preferences.rowlevel.scenario_votes ({_R}::test_fixture_reproduces_published_counts)",
    "hitl.text.": f"compendium.preferences.register.text_claims ({_T}::test_steps_and_text_claims)",
    "hitl.length.": f"compendium.preferences.rowlevel.length_ratios ({_R}::test_length_ratios_by_hand)",
    "hitl.design.": f"compendium.preferences.register.design_claims ({_T}::test_design_constants_from_inputs)",
    "hitl.agent.": f"compendium.preferences.register.design_claims ({_T}::test_design_constants_from_inputs)",
    "hitl.recipe.": f"compendium.preferences.register.design_claims ({_T}::test_design_constants_from_inputs)",
    "hitl.gen.": f"compendium.preferences.register.design_claims ({_T}::test_design_constants_from_inputs)",
}

_P = "hitl/published_pair_counts.csv"
_C = "hitl/published_pair_counts_by_category.csv"
#: the row-level annotations, on the Hugging Face hub only
_ROWS = "hitl/annotations.parquet"
#: id prefix -> the raw files (names under data/, as the data chapter lists them) the claims are computed from
#: (empty: a design constant or a number measured on the models, with no released file behind it); the claims
#: chapter links each claim to the files of its longest matching prefix.
DATA: dict[str, tuple[str, ...]] = {
    "hitl.": (_P,),
    "hitl.recipes.": (),
    "hitl.cat_": (_C,),
    "hitl.themes.": ("hitl/comment_themes_llm.json",),
    "hitl.comments.": ("hitl/comment_themes_llm.json",),
    "hitl.fleiss.": (_ROWS,),
    "hitl.disagree.": (_ROWS,),
    "hitl.length.": (_ROWS,),
    "hitl.n_participants": (_ROWS,),
    "hitl.examples.": (_ROWS, "hitl/report_scenario_vote_examples.csv"),
    "hitl.design.": (_P, "hitl/prolific_prompts.json"),
    "hitl.agent.": (),
    "hitl.recipe.": (),
    "hitl.gen.": (),
}
