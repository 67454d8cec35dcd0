"""Each number of the scale chapter as printed: to the digits its Monte Carlo interval supports.

The judgements needed, the recovery shares and the savings are printed with the Particle Data Group's rule on
their interval's half-width (:func:`compendium.stats.mcdigits.mc_step`, rule ``"pdg"``: two significant digits of
the half-width if its three leading digits are 100-354, else one), written with
:func:`compendium.stats.mcdigits.mc_format` (an interval's ends rounded outwards). Where the interval is
degenerate or open the number keeps two significant digits (of itself, or of its bound). A saving's verdict is
read from its interval *as printed* (:func:`saving_ends`, :func:`compendium.humane.report.saving_verdict`), so
the words never claim more than the digits.
"""

from __future__ import annotations

import numpy as np

from compendium.stats.mcdigits import mc_format, mc_step

__all__ = ["halfwidth", "fmt_n", "fmt_share", "saving_step", "saving_ends", "fmt_saving", "fmt_gap", "fmt_gap_se"]


def halfwidth(x: float, lo: float, hi: float) -> float:
    """The larger of the distances from ``x`` to the interval's finite ends that are not zero (NaN if none)."""
    w = [abs(v) for v in (x - lo, hi - x) if np.isfinite(v) and v != 0]
    return max(w) if w else np.nan


def fmt_n(n: float, lo: float, hi: float, budget: float, first: float = 0.0) -> str:
    """Decisive judgements with their Monte Carlo interval, rounded to the digits it supports (rule ``"pdg"``
    on the interval's half-width): ``12,000 (10,000–15,000)``; ``> 28,000`` where the budget was not enough;
    ``≤ 530`` where the first checkpoint already had it (the grid says nothing finer there); ``≥ 35,000 (35,000
    to > 40,960)`` where some resamples do not get there within the budget (the estimate itself, on a curve that
    only touches 95 % near the budget, could round above it)."""
    hw = halfwidth(n, lo, hi)
    if np.isfinite(hw):
        step = mc_step(hw, rule="pdg")  # rule "pdg": the interval's half-width
    else:  # a degenerate interval (every resample the same): two significant digits
        step = 10.0 ** max(0, int(np.floor(np.log10(max(n, 1.0)))) - 1) if np.isfinite(n) else 1.0

    def one(x, how="nearest"):
        if not np.isfinite(x):
            return f"> {budget:,.0f}"
        if x <= first * (1 + 1e-12):
            return f"≤ {first:,.0f}"
        return mc_format(x, step, how=how, thousands=True)

    if not np.isfinite(n) or n <= first * (1 + 1e-12):
        return one(n)
    if not np.isfinite(hi):  # the interval is open above: the estimate rests on a curve touching 95 %
        return f"≥ {one(lo, 'down')} ({one(lo, 'down')} to {one(hi, 'up')})"
    return f"{one(n)} ({one(lo, 'down')} to {one(hi, 'up')})"


def fmt_share(k: float, n: float) -> str:
    """A recovery probability ``k / n`` over ``n`` simulated studies with its Wilson 95 % interval, rounded to
    the digits the interval supports (rule ``"pdg"``, at least hundredths): ``0.97 (0.95–0.98)``."""
    from compendium.stats.pairwise import wilson_interval

    lo, hi = wilson_interval(k, n)
    x = k / n
    step = min(mc_step(halfwidth(x, lo, hi), rule="pdg"), 0.01)  # rule "pdg": the Wilson interval's half-width
    return (
        f"{mc_format(x, step, thousands=True)} "
        f"({mc_format(lo, step, how='down', thousands=True)} to {mc_format(hi, step, how='up', thousands=True)})"
    )


def saving_step(est: float, lo: float, hi: float, s_min: float = np.nan, s_max: float = np.nan) -> float:
    """The step, in percentage points, that a saving's Monte Carlo interval supports (rule ``"pdg"`` on its
    half-width); with only a bound (an interval censoring leaves open on both sides), two significant digits
    of the bound."""
    ends = [v for v in (lo, hi) if np.isfinite(v)]
    centre = est if np.isfinite(est) else (np.mean(ends) if ends else 0.0)
    hw = halfwidth(centre, lo, hi) * 100 if ends else np.nan
    if np.isfinite(hw):
        return mc_step(hw, rule="pdg")  # rule "pdg": the interval's half-width, in points
    bound = s_min if np.isfinite(s_min) else s_max  # only a bound: two significant digits of it
    return 10.0 ** max(0, int(np.floor(np.log10(max(abs(bound) * 100, 1.0)))) - 1) if np.isfinite(bound) else 1.0


def _pct(x: float, step: float, how: str) -> float:
    """A share ``x`` in percent, rounded to ``step`` (:func:`~compendium.stats.mcdigits.mc_format`); an open end
    (``±inf``) stays open."""
    return float(mc_format(x * 100, step, how=how, thousands=True).replace(",", "")) if np.isfinite(x) else x * 100


def saving_ends(lo: float, hi: float, step: float) -> tuple[float, float]:
    """A saving's Monte Carlo interval as printed, in percent: each end rounded outwards to ``step`` (an end
    that censoring leaves open stays ``-inf`` or 100). The verdict is read from these, so that the words
    never claim more than the digits: an interval printed as reaching 0 % is no detectable difference."""
    return _pct(lo, step, "down"), _pct(hi, step, "up")


def fmt_saving(est: float, lo: float, hi: float, s_min: float = np.nan, s_max: float = np.nan) -> str:
    """A saving (share of judgements) as percentages with its Monte Carlo interval, to the digits the interval
    supports (:func:`saving_step`): ``+31 % [+17 %, +48 %]``; ``0 %`` where it rounds to zero there (no finer
    digit for a small value: the interval does not support one). A censored estimate is shown as its bound
    (``≥ +16 %``), and so is an estimate whose interval censoring leaves open on one side (``≤ −38 %``: the
    point estimate then rests on where one curve touches 95 %, which a single simulated study can move); an open
    end is ``−∞`` or ``+100 %`` (the budget or the first checkpoint cannot bound it)."""
    step = saving_step(est, lo, hi, s_min, s_max)
    lo_r, hi_r = saving_ends(lo, hi, step)

    def signed(x_pct: float) -> str:
        if x_pct == -np.inf:
            return "−∞"
        t = mc_format(x_pct, step, thousands=True)
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


def _signed(x: float, step: float, how: str = "nearest", plus: bool = False) -> str:
    """``x`` to ``step`` with a true minus sign (and ``+`` if ``plus``); zero unsigned."""
    t = mc_format(x, step, how=how)
    if float(t) == 0:
        return t.lstrip("-")
    return "−" + t[1:] if t.startswith("-") else ("+" + t if plus else t)


def fmt_gap(reported: float, observed: float, gap: float, lo: float, hi: float, compact: bool = False) -> str:
    """A calibration gap (observed minus reported P(best)) with its interval, and the two shares it is the
    difference of, all to the digits the interval's half-width supports (rule ``"pdg"``):
    ``reported 0.62 on average, right 0.54 of the time: −0.08 [−0.12, −0.03]``; ``compact``, for a table whose
    header names them: ``0.62 → 0.54: −0.08 [−0.12, −0.03]``."""
    step = mc_step(max(hi - gap, gap - lo), rule="pdg")  # rule "pdg": the interval's half-width
    shares = (f"{_signed(reported, step)} → {_signed(observed, step)}" if compact else
              f"reported {_signed(reported, step)} on average, right {_signed(observed, step)} of the time")  # fmt: skip
    return f"{shares}: {_signed(gap, step, plus=True)} [{_signed(lo, step, 'down', True)}, {_signed(hi, step, 'up', True)}]"


def fmt_gap_se(gap: float, se: float) -> str:
    """A paired recovery gap with its Monte Carlo standard error, both to the digits the error supports (rule
    ``"pdg"`` on the SE; thousandths where the SE is 0, the boards agreeing in every study): ``+0.028 ± 0.011``."""
    step = mc_step(se, rule="pdg") if se > 0 else 0.001  # rule "pdg": the gap's standard error
    return f"{_signed(gap, step, plus=True) if gap != 0 else '0'} ± {mc_format(se, step)}"
