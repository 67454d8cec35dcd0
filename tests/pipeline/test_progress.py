import sys

import pytest

from compendium.pipeline.progress import step


def test_step_reports_to_the_real_stderr(monkeypatch, capsys):
    monkeypatch.delenv("COMPENDIUM_QUIET", raising=False)
    monkeypatch.setattr(sys, "__stderr__", sys.stderr)
    with step("demo", "bootstrap", n=2000, unit="draws"):
        pass
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "[demo] bootstrap (2,000 draws) ..."
    assert err[1].startswith("[demo] bootstrap: done in ")


def test_quiet(monkeypatch, capsys):
    monkeypatch.setenv("COMPENDIUM_QUIET", "1")
    monkeypatch.setattr(sys, "__stderr__", sys.stderr)
    with step("demo", "x"):
        pass
    assert capsys.readouterr().err == ""


def test_inside_a_kernel_it_writes_to_the_original_fd_copy(monkeypatch, tmp_path):
    import os

    from compendium.pipeline import progress

    target = tmp_path / "terminal.txt"
    fd = os.open(target, os.O_WRONLY | os.O_CREAT)

    class KernelStream:  # what ipykernel's OutStream exposes
        _original_stdstream_copy = fd

        def write(self, s):
            raise AssertionError("progress must not go into the notebook's captured stderr")

    monkeypatch.delenv("COMPENDIUM_QUIET", raising=False)
    monkeypatch.setattr(sys, "stderr", KernelStream())
    monkeypatch.setattr(progress, "_terminal", None)
    progress.say("demo", "hello")
    progress._terminal.flush()
    os.close(fd)
    assert target.read_text() == "[demo] hello\n"


def test_a_stage_says_where_it_stands_in_a_full_run(tmp_path):
    """Issue 33: a stage's lines say "stage k of N", its place among the stages of dvc.yaml."""
    from compendium.pipeline import progress

    f = tmp_path / "dvc.yaml"
    f.write_text("stages:\n  params:\n    cmd: a\n  pwb:\n    cmd: b\n  book:\n    cmd: c\n")
    assert [progress.stage_position(s, f) for s in ("params", "pwb", "book")] == [
        "stage 1 of 3",
        "stage 2 of 3",
        "stage 3 of 3",
    ]
    assert progress.stage_position("nope", f) == "" and progress.stage_position("pwb", tmp_path / "none") == ""
    n = len(progress.stage_names())
    assert progress.done_line("workbank", 31.24) == (
        f"[workbank] done in 31.2 s (stage {progress.stage_names().index('workbank') + 1} of {n})"
    )
    assert progress.done_line("demo", 1.0) == "[demo] done in 1.0 s"


def test_the_stage_runner_prints_its_place_first(monkeypatch, capsys):
    from compendium.pipeline import progress, rawdata, stage

    monkeypatch.setattr(rawdata, "guard", lambda: None)
    monkeypatch.setattr(stage, "run", lambda name, executed_dir=None: 0.0)
    assert stage.main(["run", "workbank"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"[workbank] {progress.stage_position('workbank')}: running notebooks/20_workbank.md", err
    assert progress.stage_position("workbank").startswith("stage ")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # DVC's own, from reading the index
def test_dvc_yaml_lists_its_stages_in_the_order_dvc_repro_runs_them():
    """So that "stage k of N" counts up through a full `dvc repro`: DVC's own plan of the whole pipeline (its
    post-order walk of the stage graph) is the file's order."""
    from dvc.repo import Repo
    from dvc.repo.reproduce import plan_repro

    from compendium.pipeline import paths, progress

    with Repo(str(paths.ROOT)) as repo:
        plan = [s.addressing for s in plan_repro(repo.index.graph, None)]
    assert [s for s in plan if not s.endswith(".dvc")] == progress.stage_names()
