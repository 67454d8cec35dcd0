"""The real data reproduce the published WORKBank numbers (values from published/workbank.yaml)."""

import numpy as np
import pytest

import compendium.data as data
from compendium.pipeline.params import study_params
from compendium.workbank import Inputs, build


@pytest.fixture(scope="module")
def frames():
    return {
        "d": data.load_worker_desires(),
        "m": data.load_worker_metadata(),
    }


@pytest.fixture(scope="module")
def values():
    """One build at the paper's parameters, with few bootstrap draws (no value below depends on them)."""
    params = study_params("workbank", n_boot=20, n_tie_draws=5, n_boot_groups=20)
    return build(params, Inputs.load(params)).values


def test_desire_landscape_agency_skills(values):
    v = values
    exact = {
        "wb.counts.tasks": 844,
        "wb.counts.occupations": 104,
        "wb.counts.workers": 1500,
        "wb.reasons.n": 3618,
        "wb.zones.green": 364,
        "wb.zones.red": 267,
        "wb.zones.rnd": 107,
        "wb.zones.low": 106,
        "wb.has.occ_expert_h1": 16,
        "wb.skills.count": 27,
        "wb.slips.n_experts": 53,
        "wb.slips.single_expert_tasks": 21,
        "wb.skills.joined_rows": 897,
        "wb.has.expert_tied_tasks": 389,
    }
    for k, val in exact.items():
        assert v[k] == val, k
    approx = {
        "wb.desire.share_gt3": (46.1, 0.05),
        "wb.desire.share_ge4": (7.11, 0.005),
        "wb.desire.share_le2": (6.16, 0.005),
        "wb.reasons.free_time": (69.38, 0.005),
        "wb.reasons.stress": (25.5, 0.05),
        "wb.sector.arts_share_gt3": (17.1, 0.05),
        "wb.rho.desire_jobsecurity": (-0.223, 0.0005),
        "wb.rho.desire_enjoyment": (-0.284, 0.0005),
        "wb.rho.capability_desire": (0.1654, 0.00005),
        "wb.slips.cm_green_pct": (47.40, 0.005),  # the register's wb.zones.cm_* (Fig 5a) by the authors' route
        "wb.slips.cm_rnd_pct": (13.87, 0.005),
        "wb.has.diagonal": (26.9, 0.05),
        "wb.has.workers_more": (47.5, 0.05),
        "wb.has.mean_worker": (2.87, 0.005),
        "wb.has.mean_expert": (2.61, 0.005),
    }
    for k, (val, tol) in approx.items():
        assert abs(v[k] - val) <= tol + 1e-12, (k, v[k])
    assert v["wb.has.matrix"] == [
        [32, 34, 30, 7, 0],
        [112, 102, 63, 36, 4],
        [61, 114, 71, 34, 7],
        [19, 41, 30, 22, 1],
        [1, 5, 11, 7, 0],
    ]
    assert v["wb.has.occ_worker_levels"] == [2, 37, 47, 17, 1]
    # METHODS: the 47.5% moves between 27% and 61% under other tie rules
    assert round(v["wb.robust.workers_more_min"]) == 27 and round(v["wb.robust.workers_more_max"]) == 61


def test_mixed_model_sample(frames):
    from compendium.workbank import reliability

    dd = reliability.mixed_model_data(frames["d"], frames["m"])
    assert len(dd) == 4804 and dd["Task"].nunique() == 843
    assert len(reliability.MIXED_MODEL_COVARIATES) == 22
    assert np.isfinite(dd["Age"]).all()
