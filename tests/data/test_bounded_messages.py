"""Error messages of the loaders quote at most a bounded prefix of any data value (issue 32: a 200 MB
column name gave a 200 MB error message), through one helper, ``compendium.pipeline.cli.quote``."""

from __future__ import annotations

import pandas as pd
import pytest

from compendium.data.errors import DataValidationError, require_columns
from compendium.data.load import load_table
from compendium.pipeline import paths
from compendium.preferences import rowlevel

HUGE = "c" * 2_000_000


def test_a_huge_column_name_in_a_release_table(tmp_path):
    rel = "workbank/task_statement_with_metadata.csv"
    df = pd.read_csv(paths.DATA / rel)
    df = df.rename(columns={df.columns[0]: HUGE + "\x1b[2K"})
    (tmp_path / rel).parent.mkdir(parents=True)
    df.to_csv(tmp_path / rel, index=False)
    with pytest.raises(DataValidationError) as e:
        load_table("task_metadata", root=tmp_path, verify=False)
    msg = str(e.value)
    assert len(msg) < 2_000 and "missing required column(s)" in msg and "2,000,004 characters" in msg
    assert "\x1b" not in msg


def test_a_huge_value_in_a_release_table(tmp_path):
    rel = "workbank/domain_worker_desires.csv"
    df = pd.read_csv(paths.DATA / rel)
    col = "Automation Desire Rating"  # an integer column: its message quotes its first value
    df[col] = df[col].astype(object)
    df.loc[0, col] = HUGE
    (tmp_path / rel).parent.mkdir(parents=True)
    df.to_csv(tmp_path / rel, index=False)
    with pytest.raises(DataValidationError) as e:
        load_table("worker_desires", root=tmp_path, verify=False)
    assert len(str(e.value)) < 2_000 and "2,000,000 characters" in str(e.value), str(e.value)[:300]


def test_require_columns_quotes_a_bounded_prefix():
    df = pd.DataFrame({HUGE: [1], **{f"x{i}": [1] for i in range(50)}})
    with pytest.raises(DataValidationError) as e:
        require_columns(df, ["a"], "frame")
    assert len(str(e.value)) < 2_000 and "51 in all" in str(e.value)


def test_the_annotation_reader_quotes_a_bounded_prefix(tmp_path):
    df = pd.DataFrame(
        {
            "participant_id": ["P1"],
            "scenario_id": ["s1"],
            "prompt_id": ["cw01"],
            "a_model": [HUGE],
            "b_model": ["recipe_a"],
            "choice": ["A"],
        }
    )
    with pytest.raises(DataValidationError) as e:
        rowlevel.normalise_annotations(df)
    assert len(str(e.value)) < 2_000 and "unknown model id 'ccc" in str(e.value)
