"""Reproduce the study's report from the per-pair counts (METHODS.md, section Human preferences).

Inputs are DataFrames shaped like ``data/hitl/published_pair_counts.csv`` (columns ``model_x,
model_y, x_wins, y_wins, ties, n``) and ``published_pair_counts_by_category.csv`` (plus
``category``); the comment themes are the dict of ``comment_themes_llm.json``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from compendium.pipeline.results import agreement

from ..data.errors import require_columns
from ..stats import pairwise as pw

#: Model ids in the study's canonical order (the report's X = the earlier model of a pair).
MODELS: tuple[str, ...] = ("untrained", "recipe_a", "recipe_b", "recipe_c", "recipe_d")
#: Short display names (the report's chart labels).
MODEL_LABELS: dict[str, str] = {
    "untrained": "Untrained",
    "recipe_a": "Recipe A",
    "recipe_b": "Recipe B",
    "recipe_c": "Recipe C",
    "recipe_d": "Recipe D",
}
#: The recipes that were trained (the Spearman correlation is over these four).
TRAINED: tuple[str, ...] = ("recipe_a", "recipe_b", "recipe_c", "recipe_d")
#: Held-out preference accuracy of each model: a property of the models fixed by the study design
#: (METHODS.md; the report's build script), an *input* of the tracking analysis, not a claim.
VAL_PREF_ACC: dict[str, float] = {
    "untrained": 0.500,
    "recipe_a": 0.464,
    "recipe_b": 0.492,
    "recipe_c": 0.628,
    "recipe_d": 0.648,
}

COUNT_COLUMNS = ("model_x", "model_y", "x_wins", "y_wins", "ties", "n")


def validate_pair_counts(counts: pd.DataFrame, by: tuple[str, ...] = ()) -> pd.DataFrame:
    """Check a pair-count table and return it with integer counts.

    Raises ``ValueError`` naming the column and the problem: missing columns, unknown model ids, a
    model paired with itself, negative counts, ``n != x_wins + y_wins + ties``, or a pair listed
    twice (within the ``by`` groups, e.g. ``("category",)``).
    """
    require_columns(counts, (*by, *COUNT_COLUMNS), "pair counts")
    df = counts.copy()
    for c in ("model_x", "model_y"):
        bad = sorted(set(df[c]) - set(MODELS))
        if bad:
            raise ValueError(f"pair counts: column {c!r} has unknown model id(s) {bad}; expected one of {list(MODELS)}")
    if (df["model_x"] == df["model_y"]).any():
        raise ValueError("pair counts: a row compares a model with itself (model_x == model_y)")
    for c in ("x_wins", "y_wins", "ties", "n"):
        if df[c].isna().any() or (df[c] < 0).any() or (df[c] != np.floor(df[c])).any():
            raise ValueError(f"pair counts: column {c!r} must hold non-negative whole numbers")
        df[c] = df[c].astype(int)
    bad = df[df["n"] != df["x_wins"] + df["y_wins"] + df["ties"]]
    if len(bad):
        raise ValueError(
            f"pair counts: column 'n' != x_wins + y_wins + ties in {len(bad)} row(s), e.g. "
            f"{bad.iloc[0][['model_x', 'model_y']].tolist()}"
        )
    key = df[list(by)].astype(str).agg("|".join, axis=1) if by else pd.Series("", index=df.index)
    pair = [tuple(sorted((a, b))) for a, b in zip(df["model_x"], df["model_y"])]
    dup = pd.Series(list(zip(key, pair))).duplicated()
    if dup.any():
        raise ValueError(f"pair counts: pair {pair[int(np.argmax(dup.values))]} listed more than once")
    return df


def _indices(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    pos = {m: k for k, m in enumerate(MODELS)}
    return df["model_x"].map(pos).to_numpy(), df["model_y"].map(pos).to_numpy()


def win_matrix(counts: pd.DataFrame, tie_weight: float = 0.5) -> np.ndarray:
    """5x5 win matrix of the pooled judgements (rows/cols in :data:`MODELS` order), ties = ``tie_weight``."""
    df = validate_pair_counts(counts)
    i, j = _indices(df)
    return pw.win_matrix_from_counts(
        i,
        j,
        df["x_wins"].to_numpy(),
        df["y_wins"].to_numpy(),
        df["ties"].to_numpy(),
        len(MODELS),
        tie_weight=tie_weight,
    )


def pair_table(counts: pd.DataFrame, val_pref_acc: dict[str, float] = VAL_PREF_ACC, z: float = 1.96) -> pd.DataFrame:
    """The report's per-pair table with the tracks / flips / noisy signal.

    Win rate = wins / (wins + losses), ties excluded, with its Wilson 95% interval (``z = 1.96``). For
    each pair the rate is taken from the side of the model with the higher ``val_pref_acc``; the pair
    **tracks** the metric when the whole interval lies above 0.5, **flips** when it lies below, else
    it is **noisy** (METHODS.md).
    """
    return _pair_table(counts, val_pref_acc, z)


def _pair_table(counts: pd.DataFrame, val_pref_acc: dict[str, float], z: float) -> pd.DataFrame:
    df = validate_pair_counts(counts)
    rows = []
    for r in df.itertuples(index=False):
        vx, vy = val_pref_acc[r.model_x], val_pref_acc[r.model_y]
        if vy >= vx:
            hi, lo, hw, lw = r.model_y, r.model_x, r.y_wins, r.x_wins
        else:
            hi, lo, hw, lw = r.model_x, r.model_y, r.x_wins, r.y_wins
        decisive = hw + lw
        rate = hw / decisive if decisive else np.nan
        w_lo, w_hi = pw.wilson_interval(hw, decisive, z=z)
        if vx == vy:
            signal = "n/a (equal val_pref_acc)"
        elif w_lo > 0.5:
            signal = "tracks"
        elif w_hi < 0.5:
            signal = "flips"
        else:
            signal = "noisy"
        rows.append(
            {
                "model_x": r.model_x,
                "model_y": r.model_y,
                "x_wins": r.x_wins,
                "y_wins": r.y_wins,
                "ties": r.ties,
                "n": r.n,
                "tie_share": r.ties / r.n if r.n else np.nan,
                "x_win_rate": r.x_wins / decisive if decisive else np.nan,
                "higher_val_model": hi,
                "lower_val_model": lo,
                "higher_val_wins": hw,
                "lower_val_wins": lw,
                "higher_val_win_rate": rate,
                "wilson_lo": w_lo,
                "wilson_hi": w_hi,
                "delta_val_pref_acc": abs(vy - vx),
                "signal": signal,
            }
        )
    return pd.DataFrame(rows)


def model_record(counts: pd.DataFrame, z: float = 1.96) -> pd.DataFrame:
    """Pooled record of each model over all its pairs: wins, losses, ties, win rate (ties excluded), Wilson CI."""
    return _model_record(counts, z)


def _model_record(counts: pd.DataFrame, z: float) -> pd.DataFrame:
    df = validate_pair_counts(counts)
    out = []
    for m in MODELS:
        as_x = df[df["model_x"] == m]
        as_y = df[df["model_y"] == m]
        wins = int(as_x["x_wins"].sum() + as_y["y_wins"].sum())
        losses = int(as_x["y_wins"].sum() + as_y["x_wins"].sum())
        ties = int(as_x["ties"].sum() + as_y["ties"].sum())
        lo, hi = pw.wilson_interval(wins, wins + losses, z=z)
        out.append(
            {
                "model": m,
                "wins": wins,
                "losses": losses,
                "ties": ties,
                "n": wins + losses + ties,
                "win_rate": wins / (wins + losses) if wins + losses else np.nan,
                "wilson_lo": lo,
                "wilson_hi": hi,
                "val_pref_acc": VAL_PREF_ACC[m],
            }
        )
    return pd.DataFrame(out)


def bradley_terry_fit(counts: pd.DataFrame, tol: float = 1e-6, max_iter: int = 500):
    """The published Bradley-Terry fit (:func:`compendium.stats.pairwise.bradley_terry_mm` on the half-win
    matrix): its ``strengths`` (in :data:`MODELS` order) and ``n_iter``. Raises if it did not converge."""
    return _bt_fit(counts, tol, max_iter)


def _bt_fit(counts: pd.DataFrame, tol: float, max_iter: int):
    res = pw.bradley_terry_mm(win_matrix(counts), tol=tol, max_iter=max_iter)
    if not bool(res.converged):
        raise RuntimeError(f"Bradley-Terry MM did not converge in {max_iter} iterations")
    return res


def _bt_frame(s: np.ndarray) -> pd.DataFrame:
    rank = (-s).argsort().argsort() + 1
    return pd.DataFrame({"model": list(MODELS), "strength": s, "rank": rank})


def bradley_terry_table(counts: pd.DataFrame, tol: float = 1e-6, max_iter: int = 500, fit=None) -> pd.DataFrame:
    """Bradley-Terry strengths exactly as published (:func:`bradley_terry_fit`, or the given ``fit`` of it).

    Columns ``model, strength, rank`` (rank 1 = strongest), rows in :data:`MODELS` order.
    """
    res = fit if fit is not None else bradley_terry_fit(counts, tol=tol, max_iter=max_iter)
    return _bt_frame(res.strengths)


def bradley_terry_crosscheck(
    counts: pd.DataFrame, tol: float = 1e-6, max_iter: int = 500, published: np.ndarray | None = None
) -> pd.DataFrame:
    """Published-procedure BT vs the fully converged MM fit vs ``choix`` (same ties-as-half-wins data).

    Columns: ``model, published_procedure, mm_converged`` (tolerance 1e-14), ``choix``
    (``ilsr_pairwise_dense`` on the fractional win matrix), and the absolute differences (0 below 1e-12,
    else 2 significant digits: :func:`compendium.pipeline.results.agreement`). ``published``: the strengths of
    :func:`bradley_terry_fit` when already fitted (not fitted again).
    """
    W = win_matrix(counts)
    pub = published if published is not None else pw.bradley_terry_mm(W, tol=tol, max_iter=max_iter).strengths
    conv = pw.bradley_terry_mm(W, tol=1e-14, max_iter=100_000).strengths
    ch = pw.bradley_terry_choix(W)
    return pd.DataFrame(
        {
            "model": list(MODELS),
            "published_procedure": pub,
            "mm_converged": conv,
            "choix": ch,
            "abs_diff_procedure_vs_choix": agreement(pub - ch),
            "abs_diff_converged_vs_choix": agreement(conv - ch),
        }
    )


def spearman_bt_vs_val(
    bt: pd.DataFrame, val_pref_acc: dict[str, float] = VAL_PREF_ACC, models: tuple[str, ...] = TRAINED
) -> float:
    """Spearman rho between BT strength and ``val_pref_acc`` over the trained recipes, as the report does.

    The report ranks both variables in ascending order and applies ``1 - 6 sum d^2 / (n (n^2 - 1))``
    (no tie correction); that formula is used here. With no tied values it equals Pearson's r of the
    ranks (:func:`scipy.stats.spearmanr`, the unit tests' cross-check); ties raise ``ValueError``
    because the two would then differ.
    """
    s = bt.set_index("model")["strength"]
    x = np.array([s[m] for m in models], dtype=float)
    y = np.array([val_pref_acc[m] for m in models], dtype=float)
    if len(set(x)) < len(x) or len(set(y)) < len(y):
        raise ValueError("spearman_bt_vs_val: tied values; the report's formula and Spearman's rho differ then")
    n = len(x)
    d = x.argsort().argsort() - y.argsort().argsort()
    return float(1.0 - 6.0 * float((d * d).sum()) / (n * (n * n - 1)))


def winrate_vs_base(counts: pd.DataFrame, base: str = "untrained") -> dict[str, float]:
    """Each trained recipe's win rate against the untrained model, ties excluded."""
    df = validate_pair_counts(counts)
    out = {}
    for r in df.itertuples(index=False):
        if base not in (r.model_x, r.model_y):
            continue
        decisive = r.x_wins + r.y_wins
        if decisive == 0:
            raise ValueError(
                f"winrate_vs_base: pair {r.model_x} vs {r.model_y} has no decisive judgement "
                "(only ties), so its win rate with ties excluded is undefined"
            )
        if r.model_x == base:
            out[r.model_y] = r.y_wins / decisive
        else:
            out[r.model_x] = r.x_wins / decisive
    return out


def head_to_head(counts: pd.DataFrame, a: str, b: str, z: float = 1.96) -> dict[str, float]:
    """Direct record of ``a`` against ``b``: wins, losses, ties, win rate of ``a`` (ties excluded), its
    Wilson interval and the two-sided exact binomial test of a 50 % win rate."""
    df = validate_pair_counts(counts)
    row = df[((df.model_x == a) & (df.model_y == b)) | ((df.model_x == b) & (df.model_y == a))]
    if len(row) != 1:
        raise ValueError(f"head_to_head: pair ({a}, {b}) not found exactly once in the counts")
    r = row.iloc[0]
    aw, bw = (r.x_wins, r.y_wins) if r.model_x == a else (r.y_wins, r.x_wins)
    lo, hi = pw.wilson_interval(aw, aw + bw, z=z)
    return {
        "wins": int(aw),
        "losses": int(bw),
        "ties": int(r.ties),
        "win_rate": aw / (aw + bw),
        "wilson_lo": lo,
        "wilson_hi": hi,
        "binom_p": float(stats.binomtest(int(aw), int(aw + bw)).pvalue),
    }


# ----------------------------------------------------------------------------------------------
# Per-category results
# ----------------------------------------------------------------------------------------------


def category_sums_match(by_category: pd.DataFrame, counts: pd.DataFrame) -> pd.DataFrame:
    """Sum the per-category counts over categories and compare with the pooled pair counts.

    Returns one row per pair with both sets of counts and ``match`` (all four counts equal).
    """
    cat = validate_pair_counts(by_category, by=("category",))
    pooled = validate_pair_counts(counts)
    s = cat.groupby(["model_x", "model_y"], as_index=False)[["x_wins", "y_wins", "ties", "n"]].sum()
    m = pooled[list(COUNT_COLUMNS)].merge(s, on=["model_x", "model_y"], how="outer", suffixes=("", "_cat_sum"))
    m["match"] = np.all([m[c] == m[f"{c}_cat_sum"] for c in ("x_wins", "y_wins", "ties", "n")], axis=0)
    return m


def category_bradley_terry(by_category: pd.DataFrame, tol: float = 1e-6, max_iter: int = 500) -> pd.DataFrame:
    """Bradley-Terry strengths (published procedure) fitted separately within each prompt category.

    Returns a category x model table (columns in :data:`MODELS` order). With 15-25 judgements per
    pair per category these are much noisier than the pooled fit.
    """
    cat = validate_pair_counts(by_category, by=("category",))
    out = {}
    for c, g in cat.groupby("category", sort=True):
        out[c] = pd.Series(_bt_fit(g, tol, max_iter).strengths, index=pd.Index(list(MODELS), name="model"))
    return pd.DataFrame(out).T.loc[:, list(MODELS)].rename_axis("category")


def category_win_rates(by_category: pd.DataFrame) -> pd.DataFrame:
    """Each model's pooled win rate (ties excluded) within each category: category x model table."""
    cat = validate_pair_counts(by_category, by=("category",))
    out = {}
    for c, g in cat.groupby("category", sort=True):
        out[c] = _model_record(g, 1.96).set_index("model")["win_rate"]
    return pd.DataFrame(out).T.loc[:, list(MODELS)].rename_axis("category")


def category_pair_table(by_category: pd.DataFrame) -> pd.DataFrame:
    """:func:`pair_table` within each category (higher-val model's win rate, Wilson CI, signal)."""
    cat = validate_pair_counts(by_category, by=("category",))
    parts = []
    for c, g in cat.groupby("category", sort=True):
        t = _pair_table(g, VAL_PREF_ACC, 1.96)
        t.insert(0, "category", c)
        parts.append(t)
    return pd.concat(parts, ignore_index=True)


# ----------------------------------------------------------------------------------------------
# Comment themes
# ----------------------------------------------------------------------------------------------


def comment_themes_table(themes: dict) -> tuple[pd.DataFrame, dict[str, int]]:
    """The LLM-clustered comment themes as a table, and the count check.

    Returns ``(table, check)``: the table has ``label, count, share_of_assigned, description,
    example_quote``; ``check`` has ``sum_counts`` (the themes' counts added up), ``n_comments`` (the
    number of comments the file says were clustered) and their ``difference``.
    """
    if "themes" not in themes or "n_comments" not in themes:
        raise ValueError("comment themes: expected keys 'themes' and 'n_comments'")
    rows = []
    for k, t in enumerate(themes["themes"]):
        if "label" not in t or "count" not in t:
            raise ValueError(f"comment themes: theme {k} lacks 'label' or 'count'")
        quotes = t.get("quotes") or [""]
        rows.append(
            {
                "label": t["label"],
                "count": int(t["count"]),
                "description": t.get("description", ""),
                "example_quote": quotes[0],
            }
        )
    df = pd.DataFrame(rows).sort_values("count", ascending=False, kind="stable").reset_index(drop=True)
    total = int(df["count"].sum())
    df.insert(2, "share_of_assigned", df["count"] / total)
    n = int(themes["n_comments"])
    return df, {"sum_counts": total, "n_comments": n, "difference": n - total}


# ----------------------------------------------------------------------------------------------
# Claims check (published numbers are targets, never inputs)
# ----------------------------------------------------------------------------------------------


def spearman_bt_vs_val_ci(
    bt: pd.DataFrame,
    val_pref_acc: dict[str, float] = VAL_PREF_ACC,
    models: tuple[str, ...] = TRAINED,
    level: float = 0.95,
) -> dict[str, float]:
    """Spearman rho of BT strength and ``val_pref_acc`` with its interval and p-value, by ``pingouin.corr``.

    ``rho`` and ``p`` are pingouin's (``method="spearman"``; p from the t approximation, as
    :func:`scipy.stats.spearmanr`). pingouin 0.7 rounds its interval to 2 decimals, so ``ci_lo``/``ci_hi``
    are the same Fisher-z interval computed unrounded (``tanh(atanh(rho) +- z / sqrt(n - 3))``); with
    the report's n = 4 it is very wide. ``ci_pingouin`` keeps pingouin's rounded one.
    """
    import warnings

    import pingouin as pg
    from scipy.stats import norm

    s = bt.set_index("model")["strength"]
    x = np.array([s[m] for m in models], dtype=float)
    y = np.array([val_pref_acc[m] for m in models], dtype=float)
    n = len(x)
    if n < 4:
        raise ValueError(f"spearman_bt_vs_val_ci: {n} models; the Fisher-z interval needs at least 4")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # pingouin: "sample size too small to estimate power"
        res = pg.corr(x, y, method="spearman").iloc[0]
    rho = float(res["r"])
    half = norm.ppf(0.5 + level / 2) / np.sqrt(n - 3)
    z = np.arctanh(np.clip(rho, -1 + 1e-15, 1 - 1e-15))
    return {
        "rho": rho,
        "ci_lo": float(np.tanh(z - half)),
        "ci_hi": float(np.tanh(z + half)),
        "p": float(res["p_val"]),
        "n": n,
        "ci_pingouin": [float(v) for v in res["CI95"]],
    }
