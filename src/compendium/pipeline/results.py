"""Writing a stage's artifacts: ``results/<stage>/values.json``, ``tables/*.csv``, ``figures/*.png``.

Every stage writes through these functions so that the artifacts are byte-identical on a re-run:
floats in CSVs are written with a fixed number of significant digits, JSON keys are sorted, and PNGs
carry no timestamp or software metadata.

``values.json`` is one flat JSON object ``{key: value}``: a number, a list of numbers where a published
claim is itself an array (e.g. the 5x5 HAS matrix), a string for a label claim (``kind: label`` in the
register), or ``null`` for a cell whose inputs are absent. Where a value is a cell of a register table or
a published claim, its key is the id from ``published/*.yaml``. Every ``null`` is explained in
``missing.json`` (``{key: the missing input}``, :func:`write_missing`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from numbers import Number
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from compendium.pipeline import paths, studies

FLOAT_FORMAT = "%.10g"
#: values.json keeps 12 significant digits: some register claims (notebook-printed densities and p-values) carry
#: a relative tolerance of 1e-10, finer than FLOAT_FORMAT
JSON_FLOAT_FORMAT = "%.12g"


def significant(x, digits: int = 8):
    """``x`` (a number or array) rounded to ``digits`` significant digits.

    For results of an iterative optimiser (BFGS, L-BFGS-B): its last digits depend on the BLAS kernel the
    machine picks (seen: the WORKBank mixed model and the Davidson fit differ in the 10th digit between
    OpenBLAS kernels). Rounded at the source, the results -- and everything computed from them -- are the
    same bytes on every machine; every published digit is far coarser than 8 significant digits."""
    a = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        mag = np.where(np.isfinite(a) & (a != 0), np.floor(np.log10(np.abs(a))), 0)
    scale = 10.0 ** (digits - 1 - mag)
    out = np.where(np.isfinite(a) & (a != 0), np.round(a * scale) / scale, a)
    return float(out) if np.ndim(out) == 0 else out


def agreement(diff, floor: float = 1e-12, digits: int = 2):
    """An absolute difference between two computations of the same number, for a cross-check table: 0 below
    ``floor`` (agreement to floating-point precision, whose last bits vary between machines), else rounded
    to ``digits`` significant digits."""
    a = np.abs(np.asarray(diff, dtype=float))
    out = np.where(a < floor, 0.0, significant(a, digits))
    return float(out) if np.ndim(out) == 0 else out


def _clean(value: Any, key: str) -> Any:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v) or math.isinf(v):
            return None
        return float(JSON_FLOAT_FORMAT % v)
    if isinstance(value, Number):
        return value
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_clean(v, key) for v in (value.tolist() if isinstance(value, np.ndarray) else value)]
    if value is None:
        return None
    raise TypeError(
        f"values.json entry {key!r} must be a number, a string, null or a list of numbers, got {type(value).__name__}"
    )


def write_values(stage: str, values: Mapping[str, Any], root: Path | None = None) -> Path:
    """Write ``results/<stage>/values.json`` (sorted keys, numbers rounded to 12 significant digits)."""
    out = (root or paths.stage_dir(stage)) / "values.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    clean = {str(k): _clean(v, str(k)) for k, v in values.items()}
    out.write_text(json.dumps(clean, indent=1, sort_keys=True) + "\n")
    return out


def write_missing(stage: str, missing: Mapping[str, str], root: Path | None = None) -> Path:
    """Write ``results/<stage>/missing.json``: for each key published as ``null``, the input it needs
    (e.g. ``"data/pwb/results/ (per-instance scores, Hugging Face)"``)."""
    out = (root or paths.stage_dir(stage)) / "missing.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    clean = {str(k): " ".join(str(v).split()) for k, v in missing.items()}
    out.write_text(json.dumps(clean, indent=1, sort_keys=True) + "\n")
    return out


def write_exports(stage: str, values: Mapping[str, Any], root: Path | None = None) -> list[Path]:
    """Write ``results/<stage>/exports/<consumer>.json`` for every consumer of the stage's study
    (:attr:`compendium.pipeline.studies.Study.exports`; for a helper stage, its own
    :attr:`compendium.pipeline.studies.Stage.exports`): the few ``values`` keys that stage reads, as
    ``values.json`` writes them, so the consumer depends on them and not on the whole ``values.json``. A key
    the study declares but ``values`` lacks raises ``KeyError`` naming it."""
    exports = next((s.exports for s in studies.STUDIES if s.stage == stage), None)
    if exports is None:
        exports = dict(next((st.exports for st in studies.ALL_STAGES if st.name == stage), ()))
    out = []
    for consumer, keys in exports.items():
        absent = [k for k in keys if k not in values]
        if absent:
            raise KeyError(f"{stage}: the values {', '.join(absent)} that the {consumer} stage reads were not computed")
        f = (root or paths.stage_dir(stage)) / "exports" / f"{consumer}.json"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps({k: _clean(values[k], k) for k in keys}, indent=1, sort_keys=True) + "\n")
        out.append(f)
    return out


def read_export(stage: str, consumer: str, root: Path | None = None) -> dict[str, Any]:
    """The values stage ``stage`` exported for ``consumer`` (:func:`write_exports`); FileNotFoundError naming
    the command that makes them."""
    f = (root or paths.RESULTS / stage) / "exports" / f"{consumer}.json"
    if not f.exists():
        raise FileNotFoundError(f"{f} does not exist: run `dvc repro {stage}` first")
    return json.loads(f.read_text())


#: the values of the last run at the reference parameters, beside values.json (:func:`write_reference`)
REFERENCE_FILE = "reference.json"


def write_reference(stage: str, values: Mapping[str, Any], off_paper: bool, root: Path | None = None) -> Path:
    """Write ``results/<stage>/reference.json``: the stage's values at the reference parameters
    (``compendium.pipeline.params.REFERENCE``), against which an off-paper run says what moved.

    On the paper's settings (``off_paper`` false) it is this run's ``values``. Off them it is carried over
    unchanged from the last run's ``results/<stage>/reference.json`` (the live folder, which the running stage
    replaces only when it succeeds), so a chain of experiments keeps the reference of the run they started
    from; with no earlier reference (a fresh clone whose first run is off the paper) the file holds JSON
    ``null`` (the file always exists, since the claims stage depends on it), :func:`read_reference` returns
    None and the claims check says so. Returns the file written."""
    out = (root or paths.stage_dir(stage)) / REFERENCE_FILE
    out.parent.mkdir(parents=True, exist_ok=True)
    if not off_paper:
        clean = {str(k): _clean(v, str(k)) for k, v in values.items()}
        out.write_text(json.dumps(clean, indent=1, sort_keys=True) + "\n")
        return out
    last = paths.RESULTS / stage / REFERENCE_FILE
    if last.exists() and last.resolve() != out.resolve():
        out.write_bytes(last.read_bytes())
    elif not out.exists():
        out.write_text("null\n")
    return out


def read_reference(stage: str, results_dir: Path | None = None) -> dict[str, Any] | None:
    """The stage's values at the reference parameters (:func:`write_reference`) as the last successful run left
    them in ``results/<stage>/`` (``results_dir``: another results folder), or None where there are none (no
    file, or the ``null`` a first run off the paper writes)."""
    f = (Path(results_dir) if results_dir is not None else paths.RESULTS) / stage / REFERENCE_FILE
    return (json.loads(f.read_text()) or None) if f.exists() else None


def read_missing(stage: str, root: Path | None = None) -> dict[str, str]:
    """A stage's missing.json (empty if the stage wrote none)."""
    p = (root or paths.stage_dir(stage)) / "missing.json"
    return json.loads(p.read_text()) if p.exists() else {}


def read_values(stage: str, root: Path | None = None) -> dict[str, Any]:
    """Read a stage's values.json (raises FileNotFoundError naming the stage if it has not run)."""
    p = (root or paths.stage_dir(stage)) / "values.json"
    if not p.exists():
        raise FileNotFoundError(f"{p} does not exist: run `dvc repro {stage}` first")
    return json.loads(p.read_text())


def write_table(stage: str, name: str, df: pd.DataFrame, index: bool = False, root: Path | None = None) -> Path:
    """Write ``results/<stage>/tables/<name>.csv`` with a fixed float format (byte-stable)."""
    out = (root or paths.stage_dir(stage)) / "tables" / f"{name}.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(out, index=index, float_format=FLOAT_FORMAT, lineterminator="\n")
    return out


def save_figure(stage: str, name: str, fig, root: Path | None = None, dpi: int = 120) -> Path:
    """Save ``results/<stage>/figures/<name>.png`` without timestamps/software metadata."""
    return save_png((root or paths.stage_dir(stage)) / "figures" / f"{name}.png", fig, dpi=dpi)


def save_png(out: Path, fig, dpi: int = 120) -> Path:
    """Save ``fig`` as the PNG ``out`` without timestamps/software metadata (byte-stable)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=dpi, bbox_inches="tight", metadata={"Software": None})
    return out


class ValueClash(ValueError):
    """Two value dicts give one key different values; the message names each key with both values."""


def same_value(a: Any, b: Any, rtol: float = 1e-9, atol: float = 1e-12) -> bool:
    """Whether two published values agree: numbers within ``rtol`` (and ``atol`` near zero), NaN equal to
    NaN; lists element-wise with equal shape; anything else (text, None) equal as it is."""
    if isinstance(a, (list, tuple, np.ndarray)) or isinstance(b, (list, tuple, np.ndarray)):
        try:
            x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        except (TypeError, ValueError):
            return bool(np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object)))
        return x.shape == y.shape and bool(np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True))
    numbers = (int, float, np.integer, np.floating)
    if isinstance(a, numbers) and isinstance(b, numbers):
        if isinstance(a, (bool, np.bool_)) or isinstance(b, (bool, np.bool_)):
            return a == b
        fa, fb = float(a), float(b)
        return (math.isnan(fa) and math.isnan(fb)) or math.isclose(fa, fb, rel_tol=rtol, abs_tol=atol)
    return a == b


def merge_values(*dicts: Mapping[str, Any], what: str = "values", rtol: float = 1e-9, atol: float = 1e-12) -> dict:
    """The union of ``dicts``, in order. A key that more than one gives must have the same value in each
    (:func:`same_value`; the later value is kept); otherwise :class:`ValueClash` names every such key with
    the values and the position of the dicts that disagree (``what`` says what is being merged)."""
    out: dict[str, Any] = {}
    first: dict[str, int] = {}
    clashes = []
    for n, d in enumerate(dicts):
        for k, v in d.items():
            if k in out and not same_value(out[k], v, rtol, atol):
                clashes.append(f"{k}: {out[k]!r} (dict {first[k] + 1}) vs {v!r} (dict {n + 1})")
                continue
            if k not in out:
                first[k] = n
            out[k] = v
    if clashes:
        raise ValueClash(
            f"merging {what}: {len(clashes)} key(s) with different values: "
            + "; ".join(clashes[:10])
            + (f"; ... and {len(clashes) - 10} more" if len(clashes) > 10 else "")
        )
    return out
