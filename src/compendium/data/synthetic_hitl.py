"""A seeded synthetic HITL annotation release: 1,507 rows in the hub card's layout (parquet, jsonl, csv) or
the study's own export, aggregating exactly to the published pair and per-category counts.

    python -m compendium.data.synthetic_hitl OUTDIR [--seed N] [--layout parquet|jsonl|csv|export]

Hub layouts write ``OUTDIR/README.md`` (YAML ``configs:`` with config ``annotations`` and its
``data_files``) and ``OUTDIR/data/annotations-00000-of-00001.<ext>`` with the columns of the dataset card
(:data:`CARD_COLUMNS`), a folder the loopback hub of the tests serves as
``ProlificAI/autoresearch-hitl-annotations`` and ``python -m compendium.data.acquire hitl --from OUTDIR``
accepts. ``--layout export`` writes ``OUTDIR/annotations_real.json``, the study's export as the authors'
``build_report.py`` reads it (``prolific_pid``, the internal model ids, the comment in ``responses``, the
response texts as ``a_text`` / ``b_text``).

**Where the hub layout's column names come from.** The dataset card, ``README.md`` of
huggingface.co/datasets/ProlificAI/autoresearch-hitl-annotations at commit 275b71d (read through the
project's search tool, which stores it; nothing is bundled in ``data/hitl``), lists in its "Columns" table
``participant_id`` (P001..P305), ``scenario_id``, ``prompt_id``, ``axis`` (the pair, sorted: "<model_x> vs
<model_y>"), ``prompt`` (the prompt text), ``a_model`` / ``b_model`` (untrained, recipe_a .. recipe_d),
``a_recipe_name`` / ``b_recipe_name`` (e.g. "Recipe C · LoRA + filtered data") and ``a_provenance`` /
``b_provenance`` ("one of untrained, agent, ..."); issue 37 (read from the same card) adds the response
texts, ``response_a`` / ``response_b``. The stored copy of the card breaks off inside the provenance row, so
two things are not from the card: the choice column keeps the name the authors' ``build_report.py`` reads
(``choice_canonical``) and the comment column is ``comment``; the recipe names and provenance values are
those of ``build_report.py`` (``MODEL_DISPLAY``, the labels of ``PROVENANCE``), and ``axis`` is sorted
alphabetically. The preferences reader uses the ids, the choice, the comment and the response texts; it
ignores ``axis``, ``prompt``, the recipe names and the provenance.

How the rows are made (:func:`make_study_rows`): per pair and prompt category the published wins, losses
and ties are dealt to that category's prompts, with the published number of 3-rating scenarios per pair
(the register's ``hitl.fleiss.*.n_items``, the other scenarios get 1, 2, 4 or 5 ratings so the category
totals hold), the report's five 3-0-0 example scenarios fixed, and otherwise a seeded shuffle; 305
participants; scenario ids as the study derives them (``p2_`` + sha256 of the grid id, 10 hex digits).
They are **not** the study's data: only the published aggregates hold on them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from compendium import data
from compendium.pipeline import paths, yamlfile
from compendium.pipeline.cli import quote

from ..preferences.reproduce import MODELS
from ..preferences.rowlevel import INTERNAL_MODEL_IDS
from .errors import DataValidationError

INTERNAL = {v: k for k, v in INTERNAL_MODEL_IDS.items()}
HF_ID = "ProlificAI/autoresearch-hitl-annotations"
LAYOUTS = ("parquet", "jsonl", "csv", "export")
#: The hub layout's columns, in the card's order (the module docstring says which come from the card).
CARD_COLUMNS = (
    "participant_id",
    "scenario_id",
    "prompt_id",
    "axis",
    "prompt",
    "a_model",
    "b_model",
    "a_recipe_name",
    "b_recipe_name",
    "a_provenance",
    "b_provenance",
    "response_a",
    "response_b",
    "choice_canonical",
    "comment",
)
#: The response-text columns: the hub card's names -> the authors' export's (``build_report.py``'s grid).
EXPORT_TEXT_COLUMNS = {"response_a": "a_text", "response_b": "b_text"}
#: Recipe names by dataset id: ``build_report.py``'s ``MODEL_DISPLAY`` under :data:`INTERNAL_MODEL_IDS`.
RECIPE_NAMES = {
    "untrained": "Original model",
    "recipe_a": "Recipe A · default DPO",
    "recipe_b": "Recipe B · agent's pick",
    "recipe_c": "Recipe C · LoRA + filtered data",
    "recipe_d": "Recipe D · deeper LoRA + filtered data",
}
#: Where each recipe came from: the labels of ``build_report.py``'s ``PROVENANCE``.
PROVENANCE = {
    "untrained": "untrained",
    "recipe_a": "agent",
    "recipe_b": "agent",
    "recipe_c": "agent + researcher",
    "recipe_d": "agent + researcher",
}


def _published():
    reg = yamlfile.load(paths.PUBLISHED / "hitl.yaml")  # aliases bounded
    return {c["id"]: c["published"] for c in reg["claims"]}


def _deviations(d: int, k: int, m: int) -> list[int]:
    """Nonzero deviations from 3 ratings (each >= -2) summing to ``d`` over exactly ``m`` of ``k`` scenarios."""
    dev = [] if d == 0 else [d] if d >= -2 else [-2] * (-d // 2) + ([-1] if -d % 2 else [])
    if len(dev) > m or m > k:
        raise ValueError("cannot place the deviations")
    while len(dev) < m:
        i = int(np.argmax([abs(x) for x in dev])) if dev else None
        if i is not None and abs(dev[i]) >= 2 and dev[i] > 0:
            x = dev.pop(i)
            dev += [x - 1, 1]
        elif i is not None and dev[i] == 1:
            dev.pop(i)
            dev += [2, -1]
        elif i is not None and dev[i] == -1:
            dev.pop(i)
            dev += [-2, 1]
        elif i is not None and dev[i] == -2:
            dev.pop(i)
            dev += [-1, -1]
        else:
            if len(dev) + 2 > m:
                raise ValueError("cannot place the deviations")
            dev += [1, -1]
    return dev


PROMPTS = "data/hitl/prolific_prompts.json"
BY_CATEGORY = "data/hitl/published_pair_counts_by_category.csv"
RESTORE = "or restore the released data with `dvc pull --force data.dvc`"


def check_categories(prompts: pd.DataFrame, by_cat: pd.DataFrame) -> None:
    """Refuse prompts whose categories disagree with the released per-category counts, naming the file, the
    prompt and the field (the layout below cannot place the counts otherwise).

    Each pair judged each prompt about three times, so a category's prompts are its judgements summed over
    the pairs divided by 3 x pairs, rounded (exact on the release: 8, 8, 8, 7, 5, 5, 5, 4). A prompt moved
    to another category is found by its id's prefix (``cw01`` among the ``cw`` prompts, which are
    ``creative_writing``)."""
    import re

    n_pairs = len(by_cat[["model_x", "model_y"]].drop_duplicates())
    implied = (by_cat.groupby("category")["n"].sum() / (3 * n_pairs)).round().astype(int)
    have = prompts["category"].value_counts()
    cats = sorted(set(implied.index) | set(have.index), key=str)
    differ = [c for c in cats if int(have.get(c, 0)) != int(implied.get(c, 0))]
    if not differ:
        return
    over = {c for c in differ if have.get(c, 0) > implied.get(c, 0)}
    under = {c for c in differ if have.get(c, 0) < implied.get(c, 0)}
    prefix = prompts["id"].astype(str).map(lambda i: (re.match(r"[A-Za-z]+", i) or re.match(r".*", i)).group(0))
    home = prompts.groupby(prefix)["category"].agg(lambda c: c.mode().iloc[0])
    moved = prompts[prompts["category"].isin(over) & prefix.map(home).isin(under)]
    counts = ", ".join(f"{quote(c)} {int(implied.get(c, 0))}" for c in differ)
    found = ", ".join(f"{int(have.get(c, 0))}" for c in differ)
    if len(moved):
        p = moved.iloc[0]
        was = home[prefix[moved.index[0]]]
        raise DataValidationError(
            f"{PROMPTS}: prompt {quote(p['id'])}: field 'category' is {quote(p['category'])}, but the released "
            f"per-category counts ({BY_CATEGORY}) give {counts} prompts (the file has {found}), and the other "
            f"{quote(prefix[moved.index[0]])} prompts are {quote(was)}: set its category back to {quote(was)}, {RESTORE}"
        )
    raise DataValidationError(
        f"{PROMPTS}: field 'category': the released per-category counts ({BY_CATEGORY}) give {counts} prompts, the "
        f"file has {found}: a prompt's category was changed; set it back, {RESTORE}"
    )


def make_study_rows(seed: int = 1, layout: str = "hf", choice_column: str = "choice_canonical") -> pd.DataFrame:
    """1,507 synthetic rows reproducing the released counts (see the module docstring).

    ``layout="hf"``: the hub card's columns (:data:`CARD_COLUMNS`: participant_id, dataset model ids, response
    texts as ``response_a`` / ``response_b``); ``layout="export"``: the authors' export (prolific_pid, the
    study's internal ids, response texts as ``a_text`` / ``b_text``, the comment inside ``responses``). The
    grid side A of each scenario is random; the rows (and the seeded draws) are the same in both layouts.
    """
    rng = np.random.default_rng(seed)
    pub = _published()
    by_cat = data.load_hitl_pair_counts_by_category()
    prompts = data.load_hitl_prompts()
    ex = data.load_hitl_scenario_votes()
    check_categories(prompts, by_cat)
    fixed = {
        (r.prompt_id, *sorted((r.winner_model, r.loser_model), key=MODELS.index)): r.winner_model
        for r in ex.itertuples()
    }
    scenarios = []
    for i, mx in enumerate(MODELS):
        for my in MODELS[i + 1 :]:
            n_items = pub[f"hitl.fleiss.{mx}__{my}.n_items"]
            cats = by_cat[(by_cat.model_x == mx) & (by_cat.model_y == my)]
            # choose how many non-3 scenarios each category gets: at least its minimum, total 50 - n_items
            need = {}
            for r in cats.itertuples():
                k = int((prompts.category == r.category).sum())
                d = r.n - 3 * k
                need[r.category] = (d, k, 0 if d == 0 else 1 if d >= -2 else (-d + 1) // 2)
            extra = (50 - n_items) - sum(v[2] for v in need.values())
            m = {c: v[2] for c, v in need.items()}
            for c in sorted(need, key=lambda c: -need[c][1]):
                while extra > 0 and m[c] < need[c][1] - 1:
                    m[c] += 1
                    extra -= 1
            if extra != 0:  # check_categories catches a moved prompt first; this is any other disagreement
                raise DataValidationError(
                    f"{PROMPTS}, {BY_CATEGORY}: the released counts of {mx} vs {my} cannot be dealt to the prompts' "
                    f"categories (field 'category', {extra:+d} scenarios); {RESTORE}"
                )
            for r in cats.itertuples():
                ps = list(prompts.loc[prompts.category == r.category, "id"])
                d, k, _ = need[r.category]
                dev = _deviations(d, k, m[r.category])
                free = [p for p in ps if (p, mx, my) not in fixed]
                rng.shuffle(free)
                sizes = {p: 3 for p in ps}
                for p, x in zip(free, dev):
                    sizes[p] = 3 + x
                labels = ["x"] * r.x_wins + ["y"] * r.y_wins + ["tie"] * r.ties
                votes = {}
                for p in ps:
                    if (p, mx, my) in fixed:
                        w = "x" if fixed[(p, mx, my)] == mx else "y"
                        votes[p] = [w] * 3
                        for _ in range(3):
                            labels.remove(w)
                rng.shuffle(labels)
                for p in ps:
                    if p not in votes:
                        votes[p], labels = labels[: sizes[p]], labels[sizes[p] :]
                if labels:
                    raise DataValidationError(
                        f"{BY_CATEGORY}: category {quote(r.category)} of {mx} vs {my}: {len(labels)} judgement(s) "
                        f"left over after dealing them to its prompts (field 'category' of {PROMPTS}); {RESTORE}"
                    )
                for p in ps:
                    grid_id = f"{p}__{INTERNAL[mx]}__vs__{INTERNAL[my]}"
                    sid = "p2_" + hashlib.sha256(grid_id.encode()).hexdigest()[:10]
                    a_is_x = bool(rng.integers(2))
                    scenarios.append((sid, p, mx, my, a_is_x, votes[p]))
    rows = []
    for sid, p, mx, my, a_is_x, votes in scenarios:
        a, b = (mx, my) if a_is_x else (my, mx)
        for o in votes:
            side = "tie" if o == "tie" else "A" if (o == "x") == a_is_x else "B"
            rows.append(
                {
                    "scenario_id": sid,
                    "prompt_id": p,
                    "a_model": a,
                    "b_model": b,
                    "response_a": f"{a}:{p}:" + "w" * (40 + 7 * MODELS.index(a)),
                    "response_b": f"{b}:{p}:" + "w" * (40 + 7 * MODELS.index(b)),
                    "choice_canonical": side,
                    "comment": "shorter" if o == "y" else "",
                }
            )
    df = pd.DataFrame(rows)
    df.insert(0, "participant_id", [f"P{(i % 305) + 1:03d}" for i in range(len(df))])
    if layout == "export":
        df = (
            df[["participant_id", "scenario_id", "prompt_id", "a_model", "b_model", "choice_canonical"]]
            .join(df[list(EXPORT_TEXT_COLUMNS)].rename(columns=EXPORT_TEXT_COLUMNS))
            .assign(comment=df["comment"])
        )
        df = df.rename(columns={"participant_id": "prolific_pid"})
        df["prolific_pid"] = "5f" + df["prolific_pid"].str[1:].str.zfill(22)
        df["a_model"] = df["a_model"].map(INTERNAL)
        df["b_model"] = df["b_model"].map(INTERNAL)
        df["responses"] = [{"comment": c} for c in df.pop("comment")]
    else:
        text = dict(zip(prompts["id"], prompts["text"]))
        df = df.assign(
            axis=[" vs ".join(sorted(pair)) for pair in zip(df["a_model"], df["b_model"])],
            prompt=df["prompt_id"].map(text),
            a_recipe_name=df["a_model"].map(RECIPE_NAMES),
            b_recipe_name=df["b_model"].map(RECIPE_NAMES),
            a_provenance=df["a_model"].map(PROVENANCE),
            b_provenance=df["b_model"].map(PROVENANCE),
        )[list(CARD_COLUMNS)]
    if choice_column != "choice_canonical":
        df = df.rename(columns={"choice_canonical": choice_column})
    return df


def write_release(outdir: Path, seed: int = 1, layout: str = "parquet") -> Path:
    """Write the synthetic release in ``layout`` under ``outdir``; return the annotations file."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {list(LAYOUTS)}, got {layout!r}")
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    if layout == "export":
        df = make_study_rows(seed=seed, layout="export")
        f = outdir / "annotations_real.json"
        f.write_text(json.dumps(df.to_dict(orient="records"), indent=1, ensure_ascii=False) + "\n")
        return f
    df = make_study_rows(seed=seed, layout="hf")
    rel = f"data/annotations-00000-of-00001.{layout}"
    f = outdir / rel
    f.parent.mkdir(parents=True, exist_ok=True)
    if layout == "parquet":
        df.to_parquet(f, index=False)
    elif layout == "jsonl":
        df.to_json(f, orient="records", lines=True, force_ascii=False)
    else:
        df.to_csv(f, index=False)
    card = {
        "license": "cc-by-4.0",
        "configs": [{"config_name": "annotations", "data_files": [{"split": "train", "path": rel}]}],
    }
    (outdir / "README.md").write_text(
        "---\n" + yaml.safe_dump(card, sort_keys=False) + "---\n\n"
        f"# Synthetic stand-in for {HF_ID}\n\nGenerated by `python -m compendium.data.synthetic_hitl` "
        f"(seed {seed}); aggregates to the published pair counts, not the study's data.\n"
    )
    return f


def main(argv: list[str] | None = None) -> int:
    from compendium.pipeline.cli import safe_output

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--layout", choices=LAYOUTS, default="parquet")
    args = ap.parse_args(argv)
    f = write_release(args.outdir, args.seed, args.layout)
    print(f"wrote {f} (synthetic HITL annotations, seed {args.seed}, layout {args.layout})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
