"""Progress of long steps, shown in the terminal that runs the pipeline, never in the book.

Inside a papermill-run notebook, ipykernel captures ``sys.stderr`` *and* file descriptor 2 into the
notebook (so it would appear in the rendered chapter); it keeps a duplicate of the original descriptor,
the terminal of ``dvc repro``, as ``sys.stderr._original_stdstream_copy``. Long steps (bootstraps,
simulations) report there, and outside a kernel to ``sys.__stderr__``:

    with step("workbank", "zone bootstrap", n=2000, unit="draws"):
        ...

prints ``[workbank] zone bootstrap (2,000 draws) ...`` and then ``done in 1.2 s``. Set
``COMPENDIUM_QUIET=1`` to silence it.

A stage's own first and last lines say where it stands in a full run (:func:`stage_position`, "stage 7 of 15"):
its place among the stages of ``dvc.yaml``, whose order is the order ``dvc repro`` runs them in
(``tests/pipeline/test_progress.py`` checks it against DVC's own plan).
"""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

_terminal = None


def _out():
    """The pipeline's terminal: the kernel's copy of the original fd 2 if in a kernel, else stderr."""
    global _terminal
    fd = getattr(sys.stderr, "_original_stdstream_copy", None)
    if fd is not None:
        if _terminal is None:
            _terminal = os.fdopen(os.dup(fd), "w", buffering=1)
        return _terminal
    return sys.__stderr__ or sys.stderr


def say(stage: str, message: str) -> None:
    if os.environ.get("COMPENDIUM_QUIET"):
        return
    stream = _out()
    print(f"[{stage}] {message}", file=stream, flush=True)


@contextmanager
def step(stage: str, what: str, n: int | None = None, unit: str = ""):
    size = f" ({n:,} {unit})".rstrip() if n is not None else ""
    say(stage, f"{what}{size} ...")
    t0 = time.perf_counter()
    yield
    say(stage, f"{what}: done in {time.perf_counter() - t0:.1f} s")


def stage_names(dvc_yaml: Path | None = None) -> list[str]:
    """The stages of ``dvc.yaml`` in the file's order (the order ``dvc repro`` runs the whole pipeline in); [] when
    the file cannot be read (a progress line is never worth an error)."""
    from compendium.pipeline import paths, yamlfile

    try:
        doc = yamlfile.load(dvc_yaml or paths.ROOT / "dvc.yaml")
    except Exception:  # noqa: BLE001 - a missing or broken dvc.yaml is the stage runner's to report, not this line's
        return []
    stages = doc.get("stages") if isinstance(doc, dict) else None
    return list(stages) if isinstance(stages, dict) else []


def stage_position(name: str, dvc_yaml: Path | None = None) -> str:
    """``"stage k of N"``: ``name``'s place among the ``N`` stages of ``dvc.yaml`` (:func:`stage_names`), so that a
    full run's lines show how far it has got; ``""`` for a name that is no stage there."""
    names = stage_names(dvc_yaml)
    return f"stage {names.index(name) + 1} of {len(names)}" if name in names else ""


def done_line(stage: str, seconds: float) -> str:
    """A stage's last line: ``[workbank] done in 31.2 s (stage 7 of 15)``."""
    where = stage_position(stage)
    return f"[{stage}] done in {seconds:.1f} s" + (f" ({where})" if where else "")
