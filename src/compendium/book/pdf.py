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
2. :func:`print_pdf` writes ``print.html`` beside it (the same page plus a print stylesheet, :data:`PRINT_CSS`:
   no sidebars, body text at :data:`BODY_PT` pt, tables the width of the page with their cells wrapped so that
   nothing is wider than the page (Chromium would shrink the whole book to fit it), figures and table rows not
   split across pages, long tables, notes and listings free to break) and prints it with the Debian
   Chromium (the one :mod:`compendium.book.browsercheck` drives), headless, with every host name resolving
   nowhere (no network), and a *virtual-time budget*: Chromium runs the page's scripts (MathJax, which
   the book vendors in ``_static/mathjax``) on a virtual clock and prints once they are idle or the
   budget is spent.
3. :func:`check_pdf` reads the result back: the ``%PDF`` header, the page count, and, when poppler's
   ``pdftotext`` is installed, that the text holds no unrendered TeX (``\\(``, ``$$``) or raw MyST; the size the
   body text is printed at (read from the PDF's content streams: at least :data:`MIN_BODY_PT` pt) and how full
   each page is (from poppler's ``pdftoppm``: every page but the last at least :data:`MIN_FILL` full).
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
import zlib
from collections import Counter
from pathlib import Path
from string import Template

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

# A4 and its margins (mm): the print stylesheet sets them, page_fill measures each page's fill inside them
PAGE_MM = (210, 297)
MARGIN_MM = {"top": 16, "right": 14, "bottom": 18, "left": 14}
BODY_PT = 10  # the body text's size on paper: Chromium prints 1 CSS pt as 1 pt when nothing overflows the page
MIN_BODY_PT = 9.0  # check_pdf: the size that carries the most text may not be smaller
MIN_TEXT_PT = 6.5  # check_pdf: nor any size that carries at least SMALL_SHARE of the text (table notes, code in tables)
SMALL_SHARE = 0.01
MIN_FILL = 0.25  # check_pdf: every page but the last is at least this full (of its printable height)
# A figure that does not fit below the text on a page moves to the next one and leaves the rest blank: it must fit
# in what a page less than MIN_FILL full leaves (263 mm printable x 0.75 = 197 mm), less 37 mm for its caption
# (up to six lines) and margins.
FIGURE_MAX_MM = int((PAGE_MM[1] - MARGIN_MM["top"] - MARGIN_MM["bottom"]) * (1 - MIN_FILL)) - 37
PRINT_CSS = Template(
    """
<style media="print">
  @page { size: A4; margin: ${top}mm ${right}mm ${bottom}mm ${left}mm; }
  html { font-size: ${body}pt; }
  body { orphans: 3; widows: 3; overflow-wrap: break-word; }
  .bd-header, .bd-sidebar-primary, .bd-sidebar-secondary, .bd-footer, .bd-footer-article, .bd-footer-content,
  .prev-next-area, .header-article, .bd-header-article, .headerlink, .skip-link, #pst-back-to-top,
  .copybtn, .search-button-field, .theme-switch-button, .sidebar-toggle { display: none !important; }
  .bd-container, .bd-container__inner, .bd-main, .bd-page-width, .bd-content, .bd-article-container,
  .bd-article, article { max-width: none !important; width: 100% !important; margin: 0 !important;
  padding: 0 !important; display: block !important; }
  /* Nothing may be wider than the page: Chromium shrinks the whole book to fit its widest box (a table of 1,410
     px made the body 6.5 pt). Tables span the text width and wrap their cells: none of the screen's minimum column
     widths (book/_static/custom.css), no unbreakable status or note, and long identifiers break anywhere. */
  table { width: 100% !important; max-width: 100% !important; font-size: 0.85em; }
  table.cl { font-size: 0.85rem !important; }
  table.cl small, table.cl a.cl-self { font-size: 0.8rem !important; }
  table td, table th { min-width: 0 !important; max-width: none !important;
  padding-left: 0.25em !important; padding-right: 0.25em !important; }
  /* in a table of six or more columns a header may break inside a word: a column of numbers under
     "p_rank_consolidated" keeps the numbers' width (a narrower table keeps its headers' words whole) */
  table:has(> * > tr > :nth-child(6)) th, table:has(> * > tr > :nth-child(6)) th * {
  overflow-wrap: anywhere !important; }
  /* ... but in a table of up to twelve columns a column header is at least a short word wide (HUMANE Table 6.5 printed
     "mo/del/s" and "spre/ad"); twelve such headers are 60 em of 7.5 pt, inside the page's 180 mm */
  table:has(> * > tr > :nth-child(6)):not(:has(> * > tr > :nth-child(13))) > thead > tr > th {
  min-width: 5em !important; }
  /* ten columns of "✓ reproduced" at 8 pt are wider than the page: a table of ten or more columns prints smaller */
  table:has(> * > tr > :nth-child(10)) { font-size: 0.75rem !important; }
  table:has(> * > tr > :nth-child(10)) small { font-size: 0.7rem !important; }
  table code, table .pre, table a, td.compendium-token, th.compendium-token { overflow-wrap: anywhere !important;
  white-space: normal !important; }
  table small, .cl-st, .cl-legend span { white-space: normal !important; }
  pre { white-space: pre-wrap !important; overflow-wrap: anywhere; }
  /* Paper does not scroll: a box that scrolls on screen shows all of its content (what is still too wide then
     shrinks the book, which check_pdf reports, instead of being cut off unseen). */
  div, pre, table, section, figure, details, blockquote, .output, .cell_output { overflow: visible !important; }
  /* Figures and table rows stay whole; long blocks break between lines and rows: the theme's own print rules keep
     every table, note and listing whole, so one taller than the space left moved to the next page whole. */
  figure, img, .cell_output img, tr { break-inside: avoid; }
  table, pre, .admonition, div.admonition, div.highlight, div.literal-block-wrapper, div[class*="highlight-"],
  .cell_output, details { break-inside: auto !important; }
  h1, h2, h3, h4, caption, .cl-h { break-after: avoid; }
  section > h1 { break-before: page; }
  img { max-width: 100% !important; height: auto !important; }
  /* a figure is at most FIGURE_MAX_MM tall: one taller than the page would be split and the page before it left
     blank (Chromium moves an unbreakable box to a new page, then breaks it anyway), and one taller than three
     quarters of the page left the page before it less than a quarter full */
  img { max-height: ${figure}mm !important; width: auto !important; object-fit: contain; }
  details { display: block; }
  a { color: inherit; text-decoration: none; }
</style>
"""
).substitute(MARGIN_MM, body=BODY_PT, figure=FIGURE_MAX_MM)
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


# --- reading the printed PDF back: the size its text is printed at, and how full each page is -----------------------
# Chromium (Skia) writes PDF 1.4: a classic cross-reference table, one Flate-compressed content stream per page, and
# its text in Identity-H fonts (two bytes a glyph). These few functions read that much of the format with the
# standard library; a PDF they cannot read raises ValueError naming what is missing.

_OBJ = re.compile(rb"(\d+)\s+(\d+)\s+obj\b\s*")
# The operators that set the printed size of text and those that show it, each at a token boundary: a matrix (cm,
# Tm), a font and size (Tf), the graphics state's save and restore (q, Q), a text object's start (BT) and the text
# (Tj, TJ, '). Their operands are read back from just before them: Chromium writes one operator a line and its text
# as hex strings, in which none of these words can occur.
_OPS = re.compile(rb"(?<![^\s\]>)])(cm|Tm|Tf|Tj|TJ|'|q|Q|BT)(?=[\s\[<(/]|$)")


def _xref(data: bytes) -> dict[int, int]:
    """Object number -> byte offset, from the classic cross-reference table that ``startxref`` points to."""
    found = re.findall(rb"startxref\s+(\d+)", data[-2048:])
    start = int(found[-1]) if found else -1
    if start < 0 or data[start : start + 4] != b"xref":
        raise ValueError("no classic cross-reference table (a PDF 1.5 cross-reference stream is not read here)")
    offsets, pos = {}, start + 4
    section = re.compile(rb"\s*(\d+) (\d+)[ \t]*\r?\n")
    while m := section.match(data, pos):
        first, count = int(m.group(1)), int(m.group(2))
        pos = m.end()
        for i in range(count):
            entry = data[pos : pos + 20]
            if entry[17:18] == b"n":
                offsets[first + i] = int(entry[:10])
            pos += 20
    return offsets


class _Pdf:
    """The objects of one PDF file, read on demand through its cross-reference table."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.data = self.path.read_bytes()
        self.offsets = _xref(self.data)

    def _body(self, num: int) -> int:
        if num not in self.offsets or not (m := _OBJ.match(self.data, self.offsets[num])):
            raise ValueError(f"{self.path}: object {num} is not where the cross-reference table says")
        return m.end()

    def dictionary(self, num: int) -> bytes:
        """The text of object ``num`` up to its stream or its end (its dictionary, for a dictionary)."""
        start = self._body(num)
        # a dictionary is short: look no further for its end (a find over the image data behind it took seconds)
        window = start + 1_000_000
        ends = [
            i for i in (self.data.find(b"stream", start, window), self.data.find(b"endobj", start, window)) if i >= 0
        ]
        return self.data[start : min(ends)] if ends else self.data[start:]

    def stream(self, num: int) -> bytes:
        """The decoded stream of object ``num`` (Flate or none)."""
        head = self.dictionary(num)
        length = re.search(rb"/Length\s+(\d+)(\s+\d+\s+R)?", head)
        if not length:
            raise ValueError(f"{self.path}: object {num} has no /Length")
        n = int(self.dictionary(int(length.group(1))).strip()) if length.group(2) else int(length.group(1))
        keyword = re.compile(rb"stream\r?\n").search(self.data, self._body(num))
        if not keyword:
            raise ValueError(f"{self.path}: object {num} has no stream")
        raw = self.data[keyword.end() : keyword.end() + n]
        filters = re.findall(rb"/(\w+Decode)", head)
        if filters not in ([], [b"FlateDecode"]):
            raise ValueError(f"{self.path}: object {num} is encoded with {filters}, not read here")
        return zlib.decompress(raw) if filters else raw

    def ref(self, text: bytes, key: bytes) -> int | None:
        """The object number ``/key`` refers to in ``text`` (``/key N 0 R``), or None."""
        m = re.search(rb"/" + key + rb"\s+(\d+)\s+\d+\s+R", text)
        return int(m.group(1)) if m else None

    def pages(self) -> list[int]:
        """The page objects in reading order (the page tree from the catalog)."""
        trailer = self.data[self.data.rfind(b"trailer") :]
        root = self.ref(trailer, b"Root")
        if root is None:
            raise ValueError(f"{self.path}: no /Root in the trailer")
        out: list[int] = []

        def walk(num: int, depth: int = 0) -> None:
            node = self.dictionary(num)
            if re.search(rb"/Type\s*/Pages\b", node) and depth < 64:
                kids = re.search(rb"/Kids\s*\[(.*?)\]", node, re.S)
                for k in re.findall(rb"(\d+)\s+\d+\s+R", kids.group(1) if kids else b""):
                    walk(int(k), depth + 1)
            elif re.search(rb"/Type\s*/Page\b", node):
                out.append(num)

        walk(self.ref(self.dictionary(root), b"Pages"))
        return out

    def font_widths(self, page: bytes) -> dict[bytes, int]:
        """Bytes per glyph of each font the page names (2 for a Type0 font such as Identity-H, else 1)."""
        res = self.ref(page, b"Resources")
        resources = self.dictionary(res) if res is not None else page  # an indirect or an inline dictionary
        fonts = self.ref(resources, b"Font")
        inline = re.search(rb"/Font\s*<<(.*?)>>", resources, re.S)
        table = self.dictionary(fonts) if fonts is not None else inline.group(1) if inline else b""
        return {
            name: 2 if re.search(rb"/Subtype\s*/Type0\b", self.dictionary(int(num))) else 1
            for name, num in re.findall(rb"/([^\s/<>\[\]()]+)\s+(\d+)\s+\d+\s+R", table)
        }

    def contents(self, page: bytes) -> bytes:
        """The page's content streams, decoded and joined."""
        m = re.search(rb"/Contents\s*(\[[^\]]*\]|\d+\s+\d+\s+R)", page)
        refs = re.findall(rb"(\d+)\s+\d+\s+R", m.group(1)) if m else []
        return b"\n".join(self.stream(int(r)) for r in refs)


def _times(m, n):
    """The product of two PDF matrices [a b c d e f] (m applied first)."""
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F)


_HEX = re.compile(rb"<([0-9A-Fa-f\s]*)>")
_LITERAL = re.compile(rb"\(((?:\\.|[^\\)])*)\)")
_ESCAPE = re.compile(rb"\\(\d{1,3}|.)")


def _glyphs(stream: bytes, end: int, per: int) -> int:
    """Glyphs in the string or array operand that ends just before ``end`` (a text-showing operator), at ``per``
    bytes a glyph."""
    while end > 0 and stream[end - 1 : end].isspace():
        end -= 1
    close = stream[end - 1 : end]
    if close == b">":  # Chromium's case: one hex string
        return len(stream[stream.rfind(b"<", 0, end) + 1 : end - 1].translate(None, b" \t\r\n")) // (2 * per)
    opener = {b"]": b"[", b")": b"("}.get(close)
    if opener is None:
        return 0
    shown = stream[stream.rfind(opener, 0, end) : end]
    hexes = sum(len(h.translate(None, b" \t\r\n")) // (2 * per) for h in _HEX.findall(shown))
    return hexes + sum(len(_ESCAPE.sub(b"x", t)) // per for t in _LITERAL.findall(shown))


def stream_text_sizes(stream: bytes, glyph_bytes: dict[bytes, int] | None = None) -> Counter:
    """Printed size (pt, to 0.1) -> glyphs shown at that size, in one content stream: each text-showing operator's
    glyphs at its font size times the scale of the text matrix and the current transformation (``cm``, kept through
    ``q``/``Q``). ``glyph_bytes`` gives the bytes a glyph of each font takes (default 2: Chromium's Identity-H)."""
    glyph_bytes = glyph_bytes or {}
    identity = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    ctm, stack, tm = identity, [], identity
    font, size, sizes, printed = b"", 0.0, Counter(), None  # printed: the size text is shown at now (None: stale)
    for m in _OPS.finditer(stream):
        op, start = m.group(1), m.start()
        if op in (b"Tj", b"TJ", b"'"):
            if printed is None:
                a, b, c, d, _, _ = _times(tm, ctm)
                printed = round(abs(size) * abs(a * d - b * c) ** 0.5, 1)
            if glyphs := _glyphs(stream, start, glyph_bytes.get(font, 2)):
                sizes[printed] += glyphs
            continue
        printed = None
        if op in (b"cm", b"Tm", b"Tf"):
            operands = stream[max(0, start - 160) : start].split()
            n = 1 if op == b"Tf" else 6  # numbers before the operator (Tf: a font name, then its size)
            try:
                numbers = [float(x) for x in operands[-n:]] if len(operands) >= n + (op == b"Tf") else []
            except ValueError:
                numbers = []
            if len(numbers) != n:
                what = "a font and a size" if op == b"Tf" else "six numbers"
                raise ValueError(f"{op.decode()} at byte {start} of a content stream: {what} expected before it")
            if op == b"Tf":
                font, size = operands[-2].lstrip(b"/"), numbers[0]
                continue
            matrix = tuple(numbers)
            if op == b"cm":
                ctm = _times(matrix, ctm)
            else:
                tm = matrix
        elif op == b"q":
            stack.append(ctm)
        elif op == b"Q":
            ctm = stack.pop() if stack else identity
        elif op == b"BT":
            tm = identity
    return sizes


def text_sizes(pdf: Path) -> list[Counter]:
    """For each page of ``pdf``: printed size (pt, to 0.1) -> glyphs at that size. Raises ValueError for a PDF
    this reader does not understand (no classic cross-reference table, a filter other than Flate)."""
    doc = _Pdf(pdf)
    out = []
    for num in doc.pages():
        page = doc.dictionary(num)
        out.append(stream_text_sizes(doc.contents(page), doc.font_widths(page)))
    return out


def body_size(sizes: list[Counter]) -> tuple[float, float]:
    """(the size that carries the most glyphs: the body text; the smallest size that carries at least
    :data:`SMALL_SHARE` of them) over all pages; (0, 0) for a PDF without text."""
    total = sum(sizes, Counter())
    glyphs = sum(total.values())
    if not glyphs:
        return 0.0, 0.0
    body = max(total, key=lambda s: (total[s], s))
    return body, min(s for s, n in total.items() if n >= SMALL_SHARE * glyphs)


def page_fill(pdf: Path, dpi: int = 30, margins_mm: dict = MARGIN_MM) -> list[float] | None:
    """How full each page of ``pdf`` is: the share of the printable height (inside ``margins_mm``) above its lowest
    mark (text, rule, shading or image), from a grey rendering at ``dpi`` (poppler's ``pdftoppm``); None without
    poppler."""
    if not shutil.which("pdftoppm"):
        return None
    ink = bytes(1 if v < 250 else 0 for v in range(256))  # anything not white
    fills = []
    with tempfile.TemporaryDirectory(prefix="compendium-fill-") as tmp:
        subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", str(pdf), f"{tmp}/p"], check=True, capture_output=True)
        for f in sorted(Path(tmp).glob("p-*.pgm"), key=lambda p: int(p.stem.rsplit("-", 1)[1])):
            raw = f.read_bytes()
            head = re.match(rb"P5\s+(\d+)\s+(\d+)\s+\d+\s", raw)
            width, height = int(head.group(1)), int(head.group(2))
            last = raw[head.end() :].translate(ink).rfind(b"\x01")
            px_mm = dpi / 25.4
            top, printable = margins_mm["top"] * px_mm, height - (margins_mm["top"] + margins_mm["bottom"]) * px_mm
            bottom = -1 if last < 0 else last // width + 1
            fills.append(0.0 if last < 0 else max(0.0, min(1.0, (bottom - top) / printable)))
    return fills


def print_measures(pdf: Path) -> tuple[float, float, list[float] | None]:
    """(the body text's size in pt, the smallest size that carries :data:`SMALL_SHARE` of the text, how full each
    page is: :func:`page_fill`, None without poppler). Raises ValueError for a PDF :func:`text_sizes` cannot read."""
    try:
        body, small = body_size(text_sizes(pdf))
    except zlib.error as exc:
        raise ValueError(f"a content stream does not inflate ({exc})") from None
    return body, small, page_fill(pdf)


def print_summary(measures: tuple[float, float, list[float] | None]) -> str:
    """One line for the build's log: the body text's size, the smallest text's, the emptiest page but the last."""
    body, small, fills = measures
    line = f"body text {body:.1f} pt (the smallest size with {SMALL_SHARE:.0%} of the text: {small:.1f} pt)"
    if fills and len(fills) > 1:
        i = min(range(len(fills) - 1), key=fills.__getitem__)
        line += f"; the emptiest page but the last: {i + 1}, {fills[i]:.0%} full"
    return line


def print_problems(
    pdf: Path,
    measures: tuple[float, float, list[float] | None] | None = None,
    min_body_pt: float = MIN_BODY_PT,
    min_text_pt: float = MIN_TEXT_PT,
    min_fill: float = MIN_FILL,
) -> list[str]:
    """A body text under ``min_body_pt`` (Chromium shrinks the whole book when one box is wider than the page), a
    size under ``min_text_pt`` that carries :data:`SMALL_SHARE` of the text, and a page but the last less than
    ``min_fill`` full (a block moved whole to the next page). ``measures`` as :func:`print_measures` gives them
    (measured here when None). Fill is not judged without poppler; the last page ends the book and may be short."""
    if measures is None:
        try:
            measures = print_measures(pdf)
        except ValueError as exc:
            return [f"{pdf}: cannot read the size of its text ({exc}); print it with Chromium (compendium.book.pdf)"]
    body, small, fills = measures
    problems = []
    if body == 0:
        problems.append(f"{pdf}: no text found in its content streams")
    elif body < min_body_pt:
        problems.append(
            f"{pdf}: the body text is {body:.1f} pt, under {min_body_pt:g} pt: something (a table, a listing) is "
            "wider than the page and Chromium shrank the whole book to fit it; find it in Chromium's print preview "
            "of print.html and let it wrap in PRINT_CSS"
        )
    if 0 < small < min_text_pt:
        problems.append(
            f"{pdf}: text at {small:.1f} pt carries {SMALL_SHARE:.0%} or more of the glyphs, under {min_text_pt:g} pt"
        )
    for i, fill in enumerate((fills or [])[:-1], start=1):
        if 0 < fill < min_fill:  # an empty page is layout_problems' to report
            problems.append(
                f"{pdf}: page {i} is {fill:.0%} full (less than {min_fill:.0%}): the block after it did not fit "
                "below and moved whole to the next page (a figure too tall, or a block that may not break)"
            )
    return problems


def check_pdf(
    pdf: Path,
    min_pages: int = 1,
    must_contain: tuple[str, ...] = (),
    html: Path | None = None,
    min_bookmarks: int = 0,
    measures: tuple[float, float, list[float] | None] | None = None,
) -> list[str]:
    """Problems with ``pdf``: not a PDF, too few pages, raw markup or missing text, empty pages, figures split
    from their captions (given the ``html`` it was printed from), fewer than ``min_bookmarks`` bookmarks, body text
    under :data:`MIN_BODY_PT` or a page but the last less than :data:`MIN_FILL` full (:func:`print_problems`, from
    ``measures`` if given) (empty list: fine)."""
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
    problems += print_problems(pdf, measures)
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


def _measures_or_none(pdf: Path) -> tuple[float, float, list[float] | None] | None:
    """:func:`print_measures`, or None for a PDF it cannot read."""
    try:
        return print_measures(pdf)
    except ValueError:
        return None  # check_pdf measures again and reports why it cannot


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
        measures = _measures_or_none(pdf)
        problems = check_pdf(pdf, measures=measures)
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
        # body text at 9 pt or more, no page but the last under a quarter full
        measures = _measures_or_none(pdf)
        problems = check_pdf(
            pdf, min_pages=20, must_contain=("κ", "α", "≥"), html=master, min_bookmarks=n_chapters, measures=measures
        )
    print(f"{pdf}: {page_count(pdf)} pages" + (f"; {print_summary(measures)}" if measures else ""))
    if not args.print and not problems:
        write_pdf_info(pdf, PDF_INFO)
    for p in problems:
        print("PROBLEM:", p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
