"""The escaping rules of compendium.chapter.safetext, each on its own, and rendered by a real MyST + Sphinx build
with the book's MyST extensions (the cases the issue verified: a {download} role, a literalinclude
fence, a {{ x }} substitution, $5 and $6 math, raw HTML)."""

from __future__ import annotations

import html as std_html
from html.parser import HTMLParser
from pathlib import Path

import pytest

from compendium.chapter import safetext as S

PAYLOADS = {
    "script": "<script>alert(1)</script>",
    "img": '<img src=x onerror="alert(2)">',
    "download": "{download}`" + "../" * 12 + "etc/passwd`",
    "literalinclude": "```{literalinclude} " + "../" * 12 + "etc/passwd\n```",
    "subst": "{{ project }} and {{ x }}",
    "math": "costs $5 and $6 each",
    "entity": "&lt;b&gt;bold&lt;/b&gt; &amp;",
    "link": "[click](javascript:alert(3))",
    "bidi": "abc\u202edef\u200bghi",
}


def test_myst_puts_a_backslash_before_every_ascii_punctuation_character():
    import string

    out = S.myst(string.punctuation)
    assert out == "".join("\\" + c for c in string.punctuation)
    assert S.myst("a-b 1.5") == "a\\-b 1\\.5" and S.myst("plain words") == "plain words"


def test_myst_does_not_html_escape_on_top():
    assert S.myst("<b>&amp;") == "\\<b\\>\\&amp\\;"  # MyST renders this as the literal "<b>&amp;"


def test_myst_inline_collapses_newlines_so_text_cannot_start_a_block():
    assert S.myst("a\n\n```{x}\n# h") == "a \\`\\`\\`\\{x\\} \\# h"
    assert "\n" not in S.myst("a\nb\r\nc\rd")


def test_myst_block_keeps_lines_each_escaped():
    assert S.myst("# t\n- i", inline=False) == "\\# t\n\\- i"


def test_html_is_html_escape_with_quotes():
    s = "<a href=\"x\" onclick='y'>&</a>"
    assert S.html(s) == std_html.escape(s, quote=True)


def test_visible_shows_bidi_and_zero_width_controls():
    assert S.visible("a\u202eb\u200bc\u2066d\ufeffe\x07f") == "a[U+202E]b[U+200B]c[U+2066]d[U+FEFF]e[U+0007]f"
    assert S.visible("tab\tand\nnewline, é ü 中") == "tab\tand\nnewline, é ü 中"
    assert S.myst("\u202e") == "\\[U\\+202E\\]" and "[U+202E]" in S.html("\u202e") and "[U+202E]" in S.code("\u202e")


def test_code_fence_is_longer_than_any_backtick_run():
    assert S.code("plain") == "`plain`"
    assert S.code("a ``b`` c") == "```a ``b`` c```"
    assert S.code("`x`") == "`` `x` ``"
    assert S.code("a|b", table_cell=True) == "`a\\|b`"


def test_literal_block_fence_cannot_be_closed_by_the_text():
    text = "one\n```\n````{literalinclude} /etc/passwd\n````\nend"
    block = S.literal_block(text)
    lines = block.splitlines()
    assert lines[0] == "`````text" and lines[-1] == "`````" and lines[1:-1] == text.splitlines()


def test_markup_escapes_arguments_but_keeps_markup():
    out = S.markup("**{}** in {}", "<b>", S.code("a`b"))
    assert out == "**\\<b\\>** in ``a`b``" and isinstance(out, S.Markup)


# --- rendered by Sphinx with the book's MyST extensions -------------------------------------------


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def _text(fragment: str) -> str:
    p = _Tags()
    p.feed(fragment)
    return "".join(p.text)


PASSWD_LINE = Path("/etc/passwd").read_text().splitlines()[0]


def _build(tmp: Path, body: str) -> tuple[str, Path]:
    from sphinx.application import Sphinx

    src = tmp / "src"
    src.mkdir(parents=True)
    (src / "conf.py").write_text(
        "extensions = ['myst_parser']\n"
        "myst_enable_extensions = ['amsmath', 'colon_fence', 'dollarmath', 'deflist', 'substitution', 'linkify']\n"
        "myst_substitutions = {'project': 'SUBSTITUTED', 'x': 'SUBSTITUTED'}\n"
        "html_theme = 'basic'\n"
    )
    (src / "index.md").write_text("# Page\n\n" + body + "\n", encoding="utf-8")
    out = tmp / "out"
    app = Sphinx(str(src), str(src), str(out), str(tmp / "doctrees"), "html", status=None, warning=None)
    app.build()
    return (out / "index.html").read_text(encoding="utf-8"), out


def _article(page: str) -> str:
    return page.split('<div class="body" role="main">', 1)[1].split('<div class="sphinxsidebar"', 1)[0]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """One Sphinx build: each payload escaped with myst() in a paragraph and in a table cell, and as a
    literal block; plus the same payloads with html.escape only, to show the test can fail."""
    tmp = tmp_path_factory.mktemp("safetext")
    parts = []
    for k, p in PAYLOADS.items():
        parts.append(f"MYST-{k}: {S.myst(p)}\n")
        parts.append(f"| field |\n|---|\n| {S.myst(p)} |\n")
        parts.append(S.literal_block(p))
    inline = [k for k in PAYLOADS if k not in ("entity", "literalinclude")]
    escaped_only = "\n".join(f"HTMLESC-{k}: {std_html.escape(PAYLOADS[k])}\n" for k in inline)
    escaped_only += "\n" + std_html.escape(PAYLOADS["literalinclude"]) + "\n"  # appended, as in the issue
    safe, safe_out = _build(tmp / "safe", "\n".join(parts))
    unsafe, unsafe_out = _build(tmp / "unsafe", escaped_only)
    return {"safe": _article(safe), "safe_out": safe_out, "unsafe": _article(unsafe), "unsafe_out": unsafe_out}


def _tags(fragment: str) -> list[tuple[str, dict]]:
    p = _Tags()
    p.feed(fragment)
    return p.tags


def test_escaped_payloads_render_as_their_literal_text(rendered):
    page = rendered["safe"]
    for q, plain in (
        ("&quot;", '"'),
        ("&#x27;", "'"),
        ("\u201c", '"'),
        ("\u201d", '"'),
        ("\u2018", "'"),
        ("\u2019", "'"),
    ):
        page = page.replace(q, plain)  # Sphinx's smart quotes
    for k, p in PAYLOADS.items():
        shown = std_html.escape(S.visible(" ".join(p.split())), quote=False)
        assert f"MYST-{k}: {shown}" in page, k


def test_escaped_payloads_make_no_element_role_math_or_substitution(rendered):
    page, out = rendered["safe"], rendered["safe_out"]
    tags = {t for t, _ in _tags(page)}
    assert not tags & {"script", "img", "iframe"}
    assert not any(a.get("href", "").startswith("javascript:") for _, a in _tags(page))
    assert not any(k.startswith("on") for _, a in _tags(page) for k in a)
    assert "SUBSTITUTED" not in page and 'class="math' not in page and PASSWD_LINE not in _text(page)
    assert not (out / "_downloads").exists()


def test_html_escape_alone_is_not_enough_in_myst(rendered):
    """The negative control: the same payloads with html.escape only still run roles, substitutions and
    math (the issue's finding), so the checks above can fail."""
    page, out = rendered["unsafe"], rendered["unsafe_out"]
    assert "SUBSTITUTED" in page
    assert 'class="math' in page
    assert (out / "_downloads").exists() and any((out / "_downloads").rglob("passwd"))
    assert PASSWD_LINE in _text(page)  # the literalinclude ran


def test_literal_blocks_hold_the_text_line_by_line(rendered):
    page = rendered["safe"]
    assert page.count('<div class="highlight"><pre>') >= len(PAYLOADS)
    assert PASSWD_LINE not in _text(page)
