"""The replication reports as PDF: each ``<study>/report.md`` of ``python -m compendium.claims report OUT`` rendered
to HTML and printed through the book's own PDF path (headless Chromium, offline: :func:`compendium.book.pdf.print_pdf`).

``python -m compendium.book.reports DIR`` writes ``DIR/<study>/report.html`` and ``report.pdf`` beside every
``report.md`` under ``DIR`` (``make report`` runs it after the Markdown). The Markdown is rendered by markdown-it-py
(CommonMark with tables) with raw HTML off, so a report's text, which comes from the ledger, reaches the page
only as text. The page carries its own small print style sheet (serif body at 10.5 pt, tables that fit the page)
and loads nothing from the network.

The book publishes the claims stage's copy of the reports (``results/claims/reports/``, without a commit) as the
same pages, ``reports/<study>/report.html`` beside the report's Markdown, ``metadata.yaml`` and ``references.bib``
(:func:`publish`, at the end of every build: :mod:`compendium.book.sphinx_claim_search`); the claims chapter links to
them. Not the PDFs: Chromium takes about 5 s a report and stamps each PDF with the time it printed it, so the book
would no longer be the same bytes on every build; the chapter says how to get them (``make report``).
"""

from __future__ import annotations

import html
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["STYLE", "report_html", "write_pdfs", "publish", "main"]

#: the report page's style: A4, a 10.5 pt body, compact tables that wrap instead of overflowing: a cell's words stay
#: whole (``break-word`` breaks only a word wider than its column, so a column of counts is as wide as "5,731", which
#: ``anywhere`` printed as "5,73 / 1"), code (paths, checksums) breaks anywhere
STYLE = """
@page { size: A4; margin: 18mm 16mm; }
body { font-family: "DejaVu Serif", Georgia, serif; font-size: 10.5pt; line-height: 1.4; color: #111; }
h1 { font-size: 16pt; line-height: 1.25; } h2 { font-size: 13pt; margin-top: 1.4em; } h3 { font-size: 11.5pt; }
table { border-collapse: collapse; margin: .6em 0; font-size: 9pt; width: 100%; table-layout: auto; }
th, td { border: 1px solid #999; padding: 2px 5px; vertical-align: top; overflow-wrap: break-word; }
th { background: #eee; } code { font-size: 8.5pt; overflow-wrap: anywhere; }
tr, li { break-inside: avoid; }
nav { font-family: "DejaVu Sans", Arial, sans-serif; font-size: 9.5pt; }
@media screen { body { max-width: 52em; margin: 1.5em auto; padding: 0 1em; } }
div[role="note"] { border: 2px solid #a04000; background: #fff4e5; padding: .5em .8em; margin: .8em 0; }
"""


def report_html(markdown: str, title: str, links: Sequence[tuple[str, str]] = (), banner: str = "") -> str:
    """A self-contained HTML page of one report's Markdown (CommonMark and tables, raw HTML off); ``links``:
    (label, href) pairs shown above the report (the book's copy: back to the claims page, the report's files),
    each escaped; ``banner``: the book's off-paper banner (:func:`compendium.book.sphinx_offpaper.banner_html`,
    built escaped), shown above the report as on every page of the book, '' on the paper's run."""
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)
    nav = (
        '<nav aria-label="report">'
        + " · ".join(f'<a href="{html.escape(href)}">{html.escape(label)}</a>' for label, href in links)
        + "</nav>\n"
        if links
        else ""
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n<body>\n{nav}{banner}<main>\n{body}</main>\n"
        "</body></html>\n"
    )


def _title(markdown: str, fallback: str) -> str:
    """The text of the report's first heading (its Markdown backslash escapes undone), or ``fallback``."""
    first = next((ln for ln in markdown.splitlines() if ln.startswith("# ")), "")
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", first[2:]).strip() or fallback


def write_pdfs(folder: Path) -> list[Path]:
    """``report.html`` and ``report.pdf`` beside every ``*/report.md`` under ``folder``; the PDFs, in order.
    Raises ``FileNotFoundError`` naming the folder when it holds no report."""
    from compendium.book.pdf import print_pdf

    reports = sorted(Path(folder).glob("*/report.md"))
    if not reports:
        raise FileNotFoundError(
            f"{folder}: no */report.md; write the reports first (python -m compendium.claims report {folder})"
        )
    out = []
    for md in reports:
        text = md.read_text(encoding="utf-8")
        page = md.with_name("report.html")
        page.write_text(report_html(text, _title(text, md.parent.name)), encoding="utf-8")
        out.append(print_pdf(page, md.with_name("report.pdf"), print_css=False))
    return out


def publish(source: Path, outdir: Path) -> list[Path]:
    """The claims stage's replication reports (``source``, ``results/claims/reports/<study>/``: ``report.md``,
    ``metadata.yaml``, ``references.bib``) copied into the built book ``outdir``, under
    :data:`compendium.claims.links.REPORTS_DIR`, each with ``report.html``: its Markdown rendered as
    :func:`report_html` renders it for print (raw HTML off), below links back to the claims page and to the
    report's files, and, when the run is off the reference settings, the book's off-paper banner naming every changed
    key (the same as on the chapters' pages: :mod:`compendium.book.sphinx_offpaper`). The pages written, in order;
    [] when the stage wrote none (a book without the claims stage).
    A study folder that lacks a file is a ``FileNotFoundError`` naming it and the command that writes it again."""
    # the claims check's link names, loaded on their own (:data:`compendium.book.sphinx_sources.links`): importing
    # compendium.claims.links would run the claims package's __init__ and import pandas into the book's Sphinx
    # process, which calls this at the end of every build (0.4 s)
    from .sphinx_claim_search import CLAIMS_DOC
    from .sphinx_offpaper import run_banner
    from .sphinx_sources import links

    REPORT_FILES, REPORTS_DIR = links.REPORT_FILES, links.REPORTS_DIR

    folders = sorted(p.parent for p in Path(source).glob("*/report.md"))
    banner = run_banner()
    back = f"../../{CLAIMS_DOC}.html"  # from <book>/reports/<study>/report.html to the claims page
    pages = []
    for folder in folders:
        files = REPORT_FILES[1:]
        missing = [f for f in files if not (folder / f).is_file()]
        if missing:
            raise FileNotFoundError(
                f"{folder / missing[0]} does not exist: the claims stage writes every report's files; run it again "
                "(dvc repro claims)"
            )
        dest = Path(outdir) / REPORTS_DIR / folder.name
        dest.mkdir(parents=True, exist_ok=True)
        for f in files:
            shutil.copyfile(folder / f, dest / f)
        text = (folder / "report.md").read_text(encoding="utf-8")
        links = [("Claims check", back), ("Markdown", "report.md"), ("ReScience C metadata.yaml", "metadata.yaml")]
        links.append(("the original article (BibTeX)", "references.bib"))
        page = dest / "report.html"
        page.write_text(report_html(text, _title(text, folder.name), links, banner), encoding="utf-8")
        pages.append(page)
    return pages


def main(argv: list[str] | None = None) -> int:
    from compendium.pipeline.cli import safe_output

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m compendium.book.reports DIR (the folder `claims report` wrote)", file=sys.stderr)
        return 2
    try:
        write_pdfs(Path(argv[0]))
    except (FileNotFoundError, RuntimeError) as exc:
        print(f"reports: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
