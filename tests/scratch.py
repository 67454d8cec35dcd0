"""Scratch clones of the repository, shared by the suites that run the pipeline on a copy of it (issue 19).

The reliability, raw-data guard, security, with-data and commands suites each clone HEAD into a temporary
folder and run commands there, never in the working copy. They share:

* :func:`make_clone` - ``git clone -q`` of a checkout, with the clone's ``.venv`` linked to the venv running
  the tests (the shared venv is set up already); :func:`keep_shared_venv` before a make target that goes through
  ``make setup``, so that it does not reinstall that venv;
* :func:`env` - the environment of a command in a clone: the clone's ``src`` first on ``PYTHONPATH``, the
  venv's ``bin`` first on ``PATH``, quiet progress, Matplotlib's Agg backend, no ``.pyc`` files in the
  clone, and none of the variables that would point the package at other folders (:data:`FOLDER_OVERRIDES`);
  ``drop`` removes more, ``extra`` adds or overrides variables;
* :func:`run` (a command as a list) and :func:`sh` (a command line through bash, as a reader types it),
  output captured as text;
* :func:`flip_byte` - the one-byte change the data-damage cases make;
* :func:`restore_outputs` - the working copy's DVC cache copied into a clone and checked out, so that the
  clone's ``dvc repro`` only runs what HEAD's ``dvc.lock`` does not already describe (on CI, where the working
  copy has just reproduced HEAD, nothing: the suites stop paying about 4 minutes each for a full run that
  CI's own ``make reproduce`` has already made and checked).

Imported as ``tests/hubmock.py`` is: the suite puts ``tests/`` on ``sys.path`` and imports ``scratch``.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "VENV_BIN",
    "FOLDER_OVERRIDES",
    "env",
    "run",
    "sh",
    "make_clone",
    "keep_shared_venv",
    "flip_byte",
    "restore_outputs",
]

#: the ``bin`` folder of the venv running the tests; a clone's ``.venv`` links to its parent
VENV_BIN = Path(sys.executable).parent
#: variables that point the package at other folders than the clone's own: never passed on to a clone
FOLDER_OVERRIDES = ("COMPENDIUM_ROOT", "COMPENDIUM_RESULTS", "COMPENDIUM_STAGING")


def env(clone: Path, *, drop: Iterable[str] = (), **extra: str) -> dict:
    """The environment of a command run in ``clone`` (see the module docstring); ``drop``: further variables
    to remove (after :data:`FOLDER_OVERRIDES`); ``extra``: variables to set last."""
    out = dict(
        os.environ,
        PYTHONPATH=str(clone / "src"),
        PATH=f"{VENV_BIN}:{os.environ.get('PATH', '')}",
        COMPENDIUM_QUIET="1",
        MPLBACKEND="Agg",
        PYTHONDONTWRITEBYTECODE="1",
    )
    for k in (*FOLDER_OVERRIDES, *drop):
        out.pop(k, None)
    out.update(extra)
    return out


def run(
    clone: Path, *cmd: str, timeout: float = 900, drop: Iterable[str] = (), **extra: str
) -> subprocess.CompletedProcess:
    """``cmd`` (program and arguments) in ``clone`` with :func:`env`, output captured as text."""
    return subprocess.run(
        list(cmd), cwd=clone, env=env(clone, drop=drop, **extra), capture_output=True, text=True, timeout=timeout
    )


def sh(clone: Path, cmd: str, timeout: float = 900, **extra: str) -> subprocess.CompletedProcess:
    """The command line ``cmd`` through ``bash -c`` in ``clone`` with :func:`env`, output captured as text."""
    return subprocess.run(
        ["bash", "-c", cmd], cwd=clone, env=env(clone, **extra), capture_output=True, text=True, timeout=timeout
    )


def make_clone(dest: Path, source: Path) -> Path:
    """``git clone -q source dest`` with ``dest/.venv`` linked to the running venv; returns ``dest``."""
    subprocess.run(["git", "clone", "-q", str(source), str(dest)], check=True)
    (dest / ".venv").symlink_to(VENV_BIN.parent)
    return dest


def keep_shared_venv() -> None:
    """Make the shared venv's ``make setup`` stamp (``.installed``) newer than every file of a clone: a clone's
    ``requirements.txt`` is newer than the stamp (new at the clone, or rewritten by ``make freeze``), and a make target
    through ``make setup`` would reinstall the shared venv, its editable install then pointing at the clone. A venv
    ``make setup`` did not make (a conda environment) has no stamp, and nothing is touched."""
    stamp = VENV_BIN.parent / ".installed"
    if stamp.exists():
        os.utime(stamp)


def flip_byte(f: Path, at: int = 100) -> None:
    """Change the byte at ``at`` of ``f`` (to ``X``, or ``Y`` where it is ``X``): same size, other content."""
    b = bytearray(f.read_bytes())
    b[at] = ord("X") if b[at] != ord("X") else ord("Y")
    f.write_bytes(bytes(b))


def restore_outputs(clone: Path, source: Path) -> dict:
    """Copy the objects of ``source``'s DVC cache that ``clone``'s cache lacks (copies, never links: a test may
    damage a cache object in its clone), then ``dvc checkout`` in ``clone``. The outputs that HEAD's
    ``dvc.lock`` records and ``source`` has computed appear in the clone as a ``dvc pull`` would bring them;
    the rest (or everything, when ``source`` never ran HEAD) is left to the clone's ``dvc repro``, which runs
    exactly the stages whose outputs are still missing or stale. Returns ``{"copied": n, "checkout": rc}``."""
    src, dst = source / ".dvc" / "cache", clone / ".dvc" / "cache"
    copied = 0
    for f in sorted(src.rglob("*")) if src.is_dir() else ():
        if f.is_file() and "runs" not in f.relative_to(src).parts[:1]:
            target = dst / f.relative_to(src)
            if not target.exists():
                data = f.read_bytes()
                # an object is named by its content's md5: one that does not match (half written while the
                # working copy runs DVC, or damaged) is left out, and the clone's repro recomputes what needs it
                if hashlib.md5(data).hexdigest() != f.parent.name + f.name.removesuffix(".dir"):
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                copied += 1
    p = run(clone, "dvc", "checkout", "-q")
    return {"copied": copied, "checkout": p.returncode}
