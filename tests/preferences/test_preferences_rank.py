"""``python -m compendium.preferences.rank FILE``: ranking the models of any pairwise-annotation file,
checked against independent libraries (choix for Bradley-Terry, statsmodels for Wilson intervals)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import choix
import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from compendium.data.synthetic_hitl import make_study_rows
from compendium.pipeline import paths
from compendium.preferences import rank, rowlevel


def _own_study(tmp_path):
    """Three models of someone else's study, named freely, with one row lacking a choice."""
    rows = [
        ("m1", "m2", "A"),
        ("m1", "m2", "A"),
        ("m2", "m1", "B"),
        ("m1", "m2", "tie"),
        ("m2", "m3", "A"),
        ("m3", "m2", "B"),
        ("m2", "m3", "B"),
        ("m1", "m3", "m1"),
        ("m3", "m1", "A"),
        ("m1", "m3", None),
        ("m3", "m1", "about equal"),
    ]
    f = tmp_path / "mine.jsonl"
    pd.DataFrame(rows, columns=["a_model", "b_model", "choice"]).to_json(f, orient="records", lines=True)
    return f


def test_rank_agrees_with_choix_and_statsmodels(tmp_path):
    f = tmp_path / "rows.parquet"
    make_study_rows(seed=3).to_parquet(f, index=False)
    res = rank.rank(f, n_boot=200, seed=1, ci=rank.CI)
    t = res["table"].set_index("model")
    # independent BT: choix on the same half-win matrix (models in any order), strengths scaled to sum to K
    j, _ = rank.judgements(pd.read_parquet(f), f)
    models = sorted(set(j.model_a) | set(j.model_b))
    k = {m: n for n, m in enumerate(models)}
    W = np.zeros((5, 5))
    for a, b, o in j.itertuples(index=False):
        if o == "tie":
            W[k[a], k[b]] += 0.5
            W[k[b], k[a]] += 0.5
        else:
            w, lo = (a, b) if o == "a" else (b, a)
            W[k[w], k[lo]] += 1
    s = np.exp(choix.ilsr_pairwise_dense(W, alpha=0, tol=1e-12))
    s = s / s.sum() * 5
    np.testing.assert_allclose(t.loc[models, "bt_strength"], s, rtol=1e-4)
    for m in models:
        wins = int(((j.model_a == m) & (j.outcome == "a")).sum() + ((j.model_b == m) & (j.outcome == "b")).sum())
        losses = int(((j.model_a == m) & (j.outcome == "b")).sum() + ((j.model_b == m) & (j.outcome == "a")).sum())
        assert (t.loc[m, "wins"], t.loc[m, "losses"]) == (wins, losses)
        lo, hi = proportion_confint(wins, wins + losses, alpha=0.05, method="wilson")
        assert t.loc[m, "wilson_lo"] == pytest.approx(lo, abs=1e-12) and t.loc[m, "wilson_hi"] == pytest.approx(
            hi, abs=1e-12
        )
        assert t.loc[m, "bt_lo"] <= t.loc[m, "bt_strength"] <= t.loc[m, "bt_hi"]
    assert res["table"]["p_best"].sum() == pytest.approx(1.0)
    assert res["info"]["judgements"] == 1507 and res["info"]["rows_without_choice"] == 0


def test_rank_cli_takes_any_model_names_skips_rows_without_a_choice_and_writes_out(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    (tmp_path / "results" / "preferences").mkdir(parents=True)
    (tmp_path / "results" / "preferences" / "values.json").write_text("{}")
    f = _own_study(tmp_path)
    out = tmp_path / "out"
    before = sorted(p.as_posix() for p in paths.RESULTS.rglob("*"))
    assert rank.main([str(f), "--n-boot", "300", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "10 judgements of 3 models in 3 pairs (1 row(s) without a choice skipped)" in text
    t = pd.read_csv(out / "rank.csv").set_index("model")
    # m1: beats m2 twice (+1 as side B), ties once, wins once vs m3 by name, loses once (m3 side A), ties once
    assert (t.loc["m1", "wins"], t.loc["m1", "losses"], t.loc["m1", "ties"]) == (4, 1, 2)
    assert json.loads((out / "rank.json").read_text())["info"]["rows_without_choice"] == 1
    assert sorted(p.as_posix() for p in paths.RESULTS.rglob("*")) == before
    assert (tmp_path / "results" / "preferences" / "values.json").read_text() == "{}"


@pytest.mark.parametrize(
    "rows,msg",
    [
        ([("m1", "m2", "A"), ("m1", "m2", "maybe")], "row 2: field 'choice': 'maybe' is not A, B, tie"),
        ([("m1", "m2", "A"), ("m1", None, "A")], "row 2: field 'b_model': expected a model id"),
        ([("m1", "m1", "A")], "row 1: field 'b_model': the same model 'm1' on both sides"),
    ],
)
def test_malformed_file_gets_one_sentence_naming_file_row_and_field(tmp_path, capsys, rows, msg):
    f = tmp_path / "bad.csv"
    pd.DataFrame(rows, columns=["a_model", "b_model", "choice"]).to_csv(f, index=False)
    assert rank.main([str(f)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {f}: ") and msg in err and err.count("\n") == 1 and "Traceback" not in err


def test_rank_never_writes_under_results(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    f = _own_study(tmp_path)
    assert rank.main([str(f), "--out", str(paths.RESULTS / "mine")]) == 1
    assert "results/ are never written" in capsys.readouterr().err
    assert not (paths.RESULTS / "mine").exists()


def test_rank_counts_and_names_repeated_participant_scenario_rows(tmp_path):
    """A file with the study's row key (participant x scenario) that repeats a key was ranked silently; the
    repeated rows are counted (each is a judgement, as the study's report counts them) and named."""
    rows = make_study_rows(seed=1).head(40)
    rows = pd.concat([rows, rows.iloc[[3]]], ignore_index=True)
    f = tmp_path / "dup.csv"
    rows.to_csv(f, index=False)
    with pytest.warns(UserWarning) as w:
        res = rank.rank(f, n_boot=50, seed=rank.SEED, ci=rank.CI)
    msg = str(w[0].message)
    pid, sid = rows.iloc[3]["participant_id"], rows.iloc[3]["scenario_id"]
    assert msg.startswith(f"{f}: 1 row(s) repeat a participant's judgement of a scenario"), msg
    assert f"participant {pid!r}, scenario {sid!r} at rows 4 and 41" in msg
    assert res["info"]["repeated_rows"] == 1 and res["info"]["judgements"] == 41


# ----------------------------------------------------------------------------------------------
# Issue 37: the layouts rank reads (LMArena / Chatbot Arena, the hub card's, the authors' export),
# its printed table and its --help
# ----------------------------------------------------------------------------------------------

FIXTURES = Path(__file__).parent / "fixtures"
ARENA_MODELS = {"gpt-x": 0.6, "claude-y": 0.3, "llama-z": 0.0, "base": -0.5}  # true log-strengths


def _arena(n: int = 400, seed: int = 37) -> pd.DataFrame:
    """A seeded LMArena / Chatbot Arena export: 4 models (one called ``base``, an internal id of the study, which an
    LMArena file must keep as it is), ``n`` battles, about 12 % ``tie`` and 8 % ``tie (bothbad)``, the others won
    with Bradley-Terry probabilities; with the export's other columns."""
    rng = np.random.default_rng(seed)
    names = list(ARENA_MODELS)
    rows = []
    for q in range(n):
        a, b = rng.choice(names, 2, replace=False)
        p_a = 1 / (1 + np.exp(ARENA_MODELS[b] - ARENA_MODELS[a]))
        u = rng.random()
        w = "tie" if u < 0.12 else "tie (bothbad)" if u < 0.2 else "model_a" if rng.random() < p_a else "model_b"
        rows.append(
            {"question_id": f"q{q:04d}", "model_a": a, "model_b": b, "winner": w, "judge": f"u{q % 37}", "turn": 1}
        )
    return pd.DataFrame(rows)


def _write(df: pd.DataFrame, f: Path) -> Path:
    {
        ".csv": lambda: df.to_csv(f, index=False),
        ".json": lambda: df.to_json(f, orient="records"),
        ".jsonl": lambda: df.to_json(f, orient="records", lines=True),
        ".parquet": lambda: df.to_parquet(f, index=False),
    }[f.suffix]()
    return f


def _half_win_matrix(df: pd.DataFrame, models: list[str], both_bad: str) -> np.ndarray:
    """The half-win matrix of an LMArena file, built here from its ``winner`` column: a win is 1, a ``tie`` half a
    win to each side, a ``tie (bothbad)`` the same (``both_bad="tie"``) or left out (``"drop"``)."""
    k = {m: i for i, m in enumerate(models)}
    W = np.zeros((len(models), len(models)))
    for a, b, w in df[["model_a", "model_b", "winner"]].itertuples(index=False):
        if w == "model_a":
            W[k[a], k[b]] += 1
        elif w == "model_b":
            W[k[b], k[a]] += 1
        elif w == "tie" or (w == "tie (bothbad)" and both_bad == "tie"):
            W[k[a], k[b]] += 0.5
            W[k[b], k[a]] += 0.5
    return W


def test_an_arena_export_ranks_with_intervals_and_its_bradley_terry_agrees_with_choix(tmp_path):
    """Was: ``missing field 'a_model'``. An LMArena export (both kinds of tie) is ranked, with intervals.

    Like with like: choix (``ilsr_pairwise_dense``, ``alpha=0``: no regularisation, the plain maximum-likelihood
    Bradley-Terry) is given the half-win matrix built here from the file's ``winner`` column, with both kinds of
    tie as half a win to each side, which is how rank counts them; choix's log-strengths are exponentiated and
    scaled to sum to the number of models (4), rank's normalisation. Tolerance: relative 1e-5. rank's fit is the
    study's MM procedure, which stops once no strength changes by 1e-6 in an iteration, so it lies within about
    that of the maximum (measured here: 7.3e-7 relative). Counting a ``tie (bothbad)`` any other way (left out)
    moves the strengths by up to 6 %, far outside the tolerance, so the check tells the tie conventions apart."""
    df = _arena()
    f = _write(df, tmp_path / "arena.csv")
    res = rank.rank(f, n_boot=300, seed=1, ci=rank.CI)
    t = res["table"].set_index("model")
    models = sorted(ARENA_MODELS)
    assert sorted(t.index) == models  # 'base' kept as it is, not mapped to the study's 'untrained'
    ours = t.loc[models, "bt_strength"].to_numpy()

    def choix_fit(both_bad):
        s = np.exp(choix.ilsr_pairwise_dense(_half_win_matrix(df, models, both_bad), alpha=0, tol=1e-12))
        return s / s.sum() * len(models)

    np.testing.assert_allclose(ours, choix_fit("tie"), rtol=1e-5)
    assert np.abs(ours / choix_fit("drop") - 1).max() > 1e-2  # another tie convention is told apart
    # the order of the true strengths, with bootstrap intervals around each strength
    assert list(res["table"]["model"]) == ["gpt-x", "claude-y", "llama-z", "base"]
    assert (t["bt_lo"] < t["bt_strength"]).all() and (t["bt_strength"] < t["bt_hi"]).all()
    assert res["table"]["p_best"].sum() == pytest.approx(1.0)
    # counts: both kinds of tie are ties; the win rate leaves them out (Wilson as statsmodels computes it)
    n_ties = int(df["winner"].isin(["tie", "tie (bothbad)"]).sum())
    assert int(t["ties"].sum()) == 2 * n_ties
    assert res["info"]["ties_both_bad"] == int((df["winner"] == "tie (bothbad)").sum()) > 0
    assert res["info"]["layout"] == rank.ARENA and res["info"]["judgements"] == len(df)
    for m in models:
        wins = int(
            ((df.model_a == m) & (df.winner == "model_a")).sum() + ((df.model_b == m) & (df.winner == "model_b")).sum()
        )
        losses = int(
            ((df.model_a == m) & (df.winner == "model_b")).sum() + ((df.model_b == m) & (df.winner == "model_a")).sum()
        )
        assert (t.loc[m, "wins"], t.loc[m, "losses"]) == (wins, losses)
        lo, hi = proportion_confint(wins, wins + losses, alpha=0.05, method="wilson")
        assert (t.loc[m, "wilson_lo"], t.loc[m, "wilson_hi"]) == (
            pytest.approx(lo, abs=1e-12),
            pytest.approx(hi, abs=1e-12),
        )


@pytest.mark.parametrize("ext", [".json", ".jsonl", ".parquet"])
def test_an_arena_export_reads_the_same_in_every_format(tmp_path, ext):
    df = _arena(n=120, seed=5)
    ref = rank.rank(_write(df, tmp_path / "arena.csv"), n_boot=50, seed=0, ci=rank.CI)
    res = rank.rank(_write(df, tmp_path / f"arena{ext}"), n_boot=50, seed=0, ci=rank.CI)
    pd.testing.assert_frame_equal(res["table"], ref["table"])
    assert {k: v for k, v in res["info"].items() if k != "file"} == {
        k: v for k, v in ref["info"].items() if k != "file"
    }


def test_the_arena_cli_says_how_many_ties_were_both_bad_and_writes_out(tmp_path, capsys):
    df = _arena(n=200, seed=2)
    f = _write(df, tmp_path / "arena.jsonl")
    assert rank.main([str(f), "--n-boot", "100", "--out", str(tmp_path / "out")]) == 0
    text = capsys.readouterr().out
    ties, bad = int(df["winner"].str.startswith("tie").sum()), int((df["winner"] == "tie (bothbad)").sum())
    assert f"{f} (LMArena / Chatbot Arena layout): 200 judgements of 4 models in 6 pairs" in text
    assert f"{ties} tie(s), {bad} of them tie (bothbad): both kinds count as a tie" in text
    j = json.loads((tmp_path / "out" / "rank.json").read_text())
    assert j["info"]["layout"] == "arena" and j["info"]["ties_both_bad"] == bad


@pytest.mark.parametrize(
    "rows,msg",
    [
        (
            [("m1", "m2", "model_a"), ("m1", "m2", "model_c")],
            "row 2: field 'winner': 'model_c' is not model_a, model_b, tie or tie (bothbad)",
        ),
        (
            [("m1", "m2", "model_a"), ("m1", "m2", "A")],
            "row 2: field 'winner': 'A' is not model_a, model_b, tie or tie (bothbad)",
        ),
        ([("m1", "m2", "model_a"), ("m1", None, "tie")], "row 2: field 'model_b': expected a model id"),
        ([("m1", " m1 ", "tie")], "row 1: field 'model_b': the same model 'm1' on both sides"),
        (
            [("m1", "m2", "model_a"), ("m\x1b[2K", "m2", "tie")],
            "row 2: field 'model_a': the model id 'm[U+001B][2K' holds",
        ),
    ],
)
def test_a_malformed_arena_export_gets_one_sentence_naming_file_row_and_field(tmp_path, capsys, rows, msg):
    f = tmp_path / "arena.csv"
    pd.DataFrame(rows, columns=["model_a", "model_b", "winner"]).to_csv(f, index=False)
    assert rank.main([str(f)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {f}: ") and msg in err and err.count("\n") == 1, err


ACCEPTED_NAMED = ("model_a, model_b, winner", "a_model, b_model", "the hub card's layout", "the authors' export")


@pytest.mark.parametrize(
    "columns,what",
    [
        (["model_a", "model_b", "a_model", "b_model", "winner"], "which two models a row compares is ambiguous"),
        # the Kaggle "LMSYS arena human preference" layout: one-hot outcome columns, no winner
        (["model_a", "model_b", "winner_model_a", "winner_model_b", "winner_tie"], "missing field 'winner'"),
        (["model_a", "opponent", "winner"], "missing field 'model_b'"),
        (["left", "right", "vote"], "with no model columns (model_a, model_b or a_model, b_model)"),
        (["a_model", "b_model", "score"], "no choice field beside a_model, b_model; rank reads"),
        (["a_model", "model_b", "choice"], "missing field 'b_model'"),
    ],
)
def test_an_unknown_or_ambiguous_layout_gets_one_sentence_naming_its_columns_and_the_layouts_read(
    tmp_path, capsys, columns, what
):
    f = tmp_path / "other.csv"
    pd.DataFrame([["m1", "m2", "x", "y", "z"][: len(columns)]], columns=columns).to_csv(f, index=False)
    assert rank.main([str(f)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {f}: ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert what in err, err
    assert all(repr(c) in err for c in columns), err  # the columns it found
    assert all(s in err for s in ACCEPTED_NAMED), err  # the layouts it reads


def test_the_hub_cards_layout_with_response_a_and_response_b_is_read(tmp_path):
    """Was: the reader took response texts only as a_text / b_text (the authors' export); the hub's dataset card
    names them response_a / response_b. rank reads such a file (it does not need the texts) and the preferences
    reader takes the texts from it: the length ratios are those of the same rows with a_text / b_text."""
    card = make_study_rows(seed=2)  # the hub card's layout (compendium.data.synthetic_hitl.CARD_COLUMNS)
    assert {"response_a", "response_b", "axis", "prompt"} <= set(card.columns) and "a_text" not in card.columns
    rows = card.rename(columns={"response_a": "a_text", "response_b": "b_text"})
    f = _write(card, tmp_path / "annotations.parquet")
    res = rank.rank(f, n_boot=50, seed=0, ci=rank.CI)
    ref = rank.rank(_write(rows, tmp_path / "with_a_text.parquet"), n_boot=50, seed=0, ci=rank.CI)
    pd.testing.assert_frame_equal(res["table"], ref["table"])
    assert res["info"]["layout"] == rank.STUDY and res["info"]["judgements"] == 1507
    norm = rowlevel.normalise_annotations(rowlevel.read_annotations(f, verify=False))
    assert list(norm["a_text"]) == list(card["response_a"]) and list(norm["b_text"]) == list(card["response_b"])
    by_a_text = rowlevel.length_ratios(rowlevel.normalise_annotations(rows))
    assert by_a_text is not None and rowlevel.length_ratios(norm) == by_a_text


def _fixture_cases():
    spec = importlib.util.spec_from_file_location("make_rank_before", FIXTURES / "make_rank_before.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("case", ["hub_csv", "export_json", "winner_parquet", "own_jsonl"])
def test_the_study_layouts_give_exactly_what_they_gave_before(tmp_path, case):
    """The hub's layout, the authors' export, a ``winner`` choice column and someone else's small study give what
    ``rank.rank`` gave before issue 37 (fixtures/rank_before.json, made with the source at 43457b0 by
    fixtures/make_rank_before.py): every count, rate, strength, interval and setting equal (the Davidson fit,
    BFGS, to 1e-9 relative: its last digits may depend on the BLAS kernel), plus the two new ``info`` keys; and
    the clustered bootstrap beside it (issue 37, intervals) changes none of the pairs bootstrap's numbers: its own
    ``info`` keys and table columns are added, nothing else."""
    make = _fixture_cases()
    before = json.loads((FIXTURES / "rank_before.json").read_text())
    f = make.write_cases(tmp_path)[case]
    now = make.result(rank.rank(f, **before["settings"]))
    want = before["cases"][case]
    assert now["info"].pop("layout") == "study" and now["info"].pop("ties_both_bad") is None
    clustered = {k: now["info"].pop(k) for k in ("cluster_by", "cluster_column", "n_clusters", "bootstrap")}
    left_out = now["info"].pop("boot_left_out_clustered")
    if "prompt_id" in rowlevel.read_annotations(f, verify=False).columns:  # the study's column: clustered by it
        assert clustered["cluster_by"] == "prompt" and clustered["cluster_column"] == "prompt_id"
        assert clustered["n_clusters"] >= 2 and left_out >= 0 and "prompts as clusters" in clustered["bootstrap"]
    else:
        pairs_only = rank.bootstrap_sentence(None, None, [])  # "... only: the file has no prompt_id or category ..."
        assert clustered == {"cluster_by": None, "cluster_column": None, "n_clusters": None, "bootstrap": pairs_only}
        assert left_out is None
    assert now["info"].keys() == want["info"].keys()
    assert now["info"] == {**want["info"], "davidson_nu": pytest.approx(want["info"]["davidson_nu"], rel=1e-9)}
    assert len(now["models"]) == len(want["models"])
    for got, was in zip(now["models"], want["models"]):
        assert set(got) - set(was) == (set(rank.CLUSTER_VALUE_COLUMNS) if clustered["cluster_by"] else set())
        got = {k: v for k, v in got.items() if k in was}
        assert got == {**was, "davidson_strength": pytest.approx(was["davidson_strength"], rel=1e-9)}, got["model"]


def test_the_printed_table_puts_the_rank_first_with_the_chapters_column_names(tmp_path, capsys):
    """Was: snake_case columns with the rank last. The printed names are the preferences chapter's
    (compendium.preferences.views.COLUMNS); rank.csv and rank.json keep the code names."""
    f = _own_study(tmp_path)
    assert rank.main([str(f), "--n-boot", "100", "--ci", "0.9", "--out", str(tmp_path / "out")]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[1]
    names = ["rank", "model", "wins", "losses", "ties", "win rate", "Wilson low", "Wilson high", "BT (tie = half win)"]
    names += ["90 % low", "90 % high", "P(best)", "Davidson"]
    at = [header.find(n) for n in names]
    assert header.lstrip().startswith("rank ") and -1 not in at and at == sorted(at), header
    assert not any(c in "\n".join(lines) for c in ("bt_rank", "win_rate", "wilson_lo", "bt_strength", "p_best"))
    assert [ln.split()[0] for ln in lines[2:5]] == ["1", "2", "3"]  # the rank opens each row
    assert "90 % percentile bootstrap interval" in "\n".join(lines)  # the legend names the level
    assert list(pd.read_csv(tmp_path / "out" / "rank.csv").columns) == ["model", *rank.VALUE_COLUMNS]


def test_help_names_the_command_and_the_layouts_in_plain_text(capsys):
    with pytest.raises(SystemExit) as e:
        rank.main(["--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: python -m compendium.preferences.rank "), text[:200]
    for role in (":func:", ":data:", ":mod:", "``", "**"):
        assert role not in text, role
    for s in (
        "model_a, model_b, winner",
        "tie (bothbad)",
        "response_a / response_b",
        "a_text / b_text",
        "a_model, b_model",
    ):
        assert s in text, s
    assert all(c in text for c in rowlevel.CHOICE_COLUMNS)


# --------------------------------------------------------------------------------------------------
# the clustered bootstrap beside the pairs one (issue 37: intervals)
# --------------------------------------------------------------------------------------------------

STRENGTH = {"m1": 1.6, "m2": 1.0, "m3": 0.6}


def _clustered_file(tmp_path, lean_sd, seed=0, n_prompts=60, per_pair=8, column="prompt_id"):
    """Three models, every prompt judged ``per_pair`` times in each of the three pairs, one judgement in eight a
    tie. A prompt shifts each model's log-strength by a normal effect of SD ``lean_sd`` (0: no cluster
    structure)."""
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(n_prompts):
        lean = dict(zip(STRENGTH, rng.normal(0, lean_sd, len(STRENGTH))))  # this prompt's shift of each model
        for a, b in (("m1", "m2"), ("m2", "m3"), ("m1", "m3")):
            prob = 1 / (1 + np.exp(-(np.log(STRENGTH[a] / STRENGTH[b]) + lean[a] - lean[b])))
            for _ in range(per_pair):
                choice = "tie" if rng.random() < 0.125 else "A" if rng.random() < prob else "B"
                rows.append((a, b, choice, f"q{p:03d}"))
    f = tmp_path / f"clustered-{lean_sd}-{column}.csv"
    pd.DataFrame(rows, columns=["a_model", "b_model", "choice", column]).to_csv(f, index=False)
    return f


def _width_ratios(res) -> pd.Series:
    t = res["table"].set_index("model")
    return (t["bt_hi_clustered"] - t["bt_lo_clustered"]) / (t["bt_hi"] - t["bt_lo"])


def test_the_clustered_interval_is_wider_when_prompts_differ_and_the_pairs_interval_is_untouched(tmp_path):
    """Strong prompt effects (SD 1 on each log-strength, 8 judgements per prompt and pair): judgements on one prompt
    agree with each other, so the prompts-as-clusters interval is much wider than the pairs bootstrap's; the
    pairs bootstrap's numbers are those of the same file ranked with --cluster none."""
    f = _clustered_file(tmp_path, lean_sd=1.0)
    res = rank.rank(f, n_boot=1000, seed=3, ci=0.95)
    assert res["info"]["cluster_by"] == "prompt" and res["info"]["n_clusters"] == 60
    ratios = _width_ratios(res)
    assert (ratios > 1.5).all(), ratios
    plain = rank.rank(f, n_boot=1000, seed=3, ci=0.95, cluster="none")
    pd.testing.assert_frame_equal(res["table"].drop(columns=list(rank.CLUSTER_VALUE_COLUMNS)), plain["table"])
    assert plain["info"]["cluster_by"] is None and "--cluster none was given" in plain["info"]["bootstrap"]


def test_without_cluster_structure_the_two_widths_agree_within_monte_carlo_error(tmp_path):
    """No prompt effect: the prompts carry no information beyond the judgements, and the cluster bootstrap's
    variance is (C - 1) / C of the pairs bootstrap's. With 3,000 replicates an interval's width has a Monte-Carlo
    error of about 2 %, so a ratio of two independent widths about 3 %; the cluster bootstrap also estimates the
    covariances between pairs from the prompts (zero here), which moves a width by about 1 / sqrt(C) at most, so
    C = 600 prompts of 2 judgements per pair: they agree within 12 %."""
    f = _clustered_file(tmp_path, lean_sd=0.0, n_prompts=600, per_pair=2, seed=1)
    ratios = _width_ratios(rank.rank(f, n_boot=3000, seed=4, ci=0.95))
    assert ((ratios - 1).abs() < 0.12).all(), ratios


def test_the_cluster_counts_add_up_to_the_pair_counts_and_one_cluster_collapses_the_interval(tmp_path):
    """Each judgement counted once, in its pair's orientation: the clusters' counts sum to the pairs' (the study's
    layout with ties and both sides of each pair). One cluster holding everything: every replicate is the data,
    so the clustered interval is the point estimate (hand-worked)."""
    rows = make_study_rows(seed=4)
    f = _write(rows, tmp_path / "rows.parquet")
    raw = rowlevel.read_annotations(f, verify=False)
    j, _ = rank.judgements(raw, f)
    models, pc = rank.pair_counts(j)
    ids, K = rank.cluster_counts(raw, j, pc, models, f, "prompt")
    assert len(ids) == raw["prompt_id"].nunique()
    np.testing.assert_array_equal(K.sum(0), pc[["i_wins", "j_wins", "ties"]].to_numpy())
    one = _write(rows.assign(prompt_id="same"), tmp_path / "one.parquet")
    t = rank.rank(one, n_boot=30, seed=0, ci=0.95)["table"]
    assert t["bt_lo_clustered"].to_numpy() == pytest.approx(t["bt_strength"].to_numpy(), rel=1e-9)
    assert t["bt_hi_clustered"].to_numpy() == pytest.approx(t["bt_strength"].to_numpy(), rel=1e-9)


def test_cluster_auto_takes_the_prompt_then_the_category_and_says_which(tmp_path, capsys):
    both = _clustered_file(tmp_path, lean_sd=0.5, n_prompts=12)
    df = pd.read_csv(both).assign(category=lambda d: "c" + d["prompt_id"].str[-1].map(lambda x: str(int(x) % 3)))
    df.to_csv(both, index=False)
    assert rank.rank(both, n_boot=50, seed=0, ci=0.95)["info"]["cluster_by"] == "prompt"
    cat = rank.rank(both, n_boot=50, seed=0, ci=0.95, cluster="category")["info"]
    assert (cat["cluster_by"], cat["cluster_column"], cat["n_clusters"]) == ("category", "category", 3)
    only_cat = tmp_path / "only_category.csv"
    df.drop(columns="prompt_id").to_csv(only_cat, index=False)
    assert rank.rank(only_cat, n_boot=50, seed=0, ci=0.95)["info"]["cluster_by"] == "category"
    # the command names the bootstrap(s) it used, and prints the clustered columns beside the pairs ones
    assert rank.main([str(both), "--n-boot", "50"]) == 0
    out = capsys.readouterr().out
    assert "Bootstrap: judgements resampled within each pair (the study's), and beside it prompts as clusters" in out
    assert "95 % low, by prompt" in out and "P(best), by prompt" in out
    assert rank.main([str(_own_study(tmp_path)), "--n-boot", "50"]) == 0
    out = capsys.readouterr().out
    assert "only: the file has no prompt_id or category column to cluster by" in out and "by prompt" not in out


def test_a_cluster_asked_for_but_absent_or_blank_is_refused_in_one_sentence(tmp_path, capsys):
    f = _own_study(tmp_path)
    assert rank.main([str(f), "--cluster", "prompt"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {f}: --cluster prompt needs a column 'prompt_id'") and err.count("\n") == 1, err
    g = _clustered_file(tmp_path, lean_sd=0.0, n_prompts=5)
    df = pd.read_csv(g)
    df.loc[7, "prompt_id"] = None
    df.to_csv(g, index=False)
    assert rank.main([str(g)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {g}: row 8: field 'prompt_id': no prompt id") and "--cluster none" in err, err
    assert rank.main([str(g), "--cluster", "none", "--n-boot", "20"]) == 0  # the way out the sentence names
