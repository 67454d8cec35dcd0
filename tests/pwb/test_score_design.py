"""``python -m compendium.pwb.score`` checks the run against the benchmark's design (issue 37): the design read
from the bundled files, the coverage printed and in ``score.json``, a run that does not cover the design not
ranked unless ``--allow-partial`` (and then marked as not like for like), and bad input refused in one
sentence naming the file and the field. Driven through ``main([...])`` as a user runs it."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from pwb_score_files import file_of, rewrite

from compendium.data import load_pwb_config, synthetic_pwb
from compendium.pipeline import paths, yamlfile
from compendium.pwb import score

NAME = "My Model"
N_BOOT = ["--n-boot", "200"]  # the coverage and the ranking rule do not depend on the draws
BENCHMARK = (
    "it {} the benchmark's design (20 prompts in each of 10 dimensions, 5 runs per prompt, 3 judges per run, "
    "3 layers, 2 conditions: the bundled prompt files and config.yaml)."
)
FULL_LINE = "your run: 20/20 prompts per dimension, 5/5 runs per prompt, 3/3 judges per run"
CUT_LINE = "your run: 8/20 prompts per dimension, 3/5 runs per prompt, 3/3 judges per run"
HANDMADE_LINE = CUT_LINE + ", 80 prompt ids not in the benchmark"


def _cut(d, invent=False):
    """8 of the 20 prompts per dimension, 3 of their 5 runs; ``invent``: with prompt ids of one's own."""
    for dim, prompts in d["layer1"].items():
        d["layer1"][dim] = [
            {**p, "runs": p["runs"][:3], **({"prompt_id": f"mine_{dim}_{i}"} if invent else {})}
            for i, p in enumerate(prompts[:8])
        ]


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    """A new model run on the benchmark's full design (the generator's full size: 20 prompts x 5 runs x 3 judges)."""
    d = tmp_path_factory.mktemp("full") / "results"
    synthetic_pwb.write_model(d, NAME, seed=11, size="full")
    return d


@pytest.fixture(scope="module")
def cut(full, tmp_path_factory):
    """The full run cut to 8 of 20 prompts and 3 of 5 runs per dimension, the benchmark's prompt ids kept."""
    return rewrite(full, tmp_path_factory.mktemp("cut") / "results", _cut)


@pytest.fixture(scope="module")
def handmade(full, tmp_path_factory):
    """A hand-made run: 8 prompts x 3 runs per dimension, with prompt ids of its own."""
    return rewrite(full, tmp_path_factory.mktemp("handmade") / "results", lambda d: _cut(d, invent=True))


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A small run (4 prompts x 2 runs): the bad-input cases are refused before any coverage or bootstrap."""
    d = tmp_path_factory.mktemp("small") / "results"
    synthetic_pwb.write_model(d, NAME, seed=5, size="small")
    return d


def _score(capsys, folder, out, *args):
    """``main`` on ``folder``: (exit status, stdout, stderr, score.json or None)."""
    rc = score.main([str(folder), "--out", str(out), *N_BOOT, *args])
    cap = capsys.readouterr()
    j = json.loads((out / "score.json").read_text()) if (out / "score.json").exists() else None
    return rc, cap.out, cap.err, j


# --------------------------------------------------------------------------------------------------
# the design, from the bundled files
# --------------------------------------------------------------------------------------------------


def test_the_design_is_read_from_the_bundled_prompt_files_and_config():
    d = score.benchmark_design()
    folder = paths.PWB / "prompts" / "layer1_behavioral"
    docs = [yamlfile.load(f) for f in sorted(folder.glob("*.yaml"))]
    assert dict(d.prompts) == {doc["dimension"]: tuple(str(p["id"]) for p in doc["prompts"]) for doc in docs}
    cfg = load_pwb_config()
    assert d.runs_per_prompt == cfg["settings"]["runs_per_prompt"] == 5
    assert d.judges_per_run == len(cfg["judges"]) == 3
    assert len(d.prompts) == 10 and {len(v) for v in d.prompts.values()} == {20}
    assert d.layers == ("layer1", "layer2", "layer3") and d.conditions == ("baseline", "with_system_prompt")


def test_the_verdict_follows_the_design_files_not_a_typed_number(full, tmp_path, capsys, monkeypatch):
    """With config.yaml's runs_per_prompt at 4, the same full run no longer covers the design."""
    real = score.benchmark_design()
    cfg = {**load_pwb_config(), "settings": {"runs_per_prompt": 4}}
    docs = {f"{dim}.yaml": {"dimension": dim, "prompts": [{"id": i} for i in ids]} for dim, ids in real.prompts.items()}
    monkeypatch.setattr(score, "benchmark_design", lambda: score.design_from(cfg, docs))
    rc, out, _, j = _score(capsys, full, tmp_path / "out")
    assert rc == 0
    assert "your run: 20/20 prompts per dimension, 5/4 runs per prompt, 3/3 judges per run; it does not cover" in out
    assert j["coverage"]["full"] is False and j["coverage"]["ranked"] is False


def test_a_design_file_without_the_runs_per_prompt_is_refused():
    with pytest.raises(ValueError, match=r"data/pwb/config.yaml: settings.runs_per_prompt must be a whole number"):
        score.design_from({"settings": {}, "judges": [{}]}, {"x.yaml": {"dimension": "x", "prompts": [{"id": "a"}]}})


# --------------------------------------------------------------------------------------------------
# (a) the full design: ranked
# --------------------------------------------------------------------------------------------------


def test_a_run_of_the_full_design_is_ranked(full, tmp_path, capsys):
    rc, out, err, j = _score(capsys, full, tmp_path / "out")
    assert rc == 0, err
    assert f"Design coverage: {FULL_LINE}; {BENCHMARK.format('covers')}" in out
    cov = j["coverage"]
    assert cov["line"] == FULL_LINE
    assert (cov["full"], cov["ranked"], cov["like_for_like"], cov["allow_partial"]) == (True, True, True, False)
    for lab in ("baseline", "prompted"):
        c = cov[lab]
        assert (c["prompts_min"], c["prompts_max"], c["runs_per_prompt_min"], c["runs_per_prompt_max"]) == (
            20,
            20,
            5,
            5,
        )
        assert (
            c["judges_per_run"] == 3 and c["prompt_ids_not_in_benchmark"] == 0 and c["benchmark_prompts_missing"] == 0
        )
        assert c["layers"] == ["layer1", "layer2", "layer3"] and c["full"] is True
    assert cov["benchmark"]["runs_per_prompt"] == 5 and cov["benchmark"]["judges_per_run"] == 3
    place = pd.DataFrame(j["placement"])
    assert len(place) == 16 and sorted(place.loc[place["condition"] == "baseline", "rank"]) == list(range(1, 9))
    assert "Released models:" in out and "not like for like" not in out.lower()
    assert not any("like for like" in s for s in j["statement"])
    assert len(pd.read_csv(tmp_path / "out" / "score.csv")) == 16


# --------------------------------------------------------------------------------------------------
# (b) a hand-made run with prompt ids of its own; (c) a cut of the full design
# --------------------------------------------------------------------------------------------------


def _not_ranked(rc, out, err, j, line, out_dir):
    assert rc == 0, err
    assert f"Design coverage: {line}; {BENCHMARK.format('does not cover')}" in out
    assert "PWI baseline" in out and "PWI prompted" in out and "95 % CI" in out  # still printed
    assert score.NOT_RANKED in out and "--allow-partial" in score.NOT_RANKED
    assert "Released models:" not in out and "rank" not in out.replace(score.NOT_RANKED, "")
    cov = j["coverage"]
    assert cov["line"] == line and (cov["full"], cov["ranked"], cov["like_for_like"]) == (False, False, False)
    assert j["placement"] == [] and j["statement"] == [score.NOT_RANKED] and j["released_source"] is None
    assert j["baseline"]["ci_lower"] < j["baseline"]["pwi"] < j["baseline"]["ci_upper"]
    assert pd.read_csv(out_dir / "score.csv").empty  # the header only: no placement


def test_a_hand_made_run_with_its_own_prompt_ids_is_not_ranked(handmade, tmp_path, capsys):
    rc, out, err, j = _score(capsys, handmade, tmp_path / "out")
    _not_ranked(rc, out, err, j, HANDMADE_LINE, tmp_path / "out")
    c = j["coverage"]["baseline"]
    assert c["prompt_ids_not_in_benchmark"] == 80 and c["benchmark_prompts_missing"] == 200
    assert c["runs_per_prompt_max"] == 3 and c["prompts_per_dimension"]["cognitive_forcing"] == 8


def test_with_allow_partial_the_hand_made_run_is_ranked_and_every_rank_marked(handmade, tmp_path, capsys):
    rc, out, err, j = _score(capsys, handmade, tmp_path / "out", "--allow-partial")
    assert rc == 0, err
    assert f"Design coverage: {HANDMADE_LINE}; {BENCHMARK.format('does not cover')}" in out
    assert score.PARTIAL_HEAD in out and score.NOT_RANKED not in out
    table = out[out.index("Released models:") :].splitlines()[2:18]  # the 16 rows of the placement table
    assert len(table) == 16 and all(r.rstrip().endswith("not like for like)") for r in table), table
    cov = j["coverage"]
    assert (cov["full"], cov["ranked"], cov["like_for_like"], cov["allow_partial"]) == (False, True, False, True)
    place = pd.DataFrame(j["placement"])
    assert len(place) == 16 and place["versus_new_model"].str.endswith("not like for like)").all()
    assert place.loc[place["new"], "versus_new_model"].eq("(the new model; not like for like)").all()
    assert len(j["statement"]) == 3 and all(s.startswith(f"{score.PARTIAL}: ") for s in j["statement"])
    for s in j["statement"]:
        assert s in out
    assert "rank" in j["statement"][0] and "rank" in j["statement"][1]
    csv = pd.read_csv(tmp_path / "out" / "score.csv")
    assert len(csv) == 16 and csv["versus_new_model"].str.contains("not like for like").all()


def test_a_run_cut_from_the_full_design_is_not_ranked(cut, tmp_path, capsys):
    rc, out, err, j = _score(capsys, cut, tmp_path / "out")
    _not_ranked(rc, out, err, j, CUT_LINE, tmp_path / "out")
    c = j["coverage"]["prompted"]
    assert c["prompt_ids_not_in_benchmark"] == 0 and c["benchmark_prompts_missing"] == 120


def test_coverage_is_given_per_condition_where_the_conditions_differ(full, tmp_path, capsys):
    def drop(d):
        del d["layer1"]["appropriate_reliance"]

    folder = rewrite(full, tmp_path / "results", drop, variant="baseline")
    rc, out, _, j = _score(capsys, folder, tmp_path / "out")
    line = (
        "your run: baseline 0-20/20 prompts per dimension (0 in appropriate_reliance), 5/5 runs per prompt, "
        "3/3 judges per run; prompted 20/20 prompts per dimension, 5/5 runs per prompt, 3/3 judges per run"
    )
    assert rc == 0 and f"Design coverage: {line}; {BENCHMARK.format('does not cover')}" in out
    assert j["coverage"]["baseline"]["full"] is False and j["coverage"]["prompted"]["full"] is True
    assert j["coverage"]["ranked"] is False


@pytest.mark.parametrize(
    ("change", "clause"),
    [
        (
            lambda d: [
                r.update(individual_scores=r["individual_scores"][:1])
                for ps in d["layer1"].values()
                for p in ps
                for r in p["runs"]
            ],
            "5/5 runs per prompt, 1/3 judges per run",
        ),
        (lambda d: d.update(layer2=[]), "3/3 judges per run, no layer2 records"),
    ],
    ids=["one judge", "empty layer2"],
)
def test_fewer_judges_or_an_empty_layer_do_not_cover_the_design(full, tmp_path, capsys, change, clause):
    rc, out, _, j = _score(capsys, rewrite(full, tmp_path / "results", change), tmp_path / "out")
    assert rc == 0 and f"{clause}; {BENCHMARK.format('does not cover')}" in out
    assert j["coverage"]["ranked"] is False and j["placement"] == []


def test_a_failed_run_still_counts_as_a_run_of_the_design(full, tmp_path, capsys):
    """A run the model failed (stored score -1, no judge value) is a run of the design, as in the released
    runs: the panel drops it, the coverage counts it."""

    def fail(d):
        d["layer1"]["cognitive_forcing"][0]["runs"][0].update(score=-1, individual_scores=[], error="x")

    rc, out, _, j = _score(capsys, rewrite(full, tmp_path / "results", fail), tmp_path / "out")
    assert rc == 0 and f"Design coverage: {FULL_LINE}; {BENCHMARK.format('covers')}" in out
    assert j["coverage"]["ranked"] is True


def test_evaluate_and_flat_values_carry_the_coverage(cut):
    res = score.evaluate(cut, n_boot=100)
    flat = score.flat_values(res)
    assert flat["eval.score.coverage.full"] is False and flat["eval.score.coverage.line"] == CUT_LINE
    assert "eval.score.baseline.rank" not in flat and flat["eval.score.baseline.pwi"] == res["baseline"]["pwi"]
    ranked = score.flat_values(score.evaluate(cut, n_boot=100, allow_partial=True))
    assert ranked["eval.score.baseline.n_models"] == 8


# --------------------------------------------------------------------------------------------------
# (d) bad input: one sentence naming the file and the field
# --------------------------------------------------------------------------------------------------


def _cf(d, k=0):
    return d["layer1"]["cognitive_forcing"][0]["runs"][k]


def _append_first_prompt(d):
    d["layer1"]["cognitive_forcing"].append(d["layer1"]["cognitive_forcing"][0])


BAD = {
    "layer missing": (
        lambda d: d.pop("layer3"),
        "field layer3: missing, and no other file for My Model / baseline has all of layer1, layer2 and layer3",
    ),
    "stored score above 3": (
        lambda d: _cf(d).update(score=5),
        "field layer1.cognitive_forcing[0].runs[0].score: value 5 outside [-1, 3] (refused by the anomaly policy).",
    ),
    "stored score below -1": (
        lambda d: _cf(d).update(score=-2),
        "field layer1.cognitive_forcing[0].runs[0].score: value -2 outside [-1, 3] (refused by the anomaly policy).",
    ),
    "Layer-3 stored score above 3": (
        lambda d: d["layer3"][0].update(score=4),
        "field layer3[0].score: value 4 outside [-1, 3]",
    ),
    "run index twice": (
        lambda d: _cf(d, 1).update(run=0),
        "field layer1.cognitive_forcing[0].runs[1].run: run index 0 of prompt id 'cf_01' appears twice (also "
        "runs[0]), so the run would count twice.",
    ),
    "prompt id twice": (
        _append_first_prompt,
        "field layer1.cognitive_forcing[4].prompt_id: prompt id 'cf_01' appears twice in the dimension (also at "
        "[0]), so its runs would count twice.",
    ),
    "run index not a whole number": (
        lambda d: _cf(d).update(run="first"),
        "field layer1.cognitive_forcing[0].runs[0].run: expected a whole-number run index, found 'first'.",
    ),
    "NaN stored score": (
        lambda d: _cf(d).update(score=float("nan")),
        "field layer1.cognitive_forcing[0].runs[0].score: non-finite value nan (refused by the anomaly policy).",
    ),
    "NaN judge value": (
        lambda d: _cf(d).update(individual_scores=[float("nan"), 1, 1]),
        "field layer1.cognitive_forcing[0].runs[0].individual_scores[0]: non-finite value nan",
    ),
    "no Layer-1 data": (
        lambda d: d.update(layer1={}),
        "field layer1: no scored run in a dimension the PWI weighs (the layer is empty, or every run failed with "
        "stored score -1), so there is nothing to score.",
    ),
    "every run failed": (
        lambda d: [
            r.update(score=-1, individual_scores=[]) for ps in d["layer1"].values() for p in ps for r in p["runs"]
        ],
        "field layer1: no scored run in a dimension the PWI weighs",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_gets_one_sentence_naming_the_file_and_field(small, tmp_path, capsys, case):
    change, expected = BAD[case]
    folder = rewrite(small, tmp_path / "results", change, variant="baseline")
    rc, out, err, j = _score(capsys, folder, tmp_path / "out")
    assert rc == 1 and out == "" and j is None and not (tmp_path / "out" / "score.csv").exists()
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err, err
    assert f"error: {file_of(folder, 'baseline')}: {expected}" in err, err


def test_a_judge_value_outside_0_3_is_kept_as_in_the_released_runs(tmp_path, capsys):
    """The released runs hold judge values of 4 and 2.5, which the authors' analysis keeps (the run's stored
    score counts); a new model's run is read the same way, so that the comparison stays like for like. The page
    "Evaluate your own model" suggests scoring "GLM 5.1" of a synthetic release, which plants such a 4 there."""
    synthetic_pwb.write_snapshot(tmp_path, seed=0, size="full")
    glm = json.loads(file_of(tmp_path / "results", "baseline", "GLM 5.1").read_text())
    assert glm["layer1"]["cognitive_forcing"][1]["runs"][0]["individual_scores"] == [2, 4, 3]
    rc, out, err, j = _score(capsys, tmp_path / "results", tmp_path / "out", "--name", "GLM 5.1")
    assert rc == 0 and err == "" and f"Design coverage: {FULL_LINE}; {BENCHMARK.format('covers')}" in out
    assert j["coverage"]["ranked"] is True and len(j["placement"]) == 14  # beside the six other models


def test_several_models_without_name_get_one_sentence(small, tmp_path, capsys):
    folder = tmp_path / "results"
    synthetic_pwb.write_model(folder, NAME, seed=5, size="small")
    synthetic_pwb.write_model(folder, "Other Model", seed=6, size="small")
    rc, out, err, _ = _score(capsys, folder, tmp_path / "out")
    assert rc == 1 and out == "" and err.count("\n") == 1
    assert err == f"error: {folder}: results of 2 models (['My Model', 'Other Model']); choose one with --name\n"
    rc, out, err, j = _score(capsys, folder, tmp_path / "out", "--name", "Other Model")
    assert rc == 0 and j["model"] == "Other Model"


def test_the_help_describes_the_coverage_and_allow_partial(capsys):
    with pytest.raises(SystemExit):
        score.main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert (
        "--allow-partial rank a run that does not cover the benchmark's design among the released models anyway" in out
    )
    assert "its coverage is printed and written to score.json" in out
