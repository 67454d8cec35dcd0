"""The claims chapter's HTML: Jinja2 templates (``templates/``), with autoescaping on.

Every value a template prints is escaped (after :func:`compendium.chapter.safetext.visible` shows invisible
controls), so text from the register, the notes or the data reaches the page only as text. The one
fragment of HTML made here is :func:`clean_printed` (and :func:`paper_html`, which uses it): the printed
token is escaped first and only then given ``<sup>`` tags, so it is a :class:`~markupsafe.Markup`.

The chapter's tables are compact (the whole register stays well under 2 MB), with the status of every
cell as a symbol and a word, and every 'differs' linked to its reason (``#why-<id>``). The style sheet is
``templates/claims.css``.
"""

from __future__ import annotations

import json
import math
import re
from functools import cache
from pathlib import Path

import pandas as pd
from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from compendium.chapter import safetext
from compendium.pipeline import paths

from .compare import Evaluation, summary
from .register import RegisterTable, provenance_for, split_provenance
from .vocab import MARK, NO_CLAIM, REASONS, STALE, STATUSES, STUDIES, STUDY_NAME, STUDY_STAGE


def _finalize(value):
    """Every ``{{ value }}``: markup as it is, anything else as text with invisible controls shown (the
    environment then escapes it)."""
    return value if hasattr(value, "__html__") else safetext.visible(value)


@cache
def environment() -> Environment:
    """The templates' environment: autoescaping on, undefined names an error."""
    return Environment(
        loader=PackageLoader("compendium.claims", "templates"),
        autoescape=True,
        finalize=_finalize,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(template: str, **context) -> Markup:
    """``templates/<template>`` rendered with ``context`` (autoescaped)."""
    return Markup(environment().get_template(template).render(**context))


def _h(text) -> Markup:
    return Markup(safetext.html(text))  # raw HTML text: html.escape(quote=True), invisible controls shown


def anchor(claim_id: str) -> str:
    """The HTML id of a claim's entry in the list of reasons."""
    return "why-" + re.sub(r"[^A-Za-z0-9_.-]", "-", claim_id)


def section_id(study: str, slug: str) -> str:
    return f"claims-{study}-{re.sub(r'[^A-Za-z0-9_-]', '-', slug)}"


def style_html() -> Markup:
    """The chapter's ``<style>`` element (``templates/claims.css``)."""
    return render("style.html")


def legend_html() -> Markup:
    """The key to the tables: the status symbols and words, the caveat mark, and the order within a cell."""
    return render("legend.html", marks=list(MARK.values()), no_claim=NO_CLAIM)


# ------------------------------------------------------------------------------------------------- numbers


def clean_printed(token: str) -> Markup:
    """The printed token, readable as HTML: escaped, then LaTeX braces and escapes removed and powers
    written as superscripts."""
    t = safetext.html(token)
    t = t.replace("{,}", ",").replace("\\%", "%").replace("$", "").replace("\\approx", "≈").replace("~", "")
    t = re.sub(r"\^\{([^{}]*)\}", r"<sup>\1</sup>", t)
    t = re.sub(r"\^(-?\d+)", r"<sup>\1</sup>", t)
    return Markup(t.replace("{", "").replace("}", "").strip())


def _decimals(v) -> int:
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
    """A computed value for the page, as text: one decimal more than the printed number (6 at most); tiny
    or huge numbers in 3 significant digits; integers as integers. The CSV keeps every digit."""
    if v is None:
        return "—"
    if isinstance(v, str):
        return v
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


def paper_html(row) -> Markup:
    """The paper's value of a claim as HTML: its relation, then the printed token (:func:`clean_printed`)
    or the register's value."""
    rel = row["relation"]
    pub = row["_published"]
    if row["printed"]:
        txt = clean_printed(row["printed"])
    elif isinstance(pub, float) and math.isfinite(pub) and not (pub != 0 and abs(pub) < 1e-3):
        txt = _h(f"{pub:.{min(claim_decimals(row), 6)}f}")
    else:
        txt = _h(fmt_number(pub, 0))
    return (_h(rel) + " " if rel else Markup("")) + txt


def _cell_value(v, index):
    if index is None:
        return v
    try:
        return v[index[0]][index[1]]
    except (TypeError, IndexError, KeyError):
        return None


def _variants(variants_json: str, decimals: int | None) -> list[tuple[str, str]]:
    return [(k, fmt_number(v, decimals)) for k, v in json.loads(variants_json).items()] if variants_json else []


def _status(claim: dict, dagger: bool = False) -> dict:
    """A claim's status mark: symbol, word, the reason it links to (differs, unexplained) and, with
    ``dagger``, the caveat of a reproduced number."""
    st, cid = claim["status"], claim["claim_id"]
    sym, word = MARK[st]
    return {
        "sym": sym,
        "word": word,
        "href": anchor(cid) if st in ("differs", "unexplained") else None,
        "dagger": anchor(cid) if dagger and st == "reproduced" and claim["note"] else None,
    }


def _prov(provenance: str) -> tuple[str, str] | None:
    return split_provenance(provenance) if provenance else None


# ------------------------------------------------------------------------------------------- the tables


def _claim_cell(claim: dict, index: tuple[int, int] | None) -> dict:
    """One table cell with a claim: paper's value, ours (bold), status mark, variants."""
    dec = claim_decimals(claim)
    if index is None:
        paper, ours = paper_html(claim), fmt_number(claim["_ours"], dec)
    else:
        pv = _cell_value(claim["_published"], index)
        paper, ours = fmt_number(pv, _decimals(pv) - 1), fmt_number(_cell_value(claim["_ours"], index), _decimals(pv))
    return {
        "claim": True,
        "status": claim["status"],
        "paper": paper,
        "ours": ours,
        "mark": _status(claim, dagger=True),
        "variants": _variants(claim["variants"], dec),
    }


def _table_rows(t: RegisterTable, claims_by_id: dict[str, dict], values: dict) -> tuple[list[dict], dict[str, int]]:
    """The rows of a register table for ``table.html`` and ``{why: n}`` of its needs-data claims."""
    by_cell = {(c.row, c.col): c for c in t.cells}
    rows, needs, counted = [], {}, set()
    for r in t.rows:
        cells = []
        for col in t.cols:
            cell = by_cell.get((r, col))
            if cell is None:
                cells.append(None)
                continue
            claim = claims_by_id.get(cell.id) or (claims_by_id.get(cell.same_as) if cell.same_as else None)
            if claim is None:
                ours = values.get(cell.id, values.get(cell.same_as) if cell.same_as else None)
                cells.append({"claim": False, "ours": fmt_number(_cell_value(ours, cell.index))})
                continue
            if claim["status"] == "needs_data" and claim["claim_id"] not in counted:
                counted.add(claim["claim_id"])
                needs[claim["note"]] = needs.get(claim["note"], 0) + 1
            cells.append(_claim_cell(claim, cell.index))
        rows.append({"label": t.row_labels.get(r, r), "cells": cells})
    return rows, needs


def table_html(t: RegisterTable, claims_by_id: dict[str, dict], values: dict) -> Markup:
    """One register table, cell by cell: the paper's value, ours (bold), and the status as symbol and word
    ('differs' and 'unexplained' link to the reason, a caveat to its note: † ). A cell the register has no
    claim for shows our value only ("· no claim"); a blank cell of the paper stays empty."""
    rows, needs = _table_rows(t, claims_by_id, values)
    heads = [t.col_labels.get(c, c) for c in t.cols]
    return render("table.html", heads=heads, rows=rows, needs=list(needs.items()), no_claim=NO_CLAIM)


def table_provenance_html(t: RegisterTable, provenance: dict[str, str]) -> Markup:
    """The functions (and tests) that compute a table's cells, each listed once."""
    seen = [s for s in dict.fromkeys(provenance_for(c.id, provenance) for c in t.cells) if s]
    return render("provenance.html", provs=[split_provenance(s) for s in seen])


def text_claims_html(rows: pd.DataFrame) -> Markup:
    """The claims that are not table cells: one row each with the status, the claim (id, what, where, the
    function that computes it), the paper's value, ours (with any variants) and the note."""
    out = []
    for r in rows.to_dict("records"):
        st = r["status"]
        dec = claim_decimals(r)
        out.append(
            {
                "status": st,
                "mark": _status(r),
                "claim_id": r["claim_id"],
                "what": r["what"],
                "source": r["source"],
                "prov": _prov(r["provenance"]),
                "paper": paper_html(r),
                "ours": fmt_number(r["_ours"], dec),
                "variants": _variants(r["variants"], dec),
                # differs: the kind of reason, linked; else the status's own note (missing input, caveat,
                # what is wrong), else the register's note
                "note_href": anchor(r["claim_id"]) if st == "differs" else None,
                "note": REASONS[r["reason"]].split(" (")[0]
                if st == "differs"
                else (r["note"] if st != "quoted" and r["note"] else r["register_note"]),
            }
        )
    return render("text_claims.html", rows=out)


# ----------------------------------------------------------------------------------------------- reasons


def _why_id(r: dict) -> dict:
    """A claim id in the reasons list (the anchor its cell links to) with the paper's value, ours and the
    Monte-Carlo standard error where one was published."""
    out = {"id": r["claim_id"], "anchor": anchor(r["claim_id"]), "ours": None}
    if r["_ours"] is not None:
        out.update(paper=paper_html(r), ours=fmt_number(r["_ours"], claim_decimals(r)), mc_se=r["mc_se"])
    return out


def _why_head(status: str, reason: str, note: str) -> str:
    if status == "differs":
        return f" — {REASONS[reason]}"
    if status == "reproduced":
        return " — note no longer needed" if note.startswith(STALE) else " — caveat"
    return ""


def why_html(rows: pd.DataFrame, labels: dict[str, str]) -> Markup:
    """The reasons, grouped by (status, reason, note, evidence): every differs (the kind of reason, the note
    with its numbers, the evidence), every unexplained claim (what is wrong) and every caveat. Each claim id
    carries the anchor its cell links to, with the paper's value and ours. ``labels``:
    :func:`sphinx_labels` (evidence naming a label becomes a link)."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows.to_dict("records"):
        groups.setdefault((r["status"], r["reason"], r["note"], r["evidence"]), []).append(r)
    out = [
        {
            "sym": MARK[st][0],
            "word": MARK[st][1],
            "head": _why_head(st, reason, note),
            "note": note,
            "evidence": evidence,
            "evidence_href": labels.get(evidence),
            "ids": [_why_id(r) for r in grp],
        }
        for (st, reason, note, evidence), grp in groups.items()
    ]
    return render("why.html", groups=out)


def reason_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The rows the reasons section lists: differs, unexplained, and reproduced claims with a caveat note
    (differs first, then unexplained, then caveats; register order within each)."""
    order = {"differs": 0, "unexplained": 1, "reproduced": 2}
    sel = table[
        (table["status"].isin(["differs", "unexplained"])) | ((table["status"] == "reproduced") & (table["note"] != ""))
    ]
    return sel.assign(_o=sel["status"].map(order)).sort_values("_o", kind="stable").drop(columns="_o")


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


# ----------------------------------------------------------------------------------------------- chapter


def _sections(ev: Evaluation, provenance: dict[str, dict[str, str]], study: str) -> list[dict]:
    """A study's sections: one per register table (where printed, the table, the functions that compute
    it), then the text claims."""
    by_id = {r["claim_id"]: r for r in ev.table.to_dict("records")}
    in_tables = {c.id for t in ev.tables for c in t.cells} | {
        c.same_as for t in ev.tables for c in t.cells if c.same_as
    }
    vals = ev.values.get(STUDY_STAGE[study], {})
    out = []
    for t in [t for t in ev.tables if t.study == study]:
        head = t.caption or t.label
        body = table_html(t, by_id, vals) + table_provenance_html(t, provenance.get(study, {}))
        first = t.cells[0].id if t.cells else ""
        out.append({"id": section_id(study, t.slug), "heading": head, "table": t, "first_id": first, "body": body})
    text = ev.table[(ev.table["study"] == study) & ~ev.table["claim_id"].isin(in_tables)]
    if len(text):
        heading = f"Text claims ({len(text)})"
        out.append({"id": section_id(study, "text"), "heading": heading, "table": None, "body": text_claims_html(text)})
    return out


def study_html(ev: Evaluation, provenance: dict[str, dict[str, str]] | None, study: str) -> Markup:
    """A study's part of the chapter: a list of its tables (links), then one section per register table
    (heading, where printed, the table cell by cell, the functions that compute it), then the text claims.
    ``provenance``: ``{study: PROVENANCE}`` (None: the evaluation's own)."""
    if study not in STUDIES:
        raise ValueError(f"unknown study {study!r}; the studies are {', '.join(STUDIES)}")
    return render("study.html", sections=_sections(ev, ev.provenance if provenance is None else provenance, study))


def completeness_html(ev: Evaluation, provenance_problems: dict[str, str] | None = None, first: int = 4) -> Markup:
    """Per register table: how many cell ids no values.json has yet (with the first few), and any study
    whose provenance module is missing."""
    size = {f"{t.study}/{t.slug}": len(t.ids) for t in ev.tables}
    missing = [(key, ids, size.get(key, "")) for key, ids in ev.missing_cells.items()]
    problems = [(STUDY_NAME.get(s, s), p) for s, p in (provenance_problems or {}).items()]
    return render("completeness.html", missing=missing, first=first, problems=problems)


def summary_display(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`~compendium.claims.compare.summary` with the status columns headed by symbol and word (for
    the chapter)."""
    s = summary(table)
    return s.rename(columns={st: f"{MARK[st][0]} {MARK[st][1]}" for st in STATUSES})
