"""Reading the claims check's inputs: the register ``published/<study>.yaml`` (claims, levels, tables), the
notes ``published/notes/<study>.yaml``, each study stage's ``values.json`` and ``missing.json``, and each
study's ``PROVENANCE`` (claim-id prefix -> "function (test)")."""

from __future__ import annotations

import importlib
import importlib.util
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from compendium.pipeline import paths, yamlfile

from .cells import Cell, expand_cells
from .vocab import (
    LEVELS,
    NOTE_KEYS,
    NOTE_KINDS,
    REASONS,
    RELATIONS,
    STUDIES,
    STUDY_PKG,
    STUDY_PREFIX,
    STUDY_STAGE,
    RegisterError,
    _rel,
)

# --------------------------------------------------------------------------------------------- the register


def _register_files(published_dir: Path) -> list[Path]:
    return [f for f in sorted(Path(published_dir).glob("*.yaml")) if f.name != "notes.yaml"]


_DOCS: dict[tuple[str, int, int], Any] = {}


def _yaml(f: Path):
    """``yaml.safe_load`` of ``f`` (with libyaml where available), cached by path, size and mtime."""
    st = Path(f).stat()
    key = (str(Path(f).resolve()), st.st_size, st.st_mtime_ns)
    if key not in _DOCS:
        _DOCS[key] = yamlfile.load(f)
    return _DOCS[key]


def _load_doc(f: Path) -> dict:
    doc = _yaml(f)
    if not isinstance(doc, dict) or "study" not in doc or "claims" not in doc:
        raise RegisterError(f"{_rel(f)}: expected a mapping with keys 'study' and 'claims'")
    return doc


def load_published(published_dir: Path | None = None) -> pd.DataFrame:
    """All claims of ``published/*.yaml`` as one table (one row per claim id)."""
    published_dir = Path(published_dir) if published_dir is not None else paths.PUBLISHED
    rows = []
    for f in _register_files(published_dir):
        doc = _load_doc(f)
        for i, c in enumerate(doc["claims"]):
            missing = {"id", "what", "published", "tol"} - set(c)
            if missing:
                raise RegisterError(f"{_rel(f)}: claim {i} ({c.get('id', '?')}) lacks {sorted(missing)}")
            level = c.get("level", "raw")
            if level not in LEVELS:
                raise RegisterError(f"{_rel(f)}: claim {c['id']}: level {level!r} is not one of {', '.join(LEVELS)}")
            rel = c.get("relation")
            if rel is not None and rel not in RELATIONS:
                raise RegisterError(f"{_rel(f)}: claim {c['id']}: relation {rel!r} is not one of {' '.join(RELATIONS)}")
            kind = c.get("kind")
            if kind not in (None, "label"):
                raise RegisterError(f"{_rel(f)}: claim {c['id']}: kind {kind!r} (only 'label' is known)")
            if not isinstance(c["tol"], (int, float)) or c["tol"] < 0:
                raise RegisterError(f"{_rel(f)}: claim {c['id']}: tol must be a number >= 0, got {c['tol']!r}")
            rows.append(
                {
                    "study": doc["study"],
                    "claim_id": c["id"],
                    "what": c["what"],
                    "published": c["published"],
                    "tolerance": c["tol"],
                    "source": c.get("where", ""),
                    "level": level,
                    "printed": str(c.get("printed", "")),
                    "relation": rel or "",
                    "kind": kind or "",
                    "register_note": " ".join(str(c.get("note", "")).split()),
                }
            )
    df = pd.DataFrame(
        rows,
        columns=[
            "study",
            "claim_id",
            "what",
            "published",
            "tolerance",
            "source",
            "level",
            "printed",
            "relation",
            "kind",
            "register_note",
        ],
    )
    dup = df["claim_id"].duplicated()
    if dup.any():
        raise RegisterError(f"duplicate claim ids in {_rel(published_dir)}: {sorted(df.loc[dup, 'claim_id'])}")
    return df


def register_levels(published_dir: Path | None = None) -> dict[str, dict[str, str]]:
    """``{study: {level: description}}`` from each register's ``levels:``."""
    published_dir = Path(published_dir) if published_dir is not None else paths.PUBLISHED
    out = {}
    for f in _register_files(published_dir):
        doc = _load_doc(f)
        out[doc["study"]] = {k: " ".join(str(v).split()) for k, v in (doc.get("levels") or {}).items()}
    return out


@dataclass
class RegisterTable:
    study: str
    slug: str
    label: str
    caption: str
    where: str
    rows: list[str]
    cols: list[str]
    row_labels: dict[str, str]
    col_labels: dict[str, str]
    note: str
    cells: list[Cell] = field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        """The distinct keys a stage must publish for this table (in row-major order)."""
        return list(dict.fromkeys(c.id for c in self.cells))


def load_tables(published_dir: Path | None = None) -> list[RegisterTable]:
    """Every table of the register, with the id of each printed cell (blank cells left out)."""
    published_dir = Path(published_dir) if published_dir is not None else paths.PUBLISHED
    out = []
    for f in _register_files(published_dir):
        doc = _load_doc(f)
        for t in doc.get("tables") or []:
            missing = {"slug", "rows", "cols"} - set(t)
            if missing:
                raise RegisterError(f"{_rel(f)}: table {t.get('slug', '?')} lacks {sorted(missing)}")
            out.append(
                RegisterTable(
                    study=doc["study"],
                    slug=str(t["slug"]),
                    label=str(t.get("label", t["slug"])),
                    caption=" ".join(str(t.get("caption", "")).split()),
                    where=str(t.get("where", "")),
                    rows=[str(r) for r in t["rows"]],
                    cols=[str(c) for c in t["cols"]],
                    row_labels={str(k): str(v) for k, v in (t.get("row_labels") or {}).items()},
                    col_labels={str(k): str(v) for k, v in (t.get("col_labels") or {}).items()},
                    note=" ".join(str(t.get("note", "")).split()),
                    cells=expand_cells(t, _rel(f)),
                )
            )
    return out


def missing_cell_ids(tables: list[RegisterTable], values: dict[str, dict]) -> dict[str, list[str]]:
    """``{"<study>/<table>": [ids]}``: table cells whose id (or its ``same_as`` id) is a key of no values.json."""
    keys = set().union(*[set(v) for v in values.values()]) if values else set()
    out: dict[str, list[str]] = {}
    for t in tables:
        miss = [c.id for c in t.cells if c.id not in keys and not (c.same_as and c.same_as in keys)]
        miss = list(dict.fromkeys(miss))
        if miss:
            out[f"{t.study}/{t.slug}"] = miss
    return out


# ------------------------------------------------------------------------------------------------- the notes


def _notes_files(published_dir: Path) -> list[Path]:
    d = Path(published_dir) / "notes"
    return sorted(d.glob("*.yaml")) if d.is_dir() else []


def validate_note(cid: Any, n: Any, source: str) -> dict:
    """One notes entry, checked; raises :class:`RegisterError` naming the file and the id."""
    where = f"{source}: entry {cid!r}"
    if not isinstance(cid, str) or not cid:
        raise RegisterError(f"{where}: the key must be a claim id")
    if not isinstance(n, dict):
        raise RegisterError(f"{where}: expected a mapping with kind, reason, note, evidence")
    extra = set(n) - NOTE_KEYS
    if extra:
        raise RegisterError(f"{where}: unknown key(s) {sorted(extra)}; allowed: {', '.join(sorted(NOTE_KEYS))}")
    kind = n.get("kind")
    if kind not in NOTE_KINDS:
        raise RegisterError(f"{where} needs 'kind' (differs | caveat), got {kind!r}")
    note = n.get("note")
    if not isinstance(note, str) or not note.strip():
        raise RegisterError(f"{where}: 'note' must be one or two sentences with the evidence (numbers)")
    evidence = n.get("evidence")
    if evidence is not None and (not isinstance(evidence, str) or not evidence.strip()):
        raise RegisterError(f"{where}: 'evidence' must be a Sphinx label or tests/...py::test_name")
    if kind == "differs":
        if n.get("reason") not in REASONS:
            raise RegisterError(f"{where}: reason {n.get('reason')!r} is not one of {', '.join(REASONS)}")
        if evidence is None:
            raise RegisterError(
                f"{where}: a 'differs' note needs 'evidence' (a Sphinx label in the chapter, "
                "or tests/<room>/test_x.py::test_name)"
            )
    elif "reason" in n:
        raise RegisterError(f"{where}: a 'caveat' note has no 'reason' (reasons are for kind: differs)")
    return {
        "kind": kind,
        "reason": n.get("reason", ""),
        "note": " ".join(note.split()),
        "evidence": (evidence or "").strip(),
        "file": source,
    }


def load_notes(published_dir: Path | None = None) -> dict[str, dict]:
    """All entries of ``published/notes/*.yaml``, validated (see :func:`validate_note`).

    ``notes/<study>.yaml`` may only hold ids of that study (``pwb.``, ``wb.``, ``hitl.``); an id may appear
    in one file only.
    """
    published_dir = Path(published_dir) if published_dir is not None else paths.PUBLISHED
    legacy = published_dir / "notes.yaml"
    if legacy.exists():
        raise RegisterError(
            f"{_rel(legacy)}: the notes moved to published/notes/<study>.yaml "
            "(pwb.yaml, workbank.yaml, hitl.yaml); move its entries there and delete it"
        )
    out: dict[str, dict] = {}
    for f in _notes_files(published_dir):
        src = _rel(f)
        doc = _yaml(f)
        if doc is None:
            continue
        if not isinstance(doc, dict):
            raise RegisterError(f"{src}: expected a mapping {{claim id: {{kind, reason, note, evidence}}}}")
        prefix = STUDY_PREFIX.get(f.stem)
        for cid, n in doc.items():
            entry = validate_note(cid, n, src)
            if prefix and not cid.startswith(prefix):
                raise RegisterError(
                    f"{src}: entry {cid!r} is not a {f.stem} id (expected {prefix}...); "
                    f"put it in the notes file of its study"
                )
            if cid in out:
                raise RegisterError(f"{src}: entry {cid!r} is also in {out[cid]['file']}")
            out[cid] = entry
    return out


def note_problems(notes: dict[str, dict], published: pd.DataFrame) -> list[str]:
    """Notes whose id is not a claim of the register (a typo, or a claim that was renamed)."""
    ids = set(published["claim_id"])
    return [
        f"{n['file']}: entry {cid!r} is not a claim id of the register" for cid, n in notes.items() if cid not in ids
    ]


# ------------------------------------------------------------------------------------ values and provenance


def load_values(results_dir: Path | None = None) -> dict[str, dict]:
    """``{stage: values}`` for the study stages (:data:`STUDY_STAGE`) whose ``values.json`` exists."""
    from compendium.pipeline.results import read_values

    out = {}
    for stage in sorted(set(STUDY_STAGE.values())):
        try:
            out[stage] = read_values(stage, root=None if results_dir is None else Path(results_dir) / stage)
        except FileNotFoundError:
            continue
    return out


def load_missing(results_dir: Path | None = None) -> dict[str, dict]:
    """``{stage: missing}`` from each study stage's ``missing.json`` (empty where a stage wrote none)."""
    from compendium.pipeline.results import read_missing

    return {
        stage: read_missing(stage, root=None if results_dir is None else Path(results_dir) / stage)
        for stage in sorted(set(STUDY_STAGE.values()))
    }


def _provenance_file(pkg: str) -> Path:
    return Path(__file__).resolve().parents[1] / pkg / "provenance.py"


def _study_module(pkg: str):
    """(the study's plain-data ``provenance.py`` loaded on its own, '') or (None, the problem)."""
    name = f"compendium.{pkg}.provenance"
    f = _provenance_file(pkg)
    if not f.is_file():
        return None, f"{name} does not exist yet"
    try:
        spec = importlib.util.spec_from_file_location(f"_claims_provenance_{pkg}", f)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    except Exception as exc:  # noqa: BLE001 - a broken study file must not stop the claims stage
        return None, f"{name} failed to load: {type(exc).__name__}: {exc}"
    return mod, ""


def load_provenance(studies=STUDIES) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """``({study: PROVENANCE}, {study: problem})``: the ``PROVENANCE`` dict of each study's
    ``compendium/<pkg>/provenance.py``, a plain-data module loaded on its own (not as part of its package,
    whose imports would cost the claims stage seconds). A study without the file gets ``{}`` and the problem
    "does not exist yet"; a file that fails to load, or has no dict ``PROVENANCE``, is reported, never
    raised (the claims stage must still run)."""
    prov, problems = {}, {}
    for study in studies:
        pkg = STUDY_PKG.get(study)
        if pkg is None:
            continue
        prov[study] = {}
        mod, problem = _study_module(pkg)
        if mod is None:
            problems[study] = problem
            continue
        p = getattr(mod, "PROVENANCE", None)
        if not isinstance(p, dict):
            problems[study] = f"compendium.{pkg}.provenance has no PROVENANCE dict"
            continue
        prov[study] = {str(k): str(v) for k, v in p.items()}
    return prov, problems


def load_data_files(studies=STUDIES) -> dict[str, dict[str, tuple[str, ...]]]:
    """``{study: DATA}``: the ``DATA`` dict of each study's ``provenance.py`` (id prefix -> the raw files,
    named under data/, that the claims are computed from); ``{}`` for a study whose file or dict is missing
    (:func:`load_provenance` reports the file)."""
    out = {}
    for study in studies:
        pkg = STUDY_PKG.get(study)
        if pkg is None:
            continue
        mod, _ = _study_module(pkg)
        d = getattr(mod, "DATA", None) if mod is not None else None
        out[study] = {str(k): tuple(str(f) for f in v) for k, v in d.items()} if isinstance(d, dict) else {}
    return out


def data_for(claim_id: str, data: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The raw files of the longest id prefix of ``claim_id`` in ``data`` (() if none)."""
    best = max((p for p in data if claim_id.startswith(p)), key=len, default=None)
    return data[best] if best is not None else ()


def provenance_for(claim_id: str, provenance: dict[str, str]) -> str:
    """The entry of the longest id prefix of ``claim_id`` in ``provenance`` ('' if none)."""
    best = ""
    for prefix in provenance:
        if claim_id.startswith(prefix) and len(prefix) > len(best):
            best = prefix
    return provenance[best] if best else ""


def split_provenance(text: str) -> tuple[str, str]:
    """``"compendium.x.f (tests/unit/test_x.py::test_f)"`` -> ``("compendium.x.f", "tests/...::test_f")``."""
    m = re.fullmatch(r"\s*(.*?)\s*\(([^()]*)\)\s*", text or "")
    return (m.group(1), m.group(2)) if m else ((text or "").strip(), "")
