"""Independent references for the row-level HITL quantities: per-pair Fleiss' kappa with its number of
3-rating scenarios, and the per-category disagreement table. The reference functions below use only the
standard library and are written from the study report's definitions (its appendix: "Fleiss' kappa per
pair for IAA" over scenarios rated by exactly three annotators, at least 5 of them; "where the metric and
humans diverge most": per category, the scenarios in which more annotators picked the response of the model
with the lower val_pref_acc, among the scenarios with unequal votes, highest rate first, equal rates in the
order the categories are first met among the disagreeing, then the agreeing scenarios). Rows without a choice
are skipped. They are compared with the package on the committed full-size fixture."""

from __future__ import annotations

import csv
import gzip
import json
from collections import Counter, defaultdict
from pathlib import Path

import pandas as pd
import pytest

HERE = Path(__file__).parent
VAL = {"untrained": 0.500, "recipe_a": 0.464, "recipe_b": 0.492, "recipe_c": 0.628, "recipe_d": 0.648}
ORDER = ["untrained", "recipe_a", "recipe_b", "recipe_c", "recipe_d"]


def _rows():
    with gzip.open(HERE / "fixtures" / "hitl_rows.csv.gz", "rt", newline="") as f:
        return list(csv.DictReader(f))


def _prompt_categories():
    root = Path(__file__).resolve().parents[2]
    doc = json.loads((root / "data" / "hitl" / "prolific_prompts.json").read_text())
    return {p["id"]: p["category"] for p in doc["prompts"]}


def _canonical(row):
    """(x, y, label X/Y/T) with x the earlier model in ORDER, or None when the row has no choice."""
    a, b, ch = row["a_model"], row["b_model"], (row["choice_canonical"] or "").strip()
    if not ch:
        return None
    x, y = sorted((a, b), key=ORDER.index)
    if ch == "tie":
        return x, y, "T"
    winner = a if ch == "A" else b
    return x, y, "X" if winner == x else "Y"


def ref_fleiss(rows):
    """{(x, y): (n_items, kappa or None)} over scenarios with exactly 3 ratings, kappa when >= 5 of them."""
    per = defaultdict(Counter)
    pair_of = {}
    for r in rows:
        c = _canonical(r)
        if c is None:
            continue
        per[r["scenario_id"]][c[2]] += 1
        pair_of[r["scenario_id"]] = c[:2]
    out = {}
    for pair in {p for p in pair_of.values()}:
        items = [per[s] for s, p in pair_of.items() if p == pair and sum(per[s].values()) == 3]
        kappa = None
        if len(items) >= 5:
            n = 3
            p_bar = sum((sum(v * v for v in it.values()) - n) / (n * (n - 1)) for it in items) / len(items)
            tot = Counter()
            for it in items:
                tot.update(it)
            pe = sum((tot[k] / (n * len(items))) ** 2 for k in ("X", "Y", "T"))
            kappa = (p_bar - pe) / (1 - pe) if pe < 1 else 1.0
        out[pair] = (len(items), kappa)
    return out


def ref_disagreement(rows, categories):
    """[(category, lower_val_wins, scenarios, rate %)] in the report's order."""
    order, votes, meta = [], defaultdict(Counter), {}
    for r in rows:
        sid = r["scenario_id"]
        if sid not in meta:
            order.append(sid)
            meta[sid] = (r["prompt_id"], r["a_model"], r["b_model"])
        ch = (r["choice_canonical"] or "").strip()
        if ch in ("A", "B"):
            votes[sid][r["a_model"] if ch == "A" else r["b_model"]] += 1
    dis, agr = [], []
    for sid in order:
        prompt, a, b = meta[sid]
        lower, higher = (a, b) if VAL[a] <= VAL[b] else (b, a)
        lo, hi = votes[sid][lower], votes[sid][higher]
        if lo != hi:
            (dis if lo > hi else agr).append(categories[prompt])
    total, bad = Counter(dis + agr), Counter(dis)
    cats = list(dict.fromkeys(dis + agr))
    cats.sort(key=lambda c: -bad[c] / total[c])
    return [(c, bad[c], total[c], 100.0 * bad[c] / total[c]) for c in cats]


@pytest.fixture(scope="module")
def rows():
    rs = _rows()
    # two rows without a choice, one of them first in the file: skipped by both sides
    blank = dict(rs[40], choice_canonical="", participant_id="P999")
    return [blank, *rs, dict(rs[7], choice_canonical="", participant_id="P998")]


@pytest.fixture(scope="module")
def norm(rows):
    from compendium import data
    from compendium.preferences import rowlevel

    return rowlevel.normalise_annotations(pd.DataFrame(rows), prompts=data.load_hitl_prompts())


def test_fleiss_per_pair_and_its_3_rating_scenarios_match_the_reference(rows, norm):
    from compendium.preferences import rowlevel

    ref = ref_fleiss(rows)
    got = rowlevel.fleiss_table(norm)
    assert len(got) == 10
    for r in got.itertuples():
        n_items, kappa = ref.get((r.model_x, r.model_y), (0, None))
        assert r.n_items == n_items
        if kappa is None:
            assert pd.isna(r.kappa)
        else:
            assert r.kappa == pytest.approx(kappa, abs=1e-12)


def test_disagreement_table_matches_the_reference(rows, norm):
    from compendium.preferences import rowlevel

    got = rowlevel.disagreement_by_category(norm)
    ref = ref_disagreement(rows, _prompt_categories())
    assert list(got.itertuples(index=False, name=None)) == [
        (c, w, n, pytest.approx(rate, abs=1e-12)) for c, w, n, rate in ref
    ]
