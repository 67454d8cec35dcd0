"""The row-level path on generated, full-size fixtures that reproduce the study's published counts.

The HF annotations are not offline, so :func:`make_study_rows` generates 1,507 rows that aggregate exactly
to the released pair and per-category counts, have the published number of 3-rating scenarios per pair
(the register's ``hitl.fleiss.*.n_items``), 305 participants and the report's five 3-0-0 example
scenarios; outcomes within a pair and category are otherwise shuffled (seeded). Kappa and the
disagreement table are checked on it against independent computations
(``statsmodels.stats.inter_rater.fleiss_kappa``, a plain loop written from the report's description).
:func:`anneal_disagreement` and :func:`tune_lengths` then move labels (keeping every count) until the
per-category disagreement table and the two length ratios are the printed ones, by an objective computed
in this file; on those rows the package gives every printed row-level number except the per-pair kappas,
which are not targeted.
"""
from __future__ import annotations

import hashlib

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
            x = dev.pop(i); dev += [x - 1, 1]
        elif i is not None and dev[i] == 1:
            dev.pop(i); dev += [2, -1]
        elif i is not None and dev[i] == -1:
            dev.pop(i); dev += [-2, 1]
        elif i is not None and dev[i] == -2:
            dev.pop(i); dev += [-1, -1]
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
    fixed = {(r.prompt_id, *sorted((r.winner_model, r.loser_model), key=MODELS.index)): r.winner_model
             for r in ex.itertuples()}
    scenarios = []
    for i, mx in enumerate(MODELS):
        for my in MODELS[i + 1:]:
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
                        votes[p], labels = labels[:sizes[p]], labels[sizes[p]:]
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
            rows.append({"scenario_id": sid, "prompt_id": p, "a_model": a, "b_model": b, "choice_canonical": side,
                         "a_text": f"{a}:{p}:" + "w" * (40 + 7 * MODELS.index(a)),
                         "b_text": f"{b}:{p}:" + "w" * (40 + 7 * MODELS.index(b)),
                         "comment": "shorter" if o == "y" else ""})
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
    assert rowlevel.compare_with_published(rowlevel.aggregate_pair_counts(norm, by=("category",)), by_cat,
                                           by=("category",))["match"].all()
    values, missing = register.register_values(counts, by_cat, data.load_hitl_prompts(), data.load_hitl_comment_themes(),
                                               annotations=rows, examples=data.load_hitl_scenario_votes())
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
        assert r.band == ("poor" if r.kappa < 0.2 else "fair" if r.kappa < 0.4 else "moderate" if r.kappa < 0.6
                          else "substantial")


def test_kappa_edge_cases():
    assert rowlevel.fleiss_kappa_counts([[3, 0, 0], [3, 0, 0]]) == 1.0      # every rating the same label
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
    for sid, g in raw.groupby("scenario_id"):
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
    authors_val = {"base": 0.500, "prod-baseline": 0.464, "prod-adambeta2": 0.492, "prod-bestbet": 0.628,
                   "prod-bestbet-v2": 0.648}
    m = rowlevel.INTERNAL_MODEL_IDS
    assert [m[k] for k in authors_order] == list(MODELS)
    assert all(VAL_PREF_ACC[m[k]] == v for k, v in authors_val.items())
    # the report's per-pair table lists pairs in sorted order of the internal ids; mapped, that is the
    # register's row order (an independent check of the map)
    pairs = sorted((a, b) for i, a in enumerate(authors_order) for b in authors_order[i + 1:])
    layout = {t["slug"]: t for t in register.load_layout()}
    assert [f"{m[a]}__{m[b]}" for a, b in pairs] == layout["pairs"]["rows"]


def test_authors_example_selection_picks_published_kind(norm):
    ex = rowlevel.disagreement_examples(norm)
    assert len(ex) == 5 and (ex["score"] >= 1).all() and ex["score"].is_monotonic_decreasing
    assert all(VAL_PREF_ACC[w] < VAL_PREF_ACC[lo] for w, lo in zip(ex.winner_model, ex.loser_model))
    assert ex["score"].iloc[0] == 3   # the fixture holds the report's 3-0-0 examples


# ----------------------------------------------------------------------------------------------
# The annealed fixture: also the printed disagreement table and length ratios
# ----------------------------------------------------------------------------------------------

LABELS = ("x", "y", "tie")


def anneal_disagreement(seed: int = 7, max_iter: int = 400_000) -> pd.DataFrame:
    """Rows of :func:`make_study_rows` whose per-category disagreement table is the printed one.

    Simulated annealing (seeded) moves labels between scenarios of the same pair and prompt category,
    swapping two labels or moving one from a scenario with k+1 ratings to one with k, so pair counts,
    category counts and scenario sizes never change; the objective is computed here, not by the package.
    The per-pair kappas are not targeted (with the fixture's arbitrary placement of the incomplete
    scenarios not every printed kappa is reachable by these moves).
    """
    pub = _published()
    rows = make_study_rows(seed=1)
    prompts = data.load_hitl_prompts()
    cat = dict(zip(prompts.id, prompts.category))
    cats = sorted(set(cat.values()))
    sc = {}
    for r in rows.itertuples():
        a_is_x = MODELS.index(r.a_model) < MODELS.index(r.b_model)
        o = "tie" if r.choice_canonical == "tie" else ("x" if (r.choice_canonical == "A") == a_is_x else "y")
        mx, my = sorted((r.a_model, r.b_model), key=MODELS.index)
        sc.setdefault(r.scenario_id, {"pair": (mx, my), "prompt": r.prompt_id, "a": r.a_model, "b": r.b_model,
                                      "labels": []})["labels"].append(o)
    ex = data.load_hitl_scenario_votes()
    fixed = {(r.prompt_id, *sorted((r.winner_model, r.loser_model), key=MODELS.index)) for r in ex.itertuples()}
    t_dis = {c: (pub[f"hitl.disagree.{c}.lower_val_wins"], pub[f"hitl.disagree.{c}.scenarios"]) for c in cats}

    def verdict(s):
        mx, my = s["pair"]
        x, y = s["labels"].count("x"), s["labels"].count("y")
        lo, hi = (x, y) if VAL_PREF_ACC[mx] <= VAL_PREF_ACC[my] else (y, x)
        return (int(lo > hi), int(lo != hi))

    groups = {}
    for sid, s in sc.items():
        if (s["prompt"], *s["pair"]) not in fixed:
            groups.setdefault((s["pair"], cat[s["prompt"]]), []).append(sid)
    gkeys = sorted(k for k, v in groups.items() if len(v) > 1)
    rng = np.random.default_rng(seed)
    d = {c: [0, 0] for c in cats}
    for s in sc.values():
        v = verdict(s)
        d[cat[s["prompt"]]][0] += v[0]
        d[cat[s["prompt"]]][1] += v[1]

    def dis_cost():
        return sum(abs(d[c][0] - t_dis[c][0]) + abs(d[c][1] - t_dis[c][1]) for c in cats)

    def propose(keys):
        """A random label move inside one (pair, category) group; returns an undo function or None."""
        g = keys[rng.integers(len(keys))]
        a, b = rng.choice(groups[g], 2, replace=False)
        sa, sb = sc[a], sc[b]
        va, vb = verdict(sa), verdict(sb)
        if rng.integers(2) == 0:
            i, j = int(rng.integers(len(sa["labels"]))), int(rng.integers(len(sb["labels"])))
            if sa["labels"][i] == sb["labels"][j]:
                return None
            sa["labels"][i], sb["labels"][j] = sb["labels"][j], sa["labels"][i]

            def undo_move():
                sa["labels"][i], sb["labels"][j] = sb["labels"][j], sa["labels"][i]
        else:
            if len(sa["labels"]) != len(sb["labels"]) + 1:
                return None
            i = int(rng.integers(len(sa["labels"])))
            sb["labels"].append(sa["labels"].pop(i))

            def undo_move():
                sa["labels"].insert(i, sb["labels"].pop())
        na, nb = verdict(sa), verdict(sb)
        delta = (na[0] + nb[0] - va[0] - vb[0], na[1] + nb[1] - va[1] - vb[1])
        d[g[1]][0] += delta[0]
        d[g[1]][1] += delta[1]

        def undo():
            undo_move()
            d[g[1]][0] -= delta[0]
            d[g[1]][1] -= delta[1]
        return g, delta, undo

    # phase 1: the disagreement table (integer objective)
    c_now, temp = dis_cost(), 1.0
    for _ in range(max_iter):
        if c_now == 0:
            break
        r = propose(gkeys)
        if r is None:
            continue
        c_new = dis_cost()
        if c_new <= c_now or rng.random() < np.exp((c_now - c_new) / temp):
            c_now = c_new
        else:
            r[2]()
        temp = max(0.05, temp * 0.9999)
    if c_now != 0:
        raise RuntimeError(f"annealing did not reach the printed disagreement table (cost {c_now})")
    out = []
    for sid, s in sc.items():
        a_is_x = s["a"] == s["pair"][0]
        for o in s["labels"]:
            side = "tie" if o == "tie" else "A" if (o == "x") == a_is_x else "B"
            out.append({"scenario_id": sid, "prompt_id": s["prompt"], "a_model": s["a"], "b_model": s["b"],
                        "choice_canonical": side})
    df = pd.DataFrame(out)
    df.insert(0, "participant_id", [f"P{(i % 305) + 1:03d}" for i in range(len(df))])
    return df


def tune_lengths(rows: pd.DataFrame, seed: int = 7, max_iter: int = 200_000) -> pd.DataFrame:
    """Response length per (prompt, model) so that the report's two length ratios come out as printed
    (within 0.002), by a seeded random search written here."""
    pub = _published()
    target = {"agree": pub["hitl.length.ratio_agree"], "disagree": pub["hitl.length.ratio_disagree"]}
    rng = np.random.default_rng(seed)
    prompts = sorted(rows.prompt_id.unique())
    L = {(p, m): int(rng.integers(300, 1500)) for p in prompts for m in MODELS}
    scen = []
    for sid, g in rows.groupby("scenario_id", sort=True):
        a, b, p = g.a_model.iloc[0], g.b_model.iloc[0], g.prompt_id.iloc[0]
        lo, hi = (a, b) if VAL_PREF_ACC[a] <= VAL_PREF_ACC[b] else (b, a)
        vlo = int(((g.choice_canonical == "A") & (g.a_model == lo)).sum() + ((g.choice_canonical == "B") & (g.b_model == lo)).sum())
        vhi = int(((g.choice_canonical == "A") & (g.a_model == hi)).sum() + ((g.choice_canonical == "B") & (g.b_model == hi)).sum())
        if vlo != vhi:
            scen.append(("disagree" if vlo > vhi else "agree", p, lo, hi))

    def ratios():
        out = {}
        for k in ("agree", "disagree"):
            s = [x for x in scen if x[0] == k]
            out[k] = np.mean([L[(p, hi)] for _, p, _, hi in s]) / np.mean([L[(p, lo)] for _, p, lo, _ in s])
        return out

    def err():
        r = ratios()
        return sum(max(0.0, abs(r[k] - target[k]) - 0.002) for k in r)

    e = err()
    keys = sorted(L)
    for _ in range(max_iter):
        if e == 0:
            break
        k = keys[rng.integers(len(keys))]
        old = L[k]
        L[k] = int(max(40, old + rng.integers(-60, 61)))
        e2 = err()
        if e2 <= e:
            e = e2
        else:
            L[k] = old
    if e != 0:
        raise RuntimeError("length tuning did not converge")
    return pd.DataFrame([{"prompt_id": p, "model": m, "length": L[(p, m)]} for p, m in keys])


@pytest.fixture(scope="module")
def annealed_rows():
    rows = anneal_disagreement()
    ln = tune_lengths(rows).set_index(["prompt_id", "model"])["length"]
    rows["a_text"] = ["w" * ln[(p, m)] for p, m in zip(rows.prompt_id, rows.a_model)]
    rows["b_text"] = ["w" * ln[(p, m)] for p, m in zip(rows.prompt_id, rows.b_model)]
    return rows


def test_annealed_fixture_gives_the_printed_row_level_numbers(annealed_rows):
    """On rows that agree with the released counts and were tuned (by this file's own code) to the printed
    disagreement table and length ratios, the package gives every printed row-level number except the
    kappas (not targeted): 3-rating scenarios, disagreement table, example tallies, participants, ratios."""
    rows = annealed_rows
    counts, by_cat = data.load_hitl_pair_counts(), data.load_hitl_pair_counts_by_category()
    norm = rowlevel.normalise_annotations(rows, prompts=data.load_hitl_prompts())
    assert rowlevel.compare_with_published(rowlevel.aggregate_pair_counts(norm), counts)["match"].all()
    assert rowlevel.compare_with_published(rowlevel.aggregate_pair_counts(norm, by=("category",)), by_cat,
                                           by=("category",))["match"].all()
    values, _ = register.register_values(counts, by_cat, data.load_hitl_prompts(), data.load_hitl_comment_themes(),
                                         annotations=rows, examples=data.load_hitl_scenario_votes())
    reg = yaml.safe_load((paths.PUBLISHED / "hitl.yaml").read_text())
    checked = 0
    for c in reg["claims"]:
        if c["level"] != "row_level" or c["id"].endswith((".kappa", ".band")):
            continue
        assert abs(values[c["id"]] - c["published"]) <= c["tol"] + 1e-9, (c["id"], values[c["id"]], c["published"])
        checked += 1
    assert checked == 52
    # the disagreement table's printed order (by rate, highest first) comes out too
    order = next(t["rows"] for t in register.load_layout() if t["slug"] == "disagree")
    assert list(rowlevel.disagreement_by_category(norm)["category"]) == order
