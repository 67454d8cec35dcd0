"""One owner of the workspace's state, and results that agree with params.yaml and dvc.lock (issue 32):
compendium.pipeline.workspace, the stage runner's refusal to swap in results of changed parameters, and make reset's
refusal during a run. The interleavings are made deterministic with live stand-in processes, never with sleeps."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from committed import committed_params_text

from compendium.pipeline import params, paths, reset, stage, workspace


@pytest.fixture
def results(tmp_path, monkeypatch):
    d = tmp_path / "results"
    d.mkdir()
    monkeypatch.setattr(paths, "RESULTS", d)
    return d


@pytest.fixture
def other_run():
    """A live process standing for another `dvc repro` of this checkout."""
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    yield p
    p.kill()
    p.wait()


def _own(results: Path, proc) -> None:
    (results / ".locks").mkdir(exist_ok=True)
    start = workspace._stat(proc.pid)[1]
    (results / ".locks" / workspace.OWNER).write_text(
        json.dumps({"pid": proc.pid, "start": start, "cmd": ["dvc", "repro"]})
    )


def test_a_stage_finds_the_dvc_run_it_belongs_to(tmp_path):
    fake = tmp_path / "dvc"
    fake.write_text(
        "import subprocess, sys\n"
        "code = 'from compendium.pipeline import workspace; print(workspace.run_owner())'\n"
        "out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout\n"
        "print(out.strip(), __import__('os').getpid())\n"
    )
    got = subprocess.run(
        [sys.executable, str(fake), "repro", "x"], capture_output=True, text=True, check=True
    ).stdout.split()
    assert got[0] == got[1]  # the stage's owner is the `dvc repro` process, not the stage itself
    alone = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os; from compendium.pipeline import workspace as w; print(w.run_owner() == os.getpid())",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert alone == "True"  # a stage run by hand owns its own work


def test_another_live_run_owns_the_workspace_and_a_stage_waits_for_it(results, other_run):
    _own(results, other_run)
    with pytest.raises(workspace.WorkspaceBusy, match=rf"pid {other_run.pid}.*two runs at once"):
        workspace.claim("workbank", wait=False)
    done = threading.Event()
    t = threading.Thread(target=lambda: (workspace.claim("workbank"), done.set()))
    t.start()
    assert not done.wait(1.5)  # still waiting while the other run lives
    other_run.kill()
    other_run.wait()
    assert done.wait(10)  # then it takes over
    t.join()
    assert workspace.current_owner()["pid"] == workspace.run_owner()


def test_an_owner_that_ended_or_a_reused_pid_owns_nothing(results, other_run):
    _own(results, other_run)
    owner = json.loads((results / ".locks" / workspace.OWNER).read_text())
    (results / ".locks" / workspace.OWNER).write_text(json.dumps(owner | {"start": "1"}))  # same pid, other process
    assert workspace.current_owner() is None
    workspace.claim("workbank", wait=False)


def test_make_reset_changes_nothing_while_a_run_or_a_stage_is_going(results, other_run, monkeypatch, capsys):
    assert workspace.busy() is None
    _own(results, other_run)
    assert f"pid {other_run.pid}" in workspace.busy()
    calls = []
    with monkeypatch.context() as m:
        m.setattr(reset.subprocess, "run", lambda *a, **k: calls.append(a))
        m.setattr(reset.subprocess, "Popen", lambda *a, **k: calls.append(a))
        assert reset.main([]) == 1
    err = capsys.readouterr().err
    assert err.startswith("ERROR: make reset changed nothing:") and "Wait for it to finish" in err
    assert calls == []  # not even git checkout ran
    other_run.kill()
    other_run.wait()
    # a stage that holds its lock (another process) also makes the workspace busy
    lock = results / ".locks" / "workbank.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); "
            "fcntl.flock(fd, fcntl.LOCK_EX); os.pwrite(fd, b'4242', 0); print('held', flush=True); time.sleep(600)",
            str(lock),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert workspace.busy() == "stage 'workbank' (pid 4242) is running in this checkout"
    finally:
        holder.kill()
        holder.wait()
    assert workspace.busy() is None


def test_a_stage_whose_parameters_changed_while_it_ran_keeps_the_last_good_results(results, monkeypatch):
    dest = results / "workbank_models"
    dest.mkdir()
    (dest / "good.txt").write_text("the last good run")
    seen = iter([{"seed": 1}, {"seed": 2}])  # params.yaml at the start, then after a reset during the run
    monkeypatch.setattr(params, "load_section", lambda record, path=None: next(seen))
    with pytest.raises(stage.StageError, match=r"params.yaml changed while it ran \(seed: ran with 1, now 2\)"):
        with stage.python_stage("workbank_models") as folder:
            (folder / "new.txt").write_text("computed with seed 1")
    assert sorted(p.name for p in dest.iterdir()) == ["good.txt"]
    assert not list((results / ".staging").glob("workbank_models.*"))


def test_a_stage_records_the_parameters_its_results_were_computed_with(results, monkeypatch):
    monkeypatch.setattr(params, "load_section", lambda record, path=None: {"seed": 7})
    with stage.python_stage("workbank_models") as folder:
        (folder / "x.txt").write_text("x")
    assert json.loads((results / "workbank_models" / workspace.RUN_PARAMS).read_text()) == {"seed": 7}


def _workspace(tmp_path, monkeypatch, ran: dict, record: dict, lock_md5_of_record: bool):
    import hashlib

    root = tmp_path / "repo"
    res = root / "results"
    (res / "params").mkdir(parents=True)
    (res / "pwb").mkdir()
    rec = res / "params" / "pwb.json"
    rec.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    (res / "pwb" / workspace.RUN_PARAMS).write_text(json.dumps(ran))
    md5 = hashlib.md5(rec.read_bytes()).hexdigest() if lock_md5_of_record else "0" * 32
    (root / "dvc.lock").write_text(
        f"schema: '2.0'\nstages:\n  pwb:\n    deps:\n    - path: results/params/pwb.json\n      md5: {md5}\n"
    )
    # params.yaml as committed (the workspace's may be an exercise's: make test must pass after one too)
    (root / "params.yaml").write_text(committed_params_text())
    monkeypatch.setattr(paths, "ROOT", root)
    monkeypatch.setattr(paths, "PARAMS", root / "params.yaml")
    return res


def test_results_computed_with_other_parameters_than_dvc_lock_records_are_named_with_make_reset(tmp_path, monkeypatch):
    ref = {k: v for k, (v, _) in params.REFERENCE["pwb"].items()}
    # the false clean state: DVC recorded this record for the stage, but its results ran with another value
    res = _workspace(tmp_path, monkeypatch, ref | {"restore_weight": 0.05}, ref, lock_md5_of_record=True)
    got = workspace.problems(res, res.parent / "params.yaml", full=False)
    assert len(got) == 1 and got[0].startswith("results/pwb/ was computed with other parameters than its parameter")
    assert "restore_weight = 0.05 here, 0.1 there" in got[0] and "Run `make reset`" in got[0]
    with pytest.raises(workspace.Inconsistent, match="make reset"):
        workspace.assert_consistent(res)
    # DVC will re-run the stage anyway (its record changed since): not a false clean state, the pre-check is quiet
    res = _workspace(tmp_path / "b", monkeypatch, ref | {"restore_weight": 0.05}, ref, lock_md5_of_record=False)
    assert workspace.problems(res, res.parent / "params.yaml", full=False) == []
    assert (
        workspace.problems(res, res.parent / "params.yaml", full=True) != []
    )  # the claims stage, after the run, would still see it
    # agreement everywhere
    res = _workspace(tmp_path / "c", monkeypatch, ref, ref, lock_md5_of_record=True)
    assert workspace.problems(res, res.parent / "params.yaml", full=True) == []


def test_the_workspace_agrees_with_params_yaml_and_dvc_lock(evaluation):
    """After `dvc repro claims` (the evaluation fixture): every study's results were computed with params.yaml's
    values, as their records and dvc.lock say."""
    assert workspace.problems(full=True) == []
