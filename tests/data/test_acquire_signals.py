"""The download child of ``python -m compendium.data.acquire`` dies with its parent (issue 32): SIGTERM,
SIGHUP (a closed terminal) and SIGKILL of the parent left the child, started in a session of its own,
downloading past the deadline (forever, against a slow server) with its work folder in ``data/``.

Against the loopback hub (tests/hubmock.py) with a trickling server; every wait is for a condition (the
child process running, its first file request reaching the server, a process ending), never a bare sleep."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compendium.data import acquire as acq
from compendium.pipeline import paths

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hubmock import HubMock  # noqa: E402

WB = [
    "workbank/domain_worker_desires.csv",
    "workbank/domain_worker_metadata.csv",
    "workbank/expert_rated_technological_capability.csv",
    "workbank/task_statement_with_metadata.csv",
]
WB_ID = "SALT-NLP/WORKBank"


@pytest.fixture
def scratch(tmp_path):
    root = tmp_path / "root"
    for rel in WB:
        (root / "data" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(paths.DATA / rel, root / "data" / rel)
    return root


@pytest.fixture
def wb_repo(tmp_path):
    repo = tmp_path / "wb_repo"
    repo.mkdir()
    for rel in WB:
        shutil.copyfile(paths.DATA / rel, repo / rel.split("/")[1])
    return repo


def env_for(root: Path, hub_url: str) -> dict:
    env = {
        **os.environ,
        "HF_ENDPOINT": hub_url,
        "HF_HOME": str(root.parent / f"hf_home_{time.monotonic_ns()}"),
        "COMPENDIUM_ROOT": str(root),
        "PYTHONPATH": str(paths.ROOT / "src"),
    }
    env.pop("HF_HUB_OFFLINE", None)
    return env


def wait_for(condition, timeout: float, what: str):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = condition()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


def work_folders(root: Path) -> list[Path]:
    return sorted((root / "data").glob(".acquire-*"))


def download_child(root: Path) -> int | None:
    """The pid of the running download child of an acquisition into ``root`` (from /proc: its command line
    names the child mode and a work folder under ``root``)."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            args = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if acq.CHILD.encode() in args and any(a.startswith(os.fsencode(root / "data")) for a in args):
            return int(proc.name)
    return None


def downloading(hub: HubMock) -> bool:
    return any(m == "GET" and "/resolve/" in p for m, p in hub.requests)


def kill_if_running(pid: int | None) -> None:
    if pid and acq._alive(pid):
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass


def start(root: Path, hub: HubMock, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "compendium.data.acquire", "workbank", "--deadline", "600", *args],
        env=env_for(root, hub.url),
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_sigterm_or_sighup_of_the_parent_ends_the_child_and_removes_the_work_folder(scratch, wb_repo, sig):
    child = None
    with HubMock({WB_ID: wb_repo}, trickle=1.0) as hub:
        parent = start(scratch, hub)
        try:
            child = wait_for(lambda: download_child(scratch), 120, "the download child to start")
            wait_for(lambda: downloading(hub), 120, "the child to start downloading")
            parent.send_signal(sig)
            _, err = parent.communicate(timeout=60)
            wait_for(lambda: not acq._alive(child), 30, "the download child to end with its parent")
        finally:
            parent.kill()
            kill_if_running(child)
    assert parent.returncode == 128 + sig
    assert err == (
        f"error: workbank: interrupted ({signal.Signals(sig).name}); the download process was stopped and its work "
        "folder removed. Nothing in data/ was changed; run the same command again to acquire it.\n"
    )
    assert work_folders(scratch) == []


def test_sigkill_of_the_parent_kills_the_child_and_the_next_run_sweeps_its_folder(scratch, wb_repo):
    child = None
    with HubMock({WB_ID: wb_repo}, trickle=1.0) as hub:
        parent = start(scratch, hub)
        try:
            child = wait_for(lambda: download_child(scratch), 120, "the download child to start")
            wait_for(lambda: downloading(hub), 120, "the child to start downloading")
            parent.kill()  # SIGKILL: no handler runs in the parent
            parent.wait(timeout=60)
            # Linux's parent-death signal (prctl(PR_SET_PDEATHSIG)) ends the child
            wait_for(lambda: not acq._alive(child), 30, "the download child to die with its parent")
        finally:
            kill_if_running(child)
    stale = work_folders(scratch)
    assert len(stale) == 1  # what a SIGKILL leaves: nothing can run in the killed process
    with HubMock({WB_ID: wb_repo}) as hub:
        r = subprocess.run(
            [sys.executable, "-m", "compendium.data.acquire", "workbank"],
            env=env_for(scratch, hub.url),
            cwd=scratch,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert r.returncode == 0, r.stderr
    assert work_folders(scratch) == []  # the next run swept the stale folder (and its own)


def test_the_next_run_ends_an_orphaned_child_before_it_sweeps_the_folder(scratch, wb_repo, tmp_path):
    """A child whose parent died where no parent-death signal exists: the next acquisition finds it through
    the work folder's child.pid, kills it, and only then removes the folder."""
    data = scratch / "data"
    work = data / ".acquire-workbank-orphan"
    work.mkdir()
    dead = subprocess.Popen(["true"])
    dead.wait()
    (work / "owner.pid").write_text(str(dead.pid))  # the owner is gone
    with HubMock({WB_ID: wb_repo}, trickle=1.0) as hub:
        env = env_for(scratch, hub.url)
        env["COMPENDIUM_ACQUIRE_PARENT"] = str(os.getpid())  # its parent (this test) stays: only the sweep ends it
        orphan = subprocess.Popen(
            [sys.executable, "-m", "compendium.data.acquire", acq.CHILD, "workbank", "main", str(work)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            wait_for(lambda: downloading(hub), 120, "the orphan to start downloading")
            if not (work / "child.pid").exists():  # a child that does not write its pid: the sweep cannot find it
                (work / "child.pid").write_text(str(orphan.pid))
            gone = acq.sweep_abandoned(data)
            orphan.wait(timeout=30)  # ended by the sweep
        finally:
            kill_if_running(orphan.pid)
            orphan.wait()
    assert gone == [work] and not work.exists()
    assert orphan.returncode == -signal.SIGKILL


def test_a_server_error_on_every_file_names_the_status_not_the_connection(scratch, wb_repo):
    """Was: huggingface_hub's "check your connection" for an HTTP 500 on every file."""
    with HubMock({WB_ID: wb_repo}, resolve_status=500) as hub:
        r = subprocess.run(
            [sys.executable, "-m", "compendium.data.acquire", "workbank"],
            env=env_for(scratch, hub.url),
            cwd=scratch,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert r.returncode == 1, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith(f"error: workbank: the hub at {hub.url} answered HTTP 500 Internal Server Error for ")
    assert "(a server error, not your connection); try again later" in lines[0] and "connection and try" not in lines[0]
    assert lines[0].endswith("Nothing in data/ was changed.")
