"""Human Agency Scale: tie rules, matrix, occupation JSD and the H5 sets, on hand-made data."""

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import jensenshannon

from compendium.workbank import agency
from compendium.workbank.common import HAS, OCC, TASK, TASK_CHARACTERISTICS


def counts(rows):
    return pd.DataFrame(rows, columns=[1, 2, 3, 4, 5], index=[f"t{i}" for i in range(len(rows))])


def test_tie_rules_hand_checked():
    c = counts(
        [
            [1, 1, 0, 0, 0],  # tie H1/H2, mean 1.5
            [0, 0, 2, 0, 2],  # tie H3/H5, mean 4
            [0, 3, 1, 0, 0],  # clear H2, mean 2.25
            [1, 0, 0, 0, 1],
        ]
    )  # tie H1/H5, mean 3
    assert list(agency.dominant_level(c, "lowest", None)) == [1, 3, 2, 1]
    assert list(agency.dominant_level(c, "highest", None)) == [2, 5, 2, 5]
    assert list(agency.dominant_level(c, "mean", None)) == [2, 4, 2, 3]  # 1.5 rounds half up
    r = agency.dominant_level(c, "random", seed=1)
    assert r.iloc[0] in (1, 2) and r.iloc[1] in (3, 5) and r.iloc[2] == 2 and r.iloc[3] in (1, 5)
    assert r.equals(agency.dominant_level(c, "random", seed=1))
    draws = np.array([agency.dominant_level(c, "random", seed=s).iloc[0] for s in range(200)])
    assert 0.35 < (draws == 1).mean() < 0.65
    assert agency.n_tied(c) == 3
    with pytest.raises(ValueError, match="unknown tie rule"):
        agency.dominant_level(c, "median", None)
    with pytest.raises(ValueError, match="seed"):
        agency.dominant_level(c, "random", None)


def test_matrix_and_shares():
    w = pd.Series([1, 2, 3, 5], index=["a", "b", "c", "d"])
    e = pd.Series([1, 1, 4, 2, 3], index=["a", "b", "c", "d", "x"])
    m = agency.has_matrix(w, e)
    assert m.shape == (5, 5) and m.to_numpy().sum() == 4
    assert m.loc[2, 1] == 1 and m.loc[5, 2] == 1
    comp = agency.agency_comparison(w, e)
    assert comp["n_tasks"] == 4 and comp["diagonal"] == 25.0 and comp["workers_more"] == 50.0
    assert comp["experts_more"] == 25.0


def ratings(rows, who):
    df = pd.DataFrame(rows, columns=[TASK, OCC, HAS])
    for i, c in enumerate(TASK_CHARACTERISTICS.values()):
        df[c] = 1 + (np.arange(len(df)) + i + (2 if who == "e" else 0)) % 5
    return df


def test_occupation_levels_and_jsd_against_scipy():
    w = ratings([("a", "O1", 1), ("a", "O1", 2), ("b", "O1", 2), ("c", "O2", 5), ("c", "O2", 4)], "w")
    e = ratings([("a", "O1", 1), ("b", "O1", 1), ("c", "O2", 3), ("c", "O2", 3)], "e")
    occ = agency.occupation_levels(w, e, "lowest", None).set_index("occupation")
    assert occ.loc["O1", "worker_level"] == 2 and occ.loc["O1", "expert_level"] == 1
    assert occ.loc["O2", "worker_level"] == 4  # tie H4/H5 -> lowest
    p, q = np.array([1, 2, 0, 0, 0]) / 3, np.array([1, 0, 0, 0, 0.0])
    assert occ.loc["O1", "jsd"] == pytest.approx(jensenshannon(p, q, base=2))
    # hand: JS distance of disjoint distributions is 1 in base 2
    assert occ.loc["O2", "jsd"] == pytest.approx(1.0)
    top = agency.jsd_top(occ.reset_index(), 1)
    assert list(top.columns) == ["occupation", "worker_level", "expert_level", "jsd"]
    assert top.loc[0, "occupation"] == "O2" and top.loc[0, "worker_level"] == "H4"


def test_h5_profiles_use_each_groups_own_set():
    w = ratings([("a", "O", 5), ("b", "O", 1)], "w")
    e = ratings([("a", "O", 1), ("b", "O", 5)], "e")
    wl = agency.dominant_level(agency.has_counts(w), "lowest", None)
    el = agency.dominant_level(agency.has_counts(e), "lowest", None)
    prof = agency.h5_profiles(w, e, wl, el).set_index("profile")
    phys = TASK_CHARACTERISTICS["physical_action"]
    assert prof.loc["experts (expert H5 set)", "physical_action"] == e.loc[e[TASK] == "b", phys].mean()
    assert prof.loc["experts (worker H5 set, authors' code)", "physical_action"] == e.loc[e[TASK] == "a", phys].mean()
    assert prof.loc["workers (worker H5 set)", "n_tasks"] == 1


def test_tie_sensitivity_grid_contains_the_plain_comparison():
    wc = counts([[1, 1, 0, 0, 0], [0, 2, 0, 0, 0], [0, 0, 1, 1, 0], [0, 0, 0, 2, 0]])
    ec = counts([[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [0, 0, 0, 1, 1], [0, 1, 0, 0, 0]])
    grid, rnd = agency.tie_rule_sensitivity(wc, ec, seed=0, n_random=50)
    assert len(grid) == 16 and len(rnd) == 50
    low = grid[(grid.worker_rule == "lowest") & (grid.expert_rule == "lowest")].iloc[0]
    ref = agency.agency_comparison(agency.dominant_level(wc, "lowest", None), agency.dominant_level(ec, "lowest", None))
    assert low["workers_more"] == pytest.approx(ref["workers_more"])
    hl = grid[(grid.worker_rule == "highest") & (grid.expert_rule == "lowest")].iloc[0]
    assert hl["workers_more"] == pytest.approx(75.0)  # t0: 2>1, t1: 2>1, t2: 4 vs 4, t3: 4>2
    ut = agency.untied_only(wc, ec)  # only t3 is untied on both sides
    assert ut["n_tasks"] == 1 and ut["workers_more"] == 100.0
