"""The recorded values (compendium.robustness.values): results/robustness/values.json's keys and numbers."""

import pytest

from compendium.robustness import values


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
