"""Sphinx extension for the book's incremental builds (:mod:`compendium.book`, which loads it itself).

``compendium.book build`` reuses the doctrees of the last good build and reads again only the pages
whose source changed. Sphinx decides that by file times alone: a page is read again if its file (or a
file it depends on: an included file, an image) is newer than the moment the page was last read. A file
put back by ``dvc checkout`` (``make reset``), ``git checkout`` or a copy that keeps times can be older
than that and different all the same, and its page would keep the old doctree. This extension adds the
content: at the end of a build (``build-finished``) it records, beside the doctrees, every page's files
and their SHA-256 (:data:`MANIFEST`); at the start of the next one (``env-get-outdated``) it names the
pages any of whose files differ from that record, and Sphinx reads them too.

It also memoises the English search stemmer (``SearchEnglish.stem``, a pure function of the word) across
builds, in ``compendium-stems.json`` beside the doctrees: writing every page feeds the search index about
8,000 distinct words, and the pure-Python Porter stemmer took a sixth of the writing. The search index is
byte-identical.

Not listed in ``book/_config.yml``: a plain ``jupyter-book build`` needs neither.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

MANIFEST = "compendium-sources.json"


def sha256(path: Path) -> str:
    """The file's SHA-256 (:func:`compendium.pipeline.rawdata.sha256_file`), or ``<missing>`` where it cannot be read."""
    from compendium.pipeline.rawdata import sha256_file

    try:
        return sha256_file(path)
    except OSError:
        return "<missing>"


def changed_by_content(app, env, added, changed, removed) -> list[str]:
    """``env-get-outdated``: the pages, not already to be read, any of whose files differ in content
    from the record of the build that made these doctrees (all of them if there is no record)."""
    todo = sorted(env.found_docs - set(added) - set(changed))
    try:
        manifest = json.loads((Path(app.doctreedir) / MANIFEST).read_text())
    except (OSError, ValueError):
        return todo
    srcdir = Path(app.srcdir)
    return [
        docname
        for docname in todo
        if docname not in manifest or any(sha256(srcdir / rel) != digest for rel, digest in manifest[docname].items())
    ]


def write_manifest(app, exception) -> None:
    """``build-finished``: each page's source file and dependencies, with their SHA-256."""
    if exception is not None:
        return
    env = app.env
    srcdir = Path(app.srcdir)
    manifest = {}
    for docname in sorted(env.found_docs):
        rels = [env.doc2path(docname, base=False)] + sorted(str(d) for d in env.dependencies.get(docname, ()))
        manifest[docname] = {str(rel): sha256(srcdir / rel) for rel in rels}
    (Path(app.doctreedir) / MANIFEST).write_text(json.dumps(manifest, indent=0, sort_keys=True) + "\n")


_STEMS: dict[str, str] = {}  # word -> SearchEnglish.stem(word), kept beside the doctrees between builds
STEMS = "compendium-stems.json"


def _memoise_stemmer() -> None:
    from sphinx.search.en import SearchEnglish

    if getattr(SearchEnglish.stem, "_compendium_memo", False):
        return
    plain = SearchEnglish.stem

    def stem(self, word: str) -> str:
        try:
            return _STEMS[word]
        except KeyError:
            _STEMS[word] = out = plain(self, word)
            return out

    functools.update_wrapper(stem, plain)
    stem._compendium_memo = True
    SearchEnglish.stem = stem


def _load_stems(app) -> None:
    """``builder-inited``: the stems of earlier builds (a cache: a missing or unreadable file is no error)."""
    try:
        stems = json.loads((Path(app.doctreedir) / STEMS).read_text())
    except (OSError, ValueError):
        return
    if isinstance(stems, dict):
        _STEMS.update({k: v for k, v in stems.items() if isinstance(k, str) and isinstance(v, str)})


def _save_stems(app, exception) -> None:
    if exception is None and _STEMS:
        (Path(app.doctreedir) / STEMS).write_text(json.dumps(_STEMS, sort_keys=True, separators=(",", ":")))


def setup(app) -> dict[str, Any]:
    app.connect("env-get-outdated", changed_by_content)
    app.connect("build-finished", write_manifest)
    if getattr(app, "builder", None) is not None:  # set up after the app was made (compendium.book does)
        _load_stems(app)
    else:
        app.connect("builder-inited", _load_stems)
    app.connect("build-finished", _save_stems)
    _memoise_stemmer()
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
