"""Record (``--write``) or check the sha256, size and row count of every file under ``data/``.

python -m compendium.data.manifest           # check data/ against the recorded manifest
python -m compendium.data.manifest --write   # re-record after a deliberate, reviewed refresh

Files that only an acquisition brings (``data/pwb/results/``, ``data/hitl/annotations.*``: see
:mod:`compendium.data.acquired`) are not part of this manifest (nor of ``data.dvc``); the check verifies
them against their local manifest ``acquired/<dataset>/manifest.json`` and names the accept step,
``python -m compendium.data.acquire <dataset> --from <file or folder>``, for any it does not vouch for.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from compendium.pipeline import paths
from compendium.pipeline.cli import visible
from compendium.pipeline.rawdata import sha256_file

from . import acquired
from .load import MANIFEST

SKIP = {"README.md", ".gitignore"}


def _rows(path: Path) -> int | None:
    if path.suffix == ".jsonl":
        return sum(1 for line in path.read_text().splitlines() if line.strip())
    if path.suffix == ".csv":
        import pandas as pd

        return len(pd.read_csv(path, dtype=str, keep_default_na=False))
    if path.suffix == ".json":
        obj = json.loads(path.read_text())
        if isinstance(obj, list):
            return len(obj)
        for k in ("prompts", "themes"):
            if isinstance(obj, dict) and k in obj:
                return len(obj[k])
    return None


def scan(root: Path | None = None) -> dict:
    root = Path(root) if root is not None else paths.DATA
    files = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and p.name not in SKIP and not rel.startswith(".") and acquired.dataset_of(rel) is None:
            files[rel] = {"sha256": sha256_file(p), "bytes": p.stat().st_size, "rows": _rows(p)}
    return files


def _acquisitions() -> dict[tuple[str, str], str]:
    """``{(path under data/, sha256): "<hub id>@<revision>, acquired/<dataset>/manifest.json"}`` for every
    released file an acquisition brought (a WORKBank refresh), so a mismatch it explains is named as such."""
    out = {}
    for ds in acquired.DATASETS:
        try:
            rec = acquired.read_record(ds)
        except acquired.ChecksumError:
            continue  # an unreadable record: scan_unrecorded reports it
        for rel, f in (rec or {"files": {}})["files"].items():
            if not acquired.is_acquired_only(ds, rel) and isinstance(f, dict) and f.get("sha256"):
                rev = str(rec.get("resolved_revision") or "?")[:12]
                where = rec.get("source") or f"{rec.get('hf_id', ds)}@{rev}"
                out[(rel, f["sha256"])] = f"{where}, {acquired.manifest_path(ds).relative_to(paths.ROOT)}"
    return out


def main(argv: list[str] | None = None) -> int:
    from compendium.pipeline.cli import safe_output

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", action="store_true", help="re-record the manifest from data/")
    args = ap.parse_args(argv)
    files = scan()
    if args.write:
        MANIFEST.write_text(json.dumps({"files": files}, indent=1, sort_keys=True) + "\n")
        print(f"recorded {len(files)} files in {MANIFEST}")
        return 0
    recorded = json.loads(MANIFEST.read_text())["files"]
    bad = [
        k
        for k in sorted(set(files) | set(recorded))
        if files.get(k, {}).get("sha256") != recorded.get(k, {}).get("sha256")
    ]
    acquisitions = _acquisitions()
    new = [k for k in bad if k in files and acquisitions.get((k, files[k]["sha256"]))]
    for k in bad:
        came = acquisitions.get((k, files.get(k, {}).get("sha256")))
        print(
            f"MISMATCH {visible(k, inline=True)}: recorded {recorded.get(k, {}).get('sha256', 'none')[:16]} "
            f"found {files.get(k, {}).get('sha256', 'missing')[:16]}" + (f" (acquired: {came})" if came else "")
        )
    print(f"{len(files) - len(bad)} of {len(recorded)} recorded files verified")
    unvouched = acquired.scan_unrecorded()
    for msg in unvouched:
        print(f"ACQUIRED {visible(msg, inline=True)}")
    if unvouched:
        print(
            f"ERROR: {len(unvouched)} acquired file(s) under data/ are not vouched for by their local manifest "
            "(acquired/<dataset>/manifest.json); accept or re-acquire them as printed.",
            file=sys.stderr,
        )
    if bad and len(new) == len(bad):
        print(
            f"ERROR: {len(bad)} raw file(s) under data/ are a new acquisition not yet accepted (each as recorded "
            "in acquired/<dataset>/manifest.json); the loaders refuse them until you accept them: review them, then "
            "`python -m compendium.data.manifest --write && dvc add data` (or go back to the recorded data with "
            "`dvc pull --force data.dvc`).",
            file=sys.stderr,
        )
    elif bad:
        print(
            f"ERROR: {len(bad)} raw file(s) under data/ differ from the recorded data (corrupt, truncated, "
            "modified, missing or unrecorded). Restore the recorded data with `dvc pull --force data.dvc`.",
            file=sys.stderr,
        )
    return 1 if bad or unvouched else 0


if __name__ == "__main__":
    sys.exit(main())
