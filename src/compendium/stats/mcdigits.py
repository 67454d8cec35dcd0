"""The digits a Monte-Carlo error supports: one module, used by every wing that prints a simulated number.

A number estimated by simulation or resampling carries a Monte-Carlo error; printing digits finer than that
error claims a precision the run does not have. Every wing rounds with :func:`mc_step` (the rounding unit an
error supports) and :func:`mc_format` (a number written to that unit). Three rules, each a named choice of
:func:`mc_step`, because the chapters print three kinds of number:

``"leading"`` -- an interval's ends, and any number printed beside its own error: the power of ten of the
    error's leading digit (an SE of 0.19 supports tenths, one of 1.3 units, one of 430 hundreds). The
    WORKBank raking interval and the preferences chapter's Monte Carlo intervals use it.
``"estimate"`` -- a point estimate, as the shortest number within one standard error of it: the smallest power
    of ten at least as large as the SE if rounding to it moves the number by no more than the SE, otherwise the
    ``"leading"`` unit (which moves it by at most SE / 2). 14,297 +- 423 prints 14,000; 17,793 +- 1,063 prints
    18,000, not 20,000. The preferences chapter's "judgements needed" and the robustness chapter's bootstrap
    shares use it.
``"unit"`` -- the smallest power of ten at least as large as the error: the last printed digit is then uncertain
    by less than one unit (an SE of 0.03 supports tenths, one of 0.001 thousandths, one of 0.0011 hundredths).
    The evaluate chapter's interval comparison uses it (an independent referee found the leading digit's
    hundredths of a PWI end, at an SE of 0.03-0.06, moving by 4-6 units between seeds).
``"pdg"`` -- the Particle Data Group's rule, from an interval's *half-width* (not an SE): two significant digits
    of the half-width if its three leading digits are 100-354, else one. The HUMANE scale chapter uses it for
    judgements needed and savings, whose intervals are bootstrap percentiles.

The rules are kept apart, not unified, because unifying them would change printed digits of the committed book;
each chapter's choice is named where it calls :func:`mc_step`.
"""

from __future__ import annotations

import math
from typing import Literal

__all__ = ["Rule", "RULES", "mc_step", "mc_decimals", "mc_format", "mc_text", "share_text"]

Rule = Literal["leading", "estimate", "pdg", "unit"]
RULES: tuple[str, ...] = ("leading", "estimate", "pdg", "unit")


def _positive(error: float, what: str) -> float:
    e = float(error)
    if not (e > 0 and math.isfinite(e)):
        raise ValueError(f"mc_step: need a positive finite {what}, got {error!r}")
    return e


def mc_step(error: float, x: float | None = None, rule: Rule = "leading") -> float:
    """The rounding unit (a power of ten) that a Monte-Carlo ``error`` supports, by ``rule`` (see the module
    docstring): ``"leading"``, ``"unit"`` and ``"estimate"`` take a standard error, ``"pdg"`` an interval's half-width;
    ``"estimate"`` needs the estimate ``x``. Raises ValueError for an error that is not positive and finite."""
    if rule == "pdg":
        hw = _positive(error, "half-width")
        e = math.floor(math.log10(hw))
        lead = hw / 10.0 ** (e - 2)
        return 10.0 ** (e - 1) if lead < 355 else 10.0**e
    se = _positive(error, "standard error")
    fine = 10.0 ** math.floor(math.log10(se))
    if rule == "leading":
        return fine
    if rule == "unit":
        return fine if se == fine else 10 * fine
    if rule == "estimate":
        if x is None:
            raise ValueError("mc_step: the 'estimate' rule needs the estimate x")
        coarse = fine if se == fine else 10 * fine  # the smallest power of ten at least as large as the SE
        return coarse if abs(round(x / coarse) * coarse - x) <= se else fine
    raise ValueError(f"mc_step: rule must be one of {', '.join(RULES)}, not {rule!r}")


def mc_decimals(step: float) -> int:
    """Decimal places that print a multiple of ``step`` (a power of ten): 0 for 1 and above, 2 for 0.01."""
    return max(0, -math.floor(math.log10(float(step)) + 1e-9))


def mc_format(
    x: float, step: float, how: Literal["nearest", "down", "up", "plain"] = "nearest", *, thousands: bool = False
) -> str:
    """``x`` written to a multiple of ``step``: ``"nearest"`` (``round(x / step) * step``, halves to even),
    ``"down"`` / ``"up"`` (an interval's ends or a bound, outwards), or ``"plain"`` (``x`` formatted to the
    step's decimals without first rounding to the step, for steps below 1 the same digits as ``"nearest"`` up
    to halves); ``thousands``: with a comma between thousands (``14,000``)."""
    d = mc_decimals(step)
    if how == "plain":
        v = float(x)
    else:
        q = float(x) / step
        if how == "down":
            q = math.floor(q + 1e-9)
        elif how == "up":
            q = math.ceil(q - 1e-9)
        elif how == "nearest":
            q = round(q)
        else:
            raise ValueError(f"mc_format: how must be nearest, down, up or plain, not {how!r}")
        v = q * step
    return f"{v:,.{d}f}" if thousands else f"{v:.{d}f}"


def mc_text(n: float, lo: float, hi: float, se: float) -> str:
    """``"14,000 (90 % Monte Carlo interval 13,700–14,200)"``: a simulated number of judgements to the digits its
    Monte Carlo standard error ``se`` supports (rule ``"estimate"``: the shortest number within one SE), its
    interval's ends to the SE's leading digit (rule ``"leading"``). The preferences chapter's judgements needed, as
    it prints them; here, not in that chapter's summary, because the HUMANE scale chapter prints them too, beside
    the uniform baseline the two share (``compendium.humane.summary.baseline_phrases``)."""
    ends = mc_step(se, rule="leading")
    interval = f"{mc_format(lo, ends, thousands=True)}–{mc_format(hi, ends, thousands=True)}"
    return f"{mc_format(n, mc_step(se, n, 'estimate'), thousands=True)} (90 % Monte Carlo interval {interval})"


def share_text(p: float, n: int) -> str:
    """A share of ``n`` replicates as a percentage with the digits its Monte Carlo standard error
    ``sqrt(p (1 - p) / n)`` supports (:func:`mc_step`, rule ``"estimate"``: the
    shortest number within one standard error): ``"12.5 %"`` at 20,000 replicates, ``"36 %"`` when the error
    is near a point; ``"100 %"`` or ``"0 %"`` when every or no replicate has it."""
    if not 0 <= p <= 1 or n < 1:
        raise ValueError(f"share_text: need a share in [0, 1] of n >= 1 replicates, got {p} of {n}")
    se = 100 * math.sqrt(p * (1 - p) / n)
    if se == 0:
        return f"{100 * p:.0f} %"
    # rule "estimate": a point estimate, the shortest number within one standard error of it
    return f"{mc_format(100 * p, mc_step(se, 100 * p, rule='estimate'))} %"
