"""The package's rooms and what each may import (CONTRIBUTING.md, "The map"), checked on the code's imports.

An arrow that the map does not allow fails here, with the module and the line's target named, so the
layout cannot drift back into a flat hall: move the code to the room it belongs in, or, if the map is
wrong, change the map in CONTRIBUTING.md and here together.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PKG = SRC / "compendium"

#: room -> the rooms its modules may import (besides their own room and the package root's docstring-only
#: ``compendium/__init__.py``). Lowest first: every room may import ``pipeline``; nothing of the analyses
#: imports ``claims`` (except the register's vocabulary, below) or ``book``.
ALLOWED: dict[str, set[str]] = {
    "pipeline": set(),
    "chapter": {"pipeline"},
    "data": {"pipeline", "chapter"},
    "stats": {"pipeline"},
    "workbank": {"pipeline", "chapter", "data", "stats"},
    "pwb": {"pipeline", "chapter", "data", "stats"},
    "preferences": {"pipeline", "chapter", "data", "stats"},
    "humane": {"pipeline", "chapter", "data", "stats", "preferences"},
    "robustness": {"pipeline", "chapter", "data", "stats", "workbank", "pwb", "preferences"},
    "audit": {"pipeline", "chapter", "data", "stats", "pwb", "preferences", "humane"},
    "claims": {"pipeline", "chapter", "stats"},  # stats: the Monte-Carlo digits of the abstract's shares
    "book": {"pipeline", "chapter", "data", "claims"},
}
#: the arrows the map allows by name, each for a stated reason
EXCEPTIONS: dict[tuple[str, str], str] = {
    # the studies' registers lay their cells out with the claims check's one expansion of a register table
    ("compendium.workbank.register", "compendium.claims.cells"): "one cell-id expansion",
    ("compendium.pwb.register", "compendium.claims.cells"): "one cell-id expansion",
    ("compendium.preferences.register", "compendium.claims.cells"): "one cell-id expansion",
    # the chapters' verdict sentences ("The headline numbers reproduce.") follow the statuses the claims check
    # gives the study's own values at this run's settings (compendium.claims.own_statuses, verdict)
    ("compendium.workbank.summary", "compendium.claims"): "verdicts from the claims check",
    ("compendium.pwb.summary", "compendium.claims"): "verdicts from the claims check",
    ("compendium.preferences.summary", "compendium.claims"): "verdicts from the claims check",
    # an acquisition validates a download with the study's own loader before it lands in data/, so a
    # release the stage cannot read is refused (imported inside the function, only when acquiring)
    ("compendium.data.acquire", "compendium.pwb.instances"): "validate with the study's loader",
    ("compendium.data.acquire", "compendium.preferences.rowlevel"): "validate with the study's loader",
    # the synthetic HITL fixture is written by the study's own row schema and its report's pair counts
    ("compendium.data.synthetic_hitl", "compendium.preferences.rowlevel"): "the study's row schema",
    ("compendium.data.synthetic_hitl", "compendium.preferences.reproduce"): "the report's pair counts",
}


def _module(f: Path) -> tuple[str, list[str]]:
    parts = list(f.relative_to(SRC).with_suffix("").parts)
    pkg = parts[:-1]
    if parts[-1] == "__init__":
        parts = parts[:-1]
        pkg = parts
    return ".".join(parts), pkg


def _exists(mod: str) -> bool:
    rel = Path(*mod.split(".")[1:]) if "." in mod else Path()
    return (PKG / rel).with_suffix(".py").is_file() or (PKG / rel / "__init__.py").is_file()


def arrows() -> list[tuple[str, str, int]]:
    """Every import of one package module by another, as ``(importer, imported, line)``; ``from x import y``
    counts as importing the submodule ``x.y`` when there is one, else ``x``."""
    out = []
    for f in sorted(PKG.rglob("*.py")):
        mod, pkg = _module(f)
        for n in ast.walk(ast.parse(f.read_text())):
            if isinstance(n, ast.Import):
                targets = [a.name for a in n.names]
            elif isinstance(n, ast.ImportFrom):
                base = (
                    ".".join(pkg[: len(pkg) - n.level + 1] + ([n.module] if n.module else [])) if n.level else n.module
                )
                subs = [f"{base}.{a.name}" for a in n.names if _exists(f"{base}.{a.name}")]
                targets = subs or [base]
            else:
                continue
            out += [(mod, t, n.lineno) for t in targets if t and t.startswith("compendium.") and _exists(t)]
    return out


def room(mod: str) -> str:
    return mod.split(".")[1]


def test_the_root_holds_no_modules_only_rooms():
    assert sorted(p.name for p in PKG.glob("*.py")) == ["__init__.py"]
    assert set(ALLOWED) <= {p.name for p in PKG.iterdir() if (p / "__init__.py").is_file()}


@pytest.mark.parametrize("importer_room", sorted(ALLOWED))
def test_each_room_imports_only_what_the_map_allows(importer_room):
    bad = [
        f"{a} (line {line}) imports {b}"
        for a, b, line in arrows()
        if room(a) == importer_room
        and room(b) != importer_room
        and room(b) not in ALLOWED[importer_room]
        and not any(b == t or b.startswith(t + ".") for (s, t) in EXCEPTIONS if s == a)
    ]
    assert bad == [], "\n".join(bad)


def test_every_exception_is_still_needed():
    """An exception the code no longer uses is removed from the map."""
    used = {(a, b) for a, b, _ in arrows()}
    stale = [k for k in EXCEPTIONS if not any(a == k[0] and (b == k[1] or b.startswith(k[1] + ".")) for a, b in used)]
    assert stale == []


def test_a_forbidden_arrow_is_caught(tmp_path, monkeypatch):
    """The check can fail: a pipeline module importing a study is reported."""
    fake = tmp_path / "compendium"
    (fake / "pipeline").mkdir(parents=True)
    (fake / "workbank").mkdir()
    for d in (fake, fake / "pipeline", fake / "workbank"):
        (d / "__init__.py").write_text("")
    (fake / "pipeline" / "stage.py").write_text("from ..workbank import landscape\n")
    (fake / "workbank" / "landscape.py").write_text("")
    monkeypatch.setattr(__import__(__name__), "SRC", tmp_path)
    monkeypatch.setattr(__import__(__name__), "PKG", fake)
    got = [(a, b) for a, b, _ in arrows()]
    assert got == [("compendium.pipeline.stage", "compendium.workbank.landscape")]
    assert room(got[0][1]) not in ALLOWED["pipeline"]
