"""Reliability: whatever goes wrong, one clear message, a recovery that works as printed, and the last good
results and book still in place.

Every case runs on a scratch clone of the committed repository (``git clone`` of HEAD, data restored with
``dvc pull data.dvc``, the whole pipeline reproduced once), never on the working copy. Run with
``make test-reliability`` (part of ``.ci/run``); it takes a few minutes on 2 cores.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compendium import paths

pytestmark = pytest.mark.reliability

VENV_BIN = Path(sys.executable).parent


def _env(clone: Path, **extra) -> dict:
    env = dict(
        os.environ,
        PYTHONPATH=str(clone / "src"),
        PATH=f"{VENV_BIN}:{os.environ.get('PATH', '')}",
        COMPENDIUM_QUIET="1",
        MPLBACKEND="Agg",
        PYTHONDONTWRITEBYTECODE="1",
    )
    for k in ("COMPENDIUM_ROOT", "COMPENDIUM_RESULTS", "COMPENDIUM_STAGING"):
        env.pop(k, None)
    env.update(extra)
    return env


def run(clone: Path, *cmd: str, timeout: float = 900, **env) -> subprocess.CompletedProcess:
    return subprocess.run(list(cmd), cwd=clone, env=_env(clone, **env), capture_output=True, text=True, timeout=timeout)


def tree_hash(*roots: Path) -> dict[str, str]:
    """sha256 of every file under the given folders (or the files themselves), staging folders left out
    (a failed stage leaves its half-run notebook there for the user to read)."""
    out = {}
    for root in roots:
        files = (
            [root]
            if root.is_file()
            else sorted(p for p in root.rglob("*") if p.is_file() and ".staging" not in p.parts)
        )
        for p in files:
            out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A fresh clone of HEAD with its data restored and the whole pipeline reproduced."""
    d = tmp_path_factory.mktemp("reliability") / "repo"
    subprocess.run(["git", "clone", "-q", str(paths.ROOT), str(d)], check=True)
    (d / ".venv").symlink_to(VENV_BIN.parent)
    p = run(d, "dvc", "pull", "data.dvc")
    assert p.returncode == 0, p.stderr
    t0 = time.perf_counter()
    p = run(d, "dvc", "repro")
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    print(f"\nscratch clone reproduced in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return d


def good_state(clone: Path) -> dict[str, str]:
    return tree_hash(
        clone / "results",
        clone / "book" / "executed",
        clone / "book" / "_build" / "html",
        clone / "data.dvc",
        clone / "dvc.lock",
    )


def assert_clean(clone: Path):
    st = run(clone, "git", "status", "--porcelain")
    assert st.stdout == "", f"git status not clean:\n{st.stdout}"
    ds = run(clone, "dvc", "status", "-q")
    assert ds.returncode == 0, run(clone, "dvc", "status").stdout


def test_fresh_clone_reproduces_with_a_clean_git_status(clone):
    assert (clone / "book" / "_build" / "html" / "index.html").exists()
    assert_clean(clone)


@pytest.mark.parametrize("damage", ["corrupt", "truncate", "delete"])
def test_bad_raw_file_stops_with_the_file_and_a_recovery_that_works(clone, damage):
    rel = "workbank/domain_worker_desires.csv"
    f = clone / "data" / rel
    before = good_state(clone)
    if damage == "corrupt":
        b = bytearray(f.read_bytes())
        b[100] = ord("X") if b[100] != ord("X") else ord("Y")
        f.write_bytes(bytes(b))
    elif damage == "truncate":
        f.write_bytes(f.read_bytes()[:1000])
    else:
        f.unlink()
    # what `make reproduce` checks first
    m = run(clone, sys.executable, "-m", "compendium.data.manifest")
    assert m.returncode == 1
    assert rel in m.stdout and "dvc pull --force data.dvc" in m.stderr
    # a stage that reads the file (forced, as after a code change) fails naming it, touching nothing
    p = run(clone, "dvc", "repro", "-f", "-s", "workbank")
    assert p.returncode != 0
    out = p.stdout + p.stderr
    assert rel in out and "dvc pull --force data.dvc" in out, out[-2000:]
    assert good_state(clone) == before  # data.dvc, dvc.lock, results and book untouched
    # the printed recovery, verbatim
    r = run(clone, "dvc", "pull", "--force", "data.dvc")
    assert r.returncode == 0, r.stderr
    assert run(clone, sys.executable, "-m", "compendium.data.manifest").returncode == 0
    assert_clean(clone)


def test_plain_repro_never_re_records_raw_data(clone):
    f = clone / "data" / "hitl" / "published_pair_counts.csv"
    f.write_text(f.read_text() + "\n")
    before = tree_hash(clone / "data.dvc", clone / "dvc.lock")
    p = run(clone, "dvc", "repro")
    assert tree_hash(clone / "data.dvc", clone / "dvc.lock") == before
    assert "data.dvc" not in run(clone, "git", "status", "--porcelain").stdout
    assert p.returncode == 0  # nothing to re-run: the results are those of the recorded data
    assert run(clone, "dvc", "pull", "--force", "data.dvc").returncode == 0
    assert_clean(clone)


@pytest.mark.parametrize(
    "key,value,words",
    [
        ("workbank.cutoff", "9", "params.yaml: workbank.cutoff: 9 is invalid"),
        ("workbank.stable_level", "1.5", "params.yaml: workbank.stable_level: 1.5 is invalid"),
        ("pwb.seed", "-1", "params.yaml: pwb.seed: -1 is invalid"),
        ("preferences.ci_level", "1.5", "params.yaml: preferences.ci_level: 1.5 is invalid"),
    ],
)
def test_bad_parameter_stops_before_any_stage_and_the_restore_works(clone, key, value, words):
    before = good_state(clone)
    p = run(clone, "dvc", "exp", "run", "-S", f"{key}={value}")
    assert p.returncode != 0
    out = p.stdout + p.stderr
    assert words in out and "git checkout -- params.yaml" in out, out[-2000:]
    assert good_state(clone) == before
    r = run(clone, "git", "checkout", "--", "params.yaml")
    assert r.returncode == 0
    assert_clean(clone)


def test_killed_stage_leaves_the_last_good_results(clone):
    before = good_state(clone)
    proc = subprocess.Popen(
        ["dvc", "repro", "-f", "-s", "preferences"],
        cwd=clone,
        env=_env(clone),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    staging = clone / "results" / ".staging" / "preferences"
    t0 = time.perf_counter()
    while not staging.exists() and time.perf_counter() - t0 < 60:
        time.sleep(0.1)
    time.sleep(2.0)  # mid-run: the kernel is computing
    assert proc.poll() is None, "the stage finished before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)  # the whole process group: dvc, the runner and the kernel
    proc.wait(30)
    assert good_state(clone) == before
    # DVC may keep a lock after a hard kill; the next run clears the stale staging folder and succeeds
    (clone / ".dvc" / "tmp" / "rwlock").unlink(missing_ok=True)
    assert run(clone, "dvc", "status", "-q").returncode == 0
    assert_clean(clone)


def test_make_book_after_a_failed_stage_keeps_the_good_book(clone):
    html = clone / "book" / "_build" / "html"
    f = clone / "data" / "pwb" / "analysis_output" / "effect_sizes.csv"
    f.write_text(f.read_text()[:500])
    try:
        _book_after_failed_stage(clone, html)
    finally:  # the other cases start from good data whatever happens here
        assert run(clone, "dvc", "pull", "--force", "data.dvc").returncode == 0
    assert_clean(clone)


def _book_after_failed_stage(clone: Path, html: Path):
    failed = run(clone, "dvc", "repro", "-f", "-s", "pwb")
    assert failed.returncode != 0
    before = tree_hash(html, clone / "book" / "executed")
    b = run(clone, "make", "-o", ".venv/.installed", "book")  # -o: the shared venv is set up already
    assert b.returncode == 0, b.stdout[-2000:] + b.stderr[-2000:]
    # the rebuilt book renders the last good chapters: no page shows a traceback
    for page in html.rglob("*.html"):
        assert "Traceback (most recent call last)" not in page.read_text(errors="replace"), page
    assert tree_hash(clone / "book" / "executed") == {k: v for k, v in before.items() if "/book/executed/" in k}


def test_book_refuses_a_chapter_with_an_error_output(clone):
    import nbformat

    html = clone / "book" / "_build" / "html"
    before = tree_hash(html)
    nb_path = clone / "book" / "executed" / "00_data.ipynb"
    keep = nb_path.read_bytes()
    nb = nbformat.read(nb_path, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code")
    cell.outputs.append(nbformat.v4.new_output("error", ename="ValueError", evalue="boom", traceback=[]))
    nbformat.write(nb, nb_path)
    try:
        b = run(clone, sys.executable, "-m", "compendium.book", "build")
        assert b.returncode == 1
        assert "book/executed/00_data.ipynb" in b.stderr and "dvc repro datasheet" in b.stderr
        assert tree_hash(html) == before
    finally:
        nb_path.write_bytes(keep)
    assert_clean(clone)


def test_result_csvs_do_not_depend_on_the_blas_kernel(clone):
    """Floats are written with a fixed number of significant digits: another OpenBLAS kernel gives the same
    bytes (the mixed model differed in the 10th significant digit before)."""
    stages = ["workbank", "pwb", "preferences", "robustness"]
    before = tree_hash(*(clone / "results" / s / "tables" for s in stages))
    for s in stages:
        p = run(clone, "dvc", "repro", "-f", "-s", s, OPENBLAS_CORETYPE="Sandybridge")
        assert p.returncode == 0, p.stderr[-2000:]
    after = tree_hash(*(clone / "results" / s / "tables" for s in stages))
    changed = [k for k in before if before[k] != after.get(k)]
    assert changed == []
    assert_clean(clone)
