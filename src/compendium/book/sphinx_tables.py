"""Sphinx extension: wide tables use the page's right margin, long paths and hashes break, prose keeps a width.

At 1280 px the book's text column is 688 px wide and the page's contents column beside it leaves about 280 px
of margin below its few lines; a table wider than the column used to be cut at the column's edge. For every
table of a page (``doctree-resolved``), a docutils table (the chapters' ``compendium.chapter.display.table``,
the Markdown pages) or a ``<table>`` in a chapter's HTML output (the claims tables: when the page is read, ``doctree-read``):

- its width with every cell on one line is estimated from its text (:func:`one_line_em`); above the text
  column (:data:`COLUMN_EM`) the table gets the class ``full-width``, sphinx-book-theme's class for content
  that spans the margin: the theme folds its contents column away while such content is on screen, and
  ``book/_static/custom.css`` widens the table's scrolling box into the margin on screens of 1200 px and more
  (where that column exists);
- a column of long single tokens (paths, hashes: :func:`column_kinds`) gets ``compendium-token`` on its cells,
  which may break anywhere, and after each ``/`` first (a ``<wbr>`` is inserted there: a path breaks at its
  folders); a column of prose gets ``compendium-prose``, a minimum width, so that a path beside it no longer
  squeezes it to a word a line (the data chapter's Table 2.3 gave its descriptions 111 px and the paths 438).

What still does not fit scrolls in its box, and ``book/_static/scrollcue.js`` marks the box's cut edge (which
``custom.css`` fades). The text of a cell is only measured, never rewritten: a ``<wbr>`` goes between text
nodes, which the HTML writer escapes as before. The HTML of an output is changed only in the ``class`` of a
``<table>`` start tag.

Enabled in ``book/_config.yml`` (``sphinx.config.extensions``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html.parser import HTMLParser
from typing import Any

from docutils import nodes

#: the average advance of a character of table text, in em (DejaVu/Liberation Sans, digits and letters mixed;
#: fitted on the book's 123 tables: the estimate's median ratio to the width Chromium lays out is 1.06)
CHAR_EM = 0.55
#: a cell's left and right padding (custom.css: 0.45em each)
PAD_EM = 0.9
#: the least width of a header cell and of a body cell (custom.css: ``min-width`` of th and td)
TH_MIN_EM, TD_MIN_EM = 6.0, 4.5
#: the text column in em of table text: 688 px at 1280 px is 52.4 em of 0.82rem (13.1 px); 50 leaves room for
#: the estimate's error (a table of 737 px was estimated at 676: 51.5 em)
COLUMN_EM = 50.0
FULL_WIDTH = "full-width"
#: a cell of a token column: no white space and at least this many characters (a path, a hash, an id)
TOKEN_CHARS = 20
#: a cell of a prose column: at least this many words
PROSE_WORDS = 6
TOKEN, PROSE = "compendium-token", "compendium-prose"

Cell = tuple[bool, Sequence[str]]  # (a header cell, its lines)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def column_widths(rows: Sequence[Sequence[Cell]]) -> list[float]:
    """Each column's width in em with its cells on one line (a cell of several lines: its longest), at least
    the least width of its cells."""
    widths: list[float] = []
    for row in rows:
        for k, (head, lines) in enumerate(row):
            w = max([len(_one_line(t)) for t in lines] or [0]) * CHAR_EM + PAD_EM
            w = max(w, TH_MIN_EM if head else TD_MIN_EM)
            if k == len(widths):
                widths.append(w)
            else:
                widths[k] = max(widths[k], w)
    return widths


def one_line_em(rows: Sequence[Sequence[Cell]]) -> float:
    """The estimated width of a table, in em of its text, with every cell on one line."""
    return sum(column_widths(rows))


def is_wide(rows: Sequence[Sequence[Cell]]) -> bool:
    return one_line_em(rows) > COLUMN_EM


def column_kinds(body: Sequence[Sequence[str]]) -> list[str | None]:
    """Per column of the body rows (cell texts): :data:`TOKEN` when at least half of its non-empty cells are one
    token of :data:`TOKEN_CHARS` characters or more, :data:`PROSE` when its non-empty cells hold
    :data:`PROSE_WORDS` words or more on average, else None."""
    ncol = max((len(r) for r in body), default=0)
    kinds: list[str | None] = []
    for k in range(ncol):
        cells = [_one_line(r[k]) for r in body if k < len(r) and r[k].strip()]
        if not cells:
            kinds.append(None)
        elif sum(1 for c in cells if " " not in c and len(c) >= TOKEN_CHARS) * 2 >= len(cells):
            kinds.append(TOKEN)
        elif sum(len(c.split()) for c in cells) >= PROSE_WORDS * len(cells):
            kinds.append(PROSE)
        else:
            kinds.append(None)
    return kinds


# --------------------------------------------------------------------------------------- docutils tables


def _rows(table: nodes.table) -> list[tuple[bool, list[tuple[int, nodes.entry]]]]:
    """(a header row, [(column, entry)]) for every row of a table, columns counted across spanned cells."""
    out = []
    for group in table.findall(nodes.tgroup):
        for part in group.children:
            if not isinstance(part, (nodes.thead, nodes.tbody)):
                continue
            for row in part.children:
                if not isinstance(row, nodes.row):
                    continue
                cells, k = [], 0
                for entry in row.children:
                    if isinstance(entry, nodes.entry):
                        cells.append((k, entry))
                        k += 1 + entry.get("morecols", 0)
                out.append((isinstance(part, nodes.thead), cells))
        break  # one tgroup per table (docutils)
    return out


def _break_after_slashes(entry: nodes.entry) -> None:
    """A ``<wbr>`` after each ``/`` inside a path of the cell's text (not in code: code spans break anywhere)."""
    for text in list(entry.findall(nodes.Text)):
        parent = text.parent
        if isinstance(parent, (nodes.literal, nodes.raw)) or "/" not in text.astext().rstrip("/"):
            continue
        parts = re.split(r"(?<=/)(?=[^/\s])", text.astext())
        new: list[nodes.Node] = []
        for k, part in enumerate(parts):
            if k:
                new.append(nodes.raw("", "<wbr>", format="html"))
            new.append(nodes.Text(part))
        parent.replace(text, new)


def mark_table(table: nodes.table) -> None:
    """``full-width`` on a wide docutils table, and the column kinds (:func:`column_kinds`) on its cells."""
    rows = _rows(table)
    if (
        is_wide([[(head, [e.astext()]) for _, e in cells] for head, cells in rows])
        and FULL_WIDTH not in table["classes"]
    ):
        table["classes"].append(FULL_WIDTH)
    body = [{k: e.astext() for k, e in cells} for head, cells in rows if not head]
    ncol = max((max(b, default=-1) + 1 for b in body), default=0)
    kinds = column_kinds([[b.get(k, "") for k in range(ncol)] for b in body])
    for _, cells in rows:
        for k, entry in cells:
            kind = kinds[k] if k < len(kinds) else None
            if kind and kind not in entry["classes"]:
                entry["classes"].append(kind)
                if kind == TOKEN:
                    _break_after_slashes(entry)


# ------------------------------------------------------------------------------------- tables in raw HTML


class _Tables(HTMLParser):
    """The tables of an HTML fragment: for each, where its start tag is and its rows of cells (their lines)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables: list[dict] = []
        self.open: list[dict] = []

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            t = {"pos": self.getpos(), "tag": self.get_starttag_text(), "rows": []}
            self.tables.append(t)
            self.open.append(t)
        elif not self.open:
            return
        elif tag == "tr":
            self.open[-1]["rows"].append([])
        elif tag in ("td", "th") and self.open[-1]["rows"]:
            self.open[-1]["rows"][-1].append((tag == "th", [""]))
        elif tag == "br" and self.open[-1]["rows"] and self.open[-1]["rows"][-1]:
            self.open[-1]["rows"][-1][-1][1].append("")

    def handle_endtag(self, tag):
        if tag == "table" and self.open:
            self.open.pop()

    def handle_data(self, data):
        if self.open and self.open[-1]["rows"] and self.open[-1]["rows"][-1]:
            lines = self.open[-1]["rows"][-1][-1][1]
            lines[-1] += data


def _with_class(start_tag: str, cls: str) -> str:
    m = re.search(r"""\sclass=(["'])(.*?)\1""", start_tag, re.S)
    if m:
        if cls in m.group(2).split():
            return start_tag
        return start_tag[: m.end(2)] + " " + cls + start_tag[m.end(2) :]
    return re.sub(r"^<table\b", f'<table class="{cls}"', start_tag, flags=re.I)


def mark_html_tables(html: str) -> str:
    """``html`` with ``full-width`` added to the class of each wide ``<table>`` (:func:`is_wide`); nothing
    else of it changes."""
    if "<table" not in html.lower():
        return html
    p = _Tables()
    p.feed(html)
    p.close()
    starts = [0]
    for line in html.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    out, last = [], 0
    for t in p.tables:
        if not is_wide(t["rows"]):
            continue
        line, col = t["pos"]
        at = starts[line - 1] + col
        if html[at : at + len(t["tag"])] != t["tag"]:  # not where the parser said: leave the table as it is
            continue
        out += [html[last:at], _with_class(t["tag"], FULL_WIDTH)]
        last = at + len(t["tag"])
    return "".join(out) + html[last:] if out else html


# --------------------------------------------------------------------------------------------------- Sphinx


#: set on a raw HTML node whose tables were marked when its page was read (a doctree attribute: not written out)
MARKED = "compendium_tables_marked"


def _mark_raw(raw: nodes.raw) -> None:
    if "html" not in raw.get("format", "").split() or raw.get(MARKED):
        return
    text = raw.astext()
    new = mark_html_tables(text)
    if new != text:
        marked = nodes.raw(raw.rawsource, new, **raw.attributes)
        marked[MARKED] = True
        raw.replace_self(marked)
    else:
        raw[MARKED] = True


def _mark_read(app, doctree) -> None:
    """``doctree-read``: the tables in the page's raw HTML (a chapter's HTML outputs: the claims tables), once, when
    the page is read; they are part of the page's doctree, which an incremental build keeps for a page it does not
    read again (parsing them at every build took 0.2 s of the exercise loop's book). Their width depends only on
    their own text."""
    for raw in list(doctree.findall(nodes.raw)):
        _mark_raw(raw)


def _mark(app, doctree, docname: str) -> None:
    """``doctree-resolved``: every docutils table of the page (its cells' text is complete only once references are
    resolved), and the raw HTML that reached the page after it was read (glued from another notebook)."""
    for table in list(doctree.findall(nodes.table)):
        mark_table(table)
    _mark_read(app, doctree)  # flagged raw HTML is skipped


def setup(app) -> dict[str, Any]:
    app.connect("doctree-read", _mark_read)
    app.connect("doctree-resolved", _mark)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
