"""Every cell of the register's 16 tables and every text claim of ``published/hitl.yaml``, from the data.

:func:`register_values` builds each table of the register as a data frame (rows = the register's row
slugs, columns = its column slugs) from the lowest data level that determines it, then flattens every
row x column into its claim id (the table's ``id_pattern``, or its ``existing_ids`` entry), and adds the
text claims. A cell whose input is absent is ``None`` and the ``missing`` dict names the input:

* **raw** (the released aggregate files in ``data/hitl``): the pair table, the Bradley-Terry table, the
  8 per-category tables, the three steps (human side), the comment themes, the text claims;
* **row_level** (``data/hitl/annotations.parquet``, Hugging Face): Fleiss' kappa per pair, the
  per-category disagreement table, the example vote tallies, the participants, the length ratios
  (these also need the response texts: ``response_a`` / ``response_b``, the hub card's columns, or
  ``a_text`` / ``b_text``, the authors' export);
* **outside**: ``val_pref_acc`` and its differences need the model checkpoints and UltraFeedback
  ``test_prefs``. The project holds the five values only as the design input transcribed from the
  authors' code (:data:`compendium.preferences.reproduce.VAL_PREF_ACC`); they order the models for the
  tracks / flips / noisy signal but are not published as reproduced numbers;
* **none**: design constants; published where the project's inputs hold them (models, pairs, prompts,
  categories), otherwise ``None`` (quoted).

The methods are those of the authors' ``eval_data/phase2/scripts/build_report.py``
(prolific-oss/autoresearch-mlx): rates unrounded in % where the report prints them rounded (the
register's tolerance covers the print), but the two places where the report *truncates* a rate in its
prose (``int(rate * 100)``) are truncated here too (``hitl.text.*``).

The table layout (row and column slugs, id patterns) is read from the register; its published values are
never read here.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from compendium.pipeline import paths, yamlfile
from compendium.pipeline.studies import study

from ..claims.cells import cell_map
from . import reproduce, rowlevel
from .provenance import PROVENANCE  # noqa: F401 - the study's claim links, re-exported here
from .reproduce import MODELS

#: The register of the study (layout only): ``published/hitl.yaml`` (compendium.pipeline.studies)
REGISTER = f"{study('preferences').register}.yaml"
#: What a None of an ``outside`` cell waits for.
OUTSIDE_MISSING = (
    "model checkpoints of the five recipes and UltraFeedback test_prefs (outside: val_pref_acc is "
    "measured on the models; the project holds it only as the design input transcribed from "
    "build_report.py)"
)
#: What a None of a design constant the inputs do not hold is.
DESIGN_MISSING = "design constant stated in the report; not held by the project's inputs (quoted)"
#: What the two length ratios also wait for without annotations: their response texts, under either pair of
#: names the reader takes (:data:`compendium.preferences.rowlevel.TEXT_COLUMNS`). With annotations that have
#: neither pair, the note is :data:`compendium.preferences.rowlevel.TEXTS_ABSENT`.
TEXTS_MISSING = (
    "their response texts (columns response_a / response_b, as the hub's dataset card lists them, or a_text / "
    "b_text, the authors' export)"
)
#: Register slugs of the prose steps "From -> To".
STEPS = {"a_to_b": ("recipe_a", "recipe_b"), "b_to_c": ("recipe_b", "recipe_c"), "c_to_d": ("recipe_c", "recipe_d")}


# ----------------------------------------------------------------------------------------------
# Layout
# ----------------------------------------------------------------------------------------------


def load_layout(path: str | Path | None = None) -> list[dict]:
    """The register's ``tables:`` (slug, rows, cols, id_pattern, existing_ids, blank_cells), no values."""
    p = Path(path) if path is not None else paths.PUBLISHED / REGISTER
    doc = yamlfile.load(p)
    if not isinstance(doc, dict) or "tables" not in doc:
        raise ValueError(f"{p}: expected a mapping with key 'tables'")
    keep = ("slug", "rows", "cols", "id_pattern", "existing_ids", "blank_cells", "row_labels")
    return [{k: t.get(k) for k in keep} for t in doc["tables"]]


def cell_ids(spec: dict) -> dict[tuple[str, str], str]:
    """``{(row, col): claim id}`` of one register table, without its blank cells
    (:func:`compendium.claims.cells.cell_map`, the one expansion the claims check uses)."""
    return cell_map(spec, REGISTER)


def pair_slug(mx: str, my: str) -> str:
    """Register row slug of a pair (``untrained__recipe_b``)."""
    return f"{mx}__{my}"


def theme_slug(label: str, width: int = 40) -> str:
    """Register row slug of a comment theme: lower case, runs of non-alphanumerics -> ``_``, first 40 characters."""
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")[:width].rstrip("_")


# ----------------------------------------------------------------------------------------------
# Tables (rows = register row slugs, columns = register column slugs; NaN / None = not determined), each a
# view of one section of the build (:mod:`compendium.preferences.build`); nothing is computed here
# ----------------------------------------------------------------------------------------------


def recipes_table() -> pd.DataFrame:
    """``val_pref_acc`` of each model: outside (needs the checkpoints), so every cell is missing."""
    return pd.DataFrame({"val_pref_acc": [np.nan] * len(MODELS)}, index=list(MODELS))


def pairs_table(pairs: pd.DataFrame) -> pd.DataFrame:
    """The report's per-pair appendix table from :func:`compendium.preferences.pair_table`: X wins, ties,
    Y wins (canonical orientation), the higher-``val_pref_acc`` model's win rate with ties excluded and its
    Wilson interval, in %, and the signal. ``dval`` (Δ val_pref_acc) is outside (NaN)."""
    return pd.DataFrame(
        {
            "dval": np.nan,
            "x_wins": pairs["x_wins"].to_numpy(),
            "ties": pairs["ties"].to_numpy(),
            "y_wins": pairs["y_wins"].to_numpy(),
            "winrate": 100 * pairs["higher_val_win_rate"].to_numpy(),
            "wilson_low": 100 * pairs["wilson_lo"].to_numpy(),
            "wilson_high": 100 * pairs["wilson_hi"].to_numpy(),
            "signal": pairs["signal"].to_numpy(),
        },
        index=[pair_slug(a, b) for a, b in zip(pairs["model_x"], pairs["model_y"])],
    )


def bt_table(bt: pd.DataFrame) -> pd.DataFrame:
    """Bradley-Terry rank and strength as published (:func:`compendium.preferences.bradley_terry_table`);
    ``val_pref_acc`` is outside (NaN)."""
    bt = bt.set_index("model")
    return pd.DataFrame({"rank": bt["rank"].astype(int), "strength": bt["strength"], "val_pref_acc": np.nan})


def category_table(category_pairs: pd.DataFrame, category: str) -> pd.DataFrame:
    """One category of the report's "Per prompt category" appendix, from
    :func:`compendium.preferences.category_pair_table`: X/tie/Y and the higher-val model's win rate with
    ties excluded in % (NaN when the pair has no decisive judgement there; the report skips it)."""
    pt = category_pairs[category_pairs["category"] == category]
    if pt.empty:
        raise ValueError(f"pair counts by category: no rows for category {category!r}")
    return pd.DataFrame(
        {
            "x_wins": pt["x_wins"].to_numpy(),
            "ties": pt["ties"].to_numpy(),
            "y_wins": pt["y_wins"].to_numpy(),
            "winrate": 100 * pt["higher_val_win_rate"].to_numpy(),
        },
        index=[pair_slug(a, b) for a, b in zip(pt["model_x"], pt["model_y"])],
    )


def fleiss_register_table(kappa: pd.DataFrame) -> pd.DataFrame:
    """Fleiss' kappa, its band and the number of 3-rating scenarios per pair (rows needed), from
    :func:`compendium.preferences.rowlevel.fleiss_table`."""
    return pd.DataFrame(
        {"kappa": kappa["kappa"].to_numpy(), "band": kappa["band"].to_numpy(), "n_items": kappa["n_items"].to_numpy()},
        index=[pair_slug(a, b) for a, b in zip(kappa["model_x"], kappa["model_y"])],
    )


def disagree_table(disagreement: pd.DataFrame) -> pd.DataFrame:
    """Lower-val wins / decided scenarios / rate (%) per prompt category (rows needed), from
    :func:`compendium.preferences.rowlevel.disagreement_by_category`."""
    return disagreement.set_index("category")


def steps_table(vs_base: dict[str, float]) -> pd.DataFrame:
    """The three steps along the val axis: each end's win rate against the untrained model
    (:func:`compendium.preferences.winrate_vs_base`), ties excluded, in % (the report prints it with
    ``:.0f``); ``dval`` is outside (NaN)."""
    return pd.DataFrame(
        {
            "dval": np.nan,
            "pref_from": [100 * vs_base[a] for a, _ in STEPS.values()],
            "pref_to": [100 * vs_base[b] for _, b in STEPS.values()],
        },
        index=list(STEPS),
    )


def themes_table(themes_tbl: pd.DataFrame) -> pd.DataFrame:
    """Comment-theme counts as reported by the LLM clustering (:func:`compendium.preferences.comment_themes_table`),
    by theme slug."""
    idx = [theme_slug(x) for x in themes_tbl["label"]]
    if len(set(idx)) != len(idx):
        raise ValueError("comment themes: two theme labels give the same register slug")
    return pd.DataFrame({"count": themes_tbl["count"].to_numpy()}, index=idx)


def examples_table(votes: dict[str, dict | None]) -> pd.DataFrame:
    """Vote tallies of the report's example scenarios (``{prompt id: tallies or None}``, from
    :func:`compendium.preferences.rowlevel.scenario_votes`)."""
    nan = {"winner_votes": np.nan, "ties": np.nan, "loser_votes": np.nan}
    rows = {k: v or nan for k, v in votes.items()}
    return pd.DataFrame.from_dict(rows, orient="index")[["winner_votes", "ties", "loser_votes"]]


# ----------------------------------------------------------------------------------------------
# Text claims
# ----------------------------------------------------------------------------------------------


def report_claims(report) -> dict[str, float]:
    """Every claim of ``published/hitl.yaml`` that the pair counts determine, under its claim id, from the
    build's report section (:class:`compendium.preferences.build.Report`). ``hitl.n_participants`` is *not*
    here: it needs the row-level annotations."""
    bt = report.bt.set_index("model")["strength"]
    out: dict[str, float] = {
        "hitl.n_ratings": report.n_ratings,
        "hitl.n_ties": report.n_ties,
        "hitl.pairs.tracking": report.tracking,
        "hitl.pairs.flipping": report.flipping,
    }
    for m in MODELS:
        out[f"hitl.bt.{m}"] = float(bt[m])
    for m, v in report.vs_base.items():
        out[f"hitl.winrate.vs_base.{m}"] = float(v)
    out["hitl.spearman.bt_vs_val_pref_acc"] = float(report.rho)
    return out


def text_claims(report, n_comments: int) -> dict[str, float]:
    """The text claims the aggregate files determine: totals, win rates against the untrained model,
    signal counts, the number of comments, and the prose percentages, which the report computes as
    ``int(rate * 100)`` (truncation; e.g. base over Recipe B: int(47.93) = 47)."""
    out = report_claims(report)
    wr = report.vs_base
    out["hitl.text.base_pref_vs_a"] = int((1 - wr["recipe_a"]) * 100)
    out["hitl.text.base_pref_vs_b"] = int((1 - wr["recipe_b"]) * 100)
    out["hitl.text.c_vs_base_pct"] = int(wr["recipe_c"] * 100)
    out["hitl.text.d_vs_base_pct"] = int(wr["recipe_d"] * 100)
    out["hitl.comments.n"] = int(n_comments)
    return out


#: Design constants the report states that the project's inputs do not hold (published as None, quoted).
QUOTED_DESIGN = (
    "hitl.design.annotators_per_instance",
    "hitl.design.planned_annotations",
    "hitl.design.ratings_per_pair",
    "hitl.agent.n_experiments",
    "hitl.agent.n_valid",
    "hitl.agent.n_failed",
    "hitl.agent.kept_checkpoints",
    "hitl.agent.researcher_recipes",
    "hitl.agent.api_cost_usd",
    "hitl.agent.pause_after_experiment",
    "hitl.agent.minutes_per_call",
    "hitl.agent.pause_hours",
    "hitl.agent.usable_hours",
    "hitl.recipe.a_beta",
    "hitl.recipe.a_lr",
    "hitl.recipe.a_epochs",
    "hitl.recipe.b_adam_beta2",
    "hitl.recipe.c_lora_rank",
    "hitl.recipe.d_lora_rank",
    "hitl.recipe.d_lora_alpha",
    "hitl.recipe.margin_min",
    "hitl.gen.temperature",
    "hitl.gen.top_p",
    "hitl.gen.repetition_penalty",
)


def design_claims(counts: pd.DataFrame, prompts: pd.DataFrame) -> dict[str, int]:
    """Design constants the inputs hold: models and pairs in the pair counts, prompts and categories in the
    prompt list, and pair instances = pairs x prompts."""
    c = reproduce.validate_pair_counts(counts)
    models = sorted(set(c["model_x"]) | set(c["model_y"]), key=MODELS.index)
    return {
        "hitl.design.n_models": len(models),
        "hitl.design.n_trained": len([m for m in models if m != "untrained"]),
        "hitl.design.n_pairs": len(c),
        "hitl.design.n_prompts": int(prompts["id"].nunique()),
        "hitl.design.n_categories": int(prompts["category"].nunique()),
        "hitl.design.pair_instances": len(c) * int(prompts["id"].nunique()),
    }


# ----------------------------------------------------------------------------------------------
# Everything
# ----------------------------------------------------------------------------------------------


def _value(v):
    if v is None:
        return None
    if isinstance(v, str):
        return v
    if isinstance(v, (float, np.floating)) and not np.isfinite(v):
        return None
    if isinstance(v, (int, np.integer)):
        return int(v)
    return float(v)


def register_tables(result, layout: list[dict] | None = None) -> dict[str, tuple[pd.DataFrame | None, str | dict]]:
    """``{table slug: (frame or None, the missing input when a cell is NaN)}`` for every register table (the
    reason may be a dict by column, ``""`` = any other column), from a build's result."""
    layout = layout if layout is not None else load_layout()
    rows, examples = result.rows, result.inputs.scenario_votes
    none = rowlevel.ANNOTATIONS_MISSING
    out: dict[str, tuple[pd.DataFrame | None, str | dict]] = {}
    for spec in layout:
        s = spec["slug"]
        if s == "recipes":
            out[s] = (recipes_table(), OUTSIDE_MISSING)
        elif s == "pairs":
            out[s] = (
                pairs_table(result.report.pairs),
                {"dval": OUTSIDE_MISSING, "": "no decisive judgement in this pair"},
            )
        elif s == "bt_table":
            out[s] = (bt_table(result.report.bt), {"val_pref_acc": OUTSIDE_MISSING, "": "Bradley-Terry fit failed"})
        elif s.startswith("cat_"):
            out[s] = (
                category_table(result.categories.pairs, s[len("cat_") :]),
                "no decisive judgement in this pair and category",
            )
        elif s == "fleiss":
            why = f"fewer than {rowlevel.MIN_KAPPA_ITEMS} scenarios with exactly 3 ratings in the rows"
            out[s] = (fleiss_register_table(rows.kappa), why) if rows is not None else (None, none)
        elif s == "disagree":
            why = "no decided scenario of this category in the rows"
            out[s] = (disagree_table(rows.disagreement), why) if rows is not None else (None, none)
        elif s == "steps":
            why = {"dval": OUTSIDE_MISSING, "": "no decisive judgement against the untrained model"}
            out[s] = (steps_table(result.report.vs_base), why)
        elif s == "themes":
            out[s] = (themes_table(result.themes.table), "theme not in comment_themes_llm.json")
        elif s == "examples":
            out[s] = (
                examples_table(rows.scenario_votes) if rows is not None and examples is not None else None,
                none
                if rows is None
                else "the scenario (prompt x pair) is not in the rows"
                if examples is not None
                else "data/hitl/report_scenario_vote_examples.csv (which scenarios the report shows)",
            )
        else:
            raise ValueError(f"register table {s!r}: no builder in compendium.preferences.register")
    return out


def expand_cells(layout: list[dict], tables: dict, put) -> None:
    """Every cell of every register table under its claim id: ``put(claim id, value, why empty)``, with the
    value from ``tables`` (:func:`register_tables`) or None when the frame, row or column is absent."""
    for spec in layout:
        frame, reasons = tables[spec["slug"]]
        for (r, c), key in cell_ids(spec).items():
            why = reasons.get(c, reasons[""]) if isinstance(reasons, dict) else reasons
            if frame is None or r not in frame.index or c not in frame.columns:
                put(key, None, why)
            else:
                put(key, frame.at[r, c], why)


def register_values(result, layout: list[dict] | None = None) -> tuple[dict, dict]:
    """``(values, missing)`` for every cell of every register table and every text claim of hitl.yaml, mapped
    from a build's result (:func:`compendium.preferences.build.build`; only its ``inputs``, ``report``,
    ``categories``, ``themes`` and ``rows`` are read).

    Without row-level annotations (``result.rows`` is None) every row-level value is None and ``missing``
    names the file. Label cells are strings.
    """
    layout = layout if layout is not None else load_layout()
    values: dict = {}
    missing: dict = {}

    def put(key, v, why):
        v = _value(v)
        values[key] = v
        if v is None:
            missing[key] = why

    expand_cells(layout, register_tables(result, layout), put)
    for k, v in text_claims(result.report, result.inputs.themes["n_comments"]).items():
        put(k, v, "")
    for k, v in design_claims(result.inputs.counts, result.inputs.prompts).items():
        put(k, v, "")
    for k in QUOTED_DESIGN:
        put(k, None, DESIGN_MISSING)

    rows = result.rows
    if rows is None:
        put("hitl.n_participants", None, rowlevel.ANNOTATIONS_MISSING)
        for k in ("hitl.length.ratio_agree", "hitl.length.ratio_disagree"):
            put(k, None, f"{rowlevel.ANNOTATIONS_MISSING}; and {TEXTS_MISSING}")
    else:
        put("hitl.n_participants", rows.n_participants, "")
        lr = rows.length_ratios
        for k in ("agree", "disagree"):
            why = rowlevel.TEXTS_ABSENT if lr is None else f"no scenario where people {k}d with the metric in the rows"
            put(f"hitl.length.ratio_{k}", None if lr is None else lr[k], why)
        if "comment" in rows.rows.columns:
            values["hitl.comments.n.variant.rows"] = int((rows.rows["comment"].str.len() > 0).sum())
    return values, missing
