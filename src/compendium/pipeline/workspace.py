"""One owner of the workspace's state at a time, and a check that results, ``params.yaml`` and ``dvc.lock`` agree.

A ``dvc repro`` or ``dvc exp run`` runs its stages one after another, each in a process of its own, and DVC
releases its own lock while a stage runs. Two such runs at once, or ``make reset`` in the middle of one,
could otherwise leave the results of one parameter value beside another's ``params.yaml`` and ``dvc.lock``
while ``dvc status`` says up to date (issue 32). So:

- **The owner.** Every stage (:func:`claim`, called by the stage runner before any work) records in
  ``results/.locks/workspace.json`` the run it belongs to: the DVC process that started it (its nearest ``dvc``
  ancestor), or the stage's own process when it was started by hand. A stage of *another* run while the owner
  is alive is refused in one sentence naming the owner; a stage of the same run goes on. The record needs no
  release: it expires with its process (and a pid reused by another program is told apart by its start time).
- **make reset** (:func:`busy`) refuses while the owner is alive or any stage holds its lock, so a reset is never
  overwritten by the results of a run it interrupted.
- **The check** (:func:`problems`, run by the claims stage, ``make reproduce``'s pre-check and ``make test``):
  for every study stage, the parameters its results were computed with (``results/<stage>/run_params.json``,
  written by the runner) equal the stage's parameter record (``results/params/<record>.json``, what DVC hashed)
  and ``params.yaml``; otherwise one sentence names the stage, the keys and ``make reset``.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from compendium.pipeline import paths, studies

OWNER = "workspace.json"
RUN_PARAMS = "run_params.json"
LOCK = "workspace.lock"


class WorkspaceBusy(RuntimeError):
    """Another run owns the workspace; the message names it and what to do."""


def _locks() -> Path:
    return paths.RESULTS / ".locks"


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, start time in clock ticks) of a live process, or None."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw.rsplit(")", 1)[1].split()
    if fields[0] == "Z":  # a zombie has ended
        return None
    return int(fields[1]), fields[19]


def _cmdline(pid: int) -> list[str]:
    try:
        return [a for a in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0") if a]
    except OSError:
        return []


def _is_dvc(cmd: list[str]) -> bool:
    return any(Path(a).name == "dvc" or a == "dvc" for a in cmd[:3]) and any(a in ("repro", "exp") for a in cmd)


def run_owner(pid: int | None = None) -> int:
    """The process a stage's work belongs to: its nearest ancestor running ``dvc repro`` or ``dvc exp``, else itself."""
    pid = os.getpid() if pid is None else pid
    p = pid
    for _ in range(64):
        st = _stat(p)
        if st is None or p <= 1:
            break
        if _is_dvc(_cmdline(p)):
            return p
        p = st[0]
    return pid


def _alive(owner: dict) -> bool:
    st = _stat(int(owner.get("pid", 0) or 0))
    return st is not None and st[1] == owner.get("start")


@contextlib.contextmanager
def _locked():
    import fcntl

    _locks().mkdir(parents=True, exist_ok=True)
    fd = os.open(_locks() / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def current_owner() -> dict | None:
    """The live run that owns the workspace (``{"pid", "start", "cmd"}``), or None."""
    f = _locks() / OWNER
    try:
        owner = json.loads(f.read_text())
    except (OSError, ValueError):
        return None
    return owner if _alive(owner) else None


def _describe(owner: dict) -> str:
    cmd = " ".join(owner.get("cmd", [])[:6]) or "a stage"
    return f"`{cmd}` (pid {owner['pid']})"


def claim(stage: str, wait: bool = True) -> None:
    """Record this stage's run as the workspace's owner. While another live run owns it, wait for that run to end
    (saying so once), or with ``wait=False`` raise :class:`WorkspaceBusy`."""
    import sys
    import time

    me = run_owner()
    st = _stat(me)
    mine = {"pid": me, "start": st[1] if st else "", "cmd": _cmdline(me)}
    said = False
    while True:
        with _locked():
            owner = current_owner()
            if owner is None or (owner["pid"], owner["start"]) == (mine["pid"], mine["start"]):
                (_locks() / OWNER).write_text(json.dumps(mine) + "\n")
                return
        if not wait:
            raise WorkspaceBusy(
                f"stage {stage!r} did not start: {_describe(owner)} is running in this checkout, and two runs at "
                "once would mix their results (one parameter value's beside another's params.yaml and dvc.lock). "
                "Wait for it to finish, then run this command again."
            )
        if not said:
            print(
                f"[{stage}] {_describe(owner)} is running in this checkout; waiting for it to finish ...",
                file=sys.stderr,
                flush=True,
            )
            said = True
        time.sleep(0.5)


def _stage_locked(f: Path) -> str | None:
    """The pid written in a stage lock that a live process holds, or None."""
    import fcntl

    try:
        fd = os.open(f, os.O_RDWR)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
        return None
    finally:
        os.close(fd)


def busy() -> str | None:
    """Why the workspace's state must not be reset now (a live run owns it, or a stage holds its lock), or None."""
    owner = current_owner()
    if owner is not None:
        return f"{_describe(owner)} is running in this checkout"
    for f in sorted(_locks().glob("*.lock")) if _locks().is_dir() else []:
        if f.name == LOCK:
            continue
        pid = _stage_locked(f)
        if pid is not None:
            return f"stage {f.stem!r} (pid {pid}) is running in this checkout"
    return None


# ---------------------------------------------------------------------------------- results agree with params


def record_name(stage: str) -> str:
    """The parameter record stage ``stage`` depends on: ``results/params/<record>.json``."""
    from compendium.pipeline.params import PARTIAL_RECORDS

    return stage if stage in PARTIAL_RECORDS else studies.stage(stage).section


def write_run_params(stage: str, parameters: dict, folder: Path) -> Path:
    """``<folder>/run_params.json``: the parameters the stage's results are computed with (sorted, as the record)."""
    f = Path(folder) / RUN_PARAMS
    f.write_text(json.dumps(parameters, indent=1, sort_keys=True) + "\n")
    return f


def _changed(a: dict, b: dict) -> list[str]:
    return [f"{k} = {a.get(k)!r} here, {b.get(k)!r} there" for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


def _lock_md5(lock: dict, stage: str, path: str) -> str | None:
    for d in (lock.get("stages", {}).get(stage, {}) or {}).get("deps", []) or []:
        if d.get("path") == path:
            return d.get("md5")
    return None


def _md5(f: Path) -> str:
    import hashlib

    return hashlib.md5(f.read_bytes()).hexdigest()


def problems(results_dir: Path | None = None, params_file: Path | None = None, full: bool = True) -> list[str]:
    """One sentence per study stage whose results disagree with what the workspace says they are.

    Always: the parameters its results were computed with (``run_params.json``) differ from its parameter record
    while ``dvc.lock`` records that very record as the stage's dependency, so that DVC calls the stage up to date
    (the false clean state of a reset during a run, or of two runs at once). With ``full`` (the claims stage and
    ``make test``, after every stage upstream has been brought up to date): they differ from the record or from
    ``params.yaml`` at all. Empty when they agree, or for a stage that has not run yet."""
    from compendium.pipeline import yamlfile
    from compendium.pipeline.params import ParamsError, load, records

    root = Path(results_dir) if results_dir is not None else paths.RESULTS
    try:
        now = records(load(params_file))
    except ParamsError:
        return []  # the params stage and the pre-check report a bad params.yaml themselves
    lock_f = paths.ROOT / "dvc.lock"
    try:
        lock = yamlfile.load(lock_f) if lock_f.is_file() else {}
    except Exception:  # noqa: BLE001 - the pre-check reports an unreadable dvc.lock itself
        lock = {}
    out = []
    for st in studies.ALL_STAGES:
        if st.section is None:
            continue
        ran_f = root / st.name / RUN_PARAMS
        rec_f = root / "params" / f"{record_name(st.name)}.json"
        if not ran_f.is_file() or not rec_f.is_file():
            continue
        ran, rec = json.loads(ran_f.read_text()), json.loads(rec_f.read_text())
        locked = _lock_md5(lock or {}, st.name, f"results/params/{rec_f.name}") == _md5(rec_f)
        checks = [("its parameter record results/params/" + rec_f.name, rec)] if (full or locked) else []
        if full:
            checks.append(("params.yaml", json.loads(now[rec_f.name])))
        for what, other in checks:
            if other != ran:
                out.append(
                    f"results/{st.name}/ was computed with other parameters than {what} says "
                    f"({'; '.join(_changed(ran, other)[:3])}): the results, params.yaml and dvc.lock disagree "
                    "(a run interrupted by another, or a reset during a run). Run `make reset` to return to the "
                    "committed run, or `dvc repro` to recompute."
                )
                break
    return out


def assert_consistent(results_dir: Path | None = None) -> None:
    """Raise :class:`Inconsistent` with every problem (:func:`problems`, ``full``): the claims stage's first step."""
    found = problems(results_dir, full=True)
    if found:
        raise Inconsistent(" ".join(found))


class Inconsistent(RuntimeError):
    """Results, params.yaml and dvc.lock disagree; the message names each stage and ``make reset``."""
