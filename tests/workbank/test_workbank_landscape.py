"""The four zones, sector shares, cut-off sweep and bootstrap zone stability, on hand-made data."""

import numpy as np
import pandas as pd
import pytest

from compendium.workbank import landscape
from compendium.workbank.common import CAPABILITY, DESIRE, OCC, TASK, USER


def data():
    w = pd.DataFrame(
        {
            TASK: ["a", "a", "b", "b", "c", "c", "d", "d"],
            OCC: ["o"] * 4 + ["p"] * 4,
            USER: list("wxwxyzyz"),
            DESIRE: [3, 3, 2, 3, 4, 4, 1, 2],
        }
    )
    e = pd.DataFrame(
        {
            TASK: ["a", "a", "b", "b", "c", "d", "d", "z"],
            OCC: ["o"] * 4 + ["p"] * 4,
            USER: ["E1", "E2", "E1", "E2", "E1", "E1", "E2", "E1"],
            CAPABILITY: [3, 3, 4, 5, 2, 1, 2, 5],
        }
    )
    return w, e


def test_landscape_inner_join_and_inclusive_zones():
    w, e = data()
    land = landscape.task_landscape(w, e)
    assert list(land.index) == ["a", "b", "c", "d"]  # 'z' has no worker ratings
    z = landscape.assign_zones(land["capability"], land["desire"], 3.0)
    # a: (3, 3) -> green (3.0 counts as high); b: (4.5, 2.5) red; c: (2, 4) rnd; d: (1.5, 1.5) low
    assert list(z) == ["green", "red", "rnd", "low"]
    assert landscape.zone_counts(z) == {"green": 1, "red": 1, "rnd": 1, "low": 1}
    assert list(landscape.assign_zones([3.0], [2.99], 3.0)) == ["red"]


def test_zones_by_sector_has_exact_columns_and_percentages():
    w, e = data()
    land = landscape.task_landscape(w, e)
    land["zone"] = landscape.assign_zones(land["capability"], land["desire"], 3.0)
    sectors = pd.DataFrame({"sector_code": ["11", "15"], "sector": ["S1", "S2"]}, index=["o", "p"])
    t = landscape.zones_by_sector(land, sectors)
    assert list(t.columns) == ["sector", "n_tasks", "green", "red", "rnd", "low"]
    row = t.set_index("sector").loc["S1"]
    assert row["n_tasks"] == 2 and row["green"] == 50.0 and row["red"] == 50.0 and row["low"] == 0.0


def test_cutoff_sweep_counts():
    w, e = data()
    land = landscape.task_landscape(w, e)
    sw = landscape.cutoff_sweep(land, [1.0, 3.0, 5.0]).set_index("cutoff")
    assert sw.loc[1.0, "green"] == 4  # everything is high at 1
    assert sw.loc[5.0, "low"] == 4
    assert sw.loc[3.0, "share_desire_gt"] == 25.0 and sw.loc[3.0, "share_desire_ge"] == 50.0


def test_zone_bootstrap_unanimous_tasks_are_stable_and_seeded():
    w, e = data()
    land = landscape.task_landscape(w, e)
    per, counts = landscape.zone_bootstrap(w, e, land, 3.0, n_draws=400, seed=5, stable_level=0.95)
    # a: all ratings 3 -> always green; c: workers 4,4 and one expert -> always rnd
    assert per.loc["a", "p_observed"] == 1.0 and per.loc["c", "p_observed"] == 1.0
    # b: workers (2,3) can resample to 3.0 -> green in ~1/4 of draws
    assert 0.6 < per.loc["b", "p_observed"] < 0.9 and not per.loc["b", "stable"]
    assert counts.sum(axis=1).eq(4).all()
    per2, _ = landscape.zone_bootstrap(w, e, land, 3.0, n_draws=400, seed=5, stable_level=0.95)
    pd.testing.assert_frame_equal(per, per2)


def test_nan_or_shape_mismatch_raise():
    with pytest.raises(ValueError, match="NaN"):
        landscape.assign_zones([np.nan], [3.0], 3.0)
    with pytest.raises(ValueError, match="shape"):
        landscape.assign_zones([1.0, 2.0], [3.0], 3.0)


def test_landscape_figure_names_each_quadrant_where_its_tasks_are():
    """Each zone's corner label sits in the quadrant that holds that zone's tasks (x = expert capability,
    y = worker desire); a restyle once swapped 'Red Light' and 'R&D Opportunity'."""
    import matplotlib.pyplot as plt

    from compendium.workbank import figures, landscape
    from compendium.workbank.common import ZONE_LABELS

    land = pd.DataFrame({"capability": [4.5, 4.5, 1.5, 1.5], "desire": [4.5, 1.5, 4.5, 1.5]})
    land["zone"] = landscape.assign_zones(land["capability"], land["desire"], 3.0)  # the zones' own definition
    assert sorted(land["zone"]) == ["green", "low", "red", "rnd"]
    fig = figures.landscape(land, 3.0, 0.1)
    try:
        texts = {t.get_text(): t.get_position() for t in fig.axes[0].texts}
        for _, row in land.iterrows():
            x, y = texts[ZONE_LABELS[row["zone"]]]
            assert (x > 3.0) == (row["capability"] > 3.0), row["zone"]
            assert (y > 3.0) == (row["desire"] > 3.0), row["zone"]
    finally:
        plt.close(fig)


def _crossed_fixture(seed=5, n=120):
    from compendium.workbank.common import CAPABILITY, DESIRE, OCC, TASK, USER

    rng = np.random.default_rng(seed)
    tasks = [f"t{k:03d}" for k in range(n)]
    des = pd.DataFrame(
        {
            TASK: np.repeat(tasks, 3),
            OCC: "o",
            USER: [f"w{k}" for k in range(3 * n)],
            DESIRE: rng.choice([2, 3, 4], 3 * n),
        }
    )
    rows = []
    for k, t in enumerate(tasks):
        for e in (f"e{k % 5}", f"e{(k + 1) % 5}"):
            rows.append({TASK: t, OCC: "o", USER: e, CAPABILITY: float(rng.choice([2, 3, 4]))})
    exp = pd.DataFrame(rows)
    return des, exp, landscape.task_landscape(des, exp)


def test_zone_cluster_bootstrap_by_source_moves_only_the_resampled_side():
    """Experts alone: every task keeps its desire side, so green + rnd (desire high) is the same in every
    draw; workers alone: green + red (capability high) is. Neither side: every draw is the observed count."""
    des, exp, land = _crossed_fixture()
    zones = landscape.assign_zones(land["capability"], land["desire"], 3.0)
    obs = {z: int((zones == z).sum()) for z in ("green", "red", "rnd", "low")}
    e_only = landscape.zone_cluster_bootstrap(des, exp, land, 3.0, 300, 1, resample=("experts",), undefined="keep")
    w_only = landscape.zone_cluster_bootstrap(des, exp, land, 3.0, 300, 1, resample=("workers",), undefined="keep")
    none = landscape.zone_cluster_bootstrap(des, exp, land, 3.0, 50, 1, resample=(), undefined="keep")
    assert np.allclose(e_only["green"] + e_only["rnd"], obs["green"] + obs["rnd"])
    assert e_only["green"].std() > 0
    assert np.allclose(w_only["green"] + w_only["red"], obs["green"] + obs["red"])
    assert w_only["green"].std() > 0
    for z, k in obs.items():
        assert np.allclose(none[z], k)
    with pytest.raises(ValueError, match="resample must name"):
        landscape.zone_cluster_bootstrap(des, exp, land, 3.0, 5, 1, resample=("tasks",))


def test_zone_cluster_bootstrap_keep_equals_drop_when_no_task_loses_its_raters():
    """With the default draws a task whose raters were all left out is dropped and the totals rescaled;
    'keep' holds it at its observed mean. A draw where every task keeps a rater gives the same totals."""
    des, exp, land = _crossed_fixture()
    drop = landscape.zone_cluster_bootstrap(des, exp, land, 3.0, 200, 3)
    keep = landscape.zone_cluster_bootstrap(des, exp, land, 3.0, 200, 3, undefined="keep")
    full = drop["n_defined"] == len(land)
    assert full.any() and (~full).any()
    cols = ["green", "red", "rnd", "low"]
    assert np.allclose(drop.loc[full, cols], keep.loc[full, cols])
    assert np.allclose(keep[cols].sum(axis=1), len(land)) and (keep["n_defined"] == len(land)).all()
