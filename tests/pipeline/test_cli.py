"""``compendium.pipeline.cli``: what every command shows of untrusted text, and output that no terminal
encoding can crash (issue 32)."""

from __future__ import annotations

import ast
import io
import sys
import unicodedata
from pathlib import Path

import pytest

from compendium.chapter import safetext
from compendium.pipeline import cli

PKG = Path(__file__).resolve().parents[2] / "src" / "compendium"

#: commands whose ``main`` may not call it yet, each for a stated reason
NOT_YET: dict[str, str] = {}

PAYLOADS = {
    "ESC": "\x1b",
    "CSI erase line": "\x1b[2K",
    "CSI cursor up": "\x1b[1A",
    "OSC window title": "\x1b]0;owned\x07",
    "NUL": "\x00",
    "DEL": "\x7f",
    "C1 CSI": "\x9b2K",
    "C1 OSC": "\x9d0;owned\x9c",
    "CR": "\r",
    "bidi override": "\u202e",
    "lone surrogate": "\ud800",
}


def raw_controls(text: str) -> list[str]:
    """The control and format characters in ``text`` other than newlines (what a terminal acts on)."""
    return [ch for ch in text if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp")]


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_visible_inline_shows_every_control_character(name):
    s = f"model{PAYLOADS[name]}x"
    shown = cli.visible(s, inline=True)
    assert raw_controls(shown) == [] and "[U+" in shown and shown.startswith("model") and shown.endswith("x")
    shown.encode("ascii")  # and nothing an ASCII terminal cannot write


def test_the_printable_fast_path_never_passes_a_hidden_character():
    """visible() returns a text that str.isprintable() accepts as it is: that is only right if no character of the
    hidden categories is printable to Python. Checked on every code point (the same Unicode database)."""
    hidden = [c for c in map(chr, range(sys.maxunicode + 1)) if unicodedata.category(c) in cli._HIDDEN]
    assert len(hidden) > 2000 and not [c for c in hidden if c.isprintable()]
    for c in hidden[:: max(1, len(hidden) // 500)] + ["\u202e", "\x9b", "\u2028", "\ud800"]:
        assert cli.visible(f"a{c}b") == f"a[U+{ord(c):04X}]b" or c in "\n\t\r"
        assert cli.visible(f"a{c}b", inline=True) == f"a[U+{ord(c):04X}]b"
    assert cli.visible("x\u00a0y\ue000z") == "x\u00a0y\ue000z"  # not printable to Python, shown as it is
    # newlines and tabs: kept in multi-line text, shown inline (the fast path strips them only for the former)
    assert cli.visible("a\nb\tc") == "a\nb\tc" and cli.visible("a\r\nb") == "a\nb"
    assert cli.visible("a\nb\tc\x1b", inline=True) == "a[U+000A]b[U+0009]c[U+001B]"
    assert cli.visible("a\rb", inline=True) == "a[U+000D]b" and cli.visible("\x1b[2K") == "[U+001B][2K"


def test_the_book_and_the_commands_share_one_policy():
    assert safetext.visible is cli.visible
    assert safetext.visible("a\r\nb\tc\u202e") == "a\nb\tc[U+202E]"  # the book's multi-line rule is unchanged


def test_quote_bounds_a_huge_value_and_a_long_list():
    huge = "x" * 5_000_000
    q = cli.quote(huge)
    assert len(q) < 200 and "5,000,000 characters" in q and q.startswith("'xxx")
    cols = [huge, "b\x1b[2K"] + [f"c{i}" for i in range(100)]
    q = cli.quote(cols)
    assert len(q) < 2_000 and "102 in all" in q and "\x1b" not in q and "\\x1b" in q


def test_safe_output_writes_escapes_on_an_ascii_stream(monkeypatch):
    out = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")
    monkeypatch.setattr(sys, "stdout", out)
    cli.safe_output()
    print("\u0394PWI +1.0")
    out.flush()
    assert out.buffer.getvalue() == b"\\u0394PWI +1.0\n"


def test_writable_folder_checks_without_leaving_anything(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    problem = cli.writable_folder(f / "sub", "--out")
    assert problem.startswith(f"--out {f / 'sub'}: cannot write there (") and "--out ./out" in problem
    assert cli.writable_folder(tmp_path / "a" / "b") is None
    assert not (tmp_path / "a").exists()  # the check removes the folders it made


def test_memory_budget_can_be_raised(monkeypatch):
    monkeypatch.delenv(cli.MEMORY_ENV, raising=False)
    assert cli.memory_budget() == cli.MEMORY_BUDGET == 2 * 1024**3
    monkeypatch.setenv(cli.MEMORY_ENV, "16")
    assert cli.memory_budget() == 16 * 1024**3
    monkeypatch.setenv(cli.MEMORY_ENV, "lots")
    assert cli.memory_budget() == cli.MEMORY_BUDGET
    assert cli.gib(64e9) == "59.6 GiB"


def _commands() -> list[tuple[str, ast.FunctionDef]]:
    """Every module run as a command (a top-level ``if __name__ == "__main__"``) and its ``main``."""
    out = []
    for f in sorted(PKG.rglob("*.py")):
        tree = ast.parse(f.read_text())
        guarded = any(
            isinstance(n, ast.If) and isinstance(n.test, ast.Compare) and getattr(n.test.left, "id", "") == "__name__"
            for n in tree.body
        )
        main = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main"), None)
        if guarded and main is not None:
            out.append((".".join(f.relative_to(PKG.parent).with_suffix("").parts), main))
    return out


def test_every_command_makes_its_output_safe_for_any_terminal():
    """Each command's ``main`` calls ``safe_output()`` (an ASCII terminal got a UnicodeEncodeError from
    ``python -m compendium.pwb.score`` after it had written its files)."""
    commands = _commands()
    assert len(commands) >= 20
    missing = [
        mod
        for mod, main in commands
        if mod not in NOT_YET
        and not any(isinstance(n, ast.Call) and getattr(n.func, "id", "") == "safe_output" for n in ast.walk(main))
    ]
    assert missing == []
