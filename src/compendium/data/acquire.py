"""Refresh ``data/`` from the canonical Hugging Face datasets (needs network).

    python -m compendium.data.acquire workbank|pwb|hitl [--revision REV] [--timeout S] [--deadline S]

Steps: (1) probe the hub within ``--timeout`` seconds and stop with a clear message if it cannot be
reached, changing nothing; (2) download the dataset at ``--revision`` (default ``main``) into a
temporary folder; (3) validate every table it brings with the project's schemas; (4) only then move
the files into ``data/`` and write ``data/<dataset>/ACQUIRED.json`` recording the resolved commit.
Afterwards review the diff, run ``python -m compendium.data.manifest --write`` and ``dvc add data``.

Offline (as on the build machine) it fails in well under the timeout: the data then come from the
DVC remote bundled with the repository (``dvc pull``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlparse

from .. import paths
from .catalog import DATASETS


class HubUnreachable(RuntimeError):
    """The Hugging Face hub cannot be reached: nothing was changed."""


def hub_endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "https://huggingface.co")


def probe_hub(timeout: float = 5.0) -> None:
    """Raise :class:`HubUnreachable` unless a TCP connection to the hub opens within ``timeout`` s."""
    if os.environ.get("HF_HUB_OFFLINE", "0") not in ("0", "", "false", "False"):
        raise HubUnreachable("HF_HUB_OFFLINE is set: not contacting the Hugging Face hub")
    url = urlparse(hub_endpoint())
    host, port = url.hostname, url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        raise HubUnreachable(f"cannot reach the Hugging Face hub at {hub_endpoint()} ({exc})") from exc


def _download(dataset: str, revision: str, dest: Path) -> str:
    """Download ``dataset`` into ``dest`` laid out as under ``data/``; return the resolved commit sha."""
    from huggingface_hub import HfApi, snapshot_download

    spec = DATASETS[dataset]
    info = HfApi(endpoint=hub_endpoint()).dataset_info(spec["hf_id"], revision=revision)
    sha = info.sha
    if "hf_files" in spec or "hf_dirs" in spec:
        snap = Path(snapshot_download(spec["hf_id"], repo_type="dataset", revision=sha, local_dir=dest / "_snapshot"))
        for src, target in spec.get("hf_files", {}).items():
            found = list(snap.rglob(src))
            if not found:
                raise FileNotFoundError(f"{spec['hf_id']}@{sha}: expected file {src} not in the snapshot")
            (dest / target).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(found[0], dest / target)
        for src, target in spec.get("hf_dirs", {}).items():
            if not (snap / src).is_dir():
                raise FileNotFoundError(f"{spec['hf_id']}@{sha}: expected folder {src}/ not in the snapshot")
            shutil.copytree(snap / src, dest / target, dirs_exist_ok=True)
        shutil.rmtree(snap)
    for config, target in spec.get("hf_configs", {}).items():
        import datasets as hfds

        ds = hfds.load_dataset(spec["hf_id"], config, revision=sha, split="train")
        (dest / target).parent.mkdir(parents=True, exist_ok=True)
        ds.to_parquet(str(dest / target))
    return sha


def _validate_downloaded(dataset: str, staged: Path) -> None:
    """Parse and validate every known table the download brought (checksums are re-recorded later)."""
    from .load import load_table
    from .schema import ALL_TABLES

    for name, spec in ALL_TABLES.items():
        if spec.relpath.startswith(dataset + "/") and (staged / spec.relpath).exists():
            load_table(name, root=staged, verify=False)


def _within(deadline: float, fn, *args):
    """Run ``fn(*args)`` and return its result, or raise :class:`HubUnreachable` after ``deadline`` seconds.

    Per-request time-outs do not bound a download: a server that accepts connections and then trickles or
    never answers can keep a client waiting through retry after retry. The work runs in a daemon thread,
    abandoned (and ended with the process) when the deadline passes."""
    import threading

    box: dict = {}

    def target():
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    t = threading.Thread(target=target, name="acquire-download", daemon=True)
    t.start()
    t.join(deadline)
    if t.is_alive():
        raise HubUnreachable(
            f"the download did not finish within the {deadline:g} s deadline "
            f"({hub_endpoint()} accepted the connection but did not deliver)"
        )
    if "error" in box:
        raise box["error"]
    return box["value"]


def acquire(
    dataset: str,
    revision: str = "main",
    timeout: float = 5.0,
    data_root: Path | None = None,
    downloader=_download,
    deadline: float = 900.0,
) -> str:
    """Refresh ``data/<dataset>`` from the hub; return the resolved revision. Changes nothing on failure.

    ``timeout`` bounds the first connection; ``deadline`` bounds the whole download (seconds)."""
    if dataset not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}; choose one of {sorted(DATASETS)}")
    if deadline <= 0:
        raise ValueError(f"deadline must be positive, got {deadline}")
    data_root = Path(data_root) if data_root is not None else paths.DATA
    probe_hub(timeout)
    os.environ.setdefault("HF_HUB_ETAG_TIMEOUT", str(max(1, int(timeout))))
    os.environ.setdefault("HF_HUB_DOWNLOAD_TIMEOUT", str(max(1, int(timeout))))
    with tempfile.TemporaryDirectory(prefix=f"acquire-{dataset}-", ignore_cleanup_errors=True) as tmp:
        staged = Path(tmp)
        sha = _within(deadline, downloader, dataset, revision, staged)
        _validate_downloaded(dataset, staged)
        moved = []
        for f in sorted(p for p in staged.rglob("*") if p.is_file()):
            rel = f.relative_to(staged)
            (data_root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, data_root / rel)
            moved.append(rel.as_posix())
    record = {
        "dataset": dataset,
        "hf_id": DATASETS[dataset]["hf_id"],
        "requested_revision": revision,
        "resolved_revision": sha,
        "files": moved,
    }
    (data_root / dataset).mkdir(parents=True, exist_ok=True)
    (data_root / dataset / "ACQUIRED.json").write_text(json.dumps(record, indent=1) + "\n")
    return sha


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset", choices=sorted(DATASETS))
    ap.add_argument("--revision", default="main", help="hub branch, tag or commit (default: main)")
    ap.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for the hub (default 5)")
    ap.add_argument(
        "--deadline",
        type=float,
        default=900.0,
        help="seconds the whole download may take before it is abandoned (default 900)",
    )
    args = ap.parse_args(argv)
    try:
        sha = acquire(args.dataset, args.revision, args.timeout, deadline=args.deadline)
    except HubUnreachable as exc:
        print(
            f"error: {exc}.\nNothing in data/ was changed. Offline, restore the bundled copy with "
            "`dvc pull data.dvc` (the DVC remote ships with the repository).",
            file=sys.stderr,
        )
        return 2
    print(
        f"{args.dataset}: refreshed from {DATASETS[args.dataset]['hf_id']} at revision {sha}.\n"
        "Next: review `git diff`/`dvc diff`, then `python -m compendium.data.manifest --write` and `dvc add data`."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
