"""Seeded bootstrap helpers (compendium.stats.resampling) against theory and scipy.stats.bootstrap."""

import numpy as np
import pytest
from scipy import stats

from compendium.stats.resampling import (
    bootstrap_group_means,
    cluster_bootstrap_ratio,
    percentile_interval,
    stratified_resample_sums,
)


def test_singleton_strata_never_vary_and_labels_sorted():
    labels, sums = stratified_resample_sums([5.0, 1.0, 2.0, 3.0], ["b", "a", "a", "a"], 50, seed=1)
    assert list(labels) == ["a", "b"]
    assert sums.shape == (50, 2)
    assert np.all(sums[:, 1] == 5.0)
    # stratum a draws 3 values from {1,2,3}: sums between 3 and 9, and not all equal
    assert sums[:, 0].min() >= 3 and sums[:, 0].max() <= 9 and sums[:, 0].std() > 0


def test_bootstrap_variance_of_mean_matches_theory():
    x = np.array([1, 2, 2, 3, 5, 8, 4, 4, 1, 3], float)
    _, means = bootstrap_group_means(x, np.zeros(len(x)), 40000, seed=7)
    # ideal bootstrap variance of the mean = plug-in variance / n
    assert means[:, 0].var() == pytest.approx(x.var(ddof=0) / len(x), rel=0.04)
    assert means[:, 0].mean() == pytest.approx(x.mean(), abs=0.02)


def test_percentile_interval_matches_scipy_bootstrap():
    rng = np.random.default_rng(0)
    x = rng.normal(10, 2, size=60)
    _, means = bootstrap_group_means(x, np.zeros(len(x)), 20000, seed=11)
    lo, hi = percentile_interval(means[:, 0], 0.95)
    ref = stats.bootstrap((x,), np.mean, n_resamples=20000, method="percentile", random_state=5).confidence_interval
    assert lo == pytest.approx(ref.low, abs=0.05)
    assert hi == pytest.approx(ref.high, abs=0.05)


def test_seeded_and_chunk_size_invariant():
    x = np.arange(30, dtype=float)
    g = np.repeat([0, 1, 2], 10)
    a = stratified_resample_sums(x, g, 100, seed=3, chunk_size=7)[1]
    b = stratified_resample_sums(x, g, 100, seed=3, chunk_size=250)[1]
    c = stratified_resample_sums(x, g, 100, seed=4)[1]
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_cluster_ratio_resamples_whole_clusters():
    # two clusters in stratum 0: (sum 10 over 2 ratings) and (sum 3 over 3 ratings)
    labels, r = cluster_bootstrap_ratio([10, 3, 7], [2, 3, 1], [0, 0, 1], 2000, seed=2)
    vals = np.unique(np.round(r[:, 0], 10))
    # possible resamples: both first (5.0), both second (1.0), one of each (13/5 = 2.6)
    np.testing.assert_allclose(vals, [1.0, 2.6, 5.0])
    assert np.all(r[:, 1] == 7.0)


def test_bad_input_raises():
    with pytest.raises(ValueError, match="NaN"):
        stratified_resample_sums([1.0, np.nan], [0, 0], 10, seed=1)
    with pytest.raises(ValueError, match="strata"):
        stratified_resample_sums([1.0, 2.0], [0], 10, seed=1)
    with pytest.raises(ValueError, match="seed"):
        stratified_resample_sums([1.0, 2.0], [0, 0], 10, seed=None)
    with pytest.raises(ValueError, match="denominator"):
        cluster_bootstrap_ratio([1.0], [0.0], [0], 10, seed=1)
