"""Open every page of the built book in headless Chromium and check what a reader would see.

    python -m compendium.book.browsercheck [book/_build/html] [--screenshots book/_build/screenshots]

For each page: serve the book on 127.0.0.1, load the page in Chromium (Debian's /usr/bin/chromium,
driven by Playwright; no browser download), wait for MathJax, save a full-page screenshot, and fail on
- an image that did not load (missing file or broken reference),
- a broken internal link (target page missing, or its #anchor absent),
- math that MathJax did not render, or raw markup that leaked into the text (``{glue:...}``,
  ``{numref}``, ``{cite}``, ``:::``, ``$$``, Sphinx's "problematic" and "system-message" nodes),
- an image in the page's main content without real alt text (missing, empty, or a file name; theme
  images outside ``<main>`` may keep an empty alt), and a figure's image that does not link to its own file
  (its full-size view: :mod:`compendium.book.sphinx_chrome`),
- more or fewer than one search box a reader sees on a page of the theme (:data:`_CHROME`; its header bar and
  its sidebar each held one), a mention of the book's PDF that ``book/_static/chrome.js`` did not settle, and a
  link to the PDF on a page that says it is not built (a failed request for its ``book-pdf.js`` is that state,
  not a problem),
- a layout that hides content (:data:`_LAYOUT_CHECK`): content wider than the article column outside a
  scrolling box that fits it, code that scrolls sideways, a caption wider than the visible part of its
  table, a column squeezed below five characters with four or more lines of text, text under
  :data:`MIN_TEXT_PX` px, a figure shown at under 67.5 % of its pixel width (its smallest text, 8 pt at
  the 120 dpi of ``compendium.pipeline.results.save_figure``, then falls under 9 px), and a table cut at the
  edge (:data:`CUT`): wider than the edge it may reach (its column's, or for a ``full-width`` table the margin
  beside it) and in no scrolling box, or in a box that runs past that edge, or in a box that scrolls with no
  cue at its cut edge (a mask, shadow or gradient: ``book/_static/scrollcue.js``); the run prints how many; and a
  code line the column wraps that continues at column 0 (``custom.css`` gives wrapped lines a hanging indent),
- the search page (:func:`search_problems`), opened from the file system as the README opens the book: a
  common word (:data:`SEARCH_WORD`) must list results, and no result title may hold markup (a ``<`` that
  opens a tag: a title is shown as text, so markup in the index is shown raw); a claim id of
  ``results/claims/claims.csv`` must list a result on the claims page whose anchor the page holds,
- any WCAG 2.0/2.1 level A or AA violation found by axe-core (from npm: ``package.json`` and its lock file,
  installed by ``make node_modules``), injected into every page; best-practice findings are reported per
  page, not failed. One chapter (:data:`DARK_PAGE`) is also opened in the theme's dark mode
  (``data-theme="dark"``): screenshot and axe again.
The axe results of every page go to ``book/_build/accessibility.json``.

The static checks (links, anchors, image files, the budgets) also run without a browser (:func:`static_problems`).

It also reports each page's HTML size and its load time (navigation until the load event and MathJax are
done), and fails a page over its budget (:data:`BUDGETS`: the claims chapter, which shows every printed
number of the three studies, must stay within 2 MB of HTML and 25,000 HTML elements; it has about
18,000, which load in about 1 s on a quiet 2-core machine). The budget counts what the build wrote, so a
page meets it or not on any machine. The load time is printed beside it, and a load over :data:`SLOW_S`
is marked, not failed: on a shared machine it moves with the load (CI once read 2.22 s for this page),
and a timing is a benchmark's reading, not a test's verdict.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import re
import shutil
import sys
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

from bs4 import BeautifulSoup

from compendium.pipeline import paths

IMAGE_NAME = re.compile(r"(^|/)[\w.-]+\.(png|jpe?g|gif|svg|webp)$", re.IGNORECASE)
WCAG_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
AXE_TAGS = list(WCAG_TAGS) + ["best-practice"]
DARK_PAGE = "executed/20_workbank.html"
REDIRECT = re.compile(r"<meta[^>]+http-equiv=[\"']refresh", re.IGNORECASE)


def alt_problem(img) -> str | None:
    """Why a content image's alt text is not real alt text (missing, empty, a file name), or None."""
    alt = img.get("alt")
    src = img.get("src", "")
    if alt is None:
        return f"image without alt text: {src}"
    alt = alt.strip()
    if not alt:
        return f"image with empty alt text: {src}"
    if alt == src or IMAGE_NAME.search(alt) or alt == src.rsplit("/", 1)[-1]:
        return f"image whose alt text is a file name: {alt[:80]}"
    return None


RAW_MARKUP = re.compile(
    r"\{(glue:\w+|glue|numref|ref|cite|doc|eq|term|download)\}|^:::|```|\$\$|\{\{\s*\w+\s*\}\}", re.M
)
SKIP_PAGES = {"genindex.html", "search.html"}
# page -> (max bytes of HTML, max HTML elements): properties of the built file, the same on every machine
BUDGETS = {"executed/05_claims.html": (2_000_000, 25_000)}
SLOW_S = 2.0  # a page whose median load takes longer is marked "slow" in the report (a reading, not a failure)
LOADS = 3  # a budgeted page is loaded this many times and its median load time reported
MAX_SHOT_PX = 16000  # screenshots of longer pages keep their top 16,000 px


def pages(html_dir: Path) -> list[Path]:
    return sorted(
        p
        for p in html_dir.rglob("*.html")
        if p.name not in SKIP_PAGES and "_static" not in p.parts and "_sources" not in p.parts
    )


def _ids(html_path: Path, cache: dict) -> set[str]:
    if html_path not in cache:
        soup = BeautifulSoup(html_path.read_text(errors="replace"), "html.parser")
        cache[html_path] = {t["id"] for t in soup.find_all(id=True)} | {
            t["name"] for t in soup.find_all("a", attrs={"name": True})
        }
    return cache[html_path]


def html_elements(soup: BeautifulSoup) -> int:
    """How many HTML elements a parsed page holds (every start tag, as the parser builds the tree)."""
    return len(soup.find_all(True))


def _over_budget(rel: str, size: int, elements: int, limits: tuple[int, int]) -> list[str]:
    max_bytes, max_elements = limits
    out = []
    if size > max_bytes:
        out.append(f"{rel}: {size / 1e6:.2f} MB of HTML, over its budget of {max_bytes / 1e6:.1f} MB")
    if elements > max_elements:
        out.append(f"{rel}: {elements:,} HTML elements, over its budget of {max_elements:,}")
    return out


def _links_to_itself(img, page: Path) -> bool:
    """Whether ``img`` lies in a link to its own file (a figure's full-size link, compendium.book.sphinx_chrome)."""
    a = img.find_parent("a", href=True)
    if a is None or urlparse(a["href"]).scheme or urlparse(img.get("src", "")).scheme:
        return False
    target = (page.parent / unquote(urldefrag(a["href"])[0])).resolve()
    return target == (page.parent / unquote(img.get("src", "").split("?")[0])).resolve()


def static_problems(html_dir: Path, budgets: dict[str, tuple[int, int]] = BUDGETS) -> list[str]:
    """Broken internal links/anchors, missing image files, unresolved-reference nodes, raw markup in text, and
    a page over its size or element budget (``budgets``: page -> (max bytes, max HTML elements))."""
    html_dir = Path(html_dir)
    problems, cache = [], {}
    for page in pages(html_dir):
        rel = page.relative_to(html_dir)
        soup = BeautifulSoup(page.read_text(errors="replace"), "html.parser")
        if (name := rel.as_posix()) in budgets:
            problems += _over_budget(name, page.stat().st_size, html_elements(soup), budgets[name])
        main = soup.find("main") or soup
        for img in main.find_all("img"):
            src = img.get("src", "")
            if src.startswith("data:"):
                continue
            if urlparse(src).scheme or src.startswith("//"):
                problems.append(f"{rel}: remote image {src}")
            elif not (page.parent / unquote(src.split("?")[0])).exists():
                problems.append(f"{rel}: missing image {src}")
            why = alt_problem(img)
            if why:
                problems.append(f"{rel}: {why}")
            if img.find_parent("figure") is not None and not _links_to_itself(img, page):
                problems.append(f"{rel}: figure image without a full-size link: {src}")
        for a in soup.find_all("a", href=True):
            href = a["href"]
            if urlparse(href).scheme or href.startswith(("//", "mailto:", "javascript:")):
                continue
            target, frag = urldefrag(href)
            tpath = page if not target else (page.parent / unquote(target.split("?")[0])).resolve()
            if tpath.is_dir():
                tpath = tpath / "index.html"
            if not tpath.exists():
                problems.append(f"{rel}: broken link {href}")
            elif frag and tpath.suffix == ".html" and frag not in _ids(tpath, cache):
                problems.append(f"{rel}: link {href}: no anchor #{frag} in {tpath.name}")
        for cls in ("problematic", "system-message"):
            for node in main.find_all(class_=cls):
                problems.append(f"{rel}: unresolved markup ({cls}): {node.get_text(' ', strip=True)[:80]}")
        # code blocks may legitimately show markup; inline code may not hide a failed role
        for tag in main.find_all(["pre", "script", "style", "math"]):
            tag.decompose()
        for m in RAW_MARKUP.finditer(main.get_text("\n")):
            problems.append(f"{rel}: raw markup in text: {m.group(0)!r}")
    return problems


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # the browser aborting a request it no longer needs (a reload, the next page) is not a problem
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def serve(html_dir: Path):
    handler = functools.partial(_Quiet, directory=str(html_dir))
    server = _Server(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


_PAGE_CHECK = """() => {
  const bad = [];
  for (const img of document.querySelectorAll('main img')) {
    if (!img.complete || img.naturalWidth === 0) bad.push('image did not load: ' + img.getAttribute('src'));
  }
  for (const img of document.querySelectorAll('main img')) {
    const alt = img.getAttribute('alt'), src = img.getAttribute('src') || '';
    if (alt === null || !alt.trim()) bad.push('image without alt text: ' + src);
    else if (alt.trim() === src || /(^|[/])[\\w.-]+[.](png|jpe?g|gif|svg|webp)$/i.test(alt.trim()))
      bad.push('image whose alt text is a file name: ' + alt.slice(0, 80));
  }
  for (const m of document.querySelectorAll('main .math')) {
    if (!m.querySelector('mjx-container')) bad.push('math not rendered: ' + m.textContent.slice(0, 60));
  }
  return bad;
}"""

# What a reader sees go wrong in the layout at the check's width (issue: wide tables cut off, code cells
# scrolling sideways, captions scrolled away, a column squeezed to a letter a line, figures shrunk to 7-px text).
MIN_TEXT_PX = 9
CUT = "table cut at the edge"
_LAYOUT_CHECK = """() => {
  const CUT = '{CUT}';
  const bad = [];
  const col = document.querySelector('article.bd-article') || document.querySelector('main');
  if (!col) return bad;
  const c = col.getBoundingClientRect();
  const heads = [...col.querySelectorAll('h1, h2, h3, h4')];
  const label = (el) => {
    const cap = el.closest('table') && el.closest('table').querySelector('caption');
    const fig = el.closest('figure') && el.closest('figure').querySelector('figcaption');
    if (!cap && !fig && el.tagName === 'TABLE') {  // a table without a caption (the claims tables): its heading
      const h = heads.filter(h => h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING).pop();
      if (h) return 'table under "' + h.textContent.trim().replace(/\\s+/g, ' ').slice(0, 50) + '"';
    }
    const t = (cap || fig || el).textContent.trim().replace(/\\s+/g, ' ');
    return el.tagName.toLowerCase() + ' "' + t.slice(0, 50) + '"';
  };
  const scroller = (el) => {
    for (let a = el.parentElement; a && a !== col; a = a.parentElement) {
      const ox = getComputedStyle(a).overflowX;
      if (ox === 'auto' || ox === 'scroll') return a;
    }
    return null;
  };
  // the right edge a box may reach: its column's, or for a full-width table's box (sphinx-book-theme's class,
  // compendium.book.sphinx_tables) the page's content area's (the margin beside the column), within the window
  const area = document.querySelector('.bd-content');
  const pageRight = Math.min(document.documentElement.clientWidth, area ? area.getBoundingClientRect().right : c.right);
  const edge = (el) => (el.matches('.full-width') || el.querySelector(':scope > .full-width')) ? pageRight : c.right;
  // 1. content wider than its column (outside any scroll box that fits the column); tables: rule 7
  for (const el of col.querySelectorAll('pre, img, figure, .cell_output, .output, div.highlight, svg')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0) continue;
    const s = scroller(el);
    const box = s ? s.getBoundingClientRect() : c;
    if (s && box.right > edge(s) + 1) { bad.push('scroll box wider than its column (' + Math.round(box.width) + ' px in ' + Math.round(c.width) + '): ' + label(el)); continue; }
    if (!s && r.right > edge(el) + 1) bad.push('content wider than its column (' + Math.round(r.width) + ' px in ' + Math.round(c.width) + '): ' + label(el));
  }
  // 2. code that scrolls sideways instead of wrapping
  for (const el of col.querySelectorAll('pre')) {
    if (el.scrollWidth > el.clientWidth + 1) bad.push('code overflows sideways (' + el.scrollWidth + ' px in ' + el.clientWidth + '): ' + el.textContent.trim().slice(0, 50));
  }
  // 3. captions that scroll away or are cut: the caption must lie within the visible box of its scroller
  for (const cap of col.querySelectorAll('caption, figcaption')) {
    const r = cap.getBoundingClientRect();
    const s = scroller(cap);
    const box = s ? s.getBoundingClientRect() : c;
    if (r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1)) bad.push('caption wider than the visible table (' + Math.round(r.width) + ' px in ' + Math.round(box.width) + '): ' + cap.textContent.trim().slice(0, 50));
  }
  // 4. squeezed columns: a cell narrower than 5 characters whose text wraps to 4 lines or more
  for (const td of col.querySelectorAll('td, th')) {
    const cs = getComputedStyle(td), fs = parseFloat(cs.fontSize), lh = parseFloat(cs.lineHeight) || fs * 1.4;
    const r = td.getBoundingClientRect();
    if (td.textContent.trim().length > 8 && r.width < 5 * fs && r.height > 4 * lh) bad.push('squeezed column (' + Math.round(r.width) + ' px, ' + Math.round(r.height / lh) + ' lines): ' + label(td));
  }
  // 5. text smaller than 9 px
  const walker = document.createTreeWalker(col, NodeFilter.SHOW_TEXT);
  const small = new Set();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.textContent.trim() || !n.parentElement) continue;
    const fs = parseFloat(getComputedStyle(n.parentElement).fontSize);
    if (fs < 9 && n.parentElement.getClientRects().length) small.add(n.parentElement.tagName + ' ' + fs + 'px: ' + n.textContent.trim().slice(0, 30));
  }
  for (const s of small) bad.push('text smaller than 9 px: ' + s);
  // 6. figures scaled below legibility: PNGs are drawn at 120 dpi with text of at least 8 pt (13.3 px; two
  //    annotations use 7 pt), so a figure shown at less than 67.5 % of its pixel width has text under 9 px
  for (const img of col.querySelectorAll('img')) {
    if (!img.naturalWidth) continue;
    const k = img.getBoundingClientRect().width / img.naturalWidth;
    if (k < 0.675) bad.push('figure shown at ' + Math.round(k * 100) + ' % of its width (text under 9 px): ' + label(img));
  }
  // 7. tables cut at the edge: a table must fit the edge its box may reach (above), or scroll in a box that
  //    does, is clipped by no box around it (a notebook's output box scrolls too: a wider box inside it is cut)
  //    and shows a cue at its cut edge (a mask, shadow or gradient: book/_static/scrollcue.js and custom.css)
  const cue = (el) => {
    const st = getComputedStyle(el);
    return [st.maskImage, st.webkitMaskImage, st.boxShadow, st.backgroundImage].some(v => v && v !== 'none');
  };
  const clippers = (el) => {
    const out = [];
    for (let a = el.parentElement; a && a !== col; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible') out.push(a);
    }
    return out;
  };
  for (const t of col.querySelectorAll('table')) {
    const r = t.getBoundingClientRect();
    if (r.width === 0) continue;
    const [s, ...outer] = clippers(t);
    if (!s) {
      if (r.right > edge(t) + 1) bad.push(CUT + ': ' + Math.round(r.width) + ' px in no scrolling box, ' + Math.round(edge(t) - r.left) + ' px shown: ' + label(t));
      continue;
    }
    const b = s.getBoundingClientRect();
    const limit = Math.min(edge(s), ...outer.map(a => a.getBoundingClientRect().right));
    if (b.right > limit + 1) bad.push(CUT + ': its scrolling box (' + Math.round(b.width) + ' px) is cut ' + Math.round(b.right - limit) + ' px short of its right edge: ' + label(t));
    else if (s.scrollWidth > s.clientWidth + 1 && !cue(s)) bad.push(CUT + ' with no cue (' + s.clientWidth + ' of ' + s.scrollWidth + ' px shown): ' + label(t));
  }
  // 8. a code line the column wraps must not continue at column 0, where it reads as a new line of the code: the
  //    first character after a soft wrap (not after a line break of the code) lies right of the block's left edge
  for (const pre of col.querySelectorAll('pre')) {
    const st = getComputedStyle(pre);
    if (!/pre-wrap|break-spaces/.test(st.whiteSpace) || !pre.getClientRects().length) continue;
    const lh = parseFloat(st.lineHeight) || parseFloat(st.fontSize) * 1.4;
    const lines = pre.textContent.replace(/\\n$/, '').split('\\n').length;
    if (pre.clientHeight - parseFloat(st.paddingTop) - parseFloat(st.paddingBottom) < (lines + 0.5) * lh) continue;
    const left = pre.getBoundingClientRect().left + parseFloat(st.paddingLeft) + parseFloat(st.borderLeftWidth);
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    let prevTop = null, prevChar = '\\n', found = false;
    for (let n = walker.nextNode(); n && !found; n = walker.nextNode()) {
      for (let i = 0; i < n.data.length && !found; i++) {
        const ch = n.data[i];
        if (ch === '\\n') { prevChar = ch; continue; }
        range.setStart(n, i); range.setEnd(n, i + 1);
        const r = range.getBoundingClientRect();
        if (!r.height) continue;
        if (prevTop !== null && r.top > prevTop + lh / 2 && prevChar !== '\\n') {
          found = true;
          if (r.left < left + 1) bad.push('wrapped code line restarts at column 0: ' + pre.textContent.trim().slice(0, 50));
        }
        prevTop = r.top; prevChar = ch;
      }
    }
  }
  return bad;
}""".replace("{CUT}", CUT)

#: what the book's chrome shows a reader (compendium.book.sphinx_chrome, book/_static/chrome.js): the search boxes
#: a reader sees (the theme's search fields and buttons, outside its closed search dialog), whether the page has
#: the theme's layout, and, once chrome.js has looked for the PDF (up to 5 s), each PDF mention's state and every
#: link to a PDF
_CHROME = """async () => {
  const mentions = () => [...document.querySelectorAll('[data-compendium-pdf]')];
  for (let i = 0; i < 50 && mentions().some(e => !e.dataset.compendiumPdfState); i++)
    await new Promise(r => setTimeout(r, 100));
  return {
    boxes: [...document.querySelectorAll('.search-button__button, form.bd-search, input[type=search]')]
      .filter(el => !el.closest('dialog') && el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden')
      .map(el => (el.closest('[id]') ? '#' + el.closest('[id]').id + ' ' : '') + el.tagName.toLowerCase() + '.' +
           [...el.classList].slice(0, 3).join('.')),
    themed: !!document.querySelector('.bd-sidebar-primary'),
    pdf: mentions().map(e => e.dataset.compendiumPdfState || ''),
    pdfLinks: [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href')).filter(h => /[.]pdf$/i.test(h)),
  };
}"""


def search_box_problems(boxes: list[str], themed: bool = True) -> list[str]:
    """One search box per page of the theme (its header bar and its sidebar both held one: issue 33); a plain
    page outside the theme (the claims' source pages, ``code/``) may have none, never two."""
    if len(boxes) == 1 or (not boxes and not themed):
        return []
    return [f"{len(boxes)} search boxes on the page, one expected: {', '.join(boxes) or 'none'}"]


def pdf_problems(states: list[str], pdf_links: list[str]) -> list[str]:
    """The PDF of the whole book is linked only once ``make pdf`` wrote it: chrome.js must have settled each
    mention (``built`` or ``not-built``), and a page that says the PDF is not built links no PDF."""
    out = [
        f"the PDF mention was not resolved by chrome.js (state {s!r})"
        for s in states
        if s not in ("built", "not-built")
    ]
    if "not-built" in states and pdf_links:
        out.append(f"a link to a PDF that is not built: {pdf_links[0]}")
    return out


def chrome_problems(found: dict) -> list[str]:
    """The problems of one page's :data:`_CHROME` reading."""
    return search_box_problems(found["boxes"], found["themed"]) + pdf_problems(found["pdf"], found["pdfLinks"])


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    exe = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        raise FileNotFoundError(
            "no Chromium found: install Debian's package (`apt-get install chromium`) or set CHROMIUM=/path/to/chromium"
        )
    return exe


def axe_source() -> str:
    """axe-core's script (``node_modules/axe-core/axe.min.js``, or ``$AXE_CORE``)."""
    path = Path(os.environ.get("AXE_CORE") or paths.ROOT / "node_modules" / "axe-core" / "axe.min.js")
    if not path.is_file():
        raise FileNotFoundError(
            f"axe-core not found at {path}: run `make node_modules` "
            "(npm ci, from package-lock.json) "
            "or set AXE_CORE=/path/to/axe.min.js"
        )
    return path.read_text(encoding="utf-8")


_AXE_RUN = """async (tags) => {
  const r = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
  return {version: axe.version, violations: r.violations.map(v => ({
    id: v.id, impact: v.impact, tags: v.tags, help: v.help, nodes: v.nodes.length,
    targets: v.nodes.slice(0, 5).map(n => n.target.join(' '))}))};
}"""


def run_axe(page, axe_js: str) -> dict:
    """Inject axe-core into ``page`` and run the WCAG 2.0/2.1 A/AA and best-practice rules."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe_js)
    return page.evaluate(_AXE_RUN, AXE_TAGS)


def split_axe(result: dict) -> tuple[list[dict], list[dict]]:
    """(WCAG A/AA violations, best-practice-only findings) of one axe run."""
    wcag = [v for v in result["violations"] if set(v["tags"]) & set(WCAG_TAGS)]
    other = [v for v in result["violations"] if not set(v["tags"]) & set(WCAG_TAGS)]
    return wcag, other


def _settle(page) -> None:
    page.wait_for_function("() => !window.MathJax || !MathJax.startup || MathJax.startup.promise", timeout=15000)
    page.evaluate("() => window.MathJax && MathJax.startup ? MathJax.startup.promise : null")


def _shot_name(rel: str, prefix: str = "") -> str:
    return prefix + rel.replace("/", "__").removesuffix(".html") + ".png"


def _audit(page, axe_js: str, label: str, problems: list[str]) -> dict:
    """Run axe on ``page``: WCAG violations become problems, best-practice findings are printed."""
    result = run_axe(page, axe_js)
    wcag, other = split_axe(result)
    for v in wcag:
        problems.append(
            f"{label}: WCAG violation {v['id']} ({v['impact']}, {v['nodes']} element(s)): {v['help']} "
            f"e.g. {'; '.join(v['targets'][:2])}"
        )
    print(
        f"axe {result['version']} {label}: {len(wcag)} WCAG 2.0/2.1 A/AA violations, {len(other)} best-practice "
        f"findings" + (f" ({', '.join(v['id'] + ' x' + str(v['nodes']) for v in other)})" if other else "")
    )
    return {"wcag": wcag, "best_practice": other}


def size_time_report(stats: dict[str, tuple[int, float]], budgets: dict[str, tuple[int, int]] = BUDGETS) -> str:
    """One line per page: HTML size and load time; budgeted pages show their budget, a load over
    :data:`SLOW_S` is marked "slow" (reported, not failed: see the module's docstring)."""
    lines = [f"{'page':<44} {'HTML':>9} {'load':>7}  budget"]
    for page, (size, secs) in sorted(stats.items()):
        b = budgets.get(page)
        budget = f"<= {b[0] / 1e6:.0f} MB, <= {b[1]:,} elements" if b else ""
        slow = f"  slow (over {SLOW_S:.0f} s)" if secs > SLOW_S else ""
        lines.append(f"{page:<44} {size / 1024:>6.0f} KB {secs:>6.2f} s  {budget}{slow}")
    return "\n".join(lines)


#: a word on every page of the book: searching it lists every page's title
SEARCH_WORD = "data"
#: markup in a result title: a "<" that opens a tag, an end tag or a comment ("p < 0.05" is text)
MARKUP = re.compile(r"<[A-Za-z/!]")
CLAIMS_PAGE = "executed/05_claims.html"
_SEARCH_DONE = """() => { const s = document.querySelector('#search-results .search-summary');
  return s && /finished|did not match/i.test(s.textContent); }"""
_SEARCH_RESULTS = """() => [...document.querySelectorAll('#search-results ul.search > li')].map(li => {
  const a = li.querySelector('a');
  return {title: a ? a.textContent : '', href: a ? a.getAttribute('href') : '', snippet: !!li.querySelector('p.context')};
})"""


def search_claim(claims_csv: Path | None = None) -> str | None:
    """The claim id the search check types: the first claim of ``results/claims/claims.csv`` that is a cell
    of a register table (its id is on no page: only the search index's entry finds it); None without the file."""
    import csv

    path = Path(claims_csv) if claims_csv is not None else paths.stage_dir("claims") / "claims.csv"
    if not path.is_file():
        return None
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return next((r["claim_id"] for r in rows if r.get("table")), rows[0]["claim_id"] if rows else None)


def search(page, html_dir: Path, query: str) -> list[dict]:
    """Type ``query`` into the book's search page, opened by its file:// URL, and return the results
    (``{title, href, snippet}``: the title as shown, the link, whether a text snippet is shown)."""
    from urllib.parse import quote

    page.goto((Path(html_dir) / "search.html").resolve().as_uri() + "?q=" + quote(query), wait_until="load")
    page.wait_for_function(_SEARCH_DONE, timeout=60_000)
    page.wait_for_timeout(200)  # the last results are listed a few ms after the summary
    return page.evaluate(_SEARCH_RESULTS)


def search_problems(page, html_dir: Path, claim: str | None) -> list[str]:
    """What a reader of the search page would find wrong: no result for :data:`SEARCH_WORD`, a result title
    holding markup, and (with ``claim``) no result for the claim id on the claims page at an anchor it holds."""
    html_dir = Path(html_dir)
    problems = []
    results = search(page, html_dir, SEARCH_WORD)
    if not results:
        problems.append(f"search.html?q={SEARCH_WORD}: no results (the search page or its index is broken)")
    for r in results:
        if MARKUP.search(r["title"]):
            problems.append(f"search.html?q={SEARCH_WORD}: a result title holds markup: {r['title'][:120]!r}")
    snippets = sum(r["snippet"] for r in results)
    print(
        f"search (file://): {len(results)} results for {SEARCH_WORD!r}, {snippets} with a text snippet"
        + ("" if snippets else " (each snippet is the result page fetched by script, which file:// does not allow)")
    )
    if claim:
        found = search(page, html_dir, claim)
        hits = [r for r in found if r["href"].split("?")[0].split("#")[0].endswith(CLAIMS_PAGE)]
        anchors = [urldefrag(r["href"])[1] for r in hits]
        ok = [a for a in anchors if a and a in _ids(html_dir / CLAIMS_PAGE, {})]
        print(f"search (file://) for the claim {claim!r}: {len(found)} results, on the claims page at {anchors}")
        if not ok:
            problems.append(
                f"search.html?q={claim}: the claim id finds no anchor on {CLAIMS_PAGE} "
                f"(results: {[r['title'] for r in found][:5]})"
            )
        for r in found:
            if MARKUP.search(r["title"]):
                problems.append(f"search.html?q={claim}: a result title holds markup: {r['title'][:120]!r}")
    return problems


def _optional(url: str) -> bool:
    """A request whose failure is a state, not a fault: ``book-pdf.js``, which exists only once ``make pdf`` wrote
    the PDF beside the book (outside the folder this check serves); chrome.js then says the PDF is not built."""
    from compendium.book.pdf import PDF_INFO

    return urlparse(url).path.endswith("/" + PDF_INFO.name)


def browser_problems(
    html_dir: Path,
    shots: Path | None,
    width: int = 1280,
    stats: dict[str, tuple[int, float]] | None = None,
    only: list[str] | None = None,
    report: Path | None = None,
) -> tuple[list[str], list[Path]]:
    """Load each page (or only the pages named in ``only``); ``stats`` receives page -> (HTML bytes, seconds
    from navigation to the load event with MathJax done; for a page with a budget, the median of
    :data:`LOADS` loads, so that one slow load on a busy machine does not decide). axe-core audits every page
    (and :data:`DARK_PAGE` in dark mode); ``report`` receives the audit as JSON."""
    from playwright.sync_api import sync_playwright

    html_dir = Path(html_dir)
    axe_js = axe_source()
    server = serve(html_dir)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    problems, saved, audit = [], [], {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": width, "height": 900})
            console_errors: list[str] = []
            page.on("pageerror", lambda e: console_errors.append(str(e)))
            page.on(
                "requestfailed",
                lambda r: None if _optional(r.url) else console_errors.append(f"request failed: {r.url}"),
            )
            warm = [p for p in pages(html_dir) if p.name != "index.html"][:1]
            for p in warm:  # warm-up (the timings below exclude the browser's start)
                page.goto(base + p.relative_to(html_dir).as_posix(), wait_until="load")
            for p in pages(html_dir):
                rel = p.relative_to(html_dir).as_posix()
                if only and rel not in only:
                    continue
                console_errors.clear()
                times = []
                for _ in range(LOADS if rel in BUDGETS else 1):  # a budgeted page: the median of 3 loads
                    t0 = time.perf_counter()
                    page.goto(base + rel, wait_until="load")
                    if REDIRECT.search(p.read_text(errors="replace")):  # e.g. index.html -> intro.html
                        page.wait_for_url(lambda url, rel=rel: not url.endswith("/" + rel), timeout=10000)
                        page.wait_for_load_state("load")
                    _settle(page)
                    times.append(time.perf_counter() - t0)
                if stats is not None:
                    stats[rel] = (p.stat().st_size, sorted(times)[len(times) // 2])
                problems += [f"{rel}: {b}" for b in page.evaluate(_PAGE_CHECK)]
                problems += [f"{rel}: {b}" for b in page.evaluate(_LAYOUT_CHECK)]
                problems += [f"{rel}: {b}" for b in chrome_problems(page.evaluate(_CHROME))]
                problems += [f"{rel}: {e}" for e in console_errors]
                audit[rel] = _audit(page, axe_js, rel, problems)
                if shots is not None:
                    out = Path(shots) / (rel.replace("/", "__").removesuffix(".html") + ".png")
                    out.parent.mkdir(parents=True, exist_ok=True)
                    height = page.evaluate("document.documentElement.scrollHeight")
                    if height > MAX_SHOT_PX:  # a full-page shot of a very long page times out: its top only
                        page.screenshot(
                            path=str(out), full_page=True, clip={"x": 0, "y": 0, "width": width, "height": MAX_SHOT_PX}
                        )
                    else:
                        page.screenshot(path=str(out), full_page=True)
                    saved.append(out)
            if not only or "search.html" in only:
                problems += search_problems(page, html_dir, search_claim())
            # the theme's dark mode, on one chapter: the theme reads its choice from localStorage
            first = pages(html_dir)[0].relative_to(html_dir).as_posix()
            dark_rel = DARK_PAGE if (html_dir / DARK_PAGE).exists() else first
            if not only or dark_rel in only:
                ctx = browser.new_context(viewport={"width": width, "height": 900}, color_scheme="dark")
                ctx.add_init_script("localStorage.setItem('mode', 'dark'); localStorage.setItem('theme', 'dark');")
                dpage = ctx.new_page()
                dpage.goto(base + dark_rel, wait_until="load")
                _settle(dpage)
                theme = dpage.evaluate("() => document.documentElement.dataset.theme")
                if theme != "dark":
                    problems.append(f"{dark_rel}: dark mode not applied (data-theme={theme!r})")
                problems += [f"{dark_rel} (dark): {b}" for b in dpage.evaluate(_PAGE_CHECK)]
                audit[f"{dark_rel} (dark)"] = _audit(dpage, axe_js, f"{dark_rel} (dark)", problems)
                if shots is not None:
                    out = Path(shots) / _shot_name(dark_rel, "dark__")
                    dpage.screenshot(path=str(out), full_page=False, timeout=180000)
                    saved.append(out)
                    fig = dpage.locator("main figure")
                    if fig.count():  # and one figure with its caption, as it looks on the dark page
                        out = Path(shots) / _shot_name(dark_rel, "dark__figure__")
                        fig.nth(min(2, fig.count() - 1)).screenshot(path=str(out), timeout=180000)
                        saved.append(out)
                ctx.close()
            browser.close()
    finally:
        server.shutdown()
    if report is not None:
        import json

        Path(report).write_text(json.dumps(audit, indent=1, sort_keys=True) + "\n")
    return problems, saved


def main(argv: list[str] | None = None) -> int:
    from compendium.pipeline.cli import safe_output

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("html", nargs="?", default=str(paths.BOOK / "_build" / "html"))
    ap.add_argument("--screenshots", default=str(paths.BOOK / "_build" / "screenshots"))
    ap.add_argument(
        "--page",
        action="append",
        default=None,
        help="check only this page (path under the html folder, e.g. executed/05_claims.html); repeatable",
    )
    args = ap.parse_args(argv)
    html = Path(args.html)
    if not (html / "index.html").exists():
        print(f"{html}/index.html missing: build the book first (make reproduce)", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    problems = static_problems(html)
    stats: dict[str, tuple[int, float]] = {}
    bproblems, shots = browser_problems(
        html,
        Path(args.screenshots),
        stats=stats,
        only=args.page,
        report=Path(args.screenshots).parent / "accessibility.json",
    )
    problems += bproblems
    print(size_time_report(stats))
    for p in problems:
        print("PROBLEM", p)
    cut = [p for p in problems if f": {CUT}" in p]
    print(f"{len(cut)} tables cut at the edge on {len({p.split(': ')[0] for p in cut})} pages")
    n = len(stats)
    print(
        f"browser check: {n} pages, {len(shots)} screenshots in {args.screenshots}, "
        f"{len(problems)} problems ({time.perf_counter() - t0:.1f} s)"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
