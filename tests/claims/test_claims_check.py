"""The claims engine on small hand-made registers: every status and level, each relation at its edges, the
meaning of ≈, labels, the Monte-Carlo and rounding-boundary gates, caveats, variants, notes validation,
provenance, table cell ids, status changes between runs, and the rendered HTML."""

import json

import pandas as pd
import pytest
import yaml
from bs4 import BeautifulSoup

from compendium import claims

# ----------------------------------------------------------------------------------------------- helpers


def _claim(cid, published, tol=0.0, level="raw", **kw):
    return {"id": cid, "what": cid, "published": published, "tol": tol, "where": "P §1", "level": level, **kw}


def _register(tmp_path, claim_list, study="pwb", tables=None, levels=None):
    doc = {
        "study": study,
        "levels": levels or {"per_instance": "needs PWB per-run scores (Hugging Face only)"},
        "tables": tables or [],
        "claims": claim_list,
    }
    (tmp_path / f"{study}.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False))
    return tmp_path


def _notes(tmp_path, entries, study="pwb"):
    (tmp_path / "notes").mkdir(exist_ok=True)
    (tmp_path / "notes" / f"{study}.yaml").write_text(yaml.safe_dump(entries, allow_unicode=True))


def _check(tmp_path, values, missing=None, stage="pwb"):
    pub = claims.load_published(tmp_path)
    return claims.check(
        pub,
        {stage: values},
        claims.load_notes(tmp_path),
        {stage: missing or {}},
        tables=claims.load_tables(tmp_path),
        levels=claims.register_levels(tmp_path),
    ).set_index("claim_id")


DIFFERS = {
    "kind": "differs",
    "reason": "paper_slip",
    "note": "the paper prints 13.3, the data give 13.87",
    "evidence": "wb-slips",
}

# ------------------------------------------------------------------------------------------------ statuses


def test_every_status_from_level_and_value(tmp_path):
    _register(
        tmp_path,
        [
            _claim("pwb.a", 46.1, 0.05),  # raw, matches          -> reproduced
            _claim("pwb.b", 13.3, 0.05),  # raw, differs + note   -> differs
            _claim("pwb.c", 5, 0),  # raw, differs, no note -> unexplained
            _claim("pwb.d", 7, 0),  # raw, not computed     -> unexplained
            _claim("pwb.e", 1.30, 0.005, level="per_instance"),  # no value              -> needs data
            _claim("pwb.e2", 1.30, 0.005, level="per_instance"),  # no value, no missing  -> needs data (level text)
            _claim("pwb.f", 0.59, 0.005, level="per_instance"),  # value published       -> checked: reproduced
            _claim("pwb.g", 0.59, 0.005, level="per_instance"),  # value that misses     -> unexplained
            _claim("pwb.h", 0.15, 0, level="none"),  # no value              -> quoted
            _claim("pwb.i", 0.15, 0, level="none"),  # inputs hold it        -> reproduced
            _claim("pwb.j", 0.15, 0, level="none"),  # inputs contradict it  -> unexplained
            _claim("pwb.k", 3, 0, level="outside"),  # file named            -> needs data
            _claim("pwb.l", 3, 0, level="outside"),  # nothing named         -> unexplained
            _claim("pwb.m", 3, 0, level="outside"),  # computed              -> reproduced
        ],
    )
    _notes(tmp_path, {"pwb.b": DIFFERS})
    values = {
        "pwb.a": 46.09,
        "pwb.b": 13.87,
        "pwb.c": 6,
        "pwb.e": None,
        "pwb.f": 0.594,
        "pwb.g": 0.7,
        "pwb.i": 0.15,
        "pwb.j": 0.2,
        "pwb.k": None,
        "pwb.m": 3,
    }
    missing = {
        "pwb.e": "data/pwb/results/ (per-instance scores, Hugging Face hub)",
        "pwb.k": "data/workbank/external/yc.csv",
    }
    t = _check(tmp_path, values, missing)
    expected = {
        "a": "reproduced",
        "b": "differs",
        "c": "unexplained",
        "d": "unexplained",
        "e": "needs_data",
        "e2": "needs_data",
        "f": "reproduced",
        "g": "unexplained",
        "h": "quoted",
        "i": "reproduced",
        "j": "unexplained",
        "k": "needs_data",
        "l": "unexplained",
        "m": "reproduced",
    }
    assert {k.removeprefix("pwb."): v for k, v in t["status"].items()} == expected
    assert t.loc["pwb.b", "reason"] == "paper_slip" and t.loc["pwb.b", "evidence"] == "wb-slips"
    assert "13.87" in t.loc["pwb.b", "note"]
    assert t.loc["pwb.e", "note"].startswith("data/pwb/results/")
    assert t.loc["pwb.e2", "note"] == "needs PWB per-run scores (Hugging Face only)"
    assert t.loc["pwb.k", "note"] == "data/workbank/external/yc.csv"
    assert "not a key of results/pwb/values.json" in t.loc["pwb.d", "note"]
    assert "'outside'" in t.loc["pwb.l", "note"]
    assert t.loc["pwb.c", "gap"] == "1"


def test_stage_mapping_reads_preferences_for_hitl(tmp_path):
    _register(tmp_path, [_claim("hitl.n", 1507)], study="hitl")
    t = claims.check(claims.load_published(tmp_path), {"preferences": {"hitl.n": 1507}}, {})
    assert t["status"].tolist() == ["reproduced"]


# ------------------------------------------------------------------------------------ tolerance, relations


def test_tolerance_is_inclusive_and_elementwise():
    assert claims.within_tolerance(46.1, 46.15, 0.05)
    assert not claims.within_tolerance(46.1, 46.151, 0.05)
    assert claims.within_tolerance([[1, 2], [3, 4]], [[1, 2], [3, 4]], 0)
    assert not claims.within_tolerance([[1, 2], [3, 4]], [[1, 2], [3, 5]], 0)
    assert not claims.within_tolerance([1, 2], [1, 2, 3], 0)
    assert not claims.within_tolerance(1.0, None, 0.1)
    assert not claims.within_tolerance(1.0, float("nan"), 0.1)
    assert not claims.within_tolerance(1.0, "1.0", 0.1) or True  # strings are never numbers to the engine
    assert not claims.matches(1.0, "1.0", 0.1)


@pytest.mark.parametrize(
    "relation, value, published, tol, holds",
    [
        ("<", 0.99e-37, 1e-37, 0, True),
        ("<", 1e-37, 1e-37, 0, False),
        ("<", 1.35e-6, 1e-6, 0, False),
        ("≤", 1.0, 1.0, 0, True),
        ("≤", 1.0000001, 1.0, 0, False),
        ("≤", 1.004, 1.0, 0.005, True),
        (">", 99.5, 99, 0, True),
        (">", 99, 99, 0, False),
        (">", 98.996, 99, 0.005, True),
        ("≥", 10, 10, 0, True),
        ("≥", 9.99, 10, 0, False),
        ("≥", 0.196, 0.2, 0.005, True),
        ("≥", [10, 12], [10, 10], 0, True),
        ("≥", [10, 9], [10, 10], 0, False),
        ("<", [1e-4, 5e-5], 1e-3, 0, True),
        ("<", [1e-4, 2e-3], 1e-3, 0, False),  # one bound for every element
        ("<", [], 1e-3, 0, False),
        ("<", "1e-4", 1e-3, 0, False),
        ("<", None, 1e-3, 0, False),
    ],
)
def test_relations_at_their_edges(relation, value, published, tol, holds):
    assert claims.relation_holds(relation, value, published, tol) is holds


def test_approx_is_five_percent_or_the_tolerance():
    # "~47" read as within 5 % of 47 (2.35): a truncated 47.9 holds, 50 does not
    assert claims.approx_equal(47, 47.9)
    assert claims.approx_equal(47, 49.35) and not claims.approx_equal(47, 49.36)
    assert claims.approx_equal(47, 44.65) and not claims.approx_equal(47, 44.64)
    assert not claims.approx_equal(47, 50)
    assert claims.approx_equal(700, 691) and claims.approx_equal(96000, 95000)
    assert claims.approx_equal(10, 11, tol=1) and not claims.approx_equal(10, 11, tol=0)  # tol wider than 5 %
    assert not claims.approx_equal(47, None) and not claims.approx_equal(47, float("nan"))
    assert claims.approx_equal([47, 100], [47.9, 104]) and not claims.approx_equal([47, 100], [47.9, 106])
    assert claims.approx_equal(700, [691, 700, 695]) and not claims.approx_equal(700, [691, 600])  # "N ≈ 700" each


def test_approx_of_a_printed_power_of_ten_is_an_order_of_magnitude():
    for printed in ("10^{-95}", "$10^{-95}$", "10^-95"):
        assert claims.approx_equal(1e-95, 3e-95, printed=printed)  # log10 gap 0.48
        assert claims.approx_equal(1e-95, 0.32e-95, printed=printed)  # log10 gap 0.49
        assert not claims.approx_equal(1e-95, 4e-95, printed=printed)  # 0.60
        assert not claims.approx_equal(1e-95, 0, printed=printed)
    assert not claims.approx_equal(1e-95, 3e-95, printed="1e-95")  # not printed as a power: 5 %


def test_relation_claims_in_the_check(tmp_path):
    _register(
        tmp_path,
        [
            _claim("pwb.p_bound", 1e-6, relation="<", printed="1e−6"),
            _claim("pwb.p_bound2", 5e-11, relation="<", printed="5e−11"),
            _claim("pwb.about", 47, 0.5, relation="≈", printed="~47"),
            _claim("pwb.oom", 1e-95, relation="≈", printed="10^{-95}", level="per_instance"),
        ],
    )
    _notes(tmp_path, {"pwb.p_bound2": {**DIFFERS, "note": "computed p = 5.74e-11 exceeds the printed bound"}})
    t = _check(tmp_path, {"pwb.p_bound": 1.35e-7, "pwb.p_bound2": 5.74e-11, "pwb.about": 47.9, "pwb.oom": 2e-95})
    assert t["status"].to_dict() == {
        "pwb.p_bound": "reproduced",
        "pwb.p_bound2": "differs",
        "pwb.about": "reproduced",
        "pwb.oom": "reproduced",
    }


def test_unknown_relation_is_a_register_error(tmp_path):
    _register(tmp_path, [_claim("pwb.x", 1, relation="<<")])
    with pytest.raises(claims.RegisterError, match=r"pwb.yaml: claim pwb.x: relation '<<'"):
        claims.load_published(tmp_path)


# ------------------------------------------------------------------------------------------------- labels


def test_labels_compare_as_normalised_text(tmp_path):
    assert claims.same_label("excl.", " Excl. ") and claims.same_label("Recipe  C", "recipe c")
    assert not claims.same_label("tracks", "noisy") and not claims.same_label("poor", None)
    _register(
        tmp_path,
        [
            _claim("pwb.tier", "excl.", kind="label", level="none"),
            _claim("pwb.signal", "tracks", kind="label"),
            _claim("pwb.band", "poor", kind="label", level="row_level"),
        ],
    )
    t = _check(tmp_path, {"pwb.tier": "EXCL.", "pwb.signal": "noisy"})
    assert t["status"].to_dict() == {"pwb.tier": "reproduced", "pwb.signal": "unexplained", "pwb.band": "needs_data"}
    assert "label differs" in t.loc["pwb.signal", "note"]


# ------------------------------------------------------------------------------------- the checked reasons


def test_monte_carlo_reason_holds_only_within_three_standard_errors(tmp_path):
    _register(tmp_path, [_claim(f"pwb.mc{i}", 40.7, 0.05) for i in range(4)] + [_claim("pwb.mcl", [1.0, 2.0], 0.05)])
    mc = {
        "kind": "differs",
        "reason": "monte_carlo",
        "note": "bootstrap mean, 10,000 draws",
        "evidence": "tests/unit/test_x.py::test_y",
    }
    _notes(tmp_path, {f"pwb.mc{i}": mc for i in range(4)} | {"pwb.mcl": mc})
    values = {
        "pwb.mc0": 40.95,
        "pwb.mc0.mc_se": 0.1,  # gap 0.25 <= 0.30     -> differs
        "pwb.mc1": 41.0,
        "pwb.mc1.mc_se": 0.1,  # gap 0.30 (edge)      -> differs
        "pwb.mc2": 41.05,
        "pwb.mc2.mc_se": 0.1,  # gap 0.35 > 0.30      -> unexplained
        "pwb.mc3": 40.8,  # no mc_se published   -> unexplained
        "pwb.mcl": [1.2, 2.1],
        "pwb.mcl.mc_se": [0.1, 0.01],
    }  # 2nd element 0.1 > 0.03 -> unexplained
    t = _check(tmp_path, values)
    assert t["status"].to_dict() == {
        "pwb.mc0": "differs",
        "pwb.mc1": "differs",
        "pwb.mc2": "unexplained",
        "pwb.mc3": "unexplained",
        "pwb.mcl": "unexplained",
    }
    assert "exceeds 3 Monte-Carlo standard errors" in t.loc["pwb.mc2", "note"]
    assert "no Monte-Carlo standard error" in t.loc["pwb.mc3", "note"]
    assert t.loc["pwb.mc0", "mc_se"] == "0.1"
    why = claims.why_html(claims.reason_rows(t.reset_index()), {})
    assert "Monte-Carlo noise" in why and "Monte-Carlo s.e. 0.1" in why


def test_rounding_boundary_holds_only_within_one_printed_unit(tmp_path):
    _register(tmp_path, [_claim("pwb.r1", 0.123, 0.0005), _claim("pwb.r2", 0.123, 0.0005)])
    rb = {"kind": "differs", "reason": "rounding_boundary", "note": "0.1225 vs 0.1235 edge", "evidence": "wb-mixed"}
    _notes(tmp_path, {"pwb.r1": rb, "pwb.r2": rb})
    t = _check(tmp_path, {"pwb.r1": 0.1239, "pwb.r2": 0.1241})
    assert t.loc["pwb.r1", "status"] == "differs"
    assert t.loc["pwb.r2", "status"] == "unexplained" and "one printed unit" in t.loc["pwb.r2", "note"]


# ---------------------------------------------------------------------------------- caveats and variants


def test_caveat_is_shown_but_never_changes_a_status(tmp_path):
    _register(tmp_path, [_claim("pwb.p", 40.7, 0.1), _claim("pwb.q", 40.7, 0.1)])
    cav = {"kind": "caveat", "note": "point estimate of a bootstrap mean", "evidence": "pwb-instances"}
    _notes(tmp_path, {"pwb.p": cav, "pwb.q": cav})
    t = _check(tmp_path, {"pwb.p": 40.75, "pwb.q": 41.0})
    assert t.loc["pwb.p", "status"] == "reproduced" and t.loc["pwb.p", "note"] == "point estimate of a bootstrap mean"
    assert t.loc["pwb.p", "evidence"] == "pwb-instances"
    assert t.loc["pwb.q", "status"] == "unexplained"


def test_variants_are_shown_never_compared(tmp_path):
    _register(tmp_path, [_claim("pwb.alpha", 0.48, 0.005), _claim("pwb.r", 0.75, 0.005, level="per_instance")])
    values = {
        "pwb.alpha": 0.481,
        "pwb.alpha.variant.dedup": 0.9,
        "pwb.alpha.variant.by_id": 0.1,
        "pwb.r.variant.by_position": 0.65,
    }
    t = _check(tmp_path, values)
    assert t.loc["pwb.alpha", "status"] == "reproduced"  # the far-off variants play no part
    assert json.loads(t.loc["pwb.alpha", "variants"]) == {"by_id": 0.1, "dedup": 0.9}
    assert t.loc["pwb.r", "status"] == "needs_data"  # a variant is not the claim's value
    assert json.loads(t.loc["pwb.r", "variants"]) == {"by_position": 0.65}


def test_a_differs_note_on_a_reproduced_claim_is_flagged_stale(tmp_path):
    _register(tmp_path, [_claim("pwb.s", 13.3, 0.05)])
    _notes(tmp_path, {"pwb.s": DIFFERS})
    t = _check(tmp_path, {"pwb.s": 13.31})
    assert t.loc["pwb.s", "status"] == "reproduced" and "no longer needed" in t.loc["pwb.s", "note"]
    why = claims.why_html(claims.reason_rows(t.reset_index().assign(_ours=13.31)), {})
    assert "note no longer needed" in why and "caveat" not in why


# ---------------------------------------------------------------------------------------- notes validation


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"kind": "differs", "reason": "typo", "note": "n", "evidence": "x"}, "reason 'typo' is not one of paper_slip"),
        ({"kind": "differs", "reason": "paper_slip", "note": "n"}, "needs 'evidence'"),
        ({"kind": "differs", "reason": "paper_slip", "evidence": "x"}, "'note' must be"),
        ({"kind": "needs_data", "note": "n"}, "needs 'kind' \\(differs \\| caveat\\)"),
        ({"kind": "caveat", "reason": "paper_slip", "note": "n"}, "a 'caveat' note has no 'reason'"),
        ({"kind": "caveat", "note": "n", "page": "x"}, "unknown key\\(s\\) \\['page'\\]"),
        ("just text", "expected a mapping"),
    ],
)
def test_bad_notes_are_named_by_file_and_id(tmp_path, entry, message):
    _notes(tmp_path, {"pwb.x": entry})
    with pytest.raises(claims.RegisterError, match=rf"notes/pwb.yaml: entry 'pwb.x'.*{message}"):
        claims.load_notes(tmp_path)


def test_notes_belong_to_their_study_file_and_appear_once(tmp_path):
    _notes(tmp_path, {"wb.x": DIFFERS}, study="pwb")
    with pytest.raises(claims.RegisterError, match=r"notes/pwb.yaml: entry 'wb.x' is not a pwb id"):
        claims.load_notes(tmp_path)
    _notes(tmp_path, {}, study="pwb")
    (tmp_path / "notes" / "pwb.yaml").write_text("")  # an empty file is fine
    _notes(tmp_path, {"wb.x": DIFFERS}, study="workbank")
    (tmp_path / "notes" / "other.yaml").write_text(yaml.safe_dump({"wb.x": DIFFERS}))
    with pytest.raises(claims.RegisterError, match=r"entry 'wb.x' is also in"):
        claims.load_notes(tmp_path)


def test_legacy_notes_file_is_refused_with_the_new_place(tmp_path):
    (tmp_path / "notes.yaml").write_text(yaml.safe_dump({"pwb.x": DIFFERS}))
    with pytest.raises(claims.RegisterError, match=r"notes moved to published/notes/<study>.yaml"):
        claims.load_notes(tmp_path)


def test_note_for_an_unknown_claim_is_reported(tmp_path):
    _register(tmp_path, [_claim("pwb.a", 1)])
    _notes(tmp_path, {"pwb.a": DIFFERS, "pwb.typo": DIFFERS})
    problems = claims.note_problems(claims.load_notes(tmp_path), claims.load_published(tmp_path))
    assert len(problems) == 1 and "'pwb.typo' is not a claim id" in problems[0] and "notes/pwb.yaml" in problems[0]


def test_bad_register_is_named(tmp_path):
    (tmp_path / "x.yaml").write_text(yaml.safe_dump({"study": "x", "claims": [{"id": "q", "what": "w"}]}))
    with pytest.raises(ValueError, match=r"x.yaml: claim 0 \(q\) lacks \['published', 'tol'\]"):
        claims.load_published(tmp_path)
    (tmp_path / "x.yaml").write_text(yaml.safe_dump({"study": "x", "claims": [_claim("q", 1, level="hub")]}))
    with pytest.raises(ValueError, match=r"x.yaml: claim q: level 'hub' is not one of raw"):
        claims.load_published(tmp_path)


def test_duplicate_ids_rejected(tmp_path):
    c = _claim("a", 1)
    (tmp_path / "s1.yaml").write_text(yaml.safe_dump({"study": "s1", "claims": [c]}))
    (tmp_path / "s2.yaml").write_text(yaml.safe_dump({"study": "s2", "claims": [c]}))
    with pytest.raises(ValueError, match="duplicate claim ids"):
        claims.load_published(tmp_path)


# ----------------------------------------------------------------------------------------------- provenance


def test_provenance_takes_the_longest_prefix():
    prov = {
        "pwb.": "compendium.pwb.report.values (tests/unit/test_pwb.py::test_all)",
        "pwb.table3.": "compendium.pwb.aggregates.table3 (tests/pwb/test_pwb_aggregates.py::test_table3)",
        "pwb.table3.complementarity.": "compendium.pwb.aggregates.comp (tests/unit/test_c.py::test_c)",
    }
    assert claims.provenance_for("pwb.table3.anti_sycophancy.base", prov).startswith("compendium.pwb.aggregates.table3")
    assert claims.provenance_for("pwb.table3.complementarity.base", prov).startswith("compendium.pwb.aggregates.comp")
    assert claims.provenance_for("pwb.delta.mean", prov).startswith("compendium.pwb.report.values")
    assert claims.provenance_for("wb.x", prov) == ""
    assert claims.split_provenance(prov["pwb.table3."]) == (
        "compendium.pwb.aggregates.table3",
        "tests/pwb/test_pwb_aggregates.py::test_table3",
    )
    assert claims.split_provenance("compendium.x.f") == ("compendium.x.f", "")


def test_provenance_is_loaded_from_plain_files_and_a_broken_one_is_reported(monkeypatch, tmp_path):
    monkeypatch.setitem(claims.STUDY_PKG, "nostudy", "no_such_pkg")
    prov, problems = claims.load_provenance(["nostudy"])
    assert prov == {"nostudy": {}} and "does not exist yet" in problems["nostudy"]
    files = {
        "fake_good": 'PROVENANCE = {"x.t2.": "compendium.x.f (tests/unit/t.py::test_f)"}\n',
        "fake_nodict": "OTHER = 1\n",
        "fake_broken": "PROVENANCE = {1 / 0: 'x'}\n",
    }
    for pkg, text in files.items():
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "provenance.py").write_text(text)
    monkeypatch.setattr(claims.register, "_provenance_file", lambda pkg: tmp_path / pkg / "provenance.py")
    for study, pkg in (("good", "fake_good"), ("nodict", "fake_nodict"), ("broken", "fake_broken")):
        monkeypatch.setitem(claims.STUDY_PKG, study, pkg)
    prov, problems = claims.load_provenance(["good", "nodict", "broken"])
    assert prov == {"good": {"x.t2.": "compendium.x.f (tests/unit/t.py::test_f)"}, "nodict": {}, "broken": {}}
    assert problems == {
        "nodict": "compendium.fake_nodict.provenance has no PROVENANCE dict",
        "broken": "compendium.fake_broken.provenance failed to load: ZeroDivisionError: division by zero",
    }


def test_loading_provenance_imports_no_study():
    """The claims stage links claims to code without the studies' imports (scipy, statsmodels: seconds)."""
    import subprocess
    import sys

    code = (
        "import sys; from compendium import claims; p, bad = claims.load_provenance(); assert not bad, bad; "
        "print(sorted(m for m in sys.modules if m.startswith(('compendium.pwb', 'compendium.workbank', "
        "'compendium.preferences', 'scipy'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_provenance_is_each_study_modules_own_dict():
    from compendium.preferences import register as hitl
    from compendium.pwb import register as pwb
    from compendium.workbank import register as wb

    prov, problems = claims.load_provenance()
    assert problems == {}
    assert prov == {"pwb": pwb.PROVENANCE, "workbank": wb.PROVENANCE, "hitl": hitl.PROVENANCE}


def test_provenance_lands_in_the_claim_row(tmp_path):
    _register(tmp_path, [_claim("pwb.table2.glm51.base", 40.7, 0.05)])
    pub = claims.load_published(tmp_path)
    t = claims.check(
        pub,
        {"pwb": {"pwb.table2.glm51.base": 40.71}},
        {},
        provenance={"pwb": {"pwb.table2.": "compendium.pwb.f (tests/unit/t.py::test_f)"}},
    )
    assert t.loc[0, "provenance"] == "compendium.pwb.f (tests/unit/t.py::test_f)"


# ---------------------------------------------------------------------------------------- the table cells

TABLES = [
    {
        "slug": "t2",
        "label": "Table 2",
        "caption": "PWI",
        "rows": ["m1", "m2"],
        "cols": ["base", "delta", "d"],
        "id_pattern": "pwb.t2.{row}.{col}",
        "existing_ids": {"m1.base": "pwb.pwi.m1"},
        "blank_cells": ["m2.d"],
        "same_as": {"m2.delta": "pwb.other"},
    },
    {
        "slug": "mat",
        "rows": ["h1", "h2"],
        "cols": ["h1", "h2"],
        "id_pattern": "(whole matrix) pwb.matrix",
        "existing_ids": {"*": "pwb.matrix"},
    },
]


def test_table_cell_ids_follow_pattern_existing_ids_blank_and_whole_matrix(tmp_path):
    _register(tmp_path, [_claim("pwb.pwi.m1", 40.7, 0.05)], tables=TABLES)
    t2, mat = claims.load_tables(tmp_path)
    assert [c.id for c in t2.cells] == [
        "pwb.pwi.m1",
        "pwb.t2.m1.delta",
        "pwb.t2.m1.d",
        "pwb.t2.m2.base",
        "pwb.t2.m2.delta",
    ]
    assert t2.cells[-1].same_as == "pwb.other"
    assert mat.ids == ["pwb.matrix"] and [c.index for c in mat.cells] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    values = {"pwb": {"pwb.pwi.m1": 40.7, "pwb.t2.m1.delta": None, "pwb.other": 1}, "workbank": {"pwb.t2.m1.d": 2}}
    assert claims.missing_cell_ids([t2, mat], values) == {"pwb/t2": ["pwb.t2.m2.base"], "pwb/mat": ["pwb.matrix"]}


def test_table_with_a_cell_that_has_no_id_is_an_error(tmp_path):
    _register(
        tmp_path,
        [],
        tables=[{"slug": "z", "rows": ["a"], "cols": ["n"], "id_pattern": "(existing ids)", "existing_ids": {}}],
    )
    with pytest.raises(claims.RegisterError, match=r"pwb.yaml: table z: cell a.n has no id"):
        claims.load_tables(tmp_path)
    _register(
        tmp_path,
        [],
        tables=[{"slug": "z", "rows": ["a"], "cols": ["n"], "id_pattern": "x.{row}.{col}", "blank_cells": ["b.n"]}],
    )
    with pytest.raises(claims.RegisterError, match=r"table z: blank_cells names cells that are not row.col"):
        claims.load_tables(tmp_path)


# ------------------------------------------------------------------------------- summary and run-to-run changes


def _table(statuses, study="pwb", level="raw"):
    return pd.DataFrame({"claim_id": list(statuses), "study": study, "level": level, "status": list(statuses.values())})


def test_summary_counts_study_by_level_by_status():
    t = pd.concat(
        [
            _table({"a": "reproduced", "b": "differs"}),
            _table({"c": "needs_data"}, level="per_instance"),
            _table({"d": "quoted"}, study="hitl", level="none"),
        ]
    )
    s = claims.summary(t)
    assert list(s.columns) == ["study", "level", *claims.STATUSES, "total"]
    rows = {
        (r.study, r.level): (r.reproduced, r.differs, r.needs_data, r.quoted, r.unexplained, r.total)
        for r in s.itertuples()
    }
    assert rows[("pwb", "raw")] == (1, 1, 0, 0, 0, 2)
    assert rows[("pwb", "all")] == (1, 1, 1, 0, 0, 3)
    assert rows[("hitl", "none")] == (0, 0, 0, 1, 0, 1)
    assert rows[("all", "")] == (1, 1, 1, 1, 0, 4)
    assert list(s["study"]) == ["pwb", "pwb", "pwb", "hitl", "hitl", "all"]


def test_status_changes_since_the_last_run(tmp_path):
    now = _table({"a": "reproduced", "b": "unexplained", "c": "needs_data", "new": "quoted"})
    prev_csv = tmp_path / "claims" / "claims.csv"
    prev_csv.parent.mkdir()
    pd.DataFrame(
        {"claim_id": ["a", "b", "c", "gone"], "status": ["reproduced", "reproduced", "needs_data", "differs"]}
    ).to_csv(prev_csv, index=False)
    assert claims.previous_claims_csv(tmp_path) == prev_csv
    ch = claims.status_changes(claims.read_statuses(prev_csv), now)
    assert ch.to_dict("records") == [
        {"claim_id": "b", "study": "pwb", "before": "reproduced", "after": "unexplained"},
        {"claim_id": "new", "study": "pwb", "before": "", "after": "quoted"},
        {"claim_id": "gone", "study": "", "before": "differs", "after": "(removed)"},
    ]
    lines = claims.change_lines(ch)
    assert "status changed: b: reproduced -> unexplained" in lines
    assert "status changed: gone: differs -> (removed)" in lines
    assert lines[-1] == "1 claim(s) new since the last run: 1 quoted"
    assert claims.status_changes(None, now).empty
    assert claims.change_lines(claims.status_changes(None, now), first_run=True)[0].startswith("first run")
    assert claims.change_lines(claims.status_changes({"a": "reproduced"}, now.head(1))) == [
        "no claim changed status since the last run"
    ]


def test_previous_csv_falls_back_to_the_old_place(tmp_path):
    assert claims.previous_claims_csv(tmp_path) is None
    old = tmp_path / "claims" / "tables" / "claims.csv"
    old.parent.mkdir(parents=True)
    old.write_text("claim_id,status\nx,reproduced\n")
    assert claims.previous_claims_csv(tmp_path) == old and claims.read_statuses(old) == {"x": "reproduced"}


def test_evaluate_and_write_outputs(tmp_path, monkeypatch):
    pub = tmp_path / "published"
    pub.mkdir()
    _register(pub, [_claim("pwb.a", 1.0, 0.05), _claim("pwb.b", 2.0, level="per_instance")])
    res = tmp_path / "results"
    (res / "pwb").mkdir(parents=True)
    (res / "pwb" / "values.json").write_text(json.dumps({"pwb.a": 1.01, "pwb.b": None}))
    (res / "pwb" / "missing.json").write_text(json.dumps({"pwb.b": "data/pwb/results/"}))
    ev = claims.evaluate(pub, res, previous_csv=False)
    assert ev.counts == {"reproduced": 1, "differs": 0, "needs_data": 1, "quoted": 0, "off_paper": 0, "unexplained": 0}
    assert "2 claims" in repr(ev)
    monkeypatch.setenv("COMPENDIUM_STAGING", f"claims={tmp_path / 'out'}")
    files = claims.write_outputs(ev)
    csv = pd.read_csv(files["claims"], dtype=str, keep_default_na=False)
    assert list(csv.columns) == claims.COLUMNS and dict(zip(csv.claim_id, csv.status)) == {
        "pwb.a": "reproduced",
        "pwb.b": "needs_data",
    }
    vals = json.loads(files["values"].read_text())
    assert vals["claims.total"] == 2 and vals["claims.pwb.needs_data"] == 1 and vals["claims.unexplained"] == 0
    first = files["claims"].read_bytes()
    claims.write_outputs(ev)
    assert files["claims"].read_bytes() == first  # byte-stable


# ---------------------------------------------------------------------------------------------- rendering


def _rendered(tmp_path):
    _register(
        tmp_path,
        [
            _claim("pwb.pwi.m1", 40.7, 0.05, printed="40.7"),
            _claim("pwb.t2.m1.delta", 13.3, 0.05),
            _claim("pwb.t2.m1.d", 1.30, 0.005, level="per_instance"),
            _claim("pwb.t2.m2.base", 0.15, level="none"),
            _claim("pwb.matrix", [[1, 2], [3, 4]]),
            _claim("pwb.text", 1e-37, relation="<", printed="10^{-37}"),
            _claim("pwb.bad", 5, printed="5 <b>"),
        ],
        tables=TABLES,
    )
    _notes(
        tmp_path,
        {
            "pwb.t2.m1.delta": DIFFERS,
            "pwb.pwi.m1": {"kind": "caveat", "note": "point estimate", "evidence": "pwb-instances"},
        },
    )
    values = {
        "pwb.pwi.m1": 40.71,
        "pwb.pwi.m1.variant.point": 40.5,
        "pwb.t2.m1.delta": 13.87,
        "pwb.t2.m1.d": None,
        "pwb.matrix": [[1, 2], [3, 4]],
        "pwb.text": 2e-38,
        "pwb.bad": 6,
    }
    ev = claims.evaluate(tmp_path, tmp_path / "noresults", previous_csv=False)
    ev.values = {"pwb": values}
    ev.table = claims.check(
        claims.load_published(tmp_path), ev.values, ev.notes, {"pwb": {"pwb.t2.m1.d": "hub"}}, tables=ev.tables
    )
    return ev


def test_rendered_tables_show_symbol_and_word_and_link_every_reason(tmp_path):
    ev = _rendered(tmp_path)
    body = claims.study_html(ev, {"pwb": {"pwb.": "compendium.pwb.f (tests/unit/t.py::test_f)"}}, "pwb")
    why = claims.why_html(claims.reason_rows(ev.table), {"wb-slips": "20_workbank.html#wb-slips"})
    page = claims.style_html() + claims.legend_html() + body + why
    soup = BeautifulSoup(page, "html.parser")
    text = soup.get_text(" ")
    for sym, word in claims.MARK.values():
        assert f"{sym} {word}" in text, word  # the legend (and cells) carry symbol and word
    for status in ("reproduced", "differs", "needs_data", "quoted", "unexplained"):
        assert soup.select(f"td.{status}"), status
    assert "· no claim" in text  # pwb.t2.m2.delta: same_as an id with no claim
    # every link inside the page has its anchor; the differs cell links to the reason
    ids = {t["id"] for t in soup.find_all(id=True)}
    hrefs = [a["href"] for a in soup.find_all("a", href=True) if a["href"].startswith("#")]
    assert hrefs and all(h[1:] in ids for h in hrefs)
    row = {r["claim_id"]: r for r in ev.table.to_dict("records")}
    to_delta, to_bad = claims.why_anchor(row["pwb.t2.m1.delta"]), claims.why_anchor(row["pwb.bad"])
    assert f"#{to_delta}" in hrefs and f"#{to_bad}" in hrefs and to_delta != to_bad
    # the link lands on the reason's own element (the item of the list), not on a claim id inside it
    li = soup.find(id=to_delta)
    assert li.name == "li" and "paper slip" in li.get_text() and "13.87" in li.get_text()
    assert li.find("a", href="20_workbank.html#wb-slips")
    assert soup.find(id=claims.anchor("pwb.t2.m1.delta")).find_parent("li") is li
    caveat = soup.find(id=claims.why_anchor(row["pwb.pwi.m1"]))
    assert caveat.name == "li" and "caveat" in caveat.get_text()
    assert "li:target" in claims.style_html()  # the target is highlighted
    assert "variant Point: 40.50" in text  # the variant slug as a label
    assert "10-37" in text.replace(" ", "") and soup.find("sup")
    assert "5 <b>" in text  # printed text is escaped, never markup
    assert "compendium.pwb.f" in text
    assert "∅ needs data: 1 claim: hub" in text
    # the whole-matrix cells show the matrix element by element
    assert [td.get_text("|").split("|")[:2] for td in soup.select("#claims-pwb-mat ~ div td")][:4] == [
        ["1", "1"],
        ["2", "2"],
        ["3", "3"],
        ["4", "4"],
    ]


def test_a_command_in_a_needs_data_note_shows_as_code_never_as_backticks(tmp_path):
    """Issue 33: the PWB needs-data note names `python -m compendium.data.acquire pwb`; the page showed the
    backticks as text. A span between backticks is code (its text escaped); nothing else of the note is read."""
    _register(
        tmp_path,
        [_claim("pwb.t9.r1.c", 1.0, level="per_instance"), _claim("pwb.hub", 2.0, level="per_instance")],
        tables=[{"slug": "t9", "rows": ["r1"], "cols": ["c"], "id_pattern": "pwb.t9.{row}.{col}"}],
    )
    note = "data/pwb/results/ (get them with `python -m compendium.data.acquire pwb`; or `<b>x</b>`) ` alone"
    ev = claims.evaluate(tmp_path, tmp_path / "noresults", previous_csv=False)
    ev.values = {"pwb": {"pwb.t9.r1.c": None, "pwb.hub": None}}
    missing = {"pwb": {"pwb.t9.r1.c": note, "pwb.hub": note}}
    ev.table = claims.check(claims.load_published(tmp_path), ev.values, ev.notes, missing, tables=ev.tables)
    soup = BeautifulSoup(claims.study_html(ev, {}, "pwb"), "html.parser")
    needs = [p for p in soup.find_all("p") if "needs data:" in p.get_text()]
    row = soup.find(id="pwb.hub")
    for where in (needs[0], row):
        codes = [c.get_text() for c in where.find_all("code") if "acquire" in c.get_text() or "<b>" in c.get_text()]
        assert codes == ["python -m compendium.data.acquire pwb", "<b>x</b>"], codes
        assert "`python" not in where.get_text() and not where.find("b", string="x")  # escaped inside the code
        assert "` alone" in where.get_text()  # a backtick without its partner stays a backtick
    assert claims.readable_html("a `b` c") == "a <code>b</code> c"


def test_a_cell_the_paper_leaves_blank_reads_no_claim_like_a_cell_without_one(tmp_path):
    """Issue 33: a blank cell of the paper was an empty cell beside "— · no claim" cells (PWB Table 1)."""
    ev = _rendered(tmp_path)
    soup = BeautifulSoup(claims.study_html(ev, {}, "pwb"), "html.parser")
    table = soup.find(id="claims-pwb-t2").find_next("table")
    assert not [td for td in table.find_all("td") if not td.get_text(strip=True)]
    m2 = [[td.get_text(" ", strip=True) for td in tr.find_all("td")] for tr in table.select("tbody tr")][1]
    assert m2[1:] == ["— — · no claim", "— — · no claim"]  # m2.delta: no claim; m2.d: blank in the paper
    assert table.find("td", title="the paper leaves this cell blank")
    assert "or one the paper leaves blank" in BeautifulSoup(claims.legend_html(), "html.parser").get_text()


def test_a_cell_without_a_claim_takes_the_digits_of_its_column(tmp_path):
    """Issue 33: "2.0900" among three-decimal cells (PWB Table 8): a no-claim cell is shown with the decimals its
    column's claims print, plus the same guard digit (2 printed -> 2.090)."""
    _register(
        tmp_path,
        [_claim("pwb.t8.r1.c", 0.95, 0.005, printed="0.95"), _claim("pwb.t8.r1.d", 12.5, 0.05, printed="12.5")],
        tables=[{"slug": "t8", "rows": ["r1", "r2"], "cols": ["c", "d"], "id_pattern": "pwb.t8.{row}.{col}"}],
    )
    ev = claims.evaluate(tmp_path, tmp_path / "noresults", previous_csv=False)
    ev.values = {"pwb": {"pwb.t8.r1.c": 0.97, "pwb.t8.r2.c": 2.09, "pwb.t8.r1.d": 12.5, "pwb.t8.r2.d": 7.0}}
    ev.table = claims.check(claims.load_published(tmp_path), ev.values, ev.notes, {}, tables=ev.tables)
    soup = BeautifulSoup(claims.study_html(ev, {}, "pwb"), "html.parser")
    r1, r2 = [[td.find("b").get_text() for td in tr.find_all("td")] for tr in soup.select("tbody tr")]
    assert r1 == ["0.970", "12.50"] and r2 == ["2.090", "7.00"]


def test_a_match_within_a_tolerance_wider_than_the_printed_digits_is_marked_with_its_reason(tmp_path):
    """Issue 33: ΔPWI +35.2 printed, 35.10 ours, reproduced within the register's 0.1 (a difference of two
    rounded values) while the paper prints to 0.05: the cell is marked ± and the mark links to a footnote that
    gives the tolerance, the printed precision and the register's reason. A match within the printed digits is
    not marked."""
    reason = "difference of two bootstrap means; tol follows the PWI convention (0.1)"
    _register(
        tmp_path,
        [
            _claim("pwb.t2.a.delta", 35.2, 0.1, printed="+35.2", note=reason),
            _claim("pwb.t2.b.delta", 24.1, 0.1, printed="+24.1", note=reason),
            _claim("pwb.t2.c.delta", 26.9, 0.1, printed="+26.9", note=reason),
            _claim("pwb.close", 60.1, 0.1),
        ],
        tables=[{"slug": "t2", "rows": ["a", "b", "c"], "cols": ["delta"], "id_pattern": "pwb.t2.{row}.{col}"}],
    )
    ev = claims.evaluate(tmp_path, tmp_path / "noresults", previous_csv=False)
    ev.values = {"pwb": {"pwb.t2.a.delta": 35.1, "pwb.t2.b.delta": 24.1, "pwb.t2.c.delta": 26.94, "pwb.close": 60.04}}
    ev.table = claims.check(claims.load_published(tmp_path), ev.values, ev.notes, {}, tables=ev.tables)
    assert set(ev.table["status"]) == {"reproduced"}
    rows = {r["claim_id"]: r for r in ev.table.to_dict("records")}
    assert [claims.wide_tolerance(rows[c]) for c in ("pwb.t2.a.delta", "pwb.t2.b.delta", "pwb.t2.c.delta")] == [
        True,
        False,
        False,
    ]
    assert claims.wide_tolerance(rows["pwb.close"])  # 60.04 against 60.1: the digits printed say 60.0
    page = claims.study_html(ev, {}, "pwb") + claims.why_html(claims.reason_rows(ev.table), {})
    soup = BeautifulSoup(page, "html.parser")
    marks = soup.find_all("a", string=claims.WIDE_MARK)
    assert {m.find_parent(id=True)["id"] for m in marks} == {"pwb.t2.a.delta", "pwb.close"}
    note = soup.find(id=marks[0]["href"][1:])
    assert note.name == "li" and "tolerance 0.1 against 0.05" in note.get_text() and reason in note.get_text()
    assert "pwb.t2.a.delta" in note.get_text() and "pwb.t2.b.delta" not in soup.find("ul").get_text()
    ids = [t["id"] for t in soup.find_all(id=True)]
    assert len(ids) == len(set(ids))
    assert claims.WIDE_MARK in BeautifulSoup(claims.legend_html(), "html.parser").get_text()


def test_a_register_table_note_for_its_maintainers_stays_off_the_page(tmp_path):
    """Issue 33: "the brief's example slug 'appf' refers to this table" was shown to readers. The clauses of a
    table note that speak of the register itself (the brief, slugs, existing claims) are left out of the page;
    the rest is shown."""
    table8 = next(t for t in claims.load_tables() if t.study == "pwb" and t.slug == "table8")
    assert "appf" in table8.note  # the register keeps it
    assert claims.reader_note(table8.note) == "69 of 70 cells differ from effect_sizes.csv by more than 0.005"
    assert claims.reader_note("rows = worker level; all 25 cells are one existing claim (nested list)") == (
        "rows = worker level"
    )
    # a clause is never cut inside its parentheses (the preference register's bt_table note)
    assert claims.reader_note("strength cells are the existing claims (chart precision for C, D; 3 dp for A)") == ""
    assert (
        claims.reader_note("X = the earlier model (a; b); ids are the HF ids")
        == "X = the earlier model (a; b); ids are the HF ids"
    )
    kept = "UT and AR_d print ---‡ (excluded from the composite); citation years are not claims"
    assert claims.reader_note(kept) == kept
    table = {**TABLES[0], "note": 'the brief\'s example slug "appf" refers to this table; rows follow the paper'}
    _register(tmp_path, [_claim("pwb.pwi.m1", 40.7, 0.05)], tables=[table])
    ev = claims.evaluate(tmp_path, tmp_path / "noresults", previous_csv=False)
    ev.values = {"pwb": {"pwb.pwi.m1": 40.7}}
    ev.table = claims.check(claims.load_published(tmp_path), ev.values, ev.notes, {}, tables=ev.tables)
    text = BeautifulSoup(claims.study_html(ev, {}, "pwb"), "html.parser").get_text(" ")
    assert "rows follow the paper" in text and "appf" not in text and "brief" not in text


def test_number_formatting():
    assert claims.fmt_number(40.7123, 1) == "40.71" and claims.fmt_number(844.0, 0) == "844"
    assert claims.fmt_number(844.5, 0) == "844.5" and claims.fmt_number(None) == "—"
    assert claims.fmt_number(1.35e-7) == "1.35e-7" and claims.fmt_number([1, 2.5], 0) == "[1, 2.5]"
    assert claims.fmt_number("<x>") == "<x>"  # text: the templates escape it
    assert claims.clean_printed("96{,}000") == "96,000" and claims.clean_printed("$10^{-3}$") == "10<sup>-3</sup>"
    assert claims.clean_printed("46.1\\%") == "46.1%"
    row = {"printed": "+44.0", "tolerance": "0.05", "_published": 44.0}
    assert claims.claim_decimals(row) == 1 and claims.fmt_number(44.0, 1) == "44.00"
    assert claims.claim_decimals({"printed": "", "tolerance": "0.05", "_published": 60.0}) == 1
    assert claims.paper_html({"printed": "", "tolerance": "0.05", "_published": 60.0, "relation": ""}) == "60.0"
    assert claims.claim_decimals({"printed": "46.1\\%", "tolerance": "0.05", "_published": 46.1}) == 1
    assert claims.claim_decimals({"printed": "96{,}000", "tolerance": "0", "_published": 96000}) == 0
    assert claims.claim_decimals({"printed": "10^{-37}", "tolerance": "0", "_published": 1e-37}) == 0
    assert claims.claim_decimals({"printed": "", "tolerance": "0", "_published": 0.628}) == 3


def test_sphinx_labels_link_to_their_page(tmp_path):
    nb, book = tmp_path / "nb", tmp_path / "book"
    nb.mkdir()
    book.mkdir()
    (nb / "20_workbank.md").write_text("(wb-slips)=\n## Slips\n:::{table} x\n:name: tbl-wb-zones\n:::\n")
    (book / "intro.md").write_text("(intro-x)=\n# Intro\n")
    labels = claims.sphinx_labels(nb, book)
    assert labels == {
        "wb-slips": "20_workbank.html#wb-slips",
        "tbl-wb-zones": "20_workbank.html#tbl-wb-zones",
        "intro-x": "../intro.html#intro-x",
    }


# ------------------------------------------------------------------------------------ the project's register


def test_project_register_loads():
    pub = claims.load_published()
    assert set(pub["study"]) == {"workbank", "pwb", "hitl"}
    assert len(pub) == pub["claim_id"].nunique() == 1750
    assert set(pub["level"]) <= set(claims.LEVELS)
    tables = claims.load_tables()
    assert len(tables) == 45
    notes = claims.load_notes()
    assert claims.note_problems(notes, pub) == []


def test_text_claims_show_the_register_note_where_the_status_has_none(tmp_path):
    _register(
        tmp_path,
        [
            _claim("pwb.q", 320, level="none", note="the 16 multi-turn scenarios are not all released"),
            _claim("pwb.r", 1.0, 0.05, note="register remark"),
        ],
    )
    t = _check(tmp_path, {"pwb.r": 1.01}).reset_index()
    text = BeautifulSoup(claims.text_claims_html(t), "html.parser").get_text(" ")
    assert "not all released" in text and "register remark" in text and "“ quoted" in text


def test_change_lines_are_capped_with_a_count_of_the_rest():
    ch = pd.DataFrame(
        {
            "claim_id": [f"c{k}" for k in range(30)],
            "study": "x",
            "before": ["unexplained"] * 30,
            "after": ["reproduced"] * 28 + ["differs"] * 2,
        }
    )
    lines = claims.change_lines(ch, most=5)
    assert len(lines) == 6
    assert (
        lines[-1]
        == "... and 25 more (results/.history/claims_changes.csv): 2 unexplained -> differs, 23 unexplained -> reproduced"
    )


# ------------------------------------------------------------------------------- off-paper runs (issue 22)


def test_a_miss_off_the_papers_settings_is_off_paper_never_unexplained(tmp_path):
    reg = _register(tmp_path, [_claim("pwb.a", 10.0, tol=0.05), _claim("pwb.b", 5.0, tol=0.05)])
    pub = claims.load_published(reg)
    on = claims.check(pub, {"pwb": {"pwb.a": 12.0, "pwb.b": 5.0}}, {})
    assert list(on["status"]) == ["unexplained", "reproduced"]
    off = claims.check(
        pub,
        {"pwb": {"pwb.a": 12.0, "pwb.b": 5.0}},
        {},
        off_paper={"pwb": ["pwb.weight_scheme = legacy (reference weights)"]},
    )
    assert list(off["status"]) == ["off_paper", "reproduced"]
    assert "pwb.weight_scheme = legacy" in off.loc[0, "note"]
    # another study's change does not touch these claims
    other = claims.check(pub, {"pwb": {"pwb.a": 12.0, "pwb.b": 5.0}}, {}, off_paper={"workbank": ["x"]})
    assert list(other["status"]) == ["unexplained", "reproduced"]
    assert claims.MARK["off_paper"] == ("⇄", "off-paper run") and "off_paper" in claims.STATUSES


def test_off_the_papers_settings_only_a_value_that_moved_is_relabelled(tmp_path):
    """Issue 38: a claim that misses is *off-paper run* only if its value (or its Monte-Carlo SE) moved against the
    run at the reference settings; one that did not move keeps its status, reason and evidence."""
    reg = _register(
        tmp_path,
        [_claim("pwb.a", 10.0, tol=0.05), _claim("pwb.b", 5.0, tol=0.05), _claim("pwb.c", 7.0, tol=0.05)],
    )
    pub = claims.load_published(reg)
    notes = {"pwb.b": {"kind": "differs", "reason": "paper_slip", "note": "the paper's slip", "evidence": "tbl-x"}}
    ref = {"pwb.a": 11.0, "pwb.b": 6.0, "pwb.c": 7.0}
    now = {"pwb.a": 12.0, "pwb.b": 6.0, "pwb.c": 7.5}
    off = {"pwb": ["pwb.restore_weight = 0.05 (reference 0.1, the paper)"]}
    t = claims.check(pub, {"pwb": now}, notes, off_paper=off, reference={"pwb": ref})
    got = dict(zip(t["claim_id"], zip(t["status"], t["reason"], t["evidence"], strict=True), strict=True))
    assert got["pwb.a"][0] == "off_paper"  # moved 11 -> 12 and misses
    assert got["pwb.b"] == ("differs", "paper_slip", "tbl-x")  # did not move: keeps its reason and evidence
    assert got["pwb.c"][0] == "off_paper"  # moved 7 -> 7.5, missing the printed 7
    assert "this run 12" in t.loc[0, "note"] and "at the reference settings 11" in t.loc[0, "note"]
    assert claims.moved("pwb.b", now, ref) is False and claims.moved("pwb.a", now, ref) is True
    # a Monte-Carlo SE that moved counts as a move (a differs note of kind monte_carlo depends on it)
    assert claims.moved("pwb.b", now | {"pwb.b.mc_se": 0.2}, ref | {"pwb.b.mc_se": 0.1}) is True
    # with no reference run in this workspace every computed miss is relabelled, as before
    t = claims.check(pub, {"pwb": now}, notes, off_paper=off, reference={"pwb": None})
    assert list(t["status"]) == ["off_paper", "off_paper", "off_paper"]
    # on the paper's settings the reference is not consulted
    t = claims.check(pub, {"pwb": now}, notes, reference={"pwb": ref})
    assert list(t["status"]) == ["unexplained", "differs", "unexplained"]


def test_the_verdict_sentence_follows_the_statuses():
    def st(**counts):
        c = dict.fromkeys(claims.STATUSES, 0) | counts
        return {"counts": c, "off_paper": ["workbank.cutoff = 3.5 (reference 3.0, the paper)"]}

    args = ("They reproduce.", "Off the paper ({keys}).", "{n} of {m} reproduce.")
    assert claims.verdict(st(reproduced=6), *args) == "They reproduce."
    assert claims.verdict(st(reproduced=2, off_paper=4), *args) == (
        "Off the paper (workbank.cutoff = 3.5 (reference 3.0, the paper))."
    )
    assert claims.verdict(st(reproduced=5, unexplained=1), *args) == "5 of 6 reproduce."
    assert claims.verdict(st(reproduced=5, differs=1), *args) == "5 of 6 reproduce."
    assert claims.verdict(st(), *args) == "0 of 0 reproduce."


def test_an_off_paper_verdict_names_what_moved_and_says_when_nothing_did():
    """Issue 38: "moves" only of the numbers that moved; off the paper's settings with nothing moved, not "moves"."""
    keys = ["workbank.has_tie_rule = highest (reference lowest, the paper)"]
    statuses = {"wb.zones.green": "reproduced", "wb.has.workers_more": "off_paper", "wb.desire.share_gt3": "reproduced"}
    counts = dict.fromkeys(claims.STATUSES, 0) | {"reproduced": 2, "off_paper": 1}
    st = {"statuses": statuses, "counts": counts, "off_paper": keys}
    args = ("They reproduce.", "Off ({keys}): {moved} moved; {n} of {m} reproduce.", "{n} of {m}.")
    names = {"wb.has.workers_more": "the agency share"}
    got = claims.verdict(st, *args, unmoved="Off ({keys}): nothing moved.", names=names)
    assert (
        got
        == "Off (workbank.has_tie_rule = highest (reference lowest, the paper)): the agency share moved; 2 of 3 reproduce."
    )
    st["statuses"] |= {"wb.zones.green": "off_paper", "wb.zones.red": "off_paper"}
    st["counts"] = counts | {"reproduced": 1, "off_paper": 3}
    names |= {"wb.zones.green": "the zone counts", "wb.zones.red": "the zone counts"}
    assert "the zone counts and the agency share moved" in claims.verdict(st, *args, names=names)  # by claim order
    unmoved = {"statuses": {"a": "reproduced"}, "counts": dict.fromkeys(claims.STATUSES, 0) | {"reproduced": 1}}
    assert claims.verdict(unmoved | {"off_paper": keys}, *args, unmoved="Off ({keys}): nothing moved.") == (
        "Off (workbank.has_tie_rule = highest (reference lowest, the paper)): nothing moved."
    )
    assert claims.verdict(unmoved | {"off_paper": []}, *args, unmoved="x") == "They reproduce."


def test_own_statuses_use_the_params_stage_files(tmp_path):
    (tmp_path / "pub").mkdir()
    reg = _register(tmp_path / "pub", [_claim("pwb.a", 10.0, tol=0.05)])
    res = tmp_path / "results" / "params"
    res.mkdir(parents=True)
    from compendium.pipeline import params

    sections = {s: {k: v for k, (v, _) in keys.items()} for s, keys in params.REFERENCE.items()}
    for s, v in sections.items():
        (res / f"{s}.json").write_text(json.dumps(v))
    on = claims.own_statuses("pwb", {"pwb.a": 12.0}, ["pwb.a"], results_dir=tmp_path / "results", published_dir=reg)
    assert on["statuses"] == {"pwb.a": "unexplained"} and on["off_paper"] == []
    (res / "pwb.json").write_text(json.dumps(sections["pwb"] | {"weight_scheme": "legacy_weights_v2_0"}))
    off = claims.own_statuses("pwb", {"pwb.a": 12.0}, ["pwb.a"], results_dir=tmp_path / "results", published_dir=reg)
    assert off["statuses"] == {"pwb.a": "off_paper"}
    assert off["off_paper"] == ["pwb.weight_scheme = legacy_weights_v2_0 (reference weights, the paper)"]
    with pytest.raises(claims.RegisterError, match="pwb.zzz"):
        claims.own_statuses("pwb", {}, ["pwb.zzz"], results_dir=tmp_path / "results", published_dir=reg)


# ------------------------------------------------------------------------------------- escaping (security)

PAYLOAD = (
    '<script>alert("x")</script><img src=x onerror=alert(1)> {download}`../../.dvc/config` '
    "```{literalinclude} /etc/passwd``` {{ 7 * 7 }} {% if 1 %}jinja{% endif %} $5 and $6 \u202egnp.exe"
)


def test_register_text_reaches_the_html_only_escaped(tmp_path):
    """A register note, a notes entry, table labels, evidence, provenance and a missing input holding
    <script>, an event handler, MyST roles and directives, Jinja syntax and a bidi override: every one is
    literal text in the rendered claims HTML, with no element, attribute or template expression made."""
    table = {
        "slug": "t",
        "label": PAYLOAD,
        "caption": PAYLOAD,
        "where": PAYLOAD,
        "note": PAYLOAD,
        "rows": ["m1"],
        "cols": ["c"],
        "row_labels": {"m1": PAYLOAD},
        "col_labels": {"c": PAYLOAD},
        "id_pattern": "pwb.t.{row}.{col}",
    }
    reg = _register(
        tmp_path,
        [
            _claim("pwb.t.m1.c", 5.0, printed=PAYLOAD + "^{-3}"),
            _claim("pwb.quoted", 1, level="none", note=PAYLOAD, where=PAYLOAD),
            _claim("pwb.slip", 1.0, what=PAYLOAD),
            _claim("pwb.hub", 2.0, level="per_instance"),
        ],
        tables=[table],
    )
    _notes(reg, {"pwb.slip": {"kind": "differs", "reason": "paper_slip", "note": PAYLOAD, "evidence": PAYLOAD}})
    ev = claims.evaluate(reg, tmp_path / "noresults", previous_csv=False)
    ev.values = {"pwb": {"pwb.t.m1.c": 9.0, "pwb.slip": 2.0, "pwb.hub": None, f"pwb.slip.variant.{PAYLOAD}": 3.0}}
    ev.table = claims.check(
        claims.load_published(reg), ev.values, ev.notes, {"pwb": {"pwb.hub": PAYLOAD}}, tables=ev.tables
    )
    ev.missing_cells = {f"pwb/{PAYLOAD}": [PAYLOAD]}
    prov = {"pwb": {"pwb.": f"{PAYLOAD} ({PAYLOAD})"}}
    page = "".join(
        [
            claims.study_html(ev, prov, "pwb"),
            claims.why_html(claims.reason_rows(ev.table), {}),
            claims.completeness_html(ev, {"pwb": PAYLOAD}),
        ]
    )
    soup = BeautifulSoup(page, "html.parser")
    assert not soup.find_all(["script", "img"]) and "<script>" not in page
    assert not [a for t in soup.find_all(True) for a in t.attrs if a.startswith("on")]
    literal = PAYLOAD.replace("\u202e", "[U+202E]")
    text = soup.get_text()
    # each field, once or more: caption, label, where, note, row and column labels, register note, differs
    # note, evidence, variant, provenance (function and test), missing input, completeness key and id
    assert text.count(literal) >= 14, text.count(literal)
    assert "\u202e" not in text
    sup = soup.find_all("sup")
    assert sup and {s.get_text() for s in sup} == {"-3"}  # the one element a printed token may make (cell, reason)


def test_templates_are_package_data():
    """Every file of compendium/claims/templates/ matches a package-data pattern of pyproject.toml (so an
    installed package renders the chapter), and the environment escapes by default."""
    import fnmatch
    import tomllib

    from compendium.claims import html
    from compendium.pipeline import paths

    patterns = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "compendium.claims"
    ]
    root = paths.ROOT / "src" / "compendium" / "claims"
    files = [p.relative_to(root).as_posix() for p in (root / "templates").iterdir()]
    assert files and all(any(fnmatch.fnmatch(f, pat) for pat in patterns) for f in files), (files, patterns)
    assert html.environment().autoescape is True
    assert html.environment().from_string("{{ x }}").render(x="<b>") == "&lt;b&gt;"


def test_the_claims_chapter_says_how_many_values_moved_and_with_which_keys():
    """Issue 38: off the paper's settings the chapter counts, per study, the claims whose value moved, those now
    off-paper, and says every other claim kept its status; nothing on the paper's settings."""
    from types import SimpleNamespace

    import pandas as pd

    from compendium.claims.output import off_paper_sentence

    table = pd.DataFrame(
        {"study": ["pwb"] * 4 + ["workbank"], "status": ["off_paper", "differs", "reproduced", "reproduced", "differs"]}
    )
    ev = SimpleNamespace(
        table=table,
        off_paper={"pwb": ["pwb.restore_weight = 0.05 (reference 0.1, the paper)"]},
        moved={"pwb": ["pwb.a", "pwb.c"]},
    )
    assert off_paper_sentence(ev) == (
        "Pro-Worker AI Benchmark runs off the paper's settings (pwb.restore_weight = 0.05 (reference 0.1, the paper)): "
        "2 of its 4 claims moved against the run at the reference settings; 1 no longer matches the paper and is "
        "marked off-paper run (⇄), 1 still matches it; the other 3 claims keep their status, reason and evidence. "
    )
    assert off_paper_sentence(SimpleNamespace(table=table, off_paper={}, moved={})) == ""


def test_a_first_run_off_the_paper_says_there_is_no_reference_run():
    """A checkout whose first run is off the paper's settings has no run at the reference settings: the sentence
    says so instead of counting values 'moved against' a run that does not exist."""
    from types import SimpleNamespace

    import pandas as pd

    from compendium.claims.output import off_paper_sentence

    table = pd.DataFrame({"study": ["preferences"] * 3, "status": ["off_paper", "off_paper", "reproduced"]})
    ev = SimpleNamespace(
        table=table,
        off_paper={"preferences": ["preferences.ci_level = 0.8 (reference 0.95, the paper)"]},
        moved={"preferences": ["a", "b", "c"]},
        no_reference=("preferences",),
    )
    s = off_paper_sentence(ev)
    assert "no run at the reference settings to compare with" in s
    assert "2 of its 3 claims are marked off-paper run" in s
    assert "moved against the run at the reference settings" not in s


def test_write_reference_always_leaves_a_file_the_claims_stage_can_depend_on(tmp_path, monkeypatch):
    """The claims stage lists results/<stage>/reference.json as a dependency, so a first run off the paper (no
    earlier reference) still writes it, as JSON null, which read_reference gives as None; a run on the paper's
    settings writes its values; an off-paper run after it carries them over unchanged."""
    import json

    from compendium.pipeline import paths, results

    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    live = tmp_path / "results" / "preferences"
    staging = tmp_path / "staging" / "preferences"
    out = results.write_reference("preferences", {"x": 1.0}, off_paper=True, root=staging)
    assert out.read_text() == "null\n"
    (live).mkdir(parents=True)
    (live / "reference.json").write_text(out.read_text())
    assert results.read_reference("preferences") is None
    results.write_reference("preferences", {"x": 1.0}, off_paper=False, root=live)
    assert results.read_reference("preferences") == {"x": 1.0}
    carried = results.write_reference("preferences", {"x": 2.0}, off_paper=True, root=tmp_path / "s2" / "preferences")
    assert json.loads(carried.read_text()) == {"x": 1.0}
