"""The claims ledger as others read it: ``results/claims/claims.csv`` read with one-sentence errors, and its
machine-readable export ``claims.json`` (one record per claim, citable by id, comparable without a checkout).

``claims.json`` holds a header and the records::

    {"schema_version": 1, "generated_from": "results/claims/claims.csv", "commit": "<sha or null>",
     "count": 1750, "claims": [{"id": ..., "study": ..., "what": ..., "published": ..., "reproduced": ...,
     "status": ..., "reason": ..., "evidence": ..., "code": ..., "data": [...], "commit": ...}, ...]}

``code`` is the ledger's ``provenance`` column (the function and test that compute the value), ``data`` its
``data`` column split into the files it names, ``commit`` the checkout's ``git rev-parse HEAD`` when the export
was made (null outside a git checkout). A number is written as a JSON number, an empty cell as null, anything
else (a label, an array as printed) as text. The file carries no time stamp, so one ledger exports to the same
bytes.
"""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import pandas as pd

from compendium.pipeline import paths
from compendium.pipeline.cli import quote

from .vocab import _rel  # a path as the messages name it (relative to the checkout)

SCHEMA_VERSION = 1
#: the columns a report or an export reads; a ledger without one of them is refused, naming it
NEEDED = ("study", "claim_id", "what", "published", "printed", "reproduced", "status", "reason", "evidence")
#: record field -> claims.csv column, in the order of a record
RECORD_FIELDS = {
    "id": "claim_id",
    "study": "study",
    "what": "what",
    "published": "published",
    "reproduced": "reproduced",
    "status": "status",
    "reason": "reason",
    "evidence": "evidence",
    "code": "provenance",
    "data": "data",
}


class LedgerError(ValueError):
    """A ledger (claims.csv or claims.json) cannot be read: the message names the file and what to do."""


def read_ledger(csv: Path) -> pd.DataFrame:
    """``claims.csv`` as text columns (empty cells ''), or :class:`LedgerError` in one sentence naming the file:
    missing, unreadable, or without a column the report needs."""
    csv = Path(csv)
    if not csv.is_file():
        raise LedgerError(
            f"{_rel(csv)} does not exist: give the path of a claims.csv, or run `dvc repro claims` to write "
            "results/claims/claims.csv"
        )
    try:
        df = pd.read_csv(csv, dtype=str, keep_default_na=False)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        why = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise LedgerError(
            f"{_rel(csv)} cannot be read as a CSV ({why}): run `dvc repro claims` to rewrite it"
        ) from None
    missing = [c for c in NEEDED if c not in df.columns]
    if missing:
        raise LedgerError(
            f"{_rel(csv)} has no column {quote(missing[0])}: it is not a claims ledger of this version; "
            "run `dvc repro claims` to rewrite it"
        )
    return df


def git_commit(root: Path | None = None) -> str | None:
    """The checkout's ``git rev-parse HEAD``, or None outside a git checkout (an unpacked archive)."""
    try:
        r = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", "HEAD"],
            cwd=root or paths.ROOT,
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    sha = r.stdout.strip()
    return sha if r.returncode == 0 and sha else None


def json_value(text: str):
    """A ledger cell as a JSON value: '' -> None, a finite number -> int or float, anything else as text."""
    if text == "":
        return None
    try:
        x = float(text)
    except ValueError:
        return text
    if not math.isfinite(x):
        return text
    return int(x) if x.is_integer() and text.lstrip("+-").isdigit() else x


def _record(row: dict, commit: str | None) -> dict:
    rec = {}
    for field, col in RECORD_FIELDS.items():
        v = row.get(col, "")
        if field == "data":
            rec[field] = [p.strip() for p in v.split(";") if p.strip()]
        elif field in ("published", "reproduced"):
            rec[field] = json_value(v)
        else:
            rec[field] = v or None
    rec["commit"] = commit
    return rec


def ledger_json(claims: pd.DataFrame, source: str, commit: str | None) -> dict:
    """The ``claims.json`` document of a ledger: the header (schema version, the file it was made from, the
    commit, the count) and one record per claim, in the ledger's order."""
    records = [_record(r, commit) for r in claims.to_dict("records")]
    return {
        "schema_version": SCHEMA_VERSION,
        "generated_from": source,
        "commit": commit,
        "count": len(records),
        "claims": records,
    }


def write_claims_json(
    out: Path,
    csv: Path | None = None,
    commit: str | None = None,
    *,
    record_commit: bool = True,
    source: str | None = None,
) -> Path:
    """Export ``csv`` (default ``results/claims/claims.csv``) to ``out`` as ``claims.json``, byte-stable; the
    commit is this checkout's HEAD unless given, and null with ``record_commit=False`` (the claims stage's copy,
    which the book publishes: a stage output must not depend on the checkout's commit). ``source``: the ledger's
    name in the header (default: ``csv`` relative to the checkout; the stage writes it aside before the swap)."""
    csv = Path(csv) if csv is not None else paths.RESULTS / "claims" / "claims.csv"
    if not record_commit:
        commit = None
    elif commit is None:
        commit = git_commit()
    doc = ledger_json(read_ledger(csv), source or _rel(csv), commit)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return out


def _text(v) -> str:
    return "" if v is None else str(v)


def read_claims_json(path: Path) -> dict[str, dict[str, str]]:
    """claim id -> row (``claim_id``, ``study``, ``reproduced``, ``status`` as text, the shape of a
    ``claims.csv`` row that :func:`compendium.claims.diff.compare` compares) of an exported ``claims.json``;
    :class:`LedgerError` in one sentence naming the file, the record and the field otherwise."""
    path = Path(path)
    name = _rel(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LedgerError(f"{name} does not exist: give the path of an exported claims.json") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        why = " ".join(str(exc).split())[:200]
        raise LedgerError(f"{name} is not a readable JSON file ({why}): export it again") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("claims"), list):
        raise LedgerError(f"{name} has no list 'claims': it is not an exported claims.json")
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise LedgerError(
            f"{name} has schema_version {quote(doc.get('schema_version'))}, this version reads {SCHEMA_VERSION}: "
            "export it again with this version"
        )
    out = {}
    for i, rec in enumerate(doc["claims"]):
        for field in ("id", "study", "status"):
            if not isinstance(rec, dict) or not isinstance(rec.get(field), str) or not rec.get(field):
                raise LedgerError(f"{name}, record {i}: field '{field}' is missing or not text: export it again")
        out[rec["id"]] = {
            "claim_id": rec["id"],
            "study": rec["study"],
            "reproduced": _text(rec.get("reproduced")),
            "status": rec["status"],
        }
    return out


def read_any(path: Path) -> dict[str, dict[str, str]]:
    """claim id -> row of an exported ``claims.json``, or of a ``claims.csv`` (the file's suffix says which)."""
    path = Path(path)
    if path.suffix.lower() == ".csv":
        return {r["claim_id"]: r for r in read_ledger(path).to_dict("records")}
    return read_claims_json(path)
