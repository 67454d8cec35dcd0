"""Back to the committed run in one command: ``make reset`` (``python -m compendium.pipeline.reset``).

After ``dvc exp run -S ...`` the workspace holds the experiment: its ``params.yaml``, ``dvc.lock``,
``metrics/`` and every stage output. This restores the committed run without recomputing anything:

1. ``git checkout HEAD -- params.yaml dvc.lock metrics`` (the committed parameters, lock and metrics);
2. ``dvc checkout --force <every stage>``: the stage outputs recorded in that ``dvc.lock``, by name, from the
   DVC cache (a plain ``dvc checkout`` would also try ``data.dvc``, and stops restoring anything once a raw
   file is modified);
3. the raw data are checked against the manifest and reported separately: ``make reset`` never changes
   ``data/`` (a modified raw file may be deliberate); the message gives the command that restores it.

It changes nothing while a ``dvc repro`` or ``dvc exp run`` is running in this checkout, or a stage holds its lock
(:func:`compendium.pipeline.workspace.busy`): the run would otherwise swap its results in after the reset, beside
the committed ``params.yaml`` and ``dvc.lock``, and DVC would call them up to date.

It takes about 7 s here (7 s of CPU, nearly all in `dvc checkout` checking every output file against the cache). Outputs not in the cache (a fresh clone that never ran ``dvc repro``) stop it
with the command that recomputes them.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import yaml

from compendium.pipeline import paths, yamlfile

TRACKED = ("params.yaml", "dvc.lock", "metrics")


def stage_names(root: Path | None = None) -> list[str]:
    """Every stage of ``dvc.yaml`` (each has outputs); ``data.dvc`` is not a stage and is left alone, but it
    is read like ``dvc.yaml`` first: DVC reads both, and an alias bomb in either (a pulled branch's file,
    which ``make reset`` does not restore) would have it fill the memory
    (:class:`compendium.pipeline.yamlfile.AliasBombError`)."""
    root = Path(root) if root is not None else paths.ROOT
    for name in ("data.dvc", "dvc.yaml"):
        try:
            doc = yamlfile.load(root / name) if (root / name).exists() or name == "dvc.yaml" else None
        except yaml.YAMLError as exc:
            raise ResetError(
                f"{' '.join(str(exc).split())[:400]}; restore the committed file with `git checkout -- {name}`, "
                "then run make reset again (params.yaml, dvc.lock and metrics/ are already the committed ones)"
            ) from None
    return list(doc["stages"])


class ResetError(RuntimeError):
    """A file ``make reset`` does not restore cannot be read; the message names it and the recovery."""


def _dvc() -> str:
    exe = Path(sys.executable).with_name("dvc")
    return str(exe) if exe.exists() else "dvc"


def main(argv: list[str] | None = None) -> int:
    from compendium.pipeline.cli import safe_output

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError
    t0 = time.perf_counter()
    root = paths.ROOT
    from compendium.pipeline.workspace import busy

    why = busy()  # a run in progress would swap its results in after the reset (issue 32)
    if why:
        print(
            f"ERROR: make reset changed nothing: {why}, and it would swap its results in after a reset. Wait for it "
            "to finish (or stop it with Ctrl-C), then run make reset again.",
            file=sys.stderr,
        )
        return 1
    # drop the files from git's index first: after `dvc exp run -S` rewrote params.yaml to the same size (DVC keeps
    # the comments' columns) git's stat cache can take the file as unchanged, and a plain `git checkout` then
    # leaves the experiment's value in place (found by tests/reliability with workbank.stable_level=1.5)
    subprocess.run(
        ["git", "rm", "-r", "--cached", "--quiet", "--ignore-unmatch", "--", *TRACKED], cwd=root, capture_output=True
    )
    git = subprocess.run(["git", "checkout", "HEAD", "--", *TRACKED], cwd=root, capture_output=True, text=True)
    if git.returncode != 0:
        print(f"ERROR: git could not restore {', '.join(TRACKED)}: {git.stderr.strip()}", file=sys.stderr)
        return 1
    try:
        stages = stage_names(root)
    except ResetError as exc:  # a bomb or a syntax error in dvc.yaml / data.dvc: not DVC's silent hang
        print(f"ERROR: {exc}.", file=sys.stderr)
        return 1
    dvc = subprocess.Popen(
        [_dvc(), "checkout", "--force", "--quiet", *stages],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # the raw-data check (a few hundredths of a second) while DVC restores the outputs; it never changes data/
    from compendium.pipeline.rawdata import differing, message

    bad = differing(root / "data") if (root / "data").is_dir() else ["(data/ is missing)"]
    dvc_out, dvc_err = dvc.communicate()
    if dvc.returncode != 0:
        print(dvc_out + dvc_err, file=sys.stderr, end="")
        print(
            "ERROR: DVC could not restore the committed run's outputs from its cache (above); recompute them "
            "with `dvc repro` (params.yaml, dvc.lock and metrics/ are already the committed ones).",
            file=sys.stderr,
        )
        return 1
    print(
        f"reset: params.yaml, dvc.lock, metrics/ and the outputs of {len(stages)} stages are the committed run "
        f"({time.perf_counter() - t0:.1f} s)"
    )
    if bad:
        print(message(bad, root), file=sys.stderr)
        print("reset: data/ was left as it is (make reset never changes raw data).", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
