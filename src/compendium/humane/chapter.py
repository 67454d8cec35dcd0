"""What the scale chapter shows: tables, the figure and every number and phrase of its prose."""

from __future__ import annotations

import numpy as np
import pandas as pd

from compendium.chapter.display import with_alt
from compendium.chapter.figstyle import CATEGORICAL, styled

from . import report
from .simulate import DESIGNS, Point

DESIGN_NAMES = {
    "uniform": "uniform pairs",
    "ig_trueskill": "information gain, TrueSkill (HUMANE)",
    "ig_davidson": "information gain, BT–Davidson",
    "arena": "arena-like, new models favoured",
}
COLOURS = dict(zip(DESIGNS, ("#4d4d4d", CATEGORICAL[1], CATEGORICAL[2], CATEGORICAL[4])))


def fmt_n(n: float, lo: float, hi: float, budget: float) -> str:
    """``12,300 (10,100–15,000)``; ``> 40,960`` where the budget was not enough."""

    def one(x):
        return f"> {budget:,.0f}" if not np.isfinite(x) else f"{x:,.0f}"

    return one(n) if not np.isfinite(n) else f"{one(n)} ({one(lo)}–{one(hi)})"


def needed_table(need: pd.DataFrame) -> pd.DataFrame:
    """One row per single-group point: decisive judgements for 95 % full ranking and top model."""
    d = need[need["n_groups"] == 1].copy()
    b = d["budget"] * d["decisive_share"]
    return pd.DataFrame(
        {
            "models": d["n_models"],
            "spread": d["spread"],
            "ties": np.where(d["nu"] > 0, "study ν", "none"),
            "design": d["design"].map(DESIGN_NAMES),
            "full ranking": [fmt_n(*v) for v in zip(d["n_rank"], d["n_rank_lo"], d["n_rank_hi"], b)],
            "top model": [fmt_n(*v) for v in zip(d["n_top"], d["n_top_lo"], d["n_top_hi"], b)],
            "P(ranking) at budget": d["p_rank_budget"],
            "P(top) at budget": d["p_top_budget"],
        }
    ).sort_values(["models", "spread", "ties", "design"], kind="stable")


def curves(rows: pd.DataFrame, points: list[Point]) -> pd.DataFrame:
    """P(full ranking) and P(top) per single-group point and checkpoint (pooled board)."""
    from .simulate import point_key

    out = []
    for p in points:
        if p.n_groups != 1:
            continue
        r = rows[rows["point_key"] == point_key(p)]
        g = r.groupby("checkpoint", sort=True)
        out.append(
            pd.DataFrame(
                {
                    "n_models": p.n_models,
                    "spread": p.spread,
                    "nu": p.nu,
                    "design": p.design,
                    "n_decisive": g["n_decisive"].mean().to_numpy(),
                    "p_rank": g["rank_pooled"].mean().to_numpy(),
                    "p_top": g["top_pooled"].mean().to_numpy(),
                }  # fmt: skip
            )
        )
    return pd.concat(out, ignore_index=True)


def _alt(cv: pd.DataFrame) -> str:
    last = cv.sort_values("n_decisive").groupby(["n_models", "design"]).last().reset_index()
    parts = [f"{r.n_models} models, {DESIGN_NAMES[r.design]}: P(top) {r.p_top:.0%}, P(full ranking) {r.p_rank:.0%}"
             for r in last.itertuples()]  # fmt: skip
    return ("Recovery probability against decisive judgements (log scale) for four pair-selection designs, "
            "5 and 20 models with the study's spread and ties; at the budget: " + "; ".join(parts) + ".")  # fmt: skip


@with_alt(lambda cv: _alt(cv[(cv["spread"] == "study") & (cv["nu"] > 0)]))
@styled
def plot_curves(cv: pd.DataFrame):
    """P(top model) and P(full ranking) against decisive judgements, one column per number of models
    (study spread, study ties)."""
    import matplotlib.pyplot as plt

    c = cv[(cv["spread"] == "study") & (cv["nu"] > 0)]
    ns = sorted(c["n_models"].unique())
    fig, axes = plt.subplots(2, len(ns), figsize=(3.6 * len(ns), 5.6), sharex=True, sharey=True, squeeze=False)
    for col, n in enumerate(ns):
        for row, (what, label) in enumerate((("p_top", "P(top model recovered)"), ("p_rank", "P(full ranking)"))):
            ax = axes[row, col]
            for d in DESIGNS:
                s = c[(c["n_models"] == n) & (c["design"] == d)]
                ax.plot(s["n_decisive"], s[what], marker="o", ms=3, color=COLOURS[d], label=DESIGN_NAMES[d])
            ax.axhline(report.TARGET, color="0.6", lw=0.8, ls="--")
            ax.set_xscale("log")
            ax.set_title(f"{n} models" if row == 0 else "")
            ax.set_ylabel(label if col == 0 else "")
            if row == 1:
                ax.set_xlabel("decisive judgements")
    axes[0, 0].legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def _verdict(lo: float, hi: float) -> str:
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "not resolved within the budget"
    if lo > 0:
        return "a saving"
    if hi < 0:
        return "a loss"
    return "no detectable difference"


def summary(need: pd.DataFrame, sav: pd.DataFrame, cal: pd.DataFrame, cons: pd.DataFrame) -> dict:
    """Every number and phrase the chapter's prose quotes, by name."""
    v: dict[str, object] = {}
    one = need[need["n_groups"] == 1]
    for r in one.itertuples():
        tag = f"{r.n_models}_{r.spread}_{'ties' if r.nu > 0 else 'noties'}_{r.design}"
        v[f"h_top_{tag}"] = r.n_top if np.isfinite(r.n_top) else -1.0
        v[f"h_rank_{tag}"] = r.n_rank if np.isfinite(r.n_rank) else -1.0
        v[f"h_ptop_{tag}"] = r.p_top_budget
        v[f"h_prank_{tag}"] = r.p_rank_budget
    for r in sav.itertuples():
        tag = f"{r.target}_{r.n_models}_{r.spread}_{'ties' if r.nu > 0 else 'noties'}_{r.design}"
        v[f"h_sav_{tag}"] = r.saving if np.isfinite(r.saving) else -9.0
        v[f"h_sav_{tag}_lo"] = r.saving_lo if np.isfinite(r.saving_lo) else -9.0
        v[f"h_sav_{tag}_hi"] = r.saving_hi if np.isfinite(r.saving_hi) else -9.0
        v[f"h_sav_{tag}_verdict"] = _verdict(r.saving_lo, r.saving_hi)
    ts = sav[(sav["design"] == "ig_trueskill") & (sav["target"] == "top")]
    v["h_ig_top_n_saving"] = int(sum(_verdict(a, b) == "a saving" for a, b in zip(ts["saving_lo"], ts["saving_hi"])))
    v["h_ig_top_n_loss"] = int(sum(_verdict(a, b) == "a loss" for a, b in zip(ts["saving_lo"], ts["saving_hi"])))
    v["h_ig_top_n"] = len(ts)
    hi = cal[cal["reported_lo"] >= 0.95]
    v["h_cal_hi_reported"] = float((hi["mean_reported"] * hi["n"]).sum() / hi["n"].sum()) if len(hi) else -1.0
    v["h_cal_hi_observed"] = float((hi["observed"] * hi["n"]).sum() / hi["n"].sum()) if len(hi) else -1.0
    v["h_cal_hi_n"] = int(hi["n"].sum())
    v["h_cal_max_gap"] = float((cal["mean_reported"] - cal["observed"]).abs().max())
    v["h_cons_ratio_min"] = float(cons["ratio"].min())
    v["h_cons_ratio_max"] = float(cons["ratio"].max())
    v["h_cons_all_below_one"] = "in every setting" if (cons["ratio"] < 1).all() else "not in every setting"
    v["h_cons_rank_gap_max"] = float((cons["p_rank_pooled"] - cons["p_rank_consolidated"]).abs().max())
    v["h_cons_top_gap_max"] = float((cons["p_top_pooled"] - cons["p_top_consolidated"]).abs().max())
    return v


def _setting(r) -> str:
    return f"{r.n_models} models, {r.spread} spread, {'study ties' if r.nu > 0 else 'no ties'}"


def claims_text(sav: pd.DataFrame, cal: pd.DataFrame, cons: pd.DataFrame) -> tuple[str, str]:
    """The chapter's closing verdicts as Markdown, built from the tables (no free text from data)."""
    lines = []
    for design in ("ig_trueskill", "ig_davidson"):
        for target, what in (("top", "the top model"), ("rank", "the full ranking")):
            s = sav[(sav["design"] == design) & (sav["target"] == target)]
            for n in sorted(s["n_models"].unique()):
                t = s[s["n_models"] == n]
                verdicts = [f"{_verdict(r.saving_lo, r.saving_hi)} ({r.spread}, "
                            f"{'ties' if r.nu > 0 else 'no ties'}"
                            + (f": {r.saving:+.0%} [{r.saving_lo:+.0%}, {r.saving_hi:+.0%}])" if np.isfinite(r.saving_lo) else ")")
                            for r in t.itertuples()]  # fmt: skip
                lines.append(f"- *{DESIGN_NAMES[design]}, {what}, {n} models*: " + "; ".join(verdicts) + ".")
    hi = cal[cal["reported_lo"] >= 0.95]
    ok = bool(len(hi)) and all(r.observed_lo <= r.mean_reported <= r.observed_hi for r in hi.itertuples())
    lines.append(
        "- *P(best) of 95 % or more*: "
        + (
            "calibrated within the Monte Carlo intervals."
            if ok
            else "not calibrated: the observed share falls outside its interval in at least one bin."
        )  # fmt: skip
    )
    below = (cons["ratio"] < 1).all()
    lines.append(
        f"- *Pooled board less uncertain than any group's*: {'supported' if below else 'not supported'} at every "
        f"tested setting (posterior SD ratio {cons['ratio'].min():.2f}-{cons['ratio'].max():.2f}; "
        f"√(1/G) would be {cons['sqrt_1_over_g'].min():.2f}-{cons['sqrt_1_over_g'].max():.2f})."
    )
    ts = sav[(sav["design"] == "ig_trueskill")]
    pays = [f"{r.target} at {_setting(r)}" for r in ts.itertuples() if _verdict(r.saving_lo, r.saving_hi) == "a saving"]
    costs = [f"{r.target} at {_setting(r)}" for r in ts.itertuples() if _verdict(r.saving_lo, r.saving_hi) == "a loss"]
    when = (
        ("HUMANE's TrueSkill information gain saves judgements, with an interval excluding zero, for: "
         + "; ".join(pays) + ". " if pays else "In no tested setting does HUMANE's TrueSkill information gain save "
         "judgements with an interval excluding zero. ")
        + ("It needs more judgements than uniform pairs for: " + "; ".join(costs) + ". " if costs else "")
        + "Everywhere else the simulation cannot tell it from uniform pairs at its number of repetitions."
    )  # fmt: skip
    return "\n".join(lines), when


def saving_table(sav: pd.DataFrame, budget: int) -> pd.DataFrame:
    """The saving rows for display: judgements as text (``> budget`` where 95 % is not reached) and the
    saving with its interval as percentages (``n/a`` where either design does not reach 95 %)."""

    def n(x):
        return f"{x:,.0f}" if np.isfinite(x) else f"> {budget:,}"

    def pct(r):
        if not np.isfinite(r.saving):
            return "n/a"
        iv = f" [{r.saving_lo:+.0%}, {r.saving_hi:+.0%}]" if np.isfinite(r.saving_lo) else " [not resolved]"
        return f"{r.saving:+.0%}{iv}"

    return pd.DataFrame(
        {
            "target": sav["target"].map({"top": "top model", "rank": "full ranking"}),
            "models": sav["n_models"],
            "spread": sav["spread"],
            "ties": np.where(sav["nu"] > 0, "study ν", "none"),
            "design": sav["design"].map(DESIGN_NAMES),
            "judgements, design": [n(x) for x in sav["n_design"]],
            "judgements, uniform": [n(x) for x in sav["n_uniform"]],
            "saving [95 % MC interval]": [pct(r) for r in sav.itertuples()],
            "verdict": [_verdict(a, b) for a, b in zip(sav["saving_lo"], sav["saving_hi"])],
        }
    )
