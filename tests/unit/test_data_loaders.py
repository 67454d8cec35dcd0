"""Loaders return validated tables; every kind of bad input gives an error naming file, column, expectation."""
import pandas as pd
import pytest

import compendium.data as d
from compendium.data import manifest as manifest_mod
from compendium.data.load import manifest
from compendium.data.schema import ALL_TABLES

DESIRES = "workbank/domain_worker_desires.csv"


@pytest.mark.parametrize("loader, rows", [
    (d.load_worker_desires, 5731), (d.load_worker_metadata, 1500), (d.load_expert_ratings, 2057),
    (d.load_task_metadata, 2131), (d.load_hitl_pair_counts, 10), (d.load_hitl_pair_counts_by_category, 80),
    (d.load_pwb_dimension_scores, 140), (d.load_pwb_fourth_judge_scores, 504), (d.load_hitl_prompts, 50),
])
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
    with pytest.raises(d.DataValidationError,
                       match=r"domain_worker_desires\.csv: missing required column\(s\) \['Automation Desire Rating'\]"):
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
    with pytest.raises(d.DataValidationError, match="fourth_judge_scores.jsonl: cannot be parsed"):
        d.load_pwb_fourth_judge_scores(root=root, verify=False)


def test_unknown_table_name():
    with pytest.raises(KeyError, match="unknown table 'nope'"):
        d.load_table("nope")


def test_require_columns_names_what_is_missing():
    from compendium.data.errors import require_columns
    df = pd.DataFrame({"a": [1], "b": [2]})
    require_columns(df, ["a", "b"], "frame")  # passes
    with pytest.raises(d.DataValidationError, match=r"pair counts: missing column\(s\) \['ties'\]; expected \['a', 'ties'\]"):
        require_columns(df, ["a", "ties"], "pair counts")
    with pytest.raises(d.DataValidationError, match="expected a pandas DataFrame, got list"):
        require_columns([1, 2], ["a"], "frame")
