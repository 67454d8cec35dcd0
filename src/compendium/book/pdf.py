"""A PDF of the whole book, built offline: a single-page HTML build printed by headless Chromium.

    python -m compendium.book.pdf                 # build book/_build/pdf/book.pdf (what `make pdf` runs)
    python -m compendium.book.pdf --html-only     # only the single-page HTML build
    python -m compendium.book.pdf --print X.html Y.pdf   # print one HTML file (no book build)

Why this route: Jupyter Book 1's ``pdfhtml`` builder downloads its own browser (pyppeteer), and its
LaTeX route needs a TeX installation that chokes on κ, α and ≥. Here:

1. ``jupyter-book build book --builder singlehtml --path-output book/_build/pdf`` renders the stored
   notebook outputs (``book/executed/``, nothing is executed) into one page,
   ``book/_build/pdf/_build/singlehtml/intro.html``; the HTML book in ``book/_build/html`` is never
   touched. Figures are the PNGs the stages glued, numbered references are resolved by Sphinx.
2. :func:`print_pdf` writes ``print.html`` beside it (the same page plus a print stylesheet: no
   sidebars, full width, figures and table rows not split across pages) and prints it with the Debian
   Chromium (the one :mod:`compendium.book.browsercheck` drives), headless, with every host name resolving
   nowhere (no network), and a *virtual-time budget*: Chromium runs the page's scripts (MathJax, which
   the book vendors in ``_static/mathjax``) on a virtual clock and prints once they are idle or the
   budget is spent.
3. :func:`check_pdf` reads the result back: the ``%PDF`` header, the page count, and, when poppler's
   ``pdftotext`` is installed, that the text holds no unrendered TeX (``\\(``, ``$$``) or raw MyST.
4. A PDF that passed those checks gets ``book-pdf.js`` beside it (:func:`write_pdf_info`, :data:`PDF_INFO`): the
   HTML book's footer and download menu link the PDF only when that file loads, and say it is not built otherwise
   (:mod:`compendium.book.sphinx_chrome`).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from compendium.pipeline import paths

OUT = paths.BOOK / "_build" / "pdf"  # --path-output of the single-page build
SINGLEHTML = OUT / "_build" / "singlehtml"
PDF = OUT / "book.pdf"
#: written beside a PDF that passed its checks, removed before each print: the HTML book loads it (a <script>,
#: which works from file:// too) to link the PDF, or to say it is not built (compendium.book.sphinx_chrome)
PDF_INFO = OUT / "book-pdf.js"
VIRTUAL_TIME_MS = 60_000  # MathJax and layout of a ~1 MB page need well under this
# Chromium flags known to work on this machine (compendium.book.browsercheck.CHROMIUM_ARGS) plus no network:
# every host name resolves nowhere, so a page that tried to fetch a remote asset would print without it
# (and compendium.book's offline check already fails such a page).
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--run-all-compositor-stages-before-draw",
    "--no-pdf-header-footer",
    # PDF bookmarks from the page's headings (every chapter and section); Chromium 121 and later
    "--generate-pdf-document-outline",
]

PRINT_CSS = """
<style media="print">
  @page { size: A4; margin: 16mm 14mm 18mm 14mm; }
  html { font-size: 13px; }
  .bd-header, .bd-sidebar-primary, .bd-sidebar-secondary, .bd-footer, .bd-footer-article, .bd-footer-content,
  .prev-next-area, .header-article, .bd-header-article, .headerlink, .skip-link, #pst-back-to-top,
  .copybtn, .search-button-field, .theme-switch-button, .sidebar-toggle { display: none !important; }
  .bd-container, .bd-container__inner, .bd-main, .bd-page-width, .bd-content, .bd-article-container,
  .bd-article, article { max-width: none !important; width: 100% !important; margin: 0 !important;
  padding: 0 !important; display: block !important; }
  figure, img, .cell_output img, tr, pre, .admonition { break-inside: avoid; }
  h1, h2, h3, h4 { break-after: avoid; }
  section > h1 { break-before: page; }
  img { max-width: 100% !important; height: auto !important; }
  /* a figure taller than the page would be split, and the page before it left blank (Chromium moves an
     unbreakable box to a new page, then breaks it anyway): at most the printable height less its caption */
  img { max-height: 215mm !important; width: auto !important; object-fit: contain; }
  table { font-size: 0.85em; max-width: 100%; }
  .pst-scrollable-table-container, .table-wrapper, .output, .cell_output { overflow: visible !important; }
  pre { white-space: pre-wrap; word-break: break-word; }
  details { display: block; }
  a { color: inherit; text-decoration: none; }
</style>
"""
# what must not survive into the PDF's text: unrendered TeX delimiters and raw MyST roles/directives
RAW = re.compile(r"\\\(|\\\[|\$\$|\{(glue:\w+|glue|numref|ref|cite|doc|eq)\}|^:::", re.M)


def chromium() -> str:
    from compendium.book.browsercheck import chromium_path

    return chromium_path()


def build_singlehtml(book: Path = paths.BOOK, out: Path = OUT) -> Path:
    """Render the book (stored outputs only) into one HTML page under ``out``; return its path."""
    exe = Path(sys.executable).with_name("jupyter-book")
    cmd = [
        str(exe) if exe.exists() else "jupyter-book",
        "build",
        str(book),
        "--builder",
        "singlehtml",
        "--path-output",
        str(out),
        "--all",
    ]
    print("building the single-page HTML book ...", flush=True)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-4000:])
        raise RuntimeError(f"jupyter-book singlehtml build failed (exit {proc.returncode}); see its output above")
    html_dir = out / "_build" / "singlehtml"
    master = html_dir / "intro.html"  # the toc's root page holds the whole book in singlehtml
    if not master.exists():
        raise RuntimeError(f"the single-page build wrote no {master}")
    print(f"single-page HTML: {master} ({master.stat().st_size / 1e6:.1f} MB, {time.perf_counter() - t0:.0f} s)")
    return master


def add_print_css(html: Path) -> Path:
    """Write ``print.html`` beside ``html``: the same page with :data:`PRINT_CSS` before ``</head>``."""
    text = html.read_text(encoding="utf-8")
    if "</head>" not in text:
        raise ValueError(f"{html}: no </head>; not an HTML page")
    out = html.with_name("print.html")
    out.write_text(text.replace("</head>", PRINT_CSS + "</head>", 1), encoding="utf-8")
    return out


def print_pdf(
    html: Path, pdf: Path, budget_ms: int = VIRTUAL_TIME_MS, timeout: float = 900, print_css: bool = True
) -> Path:
    """Print ``html`` to ``pdf`` with headless Chromium, offline, after a virtual-time budget."""
    html, pdf = Path(html).resolve(), Path(pdf).resolve()
    page = add_print_css(html) if print_css else html
    pdf.parent.mkdir(parents=True, exist_ok=True)
    tmp = pdf.with_name(pdf.name + ".part")
    tmp.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="compendium-chromium-") as profile:
        cmd = [
            chromium(),
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            f"--virtual-time-budget={budget_ms}",
            f"--print-to-pdf={tmp}",
            page.as_uri(),
        ]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0 or not tmp.exists() or tmp.stat().st_size == 0:
        raise RuntimeError(f"chromium could not print {page} (exit {proc.returncode}): {proc.stderr[-2000:]}")
    tmp.replace(pdf)  # a failed print leaves the last good PDF in place
    print(f"printed {pdf} ({pdf.stat().st_size / 1e6:.1f} MB, {time.perf_counter() - t0:.0f} s)")
    return pdf


def page_count(pdf: Path) -> int:
    """Pages of ``pdf``: poppler's ``pdfinfo`` if installed, else the page objects in the file."""
    if shutil.which("pdfinfo"):
        out = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
        return int(re.search(r"^Pages:\s+(\d+)", out, re.M).group(1))
    return len(re.findall(rb"/Type\s*/Page(?![s\w])", Path(pdf).read_bytes()))


def pdf_text(pdf: Path) -> str | None:
    """The PDF's text (poppler's ``pdftotext``), or None where poppler is not installed."""
    if not shutil.which("pdftotext"):
        return None
    return subprocess.run(
        ["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout


def page_texts(pdf: Path) -> list[str] | None:
    """The text of each page of ``pdf`` (poppler's ``pdftotext`` separates pages with a form feed), or None
    where poppler is not installed."""
    text = pdf_text(pdf)
    if text is None:
        return None
    pages = text.split("\f")
    return pages[:-1] if pages and not pages[-1].strip() else pages


def image_pages(pdf: Path) -> dict[int, int] | None:
    """page number (from 1) -> images drawn on it (poppler's ``pdfimages -list``), or None without poppler."""
    if not shutil.which("pdfimages"):
        return None
    out = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True, check=True).stdout
    counts: dict[int, int] = {}
    for line in out.splitlines()[2:]:
        fields = line.split()
        if fields and fields[0].isdigit():
            counts[int(fields[0])] = counts.get(int(fields[0]), 0) + 1
    return counts


def outline_entries(pdf: Path) -> int:
    """Bookmarks in ``pdf``'s document outline: outline items are the dictionaries with both a ``/Title`` and a
    ``/Dest`` (Chromium writes them uncompressed); 0 where the catalog has no ``/Outlines``."""
    data = Path(pdf).read_bytes()
    if b"/Outlines" not in data:
        return 0
    return len(re.findall(rb"<<\s*/Title\s*[(<][^\n]*\n?\s*/Dest\b", data))


_CAPTION = re.compile(
    r'<span class="caption-number">(Fig\. [\d.]+)\s*</span><span class="caption-text">(.*?)</span>', re.S
)


def figure_captions(html: Path) -> dict[str, str]:
    """``Fig. N.M`` -> the first words of its caption, from the single-page HTML the PDF was printed from."""
    import html as htmllib

    out = {}
    for number, caption in _CAPTION.findall(Path(html).read_text(encoding="utf-8")):
        words = htmllib.unescape(re.sub(r"<[^>]+>", "", caption)).split()
        out[number] = " ".join(words[:6])
    return out


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\u00ad", "")).strip()


def layout_problems(pdf: Path, html: Path | None = None) -> list[str]:
    """Empty pages, pages with an image and no text, and (with the HTML it was printed from) figures whose caption
    is on a page without an image: figures split from their captions. Empty where poppler is not installed."""
    texts = page_texts(pdf)
    images = image_pages(pdf) if texts is not None else None
    if texts is None or images is None:
        return []
    problems = []
    for i, t in enumerate(texts, start=1):
        if not t.strip():
            # an image alone on a page: its caption (always below it) was pushed to the next page
            problems.append(
                f"{pdf}: page {i} holds an image without any text: a figure split from its caption"
                if images.get(i)
                else f"{pdf}: page {i} is empty (no text, no image)"
            )
    if html is not None:
        squashed = [_squash(t) for t in texts]
        for number, start in figure_captions(html).items():
            needle = _squash(f"{number} {start}")
            where = [i for i, t in enumerate(squashed, start=1) if needle in t]
            if not where:
                problems.append(f"{pdf}: the caption of {number} ({start!r} ...) is on no page")
            elif not images.get(where[0]):
                problems.append(f"{pdf}: {number} is split from its caption: page {where[0]} has the caption, no image")
    return problems


def check_pdf(
    pdf: Path,
    min_pages: int = 1,
    must_contain: tuple[str, ...] = (),
    html: Path | None = None,
    min_bookmarks: int = 0,
) -> list[str]:
    """Problems with ``pdf``: not a PDF, too few pages, raw markup or missing text, empty pages, figures split
    from their captions (given the ``html`` it was printed from), fewer than ``min_bookmarks`` bookmarks
    (empty list: fine)."""
    pdf = Path(pdf)
    if not pdf.exists():
        return [f"{pdf}: missing"]
    if not pdf.read_bytes()[:5] == b"%PDF-":
        return [f"{pdf}: not a PDF (no %PDF- header)"]
    problems = []
    n = page_count(pdf)
    if n < min_pages:
        problems.append(f"{pdf}: {n} page(s), expected at least {min_pages}")
    text = pdf_text(pdf)
    if text is not None:
        for m in list(RAW.finditer(text))[:10]:
            problems.append(
                f"{pdf}: raw markup in the text: {m.group(0)!r} near {text[max(0, m.start() - 40) : m.end() + 40]!r}"
            )
        for s in must_contain:
            if s not in text:
                problems.append(f"{pdf}: the text lacks {s!r}")
    problems += layout_problems(pdf, html)
    if min_bookmarks and (b := outline_entries(pdf)) < min_bookmarks:
        problems.append(f"{pdf}: {b} bookmarks in its outline, expected at least {min_bookmarks}")
    return problems


def write_pdf_info(pdf: Path = PDF, info: Path | None = None) -> Path:
    """Write ``book-pdf.js`` beside ``pdf`` (:data:`PDF_INFO`): ``window.COMPENDIUM_PDF`` with the PDF's file name,
    pages and bytes, numbers the HTML book shows beside its link to the PDF."""
    import json

    pdf = Path(pdf)
    info = Path(info) if info is not None else pdf.with_name(PDF_INFO.name)
    facts = {"file": pdf.name, "pages": page_count(pdf), "bytes": pdf.stat().st_size}
    info.write_text("window.COMPENDIUM_PDF = " + json.dumps(facts, sort_keys=True) + ";\n", encoding="utf-8")
    return info


def missing_chapters(book: Path = paths.BOOK) -> list[str]:
    """Executed chapters the table of contents lists but ``book/executed/`` lacks (a fresh clone)."""
    files = re.findall(r"^\s*-?\s*file:\s*(executed/\S+)", (book / "_toc.yml").read_text(), re.M)
    return [f"book/{f}.ipynb" for f in files if not (book / f"{f}.ipynb").exists()]


def main(argv=None) -> int:
    from compendium.pipeline.cli import safe_output

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--html-only", action="store_true", help="only build the single-page HTML")
    ap.add_argument("--print", nargs=2, metavar=("HTML", "PDF"), help="print one HTML file to PDF")
    ap.add_argument("--budget-ms", type=int, default=VIRTUAL_TIME_MS)
    args = ap.parse_args(argv)
    if args.print:
        pdf = print_pdf(Path(args.print[0]), Path(args.print[1]), args.budget_ms)
        problems = check_pdf(pdf)
    else:
        from compendium.book import failed_chapters

        broken = failed_chapters()
        missing = missing_chapters()
        if broken or missing:
            print(
                "ERROR: the chapters are not all executed (run `dvc repro book` first): "
                + "; ".join(broken + [f"{m} missing" for m in missing]),
                file=sys.stderr,
            )
            return 1
        master = build_singlehtml()
        if args.html_only:
            return 0
        PDF_INFO.unlink(missing_ok=True)  # the book links the PDF again only once the new one passed its checks
        pdf = print_pdf(master, PDF, args.budget_ms)
        # the register's Greek letters and relations must reach the page as text
        # every chapter has a bookmark (the toc's files), every figure stays on one page with its caption
        n_chapters = len(re.findall(r"^\s*-?\s*file:", (paths.BOOK / "_toc.yml").read_text(), re.M)) + 1
        problems = check_pdf(pdf, min_pages=20, must_contain=("κ", "α", "≥"), html=master, min_bookmarks=n_chapters)
    print(f"{pdf}: {page_count(pdf)} pages")
    if not args.print and not problems:
        write_pdf_info(pdf, PDF_INFO)
    for p in problems:
        print("PROBLEM:", p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
