"""Comparing: tolerances, relations and labels (:func:`matches`), the status of every claim (:func:`check`),
the counts (:func:`summary`), what changed since the last run, and one whole run (:func:`evaluate`)."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from compendium.pipeline import paths
from compendium.pipeline.results import same_value

from .register import (
    RegisterTable,
    data_for,
    load_data_files,
    load_missing,
    load_notes,
    load_provenance,
    load_published,
    load_tables,
    load_values,
    missing_cell_ids,
    note_problems,
    provenance_for,
    register_levels,
)
from .vocab import (
    _EPS,
    APPROX_DECADES,
    APPROX_REL,
    COLUMNS,
    LEVELS,
    MC_SE,
    MC_SIGMAS,
    RELATIONS,
    STALE,
    STATUSES,
    STUDIES,
    STUDY_STAGE,
    VARIANT,
    RegisterError,
    _eps,
)

# ------------------------------------------------------------------------------------------------ comparing


def _comparable(published, value) -> tuple[np.ndarray, np.ndarray] | None:
    """Both as float arrays of one shape, the value without NaN; None when they cannot be compared as numbers."""
    try:
        a = np.asarray(published, dtype=float)
        b = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    if a.shape != b.shape or np.isnan(b).any():
        return None
    return a, b


def within_tolerance(published, reproduced, tol: float) -> bool:
    """``|reproduced - published| <= tol`` for numbers, element-wise for (nested) lists of equal shape."""
    pair = None if reproduced is None else _comparable(published, reproduced)
    if pair is None:
        return False
    a, b = pair
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
    pair = _comparable(published, value)
    if pair is None:
        return None
    a, b = pair
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


def _claim(c) -> dict[str, str]:
    """The optional register columns of a claim row (a minimal frame may lack them)."""
    return {
        "level": getattr(c, "level", "raw") or "raw",
        "relation": getattr(c, "relation", "") or "",
        "kind": getattr(c, "kind", "") or "",
        "printed": getattr(c, "printed", "") or "",
    }


def _computed_status(c, opt: dict, ours, note: dict, mc_se, g) -> tuple[str, str, str, str]:
    """(status, reason, evidence, text) of a claim the stage published a value for."""
    if matches(c.published, ours, c.tolerance, opt["relation"], opt["kind"], opt["printed"]):
        if note.get("kind") == "differs":
            return "reproduced", "", "", f"{STALE} {note['file']} is no longer needed: the value reproduces)"
        if note.get("kind") == "caveat":
            return "reproduced", "", note.get("evidence", ""), note.get("note", "")
        return "reproduced", "", "", ""
    if note.get("kind") == "differs":
        reason, evidence, text = note["reason"], note["evidence"], note["note"]
        if reason == "monte_carlo":
            ok, why = _mc_gate(c.published, ours, mc_se)
            if not ok:
                return "unexplained", reason, evidence, f"monte_carlo note, but {why}. Note: {text}"
        elif reason == "rounding_boundary" and (g is None or g > 2 * c.tolerance * (1 + _EPS) + _EPS * abs(g)):
            text = (
                f"rounding_boundary note, but the gap {_fmt(g) or '(n/a)'} exceeds one printed unit "
                f"(2 x tol = {2 * c.tolerance:.4g}). Note: {text}"
            )
            return "unexplained", reason, evidence, text
        return "differs", reason, evidence, text
    why = (
        "the relation does not hold"
        if opt["relation"]
        else "the label differs"
        if opt["kind"] == "label"
        else "outside the tolerance"
    )
    text = (
        f"{why} and no differs note in published/notes/{c.study}.yaml (expected if a parameter "
        "was moved off the paper's setting, e.g. by dvc exp run -S)"
    )
    return "unexplained", "", "", text


def _uncomputed_status(c, level: str, stage: str, vals: dict, miss: dict, levels: dict) -> tuple[str, str]:
    """(status, text) of a claim the stage published no value for (null or not a key)."""
    cid = c.claim_id
    if level in ("per_instance", "row_level"):
        return "needs_data", miss.get(cid) or levels.get(c.study, {}).get(level, level.replace("_", "-") + " data")
    if level == "none":
        return "quoted", (
            "a design constant, or a statement the released data do not determine; quoted, "
            "checked only where the project's inputs hold it"
        )
    if level == "outside" and miss.get(cid):
        return "needs_data", miss[cid]
    if cid not in vals:
        text = f"not a key of results/{stage}/values.json"
    else:
        text = f"null in results/{stage}/values.json" + (f" (missing.json: {miss[cid]})" if cid in miss else "")
    text += (
        " but the claim's level is 'outside': name the missing external file in missing.json"
        if level == "outside"
        else " but the claim's level is 'raw': the released files determine it"
    )
    return "unexplained", text


def _table_positions(tables: list[RegisterTable] | None) -> dict[str, tuple[str, str, str]]:
    """claim id -> (table slug, row, col) of its first cell (row and col ``*`` for a whole-table claim)."""
    where: dict[str, tuple[str, str, str]] = {}
    for t in tables or []:
        for c in t.cells:
            where.setdefault(c.id, (t.slug, c.row if c.index is None else "*", c.col if c.index is None else "*"))
    return where


def check(
    published: pd.DataFrame,
    values: dict[str, dict],
    notes: dict[str, dict],
    missing: dict[str, dict] | None = None,
    provenance: dict[str, dict[str, str]] | None = None,
    tables: list[RegisterTable] | None = None,
    levels: dict[str, dict[str, str]] | None = None,
    off_paper: dict[str, list[str]] | None = None,
    data_files: dict[str, dict[str, tuple[str, ...]]] | None = None,
    reference: dict[str, dict | None] | None = None,
) -> pd.DataFrame:
    """One row per claim with its status (see :mod:`compendium.claims`); columns :data:`COLUMNS`.

    ``values``/``missing``: ``{stage: {id: ...}}``; ``notes``: :func:`load_notes`; ``provenance``:
    ``{study: PROVENANCE}``; ``tables``: to mark which claims are table cells; ``levels``: the register's
    level descriptions (the text shown for a needs-data claim when ``missing.json`` names nothing);
    ``off_paper``: ``{study: ["section.key=value (reference ...)", ...]}`` for the studies run off the paper's
    settings (:func:`off_paper_studies`): a computed claim of such a study that misses gets ``off_paper`` only if
    its value moved (:func:`moved`) against ``reference`` (``{stage: the values at the reference parameters}``,
    :func:`load_reference`; a stage without one counts every value as moved); every other claim keeps its
    status, reason and evidence; ``data_files``:
    ``{study: DATA}`` (:func:`load_data_files`), the raw files of each claim (column ``data``, "; "-separated).
    The raw published and computed values are kept in the columns ``_published`` and ``_ours``.
    """
    missing, provenance, levels, data_files = missing or {}, provenance or {}, levels or {}, data_files or {}
    where_cell = _table_positions(tables)
    index = {stage: _index_suffixed(v) for stage, v in values.items()}
    rows = []
    for c in published.itertuples(index=False):
        opt = _claim(c)
        stage = STUDY_STAGE.get(c.study, c.study)
        vals = values.get(stage, {})
        variants, mcs = index.get(stage, ({}, {}))
        cid = c.claim_id
        ours = vals.get(cid)
        g = gap(c.published, ours)
        if ours is not None:
            status, reason, evidence, text = _computed_status(c, opt, ours, notes.get(cid, {}), mcs.get(cid), g)
        else:
            reason = evidence = ""
            status, text = _uncomputed_status(c, opt["level"], stage, vals, missing.get(stage, {}), levels)
        changed = (off_paper or {}).get(c.study)
        ref = (reference or {}).get(stage)
        if changed and status in ("differs", "unexplained") and moved(cid, vals, ref):
            before = "" if ref is None or ref.get(cid) is None else f"; at the reference settings {_fmt(ref[cid])}"
            status, reason, evidence = "off_paper", "", ""
            text = (
                f"this run {_fmt(ours)}{before}: the value moved with the parameters, so the paper's value is not "
                "expected: " + "; ".join(changed)
            )
        var = variants.get(cid, {})
        t_slug, t_row, t_col = where_cell.get(cid, ("", "", ""))
        rows.append(
            {
                "study": c.study,
                "claim_id": cid,
                "level": opt["level"],
                "what": c.what,
                "source": c.source,
                "printed": opt["printed"],
                "published": _fmt(c.published),
                "reproduced": _fmt(ours),
                "tolerance": _fmt(c.tolerance),
                "relation": opt["relation"],
                "kind": opt["kind"],
                "status": status,
                "reason": reason,
                "note": " ".join(str(text).split()),
                "evidence": evidence,
                "gap": "" if g is None else _fmt(g),
                "mc_se": _fmt(mcs.get(cid)),
                "variants": json.dumps(var, sort_keys=True, ensure_ascii=False) if var else "",
                "provenance": provenance_for(cid, provenance.get(c.study, {})),
                "data": "; ".join(data_for(cid, data_files.get(c.study, {}))),
                "register_note": getattr(c, "register_note", "") or "",
                "table": t_slug,
                "row": t_row,
                "col": t_col,
                "_published": c.published,
                "_ours": ours,
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS + ["_published", "_ours"])


def moved(cid: str, values: dict, reference: dict | None) -> bool:
    """Whether claim ``cid``'s value (or its Monte-Carlo standard error, ``<cid>.mc_se``) in ``values`` differs from
    ``reference``, the values at the reference parameters (:func:`same_value`: 1e-9 relative); True where there is
    no reference or the reference has no such value. A claim without a value in ``values`` has not moved."""
    if values.get(cid) is None:
        return False
    if reference is None or reference.get(cid) is None:
        return True
    se = f"{cid}{MC_SE}"
    return not same_value(values[cid], reference[cid]) or not same_value(values.get(se), reference.get(se))


def load_reference(results_dir: Path | None = None) -> dict[str, dict | None]:
    """``{stage: values at the reference parameters}`` for the study stages (``results/<stage>/reference.json``,
    :func:`compendium.pipeline.results.read_reference`; None where a stage has none)."""
    from compendium.pipeline.results import read_reference

    return {stage: read_reference(stage, results_dir) for stage in sorted(set(STUDY_STAGE.values()))}


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
    data_files: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    #: {study: the changed keys} for the studies run off the paper's settings (:func:`off_paper_studies`)
    off_paper: dict[str, list[str]] = field(default_factory=dict)
    #: {study: computed claims whose value moved against the run at the reference settings}
    moved: dict[str, list[str]] = field(default_factory=dict)
    #: the studies run off the paper's settings with no run at the reference settings on record (a checkout whose
    #: first run was off them: ``reference.json`` holds null), whose computed claims all count as moved
    no_reference: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"Evaluation({len(self.table)} claims: {self.counts})"

    @property
    def counts(self) -> dict[str, int]:
        vc = self.table["status"].value_counts()
        return {s: int(vc.get(s, 0)) for s in STATUSES}


def off_paper_studies(results_dir: Path | None = None) -> dict[str, list[str]]:
    """``{study: ["section.key = value (reference: ref, the paper's|the committed run's)", ...]}``: the studies
    whose stage's section of ``params.yaml`` (as validated by the ``params`` stage) differs from the reference."""
    from compendium.pipeline.params import off_paper_from_files

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
    stage = STUDY_STAGE[study]
    reference = load_reference(results_dir)
    table = check(
        published, {stage: values}, load_notes(published_dir), off_paper=off, reference={stage: reference.get(stage)}
    )
    vc = table["status"].value_counts()
    ref = reference.get(stage)
    return {
        "statuses": dict(zip(table["claim_id"], table["status"])),
        "counts": {s: int(vc.get(s, 0)) for s in STATUSES},
        "off_paper": off.get(study, []),
        # the claims whose value moved against the run at the reference settings (only off the paper's settings)
        "moved": [cid for cid in table["claim_id"] if off.get(study) and moved(cid, values, ref)],
        "reference": {cid: (ref or {}).get(cid) for cid in table["claim_id"]},
    }


def verdict(
    st: dict,
    holds: str,
    off_paper: str,
    fails: str,
    unmoved: str | None = None,
    names: dict[str, str] | None = None,
) -> str:
    """One sentence from :func:`own_statuses`, never fixed text:

    - ``off_paper`` when any claim is an off-paper run (its value moved off the paper's settings and misses): the
      placeholders are ``{keys}`` (the changed keys), ``{moved}`` (those claims, by ``names`` (claim id -> words,
      each named once) or id, joined with "and"), ``{k}`` (how many), ``{n}`` (claims reproduced) and ``{m}`` (all);
    - ``unmoved`` (if given) when the run is off the paper's settings but every claim still reproduces (no value
      moved away from the paper's): ``{keys}``;
    - ``holds`` when every claim is reproduced; otherwise ``fails`` (``{n}`` of ``{m}`` claims reproduced)."""
    c = st["counts"]
    m = sum(c.values())
    if c["off_paper"]:
        ids = [cid for cid, s in st.get("statuses", {}).items() if s == "off_paper"]
        words = list(dict.fromkeys((names or {}).get(cid, cid) for cid in ids))
        if not words:
            moved = "some of them"
        elif len(words) == 1:
            moved = words[0]
        else:
            moved = ", ".join(words[:-1]) + " and " + words[-1]
        return off_paper.format(keys="; ".join(st["off_paper"]), n=c["reproduced"], m=m, moved=moved, k=len(ids))
    if m == 0 or c["reproduced"] < m:
        return fails.format(n=c["reproduced"], m=m)
    if st.get("off_paper") and unmoved is not None:
        return unmoved.format(keys="; ".join(st["off_paper"]))
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
    studies = sorted(set(published["study"]))
    prov, prov_problems = load_provenance(studies)
    data_files = load_data_files(studies)
    off = off_paper_studies(results_dir)
    reference = load_reference(results_dir)
    table = check(
        published, values, notes, missing, prov, tables, register_levels(published_dir), off, data_files, reference
    )
    moved_ids = {
        study: [
            cid
            for cid in table.loc[table["study"] == study, "claim_id"]
            if moved(cid, values.get(STUDY_STAGE[study], {}), reference.get(STUDY_STAGE[study]))
        ]
        for study in off
    }
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
        data_files=data_files,
        off_paper=off,
        moved=moved_ids,
        no_reference=tuple(study for study in off if reference.get(STUDY_STAGE[study]) is None),
    )
