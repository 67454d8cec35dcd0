"""Raking (compendium.stats.weighting) against hand-worked cases and an independent table-level IPF."""

import numpy as np
import pandas as pd
import pytest

from compendium.stats.weighting import effective_sample_size, kish_design_effect, rake, weighted_margins


def test_single_margin_is_post_stratification():
    # 3 units of A, 1 of B; target 50/50 -> each A unit weighs 2/3, the B unit 2 (weights sum to n = 4)
    cats = pd.DataFrame({"g": ["A", "A", "A", "B"]})
    res = rake(cats, {"g": {"A": 0.5, "B": 0.5}})
    np.testing.assert_allclose(res.weights, [2 / 3, 2 / 3, 2 / 3, 2.0])
    assert res.weights.sum() == pytest.approx(4)


def _units(table, labels_a=("a1", "a2"), labels_b=("b1", "b2")):
    rows = []
    for i, a in enumerate(labels_a):
        for j, b in enumerate(labels_b):
            rows += [(a, b)] * int(table[i][j])
    return pd.DataFrame(rows, columns=["A", "B"])


def test_two_by_two_matches_closed_form_odds_ratio_solution():
    # Raking keeps the sample odds ratio and matches both margins: solve that by hand.
    n = np.array([[10, 20], [30, 40]])
    r1, c1 = 0.5, 0.4
    odds = (10 * 40) / (20 * 30)
    # x11 * x22 = odds * x12 * x21 with x12 = r1 - x11, x21 = c1 - x11, x22 = 1 - r1 - c1 + x11
    # -> (1 - odds) x^2 + (1 - r1 - c1 + odds (r1 + c1)) x - odds r1 c1 = 0
    roots = np.roots([1 - odds, 1 - r1 - c1 + odds * (r1 + c1), -odds * r1 * c1])
    x11 = [r.real for r in roots if 0 < r.real < min(r1, c1)][0]
    x = np.array([[x11, r1 - x11], [c1 - x11, 1 - r1 - c1 + x11]])
    cats = _units(n)
    res = rake(cats, {"A": {"a1": r1, "a2": 1 - r1}, "B": {"b1": c1, "b2": 1 - c1}})
    total = n.sum()
    w = pd.Series(res.weights).groupby([cats["A"], cats["B"]]).first().to_numpy().reshape(2, 2)
    np.testing.assert_allclose(w, x * total / n, rtol=1e-8)
    cell = w * n / total
    assert cell[0, 0] * cell[1, 1] / (cell[0, 1] * cell[1, 0]) == pytest.approx(odds)


def _table_ipf(counts, targets, iters=2000):
    """Independent IPF on the full contingency table (loops over axes)."""
    fit = counts.astype(float) / counts.sum()
    for _ in range(iters):
        for ax, t in enumerate(targets):
            other = tuple(k for k in range(fit.ndim) if k != ax)
            cur = fit.sum(axis=other)
            shape = [1] * fit.ndim
            shape[ax] = -1
            fit = fit * (np.asarray(t) / cur).reshape(shape)
    return fit


def test_three_margins_match_independent_table_ipf():
    rng = np.random.default_rng(3)
    counts = rng.integers(1, 30, size=(2, 3, 2))
    levels = [["m", "f"], ["x", "y", "z"], ["p", "q"]]
    rows = []
    for idx in np.ndindex(counts.shape):
        rows += [tuple(levels[k][idx[k]] for k in range(3))] * int(counts[idx])
    cats = pd.DataFrame(rows, columns=["s", "r", "e"])
    targets = [np.array([0.45, 0.55]), np.array([0.6, 0.3, 0.1]), np.array([0.2, 0.8])]
    res = rake(cats, {c: dict(zip(levels[k], targets[k])) for k, c in enumerate(["s", "r", "e"])})
    fit = _table_ipf(counts, targets)
    expected = {
        tuple(levels[k][idx[k]] for k in range(3)): fit[idx] * counts.sum() / counts[idx]
        for idx in np.ndindex(counts.shape)
    }
    got = [expected[tuple(r)] for r in cats.itertuples(index=False)]
    np.testing.assert_allclose(res.weights, got, rtol=1e-7)
    m = weighted_margins(cats, res.weights)
    np.testing.assert_allclose(m["r"].loc[["x", "y", "z"]].to_numpy(), targets[1], atol=1e-9)


def test_errors_name_the_problem():
    cats = pd.DataFrame({"g": ["A", "B", "C"]})
    with pytest.raises(ValueError, match="'C'.*no target"):
        rake(cats, {"g": {"A": 0.5, "B": 0.5}})
    with pytest.raises(ValueError, match="no units"):
        rake(pd.DataFrame({"g": ["A", "B"]}), {"g": {"A": 0.3, "B": 0.3, "D": 0.4}})
    with pytest.raises(ValueError, match="missing"):
        rake(pd.DataFrame({"g": ["A", None]}), {"g": {"A": 1.0}})
    with pytest.raises(ValueError, match="not in categories"):
        rake(cats, {"h": {"A": 1.0}})
    # perfectly confounded variables with incompatible targets cannot converge
    conf = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["p", "p", "q", "q"]})
    with pytest.raises(RuntimeError, match="did not converge"):
        rake(conf, {"a": {"x": 0.5, "y": 0.5}, "b": {"p": 0.8, "q": 0.2}}, max_iter=50)


def test_design_effect_hand_worked():
    assert kish_design_effect(np.ones(10)) == pytest.approx(1.0)
    assert kish_design_effect(np.array([1.0, 3.0])) == pytest.approx(2 * 10 / 16)
    assert effective_sample_size(np.array([1.0, 3.0])) == pytest.approx(16 / 10)
