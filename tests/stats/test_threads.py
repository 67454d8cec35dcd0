"""compendium.stats.threads: independent tasks at once, the same results on any number of threads."""

import threading

import numpy as np
import pandas as pd
import pytest

from compendium.stats import threads


def test_thread_map_keeps_order_and_uses_threads():
    seen = set()

    def f(x):
        seen.add(threading.current_thread().name)
        return np.random.default_rng(x).normal(size=1000).sum()

    items = list(range(12))
    want = [f(x) for x in items]
    seen.clear()
    assert threads.thread_map(f, items, workers=3) == want
    assert all(name.startswith("compendium") for name in seen)  # run in the pool, not the caller's thread
    seen.clear()
    assert threads.thread_map(f, items, workers=1) == want
    assert seen == {threading.current_thread().name}  # one worker: the caller's own thread, no pool


def test_pool_error_reaches_the_caller_and_cancels_what_has_not_started():
    started = []
    gate = threading.Event()

    def f(x):
        started.append(x)
        if x == 0:
            raise ValueError("task 0 failed")
        gate.wait(5)
        return x

    opener = threading.Timer(1.0, gate.set)  # the running task ends after the error has cancelled the queue
    opener.start()
    with pytest.raises(ValueError, match="task 0 failed"):
        with threads.pool(10, workers=2) as ex:
            futures = [ex.submit(f, x) for x in range(10)]
            futures[0].result()
    opener.join()
    # the two workers took 0 and 1, and one of them perhaps 2 before the error was seen; the rest were cancelled
    assert sorted(started) in ([0, 1], [0, 1, 2])
    assert all(f.cancelled() for f in futures[3:])


def test_serial_pool_hands_errors_to_result():
    with threads.pool(1) as ex:
        fut = ex.submit(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        fut.result()


def test_cores_is_positive():
    assert threads.cores() >= 1


def test_montecarlo_same_numbers_on_any_number_of_threads(monkeypatch):
    """The preferences_mc stage's crossings and widening on 1 and on 3 threads: equal, value by value."""
    from compendium import data
    from compendium.preferences import montecarlo as mc

    monkeypatch.setattr(mc, "REPETITIONS", 1500)
    monkeypatch.setattr(mc, "PILOT_REPETITIONS", 150)
    monkeypatch.setattr(mc, "WIDEN_REPLICATES", 300)
    counts, by_category = data.load_hitl_pair_counts(), data.load_hitl_pair_counts_by_category()
    v1, t1 = mc.build(counts, by_category, workers=1)
    v3, t3 = mc.build(counts, by_category, workers=3)
    assert v1 == v3
    pd.testing.assert_frame_equal(t1, t3)
    assert t1["closest_pair"].sum() >= 2  # more than one crossing ran at once


def test_a_ctrl_c_in_a_task_stops_a_one_core_pool_at_once():
    """On one core the tasks run in the caller's thread: a KeyboardInterrupt in one leaves at once (it is not kept
    in its future while the other tasks run), as it would from a pool's waiting caller."""
    ran = []

    def task(x):
        ran.append(x)
        if x == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        threads.thread_map(task, range(5), workers=1)
    assert ran == [0, 1]
