"""The `datasheet` stage, run as DVC runs it (compendium.pipeline.stage), on the real data, into a temporary results folder."""

import json
import os
import subprocess
import sys

import pandas as pd
import pytest

pytestmark = pytest.mark.pipeline


@pytest.fixture(scope="module")
def data_stage(tmp_path_factory):
    out = tmp_path_factory.mktemp("data_stage")
    env = dict(os.environ, COMPENDIUM_RESULTS=str(out / "results"))
    subprocess.run(
        [sys.executable, "-m", "compendium.pipeline.stage", "run", "datasheet", "--executed-dir", str(out)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return out


def test_values_report_the_real_row_counts(data_stage):
    v = json.loads((data_stage / "results" / "datasheet" / "values.json").read_text())
    assert v["data.rows.worker_desires"] == 5731
    assert v["data.rows.worker_metadata"] == 1500
    assert v["data.rows.expert_ratings"] == 2057
    assert v["data.rows.task_metadata"] == 2131
    assert v["data.files"] == 66


def test_tables_are_written(data_stage):
    files = pd.read_csv(data_stage / "results" / "datasheet" / "tables" / "files.csv")
    assert files["sha256"].str.fullmatch(r"[0-9a-f]{64}").all()
    assert set(files["dataset"]) == {"workbank", "pwb", "hitl"}
    quirks = pd.read_csv(data_stage / "results" / "datasheet" / "tables" / "quirks.csv")
    assert quirks.set_index("quirk").loc["distinct expert IDs (the paper says 52)", "count"] == 53


def test_chapter_shows_the_row_counts(data_stage):
    from compendium.pipeline.notebooks import glued

    g = glued(data_stage / "00_data.ipynb")
    assert g["data_rows_worker_desires"] == "'5,731'"
    assert g["data_rows_worker_metadata"] == "'1,500'"
    assert g["data_rows_expert_ratings"] == "'2,057'"
    assert g["data_rows_task_metadata"] == "'2,131'"
