"""The one register cell-id expansion (compendium.claims.cells): each rule on a hand-worked table, and the
same ids as every expansion it replaced on the three real registers; the one merge of value dicts."""

import pytest

from compendium import claims
from compendium.claims.cells import Cell, ValueClash, cell_map, expand_cells, merge_values, same_value
from compendium.pipeline import paths, yamlfile

# A 3 x 3 table that uses every rule: ints as slugs (1), a blank cell (2), an existing id (3), a pattern (5),
# a cell printed as another claim (6). Row-major order.
TABLE = {
    "slug": "t",
    "rows": ["a", "b", 7],
    "cols": ["x", "y", 1],
    "id_pattern": "s.t.{row}.{col}",
    "blank_cells": ["a.y"],
    "existing_ids": {"b.x": "s.old_b_x"},
    "same_as": {"7.1": "s.other"},
}


def test_each_rule_on_a_hand_worked_table():
    assert expand_cells(TABLE) == [
        Cell("a", "x", "s.t.a.x"),
        Cell("a", "1", "s.t.a.1"),  # rule 1: the int column 1 is the slug "1"; a.y is blank (rule 2)
        Cell("b", "x", "s.old_b_x"),  # rule 3
        Cell("b", "y", "s.t.b.y"),
        Cell("b", "1", "s.t.b.1"),
        Cell("7", "x", "s.t.7.x"),
        Cell("7", "y", "s.t.7.y"),
        Cell("7", "1", "s.t.7.1", same_as="s.other"),  # rule 6: its own id, and the claim it prints
    ]
    assert cell_map(TABLE)[("7", "1")] == "s.t.7.1" and ("a", "y") not in cell_map(TABLE)


def test_whole_table_id_gives_each_cell_its_position():
    t = {"slug": "m", "rows": ["r1", "r2"], "cols": ["c1", "c2"], "id_pattern": "(whole matrix) s.m"}
    t["existing_ids"] = {"*": "s.m", "r2.c2": "s.m_corner"}
    t["blank_cells"] = ["r1.c2"]
    assert expand_cells(t) == [
        Cell("r1", "c1", "s.m", (0, 0)),
        Cell("r2", "c1", "s.m", (1, 0)),
        Cell("r2", "c2", "s.m_corner"),  # rule 4: a named cell still wins over '*'
    ]


def test_a_pattern_without_row_or_col_is_an_error_for_an_unnamed_cell():
    t = {"slug": "z", "rows": ["a", "b"], "cols": ["n"], "id_pattern": "(existing ids)", "existing_ids": {"a.n": "s.a"}}
    with pytest.raises(claims.RegisterError, match=r"pwb.yaml: table z: cell b.n has no id"):
        expand_cells(t, "pwb.yaml")
    t["existing_ids"]["b.n"] = "s.b"
    assert [c.id for c in expand_cells(t)] == ["s.a", "s.b"]


@pytest.mark.parametrize("key", ["existing_ids", "blank_cells", "same_as"])
def test_a_misnamed_cell_is_an_error(key):
    t = dict(TABLE, **{key: {"a.zz": "s.q"} if key != "blank_cells" else ["a.zz"]})
    with pytest.raises(claims.RegisterError, match=rf"table t: {key} names cells that are not row.col.*a.zz"):
        expand_cells(t)


# ------------------------------------------------------------------------- the expansions it replaced


def _pwb_before(t):  # compendium.pwb.register.register_ids, before the switch (blank, existing, pattern)
    ex, blank = t.get("existing_ids") or {}, set(t.get("blank_cells") or [])
    out = {}
    for r in t["rows"]:
        for c in t["cols"]:
            if f"{r}.{c}" not in blank:
                out[ex.get(f"{r}.{c}", t["id_pattern"].format(row=r, col=c))] = (t["slug"], r, c)
    return out


def _preferences_before(spec):  # compendium.preferences.register.cell_ids, before the switch (no '*')
    existing, blank = spec.get("existing_ids") or {}, set(spec.get("blank_cells") or [])
    return {
        (r, c): existing.get(f"{r}.{c}", spec["id_pattern"].format(row=r, col=c))
        for r in spec["rows"]
        for c in spec["cols"]
        if f"{r}.{c}" not in blank
    }


def _register(study):
    return yamlfile.load(paths.PUBLISHED / f"{study}.yaml")


@pytest.mark.parametrize("study", claims.STUDIES)
def test_the_same_ids_as_every_expansion_it_replaced_on_the_real_registers(study):
    from compendium.workbank.register import cell_ids as workbank_cell_ids  # '*' first, then existing, pattern

    tables = _register(study)["tables"]
    assert tables
    for t in tables:
        ours = cell_map(t, study)
        assert ours == workbank_cell_ids(t), t["slug"]
        if "*" not in (t.get("existing_ids") or {}):  # the pwb and preferences expansions knew no '*'
            assert ours == _preferences_before(t), t["slug"]
            assert {c.id: ("t", c.row, c.col) for c in expand_cells(t)} == {
                k: ("t", r, c) for k, (_, r, c) in _pwb_before(t).items()
            }, t["slug"]
    assert [c.id for t in claims.load_tables() if t.study == study for c in t.cells] == [
        c.id for t in tables for c in expand_cells(t)
    ]


def test_the_study_registers_use_it():
    from compendium.preferences import register as hitl
    from compendium.pwb import register as pwb

    reg = _register("pwb")
    cells, _ = pwb.register_ids(reg)
    assert cells == {k: v for t in reg["tables"] for k, v in _pwb_before(t).items()}
    for spec in hitl.load_layout():
        assert hitl.cell_ids(spec) == _preferences_before(spec) == cell_map(spec)


# ---------------------------------------------------------------------------------------- merging values


def test_merge_values_keeps_agreeing_keys_and_names_every_clash():
    a = {"x": 1.0, "y": [1.0, 2.0], "s": "Recipe A", "n": None, "nan": float("nan")}
    b = {"x": 1.0 + 1e-12, "y": [1.0, 2.0], "s": "Recipe A", "n": None, "nan": float("nan"), "z": 3}
    merged = merge_values(a, b)
    assert merged["z"] == 3 and merged["x"] == b["x"]  # the later dict's value where they agree
    with pytest.raises(ValueClash) as err:
        merge_values(a, {"x": 1.1, "y": [1.0, 2.0, 3.0], "s": "Recipe B", "n": 0}, what="register values")
    msg = str(err.value)
    assert msg.startswith("merging register values: 4 key(s) with different values: ")
    for part in ("x: 1.0 (dict 1) vs 1.1 (dict 2)", "y: [1.0, 2.0]", "s: 'Recipe A' (dict 1) vs 'Recipe B'", "n: None"):
        assert part in msg


def test_same_value_rules():
    assert same_value(46.1, 46.1 * (1 + 1e-10)) and not same_value(46.1, 46.1 * (1 + 1e-8))
    assert same_value(0.0, 1e-13) and not same_value(0.0, 1e-11)
    assert same_value([[1, 2], [3, 4]], [[1, 2], [3, 4.0]]) and not same_value([1, 2], [[1, 2]])
    assert not same_value(True, 1.0 + 1e-12) and same_value(True, True)
    assert same_value(["a", "b"], ["a", "b"]) and not same_value(["a"], ["b"])
    assert not same_value(None, 0) and not same_value("1", 1)
