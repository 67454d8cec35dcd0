"""``python -m compendium.pwb.score``: the input format documented where users look (``--help`` and the page
"Evaluate your own model"), why a folder of tidy tables is refused, and the records the ecosystem reads
(``--format eval-results``, ``--format every-eval-ever``), parsed back. Driven through ``main([...])`` as a user
runs it (issue 37)."""

from __future__ import annotations

import json
import math
import re
from datetime import datetime

import huggingface_hub
import pandas as pd
import pytest
import yaml
from pwb_score_files import rewrite

from compendium.data import synthetic_pwb
from compendium.data.catalog import DATASETS
from compendium.pipeline import paths
from compendium.pwb import instances as inst, records, score

NAME = "My model"
PAGE = paths.ROOT / "notebooks" / "12_evaluate.md"
RECORD_FLAGS = ["--evaluator", "Example Lab", "--evaluator-relationship", "third_party"]
BOTH = ["--format", "eval-results", "--format", "every-eval-ever", *RECORD_FLAGS]


def _score(capsys, folder, out, *args):
    """``main`` on ``folder``: (exit status, stdout, stderr, score.json or None)."""
    rc = score.main([str(folder), "--out", str(out), *args])
    cap = capsys.readouterr()
    j = json.loads((out / "score.json").read_text()) if (out / "score.json").exists() else None
    return rc, cap.out, cap.err, j


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    """The page's new model: the benchmark's full design (seed 0, 20 prompts x 5 runs x 3 judges)."""
    d = tmp_path_factory.mktemp("full") / "results"
    synthetic_pwb.write_model(d, NAME)
    return d


@pytest.fixture(scope="module")
def scored(full, tmp_path_factory):
    """``main`` on the full model with the paper's 10,000 draws and both records: (output folder, score.json)."""
    out = tmp_path_factory.mktemp("scored") / "out"
    assert score.main([str(full), "--out", str(out), *BOTH]) == 0
    return out, json.loads((out / "score.json").read_text())


def _files(folder):
    return {json.loads(f.read_text())["variant"]: json.loads(f.read_text()) for f in sorted(folder.glob("*.json"))}


# --------------------------------------------------------------------------------------------------
# the input format, documented: --help and the page show one example, and the reader accepts it
# --------------------------------------------------------------------------------------------------


def _page_example() -> str:
    """The ```json block of the page's "File format" box, as written."""
    text = PAGE.read_text(encoding="utf-8")
    box = re.search(r"^:::\{admonition\} File format of `RESULTS_DIR`\n(.*?)^:::$", text, re.M | re.S)
    assert box, "the page has no 'File format' box"
    (block,) = re.findall(r"^```json\n(.*?)^```$", box.group(1), re.M | re.S)
    return block.rstrip("\n")


def _help(capsys) -> str:
    with pytest.raises(SystemExit):
        score.main(["--help"])
    return capsys.readouterr().out


def test_the_page_and_the_help_show_the_same_minimal_file(capsys):
    out = _help(capsys)
    assert _page_example() == score.EXAMPLE_JSON
    assert out.rstrip("\n").endswith("A minimal results file:\n" + score.EXAMPLE_JSON)  # verbatim, not re-wrapped
    for field in ("model_name", "variant", "layer1", "layer2", "layer3", "prompt_id", "runs", "individual_scores"):
        assert f'"{field}"' in score.EXAMPLE_JSON


def test_the_minimal_file_written_as_two_conditions_is_scored(capsys, tmp_path):
    example = json.loads(_page_example())
    folder = tmp_path / "results"
    folder.mkdir()
    for variant in ("baseline", "with_system_prompt"):
        (folder / f"my-model_{variant}.json").write_text(json.dumps({**example, "variant": variant}))
    rc, out, err, j = _score(capsys, folder, tmp_path / "out", "--n-boot", "200")
    assert rc == 0, err
    assert j["model"] == NAME
    # per condition two scored runs: the failed run (score -1) is left out, as the box says
    assert j["n_layer1_runs"] == 4 and j["baseline"]["pwi"] == j["prompted"]["pwi"]
    cov = j["coverage"]
    assert cov["full"] is False and cov["ranked"] is False and j["statement"] == [score.NOT_RANKED]
    assert cov["baseline"]["runs_per_prompt_max"] == 3 and cov["baseline"]["layers"] == ["layer1", "layer2", "layer3"]


def test_the_help_and_the_page_say_which_layers_are_needed_and_link_the_runner(capsys):
    out = " ".join(_help(capsys).split())
    page = " ".join(PAGE.read_text(encoding="utf-8").split())
    assert "layer1 gives the PWI, ΔPWI and d_pooled" in out
    assert "`layer1` gives the PWI, ΔPWI and *d*<sub>pooled</sub>" in page
    for text in (out, page):
        assert "https://github.com/angelo-leone/pro-worker-benchmark" in text and "src/runner.py" in text
        assert "Layer-1 checkpoint" in text and "-1 marks a failed run" in text.replace("−1", "-1")
        assert "A tidy table" in text and "bootstrap mean that differs in the second decimal" in text
    assert "[angelo-leone/pro-worker-benchmark](https://github.com/angelo-leone/pro-worker-benchmark)" in page


# --------------------------------------------------------------------------------------------------
# tidy tables: the same data give another bootstrap mean, so the command refuses them and says why
# --------------------------------------------------------------------------------------------------


def _tidy(full, folder, columns):
    """The full model's Layer-1 judge rows, as the instance loader reads the JSON, written as one CSV."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = pd.concat([inst.instances_from_results_json(d) for d in _files(full).values()], ignore_index=True)
    rows[rows["layer"] == 1][list(columns)].to_csv(folder / "my-model.csv", index=False)
    return folder


def test_a_folder_of_tidy_tables_is_refused_in_one_sentence_saying_why(full, tmp_path, capsys):
    folder = _tidy(full, tmp_path / "tidy", inst.SCHEMA)
    rc, out, err, j = _score(capsys, folder, tmp_path / "out")
    assert rc == 1 and out == "" and j is None and err.count("\n") == 1
    assert err == "error: " + score.TIDY_REFUSED.format(folder=folder, tables="['my-model.csv']") + "\n"
    for why in ("bootstrap mean that differs in the second decimal", "stored for each run", "failed runs"):
        assert why in err
    assert "https://github.com/angelo-leone/pro-worker-benchmark, src/runner.py" in err


def test_a_tidy_table_gives_another_bootstrap_mean_for_the_same_run_scores(full, scored, tmp_path):
    """The tester's 41.41 against 41.40, reproduced on the page's model: the tidy table holds the same runs and the
    same panel scores, so the point PWI is the same, but the paper's bootstrap draws its random stream dimension by
    dimension in the results file's order (the prompt files sorted by name), and a table without the file's
    positions is drawn in the authors' dimension list instead; the bootstrap mean then moves at the Monte-Carlo
    error, in the second decimal. With the loader's file-order columns and stored scores the two agree exactly."""
    _, j = scored  # the command's numbers on the JSON
    w = score._weights()

    def pwi(folder):
        runs = inst.layer1_runs(inst.panel_scores(inst.load_hf_results(folder, models=None)))
        return runs, inst.pwi_bootstrap(runs, w, n_boot=score.N_BOOT, seed=score.SEED).set_index("condition")

    json_runs, json_pwi = pwi(full)
    tidy_runs, tidy_pwi = pwi(_tidy(full, tmp_path / "tidy", inst.SCHEMA))
    keys = ["condition", "dimension", "prompt_id", "run"]
    both = json_runs.merge(tidy_runs, on=keys, suffixes=("_json", "_tidy"))
    assert len(both) == len(json_runs) == len(tidy_runs) == j["n_layer1_runs"]
    assert (both["panel_json"] == both["panel_tidy"]).all()  # the same panel scores ...
    order = {
        k: list(dict.fromkeys(r.loc[r["condition"] == "baseline", "dimension"]))
        for k, r in (("json", json_runs), ("tidy", tidy_runs))
    }
    assert order["json"] == sorted(order["json"]) and order["tidy"] != order["json"]  # ... drawn in another order
    for c, lab in score.COND_LABEL.items():
        assert json_pwi.loc[c, "pwi"] == pytest.approx(j[lab]["pwi"], abs=1e-9)  # the command's number
        assert tidy_pwi.loc[c, "pwi_point"] == pytest.approx(json_pwi.loc[c, "pwi_point"], abs=1e-9)
        diff = abs(tidy_pwi.loc[c, "pwi"] - json_pwi.loc[c, "pwi"])
        assert 0 < diff < 4 * json_pwi.loc[c, "mc_se"] < 0.1  # the Monte-Carlo error: the second decimal
    rounded = {lab: (round(j[lab]["pwi"], 2), round(tidy_pwi.loc[c, "pwi"], 2)) for c, lab in score.COND_LABEL.items()}
    assert any(a != b for a, b in rounded.values()), rounded  # as the tester saw: 41.41 where the JSON gives 41.40
    # the loader's extra columns (file positions, the stored panel score) give the JSON's numbers exactly
    _, kept = pwi(_tidy(full, tmp_path / "tidy-kept", (*inst.SCHEMA, *inst.EXTRA_COLUMNS)))
    for c, lab in score.COND_LABEL.items():
        for k in ("pwi", "ci_lower", "ci_upper"):
            assert kept.loc[c, k] == pytest.approx(j[lab][k], abs=1e-9)


# --------------------------------------------------------------------------------------------------
# the hub's eval results: .eval_results/<task>.yaml
# --------------------------------------------------------------------------------------------------


def test_the_hub_records_parse_as_the_hub_library_reads_them(full, scored):
    """Parsed with yaml.safe_load and with huggingface_hub's own reader of the format
    (``parse_eval_result_entries``; the fields of the hub's documentation "Evaluation Results" and of
    ``eval_results.yaml`` in huggingface/hub-docs: ``dataset.id``, ``dataset.task_id`` and ``value`` required)."""
    out, j = scored
    stamps = {score.COND_LABEL[v]: d["timestamp"] for v, d in _files(full).items()}
    want = {
        "pwi_baseline": (j["baseline"]["pwi"], stamps["baseline"]),
        "pwi_prompted": (j["prompted"]["pwi"], stamps["prompted"]),
        "delta_pwi": (j["delta_pwi"], max(stamps.values())),
    }
    files = sorted((out / ".eval_results").glob("*.yaml"))
    assert [f.stem for f in files] == sorted(want)
    for f in files:
        data = yaml.safe_load(f.read_text(encoding="utf-8"))
        assert isinstance(data, list) and len(data) == 1
        e = data[0]
        assert set(e) == {"dataset", "value", "date", "notes"}  # no source, revision or verifyToken: none is known
        assert e["dataset"] == {"id": "angelo-leone/pro-worker-ai-benchmark", "task_id": f.stem}
        assert e["dataset"]["id"] == DATASETS["pwb"]["hf_id"]  # the id acquisition uses
        value, date = want[f.stem]
        assert isinstance(e["value"], float) and e["value"] == round(value, 2)
        assert isinstance(e["date"], str) and e["date"] == date and datetime.fromisoformat(e["date"])
        assert j["coverage"]["line"].removeprefix("your run: ") in e["notes"]
        if f.stem != "delta_pwi":
            lab = f.stem.removeprefix("pwi_")
            assert f"95 % CI [{j[lab]['ci_lower']:.2f}, {j[lab]['ci_upper']:.2f}]" in e["notes"]
        (entry,) = huggingface_hub.parse_eval_result_entries(data)
        assert (entry.dataset_id, entry.task_id, entry.value) == (DATASETS["pwb"]["hf_id"], f.stem, e["value"])
        assert entry.verify_token is None and entry.source_url is None
        assert huggingface_hub.eval_result_entries_to_yaml([entry]) == data  # the library writes the same entry


def test_a_run_without_a_timestamp_gets_no_date(full, tmp_path, capsys):
    folder = rewrite(full, tmp_path / "results", lambda d: d.pop("timestamp"), variant="baseline")
    rc, _, err, _ = _score(capsys, folder, tmp_path / "out", "--n-boot", "200", "--format", "eval-results")
    assert rc == 0, err
    loaded = {f.stem: yaml.safe_load(f.read_text())[0] for f in (tmp_path / "out" / ".eval_results").glob("*.yaml")}
    assert "date" not in loaded["pwi_baseline"] and "date" not in loaded["delta_pwi"]
    assert loaded["pwi_prompted"]["date"] == _files(full)["with_system_prompt"]["timestamp"]


# --------------------------------------------------------------------------------------------------
# Every Eval Ever
# --------------------------------------------------------------------------------------------------

# Every Eval Ever's schema 0.3.0 (every_eval_ever/schemas/eval.schema.json in github.com/evaleval/every_eval_ever,
# commit 9bce413, 2026-08-13; the file is not copied here), transcribed: each object's required fields with
# their JSON types, the top level's allowed fields (additionalProperties: false), and the enums the record fills.
NUMBER = (int, float)
REQUIRED = {
    "": {
        "schema_version": str,
        "evaluation_id": str,
        "retrieved_timestamp": str,
        "source_metadata": dict,
        "model_info": dict,
        "eval_library": dict,
        "evaluation_results": list,
    },
    "source_metadata": {"source_type": str, "source_organization_name": str, "evaluator_relationship": str},
    "eval_library": {"name": str, "version": str},
    "model_info": {"name": str, "id": str, "additional_details": dict},  # $defs/model_info
    "model_info.additional_details": {"deployment_type": str, "model_availability": str},
    "evaluation_results[]": {"evaluation_name": str, "source_data": dict, "metric_config": dict, "score_details": dict},
    "source_data": {"dataset_name": str, "source_type": str},  # $defs/source_data_hf
    "metric_config": {"lower_is_better": bool},
    "metric_config (score_type continuous)": {"min_score": NUMBER, "max_score": NUMBER},
    "score_details": {"score": NUMBER},
    "score_details.uncertainty.confidence_interval": {"lower": NUMBER, "upper": NUMBER},
}
TOP_LEVEL = {
    "schema_version",
    "evaluation_id",
    "dedupe_identity",
    "evaluation_timestamp",
    "retrieved_timestamp",
    "source_metadata",
    "eval_library",
    "model_info",
    "evaluation_results",
    "detailed_evaluation_results",
}
ENUMS = {
    "source_metadata.source_type": {"documentation", "evaluation_run"},
    "source_metadata.evaluator_relationship": {"first_party", "third_party", "collaborative", "other"},
    "model_info.additional_details.deployment_type": {"self_deployed", "externally_managed", "unknown"},
    "model_info.additional_details.model_availability": {"open_weights", "closed_weights", "unknown"},
    "source_data.source_type": {"url", "hf_dataset", "other"},
    "metric_config.score_type": {"binary", "continuous", "levels"},
}


def _typed(obj, fields, where):
    assert isinstance(obj, dict), where
    for k, t in fields.items():
        assert k in obj, f"{where}: required field {k!r} missing"
        assert isinstance(obj[k], t) and not (t is not bool and isinstance(obj[k], bool)), f"{where}.{k}: {obj[k]!r}"


def _strings(m, where):
    """An ``additional_details`` / ``details`` map: every value a string (the schema's additionalProperties)."""
    assert isinstance(m, dict) and all(isinstance(v, str) for v in m.values()), where


def check_every_eval_ever(r):
    """The record against the transcribed schema (and the datastore's check that a score lies in its bounds)."""
    _typed(r, REQUIRED[""], "record")
    assert set(r) <= TOP_LEVEL, set(r) - TOP_LEVEL
    assert float(r["retrieved_timestamp"]) > 0  # "Unix Epoch time format"
    sm, lib, mi = r["source_metadata"], r["eval_library"], r["model_info"]
    _typed(sm, REQUIRED["source_metadata"], "source_metadata")
    _typed(lib, REQUIRED["eval_library"], "eval_library")
    _typed(mi, REQUIRED["model_info"], "model_info")
    _typed(mi["additional_details"], REQUIRED["model_info.additional_details"], "model_info.additional_details")
    for m in (lib.get("additional_details", {}), mi["additional_details"], sm.get("additional_details", {})):
        _strings(m, "additional_details")
    assert sm["source_type"] in ENUMS["source_metadata.source_type"]
    assert sm["evaluator_relationship"] in ENUMS["source_metadata.evaluator_relationship"]
    for k in ("deployment_type", "model_availability"):
        assert mi["additional_details"][k] in ENUMS[f"model_info.additional_details.{k}"]
    assert r["evaluation_results"], "no results"
    for res in r["evaluation_results"]:
        _typed(res, REQUIRED["evaluation_results[]"], "evaluation_results[]")
        _typed(res["source_data"], REQUIRED["source_data"], "source_data")
        assert res["source_data"]["source_type"] in ENUMS["source_data.source_type"]
        mc, sd = res["metric_config"], res["score_details"]
        _typed(mc, REQUIRED["metric_config"], "metric_config")
        assert mc["score_type"] in ENUMS["metric_config.score_type"]
        if mc["score_type"] == "continuous":
            _typed(mc, REQUIRED["metric_config (score_type continuous)"], "metric_config")
        _typed(sd, REQUIRED["score_details"], "score_details")
        _strings(sd.get("details", {}), "score_details.details")
        assert math.isfinite(sd["score"]) and mc["min_score"] <= sd["score"] <= mc["max_score"]
        if "uncertainty" in sd:
            ci = sd["uncertainty"]["confidence_interval"]
            _typed(ci, REQUIRED["score_details.uncertainty.confidence_interval"], "confidence_interval")
            assert ci["lower"] <= sd["score"] <= ci["upper"] and 0 <= ci["confidence_level"] <= 1
            assert isinstance(sd["uncertainty"]["num_bootstrap_samples"], int)


def test_the_every_eval_ever_record_has_the_schemas_required_fields_and_types(full, scored):
    out, j = scored
    r = json.loads((out / "every_eval_ever.json").read_text(encoding="utf-8"))
    check_every_eval_ever(r)
    assert r["schema_version"] == records.EEE_SCHEMA_VERSION == "0.3.0"
    model_id = _files(full)["baseline"]["model_id"]  # no --model-repo: the runner's model reference
    assert r["model_info"] == {
        "name": NAME,
        "id": model_id,
        "additional_details": {"deployment_type": "unknown", "model_availability": "unknown"},
    }
    assert r["evaluation_id"] == f"pro-worker-ai-benchmark/{model_id}/{r['retrieved_timestamp']}"
    assert r["source_metadata"]["source_organization_name"] == "Example Lab"  # the flags' values
    assert r["source_metadata"]["evaluator_relationship"] == "third_party"
    assert r["source_metadata"]["source_type"] == "evaluation_run"  # the per-run results were scored
    assert r["evaluation_timestamp"] == _files(full)["with_system_prompt"]["timestamp"]
    res = {x["evaluation_name"]: x for x in r["evaluation_results"]}
    assert list(res) == [f"pro-worker-ai-benchmark.{t}" for t in ("pwi_baseline", "pwi_prompted", "delta_pwi")]
    for task, lab in (("pwi_baseline", "baseline"), ("pwi_prompted", "prompted")):
        x = res[f"pro-worker-ai-benchmark.{task}"]
        assert x["source_data"] == {
            "dataset_name": "pro-worker-ai-benchmark",
            "source_type": "hf_dataset",
            "hf_repo": DATASETS["pwb"]["hf_id"],
        }
        assert (x["metric_config"]["min_score"], x["metric_config"]["max_score"]) == (0, 100)
        assert x["metric_config"]["lower_is_better"] is False
        assert x["score_details"]["score"] == j[lab]["pwi"]
        ci = x["score_details"]["uncertainty"]
        assert (ci["confidence_interval"]["lower"], ci["confidence_interval"]["upper"]) == (
            j[lab]["ci_lower"],
            j[lab]["ci_upper"],
        )
        assert ci["confidence_interval"]["confidence_level"] == score.CI and ci["num_bootstrap_samples"] == score.N_BOOT
        assert x["score_details"]["details"]["like_for_like"] == "true"
    delta = res["pro-worker-ai-benchmark.delta_pwi"]
    assert delta["score_details"]["score"] == j["delta_pwi"] and "uncertainty" not in delta["score_details"]
    assert (delta["metric_config"]["min_score"], delta["metric_config"]["max_score"]) == (-100, 100)


def test_the_transcribed_checks_can_fail(scored):
    r = json.loads((scored[0] / "every_eval_ever.json").read_text())
    for break_it in (
        lambda r: r["model_info"].pop("additional_details"),
        lambda r: r["source_metadata"].update(evaluator_relationship="self"),
        lambda r: r["evaluation_results"][0]["score_details"].update(score=101.0),
        lambda r: r["evaluation_results"][0]["metric_config"].update(lower_is_better="no"),
        lambda r: r.update(retrieved_timestamp=1.0),
        lambda r: r.update(extra="field"),
    ):
        broken = json.loads(json.dumps(r))
        break_it(broken)
        with pytest.raises(AssertionError):
            check_every_eval_ever(broken)


def test_the_model_repo_flag_gives_the_model_id(full, tmp_path, capsys):
    folder = rewrite(full, tmp_path / "results", lambda d: d.pop("model_id"))
    rc, out, err, j = _score(capsys, folder, tmp_path / "out", "--format", "every-eval-ever", *RECORD_FLAGS)
    assert rc == 1 and out == "" and j is None and err.count("\n") == 1  # nothing to call the model: refused
    assert "name no single model_id" in err and "--model-repo owner/name" in err
    rc, _, err, _ = _score(
        capsys, folder, tmp_path / "out", "--n-boot", "200", "--model-repo", "my-org/my-model", "--format",
        "every-eval-ever", *RECORD_FLAGS,
    )  # fmt: skip
    assert rc == 0, err
    r = json.loads((tmp_path / "out" / "every_eval_ever.json").read_text())
    check_every_eval_ever(r)
    assert r["model_info"]["id"] == "my-org/my-model" and "/my-org/my-model/" in r["evaluation_id"]


@pytest.mark.parametrize(
    "args, says",
    [
        (["--format", "every-eval-ever", "--evaluator-relationship", "first_party"], "give --evaluator ORG"),
        (["--format", "every-eval-ever", "--evaluator", " "], "give --evaluator ORG"),
        (["--format", "every-eval-ever", "--evaluator", "Lab"], "give --evaluator-relationship"),
        (["--format", "every-eval-ever", *RECORD_FLAGS, "--model-repo", "no-slash"], "expected a hub repository id"),
    ],
)
def test_what_only_the_user_knows_is_asked_for_before_anything_runs(full, tmp_path, capsys, monkeypatch, args, says):
    monkeypatch.setattr(score, "evaluate", lambda *a, **k: pytest.fail("the bootstrap ran before the check"))
    rc, out, err, j = _score(capsys, full, tmp_path / "out", *args)
    assert rc == 1 and out == "" and j is None and err.count("\n") == 1 and says in err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


# --------------------------------------------------------------------------------------------------
# a run that does not cover the design: no hub record; an Every Eval Ever record only with --allow-partial, marked
# --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cut(full, tmp_path_factory):
    """The full run cut to 8 of its 20 prompts and 3 of its 5 runs per dimension."""

    def change(d):
        for dim, prompts in d["layer1"].items():
            d["layer1"][dim] = [{**p, "runs": p["runs"][:3]} for p in prompts[:8]]

    return rewrite(full, tmp_path_factory.mktemp("cut") / "results", change)


@pytest.mark.parametrize("partial", [[], ["--allow-partial"]])
def test_a_partial_run_gets_no_hub_record(cut, tmp_path, capsys, monkeypatch, partial):
    monkeypatch.setattr(score, "evaluate", lambda *a, **k: pytest.fail("the bootstrap ran before the check"))
    rc, out, err, j = _score(capsys, cut, tmp_path / "out", "--format", "eval-results", *partial)
    assert rc == 1 and out == "" and j is None and err.count("\n") == 1
    assert err.startswith("error: --format eval-results: the run does not cover the benchmark's design (your run: 8/20")
    assert "leaderboard" in err and "with or without --allow-partial" in err
    assert not (tmp_path / "out" / ".eval_results").exists()


def test_a_partial_run_gets_an_every_eval_ever_record_only_with_allow_partial_marked(cut, tmp_path, capsys):
    rc, out, err, j = _score(capsys, cut, tmp_path / "out", "--format", "every-eval-ever", *RECORD_FLAGS)
    assert rc == 1 and j is None and "with --allow-partial the Every Eval Ever record is written marked" in err
    rc, out, err, j = _score(
        capsys,
        cut,
        tmp_path / "out",
        "--n-boot",
        "200",
        "--allow-partial",
        "--format",
        "every-eval-ever",
        *RECORD_FLAGS,
    )
    assert rc == 0, err
    r = json.loads((tmp_path / "out" / "every_eval_ever.json").read_text())
    check_every_eval_ever(r)
    line = j["coverage"]["line"].removeprefix("your run: ")
    assert line.startswith("8/20 prompts per dimension, 3/5 runs per prompt")
    for x in r["evaluation_results"]:
        assert (
            x["evaluation_name"].endswith(records.PARTIAL_SUFFIX) and x["evaluation_result_id"] == x["evaluation_name"]
        )
        assert x["score_details"]["details"] == {"like_for_like": "false", "design_coverage": line}
    assert "written: " in out and "every_eval_ever.json" in out
