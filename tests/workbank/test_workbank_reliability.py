"""Krippendorff's alpha wrapper (hand-computed ordinal case) and the mixed model (ANOVA estimator)."""

import numpy as np
import pandas as pd
import pytest

from compendium.workbank import reliability
from compendium.workbank.common import DESIRE, OCC, TASK, USER


def long(units, raters, values):
    return pd.DataFrame({TASK: units, USER: raters, DESIRE: values})


def test_ordinal_alpha_hand_computed():
    # 2 raters x 3 units: (1,1), (2,3), (3,3). Coincidences o11=2, o23=o32=1, o33=2; n1=2, n2=1, n3=3.
    # Ordinal distances: d12=(3/2)^2, d23=2^2, d13=(6-2.5)^2 -> D_o = 8/6, D_e = 6 -> alpha = 1 - 2/9.
    df = long(["u1", "u1", "u2", "u2", "u3", "u3"], ["r1", "r2"] * 3, [1, 1, 2, 3, 3, 3])
    assert reliability.krippendorff_alpha_ordinal(df, DESIRE) == pytest.approx(1 - 2 / 9)


def test_alpha_perfect_agreement_missing_cells_and_duplicates():
    df = long(["u1", "u1", "u2", "u2", "u3", "u4", "u4"], ["a", "b", "a", "c", "b", "a", "c"], [1, 1, 4, 4, 2, 5, 5])
    assert reliability.krippendorff_alpha_ordinal(df, DESIRE) == pytest.approx(1.0)
    dup = pd.concat([df, df.iloc[[0]]])  # an exact repeat counts once
    assert reliability.krippendorff_alpha_ordinal(dup, DESIRE) == pytest.approx(1.0)
    conflict = pd.concat([df, long(["u1"], ["a"], [3])])
    with pytest.raises(ValueError, match="two different values"):
        reliability.krippendorff_alpha_ordinal(conflict, DESIRE)
    with pytest.raises(ValueError, match="outside"):
        reliability.krippendorff_alpha_ordinal(long(["u1", "u1"], ["a", "b"], [0, 1]), DESIRE)


def test_mixed_model_balanced_one_way_equals_anova_estimator():
    rng = np.random.default_rng(12)
    g, n = 60, 8
    u = rng.normal(0, np.sqrt(0.4), g)
    y = 3 + np.repeat(u, n) + rng.normal(0, 1.0, g * n)
    data = pd.DataFrame({"desire": y, TASK: np.repeat([f"t{i:02d}" for i in range(g)], n)})
    summ, coefs, _ = reliability.fit_mixed_model(data, covariates=(), method="bfgs")
    means = data.groupby(TASK)["desire"].mean()
    msw = ((data["desire"] - data[TASK].map(means)) ** 2).sum() / (g * (n - 1))
    msb = n * ((means - data["desire"].mean()) ** 2).sum() / (g - 1)
    assert summ["sigma_e2"] == pytest.approx(msw, rel=1e-4)
    assert summ["sigma_u2"] == pytest.approx((msb - msw) / n, rel=1e-3)
    assert summ["icc"] == pytest.approx(summ["sigma_u2"] / (summ["sigma_u2"] + summ["sigma_e2"]))
    assert coefs.loc[0, "term"] == "Intercept" and coefs.loc[0, "coef"] == pytest.approx(
        data["desire"].mean(), rel=1e-6
    )


def test_mixed_model_data_and_design_matrix():
    desires = pd.DataFrame(
        {USER: ["w1", "w1", "w2", "w3"], OCC: ["o", "o", "o", "o"], TASK: ["a", "b", "a", "b"], DESIRE: [3, 4, 2, 5]}
    )
    meta = pd.DataFrame(
        {USER: ["w1", "w2", "w3"], OCC: ["o", "o", "o"], "Age": [30, 40, 50], "Gender": ["Male", "Female", None]}
    )
    d = reliability.mixed_model_data(desires, meta, covariates=("Gender", "Age"))
    assert len(d) == 3  # w3's row has a missing covariate
    X = reliability.design_matrix(d, covariates=("Gender", "Age"))
    assert list(X.columns) == ["Intercept", "Gender[T.Male]", "Age"]  # reference = first level sorted
    assert X["Gender[T.Male]"].tolist() == [1.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="missing column"):
        reliability.mixed_model_data(desires, meta, covariates=("Income",))


def test_mixed_model_data_counts_what_it_leaves_out():
    import numpy as np
    import pandas as pd

    from compendium.workbank import reliability as rel
    from compendium.workbank.common import DESIRE, OCC, TASK, USER

    cov = ["Age", "Gender"]
    desires = pd.DataFrame(
        {USER: ["u1", "u2", "u3", "u4"], OCC: ["o"] * 4, TASK: ["t1", "t1", "t2", "t2"], DESIRE: [1, 2, 3, 4]}
    )
    meta = pd.DataFrame({USER: ["u1", "u2", "u3"], OCC: ["o"] * 3, "Age": [30, np.nan, 50], "Gender": ["F", "M", "F"]})
    m = rel.mixed_model_data(desires, meta, covariates=cov)
    assert len(m) == 2
    assert m.attrs == {"n_responses": 4, "n_unmatched": 1, "n_dropped_missing": 1}


def test_mixed_model_fit_needs_its_method_and_is_deterministic():
    """No remembered fits any more (the chapter fits once, tests/workbank/test_workbank_build.py): two fits of the
    same data agree exactly, and the optimiser is always the caller's (params.yaml's mixed_method)."""
    rng = np.random.default_rng(5)
    g, n = 30, 6
    y = 3 + np.repeat(rng.normal(0, 0.6, g), n) + rng.normal(0, 1.0, g * n)
    data = pd.DataFrame({"desire": y, TASK: np.repeat([f"t{i:02d}" for i in range(g)], n)})
    s1, c1, r1 = reliability.fit_mixed_model(data, covariates=(), method="bfgs")
    s2, c2, r2 = reliability.fit_mixed_model(data.copy(), covariates=(), method="bfgs")
    assert r2 is not r1 and s1 == s2 and c1.equals(c2)
    with pytest.raises(TypeError, match="method"):
        reliability.fit_mixed_model(data, covariates=())
