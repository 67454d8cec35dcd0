"""Rank the models of any pairwise-annotation file (your own study, an LMArena export, or the HITL release).

    python -m compendium.preferences.rank FILE [--n-boot N] [--seed S] [--ci 0.95] [--out DIR]

FILE is parquet, CSV, JSON lines or a JSON array of records, one row per judgement. The layout is
recognised from the columns:

  LMArena / Chatbot Arena export   model_a, model_b, winner; winner is model_a, model_b, tie or
                                   tie (bothbad). Both kinds of tie count as a tie (see below).
  the study's layout               a_model, b_model and a choice column (the first of choice_canonical,
                                   choice, label, preference, preferred, winner, winner_model,
                                   preferred_model): A, B, tie (or a spelled-out variant such as
                                   "about equal") or the preferred model's id. This is the layout of the
                                   hub's dataset card (response texts in response_a / response_b) and of
                                   the authors' export (annotations_real.json: prolific_pid, internal
                                   model ids, mapped to the dataset's, response texts in a_text / b_text).
                                   Response texts are not needed to rank.

A file with both pairs of model columns, or with neither, is refused with one sentence naming the
columns it has. Model ids are taken as they are (any names). Rows without a choice are skipped and
counted, as the study's report skips them.

Printed, and written as rank.csv and rank.json when --out is given (never under results/):

  - each model's pooled win rate (ties left out) with its Wilson interval;
  - Bradley-Terry strengths (a tie is half a win to each side, the study's MM procedure; strengths
    sum to the number of models) with percentile bootstrap intervals (judgements resampled within
    each pair, seeded) and the share of replicates in which the model ranks first;
  - the Davidson (1970) strengths, which fit ties with a parameter of their own (nu).

A tie (bothbad) of an LMArena export is a tie like any other: neither response was preferred, so it
counts as half a win to each side in Bradley-Terry and as a tie in Davidson, as LMArena's own
leaderboard code (FastChat's elo_analysis) counts both kinds; how many ties were "both bad" is printed.

A malformed file gets one sentence naming the file, the row and the field (a model id holding a
control character such as NUL or ESC is malformed). Model ids, paths and values are printed with
control characters shown as [U+XXXX]. A file whose models and replicates need more memory than the
budget (2 GiB, or COMPENDIUM_MEMORY_GIB) is refused before anything is allocated, with the largest
--n-boot that fits; --out is checked writable before the computation.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from compendium.pipeline import paths
from compendium.pipeline.cli import gib, memory_budget, quote, safe_output, visible, writable_folder
from compendium.pipeline.params import reference

from ..data.errors import DataError, DataValidationError
from ..stats import pairwise as pw
from . import rowlevel, views

MAX_BOOT = 100_000


def _bad(file: Path, i: int, field: str, why: str, rows: rowlevel._Rows | None = None) -> DataValidationError:
    """``<file>: row 5: field 'b_model': why`` (``line``/``record`` for JSON lines / a JSON array)."""
    where = f"{rows.label} {rows.numbers[i]}" if rows is not None else f"row {i + 1}"
    return DataValidationError(f"{file}: {where}: field {field!r}: {why}")


def _control(v: str) -> str | None:
    """The first control or invisible format character of ``v`` as ``[U+XXXX]``, else None."""
    shown = visible(v, inline=True)
    if shown == v:
        return None
    start = shown.index("[U+")
    return shown[start : start + 8]


#: The layouts :func:`layout_of` recognises from a file's columns (the module docstring describes them).
ARENA, STUDY = "arena", "study"
#: LMArena / Chatbot Arena export: the model columns and the outcome column.
ARENA_COLUMNS = ("model_a", "model_b", "winner")
#: The study's layout (the hub card's and the authors' export): the model columns; the choice column is the
#: first of :data:`compendium.preferences.rowlevel.CHOICE_COLUMNS` present.
STUDY_COLUMNS = ("a_model", "b_model")
#: An LMArena ``winner`` (compared by :func:`_key`: lower case, ``_``/``-`` as spaces) -> outcome. Both kinds of
#: tie are ties, as the rest of this module treats a tie: half a win to each side in Bradley-Terry, a tie in
#: Davidson. That is how LMArena's own leaderboard code counts them (FastChat
#: ``fastchat/serve/monitor/elo_analysis.py``: ``compute_elo`` scores ``tie`` and ``tie (bothbad)`` 0.5 each,
#: ``compute_elo_mle_with_tie`` gives every outcome other than a win 0.5); ``tie (bothbad)`` says both responses
#: were bad, not that one was better.
ARENA_WINNER = {"model a": "a", "model b": "b", "tie": "tie", "tie (bothbad)": "tie"}
#: The LMArena ``winner`` value that says neither response was good (counted as a tie, and reported).
ARENA_BOTH_BAD = frozenset({"tie (bothbad)"})
#: How the printed header names each layout.
LAYOUT_NAMES = {ARENA: "LMArena / Chatbot Arena layout", STUDY: "the study's layout"}
#: What the command reads, for the sentence refusing a file it cannot read.
ACCEPTED = (
    "an LMArena / Chatbot Arena export (model_a, model_b, winner) or the study's layout (a_model, b_model and a "
    f"choice column, one of {list(rowlevel.CHOICE_COLUMNS)}: the hub card's layout and the authors' export)"
)


def _key(choice: str) -> str:
    """A choice as compared: lower case, ``_`` and ``-`` as spaces, runs of white space as one space."""
    return " ".join(choice.strip().lower().replace("_", " ").replace("-", " ").split())


@dataclass(frozen=True)
class Layout:
    """A file's layout: its kind (:data:`ARENA` or :data:`STUDY`), its two model columns and its choice column."""

    kind: str
    a: str
    b: str
    choice: str

    def model_id(self, v: str) -> str:
        """A model id as ranked: stripped; the study's internal ids mapped to the dataset's (study layout only,
        an LMArena model may well be called ``base``)."""
        v = v.strip()
        return rowlevel.INTERNAL_MODEL_IDS.get(v, v) if self.kind == STUDY else v

    @property
    def expected(self) -> str:
        return "model_a, model_b, tie or tie (bothbad)" if self.kind == ARENA else "A, B, tie or a model id"

    def outcome(self, ch: str, a: str, b: str) -> str | None:
        """``a`` / ``b`` / ``tie`` for the choice ``ch`` between models ``a`` and ``b``; None if it names none."""
        key = _key(ch)
        if self.kind == ARENA:
            return ARENA_WINNER.get(key)
        named = rowlevel.INTERNAL_MODEL_IDS.get(ch.strip(), ch.strip())
        if key in rowlevel._A or named == a:
            return "a"
        if key in rowlevel._B or named == b:
            return "b"
        if key in rowlevel._TIE:
            return "tie"
        return None


def layout_of(df: pd.DataFrame, file: Path) -> Layout:
    """The file's :class:`Layout`, from its columns; a file with both pairs of model columns (ambiguous) or
    neither (unknown), or without the layout's choice column, is refused in one sentence naming the file, the
    columns it has and what the command reads."""
    cols = list(df.columns)
    has = set(cols)
    found = f"{file}: the columns are {quote(cols)}"
    arena, study = set(ARENA_COLUMNS[:2]) <= has, set(STUDY_COLUMNS) <= has
    if arena and study:
        raise DataValidationError(
            f"{found}, which hold both an LMArena export's model_a, model_b and the study's a_model, b_model, so "
            f"which two models a row compares is ambiguous; keep one pair of model columns, as rank reads {ACCEPTED}"
        )
    if arena:
        if "winner" not in has:
            raise DataValidationError(
                f"{found}: missing field 'winner' of an LMArena / Chatbot Arena export (model_a, model_b, tie or "
                f"tie (bothbad)); rank reads {ACCEPTED}"
            )
        return Layout(ARENA, *ARENA_COLUMNS)
    if not has & {*ARENA_COLUMNS[:2], *STUDY_COLUMNS}:
        raise DataValidationError(
            f"{found}, with no model columns (model_a, model_b or a_model, b_model), so the file is in no layout rank "
            f"reads; it reads {ACCEPTED}"
        )
    # a model column of one layout: the other one of that layout may be missing
    near = STUDY_COLUMNS if has & set(STUDY_COLUMNS) else ARENA_COLUMNS[:2]
    missing = [c for c in near if c not in has]
    if missing:
        raise DataValidationError(
            f"{file}: missing field {missing[0]!r} (the columns are {quote(cols)}), so the file is in no layout "
            f"rank reads; it reads {ACCEPTED}"
        )
    col = next((c for c in rowlevel.CHOICE_COLUMNS if c in has), None)
    if col is None:
        raise DataValidationError(f"{found}: no choice field beside a_model, b_model; rank reads {ACCEPTED}")
    return Layout(STUDY, *STUDY_COLUMNS, col)


def _repeated(df: pd.DataFrame, lay: Layout) -> int | None:
    """Rows with a choice that repeat the study's row key (participant x scenario), counted and warned
    about (:func:`compendium.preferences.rowlevel.repeated_keys`); None when the file has no such key (an
    LMArena export: a battle has no participant x scenario key)."""
    pcol = next((c for c in rowlevel.PARTICIPANT_COLUMNS if c in df.columns), None)
    if lay.kind != STUDY or pcol is None or "scenario_id" not in df.columns:
        return None
    col = lay.choice
    where = rowlevel._Rows(df)
    chosen = ~(df[col].isna() | (df[col].astype("string").str.strip() == "")).to_numpy(dtype=bool)
    where.keep(chosen)
    d = df[chosen]
    return rowlevel.repeated_keys(d[pcol], d["scenario_id"], where, stacklevel=4)["n_duplicate_rows"]


def judgements(df: pd.DataFrame, file: Path) -> tuple[pd.DataFrame, int]:
    """``(frame of model_a, model_b, outcome in {a, b, tie}, n_skipped)`` from the raw rows, in the file's
    :class:`Layout` (:func:`layout_of`; ``attrs["layout"]``). ``attrs["both_bad"]``: the ties an LMArena export
    marks ``tie (bothbad)`` (None in the study's layout, which has no such kind)."""
    lay = layout_of(df, file)
    col = lay.choice
    where = rowlevel._Rows(df)
    rows, skipped, first, both_bad = [], 0, {}, 0
    for i, (a, b, ch) in enumerate(zip(df[lay.a], df[lay.b], df[col])):
        if ch is None or (isinstance(ch, float) and np.isnan(ch)) or (isinstance(ch, str) and not ch.strip()):
            skipped += 1
            continue
        for field, v in ((lay.a, a), (lay.b, b)):
            if not isinstance(v, str) or not v.strip():
                raise _bad(file, i, field, f"expected a model id, got {quote(v)}", where)
            bad = _control(v)
            if bad:
                raise _bad(
                    file,
                    i,
                    field,
                    f"the model id {quote(visible(v, inline=True))} holds the control character {bad}; "
                    "a model id is printed text, so fix the id in the file",
                    where,
                )
        a, b = lay.model_id(a), lay.model_id(b)
        first.setdefault(a, (i, lay.a))
        first.setdefault(b, (i, lay.b))
        if a == b:
            raise _bad(file, i, lay.b, f"the same model {quote(a)} on both sides", where)
        if not isinstance(ch, str):
            raise _bad(file, i, col, f"expected {lay.expected}, got {quote(ch)}", where)
        out = lay.outcome(ch, a, b)
        if out is None:
            shown = "" if lay.kind == ARENA else f" ({quote(a)}, {quote(b)})"
            what = lay.expected if lay.kind == ARENA else "A, B, tie or one of the two models shown"
            raise _bad(file, i, col, f"{quote(ch)} is not {what}{shown}", where)
        if lay.kind == ARENA and _key(ch) in ARENA_BOTH_BAD:
            both_bad += 1
        rows.append((a, b, out))
    if not rows:
        raise DataValidationError(f"{file}: none of the {len(df)} row(s) has a choice in field {col!r}")
    j = pd.DataFrame(rows, columns=["model_a", "model_b", "outcome"])
    # where each model is first named (row label, field), for a sentence about one model
    j.attrs["first_seen"] = {m: (f"{where.label} {where.numbers[i]}", f) for m, (i, f) in first.items()}
    j.attrs["layout"] = lay
    j.attrs["both_bad"] = both_bad if lay.kind == ARENA else None
    return j, skipped


#: arrays of models x models x replicates (8 bytes each) alive at once in the bootstrap's Bradley-Terry fit:
#: the replicates' win matrices, the fit's copy without the diagonal, the comparison counts, and the two
#: temporaries of one MM step
BOOT_MATRICES = 5


def memory_needed(n_models: int, n_pairs: int, n_boot: int) -> int:
    """Bytes the bootstrap allocates at its peak: :data:`BOOT_MATRICES` float arrays of
    ``n_boot x n_models x n_models`` and the resampled counts (``n_pairs x n_boot`` x 3 outcomes, as
    integers and again as floats)."""
    return 8 * n_boot * (BOOT_MATRICES * n_models * n_models + 6 * n_pairs)


def check_memory(file: Path, n_models: int, n_pairs: int, n_boot: int) -> None:
    """Raise :class:`DataValidationError` (one sentence: the need, the budget, what to lower) when
    :func:`memory_needed` exceeds the budget (:func:`compendium.pipeline.cli.memory_budget`)."""
    budget = memory_budget()
    need = memory_needed(n_models, n_pairs, n_boot)
    if need <= budget:
        return
    fits = budget // memory_needed(n_models, n_pairs, 1)
    if fits >= 1:
        lower = f"lower --n-boot to at most {fits:,} or rank fewer models (a subset of the file's rows)"
    else:
        most = int((budget / 8 / BOOT_MATRICES) ** 0.5)
        lower = f"rank at most about {most:,} models at a time (a subset of the file's rows)"
    raise DataValidationError(
        f"{file}: {n_models:,} models and {n_boot:,} bootstrap replicates need about {gib(need)} of memory "
        f"({BOOT_MATRICES} arrays of models x models x replicates), above the budget of {gib(budget)}: {lower}, "
        "or, on a machine with more memory, raise the budget with COMPENDIUM_MEMORY_GIB=<GiB>"
    )


def _why(j: pd.DataFrame) -> str:
    """``; model 'x' (first named in row 5, field 'b_model') wins no judgement ...``: the first model that
    never wins or never loses (Bradley-Terry has no finite strength for it), where it is first named."""
    seen = j.attrs.get("first_seen", {})
    for m in dict.fromkeys([*j["model_a"], *j["model_b"]]):
        as_a, as_b = j["model_a"] == m, j["model_b"] == m
        n = int((as_a | as_b).sum())
        won = int((as_a & (j["outcome"] != "b")).sum() + (as_b & (j["outcome"] != "a")).sum())
        lost = int((as_a & (j["outcome"] != "a")).sum() + (as_b & (j["outcome"] != "b")).sum())
        if won and lost:
            continue
        row, field = seen.get(m, ("?", "?"))
        what = "wins" if not won else "loses"
        return (
            f"; model {quote(visible(m, inline=True))} (first named in {row}, field {field!r}) {what} none of its "
            f"{n} judgement(s), so Bradley-Terry gives it no finite strength: check that its id is spelt as "
            "elsewhere in the file (another spelling is another model), or leave its rows out"
        )
    return ""


def pair_counts(j: pd.DataFrame) -> tuple[list[str], pd.DataFrame]:
    """Models in order of first appearance, and per unordered pair ``i, j, i_wins, j_wins, ties``."""
    models = list(dict.fromkeys([m for ab in zip(j["model_a"], j["model_b"]) for m in ab]))
    idx = {m: k for k, m in enumerate(models)}
    ia, ib = j["model_a"].map(idx).to_numpy(), j["model_b"].map(idx).to_numpy()
    lo, hi = np.minimum(ia, ib), np.maximum(ia, ib)
    a_is_lo = ia == lo
    lo_wins = ((j["outcome"] == "a") & a_is_lo) | ((j["outcome"] == "b") & ~a_is_lo)
    hi_wins = ((j["outcome"] == "b") & a_is_lo) | ((j["outcome"] == "a") & ~a_is_lo)
    t = pd.DataFrame({"i": lo, "j": hi, "i_wins": lo_wins.astype(int), "j_wins": hi_wins.astype(int)})
    t["ties"] = (j["outcome"] == "tie").astype(int).to_numpy()
    return models, t.groupby(["i", "j"], as_index=False).sum()


#: the command's defaults: replicates and seed of its own (a user's file, not the study's run) and the study's interval
#: level (the preferences section's reference, typed nowhere else)
N_BOOT, SEED, CI = 2000, 0, reference("preferences")["ci_level"]


def rank(file: str | Path, *, n_boot: int, seed: int, ci: float) -> dict:
    """Everything the CLI prints: ``table`` (one row per model, code names: :data:`PRINTED` gives the names it
    is printed with), ``info`` (counts, Davidson ``nu``, the file's ``layout`` (:data:`ARENA` or :data:`STUDY`)
    and ``ties_both_bad``, the ties an LMArena export marks ``tie (bothbad)``, None in the study's layout)."""
    from scipy import stats

    file = Path(file)
    raw = rowlevel.read_annotations(file, verify=False)
    j, skipped = judgements(raw, file)
    repeated = _repeated(raw, j.attrs["layout"])
    models, pc = pair_counts(j)
    K = len(models)
    if K < 2:
        raise DataValidationError(f"{file}: fewer than two models compared")
    check_memory(file, K, len(pc), n_boot)  # before any array of the bootstrap is allocated
    z = float(stats.norm.ppf(0.5 + ci / 2))
    i, jj = pc["i"].to_numpy(), pc["j"].to_numpy()
    a, b, t = (pc[c].to_numpy(dtype=float) for c in ("i_wins", "j_wins", "ties"))
    W = pw.win_matrix_from_counts(i, jj, a, b, t, K)
    with np.errstate(divide="ignore", invalid="ignore"):  # a model that never wins: named below, not warned
        fit = pw.bradley_terry_mm(W)
    # bootstrap: each pair's judgements resampled with replacement (multinomial at the observed shares)
    rng = np.random.default_rng(seed)
    n = a + b + t
    draws = np.stack(
        [rng.multinomial(int(n[p]), [a[p] / n[p], b[p] / n[p], t[p] / n[p]], size=n_boot) for p in range(len(n))],
        axis=1,
    )
    Wb = pw.win_matrix_from_counts(i, jj, draws[..., 0], draws[..., 1], draws[..., 2], K)
    with np.errstate(divide="ignore", invalid="ignore"):
        bres = pw.bradley_terry_mm(Wb)
    # a replicate in which a model wins nothing has no finite BT estimate: left out, and counted
    ok = np.isfinite(bres.strengths).all(axis=1) & np.asarray(bres.converged) & (bres.strengths > 0).all(axis=1)
    boot = bres.strengths[ok]
    if len(boot) == 0:
        raise DataValidationError(
            f"{file}: too few judgements for a bootstrap (no replicate has a finite fit){_why(j)}"
        )
    q = [(1 - ci) / 2 * 100, (1 + ci) / 2 * 100]
    zeros = np.zeros_like(a)
    dav = pw.davidson_fit(
        pw.win_matrix_from_counts(i, jj, a, b, zeros, K),
        pw.win_matrix_from_counts(i, jj, zeros, zeros, t, K, tie_weight=1.0),
    )
    wins = np.array([a[i == k].sum() + b[jj == k].sum() for k in range(K)])
    losses = np.array([b[i == k].sum() + a[jj == k].sum() for k in range(K)])
    ties = np.array([t[(i == k) | (jj == k)].sum() for k in range(K)])
    wl = [pw.wilson_interval(int(w), int(w + lo), z=z) for w, lo in zip(wins, losses)]
    table = pd.DataFrame(
        {
            "model": models,
            "wins": wins.astype(int),
            "losses": losses.astype(int),
            "ties": ties.astype(int),
            "win_rate": np.where(wins + losses > 0, wins / np.maximum(wins + losses, 1), np.nan),
            "wilson_lo": [x[0] for x in wl],
            "wilson_hi": [x[1] for x in wl],
            "bt_strength": fit.strengths,
            "bt_lo": np.percentile(boot, q[0], axis=0),
            "bt_hi": np.percentile(boot, q[1], axis=0),
            "p_best": (boot.argmax(axis=1)[:, None] == np.arange(K)).mean(axis=0),
            "davidson_strength": dav.strengths,
        }
    )
    table["bt_rank"] = (-table["bt_strength"]).rank(method="min").astype(int)
    table = table.sort_values(["bt_rank", "model"], kind="stable").reset_index(drop=True)
    info = {
        "file": str(file),
        "judgements": len(j),
        "rows_without_choice": skipped,
        "repeated_rows": repeated,
        "models": K,
        "pairs": len(pc),
        "n_boot": n_boot,
        "seed": seed,
        "ci_level": ci,
        "bt_converged": bool(fit.converged),
        "boot_left_out": int((~ok).sum()),
        "davidson_nu": float(dav.nu),
        "layout": j.attrs["layout"].kind,
        "ties_both_bad": j.attrs["both_bad"],
    }
    return {"table": table, "info": info}


#: the columns of :func:`rank`'s table published per model by :func:`flat_values`
VALUE_COLUMNS = (
    "wins",
    "losses",
    "ties",
    "win_rate",
    "wilson_lo",
    "wilson_hi",
    "bt_strength",
    "bt_lo",
    "bt_hi",
    "p_best",
    "davidson_strength",
    "bt_rank",
)


def flat_values(res: dict, prefix: str = "eval.rank") -> dict:
    """:func:`rank`'s result as flat ``values.json`` entries: the counts and settings of ``info`` (not the
    file's path nor its layout, a word; ``ties_both_bad`` only for an LMArena export) and
    ``<prefix>.<model>.<column>`` for every model. The Davidson fit (BFGS) is rounded to 8
    significant digits, whose last digits would otherwise depend on the BLAS kernel
    (:func:`compendium.pipeline.results.significant`)."""
    from compendium.pipeline.results import significant

    info = res["info"]
    out = {f"{prefix}.{k}": v for k, v in info.items() if k not in ("file", "layout") and v is not None}
    out[f"{prefix}.davidson_nu"] = significant(info["davidson_nu"])
    for _, r in res["table"].iterrows():
        for c in VALUE_COLUMNS:
            v = r[c]
            out[f"{prefix}.{r['model']}.{c}"] = significant(v) if c == "davidson_strength" else v
    return out


def top_sentence(table: pd.DataFrame) -> str:
    """One MyST sentence on :func:`rank`'s table: the strongest model, the share of bootstrap replicates in
    which it is strongest, and the models whose Bradley-Terry interval overlaps its own (model names escaped
    with :func:`compendium.chapter.safetext.myst`)."""
    from compendium.chapter.safetext import myst

    t = table.sort_values(["bt_rank", "model"], kind="stable")
    top, rest = t.iloc[0], t.iloc[1:]
    close = [str(myst(m)) for m in rest.loc[rest["bt_hi"] >= top["bt_lo"], "model"]]
    s = f"{myst(top['model'])} is strongest in {top['p_best']:.0%} of the bootstrap replicates"
    if close:
        names = close[0] if len(close) == 1 else f"{', '.join(close[:-1])} and {close[-1]}"
        return s + (
            f"; its interval overlaps {'that' if len(close) == 1 else 'those'} of {names}, so the bootstrap does "
            "not settle which of them is strongest."
        )
    return s + "; its interval lies above every other model's."


#: How the command prints :func:`rank`'s table: its columns in this order (rank first), each with the name the
#: preferences chapter's tables give it (:data:`compendium.preferences.views.COLUMNS`; the bootstrap interval's
#: bounds named with their level, as :func:`compendium.preferences.views.bootstrap_view` names them). Display
#: only: the returned table, rank.csv and rank.json keep the code names.
PRINTED = {
    "bt_rank": views.COLUMNS["bt_rank"],
    "model": "model",
    "wins": "wins",
    "losses": "losses",
    "ties": "ties",
    "win_rate": views.COLUMNS["higher_val_win_rate"],
    "wilson_lo": views.COLUMNS["wilson_lo"],
    "wilson_hi": views.COLUMNS["wilson_hi"],
    "bt_strength": views.COLUMNS["bt_half_win"],
    "bt_lo": "ci_lo",
    "bt_hi": "ci_hi",
    "p_best": views.COLUMNS["p_best"],
    "davidson_strength": views.COLUMNS["davidson"],
}


def printed_table(table: pd.DataFrame, ci: float) -> pd.DataFrame:
    """:func:`rank`'s table as the command prints it: the columns of :data:`PRINTED`, in its order and with its
    names, rates and strengths to 3 decimals, every model id with its control characters visible (no control
    sequence reaches the terminal)."""
    boot = views.bootstrap_view(ci)["rename"]
    names = {c: boot.get(n, n) for c, n in PRINTED.items()}
    shown = table[list(PRINTED)].copy()
    shown["model"] = shown["model"].map(lambda m: visible(m, inline=True))
    for c in ("win_rate", "wilson_lo", "wilson_hi", "bt_strength", "bt_lo", "bt_hi", "p_best", "davidson_strength"):
        shown[c] = shown[c].map(lambda v: f"{v:.3f}")
    return shown.rename(columns=names)


def legend(info: dict) -> str:
    """What the printed columns hold, in a few lines."""
    import textwrap

    pct = f"{info['ci_level']:.0%}"
    text = (
        f"win rate: wins / (wins + losses), ties left out, with its {pct} Wilson interval. "
        f"{views.COLUMNS['bt_half_win']}: Bradley-Terry strength, strengths summing to {info['models']}, with its "
        f"{pct} percentile bootstrap interval ({pct} low, {pct} high). {views.COLUMNS['p_best']}: share of the "
        f"bootstrap replicates in which the model is strongest. {views.COLUMNS['davidson']}: strength in the "
        "Davidson model, which fits ties with a parameter of its own (nu)."
    )
    return textwrap.fill(text, width=100)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m compendium.preferences.rank",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("file", type=Path, help="the annotations: a .parquet, .csv, .jsonl or .json file")
    ap.add_argument(
        "--n-boot", type=int, default=N_BOOT, help=f"bootstrap replicates (1..{MAX_BOOT}, default {N_BOOT})"
    )
    ap.add_argument("--seed", type=int, default=SEED, help=f"seed of the bootstrap (default {SEED})")
    ap.add_argument("--ci", type=float, default=CI, help=f"interval level (default {CI:g})")
    ap.add_argument("--out", type=Path, default=None, help="write rank.csv and rank.json here (not under results/)")
    safe_output()
    args = ap.parse_args(argv)
    try:
        if not 1 <= args.n_boot <= MAX_BOOT:
            raise ValueError(f"--n-boot must be between 1 and {MAX_BOOT}, got {args.n_boot}")
        if not 0 < args.ci < 1:
            raise ValueError(f"--ci must be between 0 and 1, got {args.ci}")
        if args.out is not None and args.out.resolve().is_relative_to(paths.RESULTS.resolve()):
            raise ValueError(f"--out {args.out}: the paper's results/ are never written; choose another folder")
        if args.out is not None:
            problem = writable_folder(args.out, "--out")  # before the computation, not after it
            if problem:
                raise ValueError(problem)
        res = rank(args.file, n_boot=args.n_boot, seed=args.seed, ci=args.ci)
    except (DataError, FileNotFoundError, ValueError) as exc:
        print(f"error: {visible(' '.join(str(exc).split()), inline=True)}", file=sys.stderr)
        return 1
    t, info = res["table"], res["info"]
    pct = f"{info['ci_level']:.0%}"
    lay = LAYOUT_NAMES[info["layout"]]
    print(
        f"{visible(info['file'], inline=True)} ({lay}): {info['judgements']:,} judgements of {info['models']} models "
        f"in {info['pairs']} pairs ({info['rows_without_choice']:,} row(s) without a choice skipped); {pct} intervals, "
        f"{info['n_boot']:,} bootstrap replicates (seed {info['seed']})"
    )
    print(printed_table(t, info["ci_level"]).to_string(index=False))
    print(legend(info))
    print(f"Davidson tie parameter nu = {info['davidson_nu']:.3f}")
    if info["ties_both_bad"] is not None:
        n_ties = int(t["ties"].sum()) // 2  # each tie is counted for both of its models
        print(
            f"{n_ties:,} tie(s), {info['ties_both_bad']:,} of them tie (bothbad): both kinds count as a tie (half a "
            "win to each side), as LMArena's leaderboard counts them"
        )
    if info["boot_left_out"]:
        print(
            f"{info['boot_left_out']:,} of {info['n_boot']:,} bootstrap replicates left out: in them a model won "
            "nothing, so Bradley-Terry has no finite estimate (the intervals use the rest)"
        )
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        t.to_csv(args.out / "rank.csv", index=False, float_format="%.6g")
        (args.out / "rank.json").write_text(
            json.dumps({"info": info, "models": t.to_dict(orient="records")}, indent=1) + "\n"
        )
        print(f"wrote {visible(args.out / 'rank.csv', inline=True)} and {visible(args.out / 'rank.json', inline=True)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
