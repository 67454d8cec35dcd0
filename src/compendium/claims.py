"""The claims check: every published number against what the pipeline computed from the raw data.

Inputs: ``published/<study>.yaml`` (claims with id, what, published value, tolerance and source),
``published/notes.yaml`` (for claims that are not reproduced: why, and which page shows the evidence)
and each stage's ``results/<stage>/values.json``. Output: one row per claim with a status:

- ``reproduced``: the stage computed the claim id and ``|reproduced - published| <= tol`` (element-wise
  for arrays);
- ``differs``: the stage computed it, outside the tolerance; ``notes.yaml`` must say why (a paper slip, a
  definition the paper leaves open) and link the page with the evidence;
- ``needs_data``: the stage could not compute it from the data here; ``notes.yaml`` names the data
  level that would (e.g. the PWB per-instance results on the Hugging Face hub).

A claim that differs or is missing *without* an explanation gets status ``unexplained``: the claims test
fails on it, so a change that breaks a reproduced number cannot pass unnoticed. A note of kind
``caveat`` never changes a status; it tells the reader how a reproduced number was obtained (e.g. a
point estimate standing in for a published bootstrap mean) and is shown beside it.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from . import paths

STUDY_STAGE = {"workbank": "workbank", "pwb": "pwb", "hitl": "preferences"}
STATUSES = ("reproduced", "differs", "needs_data", "unexplained")
COLUMNS = ["study", "claim_id", "what", "published", "reproduced", "tolerance", "status", "note", "source", "page"]
_EPS = 1e-9  # absorbs binary rounding in the comparison |a - b| <= tol


def load_published(published_dir: Path | None = None) -> pd.DataFrame:
    """All claims of ``published/*.yaml`` (except notes.yaml) as one table."""
    published_dir = Path(published_dir) if published_dir is not None else paths.PUBLISHED
    rows = []
    for f in sorted(published_dir.glob("*.yaml")):
        if f.name == "notes.yaml":
            continue
        doc = yaml.safe_load(f.read_text())
        if not isinstance(doc, dict) or "study" not in doc or "claims" not in doc:
            raise ValueError(f"{f}: expected a mapping with keys 'study' and 'claims'")
        for i, c in enumerate(doc["claims"]):
            missing = {"id", "what", "published", "tol"} - set(c)
            if missing:
                raise ValueError(f"{f}: claim {i} ({c.get('id', '?')}) lacks {sorted(missing)}")
            rows.append({"study": doc["study"], "claim_id": c["id"], "what": c["what"],
                         "published": c["published"], "tolerance": c["tol"], "source": c.get("where", "")})
    df = pd.DataFrame(rows)
    dup = df["claim_id"].duplicated()
    if dup.any():
        raise ValueError(f"duplicate claim ids in {published_dir}: {sorted(df.loc[dup, 'claim_id'])}")
    return df


def load_notes(published_dir: Path | None = None) -> dict[str, dict]:
    f = (Path(published_dir) if published_dir is not None else paths.PUBLISHED) / "notes.yaml"
    if not f.exists():
        return {}
    notes = yaml.safe_load(f.read_text()) or {}
    for cid, n in notes.items():
        if not isinstance(n, dict) or "note" not in n or n.get("kind") not in ("differs", "needs_data", "caveat"):
            raise ValueError(f"{f}: entry {cid!r} needs 'kind' (differs | needs_data | caveat) and 'note'")
    return notes


def load_values(results_dir: Path | None = None) -> dict[str, dict]:
    """``{stage: values}`` for the study stages (:data:`STUDY_STAGE`) whose ``values.json`` exists."""
    from .results import read_values

    out = {}
    for stage in sorted(set(STUDY_STAGE.values())):
        try:
            out[stage] = read_values(stage, root=None if results_dir is None else Path(results_dir) / stage)
        except FileNotFoundError:
            continue
    return out


def within_tolerance(published, reproduced, tol: float) -> bool:
    """``|reproduced - published| <= tol`` for numbers, element-wise for (nested) lists of equal shape."""
    if reproduced is None:
        return False
    a = np.asarray(published, dtype=float)
    b = np.asarray(reproduced, dtype=float)
    if a.shape != b.shape:
        return False
    if np.isnan(b).any():
        return False
    return bool(np.all(np.abs(a - b) <= tol + _EPS))


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, (list, tuple)):
        return json.dumps(v)
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return f"{v:.10g}" if isinstance(v, float) else str(v)


def check(published: pd.DataFrame, values: dict[str, dict], notes: dict[str, dict]) -> pd.DataFrame:
    """One row per claim with its status (see the module docstring)."""
    rows = []
    for c in published.itertuples(index=False):
        stage = STUDY_STAGE.get(c.study, c.study)
        stage_values = values.get(stage, {})
        rep = stage_values.get(c.claim_id)
        note = notes.get(c.claim_id, {})
        if rep is not None and within_tolerance(c.published, rep, c.tolerance):
            status, text = "reproduced", note.get("note", "") if note.get("kind") == "caveat" else ""
        elif rep is not None:
            status = "differs" if note.get("kind") == "differs" else "unexplained"
            text = note.get("note", "outside tolerance and not explained in published/notes.yaml "
                                    "(expected if a parameter was moved off the paper's setting, e.g. by dvc exp run -S)")
        else:
            status = "needs_data" if note.get("kind") == "needs_data" else "unexplained"
            text = note.get("note", f"no value {c.claim_id!r} in results/{stage}/values.json "
                                    "and no explanation in published/notes.yaml")
        rows.append({"study": c.study, "claim_id": c.claim_id, "what": c.what, "published": _fmt(c.published),
                     "reproduced": _fmt(rep), "tolerance": _fmt(c.tolerance), "status": status,
                     "note": " ".join(str(text).split()), "source": c.source, "page": note.get("page", "")})
    return pd.DataFrame(rows, columns=COLUMNS)


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Counts per study and status (all four statuses as columns, zeros included)."""
    counts = table.groupby(["study", "status"]).size().unstack(fill_value=0)
    counts = counts.reindex(columns=list(STATUSES), fill_value=0)
    counts["total"] = counts.sum(axis=1)
    return counts.reset_index()
