"""The scale study as a Dask program: tasks = grid point x block of repetitions, resumable, any cluster.

    python -m compendium.humane.sweep --grid book                     # the book's grid, into sweeps/humane/blocks
    python -m compendium.humane.sweep --grid default --scheduler tcp://host:8786

Determinism: each repetition draws from its own generator (:func:`.simulate.repetition_rng`), so a
block's rows do not depend on the block size or on which worker computed them; the rows are gathered
into one frame sorted by (point key, repetition, checkpoint) and reduced in that order. The result is
therefore the same bytes for any worker count, block size or cluster (tested).

Storage: every finished block is written at once (atomically: a temporary file renamed) as a small
Parquet file ``<point key>-<seed>-<first>-<last>.parquet`` in the store folder. A sweep first reads what
the store already holds for each point and computes only the repetitions it lacks, so a killed sweep
resumes where it stopped, and a bigger grid (more points, more repetitions, another block size) reuses
every stored repetition.

Cluster: ``scheduler`` (a parameter) or the ``DASK_SCHEDULER_ADDRESS`` environment variable names a
running Dask scheduler; otherwise a :class:`distributed.LocalCluster` of one single-threaded worker
process per core is started for the sweep and closed after it.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from compendium.pipeline import paths, progress

from .simulate import COLUMNS, Point, point_key, simulate_block

STAGE = "humane"


def block_name(key: int, seed: int, first: int, last: int) -> str:
    return f"{key:016x}-{seed}-{first:06d}-{last:06d}.parquet"


def stored_repetitions(store: Path, key: int, seed: int) -> dict[int, Path]:
    """Repetition -> the stored block file that holds it, for one point and seed."""
    out: dict[int, Path] = {}
    if store is None or not store.is_dir():
        return out
    for f in sorted(store.glob(f"{key:016x}-{seed}-*.parquet")):
        first, last = (int(x) for x in f.stem.split("-")[2:4])
        for r in range(first, last + 1):
            out.setdefault(r, f)
    return out


def plan(points: list[Point], repetitions: int, block_size: int, seed: int, store: Path | None):
    """The blocks still to compute: ``[(point, [repetitions])]``, in key order, each at most ``block_size``
    consecutive missing repetitions of one point."""
    if block_size < 1 or repetitions < 1:
        raise ValueError("repetitions and block_size must be >= 1")
    todo = []
    for p in sorted(points, key=point_key):
        have = stored_repetitions(store, point_key(p), seed)
        missing = [r for r in range(repetitions) if r not in have]
        run: list[int] = []
        for r in missing:
            if run and (r != run[-1] + 1 or len(run) == block_size):
                todo.append((p, run))
                run = []
            run.append(r)
        if run:
            todo.append((p, run))
    return todo


def _compute(point: Point, reps: list[int], seed: int) -> pd.DataFrame:
    df = simulate_block(point, reps, seed)
    df.insert(0, "point_key", np.int64(point_key(point)))
    return df


def _write_block(store: Path, df: pd.DataFrame, key: int, seed: int, reps: list[int]) -> Path:
    store.mkdir(parents=True, exist_ok=True)
    path = store / block_name(key, seed, reps[0], reps[-1])
    tmp = path.with_suffix(".parquet.tmp")
    df.to_parquet(tmp, index=False, compression="zstd")
    os.replace(tmp, path)
    return path


def scheduler_address(param: str | None) -> str | None:
    """The scheduler to use: the parameter if set, else ``DASK_SCHEDULER_ADDRESS``, else None (local)."""
    return (param or "").strip() or os.environ.get("DASK_SCHEDULER_ADDRESS", "").strip() or None


def client_for(address: str | None, n_workers: int | None = None, processes: bool = True, timeout: str = "20s"):
    """A Dask client: to the scheduler at ``address``, or to a new LocalCluster of ``n_workers``
    single-threaded worker processes (default: one per core), without a dashboard; ``processes=False``: one
    worker in this process with a thread per core (``n_workers`` threads), which starts in a fraction of the
    time worker processes take to start and import the package (the HUMANE stage's small default grid).
    ``timeout``: how long to keep trying a scheduler at ``address`` that does not answer."""
    import logging

    from distributed import Client, LocalCluster

    for name in ("distributed", "distributed.worker", "distributed.scheduler", "distributed.nanny"):
        logging.getLogger(name).setLevel(logging.ERROR)
    if address:
        try:
            return Client(address, timeout=timeout)
        except OSError as e:
            raise RuntimeError(
                f"humane sweep: no Dask scheduler answers at {address!r} ({e}); start one (`dask scheduler`) or "
                "unset humane.scheduler_address in params.yaml and DASK_SCHEDULER_ADDRESS to run locally"
            ) from None
    n = n_workers or os.cpu_count() or 1
    cluster = LocalCluster(
        n_workers=n if processes else 1,
        threads_per_worker=1 if processes else n,
        processes=processes,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
    )
    try:
        return Client(cluster)  # run_sweep closes the cluster with the client
    except BaseException:
        cluster.close()  # a cluster nobody holds a client of would run until the process ends
        raise


def read_blocks(files: list[Path]) -> pd.DataFrame:
    """The rows of the stored blocks ``files``, file after file: one pyarrow dataset read, on one thread so that the
    rows keep the files' order, instead of a pandas read per file and a concat (0.4 s instead of 1.3 s for the
    book's 652 blocks, the same frame: ``tests/humane/test_humane_sweep.py``). Blocks that do not all have the
    first one's schema (written by another version: the dataset would drop a column or cast a type) are read file
    by file as before, so that they concatenate, or fail, as pandas makes them."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    try:
        data = ds.dataset([str(f) for f in files], format="parquet")
        if all(frag.physical_schema.equals(data.schema) for frag in data.get_fragments()):
            return data.to_table(use_threads=False).to_pandas()
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError):
        pass
    return pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)


def run_sweep(
    points: list[Point],
    repetitions: int,
    block_size: int,
    seed: int,
    store: Path | str | None,
    client=None,
    address: str | None = None,
    n_workers: int | None = None,
    stage: str = STAGE,
    compute: bool = True,
    processes: bool = True,
) -> tuple[pd.DataFrame, dict]:
    """Every repetition ``0 .. repetitions-1`` of every point: stored blocks read, missing ones computed
    on Dask (and stored as they finish). Returns ``(rows, info)``: the rows sorted by (point key,
    repetition, checkpoint), and ``info`` with the number of blocks computed and of stored blocks read.
    ``compute=False``: read only (a stage that shows committed blocks); missing ones are an error naming the
    command that computes them. ``processes``: with neither ``client`` nor ``address``, the local cluster's workers
    are processes (the default), else threads of one worker in this process (:func:`client_for`)."""
    store = Path(store) if store is not None else None
    todo = plan(points, repetitions, block_size, seed, store)
    n_stored_before = len({f for p in points for f in stored_repetitions(store, point_key(p), seed).values()})
    computed: dict[tuple, pd.DataFrame] = {}
    if todo and not compute:
        where = (
            store if store is None else (store.relative_to(paths.ROOT) if store.is_relative_to(paths.ROOT) else store)
        )
        raise RuntimeError(
            f"humane: {where} lacks {sum(len(r) for _, r in todo):,} repetitions of the book's grid "
            f"({len(todo)} blocks); compute them with `python -m compendium.humane.sweep --grid book` "
            "(resumable; commit the new files), then run `dvc repro humane`"
        )
    own = client is None and todo
    if todo:
        if client is None:
            client = client_for(scheduler_address(address), n_workers, processes=processes)
        try:  # from here on, a cluster started here is closed whatever happens (an error, a Ctrl-C)
            t0 = time.perf_counter()
            progress.say(stage, f"scale sweep: {len(todo):,} blocks to compute ({len(points)} grid points)")
            futures = {}
            for p, reps in todo:
                fut = client.submit(_compute, p, reps, seed, pure=False)
                futures[fut.key] = (fut, p, reps)
            from distributed import as_completed

            done = 0
            for fut in as_completed([f for f, _, _ in futures.values()]):
                _, p, reps = futures[fut.key]
                df = fut.result()
                key = point_key(p)
                if store is not None:
                    _write_block(store, df, key, seed, reps)
                computed[(key, reps[0])] = df
                done += 1
                if done % max(1, len(todo) // 10) == 0 or done == len(todo):
                    progress.say(
                        stage, f"scale sweep: {done:,}/{len(todo):,} blocks in {time.perf_counter() - t0:.1f} s"
                    )
        finally:
            if own:
                cluster = getattr(client, "cluster", None)
                try:
                    client.close()
                finally:
                    if cluster is not None:
                        cluster.close()
    if store is None:
        frames = [computed[k] for k in sorted(computed)]
        rows = pd.concat(frames, ignore_index=True) if frames else None
    else:  # the store holds every block now, computed or reused: read them all, one path for both
        files = sorted({f for p in points for f in stored_repetitions(store, point_key(p), seed).values()})
        rows = read_blocks(files) if files else None
    if rows is None:
        rows = pd.DataFrame(columns=["point_key", *COLUMNS])
    keys = {point_key(p) for p in points}
    rows = rows[rows["point_key"].isin(keys) & (rows["repetition"] < repetitions)]
    rows = rows.drop_duplicates(["point_key", "repetition", "checkpoint"])
    rows = rows.sort_values(["point_key", "repetition", "checkpoint"], kind="stable").reset_index(drop=True)
    expected = sum(repetitions * len(p.checkpoints) for p in points)
    if len(rows) != expected:
        raise RuntimeError(f"humane sweep: {len(rows):,} rows gathered where {expected:,} were expected")
    return rows, {"blocks_computed": len(todo), "blocks_reused": n_stored_before}


def digest(rows: pd.DataFrame) -> str:
    """SHA-256 of the rows' values (column by column, fixed dtypes): the determinism tests compare these."""
    import hashlib

    h = hashlib.sha256()
    for c in rows.columns:
        h.update(c.encode())
        h.update(np.ascontiguousarray(rows[c].to_numpy()).tobytes())
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    import argparse

    from compendium.pipeline.cli import safe_output
    from compendium.pipeline.params import load_section, study_params

    from .grid import grid_from_params

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError

    ap = argparse.ArgumentParser(prog="python -m compendium.humane.sweep", description=__doc__.splitlines()[0])
    ap.add_argument("--grid", default="book", help="which grid of params.yaml's humane section: default | book")
    ap.add_argument("--store", default=None, help="block folder (default: the grid's store from params.yaml)")
    ap.add_argument(
        "--scheduler", default=None, help="Dask scheduler address (default: DASK_SCHEDULER_ADDRESS, else local)"
    )
    ap.add_argument("--workers", type=int, default=None, help="local workers (default: one per core)")
    ap.add_argument("--repetitions", type=int, default=None, help="override the grid's repetitions")
    ap.add_argument("--block-size", type=int, default=None, help="repetitions per task (default: params.yaml)")
    ap.add_argument("--models", type=int, default=None, help="only the points with this number of models")
    ap.add_argument("--designs", default=None, help="only these designs (comma-separated)")
    a = ap.parse_args(argv)
    try:
        g = grid_from_params(a.grid, study_params("humane", **load_section("humane")))  # params.yaml's values
    except (ValueError, KeyError) as e:
        print(f"humane sweep: {e}", file=sys.stderr)
        return 2
    store = Path(a.store) if a.store else g["store"]
    total_rows = 0
    for reps, pts in g["groups"]:
        pts = [p for p in pts if a.models in (None, p.n_models)]
        pts = [p for p in pts if a.designs is None or p.design in a.designs.split(",")]
        if not pts:
            continue
        reps = a.repetitions or reps
        try:
            rows, info = run_sweep(
                pts, reps, a.block_size or g["block_size"], g["seed"], store, address=a.scheduler, n_workers=a.workers
            )
        except RuntimeError as e:
            print(str(e), file=sys.stderr)
            return 1
        total_rows += len(rows)
        print(f"{len(pts)} points x {reps} repetitions: {info['blocks_computed']} blocks computed, "
              f"{info['blocks_reused']} reused; digest {digest(rows)[:16]}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
