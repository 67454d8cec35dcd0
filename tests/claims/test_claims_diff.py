"""`python -m compendium.claims diff REV`: which claims changed between a revision and this build."""

import json
import os
import signal
import subprocess
import sys
import time

from compendium.claims import diff as claims_diff
from compendium.pipeline import paths


def _row(cid, value, status, study="pwb"):
    return {"claim_id": cid, "reproduced": value, "status": status, "study": study}


def test_compare_finds_value_status_added_and_removed_changes_and_ignores_equal_numbers():
    old = {
        "a": _row("a", "1.0", "reproduced"),
        "b": _row("b", "2", "reproduced"),
        "c": _row("c", "3", "reproduced"),
        "d": _row("d", "", "needs_data"),
        "gone": _row("gone", "9", "reproduced"),
    }
    new = {
        "a": _row("a", "1", "reproduced"),  # the same number written differently: no change
        "b": _row("b", "2.5", "reproduced"),  # value only
        "c": _row("c", "4", "differs"),  # status (and value)
        "d": _row("d", "", "needs_data"),
        "new": _row("new", "7", "reproduced", study="hitl"),
    }
    got = {c.claim_id: c.kind for c in claims_diff.compare(old, new)}
    assert got == {"b": "value", "c": "status", "gone": "removed", "new": "added"}
    # sorted by study, then id
    assert [c.claim_id for c in claims_diff.compare(old, new)] == ["new", "b", "c", "gone"]


def test_from_cache_reads_claims_csv_through_the_dvc_directory_object(tmp_path):
    cache = tmp_path / "cache"
    csv_text = "study,claim_id,reproduced,status\npwb,x,1,reproduced\n"

    def put(md5, text):
        f = cache / "files" / "md5" / md5[:2] / md5[2:]
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)

    put("aa" + "0" * 30, csv_text)
    put("bb" + "1" * 30 + ".dir", json.dumps([{"md5": "aa" + "0" * 30, "relpath": "claims.csv"}]))
    lock = (
        "schema: '2.0'\nstages:\n  claims:\n    outs:\n    - path: results/claims\n      md5: bb" + "1" * 30 + ".dir\n"
    )
    assert claims_diff.from_cache(lock, cache) == csv_text
    assert claims_diff.read_claims_csv(csv_text)["x"]["status"] == "reproduced"
    # a lock whose objects are not cached, or with no claims output: None (the caller recomputes)
    assert claims_diff.from_cache(lock.replace("bb" + "1" * 30, "cc" + "2" * 30), cache) is None
    assert claims_diff.from_cache("stages: {}\n", cache) is None


def test_an_unknown_revision_is_one_sentence():
    r = subprocess.run(
        [sys.executable, "-m", "compendium.claims", "diff", "no-such-rev"],
        cwd=paths.ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    assert (
        r.stderr.strip()
        == "claims diff: 'no-such-rev' is not a commit of this repository (try `git log --oneline` for one)"
    )
    assert "Traceback" not in r.stderr


def test_diff_against_head_reads_the_cache_and_finds_no_change(evaluation):
    # after `dvc repro` (the evaluation fixture) the committed dvc.lock's claims output is in the cache; this
    # build was computed from HEAD's inputs, unless the working tree has changes, so no claim can differ
    r = subprocess.run(
        [sys.executable, "-m", "compendium.claims", "diff", "HEAD", "--json"],
        cwd=paths.ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["source"] == "DVC cache"
    assert out["compared"] == len(evaluation.table)
    if not subprocess.run(
        ["git", "status", "--porcelain", "--", "dvc.lock"], cwd=paths.ROOT, capture_output=True, text=True
    ).stdout:
        assert out["changes"] == []


def test_the_stages_a_claims_reproduction_runs_are_its_ancestors():
    dvc_yaml = {
        "stages": {
            "a": {"deps": ["data/x"], "outs": ["results/a"]},
            "b": {"deps": ["results/a/values.json"], "outs": [{"results/b": {"persist": True}}]},
            "c": {"deps": ["data/y"], "outs": ["results/c"]},
            "claims": {"deps": ["results/b/values.json", "published"], "outs": ["results/claims"]},
        }
    }
    assert sorted(claims_diff._ancestors(dvc_yaml, "claims")) == ["a", "b", "claims"]


def test_chapters_without_claims_are_named_with_whether_their_results_changed():
    """Issue 38: the diff says what it does not cover (HUMANE, robustness, the data, ...) and whether their
    results differ between the revision and this build, from the two dvc.lock files."""
    got = claims_diff.uncovered("HEAD")
    assert {"humane", "robustness", "datasheet"} <= set(got)
    assert not {"pwb", "workbank", "preferences", "claims"} & set(got)
    assert set(got.values()) <= {"changed", "unchanged", "not built here"} | {v for v in got.values() if "not in" in v}
    d = claims_diff.Diff("HEAD~1", "DVC cache", 0.1, 3, uncovered={"humane": "changed", "robustness": "unchanged"})
    text = claims_diff.render(d)
    assert "Not covered (no published claims" in text and "humane (changed), robustness (unchanged)" in text
    assert "Their results changed in humane" in text


SLEEPER = """
import os, sys, time
from compendium.claims import diff as D

real = D._run_streamed
pidfile = sys.argv[1]


def fake(cmd, cwd, env, n, log):  # instead of `dvc ...`: a stage that starts, says so, and runs for minutes
    child = [sys.executable, "-c", "import os,sys,time; open(sys.argv[1], 'w').write(str(os.getpid())); "
             "print(\\"Running stage 'humane':\\", flush=True); time.sleep(300)", pidfile]
    return real(child, cwd, env, n, log)


D._run_streamed = fake
sys.exit(D.main(["diff", "HEAD", "--recompute"]))
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purpose
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split(")")[-1].split()[0] != "Z"


def _worktrees() -> str:
    return subprocess.run(["git", "worktree", "list"], cwd=paths.ROOT, capture_output=True, text=True).stdout


def _interrupt_recompute(tmp_path, sig):
    pidfile = tmp_path / "stage.pid"
    script = tmp_path / "sleeper.py"
    script.write_text(SLEEPER)
    proc = subprocess.Popen(
        [sys.executable, str(script), str(pidfile)],
        cwd=paths.ROOT,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as a terminal delivers it: a test run started in the background (`make test &`, nohup) inherits
        # SIGINT ignored, and Python then installs no KeyboardInterrupt handler, so the signal would do nothing
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    lines = []
    for line in proc.stderr:  # progress first: the stage line, then the signal
        lines.append(line)
        if "stage 1 of" in line:
            break
    deadline = time.monotonic() + 60
    while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    child = int(pidfile.read_text())
    assert "claims-diff-" in _worktrees()
    proc.send_signal(sig)
    rest = proc.stderr.read()
    code = proc.wait(timeout=60)
    return code, "".join(lines) + rest, child


def test_sigterm_during_a_reproduction_ends_the_stage_and_removes_the_worktree(tmp_path):
    code, err, child = _interrupt_recompute(tmp_path, signal.SIGTERM)
    assert "claims diff: stage 1 of" in err and ": humane" in err
    assert code == 128 + signal.SIGTERM
    assert err.strip().splitlines()[-1] == (
        "claims diff: stopped by SIGTERM; the temporary worktree was removed and nothing is left running."
    )
    assert "Traceback" not in err
    assert not _alive(child)
    assert "claims-diff-" not in _worktrees()


def test_ctrl_c_during_a_reproduction_is_one_sentence_and_leaves_nothing(tmp_path):
    code, err, child = _interrupt_recompute(tmp_path, signal.SIGINT)
    assert code == 130 and "Traceback" not in err and "KeyboardInterrupt" not in err, (code, err)
    assert err.strip().splitlines()[-1].startswith("claims diff: stopped by Ctrl-C")
    assert not _alive(child)
    assert "claims-diff-" not in _worktrees()
