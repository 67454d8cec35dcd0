"""The authors' bootstrap random streams, reproduced exactly and fast (METHODS.md, PWB).

The paper prints statistics of two specific random streams:

- the **PWI bootstrap** (``src/statistics.py: bootstrap_pwi_ci``): per (model, condition) a fresh
  ``numpy.random.default_rng(42)``; for each of the 10,000 draws, for each dimension in the order of the
  results file's ``layer1`` mapping, ``rng.choice(scores, size=len(scores), replace=True)``; the draw's
  PWI is ``(sum_d (mean_d / 3) * w_d) / sum_d w_d * 100`` over the dimensions present (weighted or not);
  published: the mean of the 10,000 PWIs and their 2.5 / 97.5 percentiles;
- the **Table 3 CIs** (``run_analysis.py``): one ``default_rng(0)``; for each dimension in the
  ``DIMENSIONS`` order, 2,000 times ``rng.choice(p, p.size).mean() - rng.choice(b, b.size).mean()`` on
  all models' pooled prompted (p) and baseline (b) run scores.

A plain Python loop over these calls (:func:`reference_pwi_bootstrap`, :func:`reference_delta_ci`,
written from METHODS.md) takes about 11 s for the 14 PWIs. The fast path reproduces the same numbers
bit for bit from the same generator, by doing what ``Generator.choice`` does underneath in bulk:

1. ``choice(a, size=n)`` with replacement is ``integers(0, n, size=n)``; for ``n <= 2**32`` numpy
   draws each index with Lemire's multiply-shift rule from one 32-bit word: ``m = u * n``, index =
   ``m >> 32``, and the word is rejected (the next one is used) when ``m mod 2**32 < (2**32 - n) mod n``;
   ``n == 1`` consumes no word. The 32-bit words are the halves of PCG64's 64-bit outputs, low half first.
2. So the whole stream of indices follows from one bulk ``bit_generator.random_raw`` call, a
   vectorised multiply-shift, and a rare fix-up where a word is rejected (probability ~ n / 2**32 per
   index, a handful in 10^8): :class:`Uint32Stream` / :func:`bounded_indices`.
3. The resampled sums are accumulated as integer sums of the int8 scores per segment (exact, so the
   mean ``sum / n`` equals ``np.mean`` of the resample bit for bit), and the PWI of every draw is
   accumulated over dimensions in the authors' order with the authors' float expression.

The equality with the reference loop is tested on a full-size synthetic fixture
(``tests/pwb/test_pwb_bootstrap.py``); ``benchmarks/pwb_bootstrap.py`` times both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

__all__ = [
    "Uint32Stream",
    "bounded_indices",
    "delta_ci_exact",
    "percentile_mc_se",
    "pwi_bootstrap_exact",
    "reference_delta_ci",
    "reference_pwi_bootstrap",
]

_MASK32 = np.uint64(0xFFFFFFFF)
_SENTINEL = -30000  # LUT marker of an ambiguous bin; valid only while max score x list length < 30000 (checked)
_SHIFT32 = np.uint64(32)


class Uint32Stream:
    """The sequence of 32-bit words ``Generator.integers`` consumes, drawn in bulk from ``rng``.

    Valid only while nothing else draws from ``rng``: the words come from its bit generator's
    ``random_raw`` (each 64-bit output split into its low then high half, as PCG64's ``next_uint32``
    does), read ahead in blocks; :meth:`take` looks at the next words, :meth:`advance` consumes them.
    """

    BLOCK = 1 << 22

    def __init__(self, rng: np.random.Generator):
        st = rng.bit_generator.state
        if st.get("has_uint32"):
            raise ValueError("Uint32Stream needs a generator with no buffered 32-bit half (use a fresh default_rng)")
        self._bg = rng.bit_generator
        self._buf = np.empty(0, dtype=np.uint32)
        self._pos = 0

    def take(self, k: int) -> np.ndarray:
        """A view of the next ``k`` words (not consumed; do not keep it across calls)."""
        avail = self._buf.size - self._pos
        if avail < k:
            # a new block; only the few words left of the old one are copied in front of it
            n_new = max(k - avail, self.BLOCK)
            words = np.asarray(self._bg.random_raw((n_new + 1) // 2), dtype="<u8").view("<u4")  # low half first
            self._buf = np.concatenate([self._buf[self._pos :], words]) if avail else words
            self._pos = 0
        return self._buf[self._pos : self._pos + k]

    def advance(self, k: int) -> None:
        self._pos += k


def _lemire(words: np.ndarray, bounds: np.ndarray, thresholds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m = words.astype(np.uint64) * bounds
    return m >> _SHIFT32, (m & _MASK32) < thresholds


def _thresholds(bl: np.ndarray) -> np.ndarray:
    return ((np.uint64(2**32) - bl) % bl).astype(np.uint64)


def _chunk_indices(stream: Uint32Stream, bl: np.ndarray, thr: np.ndarray, k: int) -> np.ndarray:
    """(k, len(bl)) indices for k repetitions of the bounds ``bl`` (all > 1), consuming the stream
    exactly as ``Generator.integers`` would (a rejected word is skipped)."""
    L = bl.size
    bt, tt = np.tile(bl, k), np.tile(thr, k)
    vals = np.empty(k * L, dtype=np.uint64)
    i = 0
    while i < k * L:
        words = stream.take(k * L - i)
        v, rej = _lemire(words, bt[i:], tt[i:])
        bad = np.flatnonzero(rej)
        if bad.size == 0:
            vals[i:] = v
            stream.advance(k * L - i)
            i = k * L
        else:
            f = int(bad[0])
            vals[i : i + f] = v[:f]
            stream.advance(f + 1)  # the rejected word is consumed; element i+f retries
            i += f
    return vals.reshape(k, L).astype(np.int64)


def bounded_indices(stream: Uint32Stream, bounds: Sequence[int], reps: int, chunk_reps: int = 1000):
    """Yield ``(rows, index_block)``: for ``reps`` repetitions of the pattern ``bounds`` (each element
    an ``integers(0, n)`` draw, in order), index blocks of shape (rows, len(bounds)) as numpy's
    ``Generator.integers`` would draw them. Elements with bound 1 are 0 and consume no word."""
    b = np.asarray(bounds, dtype=np.int64)
    if np.any(b < 1) or np.any(b > 2**32):
        raise ValueError(f"bounds must lie in [1, 2**32], got {b.min()}..{b.max()}")
    live = np.flatnonzero(b > 1)
    bl = b[live].astype(np.uint64)
    thr = _thresholds(bl)
    done = 0
    while done < reps:
        k = min(chunk_reps, reps - done)
        out = np.zeros((k, b.size), dtype=np.int64)
        if live.size:
            out[:, live] = _chunk_indices(stream, bl, thr, k)
        yield k, out
        done += k


def _value_lut(x: np.ndarray) -> np.ndarray:
    """int16 table over the top 16 bits of a word: the resampled value x[(u * n) >> 32] where that is
    the same for every word of the bin and no word of the bin can be rejected; ``_SENTINEL`` elsewhere
    (so large that any row holding one has a negative sum)."""
    n = np.uint64(x.size)
    b = np.arange(65536, dtype=np.uint64)
    lo = (b << np.uint64(16)) * n
    hi = ((b << np.uint64(16)) + np.uint64(65535)) * n
    i_lo, i_hi = lo >> _SHIFT32, hi >> _SHIFT32
    thr = (np.uint64(2**32) - n) % n
    ambiguous = (i_lo != i_hi) | ((lo & _MASK32) < thr)
    lut = np.asarray(x, dtype=np.int16)[np.minimum(i_lo, n - np.uint64(1)).astype(np.int64)]
    lut[ambiguous] = _SENTINEL
    return lut


def _segments(sizes: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    sizes = np.asarray(sizes, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return starts, sizes


def _resampled_sums_fast(xs: list[np.ndarray], n_boot: int, stream: Uint32Stream, chunk_reps: int) -> np.ndarray | None:
    """Integer sums of the resamples (n_boot, n_lists) for small non-negative integer scores.

    Most resampled values come from a 64 K-entry lookup on each word's top 16 bits (no multiply, no
    index array); words in the few bins where the index or the rejection test depends on the low bits
    carry a large negative sentinel, so only rows with a negative sum are revisited and resolved
    exactly; a chunk holding a rejected word is redone by the element-wise path.
    """
    sizes = np.array([x.size for x in xs])
    live = [j for j in range(len(xs)) if sizes[j] > 1]
    out = np.empty((n_boot, len(xs)), dtype=np.int64)
    for j in range(len(xs)):
        if sizes[j] == 1:
            out[:, j] = int(xs[j][0])
    if not live:
        return out
    L = int(sizes[live].sum())
    cols = np.concatenate([[0], np.cumsum(sizes[live])])
    luts = {j: _value_lut(xs[j]) for j in live}
    bl = np.repeat(sizes[live], sizes[live]).astype(np.uint64)
    thr = _thresholds(bl)
    done = 0
    while done < n_boot:
        k = min(chunk_reps, n_boot - done)
        words = stream.take(k * L).reshape(k, L)
        w16 = words.view(np.uint16)  # (k, 2L): low16, high16 of each word
        block = np.empty((k, len(live)), dtype=np.int64)
        rejected = False
        for c, j in enumerate(live):
            s0, s1 = int(cols[c]), int(cols[c + 1])
            v = luts[j][w16[:, 2 * s0 + 1 : 2 * s1 : 2]]
            tot = v.sum(axis=1, dtype=np.int64)
            rows = np.flatnonzero(tot < 0)  # rows holding an ambiguous word (few)
            if rows.size:
                sub = v[rows]
                rr, cc = np.nonzero(sub == _SENTINEL)
                r = rows[rr]
                n = np.uint64(sizes[j])
                m = words[r, s0 + cc].astype(np.uint64) * n
                if np.any((m & _MASK32) < (np.uint64(2**32) - n) % n):
                    rejected = True
                    break
                np.add.at(tot, r, xs[j][(m >> _SHIFT32).astype(np.int64)].astype(np.int64) - _SENTINEL)
            block[:, c] = tot
        if rejected:  # rare: redo this chunk element by element, following the skipped word
            idx = _chunk_indices(stream, bl, thr, k)
            for c, j in enumerate(live):
                block[:, c] = xs[j][idx[:, cols[c] : cols[c + 1]]].sum(axis=1, dtype=np.int64)
        else:
            stream.advance(k * L)
        out[done : done + k, live] = block
        done += k
    return out


def _resampled_means(
    score_lists: Sequence[np.ndarray], n_boot: int, rng: np.random.Generator | Uint32Stream, chunk_reps: int = 1000
) -> np.ndarray:
    """(n_boot, n_lists) means of the resamples, in the draw-major order of the authors' loop."""
    sizes = [len(x) for x in score_lists]
    if any(n == 0 for n in sizes):
        raise ValueError("every resampled score list must be non-empty")
    stream = rng if isinstance(rng, Uint32Stream) else Uint32Stream(rng)
    arrs = [np.asarray(x, dtype=float) for x in score_lists]
    flat = np.concatenate(arrs)
    n = np.asarray(sizes, dtype=float)
    if np.all(flat == np.round(flat)) and flat.min() >= 0 and flat.max() * max(sizes) < -_SENTINEL:
        # integer scores: exact integer sums, so sum / n equals np.mean of the resample bit for bit
        sums = _resampled_sums_fast([a.astype(np.int16) for a in arrs], n_boot, stream, chunk_reps)
        return sums / n
    # other scores: element-wise indices and numpy's mean of each resample (pairwise summation)
    starts, ns = _segments(sizes)
    out = np.empty((n_boot, len(sizes)))
    row = 0
    for k, idx in bounded_indices(stream, np.repeat(ns, ns), n_boot, chunk_reps=chunk_reps):
        vals = flat[idx + np.repeat(starts, ns)]
        for j, (s0, nj) in enumerate(zip(starts, ns)):
            out[row : row + k, j] = vals[:, s0 : s0 + nj].mean(axis=1)
        row += k
    return out


def _pwi_of_draws(
    means: np.ndarray, dims: Sequence[str], weights: Mapping[str, float], max_score: int = 3
) -> np.ndarray:
    """The authors' per-draw PWI expression, accumulated over dims in their order (bit-identical)."""
    total_weight = sum(weights.get(d, 0) for d in dims)
    if total_weight <= 0:
        return np.zeros(means.shape[0])
    acc = np.zeros(means.shape[0])
    for j, d in enumerate(dims):
        acc = acc + means[:, j] / max_score * weights.get(d, 0)
    return (acc / total_weight) * 100


def pwi_bootstrap_exact(
    dimension_scores: Mapping[str, Sequence[float]],
    weights: Mapping[str, float],
    *,
    n_boot: int,
    seed: int,
    ci: float = 0.95,
    max_score: int = 3,
) -> dict:
    """The authors' ``bootstrap_pwi_ci`` on one (model, condition), same stream, vectorised.

    ``dimension_scores``: {dimension: valid run scores}, in the results file's dimension order and each
    list in file order (prompt by prompt, run by run). Returns pwi_mean, ci_lower, ci_upper, pwi_std,
    the draws (``samples``) and ``mc_se`` (Monte-Carlo standard error of the mean: std / sqrt(n_boot)).
    """
    dims = [d for d, s in dimension_scores.items() if len(s)]
    if not dims:
        return {"pwi_mean": 0.0, "ci_lower": 0.0, "ci_upper": 0.0, "pwi_std": 0.0, "samples": np.zeros(0), "mc_se": 0.0}
    rng = np.random.default_rng(seed)
    means = _resampled_means([np.asarray(dimension_scores[d], dtype=float) for d in dims], n_boot, rng)
    pwi = _pwi_of_draws(means, dims, weights, max_score)
    lo, hi = (1 - ci) / 2 * 100, (1 + ci) / 2 * 100
    return {
        "pwi_mean": float(np.mean(pwi)),
        "ci_lower": float(np.percentile(pwi, lo)),
        "ci_upper": float(np.percentile(pwi, hi)),
        "pwi_std": float(np.std(pwi)),
        "samples": pwi,
        "mc_se": float(np.std(pwi) / np.sqrt(n_boot)),
    }


def delta_ci_exact(
    pools: Sequence[tuple[Sequence[float], Sequence[float]]], *, n_boot: int, seed: int, ci: float = 0.95
) -> list[dict]:
    """Table 3's bootstrap CIs of Δ: one ``default_rng(seed)`` over all ``pools`` [(prompted, baseline), ...]
    in order; per pool ``n_boot`` times resample prompted then baseline. Returns per pool ci_lower,
    ci_upper and their Monte-Carlo standard errors."""
    stream = Uint32Stream(np.random.default_rng(seed))
    lo_q, hi_q = (1 - ci) / 2 * 100, (1 + ci) / 2 * 100
    out = []
    for p, b in pools:
        p = np.asarray(p, dtype=float)
        b = np.asarray(b, dtype=float)
        if p.size == 0 or b.size == 0:
            raise ValueError("delta_ci_exact: an empty pool")
        means = _resampled_means([p, b], n_boot, stream)
        boots = means[:, 0] - means[:, 1]
        lo, hi = np.percentile(boots, [lo_q, hi_q])
        out.append(
            {
                "ci_lower": float(lo),
                "ci_upper": float(hi),
                "ci_lower_mc_se": percentile_mc_se(boots, lo_q),
                "ci_upper_mc_se": percentile_mc_se(boots, hi_q),
            }
        )
    return out


def percentile_mc_se(samples: np.ndarray, q: float) -> float:
    """Monte-Carlo standard error of the q-th percentile of ``samples``: sqrt(p(1-p)/n) / f(x_q), with
    the density f at the quantile estimated by a normal fit to the samples (SD of the draws)."""
    from scipy import stats

    x = np.asarray(samples, dtype=float)
    p = q / 100.0
    sd = float(np.std(x, ddof=1)) if x.size > 1 else 0.0
    if sd == 0:
        return 0.0
    dens = stats.norm.pdf(stats.norm.ppf(p)) / sd
    return float(np.sqrt(p * (1 - p) / x.size) / dens)


# ------------------------------------------------------------------------------------------------
# slow references written from METHODS.md (tests and benchmark only)
# ------------------------------------------------------------------------------------------------


def reference_pwi_bootstrap(
    dimension_scores: Mapping[str, Sequence[float]],
    weights: Mapping[str, float],
    *,
    n_boot: int,
    seed: int,
    ci: float = 0.95,
    max_score: int = 3,
) -> dict:
    """METHODS.md's PWI bootstrap as a plain loop (one ``rng.choice`` per draw and dimension)."""
    rng = np.random.default_rng(seed)
    dims = [d for d, s in dimension_scores.items() if len(s)]
    lists = {d: [float(v) for v in dimension_scores[d]] for d in dims}
    total_weight = sum(weights.get(d, 0) for d in dims)
    samples = []
    for _ in range(n_boot):
        means = {d: float(np.mean(rng.choice(lists[d], size=len(lists[d]), replace=True))) for d in dims}
        if total_weight > 0:
            samples.append(sum(means[d] / max_score * weights.get(d, 0) for d in dims) / total_weight * 100)
        else:
            samples.append(0.0)
    arr = np.array(samples)
    lo, hi = (1 - ci) / 2 * 100, (1 + ci) / 2 * 100
    return {
        "pwi_mean": float(np.mean(arr)),
        "ci_lower": float(np.percentile(arr, lo)),
        "ci_upper": float(np.percentile(arr, hi)),
        "pwi_std": float(np.std(arr)),
        "samples": arr,
    }


def reference_delta_ci(
    pools: Sequence[tuple[Sequence[float], Sequence[float]]], *, n_boot: int, seed: int, ci: float = 0.95
) -> list[dict]:
    """METHODS.md's Table 3 CI loop: one rng, per pool n_boot x (choice(p).mean() - choice(b).mean())."""
    rng = np.random.default_rng(seed)
    out = []
    for p, b in pools:
        p, b = np.asarray(p, dtype=float), np.asarray(b, dtype=float)
        boots = [rng.choice(p, p.size).mean() - rng.choice(b, b.size).mean() for _ in range(n_boot)]
        lo, hi = np.percentile(boots, [(1 - ci) / 2 * 100, (1 + ci) / 2 * 100])
        out.append({"ci_lower": float(lo), "ci_upper": float(hi)})
    return out
