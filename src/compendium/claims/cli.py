"""``python -m compendium.claims``: the claims ledger's commands.

- ``diff REV``: which claims changed between a git revision and this build (:mod:`compendium.claims.diff`);
  ``diff OLD NEW``: the same comparison between two exported ledgers (``claims.json`` or ``claims.csv``),
  without a checkout;
- ``report OUT``: a replication report per study (:mod:`compendium.claims.report`);
- ``export OUT.json``: the ledger as ``claims.json`` (:mod:`compendium.claims.ledger`).

Each refuses bad input in one sentence on stderr: exit 2 for a revision or file ``diff`` cannot compare, 1 for a
ledger ``report`` or ``export`` cannot read or a folder it cannot write.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m compendium.claims", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("diff", help="claims whose value or status changed between REV and this build, or two ledgers")
    p.add_argument(
        "rev", metavar="REV", nargs="+", help="a git revision (commit, tag, branch, HEAD~3), or two claims.json files"
    )
    p.add_argument("--json", action="store_true", help="print the changes as JSON")
    p.add_argument("--recompute", action="store_true", help="reproduce REV in a temporary worktree even if cached")
    p = sub.add_parser("report", help="a replication report per study (report.md, metadata.yaml) into OUT")
    p.add_argument("out", metavar="OUT", help="the folder to write OUT/<study>/ into")
    p.add_argument("--claims", metavar="CSV", help="the ledger (default results/claims/claims.csv)")
    p = sub.add_parser("export", help="the ledger as claims.json")
    p.add_argument("out", metavar="OUT.json", help="the file to write")
    p.add_argument("--claims", metavar="CSV", help="the ledger (default results/claims/claims.csv)")
    return ap


def _print(text: str) -> None:
    try:
        print(text)
    except BrokenPipeError:  # `... | head`
        sys.stderr.close()


def _diff(args) -> int:
    from .diff import DiffError, Interrupted, diff, diff_files, render

    if len(args.rev) > 2:
        print("claims diff: give one revision, or two claims.json files (OLD NEW)", file=sys.stderr)
        return 2
    try:
        if len(args.rev) == 2:
            d = diff_files(Path(args.rev[0]), Path(args.rev[1]))
        else:
            log = lambda m: print(m, file=sys.stderr, flush=True)
            d = diff(args.rev[0], log=log, recompute_always=args.recompute)
    except KeyboardInterrupt:
        print(
            "claims diff: stopped by Ctrl-C; the temporary worktree was removed and nothing is left running.",
            file=sys.stderr,
        )
        return 130
    except Interrupted as exc:
        print(f"claims diff: {exc}; the temporary worktree was removed and nothing is left running.", file=sys.stderr)
        return exc.exit_code
    except DiffError as exc:
        print(f"claims diff: {exc}", file=sys.stderr)
        return 2
    if not args.json:
        _print(render(d))
        return 0
    doc = {
        "rev": d.rev,
        "against": d.against,
        "source": d.source,
        "compared": d.compared,
        "causes": d.causes,
        "uncovered": d.uncovered,
        "changes": [c.__dict__ | {"kind": c.kind} for c in d.changes],
    }
    _print(json.dumps(doc, indent=1, ensure_ascii=False))
    return 0


def _report(args) -> int:
    from compendium.pipeline.cli import writable_folder

    from .ledger import LedgerError, read_ledger
    from .report import ReportError, write_reports

    csv = Path(args.claims) if args.claims else None
    try:
        read_ledger(csv or _default_csv())  # a bad ledger is refused before OUT is touched
        problem = writable_folder(args.out, option="OUT")
        if problem:
            print(f"claims report: {problem}", file=sys.stderr)
            return 1
        written = write_reports(Path(args.out), csv)
    except (LedgerError, ReportError) as exc:
        print(f"claims report: {exc}", file=sys.stderr)
        return 1
    for study, folder in written.items():
        print(f"claims report: {study}: {folder / 'report.md'}, {folder / 'metadata.yaml'}")
    return 0


def _export(args) -> int:
    from .ledger import LedgerError, write_claims_json

    try:
        out = write_claims_json(Path(args.out), Path(args.claims) if args.claims else None)
    except LedgerError as exc:
        print(f"claims export: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"claims export: cannot write {args.out} ({exc.strerror}): choose another OUT.json", file=sys.stderr)
        return 1
    print(f"claims export: {out}")
    return 0


def _default_csv() -> Path:
    from compendium.pipeline import paths

    return paths.RESULTS / "claims" / "claims.csv"


def main(argv: list[str] | None = None) -> int:
    from compendium.pipeline.cli import safe_output

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError
    args = _parser().parse_args(argv)
    return {"diff": _diff, "report": _report, "export": _export}[args.cmd](args)
