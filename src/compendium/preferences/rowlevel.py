"""Row-level path: what the annotations add once they are on disk.

The study's dataset ``ProlificAI/autoresearch-hitl-annotations`` (config ``annotations``, 1,507 rows)
is fetched by the project's acquisition code to ``data/hitl/annotations.parquet``
(:data:`ANNOTATIONS_RELPATH`); this module only reads that local file. One row is one participant's
judgement of one prompt-pair instance ("scenario").

Two layouts are accepted (:func:`normalise_annotations`):

* the **Hugging Face layout**: ``participant_id`` (P001..P305), ``scenario_id``, ``prompt_id``,
  ``a_model`` / ``b_model`` with the dataset's model ids (``untrained``, ``recipe_a`` .. ``recipe_d``)
  and a choice column;
* the **study's own export** (``annotations_real.json``, what the authors' ``build_report.py`` reads):
  ``prolific_pid`` for the participant, the internal model ids of :data:`INTERNAL_MODEL_IDS` and the
  choice in ``choice_canonical``; the comment may sit in ``responses.comment``.

The response texts, when present, are the first pair of :data:`TEXT_COLUMNS` found: ``a_text`` / ``b_text``
(the authors' export) or ``response_a`` / ``response_b`` (the names of the hub card's layout). A file with
neither pair is read without them (:data:`TEXTS_ABSENT` says so where the two length ratios would be); a file
with one column of a pair and not the other is refused (:func:`text_columns`).

The choice column is the first of :data:`CHOICE_COLUMNS` present (``choice_canonical``, ``choice``,
``label``, ...): ``A`` / ``B`` / ``tie`` (and spelled-out variants), or the id of the preferred model.

**Sides, not positions.** ``a_model`` / ``b_model`` are the pair grid's *canonical* sides (the grid
fixes which response is "A"); the interface then randomised the display order per participant
(report, Methodology: "A/B display order randomized per participant via stable hash"). ``choice
canonical`` refers to the grid's sides, so the share of choices for side A is a **canonical-side
asymmetry** (:func:`canonical_side_asymmetry`), not a position bias. A position bias can only be measured
when a column records what was displayed first (:data:`DISPLAY_COLUMNS`, :func:`position_bias`); neither
layout we know of has one.

From the rows the stage computes the report's row-level numbers with the authors' method
(``eval_data/phase2/scripts/build_report.py``): Fleiss' kappa per pair over scenarios with exactly 3
ratings (:func:`fleiss_table`), the per-category disagreement table (:func:`disagreement_by_category`),
the vote tallies of example scenarios (:func:`scenario_votes`), the length ratios when response texts are
present (:func:`length_ratios`), the number of distinct participants, and checks that the rows
aggregate to the published pair counts.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from compendium.pipeline import paths
from compendium.pipeline.cli import quote

from ..data.anomalies import parse_json
from ..data.errors import DataValidationError, require_columns
from ..stats import pairwise as pw
from .reproduce import COUNT_COLUMNS, MODELS, VAL_PREF_ACC, validate_pair_counts

#: Where the acquisition step puts the HF ``annotations`` config (relative to the project root).
ANNOTATIONS_RELPATH = "data/hitl/annotations.parquet"
#: What a None in values.json that needs the rows is waiting for.
ANNOTATIONS_MISSING = (
    "data/hitl/annotations.parquet (row-level annotations: Hugging Face "
    "ProlificAI/autoresearch-hitl-annotations, config annotations)"
)
#: The study's internal model ids -> the dataset's ids. Derived from the authors' build_report.py:
#: MODEL_ORDER = [base, prod-baseline, prod-adambeta2, prod-bestbet, prod-bestbet-v2] with display names
#: "Original model", "Recipe A · default DPO", "Recipe B · agent's pick", "Recipe C · LoRA + filtered
#: data", "Recipe D · deeper LoRA + filtered data", and VAL_PREF_ACC 0.500 / 0.464 / 0.492 / 0.628 /
#: 0.648 (the same values as :data:`compendium.preferences.reproduce.VAL_PREF_ACC` under these ids).
INTERNAL_MODEL_IDS: dict[str, str] = {
    "base": "untrained",
    "prod-baseline": "recipe_a",
    "prod-adambeta2": "recipe_b",
    "prod-bestbet": "recipe_c",
    "prod-bestbet-v2": "recipe_d",
}
#: Accepted names of the participant column (HF layout, study export).
PARTICIPANT_COLUMNS = ("participant_id", "prolific_pid")
#: Accepted names of the column holding the participant's choice (first match wins).
CHOICE_COLUMNS = (
    "choice_canonical",
    "choice",
    "label",
    "preference",
    "preferred",
    "winner",
    "winner_model",
    "preferred_model",
)
#: Accepted names of the two response-text columns (side A, side B), the first pair present wins: the authors'
#: export names them ``a_text`` / ``b_text``, the hub card's layout ``response_a`` / ``response_b``.
TEXT_COLUMNS = (("a_text", "b_text"), ("response_a", "response_b"))
#: The one sentence for annotations without response texts (the register's missing note of the two length
#: ratios, the chapter's row-level paragraph, the acquisition's note): which columns were looked for.
TEXTS_ABSENT = (
    "The annotations have no response texts: neither response_a / response_b (the columns the hub's dataset card "
    "lists) nor a_text / b_text (the authors' export) is among their columns, so the two length ratios "
    "(hitl.length.ratio_agree, hitl.length.ratio_disagree) are not computed; the hub's annotations config has "
    "response_a / response_b"
)
#: Columns naming the model *displayed* first (left / top) to the participant; only with one of these
#: can a position bias be measured.
DISPLAY_COLUMNS = ("displayed_first_model", "shown_first_model", "left_model", "display_a_model")
#: Boolean columns: True when the grid's side B was displayed first (the display swapped the sides).
SWAP_COLUMNS = ("display_swapped", "swapped")
REQUIRED = ("scenario_id", "prompt_id", "a_model", "b_model")
#: The row key of the study's schema: one row is one participant's judgement of one scenario.
ROW_KEY = ("participant_id", "scenario_id")
_A = {"a", "response a", "a better", "a is better", "option a", "left"}
_B = {"b", "response b", "b better", "b is better", "option b", "right"}
_TIE = {"tie", "about equal", "equal", "same", "draw", "t"}
#: Fewest complete (3-rating) scenarios for a per-pair kappa (build_report.compute_iaa_per_pair).
MIN_KAPPA_ITEMS = 5
#: Ratings per scenario that make it "complete" for kappa.
RATERS = 3
#: Agreement bands of the report's appendix (upper bounds; the last band is open).
KAPPA_BANDS = ((0.2, "poor"), (0.4, "fair"), (0.6, "moderate"), (np.inf, "substantial"))


#: Where an acquisition may put the rows, in the order the default path looks for them: the hub's
#: ``annotations`` config in its raw format, then the study's own export.
ANNOTATIONS_CANDIDATES = (
    "data/hitl/annotations.parquet",
    "data/hitl/annotations.jsonl",
    "data/hitl/annotations.csv",
    "data/hitl/annotations.json",
    "data/hitl/annotations_real.json",
)


def annotations_path(relpath: str | Path) -> Path:
    """Absolute path of the annotations file (``relpath``, the parameter ``preferences.annotations_path``,
    relative to the project root unless absolute).

    The acquisition's path (:data:`ANNOTATIONS_RELPATH`, ``data/hitl/annotations.parquet``, the parameter's
    reference value) stands for every file an acquisition may write: when it is absent, the first present of
    :data:`ANNOTATIONS_CANDIDATES` is used (so the study's own export, ``data/hitl/annotations_real.json``, is
    read without a parameter change)."""
    p = Path(relpath)
    full = p if p.is_absolute() else paths.ROOT / p
    if p.as_posix() == ANNOTATIONS_RELPATH and not full.exists():
        for c in ANNOTATIONS_CANDIDATES:
            if (paths.ROOT / c).exists():
                return paths.ROOT / c
    return full


def _verify_acquired(p: Path) -> None:
    """A file under ``data/`` at an acquired-only path must match ``acquired/hitl/manifest.json``."""
    from ..data import acquired

    try:
        rel = p.resolve().relative_to(paths.DATA.resolve()).as_posix()
    except ValueError:
        return
    if acquired.dataset_of(rel) is not None:
        acquired.verify(rel)


def read_annotations(path: str | Path, verify: bool = True) -> pd.DataFrame:
    """Read the annotations: parquet, CSV, JSON lines, or a JSON array of records (the study's export,
    whose nested ``responses`` dict is kept as a column). ``FileNotFoundError`` if absent; a file that
    cannot be parsed raises ``DataValidationError`` naming the file (and the line, for JSON lines). A file
    under ``data/`` that an acquisition writes is first checked against its local manifest
    (``verify=False`` skips that, for acquisition itself)."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"{p}: row-level annotations not present (fetch the HF dataset first)")
    if verify:
        _verify_acquired(p)
    try:
        if p.suffix == ".parquet":
            return _sourced(pd.read_parquet(p), p, "row")
        if p.suffix == ".csv":
            return _sourced(pd.read_csv(p), p, "row")
        text = p.read_text(encoding="utf-8") if p.suffix in (".jsonl", ".json") else None
    except (OSError, ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise DataValidationError(
            f"{p}: cannot be read as {p.suffix[1:]}: {' '.join(str(exc).split())[:200]}"
        ) from None
    if p.suffix == ".jsonl":
        rows, numbers = [], []
        for i, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            rec = parse_json(line, str(p), i, error=DataValidationError)
            if not isinstance(rec, dict):
                raise DataValidationError(
                    f"{p}: line {i}: expected a JSON object (one annotation), got {type(rec).__name__}"
                )
            rows.append(rec)
            numbers.append(i)
        return _sourced(pd.DataFrame.from_records(rows), p, "line", numbers)
    if p.suffix == ".json":
        obj = parse_json(text, str(p), error=DataValidationError)
        if isinstance(obj, dict):  # {"annotations": [...]} or {"rows": [...]}
            obj = next((v for k, v in obj.items() if k in ("annotations", "rows", "data")), None)
        if not isinstance(obj, list):
            raise DataValidationError(f"{p}: expected a JSON array of annotation records")
        bad = next((i for i, r in enumerate(obj) if not isinstance(r, dict)), None)
        if bad is not None:
            raise DataValidationError(f"{p}: record {bad + 1}: expected a JSON object (one annotation)")
        return _sourced(pd.DataFrame.from_records(obj), p, "record")
    raise DataValidationError(f"{p}: unsupported file type {quote(p.suffix)}; expected .parquet, .csv, .json or .jsonl")


def _sourced(df: pd.DataFrame, p: Path, label: str, numbers: list[int] | None = None) -> pd.DataFrame:
    """``df`` with where its rows come from in ``attrs`` (file, "line" / "record" / "row" and each row's
    number), so that :func:`normalise_annotations` names the file and the row of a value it refuses."""
    df.attrs.update(source=str(p), row_label=label, row_numbers=numbers or list(range(1, len(df) + 1)))
    return df


class _Rows:
    """Where the rows of a frame come from: the file (or "annotations") and each row's line / record / row."""

    def __init__(self, df: pd.DataFrame):
        self.where = str(df.attrs.get("source") or "annotations")
        numbers = df.attrs.get("row_numbers")
        if numbers is not None and len(numbers) == len(df):
            self.label, self.numbers = str(df.attrs.get("row_label", "row")), np.asarray(numbers)
        else:  # a frame built or filtered in memory: its rows in order
            self.label, self.numbers = "row", np.arange(1, len(df) + 1)

    def keep(self, mask) -> None:
        self.numbers = self.numbers[np.asarray(mask, dtype=bool)]

    def at(self, mask=None) -> str:
        """``"<file>: line 5"`` for the first row of ``mask`` (``"(and n more rows)"`` when there are more)."""
        if mask is None:
            return self.where
        idx = np.flatnonzero(np.asarray(mask, dtype=bool))
        more = f" (and {len(idx) - 1} more row{'s' if len(idx) > 2 else ''})" if len(idx) > 1 else ""
        return f"{self.where}: {self.label} {self.numbers[idx[0]]}{more}"


def _map_model_ids(s: pd.Series, col: str, rows: _Rows | None = None) -> pd.Series:
    rows = rows or _Rows(s.to_frame())
    missing = s.isna().to_numpy()
    if missing.any():
        raise DataValidationError(f"{rows.at(missing)}: field {col}: missing model id")
    out = s.astype(str).map(lambda v: INTERNAL_MODEL_IDS.get(v, v))
    bad = ~out.isin(MODELS).to_numpy()
    if bad.any():
        raise DataValidationError(
            f"{rows.at(bad)}: field {col}: unknown model id {quote(out[bad].iloc[0])}; expected one of "
            f"{list(MODELS)} (HF ids) or {list(INTERNAL_MODEL_IDS)} (the study's internal ids)"
        )
    return out


def _comments(df: pd.DataFrame) -> pd.Series | None:
    if "comment" in df.columns:
        return df["comment"].fillna("").astype(str).str.strip()
    if "responses" in df.columns:
        return (
            df["responses"]
            .map(lambda r: ((r or {}).get("comment") or "") if isinstance(r, dict) else "")
            .astype(str)
            .str.strip()
        )
    return None


def text_columns(columns, where: str = "annotations") -> tuple[str, str] | None:
    """The response-text columns among ``columns``: the first pair of :data:`TEXT_COLUMNS` with both present,
    or None when no column of any pair is there (:data:`TEXTS_ABSENT`). One column of a pair without the other
    (and no complete pair) raises ``DataValidationError`` naming ``where``, the column found and the one
    missing: half a pair cannot give the length ratios, and is more likely a damaged file than a choice."""
    have = set(columns)
    pair = next((p for p in TEXT_COLUMNS if set(p) <= have), None)
    if pair is not None:
        return pair
    half = next(((p, c) for p in TEXT_COLUMNS for c in p if c in have), None)
    if half is None:
        return None
    (first, second), found = half
    other = second if found == first else first
    names = " or ".join(f"{a!r} / {b!r}" for a, b in TEXT_COLUMNS)
    raise DataValidationError(
        f"{where}: missing column {other!r}: the file has the response text {found!r} but not {other!r} (response "
        f"texts come in pairs, {names}); add {other!r}, or remove {found!r} to read the rows without texts"
    )


def normalise_annotations(df: pd.DataFrame, prompts: pd.DataFrame | None = None) -> pd.DataFrame:
    """Validate the rows (either layout) and put every judgement in the study's canonical orientation.

    Returns a frame with ``participant_id, scenario_id, prompt_id, category`` (from ``prompts``, columns
    ``id, category``, if given), ``a_model, b_model`` (the grid's canonical sides, dataset ids),
    ``side_choice`` (``A``/``B``/``tie``: the canonical side chosen), ``model_x, model_y`` (the earlier and
    later model in :data:`MODELS` order) and ``outcome`` (``x``/``y``/``tie``); plus ``displayed_first``
    (the model shown first) when the rows record it, ``comment`` and ``a_text, b_text`` when present (from the
    first pair of :data:`TEXT_COLUMNS` in the file: ``a_text`` / ``b_text`` or ``response_a`` / ``response_b``;
    :func:`text_columns`; ``attrs["text_columns"]`` names the pair read, None without texts).
    Raises ``DataValidationError`` (a ``ValueError``) naming the column and the offending values.

    Rows without a choice (missing or empty) are skipped, as the study's report skips them; the frame's
    ``attrs`` say how many (``n_without_choice`` of ``n_rows_read``), how many rows repeat a participant's
    judgement of the same scenario (``n_duplicate_rows``: the row key :data:`ROW_KEY` repeated, counted as
    the report counts them and warned about, naming the file and the rows of the first repeated key,
    ``duplicate_rows``), and the distinct participants over all rows read (``n_participants_all``, the
    report's count). A refused value is named by file (``attrs["source"]`` of :func:`read_annotations`, else
    "annotations"), line / record / row and field.
    ``scenario_rank`` is the scenario's place of first appearance in the file (any row).
    """
    rows = _Rows(df)
    where = rows.where
    pcol = next((c for c in PARTICIPANT_COLUMNS if c in df.columns), None)
    if pcol is None:
        raise DataValidationError(
            f"{where}: missing column: no participant column; expected one of "
            f"{list(PARTICIPANT_COLUMNS)}, found columns {list(df.columns)[:12]}"
        )
    require_columns(df, REQUIRED, where, hint=f" plus a choice column (one of {list(CHOICE_COLUMNS)})")
    texts = text_columns(df.columns, where)
    col = next((c for c in CHOICE_COLUMNS if c in df.columns), None)
    if col is None:
        raise DataValidationError(
            f"{where}: no choice column; expected one of {list(CHOICE_COLUMNS)}, found columns {list(df.columns)}"
        )
    # the study's report skips rows without a choice (build_report.aggregate) and so do we, counting them;
    # a scenario keeps the place of its first row in the file, with or without a choice
    n_rows = len(df)
    n_participants_all = int(df[pcol].astype(str).nunique())
    scenario_rank = pd.Series(pd.factorize(df["scenario_id"].astype(str))[0], index=df.index)
    no_choice = df[col].isna() | (df[col].astype("string").str.strip() == "")
    df = df[~no_choice.to_numpy(dtype=bool)]
    rows.keep(~no_choice.to_numpy(dtype=bool))
    if df.empty:
        raise DataValidationError(f"{where}: none of the {n_rows} row(s) has a choice in column {col!r}")
    a_model = _map_model_ids(df["a_model"], "a_model", rows)
    b_model = _map_model_ids(df["b_model"], "b_model", rows)
    same = (a_model == b_model).to_numpy()
    if same.any():
        raise DataValidationError(
            f"{rows.at(same)}: field b_model: the same model {quote(a_model[same].iloc[0])} as a_model on both sides"
        )
    raw = df[col].astype("string").str.strip().str.lower().str.replace(r"[_\-]+", " ", regex=True)
    side = pd.Series(pd.NA, index=df.index, dtype="string")
    side[raw.isin(_A)] = "A"
    side[raw.isin(_B)] = "B"
    side[raw.isin(_TIE)] = "tie"
    # a column naming the preferred model (dataset or internal id)
    named = (
        df[col].astype("string").str.strip().map(lambda v: INTERNAL_MODEL_IDS.get(v, v) if isinstance(v, str) else v)
    )
    side[side.isna() & (named == a_model)] = "A"
    side[side.isna() & (named == b_model)] = "B"
    unread = side.isna().to_numpy()
    if unread.any():
        raise DataValidationError(
            f"{rows.at(unread)}: field {col}: value {quote(str(df.loc[unread, col].iloc[0]))} is not A, B, tie or one "
            "of the two models shown"
        )
    order = {m: k for k, m in enumerate(MODELS)}
    a_first = (a_model.map(order) < b_model.map(order)).to_numpy(dtype=bool)
    s = side.to_numpy(dtype=object)
    out = pd.DataFrame(
        {
            "participant_id": df[pcol].astype(str).to_numpy(),
            "scenario_id": df["scenario_id"].astype(str).to_numpy(),
            "prompt_id": df["prompt_id"].astype(str).to_numpy(),
            "a_model": a_model.to_numpy(),
            "b_model": b_model.to_numpy(),
            "side_choice": s.astype(str),
            "model_x": np.where(a_first, a_model, b_model),
            "model_y": np.where(a_first, b_model, a_model),
            "scenario_rank": scenario_rank.loc[df.index].to_numpy(),
        }
    )
    out["outcome"] = np.select([s == "tie", (s == "A") == a_first], ["tie", "x"], default="y")
    per = out.groupby("scenario_id")[["model_x", "model_y", "prompt_id"]].nunique()
    bad = per[(per > 1).any(axis=1)]
    if len(bad):
        raise DataValidationError(
            f"{where}: scenario_id {quote(bad.index[0])} (and {len(bad) - 1} more) has rows with "
            "different models or prompts; one scenario is one prompt x pair instance"
        )
    dcol = next((c for c in DISPLAY_COLUMNS if c in df.columns), None)
    scol = next((c for c in SWAP_COLUMNS if c in df.columns), None)
    if dcol is not None:
        shown = _map_model_ids(df[dcol], dcol, rows).to_numpy()
        other = ~((shown == out["a_model"]) | (shown == out["b_model"])).to_numpy()
        if other.any():
            raise DataValidationError(
                f"{rows.at(other)}: field {dcol}: names a model that is not one of the two compared"
            )
        out["displayed_first"] = shown
    elif scol is not None:
        sw = df[scol]
        if sw.isna().any() or not set(sw.astype(str).str.lower()) <= {"true", "false", "1", "0"}:
            raise DataValidationError(f"{where}: column {scol!r} must be boolean (True = side B displayed first)")
        sw = sw.astype(str).str.lower().isin(["true", "1"]).to_numpy()
        out["displayed_first"] = np.where(sw, out["b_model"], out["a_model"])
    com = _comments(df)
    if com is not None:
        out["comment"] = com.to_numpy()
    if texts is not None:  # a_text / b_text (the authors' export) or response_a / response_b (the hub card)
        out["a_text"] = df[texts[0]].fillna("").astype(str).to_numpy()
        out["b_text"] = df[texts[1]].fillna("").astype(str).to_numpy()
    if prompts is not None:
        cat = dict(zip(prompts["id"], prompts["category"]))
        unknown = ~out["prompt_id"].isin(list(cat)).to_numpy()
        if unknown.any():
            raise DataValidationError(
                f"{rows.at(unknown)}: field prompt_id: id {quote(out.loc[unknown, 'prompt_id'].iloc[0])} is not in the "
                "prompt list"
            )
        out.insert(3, "category", out["prompt_id"].map(cat))
    out.attrs.update(
        {
            "n_rows_read": n_rows,
            "n_without_choice": int(no_choice.sum()),
            "n_participants_all": n_participants_all,
            "text_columns": list(texts) if texts is not None else None,
            **repeated_keys(out["participant_id"], out["scenario_id"], rows, stacklevel=3),
        }
    )
    return out


def repeated_keys(participant: pd.Series, scenario: pd.Series, rows: _Rows, stacklevel: int = 2) -> dict:
    """Rows repeating the row key :data:`ROW_KEY` (a participant judging a scenario twice): tolerated and
    counted by the anomaly policy, as the study's report counts every row, and warned about naming the file,
    the key and the lines / records / rows of the first repeated key. Returns ``n_duplicate_rows``,
    ``first_duplicate`` ({participant_id, scenario_id} or None) and ``duplicate_rows`` (their numbers)."""
    key = pd.DataFrame({"participant_id": participant.astype(str).to_numpy(), "scenario_id": scenario.astype(str)})
    dup = key.duplicated(keep=False).to_numpy()
    if not dup.any():
        return {"n_duplicate_rows": 0, "first_duplicate": None, "duplicate_rows": []}
    first = key[dup].iloc[0]
    numbers = [int(n) for n in rows.numbers[(key == first).all(axis=1).to_numpy()]]
    n = int(key.duplicated().sum())
    import warnings

    warnings.warn(
        f"{rows.where}: {n} row(s) repeat a participant's judgement of a scenario (key ({', '.join(ROW_KEY)}), "
        f"e.g. participant {quote(first['participant_id'])}, scenario {quote(first['scenario_id'])} at {rows.label}s "
        f"{' and '.join(map(str, numbers))}); they are counted, as the study's report counts every row (the "
        "anomaly policy tolerates them; remove the repeated rows to count each judgement once)",
        stacklevel=stacklevel,
    )
    return {"n_duplicate_rows": n, "first_duplicate": dict(first.astype(str)), "duplicate_rows": numbers}


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
    out = out.sort_values(
        [*by, "model_x", "model_y"], key=lambda s: s.map(order) if s.name in ("model_x", "model_y") else s
    )
    return out[[*by, *COUNT_COLUMNS]].reset_index(drop=True)


def compare_with_published(aggregated: pd.DataFrame, published: pd.DataFrame, by: tuple[str, ...] = ()) -> pd.DataFrame:
    """Row-level aggregate vs published counts, one row per pair: both sets of counts and ``match``."""
    pub = validate_pair_counts(published, by=by)[[*by, *COUNT_COLUMNS]]
    m = pub.merge(aggregated, on=[*by, "model_x", "model_y"], how="outer", suffixes=("_published", "_rows"))
    cols = ("x_wins", "y_wins", "ties", "n")
    m[[f"{c}_{s}" for c in cols for s in ("published", "rows")]] = (
        m[[f"{c}_{s}" for c in cols for s in ("published", "rows")]].fillna(0).astype(int)
    )
    m["match"] = np.all([m[f"{c}_published"] == m[f"{c}_rows"] for c in cols], axis=0)
    return m


# ----------------------------------------------------------------------------------------------
# Agreement (Fleiss' kappa), the report's appendix
# ----------------------------------------------------------------------------------------------


def fleiss_kappa_counts(table) -> float:
    """Fleiss' kappa of an items x labels count table with the same number of raters per item, as the
    report's ``fleiss_kappa``: P_i = (sum_j n_ij^2 - n) / (n (n - 1)), P_e = sum_j p_j^2 over the labels'
    overall shares, kappa = (mean P_i - P_e) / (1 - P_e), and 1.0 when P_e = 1 (every rating the same
    label). Raises ``ValueError`` on unequal rater counts or fewer than 2 raters."""
    t = np.asarray(table, dtype=float)
    if t.ndim != 2 or t.shape[0] == 0:
        raise ValueError("fleiss_kappa_counts: expected a non-empty items x labels table")
    n = t.sum(axis=1)
    if not np.all(n == n[0]) or n[0] < 2:
        raise ValueError("fleiss_kappa_counts: every item needs the same number (>= 2) of ratings")
    n = n[0]
    p_i = ((t * t).sum(axis=1) - n) / (n * (n - 1))
    p_j = t.sum(axis=0) / t.sum()
    pe = float((p_j * p_j).sum())
    return float((p_i.mean() - pe) / (1 - pe)) if pe < 1 else 1.0


def kappa_band(kappa: float | None) -> str | None:
    """The report's agreement label: < 0.2 poor, < 0.4 fair, < 0.6 moderate, else substantial."""
    if kappa is None or not np.isfinite(kappa):
        return None
    return next(label for bound, label in KAPPA_BANDS if kappa < bound)


def scenario_tallies(norm: pd.DataFrame) -> pd.DataFrame:
    """One row per scenario in order of first appearance (in the file, by ``scenario_rank`` when present):
    ``scenario_id, prompt_id, model_x, model_y, x, y, tie, n`` (votes in canonical orientation)."""
    if "scenario_rank" in norm.columns:
        norm = norm.sort_values("scenario_rank", kind="stable")
    first = norm.drop_duplicates("scenario_id")[["scenario_id", "prompt_id", "model_x", "model_y"]]
    t = pd.crosstab(norm["scenario_id"], norm["outcome"])
    for c in ("x", "y", "tie"):
        if c not in t.columns:
            t[c] = 0
    out = first.merge(t[["x", "y", "tie"]].reset_index(), on="scenario_id", how="left")
    out["n"] = out["x"] + out["y"] + out["tie"]
    for c in ("category", "a_text", "b_text", "a_model", "b_model"):
        if c in norm.columns:
            out[c] = out["scenario_id"].map(norm.drop_duplicates("scenario_id").set_index("scenario_id")[c])
    return out.reset_index(drop=True)


def fleiss_table(norm: pd.DataFrame, min_items: int = MIN_KAPPA_ITEMS, raters: int = RATERS) -> pd.DataFrame:
    """The report's per-pair agreement table (build_report ``compute_iaa_per_pair``): for each pair, the
    scenarios with exactly ``raters`` ratings (``n_items``), Fleiss' kappa over them with labels X / Y / tie
    (:func:`fleiss_kappa_counts`; NaN when fewer than ``min_items``) and the report's band. All 10 pairs of
    the design are listed (``n_items`` 0 for a pair without rows), in :data:`MODELS` order."""
    tal = scenario_tallies(norm)
    complete = tal[tal["n"] == raters]
    rows = []
    for i, mx in enumerate(MODELS):
        for my in MODELS[i + 1 :]:
            g = complete[(complete["model_x"] == mx) & (complete["model_y"] == my)]
            k = fleiss_kappa_counts(g[["x", "y", "tie"]].to_numpy()) if len(g) >= min_items else np.nan
            rows.append({"model_x": mx, "model_y": my, "n_items": len(g), "kappa": k, "band": kappa_band(k)})
    return pd.DataFrame(rows)


def fleiss_kappa_per_pair(norm: pd.DataFrame, min_items: int = MIN_KAPPA_ITEMS) -> pd.DataFrame:
    """:func:`fleiss_table` restricted to pairs with rows, columns ``model_x, model_y, n_items, fleiss_kappa``."""
    t = fleiss_table(norm, min_items=min_items)
    present = set(zip(norm["model_x"], norm["model_y"]))
    t = t[[p in present for p in zip(t["model_x"], t["model_y"])]]
    return t.rename(columns={"kappa": "fleiss_kappa"})[["model_x", "model_y", "n_items", "fleiss_kappa"]].reset_index(
        drop=True
    )


# ----------------------------------------------------------------------------------------------
# Where the metric and people diverge (build_report characterize_failures / find_disagreement_pairs)
# ----------------------------------------------------------------------------------------------


def _lower_higher(mx: str, my: str, val_pref_acc: dict[str, float]) -> tuple[str, str]:
    return (mx, my) if val_pref_acc[mx] <= val_pref_acc[my] else (my, mx)


def scenario_verdicts(norm: pd.DataFrame, val_pref_acc: dict[str, float] = VAL_PREF_ACC) -> pd.DataFrame:
    """Per scenario: the lower- and higher-``val_pref_acc`` model, their votes and ties, and ``verdict``:
    ``disagree`` (more votes for the lower-val model), ``agree`` (more for the higher), ``even`` (equal
    votes; the report skips these). Scenarios in order of first appearance."""
    tal = scenario_tallies(norm)
    lo_hi = [_lower_higher(mx, my, val_pref_acc) for mx, my in zip(tal["model_x"], tal["model_y"])]
    tal["lower_model"] = [a for a, _ in lo_hi]
    tal["higher_model"] = [b for _, b in lo_hi]
    lower_is_x = tal["lower_model"] == tal["model_x"]
    tal["lower_votes"] = np.where(lower_is_x, tal["x"], tal["y"])
    tal["higher_votes"] = np.where(lower_is_x, tal["y"], tal["x"])
    tal["verdict"] = np.select(
        [tal["lower_votes"] > tal["higher_votes"], tal["lower_votes"] < tal["higher_votes"]],
        ["disagree", "agree"],
        default="even",
    )
    return tal


def disagreement_by_category(norm: pd.DataFrame, val_pref_acc: dict[str, float] = VAL_PREF_ACC) -> pd.DataFrame:
    """The report's "Where the metric and humans diverge most" table: per prompt category, the scenarios
    (all ratings of a prompt-pair instance, any number of them, all 10 pairs) in which more annotators
    picked the lower-``val_pref_acc`` response (``lower_val_wins``), the decided scenarios (``scenarios``:
    equal votes are left out) and ``rate`` = lower_val_wins / scenarios in %. Rows sorted by rate, highest
    first; categories with equal rates keep the report's order (``build_report.characterize_failures``
    sorts, stably, categories in the order it first met them: among the disagreeing scenarios first, then
    among the agreeing ones, each in the order of the scenarios' first rows in the file). Needs ``category``
    (pass ``prompts`` to :func:`normalise_annotations`)."""
    require_columns(norm, ("category",), "annotations", hint=" (normalise with prompts=...)")
    v = scenario_verdicts(norm, val_pref_acc)
    v = v[v["verdict"] != "even"]
    # tie order as the report's characterize_failures: categories are met first in the disagreeing
    # scenarios, then in the agreeing ones (each in the file's scenario order), and a stable sort by rate
    cats = list(
        dict.fromkeys([*v.loc[v["verdict"] == "disagree", "category"], *v.loc[v["verdict"] == "agree", "category"]])
    )
    g = v.groupby("category", sort=False)
    out = pd.DataFrame(
        {
            "category": cats,
            "lower_val_wins": [int((g.get_group(c)["verdict"] == "disagree").sum()) for c in cats],
            "scenarios": [len(g.get_group(c)) for c in cats],
        }
    )
    out["rate"] = 100.0 * out["lower_val_wins"] / out["scenarios"]
    return out.sort_values("rate", ascending=False, kind="stable").reset_index(drop=True)


def scenario_votes(norm: pd.DataFrame, prompt_id: str, winner: str, loser: str) -> dict[str, int] | None:
    """Votes in the scenario of ``prompt_id`` comparing ``winner`` and ``loser``: ``winner_votes, ties,
    loser_votes``; None when the rows hold no such scenario."""
    tal = scenario_tallies(norm)
    mx, my = sorted((winner, loser), key=MODELS.index)
    hit = tal[(tal["prompt_id"] == prompt_id) & (tal["model_x"] == mx) & (tal["model_y"] == my)]
    if len(hit) == 0:
        return None
    if len(hit) > 1:
        raise DataValidationError(
            f"annotations: prompt {quote(prompt_id)} has {len(hit)} scenarios for the pair {mx} vs {my}"
        )
    r = hit.iloc[0]
    w, lo = (r["x"], r["y"]) if winner == mx else (r["y"], r["x"])
    return {"winner_votes": int(w), "ties": int(r["tie"]), "loser_votes": int(lo)}


def disagreement_examples(
    norm: pd.DataFrame, n_per_pair: int = 2, n_show: int = 5, val_pref_acc: dict[str, float] = VAL_PREF_ACC
) -> pd.DataFrame:
    """The report's example scenarios (build_report ``find_disagreement_pairs``): only pairs whose Y (later
    model) has the higher ``val_pref_acc``; per pair the ``n_per_pair`` scenarios with the largest
    score = X votes − Y votes (at least 1); all of them sorted by score and the first ``n_show`` shown.
    Ties in score keep the order of first appearance (as the authors' stable sorts do)."""
    tal = scenario_tallies(norm)
    picks = []
    for (mx, my), g in tal.groupby(["model_x", "model_y"], sort=False):
        if val_pref_acc[my] <= val_pref_acc[mx]:
            continue
        g = g.assign(score=g["x"] - g["y"]).sort_values("score", ascending=False, kind="stable")
        picks.append(g.head(n_per_pair)[lambda d: d["score"] >= 1])
    if not picks:
        return pd.DataFrame(
            columns=["prompt_id", "winner_model", "loser_model", "winner_votes", "ties", "loser_votes", "score"]
        )
    p = pd.concat(picks).sort_values("score", ascending=False, kind="stable").head(n_show)
    return pd.DataFrame(
        {
            "prompt_id": p["prompt_id"],
            "winner_model": p["model_x"],
            "loser_model": p["model_y"],
            "winner_votes": p["x"],
            "ties": p["tie"],
            "loser_votes": p["y"],
            "score": p["score"],
        }
    ).reset_index(drop=True)


def length_ratios(norm: pd.DataFrame, val_pref_acc: dict[str, float] = VAL_PREF_ACC) -> dict[str, float] | None:
    """Character-length ratio of the higher- to the lower-``val_pref_acc`` response, as the report computes
    it: mean length of the higher-val texts / mean length of the lower-val texts, over the scenarios where
    people agreed with the metric (``agree``) and where they disagreed (``disagree``). None when the rows
    carry no response texts (``a_text``/``b_text``, read from either pair of :data:`TEXT_COLUMNS`; what is
    missing then is :data:`TEXTS_ABSENT`)."""
    if "a_text" not in norm.columns:
        return None
    v = scenario_verdicts(norm, val_pref_acc)
    a_len, b_len = v["a_text"].str.len(), v["b_text"].str.len()
    lower_is_a = v["lower_model"] == v["a_model"]
    v["lower_len"] = np.where(lower_is_a, a_len, b_len)
    v["higher_len"] = np.where(lower_is_a, b_len, a_len)
    out = {}
    for k in ("agree", "disagree"):
        g = v[v["verdict"] == k]
        out[k] = float(g["higher_len"].mean() / g["lower_len"].mean()) if len(g) and g["lower_len"].mean() else np.nan
    return out


# ----------------------------------------------------------------------------------------------
# Sides, positions, participants
# ----------------------------------------------------------------------------------------------


def _share_test(k: int, n: int, z: float) -> dict[str, float]:
    lo, hi = pw.wilson_interval(k, n, z=z)
    return {
        "share": k / n if n else np.nan,
        "wilson_lo": float(lo),
        "wilson_hi": float(hi),
        "binom_p": float(stats.binomtest(k, n).pvalue) if n else np.nan,
    }


def canonical_side_asymmetry(norm: pd.DataFrame, z: float = 1.96) -> dict[str, float]:
    """Share of decisive judgements that chose the grid's side A (``a_model``), with its Wilson interval and
    the exact binomial test against 50 %; also the tie share. This is an asymmetry between the grid's two
    canonical sides, *not* a position bias: the display order was randomised per participant, so side A was
    not always shown first (see :func:`position_bias`)."""
    dec = norm[norm["side_choice"] != "tie"]
    k, n = int((dec["side_choice"] == "A").sum()), len(dec)
    r = _share_test(k, n, z)
    return {
        "n_decisive": n,
        "chose_a": k,
        "share_a": r.pop("share"),
        **r,
        "tie_share": float((norm["side_choice"] == "tie").mean()),
    }


def position_bias(norm: pd.DataFrame, z: float = 1.96) -> dict[str, float] | None:
    """Share of decisive judgements that chose the response *displayed first*, its Wilson interval and
    exact binomial p; None when the rows do not record the displayed order (no ``displayed_first``)."""
    if "displayed_first" not in norm.columns:
        return None
    dec = norm[norm["side_choice"] != "tie"]
    chosen = np.where(dec["side_choice"] == "A", dec["a_model"], dec["b_model"])
    k, n = int((chosen == dec["displayed_first"].to_numpy()).sum()), len(dec)
    r = _share_test(k, n, z)
    return {"n_decisive": n, "chose_first": k, "share_first": r.pop("share"), **r}


def n_participants(norm: pd.DataFrame) -> int:
    """Distinct participants: the report counts distinct ``prolific_pid`` over every row it read, rows
    without a choice included (``norm.attrs["n_participants_all"]`` when the frame comes from
    :func:`normalise_annotations`)."""
    return int(norm.attrs.get("n_participants_all", norm["participant_id"].nunique()))


def participant_activity(norm: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, float]]:
    """Judgements per participant: a per-participant table (n, ties, share choosing side A) and a summary
    (distinct participants, min / median / mean / max judgements per participant)."""
    g = norm.groupby("participant_id")
    per = pd.DataFrame(
        {
            "n_judgements": g.size(),
            "n_ties": g["side_choice"].apply(lambda s: int((s == "tie").sum())),
            "share_chose_side_a": g["side_choice"].apply(lambda s: float((s == "A").mean())),
        }
    ).reset_index()
    n = per["n_judgements"]
    summary = {
        "n_participants": len(per),
        "min": int(n.min()),
        "median": float(n.median()),
        "mean": float(n.mean()),
        "max": int(n.max()),
    }
    return per, summary
