"""Sphinx extension: the search page shows result titles as text, never as HTML.

Sphinx (7.4) stores section titles and table captions raw in ``searchindex.js``, and its
``searchtools.js`` inserts each result's title (and description) with ``innerHTML``: a caption that
reads ``<img src=x onerror=...>`` as literal text on its page becomes a live element on ``search.html``
once a search lists it. At the end of the build this extension rewrites those two assignments of the
copied ``_static/searchtools.js`` to ``textContent`` (the same text, parsed by no one). The script is
patched, not replaced, so it stays the installed Sphinx's own (offline, no copy to keep in step); if a
Sphinx release changes those lines the build fails with a message rather than publishing an unpatched
search page.

Enabled in ``book/_config.yml`` (``sphinx.config.extensions``).
"""

from __future__ import annotations

from pathlib import Path

#: (what Sphinx 7.4 writes, what the book gets): the only places searchtools.js parses index text as HTML
PATCHES = (
    ("linkEl.innerHTML = title;", "linkEl.textContent = title;"),
    (
        'listItem.appendChild(document.createElement("span")).innerHTML =\n      " (" + descr + ")";',
        'listItem.appendChild(document.createElement("span")).textContent =\n      " (" + descr + ")";',
    ),
)


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


def _patch(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    path = Path(app.outdir) / "_static" / "searchtools.js"
    if not path.exists():
        return
    text = path.read_text(encoding="utf-8")
    new = patch_searchtools(text)
    if new != text:
        path.write_text(new, encoding="utf-8")


def setup(app):
    app.connect("build-finished", _patch)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
