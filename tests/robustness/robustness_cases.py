"""Hand-worked small inputs of the robustness sweeps, shared by test_sweeps.py, test_figures.py and the fixtures."""

import pandas as pd

from compendium.preferences import MODELS

#: P(C beats D) as the preferences chapter would export it for the robustness stage (the tests do not read results/)
PREF_VALUES = {
    "pref.c_vs_d.p_c_stronger": 0.7,
    "pref.bootstrap_cluster.p_c_stronger_than_d": 0.64,
    "pref.c_vs_d.n_bootstrap": 5000,
}


def small_landscape():
    #                          t1   t2   t3   t4   t5
    return pd.DataFrame(
        {"capability": [3.0, 3.5, 2.0, 2.9, 3.0], "desire": [3.0, 2.0, 4.0, 1.0, 3.2]},
        index=[f"t{i}" for i in range(1, 6)],
    )


def has_counts(rows, idx):
    return pd.DataFrame(rows, columns=[1, 2, 3, 4, 5], index=idx)


# task a: workers clear H2; experts tie H1/H3 (lowest 1, highest 3, mean 2)
# task b: workers tie H3/H4 (lowest 3, highest 4, mean 3.5 -> 4); experts clear H4
# task c: workers clear H1; experts clear H2
W = has_counts([[0, 2, 0, 0, 0], [0, 0, 1, 1, 0], [3, 0, 0, 0, 0]], ["a", "b", "c"])
E = has_counts([[1, 0, 1, 0, 0], [0, 0, 0, 2, 0], [0, 1, 0, 0, 0]], ["a", "b", "c"])


def small_cells():
    rows = []
    means = {
        ("X", "baseline"): (1.0, 2.0),
        ("X", "with_system_prompt"): (3.0, 2.0),
        ("Y", "baseline"): (0.0, 1.0),
        ("Y", "with_system_prompt"): (2.0, 2.5),
    }
    for (m, c), (d1, d2) in means.items():
        rows += [
            {"model": m, "condition": c, "dimension": "d1", "n": 10, "score_sum": 10 * d1, "mean": d1},
            {"model": m, "condition": c, "dimension": "d2", "n": 10, "score_sum": 10 * d2, "mean": d2},
        ]
    return pd.DataFrame(rows)


def proportional_counts(ties: int = 0) -> pd.DataFrame:
    """Decisive wins proportional to strengths 1..5 (x wins = pi_x, y wins = pi_y): the BT MLE on the
    decisive judgements is exactly pi, i.e. (1, 2, 3, 4, 5) / 3 after rescaling to sum 5."""
    pi = dict(zip(MODELS, range(1, 6)))
    rows = []
    for a in range(5):
        for b in range(a + 1, 5):
            x, y = MODELS[a], MODELS[b]
            rows.append(
                {"model_x": x, "model_y": y, "x_wins": pi[x], "y_wins": pi[y], "ties": ties, "n": pi[x] + pi[y] + ties}
            )
    return pd.DataFrame(rows)
