"""The robustness chapter's computation on the real data with small grids, shared by the tests of the modules
that read its result (findings, summary, values, views, build)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from robustness_cases import PREF_VALUES  # noqa: E402


@pytest.fixture(scope="session")
def small_params():
    """Small grids of the four sweeps (the chapter's code path, fewer draws)."""
    from compendium.pipeline.params import study_params

    return study_params(
        "robustness",
        seed=1,
        zone_cutoffs="2.5,3.0,3.5",
        zone_boundaries="ge,gt",
        has_tie_rules="lowest,highest,mean",
        has_random_draws=5,
        pwb_cf_heavy_weights="0.3,0.5",
        pwb_restore_weights="0.1",
        pwb_random_schemes=20,
        pwb_random_concentration=40.0,
        bt_tie_weights="0,0.5,1",
        n_sampling=20,
    )


@pytest.fixture(scope="session")
def small_inputs(small_params):
    from compendium.robustness.build import Inputs

    return Inputs.load(small_params, pref_values=PREF_VALUES)


@pytest.fixture(scope="session")
def result(small_params, small_inputs):
    from compendium.robustness import build as rb

    return rb.build(small_params, small_inputs)
