"""Read a YAML file with libyaml's C parser where PyYAML has it (the same safe subset as ``yaml.safe_load``),
with the expansion of aliases bounded.

The claim registers are 150-260 kB each, and the pure-Python parser spent about a second on each read,
several times per stage; the C parser reads the same file about six times faster. Every YAML file of the
project parses to the same object with either parser (``tests/pipeline/test_yamlfile.py``).

**Aliases.** A YAML alias (``*a``) repeats the node of its anchor (``&a``); ten lines of nested aliases (an
"alias bomb", e.g. in a ``params.yaml`` a pulled branch brings) stand for 10^9 values. The parsers share the
repeated node, so reading is quick, but whatever walks the values expands them: DVC, reading
``params.yaml`` for ``dvc repro``, grows by tens of MB a second until the machine runs out of memory.
Every YAML file the project reads (the registers, the data's YAML, and through
:func:`compendium.pipeline.params.read_yaml` DVC's own ``params.yaml``, ``dvc.yaml``, ``dvc.lock``,
``data.dvc``) is therefore checked on its node graph before anything is built from it
(:func:`check_aliases`): the aliases may add at most :data:`MAX_ALIAS_NODES` values to the document, and
an alias may not contain itself. The project's files use a few small aliases (``published/notes/pwb.yaml``);
a file that goes beyond the bound raises :class:`AliasBombError`, naming the file and the anchor's line.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: values (nodes) that aliases may add to a document beyond the nodes it writes out. DVC takes about
#: 0.15 ms per expanded value: 10,000 cost it 1.5 s; the 10^5 of a five-line bomb 15 s, 10^6 150 s.
MAX_ALIAS_NODES = 10_000


class AliasBombError(yaml.YAMLError, ValueError):
    """A YAML document whose aliases expand beyond :data:`MAX_ALIAS_NODES` values, or contain themselves.
    ``line`` is the 1-based line of the anchor repeated most; ``source`` the file (or ``"<string>"``)."""

    def __init__(self, source: str, line: int | None, expanded: int | None, written: int):
        self.source, self.line, self.expanded, self.written = source, line, expanded, written
        at = f"line {line}" if line else "a line"
        if expanded is None:
            what = f"the YAML anchor at {at} contains an alias of itself (an infinitely deep value)"
        else:
            what = (
                f"YAML aliases (the anchor at {at}, repeated by *aliases) make the {written:,} values written stand "
                f"for {expanded:,}, more than {MAX_ALIAS_NODES:,} beyond them (an alias bomb)"
            )
        super().__init__(f"{source}: {what}")


def _children(node) -> list:
    v = node.value
    if isinstance(v, list):
        return [c for item in v for c in (item if isinstance(item, tuple) else (item,))]
    return []


def check_aliases(root, source: str = "<string>", limit: int = MAX_ALIAS_NODES) -> None:
    """Raise :class:`AliasBombError` unless the aliases of the document ``root`` (a composed node graph, of
    PyYAML or ruamel.yaml: an alias is the anchor's node object again) add at most ``limit`` nodes to it and
    none contains itself. Linear in the number of distinct nodes: each node's expanded size is computed
    once (iteratively, so nesting depth is no limit either)."""
    if root is None:
        return
    size: dict[int, int] = {}
    refs: dict[int, int] = {}
    nodes: dict[int, Any] = {}
    open_: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        k = id(node)
        if done:
            open_.discard(k)
            size[k] = 1 + sum(size[id(c)] for c in _children(node))
            continue
        if k in size:
            continue
        if k in open_:  # reached again while its own children are being counted: it contains itself
            raise AliasBombError(source, node.start_mark.line + 1 if node.start_mark else None, None, len(size))
        open_.add(k)
        nodes[k] = node
        stack.append((node, True))
        for c in _children(node):
            refs[id(c)] = refs.get(id(c), 0) + 1
            if id(c) not in size:
                stack.append((c, False))
    written = len(size)
    expanded = size[id(root)]
    if expanded - written <= limit:
        return
    worst = max((k for k in refs if refs[k] > 1), key=lambda k: (refs[k] - 1) * size[k], default=id(root))
    mark = nodes[worst].start_mark
    raise AliasBombError(source, mark.line + 1 if mark else None, expanded, written)


#: where an alias may start: ``*`` at the start of a line or after white space, a flow indicator (``[ { , :``), a
#: complex key's ``?`` (``[?*a]``) or a byte order mark (libyaml skips U+FEFF at the start of any line): the places
#: YAML allows a node. A text without one has no alias, and its node graph is not walked (:func:`check_aliases` took
#: 0.15 s of the claims check's reading of the registers); a ``*`` in prose ("footnote *") only sends the text the
#: slow way. A reviewer tried every code point before a ``*`` in 19 block and flow contexts: these are the ones
#: after which libyaml reads an alias.
MAYBE_ALIAS = re.compile("(?:^|[\\s\\[{,:?\ufeff])\\*", re.M)


def loads(text: str, source: str = "<string>") -> Any:
    """``yaml.safe_load(text)``, with the C parser where available and the aliases bounded
    (:func:`check_aliases`; ``source`` names the text in the error)."""
    loader = Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if MAYBE_ALIAS.search(text):
            check_aliases(node, source)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def load(path: str | Path, encoding: str = "utf-8") -> Any:
    """``yaml.safe_load`` of the file at ``path``, with the C parser where available and the aliases
    bounded (:class:`AliasBombError` names the file)."""
    return loads(Path(path).read_text(encoding=encoding), source=str(path))
