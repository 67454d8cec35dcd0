"""Progress of long steps, shown in the terminal that runs the pipeline, never in the book.

Inside a papermill-run notebook, ipykernel captures ``sys.stderr`` *and* file descriptor 2 into the
notebook (so it would appear in the rendered chapter); it keeps a duplicate of the original descriptor,
the terminal of ``dvc repro``, as ``sys.stderr._original_stdstream_copy``. Long steps (bootstraps,
simulations) report there, and outside a kernel to ``sys.__stderr__``:

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
