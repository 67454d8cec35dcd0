"""The one expansion of a register table into claim ids, and the one merge of value dicts.

**Cell ids.** A table of ``published/<study>.yaml`` names its ``rows`` and ``cols``; :func:`expand_cells`
gives every printed cell its claim id, row-major (rows outer, columns inner), by these rules:

1. Rows and columns are slugs: each is taken as a string (``str()``), so the cell key ``"<row>.<col>"``
   and the id are the same whether YAML read ``1`` or ``"1"``.
2. ``blank_cells`` (keys ``row.col``): the paper prints nothing there; the cell has no id and is left out.
3. ``existing_ids`` (``{row.col: id}``): that cell's id, as written (an id that predates the pattern).
4. ``existing_ids: {"*": id}``: a whole-table claim; every other cell gets that one id with its position
   ``index = (i, j)`` in the nested list the stage publishes (a key of rule 3 still wins for its cell).
5. Otherwise ``id_pattern.format(row=row, col=col)``; a pattern without ``{row}`` or ``{col}`` would give
   every such cell the same id, so it is an error (:class:`RegisterError`) for any cell rules 2-4 leave.
6. ``same_as`` (``{row.col: id}``): another claim that prints the same number; the cell keeps its own id
   and records the other one (the claims check falls back to it when the cell's own id has no claim).

A key of ``existing_ids`` (other than ``*``), ``blank_cells`` or ``same_as`` that is not ``row.col`` of the
table is an error: a typo would otherwise silently leave a cell on the pattern.

The study register modules (``compendium.pwb.register``, ``compendium.preferences.register``) call
:func:`expand_cells` / :func:`cell_map` instead of expanding tables themselves.

**Values.** :func:`merge_values` joins a stage's value dicts (a chapter's sections, the register's cells)
and raises :class:`ValueClash` on a key that two of them give different values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from compendium.pipeline.results import ValueClash, merge_values, same_value  # the one merge, on the ground floor

from .vocab import RegisterError

__all__ = ["Cell", "ValueClash", "cell_map", "expand_cells", "merge_values", "same_value"]


@dataclass(frozen=True)
class Cell:
    row: str
    col: str
    id: str
    index: tuple[int, int] | None = None  # element of a whole-table claim (existing_ids '*')
    same_as: str | None = None  # another claim that prints the same number


def _named(t: Mapping, key: str) -> dict[str, Any]:
    return {str(k): v for k, v in (t.get(key) or {}).items()}


def _check_keys(t: Mapping, rows: list[str], cols: list[str], source: str) -> None:
    keys = {f"{r}.{c}" for r in rows for c in cols}
    named = (
        ("existing_ids", set(_named(t, "existing_ids")) - {"*"}),
        ("blank_cells", {str(b) for b in (t.get("blank_cells") or [])}),
        ("same_as", set(_named(t, "same_as"))),
    )
    for what, ks in named:
        bad = sorted(ks - keys)
        if bad:
            raise RegisterError(
                f"{source}: table {t.get('slug', '?')}: {what} names cells that are not row.col of the table: {bad[:5]}"
            )


def expand_cells(table: Mapping, source: str = "register") -> list[Cell]:
    """The printed cells of one register table with their claim ids (see the module docstring for the
    rules), row-major. ``source`` names the file in an error message."""
    rows, cols = [str(r) for r in table["rows"]], [str(c) for c in table["cols"]]
    _check_keys(table, rows, cols, source)
    existing = _named(table, "existing_ids")
    blank = {str(b) for b in (table.get("blank_cells") or [])}
    same = _named(table, "same_as")
    pattern = str(table.get("id_pattern", ""))
    templated = "{row}" in pattern or "{col}" in pattern
    whole = existing.get("*")
    cells = []
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            key = f"{r}.{c}"
            if key in blank:
                continue
            index = None
            if key in existing:
                cid = existing[key]
            elif whole:
                cid, index = whole, (i, j)
            elif templated:
                cid = pattern.format(row=r, col=c)
            else:
                raise RegisterError(
                    f"{source}: table {table.get('slug', '?')}: cell {key} has no id (id_pattern {pattern!r} has no "
                    "{row}/{col} and existing_ids does not name the cell)"
                )
            cells.append(Cell(r, c, str(cid), index, None if same.get(key) is None else str(same[key])))
    return cells


def cell_map(table: Mapping, source: str = "register") -> dict[tuple[str, str], str]:
    """``{(row, col): claim id}`` of one register table (:func:`expand_cells`; blank cells left out)."""
    return {(c.row, c.col): c.id for c in expand_cells(table, source)}


# ------------------------------------------------------------------------------------------ merging values
