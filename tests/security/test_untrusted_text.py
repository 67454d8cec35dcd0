"""Security: text from data, parameters or file names never becomes live HTML, MyST or host file content
in the published book.

On a scratch clone of HEAD (``git clone``, data restored with ``dvc pull data.dvc``), every payload of
:data:`PAYLOADS` is injected into every free-text field of every raw file the book renders (the fields
come from :mod:`compendium.data.textfields`: the table schemas plus the declared documents), into the
string parameter ``preferences.annotations_path`` and into the name of an extra data file; the manifest is
re-recorded (``python -m compendium.data.manifest --write``, the supported way to accept changed raw data)
and the whole pipeline runs once (``dvc repro``, the book included). Then every HTML page, the search index
and ``_downloads/`` are parsed and checked, and a search runs in headless Chromium.

``COMPENDIUM_SECURITY_CODE_REV=<rev>`` runs the same checks on the code, chapters and book of another
revision (the payloads and detectors stay this revision's): on the commit before the escaping it fails.

Every payload carries the marker ``pwn``: the marker may appear in text, never in an element, an attribute,
a URL, a script, math, a link or a download. Run with ``make test-security`` (part of ``.ci/run``).
"""

from __future__ import annotations

import csv
import functools
import io
import json
import os
import re
import subprocess
import sys
import time
import zlib
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

import pytest
import yaml

from compendium.data import textfields as tf
from compendium.pipeline import paths

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import scratch  # noqa: E402

pytestmark = pytest.mark.security

PASSWD = Path("/etc/passwd")
HOST_LINE = PASSWD.read_text().splitlines()[0] if PASSWD.exists() else "root:x:0:0:"
UP = "../" * 12

#: one line each (fields are one-line text in tables); the block payloads are also appended on lines of their
#: own to the multi-line texts (the system prompt, descriptions)
PAYLOADS = (
    "<script>pwn_script()</script>",
    '<img src="x-pwn" onerror="pwn_img()">',
    "<svg onload=pwn_svg()>",
    '<a href="javascript:pwn_js()">pwn link</a>',
    "[pwn md link](javascript:pwn_mdlink())",
    "<javascript:pwn_autolink()>",
    "<b class=pwn-raw>raw</b>",
    "&lt;img src=x onerror=pwn_entity()&gt; &amp;lt;script&amp;gt;",
    "{download}`" + UP + "etc/passwd`",
    "{doc}`pwn doc <index>`",
    "{ref}`pwn ref <genindex>`",
    "{{ pwn_substitution }}",
    "$pwnmath and pwnmath$",
    "$$pwnmath$$",
    "pwn\u202eevil\u200bzero\u2066isolate",
    "*pwn emphasis* **pwn strong** `pwn code`",
)
BLOCKS = (
    "```{literalinclude} " + UP + "etc/passwd\n```",
    "```{raw} html\n<b class=pwn-rawdirective>x</b>\n```",
    "<div class=pwn-div onclick=pwn_div()>\n\n# pwn heading\n\n</div>",
    "{{ pwn_substitution_block }}",
)
BAD_NAME = "pwn <img src=x onerror=pwn_name()> {{ pwn_name }} $pwnname$ [n](javascript:pwn_n()) \u202e.csv"
BAD_PARAM = "data/hitl/x` <img src=x onerror=pwn_param()> `{download}`" + "x" + "`.parquet"


def payload_for(value: str) -> str:
    """The payload appended to a value: chosen by the value itself, so a key shared by several files (a task
    statement, a prompt id) gets the same text everywhere and the joins of the analyses still hold."""
    return PAYLOADS[zlib.crc32(value.encode("utf-8")) % len(PAYLOADS)]


def _code_literals() -> frozenset[str]:
    """Every string constant of the package's code and the chapters' code cells, and every word run of the
    published register (category and model names it selects by)."""
    import ast

    out: set[str] = set()
    for f in (paths.ROOT / "src" / "compendium").rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                out.add(node.value)
    for f in (paths.ROOT / "published").rglob("*.yaml"):  # the register names categories and models too
        text = f.read_text(encoding="utf-8")
        out.update(re.findall(r"\w[\w-]*", text))
        out.update(x.strip() for x in re.findall(r"[\w][\w ,-]{2,199}", text))
    for f in (paths.ROOT / "notebooks").glob("*.md"):
        out.update(re.findall(r"[\"']([^\"'\n]{1,200})[\"']", f.read_text(encoding="utf-8")))
    return frozenset(out)


CODE_LITERALS = _code_literals()
#: a long literal inside a value (the code's sector name in BLS's "<sector> Occupations"): literals of 15+
#: characters by their first 15, so a value is checked window by window
_LONG = 15
_LONG_LITERALS: dict[str, list[str]] = {}
for _lit in CODE_LITERALS:
    if len(_lit) >= _LONG:
        _LONG_LITERALS.setdefault(_lit[:_LONG], []).append(_lit)


def _holds_code_literal(value: str) -> bool:
    for i in range(len(value) - _LONG + 1):
        for lit in _LONG_LITERALS.get(value[i : i + _LONG], ()):
            if value.startswith(lit, i):
                return True
    return False


#: numbers, dates and times kept as they are: the loaders parse them (a payload there is refused as a bad number)
_NUMERIC = re.compile(r"[\d\s.,:/+-]*")


def injectable(value: str) -> bool:
    """A value that carries a payload: not empty, not a number or date, and not a value the code names
    literally (a model, condition, dimension or category the analysis selects by name: another value
    there is refused or dropped by the analysis, not rendered)."""
    return (
        bool(value.strip())
        and not _NUMERIC.fullmatch(value)
        and value not in CODE_LITERALS
        and not _holds_code_literal(value)
    )


@functools.cache
def inject(value: str) -> str:
    if value.startswith("[") and value.endswith("]"):  # a list literal (O*NET skills): its items carry the text
        import ast

        try:
            items = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            items = None
        if isinstance(items, list) and all(isinstance(x, str) for x in items):
            return repr([inject(x) for x in items])
    if not injectable(value):
        return value
    return f"{value} {payload_for(value)}"


def inject_text(text: str) -> str:
    """A whole text file (the system prompt): every payload, inline and as blocks of their own, appended."""
    return text.rstrip("\n") + "\n\n" + " ".join(PAYLOADS) + "\n\n" + "\n\n".join(BLOCKS) + "\n"


#: a command in the clone (scratch.env: the clone's package first, quiet, Agg), with this suite's longer timeout
run = functools.partial(scratch.run, timeout=1800)


def _inject_csv(path: Path, columns: list[str]) -> int:
    text = path.read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    head = rows[0]
    idx = [head.index(c) for c in columns if c in head]
    n = 0
    for r in rows[1:]:
        for i in idx:
            if i < len(r) and r[i].strip():
                r[i] = inject(r[i])
                n += 1
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")
    return n


def _inject_records(path: Path, reader: str, columns: list[str]) -> int:
    n = 0
    if reader == "jsonl":
        recs = [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()]
    else:
        recs = json.loads(path.read_text())
    items = recs if isinstance(recs, list) else recs.get("prompts", recs)
    for r in items if isinstance(items, list) else []:
        for c in columns:
            if isinstance(r, dict) and isinstance(r.get(c), str) and r[c].strip():
                r[c] = inject(r[c])
                n += 1
    if reader == "jsonl":
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs))
    else:
        path.write_text(json.dumps(recs, ensure_ascii=False, indent=2))
    return n


def inject_all(clone: Path) -> dict:
    """Inject into every declared field of the clone's data/, a string parameter and a file name."""
    data = clone / "data"
    fields: list[str] = []
    values = 0
    by_file: dict[Path, tuple[str, list[str]]] = {}
    for f in tf.table_fields():
        by_file.setdefault(data / f.relpath, (f.spec.reader, []))[1].append(f.column)
        fields.append(f"{f.relpath}:{f.column}")
    for path, (reader, cols) in by_file.items():
        values += _inject_csv(path, cols) if reader == "csv" else _inject_records(path, reader, cols)
    for doc in tf.DOCUMENTS:
        for path in tf.document_files(data, doc):
            obj = tf.read_document(path, doc.fmt)
            for p in doc.paths:
                obj, n = tf.map_strings(obj, p, inject if p else inject_text)
                values += n
                fields.append(f"{path.relative_to(data)}:{p or '(text)'}")
            tf.write_document(path, doc.fmt, obj)
    (data / "hitl" / BAD_NAME).write_text("a,b\n1,2\n")
    fields.append("data/ file name")
    params = yaml.safe_load((clone / "params.yaml").read_text())
    params["preferences"]["annotations_path"] = BAD_PARAM
    (clone / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    fields.append("params.yaml:preferences.annotations_path")
    return {"fields": fields, "values": values}


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("security") / "repo"
    scratch.make_clone(d, paths.ROOT)
    old = os.environ.get("COMPENDIUM_SECURITY_CODE_REV")
    if old:  # the suite against another revision's code and book (e.g. before the escaping), to see it fail
        subprocess.run(["git", "checkout", "-q", old, "--", "src", "notebooks", "book", "dvc.yaml"], cwd=d, check=True)
    p = run(d, "dvc", "pull", "data.dvc")
    assert p.returncode == 0, p.stderr
    info = inject_all(d)
    m = run(d, sys.executable, "-m", "compendium.data.manifest", "--write")
    assert m.returncode == 0, m.stdout + m.stderr
    t0 = time.perf_counter()
    p = run(d, "dvc", "repro")
    assert p.returncode == 0, "the injected build failed:\n" + p.stdout[-4000:] + p.stderr[-4000:]
    print(
        f"\nsecurity: {len(PAYLOADS) + len(BLOCKS) + 2} payloads ({len(PAYLOADS)} inline, {len(BLOCKS)} block, "
        f"a file name, a parameter) injected into {len(info['fields'])} fields ({info['values']} values); "
        f"injected build in {time.perf_counter() - t0:.0f} s",
        file=sys.stderr,
    )
    return {"clone": d, "html": d / "book" / "_build" / "html", **info}


class _Page(HTMLParser):
    """Elements, attributes and text of a page, with the open elements at each text node."""

    #: attributes whose value is text (escaped by Sphinx): a payload there is shown, not run
    TEXT_ATTRS = {"alt", "title", "aria-label", "value", "content", "data-content"}
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict]] = []
        self.problems: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        for k, v in a.items():
            if "pwn" in k or ("pwn" in v and k not in self.TEXT_ATTRS):
                self.problems.append(f"<{tag} {k}={v[:80]!r}>: an attribute from a payload")
            if k.startswith("on") and "pwn" in v:
                self.problems.append(f"<{tag} {k}>: an event handler from a payload")
            if v.strip().lower().startswith("javascript:"):
                self.problems.append(f"<{tag} {k}={v[:80]!r}>: a javascript: URL")
        if tag not in self.VOID:
            self.stack.append((tag, a))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID and self.stack:
            self.stack.pop()

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        self.text.append(data)
        if "pwn" not in data:
            return
        for tag, a in self.stack:
            cls = a.get("class", "")
            if tag in ("script", "style", "svg", "math"):
                self.problems.append(f"payload text inside <{tag}>: {data.strip()[:80]!r}")
            elif "math" in cls.split():
                self.problems.append(f"payload became math: {data.strip()[:80]!r}")
            elif tag == "a" and a.get("href", "").strip() not in ("", "#"):
                self.problems.append(f"payload became a link to {a['href'][:60]!r}: {data.strip()[:80]!r}")
            elif tag in ("em", "strong", "h1", "h2", "h3", "h4") and data.strip() in (
                "pwn emphasis",
                "pwn strong",
                "pwn heading",
            ):
                self.problems.append(f"payload parsed as Markdown (<{tag}>): {data.strip()[:80]!r}")


def page_problems(html: str) -> tuple[list[str], str]:
    p = _Page()
    p.feed(html)
    text = "".join(p.text)
    probs = list(p.problems)
    for ch in ("\u202e", "\u200b", "\u2066"):
        if ch in text and "pwn" in text:
            probs.append(f"an invisible control U+{ord(ch):04X} reached the page text")
    if HOST_LINE in text:
        probs.append("host file content (/etc/passwd) in the page")
    if "SUBSTITUTED" in text:
        probs.append("a substitution ran")
    return probs, text


def test_every_field_of_every_rendered_file_is_covered(book):
    declared = {f"{f.relpath}:{f.column}" for f in tf.table_fields()}
    assert declared <= set(book["fields"])
    assert any(f.endswith("system_prompt.md:(text)") for f in book["fields"])
    assert any(":domain" in f and "layer2" in f for f in book["fields"])
    assert book["values"] > 1000


def test_no_payload_becomes_an_element_attribute_url_math_or_link(book):
    html_dir = book["html"]
    pages = sorted(html_dir.rglob("*.html"))
    assert len(pages) > 8
    problems = []
    shown = 0
    for page in pages:
        probs, text = page_problems(page.read_text(encoding="utf-8"))
        shown += text.count("pwn")
        problems += [f"{page.relative_to(html_dir)}: {p}" for p in probs]
    assert shown > 100, "the payloads did not reach the book (nothing to check)"
    assert not problems, f"{len(problems)} problem(s):\n" + "\n".join(sorted(set(problems))[:40])


def test_payload_text_is_shown_literally(book):
    html_dir = book["html"]
    text = " ".join(page_problems(p.read_text(encoding="utf-8"))[1] for p in sorted(html_dir.rglob("*.html")))
    for expected in ("<script>pwn_script()</script>", "{{ pwn_substitution }}", "$pwnmath and pwnmath$", "[U+202E]"):
        assert expected in text, f"{expected!r} is not shown as text anywhere"
    assert "pwn_name()" in (html_dir / "executed" / "00_data.html").read_text() or "pwn_name()" in text
    assert "pwn_param()" in text


def test_no_host_file_in_downloads_or_search_index(book):
    html_dir = book["html"]
    downloads = html_dir / "_downloads"
    leaked = [p for p in downloads.rglob("*") if p.is_file() and HOST_LINE.encode() in p.read_bytes()]
    assert not leaked and not any(downloads.rglob("passwd")), f"host files copied into the book: {leaked}"
    index = (html_dir / "searchindex.js").read_text(encoding="utf-8")
    assert HOST_LINE.split(":")[0] + ":x:0:0" not in index
    assert "pwn" in index  # the payloads are indexed as text (so the search check below means something)


def test_search_page_shows_payload_titles_as_text(book, tmp_path):
    """Search in headless Chromium for a payload word, and for a section title that holds a payload (the
    search index stores titles raw): no element or handler from a payload goes live on search.html."""
    import shutil

    pytest.importorskip("playwright.sync_api")
    from playwright.sync_api import sync_playwright

    from compendium.book.browsercheck import CHROMIUM_ARGS, chromium_path, serve

    site = tmp_path / "html"
    shutil.copytree(book["html"], site)
    # a caption with a payload, as Sphinx would index it (a data text that reached a title)
    idx = site / "searchindex.js"
    title = "<img src=x class=pwn-title onerror=window.pwned=1>"
    text = idx.read_text(encoding="utf-8")
    new = re.sub(r'"alltitles":\s*\{', lambda m: m.group(0) + json.dumps(title) + ": [[0, null]], ", text, count=1)
    assert new != text, "searchindex.js has no alltitles"
    idx.write_text(new)
    server = serve(site)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page()
            for q in (title, "pwn_script", "pwn"):
                page.goto(f"{base}search.html?q={quote(q)}")
                page.wait_for_function(
                    "() => { const s = document.querySelector('#search-results .search-summary');"
                    " return s && /finished|did not match/i.test(s.textContent); }",
                    timeout=60_000,
                )
                page.wait_for_timeout(300)
                live = page.evaluate(
                    "() => [...document.querySelectorAll('#search-results *')].filter(e =>"
                    " /pwn/.test(e.className) || [...e.attributes].some(a => /^on/.test(a.name))"
                    " || ['SCRIPT','IMG','SVG'].includes(e.tagName)).map(e => e.outerHTML.slice(0, 120))"
                )
                assert page.evaluate("() => window.pwned === undefined"), f"a payload ran on search.html ({q})"
                assert not live, f"live elements from a payload on search.html?q={q}: {live}"
                if q == title:
                    shown = page.inner_text("#search-results ul")
                    assert title in shown, f"the payload title is not listed as text: {shown[:300]!r}"
            browser.close()
    finally:
        server.shutdown()


def test_payload_markers_are_not_matched_by_accident():
    """The detector flags a payload that did run (so the checks above can fail)."""
    live = (
        '<p><img src="x-pwn" onerror="pwn_img()"> <a href="javascript:pwn_js()">x</a> '
        '<span class="math">pwnmath</span> <em>pwn emphasis</em></p>'
    )
    probs, _ = page_problems(live)
    assert len(probs) >= 4
    assert page_problems("<p>&lt;img src=x-pwn onerror=pwn()&gt; pwn [U+202E]</p>")[0] == []
    assert re.search("host file", " ".join(page_problems(f"<pre>{HOST_LINE}</pre>")[0]))
