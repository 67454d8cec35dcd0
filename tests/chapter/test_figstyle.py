"""The book's theme and palettes (compendium.chapter.figstyle) and every figure function on small inputs.

Colour-blind safety of the categorical palette is checked by simulation: each colour is mapped through the
Machado, Oliveira & Fernandes (2009) matrices for full (severity 1.0) protanopia, deuteranopia and
tritanopia, applied in linear RGB, and the smallest CIE76 distance (Delta E in CIELAB) between any two of
the first six colours (the ones the book's figures use for categories) must stay above 10 - clearly
distinguishable side by side. The red-green pair the book used before (#2ca02c vs #d62728, matplotlib's
tab10) fails this test under deuteranopia, so the test can fail.
"""

from __future__ import annotations

import itertools
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.colors as mcolors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import seaborn as sns  # noqa: E402

from compendium.chapter import figstyle  # noqa: E402
from compendium.preferences import figures as pfig  # noqa: E402
from compendium.preferences.reproduce import MODELS  # noqa: E402
from compendium.pwb import (
    DIMENSIONS,  # noqa: E402
    figures as bfig,  # noqa: E402
)
from compendium.workbank import figures as wfig  # noqa: E402

# Machado et al. (2009), severity 1.0, linear RGB
CVD = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
}


def _lin(c):
    c = np.asarray(c, float)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _lab(lin):
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ lin
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def min_delta_e(colours, kind: str | None) -> float:
    m = np.eye(3) if kind is None else np.array(CVD[kind])
    labs = [_lab(np.clip(m @ _lin(mcolors.to_rgb(c)), 0, 1)) for c in colours]
    return min(float(np.linalg.norm(a - b)) for a, b in itertools.combinations(labs, 2))


def test_categorical_palette_is_seaborn_colorblind():
    assert figstyle.CATEGORICAL == sns.color_palette("colorblind").as_hex()


@pytest.mark.parametrize("kind", [None, *CVD])
def test_categorical_palette_distinct_under_colour_vision_deficiency(kind):
    assert min_delta_e(figstyle.CATEGORICAL[:6], kind) > 10


def test_old_red_green_pair_fails_the_check():
    # the test can fail: matplotlib's green and red collapse under deuteranopia
    assert min_delta_e(["#2ca02c", "#d62728"], "deuteranopia") < 10 < min_delta_e(["#2ca02c", "#d62728"], None)


def test_zone_colours_distinct_and_marked():
    cols = [figstyle.ZONE_COLORS[z] for z in ("green", "red", "rnd", "low")]
    for kind in CVD:
        assert min_delta_e(cols, kind) > 10
    assert len(set(figstyle.ZONE_MARKERS.values())) == 4


def test_no_red_green_colour_maps():
    assert figstyle.SEQUENTIAL in ("cividis", "viridis")
    # the diverging map runs blue -> red: its ends differ in the blue channel, not only red vs green
    cmap = sns.color_palette(figstyle.DIVERGING, as_cmap=True)
    lo, hi = np.array(cmap(0.0)[:3]), np.array(cmap(1.0)[:3])
    assert lo[2] > lo[1] and hi[0] > hi[1]
    assert min_delta_e([mcolors.to_hex(lo), mcolors.to_hex(hi)], "deuteranopia") > 20


def test_styled_does_not_leak():
    before = dict(plt.rcParams)

    @figstyle.styled
    def f():
        return plt.rcParams["image.cmap"]

    assert f() == figstyle.SEQUENTIAL
    assert plt.rcParams["image.cmap"] == before["image.cmap"]


def test_point_ranges_draws_the_given_interval():
    fig, ax = plt.subplots()
    d = pd.DataFrame({"k": ["a", "b"], "est": [0.5, 0.2], "lo": [0.1, 0.15], "hi": [0.9, 0.6]})
    figstyle.point_ranges(ax, d, "k", "est", "lo", "hi")
    bars = [line for line in ax.lines if len(set(line.get_ydata())) == 1]  # the horizontal interval lines
    assert sorted(tuple(np.round(line.get_xdata(), 6)) for line in bars) == [(0.1, 0.9), (0.15, 0.6)]
    points = [line for line in ax.lines if len(set(line.get_ydata())) == 2]
    assert list(points[0].get_xdata()) == [0.5, 0.2]
    plt.close(fig)
    with pytest.raises(ValueError, match="unique"):
        figstyle.point_ranges(ax, pd.concat([d, d]), "k", "est", "lo", "hi")


# ---------------------------------------------------------------- every figure function, small inputs
rng = np.random.default_rng(0)
MODS = ["M1", "M2", "M3"]
DIMS = list(DIMENSIONS)


def _mat(lo=0.0, hi=3.0):
    return pd.DataFrame(rng.uniform(lo, hi, (len(MODS), len(DIMS))), index=MODS, columns=DIMS)


def pwb_cases():
    t2 = pd.DataFrame({"model": MODS, "baseline": [30.0, 35, 40], "prompted": [60.0, 70, 65]})
    t2["delta_printed"] = t2["prompted"] - t2["baseline"]
    rel = pd.DataFrame(
        [
            {"Model": m, "Variant": v, "CI_lower": x - 2, "CI_upper": x + 2}
            for m, b, p in zip(MODS, t2["baseline"], t2["prompted"])
            for v, x in (("baseline", b), ("with_system_prompt", p))
        ]
    )
    diag = pd.DataFrame({"dimension": DIMS, "baseline": rng.uniform(0, 1.5, 10), "prompted": rng.uniform(1.5, 3, 10)})
    diag["delta"] = diag["prompted"] - diag["baseline"]
    diag = diag.assign(
        released_ci_lower=diag["delta"] - 0.1,
        released_ci_upper=diag["delta"] + 0.1,
        released_qwk=np.linspace(0.3, 0.95, 10),
        released_spread=rng.uniform(0.2, 1.5, 10),
    )
    pwis = pd.DataFrame(
        [
            {"scheme": s, "model": m, "condition": c, "pwi": rng.uniform(20, 80)}
            for s in ("default", "equal")
            for m in MODS
            for c in ("baseline", "with_system_prompt")
        ]
    )
    stale = pd.DataFrame([{"model": m, "dimension": d, "diff": rng.uniform(-1, 1)} for m in MODS for d in DIMS])
    qwk = pd.DataFrame({"dimension": DIMS, "qwk": rng.uniform(0.3, 0.9, 10)})
    c = np.corrcoef(rng.normal(size=(10, 30)))
    corr = pd.DataFrame(c, index=DIMS, columns=DIMS)
    inst = pd.DataFrame(
        [
            {"model": m, "condition": cond, "pwi": x, "ci_lower": x - 3, "ci_upper": x + 3}
            for m in MODS
            for cond, x in (("baseline", 30.0), ("with_system_prompt", 60.0))
        ]
    )
    inv = pd.DataFrame({"layer": 1, "domain": rng.choice(["law", "medicine"], 40), "dimension": rng.choice(DIMS, 40)})
    return {
        "pwi_dumbbell": lambda: bfig.plot_pwi_dumbbell(t2, rel),
        "pwi_dumbbell_no_released": lambda: bfig.plot_pwi_dumbbell(t2),
        "heatmaps": lambda: bfig.plot_model_dimension_heatmaps(_mat(), _mat(), _mat(-3, 3)),
        "radar": lambda: bfig.plot_radar(diag),
        "effect": lambda: bfig.plot_effect_vs_reliability(diag),
        "weights": lambda: bfig.plot_weight_sensitivity(pwis),
        "stale": lambda: bfig.plot_stale_table(stale),
        "agreement": lambda: bfig.plot_agreement_by_dimension(qwk, qwk, qwk.rename(columns={"dimension": "Dimension"})),
        "correlation": lambda: bfig.plot_correlation(corr),
        "instance_pwi": lambda: bfig.plot_instance_pwi(inst),
        "prompt_domains": lambda: bfig.plot_prompt_domains(inv),
    }


def workbank_cases():
    zones = ("green", "red", "rnd", "low")
    land = pd.DataFrame({"capability": rng.uniform(1, 5, 40), "desire": rng.uniform(1, 5, 40)})
    land["zone"] = np.where(
        land["capability"] >= 3,
        np.where(land["desire"] >= 3, "green", "red"),
        np.where(land["desire"] >= 3, "rnd", "low"),
    )
    sect = pd.DataFrame({"sector": ["A", "B"], "n_tasks": [3, 4], "share_gt_cutoff": [40.0, 60.0]})
    reasons = pd.DataFrame({"reason": ["free_time", "scale"], "pct": [60.0, 20.0]})
    mat = pd.DataFrame(rng.integers(0, 50, (5, 5)))
    keys = ["physical_action", "interpersonal_communication", "uncertainty", "domain_expertise"]
    prof = pd.DataFrame(
        [
            {"profile": p, "n_tasks": 5, **dict(zip(keys, rng.uniform(1, 5, 4)))}
            for p in ("workers (worker H5 set)", "experts (all tasks)")
        ]
    )
    skills = pd.DataFrame(
        {"skill": ["a", "b", "c"], "wage_rank": [1, 2, 3], "has_rank": [2, 1, 3], "n_tasks": [4, 5, 6]}
    )
    grp = pd.DataFrame(
        [
            {
                "variable": "age",
                "group": g,
                "n_workers": n,
                "small_group": n < 5,
                **{
                    f"{c}{s}": v + d
                    for c, v in (("mean_desire", 3), ("desire_vs_task", 0), ("mean_has", 2.5))
                    for s, d in (("", 0), ("_lo", -0.2), ("_hi", 0.2))
                },
            }
            for g, n in (("young", 30), ("old", 3))
        ]
    )
    sweep = pd.DataFrame(
        {
            "cutoff": [2.5, 3.0, 3.5],
            **{z: [10, 20, 30] for z in zones},
            "share_desire_gt": [60.0, 50, 40],
            "share_desire_ge": [65.0, 55, 45],
        }
    )
    rules = ["lowest", "highest"]
    tie = pd.DataFrame(
        [{"worker_rule": a, "expert_rule": b, "workers_more": rng.uniform(20, 60)} for a in rules for b in rules]
    )
    stab = pd.DataFrame({"zone": rng.choice(zones, 40), "p_observed": rng.uniform(0, 1, 40)})
    bls = pd.DataFrame({"sector": ["A", "B"], "bls_share": [5.0, 6.0], "sample_share": [7.0, 4.0]})
    demo = pd.DataFrame(
        {
            "variable": ["age_band", "age_band", "gender", "race"],
            "category": ["16_to_19", "20_to_24", "women", "white"],
            "bls_pct": [10.0, 20, 47, 76],
            "sample_pct": [12.0, 18, 45, 60],
        }
    )
    return {
        "desire_by_sector": lambda: wfig.desire_by_sector(sect, 50.0),
        "reasons": lambda: wfig.reasons(reasons, 100),
        "landscape": lambda: wfig.landscape(land, 3.0, 0.1),
        "has_heatmap": lambda: wfig.has_heatmap(mat, 25.0, 45.0),
        "h5_radar": lambda: wfig.h5_radar(prof),
        "skill_shift": lambda: wfig.skill_shift(skills),
        "demographic_groups": lambda: wfig.demographic_groups(grp, 3.0, 2.5),
        "cutoff_sweep": lambda: wfig.cutoff_sweep(sweep, 3.0),
        "robustness": lambda: wfig.robustness(tie, stab, 0.9),
        "representativeness": lambda: wfig.representativeness(bls, demo),
    }


class _Orders:
    def __init__(self):
        self.mu = rng.normal(25, 1, (6, 5))
        self.sigma = np.full((6, 5), 0.8)

    def centred_mu(self):
        return self.mu - self.mu.mean(1, keepdims=True)

    def share_matching_ranking(self, strengths):
        return 0.5


def preferences_cases():
    pairs = pd.DataFrame(
        {
            "higher_val_model": ["recipe_c", "recipe_d"],
            "lower_val_model": ["recipe_a", "untrained"],
            "delta_val_pref_acc": [0.1, 0.05],
            "higher_val_win_rate": [0.6, 0.45],
            "wilson_lo": [0.5, 0.35],
            "wilson_hi": [0.7, 0.55],
            "signal": ["tracks", "noisy"],
            "higher_val_wins": [60, 45],
            "lower_val_wins": [40, 55],
            "ties": [5, 6],
        }
    )
    s = np.array([0.8, 0.9, 1.0, 1.2, 1.1])
    bt = pd.DataFrame({"model": list(MODELS), "strength": s})
    summ = bt.assign(ci_lo=s - 0.1, ci_hi=s + 0.1, p_best=[0, 0, 0.1, 0.6, 0.3])
    rp = pd.DataFrame(rng.dirichlet(np.ones(5), 5), index=list(MODELS), columns=[f"rank_{k}" for k in range(1, 6)])
    cat = pd.DataFrame(rng.uniform(0.5, 2, (2, 5)), index=["common_factual", "coding"], columns=list(MODELS))
    curves = pd.DataFrame(
        [
            {"strategy": st, "n_judgements": n, "p_ranking": n / 4000, "p_top": n / 3000}
            for st in ("uniform", "arena")
            for n in (500, 1000, 2000)
        ]
    )
    needed = pd.DataFrame(
        {"strategy": ["uniform", "arena"], "n_for_ranking": [np.nan, 1800.0], "n_for_top": [1500.0, np.nan]}
    )
    return {
        "pair_forest": lambda: pfig.plot_pair_forest(pairs),
        "bt_uncertainty": lambda: pfig.plot_bt_uncertainty(summ, rp),
        "bt_vs_val": lambda: pfig.plot_bt_vs_val(bt, 0.8),
        "category_heatmaps": lambda: pfig.plot_category_heatmaps(cat, cat / 3),
        "trueskill": lambda: pfig.plot_trueskill({"a": _Orders(), "b": _Orders()}, bt),
        "simulation": lambda: pfig.plot_simulation(curves, needed, 0.8, 1500),
        "participant_activity": lambda: pfig.plot_participant_activity(pd.DataFrame({"n_judgements": [3, 5, 5, 8]})),
    }


CASES = {
    **{f"pwb.{k}": v for k, v in pwb_cases().items()},
    **{f"workbank.{k}": v for k, v in workbank_cases().items()},
    **{f"preferences.{k}": v for k, v in preferences_cases().items()},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_figure_functions_draw_without_warnings(name, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = CASES[name]()
        assert isinstance(fig, plt.Figure) and fig.axes
        fig.savefig(tmp_path / "f.png", dpi=40, bbox_inches="tight")  # drawing happens here: warn here too
    plt.close(fig)


def test_rank_probability_heatmap_leaves_ranks_never_reached_blank():
    """A rank a model (almost) never takes is left blank, not painted the darkest colour of the scale."""
    from compendium.preferences import figures as pfig

    s = np.array([0.8, 0.9, 1.0, 1.2, 1.1])
    summ = pd.DataFrame({"model": list(MODELS), "strength": s}).assign(
        ci_lo=s - 0.1, ci_hi=s + 0.1, p_best=[0, 0, 0, 1.0, 0]
    )
    rp = pd.DataFrame(np.eye(5), index=list(MODELS), columns=[f"rank_{k}" for k in range(1, 6)])
    rp.iloc[0, 1], rp.iloc[0, 0] = 0.004, 0.996  # below the 0.005 shown as "0.00": blank as well
    fig = pfig.plot_bt_uncertainty(summ, rp)
    try:
        mesh = fig.axes[1].collections[0]
        assert np.ma.count_masked(mesh.get_array()) == 20
    finally:
        plt.close(fig)
