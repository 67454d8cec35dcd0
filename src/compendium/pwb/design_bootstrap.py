"""Intervals for a new model's PWI, ΔPWI and d_pooled that respect the benchmark's design (a labelled variant
beside the paper's method, never replacing it).

The paper's PWI interval (:func:`compendium.pwb.bootstrap.pwi_bootstrap_exact`, kept exactly so that the released
models stay comparable) resamples each dimension's 100 run scores as if they were 100 independent observations.
They are not: the benchmark draws 20 prompts per dimension and runs each 5 times, and the 5 runs of a prompt share
that prompt's difficulty. With prompt effects the runs-independent interval is too narrow for the index on prompts
like these (an independent referee's simulation with the effects of ``tests/pwb/test_pwb_design_bootstrap.py``:
about 74 % coverage at nominal 95 %), and too wide for re-running the same prompts: it answers neither question.
It also gives ΔPWI and d_pooled no interval.

**What is resampled here** (:func:`draws`), every draw at once with numpy, seeded:

1. *Prompts as clusters*: in each dimension the prompt ids are drawn with replacement (as many as the dimension
   has), and **the same prompt ids for both conditions** -- the design pairs them (every prompt is run without
   and with the system prompt), so ΔPWI and d_pooled are resampled paired by prompt, and a prompt's shared
   difficulty cancels in ΔPWI as it does in the data;
2. *Runs within prompts*: each drawn prompt brings its own runs of each condition, **kept as they are** (runs
   resampled without replacement, which for these statistics is the same). This is the cluster bootstrap: Davison
   & Hinkley (1997, *Bootstrap Methods and their Application*, section 3.8, "Strategy 2": clusters with
   replacement, units within them without) and Field & Welsh (2007, *J. R. Statist. Soc. B* 69, 369-390: the
   cluster bootstrap's variance is consistent under both the random-effect and the transformation model). The
   alternative two-stage scheme that also resamples the runs of each drawn prompt *with* replacement
   (``resample_runs=True``, Davison & Hinkley's "Strategy 1") counts the run-to-run variance twice: the
   spread of the prompt means already holds it, and the second stage adds it again, about ``(1 - 1/b) s_w^2 /
   (a b)`` to the variance of a dimension mean over ``a`` prompts of ``b`` runs (``s_w^2`` the run-to-run
   variance; with 20 prompts of 5 runs that do not differ, 1.75 times the true variance where the cluster
   bootstrap gives 0.95 of it). It is implemented and its variance tested against that formula
   (``tests/pwb/test_pwb_design_bootstrap.py``), not printed.
3. *Judges, as a sensitivity* (``resample_judges=True``): the three judges of a run are resampled with
   replacement and the run's panel score recomputed as ``int(median)`` of the drawn values (the runner's rule;
   a run without judge values keeps its stored score); a prompt drawn twice in stage 1 gets two independent
   judge draws for each of its runs (the nested scheme: each drawn copy is a new panel's reading of it). Not a component of the design-respecting interval: the
   panel is fixed by ``config.yaml`` and shared by every released model, so which judges score is the
   benchmark's definition, not sampling error of one model's index; the judges' disagreement on a run is
   already in the run scores the first two stages resample; and three judges make a rough bootstrap of
   "another panel like this one": a drawn panel may hold one judge two or three times, which makes it noisier
   than the real panel of three different judges, so this stage also moves the centre (d_pooled towards 0, the
   PWI towards the middle of the scale). The interval with the judges resampled too is printed as a sensitivity,
   to be read for its width (how far a different panel from judges like these could move the numbers).

**The statistics of one draw** (:func:`_statistics`) are the paper's on the resampled data: per dimension the
mean of the pooled run scores, the PWI ``(sum_d (mean_d / 3) w_d) / sum_d w_d * 100`` over the dimensions with
runs in the draw (the paper's expression), ΔPWI = prompted minus baseline PWI of the draw, and d_pooled =
Cohen's d (pooled SD, ddof 1) of the two conditions' concatenated Layer-1 run scores (every dimension, weighted
or not, as :func:`compendium.pwb.instances.d_pooled`). Intervals are the percentiles at the pwb section's
``ci_level``; the point estimates stay the paper's (the bootstrap mean for the PWI, its difference for ΔPWI).
For ΔPWI and d_pooled the paper's *assumption* is also extended to an interval (:func:`runs_independent_draws`:
each condition's runs resampled within dimension, the conditions independently), so the two can be compared;
the paper itself prints none.

**The random streams**, so that a plain loop (:func:`reference_draws`) gives the same draws bit for bit: one
``numpy.random.SeedSequence(seed)`` spawns :data:`STREAMS` in order, one generator each, used only by its stage;
every index is ``floor(u * n)`` of a uniform double ``u`` of that generator (clipped to ``n - 1``), drawn in C
order over (draw, slot[, run position[, judge position]]): stage 1 one uniform per prompt slot (the dimensions in
:data:`compendium.pwb.constants.DIMENSIONS` order, others sorted after them; a dimension's slots as many as its
prompt ids, the union over both conditions, sorted); stage 2 (if on) ``R`` uniforms per slot and condition, ``R``
the most runs any prompt has, of which a prompt with ``n`` runs uses the first ``n``; stage 3 (if on) ``J``
uniforms per run position, ``J`` the most judge values any run has (the values sorted by judge name). The draws
are computed in chunks of draws; a chunk's uniforms are the next ones of each stream, so the result does not depend
on the chunk size. Because each stage has its own stream, switching a stage on leaves the earlier stages' draws as
they were: with identical runs in every prompt, the two-stage draws equal the prompt-level ones exactly (tested).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from compendium.chapter.numbers import share

from .bootstrap import percentile_mc_se
from .constants import CONDITIONS, DIMENSIONS

__all__ = [
    "STREAMS",
    "DesignData",
    "Draws",
    "design_data",
    "draws",
    "runs_independent_draws",
    "reference_draws",
    "summarise",
    "design_intervals",
    "interval_lines",
    "interval_table",
    "ROUNDING_NOTE",
    "flat_values",
    "PAPER_LABEL",
    "DESIGN_LABEL",
    "JUDGES_LABEL",
    "HELP",
]

#: the generators a ``SeedSequence(seed)`` spawns, in this order (each stage draws from its own)
STREAMS = (
    "prompts",
    "runs:baseline",
    "runs:with_system_prompt",
    "judges:baseline",
    "judges:with_system_prompt",
    "independent:baseline",
    "independent:with_system_prompt",
)
MAX_SCORE = 3
#: uniforms held at once per array while drawing (the draws are chunked to stay near this)
CHUNK_VALUES = 2_000_000
#: what the output calls each interval
PAPER_LABEL = "the paper's method (runs independent)"
DESIGN_LABEL = "design-respecting (prompts as clusters, runs within prompts)"
JUDGES_LABEL = "sensitivity: design-respecting with the judges resampled within each run too"
#: the quantities, in printed order, and how they are printed
QUANTITIES = ("baseline", "prompted", "delta_pwi", "d_pooled")
NAMES = {"baseline": "PWI baseline", "prompted": "PWI prompted", "delta_pwi": "ΔPWI", "d_pooled": "d_pooled"}
HELP = (
    f"Two kinds of interval are printed. {PAPER_LABEL[0].upper()}{PAPER_LABEL[1:]}: the paper's PWI bootstrap, "
    "exactly, which treats a dimension's 20 prompts x 5 runs as 100 independent scores (kept, so the new model is "
    "compared with the released models like for like; for ΔPWI and d_pooled, which the paper gives no interval, "
    f"the same assumption extended). {DESIGN_LABEL[0].upper()}{DESIGN_LABEL[1:]}: the prompt ids of each dimension "
    "resampled with replacement, the same ones for both conditions, each with its own runs (the cluster "
    "bootstrap, Davison & Hinkley 1997 section 3.8; Field & Welsh 2007): the interval for prompts like these, "
    "not for the same prompts run again. A third line resamples the three judges of each run as well, as a "
    "sensitivity. As many draws as the paper's bootstrap, from the same seed (other streams)."
)


@dataclass(frozen=True)
class DesignData:
    """One model's Layer-1 design as arrays (:func:`design_data`).

    ``dims``: dimension order; ``prompts``: per dimension its prompt ids (sorted, both conditions'); ``dim_start``:
    the first slot of each dimension (slots are the prompts, dimension after dimension); ``runs``: (2, G, R)
    panel scores per condition (:data:`CONDITIONS` order), prompt slot and run position (NaN past ``n_runs``);
    ``n_runs``: (2, G); ``judges``: (2, G, R, J) the run's valid judge values (NaN past ``n_judges``);
    ``n_judges``: (2, G, R)."""

    dims: tuple[str, ...]
    prompts: tuple[tuple[str, ...], ...]
    dim_start: np.ndarray
    runs: np.ndarray
    n_runs: np.ndarray
    judges: np.ndarray
    n_judges: np.ndarray

    @property
    def n_slots(self) -> int:
        return int(self.n_runs.shape[1])

    def dim_sizes(self) -> np.ndarray:
        return np.array([len(p) for p in self.prompts], dtype=np.int64)


@dataclass(frozen=True)
class Draws:
    """The bootstrap draws: ``pwi`` (2, B) per condition, ``delta_pwi`` (B), ``d_pooled`` (B); NaN where a draw
    leaves the statistic undefined (no weighted dimension with runs; no spread for Cohen's d)."""

    pwi: np.ndarray
    delta_pwi: np.ndarray
    d_pooled: np.ndarray

    def of(self, quantity: str) -> np.ndarray:
        return {"baseline": self.pwi[0], "prompted": self.pwi[1]}.get(quantity, getattr(self, quantity, None))


def _dim_order(present) -> list[str]:
    present = set(present)
    return [d for d in DIMENSIONS if d in present] + sorted(present - set(DIMENSIONS))


def design_data(runs: pd.DataFrame, instances: pd.DataFrame | None) -> DesignData:
    """The arrays :func:`draws` resamples, from one model's Layer-1 runs (:func:`compendium.pwb.instances.layer1_runs`,
    both conditions: ``condition, dimension, prompt_id, run, panel``) and, for the judge stage, its judge rows
    (:func:`compendium.pwb.instances.validate_instances` output: ``layer, condition, dimension, prompt_id, run,
    judge, score``; None: no judge values, so the judge stage keeps every panel score)."""
    if runs["model"].nunique() != 1:
        raise ValueError(f"design_data: expected one model's runs, found {runs['model'].nunique()}")
    bad = sorted(set(runs["condition"]) - set(CONDITIONS))
    if bad:
        raise ValueError(f"design_data: unknown condition(s) {bad}; expected {list(CONDITIONS)}")
    dims = _dim_order(runs["dimension"].unique())
    prompts = tuple(tuple(sorted(runs.loc[runs["dimension"] == d, "prompt_id"].astype(str).unique())) for d in dims)
    slot = {(d, p): k for k, (d, p) in enumerate((d, p) for d, ps in zip(dims, prompts) for p in ps)}
    cond = {c: i for i, c in enumerate(CONDITIONS)}
    r = runs.sort_values(["condition", "dimension", "prompt_id", "run"], kind="stable")
    ci = r["condition"].map(cond).to_numpy()
    si = np.array([slot[(d, str(p))] for d, p in zip(r["dimension"], r["prompt_id"])], dtype=np.int64)
    key = ci * len(slot) + si
    pos = pd.Series(key).groupby(key).cumcount().to_numpy()  # run position within (condition, prompt)
    G, R = len(slot), int(pos.max()) + 1
    y = np.full((2, G, R), np.nan)
    y[ci, si, pos] = r["panel"].to_numpy(dtype=float)
    n = np.zeros((2, G), dtype=np.int64)
    np.add.at(n, (ci, si), 1)
    J = 1
    jv = np.full((2, G, R, J), np.nan)
    nj = np.zeros((2, G, R), dtype=np.int64)
    if instances is not None:
        t = instances[(instances["layer"] == 1) & instances["score"].notna()]
        t = t[t["model"].isin(runs["model"].unique())] if "model" in t.columns else t
        rp = {(c, s, int(k)): q for c, s, k, q in zip(ci, si, r["run"], pos)}
        rows = [
            (cond[c], slot[(d, str(p))], rp[(cond[c], slot[(d, str(p))], int(k))], str(j), float(v))
            for c, d, p, k, j, v in zip(
                t["condition"], t["dimension"], t["prompt_id"], t["run"], t["judge"], t["score"]
            )
            if (d, str(p)) in slot and (cond[c], slot[(d, str(p))], int(k)) in rp
        ]
        if rows:
            jt = pd.DataFrame(rows, columns=["c", "s", "q", "judge", "v"]).sort_values(["c", "s", "q", "judge"])
            jpos = jt.groupby(["c", "s", "q"]).cumcount().to_numpy()
            J = int(jpos.max()) + 1
            jv = np.full((2, G, R, J), np.nan)
            jv[jt["c"], jt["s"], jt["q"], jpos] = jt["v"].to_numpy()
            np.add.at(nj, (jt["c"].to_numpy(), jt["s"].to_numpy(), jt["q"].to_numpy()), 1)
    starts = np.concatenate([[0], np.cumsum([len(p) for p in prompts])[:-1]]).astype(np.int64)
    return DesignData(tuple(dims), prompts, starts, y, n, jv, nj)


def _streams(seed: int) -> dict[str, np.random.Generator]:
    kids = np.random.SeedSequence(seed).spawn(len(STREAMS))
    return {name: np.random.default_rng(k) for name, k in zip(STREAMS, kids)}


def _index(u: np.ndarray, n) -> np.ndarray:
    """``floor(u * n)`` clipped to ``n - 1`` (0 where ``n`` is 0)."""
    n = np.asarray(n, dtype=np.int64)
    return np.minimum(np.floor(u * n).astype(np.int64), np.maximum(n - 1, 0))


def _panel_of(values: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``int(median)`` of the first ``m`` values along the last axis (the runner's panel rule); NaN where ``m`` is
    0. Up to three values by selection (no arithmetic on them but the mean of two), more by sorting."""
    J = values.shape[-1]
    a = values[..., 0]
    if J <= 3:
        b = values[..., 1] if J > 1 else a
        c = values[..., 2] if J > 2 else a
        med3 = np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))
        out = np.where(m >= 3, med3, np.where(m == 2, (a + b) / 2, a))
    else:
        s = np.sort(np.where(np.arange(J) < m[..., None], values, np.nan), axis=-1)  # NaN last
        lo = np.take_along_axis(s, np.maximum((m - 1) // 2, 0)[..., None], axis=-1)[..., 0]
        hi = np.take_along_axis(s, (m // 2)[..., None], axis=-1)[..., 0]
        out = (lo + hi) / 2
    return np.where(m > 0, np.floor(out), np.nan)


def _statistics(
    S: np.ndarray, N: np.ndarray, Q: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """PWI per condition (2, k), ΔPWI (k) and d_pooled (k) from per-draw sums over each dimension's resampled run
    scores: ``S`` (sum), ``N`` (count), ``Q`` (sum of squares), each (2, k, D); ``w`` (D) the weights."""
    acc = np.zeros(S.shape[:2])
    tw = np.zeros(S.shape[:2])
    with np.errstate(invalid="ignore", divide="ignore"):
        for j in range(S.shape[2]):  # the dimensions in order, as the paper's expression accumulates them
            has = N[:, :, j] > 0
            acc = acc + np.where(has, S[:, :, j] / N[:, :, j] / MAX_SCORE * w[j], 0.0)
            tw = tw + np.where(has, w[j], 0.0)
        pwi = np.where(tw > 0, acc / tw * 100, np.nan)
        n, s, q = N.sum(-1), S.sum(-1), Q.sum(-1)
        ss = q - s * s / n  # within-condition sum of squared deviations
        sp2 = (ss[0] + ss[1]) / (n[0] + n[1] - 2)
        d = (s[1] / n[1] - s[0] / n[0]) / np.sqrt(sp2)
        d = np.where((n[0] >= 2) & (n[1] >= 2) & (sp2 > 0), d, np.nan)
    return pwi, pwi[1] - pwi[0], d


def _chunk(n_boot: int, per_draw: int) -> int:
    return int(max(1, min(n_boot, CHUNK_VALUES // max(per_draw, 1))))


def draws(
    data: DesignData,
    weights: Mapping[str, float],
    *,
    n_boot: int,
    seed: int,
    resample_runs: bool,
    resample_judges: bool,
    chunk_draws: int | None = None,
) -> Draws:
    """The design-respecting bootstrap's draws (module docstring): stage 1 always (prompts as clusters, the
    same prompt ids for both conditions), stage 2 when ``resample_runs`` (each drawn prompt's runs resampled
    with replacement; otherwise kept), stage 3 when ``resample_judges`` (each run's judge values resampled
    with replacement, its panel score recomputed as ``int(median)``). ``chunk_draws``: draws computed at once
    (the result does not depend on it)."""
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    rng = _streams(seed)
    G, R, J = data.n_slots, data.runs.shape[2], data.judges.shape[3]
    w = np.array([float(weights.get(d, 0)) for d in data.dims])
    sizes = data.dim_sizes()
    size_of_slot = np.repeat(sizes, sizes)
    start_of_slot = np.repeat(data.dim_start, sizes)
    used_runs = ~np.isnan(data.runs)
    y0 = np.where(used_runs, data.runs, 0.0)
    # per prompt and condition: the sum, count and sum of squares of its runs (stage 1 alone needs only these)
    sums = (y0.sum(-1), data.n_runs.astype(float), (y0 * y0).sum(-1))
    flat_runs = data.runs.reshape(2, -1)
    flat_judges = data.judges.reshape(2, -1)
    flat_nj = data.n_judges.reshape(2, -1)
    per_draw = G * (R * (J if resample_judges else 1) if resample_runs or resample_judges else 1)
    k_max = chunk_draws or _chunk(n_boot, per_draw)
    pos = np.arange(R)
    out_pwi, out_delta, out_d = [], [], []
    done = 0
    while done < n_boot:
        k = min(k_max, n_boot - done)
        g = start_of_slot + _index(rng["prompts"].random((k, G)), size_of_slot)  # (k, G) drawn prompt per slot
        S = np.empty((2, k, len(data.dims)))
        N = np.empty_like(S)
        Q = np.empty_like(S)
        for c, cond in enumerate(CONDITIONS):
            if not (resample_runs or resample_judges):
                s_slot, n_slot, q_slot = (x[c][g] for x in sums)
            else:
                n = data.n_runs[c][g][..., None]  # (k, G, 1)
                used = pos < n
                r = _index(rng[f"runs:{cond}"].random((k, G, R)), n) if resample_runs else pos
                run = g[..., None] * R + r  # (k, G, R) flat run index
                v = flat_runs[c][run]
                if resample_judges:
                    m = flat_nj[c][run]
                    ji = _index(rng[f"judges:{cond}"].random((k, G, R, J)), m[..., None])
                    v = np.where(m > 0, _panel_of(flat_judges[c][run[..., None] * J + ji], m), v)
                v = np.where(used, v, 0.0)
                s_slot, n_slot, q_slot = v.sum(-1), used.sum(-1), (v * v).sum(-1)
            S[c] = np.add.reduceat(s_slot, data.dim_start, axis=1)
            N[c] = np.add.reduceat(n_slot, data.dim_start, axis=1)
            Q[c] = np.add.reduceat(q_slot, data.dim_start, axis=1)
        pwi, delta, d = _statistics(S, N, Q, w)
        out_pwi.append(pwi)
        out_delta.append(delta)
        out_d.append(d)
        done += k
    return Draws(np.concatenate(out_pwi, axis=1), np.concatenate(out_delta), np.concatenate(out_d))


def runs_independent_draws(
    data: DesignData, weights: Mapping[str, float], *, n_boot: int, seed: int, chunk_draws: int | None = None
) -> Draws:
    """The paper's assumption, extended to ΔPWI and d_pooled: in each condition and dimension the run scores are
    resampled with replacement as independent observations (prompts ignored), the two conditions independently
    (streams ``independent:<condition>``, one uniform per run of the dimension, in draw-major order). Its PWI
    interval is the paper's in distribution (not its stream: the paper's exact interval is
    :func:`compendium.pwb.bootstrap.pwi_bootstrap_exact`'s)."""
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    rng = _streams(seed)
    w = np.array([float(weights.get(d, 0)) for d in data.dims])
    pools = []  # per condition: its run scores (slot then run order, dimension after dimension), each run's
    for c in range(2):  # dimension, and the start and size of its dimension's block
        have = ~np.isnan(data.runs[c])
        dim = np.repeat(np.arange(len(data.dims)), data.dim_sizes())[:, None] * np.ones_like(have, dtype=np.int64)
        y, d = data.runs[c][have], dim[have]
        n = np.bincount(d, minlength=len(data.dims))
        start = np.concatenate([[0], np.cumsum(n)[:-1]])
        pools.append((y, d, start, n))
    k_max = chunk_draws or _chunk(n_boot, max(p[0].size for p in pools))
    out = []
    done = 0
    while done < n_boot:
        k = min(k_max, n_boot - done)
        S = np.zeros((2, k, len(data.dims)))
        N = np.zeros_like(S)
        Q = np.zeros_like(S)
        for c, cond in enumerate(CONDITIONS):
            y, d, start, n = pools[c]
            v = y[start[d] + _index(rng[f"independent:{cond}"].random((k, y.size)), n[d])]  # within its dimension
            at = start[n > 0]
            S[c][:, n > 0] = np.add.reduceat(v, at, axis=1)
            Q[c][:, n > 0] = np.add.reduceat(v * v, at, axis=1)
            N[c] = n
        out.append(_statistics(S, N, Q, w))
        done += k
    return Draws(*(np.concatenate([o[i] for o in out], axis=-1) for i in range(3)))


# --------------------------------------------------------------------------------------------------
# a plain loop, written from the module docstring (tests only)
# --------------------------------------------------------------------------------------------------


def reference_draws(
    runs: pd.DataFrame,
    instances: pd.DataFrame | None,
    weights: Mapping[str, float],
    *,
    n_boot: int,
    seed: int,
    resample_runs: bool,
    resample_judges: bool,
) -> Draws:
    """:func:`draws` as a plain Python loop over draws, slots, runs and judges, one ``Generator.random()`` call
    per uniform, built from the data frames directly (tests only: slow)."""
    kids = np.random.SeedSequence(seed).spawn(len(STREAMS))
    rng = {name: np.random.default_rng(k) for name, k in zip(STREAMS, kids)}
    present = set(runs["dimension"])
    dims = [d for d in DIMENSIONS if d in present] + sorted(present - set(DIMENSIONS))
    prompts = {d: sorted({str(p) for p in runs.loc[runs["dimension"] == d, "prompt_id"]}) for d in dims}
    scores: dict[tuple, list[float]] = {}  # (condition, dim, prompt) -> run scores by run index
    run_keys: dict[tuple, list[int]] = {}
    for c, d, p, k, v in sorted(
        zip(runs["condition"], runs["dimension"], runs["prompt_id"].astype(str), runs["run"], runs["panel"]),
        key=lambda x: (x[0], x[1], x[2], x[3]),
    ):
        scores.setdefault((c, d, p), []).append(float(v))
        run_keys.setdefault((c, d, p), []).append(int(k))
    judged: dict[tuple, list[tuple[str, float]]] = {}
    if instances is not None:
        for c, d, p, k, j, v, layer in zip(
            instances["condition"],
            instances["dimension"],
            instances["prompt_id"].astype(str),
            instances["run"],
            instances["judge"],
            instances["score"],
            instances["layer"],
        ):
            if layer == 1 and not math.isnan(v):
                judged.setdefault((c, d, p, int(k)), []).append((str(j), float(v)))
    R = max(len(v) for v in scores.values())
    J = max([len(v) for v in judged.values()] or [1])

    def idx(u: float, n: int) -> int:
        return min(math.floor(u * n), max(n - 1, 0))

    def panel(vals: list[float]) -> float:
        s = sorted(vals)
        m = len(s)
        return float(math.floor((s[(m - 1) // 2] + s[m // 2]) / 2))

    pwi = [[], []]
    delta, dd = [], []
    for _ in range(n_boot):
        drawn = {d: [prompts[d][idx(rng["prompts"].random(), len(prompts[d]))] for _ in prompts[d]] for d in dims}
        sums = []
        for cond in CONDITIONS:
            per_dim = []
            for d in dims:
                s = n = q = 0.0
                for p in drawn[d]:
                    ys, ks = scores.get((cond, d, p), []), run_keys.get((cond, d, p), [])
                    us = [rng[f"runs:{cond}"].random() for _ in range(R)] if resample_runs else []
                    for pos in range(R):
                        r = idx(us[pos], len(ys)) if resample_runs else pos
                        js = [v for _, v in sorted(judged.get((cond, d, p, ks[r]), []))] if r < len(ys) else []
                        uj = [rng[f"judges:{cond}"].random() for _ in range(J)] if resample_judges else []
                        if pos >= len(ys):
                            continue
                        y = ys[r]
                        if resample_judges and js:
                            y = panel([js[idx(uj[i], len(js))] for i in range(len(js))])
                        s, n, q = s + y, n + 1, q + y * y
                per_dim.append((s, n, q))
            sums.append(per_dim)
        pw = []
        for c in range(2):
            acc = tw = 0.0
            for j, d in enumerate(dims):
                s, n, _ = sums[c][j]
                if n > 0:
                    acc = acc + s / n / MAX_SCORE * float(weights.get(d, 0))
                    tw = tw + float(weights.get(d, 0))
            pw.append(acc / tw * 100 if tw > 0 else math.nan)
            pwi[c].append(pw[-1])
        delta.append(pw[1] - pw[0])
        tot = [[sum(x[i] for x in sums[c]) for i in range(3)] for c in range(2)]
        (s0, n0, q0), (s1, n1, q1) = tot
        ss0, ss1 = q0 - s0 * s0 / n0, q1 - s1 * s1 / n1
        sp2 = (ss0 + ss1) / (n0 + n1 - 2)
        dd.append((s1 / n1 - s0 / n0) / math.sqrt(sp2) if n0 >= 2 and n1 >= 2 and sp2 > 0 else math.nan)
    return Draws(np.array(pwi), np.array(delta), np.array(dd))


# --------------------------------------------------------------------------------------------------
# the intervals the score command prints
# --------------------------------------------------------------------------------------------------


def summarise(x: np.ndarray, ci_level: float) -> dict:
    """Percentile interval of the defined draws at ``ci_level``: ``ci_lower``, ``ci_upper``, their Monte-Carlo
    standard errors (:func:`compendium.pwb.bootstrap.percentile_mc_se`), ``boot_sd`` and ``n_undefined``."""
    x = np.asarray(x, dtype=float)
    ok = x[np.isfinite(x)]
    lo_q, hi_q = 50 * (1 - ci_level), 50 * (1 + ci_level)
    if ok.size == 0:
        nan = float("nan")
        keys = ("ci_lower", "ci_upper", "ci_lower_mc_se", "ci_upper_mc_se", "boot_sd")
        return {**dict.fromkeys(keys, nan), "n_undefined": int(x.size)}
    lo, hi = np.percentile(ok, [lo_q, hi_q])
    return {
        "ci_lower": float(lo),
        "ci_upper": float(hi),
        "ci_lower_mc_se": percentile_mc_se(ok, lo_q),
        "ci_upper_mc_se": percentile_mc_se(ok, hi_q),
        "boot_sd": float(np.std(ok)),
        "n_undefined": int(x.size - ok.size),
    }


def design_intervals(
    runs: pd.DataFrame,
    instances: pd.DataFrame | None,
    weights: Mapping[str, float],
    *,
    n_boot: int,
    seed: int,
    ci_level: float,
) -> dict:
    """What ``python -m compendium.pwb.score`` adds beside the paper's intervals (``score.json``: ``design``):

    - ``design``: the design-respecting intervals (:data:`DESIGN_LABEL`: prompts as clusters, runs kept with
      their prompt) of ``baseline``, ``prompted``, ``delta_pwi`` and ``d_pooled`` (:func:`summarise`);
    - ``judges_resampled``: the same with the judges resampled within each run too (:data:`JUDGES_LABEL`);
    - ``runs_independent``: ``delta_pwi`` and ``d_pooled`` under the paper's assumption (runs independent;
      :func:`runs_independent_draws`), which the paper gives no interval;
    - ``n_boot``, ``seed``, ``ci_level``, ``labels``, ``prompts_per_dimension`` (fewest, most) and
      ``dimensions_with_one_prompt`` (there the cluster bootstrap cannot see how prompts differ, so its interval
      is too narrow: said in the output).

    ``runs``: the model's Layer-1 runs, both conditions; ``instances``: its judge rows."""
    data = design_data(runs, instances)
    common = {"n_boot": n_boot, "seed": seed}
    d_main = draws(data, weights, resample_runs=False, resample_judges=False, **common)
    d_judges = draws(data, weights, resample_runs=False, resample_judges=True, **common)
    d_ind = runs_independent_draws(data, weights, **common)
    sizes = data.dim_sizes()
    return {
        "n_boot": n_boot,
        "seed": seed,
        "ci_level": ci_level,
        "labels": {"paper": PAPER_LABEL, "design": DESIGN_LABEL, "judges_resampled": JUDGES_LABEL},
        "prompts_per_dimension": [int(sizes.min()), int(sizes.max())],
        "dimensions_with_one_prompt": [d for d, n in zip(data.dims, sizes, strict=True) if n < 2],
        "design": {q: summarise(d_main.of(q), ci_level) for q in QUANTITIES},
        "judges_resampled": {q: summarise(d_judges.of(q), ci_level) for q in QUANTITIES},
        "runs_independent": {q: summarise(d_ind.of(q), ci_level) for q in ("delta_pwi", "d_pooled")},
    }


def _ends(v: Mapping) -> str:
    """``[lo, hi]`` to the digits the Monte-Carlo error of each end supports (:mod:`compendium.stats.mcdigits`,
    the ``unit`` rule: the last digit uncertain by less than one unit; never finer than 0.001; ends rounded
    outwards)."""
    from ..stats.mcdigits import mc_format, mc_step

    if not (math.isfinite(v["ci_lower"]) and math.isfinite(v["ci_upper"])):
        return "[undefined]"
    out = []
    for end, how in (("ci_lower", "down"), ("ci_upper", "up")):
        se = v[f"{end}_mc_se"]
        step = mc_step(se, rule="unit") if se > 0 and math.isfinite(se) else 1e-3
        out.append(mc_format(v[end], max(step, 1e-3), how))
    return f"[{out[0]}, {out[1]}]"


#: how the printed ends are rounded (said under the printed comparison and in the chapter)
ROUNDING_NOTE = (
    "The paper's PWI intervals are its exact bootstrap percentiles (its seed replayed), rounded to the nearest "
    "tenth as the paper prints them; every other end is rounded outwards to the smallest power of ten at least as "
    "large as its Monte-Carlo standard error (so its last digit is uncertain by less than one unit; never finer "
    "than 0.001)."
)


def interval_table(result: Mapping) -> pd.DataFrame:
    """The comparison as a table, one row per quantity (:data:`QUANTITIES`), the ends written as printed:
    ``quantity`` (:data:`NAMES`), ``paper`` (the paper's exact interval for the PWIs; for ΔPWI and d_pooled its
    assumption extended, ``runs_independent``), ``design``, ``judges_resampled`` and ``undefined`` (draws in which
    a statistic is undefined, left out of its interval, summed over the three variants). ``result``:
    :func:`compendium.pwb.score.score_model`'s values (``design`` among them). :func:`interval_lines` prints it;
    the evaluate chapter shows it."""
    des = result["design"]
    rows = []
    for q in QUANTITIES:
        if q in ("baseline", "prompted"):
            paper = f"[{result[q]['ci_lower']:.1f}, {result[q]['ci_upper']:.1f}]"
            undefined = 0
        else:
            paper = f"{_ends(des['runs_independent'][q])} (assumption extended)"
            undefined = des["runs_independent"][q]["n_undefined"]
        undefined += des["design"][q]["n_undefined"] + des["judges_resampled"][q]["n_undefined"]
        rows.append(
            {
                "quantity": NAMES[q],
                "paper": paper,
                "design": _ends(des["design"][q]),
                "judges_resampled": _ends(des["judges_resampled"][q]),
                "undefined": int(undefined),
            }
        )
    return pd.DataFrame(rows)


def interval_lines(result: Mapping) -> list[str]:
    """The printed comparison (:func:`interval_table`): per quantity the paper's interval (runs independent; for
    ΔPWI and d_pooled its assumption extended) and the design-respecting one, then the judge sensitivity, the
    draws left out where a statistic is undefined (if any) and how the ends are rounded. ``result``:
    :func:`compendium.pwb.score.score_model`'s values (``design`` among them)."""
    des = result["design"]
    t = interval_table(result)
    pct = share(des["ci_level"])
    lines = [
        f"{pct} intervals, two methods (--help says which is which):",
        f"  {'':13s} {PAPER_LABEL:40s} {DESIGN_LABEL}",
    ]
    lines += [f"  {r.quantity:13s} {r.paper:40s} {r.design}" for r in t.itertuples()]
    js = ", ".join(f"{r.quantity} {r.judges_resampled}" for r in t.itertuples())
    text = (
        f"{JUDGES_LABEL[0].upper()}{JUDGES_LABEL[1:]}: {js} (a drawn panel may repeat a judge, so it is noisier "
        "than the real one: read its width, not its centre)."
    )
    lines += textwrap.wrap(text, width=110, initial_indent="  ", subsequent_indent="    ")
    bad = [f"{r.quantity} {r.undefined:,}" for r in t.itertuples() if r.undefined]
    if bad:
        text = (
            f"Draws left out because the statistic is undefined in them (no weighted dimension with runs, or no "
            f"spread for Cohen's d), of {des['n_boot']:,} per variant: {', '.join(bad)}."
        )
        lines += textwrap.wrap(text, width=110, initial_indent="  ", subsequent_indent="    ")
    if des["dimensions_with_one_prompt"]:
        text = (
            f"Not like the benchmark: one prompt in {', '.join(des['dimensions_with_one_prompt'])}, so the "
            "design-respecting interval cannot see how prompts differ there and is too narrow."
        )
        lines += textwrap.wrap(text, width=110, initial_indent="  ", subsequent_indent="    ")
    lines += textwrap.wrap(ROUNDING_NOTE, width=110, initial_indent="  ", subsequent_indent="    ")
    return lines


def flat_values(design: Mapping, prefix: str) -> dict:
    """``design`` (:func:`design_intervals`) as flat ``values.json`` entries: ``<prefix>.<variant>.<quantity>.
    ci_lower`` / ``ci_upper`` / ``boot_sd`` for the ``design``, ``judges_resampled`` and ``runs_independent``
    intervals (None where no draw defines the statistic)."""
    out = {}
    for variant in ("design", "judges_resampled", "runs_independent"):
        for q, v in design[variant].items():
            for k in ("ci_lower", "ci_upper", "boot_sd"):
                out[f"{prefix}.{variant}.{q}.{k}"] = v[k] if math.isfinite(v[k]) else None
    return out
