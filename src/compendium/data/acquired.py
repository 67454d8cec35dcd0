"""Data acquired from the Hugging Face hub that the repository does not ship: where they live and how
they are tracked.

The PWB per-instance results (``data/pwb/results/``) and the HITL row-level files
(``data/hitl/annotations.*``, ``data/hitl/annotations_real.json``, ``data/hitl/comment_themes.*``) sit in
``data/`` beside the released files, so every loader reads them where it reads the rest; but they are

* **not in ``data.dvc``** (``.dvcignore`` hides them from DVC), so ``dvc add data`` never records them and
  they are never pushed to the bundled ``dvc-remote/`` (committed to git; the PWB data's licence may be
  CC BY-NC-SA), and ``data/`` is git-ignored, so they are never committed;
* **recorded locally** in ``acquired/<dataset>/manifest.json`` (git-ignored): the hub id, the resolved
  commit, and the sha256 and size of every file, written by :mod:`compendium.data.acquire` after it
  verified the download against the hub's own checksums;
* **stage dependencies through that folder**: ``dvc.yaml`` lists ``acquired/pwb`` (stage ``pwb``) and
  ``acquired/hitl`` (stage ``preferences``). On a fresh clone each folder holds only its committed
  ``README.md``, so ``dvc status`` is clean without the data; an acquisition adds the manifest, the folder's
  hash changes, and ``dvc repro`` re-runs exactly the stages the new files reach (and what reads them).

A file put under ``data/`` by hand is refused by :func:`verify` until it is accepted with the one accept
step, ``python -m compendium.data.acquire <dataset> --from <file or folder>`` (the same validation as a
download, and the manifest rewrite that makes DVC re-run the stages).
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

from compendium.pipeline import paths

from .catalog import DATASETS
from .errors import ChecksumError

#: ``acquired/`` at the repository root: one folder per dataset, each with a committed README.md.
ACQUIRED = paths.ROOT / "acquired"
MANIFEST_NAME = "manifest.json"


def acquired_paths(dataset: str) -> tuple[str, ...]:
    """The paths under ``data/`` (files, or folders such as ``pwb/results``) that only an acquisition fills."""
    return tuple(DATASETS[dataset].get("acquired_paths", ()))


def dataset_of(relpath: str) -> str | None:
    """The dataset whose acquired-only paths contain ``relpath`` (relative to ``data/``), else None."""
    for ds in DATASETS:
        for p in acquired_paths(ds):
            if relpath == p or relpath.startswith(p.rstrip("/") + "/"):
                return ds
    return None


def manifest_path(dataset: str, acquired_root: Path | None = None) -> Path:
    return (Path(acquired_root) if acquired_root is not None else ACQUIRED) / dataset / MANIFEST_NAME


def read_record(dataset: str, acquired_root: Path | None = None) -> dict | None:
    """The local manifest of ``dataset`` (``None`` when nothing was acquired)."""
    p = manifest_path(dataset, acquired_root)
    if not p.exists():
        return None
    try:
        rec = json.loads(p.read_text())
    except (ValueError, UnicodeDecodeError) as exc:
        raise ChecksumError(
            f"{p}: not valid JSON ({exc}); re-run the acquisition, or delete the file to drop the acquired data"
        ) from None
    if not isinstance(rec, dict) or not isinstance(rec.get("files"), dict):
        raise ChecksumError(f"{p}: field 'files' missing; re-run the acquisition, or delete the file")
    return rec


def write_record(dataset: str, record: dict, acquired_root: Path | None = None) -> Path:
    """Write the local manifest atomically (temporary file, then one rename)."""
    p = manifest_path(dataset, acquired_root)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{MANIFEST_NAME}.tmp{os.getpid()}")
    tmp.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, p)
    return p


def accept_hint(dataset: str, path: Path | str) -> str:
    """The accept step for ``path`` (a file under ``data/``). A dataset acquired as a folder (PWB: the hub's
    ``results/`` -> ``data/pwb/results/``) is accepted as a folder laid out as the hub dataset, the one that
    holds ``results/`` (``--from`` refuses a single PWB file); a file dataset (HITL) file by file."""
    p = Path(path)
    for hub_dir, target in DATASETS[dataset].get("hf_dirs", {}).items():
        parts, tparts = p.parts, Path(target).parts
        for i in range(len(parts) - len(tparts) + 1):
            if parts[i : i + len(tparts)] == tparts:
                base = Path(*parts[:i], *tparts[: len(tparts) - len(Path(hub_dir).parts)])
                return (
                    f"accept the folder as it is with `python -m compendium.data.acquire {dataset} --from {base}` "
                    f"(a folder holding {hub_dir}/, as the hub dataset)"
                )
    return f"accept it with `python -m compendium.data.acquire {dataset} --from {path}`"


@lru_cache(maxsize=512)
def _sha256(path: str, mtime_ns: int, size: int) -> str:
    from compendium.pipeline.rawdata import sha256_file

    return sha256_file(Path(path))


def verify(relpath: str, data_root: Path | None = None, acquired_root: Path | None = None) -> Path:
    """Return ``data/<relpath>`` after checking it against its dataset's local manifest.

    Raises :class:`ChecksumError` (one sentence naming the file and the accept step) when the file is not
    recorded or its sha256 differs from the recorded one."""
    data_root = Path(data_root) if data_root is not None else paths.DATA
    path = data_root / relpath
    ds = dataset_of(relpath)
    if ds is None:
        raise ValueError(f"{relpath}: not an acquired-only path")
    rec = read_record(ds, acquired_root)
    where = manifest_path(ds, acquired_root)
    got = (rec or {}).get("files", {}).get(relpath)
    if got is None:
        raise ChecksumError(
            f"{path}: not recorded in {where} (put there by hand, or by an older acquisition); {accept_hint(ds, path)}"
        )
    st = path.stat()
    sha = _sha256(str(path), st.st_mtime_ns, st.st_size)
    if sha != got["sha256"]:
        raise ChecksumError(
            f"{path}: sha256 {sha[:16]}... does not match {got['sha256'][:16]}... recorded in {where}: the file "
            f"changed after it was acquired; re-run `python -m compendium.data.acquire {ds}`, or "
            f"{accept_hint(ds, path)}"
        )
    return path


def is_acquired_only(dataset: str, relpath: str) -> bool:
    """Whether ``relpath`` (under ``data/``) is one of ``dataset``'s acquired-only paths (or inside one)."""
    return any(relpath == p or relpath.startswith(p.rstrip("/") + "/") for p in acquired_paths(dataset))


def scan_unrecorded(
    data_root: Path | None = None, acquired_root: Path | None = None, datasets: tuple[str, ...] | None = None
) -> list[str]:
    """Messages for acquired-only files under ``data/`` that their local manifest does not vouch for
    (unrecorded, changed or missing), for ``python -m compendium.data.manifest``.

    Only the acquired-only paths are this record's to vouch for: a record also lists the released files an
    acquisition replaced (all of a WORKBank acquisition's), which the release manifest checks
    (``src/compendium/data/manifest.json``), so they are neither "missing" nor checked twice here."""
    data_root = Path(data_root) if data_root is not None else paths.DATA
    out = []
    for ds in datasets or tuple(DATASETS):
        rec = read_record(ds, acquired_root) or {"files": {}}
        present = set()
        for p in acquired_paths(ds):
            full = data_root / p
            files = (
                [full] if full.is_file() else sorted(f for f in full.rglob("*") if f.is_file()) if full.is_dir() else []
            )
            present |= {f.relative_to(data_root).as_posix() for f in files}
        for rel in sorted(present):
            try:
                verify(rel, data_root, acquired_root)
            except ChecksumError as exc:
                out.append(str(exc))
        for rel in sorted(r for r in set(rec["files"]) - present if is_acquired_only(ds, r)):
            out.append(
                f"{data_root / rel}: recorded in {manifest_path(ds, acquired_root)} but missing; re-run "
                f"`python -m compendium.data.acquire {ds}`, or delete {manifest_path(ds, acquired_root)} "
                "to build without the acquired data"
            )
    return out


def verify_dataset(dataset: str, data_root: Path | None = None, acquired_root: Path | None = None) -> list[Path]:
    """Verify every acquired-only file of ``dataset`` present under ``data/`` (e.g. all of
    ``data/pwb/results/`` before the per-instance path reads it) against the local manifest, and that no
    recorded file is missing; return the verified paths. Raises :class:`ChecksumError` with the first
    problem (one sentence, naming the file and the recovery)."""
    data_root = Path(data_root) if data_root is not None else paths.DATA
    problems = scan_unrecorded(data_root, acquired_root, (dataset,))
    if problems:
        more = (
            f" (and {len(problems) - 1} more: `python -m compendium.data.manifest` lists them)"
            if len(problems) > 1
            else ""
        )
        raise ChecksumError(problems[0] + more)
    rec = read_record(dataset, acquired_root) or {"files": {}}
    return [data_root / rel for rel in sorted(rec["files"]) if is_acquired_only(dataset, rel)]
