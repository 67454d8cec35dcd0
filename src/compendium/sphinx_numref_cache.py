"""A Sphinx extension that makes ``{numref}`` cheap: one unpickled doctree per target page, not one per
reference.

Sphinx 7's ``StandardDomain._resolve_numref_xref`` calls ``env.get_doctree(docname)`` for every numbered
reference, which unpickles the *whole* target page each time to look up one node. The book has about 130
numbered references into pages whose doctrees weigh up to several MB (the claims chapter), so a third of
the build went to ``pickle.loads`` (profiled: 32 of 92 s). During reference resolution the target page
is only read, never changed, so this extension lends the resolver a per-build cache of the unpickled
doctrees; every other caller of ``get_doctree`` (which may change the tree it gets) is untouched.
"""

from __future__ import annotations

from typing import Any

from sphinx.domains.std import StandardDomain

_ORIGINAL = StandardDomain._resolve_numref_xref
_CACHE: dict[str, Any] = {}


def _resolve_numref_xref(self, env, fromdocname, builder, typ, target, node, contnode):
    real = type(env).get_doctree

    def cached(docname: str):
        if docname not in _CACHE:
            _CACHE[docname] = real(env, docname)
        return _CACHE[docname]

    env.get_doctree = cached  # an instance attribute shadows the method for this call only
    try:
        return _ORIGINAL(self, env, fromdocname, builder, typ, target, node, contnode)
    finally:
        del env.get_doctree


def _clear(*_args) -> None:
    _CACHE.clear()


def setup(app) -> dict[str, Any]:
    StandardDomain._resolve_numref_xref = _resolve_numref_xref
    app.connect("env-updated", _clear)  # doctrees were (re)read: drop trees of an earlier build
    app.connect("build-finished", _clear)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": False}
