"""Fingerprint every result a stage writes, to prove that a change of code changed no number.

    python benchmarks/result_hashes.py > before.txt      (after `dvc repro`)
    ... change the code, `dvc repro` ...
    python benchmarks/result_hashes.py --compare before.txt

Prints one line per file under results/ (CSV, JSON, Parquet, text; not figures, whose PNG bytes carry
Matplotlib's metadata, and not the runner's bookkeeping under results/.*): its SHA-256 and its path. `--compare FILE` prints the
files that differ, appeared or disappeared, and exits 1 if any did. The issue-19 rule: every result CSV
and values.json byte-identical before and after a redesign, under two BLAS kernels (run with
OPENBLAS_VERBOSE=2 to see the kernel really loaded).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KINDS = {".csv", ".json", ".parquet", ".txt", ".md", ".tsv", ".yaml"}


def fingerprints(root: Path = ROOT) -> dict[str, str]:
    out = {}
    for p in sorted((root / "results").rglob("*")):
        rel = p.relative_to(root).as_posix()
        # results/.timings, .locks, .history, .staging: the runner's bookkeeping, not a stage's outputs
        if not p.is_file() or p.suffix not in KINDS or rel.startswith("results/."):
            continue
        out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--compare", type=Path, help="a file this script printed earlier")
    args = ap.parse_args(argv)
    now = fingerprints()
    if not args.compare:
        for rel, h in now.items():
            print(h, rel)
        return 0
    before = dict(reversed(line.split(maxsplit=1)) for line in args.compare.read_text().splitlines() if line)
    bad = 0
    for rel in sorted(set(before) | set(now)):
        if before.get(rel) != now.get(rel):
            bad += 1
            what = "new" if rel not in before else "gone" if rel not in now else "differs"
            print(f"{what}: {rel}")
    print(f"{len(now)} files, {bad} differ" if bad else f"{len(now)} files, all byte-identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
