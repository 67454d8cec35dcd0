"""The robustness chapter's computation on the real data with small grids, shared by the tests of the modules
that read its result (findings, summary, values, views, build)."""

import pytest

#: P(C beats D) as the preferences chapter would record it (the tests do not read results/)
PREF_VALUES = {
    "pref.c_vs_d.p_c_stronger": 0.7,
    "pref.bootstrap_cluster.p_c_stronger_than_d": 0.64,
    "pref.c_vs_d.n_bootstrap": 5000,
}


@pytest.fixture(scope="session")
def small_params():
    """Small grids of the four sweeps (the chapter's code path, fewer draws)."""
    from compendium.robustness import build as rb

    return rb.Params(
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
def small_inputs():
    from compendium.robustness import build as rb

    return rb.load_inputs(pref_values=PREF_VALUES)


@pytest.fixture(scope="session")
def result(small_params, small_inputs):
    from compendium.robustness import build as rb

    return rb.build(small_params, small_inputs)
