"""compendium.pipeline.stage.python_stage: a stage without a notebook swaps its results in only on success."""

from __future__ import annotations

import pytest

from compendium.pipeline import paths, stage


@pytest.fixture
def results(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    monkeypatch.delenv(stage.STAGING_ENV, raising=False)
    return tmp_path / "results"


def test_a_successful_block_replaces_the_results_and_writes_through_stage_dir(results):
    (results / "demo").mkdir(parents=True)
    (results / "demo" / "old.txt").write_text("last good run")
    with stage.python_stage("demo") as folder:
        assert paths.stage_dir("demo") == folder != results / "demo"  # the block writes to its staging folder
        (paths.stage_dir("demo") / "new.txt").write_text("this run")
        assert (results / "demo" / "old.txt").exists()  # nothing is replaced before the block ends
    assert sorted(p.name for p in (results / "demo").iterdir()) == ["new.txt"]
    assert paths.stage_dir("demo") == results / "demo"  # the staging variable is unset again
    assert not any((results / ".staging").iterdir())


def test_a_failing_block_keeps_the_last_good_results_and_removes_its_staging(results):
    (results / "demo").mkdir(parents=True)
    (results / "demo" / "old.txt").write_text("last good run")
    with pytest.raises(RuntimeError, match="boom"), stage.python_stage("demo") as folder:
        (folder / "half.txt").write_text("half written")
        raise RuntimeError("boom")
    assert sorted(p.name for p in (results / "demo").iterdir()) == ["old.txt"]
    assert not any((results / ".staging").iterdir())


def test_a_killed_runs_staging_folder_is_swept_by_the_next_run_only_for_its_own_stage(results):
    (results / ".staging" / "demo.abc123").mkdir(parents=True)
    (results / ".staging" / "demo_other.xyz").mkdir()
    with stage.python_stage("demo"):
        pass
    assert sorted(p.name for p in (results / ".staging").iterdir()) == ["demo_other.xyz"]
