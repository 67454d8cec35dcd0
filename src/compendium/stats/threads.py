"""A handful of independent, seeded computations at once, one thread per core.

The Monte Carlo work of several stages is a few coarse tasks (a crossing per C-D gap, a bootstrap per design),
each with its own random stream, whose time is spent in numpy on large arrays, which releases the GIL: two
threads on the 2-core machine do two tasks in about the time of one. Every task computes what it computes alone,
whatever the number of threads and whichever finishes first, so the results are the same bytes on 1 thread or
many (tests compare them). ``concurrent.futures`` rather than Dask's threaded scheduler: the same pool, without
Dask's import (0.1-0.4 s) in stages that use nothing else of it. The HUMANE sweep, many small tasks that can
run on a cluster, uses Dask (:mod:`compendium.humane.sweep`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from contextlib import contextmanager


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform says, else the CPU count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)


class Serial(Executor):
    """An executor that runs each call at once, in the caller's thread (one core, or a single task)."""

    def submit(self, fn, /, *args, **kwargs):
        f = Future()
        try:
            f.set_result(fn(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001 - handed to the caller by result(), as a pool would
            f.set_exception(exc)
        return f  # a Ctrl-C (KeyboardInterrupt) or SystemExit is not stored: it stops the caller at once


@contextmanager
def pool(tasks: int, workers: int | None = None):
    """An executor for ``tasks`` independent tasks: ``min(workers, tasks)`` threads (``workers``: default
    :func:`cores`), or the caller's own thread if that is one. On an error in the block, tasks not yet started
    are cancelled; the running ones are waited for."""
    n = min(cores() if workers is None else max(1, int(workers)), max(1, tasks))
    ex = Serial() if n <= 1 else ThreadPoolExecutor(max_workers=n, thread_name_prefix="compendium")
    try:
        yield ex
    except BaseException:
        ex.shutdown(wait=True, cancel_futures=True)
        raise
    ex.shutdown(wait=True)


def thread_map(fn: Callable, items: Iterable, workers: int | None = None) -> list:
    """``[fn(x) for x in items]``, the calls spread over :func:`pool`'s threads; the results in ``items``' order."""
    items = list(items)
    with pool(len(items), workers) as ex:
        return list(ex.map(fn, items))
