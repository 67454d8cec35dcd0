"""Progress of long steps, shown in the terminal that runs the pipeline, never in the book.

Inside a papermill-run notebook, ``sys.stderr`` is captured into the notebook (and so would appear in
the rendered chapter), but ``sys.__stderr__`` is still the terminal of ``dvc repro``. Long steps
(bootstraps, simulations) report there:

    with step("workbank", "zone bootstrap", n=2000, unit="draws"):
        ...

prints ``[workbank] zone bootstrap (2,000 draws) ...`` and then ``done in 1.2 s``. Set
``COMPENDIUM_QUIET=1`` to silence it.
"""
from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager


def _out():
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
