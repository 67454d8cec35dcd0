"""Read, checksum-verify and validate raw tables.

:func:`load_table` is the one path from a file under ``data/`` to a DataFrame: it checks the file's
sha256 against ``manifest.json`` (recorded when the data were added; regenerate with
``python -m compendium.data.manifest --write`` after a deliberate refresh), parses it, and validates
it against its :class:`~compendium.data.schema.TableSpec` (through its pandera schema). Every problem raises a
:class:`~compendium.data.errors.DataError` subclass whose message names the file, the column and the
expectation.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from compendium.pipeline import paths
from compendium.pipeline.cli import quote
from compendium.pipeline.rawdata import sha256_file

from .errors import ChecksumError, DataValidationError, MissingDataError
from .schema import ALL_TABLES, INT, LIST, TableSpec, pandera_schema

MANIFEST = Path(__file__).with_name("manifest.json")


@lru_cache(maxsize=1)
def manifest() -> dict:
    """The recorded files: ``{relpath: {"sha256": ..., "bytes": ..., "rows": ...}}``."""
    return json.loads(MANIFEST.read_text())["files"]


RESTORE = "Restore the recorded raw data with `dvc pull --force data.dvc` (run from the repository root)."


@lru_cache(maxsize=256)
def _verified(path: str, mtime_ns: int, size: int, expected: str) -> bool:
    got = sha256_file(Path(path))
    if got != expected:
        raise ChecksumError(
            f"{path}: sha256 {got[:16]}... does not match the recorded {expected[:16]}... "
            f"(size {size} bytes): the file is corrupt, truncated or modified. "
            "Restore the recorded data with `dvc pull --force data.dvc` (run from the repository root)."
        )
    return True


def verify_file(relpath: str, root: Path | None = None) -> Path:
    """Return the path of ``data/<relpath>`` after checking it exists and matches its recorded sha256."""
    root = Path(root) if root is not None else paths.DATA
    path = root / relpath
    if not path.exists():
        raise MissingDataError(f"{path}: missing. {RESTORE}")
    rec = manifest().get(relpath)
    if rec is None:
        raise ChecksumError(f"{relpath}: no sha256 recorded in {MANIFEST}; refusing to use an unrecorded file")
    st = path.stat()
    _verified(str(path), st.st_mtime_ns, st.st_size, rec["sha256"])
    return path


def _read(spec: TableSpec, path: Path) -> pd.DataFrame:
    try:
        if spec.reader == "csv":
            return pd.read_csv(path, **spec.read_kwargs)
        if spec.reader == "jsonl":
            lines = path.read_text(encoding="utf-8").splitlines()
            rows = [(i, _json(line, path, i)) for i, line in enumerate(lines, start=1) if line.strip()]
            bad = next((i for i, r in rows if not isinstance(r, dict)), None)
            if bad is not None:
                raise DataValidationError(f"{path}: line {bad}: expected a JSON object (one record)")
            return pd.DataFrame([r for _, r in rows])
        if spec.reader == "json_records":
            obj = _json(path.read_text(encoding="utf-8"), path)
            if isinstance(obj, list):
                bad = next((i for i, r in enumerate(obj, start=1) if not isinstance(r, dict)), None)
                if bad is not None:
                    raise DataValidationError(f"{path}: record {bad}: expected a JSON object (one record)")
            return pd.DataFrame(obj)
        if spec.reader == "json_prompts":
            return pd.DataFrame(_json(path.read_text(encoding="utf-8"), path)["prompts"])
    except DataValidationError:
        raise
    except (ValueError, KeyError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise DataValidationError(f"{path}: cannot be parsed as {spec.reader}: {exc}") from exc
    raise ValueError(f"unknown reader {spec.reader!r} for table {spec.name}")


def _json(text: str, path: Path, line: int | None = None):
    """One JSON value of ``path`` (its ``line``, for JSON lines); invalid or too deeply nested JSON raises
    :class:`DataValidationError` naming the file and the line or position."""
    from .anomalies import parse_json

    return parse_json(text, str(path), line, error=DataValidationError)


def _describe_bad(s: pd.Series, mask: np.ndarray) -> str:
    idx = np.flatnonzero(mask)
    example = s.iloc[idx[0]]
    return f"{len(idx)} row(s), first at data row {idx[0] + 1} (value {quote(example)})"


def _rows(df: pd.DataFrame, cases: pd.DataFrame) -> np.ndarray:
    """Positional mask of the rows pandera reported in ``cases`` (its ``index`` column holds labels)."""
    return df.index.isin(cases["index"].dropna().tolist())


def _message(df: pd.DataFrame, spec: TableSpec, failures: pd.DataFrame, where: str) -> str | None:
    """The first failure, in the order a reader fixes a file: missing columns; then column by column
    (missing values, kind, range, allowed values); then the key; then the row count."""
    missing = failures.loc[failures["check"] == "column_in_dataframe", "failure_case"].tolist()
    if missing:
        order = [c.name for c in spec.columns]
        missing = sorted(missing, key=order.index)
        return f"{where}: missing required column(s) {missing}; the file has {quote(list(df.columns))}"
    checks = failures["check"].astype(str)
    for col in spec.columns:
        mine = failures[(failures["column"] == col.name) & (failures["schema_context"] == "Column")]
        if mine.empty:
            continue
        s, name = df[col.name], checks[mine.index]
        if (name == "not_nullable").any():
            return (
                f"{where}: column {col.name!r}: expected no missing values, "
                f"found missing in {_describe_bad(s, s.isna().to_numpy())}"
            )
        kind = name[name.str.startswith("kind:")]
        if len(kind):
            expected = kind.iloc[0].removeprefix("kind:")
            if col.kind == LIST:
                bad = _rows(df, mine.loc[kind.index])
                return f"{where}: column {col.name!r}: expected a list, found {_describe_bad(s, bad)}"
            v = s.dropna()
            example = f" (e.g. {quote(v.iloc[0])})" if col.kind == INT and len(v) else ""
            return f"{where}: column {col.name!r}: expected {expected}, got dtype {s.dtype}{example}"
        rng = name[name.str.startswith("in_range")]
        if len(rng):
            return (
                f"{where}: column {col.name!r}: expected values in [{col.lo}, {col.hi}], "
                f"found out-of-range {_describe_bad(s, _rows(df, mine.loc[rng.index]))}"
            )
        allowed = name[name.str.startswith("isin")]
        if len(allowed):
            return (
                f"{where}: column {col.name!r}: expected one of {list(col.allowed)}, "
                f"found {_describe_bad(s, _rows(df, mine.loc[allowed.index]))}"
            )
        return (
            f"{where}: column {col.name!r}: failed {sorted(set(name))}: {quote(mine['failure_case'].tolist(), items=5)}"
        )
    dup = failures[checks.isin(["multiple_fields_uniqueness", "field_uniqueness"])]
    if len(dup):
        mask = _rows(df, dup)
        first = df.loc[mask, list(spec.key)].iloc[0].to_dict()
        first = "{" + ", ".join(f"{k!r}: {quote(v)}" for k, v in first.items()) + "}"
        return (
            f"{where}: key {list(spec.key)} must be unique, found {int(mask.sum())} rows sharing a key (e.g. {first})"
        )
    if (checks == "rows").any():
        if spec.grid:
            return (
                f"{where}: expected at most {spec.expected_rows} rows (one per cell with a valid run), found {len(df)} "
                "(a different release?)"
            )
        return f"{where}: expected {spec.expected_rows} rows, found {len(df)} (truncated or a different release?)"
    if len(failures):
        return f"{where}: failed checks {sorted(set(checks))}"
    return None


def validate(df: pd.DataFrame, spec: TableSpec, where: str | None = None) -> pd.DataFrame:
    """Check ``df`` against ``spec`` with its pandera schema (:func:`~compendium.data.schema.pandera_schema`);
    raise :class:`DataValidationError` naming file, column and expectation for the first problem."""
    import pandera.errors

    where = where or spec.relpath
    try:
        pandera_schema(spec).validate(df, lazy=True)
    except pandera.errors.SchemaErrors as exc:
        failures = exc.failure_cases.reset_index(drop=True)
        message = _message(df, spec, failures, where)
        raise DataValidationError(message or f"{where}: {exc}") from None
    return df


def load_table(name: str, root: Path | None = None, verify: bool = True) -> pd.DataFrame:
    """Load table ``name`` (see :data:`compendium.data.schema.ALL_TABLES`) as a validated DataFrame.

    ``root`` is the data directory (default ``data/``); ``verify=False`` skips the checksum (used by
    tests that feed deliberately altered copies, and by acquisition before re-recording checksums).
    """
    try:
        spec = ALL_TABLES[name]
    except KeyError:
        raise KeyError(f"unknown table {name!r}; known: {sorted(ALL_TABLES)}") from None
    root = Path(root) if root is not None else paths.DATA
    path = verify_file(spec.relpath, root) if verify else root / spec.relpath
    if not path.exists():
        raise MissingDataError(f"{path}: missing. {RESTORE}")
    return validate(_read(spec, path), spec, where=str(path))
