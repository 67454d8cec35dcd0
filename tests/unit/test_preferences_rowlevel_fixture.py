"""The row-level path on generated, full-size fixtures that reproduce the study's published counts.

The HF annotations are not offline, so :func:`make_study_rows` generates 1,507 rows that aggregate exactly
to the released pair and per-category counts, have the published number of 3-rating scenarios per pair
(the register's ``hitl.fleiss.*.n_items``), 305 participants and the report's five 3-0-0 example
scenarios; outcomes within a pair and category are otherwise shuffled (seeded). Kappa and the
disagreement table are checked on it against independent computations
(``statsmodels.stats.inter_rater.fleiss_kappa``, a plain loop written from the report's description).

``fixtures/hitl_rows.csv.gz`` (made from those rows by ``fixtures/make_hitl_rows.py``, seeded annealing
that keeps every count) also matches the printed per-pair kappas, the disagreement table and the length
ratios; on it the package gives all 72 printed row-level numbers.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from compendium import data, paths
from compendium.preferences import register, rowlevel
from compendium.preferences.report import MODELS, VAL_PREF_ACC

INTERNAL = {v: k for k, v in rowlevel.INTERNAL_MODEL_IDS.items()}


def _published():
    reg = yaml.safe_load((paths.PUBLISHED / "hitl.yaml").read_text())
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


def make_study_rows(seed: int = 1, layout: str = "hf", choice_column: str = "choice_canonical") -> pd.DataFrame:
    """1,507 synthetic rows reproducing the released counts (see the module docstring).

    ``layout="hf"``: participant_id, dataset model ids; ``layout="export"``: prolific_pid, the study's
    internal ids, the comment inside ``responses``. The grid side A of each scenario is random.
    """
    rng = np.random.default_rng(seed)
    pub = _published()
    by_cat = data.load_hitl_pair_counts_by_category()
    prompts = data.load_hitl_prompts()
    ex = data.load_hitl_scenario_votes()
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
            assert extra == 0
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
                assert not labels
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
                    "choice_canonical": side,
                    "a_text": f"{a}:{p}:" + "w" * (40 + 7 * MODELS.index(a)),
                    "b_text": f"{b}:{p}:" + "w" * (40 + 7 * MODELS.index(b)),
                    "comment": "shorter" if o == "y" else "",
                }
            )
    df = pd.DataFrame(rows)
    df.insert(0, "participant_id", [f"P{(i % 305) + 1:03d}" for i in range(len(df))])
    if layout == "export":
        df = df.rename(columns={"participant_id": "prolific_pid"})
        df["prolific_pid"] = "5f" + df["prolific_pid"].str[1:].str.zfill(22)
        df["a_model"] = df["a_model"].map(INTERNAL)
        df["b_model"] = df["b_model"].map(INTERNAL)
        df["responses"] = [{"comment": c} for c in df.pop("comment")]
    if choice_column != "choice_canonical":
        df = df.rename(columns={"choice_canonical": choice_column})
    return df


@pytest.fixture(scope="module")
def rows():
    return make_study_rows()


@pytest.fixture(scope="module")
def norm(rows):
    return rowlevel.normalise_annotations(rows, prompts=data.load_hitl_prompts())


def test_fixture_reproduces_published_counts(rows, norm):
    pub = _published()
    counts, by_cat = data.load_hitl_pair_counts(), data.load_hitl_pair_counts_by_category()
    assert len(rows) == 1507
    assert rowlevel.compare_with_published(rowlevel.aggregate_pair_counts(norm), counts)["match"].all()
    assert rowlevel.compare_with_published(
        rowlevel.aggregate_pair_counts(norm, by=("category",)), by_cat, by=("category",)
    )["match"].all()
    values, missing = register.register_values(
        counts,
        by_cat,
        data.load_hitl_prompts(),
        data.load_hitl_comment_themes(),
        annotations=rows,
        examples=data.load_hitl_scenario_votes(),
    )
    assert values["hitl.n_participants"] == 305 == pub["hitl.n_participants"]
    fleiss_rows = next(t["rows"] for t in register.load_layout() if t["slug"] == "fleiss")
    for pair in fleiss_rows:
        assert values[f"hitl.fleiss.{pair}.n_items"] == pub[f"hitl.fleiss.{pair}.n_items"]
    for p in ("pc04", "cw03", "et02", "po01", "po06"):
        for c in ("winner_votes", "ties", "loser_votes"):
            assert values[f"hitl.examples.{p}.{c}"] == pub[f"hitl.examples.{p}.{c}"]
    # with rows every row-level cell has a value (texts are in the fixture)
    reg = yaml.safe_load((paths.PUBLISHED / "hitl.yaml").read_text())
    row_level = [c["id"] for c in reg["claims"] if c["level"] == "row_level"]
    assert [k for k in row_level if values[k] is None] == []
    assert not any(k in missing for k in row_level)


def test_kappa_matches_statsmodels(norm):
    t = rowlevel.fleiss_table(norm)
    tal = rowlevel.scenario_tallies(norm)
    for r in t.itertuples():
        g = tal[(tal.model_x == r.model_x) & (tal.model_y == r.model_y) & (tal.n == 3)]
        assert r.n_items == len(g)
        expected = sm_fleiss_kappa(g[["x", "y", "tie"]].to_numpy(), method="fleiss")
        assert r.kappa == pytest.approx(expected, abs=1e-12)
        assert r.band == (
            "poor" if r.kappa < 0.2 else "fair" if r.kappa < 0.4 else "moderate" if r.kappa < 0.6 else "substantial"
        )


def test_kappa_edge_cases():
    assert rowlevel.fleiss_kappa_counts([[3, 0, 0], [3, 0, 0]]) == 1.0  # every rating the same label
    assert rowlevel.fleiss_kappa_counts([[3, 0, 0], [0, 3, 0]]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="same number"):
        rowlevel.fleiss_kappa_counts([[3, 0, 0], [1, 1, 0]])
    assert rowlevel.kappa_band(-0.1) == "poor" and rowlevel.kappa_band(0.2) == "fair"
    assert rowlevel.kappa_band(0.59) == "moderate" and rowlevel.kappa_band(0.6) == "substantial"
    assert rowlevel.kappa_band(float("nan")) is None


def test_fewer_than_five_items_gives_no_kappa(norm):
    few = norm[norm.scenario_id.isin(norm.drop_duplicates("scenario_id").scenario_id.iloc[:4])]
    t = rowlevel.fleiss_table(few)
    assert t["kappa"].isna().all() and t["n_items"].max() <= 4


def _disagreement_by_hand(raw: pd.DataFrame, prompts: pd.DataFrame) -> dict:
    """A plain loop over scenarios written from the report's description (characterize_failures)."""
    cat = dict(zip(prompts.id, prompts.category))
    out = {}
    for _sid, g in raw.groupby("scenario_id"):
        a, b = g.a_model.iloc[0], g.b_model.iloc[0]
        lower = a if VAL_PREF_ACC[a] <= VAL_PREF_ACC[b] else b
        higher = b if lower == a else a
        lo = sum((c == "A" and a == lower) or (c == "B" and b == lower) for c in g.choice_canonical)
        hi = sum((c == "A" and a == higher) or (c == "B" and b == higher) for c in g.choice_canonical)
        if lo == hi:
            continue
        t = out.setdefault(cat[g.prompt_id.iloc[0]], [0, 0])
        t[0] += lo > hi
        t[1] += 1
    return out


def test_disagreement_table_by_hand(rows, norm):
    t = rowlevel.disagreement_by_category(norm).set_index("category")
    hand = _disagreement_by_hand(rows, data.load_hitl_prompts())
    assert set(t.index) == set(hand)
    for c, (k, n) in hand.items():
        assert (t.loc[c, "lower_val_wins"], t.loc[c, "scenarios"]) == (k, n)
        assert t.loc[c, "rate"] == pytest.approx(100 * k / n)
    assert t["rate"].is_monotonic_decreasing


def test_length_ratios_by_hand(rows, norm):
    lr = rowlevel.length_ratios(norm)
    v = rowlevel.scenario_verdicts(norm)
    text = {m: 40 + 7 * MODELS.index(m) for m in MODELS}
    for k in ("agree", "disagree"):
        g = v[v.verdict == k]
        hi = np.mean([len(f"{m}:{p}:") + text[m] for m, p in zip(g.higher_model, g.prompt_id)])
        lo = np.mean([len(f"{m}:{p}:") + text[m] for m, p in zip(g.lower_model, g.prompt_id)])
        assert lr[k] == pytest.approx(hi / lo)
    assert rowlevel.length_ratios(norm.drop(columns=["a_text", "b_text"])) is None


def test_study_export_layout_gives_the_same_result(norm):
    export = make_study_rows(layout="export")
    assert "prolific_pid" in export and export.a_model.isin(rowlevel.INTERNAL_MODEL_IDS).all()
    e = rowlevel.normalise_annotations(export, prompts=data.load_hitl_prompts())
    pd.testing.assert_frame_equal(rowlevel.aggregate_pair_counts(e), rowlevel.aggregate_pair_counts(norm))
    pd.testing.assert_frame_equal(rowlevel.fleiss_table(e), rowlevel.fleiss_table(norm))
    assert rowlevel.n_participants(e) == 305
    assert (e["comment"] != "").sum() == (norm["comment"] != "").sum()


def test_label_choice_column(norm):
    lab = make_study_rows(choice_column="label")
    lab["label"] = lab["label"].map({"A": "a_better", "B": "B-better", "tie": "About equal"})
    e = rowlevel.normalise_annotations(lab, prompts=data.load_hitl_prompts())
    pd.testing.assert_frame_equal(rowlevel.aggregate_pair_counts(e), rowlevel.aggregate_pair_counts(norm))


def test_internal_id_map_matches_the_report_order():
    """The map follows build_report.py: MODEL_ORDER base, prod-baseline, prod-adambeta2, prod-bestbet,
    prod-bestbet-v2 = Original, Recipe A..D, with val_pref_acc 0.500, 0.464, 0.492, 0.628, 0.648."""
    authors_order = ["base", "prod-baseline", "prod-adambeta2", "prod-bestbet", "prod-bestbet-v2"]
    authors_val = {
        "base": 0.500,
        "prod-baseline": 0.464,
        "prod-adambeta2": 0.492,
        "prod-bestbet": 0.628,
        "prod-bestbet-v2": 0.648,
    }
    m = rowlevel.INTERNAL_MODEL_IDS
    assert [m[k] for k in authors_order] == list(MODELS)
    assert all(VAL_PREF_ACC[m[k]] == v for k, v in authors_val.items())
    # the report's per-pair table lists pairs in sorted order of the internal ids; mapped, that is the
    # register's row order (an independent check of the map)
    pairs = sorted((a, b) for i, a in enumerate(authors_order) for b in authors_order[i + 1 :])
    layout = {t["slug"]: t for t in register.load_layout()}
    assert [f"{m[a]}__{m[b]}" for a, b in pairs] == layout["pairs"]["rows"]


def test_authors_example_selection_picks_published_kind(norm):
    ex = rowlevel.disagreement_examples(norm)
    assert len(ex) == 5 and (ex["score"] >= 1).all() and ex["score"].is_monotonic_decreasing
    assert all(VAL_PREF_ACC[w] < VAL_PREF_ACC[lo] for w, lo in zip(ex.winner_model, ex.loser_model))
    assert ex["score"].iloc[0] == 3  # the fixture holds the report's 3-0-0 examples


# ----------------------------------------------------------------------------------------------
# Rows consistent with every printed row-level number (tests/unit/fixtures/make_hitl_rows.py)
# ----------------------------------------------------------------------------------------------

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def annealed_rows() -> pd.DataFrame:
    """fixtures/hitl_rows.csv.gz with response texts of the lengths in fixtures/hitl_text_lengths.csv."""
    rows = pd.read_csv(FIXTURES / "hitl_rows.csv.gz")
    ln = pd.read_csv(FIXTURES / "hitl_text_lengths.csv").set_index(["prompt_id", "model"])["length"]
    rows["a_text"] = ["w" * ln[(p, m)] for p, m in zip(rows.prompt_id, rows.a_model)]
    rows["b_text"] = ["w" * ln[(p, m)] for p, m in zip(rows.prompt_id, rows.b_model)]
    return rows


def test_annealed_rows_give_every_printed_row_level_number():
    """On rows that agree with the released counts and were tuned by the generator's own code to the printed
    kappas, disagreement table and length ratios, the package gives all 72 printed row-level numbers."""
    rows = annealed_rows()
    counts, by_cat = data.load_hitl_pair_counts(), data.load_hitl_pair_counts_by_category()
    norm = rowlevel.normalise_annotations(rows, prompts=data.load_hitl_prompts())
    assert len(rows) == 1507
    assert rowlevel.compare_with_published(rowlevel.aggregate_pair_counts(norm), counts)["match"].all()
    assert rowlevel.compare_with_published(
        rowlevel.aggregate_pair_counts(norm, by=("category",)), by_cat, by=("category",)
    )["match"].all()
    values, _ = register.register_values(
        counts,
        by_cat,
        data.load_hitl_prompts(),
        data.load_hitl_comment_themes(),
        annotations=rows,
        examples=data.load_hitl_scenario_votes(),
    )
    reg = yaml.safe_load((paths.PUBLISHED / "hitl.yaml").read_text())
    checked = 0
    for c in reg["claims"]:
        if c["level"] != "row_level":
            continue
        v = values[c["id"]]
        if c.get("kind") == "label":
            assert v == c["published"], c["id"]
        else:
            assert abs(v - c["published"]) <= c["tol"] + 1e-9, (c["id"], v, c["published"])
        checked += 1
    assert checked == 72
    order = next(t["rows"] for t in register.load_layout() if t["slug"] == "disagree")
    assert list(rowlevel.disagreement_by_category(norm)["category"]) == order
    tal = rowlevel.scenario_tallies(norm)
    for r in rowlevel.fleiss_table(norm).itertuples():
        g = tal[(tal.model_x == r.model_x) & (tal.model_y == r.model_y) & (tal.n == 3)]
        assert r.kappa == pytest.approx(sm_fleiss_kappa(g[["x", "y", "tie"]].to_numpy()), abs=1e-12)
