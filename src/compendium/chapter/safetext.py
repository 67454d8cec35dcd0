"""The one way text from data, parameters or file names reaches the book: escaped for where it lands.

A refreshed upstream release is untrusted input, and the book renders its prompts, rubrics, task
statements, theme labels and file names. Text reaches HTML by one of these routes, each with its rule:

- **MyST** (a Markdown cell, a table printed by :func:`compendium.chapter.display.table`, a ``{glue:md}`` value):
  :func:`myst`, a backslash before every ASCII punctuation character. ``html.escape`` is *not* enough
  there, and must not be added on top (MyST would show ``&lt;`` literally): escaped text still runs a
  ``{download}`` role, a ``literalinclude`` fence, a ``{{ x }}`` substitution and ``$5 and $6`` math,
  while every one of them is literal after a backslash (CommonMark: any ASCII punctuation may be
  backslash-escaped; a role, directive, substitution, math or HTML tag needs an unescaped one).
- **Raw HTML** (``display(HTML(...))``, the claims tables, a banner): :func:`html`,
  ``html.escape(quote=True)``.
- **Code spans**: :func:`code`, a fence longer than any backtick run in the text.
- **Verbatim blocks** (the system prompt, a rubric): :func:`literal_block`, a fenced literal block whose
  fence is longer than any backtick run in the text, so no line of it can close the block.

Every route first makes bidi and zero-width controls visible (:func:`visible`): U+202E (right-to-left
override), U+200B (zero-width space) and every other Unicode format or control character is shown as
``[U+202E]``, so text cannot be made to read differently from what it is. :func:`visible` is
:func:`compendium.pipeline.cli.visible`, the one policy, which the commands apply to what they print.

A string built here from escaped parts is a :class:`Markup` (already safe for MyST); the book's table
function escapes every other string it is given.
"""

from __future__ import annotations

import html as _html
import re

from compendium.pipeline.cli import visible

__all__ = ["Markup", "visible", "myst", "html", "code", "literal_block", "markup"]

_ASCII_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")
_BACKTICKS = re.compile(r"`+")


class Markup(str):
    """A string already safe for MyST (built from :func:`myst` / :func:`code` output and authored text)."""

    __slots__ = ()


def myst(text: object, inline: bool = True) -> Markup:
    """``text`` as literal MyST text: a backslash before every ASCII punctuation character.

    With ``inline`` (the default; a table cell, a caption, a sentence) runs of whitespace, newlines
    included, become one space, so the text cannot start a block (a fence, a heading, a table row, an
    indented code block). With ``inline=False`` line breaks are kept (each line escaped), for a paragraph
    of several lines; a blank line then still separates paragraphs.
    """
    s = visible(text)
    if inline:
        s = " ".join(s.split())
        return Markup(_ASCII_PUNCT.sub(r"\\\1", s))
    lines = [_ASCII_PUNCT.sub(r"\\\1", ln.strip()) for ln in s.split("\n")]
    return Markup("\n".join(lines))


def html(text: object) -> str:
    """``text`` as literal raw-HTML text: ``html.escape(quote=True)`` (safe in element content and in a
    quoted attribute value), after :func:`visible`."""
    return _html.escape(visible(text), quote=True)


def _longest_run(s: str) -> int:
    return max((len(m) for m in _BACKTICKS.findall(s)), default=0)


def code(text: object, table_cell: bool = False) -> Markup:
    """``text`` as a MyST inline code span: whitespace collapsed, a fence one backtick longer than the
    longest backtick run in it, padded with a space where the text starts or ends with a backtick or a
    space (CommonMark strips one space on each side). In a pipe table (``table_cell``), ``|`` is
    written ``\\|``, which the table parser turns back into ``|`` even inside a code span."""
    s = " ".join(visible(text).split())
    fence = "`" * (_longest_run(s) + 1)
    if s[:1] in ("`", " ") or s[-1:] in ("`", " "):
        s = f" {s} "
    if table_cell:
        s = s.replace("|", "\\|")
    return Markup(f"{fence}{s}{fence}")


def literal_block(text: object, language: str = "text") -> Markup:
    """``text`` as a MyST fenced literal block (shown as written, line by line, never parsed): the fence
    is longer than any backtick run in the text (at least 3), so no line of it can close the block."""
    s = visible(text)
    fence = "`" * max(3, _longest_run(s) + 1)
    return Markup(f"{fence}{language}\n{s.rstrip(chr(10))}\n{fence}\n")


def markup(template: str, *args: object, **kwargs: object) -> Markup:
    """``template.format(...)`` with every argument passed through :func:`myst` (a :class:`Markup`
    argument is kept as it is): authored MyST with data in it, e.g.
    ``markup("{} ({})", name, code(path))``."""

    def esc(v: object) -> str:
        return v if isinstance(v, Markup) else myst(v)

    return Markup(template.format(*(esc(a) for a in args), **{k: esc(v) for k, v in kwargs.items()}))
