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

from . import acquired
from .load import MANIFEST, sha256_file

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
    for k in bad:
        print(
            f"MISMATCH {k}: recorded {recorded.get(k, {}).get('sha256', 'none')[:16]} "
            f"found {files.get(k, {}).get('sha256', 'missing')[:16]}"
        )
    print(f"{len(files) - len(bad)} of {len(recorded)} recorded files verified")
    unvouched = acquired.scan_unrecorded()
    for msg in unvouched:
        print(f"ACQUIRED {msg}")
    if unvouched:
        print(
            f"ERROR: {len(unvouched)} acquired file(s) under data/ are not vouched for by their local manifest "
            "(acquired/<dataset>/manifest.json); accept or re-acquire them as printed.",
            file=sys.stderr,
        )
    if bad:
        print(
            f"ERROR: {len(bad)} raw file(s) under data/ differ from the recorded data (corrupt, truncated, "
            "modified, missing or unrecorded). Restore the recorded data with `dvc pull --force data.dvc`.",
            file=sys.stderr,
        )
    return 1 if bad or unvouched else 0


if __name__ == "__main__":
    sys.exit(main())
