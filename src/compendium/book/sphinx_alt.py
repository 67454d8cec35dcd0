"""Sphinx extension: alt text for the book's figures, read from the PNG files themselves.

myst-nb renders a glued image (``{glue:figure}``) without alt text (it drops the ``alt`` of an output's
metadata), so the HTML would fall back to the file name (``alt="../_images/f55a….png"``), which a screen
reader reads aloud. :func:`compendium.chapter.display.glue_figure` writes each figure's alt text (:mod:`compendium.chapter.pngtext`), built from the
same numbers as its caption, into the PNG as its "Description" text chunk; this extension sets every image
node that has no alt of its own from that chunk. An image without a description keeps no alt, and the
browser check (:mod:`compendium.book.browsercheck`) reports it.

Enabled in ``book/_config.yml`` (``sphinx.config.extensions``).
"""

from __future__ import annotations

import os
from pathlib import Path

from docutils import nodes

from compendium.chapter.pngtext import png_description  # standard library only (no pandas, no IPython)


def image_file(uri: str, srcdir: str | Path, docpath: str | Path) -> Path | None:
    """The file an image node's ``uri`` names: ``/x`` is relative to the source folder, else to the page."""
    if "://" in uri or uri.startswith("data:"):
        return None
    if uri.startswith("/"):
        cands = [Path(srcdir) / uri[1:], Path(uri)]
    else:
        cands = [Path(docpath).parent / uri, Path(srcdir) / uri]
    for c in cands:
        c = Path(os.path.normpath(c))
        if c.is_file():
            return c
    return None


def fill_alt(app, doctree) -> int:
    """Set ``alt`` of every image node without one from its PNG's Description; returns how many."""
    env = app.env
    docpath = env.doc2path(env.docname)
    n = 0
    for node in doctree.findall(nodes.image):
        if node.get("alt"):
            continue
        f = image_file(node.get("uri", ""), app.srcdir, docpath)
        if f is None or f.suffix.lower() != ".png":
            continue
        text = png_description(f.read_bytes())
        if text:
            node["alt"] = text
            n += 1
    return n


def setup(app):
    app.connect("doctree-read", fill_alt, priority=400)  # before the image collector (500) rewrites uris
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
