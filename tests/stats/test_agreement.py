"""compendium.stats.agreement against scikit-learn, the krippendorff package's published example and
hand-worked cases."""

from itertools import combinations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from compendium.stats import agreement as ag


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_qwk_matches_sklearn_on_random_scores(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, 200)
    b = np.clip(a + rng.integers(-1, 2, 200), 0, 3)
    ours = ag.quadratic_weighted_kappa(a, b)
    ref = cohen_kappa_score(a, b, weights="quadratic", labels=[0, 1, 2, 3])
    assert ours == pytest.approx(ref, abs=1e-12)


def test_qwk_keeps_an_unused_category_in_the_weights():
    # nobody used score 1: scikit-learn without labels re-indexes 0,2,3 as 0,1,2 and changes the weights
    a = np.array([0, 2, 3, 3, 2, 0, 3, 2])
    b = np.array([0, 3, 3, 2, 2, 0, 3, 3])
    ours = ag.quadratic_weighted_kappa(a, b)
    assert ours == pytest.approx(cohen_kappa_score(a, b, weights="quadratic", labels=[0, 1, 2, 3]), abs=1e-12)
    assert ours != pytest.approx(cohen_kappa_score(a, b, weights="quadratic"), abs=1e-6)


def test_qwk_hand_worked():
    # a = [0, 1], b = [1, 1]: O = {(0,1):1, (1,1):1}; margins a (1,1,0,0), b (0,2,0,0); E = outer/2
    # sum W*O = 1 ; sum W*E = (1*2*1 + 1*2*0)/2 = 1  -> kappa = 0
    assert ag.quadratic_weighted_kappa([0, 1], [1, 1]) == pytest.approx(0.0)
    assert ag.quadratic_weighted_kappa([0, 1, 2, 3], [0, 1, 2, 3]) == pytest.approx(1.0)
    assert np.isnan(ag.quadratic_weighted_kappa([2, 2], [2, 2]))


def test_exact_adjacent_mad_hand_worked():
    a, b = [0, 1, 2, 3, 3], [0, 2, 0, 3, 2]
    assert ag.exact_agreement(a, b) == pytest.approx(2 / 5)
    assert ag.adjacent_agreement(a, b) == pytest.approx(4 / 5)
    assert ag.mean_absolute_deviation(a, b) == pytest.approx((0 + 1 + 2 + 0 + 1) / 5)
    res = ag.pairwise_agreement(a, b)
    assert res["n"] == 5 and res["exact"] == pytest.approx(40.0) and res["adjacent"] == pytest.approx(80.0)


def test_krippendorff_wrapper_reproduces_krippendorff_2011_example():
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", 4 coders x 12 units with gaps:
    # published alpha nominal 0.743, ordinal 0.815, interval 0.849.
    n = np.nan
    data = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, n, n, n],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, n, 3],
        [n, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, n],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, n],
    ]
    assert ag.krippendorff_alpha(data, "nominal") == pytest.approx(0.743, abs=5e-4)
    assert ag.krippendorff_alpha(data, "ordinal") == pytest.approx(0.815, abs=5e-4)
    assert ag.krippendorff_alpha(data, "interval") == pytest.approx(0.849, abs=5e-4)


def _alpha_interval_by_hand(units):
    """Complete units: Do = mean squared difference over ordered within-unit pairs; De over all pairs."""
    num, pairs, vals = 0.0, 0, []
    for u in units:
        for i, j in combinations(range(len(u)), 2):
            num += 2 * (u[i] - u[j]) ** 2
        pairs += len(u) * (len(u) - 1)
        vals.extend(u)
    v = np.asarray(vals, float)
    de = ((v[:, None] - v[None, :]) ** 2).sum() / (v.size * (v.size - 1))
    return 1 - (num / pairs) / de


def test_panel_agreement_against_hand_computation():
    rng = np.random.default_rng(7)
    latent = rng.integers(0, 4, 60)
    panel = np.clip(latent[:, None] + rng.integers(-1, 2, (60, 3)), 0, 3)
    res = ag.panel_agreement(panel)
    r = panel.max(1) - panel.min(1)
    assert res["n"] == 60
    assert res["exact"] == pytest.approx(100 * np.mean(r == 0))
    assert res["adjacent"] == pytest.approx(100 * np.mean(r <= 1))
    assert res["spread"] == pytest.approx(r.mean())
    ks = [
        cohen_kappa_score(panel[:, p], panel[:, q], weights="quadratic", labels=[0, 1, 2, 3])
        for p, q in combinations(range(3), 2)
    ]
    assert res["qwk"] == pytest.approx(np.mean(ks), abs=1e-12)
    assert res["alpha"] == pytest.approx(_alpha_interval_by_hand(panel.tolist()), abs=1e-10)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: ag.exact_agreement([1, 2], [1]), "same length"),
        (lambda: ag.exact_agreement([], []), "empty"),
        (lambda: ag.quadratic_weighted_kappa([0, 4], [0, 1]), "not among the categories"),
        (lambda: ag.quadratic_weighted_kappa([0, 1], [0, 1], categories=(1, 0)), "increasing"),
        (lambda: ag.panel_agreement([[1, 2, np.nan]]), "missing values"),
        (lambda: ag.panel_agreement([1, 2, 3]), "2-D"),
        (lambda: ag.krippendorff_alpha([[1, np.nan], [np.nan, 2]]), "no unit rated by two"),
        (lambda: ag.krippendorff_alpha([[1, 2], [1, 2]], level="cardinal"), "level must be"),
    ],
)
def test_bad_input_raises_clear_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()
