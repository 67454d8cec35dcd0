"""Judges who are also contestants: does a PWB judge favour its own model, and what does the panel rule do?

The Pro-Worker AI Benchmark scores every response 0-3 with a panel of three LLM judges (``config.yaml`` key
``judges``: Devstral-2 123B, GPT-oss 120B, Gemma 4 31B) and keeps ``int(median)`` of the valid judge scores
(:func:`compendium.pwb.validation.panel_median`, :func:`compendium.pwb.instances.panel_scores`: with two valid
judges the floor of their mean). The three judges are also three of the seven models scored. This module asks
four questions of the judge-level data, each a pure function:

1. **Self-preference** (:func:`self_preference`, :func:`self_preference_table`): a difference in differences,
   how much more a judge scores *its own model's* responses than a reference does, beyond how much more it
   scores the other models' responses than the same reference does. Two references: the other two panel
   judges, and the outside judge of the fourth-judge sample (Claude), who judges none of its own models.
2. **What the panel rule does with it** (:func:`recusal_effect`, :func:`pivotal_shares`): the models' means
   and ranks with the full panel, with each judge recused from its own model's items, and with each judge left
   out everywhere; how often each judge's score is the panel score and how often it could change it.
3. **Agreement and the effective panel size** (:func:`panel_reliability`): the PWB panel statistics per
   dimension (:func:`compendium.stats.agreement.panel_agreement`) and the number of independent judges three
   correlated judges are worth, by the Spearman-Brown / design-effect formula.
4. **Length bias** (:func:`length_bias`, :func:`response_lengths`): does the panel score rise with the length of
   the response? Only on the per-instance release: the bundled fourth-judge file holds no response text.

Which judge gave which score (:data:`PANEL_ORDER`, :func:`judge_subjects`) is established from the authors'
code; the two data sources are turned into one tidy judge-level form by :func:`sample_scores` (the bundled
fourth-judge sample) and :func:`instances_long` (the per-instance release), whose runs or items cannot be
assigned to judges are counted by :func:`unplaced_items` and :func:`unplaced_runs`.

Random numbers: :func:`self_preference` draws from ``numpy.random.default_rng([seed, 1])`` (stream k = 1, the
only random task of this module). Every call with the same ``seed`` starts that stream afresh, so the rows of
:func:`self_preference_table` for one judge and two references resample the same items (common random numbers).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from ..data.errors import require_columns
from ..pwb.constants import DIMENSIONS, MODEL_KEYS
from ..pwb.instances import RUN_KEYS, layer1_runs_of
from ..pwb.weights import pwi_matrix
from ..stats.agreement import panel_agreement
from ..stats.pairwise import wilson_interval

__all__ = [
    "PANEL_ORDER",
    "OUTSIDE",
    "SELF_PREFERENCE_STREAM",
    "judge_subjects",
    "sample_scores",
    "unplaced_items",
    "instances_long",
    "unplaced_runs",
    "panel_wide",
    "self_preference",
    "default_references",
    "self_preference_table",
    "recusal_effect",
    "pivotal_shares",
    "panel_reliability",
    "effective_panel_size",
    "response_lengths",
    "length_bias",
]

#: How the order of a panel's scores maps to the judges, from the authors' code (angelo-leone/pro-worker-benchmark,
#: commit b8628f5342de9af2dbbb8bce48957e3c544dedab); transcribed, not copied.
PANEL_ORDER = """\
The panel order is the order of config.yaml's `judges` list, with failed judges dropped.

- src/judge.py 479-502 (`build_judge_panel`): one client per entry of `config["judges"]`, appended in the
  list's order (line 489 loops over the list, line 500 appends), handed to `JudgePanel` (line 501-502), which
  keeps them in that order (line 357, `self.judges`).
- src/judge.py 381-385 (`JudgePanel.score`): the three judges are called in parallel threads, but the futures
  are submitted in `self.judges` order (line 383) and their results read back by iterating that list of
  futures (line 384), not `as_completed` (imported at line 12, unused here): `individual_results` is in the
  config order whatever order the calls finish in.
- src/judge.py 387-389 and 415: `individual_scores` is `valid_scores`, the scores of `individual_results` that
  are >= 0, in the same order; a judge that failed (score -1 after its retries, src/judge.py 200-233) is
  dropped, and nothing records which one (a parsed value above 3, e.g. 4, is >= 0 and keeps its place). So three scores are (Devstral-2 123B, GPT-oss 120B, Gemma 4 31B) in
  the released config's order; two scores are two of the three in that order, and which judge is missing is
  not recorded.
- src/judge.py 416-423: `individual_results` keeps all three with `judge_model`, the judge's config `id`; but
  src/runner.py 228-237 (`run_layer1`, the run record) keeps only `individual_scores` (line 234), not
  `individual_results`: the released run records carry the judges' identity by position only.
- pilot/sample_fourth_judge.py 62 and 75: the fourth-judge item's `panel_individual_scores` is the run's
  `individual_scores` unchanged (`list(scores)`), its `panel_median` `int(statistics.median(scores))` (line 65);
  pilot/run_fourth_judge.py 256 copies `panel_individual_scores` into the scores file unchanged.

Hence: a complete triple is in config order; an item or run with two scores cannot be assigned to judges (it is
left out of every judge-specific analysis here, and counted); a record with `individual_results` names each
judge by its config `id`.
"""

#: the outside judge's name in the tidy judge-level form (the fourth-judge sample's ``claude_score``)
OUTSIDE = "Claude (outside)"

#: the random stream of :func:`self_preference` (``default_rng([seed, SELF_PREFERENCE_STREAM])``)
SELF_PREFERENCE_STREAM = 1

_JUDGE_SUFFIX = " (judge)"
_ITEM_COLS = ["item_id", "model", "condition", "dimension", "prompt_id"]
_LONG_COLS = [*_ITEM_COLS, "judge", "score"]
_Z80 = float(stats.norm.ppf(0.80))


# --------------------------------------------------------------------------------------------------
# who is who
# --------------------------------------------------------------------------------------------------


def judge_subjects(config: Mapping) -> list[tuple[str, str | None]]:
    """The panel's judges in panel order (:data:`PANEL_ORDER`: the order of ``config["judges"]``) and the model
    each one also is among the scored models, as ``[(judge display name, model name or None), ...]``.

    A judge is a subject when its ``id`` is the ``id`` of an entry of ``config["models"]`` whose ``name`` is one of
    the paper's seven models (:data:`compendium.pwb.constants.MODEL_KEYS`), or, without such an entry, when its
    ``name`` less the suffix ``" (judge)"`` is one of them; None otherwise. The two ways must agree: a judge whose id
    names one model and whose name another is refused.
    """
    judges = config.get("judges") if isinstance(config, Mapping) else None
    if not isinstance(judges, list) or not judges:
        raise ValueError("config: key 'judges' must be a non-empty list (pass the dict load_pwb_config() returns)")
    by_id = {
        m.get("id"): m.get("name")
        for m in (config.get("models") or [])
        if isinstance(m, Mapping) and m.get("name") in MODEL_KEYS
    }
    out: list[tuple[str, str | None]] = []
    for i, j in enumerate(judges):
        if not isinstance(j, Mapping) or not isinstance(j.get("name"), str) or not j["name"]:
            raise ValueError(f"config: judges[{i}] has no 'name'; give each judge a display name")
        name = j["name"]
        via_id = by_id.get(j.get("id"))
        base = name[: -len(_JUDGE_SUFFIX)] if name.endswith(_JUDGE_SUFFIX) else name
        via_name = base if base in MODEL_KEYS else None
        if via_id is not None and via_name is not None and via_id != via_name:
            raise ValueError(
                f"config: judges[{i}] ({name!r}) has the id of model {via_id!r} but the name of model {via_name!r}; "
                "correct its 'id' or 'name'"
            )
        out.append((name, via_id or via_name))
    names = [n for n, _ in out]
    if len(set(names)) < len(names):
        raise ValueError(f"config: judge names repeat ({names}); give each judge a distinct name")
    return out


def _names(subjects: Sequence[tuple[str, str | None]]) -> list[str]:
    return [n for n, _ in subjects]


# --------------------------------------------------------------------------------------------------
# the tidy judge-level form
# --------------------------------------------------------------------------------------------------


def _check_scores(vals, where: str) -> list[float]:
    out = []
    for v in vals:
        try:
            x = float(v)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: score {v!r} is not a number; expected integers 0-3") from None
        if not (0 <= x <= 3 and x == round(x)):
            raise ValueError(f"{where}: score {v!r} is not an integer 0-3")
        out.append(x)
    return out


def sample_scores(sample: pd.DataFrame, subjects: Sequence[tuple[str, str | None]]) -> pd.DataFrame:
    """The fourth-judge sample in tidy judge-level form: one row per item and judge.

    ``sample``: one record per item (:func:`compendium.pwb.validation.fourth_judge_sample`, which applies the
    duplicate rule); ``subjects``: :func:`judge_subjects`. Columns: item_id, model, condition, dimension,
    prompt_id, judge, score (float). The panel judges are named by :data:`PANEL_ORDER` (the i-th of the three
    ``panel_individual_scores`` is the i-th judge of the config), the outside judge's ``claude_score`` is the
    judge :data:`OUTSIDE`.

    **Items with two panel scores** (8 of the 500: one judge failed) are left out entirely, the outside judge's
    row too: which judge failed is not recorded (:data:`PANEL_ORDER`), so their two scores belong to no judge,
    and keeping only their outside score would give the outside judge items the panel judges lack.
    :func:`unplaced_items` counts them (by model, and whose own items they are). Any other number of panel
    scores, or a score outside the integers 0-3, is refused naming the item.
    """
    require_columns(
        sample, ["item_id", "model", "condition", "dimension", "panel_individual_scores", "claude_score"], "sample"
    )
    names = _names(subjects)
    k = len(names)
    rows = []
    for rec in sample.itertuples(index=False):
        where = f"sample: item_id {rec.item_id}, field 'panel_individual_scores'"
        scores = list(rec.panel_individual_scores)
        if len(scores) not in (k, k - 1):
            raise ValueError(f"{where}: {len(scores)} scores; the panel has {k} judges ({k - 1} when one failed)")
        scores = _check_scores(scores, where)
        (claude,) = _check_scores([rec.claude_score], f"sample: item_id {rec.item_id}, field 'claude_score'")
        if len(scores) < k:
            continue
        base = {
            "item_id": rec.item_id,
            "model": rec.model,
            "condition": rec.condition,
            "dimension": rec.dimension,
            "prompt_id": getattr(rec, "prompt_id", None),
        }
        rows += [{**base, "judge": n, "score": s} for n, s in zip(names, scores, strict=True)]
        rows.append({**base, "judge": OUTSIDE, "score": claude})
    if sample["item_id"].duplicated().any():
        raise ValueError("sample: item_id repeats; apply the duplicate rule first (validation.fourth_judge_sample)")
    return pd.DataFrame(rows, columns=_LONG_COLS)


def unplaced_items(sample: pd.DataFrame, subjects: Sequence[tuple[str, str | None]]) -> dict:
    """The fourth-judge items :func:`sample_scores` leaves out (fewer panel scores than judges).

    Keys: n_items, n_placed, n_unplaced, unplaced_item_ids (sorted), unplaced_by_model ({model: n}), and
    unplaced_own ({judge: how many of the left-out items are its own model's}).
    """
    require_columns(sample, ["item_id", "model", "panel_individual_scores"], "sample")
    k = len(subjects)
    short = sample[sample["panel_individual_scores"].map(len) < k]
    return {
        "n_items": int(len(sample)),
        "n_placed": int(len(sample) - len(short)),
        "n_unplaced": int(len(short)),
        "unplaced_item_ids": sorted(int(i) for i in short["item_id"]),
        "unplaced_by_model": {str(m): int(n) for m, n in short["model"].value_counts().sort_index().items()},
        "unplaced_own": {n: int((short["model"] == s).sum()) for n, s in subjects if s is not None},
    }


def _placement(instances: pd.DataFrame, config: Mapping) -> tuple[pd.DataFrame, pd.Series]:
    """Layer-1 judge rows with the judge's display name (NaN where it cannot be known) and a per-row flag."""
    require_columns(instances, [*RUN_KEYS, "judge", "score"], "instances")
    names = _names(judge_subjects(config))
    ids = {j.get("id"): j["name"] for j in config["judges"] if j.get("id")}
    t = instances[instances["layer"] == 1]
    by_pos = t["judge"].map({f"judge_{i}": n for i, n in enumerate(names)})
    by_id = t["judge"].map(ids)
    n_rows = t.groupby(RUN_KEYS, sort=False, observed=True)["judge"].transform("size")
    placed = (by_pos.notna() & (n_rows == len(names))) | by_id.notna()
    # a run is placed only if every one of its rows is
    run_ok = placed.groupby([t[c] for c in RUN_KEYS], sort=False, observed=True).transform("all")
    return t.assign(judge_name=by_pos.fillna(by_id)), run_ok.astype(bool)


def instances_long(instances: pd.DataFrame, config: Mapping) -> pd.DataFrame:
    """The per-instance release's Layer-1 judge scores in tidy judge-level form: one row per run and judge.

    ``instances``: :func:`compendium.pwb.instances.load_hf_results` (its ``judge`` is ``judge_{i}``, the i-th of the
    run's ``individual_scores``, or a judge's config ``id`` where the record has ``individual_results``). A run
    is *placed* when its judges are known: three positional rows (:data:`PANEL_ORDER`: the i-th is the config's
    i-th judge) or rows labelled by config id; a run with fewer positional rows (a judge failed) is left out
    (:func:`unplaced_runs` counts them). Judge values the authors' IRR code reads as missing (a 4; NaN in
    ``score``) give no row. Columns: item_id (one integer per run, in RUN_KEYS order), model, condition,
    dimension, prompt_id, run, judge (display name), score.
    """
    t, ok = _placement(instances, config)
    t = t[ok & t["score"].notna()]
    keys = ["model", "condition", "dimension", "prompt_id", "run"]
    t = t.sort_values(keys, kind="stable")
    item = t.groupby(keys, sort=False, observed=True).ngroup()
    return pd.DataFrame(
        {
            "item_id": item.to_numpy(),
            **{c: t[c].to_numpy() for c in keys},
            "judge": t["judge_name"].to_numpy(),
            "score": t["score"].to_numpy(dtype=float),
        }
    ).reset_index(drop=True)


def unplaced_runs(instances: pd.DataFrame, config: Mapping) -> dict:
    """Layer-1 runs :func:`instances_long` leaves out because their judges cannot be told apart.

    Keys: n_runs (Layer-1 runs with at least one judge row), n_placed, n_unplaced, rows_per_unplaced_run
    ({number of judge rows: runs}), unplaced_by_model ({model: runs}).
    """
    t, ok = _placement(instances, config)
    runs = t.assign(ok=ok).groupby(RUN_KEYS, observed=True).agg(ok=("ok", "all"), n=("judge", "size"))
    bad = runs[~runs["ok"]]
    return {
        "n_runs": int(len(runs)),
        "n_placed": int(runs["ok"].sum()),
        "n_unplaced": int(len(bad)),
        "rows_per_unplaced_run": {int(k): int(v) for k, v in bad["n"].value_counts().sort_index().items()},
        "unplaced_by_model": {
            str(m): int(v) for m, v in bad.index.get_level_values("model").value_counts().sort_index().items()
        },
    }


def panel_wide(long: pd.DataFrame, judges: Sequence[str]) -> pd.DataFrame:
    """One row per item with one column per judge of ``judges`` (NaN where that judge has no score), after the
    item columns of ``long`` (item_id, model, condition, dimension, and prompt_id / run where present), by
    item_id. An item scored twice by one judge is refused."""
    require_columns(long, ["item_id", "model", "judge", "score"], "long")
    present = set(long["judge"])
    missing = [j for j in judges if j not in present]
    if missing:
        raise ValueError(f"long: no scores of judge(s) {missing}; judges present: {sorted(present)}")
    item_cols = [c for c in ("item_id", "model", "condition", "dimension", "prompt_id", "run") if c in long.columns]
    items = long[item_cols].drop_duplicates("item_id").set_index("item_id").sort_index(kind="stable")
    t = long[long["judge"].isin(judges)]
    dup = t.duplicated(["item_id", "judge"])
    if dup.any():
        first = t.loc[dup, ["item_id", "judge"]].iloc[0].to_dict()
        raise ValueError(
            f"long: item {first['item_id']} has two scores of judge {first['judge']!r}; keep one per judge"
        )
    w = t.set_index(["item_id", "judge"])["score"].unstack("judge").reindex(index=items.index, columns=list(judges))
    w.columns.name = None
    return items.join(w).reset_index()


# --------------------------------------------------------------------------------------------------
# self-preference: a difference in differences with a clustered bootstrap
# --------------------------------------------------------------------------------------------------


def _bootstrap_did(
    d: np.ndarray, own: np.ndarray, groups: np.ndarray | None, n_boot: int, rng: np.random.Generator
) -> np.ndarray:
    """Bootstrap draws of mean(d | own) - mean(d | other).

    Without ``groups``: items resampled with replacement within the own and the other stratum separately (their
    sizes fixed). With ``groups`` (integer cluster codes): clusters resampled with replacement, each bringing all
    its own and other items (a prompt is shared by every model, so the two strata of a cluster stay together);
    a draw with no own or no other item is NaN. Resampling counts are multinomial (equivalent to drawing indices
    with replacement), drawn in chunks to bound memory.
    """
    out = np.empty(n_boot)
    chunk = max(1, min(n_boot, 2_000_000 // max(1, d.size)))
    if groups is None:
        a, b = d[own], d[~own]
        pa, pb = np.full(a.size, 1.0 / a.size), np.full(b.size, 1.0 / b.size)
        for s in range(0, n_boot, chunk):
            m = min(chunk, n_boot - s)
            wa = rng.multinomial(a.size, pa, size=m)
            wb = rng.multinomial(b.size, pb, size=m)
            out[s : s + m] = wa @ a / a.size - wb @ b / b.size
        return out
    g = int(groups.max()) + 1
    s_own = np.bincount(groups[own], weights=d[own], minlength=g)
    n_own = np.bincount(groups[own], minlength=g).astype(float)
    s_oth = np.bincount(groups[~own], weights=d[~own], minlength=g)
    n_oth = np.bincount(groups[~own], minlength=g).astype(float)
    p = np.full(g, 1.0 / g)
    for s in range(0, n_boot, chunk):
        m = min(chunk, n_boot - s)
        w = rng.multinomial(g, p, size=m).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[s : s + m] = (w @ s_own) / (w @ n_own) - (w @ s_oth) / (w @ n_oth)
    return out


def self_preference(
    long: pd.DataFrame,
    judge: str,
    own_model: str,
    reference: Sequence[str],
    *,
    n_boot: int,
    seed: int,
    level: float,
    cluster: str | Sequence[str] | None = None,
) -> dict:
    """How much more ``judge`` favours ``own_model`` than the ``reference`` judges do: a difference in differences.

    Per item i scored by ``judge`` and every reference judge, d_i = judge's score - mean of the reference judges'
    scores. The estimate is mean(d_i over own_model's items) - mean(d_i over the other models' items): the
    judge's excess over the reference on its own model, less its excess on the others, so a judge that is
    simply harsher or kinder than the reference everywhere (a main effect) and a model that is simply better
    (a main effect the reference sees too) both cancel. Items missing a needed score are left out
    (``n_dropped``). 0 means no self-preference; +0.5 means the judge adds half a point to its own model
    beyond what it adds to the others.

    Interval: percentile bootstrap at ``level`` (``n_boot`` draws, stream ``default_rng([seed, 1])``): without
    ``cluster``, items are resampled with replacement within the own and other strata (an item's scores stay
    together, the strata's sizes are fixed); with ``cluster`` (column name(s) of ``long``, e.g. ``("dimension",
    "prompt_id")`` on the per-instance release, whose five runs of a prompt are correlated and whose prompts
    every model answers) clusters are resampled, each with all its own and other items. ``se`` is the standard
    deviation of the draws; ``p`` the two-sided normal p-value of estimate / se; ``p_boot`` twice the smaller
    share of draws on either side of 0 (at most 1); ``se_welch`` and ``p_welch`` the Welch two-sample values with
    items independent (Welch-Satterthwaite degrees of freedom; as ``scipy.stats.ttest_ind(equal_var=False)``,
    which warns on a constant group), a check on the bootstrap without clustering. ``mde`` = (z_{1-(1-level)/2} +
    z_{0.80}) * se, the effect a two-sided test at 1 - ``level`` detects with 80 % power. ``mc_se_lo`` /
    ``mc_se_hi``: the Monte-Carlo standard error of the interval's ends, sqrt(q(1-q)/n_boot) / f(x_q) with the
    draws' density f taken as normal with sd ``se`` (the asymptotic SE of a sample quantile), for printing only
    the digits the draws support (:mod:`compendium.stats.mcdigits`).

    Written by hand because the bootstrap is stratified and clustered at once (scipy.stats.bootstrap resamples
    independent samples, not clusters spanning two strata). With fewer than two own or two other items the
    estimate and interval are NaN (the counts say why); an unknown judge, an empty reference or a judge among
    its own references is refused.

    Returns a dict: judge, own_model, reference (the reference judges joined by " + "), n_own, n_other,
    n_dropped, n_clusters (None without ``cluster``), diff_own, diff_other (the two mean differences), estimate,
    lo, hi, se, p, p_boot, se_welch, p_welch, mde, mc_se_lo, mc_se_hi, n_boot, n_valid_draws, level.
    """
    if not 0 < level < 1:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level!r}")
    if int(n_boot) < 2:
        raise ValueError(f"n_boot must be at least 2, got {n_boot!r}")
    ref = list(reference)
    if not ref:
        raise ValueError("reference: give at least one reference judge")
    if judge in ref:
        raise ValueError(f"reference: the judge {judge!r} cannot be its own reference")
    cl = [cluster] if isinstance(cluster, str) else list(cluster or [])
    require_columns(long, ["item_id", "model", "judge", "score", *cl], "long")
    wide = panel_wide(long, [judge, *ref])
    if cl:
        keys = long.drop_duplicates("item_id").set_index("item_id")[cl]
        wide = wide.drop(columns=[c for c in cl if c in wide.columns]).join(keys, on="item_id")
    ok = wide[[judge, *ref]].notna().all(axis=1)
    w = wide[ok]
    d = (w[judge] - w[ref].mean(axis=1)).to_numpy(dtype=float)
    own = (w["model"] == own_model).to_numpy()
    n_own, n_other = int(own.sum()), int((~own).sum())
    out: dict = {
        "judge": judge,
        "own_model": own_model,
        "reference": " + ".join(ref),
        "n_own": n_own,
        "n_other": n_other,
        "n_dropped": int((~ok).sum()),
        "n_clusters": None,
        "n_boot": int(n_boot),
        "level": float(level),
    }
    nan_keys = (
        "diff_own diff_other estimate lo hi se p p_boot se_welch p_welch mde mc_se_lo mc_se_hi n_valid_draws"
    ).split()
    if n_own < 2 or n_other < 2:
        return {**out, **dict.fromkeys(nan_keys, float("nan"))}
    groups = None
    if cl:
        groups = w.groupby(cl, sort=True, observed=True).ngroup().to_numpy()
        out["n_clusters"] = int(groups.max()) + 1
    rng = np.random.default_rng([int(seed), SELF_PREFERENCE_STREAM])
    draws = _bootstrap_did(d, own, groups, int(n_boot), rng)
    draws = draws[np.isfinite(draws)]
    a, b = d[own], d[~own]
    est = float(a.mean() - b.mean())
    alpha = 1.0 - level
    lo, hi = (float(x) for x in np.quantile(draws, [alpha / 2, 1 - alpha / 2]))
    se = float(draws.std(ddof=1))
    z = float(stats.norm.ppf(1 - alpha / 2))
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    se_welch = float(np.sqrt(va + vb))
    df_welch = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1)) if se_welch > 0 else float("nan")
    q = alpha / 2
    mc = se * np.sqrt(q * (1 - q) / draws.size) / stats.norm.pdf(stats.norm.ppf(q)) if se > 0 else 0.0
    return {
        **out,
        "diff_own": float(a.mean()),
        "diff_other": float(b.mean()),
        "estimate": est,
        "lo": lo,
        "hi": hi,
        "se": se,
        "p": float(2 * stats.norm.sf(abs(est) / se)) if se > 0 else float("nan"),
        "p_boot": float(min(1.0, 2 * min(np.mean(draws <= 0), np.mean(draws >= 0)))),
        "se_welch": se_welch,
        "p_welch": float(2 * stats.t.sf(abs(est) / se_welch, df_welch)) if se_welch > 0 else float("nan"),
        "mde": (z + _Z80) * se,
        "mc_se_lo": float(mc),
        "mc_se_hi": float(mc),
        "n_valid_draws": int(draws.size),
    }


def default_references(
    subjects: Sequence[tuple[str, str | None]], outside: str | None = OUTSIDE
) -> dict[str, Callable[[str], list[str]]]:
    """The two references of the chapter: ``"other panel judges"`` (for a judge, the other two of the panel)
    and, unless ``outside`` is None (the per-instance release has no outside judge), ``"outside judge"``."""
    names = _names(subjects)
    refs: dict[str, Callable[[str], list[str]]] = {"other panel judges": lambda j: [n for n in names if n != j]}
    if outside is not None:
        refs["outside judge"] = lambda j: [outside]
    return refs


def self_preference_table(
    long: pd.DataFrame,
    subjects: Sequence[tuple[str, str | None]],
    *,
    references: Mapping[str, Sequence[str] | Callable[[str], Sequence[str]]],
    n_boot: int,
    seed: int,
    level: float,
    by: Sequence[str] = (),
    cluster: str | Sequence[str] | None = None,
) -> pd.DataFrame:
    """:func:`self_preference` for every judge that is also a subject x every reference kind x every group of ``by``.

    ``references``: kind -> the reference judges, a list or a function of the judge's name (e.g.
    :func:`default_references`). ``by``: columns of ``long`` to split on (e.g. ``("dimension",)`` or
    ``("dimension", "condition")`` on the per-instance release; () for the whole data). Judges that are no
    model's (subject None) are skipped. Columns: judge, own_model, reference_kind, the ``by`` columns, then the
    keys of :func:`self_preference` (reference is the reference judges). Rows in panel order, then reference
    kind, then group.
    """
    require_columns(long, ["item_id", "model", "judge", "score", *by], "long")
    rows = []
    groups = [((), long)] if not by else list(long.groupby(list(by), sort=True, observed=True))
    for judge, own in subjects:
        if own is None:
            continue
        for kind, spec in references.items():
            ref = list(spec(judge) if callable(spec) else spec)
            for key, g in groups:
                key = key if isinstance(key, tuple) else (key,)
                res = self_preference(g, judge, own, ref, n_boot=n_boot, seed=seed, level=level, cluster=cluster)
                rows.append(
                    {"judge": judge, "own_model": own, "reference_kind": kind, **dict(zip(by, key, strict=True)), **res}
                )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------------
# what the panel rule does with it
# --------------------------------------------------------------------------------------------------


def _floor_median(arr: np.ndarray) -> np.ndarray:
    """Row-wise ``int(median)`` of complete score rows (2 scores: the floor of their mean), as panel_median."""
    return np.floor(np.median(arr, axis=1))


def _ranks(s: pd.Series) -> pd.Series:
    return s.rank(ascending=False, method="min").astype(int)


def recusal_effect(
    wide: pd.DataFrame, subjects: Sequence[tuple[str, str | None]], weights: Mapping[str, float] | None = None
) -> dict[str, pd.DataFrame | int]:
    """The models' mean panel scores (and, with ``weights``, PWIs) under four kinds of panel rule, and their ranks.

    ``wide``: :func:`panel_wide` of the panel judges (one row per item or run, one column per judge of
    ``subjects``, plus model, condition, dimension). Only complete rows (every judge scored) are used, so that
    every rule sees the same items (``n_used``, ``n_excluded``). Rules (column ``rule``):

    - ``full panel``: the paper's rule, ``int(median)`` of the three scores (:func:`compendium.pwb.validation.panel_median`);
    - ``recusal``: each judge recused from its own model's items only: there the panel score is ``int(median)``
      of the other two, the floor of their mean (the two-judge rule of
      :func:`compendium.pwb.instances.panel_scores`); other items keep the full panel;
    - ``recusal, two judges everywhere``: the same on the own models' items; every other item gets the mean of
      its three two-judge panel scores (each the floor of a pair's mean), so that every item is scored by two
      judges and the floor below pulls every model down alike;
    - ``without <judge>``: that judge left out on every item (the two-judge rule everywhere).

    The two-judge rule is the floor of a mean, which rounds every half point down, so leaving a judge out lowers
    the models' means even when no judge leans towards any model (by how much depends on how often the other two
    differ by an odd number of points and on how generous the judge left out is): under ``recusal`` the judges'
    own models fall and the others do not, so ranks move with no self-preference at all, and the rank changes of
    ``recusal`` say what the rule does, not whether a judge leans. ``recusal, two judges everywhere`` removes the
    floor's asymmetry; what it still moves is the judges' leaning and their overall generosity. The ``net`` table
    isolates the leaning: for each judge, the change of its own model's mean when it is left out
    (``change_own``: the recusal change) less the mean change of the other models' means under the same rule
    (``change_other``): ``net`` = change_own - change_other, negative when the judge lifted its own model.

    Returns a dict: ``means`` (rule, recused, model, n, mean, rank, delta_mean, delta_rank: rank 1 the highest
    mean, ties share the lower rank, deltas against ``full panel``; a positive delta_rank is a fall), ``summary``
    (rule, n_moved: models whose rank changed, max_abs_rank_change, spearman_rho of the means with the full
    panel's (NaN when either set is constant), order: the models from first to last), ``net`` (judge, model, change_own, change_other, net),
    ``pwi`` and ``pwi_summary`` (with ``weights``: PWI per model x condition by
    :func:`compendium.pwb.weights.pwi_matrix` of the dimension means of the rule's panel scores -- the point PWI,
    the expectation of the paper's bootstrap mean -- rank within condition, deltas; the summary per rule and
    condition; else None), ``n_used``, ``n_excluded``.
    """
    names = _names(subjects)
    require_columns(wide, ["model", *names], "wide")
    ok = wide[names].notna().all(axis=1)
    w = wide[ok].reset_index(drop=True)
    if w.empty:
        raise ValueError("wide: no item has a score from every judge; recusal needs complete panels")
    arr = w[names].to_numpy(dtype=float)
    full = _floor_median(arr)
    model = w["model"].to_numpy()
    rules: dict[str, tuple[str | None, np.ndarray]] = {"full panel": (None, full)}
    rec = full.copy()
    for j, (_name, subj) in enumerate(subjects):
        if subj is not None:
            mask = model == subj
            rec[mask] = _floor_median(np.delete(arr[mask], j, axis=1))
    rules["recusal"] = ("each judge from its own model", rec)
    loo = np.column_stack([_floor_median(np.delete(arr, j, axis=1)) for j in range(len(names))])
    even = loo.mean(axis=1)
    subj_models = [s for _, s in subjects if s is not None]
    own_rows = np.isin(model, subj_models)
    even[own_rows] = rec[own_rows]
    rules["recusal, two judges everywhere"] = (
        "each judge from its own model; others: mean of their 2-judge panels",
        even,
    )
    for j, name in enumerate(names):
        rules[f"without {name}"] = (name, loo[:, j])

    frames = []
    for rule, (recused, sc) in rules.items():
        g = pd.DataFrame({"model": model, "s": sc}).groupby("model", sort=True)["s"]
        m = pd.DataFrame({"n": g.size(), "mean": g.mean()})
        m["rank"] = _ranks(m["mean"])
        frames.append(m.reset_index().assign(rule=rule, recused=recused))
    means = pd.concat(frames, ignore_index=True)
    base = means[means["rule"] == "full panel"].set_index("model")
    means["delta_mean"] = means["mean"] - means["model"].map(base["mean"])
    means["delta_rank"] = means["rank"] - means["model"].map(base["rank"])
    means = means[["rule", "recused", "model", "n", "mean", "rank", "delta_mean", "delta_rank"]]
    summary = _rank_summary(means, ["rule"], "mean")

    net = []
    for name, subj in subjects:
        if subj is None:
            continue
        t = means[means["rule"] == f"without {name}"].set_index("model")
        if subj not in t.index:
            continue
        net.append(
            {
                "judge": name,
                "model": subj,
                "change_own": float(t.loc[subj, "delta_mean"]),
                "change_other": float(t.drop(index=subj)["delta_mean"].mean()),
            }
        )
    net_df = pd.DataFrame(net, columns=["judge", "model", "change_own", "change_other"])
    net_df["net"] = net_df["change_own"] - net_df["change_other"]

    pwi = pwi_summary = None
    if weights is not None:
        require_columns(w, ["condition", "dimension"], "wide")
        pf = []
        for rule, (recused, sc) in rules.items():
            dm = (
                pd.DataFrame({"model": model, "condition": w["condition"], "dimension": w["dimension"], "s": sc})
                .groupby(["model", "condition", "dimension"], sort=True)["s"]
                .mean()
                .unstack("dimension")
            )
            p = pwi_matrix(dm, weights).reset_index()
            p["rank"] = p.groupby("condition")["pwi"].rank(ascending=False, method="min").astype(int)
            pf.append(p.assign(rule=rule, recused=recused))
        pwi = pd.concat(pf, ignore_index=True)
        key = pwi[pwi["rule"] == "full panel"].set_index(["model", "condition"])
        idx = pd.MultiIndex.from_frame(pwi[["model", "condition"]])
        pwi["delta_pwi"] = pwi["pwi"].to_numpy() - key["pwi"].reindex(idx).to_numpy()
        pwi["delta_rank"] = pwi["rank"].to_numpy() - key["rank"].reindex(idx).to_numpy()
        pwi = pwi[["rule", "recused", "model", "condition", "pwi", "rank", "delta_pwi", "delta_rank"]]
        pwi_summary = _rank_summary(pwi, ["rule", "condition"], "pwi")
    return {
        "means": means,
        "summary": summary,
        "net": net_df,
        "pwi": pwi,
        "pwi_summary": pwi_summary,
        "n_used": int(len(w)),
        "n_excluded": int((~ok).sum()),
    }


def _rank_summary(t: pd.DataFrame, keys: list[str], value: str) -> pd.DataFrame:
    """Per rule (and condition): how many models moved, the largest move, Spearman's rho with the full panel."""
    full = t[t["rule"] == "full panel"]
    rows = []
    for key, g in t.groupby(keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        sel = dict(zip(keys, key, strict=True))
        f = full
        for c in keys[1:]:
            f = f[f[c] == sel[c]]
        both = g[["model", value]].merge(f[["model", value]], on="model", suffixes=("", "_full"))
        x, y = both[value].to_numpy(), both[f"{value}_full"].to_numpy()
        varied = len(both) > 2 and np.ptp(x) > 0 and np.ptp(y) > 0
        rho = stats.spearmanr(x, y).statistic if varied else float("nan")
        rows.append(
            {
                **sel,
                "n_moved": int((g["delta_rank"] != 0).sum()),
                "max_abs_rank_change": int(g["delta_rank"].abs().max()),
                "spearman_rho": float(rho),
                "order": " > ".join(g.sort_values(["rank", "model"])["model"]),
            }
        )
    return pd.DataFrame(rows)


def pivotal_shares(scores, judges: Sequence[str], *, level: float) -> pd.DataFrame:
    """For each judge of a complete panel, how often its score is the panel score and how often it could move it.

    ``scores``: items x judges (complete rows, e.g. ``panel_wide(...)[judges].dropna().to_numpy()``), the panel
    score ``int(median)`` of the row. Per judge: ``share_median`` = share of items where its score equals the
    panel score; ``share_pivotal`` = share where the other judges' scores differ, which is exactly when changing
    only this judge's score can change the median of three (if the other two agree, their common value is the
    median whatever the third says; if they differ, the median is this judge's score clipped to their range, so
    it moves with it); ``share_changes_if_dropped`` = share where the panel score without this judge (the
    two-judge rule, the floor of the others' mean) differs from the full panel's. Each with its count (``n_*``)
    and a Wilson interval at ``level`` (:func:`compendium.stats.pairwise.wilson_interval` with z = the normal
    quantile of ``level``). Three judges only: pivotality is defined for the median of three.
    """
    arr = np.asarray(scores, dtype=float)
    if arr.ndim != 2 or arr.shape[1] != 3 or len(judges) != 3:
        raise ValueError(
            f"scores must be items x 3 judges with 3 judge names, got shape {arr.shape} and {list(judges)}"
        )
    if arr.shape[0] == 0 or np.isnan(arr).any():
        raise ValueError("scores: need at least one item and no missing score (drop incomplete panels first)")
    if not 0 < level < 1:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level!r}")
    z = float(stats.norm.ppf(1 - (1 - level) / 2))
    n = arr.shape[0]
    med = _floor_median(arr)
    rows = []
    for j, name in enumerate(judges):
        others = np.delete(arr, j, axis=1)
        counts = {
            "median": int((arr[:, j] == med).sum()),
            "pivotal": int((others[:, 0] != others[:, 1]).sum()),
            "changes_if_dropped": int((_floor_median(others) != med).sum()),
        }
        row: dict = {"judge": name, "n": n}
        for what, k in counts.items():
            lo, hi = wilson_interval(k, n, z=z)
            row.update({f"n_{what}": k, f"share_{what}": k / n, f"lo_{what}": lo, f"hi_{what}": hi})
        rows.append(row)
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------------
# agreement and the effective panel size
# --------------------------------------------------------------------------------------------------


def effective_panel_size(k: int, mean_r: float) -> float:
    """n_eff = k / (1 + (k - 1) * r): how many independent judges k judges with mean pairwise correlation r are
    worth for the precision of their mean.

    The variance of the mean of k equally variable scores with common correlation r is sigma^2 (1 + (k - 1) r) / k
    (Kish 1965, the design effect of a cluster of size k with intraclass correlation r), which equals that of
    n_eff independent scores; the same algebra gives the Spearman-Brown reliability of the k-judge mean,
    k r / (1 + (k - 1) r) (Spearman 1910; Brown 1910). r = 0 gives k, r = 1 gives 1; NaN for an undefined r.
    """
    if not np.isfinite(mean_r):
        return float("nan")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    return float(k / (1 + (k - 1) * mean_r))


def _pair_corrs(arr: np.ndarray) -> tuple[float, float]:
    """Mean pairwise Pearson and Spearman correlations of the columns (NaN pairs, a constant column, ignored)."""
    rs, rhos = [], []
    for p, q in combinations(range(arr.shape[1]), 2):
        x, y = arr[:, p], arr[:, q]
        if arr.shape[0] > 2 and np.ptp(x) > 0 and np.ptp(y) > 0:
            rs.append(float(np.corrcoef(x, y)[0, 1]))
            rhos.append(float(stats.spearmanr(x, y).statistic))
    return (float(np.mean(rs)) if rs else float("nan"), float(np.mean(rhos)) if rhos else float("nan"))


def panel_reliability(wide: pd.DataFrame, judges: Sequence[str]) -> pd.DataFrame:
    """Panel agreement per dimension (PWB order) and POOLED, with the panel's effective size.

    ``wide``: :func:`panel_wide` (complete rows are used; ``n_excluded`` counts the others). Columns: dimension,
    n, exact, adjacent, qwk, alpha, spread (:func:`compendium.stats.agreement.panel_agreement`, the statistics
    of :func:`compendium.pwb.validation.sample_panel_irr` and the paper's IRR table), n_excluded, mean_r and
    mean_rho (mean pairwise Pearson and Spearman correlation of the judges over the items), n_eff
    (:func:`effective_panel_size` with mean_r) and reliability (Spearman-Brown, k r / (1 + (k - 1) r)).
    POOLED pools the dimensions' items, so its correlations include the differences between dimensions.
    """
    require_columns(wide, ["dimension", *judges], "wide")
    k = len(judges)
    ok = wide[list(judges)].notna().all(axis=1)
    rows = []
    present = list(dict.fromkeys(wide["dimension"]))
    order = [d for d in DIMENSIONS if d in present] + sorted(d for d in present if d not in DIMENSIONS)
    for d, sel in [(d, wide["dimension"] == d) for d in order] + [("POOLED", pd.Series(True, index=wide.index))]:
        arr = wide.loc[sel & ok, list(judges)].to_numpy(dtype=float)
        if not len(arr):
            continue
        r, rho = _pair_corrs(arr)
        rows.append(
            {
                "dimension": d,
                **panel_agreement(arr),
                "n_excluded": int((sel & ~ok).sum()),
                "mean_r": r,
                "mean_rho": rho,
                "n_eff": effective_panel_size(k, r),
                "reliability": k * r / (1 + (k - 1) * r) if np.isfinite(r) else float("nan"),
            }
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------------
# length bias (per-instance release only)
# --------------------------------------------------------------------------------------------------


def response_lengths(results_dir: str | Path, *, verify: bool = True) -> pd.DataFrame:
    """The length in characters of every Layer-1 response of the per-instance release, keyed like its runs.

    :func:`compendium.pwb.instances.load_hf_results` keeps no response text (its tidy schema has none), so this
    reader goes back to the results JSON: the same files (:func:`compendium.data.pwbresults.select_files`, the
    latest complete file per model and condition) and the same run keys as
    :func:`compendium.pwb.instances.instances_from_results_json` (a repeated prompt id labelled
    ``<id>#<position>``; a single-run prompt record is run 0). Columns: RUN_KEYS + ``response_chars``
    (``len`` of the run's ``response``; NaN where the record has none, e.g. a failed run's empty response is 0).
    The bundled data hold no responses (the fourth-judge file keeps only scores and the outside judge's
    reasoning), so without the hub data there is nothing to read.
    """
    from ..data import pwbresults

    sel = pwbresults.select_files(Path(results_dir), tuple(MODEL_KEYS), verify=verify)
    rows = []
    for (model, condition), (_f, data) in sorted(sel.chosen.items(), key=lambda kv: kv[0]):
        for _dpos, dim, _pos, pid, k, r in layer1_runs_of(data):  # the tidy rows' own keys
            resp = r.get("response") if isinstance(r, Mapping) else None
            rows.append(
                {
                    "model": model,
                    "condition": condition,
                    "layer": 1,
                    "dimension": dim,
                    "prompt_id": pid,
                    "run": k,
                    "response_chars": float(len(resp)) if isinstance(resp, str) else float("nan"),
                }
            )
    out = pd.DataFrame(rows, columns=[*RUN_KEYS, "response_chars"])
    if out.duplicated(RUN_KEYS).any():
        first = out.loc[out.duplicated(RUN_KEYS), RUN_KEYS].iloc[0].to_dict()
        raise ValueError(f"{results_dir}: two responses for one run, e.g. {json.dumps(first, default=str)}")
    return out


def length_bias(runs: pd.DataFrame, *, level: float, cells: Iterable[str] = ("dimension", "condition")) -> pd.DataFrame:
    """Does the panel score rise with the response's length? Per cell of ``cells`` and pooled.

    ``runs``: one row per run with ``panel`` (:func:`compendium.pwb.instances.panel_scores`), ``response_chars``
    (:func:`response_lengths`, merged on RUN_KEYS) and the ``cells`` columns; runs without a length or a panel
    score are left out. Per cell: n, mean_chars, slope (OLS of panel score on length, per 1,000 characters,
    :func:`scipy.stats.linregress`) with its t interval at ``level`` (slope_lo, slope_hi), r (Pearson), rho and
    p_rho (Spearman, :func:`scipy.stats.spearmanr`). Row ``POOLED``: the within-cell slope (panel score and length
    centred within each cell, so differences between dimensions and conditions do not count; standard error with
    n - cells - 1 degrees of freedom) and the cells' Spearman rhos averaged on Fisher's z scale with weights
    n - 3, its interval from the variance 1.06 / (n - 3) of a Spearman z (Fieller, Hartley & Pearson 1957).
    The five runs of a prompt are treated as independent, so the intervals are too narrow if runs cluster; and
    across models, length and quality are confounded (add ``"model"`` to ``cells`` to compare within models).

    Without the per-instance release this cannot be computed: the bundled data hold no responses.
    """
    cells = list(cells)
    require_columns(runs, ["panel", "response_chars", *cells], "runs")
    if not 0 < level < 1:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level!r}")
    t = runs[runs["panel"].notna() & runs["response_chars"].notna()]
    if t.empty:
        raise ValueError("runs: no run has both a panel score and a response length")
    x_all = t["response_chars"].to_numpy(dtype=float) / 1000.0
    y_all = t["panel"].to_numpy(dtype=float)
    rows = []
    xc = np.empty_like(x_all)
    yc = np.empty_like(y_all)
    zs, ws = [], []
    n_cells = 0
    for key, idx in t.groupby(cells, sort=True, observed=True).indices.items():
        key = key if isinstance(key, tuple) else (key,)
        x, y = x_all[idx], y_all[idx]
        # centred within the cell (exactly 0 in a constant cell, where x - mean(x) can leave rounding dust)
        xc[idx] = x - x.mean() if np.ptp(x) > 0 else 0.0
        yc[idx] = y - y.mean() if np.ptp(y) > 0 else 0.0
        n_cells += 1
        row: dict = {**dict(zip(cells, key, strict=True)), "n": int(idx.size), "mean_chars": float(1000 * x.mean())}
        if idx.size > 2 and np.ptp(x) > 0 and np.ptp(y) > 0:
            lr = stats.linregress(x, y)
            tq = float(stats.t.ppf(1 - (1 - level) / 2, idx.size - 2))
            rho = stats.spearmanr(x, y)
            row.update(
                slope=float(lr.slope),
                slope_lo=float(lr.slope - tq * lr.stderr),
                slope_hi=float(lr.slope + tq * lr.stderr),
                r=float(lr.rvalue),
                rho=float(rho.statistic),
                p_rho=float(rho.pvalue),
            )
            if idx.size > 3 and abs(rho.statistic) < 1:
                zs.append(np.arctanh(rho.statistic))
                ws.append(idx.size - 3)
        rows.append(row)
    sxx = float((xc**2).sum())
    pooled: dict = {**dict.fromkeys(cells, "POOLED"), "n": int(len(t)), "mean_chars": float(1000 * x_all.mean())}
    if sxx > 0:
        b = float((xc * yc).sum() / sxx)
        df = len(t) - n_cells - 1
        resid = yc - b * xc
        se = float(np.sqrt((resid**2).sum() / df / sxx)) if df > 0 else float("nan")
        tq = float(stats.t.ppf(1 - (1 - level) / 2, df)) if df > 0 else float("nan")
        pooled.update(slope=b, slope_lo=b - tq * se, slope_hi=b + tq * se)
        if np.ptp(yc) > 0:
            pooled["r"] = float(np.corrcoef(xc, yc)[0, 1])
    if ws:
        zbar = float(np.average(zs, weights=ws))
        zse = float(np.sqrt(1.06 / np.sum(ws)))
        pooled.update(
            rho=float(np.tanh(zbar)),
            p_rho=float(2 * stats.norm.sf(abs(zbar) / zse)),
            rho_lo=float(np.tanh(zbar - stats.norm.ppf(1 - (1 - level) / 2) * zse)),
            rho_hi=float(np.tanh(zbar + stats.norm.ppf(1 - (1 - level) / 2) * zse)),
        )
    rows.append(pooled)
    cols = [*cells, "n", "mean_chars", "slope", "slope_lo", "slope_hi", "r", "rho", "p_rho", "rho_lo", "rho_hi"]
    return pd.DataFrame(rows).reindex(columns=cols)
