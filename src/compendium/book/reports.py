"""The replication reports as PDF: each ``<study>/report.md`` of ``python -m compendium.claims report OUT`` rendered
to HTML and printed through the book's own PDF path (headless Chromium, offline: :func:`compendium.book.pdf.print_pdf`).

``python -m compendium.book.reports DIR`` writes ``DIR/<study>/report.html`` and ``report.pdf`` beside every
``report.md`` under ``DIR`` (``make report`` runs it after the Markdown). The Markdown is rendered by markdown-it-py
(CommonMark with tables) with raw HTML off, so a report's text, which comes from the ledger, reaches the page
only as text. The page carries its own small print style sheet (serif body at 10.5 pt, tables that fit the page)
and loads nothing from the network.
"""

from __future__ import annotations

import html
import sys
from pathlib import Path

__all__ = ["STYLE", "report_html", "write_pdfs", "main"]

#: the report page's style: A4, a 10.5 pt body, compact tables that wrap instead of overflowing
STYLE = """
@page { size: A4; margin: 18mm 16mm; }
body { font-family: "DejaVu Serif", Georgia, serif; font-size: 10.5pt; line-height: 1.4; color: #111; }
h1 { font-size: 16pt; line-height: 1.25; } h2 { font-size: 13pt; margin-top: 1.4em; } h3 { font-size: 11.5pt; }
table { border-collapse: collapse; margin: .6em 0; font-size: 9pt; width: 100%; table-layout: auto; }
th, td { border: 1px solid #999; padding: 2px 5px; vertical-align: top; overflow-wrap: anywhere; }
th { background: #eee; overflow-wrap: normal; } code { font-size: 8.5pt; overflow-wrap: anywhere; }
tr, li { break-inside: avoid; }
"""


def report_html(markdown: str, title: str) -> str:
    """A self-contained HTML page of one report's Markdown (CommonMark and tables, raw HTML off)."""
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n<body>\n{body}</body></html>\n"
    )


def _title(markdown: str, fallback: str) -> str:
    first = next((ln for ln in markdown.splitlines() if ln.startswith("# ")), "")
    return first[2:].replace("\\", "").strip() or fallback


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
