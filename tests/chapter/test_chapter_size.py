"""The chapters stay thin (issue 11, CONTRIBUTING.md): every stage notebook has at most 150 non-blank code
lines, and no hidden code cell (``remove-cell``, ``remove-input``, ``hide-input``, ``hide-cell``) has more
than 15. Code that grows past that belongs in the package, where it is unit-tested."""

from __future__ import annotations

import jupytext
import pytest

from compendium.pipeline.stage import STAGES

MAX_CODE_LINES = 150
MAX_HIDDEN_CELL_LINES = 15
HIDDEN_TAGS = {"remove-cell", "remove-input", "hide-input", "hide-cell"}


def _non_blank(source: str) -> int:
    return sum(1 for line in source.splitlines() if line.strip())


def chapter_size(path) -> tuple[int, list[tuple[int, int]]]:
    """(non-blank code lines of the notebook, [(cell number, non-blank lines) of each hidden code cell])."""
    nb = jupytext.read(path)
    total, hidden = 0, []
    for k, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        n = _non_blank(cell.source)
        total += n
        if HIDDEN_TAGS & set(cell.metadata.get("tags", [])):
            hidden.append((k, n))
    return total, hidden


def test_chapter_size_counts_code_and_hidden_cells(tmp_path):
    p = tmp_path / "nb.md"
    p.write_text(
        "---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n"
        "kernelspec:\n  display_name: Python 3\n  language: python\n  name: python3\n---\n\n"
        "# Title\n\n```{code-cell}\nx = 1\n\n# a comment counts\ny = 2\n```\n\n"
        "```{code-cell}\n:tags: [remove-cell]\n\nz = 3\n```\n\n"
        "```{code-cell}\n:tags: [remove-input]\n\nw = 4\nv = 5\n```\n"
    )
    total, hidden = chapter_size(p)
    assert total == 6
    assert [n for _, n in hidden] == [1, 2]


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_stage_notebook_is_thin(stage):
    src = STAGES[stage].source
    total, hidden = chapter_size(src)
    assert total <= MAX_CODE_LINES, (
        f"{src.name} has {total} non-blank code lines (at most {MAX_CODE_LINES}): move computation into the "
        "package (CONTRIBUTING.md)"
    )
    big = [(k, n) for k, n in hidden if n > MAX_HIDDEN_CELL_LINES]
    assert not big, (
        f"{src.name}: hidden cells {big} (cell number, lines) exceed {MAX_HIDDEN_CELL_LINES} lines: move the code "
        "into a tested package function"
    )
