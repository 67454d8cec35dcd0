"""The PWB chapter's prose as a reader sees it at one setting (issue 38): ``notebooks/10_pwb.md`` with every
``{glue:text}``/``{glue:md}`` role replaced by its value (formatted as the role asks; a ``{glue:md}`` value's MyST
escapes undone) and whitespace collapsed, so that a test can find a sentence and check what it says against the
result it was glued from (the chapter's own text, not the phrase functions alone: fixed words beside a glued number
are checked too)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from compendium.pipeline import paths

CHAPTER = paths.ROOT / "notebooks" / "10_pwb.md"
_ROLE = re.compile(r"\{glue:(?:text|md)\}`([a-z0-9_]+)(?::([^`]+))?`")
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def prose(glue: Mapping) -> str:
    """The chapter's text with ``glue`` (``summary(result)`` and ``verdicts(values)``) in place of its roles."""

    def value(m: re.Match) -> str:
        v = glue[m.group(1)]
        if hasattr(v, "data"):  # IPython Markdown, for {glue:md}
            return _ESCAPED.sub(r"\1", v.data)
        return format(v, m.group(2)) if m.group(2) else str(v)

    return " ".join(_ROLE.sub(value, CHAPTER.read_text()).split())


def between(text: str, start: str, end: str) -> str:
    """The part of ``text`` from ``start`` up to (not including) the next ``end``."""
    i = text.index(start)
    return text[i : text.index(end, i + len(start))]
