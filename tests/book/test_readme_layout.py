"""The README's "Layout" block agrees with the tree (issue 33: it listed a `tests/unit/` that was gone and a
top-level `figstyle.py`): every path it names exists, and every package and test folder is named."""

from __future__ import annotations

import re

from compendium.pipeline import paths


def layout_block(text: str) -> str:
    return text.split("## Layout", 1)[1].split("```", 2)[1]


def named_paths(block: str) -> dict[str, set[str]]:
    """``{top-level entry: the folders and files named on its lines}`` (``src/compendium/`` -> ``pwb/``, ...)."""
    out: dict[str, set[str]] = {}
    top = None
    for line in block.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            top = line.split()[0]
            out[top] = set()
            rest = line[len(top) :]
        else:
            rest = line
        # folder or file names inside the description: pwb/, chapter/figstyle.py, data/README.md (not commands in `...`)
        rest = re.sub(r"`[^`]*`", "", rest)
        out[top] |= set(re.findall(r"(?<![\w./-])([a-z_]+/(?:[a-z_]+\.(?:py|md))?)(?![\w])", rest))
    return out


def test_every_named_path_exists_and_every_package_and_test_folder_is_named():
    block = layout_block((paths.ROOT / "README.md").read_text())
    named = named_paths(block)
    missing = []
    for top, inner in named.items():
        base = paths.ROOT / top.replace("<stage>", "")
        if not base.exists():
            missing.append(top)
        for rel in inner:
            if top in ("src/compendium/", "tests/") and not (base / rel).exists():
                missing.append(f"{top}{rel}")
    assert missing == [], f"the README's Layout names paths that do not exist: {missing}"
    for top in ("src/compendium/", "tests/"):
        folders = {
            p.name + "/" for p in (paths.ROOT / top).iterdir() if p.is_dir() and not p.name.startswith(("_", "."))
        }
        folders -= {"fixtures/"}
        assert folders <= named[top], f"{top}: not in the README's Layout: {sorted(folders - named[top])}"


def test_the_check_fails_on_a_stale_layout():
    stale = "## Layout\n\n```\ntests/             unit/ (package), claims/\n```\n"
    named = named_paths(layout_block(stale))
    assert named["tests/"] == {"unit/", "claims/"}
    assert not (paths.ROOT / "tests" / "unit").exists()
