"""The robustness chapter's findings table, values and prose numbers (compendium.robustness_summary)."""

import re

import numpy as np
import pandas as pd
import pytest

from compendium import paths, robustness as rob, robustness_summary as rs


def test_holds_phrase_and_fmt_list():
    assert rs.holds_phrase([True, True, True]) == "at every one of the 3 settings"
    assert rs.holds_phrase([True, False, np.bool_(True)]) == "at 2 of 3 settings"
    assert rs.holds_phrase([1, 0], "under all {n}", "under {k} of the {n}") == "under 1 of the 2"
    with pytest.raises(ValueError, match="no settings"):
        rs.holds_phrase([])
    assert rs.fmt_list(["a"]) == "a" and rs.fmt_list(["a", "b"]) == "a and b"
    assert rs.fmt_list(iter(["a", "b", "c"])) == "a, b and c"
    with pytest.raises(ValueError, match="no items"):
        rs.fmt_list([])


def _zones(flags, largest, cutoffs=(2.5, 3.0, 3.5)):
    return pd.DataFrame({"cutoff": list(cutoffs), "green_largest": flags, "largest_zone": largest})


def test_green_largest_where_in_words():
    assert rs.green_largest_where(_zones([True] * 3, ["green"] * 3)) == "every setting"
    assert rs.green_largest_where(_zones([False] * 3, ["red"] * 3)) == "no setting"
    where = rs.green_largest_where(_zones([True, True, False], ["green", "green", "red=low"]))
    assert where == "cut-offs up to 3; above that, Low Priority or Red Light is larger"
    assert rs.green_largest_where(_zones([True, False, True], ["green", "red", "green"])) == "cut-offs 2.5, 3.5"


@pytest.fixture(scope="module")
def sweeps():
    """Small grids of the four sweeps on the real data (the chapter's code path, fewer draws)."""
    import compendium.data as data
    from compendium import preferences as pref
    from compendium.pwb import aggregates as agg
    from compendium.workbank import agency, landscape
    from compendium.workbank.common import TASK

    desires, experts = data.load_worker_desires(), data.load_expert_ratings()
    land = landscape.task_landscape(desires, experts)
    zones = rob.zone_sweep(land, (2.5, 3.0, 3.5), ("ge", "gt"))
    wc, ec = agency.has_counts(desires, TASK), agency.has_counts(experts, TASK)
    has = rob.has_sweep(wc, ec, ("lowest", "highest", "mean"), seed=1, n_random=5)
    untied = agency.untied_only(wc, ec)
    cells = agg.reconstruct_cells(data.load_pwb_dimension_scores(), data.load_pwb_effect_sizes())
    schemes, fam = rob.pwb_named_schemes(data.load_pwb_config(), (0.3, 0.5), (0.1,))
    rnd_w = rob.random_schemes(schemes["default"], 20, 40.0, 1)
    pwb, pwis = rob.pwb_sweep(cells, {**schemes, **rnd_w}, {**fam, **{k: "random" for k in rnd_w}})
    pwb["glm_lead"] = pwb["scheme"].map(rob.pwb_lead(pwis, "GLM 5.1"))
    counts = data.load_hitl_pair_counts()
    bt = rob.bt_sweep(counts, (0.0, 0.5, 1.0), davidson=True)
    zs = rob.zone_sampling_check(desires, experts, 3.0, 20, 1)
    bs = rob.bt_sampling_check(counts, data.load_hitl_pair_counts_by_category(), 20, 1) | rob.c_beats_d_shares(
        {
            "pref.c_vs_d.p_c_stronger": 0.7,
            "pref.bootstrap_cluster.p_c_stronger_than_d": 0.64,
            "pref.c_vs_d.n_bootstrap": 5000,
        }
    )
    found = rs.findings(zones, has, untied, pwb, bt, zs, bs)
    return dict(
        land=land,
        zones=zones,
        has=has,
        untied=untied,
        pwb=pwb,
        n_weights=len(schemes["default"]),
        bt=bt,
        counts=counts,
        zs=zs,
        bs=bs,
        found=found,
        models=list(pref.MODELS),
    )


def test_findings_table_rows_and_verdicts(sweeps):
    f = sweeps["found"].set_index("key")
    assert list(f.index) == [
        "wb_green_largest",
        "wb_red_gt_rnd",
        "wb_workers_more_same_rule",
        "wb_workers_more_any_rule",
        "pwb_all_gain",
        "pwb_top_glm",
        "pwb_top3",
        "pwb_all_gain_random",
        "pwb_top_glm_random",
        "pwb_top3_random",
        "bt_top_c",
        "bt_ranking",
        "bt_rho",
    ]
    z = sweeps["zones"]
    g = f.loc["wb_green_largest"]
    assert (g["n_settings"], g["n_hold"]) == (len(z), int(z["green_largest"].sum()))
    assert g["min"] == z["green_lead"].min()
    assert g["paper_setting"] == f"{z.loc[z['reference'], 'green_lead'].iloc[0]:+.0f}"
    # the symmetric-rule finding adds the untied-tasks check to the same-rule rows
    same = sweeps["has"][sweeps["has"]["same_rule"]]
    assert f.loc["wb_workers_more_same_rule", "n_settings"] == len(same) + 1
    assert f.loc["pwb_all_gain_random", "settings"] == "20 random weight schemes"
    assert all(f["how_sure"].str.len() > 0)
    assert "of rater-cluster resamples" in f.loc["wb_green_largest", "how_sure"]


def test_stage_values_keep_the_values_contract(sweeps):
    s = sweeps
    v = rs.stage_values(s["zones"], s["has"], s["untied"], s["pwb"], s["bt"], s["found"], s["zs"], s["bs"], s["models"])
    ref = s["zones"][s["zones"]["reference"]].iloc[0]
    assert v["rob.reference.zones.green"] == ref["green"] == 364
    assert v["rob.n_findings"] == 13 and v["rob.n_hold_all"] == int(s["found"]["holds_all"].sum())
    assert v["rob.pwb.random.n"] == 20
    assert v["rob.pwb.random.share_all_gain"] == pytest.approx(s["pwb"].query("family == 'random'")["all_gain"].mean())
    for key in s["found"]["key"]:
        assert {f"rob.{key}.{k}" for k in ("holds_all", "n_hold", "n_settings", "min", "max")} <= set(v)
    for m in s["models"]:
        assert v[f"rob.bt.{m}.min"] <= v[f"rob.reference.bt.{m}"] <= v[f"rob.bt.{m}.max"]
    assert all(isinstance(x, (int, float)) for x in v.values())


def test_summary_numbers_and_every_quoted_key(sweeps):
    s = sweeps
    params = {"has_random_draws": 5, "pwb_random_concentration": 40.0, "n_sampling": 20}
    g = rs.summary(
        land=s["land"],
        zones=s["zones"],
        has=s["has"],
        untied=s["untied"],
        pwb=s["pwb"],
        n_weights=s["n_weights"],
        bt=s["bt"],
        counts=s["counts"],
        tie_weights=(0.0, 0.5, 1.0),
        found=s["found"],
        zs=s["zs"],
        bs=s["bs"],
        params=params,
    )
    assert (g["rob_ref_green"], g["rob_ref_red"], g["rob_ref_rnd"], g["rob_ref_low"]) == (364, 267, 107, 106)
    assert g["rob_ge_gt_moved"] == g["rob_ref_green"] - g["rob_gt_green"] > 0
    assert (g["rob_cut_min"], g["rob_cut_max"], g["rob_zone_n"]) == (2.5, 3.5, 6)
    assert g["rob_bt_grid"] == "0, 0.5, 1" and g["rob_bt_n_ties"] == int(s["counts"]["ties"].sum())
    assert g["rob_has_ref"] == pytest.approx(47.5, abs=0.05)
    # mixed rules lowest/highest are in the grid: the smallest share comes from one of them
    assert g["rob_has_mixed_min"] == s["has"].loc[~s["has"]["same_rule"], "workers_more"].min()
    # Dirichlet(c * w): a weight's sd relative to its mean is sqrt((1 - w) / (w (c + 1))), at w = 1/n, c = 40
    w = 1 / s["n_weights"]
    assert g["rob_pwb_rel_sd"] == pytest.approx(np.sqrt((1 - w) / (w * 41)))
    assert g["rob_pwb_top_verdict"].endswith(f"of {int((s['pwb']['family'] != 'random').sum())}")
    text = (paths.ROOT / "notebooks" / "40_robustness.md").read_text()
    quoted = set(re.findall(r"\{glue:(?:text|md)\}`([A-Za-z0-9_]+)", text))
    assert quoted and quoted <= set(g), sorted(quoted - set(g))


def test_display_views_name_the_columns(sweeps):
    s = sweeps
    zv = rs.zones_view(s["zones"])
    assert list(zv.columns)[:3] == ["cutoff", "mean on cut-off", "Green Light"]
    assert set(zv["setting"]) == {"paper", ""} and zv["cutoff"].iloc[0] == "2.5"
    hv = rs.has_view(s["has"], s["untied"])
    assert len(hv) == len(s["has"]) + 1 and hv["workers' rule"].iloc[-1] == "(untied tasks only)"
    assert set(rs.pwb_view(s["pwb"])["all gain?"]) <= {"yes", "no"}
    assert "C / D strength ratio" in rs.bt_view(s["bt"], s["models"], {}).columns
    fv = rs.findings_view(s["found"])
    assert fv["holds under all settings?"].str.startswith(("**yes**", "no")).all()
    gv = rs.grids_view((2.5, 3.0), ("ge", "gt"), ("lowest",), (0.3,), (0.1,), (0.0, 0.5), 500, 40.0)
    assert gv.loc[1, "grid"] == "high (ge), low (gt)" and gv.loc[0, "grid"] == "2.5, 3"
