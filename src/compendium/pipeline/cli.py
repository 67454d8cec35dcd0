"""What every command (``python -m compendium.<room>.<module>``) shares in what it shows and what it allocates.

Text from data files (a model id, a column name, a prompt) is untrusted: a hostile file can hold terminal
control sequences (ESC/CSI/OSC: erase a line, set the window title), NUL, DEL, C1 controls, bidi overrides,
or a value of 200 MB. Every command therefore shows it through one of these:

- :func:`visible`: every control or format character shown as ``[U+XXXX]`` (the one policy; the book's
  :mod:`compendium.chapter.safetext` applies it on every route to HTML as well);
- :func:`quote`: a data value quoted in an error message, visible and at most :data:`QUOTE_LIMIT`
  characters (a list: at most :data:`QUOTE_ITEMS` items), so a 200 MB column name gives a one-line message;
- :func:`safe_output`: called first by every command's ``main``, so a character the terminal's encoding
  lacks (``LC_ALL=C``, ``PYTHONIOENCODING=ascii``: the ``ΔPWI`` line) is written as ``\\u0394``, never a
  ``UnicodeEncodeError`` after the work is done;
- :func:`writable_folder`: an output folder (``--out``) checked before the computation, not after it;
- :data:`MEMORY_BUDGET` (:func:`memory_budget`): what one command may allocate for arrays whose size a
  file's shape sets; a command refuses, in one sentence saying what to lower, a file that would need more
  (:func:`gib` formats the sizes).
"""

from __future__ import annotations

import os
import sys
import tempfile
import unicodedata
from pathlib import Path

__all__ = [
    "visible",
    "quote",
    "safe_output",
    "writable_folder",
    "MEMORY_BUDGET",
    "MEMORY_ENV",
    "memory_budget",
    "gib",
]

#: characters shown as they are by :func:`visible` in multi-line text (inline text shows them too)
_KEEP = frozenset("\n\t")
#: Cf: format characters (bidi embeddings/overrides/isolates U+202A-202E, U+2066-2069, marks U+200E/F, U+061C;
#: zero-width U+200B-200D, U+2060, U+FEFF; soft hyphen ...); Cc: C0 controls (NUL, ESC, CR ...), DEL and the
#: C1 controls (U+0080-009F, e.g. the one-byte CSI U+009B); Zl/Zp: line and paragraph separators (U+2028/9),
#: which break lines where no newline is seen; Cs: a lone surrogate (from JSON "\ud800"), which no encoder writes.
_HIDDEN = frozenset(("Cf", "Cc", "Zl", "Zp", "Cs"))

QUOTE_LIMIT = 80
QUOTE_ITEMS = 12


def _is_hidden(ch: str, keep: frozenset) -> bool:
    return ch not in keep and unicodedata.category(ch) in _HIDDEN


def visible(text: object, inline: bool = False) -> str:
    """``text`` (``str()`` of any value) with every invisible or control character shown as ``[U+XXXX]``.

    Multi-line text (the default, the book's policy): ``\\r\\n`` and ``\\r`` become ``\\n``; newlines and tabs
    are kept. ``inline`` (one line of a terminal: a table cell, a model id in a sentence): newlines, tabs
    and carriage returns are shown too, so a value can neither move the cursor nor start a new row."""
    s = str(text)
    keep = frozenset() if inline else _KEEP
    if not inline:
        s = s.replace("\r\n", "\n").replace("\r", "\n")
    # the common case in C: str.isprintable() is false for every character of the hidden categories (and for
    # some shown ones: Zs, Co, Cn), so a printable text has none and is returned as it is (the claims page's
    # tables pass 30,000 cells through here; the per-character check below took 0.15 s of each claims stage)
    if (s if inline else s.replace("\n", "").replace("\t", "")).isprintable():
        return s
    return "".join(f"[U+{ord(ch):04X}]" if _is_hidden(ch, keep) else ch for ch in s)


def quote(value: object, limit: int = QUOTE_LIMIT, items: int = QUOTE_ITEMS) -> str:
    """A data value for an error message: ``repr`` of a string (which shows every control character as an
    escape), cut to its first ``limit`` characters with the full length named; a list, tuple, set or
    pandas Index as ``[...]`` of at most ``items`` quoted items with the count of the rest. Never builds
    the full representation of a long value."""
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}... ({len(value):,} characters)"
    if isinstance(value, (list, tuple, set, frozenset)) or type(value).__name__ in ("Index", "RangeIndex"):
        seq = sorted(value, key=str) if isinstance(value, (set, frozenset)) else list(value)
        shown = ", ".join(quote(v, limit, items) for v in seq[:items])
        more = f", ... ({len(seq):,} in all)" if len(seq) > items else ""
        return f"[{shown}{more}]"
    if isinstance(value, bytes):
        return repr(value[:limit]) + (f"... ({len(value):,} bytes)" if len(value) > limit else "")
    r = repr(value)
    return r if len(r) <= limit else f"{r[:limit]}... ({len(r):,} characters)"


def safe_output() -> None:
    """Make ``sys.stdout`` and ``sys.stderr`` write a character their encoding lacks as a backslash escape
    (``errors="backslashreplace"``) instead of raising ``UnicodeEncodeError``: a terminal with an ASCII or
    Latin-1 encoding (``LC_ALL=C``, ``PYTHONIOENCODING=ascii``) then shows ``\\u0394PWI`` where a UTF-8 one
    shows ``ΔPWI``. Every command's ``main`` calls it first."""
    for stream in (sys.stdout, sys.stderr):
        # "surrogateescape" is what the C locale gives stdout, and it fails on any character outside ASCII too
        if stream is None or getattr(stream, "errors", None) not in ("strict", "surrogateescape"):
            continue
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):  # not a text file (a test's capture), or closed
            pass


def writable_folder(path: str | Path, option: str = "--out", fix: str | None = None) -> str | None:
    """None when ``path`` is a folder this process can write into, or can be created as one; otherwise one
    sentence naming the option, the folder, the reason and ``fix`` (default: choose another ``option``). Checked by really creating the folder and a
    probe file in it (permissions, a read-only file system, a file in the way, a full disk all show), then
    removing what the check created, so a command can check before it computes and write after."""
    path = Path(path)
    created: list[Path] = []
    p = path
    while not (p.exists() or p.is_symlink()) and p != p.parent:
        created.append(p)
        p = p.parent
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".write-check-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        at = f" at {visible(exc.filename, inline=True)}" if exc.filename and str(exc.filename) != str(path) else ""
        fix = fix or f"choose a folder you can write, e.g. {option} ./out"
        return f"{option} {visible(path, inline=True)}: cannot write there ({reason}{at}); {fix}"
    finally:
        for d in created:  # deepest first: only what this check made, and only if still empty
            try:
                d.rmdir()
            except OSError:
                pass
    return None


#: the default memory budget of one command's shape-dependent arrays (bytes): 2 GiB
MEMORY_BUDGET = 2 * 1024**3
#: the environment variable that sets another budget, in GiB (e.g. ``COMPENDIUM_MEMORY_GIB=16``)
MEMORY_ENV = "COMPENDIUM_MEMORY_GIB"


def memory_budget() -> int:
    """The memory budget in bytes: ``$COMPENDIUM_MEMORY_GIB`` GiB when set to a positive number, else
    :data:`MEMORY_BUDGET`."""
    raw = os.environ.get(MEMORY_ENV, "").strip()
    try:
        gb = float(raw) if raw else 0.0
    except ValueError:
        gb = 0.0
    return int(gb * 1024**3) if gb > 0 and gb < 1e9 else MEMORY_BUDGET


def gib(n_bytes: float) -> str:
    """``n_bytes`` in GiB for a sentence: ``"59.6 GiB"`` (two significant digits below 1 GiB)."""
    g = n_bytes / 1024**3
    return f"{g:,.1f} GiB" if g >= 1 else f"{g:.2g} GiB"
