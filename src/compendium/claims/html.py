"""The claims chapter's HTML: Jinja2 templates (``templates/``), with autoescaping on.

Every value a template prints is escaped (after :func:`compendium.chapter.safetext.visible` shows invisible
controls), so text from the register, the notes or the data reaches the page only as text. The two
fragments of HTML made here are :func:`clean_printed` (and :func:`paper_html`, which uses it): the printed
token is escaped first and only then given ``<sup>`` tags, and :func:`readable_html`: a note is escaped first and
only then a span between backticks (a command) put in ``<code>``; each is a :class:`~markupsafe.Markup`.

The chapter's tables are compact (the whole register stays well under 2 MB), with the status of every
cell as a symbol and a word, and every 'differs' linked to its reason (``#why-<id>``). The style sheet is
``templates/claims.css``.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from compendium.chapter import safetext
from compendium.pipeline import paths

from . import links
from .compare import Evaluation, gap, summary
from .register import RegisterTable, data_for, provenance_for, split_provenance
from .vocab import (
    BOOLEAN_COLS,
    LEVEL_NAME,
    MARK,
    NO_CLAIM,
    REASONS,
    STALE,
    STATUSES,
    STUDIES,
    STUDY_NAME,
    STUDY_STAGE,
    WIDE_MARK,
    readable,
)


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
    """The HTML id of a claim id in the list of reasons (its paper value and ours)."""
    return "why-" + re.sub(r"[^A-Za-z0-9_.-]", "-", claim_id)


def why_anchor(claim: Mapping) -> str:
    """The HTML id of the reason a claim's status links to: the item of the reasons list that holds its
    (status, reason, note, evidence), shared by every claim with the same explanation (a digest of those
    four, so that it stays the same from build to build while the explanation does)."""
    key = "\0".join(str(claim.get(k) or "") for k in ("status", "reason", "note", "evidence"))
    slug = re.sub(r"[^a-z0-9]+", "-", str(claim.get("reason") or claim.get("status") or "").lower()).strip("-")
    return f"why-{slug}-{hashlib.sha256(key.encode()).hexdigest()[:10]}"


def trail(provenance: str, data: Sequence[str] = ()) -> dict:
    """The links of one claim (or one table) to its code, its test and its raw data, from the claims page:
    ``{"fns": [(name, href)], "test": (name, href) | None, "data": [(label, href)]}`` (an href is None when
    the named file does not exist: the name is shown unlinked, and the link test fails)."""
    fns, test = split_provenance(provenance) if provenance else ("", "")
    return {
        "fns": [(f, links.code_href(f)) for f in links.split_functions(fns)],
        "test": (test, links.code_href(test)) if test else None,
        "data": [links.data_link(f) for f in dict.fromkeys(data)],
    }


def section_id(study: str, slug: str) -> str:
    return f"claims-{study}-{re.sub(r'[^A-Za-z0-9_-]', '-', slug)}"


def style_html() -> Markup:
    """The chapter's ``<style>`` element (``templates/claims.css``)."""
    return render("style.html")


def legend_html() -> Markup:
    """The key to the tables: the status symbols and words, the caveat mark, and the order within a cell."""
    return render("legend.html", marks=list(MARK.values()), no_claim=NO_CLAIM, wide_mark=WIDE_MARK)


# ------------------------------------------------------------------------------------------------- numbers


def clean_printed(token: str) -> Markup:
    """The printed token, readable as HTML: escaped, then LaTeX braces and escapes removed and powers
    written as superscripts."""
    t = safetext.html(token)
    t = t.replace("{,}", ",").replace("\\%", "%").replace("$", "").replace("\\approx", "≈").replace("~", "")
    t = re.sub(r"\^\{([^{}]*)\}", r"<sup>\1</sup>", t)
    t = re.sub(r"\^(-?\d+)", r"<sup>\1</sup>", t)
    return Markup(t.replace("{", "").replace("}", "").strip())


_TEX = (
    ("{,}", ","),
    ("\\times", "×"),
    ("\\%", "%"),
    ("\\approx", "≈"),
    ("\\leq", "≤"),
    ("\\geq", "≥"),
    ("\\le ", "≤ "),
    ("\\ge ", "≥ "),
    ("\\pm", "±"),
    ("$", ""),
    ("`", ""),
)


def readable_text(text) -> str:
    """Register and note text as a reader reads it: the LaTeX of a quoted number (``4{,}096``, ``$3 \\times
    5$``) and Markdown backticks written plainly. Plain text: the template escapes it."""
    t = str(text or "")
    for a, b in _TEX:
        t = t.replace(a, b)
    return t


#: a code span in text from data (a run of backticks, the text, the same run): the one construct read from it, by
#: :func:`readable_html` here and by the replication reports (:func:`compendium.claims.report._md`)
CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def readable_html(text) -> Markup:
    """Register, note and missing-input text as HTML: :func:`readable_text`'s plain LaTeX, everything escaped,
    and then a span between backticks (a command, a file name: ``run `python -m x` ``) shown as code, its
    escaped text inside ``<code>``. That is the one construct read from the text, and it can only wrap text
    (escaping came first, so no ``<`` or ``&`` of the text survives); a backtick without its partner stays a
    backtick. Nothing else of Markdown or MyST is read (the text is data)."""
    t = str(text or "")
    for a, b in _TEX:
        if a != "`":
            t = t.replace(a, b)
    return Markup(CODE_SPAN.sub(lambda m: f"<code>{m.group(2)}</code>", safetext.html(t)))


#: a clause of a register table's note that speaks to the register's maintainers, not to a reader: the brief's
#: slugs, which claims are "existing" ones, the numbering of the compiled paper against the brief's
_MAINTAINERS_CLAUSE = re.compile(r"\bbrief\b|\bslugs?\b|\bexisting\b|\bcompiled paper\b", re.IGNORECASE)


def reader_note(note: str) -> str:
    """The part of a register table's note meant for a reader: its clauses (split at "; " and at sentence ends)
    without those written for the register's maintainers (:data:`_MAINTAINERS_CLAUSE`: "the brief's example slug
    'appf' refers to this table", "the %s are existing claims wb.reasons.*"); "" when nothing is left. The register
    itself keeps the whole note (it is a verbatim copy of the team's)."""
    kept = [c for c in _clauses(str(note or "")) if not _MAINTAINERS_CLAUSE.search(c)]
    return "; ".join(kept)


def _clauses(text: str) -> list[str]:
    """``text`` split at "; " and at a sentence's end, but never inside parentheses ("(chart precision for C, D;
    3 dp for untrained)" stays one piece)."""
    out, depth, start = [], 0, 0
    for m in re.finditer(r"[()]|;\s+|(?<=[a-z)])\.\s+(?=[A-Z0-9])", text):
        tok = m.group(0)
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(text[start : m.start()])
            start = m.end()
    out.append(text[start:])
    return [c.strip() for c in out if c.strip()]


def _decimals(v) -> int:
    if isinstance(v, float):
        s = repr(v)
        if "e" in s:
            return -1
        return len(s.split(".")[1].rstrip("0")) if "." in s else 0
    return 0


_NUMBER_TOKEN = re.compile(r"[~≈<>≤≥+\-−\s$]*\d[\d,{}]*(?:\.(\d+))?\s*(?:\\?%)?\s*\$?")


def tolerance_decimals(tol) -> int | None:
    """The decimals a tolerance implies: the fewest with half a unit of the last one within it (0.05 -> 1,
    0.0005 -> 3, 0.01 -> 2, 1e-06 -> 6, 0.5 or more -> 0); None for no tolerance (0: an exact count or label)."""
    try:
        tol = float(tol or 0)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(tol) or tol <= 0:
        return None
    return max(math.ceil(-math.log10(2 * tol) - 1e-9), 0)


def claim_decimals(row) -> int:
    """How many decimals the paper's number has: from the printed token if it is a plain number ("+44.0"
    -> 1), else from the tolerance (:func:`tolerance_decimals`), else from the value (6 at most)."""
    m = _NUMBER_TOKEN.fullmatch(str(row.get("printed") or ""))
    if m:
        return len(m.group(1) or "")
    d = tolerance_decimals(row.get("tolerance"))
    if d is not None:
        return min(d, 6)
    return min(max(_decimals(row.get("_published")), 0), 6)


def fmt_number(v, decimals: int | None = None, boolean: bool = False) -> str:
    """A value for the page, as text: the paper's decimals (``decimals``, :func:`claim_decimals`) and one
    more while they are fewer than three (so a reader sees which side of the rounding ours is on); tiny or
    huge numbers in 3 significant digits; integers as integers; thousands separated by commas; booleans
    (and, with ``boolean``, 0 and 1) as yes/no. The CSV keeps every digit."""
    if v is None:
        return "—"
    if isinstance(v, str):
        return v
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(fmt_number(x, decimals, boolean) for x in v) + "]"
    if isinstance(v, bool) or (boolean and v in (0, 1)):
        return "yes" if v else "no"
    x = float(v)
    if not math.isfinite(x):
        return str(x)
    if x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e7):
        return f"{x:.3g}".replace("e-0", "e-").replace("e+0", "e+")
    if float(x).is_integer() and (decimals is None or decimals <= 0):
        return f"{int(x):,}"
    d = 4 if decimals is None or decimals < 0 else (decimals + 1 if decimals < 3 else decimals)
    return f"{x:,.{min(d, 6)}f}"


def _fixed(v, decimals: int) -> str:
    """A number of the paper's, with exactly its decimals (thousands separated); else :func:`fmt_number`."""
    if isinstance(v, float) and math.isfinite(v) and not (v != 0 and abs(v) < 1e-3) and abs(v) < 1e7:
        return f"{v:,.{min(decimals, 6)}f}"
    return fmt_number(v, 0)


def paper_html(row) -> Markup:
    """The paper's value of a claim as HTML: its relation, then the printed token (:func:`clean_printed`)
    or the register's value."""
    rel = row["relation"]
    pub = row["_published"]
    if row["printed"]:
        txt = clean_printed(row["printed"])
    else:
        txt = _h(_fixed(pub, claim_decimals(row)))
    return (_h(rel) + " " if rel else Markup("")) + txt


def _cell_value(v, index):
    if index is None:
        return v
    try:
        return v[index[0]][index[1]]
    except (TypeError, IndexError, KeyError):
        return None


def _variants(variants_json: str, decimals: int | None) -> list[tuple[str, str]]:
    return (
        [(readable(k), fmt_number(v, decimals)) for k, v in json.loads(variants_json).items()] if variants_json else []
    )


def printed_half_unit(row: Mapping) -> float:
    """Half a unit of the paper's last printed decimal (:func:`claim_decimals`, 6 at most): the widest gap
    rounding alone explains (+44.0 -> 0.05, 4,096 -> 0.5)."""
    return 0.5 * 10.0 ** -min(claim_decimals(row), 6)


def wide_tolerance(row: Mapping) -> bool:
    """Whether a reproduced number matches only because its tolerance is wider than the digits the paper prints:
    ours is further from the printed number than half a unit of its last decimal (:func:`printed_half_unit`), so
    ours rounded to the paper's digits is another number (ΔPWI +35.2 printed, 35.10 ours, within the register's
    0.1 for a difference of two rounded values). A relation, a label or a claim that is not reproduced never is;
    a gap of binary rounding never is."""
    if row.get("status") != "reproduced" or row.get("relation") or row.get("kind") == "label":
        return False
    g = gap(row.get("_published"), row.get("_ours"))
    if g is None:
        return False
    half = printed_half_unit(row)
    try:
        scale = float(np.max(np.abs(np.asarray(row.get("_published"), dtype=float))))
    except (TypeError, ValueError):
        scale = 1.0
    return g > half + 1e-9 * max(1.0, scale)


def wide_anchor(row: Mapping) -> str:
    """The HTML id of the footnote that gives the reason for a wide tolerance (:func:`wide_tolerance`), shared by
    every claim with the same tolerance, printed digits and register note."""
    key = "\0".join(str(row.get(k) or "") for k in ("tolerance", "register_note")) + f"\0{printed_half_unit(row)!r}"
    return f"why-wide-{hashlib.sha256(key.encode()).hexdigest()[:10]}"


def _status(claim: dict, dagger: bool = False) -> dict:
    """A claim's status mark: symbol, word, the reason it links to (differs, unexplained), with ``dagger`` the
    caveat of a reproduced number, and the mark of a match within a tolerance wider than the printed digits
    (:func:`wide_tolerance`), linked to its footnote."""
    st = claim["status"]
    sym, word = MARK[st]
    return {
        "sym": sym,
        "word": word,
        "href": why_anchor(claim) if st in ("differs", "unexplained") else None,
        "dagger": why_anchor(claim) if dagger and st == "reproduced" and claim["note"] else None,
        "wide": wide_anchor(claim) if wide_tolerance(claim) else None,
        "wide_mark": WIDE_MARK,
    }


def _data_files(row: Mapping) -> list[str]:
    return [f for f in str(row.get("data") or "").split("; ") if f]


# ------------------------------------------------------------------------------------------- the tables


def claim_anchor(claim_id: str, anchored: set[str] | None) -> str | None:
    """The element id a claim's place on the claims page carries: the claim id itself (a citable URL,
    ``05_claims.html#wb.zones.green``), on the first of its places only (``anchored``: the ids the page already
    placed, updated here); None when it is placed already or when no set is kept."""
    if anchored is None or claim_id in anchored:
        return None
    anchored.add(claim_id)
    return claim_id


def _claim_cell(
    claim: dict, index: tuple[int, int] | None, boolean: bool = False, anchored: set[str] | None = None
) -> dict:
    """One table cell with a claim: paper's value, ours (bold), status mark, variants, and its anchor (the claim
    id, on its first cell: :func:`claim_anchor`)."""
    dec = claim_decimals(claim)
    if index is None:
        paper, ours = paper_html(claim), fmt_number(claim["_ours"], dec, boolean)
    else:
        pv = _cell_value(claim["_published"], index)
        paper, ours = _fixed(pv, dec), fmt_number(_cell_value(claim["_ours"], index), dec, boolean)
    return {
        "claim": True,
        "anchor": claim_anchor(claim["claim_id"], anchored),
        "status": claim["status"],
        "paper": paper,
        "ours": ours,
        "mark": _status(claim, dagger=True),
        "variants": _variants(claim["variants"], dec),
    }


def _column_decimals(t: RegisterTable, by_cell: dict, claims_by_id: dict[str, dict]) -> dict[str, int | None]:
    """Per column, the decimals its claims print (the most common; the table's where a column has none): the
    digits a cell with no claim of that column is shown with, so that it reads like its neighbours (2.090
    among 0.970 and 1.643, not 2.0900)."""
    per_col: dict[str, list[int]] = {}
    for (_, col), cell in by_cell.items():
        claim = claims_by_id.get(cell.id) or (claims_by_id.get(cell.same_as) if cell.same_as else None)
        if claim is not None:
            per_col.setdefault(col, []).append(claim_decimals(claim))
    every = [d for ds in per_col.values() for d in ds]

    def most_common(ds: list[int]) -> int | None:
        return max(sorted(set(ds)), key=ds.count) if ds else None

    return {col: most_common(per_col.get(col) or every) for col in t.cols}


def _no_claim_cell(ours: str, blank: bool = False) -> dict:
    """A cell the register has no claim for: the paper's value (none: "—"), ours, and "· no claim"; ``blank``: a
    cell the paper leaves blank (shown the same way, so that no cell of a table is empty)."""
    return {"claim": False, "ours": ours, "blank": blank}


def _table_rows(
    t: RegisterTable, claims_by_id: dict[str, dict], values: dict, anchored: set[str] | None = None
) -> tuple[list[dict], dict[str, int]]:
    """The rows of a register table for ``table.html`` and ``{why: n}`` of its needs-data claims."""
    by_cell = {(c.row, c.col): c for c in t.cells}
    col_dec = _column_decimals(t, by_cell, claims_by_id)
    rows, needs, counted = [], {}, set()
    for r in t.rows:
        cells = []
        for col in t.cols:
            cell = by_cell.get((r, col))
            if cell is None:
                cells.append(_no_claim_cell("—", blank=True))
                continue
            claim = claims_by_id.get(cell.id) or (claims_by_id.get(cell.same_as) if cell.same_as else None)
            if claim is None:
                ours = values.get(cell.id, values.get(cell.same_as) if cell.same_as else None)
                cells.append(
                    _no_claim_cell(fmt_number(_cell_value(ours, cell.index), col_dec[col], col in BOOLEAN_COLS))
                )
                continue
            if claim["status"] == "needs_data" and claim["claim_id"] not in counted:
                counted.add(claim["claim_id"])
                needs[claim["note"]] = needs.get(claim["note"], 0) + 1
            cells.append(_claim_cell(claim, cell.index, col in BOOLEAN_COLS, anchored))
        rows.append({"label": t.row_labels.get(r) or readable(r), "cells": cells})
    return rows, needs


def table_html(
    t: RegisterTable, claims_by_id: dict[str, dict], values: dict, anchored: set[str] | None = None
) -> Markup:
    """One register table, cell by cell: the paper's value, ours (bold), and the status as symbol and word
    ('differs' and 'unexplained' link to the reason, a caveat to its note: †, a match within a tolerance wider
    than the printed digits to its footnote: ±). A cell the register has no claim for shows our value only, in
    its column's digits, and "· no claim"; so does a cell the paper leaves blank ("—"). ``anchored``: the claim
    ids the page has placed already (a cell gets its claim's id as anchor, with a link to itself, once). The
    needs-data line names each missing input (:func:`readable_html`: a command in it shows as code)."""
    rows, needs = _table_rows(t, claims_by_id, values, anchored)
    heads = [t.col_labels.get(c) or readable(c) for c in t.cols]
    needs_html = [(readable_html(why), n) for why, n in needs.items()]
    return render("table.html", heads=heads, rows=rows, needs=needs_html, no_claim=NO_CLAIM)


def table_provenance_html(
    t: RegisterTable, provenance: dict[str, str], data: Mapping[str, tuple[str, ...]] | None = None
) -> Markup:
    """The functions (and tests) that compute a table's cells, each listed once, linked to their source in
    the book, and the raw files they read (``data``: the study's ``DATA``), linked to the data chapter."""
    seen = [s for s in dict.fromkeys(provenance_for(c.id, provenance) for c in t.cells) if s]
    files = list(dict.fromkeys(f for c in t.cells for f in data_for(c.id, data or {})))
    return render("provenance.html", provs=[trail(s) for s in seen], data=trail("", files)["data"])


def text_claims_html(rows: pd.DataFrame, anchored: set[str] | None = None) -> Markup:
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
                "anchor": claim_anchor(r["claim_id"], anchored),
                "what": readable_html(r["what"]),
                "source": readable_html(r["source"]),
                "trail": trail(r["provenance"], _data_files(r)),
                "paper": paper_html(r),
                "ours": fmt_number(r["_ours"], dec),
                "variants": _variants(r["variants"], dec),
                # differs: the kind of reason, linked; else the status's own note (missing input, caveat,
                # what is wrong), else the register's note
                "note_href": why_anchor(r) if st == "differs" else None,
                "note": REASONS[r["reason"]].split(" (")[0]
                if st == "differs"
                else readable_html(r["note"] if st != "quoted" and r["note"] else r["register_note"]),
            }
        )
    return render("text_claims.html", rows=out)


# ----------------------------------------------------------------------------------------------- reasons


def _se(text: str) -> str:
    """A Monte-Carlo standard error (a number or a JSON list of them) in two significant digits."""
    try:
        v = json.loads(text) if text else None
    except ValueError:
        return str(text)
    if isinstance(v, list):
        return "[" + ", ".join(_se(json.dumps(x)) for x in v) + "]"
    return f"{v:.2g}" if isinstance(v, (int, float)) and not isinstance(v, bool) else ("" if v is None else str(v))


def _why_id(r: dict, anchored: set[str]) -> dict:
    """A claim id in the reasons list (the anchor its cell links to, on its first place in the list only) with
    the paper's value, ours and the Monte-Carlo standard error where one was published."""
    out = {"id": r["claim_id"], "anchor": claim_anchor(anchor(r["claim_id"]), anchored), "ours": None}
    if r["_ours"] is not None:
        out.update(paper=paper_html(r), ours=fmt_number(r["_ours"], claim_decimals(r)), mc_se=_se(r["mc_se"]))
    return out


def _why_head(status: str, reason: str, note: str) -> str:
    if status == "differs":
        return f" — {REASONS[reason]}"
    if status == "reproduced":
        return " — note no longer needed" if note.startswith(STALE) else " — caveat"
    return ""


def _wide_note(r: Mapping) -> Markup:
    """The footnote of a match within a wide tolerance: the tolerance against half a unit of the printed digits,
    and the register's reason for it (its note for readers, :func:`reader_note`)."""
    why = reader_note(r.get("register_note") or "")
    head = f"tolerance {r['tolerance']} against {printed_half_unit(r):g}, half a unit of the last digit printed"
    return readable_html(f"{head}: {why}" if why else f"{head} (the register gives no reason)")


def why_html(rows: pd.DataFrame, labels: dict[str, str], titles: dict[str, str] | None = None) -> Markup:
    """The reasons, grouped by (status, reason, note, evidence): every differs (the kind of reason, the note
    with its numbers, the evidence), every unexplained claim (what is wrong) and every caveat; then the footnotes
    of the numbers reproduced only within a tolerance wider than their printed digits (:func:`wide_tolerance`,
    marked ±), grouped by tolerance, printed digits and the register's reason. Each claim id carries the anchor
    its cell links to (on its first place in the list), with the paper's value and ours. ``labels``:
    :func:`sphinx_labels` (evidence naming a label becomes a link); ``titles``: :func:`sphinx_label_titles` (the
    link reads the section's title, not the label)."""
    groups: dict[tuple, list[dict]] = {}
    wide: dict[str, list[dict]] = {}
    for r in rows.to_dict("records"):
        if r["status"] in ("differs", "unexplained") or (r["status"] == "reproduced" and r["note"]):
            groups.setdefault((r["status"], r["reason"], r["note"], r["evidence"]), []).append(r)
        if wide_tolerance(r):
            wide.setdefault(wide_anchor(r), []).append(r)
    anchored: set[str] = set()
    out = [
        {
            "anchor": why_anchor(grp[0]),
            "sym": MARK[st][0],
            "word": MARK[st][1],
            "head": _why_head(st, reason, note),
            "note": readable_html(note),
            "evidence": (titles or {}).get(evidence, evidence),
            "evidence_href": labels.get(evidence) or links.code_href(evidence),
            "ids": [_why_id(r, anchored) for r in grp],
        }
        for (st, reason, note, evidence), grp in groups.items()
    ]
    out += [
        {
            "anchor": key,
            "sym": WIDE_MARK,
            "word": MARK["reproduced"][1],
            "head": " within a tolerance wider than the printed digits (ours, rounded to them, is another number)",
            "note": _wide_note(grp[0]),
            "evidence": "",
            "evidence_href": None,
            "ids": [_why_id(r, anchored) for r in grp],
        }
        for key, grp in wide.items()
    ]
    return render("why.html", groups=out)


def reason_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The rows the reasons section lists: differs, unexplained, reproduced claims with a caveat note, and
    reproduced claims within a tolerance wider than their printed digits (:func:`wide_tolerance`; differs first,
    then unexplained, then the reproduced; register order within each)."""
    order = {"differs": 0, "unexplained": 1, "reproduced": 2}
    wide = pd.Series([wide_tolerance(r) for r in table.to_dict("records")], index=table.index, dtype=bool)
    sel = table[
        (table["status"].isin(["differs", "unexplained"]))
        | ((table["status"] == "reproduced") & ((table["note"] != "") | wide))
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


_TITLED_LABEL = re.compile(r"^\(([A-Za-z0-9_.:-]+)\)=\s*\n#+\s+(.+?)\s*$", re.MULTILINE)


def sphinx_label_titles(notebooks_dir: Path | None = None, book_dir: Path | None = None) -> dict[str, str]:
    """``{label: the title of the section it names}`` for the chapters' ``(label)=`` targets on a heading (the
    evidence of a reason reads "Printed numbers that the released files contradict", not its label)."""
    files = sorted(Path(notebooks_dir or paths.NOTEBOOKS).glob("*.md")) + sorted(
        Path(book_dir or paths.BOOK).glob("*.md")
    )
    out = {}
    for p in files:
        for m in _TITLED_LABEL.finditer(p.read_text(errors="replace")):
            out.setdefault(m.group(1), re.sub(r"\{[a-z:]+\}`([^`]*)`", r"\1", m.group(2)).replace("`", ""))
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
    out, anchored = [], set()  # each claim id anchors its first place in the study's part of the page
    for t in [t for t in ev.tables if t.study == study]:
        head = t.caption or t.label
        body = table_html(t, by_id, vals, anchored) + table_provenance_html(
            t, provenance.get(study, {}), ev.data_files.get(study, {})
        )
        first = t.cells[0].id if t.cells else ""
        out.append(
            {
                "id": section_id(study, t.slug),
                "heading": head,
                "table": t,
                "note": reader_note(t.note),  # the register's maintainers' clauses stay in the register
                "first_id": first,
                "body": body,
            }
        )
    text = ev.table[(ev.table["study"] == study) & ~ev.table["claim_id"].isin(in_tables)]
    if len(text):
        heading = f"Text claims ({len(text)})"
        out.append(
            {
                "id": section_id(study, "text"),
                "heading": heading,
                "table": None,
                "body": text_claims_html(text, anchored),
            }
        )
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
    s = s.assign(
        study=s["study"].map(lambda v: STUDY_NAME.get(v, v)), level=s["level"].map(lambda v: LEVEL_NAME.get(v, v))
    )
    return s.rename(columns={st: f"{MARK[st][0]} {MARK[st][1]}" for st in STATUSES})
