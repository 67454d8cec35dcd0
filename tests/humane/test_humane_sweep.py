"""compendium.humane.sweep as a distributed program: the same bytes for any worker count, block size and
cluster; a worker killed mid-sweep is survived; a killed client's finished blocks are never recomputed.
Tiny grid (5 models, 400 judgements): each test takes a few seconds."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from compendium.humane import sweep
from compendium.humane.grid import checkpoints
from compendium.humane.simulate import DESIGNS, Point, strengths

STUDY = np.array([1.2, 1.1, 1.0, 0.85, 0.8])
REPS, SEED = 6, 11


def tiny_points(budget: int = 400) -> list[Point]:
    th = tuple(float(x) for x in strengths(5, "study", STUDY, 0.6))
    pts = [Point(5, "study", th, 0.4, 1, 0.0, d, checkpoints(budget, 20, 3)) for d in DESIGNS]
    return pts + [Point(5, "study", th, 0.4, 3, 0.2, "uniform", checkpoints(budget, 20, 3))]


@pytest.fixture(scope="module")
def reference():
    """The rows computed in this process, block by block, with no Dask at all."""
    import pandas as pd

    frames = []
    for p in sorted(tiny_points(), key=sweep.point_key):
        frames.append(sweep._compute(p, list(range(REPS)), SEED))
    rows = pd.concat(frames, ignore_index=True).sort_values(["point_key", "repetition", "checkpoint"])
    return sweep.digest(rows.reset_index(drop=True))


@pytest.fixture(scope="module")
def external_cluster(tmp_path_factory):
    """A separately started `dask scheduler` and two `dask worker` processes (no nanny) on loopback."""
    d = tmp_path_factory.mktemp("dask")
    sched_file = d / "scheduler.json"
    env = dict(os.environ, COMPENDIUM_QUIET="1")
    bindir = Path(sys.executable).parent
    procs = [
        subprocess.Popen(
            [
                str(bindir / "dask"),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(sched_file),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )  # fmt: skip
    ]
    for _ in range(200):
        if sched_file.exists() and sched_file.stat().st_size:
            break
        time.sleep(0.1)
    address = json.loads(sched_file.read_text())["address"]
    workers = [
        subprocess.Popen(
            [
                str(bindir / "dask"),
                "worker",
                address,
                "--nworkers",
                "1",
                "--nthreads",
                "1",
                "--no-nanny",
                "--no-dashboard",
                "--host",
                "127.0.0.1",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )  # fmt: skip
        for _ in range(2)
    ]
    from distributed import Client

    with Client(address, timeout="30s") as c:
        c.wait_for_workers(2, timeout=60)
    yield address, workers
    for p in workers + procs:
        if p.poll() is None:
            p.kill()
            p.wait()


@pytest.mark.parametrize("workers,block", [(1, REPS), (2, 1)])
def test_the_same_bytes_for_any_local_worker_count_and_block_size(reference, tmp_path, workers, block):
    rows, info = sweep.run_sweep(tiny_points(), REPS, block, SEED, tmp_path / "blocks", n_workers=workers)
    assert sweep.digest(rows) == reference
    assert info["blocks_computed"] == len(tiny_points()) * -(-REPS // block)


def test_the_same_bytes_on_the_threaded_in_process_cluster_of_the_stages_default_grid(reference):
    """build._default runs the live grid on one in-process worker with a thread per core (processes=False): the
    rows are those of worker processes."""
    rows, info = sweep.run_sweep(tiny_points(), REPS, 2, SEED, None, n_workers=2, processes=False)
    assert sweep.digest(rows) == reference and info["blocks_computed"] == len(tiny_points()) * 3
    c = sweep.client_for(None, 2, processes=False)
    try:
        assert [w["nthreads"] for w in c.scheduler_info()["workers"].values()] == [2]
        assert c.cluster.processes is False
    finally:
        c.close()
        c.cluster.close()


def test_the_stage_asks_for_a_threaded_cluster_and_run_sweep_passes_that_on(monkeypatch):
    """build._default (the stage's live grid) asks run_sweep for threads, and run_sweep asks client_for for them."""
    from types import SimpleNamespace

    from compendium.humane import build, grid
    from compendium.pipeline.params import study_params

    class Stop(Exception):
        pass

    seen = {}

    def record(name):
        def f(*args, **kwargs):
            seen[name] = kwargs.get("processes")
            raise Stop

        return f

    monkeypatch.setattr(sweep, "client_for", record("client_for"))
    with pytest.raises(Stop):
        sweep.run_sweep(tiny_points(), REPS, 2, SEED, None, processes=False)
    monkeypatch.setattr(sweep, "run_sweep", record("run_sweep"))
    pi, nu = grid.study_truth()
    with pytest.raises(Stop):
        build._default(study_params("humane"), SimpleNamespace(pi=pi, nu=nu))
    assert seen == {"client_for": False, "run_sweep": False}


@pytest.mark.parametrize(
    "close_fails,error,match,closed_then",
    [(False, RuntimeError, "submit failed", ["client", "cluster"]), (True, OSError, "close failed", ["cluster"])],
)
def test_a_cluster_started_for_the_sweep_is_closed_when_submitting_fails(monkeypatch, close_fails, error, match,
                                                                         closed_then):  # fmt: skip
    """An error before the first result (here the first submit; a progress line or a Ctrl-C alike) still closes
    the client and the local cluster run_sweep started; the cluster even if closing the client fails too."""
    closed = []

    class Cluster:
        def close(self):
            closed.append("cluster")

    class Client:
        cluster = Cluster()

        def submit(self, *args, **kwargs):
            raise RuntimeError("submit failed")

        def close(self):
            if close_fails:
                raise OSError("close failed")
            closed.append("client")

    monkeypatch.setattr(sweep, "client_for", lambda *args, **kwargs: Client())
    with pytest.raises(error, match=match):
        sweep.run_sweep(tiny_points(), REPS, 2, SEED, None)
    assert closed == closed_then


def test_client_for_closes_the_local_cluster_it_started_when_the_client_fails(monkeypatch):
    import distributed

    closed = []

    class Cluster:
        def __init__(self, **kwargs):
            pass

        def close(self):
            closed.append("cluster")

    def no_client(cluster):
        raise OSError("the client could not connect")

    monkeypatch.setattr(distributed, "LocalCluster", Cluster)
    monkeypatch.setattr(distributed, "Client", no_client)
    with pytest.raises(OSError, match="could not connect"):
        sweep.client_for(None, 1, processes=False)
    assert closed == ["cluster"]


def test_a_bigger_sweep_reuses_every_stored_repetition(reference, external_cluster, tmp_path):
    address, store = external_cluster[0], tmp_path / "blocks"
    sweep.run_sweep(tiny_points(), 4, 2, SEED, store, address=address)  # a smaller sweep first
    rows, info = sweep.run_sweep(tiny_points(), REPS, 3, SEED, store, address=address)  # bigger, another block size
    assert info["blocks_computed"] == len(tiny_points())  # only repetitions 4-5 of each point
    assert sweep.digest(rows) == reference


def test_the_same_bytes_on_a_separately_started_scheduler_with_two_workers(reference, external_cluster, tmp_path):
    address, _ = external_cluster
    rows, _ = sweep.run_sweep(tiny_points(), REPS, 2, SEED, None, address=address)
    assert sweep.digest(rows) == reference


def test_scheduler_address_comes_from_the_parameter_then_the_environment(monkeypatch):
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "tcp://127.0.0.1:9999")
    assert sweep.scheduler_address("tcp://10.0.0.1:8786") == "tcp://10.0.0.1:8786"
    assert sweep.scheduler_address("") == "tcp://127.0.0.1:9999"
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS")
    assert sweep.scheduler_address("") is None


def test_an_unreachable_scheduler_gives_one_sentence_with_the_recovery():
    # 2 s of retrying, not the 20 s a user's command allows a scheduler on the network (it was 20 s of make test)
    with pytest.raises(RuntimeError, match=r"no Dask scheduler answers at 'tcp://127.0.0.1:1'.*unset humane"):
        sweep.client_for("tcp://127.0.0.1:1", timeout="2s")


def _client_script(tmp_path: Path, store: Path, address: str, budget: int) -> Path:
    script = tmp_path / "client.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from test_humane_sweep import tiny_points, REPS, SEED\n"
        "from compendium.humane import sweep\n"
        "if __name__ == '__main__':\n"
        f"    sweep.run_sweep(tiny_points({budget}), REPS, 1, SEED, {str(store)!r}, address={address!r})\n"
    )
    return script


def test_a_killed_client_resumes_without_recomputing_a_finished_block(external_cluster, tmp_path):
    address, _ = external_cluster
    store, budget = tmp_path / "blocks", 1000
    proc = subprocess.Popen([sys.executable, str(_client_script(tmp_path, store, address, budget))],
                            env=dict(os.environ, COMPENDIUM_QUIET="1"))  # fmt: skip
    total = len(tiny_points()) * REPS
    deadline = time.time() + 120
    while time.time() < deadline and len(list(store.glob("*.parquet"))) < 2:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = {f.name: (f.stat().st_ino, f.stat().st_mtime_ns) for f in store.glob("*.parquet")}
    assert 2 <= len(before) < total, "the client was not killed mid-sweep"
    rows, info = sweep.run_sweep(tiny_points(budget), REPS, 1, SEED, store, address=address)
    after = {f.name: (f.stat().st_ino, f.stat().st_mtime_ns) for f in store.glob("*.parquet")}
    assert info["blocks_computed"] == total - len(before)
    assert all(after[name] == stat for name, stat in before.items())  # finished blocks untouched
    fresh, _ = sweep.run_sweep(tiny_points(budget), REPS, 1, SEED, None, address=address)
    assert sweep.digest(rows) == sweep.digest(fresh)


def test_a_worker_killed_mid_sweep_is_survived_with_the_same_result(tmp_path):
    """Its own cluster (a scheduler and two workers), since one worker dies."""
    from distributed import Client, LocalCluster

    pts = tiny_points(1000)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            ref, _ = sweep.run_sweep(pts, REPS, 1, SEED, None, client=client)
            store = tmp_path / "blocks"
            import threading

            out = {}
            t = threading.Thread(target=lambda: out.update(r=sweep.run_sweep(pts, REPS, 1, SEED, store, client=client)))
            t.start()
            deadline = time.time() + 120
            while time.time() < deadline and not list(store.glob("*.parquet")):
                time.sleep(0.02)
            victim = next(iter(cluster.workers.values()))
            os.kill(victim.process.pid, signal.SIGKILL)  # the worker process dies (its nanny restarts it)
            t.join(timeout=300)
            assert not t.is_alive()
            rows, info = out["r"]
    assert info["blocks_computed"] == len(pts) * REPS
    assert sweep.digest(rows) == sweep.digest(ref)


def test_a_read_only_sweep_names_the_missing_blocks_and_the_command_that_computes_them(tmp_path):
    with pytest.raises(RuntimeError) as e:
        sweep.run_sweep(tiny_points(), REPS, 3, SEED, tmp_path / "blocks", compute=False)
    msg = str(e.value)
    assert f"lacks {len(tiny_points()) * REPS} repetitions of the book's grid ({len(tiny_points()) * 2} blocks)" in msg
    assert "`python -m compendium.humane.sweep --grid book`" in msg and "`dvc repro humane`" in msg


def test_the_blocks_are_read_in_one_pass_to_the_same_frame_as_file_by_file(tmp_path):
    """read_blocks (one pyarrow dataset read) gives exactly pandas' per-file reads concatenated, on the committed
    blocks of the book's grid, in the files' order; blocks written with another schema are read file by file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from compendium.humane import grid

    files = sorted(grid.BOOK_STORE.glob("*.parquet"))
    assert len(files) > 100
    some = files[:: max(1, len(files) // 60)][::-1]  # not in name order: the order given is kept
    one_by_one = pd.concat([pd.read_parquet(f) for f in some], ignore_index=True)
    pd.testing.assert_frame_equal(sweep.read_blocks(some), one_by_one, check_exact=True)
    # blocks of another schema (a column more; a column of another type): read file by file, as before
    t = pq.read_table(some[0])
    more, typed = tmp_path / "more.parquet", tmp_path / "typed.parquet"
    pq.write_table(t.append_column("extra", pa.array(["x"] * t.num_rows)), more)
    pq.write_table(t.set_column(1, "repetition", t["repetition"].cast(pa.int32())), typed)
    for mixed in ([some[0], more], [some[0], typed], [more, some[0]]):
        want = pd.concat([pd.read_parquet(f) for f in mixed], ignore_index=True)
        pd.testing.assert_frame_equal(sweep.read_blocks(mixed), want, check_exact=True)
    assert "extra" in sweep.read_blocks([some[0], more]).columns  # the dataset alone would drop it
