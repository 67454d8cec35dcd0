"""What the chapter records (compendium.robustness.values, register, provenance): results/robustness/values.json's
keys and numbers, its tables, no register values, and which function computes each value."""

import pandas as pd
import pytest

from compendium.claims import links
from compendium.pipeline import paths
from compendium.robustness import provenance, register, values


def test_stage_values_keep_the_values_contract(result):
    v = values.stage_values(result)
    zones, found, pwb = result.zones.sweep, result.findings, result.pwb.sweep
    ref = zones[zones["reference"]].iloc[0]
    assert v["rob.reference.zones.green"] == ref["green"] == 364
    assert v["rob.n_findings"] == 13 and v["rob.n_hold_all"] == int(found["holds_all"].sum())
    assert v["rob.pwb.random.n"] == 20
    assert v["rob.pwb.random.share_all_gain"] == pytest.approx(pwb.query("family == 'random'")["all_gain"].mean())
    for key in found["key"]:
        assert {f"rob.{key}.{k}" for k in ("holds_all", "n_hold", "n_settings", "min", "max")} <= set(v)
    for m in result.bt.models:
        assert v[f"rob.bt.{m}.min"] <= v[f"rob.reference.bt.{m}"] <= v[f"rob.bt.{m}.max"]
    assert all(isinstance(x, (int, float)) for x in v.values())


def test_stage_values_keep_their_order(result):
    """values.json is written in this order: the paper's setting, the resampling checks, then the findings."""
    keys = list(values.stage_values(result))
    assert keys[:4] == [f"rob.reference.zones.{z}" for z in ("green", "red", "rnd", "low")]
    assert keys.index("rob.sampling.zones.p_green_largest") < keys.index("rob.wb_green_largest.holds_all")
    assert keys[-2:] == [f"rob.bt.{result.bt.models[-1]}.min", f"rob.bt.{result.bt.models[-1]}.max"]


def test_tables_are_every_table_of_the_chapter(result):
    t = values.tables(result)
    assert list(t) == [
        "zone_sweep",
        "has_sweep",
        "pwb_schemes",
        "pwb_named_pwis",
        "pwb_scheme_weights",
        "bt_conventions",
        "summary",
    ]
    assert t["zone_sweep"] is result.zones.sweep and t["summary"] is result.findings
    # the weights keep the scheme names as their first column (the CSV the chapter wrote with index=True)
    w = t["pwb_scheme_weights"]
    assert list(w.columns)[0] == "scheme" and list(w["scheme"]) == list(result.pwb.all_schemes)
    assert w.to_csv(index=False) == result.pwb.weights.to_csv(index=True)
    assert all(isinstance(df, pd.DataFrame) for df in t.values())


def test_the_chapter_has_no_register_values(result):
    assert register.register_values(result) == ({}, {})


def test_every_value_has_a_provenance_that_resolves(result):
    """Each ``rob.*`` value falls under a prefix of provenance.py, and each function and test it names is
    defined in its file (so a renamed function or test fails here)."""
    from compendium import claims

    prov = provenance.PROVENANCE
    for key in values.stage_values(result):
        assert any(key.startswith(p) for p in prov), key
    for text in prov.values():
        fns, test = claims.split_provenance(text)
        assert test, text
        for name in [*links.split_functions(fns), test]:
            target = links.source_target(name)
            assert target is not None, name
            file, anchor = target
            assert anchor in links.objects((paths.ROOT / file).read_text(encoding="utf-8")), name
