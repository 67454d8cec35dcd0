"""Open every page of the built book in headless Chromium and check what a reader would see.

    python -m compendium.browsercheck [book/_build/html] [--screenshots book/_build/screenshots]

For each page: serve the book on 127.0.0.1, load the page in Chromium (Debian's /usr/bin/chromium,
driven by Playwright; no browser download), wait for MathJax, save a full-page screenshot, and fail on
- an image that did not load (missing file or broken reference),
- a broken internal link (target page missing, or its #anchor absent),
- math that MathJax did not render, or raw markup that leaked into the text (``{glue:...}``,
  ``{numref}``, ``{cite}``, ``:::``, ``$$``, Sphinx's "problematic" and "system-message" nodes).

The static checks (links, anchors, image files) also run without a browser (:func:`static_problems`).

It also reports each page's HTML size and its load time (navigation until the load event and MathJax are
done) and fails a page over its budget (:data:`BUDGETS`: the claims chapter, which shows every printed
number of the three studies, must stay within 2 MB of HTML and 2 s).
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

from . import paths

RAW_MARKUP = re.compile(r"\{(glue:\w+|glue|numref|ref|cite|doc|eq|term|download)\}|^:::|```|\$\$|\{\{\s*\w+\s*\}\}", re.M)
SKIP_PAGES = {"genindex.html", "search.html"}
# page -> (max bytes of HTML, max seconds to load in headless Chromium)
BUDGETS = {"executed/05_claims.html": (2_000_000, 2.0)}
LOADS = 3  # a budgeted page is loaded this many times and its median load time reported
MAX_SHOT_PX = 16000  # screenshots of longer pages keep their top 16,000 px


def pages(html_dir: Path) -> list[Path]:
    return sorted(p for p in html_dir.rglob("*.html")
                  if p.name not in SKIP_PAGES and "_static" not in p.parts and "_sources" not in p.parts)


def _ids(html_path: Path, cache: dict) -> set[str]:
    if html_path not in cache:
        soup = BeautifulSoup(html_path.read_text(errors="replace"), "html.parser")
        cache[html_path] = {t["id"] for t in soup.find_all(id=True)} | {t["name"] for t in soup.find_all("a", attrs={"name": True})}
    return cache[html_path]


def static_problems(html_dir: Path) -> list[str]:
    """Broken internal links/anchors, missing image files, unresolved-reference nodes, raw markup in text."""
    html_dir = Path(html_dir)
    problems, cache = [], {}
    for page in pages(html_dir):
        rel = page.relative_to(html_dir)
        soup = BeautifulSoup(page.read_text(errors="replace"), "html.parser")
        main = soup.find("main") or soup
        for img in main.find_all("img"):
            src = img.get("src", "")
            if src.startswith("data:"):
                continue
            if urlparse(src).scheme or src.startswith("//"):
                problems.append(f"{rel}: remote image {src}")
            elif not (page.parent / unquote(src.split("?")[0])).exists():
                problems.append(f"{rel}: missing image {src}")
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
  for (const m of document.querySelectorAll('main .math')) {
    if (!m.querySelector('mjx-container')) bad.push('math not rendered: ' + m.textContent.slice(0, 60));
  }
  return bad;
}"""

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_path() -> str:
    exe = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        raise FileNotFoundError("no Chromium found: install Debian's package (`apt-get install chromium`) "
                                "or set CHROMIUM=/path/to/chromium")
    return exe


def budget_problems(stats: dict[str, tuple[int, float]], budgets: dict[str, tuple[int, float]] = BUDGETS) -> list[str]:
    """Pages over their size or load-time budget (``stats``: page -> (bytes, seconds))."""
    out = []
    for page, (max_bytes, max_s) in budgets.items():
        if page not in stats:
            continue
        size, secs = stats[page]
        if size > max_bytes:
            out.append(f"{page}: {size / 1e6:.2f} MB of HTML, over its budget of {max_bytes / 1e6:.1f} MB")
        if secs > max_s:
            out.append(f"{page}: loads in {secs:.2f} s, over its budget of {max_s:.1f} s")
    return out


def size_time_report(stats: dict[str, tuple[int, float]]) -> str:
    """One line per page: HTML size and load time (budgeted pages marked with their budget)."""
    lines = [f"{'page':<44} {'HTML':>9} {'load':>7}  budget"]
    for page, (size, secs) in sorted(stats.items()):
        b = BUDGETS.get(page)
        budget = f"<= {b[0] / 1e6:.0f} MB, <= {b[1]:.0f} s" if b else ""
        lines.append(f"{page:<44} {size / 1024:>6.0f} KB {secs:>6.2f} s  {budget}")
    return "\n".join(lines)


def browser_problems(html_dir: Path, shots: Path | None, width: int = 1280,
                     stats: dict[str, tuple[int, float]] | None = None,
                     only: list[str] | None = None) -> tuple[list[str], list[Path]]:
    """Load each page (or only the pages named in ``only``); ``stats`` receives page -> (HTML bytes, seconds
    from navigation to the load event with MathJax done; for a page with a budget, the median of
    :data:`LOADS` loads, so that one slow load on a busy machine does not decide)."""
    from playwright.sync_api import sync_playwright

    html_dir = Path(html_dir)
    server = serve(html_dir)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    problems, saved = [], []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": width, "height": 900})
            console_errors: list[str] = []
            page.on("pageerror", lambda e: console_errors.append(str(e)))
            page.on("requestfailed", lambda r: console_errors.append(f"request failed: {r.url}"))
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
                    page.wait_for_function("() => !window.MathJax || !MathJax.startup || MathJax.startup.promise",
                                           timeout=15000)
                    page.evaluate("() => window.MathJax && MathJax.startup ? MathJax.startup.promise : null")
                    times.append(time.perf_counter() - t0)
                if stats is not None:
                    stats[rel] = (p.stat().st_size, sorted(times)[len(times) // 2])
                problems += [f"{rel}: {b}" for b in page.evaluate(_PAGE_CHECK)]
                problems += [f"{rel}: {e}" for e in console_errors]
                if shots is not None:
                    out = Path(shots) / (rel.replace("/", "__").removesuffix(".html") + ".png")
                    out.parent.mkdir(parents=True, exist_ok=True)
                    height = page.evaluate("document.documentElement.scrollHeight")
                    if height > MAX_SHOT_PX:  # a full-page shot of a very long page times out: its top only
                        page.screenshot(path=str(out), full_page=True,
                                        clip={"x": 0, "y": 0, "width": width, "height": MAX_SHOT_PX})
                    else:
                        page.screenshot(path=str(out), full_page=True)
                    saved.append(out)
            browser.close()
    finally:
        server.shutdown()
    return problems, saved


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("html", nargs="?", default=str(paths.BOOK / "_build" / "html"))
    ap.add_argument("--screenshots", default=str(paths.BOOK / "_build" / "screenshots"))
    ap.add_argument("--page", action="append", default=None,
                    help="check only this page (path under the html folder, e.g. executed/05_claims.html); repeatable")
    args = ap.parse_args(argv)
    html = Path(args.html)
    if not (html / "index.html").exists():
        print(f"{html}/index.html missing: build the book first (make reproduce)", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    problems = static_problems(html)
    stats: dict[str, tuple[int, float]] = {}
    bproblems, shots = browser_problems(html, Path(args.screenshots), stats=stats, only=args.page)
    problems += bproblems + budget_problems(stats)
    print(size_time_report(stats))
    for p in problems:
        print("PROBLEM", p)
    n = len(stats)
    print(f"browser check: {n} pages, {len(shots)} screenshots in {args.screenshots}, "
          f"{len(problems)} problems ({time.perf_counter() - t0:.1f} s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
