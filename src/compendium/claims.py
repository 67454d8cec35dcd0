"""The claims check: every number the three sources print, against what the pipeline computed from the data.

Inputs
------
- the register ``published/{pwb,workbank,hitl}.yaml``: ``claims`` (id, what, published, tol, where, level,
  printed, note, relation, kind) and ``tables`` (rows, cols, id_pattern, existing_ids, blank_cells, same_as);
- the notes ``published/notes/<study>.yaml``: why a claim that the pipeline computes differs from the
  paper (``kind: differs`` with a ``reason`` of a fixed kind and its ``evidence``), or how a reproduced
  number was obtained (``kind: caveat``);
- each study stage's ``results/<stage>/values.json`` (a flat ``{id: value}``; variants as
  ``<id>.variant.<slug>``, Monte-Carlo standard errors as ``<id>.mc_se``) and ``missing.json`` (for each
  ``null``, the input it needs);
- ``compendium.<pkg>.register.PROVENANCE`` (id prefix -> "function (test)"), where the module exists.

Statuses (one per claim)
------------------------
- ``reproduced``: the stage published a value and it matches the paper: ``|ours - paper| <= tol``
  (element-wise for arrays), the ``relation`` holds (:func:`relation_holds`), or for ``kind: label`` the
  text is equal after case and white space are normalised (:func:`same_label`);
- ``differs``: it does not match, and ``published/notes/<study>.yaml`` explains it with one of
  :data:`REASONS`. Two reasons are checked, not only stated: ``monte_carlo`` holds only while
  ``|ours - paper| <= 3 x <id>.mc_se`` (the Monte-Carlo standard error the stage computed), and
  ``rounding_boundary`` only while the gap is at most one printed unit (``2 x tol``);
- ``needs_data``: no value, and the claim's ``level`` says why: ``per_instance`` / ``row_level`` (the
  data are not released here), or ``outside`` with the missing external file named in ``missing.json``;
- ``quoted``: no value and ``level: none`` (a design constant or a statement with no data behind it). A
  ``none`` claim whose value the project's inputs hold (published by the stage) is checked like any other;
- ``off_paper``: the run is off the paper's settings for this claim's study (a key of the study stage's
  ``params.yaml`` section differs from its reference, ``compendium.params.REFERENCE``) and the value does not
  match: it is not expected to (the changed keys are named in the note);
- ``unexplained``: everything else -- a computed value that misses without a valid note, a ``raw`` claim
  the stage did not compute, an ``outside`` claim with no value and no file named. The claims test fails on
  any; off the paper's parameters (``dvc exp run -S ...``) the stage still runs and reports them.

Variants (``<id>.variant.<slug>``) are shown beside their claim and never compared.
"""

from __future__ import annotations

import importlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import paths, safetext, yamlfile

STUDIES = ("pwb", "workbank", "hitl")
STUDY_STAGE = {"workbank": "workbank", "pwb": "pwb", "hitl": "preferences"}
STUDY_PKG = {"pwb": "pwb", "workbank": "workbank", "hitl": "preferences"}
STUDY_PREFIX = {"pwb": "pwb.", "workbank": "wb.", "hitl": "hitl."}
STUDY_NAME = {"pwb": "Pro-Worker AI Benchmark", "workbank": "WORKBank", "hitl": "Human preferences"}
STATUSES = ("reproduced", "differs", "needs_data", "quoted", "off_paper", "unexplained")
LEVELS = ("raw", "outside", "per_instance", "row_level", "none")
RELATIONS = ("<", ">", "≤", "≥", "≈")
REASONS = {
    "paper_slip": "paper slip (the paper contradicts its own data or code)",
    "stale_table": "stale table (printed from an earlier run or version)",
    "rounding_boundary": "rounding boundary (ours and the paper's straddle a rounding edge)",
    "monte_carlo": "Monte-Carlo noise (within 3 Monte-Carlo standard errors computed by the code)",
    "method_open": "method detail the paper leaves open",
}
NOTE_KINDS = ("differs", "caveat")
NOTE_KEYS = {"kind", "reason", "note", "evidence"}
# what the reader sees for each status: a symbol and a word (never colour alone)
MARK = {
    "reproduced": ("✓", "reproduced"),
    "differs": ("≠", "differs"),
    "needs_data": ("∅", "needs data"),
    "quoted": ("“", "quoted"),
    "off_paper": ("⇄", "off-paper run"),
    "unexplained": ("✗", "unexplained"),
}
NO_CLAIM = ("·", "no claim")
STALE = "(the differs note in"
VARIANT = ".variant."
MC_SE = ".mc_se"
MC_SIGMAS = 3.0
# "≈": the relative half-width of "approximately" (see approx_equal)
APPROX_REL = 0.05
APPROX_DECADES = 0.5
_EPS = (
    1e-9  # relative: absorbs binary rounding in |a - b| <= tol (scaled, so that p-values of 1e-95 keep their meaning)
)


def _eps(a, b):
    return _EPS * np.maximum(np.abs(a), np.abs(b))


COLUMNS = [
    "study",
    "claim_id",
    "level",
    "what",
    "source",
    "printed",
    "published",
    "reproduced",
    "tolerance",
    "relation",
    "kind",
    "status",
    "reason",
    "note",
    "evidence",
    "gap",
    "mc_se",
    "variants",
    "provenance",
    "register_note",
    "table",
    "row",
    "col",
]


class RegisterError(ValueError):
    """The register or a notes file is malformed; the message names the file and the id."""


def _rel(p: Path) -> str:
    try:
        return str(Path(p).resolve().relative_to(paths.ROOT))
    except ValueError:
        return str(p)


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


@dataclass(frozen=True)
class Cell:
    row: str
    col: str
    id: str
    index: tuple[int, int] | None = None  # element of a whole-table claim (existing_ids '*')
    same_as: str | None = None  # another claim that prints the same number


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


def _table_cells(t: dict, source: str) -> list[Cell]:
    slug = t.get("slug", "?")
    rows, cols = [str(r) for r in t["rows"]], [str(c) for c in t["cols"]]
    keys = {f"{r}.{c}" for r in rows for c in cols}
    existing = {str(k): v for k, v in (t.get("existing_ids") or {}).items()}
    blank = {str(b) for b in (t.get("blank_cells") or [])}
    same = {str(k): v for k, v in (t.get("same_as") or {}).items()}
    for what, ks in (("existing_ids", set(existing) - {"*"}), ("blank_cells", blank), ("same_as", set(same))):
        bad = sorted(ks - keys)
        if bad:
            raise RegisterError(
                f"{source}: table {slug}: {what} names cells that are not row.col of the table: {bad[:5]}"
            )
    pattern = str(t.get("id_pattern", ""))
    templated = "{row}" in pattern or "{col}" in pattern
    whole = existing.get("*")
    cells = []
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            key = f"{r}.{c}"
            if key in blank:
                continue
            index = None
            if key in existing:
                cid = existing[key]
            elif whole:
                cid, index = whole, (i, j)
            elif templated:
                cid = pattern.format(row=r, col=c)
            else:
                raise RegisterError(
                    f"{source}: table {slug}: cell {key} has no id (id_pattern {pattern!r} has no "
                    "{row}/{col} and existing_ids does not name the cell)"
                )
            cells.append(Cell(r, c, cid, index, same.get(key)))
    return cells


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
                    cells=_table_cells(t, _rel(f)),
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
                "or tests/unit/test_x.py::test_name)"
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
    from .results import read_values

    out = {}
    for stage in sorted(set(STUDY_STAGE.values())):
        try:
            out[stage] = read_values(stage, root=None if results_dir is None else Path(results_dir) / stage)
        except FileNotFoundError:
            continue
    return out


def load_missing(results_dir: Path | None = None) -> dict[str, dict]:
    """``{stage: missing}`` from each study stage's ``missing.json`` (empty where a stage wrote none)."""
    from .results import read_missing

    return {
        stage: read_missing(stage, root=None if results_dir is None else Path(results_dir) / stage)
        for stage in sorted(set(STUDY_STAGE.values()))
    }


def _literal_provenance(path: Path) -> dict | None:
    """``PROVENANCE`` of a module read without importing it (None if it is not a plain dict of strings).

    Besides literals, the strings may use module-level string constants by name, in f-strings or with
    ``+`` (``f"compendium.x.f ({T}::test_f)"`` with ``T = "tests/unit/test_x.py"``)."""
    import ast

    try:
        tree = ast.parse(path.read_text())
    except (OSError, SyntaxError):
        return None
    consts: dict[str, str] = {}

    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name) and node.id in consts:
            return consts[node.id]
        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                if isinstance(v, ast.FormattedValue):
                    if v.format_spec is not None or v.conversion != -1:
                        raise ValueError("formatted value")
                    parts.append(value(v.value))
                else:
                    parts.append(value(v))
            return "".join(parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return value(node.left) + value(node.right)
        if isinstance(node, ast.Dict):
            return {value(k): value(v) for k, v in zip(node.keys, node.values)}
        raise ValueError(f"not a plain string: {ast.dump(node)[:60]}")

    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, rhs = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, rhs = [node.target], node.value
        else:
            continue
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if "PROVENANCE" in names:
            try:
                out = value(rhs)
            except (ValueError, TypeError, KeyError):
                return None
            return out if isinstance(out, dict) else None
        if len(names) == 1:
            try:
                v = value(rhs)
            except (ValueError, TypeError, KeyError):
                continue
            if isinstance(v, str):
                consts[names[0]] = v
    return None


def load_provenance(studies=STUDIES) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """``({study: PROVENANCE}, {study: problem})`` from ``compendium.<pkg>.register``.

    A literal ``PROVENANCE`` dict is read from the module's source without importing the study package
    (fast); otherwise the module is imported. A study whose register module does not exist yet gets ``{}``
    and the problem "does not exist yet"; a module that fails to import is reported, never raised (the
    claims stage must still run)."""
    prov, problems = {}, {}
    for study in studies:
        pkg = STUDY_PKG.get(study)
        if pkg is None:
            continue
        name = f"compendium.{pkg}.register"
        src = Path(__file__).resolve().parent / pkg / "register.py"
        if not src.exists():
            prov[study], problems[study] = {}, f"{name} does not exist yet"
            continue
        p = _literal_provenance(src)
        if p is None:
            try:
                mod = importlib.import_module(name)
            except ModuleNotFoundError as exc:
                if exc.name in (name, f"compendium.{pkg}"):
                    prov[study], problems[study] = {}, f"{name} does not exist yet"
                    continue
                prov[study], problems[study] = {}, f"{name} failed to import: {exc}"
                continue
            except Exception as exc:  # noqa: BLE001 - a broken study module must not stop the claims stage
                prov[study], problems[study] = {}, f"{name} failed to import: {type(exc).__name__}: {exc}"
                continue
            p = getattr(mod, "PROVENANCE", None)
        if not isinstance(p, dict):
            prov[study], problems[study] = {}, f"{name} has no PROVENANCE dict"
            continue
        prov[study] = {str(k): str(v) for k, v in p.items()}
    return prov, problems


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


# ------------------------------------------------------------------------------------------------ comparing


def within_tolerance(published, reproduced, tol: float) -> bool:
    """``|reproduced - published| <= tol`` for numbers, element-wise for (nested) lists of equal shape."""
    if reproduced is None:
        return False
    try:
        a = np.asarray(published, dtype=float)
        b = np.asarray(reproduced, dtype=float)
    except (TypeError, ValueError):
        return False
    if a.shape != b.shape or np.isnan(b).any():
        return False
    return bool(np.all(np.abs(a - b) <= tol + _eps(a, b)))


def _is_power_of_ten_token(printed: str) -> bool:
    return bool(re.fullmatch(r"\s*\$?\s*10\s*\^\s*\{?\s*[-−]?\d+\s*\}?\s*\$?\s*", printed or ""))


def _bound_and_values(published, value):
    """(published, value) as float arrays for a relation, or None if not comparable. A single printed
    bound applies to each element of a list of values ("all seven models p < 10^-3")."""
    if value is None or isinstance(value, str):
        return None
    try:
        a = np.asarray(published, dtype=float)
        b = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    if a.ndim == 0 and b.ndim > 0 and b.size:
        a = np.broadcast_to(a, b.shape)
    if a.shape != b.shape or np.isnan(b).any():
        return None
    return a, b


def approx_equal(published, value, tol: float = 0.0, printed: str = "") -> bool:
    """``value ≈ published``, as the register's ``relation: ≈`` ("about", "~", "roughly") is read here.

    - A power of ten printed as such (``10^{-95}``) is an order of magnitude: ``|log10 value - log10
      published| <= 0.5`` (both positive), i.e. the value rounds to that power in log scale.
    - Otherwise ``|value - published| <= max(tol, 0.05 * |published|)``: within 5 % of the printed number
      (or the claim's tolerance, if wider). "~47" holds for 47.9 (a truncation, 1.9 % off) and fails for
      50 (6.4 %).
    """
    ab = _bound_and_values(published, value)
    if ab is None:
        return False
    a, b = ab
    if _is_power_of_ten_token(printed):
        if (a <= 0).any() or (b <= 0).any():
            return False
        return bool(np.all(np.abs(np.log10(b) - np.log10(a)) <= APPROX_DECADES + _EPS))
    width = np.maximum(tol, APPROX_REL * np.abs(a))
    return bool(np.all(np.abs(b - a) <= width + _eps(a, b)))


def relation_holds(relation: str, value, published, tol: float = 0.0, printed: str = "") -> bool:
    """Whether ``value <relation> published`` holds, element-wise for arrays (a single printed bound
    applies to every element of a list of values: "all seven models p < 10^-3").

    The printed bound carries its own rounding, so the tolerance widens it on the side the relation
    allows: ``<``: value < published + tol; ``≤``: value <= published + tol; ``>``: value > published - tol;
    ``≥``: value >= published - tol (with tol = 0 these are the plain relations; ``≤``/``≥`` absorb binary
    rounding). ``≈``: :func:`approx_equal`.
    """
    if relation == "≈":
        return approx_equal(published, value, tol, printed)
    ab = _bound_and_values(published, value)
    if ab is None:
        return False
    a, b = ab
    if relation == "<":
        ok = b < a + tol
    elif relation == "≤":
        ok = b <= a + tol + _eps(a, b)
    elif relation == ">":
        ok = b > a - tol
    elif relation == "≥":
        ok = b >= a - tol - _eps(a, b)
    else:
        raise ValueError(f"unknown relation {relation!r}; expected one of {' '.join(RELATIONS)}")
    return bool(np.all(ok))


def normalise_label(text) -> str:
    return " ".join(str(text).split()).casefold()


def same_label(published, value) -> bool:
    """Label claims (``kind: label``): equal text after case folding and collapsing white space."""
    return value is not None and normalise_label(published) == normalise_label(value)


def matches(published, value, tol: float, relation: str = "", kind: str = "", printed: str = "") -> bool:
    """Whether ``value`` reproduces the claim (label, relation or tolerance, in that order)."""
    if value is None:
        return False
    if kind == "label":
        return same_label(published, value)
    if isinstance(value, str):
        return False
    if relation:
        return relation_holds(relation, value, published, tol, printed)
    return within_tolerance(published, value, tol)


def gap(published, value) -> float | None:
    """``max |value - published|`` over elements (None for labels, shape mismatches or no value)."""
    if value is None or isinstance(value, str) or isinstance(published, str):
        return None
    try:
        a = np.asarray(published, dtype=float)
        b = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    if a.shape != b.shape or np.isnan(b).any():
        return None
    return float(np.max(np.abs(a - b))) if a.size else 0.0


def _mc_gate(published, value, mc_se) -> tuple[bool, str]:
    """The Monte-Carlo reason holds while every |gap| <= 3 x mc_se (element-wise for arrays)."""
    if mc_se is None:
        return False, "no Monte-Carlo standard error published (<id>.mc_se)"
    try:
        a, b = np.asarray(published, dtype=float), np.asarray(value, dtype=float)
        se = np.broadcast_to(np.asarray(mc_se, dtype=float), a.shape)
    except (TypeError, ValueError):
        return False, f"<id>.mc_se = {mc_se!r} does not fit the claim's shape"
    if a.shape != b.shape or np.isnan(se).any():
        return False, "the value or <id>.mc_se is missing or misshapen"
    g = np.abs(a - b)
    if bool(np.all(g <= MC_SIGMAS * se + _eps(a, b))):
        return True, ""
    return False, (f"|gap| {float(np.max(g)):.4g} exceeds 3 Monte-Carlo standard errors (3 x {float(np.max(se)):.4g})")


# ---------------------------------------------------------------------------------------------------- check


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, (list, tuple)):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return f"{v:.10g}" if isinstance(v, float) else str(v)


def _index_suffixed(values: dict) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    variants: dict[str, dict[str, Any]] = {}
    mc: dict[str, Any] = {}
    for k, v in values.items():
        if VARIANT in k:
            base, _, slug = k.partition(VARIANT)
            variants.setdefault(base, {})[slug] = v
        elif k.endswith(MC_SE):
            mc[k[: -len(MC_SE)]] = v
    return variants, mc


def check(
    published: pd.DataFrame,
    values: dict[str, dict],
    notes: dict[str, dict],
    missing: dict[str, dict] | None = None,
    provenance: dict[str, dict[str, str]] | None = None,
    tables: list[RegisterTable] | None = None,
    levels: dict[str, dict[str, str]] | None = None,
    off_paper: dict[str, list[str]] | None = None,
) -> pd.DataFrame:
    """One row per claim with its status (see the module docstring); columns :data:`COLUMNS`.

    ``values``/``missing``: ``{stage: {id: ...}}``; ``notes``: :func:`load_notes`; ``provenance``:
    ``{study: PROVENANCE}``; ``tables``: to mark which claims are table cells; ``levels``: the register's
    level descriptions (the text shown for a needs-data claim when ``missing.json`` names nothing);
    ``off_paper``: ``{study: ["section.key=value (reference ...)", ...]}`` for the studies run off the paper's
    settings (:func:`off_paper_studies`): their computed claims that miss get ``off_paper``.
    The raw published and computed values are kept in the columns ``_published`` and ``_ours``.
    """
    missing = missing or {}
    provenance = provenance or {}
    levels = levels or {}
    where_cell: dict[str, tuple[str, str, str]] = {}
    for t in tables or []:
        for c in t.cells:
            where_cell.setdefault(c.id, (t.slug, c.row if c.index is None else "*", c.col if c.index is None else "*"))
    index = {stage: _index_suffixed(v) for stage, v in values.items()}
    rows = []
    for c in published.itertuples(index=False):
        level = getattr(c, "level", "raw") or "raw"
        relation = getattr(c, "relation", "") or ""
        kind = getattr(c, "kind", "") or ""
        printed = getattr(c, "printed", "") or ""
        stage = STUDY_STAGE.get(c.study, c.study)
        vals = values.get(stage, {})
        variants, mcs = index.get(stage, ({}, {}))
        miss = missing.get(stage, {})
        cid = c.claim_id
        ours = vals.get(cid)
        note = notes.get(cid, {})
        reason = evidence = ""
        g = gap(c.published, ours)
        if ours is not None:
            if matches(c.published, ours, c.tolerance, relation, kind, printed):
                status = "reproduced"
                text = note.get("note", "") if note.get("kind") == "caveat" else ""
                evidence = note.get("evidence", "") if note.get("kind") == "caveat" else ""
                if note.get("kind") == "differs":
                    text = f"{STALE} {note['file']} is no longer needed: the value reproduces)"
            elif note.get("kind") == "differs":
                reason, evidence, text = note["reason"], note["evidence"], note["note"]
                status = "differs"
                if reason == "monte_carlo":
                    ok, why = _mc_gate(c.published, ours, mcs.get(cid))
                    if not ok:
                        status, text = "unexplained", f"monte_carlo note, but {why}. Note: {text}"
                elif reason == "rounding_boundary" and (g is None or g > 2 * c.tolerance * (1 + _EPS) + _EPS * abs(g)):
                    status = "unexplained"
                    text = (
                        f"rounding_boundary note, but the gap {_fmt(g) or '(n/a)'} exceeds one printed unit "
                        f"(2 x tol = {2 * c.tolerance:.4g}). Note: {text}"
                    )
            else:
                status = "unexplained"
                why = (
                    "the relation does not hold"
                    if relation
                    else "the label differs"
                    if kind == "label"
                    else "outside the tolerance"
                )
                text = (
                    f"{why} and no differs note in published/notes/{c.study}.yaml (expected if a parameter "
                    "was moved off the paper's setting, e.g. by dvc exp run -S)"
                )
        elif level in ("per_instance", "row_level"):
            status = "needs_data"
            text = miss.get(cid) or levels.get(c.study, {}).get(level, level.replace("_", "-") + " data")
        elif level == "none":
            status = "quoted"
            text = (
                "a design constant or a statement with no released data behind it; quoted, "
                "checked only where the project's inputs hold it"
            )
        elif level == "outside" and miss.get(cid):
            status, text = "needs_data", miss[cid]
        else:
            status = "unexplained"
            if cid not in vals:
                text = f"not a key of results/{stage}/values.json"
            else:
                text = f"null in results/{stage}/values.json" + (f" (missing.json: {miss[cid]})" if cid in miss else "")
            text += (
                " but the claim's level is 'outside': name the missing external file in missing.json"
                if level == "outside"
                else " but the claim's level is 'raw': the released files determine it"
            )
        changed = (off_paper or {}).get(c.study)
        if changed and ours is not None and status in ("differs", "unexplained"):
            status, reason, evidence = "off_paper", "", ""
            text = "off the paper's settings, so the paper's value is not expected: " + "; ".join(changed)
        var = variants.get(cid, {})
        t_slug, t_row, t_col = where_cell.get(cid, ("", "", ""))
        rows.append(
            {
                "study": c.study,
                "claim_id": cid,
                "level": level,
                "what": c.what,
                "source": c.source,
                "printed": printed,
                "published": _fmt(c.published),
                "reproduced": _fmt(ours),
                "tolerance": _fmt(c.tolerance),
                "relation": relation,
                "kind": kind,
                "status": status,
                "reason": reason,
                "note": " ".join(str(text).split()),
                "evidence": evidence,
                "gap": "" if g is None else _fmt(g),
                "mc_se": _fmt(mcs.get(cid)),
                "variants": json.dumps(var, sort_keys=True, ensure_ascii=False) if var else "",
                "provenance": provenance_for(cid, provenance.get(c.study, {})),
                "register_note": getattr(c, "register_note", "") or "",
                "table": t_slug,
                "row": t_row,
                "col": t_col,
                "_published": c.published,
                "_ours": ours,
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS + ["_published", "_ours"])


def summary(table: pd.DataFrame, by: tuple[str, ...] = ("study", "level"), totals: bool = True) -> pd.DataFrame:
    """Counts of each status (all of :data:`STATUSES` as columns, zeros included) per ``by`` group, with a
    ``total`` column; ``totals`` adds one 'all' row per study (when grouping by study and level) and a
    grand total."""
    by = list(by)
    counts = table.groupby(by).status.value_counts().unstack(fill_value=0)
    counts = counts.reindex(columns=list(STATUSES), fill_value=0)
    counts["total"] = counts.sum(axis=1)
    out = counts.reset_index()
    if totals:
        parts = []
        if by == ["study", "level"]:
            order = {s: i for i, s in enumerate(STUDIES)}
            lorder = {lv: i for i, lv in enumerate(LEVELS)}
            for study, grp in sorted(out.groupby("study"), key=lambda kv: order.get(kv[0], 99)):
                grp = grp.sort_values("level", key=lambda s: s.map(lambda v: lorder.get(v, 99)))
                tot = grp[list(STATUSES) + ["total"]].sum()
                parts += [grp, pd.DataFrame([{"study": study, "level": "all", **tot.to_dict()}])]
            out = pd.concat(parts, ignore_index=True)
        grand = counts[list(STATUSES) + ["total"]].sum()
        out = pd.concat(
            [out, pd.DataFrame([{by[0]: "all", **({b: "" for b in by[1:]}), **grand.to_dict()}])], ignore_index=True
        )
    for s in list(STATUSES) + ["total"]:
        out[s] = out[s].astype(int)
    return out


# ------------------------------------------------------------------------------------ changes between runs


def previous_claims_csv(results_dir: Path | None = None) -> Path | None:
    """The claims CSV of the last successful run (``results/claims/claims.csv``; before the register of
    1,750 claims it was ``results/claims/tables/claims.csv``), or None on a first run.

    While the stage runs, its new artifacts go to a staging folder, so ``results/claims/`` still holds the
    last run's files."""
    root = Path(results_dir) if results_dir is not None else paths.RESULTS
    for p in (root / "claims" / "claims.csv", root / "claims" / "tables" / "claims.csv"):
        if p.exists():
            return p
    return None


def read_statuses(csv: Path | None) -> dict[str, str] | None:
    if csv is None or not Path(csv).exists():
        return None
    df = pd.read_csv(csv, usecols=["claim_id", "status"], dtype=str, keep_default_na=False)
    return dict(zip(df["claim_id"], df["status"]))


def status_changes(previous: dict[str, str] | None, table: pd.DataFrame) -> pd.DataFrame:
    """Claims whose status changed since the last run: columns claim_id, study, before, after.

    ``before`` is '' for a claim the last run did not have; claims the register no longer has get
    ``after`` = '(removed)'. Empty on a first run (no previous file)."""
    cols = ["claim_id", "study", "before", "after"]
    if previous is None:
        return pd.DataFrame(columns=cols)
    rows = []
    now = dict(zip(table["claim_id"], table["status"]))
    study = dict(zip(table["claim_id"], table["study"]))
    for cid, st in now.items():
        if previous.get(cid, "") != st:
            rows.append({"claim_id": cid, "study": study[cid], "before": previous.get(cid, ""), "after": st})
    for cid, st in previous.items():
        if cid not in now:
            rows.append({"claim_id": cid, "study": "", "before": st, "after": "(removed)"})
    return pd.DataFrame(rows, columns=cols)


def change_lines(changes: pd.DataFrame, first_run: bool = False, most: int = 25) -> list[str]:
    """Human-readable lines for the terminal: each claim whose status changed (the first ``most``, then a
    count by transition, the full list being in changes.csv); new claims counted by status."""
    if first_run:
        return ["first run: no earlier results/claims/claims.csv to compare with"]
    if changes.empty:
        return ["no claim changed status since the last run"]
    lines = []
    changed = changes[changes["before"] != ""]
    for r in changed.head(most).itertuples(index=False):
        lines.append(f"status changed: {r.claim_id}: {r.before} -> {r.after}")
    if len(changed) > most:
        rest = changed.iloc[most:]
        by = rest.groupby(["before", "after"]).size()
        lines.append(
            f"... and {len(rest)} more (results/.history/claims_changes.csv): "
            + ", ".join(f"{n} {b} -> {a}" for (b, a), n in by.items())
        )
    new = changes[changes["before"] == ""]
    if len(new):
        by = new["after"].value_counts()
        lines.append(
            f"{len(new)} claim(s) new since the last run: " + ", ".join(f"{by[s]} {s}" for s in STATUSES if s in by)
        )
    return lines


# -------------------------------------------------------------------------------------------- one evaluation


@dataclass(repr=False)
class Evaluation:
    """One run of the check: the claims table, the register's tables, notes, values and what changed."""

    table: pd.DataFrame
    tables: list[RegisterTable]
    notes: dict[str, dict]
    values: dict[str, dict]
    missing: dict[str, dict]
    provenance_problems: dict[str, str]
    previous: dict[str, str] | None
    changes: pd.DataFrame
    missing_cells: dict[str, list[str]]
    provenance: dict[str, dict[str, str]] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Evaluation({len(self.table)} claims: {self.counts})"

    @property
    def counts(self) -> dict[str, int]:
        vc = self.table["status"].value_counts()
        return {s: int(vc.get(s, 0)) for s in STATUSES}


def off_paper_studies(results_dir: Path | None = None) -> dict[str, list[str]]:
    """``{study: ["section.key = value (reference: ref, the paper's|the committed run's)", ...]}``: the studies
    whose stage's section of ``params.yaml`` (as validated by the ``params`` stage) differs from the reference."""
    from .params import off_paper_from_files

    d = Path(results_dir) / "params" if results_dir is not None else None
    out = {}
    for study, stage in STUDY_STAGE.items():
        changed = off_paper_from_files(d, only=(stage,))
        if changed:
            out[study] = [f"{k} = {v} (reference {ref}, {src})" for k, v, ref, src in changed]
    return out


def own_statuses(
    study: str, values: dict, ids, results_dir: Path | None = None, published_dir: Path | None = None
) -> dict:
    """The statuses of a study's claims ``ids`` at this run's settings, for a chapter's own sentences.

    The chapters run before the claims stage, so a sentence asserting that something reproduces, holds
    or matches is generated from the statuses that the same :func:`check` gives the ``values`` the stage
    is about to publish (never written as fixed text). Returns ``{"statuses": {id: status}, "counts":
    {status: n}, "off_paper": [the changed keys of the study's section]}``."""
    ids = list(ids)
    published = load_published(published_dir)
    published = published[(published["study"] == study) & published["claim_id"].isin(ids)]
    unknown = sorted(set(ids) - set(published["claim_id"]))
    if unknown:
        raise RegisterError(f"own_statuses: {', '.join(unknown[:5])} not claims of published/{study}.yaml")
    off = off_paper_studies(results_dir)
    table = check(published, {STUDY_STAGE[study]: values}, load_notes(published_dir), off_paper=off)
    vc = table["status"].value_counts()
    return {
        "statuses": dict(zip(table["claim_id"], table["status"])),
        "counts": {s: int(vc.get(s, 0)) for s in STATUSES},
        "off_paper": off.get(study, []),
    }


def verdict(st: dict, holds: str, off_paper: str, fails: str) -> str:
    """One of three sentences from :func:`own_statuses`: ``holds`` when every claim is reproduced, ``off_paper`` (``{keys}``: the changed keys) when any is an off-paper run, otherwise
    ``fails`` (``{n}`` of ``{m}`` claims reproduced)."""
    c = st["counts"]
    m = sum(c.values())
    if c["off_paper"]:
        return off_paper.format(keys="; ".join(st["off_paper"]), n=c["reproduced"], m=m)
    if m == 0 or c["reproduced"] < m:
        return fails.format(n=c["reproduced"], m=m)
    return holds


def evaluate(
    published_dir: Path | None = None, results_dir: Path | None = None, previous_csv: Path | None | bool = True
) -> Evaluation:
    """Load the register, notes, values, missing inputs and provenance; check every claim; compare with
    the last run (``previous_csv=True``: :func:`previous_claims_csv`; ``False``: no comparison)."""
    published = load_published(published_dir)
    notes = load_notes(published_dir)
    problems = note_problems(notes, published)
    if problems:
        raise RegisterError("; ".join(problems))
    tables = load_tables(published_dir)
    values = load_values(results_dir)
    missing = load_missing(results_dir)
    prov, prov_problems = load_provenance(sorted(set(published["study"])))
    table = check(
        published, values, notes, missing, prov, tables, register_levels(published_dir), off_paper_studies(results_dir)
    )
    if previous_csv is True:
        previous_csv = previous_claims_csv(results_dir)
    previous = read_statuses(previous_csv) if previous_csv else None
    return Evaluation(
        table=table,
        tables=tables,
        notes=notes,
        values=values,
        missing=missing,
        provenance_problems=prov_problems,
        previous=previous,
        changes=status_changes(previous, table),
        missing_cells=missing_cell_ids(tables, values),
        provenance=prov,
    )


def write_outputs(ev: Evaluation, stage: str = "claims") -> dict[str, Path]:
    """``results/claims/``: claims.csv (every claim, every column), summary.csv (study x level x status) and
    values.json (the counts); the status changes since the last run go to ``results/.history/claims_changes.csv``,
    outside the stage's tracked outputs: they depend on which run came before, not on the data, and a fresh
    clone must produce the same tracked outputs as any other checkout."""
    from .results import FLOAT_FORMAT, write_values

    out = paths.stage_dir(stage)
    out.mkdir(parents=True, exist_ok=True)
    files = {}
    for name, df in (("claims", ev.table[COLUMNS]), ("summary", summary(ev.table))):
        p = out / f"{name}.csv"
        df.to_csv(p, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
        files[name] = p
    history = paths.RESULTS / ".history"
    history.mkdir(parents=True, exist_ok=True)
    files["changes"] = history / f"{stage}_changes.csv"
    ev.changes.to_csv(files["changes"], index=False, lineterminator="\n")
    counts = ev.counts
    values: dict[str, Any] = {f"claims.{s}": n for s, n in counts.items()}
    values["claims.total"] = len(ev.table)
    for study, grp in ev.table.groupby("study"):
        vc = grp["status"].value_counts()
        for s in STATUSES:
            values[f"claims.{study}.{s}"] = int(vc.get(s, 0))
    values["claims.missing_cells"] = sum(len(v) for v in ev.missing_cells.values())
    files["values"] = write_values(stage, values)
    return files


# ------------------------------------------------------------------------------------------------ rendering
# The chapter's tables are HTML built here (compact: the whole register stays well under 2 MB), with the
# status of every cell as a symbol and a word, and every 'differs' linked to its reason (#why-<id>).

CSS = """<style>
.cl-legend span,.cl-st{white-space:nowrap}
.cl-wrap{overflow-x:auto;max-width:100%;content-visibility:auto;contain-intrinsic-size:auto 700px}
table.cl{border-collapse:collapse;font-size:.78rem;line-height:1.25;margin:.3rem 0 .8rem}
table.cl th,table.cl td{border:1px solid #d0d7de;padding:.12rem .35rem;vertical-align:top}
table.cl th{background:#f6f8fa;text-align:left;font-weight:600}table.cl tbody th{max-width:14rem}
table.cl td.n{text-align:right;font-variant-numeric:tabular-nums;color:#57606a}
table.cl td.n b{color:#1f2328;font-weight:600}
table.cl small{font-size:.7rem;white-space:nowrap}
.cl .reproduced{background:#eef8ee}.cl .differs{background:#fff3d6}.cl .needs_data{background:#f2f2f2}
.cl .quoted{background:#f3eefb}.cl .unexplained{background:#ffe0e0}.cl .off_paper{background:#fff4d6}
.cl-why li{margin-bottom:.35rem;content-visibility:auto;contain-intrinsic-size:auto 4rem}.cl-small{font-size:.8rem;color:#57606a}
h3.cl-h{font-size:1.15rem;margin:1.6rem 0 .3rem}
table.cl.tc{width:100%;table-layout:fixed}table.cl.tc td{overflow-wrap:anywhere}
table.cl.tc td:first-child{overflow-wrap:normal}table.cl.tc .cl-st{white-space:normal}
html[data-theme=dark] table.cl th{background:#262b33}html[data-theme=dark] table.cl td.n{color:#a8b1bb}
html[data-theme=dark] table.cl td.n b{color:#e6edf3}html[data-theme=dark] .cl-small{color:#a8b1bb}
html[data-theme=dark] .cl .reproduced{background:#17301c}html[data-theme=dark] .cl .differs{background:#3a2f12}
html[data-theme=dark] .cl .needs_data{background:#2a2d31}html[data-theme=dark] .cl .quoted{background:#2c2440}
html[data-theme=dark] .cl .unexplained{background:#4a1c1c}
html[data-theme=dark] .cl .off_paper{background:#3a3320}
</style>"""


def _e(text) -> str:
    return safetext.html(text)  # raw HTML: html.escape(quote=True), invisible controls shown


def anchor(claim_id: str) -> str:
    """The HTML id of a claim's entry in the list of reasons."""
    return "why-" + re.sub(r"[^A-Za-z0-9_.-]", "-", claim_id)


def status_html(status: str, claim_id: str | None = None, link: bool = False) -> str:
    sym, word = MARK.get(status, NO_CLAIM)
    inner = f"{sym} {word}"
    if link and claim_id:
        inner = f'<a href="#{anchor(claim_id)}">{inner}</a>'
    return f'<span class="cl-st">{inner}</span>'


def legend_html() -> str:
    """The key to the tables: the status symbols and words, the caveat mark, and the order within a cell."""
    items = [f"<span>{sym} {word}</span>" for sym, word in MARK.values()]
    items += [
        f"<span>{NO_CLAIM[0]} {NO_CLAIM[1]}</span> (a cell the register has no claim for: ours only)",
        "<span>† a caveat on a reproduced number</span>",
    ]
    return (
        '<p class="cl-legend">Key: ' + "; ".join(items) + ". In each table cell: the paper's value, "
        "<b>ours</b> in bold, then the status; a differs or unexplained status links to its reason.</p>"
    )


def clean_printed(token: str) -> str:
    """The printed token, readable as HTML: LaTeX braces and escapes removed, powers as superscripts."""
    t = _e(token)
    t = t.replace("{,}", ",").replace("\\%", "%").replace("$", "").replace("\\approx", "≈").replace("~", "")
    t = re.sub(r"\^\{([^{}]*)\}", r"<sup>\1</sup>", t)
    t = re.sub(r"\^(-?\d+)", r"<sup>\1</sup>", t)
    return t.replace("{", "").replace("}", "").strip()


def _decimals(v) -> int:
    if isinstance(v, bool) or v is None:
        return 0
    if isinstance(v, int):
        return 0
    if isinstance(v, float):
        s = repr(v)
        if "e" in s:
            return -1
        return len(s.split(".")[1].rstrip("0")) if "." in s else 0
    return 0


_NUMBER_TOKEN = re.compile(r"[~≈<>≤≥+\-−\s$]*\d[\d,{}]*(?:\.(\d+))?\s*(?:\\?%)?\s*\$?")


def claim_decimals(row) -> int:
    """How many decimals the paper printed: from the printed token if it is a plain number ("+44.0" -> 1),
    else from the tolerance when it is half a unit of a decimal place (0.05 -> 1), else from the value."""
    m = _NUMBER_TOKEN.fullmatch(str(row.get("printed") or ""))
    if m:
        return len(m.group(1) or "")
    try:
        tol = float(row.get("tolerance") or 0)
    except (TypeError, ValueError):
        tol = 0.0
    if 0 < tol < 1:
        d = round(-math.log10(2 * tol))
        if math.isclose(0.5 * 10**-d, tol, rel_tol=1e-9):
            return d
    return max(_decimals(row.get("_published")), 0)


def fmt_number(v, decimals: int | None = None) -> str:
    """A computed value for the page: one decimal more than the printed number (6 at most); tiny or huge
    numbers in 3 significant digits; integers as integers. The CSV keeps every digit."""
    if v is None:
        return "—"
    if isinstance(v, str):
        return _e(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(fmt_number(x, decimals) for x in v) + "]"
    if isinstance(v, bool):
        return str(v)
    x = float(v)
    if not math.isfinite(x):
        return str(x)
    if x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e7):
        return f"{x:.3g}".replace("e-0", "e-").replace("e+0", "e+")
    if float(x).is_integer() and (decimals is None or decimals <= 0):
        return f"{int(x)}"
    d = 4 if decimals is None or decimals < 0 else min(decimals + 1, 6)
    return f"{x:.{d}f}"


def paper_html(row) -> str:
    rel = row["relation"]
    pub = row["_published"]
    if row["printed"]:
        txt = clean_printed(row["printed"])
    elif isinstance(pub, str):
        txt = _e(pub)
    elif isinstance(pub, float) and math.isfinite(pub) and not (pub != 0 and abs(pub) < 1e-3):
        txt = f"{pub:.{min(claim_decimals(row), 6)}f}"
    else:
        txt = fmt_number(pub, 0)
    return (f"{_e(rel)} " if rel else "") + txt


def _cell_value(v, index):
    if index is None:
        return v
    try:
        return v[index[0]][index[1]]
    except (TypeError, IndexError, KeyError):
        return None


def _evidence_html(evidence: str, labels: dict[str, str]) -> str:
    if not evidence:
        return ""
    if evidence in labels:
        return f'<a href="{_e(labels[evidence])}">{_e(evidence)}</a>'
    return f"<code>{_e(evidence)}</code>"


def _variants_html(variants_json: str, decimals: int | None) -> str:
    if not variants_json:
        return ""
    var = json.loads(variants_json)
    return "".join(f"<br><small>variant {_e(k)}: {fmt_number(v, decimals)}</small>" for k, v in var.items())


def _cell_html(claim: dict, index: tuple[int, int] | None) -> tuple[str, str]:
    """(status, inner HTML) of one table cell: paper's value, ours (bold), status symbol and word."""
    status = claim["status"]
    dec = claim_decimals(claim)
    if index is None:
        paper, ours = paper_html(claim), fmt_number(claim["_ours"], dec)
    else:
        pv = _cell_value(claim["_published"], index)
        paper, ours = fmt_number(pv, _decimals(pv) - 1), fmt_number(_cell_value(claim["_ours"], index), _decimals(pv))
    sym, word = MARK[status]
    mark = f"{sym} {word}"
    if status in ("differs", "unexplained"):
        mark = f'<a href="#{anchor(claim["claim_id"])}">{mark}</a>'
    elif status == "reproduced" and claim["note"]:
        mark += f' <a href="#{anchor(claim["claim_id"])}">†</a>'
    var = _variants_html(claim["variants"], dec)
    return status, f"{paper}<br><b>{ours}</b><br><small>{mark}</small>{var}"


def table_html(t: RegisterTable, claims_by_id: dict[str, dict], values: dict) -> str:
    """One register table, cell by cell: the paper's value, ours (bold), and the status as symbol and word
    ('differs' and 'unexplained' link to the reason, a caveat to its note: † ). A cell the register has no
    claim for shows our value only ("· no claim"); a blank cell of the paper stays empty."""
    by_cell = {(c.row, c.col): c for c in t.cells}
    head = "".join(f"<th>{_e(t.col_labels.get(c, c))}</th>" for c in t.cols)
    out = [
        (
            f'<div class="cl-wrap"><table class="cl"><thead><tr><th class="cl-small">paper<br><b>ours</b></th>'
            f"{head}</tr></thead><tbody>"
        )
    ]
    needs: dict[str, int] = {}
    counted: set[str] = set()
    for r in t.rows:
        tds = []
        for col in t.cols:
            cell = by_cell.get((r, col))
            if cell is None:
                tds.append("<td></td>")
                continue
            claim = claims_by_id.get(cell.id) or (claims_by_id.get(cell.same_as) if cell.same_as else None)
            if claim is None:
                ours = values.get(cell.id, values.get(cell.same_as) if cell.same_as else None)
                tds.append(
                    f'<td class="n">—<br><b>{fmt_number(_cell_value(ours, cell.index))}</b>'
                    f"<br><small>{NO_CLAIM[0]} {NO_CLAIM[1]}</small></td>"
                )
                continue
            status, inner = _cell_html(claim, cell.index)
            if status == "needs_data" and claim["claim_id"] not in counted:
                counted.add(claim["claim_id"])
                needs[claim["note"]] = needs.get(claim["note"], 0) + 1
            tds.append(f'<td class="n {status}">{inner}</td>')
        out.append(f"<tr><th>{_e(t.row_labels.get(r, r))}</th>{''.join(tds)}</tr>")
    out.append("</tbody></table></div>")
    if needs:
        out.append(
            '<p class="cl-small">∅ needs data: '
            + "; ".join(f"{n} claim{'s' if n > 1 else ''}: {_e(why)}" for why, n in needs.items())
            + "</p>"
        )
    return "".join(out)


def _prov_html(provenance: str) -> str:
    if not provenance:
        return ""
    fn, test = split_provenance(provenance)
    return f"<code>{_e(fn)}</code>" + (f' <span class="cl-small">(test <code>{_e(test)}</code>)</span>' if test else "")


def table_provenance_html(t: RegisterTable, claims_by_id: dict[str, dict], provenance: dict[str, str]) -> str:
    """The functions (and tests) that compute a table's cells, each listed once."""
    seen = list(dict.fromkeys(provenance_for(c.id, provenance) for c in t.cells))
    seen = [s for s in seen if s]
    if not seen:
        return '<p class="cl-small">Computed by: (no PROVENANCE entry for these ids yet)</p>'
    return '<p class="cl-small">Computed by: ' + "; ".join(_prov_html(s) for s in seen) + "</p>"


def text_claims_html(rows: pd.DataFrame) -> str:
    """The claims that are not table cells: one row each with the status, the claim (id, what, where, the
    function that computes it), the paper's value, ours (with any variants) and the note."""
    out = [
        (
            '<div class="cl-wrap"><table class="cl tc"><colgroup><col style="width:13%"><col style="width:39%">'
            '<col style="width:10%"><col style="width:11%"><col style="width:27%"></colgroup>'
            "<thead><tr><th>status</th><th>claim</th><th>paper</th><th>ours</th><th>note</th></tr></thead><tbody>"
        )
    ]
    for r in rows.to_dict("records"):
        st = r["status"]
        dec = claim_decimals(r)
        sym, word = MARK[st]
        mark = f"{sym} {word}"
        if st in ("differs", "unexplained"):
            mark = f'<a href="#{anchor(r["claim_id"])}">{mark}</a>'
        if st == "differs":
            note = f'<a href="#{anchor(r["claim_id"])}">{_e(REASONS[r["reason"]].split(" (")[0])}</a>'
        else:
            # the status's own note (missing input, caveat, what is wrong), else the register's note
            note = _e(r["note"] if st not in ("quoted",) and r["note"] else r["register_note"])
        prov = _prov_html(r["provenance"])
        out.append(
            f'<tr><td class="{st}"><span class="cl-st">{mark}</span></td>'
            f'<td><code>{_e(r["claim_id"])}</code> {_e(r["what"])} <span class="cl-small">({_e(r["source"])})</span>'
            + (f"<br>{prov}" if prov else "")
            + "</td>"
            f'<td class="n">{paper_html(r)}</td><td class="n"><b>{fmt_number(r["_ours"], dec)}</b>'
            f'{_variants_html(r["variants"], dec)}</td><td class="cl-small">{note}</td></tr>'
        )
    out.append("</tbody></table></div>")
    return "".join(out)


def _why_id_html(r: dict) -> str:
    """A claim id in the reasons list (the anchor its cell links to) with the paper's value, ours and the
    Monte-Carlo standard error where one was published."""
    out = f'<code id="{anchor(r["claim_id"])}">{_e(r["claim_id"])}</code>'
    if r["_ours"] is None:
        return out
    extra = f", Monte-Carlo s.e. {_e(r['mc_se'])}" if r["mc_se"] else ""
    ours = fmt_number(r["_ours"], claim_decimals(r))
    return out + f' <span class="cl-small">(paper {paper_html(r)}, ours {ours}{extra})</span>'


def why_html(rows: pd.DataFrame, labels: dict[str, str]) -> str:
    """The reasons, grouped by (status, reason, note, evidence): every differs (the kind of reason, the note
    with its numbers, the evidence), every unexplained claim (what is wrong) and every caveat. Each claim id
    carries the anchor its cell links to, with the paper's value and ours."""
    if rows.empty:
        return "<p>None.</p>"
    out = ['<ul class="cl-why">']
    groups: dict[tuple, list[dict]] = {}
    for r in rows.to_dict("records"):
        groups.setdefault((r["status"], r["reason"], r["note"], r["evidence"]), []).append(r)
    for (st, reason, note, evidence), grp in groups.items():
        sym, word = MARK[st]
        head = f"<b>{sym} {word}</b>"
        if st == "differs":
            head += f" — {_e(REASONS[reason])}"
        elif st == "reproduced":
            head += " — note no longer needed" if note.startswith(STALE) else " — caveat"
        ev = _evidence_html(evidence, labels)
        ids = ", ".join(_why_id_html(r) for r in grp)
        out.append(
            f"<li>{head}: {_e(note)}"
            + (f' <span class="cl-small">Evidence: {ev}.</span>' if ev else "")
            + f"<br>{ids}</li>"
        )
    out.append("</ul>")
    return "".join(out)


def changes_html(changes: pd.DataFrame, first_run: bool) -> str:
    if first_run:
        return "<p>First run: there is no earlier <code>results/claims/claims.csv</code> to compare with.</p>"
    changed = changes[changes["before"] != ""]
    new = changes[changes["before"] == ""]
    parts = []
    if changed.empty:
        parts.append("<p>No claim of the previous run changed status.</p>")
    else:
        parts.append(
            '<div class="cl-wrap"><table class="cl"><thead><tr><th>claim</th><th>before</th><th>now</th>'
            "</tr></thead><tbody>"
        )
        for r in changed.itertuples(index=False):
            after = status_html(r.after) if r.after in MARK else _e(r.after)
            parts.append(
                f"<tr><td><code>{_e(r.claim_id)}</code></td><td>{status_html(r.before)}</td><td>{after}</td></tr>"
            )
        parts.append("</tbody></table></div>")
    if len(new):
        vc = new["after"].value_counts()
        parts.append(
            f"<p>{len(new)} claim(s) are new since the last run: "
            + ", ".join(f"{vc[s]} {status_html(s)}" for s in STATUSES if s in vc)
            + ".</p>"
        )
    return "".join(parts)


_LABEL_RE = re.compile(r"^\(([A-Za-z0-9_.:-]+)\)=\s*$|^:(?:name|label):\s*([A-Za-z0-9_.:-]+)\s*$", re.MULTILINE)


def sphinx_labels(notebooks_dir: Path | None = None, book_dir: Path | None = None) -> dict[str, str]:
    """``{label: link}`` for the labels of the chapters (``(label)=`` targets and ``:name:`` options), as
    seen from the claims page (``executed/05_claims.html``). Evidence naming a label becomes a link."""
    from docutils.nodes import make_id

    out = {}
    sources = [(p, f"{p.stem}.html") for p in sorted(Path(notebooks_dir or paths.NOTEBOOKS).glob("*.md"))]
    sources += [(p, f"../{p.stem}.html") for p in sorted(Path(book_dir or paths.BOOK).glob("*.md"))]
    for p, page in sources:
        for m in _LABEL_RE.finditer(p.read_text(errors="replace")):
            label = m.group(1) or m.group(2)
            out.setdefault(label, f"{page}#{make_id(label)}")
    return out


def chapter_sections(ev: Evaluation, provenance: dict[str, dict[str, str]] | None = None, study: str | None = None):
    """Yield ``(study, slug, heading, html)`` for the chapter: per study (or only ``study``), one section per
    register table, then the text claims. ``provenance``: ``{study: PROVENANCE}`` (default:
    :func:`load_provenance`)."""
    if provenance is None:
        provenance = ev.provenance
    by_id = {r["claim_id"]: r for r in ev.table.to_dict("records")}
    in_tables = {c.id for t in ev.tables for c in t.cells} | {
        c.same_as for t in ev.tables for c in t.cells if c.same_as
    }
    for st in [study] if study else STUDIES:
        stage = STUDY_STAGE[st]
        vals = ev.values.get(stage, {})
        for t in [t for t in ev.tables if t.study == st]:
            head = t.caption or t.label
            intro = (
                f'<p class="cl-small">{_e(t.where)} ({_e(t.label)}; ids <code>{_e(t.cells[0].id if t.cells else "")}'
                f"</code> …)" + (f". {_e(t.note)}" if t.note else "") + "</p>"
            )
            body = intro + table_html(t, by_id, vals) + table_provenance_html(t, by_id, provenance.get(st, {}))
            yield st, t.slug, head, body
        text = ev.table[(ev.table["study"] == st) & ~ev.table["claim_id"].isin(in_tables)]
        if len(text):
            yield st, "text", f"Text claims ({len(text)})", text_claims_html(text)


def summary_display(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`summary` with the status columns headed by symbol and word (for the chapter)."""
    s = summary(table)
    return s.rename(columns={st: f"{MARK[st][0]} {MARK[st][1]}" for st in STATUSES})


def reason_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The rows the reasons section lists: differs, unexplained, and reproduced claims with a caveat note
    (differs first, then unexplained, then caveats; register order within each)."""
    order = {"differs": 0, "unexplained": 1, "reproduced": 2}
    sel = table[
        (table["status"].isin(["differs", "unexplained"])) | ((table["status"] == "reproduced") & (table["note"] != ""))
    ]
    return sel.assign(_o=sel["status"].map(order)).sort_values("_o", kind="stable").drop(columns="_o")


def completeness_html(ev: Evaluation, provenance_problems: dict[str, str] | None = None, first: int = 4) -> str:
    """Per register table: how many cell ids no values.json has yet (with the first few), and any study
    whose provenance module is missing."""
    parts = []
    if ev.missing_cells:
        parts.append(
            '<div class="cl-wrap"><table class="cl"><thead><tr><th>table</th><th>cells missing</th>'
            "<th>of</th><th>first ids</th></tr></thead><tbody>"
        )
        size = {f"{t.study}/{t.slug}": len(t.ids) for t in ev.tables}
        for key, ids in ev.missing_cells.items():
            parts.append(
                f'<tr><td>{_e(key)}</td><td class="n">{len(ids)}</td><td class="n">{size.get(key, "")}</td>'
                f"<td>{', '.join(f'<code>{_e(i)}</code>' for i in ids[:first])}"
                f"{' …' if len(ids) > first else ''}</td></tr>"
            )
        parts.append("</tbody></table></div>")
    else:
        parts.append("<p>Every cell id of every register table is a key of a values.json.</p>")
    for study, problem in (provenance_problems or {}).items():
        parts.append(f'<p class="cl-small">Provenance of {_e(STUDY_NAME.get(study, study))}: {_e(problem)}.</p>')
    return "".join(parts)


def section_id(study: str, slug: str) -> str:
    return f"claims-{study}-{re.sub(r'[^A-Za-z0-9_-]', '-', slug)}"


def study_html(ev: Evaluation, provenance: dict[str, dict[str, str]] | None, study: str) -> str:
    """A study's part of the chapter: a list of its tables (links), then one section per register table
    (heading, where printed, the table cell by cell, the functions that compute it), then the text claims."""
    links, body = [], []
    for _, slug, heading, html_ in chapter_sections(ev, provenance, study=study):
        sid = section_id(study, slug)
        links.append(f'<a href="#{sid}">{_e(heading)}</a>')
        body.append(f'<h3 class="cl-h" id="{sid}">{_e(heading)}</h3>{html_}')
    return '<p class="cl-small">Tables: ' + " · ".join(links) + "</p>" + "".join(body)


def prose_values(ev) -> dict:
    """Every number and sentence the claims chapter's prose quotes (``{glue:text}`` name -> value), from ``ev``."""
    counts = ev.counts
    out = {f"claims_{s}": n for s, n in counts.items()}
    n_missing_cells = sum(len(v) for v in ev.missing_cells.values())
    out.update(
        {
            "claims_total": len(ev.table),
            "claims_approx_pct": f"{APPROX_REL * 100:g}",
            "claims_n_tables": len(ev.tables),
            "claims_missing_cells_sentence": "Every cell id is."
            if n_missing_cells == 0
            else f"{n_missing_cells:,} cell ids of {len(ev.missing_cells)} tables are not yet; the claims test fails "
            "until they are.",
            "claims_unexplained_sentence": (
                f"{counts['off_paper']:,} claims are from an off-paper run (⇄): this build's parameters differ "
                "from the paper's (named in the banner above), so their values are not expected to match. "
                if counts.get("off_paper")
                else ""
            )
            + (
                "Every claim is accounted for."
                if counts["unexplained"] == 0
                else f"{counts['unexplained']:,} claims are UNEXPLAINED: the claims test fails until each is "
                "computed, fixed or explained."
            ),
        }
    )
    return out


if __name__ == "__main__":  # python -m compendium.claims diff REV
    from .claims_diff import main

    raise SystemExit(main())
