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


def step_for(halfwidth: float) -> float:
    """The last digit a Monte Carlo interval of this half-width supports (the Particle Data Group's rule):
    two significant digits of the half-width if its three leading digits are 100-354, else one."""
    if not np.isfinite(halfwidth) or halfwidth <= 0:
        raise ValueError(f"a half-width must be positive and finite, not {halfwidth!r}")
    e = int(np.floor(np.log10(halfwidth)))
    lead = halfwidth / 10.0 ** (e - 2)
    return 10.0 ** (e - 1) if lead < 355 else 10.0**e


def _halfwidth(x: float, lo: float, hi: float) -> float:
    w = [abs(v) for v in (x - lo, hi - x) if np.isfinite(v) and v != 0]
    return max(w) if w else np.nan


def _rounded(x: float, step: float, how: str = "nearest") -> str:
    """``x`` to a multiple of ``step``: nearest, or ``down`` / ``up`` (an interval's ends, a bound: outwards)."""
    d = max(0, -int(np.floor(np.log10(step) + 1e-9)))
    q = x / step
    q = np.floor(q + 1e-9) if how == "down" else np.ceil(q - 1e-9) if how == "up" else np.round(q)
    return f"{q * step:,.{d}f}"


def fmt_n(n: float, lo: float, hi: float, budget: float, first: float = 0.0) -> str:
    """Decisive judgements with their Monte Carlo interval, rounded to the digits it supports:
    ``12,000 (10,000–15,000)``; ``> 28,000`` where the budget was not enough; ``≤ 530`` where the first
    checkpoint already had it (the grid says nothing finer there); ``≥ 35,000 (35,000 to > 40,960)`` where
    some resamples do not get there within the budget (the estimate itself, on a curve that only touches
    95 % near the budget, could round above it)."""
    hw = _halfwidth(n, lo, hi)
    if np.isfinite(hw):
        step = step_for(hw)
    else:  # a degenerate interval (every resample the same): two significant digits
        step = 10.0 ** max(0, int(np.floor(np.log10(max(n, 1.0)))) - 1) if np.isfinite(n) else 1.0

    def one(x, how="nearest"):
        if not np.isfinite(x):
            return f"> {budget:,.0f}"
        if x <= first * (1 + 1e-12):
            return f"≤ {first:,.0f}"
        return _rounded(x, step, how)

    if not np.isfinite(n) or n <= first * (1 + 1e-12):
        return one(n)
    if not np.isfinite(hi):  # the interval is open above: the estimate rests on a curve touching 95 %
        return f"≥ {one(lo, 'down')} ({one(lo, 'down')} to {one(hi, 'up')})"
    return f"{one(n)} ({one(lo, 'down')} to {one(hi, 'up')})"


def fmt_share(k: float, n: float) -> str:
    """A recovery probability ``k / n`` over ``n`` simulated studies with its Wilson 95 % interval, rounded to
    the digits the interval supports: ``0.97 (0.95–0.98)``."""
    from ..stats.pairwise import wilson_interval

    lo, hi = wilson_interval(k, n)
    x = k / n
    step = min(step_for(_halfwidth(x, lo, hi)), 0.01)
    return f"{_rounded(x, step)} ({_rounded(lo, step, 'down')} to {_rounded(hi, step, 'up')})"


def _saving_step(est: float, lo: float, hi: float, s_min: float = np.nan, s_max: float = np.nan) -> float:
    """The step, in percentage points, that a saving's Monte Carlo interval supports (:func:`step_for`)."""
    ends = [v for v in (lo, hi) if np.isfinite(v)]
    centre = est if np.isfinite(est) else (np.mean(ends) if ends else 0.0)
    hw = _halfwidth(centre, lo, hi) * 100 if ends else np.nan
    if np.isfinite(hw):
        return step_for(hw)
    bound = s_min if np.isfinite(s_min) else s_max  # only a bound: two significant digits of it
    return 10.0 ** max(0, int(np.floor(np.log10(max(abs(bound) * 100, 1.0)))) - 1) if np.isfinite(bound) else 1.0


def _pct(x: float, step: float, how: str) -> float:
    """A share ``x`` in percent, rounded to ``step`` (:func:`_rounded`); an open end (``±inf``) stays open."""
    return float(_rounded(x * 100, step, how).replace(",", "")) if np.isfinite(x) else x * 100


def saving_ends(lo: float, hi: float, step: float) -> tuple[float, float]:
    """A saving's Monte Carlo interval as printed, in percent: each end rounded outwards to ``step`` (an end
    that censoring leaves open stays ``-inf`` or 100). The verdict is read from these, so that the words
    never claim more than the digits: an interval printed as reaching 0 % is no detectable difference."""
    return _pct(lo, step, "down"), _pct(hi, step, "up")


def fmt_saving(est: float, lo: float, hi: float, s_min: float = np.nan, s_max: float = np.nan) -> str:
    """A saving (share of judgements) as percentages with its Monte Carlo interval, to the digits the interval
    supports: ``+31 % [+17 %, +48 %]``; ``0 %`` where it rounds to zero there (no finer digit for a small
    value: the interval does not support one). A censored estimate is shown as its bound (``≥ +16 %``), and
    so is an estimate whose interval censoring leaves open on one side (``≤ −38 %``: the point estimate then
    rests on where one curve touches 95 %, which a single simulated study can move); an open end is ``−∞``
    or ``+100 %`` (the budget or the first checkpoint cannot bound it)."""
    step = _saving_step(est, lo, hi, s_min, s_max)
    lo_r, hi_r = saving_ends(lo, hi, step)

    def signed(x_pct: float) -> str:
        if x_pct == -np.inf:
            return "−∞"
        t = _rounded(x_pct, step)
        if float(t.replace(",", "")) == 0:
            return "0 %"
        return (f"−{t[1:]}" if t.startswith("-") else f"+{t}") + " %"

    if np.isfinite(est) and lo > -np.inf and hi < 1:
        head = signed(est * 100)
    elif np.isfinite(est) and lo == -np.inf and hi < 1:
        head = f"≤ {signed(hi_r)}"
    elif np.isfinite(est) and hi >= 1 and lo > -np.inf:
        head = f"≥ {signed(lo_r)}"
    elif np.isfinite(s_min) and s_max >= 1:
        head = f"≥ {signed(_pct(s_min, step, 'down'))}"
    elif np.isfinite(s_max) and s_min == -np.inf and s_max < 1:
        head = f"≤ {signed(_pct(s_max, step, 'up'))}"
    else:
        head = "not resolved"
    return f"{head} [{signed(lo_r)}, {signed(hi_r)}]"


def needed_table(need: pd.DataFrame) -> pd.DataFrame:
    """One row per single-group point: decisive judgements for 95 % full ranking and top model."""
    d = need[need["n_groups"] == 1].copy()
    b = d["budget"] * d["decisive_share"]
    R = d["repetitions"]
    return pd.DataFrame(
        {
            "models": d["n_models"],
            "spread": d["spread"],
            "ties": np.where(d["nu"] > 0, "study ν", "none"),
            "design": d["design"].map(DESIGN_NAMES),
            "studies": R,
            "full ranking": [fmt_n(*v) for v in zip(d["n_rank"], d["n_rank_lo"], d["n_rank_hi"], b, d["n_first"])],
            "top model": [fmt_n(*v) for v in zip(d["n_top"], d["n_top_lo"], d["n_top_hi"], b, d["n_first"])],
            "P(ranking) at budget": [fmt_share(round(p * r), r) for p, r in zip(d["p_rank_budget"], R)],
            "P(top) at budget": [fmt_share(round(p * r), r) for p, r in zip(d["p_top_budget"], R)],
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


def _verdict(lo: float, hi: float, est: float = 0.0, step: float | None = None) -> str:
    """``a saving`` (the interval above zero), ``a loss`` (below), ``no detectable difference``, or, where
    censoring leaves the estimate open and the interval straddles zero, ``not resolved within the budget``.
    With ``step`` (percentage points), the interval's ends as printed (:func:`saving_ends`) decide: one that
    rounds to 0 % is not above zero."""
    touches = False
    if step is not None:
        lo, hi = (x / 100 for x in saving_ends(lo, hi, step))
        touches = lo == 0 or hi == 0
    if lo > 0:
        return "a saving"
    if hi < 0:
        return "a loss"
    if not np.isfinite(est):
        return "not resolved within the budget"
    return BORDERLINE if touches else "no detectable difference"


#: the verdict where an end of the interval, as printed, is 0 %: unrounded it may just exclude zero, and
#: which side it falls on follows the bootstrap's seed (seen: the 5-model BT-Davidson full ranking, with a
#: lower end of 0.0-0.6 % over four seeds)
BORDERLINE = "no detectable difference (borderline)"


def verdicts(sav: pd.DataFrame) -> list[str]:
    return [
        _verdict(r.saving_lo, r.saving_hi, r.saving,
                 _saving_step(r.saving, r.saving_lo, r.saving_hi, r.saving_min, r.saving_max))
        for r in sav.itertuples()
    ]  # fmt: skip


def _tag(r) -> str:
    return f"{r.n_models}_{r.spread}_{'ties' if r.nu > 0 else 'noties'}_{r.design}"


def summary(need: pd.DataFrame, sav: pd.DataFrame, cal: pd.DataFrame, cons: pd.DataFrame) -> dict:
    """Every number and phrase the chapter's prose quotes, by name (``*_txt``: rounded to the digits the
    Monte Carlo interval supports, with it)."""
    v: dict[str, object] = {}
    one = need[need["n_groups"] == 1]
    for r in one.itertuples():
        tag = _tag(r)
        b = r.budget * r.decisive_share
        v[f"h_top_{tag}"] = r.n_top if np.isfinite(r.n_top) else -1.0
        v[f"h_rank_{tag}"] = r.n_rank if np.isfinite(r.n_rank) else -1.0
        v[f"h_top_{tag}_txt"] = fmt_n(r.n_top, r.n_top_lo, r.n_top_hi, b, r.n_first)
        v[f"h_rank_{tag}_txt"] = fmt_n(r.n_rank, r.n_rank_lo, r.n_rank_hi, b, r.n_first)
        v[f"h_ptop_{tag}"] = r.p_top_budget
        v[f"h_prank_{tag}"] = r.p_rank_budget
    for r, verdict in zip(sav.itertuples(), verdicts(sav)):
        tag = f"{r.target}_{_tag(r)}"
        v[f"h_sav_{tag}"] = r.saving if np.isfinite(r.saving) else -9.0
        v[f"h_sav_{tag}_lo"] = r.saving_lo if np.isfinite(r.saving_lo) else -9.0
        v[f"h_sav_{tag}_hi"] = r.saving_hi if np.isfinite(r.saving_hi) else -9.0
        v[f"h_sav_{tag}_txt"] = fmt_saving(r.saving, r.saving_lo, r.saving_hi, r.saving_min, r.saving_max)
        v[f"h_sav_{tag}_verdict"] = verdict
    ig = sav[sav["design"].isin(["ig_trueskill", "ig_davidson"])]
    for n in sorted(ig["n_models"].unique()):
        for design in ("ig_trueskill", "ig_davidson"):
            t = ig[(ig["n_models"] == n) & (ig["design"] == design)]
            t = t[[_censored_both(r) == "" for r in t.itertuples()]]  # the settings the budget can resolve
            vd = verdicts(t)
            v[f"h_ig_{n}_{design}_n"] = len(t)
            v[f"h_ig_{n}_{design}_n_saving"] = vd.count("a saving")
            v[f"h_ig_{n}_{design}_n_loss"] = vd.count("a loss")
    for n in sorted(cal["n_models"].unique()):
        hi = cal[(cal["n_models"] == n) & (cal["reported_lo"] >= 0.95)]
        v[f"h_cal_{n}_hi_n"] = int(hi["n"].sum())
        if len(hi):
            v[f"h_cal_{n}_hi_reported"] = float((hi["mean_reported"] * hi["n"]).sum() / hi["n"].sum())
            v[f"h_cal_{n}_hi_observed"] = float((hi["observed"] * hi["n"]).sum() / hi["n"].sum())
    v["h_cal_max_gap"] = float((cal["mean_reported"] - cal["observed"]).abs().max())
    v |= consolidation_values(cons)
    return v


def consolidation_values(cons: pd.DataFrame) -> dict:
    """What the prose says of pooled against per-group boards: the SD ratio's range and how far it is above
    √(1/G), the largest recovery gaps between the pooled and the consolidated board, and whether any of them
    exceeds twice its Monte Carlo standard error (paired over the same simulated studies)."""
    excess = cons["ratio"] / cons["sqrt_1_over_g"] - 1
    v: dict[str, object] = {
        "h_cons_ratio_min": float(cons["ratio"].min()),
        "h_cons_ratio_max": float(cons["ratio"].max()),
        "h_cons_all_below_one": "in every setting" if (cons["ratio"] < 1).all() else "not in every setting",
        "h_cons_rank_gap_max": float(cons["rank_gap"].abs().max()),
        "h_cons_top_gap_max": float(cons["top_gap"].abs().max()),
        "h_cons_excess_max": float(excess.max()),
        "h_cons_excess_max_txt": f"{excess.max() * 100:.0f} %",
    }
    gaps = pd.concat([cons[["n_models", "spread", "n_groups", "studies"]].assign(target=t, gap=cons[f"{t}_gap"],
                                                                                 se=cons[f"{t}_gap_se"])
                      for t in ("top", "rank")], ignore_index=True)  # fmt: skip
    big = gaps[gaps["gap"].abs() > 2 * gaps["se"].fillna(0)]
    two_se = float((2 * gaps["se"]).max())
    fewest = int(cons["studies"].min())
    if big.empty:
        v["h_cons_gap_phrase"] = (
            f"no gap exceeds twice its Monte Carlo standard error (twice the standard error is at most "
            f"{two_se:.2f}, with as few as {fewest:,} simulated studies a point), so the simulation detects no "
            "difference between pooling and consolidating"
        )
    else:
        v["h_cons_gap_phrase"] = "the gap exceeds twice its Monte Carlo standard error for " + "; ".join(
            f"{TARGETS[r.target]} at {r.n_models} models, {r.spread} spread, {r.n_groups} groups "
            f"({r.gap:+.3f} ± {r.se:.3f})"
            for r in big.itertuples()
        )
    return v


def _setting(r) -> str:
    return f"{r.spread} spread, {'study ties' if r.nu > 0 else 'no ties'}"


TARGETS = {"top": "the top model", "rank": "the full ranking"}


def _censored_both(r) -> str:
    """``floor`` if both designs are at 95 % by the first checkpoint, ``never`` if neither gets there, else ''."""
    if r.n_design_min == 0 and r.n_uniform_min == 0:
        return "floor"
    if not np.isfinite(r.n_design) and not np.isfinite(r.n_uniform):
        return "never"
    return ""


def _items(t: pd.DataFrame) -> str:
    return "; ".join(f"{TARGETS[r.target]} at {_setting(r)} "
                     f"({fmt_saving(r.saving, r.saving_lo, r.saving_hi, r.saving_min, r.saving_max)})"
                     for r in t.itertuples()) or "none"  # fmt: skip


def _design_sentence(t: pd.DataFrame, name: str) -> str:
    t = t[[_censored_both(r) == "" for r in t.itertuples()]]
    vd = np.array(verdicts(t), dtype=object)
    out = f"{name} pays off (a saving whose interval excludes zero) for: {_items(t[vd == 'a saving'])}."
    for v, phrase in (("no detectable difference", "It is not detectably different from uniform pairs for"),
                      (BORDERLINE, "It is not detectably different, but only just (an end of the interval "
                       "rounds to 0 %, and which side of zero it falls on follows the resampling), for"),
                      ("not resolved within the budget", "The budget leaves it open for"),
                      ("a loss", "It needs more judgements than uniform pairs for")):  # fmt: skip
        if (vd == v).any():
            out += f" {phrase}: {_items(t[vd == v])}."
    return out


def answer(sav: pd.DataFrame, need: pd.DataFrame) -> str:
    """The chapter's answer to "when does information gain pay off?", one paragraph per number of models,
    built from the saving table (no free text from data)."""
    paras = []
    for n in sorted(sav["n_models"].unique()):
        s = sav[(sav["n_models"] == n) & sav["design"].isin(["ig_trueskill", "ig_davidson"])]
        lines = [_design_sentence(s[s["design"] == d], f"*{DESIGN_NAMES[d][0].upper() + DESIGN_NAMES[d][1:]}*")
                 for d in ("ig_trueskill", "ig_davidson") if (s["design"] == d).any()]  # fmt: skip
        for d in ("ig_trueskill", "ig_davidson"):
            t = s[(s["design"] == d) & np.array([_censored_both(r) == "" for r in s.itertuples()], bool)]
            vd = np.array(verdicts(t), dtype=object)
            pays = sorted(set(t["spread"][vd == "a saving"]))
            costs = sorted(set(t["spread"][vd == "a loss"]))
            lines.append(f"In short, {DESIGN_NAMES[d]} pays off "
                         + (f"here with the {' and the '.join(pays)} spread" if pays else "nowhere here")
                         + (f" and costs judgements with the {' and the '.join(costs)} spread" if costs else "") + ".")  # fmt: skip
        one = need[(need["n_models"] == n) & (need["n_groups"] == 1)]
        for kind, phrase in (("floor", "every design is at 95 % by the first checkpoint, so there is nothing to save"),
                             ("never", "no design reaches 95 % within the budget")):  # fmt: skip
            cases = sorted(
                {f"{TARGETS[r.target]} at {r.spread} spread" for r in s.itertuples() if _censored_both(r) == kind}
            )
            if cases:
                first = f" (≤ {one['n_first'].max():,.0f} decisive judgements)" if kind == "floor" else ""
                lines.append(f"For {', '.join(cases)}, {phrase}{first}.")
        paras.append(f"**At {n} models.** " + " ".join(lines))
    return "\n\n".join(paras)


def claims_text(sav: pd.DataFrame, cal: pd.DataFrame, cons: pd.DataFrame) -> str:
    """The talk's claims, one line each, with what the simulation says at each number of models
    (Markdown built from the tables; no free text from data)."""
    lines = []
    for design, claim in (("ig_trueskill", "Choosing pairs by information gain (TrueSkill, HUMANE's rule) needs "
                           "fewer judgements than uniform pairs"),
                          ("ig_davidson", "... and so does information gain under a Bradley–Terry–Davidson posterior"),
                          ("arena", "Uneven, arena-like sampling harms an open arena's board (here: it needs more "
                           "judgements than uniform pairs; with a Bradley–Terry fit it cannot bias the board)")):  # fmt: skip
        per = []
        for n in sorted(sav["n_models"].unique()):
            t = sav[(sav["design"] == design) & (sav["n_models"] == n)]
            t = t[[_censored_both(r) == "" for r in t.itertuples()]]  # the settings the budget can resolve
            vd = verdicts(t)
            good, bad = ("a saving", "a loss") if design != "arena" else ("a loss", "a saving")
            word = (("mixed" if vd.count(bad) else "supported" if vd.count(good) == len(t) else "partly supported")
                    if vd.count(good) else "not supported")  # fmt: skip
            per.append(f"at {n} models {word} "
                       f"({vd.count('a saving')} of {len(t)} resolvable settings a saving, {vd.count('a loss')} a loss)")  # fmt: skip
        lines.append(f"- *{claim}*: " + "; ".join(per) + ".")
    per = []
    for n in sorted(cal["n_models"].unique()):
        hi = cal[(cal["n_models"] == n) & (cal["reported_lo"] >= 0.95)]
        if not len(hi):
            per.append(f"at {n} models no board reports more than 95 %")
            continue
        if all(r.observed_lo <= r.mean_reported <= r.observed_hi for r in hi.itertuples()):
            word = "calibrated within the Monte Carlo interval"
        elif all(r.observed_lo > r.mean_reported or r.observed_hi >= r.mean_reported for r in hi.itertuples()):
            word = "conservative (the leader is truly best more often than reported)"
        else:
            word = "over-confident (the leader is truly best less often than reported)"
        per.append(f"at {n} models {word} "
                   f"(reported {', '.join(f'{r.mean_reported:.3f}' for r in hi.itertuples())}; observed "
                   + ", ".join(f"{r.observed:.3f} [{r.observed_lo:.3f}, {r.observed_hi:.3f}]" for r in hi.itertuples())
                   + ")")  # fmt: skip
    lines.append("- *A reported P(best) above 95 % means what it says*: " + "; ".join(per) + ".")
    per = []
    for n in sorted(cons["n_models"].unique()):
        c = cons[cons["n_models"] == n]
        below = bool((c["ratio"] < 1).all())
        per.append(f"at {n} models {'holds' if below else 'fails'} (posterior SD ratio "
                   f"{c['ratio'].min():.2f} to {c['ratio'].max():.2f}; √(1/G) would be "
                   f"{c['sqrt_1_over_g'].min():.2f} to {c['sqrt_1_over_g'].max():.2f})")  # fmt: skip
    lines.append("- *The consolidated board is less uncertain than any group's board*: true by construction, "
                 "since the pooled board has G times the judgements of each group's board, so the simulation "
                 "tests only by how much: " + "; ".join(per) + ".")  # fmt: skip
    return "\n".join(lines)


def saving_table(sav: pd.DataFrame, need: pd.DataFrame) -> pd.DataFrame:
    """The saving rows for display: each design's judgements exactly as the needed table prints them
    (:func:`needed_table`, rounded to the digits their own Monte Carlo interval supports; ``> budget`` where
    95 % is not reached, ``≤ first checkpoint`` where it is reached there) and the saving with its Monte
    Carlo interval as percentages."""
    one = need[need["n_groups"] == 1]
    by = {(r.n_models, r.spread, r.nu, r.design): r for r in one.itertuples()}

    def n(r, design):
        q = by[(r.n_models, r.spread, r.nu, design)]
        w = r.target
        text = fmt_n(getattr(q, f"n_{w}"), getattr(q, f"n_{w}_lo"), getattr(q, f"n_{w}_hi"),
                     q.budget * q.decisive_share, q.n_first)  # fmt: skip
        return text.split(" (")[0]  # the estimate; the needed table gives its interval

    return pd.DataFrame(
        {
            "target": sav["target"].map({"top": "top model", "rank": "full ranking"}),
            "models": sav["n_models"],
            "spread": sav["spread"],
            "ties": np.where(sav["nu"] > 0, "study ν", "none"),
            "design": sav["design"].map(DESIGN_NAMES),
            "judgements, design": [n(r, r.design) for r in sav.itertuples()],
            "judgements, uniform": [n(r, "uniform") for r in sav.itertuples()],
            "saving [95 % MC interval]": [
                fmt_saving(r.saving, r.saving_lo, r.saving_hi, r.saving_min, r.saving_max) for r in sav.itertuples()
            ],  # fmt: skip
            "verdict": verdicts(sav),
        }
    )
