"""Sphinx extension: the search page shows result titles as text, never as HTML, and its index holds them as text.

Sphinx (7.4) stores section titles and table captions raw in ``searchindex.js``, and its
``searchtools.js`` inserts each result's title (and description) with ``innerHTML``: a caption that
reads ``<img src=x onerror=...>`` as literal text on its page becomes a live element on ``search.html``
once a search lists it. At the end of the build this extension rewrites those two assignments of the
copied ``_static/searchtools.js`` to ``textContent`` (the same text, parsed by no one). The script is
patched, not replaced, so it stays the installed Sphinx's own (offline, no copy to keep in step); if a
Sphinx release changes those lines the build fails with a message rather than publishing an unpatched
search page.

Shown as text, a title must be text in the index too. Sphinx stores a page's title as the HTML of its
heading (``<span class="section-number">5. </span>Human preferences``) and a section title or caption as its
``astext()``, in which a raw HTML node of the prose (``*d*<sub>pooled</sub>``) keeps its tags. The extension
rewrites ``searchindex.js`` (:func:`text_titles`): a page title becomes the text a reader sees of its HTML
(:func:`html_text`: tags dropped, character references decoded, so a ``&lt;`` of the page is a ``<`` of the
title), a title holding raw HTML of the prose its text (:func:`title_text`, from the doctree the index was fed:
its raw HTML nodes are read as HTML, its text nodes stay as they are), and a page's own entry among the titles
its title with its number (the result reads "5. Human preferences: ...", not "5. Human ... > Human ...").
A text node is never read as HTML: a caption from data that says ``<img src=x>`` is listed as that text, as on
its page (``tests/security/test_untrusted_text.py`` injects such titles into the built index and checks that
they are listed as text and never become elements).

Enabled in ``book/_config.yml`` (``sphinx.config.extensions``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from html.parser import HTMLParser
from pathlib import Path

from docutils import nodes

#: (what Sphinx 7.4 writes, what the book gets): the only places searchtools.js parses index text as HTML
PATCHES = (
    ("linkEl.innerHTML = title;", "linkEl.textContent = title;"),
    (
        'listItem.appendChild(document.createElement("span")).innerHTML =\n      " (" + descr + ")";',
        'listItem.appendChild(document.createElement("span")).textContent =\n      " (" + descr + ")";',
    ),
)
#: the text a sub- or superscript of a title starts with (``d<sub>pooled</sub>`` reads ``d_pooled``, as the
#: book's captions write it); every other tag adds nothing
SCRIPT_MARKS = {"sub": "_", "sup": "^"}


class SearchPatchError(RuntimeError):
    pass


def patch_searchtools(text: str) -> str:
    """``searchtools.js`` with the result title and description set by ``textContent``; a
    :class:`SearchPatchError` naming the line if a pattern is missing (an untested Sphinx release)."""
    for old, new in PATCHES:
        if old not in text and new not in text:
            raise SearchPatchError(
                "compendium.book.sphinx_safe_search: searchtools.js has no line "
                f"{old.splitlines()[0]!r} (a Sphinx release other than 7.4?); update PATCHES for it, "
                "or the search page would insert index titles as HTML"
            )
        text = text.replace(old, new)
    if "innerHTML" in text.replace("htmlElement.innerHTML", ""):
        # anything new that parses text as HTML must be looked at, not published
        lines = [ln.strip() for ln in text.splitlines() if "innerHTML" in ln]
        raise SearchPatchError(f"compendium.book.sphinx_safe_search: searchtools.js still uses innerHTML: {lines[0]!r}")
    return text


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.parts.append(SCRIPT_MARKS.get(tag, ""))

    def handle_data(self, data):
        self.parts.append(data)


def html_text(fragment: str) -> str:
    """The text a reader sees of an HTML fragment: tags dropped (a ``<sub>``/``<sup>`` starts with ``_``/``^``:
    :data:`SCRIPT_MARKS`), character references decoded, runs of white space one space."""
    p = _Text()
    p.feed(fragment)
    p.close()
    return " ".join("".join(p.parts).split())


def title_text(title: nodes.Element) -> str:
    """A title's text as the search page should list it: its raw HTML nodes read as HTML (:func:`html_text`),
    everything else as the text it is (``astext()``, which is what Sphinx indexes)."""
    parts = []
    for node in title.findall(nodes.Text):
        raw = node.parent if isinstance(node.parent, nodes.raw) else None
        if raw is not None:
            parts.append(html_text(node.astext()) if "html" in raw.get("format", "").split() else "")
        else:
            parts.append(node.astext())
    return "".join(parts).strip()


def _has_html(title: nodes.Element) -> bool:
    return any("html" in r.get("format", "").split() for r in title.findall(nodes.raw))


def raw_html_titles(doctree: nodes.document) -> dict[tuple[str, str | None], str]:
    """``{(title as Sphinx indexes it, its anchor): its text}`` for the titles of a page that hold raw HTML.
    The anchor follows Sphinx 7.4's word collector: None for the page's first title, else the first id of the
    title's parent."""
    out = {}
    for k, title in enumerate(doctree.findall(nodes.title)):
        if _has_html(title):
            ids = title.parent.get("ids") or []
            out[(title.astext(), None if k == 0 else (ids[0] if ids else None))] = title_text(title)
    return out


def text_titles(index: dict, raw_titles: Mapping[str, Mapping[tuple[str, str | None], str]]) -> dict:
    """The search index ``index`` (``searchindex.js``'s object) with its titles as text: ``titles`` (each page's,
    stored as HTML) through :func:`html_text`; each ``alltitles`` entry that ``raw_titles`` (docname ->
    :func:`raw_html_titles`) names under its text; and each page's own entry (anchor None) under the page's
    title when that title is its text with a number before it ("5. The data" for "The data")."""
    docnames = index["docnames"]
    titles = [html_text(t) for t in index["titles"]]
    alltitles: dict[str, list] = {}
    for key, entries in index["alltitles"].items():
        for entry in entries:
            doc, anchor = entry[0], entry[1]
            name = docnames[doc]
            new = raw_titles.get(name, {}).get((key, anchor), key)
            if anchor is None and new != titles[doc] and titles[doc].endswith(" " + new):
                new = titles[doc]
            alltitles.setdefault(new, []).append(entry)
    return {**index, "titles": titles, "alltitles": alltitles}


def rewrite_index(path: Path, change: Callable[[dict], dict]) -> bool:
    """Load ``searchindex.js``, apply ``change`` to its object and write it back in Sphinx's own format;
    True if it changed."""
    from sphinx.search import js_index

    text = path.read_text(encoding="utf-8")
    new = js_index.dumps(change(js_index.loads(text)))
    if new == text:
        return False
    path.write_text(new, encoding="utf-8")
    return True


def _collect(app, doctree, docname: str) -> None:
    """``doctree-resolved``: the titles with raw HTML of the doctree the search index is fed next."""
    found = raw_html_titles(doctree)
    store = app.builder.__dict__.setdefault("_compendium_raw_titles", {})
    if found:
        store[docname] = found
    else:
        store.pop(docname, None)


def _patch(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    path = Path(app.outdir) / "_static" / "searchtools.js"
    if path.exists():
        text = path.read_text(encoding="utf-8")
        new = patch_searchtools(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
    index = Path(app.outdir) / "searchindex.js"
    if index.exists():
        raw = getattr(app.builder, "_compendium_raw_titles", {})
        rewrite_index(index, lambda obj: text_titles(obj, raw))


def setup(app):
    app.connect("doctree-resolved", _collect)
    app.connect("build-finished", _patch)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "2"}
