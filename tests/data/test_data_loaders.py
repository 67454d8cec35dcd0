"""Loaders return validated tables; every kind of bad input gives an error naming file, column, expectation."""

import pandas as pd
import pytest

import compendium.data as d
from compendium.data import manifest as manifest_mod
from compendium.data.load import manifest
from compendium.data.schema import ALL_TABLES

DESIRES = "workbank/domain_worker_desires.csv"


@pytest.mark.parametrize(
    "loader, rows",
    [
        (d.load_worker_desires, 5731),
        (d.load_worker_metadata, 1500),
        (d.load_expert_ratings, 2057),
        (d.load_task_metadata, 2131),
        (d.load_hitl_pair_counts, 10),
        (d.load_hitl_pair_counts_by_category, 80),
        (d.load_pwb_dimension_scores, 140),
        (d.load_pwb_fourth_judge_scores, 504),
        (d.load_hitl_prompts, 50),
    ],
)
def test_loaders_return_the_released_rows(loader, rows):
    assert len(loader()) == rows


def test_every_table_in_the_schema_loads():
    for name in ALL_TABLES:
        df = d.load_table(name)
        assert len(df) > 0, name


def test_ratings_are_integers_in_range_and_keys_unique():
    w = d.load_worker_desires()
    assert w["Automation Desire Rating"].between(1, 5).all()
    assert not w.duplicated(["User ID", "Task ID"]).any()


def test_arxiv_ids_keep_their_trailing_zero():
    ids = set(d.load_paper_years()["paper_id"])
    assert "2301.12050" in ids and "2301.1205" not in ids


def test_non_table_loaders():
    assert "scoring" in d.load_pwb_config()
    assert len(d.load_pwb_system_prompt()) > 1000
    assert len(d.load_hitl_comment_themes()["themes"]) == 8


def test_manifest_matches_the_data_on_disk():
    scanned = manifest_mod.scan()
    assert {k: v["sha256"] for k, v in scanned.items()} == {k: v["sha256"] for k, v in manifest().items()}


# --- bad input ------------------------------------------------------------------------------------


def test_corrupt_file_fails_the_checksum_naming_the_file(data_copy):
    root = data_copy(DESIRES)
    with open(root / DESIRES, "ab") as f:
        f.write(b"x")
    with pytest.raises(d.ChecksumError, match=r"domain_worker_desires\.csv: sha256 .* does not match"):
        d.load_worker_desires(root=root)


def test_truncated_file_fails_the_checksum(data_copy):
    root = data_copy(DESIRES)
    raw = (root / DESIRES).read_bytes()
    (root / DESIRES).write_bytes(raw[: len(raw) // 2])
    with pytest.raises(d.ChecksumError, match="corrupt, truncated or modified"):
        d.load_worker_desires(root=root)


def test_truncated_file_without_checksum_fails_the_row_count(data_copy):
    root = data_copy(DESIRES)
    lines = (root / DESIRES).read_text().splitlines(keepends=True)
    (root / DESIRES).write_text("".join(lines[:1000]))
    with pytest.raises(d.DataValidationError, match=r"domain_worker_desires\.csv: expected 5731 rows, found"):
        d.load_worker_desires(root=root, verify=False)


def _rewrite(root, rel, fn):
    df = pd.read_csv(root / rel)
    fn(df).to_csv(root / rel, index=False)


def test_missing_column_is_named(data_copy):
    root = data_copy(DESIRES)
    _rewrite(root, DESIRES, lambda df: df.drop(columns=["Automation Desire Rating"]))
    with pytest.raises(
        d.DataValidationError,
        match=r"domain_worker_desires\.csv: missing required column\(s\) \['Automation Desire Rating'\]",
    ):
        d.load_worker_desires(root=root, verify=False)


def test_out_of_range_rating_is_named_with_its_range(data_copy):
    root = data_copy(DESIRES)

    def bad(df):
        df.loc[41, "Automation Desire Rating"] = 7
        return df

    _rewrite(root, DESIRES, bad)
    with pytest.raises(d.DataValidationError) as e:
        d.load_worker_desires(root=root, verify=False)
    msg = str(e.value)
    assert "'Automation Desire Rating'" in msg and "[1, 5]" in msg and "data row 42" in msg and "7" in msg


def test_panel_score_out_of_0_3_is_rejected(data_copy):
    rel = "pwb/pilot/pilot_scores.csv"
    root = data_copy(rel)

    def bad(df):
        df.loc[0, "human_score"] = 4
        return df

    _rewrite(root, rel, bad)
    with pytest.raises(d.DataValidationError, match=r"'human_score': expected values in \[0, 3\]"):
        d.load_pwb_pilot_scores(root=root, verify=False)


def test_text_in_a_numeric_column_is_rejected(data_copy):
    root = data_copy(DESIRES)

    def bad(df):
        df["Enjoyment Rating"] = df["Enjoyment Rating"].astype(object)
        df.loc[3, "Enjoyment Rating"] = "high"
        return df

    _rewrite(root, DESIRES, bad)
    with pytest.raises(d.DataValidationError, match="'Enjoyment Rating': expected integers"):
        d.load_worker_desires(root=root, verify=False)


def test_duplicate_key_is_rejected(data_copy):
    rel = "hitl/published_pair_counts.csv"
    root = data_copy(rel)
    _rewrite(root, rel, lambda df: pd.concat([df, df.iloc[[0]]]))
    with pytest.raises(d.DataValidationError, match=r"key \['model_x', 'model_y'\] must be unique"):
        d.load_hitl_pair_counts(root=root, verify=False)


def test_unknown_model_id_is_rejected(data_copy):
    rel = "hitl/published_pair_counts.csv"
    root = data_copy(rel)

    def bad(df):
        df.loc[2, "model_y"] = "recipe_z"
        return df

    _rewrite(root, rel, bad)
    with pytest.raises(d.DataValidationError, match="'model_y': expected one of .*recipe_z"):
        d.load_hitl_pair_counts(root=root, verify=False)


def test_missing_file_says_how_to_restore(tmp_path):
    with pytest.raises(d.MissingDataError, match="dvc pull"):
        d.load_worker_desires(root=tmp_path)


def test_unparseable_json_is_reported(data_copy):
    rel = "pwb/pilot/fourth_judge_scores.jsonl"
    root = data_copy(rel)
    (root / rel).write_text('{"item_id": 1,\n')
    with pytest.raises(d.DataValidationError, match=r"fourth_judge_scores\.jsonl: line 1: not valid JSON"):
        d.load_pwb_fourth_judge_scores(root=root, verify=False)


def test_unknown_table_name():
    with pytest.raises(KeyError, match="unknown table 'nope'"):
        d.load_table("nope")


def test_require_columns_names_what_is_missing():
    from compendium.data.errors import require_columns

    df = pd.DataFrame({"a": [1], "b": [2]})
    require_columns(df, ["a", "b"], "frame")  # passes
    with pytest.raises(
        d.DataValidationError, match=r"pair counts: missing column\(s\) \['ties'\]; expected \['a', 'ties'\]"
    ):
        require_columns(df, ["a", "ties"], "pair counts")
    with pytest.raises(d.DataValidationError, match="expected a pandas DataFrame, got list"):
        require_columns([1, 2], ["a"], "frame")


# --- the schemas are pandera schemas --------------------------------------------------------------


def test_every_spec_is_a_pandera_schema_that_checks_on_its_own():
    import pandera.errors
    import pandera.pandas as pa

    from compendium.data.schema import pandera_schema

    spec = ALL_TABLES["hitl_pair_counts"]
    schema = pandera_schema(spec)
    assert isinstance(schema, pa.DataFrameSchema) and pandera_schema(spec) is schema
    good = d.load_hitl_pair_counts()
    schema.validate(good)
    bad = good.assign(x_wins=good["x_wins"] - 1000)
    with pytest.raises(pandera.errors.SchemaError, match="in_range"):
        schema.validate(bad)


def test_missing_value_is_named_with_its_row(data_copy):
    root = data_copy(DESIRES)

    def bad(df):
        df.loc[9, "Task"] = None
        return df

    _rewrite(root, DESIRES, bad)
    with pytest.raises(
        d.DataValidationError,
        match=r"domain_worker_desires\.csv: column 'Task': expected no missing values, found missing "
        r"in 1 row\(s\), first at data row 10",
    ):
        d.load_worker_desires(root=root, verify=False)


def test_a_list_column_holding_a_number_is_rejected():
    from compendium.data.load import validate

    spec = ALL_TABLES["pwb_pilot_ground_truth"]
    df = d.load_table("pwb_pilot_ground_truth")
    df.loc[4, "llm_individual_scores"] = 2
    with pytest.raises(
        d.DataValidationError,
        match=r"x\.json: column 'llm_individual_scores': expected a list, "
        r"found 1 row\(s\), first at data row 5",
    ):
        validate(df, spec, where="x.json")


def test_several_problems_report_the_first_column_in_file_order():
    from compendium.data.load import validate

    spec = ALL_TABLES["hitl_pair_counts"]
    df = d.load_hitl_pair_counts()
    df.loc[1, "ties"] = -1
    df.loc[0, "model_x"] = "recipe_z"
    with pytest.raises(d.DataValidationError, match=r"'model_x': expected one of"):
        validate(df, spec, where="f.csv")


def test_json_nested_too_deep_names_the_file_and_line_not_a_recursion_error(data_copy):
    deep = "[" * 100_000 + "]" * 100_000
    rel = "pwb/pilot/fourth_judge_scores.jsonl"
    root = data_copy(rel)
    (root / rel).write_text('{"item_id": 1}\n' + deep + "\n")
    with pytest.raises(d.DataValidationError, match=r"fourth_judge_scores\.jsonl: line 2: JSON nested too deep"):
        d.load_pwb_fourth_judge_scores(root=root, verify=False)
    rel = "pwb/pilot/pilot_ground_truth.json"
    root = data_copy(rel)
    (root / rel).write_text(deep)
    with pytest.raises(d.DataValidationError, match=r"pilot_ground_truth\.json: JSON nested too deep"):
        d.load_pwb_pilot_ground_truth(root=root, verify=False)


def test_a_json_record_that_is_not_an_object_names_the_file_and_record(data_copy):
    rel = "pwb/pilot/pilot_ground_truth.json"
    root = data_copy(rel)
    (root / rel).write_text('[{"item_id": 1}, 3]')
    with pytest.raises(d.DataValidationError, match=r"pilot_ground_truth\.json: record 2: expected a JSON object"):
        d.load_pwb_pilot_ground_truth(root=root, verify=False)
    rel = "pwb/pilot/fourth_judge_scores.jsonl"
    root = data_copy(rel)
    (root / rel).write_text('{"item_id": 1}\n\n[1, 2]\n')
    with pytest.raises(d.DataValidationError, match=r"fourth_judge_scores\.jsonl: line 3: expected a JSON object"):
        d.load_pwb_fourth_judge_scores(root=root, verify=False)
