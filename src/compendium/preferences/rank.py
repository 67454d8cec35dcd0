"""Rank the models of any pairwise-annotation file (your own study, an LMArena export, or the HITL release).

    python -m compendium.preferences.rank FILE [--n-boot N] [--seed S] [--ci 0.95] [--out DIR]
                                               [--cluster auto|prompt|category|none]

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
  - the Davidson (1970) strengths, which fit ties with a parameter of their own (nu);
  - beside the pairs bootstrap, when the file names each judgement's prompt (prompt_id) or prompt
    category (category), a clustered bootstrap: the prompts (or categories) resampled with
    replacement, each with all its judgements, and the same Bradley-Terry fit on every replicate.

Which bootstrap: judgements on the same prompt share that prompt, and the preference study shows win
rates differ between prompt categories far beyond chance (its chapter's clustered bootstrap is about
twice as wide), so the pairs bootstrap describes a re-run on the same prompts and the clustered one a
re-run on prompts like these. --cluster auto (the default) clusters by prompt_id when the file has it,
else by category, else prints the pairs bootstrap only and says so; --cluster prompt, category or none
chooses. The line after the table names the bootstrap(s) used; the clustered intervals are printed
beside the pairs ones, never instead of them.

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

from compendium.chapter.numbers import share
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
    rows, skipped, first, both_bad, kept = [], 0, {}, 0, []
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
        kept.append(i)
    if not rows:
        raise DataValidationError(f"{file}: none of the {len(df)} row(s) has a choice in field {col!r}")
    j = pd.DataFrame(rows, columns=["model_a", "model_b", "outcome"])
    # where each model is first named (row label, field), for a sentence about one model
    j.attrs["first_seen"] = {m: (f"{where.label} {where.numbers[i]}", f) for m, (i, f) in first.items()}
    j.attrs["layout"] = lay
    j.attrs["both_bad"] = both_bad if lay.kind == ARENA else None
    j.attrs["rows"] = np.asarray(kept, dtype=np.int64)  # each judgement's position in the file's rows
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


#: ``--cluster``: what the clustered bootstrap resamples -> the column naming it (the study's names: ``prompt_id`` as
#: :data:`compendium.preferences.rowlevel.REQUIRED` has it, ``category`` as the prompts file and the normalised rows
#: name it); ``auto`` takes the first the file has, ``none`` none
CLUSTER_COLUMNS = {"prompt": "prompt_id", "category": "category"}
CLUSTER_CHOICES = ("auto", *CLUSTER_COLUMNS, "none")
#: how the output names each bootstrap
BOOTSTRAP_NAMES = {
    None: "judgements resampled within each pair",
    "prompt": "prompts as clusters (each prompt id drawn with replacement, with all its judgements)",
    "category": "prompt categories as clusters (each category drawn with replacement, with all its judgements)",
}
#: the clustered bootstrap's columns of :func:`rank`'s table (present only when it ran)
CLUSTER_VALUE_COLUMNS = ("bt_lo_clustered", "bt_hi_clustered", "p_best_clustered")
#: replicates x clusters held at once while drawing the clustered bootstrap
CLUSTER_CHUNK = 4_000_000


def cluster_of(df: pd.DataFrame, file: Path, choice: str) -> str | None:
    """What ``--cluster choice`` clusters by in this file: ``prompt``, ``category`` or None (pairs bootstrap only).
    ``auto``: the first of :data:`CLUSTER_COLUMNS` whose column the file has, None when it has neither; a level
    asked for by name whose column the file lacks is refused in one sentence."""
    if choice not in CLUSTER_CHOICES:
        raise ValueError(f"--cluster must be one of {', '.join(CLUSTER_CHOICES)}, got {quote(choice)}")
    if choice == "none":
        return None
    if choice == "auto":
        return next((k for k, c in CLUSTER_COLUMNS.items() if c in df.columns), None)
    col = CLUSTER_COLUMNS[choice]
    if col not in df.columns:
        raise DataValidationError(
            f"{file}: --cluster {choice} needs a column {col!r}, and the columns are {quote(list(df.columns))}; "
            "add it, or run with --cluster auto (which clusters by what the file has) or --cluster none"
        )
    return choice


def cluster_counts(raw: pd.DataFrame, j: pd.DataFrame, pc: pd.DataFrame, models: list[str], file: Path, by: str):
    """``(ids, K)``: the cluster ids (sorted) and their counts ``K`` (clusters x pairs of ``pc`` x (i wins, j wins,
    ties)), from the column of ``by`` at each judgement's row (``j.attrs["rows"]``). A judged row without a
    cluster id is refused in one sentence naming the file, the row and the field."""
    col = CLUSTER_COLUMNS[by]
    rows = j.attrs["rows"]
    vals = raw[col].iloc[rows]
    blank = vals.isna().to_numpy() | (vals.astype("string").str.strip() == "").fillna(True).to_numpy()
    if blank.any():
        raise _bad(
            file,
            int(rows[np.flatnonzero(blank)[0]]),
            col,
            f"no {by} id, and the clustered bootstrap needs one for every judged row: fill it in, or run with "
            "--cluster none",
            rowlevel._Rows(raw),
        )
    ids, inv = np.unique(vals.astype(str).to_numpy(), return_inverse=True)
    idx = {m: k for k, m in enumerate(models)}
    ia, ib = j["model_a"].map(idx).to_numpy(), j["model_b"].map(idx).to_numpy()
    lo, hi = np.minimum(ia, ib), np.maximum(ia, ib)
    out = j["outcome"].to_numpy()
    lo_wins = ((out == "a") & (ia == lo)) | ((out == "b") & (ib == lo))
    hi_wins = ((out == "a") & (ia == hi)) | ((out == "b") & (ib == hi))
    kind = np.where(lo_wins, 0, np.where(hi_wins, 1, 2))
    pair = {(int(a), int(b)): p for p, (a, b) in enumerate(zip(pc["i"], pc["j"]))}
    pi = np.array([pair[(int(a), int(b))] for a, b in zip(lo, hi)], dtype=np.int64)
    K = np.zeros((len(ids), len(pc), 3))
    np.add.at(K, (inv, pi, kind), 1)
    return ids, K


def clustered_draws(K: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """``(n_boot, pairs, 3)`` resampled counts: each replicate draws the clusters (rows of ``K``) with replacement,
    as many as there are, and sums their counts; a cluster keeps all its judgements (the cluster bootstrap,
    Davison & Hinkley 1997, section 3.8, their "Strategy 2": resampling the judgements within each drawn cluster
    as well would count their binomial noise twice, once in how the clusters differ and again within them; Field
    & Welsh 2007, *J. R. Statist. Soc. B* 69, 369-390). Seeded from ``seed``'s first spawned stream
    (``SeedSequence(seed).spawn(1)[0]``), so the pairs bootstrap's own stream, ``default_rng(seed)``, is left as
    it was; the draw counts come from ``multinomial(C, 1/C)`` per replicate, as
    :func:`compendium.preferences.uncertainty.bootstrap_category_counts` draws its categories."""
    C = K.shape[0]
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    flat = K.reshape(C, -1)
    out = np.empty((n_boot, flat.shape[1]))
    step = max(1, CLUSTER_CHUNK // C)
    for s in range(0, n_boot, step):
        k = min(step, n_boot - s)
        out[s : s + k] = rng.multinomial(C, np.full(C, 1.0 / C), size=k) @ flat
    return out.reshape(n_boot, *K.shape[1:])


def _fit_replicates(draws: np.ndarray, i: np.ndarray, jj: np.ndarray, K: int) -> tuple[np.ndarray, int]:
    """Bradley-Terry strengths of every replicate of ``draws`` (replicates x pairs x (i wins, j wins, ties)) with a
    finite, converged, positive fit, and how many were left out (a replicate in which a model wins nothing has no
    finite estimate)."""
    Wb = pw.win_matrix_from_counts(i, jj, draws[..., 0], draws[..., 1], draws[..., 2], K)
    with np.errstate(divide="ignore", invalid="ignore"):
        bres = pw.bradley_terry_mm(Wb)
    ok = np.isfinite(bres.strengths).all(axis=1) & np.asarray(bres.converged) & (bres.strengths > 0).all(axis=1)
    return bres.strengths[ok], int((~ok).sum())


#: the command's defaults: replicates and seed of its own (a user's file, not the study's run) and the study's interval
#: level (the preferences section's reference, typed nowhere else)
N_BOOT, SEED, CI = 2000, 0, reference("preferences")["ci_level"]


def rank(file: str | Path, *, n_boot: int, seed: int, ci: float, cluster: str = "auto") -> dict:
    """Everything the CLI prints: ``table`` (one row per model, code names: :data:`PRINTED` gives the names it
    is printed with), ``info`` (counts, Davidson ``nu``, the file's ``layout`` (:data:`ARENA` or :data:`STUDY`)
    and ``ties_both_bad``, the ties an LMArena export marks ``tie (bothbad)``, None in the study's layout).

    ``cluster`` (:func:`cluster_of`): beside the pairs bootstrap, a clustered one (:func:`clustered_draws`) by
    prompt or category, whose interval and P(best) are the table's :data:`CLUSTER_VALUE_COLUMNS`; ``info`` says
    which ran (``cluster_by``: ``prompt``, ``category`` or None; ``cluster_column``, ``n_clusters``,
    ``boot_left_out_clustered``; ``bootstrap``: the sentence naming them, printed after the table). The pairs bootstrap's numbers do not
    depend on it."""
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
    by = cluster_of(raw, file, cluster)
    ids, counts = cluster_counts(raw, j, pc, models, file, by) if by else (None, None)
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
    # a replicate in which a model wins nothing has no finite BT estimate: left out, and counted
    boot, left_out = _fit_replicates(draws, i, jj, K)
    del draws
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
    left_out_cl = None
    if by:  # its columns after the pairs bootstrap's, which stay as they were
        cl, left_out_cl = _fit_replicates(clustered_draws(counts, n_boot, seed), i, jj, K)
        nan = np.full(K, np.nan)  # no replicate with a finite fit: the columns stay undefined
        got = {
            "bt_lo_clustered": np.percentile(cl, q[0], axis=0) if len(cl) else nan,
            "bt_hi_clustered": np.percentile(cl, q[1], axis=0) if len(cl) else nan,
            "p_best_clustered": (cl.argmax(axis=1)[:, None] == np.arange(K)).mean(axis=0) if len(cl) else nan,
        }
        for c, v in got.items():
            table[c] = table["model"].map(dict(zip(models, v, strict=True)))
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
        "boot_left_out": left_out,
        "davidson_nu": float(dav.nu),
        "layout": j.attrs["layout"].kind,
        "ties_both_bad": j.attrs["both_bad"],
        "cluster_by": by,
        "cluster_column": CLUSTER_COLUMNS[by] if by else None,
        "n_clusters": len(ids) if by else None,
        "boot_left_out_clustered": left_out_cl,
        "bootstrap": bootstrap_sentence(by, len(ids) if by else None, list(raw.columns)),
    }
    return {"table": table, "info": info}


def bootstrap_sentence(by: str | None, n_clusters: int | None, columns: list[str]) -> str:
    """Which bootstrap(s) the intervals come from, in one sentence (printed after the table, ``info["bootstrap"]``)."""
    pairs = f"Bootstrap: {BOOTSTRAP_NAMES[None]} (the study's)"
    if by is None:
        has = [c for c in CLUSTER_COLUMNS.values() if c in columns]
        why = (
            "--cluster none was given"
            if has
            else f"the file has no {' or '.join(CLUSTER_COLUMNS.values())} column to cluster by"
        )
        return f"{pairs} only: {why}, so the intervals describe a re-run on the same prompts."
    return (
        f"{pairs}, and beside it {BOOTSTRAP_NAMES[by]}: {n_clusters:,} {by} ids in column "
        f"{CLUSTER_COLUMNS[by]!r}, the interval for {by}s like these rather than the same ones again."
    )


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
    file's path nor its layout, a word, nor the bootstrap sentence and the cluster column; ``ties_both_bad`` only
    for an LMArena export, the clustered bootstrap's entries only when it ran) and ``<prefix>.<model>.<column>``
    for every model (:data:`VALUE_COLUMNS`, and :data:`CLUSTER_VALUE_COLUMNS` when the clustered bootstrap
    ran). The Davidson fit (BFGS) is rounded to 8
    significant digits, whose last digits would otherwise depend on the BLAS kernel
    (:func:`compendium.pipeline.results.significant`)."""
    from compendium.pipeline.results import significant

    info = res["info"]
    skip = ("file", "layout", "bootstrap", "cluster_column")
    out = {f"{prefix}.{k}": v for k, v in info.items() if k not in skip and v is not None}
    out[f"{prefix}.davidson_nu"] = significant(info["davidson_nu"])
    columns = [*VALUE_COLUMNS, *(c for c in CLUSTER_VALUE_COLUMNS if c in res["table"].columns)]
    for _, r in res["table"].iterrows():
        for c in columns:
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
    s = f"{myst(top['model'])} is strongest in {share(top['p_best'])} of the bootstrap replicates"
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


def printed_table(table: pd.DataFrame, ci: float, cluster_by: str | None = None) -> pd.DataFrame:
    """:func:`rank`'s table as the command prints it: the columns of :data:`PRINTED`, in its order and with its
    names, rates and strengths to 3 decimals, every model id with its control characters visible (no control
    sequence reaches the terminal); with ``cluster_by`` (``prompt`` or ``category``) the clustered bootstrap's
    interval and P(best) after them, named ``<level> low, by <cluster_by>`` and so on."""
    boot = views.bootstrap_view(ci)["rename"]
    names = {c: boot.get(n, n) for c, n in PRINTED.items()}
    if cluster_by:
        lo, hi, best = (boot.get(n, n) for n in ("ci_lo", "ci_hi", views.COLUMNS["p_best"]))
        names |= dict(zip(CLUSTER_VALUE_COLUMNS, (f"{x}, by {cluster_by}" for x in (lo, hi, best)), strict=True))
    shown = table[list(names)].copy()
    shown["model"] = shown["model"].map(lambda m: visible(m, inline=True))
    numbers = ("win_rate", "wilson_lo", "wilson_hi", "bt_strength", "bt_lo", "bt_hi", "p_best", "davidson_strength")
    for c in (*numbers, *(CLUSTER_VALUE_COLUMNS if cluster_by else ())):
        shown[c] = shown[c].map(lambda v: f"{v:.3f}")
    return shown.rename(columns=names)


def legend(info: dict) -> str:
    """What the printed columns hold, in a few lines."""
    import textwrap

    pct = share(info["ci_level"])
    text = (
        f"win rate: wins / (wins + losses), ties left out, with its {pct} Wilson interval. "
        f"{views.COLUMNS['bt_half_win']}: Bradley-Terry strength, strengths summing to {info['models']}, with its "
        f"{pct} percentile bootstrap interval ({pct} low, {pct} high). {views.COLUMNS['p_best']}: share of the "
        f"bootstrap replicates in which the model is strongest. {views.COLUMNS['davidson']}: strength in the "
        "Davidson model, which fits ties with a parameter of its own (nu)."
    )
    if info.get("cluster_by"):
        by = info["cluster_by"]
        text += (
            f" The columns 'by {by}': the same interval and P(best) from the clustered bootstrap ({by}s drawn with "
            f"replacement, each with all its judgements), for {by}s like these rather than the same ones again."
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
    ap.add_argument(
        "--cluster",
        choices=CLUSTER_CHOICES,
        default="auto",
        help="the clustered bootstrap printed beside the pairs one: by prompt (column prompt_id), by category "
        "(column category), none, or auto (default: prompt_id if the file has it, else category, else none)",
    )
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
        res = rank(args.file, n_boot=args.n_boot, seed=args.seed, ci=args.ci, cluster=args.cluster)
    except (DataError, FileNotFoundError, ValueError) as exc:
        print(f"error: {visible(' '.join(str(exc).split()), inline=True)}", file=sys.stderr)
        return 1
    t, info = res["table"], res["info"]
    pct = share(info["ci_level"])
    lay = LAYOUT_NAMES[info["layout"]]
    print(
        f"{visible(info['file'], inline=True)} ({lay}): {info['judgements']:,} judgements of {info['models']} models "
        f"in {info['pairs']} pairs ({info['rows_without_choice']:,} row(s) without a choice skipped); {pct} intervals, "
        f"{info['n_boot']:,} bootstrap replicates (seed {info['seed']})"
    )
    print(printed_table(t, info["ci_level"], info["cluster_by"]).to_string(index=False))
    print(info["bootstrap"])
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
    if info["boot_left_out_clustered"]:
        print(
            f"{info['boot_left_out_clustered']:,} of {info['n_boot']:,} clustered bootstrap replicates left out, for "
            "the same reason (the clustered intervals use the rest)"
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
