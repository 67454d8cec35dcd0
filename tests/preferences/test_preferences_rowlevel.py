"""compendium.preferences.rowlevel on a generated row-level fixture (the HF annotations are not offline)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from compendium import preferences as pref
from compendium.data.errors import DataValidationError
from compendium.preferences import rowlevel

# Each scenario (prompt-pair instance): pair (X, Y) in canonical order, prompt, canonical outcomes of its
# ratings, and whether X was shown in position A for each rating.
SCENARIOS = [
    # pair untrained (X) vs recipe_c (Y)
    ("s1", "untrained", "recipe_c", "p1", ["y", "y", "y"], [True, False, True]),
    ("s2", "untrained", "recipe_c", "p2", ["y", "x", "tie"], [False, False, True]),
    ("s3", "untrained", "recipe_c", "p3", ["x", "x", "y"], [True, True, False]),
    ("s4", "untrained", "recipe_c", "p4", ["tie", "tie", "y"], [False, True, True]),
    ("s5", "untrained", "recipe_c", "p5", ["y", "y", "x"], [True, False, False]),
    ("s6", "untrained", "recipe_c", "p6", ["y", "x"], [True, True]),  # only 2 ratings: not in kappa
    # pair recipe_c (X) vs recipe_d (Y)
    ("s7", "recipe_c", "recipe_d", "p1", ["x", "x", "x"], [False, False, True]),
    ("s8", "recipe_c", "recipe_d", "p2", ["y", "y", "y"], [True, False, True]),
    ("s9", "recipe_c", "recipe_d", "p3", ["x", "y", "tie"], [True, True, False]),
    ("s10", "recipe_c", "recipe_d", "p4", ["x", "x", "y"], [False, True, False]),
    ("s11", "recipe_c", "recipe_d", "p5", ["tie", "tie", "tie"], [True, False, False]),
]
PROMPTS = pd.DataFrame(
    {
        "id": ["p1", "p2", "p3", "p4", "p5", "p6"],
        "category": ["advice", "advice", "advice", "factual", "factual", "factual"],
        "text": ["..."] * 6,
    }
)


def make_rows(choice_style: str = "letters") -> pd.DataFrame:
    rows, k = [], 0
    for sid, mx, my, prompt, outcomes, x_in_a in SCENARIOS:
        for out, xa in zip(outcomes, x_in_a):
            a, b = (mx, my) if xa else (my, mx)
            if out == "tie":
                choice = "tie"
            else:
                winner = mx if out == "x" else my
                choice = "A" if winner == a else "B"
            rows.append(
                {
                    "participant_id": f"P{k % 7 + 1:03d}",
                    "scenario_id": sid,
                    "prompt_id": prompt,
                    "axis": f"{mx} vs {my}",
                    "a_model": a,
                    "b_model": b,
                    "choice_canonical": choice,
                }
            )
            k += 1
    df = pd.DataFrame(rows)
    if choice_style == "words":
        df = df.rename(columns={"choice_canonical": "choice"})
        df["choice"] = df["choice"].map({"A": "A is better", "B": "b", "tie": "About equal"})
    elif choice_style == "winner":
        win = np.where(
            df["choice_canonical"] == "A", df["a_model"], np.where(df["choice_canonical"] == "B", df["b_model"], "tie")
        )
        df = df.drop(columns="choice_canonical").assign(winner_model=win)
    return df


def expected_counts():
    out = {}
    for _, mx, my, _, outcomes, _ in SCENARIOS:
        c = out.setdefault((mx, my), {"x_wins": 0, "y_wins": 0, "ties": 0})
        for o in outcomes:
            c[{"x": "x_wins", "y": "y_wins", "tie": "ties"}[o]] += 1
    return out


def fleiss_by_hand(tables):
    """Fleiss (1971) from its definition, for items x categories count tables with n raters each."""
    t = np.asarray(tables, dtype=float)
    N, n = t.shape[0], t[0].sum()
    P_i = ((t**2).sum(1) - n) / (n * (n - 1))
    p_j = t.sum(0) / (N * n)
    Pe = (p_j**2).sum()
    return (P_i.mean() - Pe) / (1 - Pe)


@pytest.fixture
def parquet_file(tmp_path):
    path = tmp_path / "annotations.parquet"
    make_rows().to_parquet(path, index=False)
    return path


def test_parquet_round_trip_and_aggregation(parquet_file):
    ann = rowlevel.normalise_annotations(rowlevel.read_annotations(parquet_file), prompts=PROMPTS)
    assert len(ann) == sum(len(s[4]) for s in SCENARIOS)
    agg = rowlevel.aggregate_pair_counts(ann).set_index(["model_x", "model_y"])
    for pair, c in expected_counts().items():
        assert agg.loc[pair, ["x_wins", "y_wins", "ties"]].to_dict() == c
    pub = agg.reset_index()
    assert rowlevel.compare_with_published(rowlevel.aggregate_pair_counts(ann), pub)["match"].all()
    wrong = pub.copy()
    wrong.loc[0, ["x_wins", "n"]] += 1
    assert not rowlevel.compare_with_published(rowlevel.aggregate_pair_counts(ann), wrong)["match"].all()
    by_cat = rowlevel.aggregate_pair_counts(ann, by=("category",))
    assert by_cat["n"].sum() == len(ann) and set(by_cat["category"]) == {"advice", "factual"}


def test_aggregated_rows_feed_the_bt_fit(parquet_file):
    ann = rowlevel.normalise_annotations(rowlevel.read_annotations(parquet_file))
    agg = rowlevel.aggregate_pair_counts(ann)
    counts = pd.DataFrame(
        [{"model_x": mx, "model_y": my, **c, "n": sum(c.values())} for (mx, my), c in expected_counts().items()]
    )
    pd.testing.assert_frame_equal(pref.pair_table(agg), pref.pair_table(counts))


def test_fleiss_kappa_per_pair_by_hand(parquet_file):
    ann = rowlevel.normalise_annotations(rowlevel.read_annotations(parquet_file))
    kappa = rowlevel.fleiss_kappa_per_pair(ann, min_items=5).set_index(["model_x", "model_y"])
    for pair in expected_counts():
        tables = [
            [o.count("x"), o.count("y"), o.count("tie")]
            for _, mx, my, _, o, _ in SCENARIOS
            if (mx, my) == pair and len(o) == 3
        ]
        assert kappa.loc[pair, "n_items"] == 5
        assert kappa.loc[pair, "fleiss_kappa"] == pytest.approx(fleiss_by_hand(tables), abs=1e-12)
    few = rowlevel.fleiss_kappa_per_pair(ann, min_items=6)
    assert few["fleiss_kappa"].isna().all()


def test_canonical_side_asymmetry_and_activity(parquet_file):
    ann = rowlevel.normalise_annotations(rowlevel.read_annotations(parquet_file))
    raw = make_rows()
    dec = raw[raw.choice_canonical != "tie"]
    k, n = int((dec.choice_canonical == "A").sum()), len(dec)
    side = rowlevel.canonical_side_asymmetry(ann)
    assert (side["chose_a"], side["n_decisive"]) == (k, n)
    assert side["share_a"] == pytest.approx(k / n)
    assert side["binom_p"] == pytest.approx(stats.binomtest(k, n).pvalue)
    assert side["tie_share"] == pytest.approx((raw.choice_canonical == "tie").mean())
    per, summary = rowlevel.participant_activity(ann)
    counts = raw["participant_id"].value_counts()
    assert summary["n_participants"] == 7 == len(per) == rowlevel.n_participants(ann)
    assert summary["max"] == counts.max() and summary["min"] == counts.min()
    assert per.set_index("participant_id")["n_judgements"].to_dict() == counts.to_dict()


def test_position_bias_only_with_a_displayed_order_column():
    raw = make_rows()
    assert rowlevel.position_bias(rowlevel.normalise_annotations(raw)) is None
    # display swapped for every other row: the displayed-first model is then b_model
    swapped = np.arange(len(raw)) % 2 == 1
    shown = raw.assign(display_swapped=swapped)
    bias = rowlevel.position_bias(rowlevel.normalise_annotations(shown))
    dec = raw[raw.choice_canonical != "tie"]
    first = np.where(swapped[dec.index], "B", "A")
    k = int((dec.choice_canonical.to_numpy() == first).sum())
    assert (bias["chose_first"], bias["n_decisive"]) == (k, len(dec))
    assert bias["binom_p"] == pytest.approx(stats.binomtest(k, len(dec)).pvalue)
    named = raw.assign(left_model=np.where(swapped, raw.b_model, raw.a_model))
    assert rowlevel.position_bias(rowlevel.normalise_annotations(named)) == bias
    with pytest.raises(ValueError, match="not one of the two"):
        rowlevel.normalise_annotations(raw.assign(left_model="recipe_b"))


@pytest.mark.parametrize("style", ["words", "winner"])
def test_other_choice_encodings_give_the_same_result(style):
    a = rowlevel.aggregate_pair_counts(rowlevel.normalise_annotations(make_rows()))
    b = rowlevel.aggregate_pair_counts(rowlevel.normalise_annotations(make_rows(style)))
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize(
    "mutate,msg",
    [
        (lambda d: d.drop(columns="participant_id"), "missing column"),
        (lambda d: d.drop(columns="prompt_id"), "missing column"),
        (lambda d: d.assign(scenario_id="s1"), "different models or prompts"),
        (lambda d: d.drop(columns="choice_canonical"), "no choice column"),
        (lambda d: d.assign(choice_canonical="maybe"), "not A, B, tie"),
        (lambda d: d.assign(a_model="recipe_z"), "field a_model: unknown model id"),
        (lambda d: d.assign(b_model=d.a_model), "same model"),
    ],
)
def test_normalise_errors(mutate, msg):
    with pytest.raises(ValueError, match=msg):
        rowlevel.normalise_annotations(mutate(make_rows()))


def test_unknown_prompt_and_missing_file(tmp_path):
    with pytest.raises(ValueError, match="prompt_id"):
        rowlevel.normalise_annotations(make_rows(), prompts=PROMPTS.iloc[:2])
    with pytest.raises(FileNotFoundError, match="not present"):
        rowlevel.read_annotations(tmp_path / "annotations.parquet")
    with pytest.raises(ValueError, match="unsupported"):
        (tmp_path / "x.txt").write_text("")
        rowlevel.read_annotations(tmp_path / "x.txt")


def test_annotations_path_is_under_the_project_root():
    p = rowlevel.annotations_path(rowlevel.ANNOTATIONS_RELPATH)
    assert p.parts[-3:] == ("data", "hitl", "annotations.parquet") and p.is_absolute()


# ----------------------------------------------------------------------------------------------
# Rows without a choice, duplicates, tie order, the default path, malformed files
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("empty", [None, "", "  ", np.nan])
def test_rows_without_a_choice_are_skipped_and_counted(empty):
    rows = make_rows()
    blank = rows.iloc[[0, 5]].assign(choice_canonical=empty, participant_id=["P900", "P901"])
    with_blank = pd.concat([blank.iloc[:1], rows, blank.iloc[1:]], ignore_index=True)
    full = rowlevel.normalise_annotations(rows)
    norm = rowlevel.normalise_annotations(with_blank)
    assert norm.attrs["n_without_choice"] == 2 and norm.attrs["n_rows_read"] == len(rows) + 2
    assert len(norm) == len(rows)
    pd.testing.assert_frame_equal(rowlevel.aggregate_pair_counts(norm), rowlevel.aggregate_pair_counts(full))
    # the report counts the participants of every row it read (build_report: distinct prolific_pid)
    assert rowlevel.n_participants(norm) == rowlevel.n_participants(full) + 2


def test_a_file_with_no_choice_at_all_is_refused():
    with pytest.raises(ValueError, match="none of the 32 row"):
        rowlevel.normalise_annotations(make_rows().assign(choice_canonical=None))


def test_duplicated_participant_scenario_rows_are_reported():
    rows = make_rows()
    dup = pd.concat([rows, rows.iloc[[4]]], ignore_index=True)
    with pytest.warns(
        UserWarning, match=r"1 row\(s\) repeat a participant's judgement .*participant 'P005', scenario 's2'"
    ):
        norm = rowlevel.normalise_annotations(dup)
    assert norm.attrs["n_duplicate_rows"] == 1
    assert norm.attrs["first_duplicate"] == {"participant_id": "P005", "scenario_id": "s2"}
    assert rowlevel.normalise_annotations(rows).attrs["n_duplicate_rows"] == 0


def _verdict_rows(spec):
    """Rows from ``(scenario, category-prompt, lower-val votes, higher-val votes)``: pair recipe_a (val
    0.464, lower) vs recipe_d (0.648, higher), recipe_a on side A."""
    rows, k = [], 0
    for sid, prompt, lo, hi in spec:
        for choice in ["A"] * lo + ["B"] * hi:
            rows.append(
                {
                    "participant_id": f"P{k:03d}",
                    "scenario_id": sid,
                    "prompt_id": prompt,
                    "a_model": "recipe_a",
                    "b_model": "recipe_d",
                    "choice_canonical": choice,
                }
            )
            k += 1
    return pd.DataFrame(rows)


def test_tied_disagreement_rates_keep_the_reports_order():
    """build_report.characterize_failures orders categories by rate with a stable sort of the categories
    in the order it met them: first among the disagreeing scenarios, then among the agreeing ones. Here
    'factual' appears first in the file but only agrees before 'advice' disagrees: both have rate 50 %, and
    the report lists 'advice' (met among the disagreements) first; 'first appearance' would say 'factual'."""
    spec = [
        ("s1", "p4", 0, 3),  # factual: agree
        ("s2", "p1", 2, 1),  # advice: disagree
        ("s3", "p5", 3, 0),  # factual: disagree
        ("s4", "p2", 1, 2),  # advice: agree
        ("s5", "p6", 1, 1),  # factual: even, left out
    ]
    norm = rowlevel.normalise_annotations(_verdict_rows(spec), prompts=PROMPTS)
    t = rowlevel.disagreement_by_category(norm)
    assert t["category"].tolist() == ["advice", "factual"]
    assert t["rate"].tolist() == [50.0, 50.0] and t["scenarios"].tolist() == [2, 2]
    # independent: the report's procedure written out (dict insertion order + stable sort by -rate)
    cat = dict(zip(PROMPTS["id"], PROMPTS["category"]))
    dis = [cat[p] for _, p, lo, hi in spec if lo > hi]
    agr = [cat[p] for _, p, lo, hi in spec if lo < hi]
    totals = {}
    for c in dis + agr:
        totals[c] = totals.get(c, 0) + 1
    expected = sorted(totals, key=lambda c: -dis.count(c) / totals[c])
    assert t["category"].tolist() == expected


def test_tie_order_uses_the_scenarios_first_row_even_without_a_choice():
    spec = [("s1", "p4", 2, 1), ("s2", "p1", 2, 1)]  # factual then advice, both disagree (rate 100)
    rows = _verdict_rows(spec)
    # a choiceless row of s2 (advice) put first in the file moves advice's scenario ahead
    first = rows[rows.scenario_id == "s2"].iloc[[0]].assign(choice_canonical=None, participant_id="P999")
    norm = rowlevel.normalise_annotations(pd.concat([first, rows], ignore_index=True), prompts=PROMPTS)
    assert rowlevel.disagreement_by_category(norm)["category"].tolist() == ["advice", "factual"]
    norm = rowlevel.normalise_annotations(rows, prompts=PROMPTS)
    assert rowlevel.disagreement_by_category(norm)["category"].tolist() == ["factual", "advice"]


def test_default_path_accepts_the_studys_own_export(tmp_path, monkeypatch):
    from compendium.pipeline import paths
    from compendium.pipeline.params import study_params

    ann = study_params("preferences").annotations_path  # the parameter's reference: the acquisition's path
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    (tmp_path / "data" / "hitl").mkdir(parents=True)
    assert rowlevel.annotations_path(ann) == tmp_path / "data" / "hitl" / "annotations.parquet"
    (tmp_path / "data" / "hitl" / "annotations_real.json").write_text("[]")
    assert rowlevel.annotations_path(ann) == tmp_path / "data" / "hitl" / "annotations_real.json"
    (tmp_path / "data" / "hitl" / "annotations.jsonl").write_text("")
    assert rowlevel.annotations_path(ann) == tmp_path / "data" / "hitl" / "annotations.jsonl"
    # an explicit path is taken as given
    assert rowlevel.annotations_path("data/hitl/mine.csv") == tmp_path / "data" / "hitl" / "mine.csv"


def test_malformed_annotation_files_name_the_file(tmp_path):
    jl = tmp_path / "a.jsonl"
    jl.write_text('{"participant_id": "P1"}\n{"participant_id": \n')
    with pytest.raises(ValueError, match=rf"{jl}: line 2: not valid JSON"):
        rowlevel.read_annotations(jl)
    jl.write_text('{"participant_id": "P1"}\n[1, 2]\n')
    with pytest.raises(ValueError, match=rf"{jl}: line 2: expected a JSON object"):
        rowlevel.read_annotations(jl)
    js = tmp_path / "a.json"
    js.write_text('[{"participant_id": "P1"},')
    with pytest.raises(ValueError, match=rf"{js}: not valid JSON"):
        rowlevel.read_annotations(js)
    js.write_text('[{"participant_id": "P1"}, 3]')
    with pytest.raises(ValueError, match=rf"{js}: record 2: expected a JSON object"):
        rowlevel.read_annotations(js)
    pq = tmp_path / "a.parquet"
    pq.write_bytes(b"not a parquet file")
    with pytest.raises(ValueError, match=rf"{pq}: cannot be read as parquet"):
        rowlevel.read_annotations(pq)


def test_annotations_nested_too_deep_name_the_file_and_line_not_a_recursion_error(tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    jl = tmp_path / "a.jsonl"
    jl.write_text('{"participant_id": "P1"}\n' + deep + "\n")
    with pytest.raises(DataValidationError, match=rf"^{jl}: line 2: JSON nested too deep"):
        rowlevel.read_annotations(jl)
    js = tmp_path / "a.json"
    js.write_text('[{"participant_id": ' + deep + "}]")
    with pytest.raises(DataValidationError, match=rf"^{js}: JSON nested too deep"):
        rowlevel.read_annotations(js)


def _jsonl(path, rows, blank_after=None):
    lines = [json.dumps(r) for r in rows.to_dict("records")]
    if blank_after is not None:
        lines.insert(blank_after, "")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_bad_annotation_values_name_the_file_the_line_or_record_and_the_field(tmp_path):
    """A value the normaliser refuses used to be reported as "annotations: column ..." with neither the
    file nor the row; now the file, the line (JSON lines: blank lines counted) or record, and the field."""
    rows = make_rows()
    bad = rows.copy()
    bad.loc[3, "a_model"] = "recipe_z"
    jl = _jsonl(tmp_path / "a.jsonl", bad, blank_after=1)  # row 3 is on line 5
    with pytest.raises(DataValidationError) as e:
        rowlevel.normalise_annotations(rowlevel.read_annotations(jl))
    msg = str(e.value)
    assert msg.startswith(f"{jl}: line 5: field a_model: unknown model id 'recipe_z'"), msg
    bad = rows.copy()
    bad.loc[[2, 6], "choice_canonical"] = "maybe"
    js = tmp_path / "a.json"
    js.write_text(json.dumps(bad.to_dict("records")))
    with pytest.raises(DataValidationError) as e:
        rowlevel.normalise_annotations(rowlevel.read_annotations(js))
    msg = str(e.value)
    assert msg.startswith(f"{js}: record 3 (and 1 more row): field choice_canonical: value 'maybe'"), msg
    # a frame not read from a file keeps the generic name, with the row
    with pytest.raises(DataValidationError, match=r"^annotations: row 4: field a_model: unknown model id"):
        rowlevel.normalise_annotations(rows.assign(a_model=rows["a_model"].where(rows.index != 3, "recipe_z")))
    # valid rows read from a file give exactly what the frame gives
    pd.testing.assert_frame_equal(
        rowlevel.normalise_annotations(rowlevel.read_annotations(_jsonl(tmp_path / "ok.jsonl", rows))),
        rowlevel.normalise_annotations(rows),
    )


def test_duplicated_rows_name_the_file_the_key_and_the_rows_and_are_counted_per_the_policy(tmp_path):
    """The study's row key is participant x scenario (one row is one participant's judgement of one
    scenario); a repeated key is tolerated and counted, as the study's report counts every row (the anomaly
    policy's HITL rule), and the warning names the file, the key and the lines."""
    from compendium.data import anomalies

    rows = make_rows()
    jl = _jsonl(tmp_path / "a.jsonl", pd.concat([rows, rows.iloc[[4]]], ignore_index=True))
    with pytest.warns(UserWarning) as w:
        norm = rowlevel.normalise_annotations(rowlevel.read_annotations(jl))
    msg = str(w[0].message)
    assert msg.startswith(f"{jl}: 1 row(s) repeat a participant's judgement of a scenario"), msg
    assert "key (participant_id, scenario_id)" in msg and "participant 'P005', scenario 's2' at lines 5 and 33" in msg
    assert norm.attrs["duplicate_rows"] == [5, 33]
    assert len(norm) == len(rows) + 1  # counted, as the report counts them
    policy = anomalies.policy_table()
    hitl = policy[(policy["dataset"] == "HITL") & policy["case"].str.contains("participant")]
    assert list(hitl["action"]) == ["tolerated"], policy


@pytest.mark.parametrize(
    "found, absent",
    [("response_a", "response_b"), ("response_b", "response_a"), ("a_text", "b_text"), ("b_text", "a_text")],
)
def test_half_a_pair_of_response_texts_is_refused_naming_the_file_and_both_columns(tmp_path, found, absent):
    """One response-text column without its partner (and no complete pair) is a damaged file: refused in one
    sentence naming the file, the column missing and the one found, with both ways on (the anomaly policy's
    HITL rule). Either complete pair is read; neither pair reads the rows without texts."""
    from compendium.data import anomalies

    f = tmp_path / "a.jsonl"
    make_rows().assign(**{found: "some text"}).to_json(f, orient="records", lines=True)
    with pytest.raises(DataValidationError) as e:
        rowlevel.normalise_annotations(rowlevel.read_annotations(f))
    msg = str(e.value)
    assert msg.startswith(f"{f}: missing column {absent!r}: the file has the response text {found!r} but not "), msg
    assert msg.endswith(f"add {absent!r}, or remove {found!r} to read the rows without texts"), msg
    assert "\n" not in msg and msg.count(": ") == 2
    policy = anomalies.policy_table()
    rule = policy[(policy["dataset"] == "HITL") & policy["case"].str.contains("response-text")]
    assert list(rule["action"]) == ["refused"]


@pytest.mark.parametrize("pair", rowlevel.TEXT_COLUMNS, ids=lambda p: p[0])
def test_either_pair_of_response_texts_is_read_and_neither_is_noted(pair):
    rows = make_rows()
    bare = rowlevel.normalise_annotations(rows)
    assert bare.attrs["text_columns"] is None and "a_text" not in bare
    both = rowlevel.normalise_annotations(rows.assign(**{pair[0]: "aa", pair[1]: "bbbb"}))
    assert both.attrs["text_columns"] == list(pair)
    assert (both["a_text"] == "aa").all() and (both["b_text"] == "bbbb").all()
