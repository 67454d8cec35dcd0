"""The full paper pipeline on per-instance results (model x condition x prompt x run x judge).

The per-instance results (~96,000 judge scores) are published only on the Hugging Face hub
(``angelo-leone/pro-worker-ai-benchmark``, ``results/*.json``); ``python -m compendium.data.acquire
pwb`` puts them under ``data/pwb/results/`` and the ``pwb`` stage then runs this path automatically.

Tidy schema (one row per judge score): ``model, condition, layer, dimension, prompt_id, run, judge,
score`` -- ``score`` in {0, 1, 2, 3}, NaN for a judge that returned no valid score. An optional
``prompt_position`` column keeps the position of the prompt in the results file's list (the authors'
correlation pairs prompts by that position). Layer 2 rows carry the released scenario average as a
single ``panel_mean`` judge row (the JSON keeps no per-judge Layer-2 scores).

Definitions (METHODS.md, PWB), each a function below:

- panel score of a run = ``int(median(valid judge scores))`` (3 judges: the median; 2: the floor of
  their mean; 1: that score); runs with no valid judge are dropped -- :func:`panel_scores`;
- PWI bootstrap: per (model, condition) a fresh ``numpy.random.default_rng(seed)``; each of the
  ``n_boot`` draws resamples every dimension's run scores with replacement, independently (dimensions
  in the order of :data:`compendium.pwb.DIMENSIONS`, runs ordered by prompt_id then run); the
  published PWI is the mean of the draws, the CI their 2.5/97.5 percentiles -- :func:`pwi_bootstrap`;
- d_pooled: Cohen's d (independent samples, pooled SD, ddof 1) on the concatenation of the model's
  Layer-1 run scores -- :func:`d_pooled`;
- Table 3 diagnostics with a 2,000-draw bootstrap CI (``default_rng(0)``) -- :func:`table3_bootstrap`;
- paired tests (baseline vs prompted runs matched on model, dimension, prompt_id and run):
  per-dimension Wilcoxon signed-rank and per-model paired t with Bonferroni -- :func:`paired_tests`;
- IRR on complete three-judge triples -- :func:`irr_complete_triples`;
- prompt-level Pearson correlations between dimensions -- :func:`prompt_level_correlation`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from ..data import pwbresults
from ..data.errors import require_columns
from ..data.pwbresults import check_results_json  # re-exported: the results-file check lives with the data
from ..stats.agreement import panel_agreement
from .constants import CONDITIONS, DIMENSIONS, MODEL_KEYS
from .weights import MAX_SCORE, pwi_matrix

SCHEMA: tuple[str, ...] = ("model", "condition", "layer", "dimension", "prompt_id", "run", "judge", "score")
RUN_KEYS: list[str] = ["model", "condition", "layer", "dimension", "prompt_id", "run"]
#: Optional columns the JSON loader adds (file order and the stored values; see instances_from_results_json).
EXTRA_COLUMNS: tuple[str, ...] = (
    "dim_position",
    "prompt_position",
    "run_position",
    "stored_score",
    "score_raw",
    "behavior_pass_rate",
)

__all__ = [
    "SCHEMA",
    "RUN_KEYS",
    "validate_instances",
    "check_results_json",
    "layer1_runs_of",
    "instances_from_results_json",
    "load_hf_results",
    "panel_scores",
    "layer1_runs",
    "pwi_bootstrap",
    "cohens_d",
    "d_pooled",
    "table3_bootstrap",
    "layer2_authors_filter",
    "layer2_low_cluster",
    "paired_tests",
    "irr_complete_triples",
    "prompt_level_correlation",
    "prompt_level_correlation_authors",
    "judge_anomalies",
    "layer_paired_effects",
    "EXTRA_COLUMNS",
    "layer_summary",
    "completeness",
    "run_instance_pipeline",
    "synthetic_instances",
]


# --------------------------------------------------------------------------------------------------
# schema and loading
# --------------------------------------------------------------------------------------------------


def validate_instances(df: pd.DataFrame, where: str = "instances") -> pd.DataFrame:
    """Check a tidy instance table; return it with normalised dtypes. Raises ValueError naming the problem."""
    require_columns(df, SCHEMA, where)
    if df.empty:
        raise ValueError(f"{where}: no rows")
    out = df.copy()
    bad = sorted(set(out["condition"].astype(str)) - set(CONDITIONS))
    if bad:
        raise ValueError(f"{where}: column 'condition' has {bad}; expected one of {list(CONDITIONS)}")
    layer = pd.to_numeric(out["layer"], errors="coerce")
    if layer.isna().any() or not layer.isin([1, 2, 3]).all():
        raise ValueError(f"{where}: column 'layer' must be 1, 2 or 3, found {sorted(set(out['layer'].astype(str)))}")
    out["layer"] = layer.astype(np.int8)
    run = pd.to_numeric(out["run"], errors="coerce")
    if run.isna().any() or (run < 0).any() or (run != np.round(run)).any():
        raise ValueError(f"{where}: column 'run' must hold non-negative integers")
    out["run"] = run.astype(np.int32)
    score = pd.to_numeric(out["score"], errors="coerce")
    if (score.isna() & out["score"].notna()).any():
        raise ValueError(f"{where}: column 'score' holds non-numeric values")
    judged = out["layer"] != 2
    bad_score = score.notna() & (((score < 0) | (score > MAX_SCORE)) | (judged & (score != np.round(score))))
    if bad_score.any():
        raise ValueError(
            f"{where}: column 'score' must be an integer 0-{MAX_SCORE} (Layer 2 scenario "
            f"averages: a number in [0, {MAX_SCORE}]) or missing; bad values: "
            f"{sorted(set(score[bad_score].tolist()))[:10]}"
        )
    out["score"] = score.astype(float)
    for c in ("model", "condition", "dimension", "prompt_id", "judge"):
        if out[c].isna().any():
            raise ValueError(f"{where}: column {c!r} has missing values")
        out[c] = out[c].astype(str)
    dup = out.duplicated(RUN_KEYS + ["judge"])
    if dup.any():
        first = out.loc[dup, RUN_KEYS + ["judge"]].iloc[0].to_dict()
        raise ValueError(f"{where}: {int(dup.sum())} duplicate judge score(s), e.g. {first}")
    return out


def _judge_value(s) -> float:
    """A judge value as the authors' IRR code uses it: ``int(x)`` when 0 <= x <= 3, else missing."""
    try:
        x = float(s)
    except (TypeError, ValueError):
        return np.nan
    return float(int(x)) if 0 <= x <= MAX_SCORE else np.nan


def _raw_value(s) -> float:
    try:
        return float(s)
    except (TypeError, ValueError):
        return np.nan


def _stored_score(run: Mapping) -> float:
    """The run's stored panel ``score`` (the runner's int(median), -1 when no judge succeeded)."""
    s = run.get("score", -1)
    try:
        return float(s)
    except (TypeError, ValueError):
        return -1.0


def _judge_rows(base: dict, run: Mapping) -> list[dict]:
    """Judge rows of one run record of the authors' results JSON (runner.py / judge.py format).

    ``score`` is the judge value as the authors' IRR code reads it (``int(x)`` for 0 <= x <= 3, else
    missing), ``score_raw`` the value as stored, ``stored_score`` the run's stored panel score (what the
    authors' analysis counts). A run whose record has no judge detail gets one row (judge ``stored``)
    carrying only the stored score, so no run the authors count is lost.
    """
    rows = []
    base = {**base, "stored_score": _stored_score(run)}
    results = run.get("individual_results")
    if results:
        for j, r in enumerate(results):
            s = r.get("score", -1) if isinstance(r, Mapping) else r
            name = (r.get("judge_model") if isinstance(r, Mapping) else None) or f"judge_{j}"
            rows.append({**base, "judge": str(name), "score": _judge_value(s), "score_raw": _raw_value(s)})
        names = [r["judge"] for r in rows]
        if len(set(names)) < len(names):  # the same judge twice: keep both, labelled by position
            for j, r in enumerate(rows):
                r["judge"] = f"{r['judge']}#{j}"
        return rows
    scores = run.get("individual_scores")
    if scores:
        for j, s in enumerate(scores):
            rows.append({**base, "judge": f"judge_{j}", "score": _judge_value(s), "score_raw": _raw_value(s)})
        return rows
    s = base["stored_score"]
    if 0 <= s <= MAX_SCORE:  # single-judge record
        rows.append({**base, "judge": "single", "score": _judge_value(s), "score_raw": s})
    return rows


def layer1_runs_of(data: Mapping) -> Iterator[tuple[int, str, int, str, int, Mapping]]:
    """The Layer-1 run records of one results JSON, in file order, with the keys the tidy rows get:
    ``(dim_position, dimension, prompt_position, prompt_id, run, record)``. A repeated prompt id within a
    dimension is kept, labelled ``<id>#<position>``; a prompt record without ``runs`` is one run (run 0). The one
    reading of the file's Layer-1 layout (:func:`instances_from_results_json`, and the response lengths of
    :func:`compendium.audit.judges.response_lengths`)."""
    seen: set = set()
    for dpos, (dim, prompts) in enumerate((data.get("layer1") or {}).items()):
        for pos, p in enumerate(prompts):
            pid = str(p.get("prompt_id", f"{dim}_{pos:02d}"))
            if (dim, pid) in seen:  # a repeated prompt id: keep it, labelled by its position
                pid = f"{pid}#{pos}"
            seen.add((dim, pid))
            runs = p["runs"] if "runs" in p else [dict(p, run=0)]
            for k, r in enumerate(runs):
                yield dpos, dim, pos, pid, k, r


def instances_from_results_json(data: Mapping, model: str | None = None, condition: str | None = None) -> pd.DataFrame:
    """Tidy rows of one results file of the HF release (one model x condition, all three layers).

    Besides the schema columns: ``dim_position``, ``prompt_position``, ``run_position`` (the file's
    order, which the authors' bootstrap stream and correlation follow), ``stored_score`` and
    ``score_raw`` (see :func:`_judge_rows`).
    """
    model = model or data.get("model_name")
    condition = condition or data.get("variant")
    if not model or not condition:
        raise ValueError("results JSON lacks 'model_name' / 'variant'")
    rows: list[dict] = []
    for dpos, dim, pos, pid, k, r in layer1_runs_of(data):
        base = {
            "model": model,
            "condition": condition,
            "layer": 1,
            "dimension": dim,
            "prompt_id": pid,
            "run": k,
            "dim_position": dpos,
            "prompt_position": pos,
            "run_position": k,
        }
        rows.extend(_judge_rows(base, r))
    for pos, p in enumerate(data.get("layer3") or []):
        base = {
            "model": model,
            "condition": condition,
            "layer": 3,
            "dimension": "adversarial_resilience",
            "prompt_id": str(p.get("prompt_id", f"ar_{pos:02d}")),
            "run": 0,
            "dim_position": 0,
            "prompt_position": pos,
            "run_position": 0,
        }
        rows.extend(_judge_rows(base, p))
    for pos, sc in enumerate(data.get("layer2") or []):
        if sc.get("average_score") is None:
            continue
        rows.append(
            {
                "model": model,
                "condition": condition,
                "layer": 2,
                "dimension": "scenario",
                "prompt_id": str(sc.get("scenario_id", f"scenario_{pos:02d}")),
                "run": 0,
                "dim_position": 0,
                "prompt_position": pos,
                "run_position": 0,
                "judge": "panel_mean",
                "score": float(sc["average_score"]),
                "score_raw": float(sc["average_score"]),
                "stored_score": float(sc["average_score"]),
                "behavior_pass_rate": _raw_value(sc.get("behavior_pass_rate")),
            }
        )
    cols = list(SCHEMA) + list(EXTRA_COLUMNS)
    return pd.DataFrame(rows, columns=cols)


def load_hf_results(
    results_dir: str | Path,
    models: Iterable[str] | None = tuple(MODEL_KEYS),
    complete: bool = False,
    verify: bool = True,
) -> pd.DataFrame:
    """Load the per-instance release from ``results_dir`` into the tidy schema (validated).

    Accepts either tidy tables (``*.parquet`` / ``*.csv`` with the schema columns) or the authors'
    results JSON files (``*.json``, one model x condition each, as written by their ``runner.py``), of
    which :func:`compendium.data.pwbresults.select_files` picks the ones the analysis reads (per model and
    condition the latest file holding all three layers, as the authors' ``run_analysis.py``).
    ``models`` restricts to the paper's seven models (None: keep all). A tidy table gives the JSON's PWIs
    only with the JSON loader's extra columns (:data:`EXTRA_COLUMNS`: the file's dimension, prompt and run
    positions, and ``stored_score``): without them the bootstrap draws its random stream in the authors'
    dimension order rather than the file's, so the same run scores give a bootstrap mean (and interval) that
    differs at the Monte-Carlo error (the point PWI is the same), and the panel score is recomputed from the
    judge values rather than read (``tests/pwb/test_score_formats.py``).

    A file without a layer (absent or null: the runner's Layer-1 checkpoint) is skipped when a complete
    file for the same model and condition exists and refused otherwise (:mod:`compendium.data.anomalies`);
    the skipped files are listed in ``attrs["skipped_files"]`` (``{"file": ..., "missing": "layer2"}``),
    the files of other models in ``attrs["other_model_files"]``. ``complete``: refuse a release in which a
    model x condition of ``models`` has no file (:func:`compendium.data.pwbresults.require_cells`; the
    stage's check). ``verify``: first check an acquired folder (``data/pwb/results``) against its local
    manifest, ``acquired/pwb/manifest.json`` (off for an acquisition's own staging copy).
    """
    d = Path(results_dir)
    if not d.is_dir():
        raise FileNotFoundError(
            f"{d}: per-instance results folder not found (acquire it with "
            f"`python -m compendium.data.acquire pwb` when the hub is reachable)"
        )
    if verify:
        pwbresults.verify_folder(d)
    tables = sorted(d.glob("*.parquet")) + sorted(d.glob("*.csv"))
    frames: list[pd.DataFrame] = []
    skipped: list[dict[str, str]] = []
    others: list[dict[str, str]] = []
    files: dict[tuple[str, str], Path] = {}
    if tables:
        for f in tables:
            t = pd.read_parquet(f) if f.suffix == ".parquet" else pd.read_csv(f)
            frames.append(validate_instances(t, where=str(f)))
    else:
        sel = pwbresults.select_files(d, models, verify=False)
        skipped, others = sel.skipped, sel.other_models
        for (name, variant), (f, data) in sel.chosen.items():
            files[(name, variant)] = f
            frames.append(instances_from_results_json(data, name, variant))
    out = validate_instances(pd.concat(frames, ignore_index=True), where=str(d))
    if complete:
        pairs = out[["model", "condition"]].drop_duplicates().itertuples(index=False, name=None)
        pwbresults.require_cells(pairs, d, MODEL_KEYS if models is None else models, files)
    out.attrs["skipped_files"] = skipped
    out.attrs["other_model_files"] = others
    return out


# --------------------------------------------------------------------------------------------------
# panel rule
# --------------------------------------------------------------------------------------------------


def panel_scores(instances: pd.DataFrame, validate: bool = True) -> pd.DataFrame:
    """Run-level panel scores, as the authors' analysis counts them.

    With a ``stored_score`` column (the JSON loader's): the run's stored ``score`` -- the runner's
    ``int(median)`` -- is the panel score and runs with a stored score below 0 are dropped, whatever
    the individual judge values say (METHODS.md: the analysis never recomputes it). Without it (tidy
    tables): ``int(median(valid judge scores))``, runs with no valid judge dropped.

    Returns RUN_KEYS + ``panel`` (float: integer-valued for Layers 1 and 3, the scenario average for
    Layer 2), ``recomputed`` (int(median) of the valid judge values, NaN without any), ``n_judges``
    (valid judge values) and the file-order columns the input has.
    """
    inst = validate_instances(instances) if validate else instances
    valid = inst[inst["score"].notna()]
    g = valid.groupby(RUN_KEYS, sort=True, observed=True)["score"]
    rec = pd.DataFrame({"median": g.median(), "n_judges": g.size()})
    layer = rec.index.get_level_values("layer").to_numpy()
    rec["recomputed"] = np.where(layer == 2, rec["median"], np.floor(rec["median"]))
    rec = rec.drop(columns="median")
    extra = [
        c
        for c in ("dim_position", "prompt_position", "run_position", "stored_score", "behavior_pass_rate")
        if c in inst.columns
    ]
    if "stored_score" in inst.columns and inst["stored_score"].notna().any():
        allruns = inst.groupby(RUN_KEYS, sort=True, observed=True)[extra].first()
        out = allruns.join(rec, how="left")
        out["n_judges"] = out["n_judges"].fillna(0).astype(int)
        stored = out["stored_score"]
        out["panel"] = np.where(stored.notna(), stored, out["recomputed"])
        out = out[out["panel"].notna() & (out["panel"] >= 0)]
    else:
        out = rec.copy()
        out["panel"] = out["recomputed"]
        if extra:
            out = out.join(inst.groupby(RUN_KEYS, sort=True, observed=True)[extra].first(), how="left")
    out = out.reset_index()
    cols = RUN_KEYS + ["panel", "recomputed", "n_judges"] + [c for c in extra if c != "stored_score"]
    return out[cols]


def layer1_runs(panel: pd.DataFrame) -> pd.DataFrame:
    """The Layer-1 rows of :func:`panel_scores` in file order: by model, condition, then the file's
    dimension / prompt / run positions where known (else dimension, prompt_id, run)."""
    if "panel" not in panel.columns:
        raise ValueError("panel: expected the output of panel_scores() (column 'panel' missing)")
    l1 = panel[panel["layer"] == 1]
    if l1.empty:
        raise ValueError("panel: no Layer-1 runs")
    return _file_order(l1).reset_index(drop=True)


def _file_order(t: pd.DataFrame) -> pd.DataFrame:
    """Sort runs by model, condition and the results file's order (dimension, prompt, run)."""
    t = t.copy()
    rank = {d: i for i, d in enumerate(DIMENSIONS)}
    if "dim_position" in t.columns and t["dim_position"].notna().all():
        t["_d"] = t["dim_position"]
    else:
        t["_d"] = t["dimension"].map(rank).fillna(len(rank))
    keys = ["model", "condition", "_d", "dimension"]
    keys += (
        ["prompt_position"] if "prompt_position" in t.columns and t["prompt_position"].notna().all() else ["prompt_id"]
    )
    keys += ["run_position"] if "run_position" in t.columns and t["run_position"].notna().all() else ["run"]
    return t.sort_values(keys, kind="stable").drop(columns="_d")


def judge_anomalies(instances: pd.DataFrame) -> pd.DataFrame:
    """Every judge value and stored score that the rubric (integers 0-3) or the panel rule does not allow.

    Rows: one per anomaly, with model, condition, layer, dimension, prompt_id, run, judge, value,
    stored_score, kind: ``above 3``, ``below 0`` (other than the runner's -1 failure code),
    ``not an integer`` (e.g. 2.5), ``stored score differs from int(median) of the valid judge values``,
    ``stored score not an integer``, ``stored score but no valid judge value``.
    The analysis follows the stored score regardless (METHODS.md); this table is for the reader.
    """
    cols = ["model", "condition", "layer", "dimension", "prompt_id", "run", "judge", "value", "stored_score", "kind"]
    if "score_raw" not in instances.columns:
        return pd.DataFrame(columns=cols)
    t = instances[instances["layer"] != 2]
    raw = t["score_raw"]
    kinds = pd.Series("", index=t.index)
    kinds[raw > MAX_SCORE] = "above 3"
    kinds[(raw < 0) & (raw != -1)] = "below 0"
    kinds[raw.notna() & (raw >= 0) & (raw <= MAX_SCORE) & (raw != np.round(raw))] = "not an integer"
    bad = t[kinds != ""].assign(value=raw[kinds != ""], kind=kinds[kinds != ""])
    rows = [bad.reindex(columns=cols)]
    if "stored_score" in t.columns:
        ok = t[raw.notna() & (raw >= 0) & (raw <= MAX_SCORE) & (raw == np.round(raw))]
        med = ok.groupby(RUN_KEYS, observed=True)["score_raw"].median()
        st = t.groupby(RUN_KEYS, observed=True)["stored_score"].first()
        both = pd.concat([np.floor(med).rename("rec"), st], axis=1)
        diff = both[both["stored_score"].ge(0) & both["rec"].notna() & (both["rec"] != both["stored_score"])]
        diff = diff.reset_index().assign(
            judge="(panel)",
            value=lambda x: x["rec"],
            kind="stored score differs from int(median) of the valid judge values",
        )
        rows.append(diff.reindex(columns=cols))
        odd = both[both["stored_score"].ge(0) & (both["stored_score"] != np.round(both["stored_score"]))].reset_index()
        if len(odd):
            rows.append(
                odd.assign(judge="(panel)", value=odd["stored_score"], kind="stored score not an integer").reindex(
                    columns=cols
                )
            )
        lost = both[both["stored_score"].ge(0) & both["rec"].isna()].reset_index()
        if len(lost):
            rows.append(
                lost.assign(judge="(panel)", value=np.nan, kind="stored score but no valid judge value").reindex(
                    columns=cols
                )
            )
    out = (
        pd.concat([r for r in rows if len(r)], ignore_index=True)
        if any(len(r) for r in rows)
        else pd.DataFrame(columns=cols)
    )
    return out.sort_values(
        ["model", "condition", "layer", "dimension", "prompt_id", "run", "judge"], kind="stable"
    ).reset_index(drop=True)


def _ordered_dims(present: Iterable[str]) -> list[str]:
    present = list(dict.fromkeys(present))
    return [d for d in DIMENSIONS if d in present] + sorted(d for d in present if d not in DIMENSIONS)


# --------------------------------------------------------------------------------------------------
# PWI bootstrap and effect sizes
# --------------------------------------------------------------------------------------------------


def _dimension_lists(t: pd.DataFrame) -> dict[str, np.ndarray]:
    """{dimension: run scores} of one (model, condition), both in the results file's order."""
    t = _file_order(t)
    return {d: g["panel"].to_numpy(dtype=float) for d, g in t.groupby("dimension", sort=False)}


def pwi_bootstrap(
    runs: pd.DataFrame, weights: Mapping[str, float], *, n_boot: int, seed: int, ci: float = 0.95
) -> pd.DataFrame:
    """Bootstrap PWI per (model, condition) with the authors' exact random stream (METHODS.md).

    Each (model, condition) gets ``default_rng(seed)``; each of the ``n_boot`` draws resamples every
    dimension present (weighted or not), in the results file's dimension order, with
    ``rng.choice(scores, size=len(scores))`` on the scores in file order; the draw's PWI uses the
    authors' expression over the dimensions present. Computed by
    :func:`compendium.pwb.bootstrap.pwi_bootstrap_exact` (bit-identical to the plain loop). Returns
    model, condition, pwi (mean of the draws: the published statistic), pwi_point (from the sample
    means), ci_lower, ci_upper (percentiles), boot_sd, mc_se (of pwi), ci_lower_mc_se, ci_upper_mc_se, n_runs.
    """
    from .bootstrap import percentile_mc_se, pwi_bootstrap_exact

    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    if not 0 < ci < 1:
        raise ValueError(f"ci must lie in (0, 1), got {ci}")
    if "panel" not in runs.columns:
        raise ValueError(
            "runs: expected Layer-1 panel scores (column 'panel' missing); use layer1_runs(panel_scores(...))"
        )
    lo_q, hi_q = 50 * (1 - ci), 50 * (1 + ci)
    rows = []
    for (model, cond), t in runs.groupby(["model", "condition"], sort=True):
        lists = _dimension_lists(t)
        res = pwi_bootstrap_exact(lists, weights, n_boot=n_boot, seed=seed, ci=ci)
        point = pd.DataFrame([{d: x.mean() for d, x in lists.items()}])
        p_point = float(pwi_matrix(point, weights).iloc[0])
        rows.append(
            {
                "model": model,
                "condition": cond,
                "pwi": res["pwi_mean"],
                "pwi_point": p_point,
                "ci_lower": res["ci_lower"],
                "ci_upper": res["ci_upper"],
                "boot_sd": res["pwi_std"],
                "mc_se": res["mc_se"],
                "ci_lower_mc_se": percentile_mc_se(res["samples"], lo_q),
                "ci_upper_mc_se": percentile_mc_se(res["samples"], hi_q),
                "n_runs": int(len(t)),
            }
        )
    return pd.DataFrame(rows)


def cohens_d(baseline, prompted) -> float:
    """Cohen's d, independent samples, pooled SD with ddof 1: (mean_p - mean_b) / s_pooled."""
    b = np.asarray(baseline, dtype=float)
    p = np.asarray(prompted, dtype=float)
    if b.size < 2 or p.size < 2:
        raise ValueError(f"Cohen's d needs >= 2 scores per group, got {b.size} and {p.size}")
    if np.isnan(b).any() or np.isnan(p).any():
        raise ValueError("Cohen's d: scores contain NaN")
    sp2 = ((b.size - 1) * b.var(ddof=1) + (p.size - 1) * p.var(ddof=1)) / (b.size + p.size - 2)
    if sp2 == 0:
        return float("nan")
    return float((p.mean() - b.mean()) / np.sqrt(sp2))


def d_pooled(runs: pd.DataFrame) -> pd.DataFrame:
    """d_pooled per model on the concatenation of its Layer-1 run scores (not paired, not weighted)."""
    rows = []
    for model, t in runs.groupby("model", sort=True):
        b = t.loc[t["condition"] == "baseline", "panel"].to_numpy()
        p = t.loc[t["condition"] == "with_system_prompt", "panel"].to_numpy()
        if b.size < 2 or p.size < 2:
            cond, n = ("baseline", b.size) if b.size < 2 else ("with_system_prompt", p.size)
            raise ValueError(
                f"d_pooled: model {model!r} has {n} Layer-1 run score(s) in condition {cond}, and Cohen's d needs at least 2 "
                f"per condition (is its {cond} results file missing, or without scored layer1 runs?)"
            )
        rows.append(
            {
                "model": model,
                "d_pooled": cohens_d(b, p),
                "n_baseline": b.size,
                "n_prompted": p.size,
                "mean_baseline": float(b.mean()),
                "mean_prompted": float(p.mean()),
            }
        )
    return pd.DataFrame(rows)


def table3_bootstrap(runs: pd.DataFrame, *, n_boot: int, seed: int, ci: float = 0.95) -> pd.DataFrame:
    """Table 3 from runs, as ``run_analysis.py`` computes it (METHODS.md).

    Per dimension (the authors' DIMENSIONS order), the models (sorted by name) with scores in both
    conditions contribute their run scores in file order to a prompted and a baseline pool; Δ = mean
    difference; models improving = models whose prompted mean exceeds their baseline mean. The CI is
    the authors' exact stream: one ``default_rng(seed)``, per dimension ``n_boot`` times
    ``choice(p).mean() - choice(b).mean()`` (:func:`compendium.pwb.bootstrap.delta_ci_exact`).
    """
    from .bootstrap import delta_ci_exact

    per = {(m, c): _dimension_lists(t) for (m, c), t in runs.groupby(["model", "condition"], sort=True)}
    models = sorted({m for m, _ in per})
    pools, meta = [], []
    for d in DIMENSIONS:
        b_all, p_all, improving = [], [], 0
        for m in models:
            b = per.get((m, "baseline"), {}).get(d, np.zeros(0))
            p = per.get((m, "with_system_prompt"), {}).get(d, np.zeros(0))
            if b.size == 0 or p.size == 0:
                continue
            b_all.append(b)
            p_all.append(p)
            improving += int(np.mean(p) > np.mean(b))
        if not b_all:
            continue
        b_arr, p_arr = np.concatenate(b_all), np.concatenate(p_all)
        pools.append((p_arr, b_arr))
        meta.append(
            {
                "dimension": d,
                "baseline": b_arr.mean(),
                "prompted": p_arr.mean(),
                "delta": p_arr.mean() - b_arr.mean(),
                "n_baseline": b_arr.size,
                "n_prompted": p_arr.size,
                "models_improving": improving,
            }
        )
    cis = delta_ci_exact(pools, n_boot=n_boot, seed=seed, ci=ci)
    return pd.DataFrame([{**m, **c} for m, c in zip(meta, cis)])


def paired_tests(runs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Baseline vs prompted paired on (model, dimension, prompt_id, run), both conditions scored.

    Returns ``per_dimension`` (Wilcoxon signed-rank over all models' pairs, zero differences dropped
    as in scipy's default; Bonferroni over the dimensions), ``per_model`` (paired t over all the
    model's pairs, d_z = mean diff / SD diff; Bonferroni over models) and ``pooled`` (paired t, d_z).
    The paper's pairing rule is not in the released code; this one matches runs by prompt and run
    index, which is what the design (5 runs per prompt per condition) pairs.
    """
    w = runs.set_index(["model", "dimension", "prompt_id", "run", "condition"])["panel"].unstack("condition")
    w = w.dropna(subset=[c for c in CONDITIONS if c in w.columns])
    if not set(CONDITIONS) <= set(w.columns) or w.empty:
        raise ValueError("paired_tests: no run is scored under both conditions")
    w = w.reset_index()
    w["diff"] = w["with_system_prompt"] - w["baseline"]
    dims = _ordered_dims(w["dimension"])
    per_dim = []
    for d in dims:
        t = w[w["dimension"] == d]
        res = stats.wilcoxon(t["with_system_prompt"], t["baseline"]) if (t["diff"] != 0).any() else None
        p = float(res.pvalue) if res is not None else 1.0
        per_dim.append(
            {
                "dimension": d,
                "n_pairs": len(t),
                "mean_diff": t["diff"].mean(),
                "wilcoxon_stat": float(res.statistic) if res is not None else np.nan,
                "p": p,
                "p_bonferroni": min(1.0, p * len(dims)),
            }
        )
    models = sorted(w["model"].unique())
    per_model = []
    for m in models:
        t = w[w["model"] == m]
        res = stats.ttest_rel(t["with_system_prompt"], t["baseline"])
        sd = t["diff"].std(ddof=1)
        per_model.append(
            {
                "model": m,
                "n_pairs": len(t),
                "mean_diff": t["diff"].mean(),
                "t": float(res.statistic),
                "p": float(res.pvalue),
                "p_bonferroni": min(1.0, float(res.pvalue) * len(models)),
                "d_z": t["diff"].mean() / sd if sd > 0 else np.nan,
            }
        )
    res = stats.ttest_rel(w["with_system_prompt"], w["baseline"])
    sd = w["diff"].std(ddof=1)
    pooled = pd.DataFrame(
        [
            {
                "n_pairs": len(w),
                "mean_diff": w["diff"].mean(),
                "t": float(res.statistic),
                "p": float(res.pvalue),
                "d_z": w["diff"].mean() / sd if sd > 0 else np.nan,
            }
        ]
    )
    return {"per_dimension": pd.DataFrame(per_dim), "per_model": pd.DataFrame(per_model), "pooled": pooled}


def layer_paired_effects(panel: pd.DataFrame, layer: int) -> pd.DataFrame:
    """Layer 2 (scenarios) or Layer 3 (adversarial prompts) per model and pooled: baseline and prompted
    means, their difference, and the paired Cohen's d (d_z = mean / SD of the differences, ddof 1) over
    the units scored in both conditions, matched by prompt / scenario id; for Layer 2 also the mean
    behaviour pass rate (%) of the prompted condition. The paper's code for the d is not released;
    d_z is the paired d the text describes ("paired Cohen's d on N = 16 scenarios")."""
    t = panel[panel["layer"] == layer]
    rows = []
    for model, g in list(t.groupby("model", sort=True)) + [("POOLED", t)]:
        w = g.pivot_table(index=["model", "prompt_id"], columns="condition", values="panel", aggfunc="first")
        b = g.loc[g["condition"] == "baseline", "panel"]
        p = g.loc[g["condition"] == "with_system_prompt", "panel"]
        row = {
            "model": model,
            "base": float(b.mean()) if len(b) else np.nan,
            "prompted": float(p.mean()) if len(p) else np.nan,
        }
        row["delta"] = row["prompted"] - row["base"]
        if set(CONDITIONS) <= set(w.columns):
            diff = (w["with_system_prompt"] - w["baseline"]).dropna()
            sd = diff.std(ddof=1) if len(diff) > 1 else np.nan
            row["d"] = float(diff.mean() / sd) if sd and np.isfinite(sd) and sd > 0 else np.nan
            row["n_pairs"] = int(len(diff))
            if len(diff) > 1 and sd > 0:
                res_t = stats.ttest_1samp(diff.to_numpy(), 0.0)
                row["t"], row["p"] = float(res_t.statistic), float(res_t.pvalue)
        if "behavior_pass_rate" in g.columns:
            rates = g.loc[g["condition"] == "with_system_prompt", "behavior_pass_rate"].dropna()
            row["behavior_pct"] = float(100 * rates.mean()) if len(rates) else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def irr_complete_triples(
    instances: pd.DataFrame, layer: int = 1, n_judges: int = 3, validate: bool = True
) -> pd.DataFrame:
    """Panel IRR per dimension (and POOLED) on runs with exactly ``n_judges`` valid judge scores.

    Judges are put in columns by the sorted judge label within each run (the same panel everywhere).
    Columns: dimension, n, exact, adjacent, qwk, alpha, spread (see :func:`panel_agreement`), and
    n_excluded (runs of that dimension with fewer valid scores).
    """
    inst = validate_instances(instances) if validate else instances
    inst = inst[(inst["layer"] == layer) & inst["score"].notna()]
    keys = ["model", "condition", "dimension", "prompt_id", "run"]
    inst = inst.sort_values(keys + ["judge"], kind="stable")
    cnt = inst.groupby(keys)["score"].transform("size")
    full = inst[cnt == n_judges].copy()
    full["slot"] = full.groupby(keys).cumcount()
    wide = full.pivot(index=keys, columns="slot", values="score")
    n_runs = inst.groupby(keys).size()
    excl = (n_runs != n_judges).groupby(level="dimension").sum()
    rows = []
    for d in _ordered_dims(wide.index.get_level_values("dimension")):
        arr = wide.xs(d, level="dimension").to_numpy()
        rows.append({"dimension": d, **panel_agreement(arr), "n_excluded": int(excl.get(d, 0))})
    if rows:
        rows.append({"dimension": "POOLED", **panel_agreement(wide.to_numpy()), "n_excluded": int(excl.sum())})
    return pd.DataFrame(rows)


def prompt_level_correlation_authors(runs: pd.DataFrame) -> tuple[pd.DataFrame | None, int]:
    """The paper's discriminant-validity correlations (``run_analysis.py`` section 5a, METHODS.md).

    For each result file in the analysis's order (models sorted by name; baseline, then prompted) and
    each dimension (DIMENSIONS order), the prompt-level means (mean of a prompt's valid run scores, in
    the file's prompt order; a prompt with no valid run is skipped) are appended to one long list per
    dimension; every list is cut to the shortest; Pearson r between the cut lists, 0 where a list is
    constant. A skipped prompt therefore shifts every later pair (see
    :func:`prompt_level_correlation` for the pairing by prompt). Returns (matrix or None when the
    shortest list has 10 or fewer entries, as the authors' code, shortest length).
    """
    lists: dict[str, list[float]] = {d: [] for d in DIMENSIONS}
    for (_, _), t in sorted(
        runs.groupby(["model", "condition"], sort=False), key=lambda kv: (kv[0][0], CONDITIONS.index(kv[0][1]))
    ):
        t = _file_order(t)
        pkey = (
            "prompt_position" if "prompt_position" in t.columns and t["prompt_position"].notna().all() else "prompt_id"
        )
        for d, g in t.groupby("dimension", sort=False):
            if d in lists:
                lists[d].extend(g.groupby(pkey, sort=False)["panel"].mean().tolist())
    nonempty = [len(v) for v in lists.values() if v]
    min_len = min(nonempty) if nonempty else 0
    if min_len <= 10:
        return None, min_len
    mat = np.zeros((len(DIMENSIONS), len(DIMENSIONS)))
    for i, d1 in enumerate(DIMENSIONS):
        for j, d2 in enumerate(DIMENSIONS):
            v1, v2 = np.asarray(lists[d1][:min_len]), np.asarray(lists[d2][:min_len])
            if v1.size and v2.size and np.std(v1) > 0 and np.std(v2) > 0:
                mat[i, j] = float(np.corrcoef(v1, v2)[0, 1])
    return pd.DataFrame(mat, index=list(DIMENSIONS), columns=list(DIMENSIONS)), min_len


def prompt_level_correlation(runs: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Pearson r between dimensions over prompt-level means, paired by prompt: the project's variant
    (``pwb.cf_co.r.variant.paired``) beside the paper's rule (:func:`prompt_level_correlation_authors`).

    Within each model x condition the prompts of two dimensions are paired by their position in the
    dimension's prompt list: ``prompt_position`` when the table has it (the order of the authors'
    results file), else the number at the end of ``prompt_id`` (``cf_07`` -> 7), else the rank of the
    prompt id. Pairing is by that position *value*, so a prompt missing from one dimension drops only
    its own position, never shifts the others; positions not present in every dimension are dropped.
    The pairs of all model x condition keys are pooled. Returns (matrix, number of paired positions).
    """
    pm = (
        runs.groupby(["model", "condition", "dimension", "prompt_id"], sort=True)["panel"]
        .mean()
        .reset_index(name="mean")
    )
    if "prompt_position" in runs.columns and runs["prompt_position"].notna().all():
        pos = runs.groupby(["model", "condition", "dimension", "prompt_id"], sort=True)["prompt_position"].first()
        pm["position"] = pos.to_numpy()
    else:
        suffix = pm["prompt_id"].astype(str).str.extract(r"(\d+)$")[0]
        if suffix.notna().all():
            pm["position"] = suffix.astype(int)
        else:
            pm["position"] = pm.groupby(["model", "condition", "dimension"])["prompt_id"].rank(method="first")
    wide = pm.pivot_table(index=["model", "condition", "position"], columns="dimension", values="mean")
    wide = wide[[d for d in _ordered_dims(pm["dimension"]) if d in wide.columns]].dropna(how="any")
    if wide.empty:
        raise ValueError("prompt_level_correlation: no model x condition has prompt means for every dimension")
    return wide.corr(method="pearson"), len(wide)


def layer_summary(panel: pd.DataFrame) -> pd.DataFrame:
    """Pooled mean and N per layer and condition (Layer 1: run scores; 2: scenario averages; 3: prompt scores)."""
    g = panel.groupby(["layer", "condition"])["panel"]
    out = pd.DataFrame({"mean": g.mean(), "n": g.size()}).reset_index()
    out["layer"] = "Layer " + out["layer"].astype(str)
    return out


def completeness(panel: pd.DataFrame, n_prompts: int = 20, n_runs: int = 5) -> pd.DataFrame:
    """Layer-1 runs with a panel score per dimension, vs the design's models x conditions x prompts x runs."""
    l1 = panel[panel["layer"] == 1]
    n_mc = l1.groupby(["model", "condition"]).ngroups
    g = l1.groupby("dimension").agg(scored=("panel", "size"), three_judges=("n_judges", lambda s: int((s == 3).sum())))
    g["expected"] = n_mc * n_prompts * n_runs
    g["share"] = g["scored"] / g["expected"]
    return g.reindex(_ordered_dims(g.index)).reset_index()


def run_instance_pipeline(
    instances: pd.DataFrame,
    weights: Mapping[str, float],
    *,
    n_boot: int,
    seed: int,
    diag_n_boot: int,
    diag_seed: int,
    ci: float = 0.95,
) -> dict:
    """Everything the paper computes from per-instance data, as a dict of DataFrames.

    Keys: panel, runs (Layer 1), pwi, d_pooled, diagnostics, tests (dict), irr, correlation (paired by
    prompt: the variant), n_corr_pairs, correlation_authors (the paper's rule), corr_min_len,
    anomalies (judge data-quality table), layers, completeness.
    """
    instances = validate_instances(instances)
    panel = panel_scores(instances, validate=False)
    runs = layer1_runs(panel)
    corr, n_pairs = prompt_level_correlation(runs)
    corr_a, min_len = prompt_level_correlation_authors(runs)
    return {
        "layer2": layer_paired_effects(panel, 2),
        "layer3": layer_paired_effects(panel, 3),
        "anomalies": judge_anomalies(instances),
        "correlation_authors": corr_a,
        "corr_min_len": min_len,
        "panel": panel,
        "runs": runs,
        "pwi": pwi_bootstrap(runs, weights, n_boot=n_boot, seed=seed, ci=ci),
        "d_pooled": d_pooled(runs),
        "diagnostics": table3_bootstrap(runs, n_boot=diag_n_boot, seed=diag_seed, ci=ci),
        "tests": paired_tests(runs),
        "irr": irr_complete_triples(instances, validate=False),
        "correlation": corr,
        "n_corr_pairs": n_pairs,
        "layers": layer_summary(panel),
        "completeness": completeness(panel),
    }


def layer2_authors_filter(panel: pd.DataFrame) -> pd.DataFrame:
    """Table 5 per-model base / prompted / delta as the authors' script prints them (one row per model:
    model, base, prompted, delta; empty without Layer-2 runs).

    The paper's Table 5 (and the authors' own ``layer_summary.csv``) average every scenario with an
    ``average_score`` (all 16 per model and condition): that is the claim's value. The per-model summary
    of ``run_analysis.py`` section 7 instead keeps a scenario only ``if s.get("average_score")``, which is
    false for an average of exactly 0.0 as well as for a missing one, so a scenario on which every judged
    turn scored 0 -- the lowest rubric level, a valid score -- leaves the mean, and the mean rises. In
    METHODS terms the variant averages the scenario-level scores that are non-zero, not the valid ones."""
    l2 = panel[panel["layer"] == 2]
    rows = []
    for model, g in l2.groupby("model", sort=True):
        keep = g[g["panel"] != 0]
        means = {
            c: float(keep.loc[keep["condition"] == cond, "panel"].mean()) if (keep["condition"] == cond).any() else 0.0
            for c, cond in (("base", "baseline"), ("prompted", "with_system_prompt"))
        }  # the authors' script prints 0 when no scenario passes the filter
        rows.append({"model": model, **means, "delta": means["prompted"] - means["base"]})
    return pd.DataFrame(rows, columns=["model", "base", "prompted", "delta"])


def layer2_low_cluster(layer2: pd.DataFrame | None) -> dict[str, float] | None:
    """App B.1 "three models cluster at 1.40-1.50/3", the low group of the prompted Layer-2 means
    (:func:`layer_paired_effects`, layer 2): the models whose prompted mean lies below the mean of all
    models' prompted means; their number (``n``) and the lowest (``low``) and highest (``high``) of their
    means, or None. The paper does not define the group; this reading is the one its three numbers
    determine (on Table 5: Devstral 1.50, Qwen3.5 1.50, Nemotron 1.39)."""
    if layer2 is None or layer2.empty or "prompted" not in layer2.columns:
        return None
    vals = layer2.set_index("model").drop(index="POOLED", errors="ignore")["prompted"].dropna()
    low = vals[vals < vals.mean()]
    if not len(low):
        return None
    return {"n": len(low), "low": float(low.min()), "high": float(low.max())}


# --------------------------------------------------------------------------------------------------
# synthetic data (tests and benchmark)
# --------------------------------------------------------------------------------------------------


def synthetic_instances(
    n_models: int = 7,
    n_prompts: int = 20,
    n_runs: int = 5,
    n_judges: int = 3,
    dimensions: Sequence[str] = DIMENSIONS,
    *,
    seed: int,
    missing_rate: float = 0.0,
) -> pd.DataFrame:
    """A random Layer-1 instance table of the paper's shape (defaults: 7 x 2 x 200 x 5 x 3 = 42,000 rows).

    Each (model, condition, dimension) has its own score distribution over 0-3 (prompted shifted up);
    judges add independent noise of +-1 around a run's latent score. ``missing_rate`` blanks that share
    of judge scores at random. Deterministic given ``seed``.
    """
    rng = np.random.default_rng(seed)
    models = [f"model_{i:02d}" for i in range(n_models)]
    idx = pd.MultiIndex.from_product(
        [models, list(CONDITIONS), list(dimensions), [f"p{j:03d}" for j in range(n_prompts)], range(n_runs)],
        names=["model", "condition", "dimension", "prompt_id", "run"],
    ).to_frame(index=False)
    n_cells = n_models * 2 * len(dimensions)
    cell_level = rng.uniform(0, 2.2, size=n_cells) + np.tile(np.repeat([0.0, 0.8], len(dimensions)), n_models)
    per_cell = n_prompts * n_runs
    latent = np.clip(np.round(np.repeat(cell_level, per_cell) + rng.normal(0, 0.8, size=len(idx))), 0, 3)
    judge_noise = rng.choice([-1, 0, 0, 0, 1], size=(len(idx), n_judges))
    scores = np.clip(latent[:, None] + judge_noise, 0, 3).astype(float)
    if missing_rate > 0:
        scores[rng.random(scores.shape) < missing_rate] = np.nan
    out = idx.loc[idx.index.repeat(n_judges)].reset_index(drop=True)
    out.insert(2, "layer", 1)
    out["judge"] = np.tile([f"judge_{j}" for j in range(n_judges)], len(idx))
    out["score"] = scores.ravel()
    return out[list(SCHEMA)]
