"""Read, checksum-verify and validate raw tables.

:func:`load_table` is the one path from a file under ``data/`` to a DataFrame: it checks the file's
sha256 against ``manifest.json`` (recorded when the data were added; regenerate with
``python -m compendium.data.manifest --write`` after a deliberate refresh), parses it, and validates
it against its :class:`~compendium.data.schema.TableSpec`. Every problem raises a
:class:`~compendium.data.errors.DataError` subclass whose message names the file, the column and the
expectation.
"""
from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from .. import paths
from .errors import ChecksumError, DataValidationError, MissingDataError
from .schema import ALL_TABLES, BOOL, FLOAT, INT, LIST, STR, Column, TableSpec

MANIFEST = Path(__file__).with_name("manifest.json")


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


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
            rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
            return pd.DataFrame(rows)
        if spec.reader == "json_records":
            return pd.DataFrame(json.loads(path.read_text()))
        if spec.reader == "json_prompts":
            return pd.DataFrame(json.loads(path.read_text())["prompts"])
    except (ValueError, KeyError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise DataValidationError(f"{path}: cannot be parsed as {spec.reader}: {exc}") from exc
    raise ValueError(f"unknown reader {spec.reader!r} for table {spec.name}")


def _describe_bad(s: pd.Series, mask: np.ndarray) -> str:
    idx = np.flatnonzero(mask)
    example = s.iloc[idx[0]]
    return f"{len(idx)} row(s), first at data row {idx[0] + 1} (value {example!r})"


def _check_column(df: pd.DataFrame, col: Column, where: str) -> None:
    s = df[col.name]
    null = s.isna().to_numpy()
    if not col.nullable and null.any():
        raise DataValidationError(f"{where}: column {col.name!r}: expected no missing values, "
                                  f"found missing in {_describe_bad(s, null)}")
    v = s[~null]
    if col.kind in (INT, FLOAT):
        if col.kind == INT and not pd.api.types.is_integer_dtype(v):
            example = f" (e.g. {v.iloc[0]!r})" if len(v) else ""
            raise DataValidationError(f"{where}: column {col.name!r}: expected integers, got dtype {s.dtype}{example}")
        if col.kind == FLOAT and not pd.api.types.is_numeric_dtype(v):
            raise DataValidationError(f"{where}: column {col.name!r}: expected numbers, got dtype {s.dtype}")
        x = s.to_numpy(dtype=float, na_value=np.nan)
        bad = np.zeros(len(s), bool)
        if col.lo is not None:
            bad |= x < col.lo
        if col.hi is not None:
            bad |= x > col.hi
        if bad.any():
            raise DataValidationError(f"{where}: column {col.name!r}: expected values in "
                                      f"[{col.lo}, {col.hi}], found out-of-range {_describe_bad(s, bad)}")
    elif col.kind == BOOL:
        if not pd.api.types.is_bool_dtype(v):
            raise DataValidationError(f"{where}: column {col.name!r}: expected True/False, got dtype {s.dtype}")
    elif col.kind == STR:
        if not (pd.api.types.is_string_dtype(v) or v.map(lambda x: isinstance(x, str)).all()):
            raise DataValidationError(f"{where}: column {col.name!r}: expected text, got dtype {s.dtype}")
    elif col.kind == LIST:
        bad = ~s.map(lambda x: isinstance(x, list)).to_numpy()
        if bad.any():
            raise DataValidationError(f"{where}: column {col.name!r}: expected a list, found {_describe_bad(s, bad)}")
    if col.allowed is not None:
        bad = (~s.isin(col.allowed) & ~s.isna()).to_numpy()
        if bad.any():
            raise DataValidationError(f"{where}: column {col.name!r}: expected one of {list(col.allowed)}, "
                                      f"found {_describe_bad(s, bad)}")


def validate(df: pd.DataFrame, spec: TableSpec, where: str | None = None) -> pd.DataFrame:
    """Check ``df`` against ``spec``; raise :class:`DataValidationError` naming file, column, expectation."""
    where = where or spec.relpath
    missing = [c.name for c in spec.columns if c.name not in df.columns]
    if missing:
        raise DataValidationError(f"{where}: missing required column(s) {missing}; "
                                  f"the file has {list(df.columns)[:12]}{'...' if df.shape[1] > 12 else ''}")
    for col in spec.columns:
        _check_column(df, col, where)
    if spec.key:
        dup = df.duplicated(list(spec.key), keep=False).to_numpy()
        if dup.any():
            first = df.loc[dup, list(spec.key)].iloc[0].to_dict()
            raise DataValidationError(f"{where}: key {list(spec.key)} must be unique, found "
                                      f"{int(dup.sum())} rows sharing a key (e.g. {first})")
    if spec.expected_rows is not None and len(df) != spec.expected_rows:
        raise DataValidationError(f"{where}: expected {spec.expected_rows} rows, found {len(df)} "
                                  "(truncated or a different release?)")
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
