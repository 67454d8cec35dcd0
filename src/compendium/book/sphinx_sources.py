"""Sphinx extension: the end of the trail from a claim to its code and its raw data, inside the book, offline.

The claims chapter links every claim to the functions that compute it, their test and the raw files they read
(:mod:`compendium.claims.links`). This extension makes the targets:

- **source pages** (``build-finished``): for every file the claims page links to (the computing functions'
  modules and their tests, as the studies' ``provenance.py`` name them, and the tests differs notes give as
  evidence: :func:`~compendium.claims.links.linked_files`), a page ``code/<path>.html`` with the file highlighted by Pygments (the accessible ``a11y-light`` style, dark under
  ``prefers-color-scheme``), every line an anchor (``#L12``) and every function, class and method one by its
  qualified name (``#layer_paired_effects``, ``#Class.method``: the whole definition, highlighted when it is
  the target); ``code/index.html`` lists them. Plain static pages, not Sphinx documents: no theme to render,
  no search index to feed, and each page is kept beside the doctrees under the SHA-256 of its file
  (:data:`CACHE`), so an incremental build highlights only a file that changed; the same bytes on every
  build of the same files;
- **row anchors in the data chapter** (``doctree-resolved``): each row of its file table
  (``tbl-data-files``) gets the id :func:`~compendium.claims.links.data_anchor` of its file, and each row of
  the table of what is here and what only the hub has (``tbl-data-offline``) the id
  :func:`~compendium.claims.links.hub_anchor` of its dataset.

Enabled in ``book/_config.yml`` (``sphinx.config.extensions``); the book stage depends on the files shown.
"""

from __future__ import annotations

import hashlib
import html
import importlib.util
import json
from pathlib import Path
from typing import Any

from docutils import nodes

from compendium.pipeline import paths


def _load_links():
    """:mod:`compendium.claims.links`, loaded on its own: importing it as part of its package would run the
    claims check's ``__init__`` and import pandas into the book's Sphinx process (a second of every build)."""
    f = Path(__file__).resolve().parents[1] / "claims" / "links.py"
    spec = importlib.util.spec_from_file_location("_book_claims_links", f)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


links = _load_links()
#: the source pages of earlier builds, beside the doctrees: {sha256 of (generator, path, source): page}
CACHE = "compendium-source-pages.json"
#: part of every cache key: a change of how pages are made must not reuse old pages
_VERSION = "1"

DATA_DOC = Path(links.DATA_PAGE).with_suffix("").as_posix()
ROW_IDS = {"tbl-data-files": links.data_anchor, "tbl-data-offline": links.hub_anchor}
STYLE, DARK_STYLE = "a11y-light", "a11y-dark"

_CSS = """body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#fff}
header{padding:.8rem 1.2rem;border-bottom:1px solid #d0d7de}header nav a{margin-right:.8rem}
h1{font-size:1.15rem;margin:.4rem 0 0;overflow-wrap:anywhere}p.note{margin:.3rem 0 0;font-size:.85rem;color:#57606a}
main{padding:0 1.2rem 2rem}a{color:#0550ae}
pre.highlight{margin:0;padding:.6rem 0;font-size:13px;line-height:1.4;white-space:pre-wrap;overflow-wrap:anywhere}
pre .l{display:inline-block;width:100%;box-sizing:border-box;padding-left:4.2em;text-indent:-4.2em}
pre .l::before{content:attr(data-n);display:inline-block;width:3.4em;margin-right:.8em;text-indent:0;text-align:right;
color:#57606a;user-select:none}
pre .l:target,pre .obj:target .l{background:#fff8c5}pre .obj:target{outline:2px solid #9a6700}
pre .obj{scroll-margin-top:2rem}ul.files{columns:2 28rem;font-size:.9rem}
@media (prefers-color-scheme:dark){body{color:#e6edf3;background:#0d1117}header{border-color:#30363d}
a{color:#79c0ff}p.note,pre .l::before{color:#a8b1bb}pre .l:target,pre .obj:target .l{background:#3b2e00}}
"""


def _text(entry: nodes.Element) -> str:
    """A cell's text without its raw markup (the ``<wbr>`` that :mod:`compendium.book.sphinx_tables` puts after
    each ``/`` of a path): the anchor of ``hitl/SOURCES.md`` is made from that path, whichever extension's handler
    runs first."""
    cell = entry.deepcopy()
    for raw in list(cell.findall(nodes.raw)):
        raw.parent.remove(raw)
    return cell.astext()


def _row_ids(app, doctree, docname: str) -> None:
    """``doctree-resolved``: the data chapter's file rows and hub rows get the ids the claims chapter links to."""
    if docname != DATA_DOC:
        return
    for table in doctree.findall(nodes.table):
        make = next((ROW_IDS[i] for i in table["ids"] if i in ROW_IDS), None)
        if make is None:
            continue
        for body in table.findall(nodes.tbody):
            for row in body.findall(nodes.row):
                entry = row.next_node(nodes.entry)
                text = _text(entry).strip() if entry is not None else ""
                if text:
                    row["ids"].append(make(text))


def shown_files(out_dir: Path) -> list[str]:
    """The repository files the built claims page links to."""
    page = Path(out_dir) / Path(links.CLAIMS_DIR) / "05_claims.html"
    return links.linked_files(page.read_text(encoding="utf-8")) if page.is_file() else []


def highlighted_lines(source: str) -> list[str]:
    """The source as HTML, one self-contained line each (Pygments closes its spans at every line end)."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    out = highlight(source, PythonLexer(stripnl=False, ensurenl=True), HtmlFormatter(nowrap=True))
    lines = out.split("\n")
    n = len(source.splitlines()) or 1
    return (lines + [""] * n)[:n]


def source_page(file: str, source: str) -> str:
    """The page of one repository file: every line ``#L<n>``, every definition ``#<qualified name>``."""
    lines = highlighted_lines(source)
    try:
        objs = links.objects(source)
    except SyntaxError:
        objs = {}
    starts: dict[int, list[tuple[int, str]]] = {}
    ends: dict[int, int] = {}
    for name, (first, last) in objs.items():
        starts.setdefault(first, []).append((last, name))
        ends[last] = ends.get(last, 0) + 1
    body = []
    for n, text in enumerate(lines, start=1):
        for _last, name in sorted(starts.get(n, ()), reverse=True):  # the outer definition opens first
            body.append(f'<span class="obj" id="{html.escape(name)}">')
        body.append(f'<span class="l" id="L{n}" data-n="{n}">{text}</span>' + "</span>" * ends.get(n, 0) + "\n")
    up = "../" * file.count("/")
    title = html.escape(file)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title} (source)</title>\n"
        f'<link rel="stylesheet" href="{up}sources.css">\n</head>\n<body>\n<header>\n'
        f'<nav aria-label="Book"><a href="{up}../executed/05_claims.html">Claims check</a>'
        f'<a href="{up}../index.html">The book</a><a href="{up}index.html">All source files</a></nav>\n'
        f"<h1><code>{title}</code></h1>\n"
        f'<p class="note">{len(lines)} lines, as this book was built from them; each function links here by '
        "its name, each line by <code>#L</code> and its number.</p>\n</header>\n"
        f'<main>\n<pre class="highlight"><code>{"".join(body)}</code></pre>\n</main>\n</body>\n</html>\n'
    )


def index_page(files: list[str]) -> str:
    items = "".join(f'<li><a href="{html.escape(f)}.html"><code>{html.escape(f)}</code></a></li>\n' for f in files)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<title>Source files</title>\n"
        '<link rel="stylesheet" href="sources.css">\n</head>\n<body>\n<header>\n'
        '<nav aria-label="Book"><a href="../executed/05_claims.html">Claims check</a>'
        '<a href="../index.html">The book</a></nav>\n<h1>Source files</h1>\n'
        '<p class="note">The functions that compute the claims and their tests, as this book was built from '
        "them.</p>\n</header>\n"
        f'<main>\n<ul class="files">\n{items}</ul>\n</main>\n</body>\n</html>\n'
    )


def stylesheet() -> str:
    from pygments.formatters import HtmlFormatter

    light = HtmlFormatter(style=STYLE).get_style_defs(".highlight")
    dark = HtmlFormatter(style=DARK_STYLE).get_style_defs(".highlight")
    return _CSS + light + "\n@media (prefers-color-scheme:dark){\n" + dark + "\n}\n"


def write_sources(
    out_dir: Path, root: Path | None = None, files: list[str] | None = None, cache_dir: Path | None = None
) -> list[Path]:
    """Write ``out_dir/code/``: a page per file (default: :func:`shown_files`), the index and the style
    sheet; with ``cache_dir``, pages of unchanged files come from its :data:`CACHE`, which is rewritten with
    this build's pages only. A linked file that does not exist is an error naming it. Returns the pages."""
    root = Path(root) if root is not None else paths.ROOT
    files = shown_files(out_dir) if files is None else files
    old: dict[str, str] = {}
    if cache_dir is not None:
        try:
            old = json.loads((Path(cache_dir) / CACHE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            old = {}
    new: dict[str, str] = {}
    written = []
    for f in files:
        src = root / f
        if not src.is_file():
            raise FileNotFoundError(f"the claims page links to {f}, which does not exist: fix the provenance.py entry")
        text = src.read_text(encoding="utf-8")
        key = hashlib.sha256(f"{_VERSION}\0{f}\0{text}".encode()).hexdigest()
        new[key] = old[key] if isinstance(old.get(key), str) else source_page(f, text)
        page = Path(out_dir) / links.source_page(f)
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(new[key], encoding="utf-8")
        written.append(page)
    code = Path(out_dir) / links.SOURCE_DIR
    code.mkdir(parents=True, exist_ok=True)
    (code / "index.html").write_text(index_page(files), encoding="utf-8")
    (code / "sources.css").write_text(stylesheet(), encoding="utf-8")
    if cache_dir is not None:
        (Path(cache_dir) / CACHE).write_text(json.dumps(new, sort_keys=True), encoding="utf-8")
    return written


def _write(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        write_sources(Path(app.outdir), cache_dir=Path(app.doctreedir))


def setup(app) -> dict[str, Any]:
    app.connect("doctree-resolved", _row_ids)
    app.connect("build-finished", _write)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
