"""A Sphinx extension that makes ``{numref}`` cheap: no target page is unpickled to resolve a reference.

Sphinx 7's ``StandardDomain._resolve_numref_xref`` calls ``env.get_doctree(docname)`` for every numbered
reference, which unpickles the *whole* target page to look up one node, ``doctree.ids[labelid]``, and
uses of that node only its class, its attributes (``ids``) and, for a code block's container, whether it
holds a ``literal_block``. The book has about 130 numbered references into pages whose doctrees weigh up
to several MB (the claims chapter): a third of the build went to ``pickle.loads`` (profiled: 32 of 92 s).

So, when a page is read (``doctree-read``), this extension keeps a childless copy of each of its label
targets in the build environment (``env.compendium_numref_targets[docname][labelid]``), and lends the
resolver a ``get_doctree`` that answers from those copies. The copies live in the environment, so an
incremental build (``compendium.book``: only changed pages are read again) has them for the pages it did
not read: they are dropped with their page (``env-purge-doc``) and merged from parallel readers
(``env-merge-info``). A target missing from the copies (an environment pickled before this extension
existed) falls back to the real ``get_doctree``, cached once per page for the build. Every other caller of
``get_doctree`` (which may change the tree it gets) is untouched.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.domains.std import StandardDomain

_ORIGINAL = StandardDomain._resolve_numref_xref
_CACHE: dict[str, Any] = {}  # fallback: whole doctrees, per build
ATTR = "compendium_numref_targets"


class _Targets:
    """What the resolver reads of a doctree: ``.ids``."""

    def __init__(self, ids: dict[str, nodes.Element]):
        self.ids = ids


def target_stub(node: nodes.Element) -> nodes.Element:
    """A childless copy of ``node`` (class and attributes), keeping the ``literal_block`` children of a
    code block's container (``get_enumerable_node_type`` looks for one)."""
    stub = node.copy()
    if isinstance(node, nodes.container):
        for child in node.children:
            if isinstance(child, nodes.literal_block):
                stub += child.copy()
    return stub


def _targets(env) -> dict[str, dict[str, nodes.Element]]:
    if not hasattr(env, ATTR):
        setattr(env, ATTR, {})
    return getattr(env, ATTR)


def _collect(app, doctree) -> None:
    """``doctree-read``: childless copies of this page's label targets (named and anonymous labels)."""
    env = app.env
    docname = env.docname
    std = env.get_domain("std")
    ids = {labelid for doc, labelid, *_ in list(std.labels.values()) + list(std.anonlabels.values()) if doc == docname}
    _targets(env)[docname] = {i: target_stub(doctree.ids[i]) for i in sorted(ids) if i in doctree.ids}


def _purge(app, env, docname) -> None:
    _targets(env).pop(docname, None)


def _merge(app, env, docnames, other) -> None:
    mine, theirs = _targets(env), _targets(other)
    for d in docnames:
        if d in theirs:
            mine[d] = theirs[d]


def _resolve_numref_xref(self, env, fromdocname, builder, typ, target, node, contnode):
    real = type(env).get_doctree
    known = getattr(env, ATTR, {})

    def lookup(docname: str):
        if target in self.labels:
            labelid = self.labels[target][1]
        else:
            labelid = self.anonlabels.get(target, ("", ""))[1]
        if labelid in known.get(docname, {}):
            return _Targets(known[docname])
        if docname not in _CACHE:
            _CACHE[docname] = real(env, docname)
        return _CACHE[docname]

    env.get_doctree = lookup  # an instance attribute shadows the method for this call only
    try:
        return _ORIGINAL(self, env, fromdocname, builder, typ, target, node, contnode)
    finally:
        del env.get_doctree


def _clear(*_args) -> None:
    _CACHE.clear()


def setup(app) -> dict[str, Any]:
    StandardDomain._resolve_numref_xref = _resolve_numref_xref
    app.connect("doctree-read", _collect)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-updated", _clear)  # doctrees were (re)read: drop trees of an earlier build
    app.connect("build-finished", _clear)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}
