"""The robustness figures (compendium.robustness.figures) draw from the sweeps' tables."""

import sys
from pathlib import Path

from compendium.preferences import MODELS
from compendium.robustness import figures, sweeps as rob

sys.path.insert(0, str(Path(__file__).resolve().parent))
from robustness_cases import E, W, proportional_counts, small_cells, small_landscape  # noqa: E402


def test_figures_draw():
    import matplotlib.pyplot as plt

    z = rob.zone_sweep(small_landscape(), [2.5, 3.0], ("ge", "gt"))
    h = rob.has_sweep(W, E, ("lowest", "highest"), seed=1, n_random=5)
    per, pwis = rob.pwb_sweep(
        small_cells(),
        {"default": {"d1": 1, "d2": 1}, "r": {"d1": 2, "d2": 1}},
        {"default": "default", "r": "random"},
        top_k=1,
    )
    bt = rob.bt_sweep(proportional_counts(ties=4), (0.0, 0.5), davidson=True)
    figs = [
        figures.zone_sweep(z),
        figures.has_sweep(h),
        figures.pwb_sweep(per, pwis),
        figures.bt_sweep(bt, MODELS, {}),
    ]
    # the zone sweep is faceted: one panel per boundary rule (ge, gt)
    assert [len(f.axes) for f in figs] == [2, 2, 2, 1]
    for f in figs:
        plt.close(f)
