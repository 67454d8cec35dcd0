"""Row-level path: what the Hugging Face annotations add once they are on disk.

The study's dataset ``ProlificAI/autoresearch-hitl-annotations`` (config ``annotations``,
1,507 rows) is fetched by the project's acquisition code to ``data/hitl/annotations.parquet``
(:data:`ANNOTATIONS_RELPATH`); this module only reads that local file. One row is one participant's
judgement of one prompt-pair instance. Columns used (dataset card): ``participant_id`` (P001..P305),
``scenario_id`` (the pair instance), ``prompt_id``, ``a_model``, ``b_model`` (model ids shown in
position A and B) and the participant's choice. The card we could read offline does not show the name
of the choice column, so :func:`normalise_annotations` accepts the names the study's code used
(``choice_canonical``: ``A`` / ``B`` / ``tie``) and close variants, or a column naming the preferred
model; anything else is a clear error.

From these rows the stage computes Fleiss' kappa per pair (instances with exactly 3 ratings), A/B
position bias, per-participant activity, the number of distinct participants (claim
``hitl.n_participants``), and checks that the rows aggregate to the published pair counts.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..data.errors import require_columns
from scipy import stats
from statsmodels.stats.inter_rater import fleiss_kappa

from .. import paths
from ..stats import pairwise as pw
from .report import COUNT_COLUMNS, MODELS, validate_pair_counts

#: Where the acquisition step puts the HF ``annotations`` config (relative to the project root).
ANNOTATIONS_RELPATH = "data/hitl/annotations.parquet"
#: Accepted names of the column holding the participant's choice (first match wins).
CHOICE_COLUMNS = ("choice_canonical", "choice", "preference", "preferred", "winner", "winner_model", "preferred_model")
REQUIRED = ("participant_id", "scenario_id", "prompt_id", "a_model", "b_model")
_A = {"a", "response a", "a better", "a is better", "option a"}
_B = {"b", "response b", "b better", "b is better", "option b"}
_TIE = {"tie", "about equal", "equal", "same", "draw"}
#: Fewest complete (3-rating) instances for a per-pair kappa (as in the study's report code).
MIN_KAPPA_ITEMS = 5


def annotations_path(relpath: str | Path = ANNOTATIONS_RELPATH) -> Path:
    """Absolute path of the annotations file (``relpath`` relative to the project root unless absolute)."""
    p = Path(relpath)
    return p if p.is_absolute() else paths.ROOT / p


def read_annotations(path: str | Path) -> pd.DataFrame:
    """Read the annotations (parquet, or CSV/JSON lines by extension). ``FileNotFoundError`` if absent."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"{p}: row-level annotations not present (fetch the HF dataset first)")
    if p.suffix == ".parquet":
        return pd.read_parquet(p)
    if p.suffix == ".csv":
        return pd.read_csv(p)
    if p.suffix in (".jsonl", ".json"):
        return pd.read_json(p, lines=p.suffix == ".jsonl")
    raise ValueError(f"{p}: unsupported file type {p.suffix!r}; expected .parquet, .csv, .json or .jsonl")


def normalise_annotations(df: pd.DataFrame, prompts: pd.DataFrame | None = None) -> pd.DataFrame:
    """Validate the rows and put every judgement in the study's canonical orientation.

    Returns a frame with ``participant_id, scenario_id, prompt_id, category`` (from ``prompts``,
    columns ``id, category``, if given), ``a_model, b_model, position_choice`` (``A``/``B``/``tie``),
    ``model_x, model_y`` (the earlier and later model in :data:`MODELS` order) and ``outcome``
    (``x``/``y``/``tie``). Raises ``ValueError`` naming the column and the offending values.
    """
    require_columns(df, REQUIRED, "annotations", hint=f" plus a choice column (one of {list(CHOICE_COLUMNS)})")
    col = next((c for c in CHOICE_COLUMNS if c in df.columns), None)
    if col is None:
        raise ValueError(f"annotations: no choice column; expected one of {list(CHOICE_COLUMNS)}, "
                         f"found columns {list(df.columns)}")
    for c in ("a_model", "b_model"):
        bad = sorted(set(df[c].dropna()) - set(MODELS))
        if bad or df[c].isna().any():
            raise ValueError(f"annotations: column {c!r} has unknown or missing model id(s) {bad}; expected {list(MODELS)}")
    if (df["a_model"] == df["b_model"]).any():
        raise ValueError("annotations: a row shows the same model in positions A and B")
    raw = df[col].astype("string").str.strip().str.lower()
    pos = pd.Series(pd.NA, index=df.index, dtype="string")
    pos[raw.isin(_A)] = "A"
    pos[raw.isin(_B)] = "B"
    pos[raw.isin(_TIE)] = "tie"
    # a column naming the preferred model
    names = raw.isin(list(MODELS))
    pos[names & (raw == df["a_model"].str.lower())] = "A"
    pos[names & (raw == df["b_model"].str.lower())] = "B"
    if pos.isna().any():
        bad = sorted(set(df.loc[pos.isna(), col].astype(str)))[:10]
        raise ValueError(f"annotations: column {col!r} has value(s) {bad} that are not A, B, tie "
                         f"or one of the two models shown")
    order = {m: k for k, m in enumerate(MODELS)}
    a_first = (df["a_model"].map(order) < df["b_model"].map(order)).to_numpy(dtype=bool)
    p = pos.to_numpy(dtype=object)
    out = pd.DataFrame({
        "participant_id": df["participant_id"].astype(str), "scenario_id": df["scenario_id"].astype(str),
        "prompt_id": df["prompt_id"].astype(str), "a_model": df["a_model"], "b_model": df["b_model"],
        "position_choice": p.astype(str),
        "model_x": np.where(a_first, df["a_model"], df["b_model"]),
        "model_y": np.where(a_first, df["b_model"], df["a_model"]),
    })
    out["outcome"] = np.select([p == "tie", (p == "A") == a_first], ["tie", "x"], default="y")
    if prompts is not None:
        cat = dict(zip(prompts["id"], prompts["category"]))
        unknown = sorted(set(out["prompt_id"]) - set(cat))
        if unknown:
            raise ValueError(f"annotations: column 'prompt_id' has id(s) {unknown[:10]} not in the prompt list")
        out.insert(3, "category", out["prompt_id"].map(cat))
    return out


def aggregate_pair_counts(norm: pd.DataFrame, by: tuple[str, ...] = ()) -> pd.DataFrame:
    """Count x wins / y wins / ties per pair (and per ``by`` group), shaped like the published tables
    (rows sorted by group, then by the pair's models in :data:`MODELS` order)."""
    keys = [*by, "model_x", "model_y"]
    t = pd.crosstab([norm[k] for k in keys], norm["outcome"])
    for c in ("x", "y", "tie"):
        if c not in t.columns:
            t[c] = 0
    out = t.reset_index().rename(columns={"x": "x_wins", "y": "y_wins", "tie": "ties"})
    out.columns.name = None
    out["n"] = out["x_wins"] + out["y_wins"] + out["ties"]
    order = {m: k for k, m in enumerate(MODELS)}
    out = out.sort_values([*by, "model_x", "model_y"], key=lambda s: s.map(order) if s.name in ("model_x", "model_y") else s)
    return out[[*by, *COUNT_COLUMNS]].reset_index(drop=True)


def compare_with_published(aggregated: pd.DataFrame, published: pd.DataFrame, by: tuple[str, ...] = ()) -> pd.DataFrame:
    """Row-level aggregate vs published counts, one row per pair: both sets of counts and ``match``."""
    pub = validate_pair_counts(published, by=by)[[*by, *COUNT_COLUMNS]]
    m = pub.merge(aggregated, on=[*by, "model_x", "model_y"], how="outer", suffixes=("_published", "_rows"))
    cols = ("x_wins", "y_wins", "ties", "n")
    m[[f"{c}_{s}" for c in cols for s in ("published", "rows")]] = \
        m[[f"{c}_{s}" for c in cols for s in ("published", "rows")]].fillna(0).astype(int)
    m["match"] = np.all([m[f"{c}_published"] == m[f"{c}_rows"] for c in cols], axis=0)
    return m


def fleiss_kappa_per_pair(norm: pd.DataFrame, min_items: int = MIN_KAPPA_ITEMS) -> pd.DataFrame:
    """Fleiss' kappa per model pair over its instances with exactly 3 ratings (METHODS.md).

    Categories: X better / Y better / tie in canonical orientation; kappa from
    :func:`statsmodels.stats.inter_rater.fleiss_kappa`. Pairs with fewer than ``min_items`` complete
    instances get NaN.
    """
    t = pd.crosstab([norm["model_x"], norm["model_y"], norm["scenario_id"]], norm["outcome"])
    for c in ("x", "y", "tie"):
        if c not in t.columns:
            t[c] = 0
    t = t[["x", "y", "tie"]]
    complete = t[t.sum(axis=1) == 3]
    rows = []
    for (mx, my), g in complete.groupby(level=[0, 1], sort=False):
        k = float(fleiss_kappa(g.to_numpy(), method="fleiss")) if len(g) >= min_items else np.nan
        rows.append({"model_x": mx, "model_y": my, "n_items": len(g), "fleiss_kappa": k})
    out = pd.DataFrame(rows, columns=["model_x", "model_y", "n_items", "fleiss_kappa"])
    order = {m: k for k, m in enumerate(MODELS)}
    return out.sort_values(["model_x", "model_y"], key=lambda s: s.map(order)).reset_index(drop=True)


def position_bias(norm: pd.DataFrame, z: float = 1.96) -> dict[str, float]:
    """A/B position bias: share of decisive judgements that chose the response shown in position A,
    its Wilson interval and the two-sided exact binomial test against 50 %; also the tie share."""
    dec = norm[norm["position_choice"] != "tie"]
    k = int((dec["position_choice"] == "A").sum())
    n = len(dec)
    lo, hi = pw.wilson_interval(k, n, z=z)
    return {"n_decisive": n, "chose_a": k, "share_a": k / n if n else np.nan, "wilson_lo": lo, "wilson_hi": hi,
            "binom_p": float(stats.binomtest(k, n).pvalue) if n else np.nan,
            "tie_share": float((norm["position_choice"] == "tie").mean())}


def participant_activity(norm: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, float]]:
    """Judgements per participant: a per-participant table (n, ties, share choosing A) and a summary
    (distinct participants, min / median / mean / max judgements per participant)."""
    g = norm.groupby("participant_id")
    per = pd.DataFrame({"n_judgements": g.size(), "n_ties": g["position_choice"].apply(lambda s: int((s == "tie").sum())),
                        "share_chose_a": g["position_choice"].apply(lambda s: float((s == "A").mean()))}).reset_index()
    n = per["n_judgements"]
    summary = {"n_participants": int(len(per)), "min": int(n.min()), "median": float(n.median()),
               "mean": float(n.mean()), "max": int(n.max())}
    return per, summary
