"""The page "Evaluate your own model" (notebooks/12_evaluate.md, stage ``evaluate``): its numbers are what
``python -m compendium.pwb.score RESULTS_DIR --name NAME`` and ``python -m compendium.preferences.rank FILE``
print on the same synthetic files, generated afresh here, and the stage is byte-stable and leaves no
temporary path in the executed chapter."""

import json
import os
import re
import subprocess
import sys

import pandas as pd
import pytest
import yaml

from compendium.chapter.safetext import myst
from compendium.data import synthetic_pwb
from compendium.pipeline import paths
from compendium.preferences import rank

NAME = "My model"  # the page's new model (notebooks/12_evaluate.md)
PROMPT_SD = "0.8"  # its prompts' difficulty, as the page says
ENV = {**os.environ, "PYTHONPATH": str(paths.ROOT / "src")}


def _py(*args, cwd, env=None):
    return subprocess.run(
        [sys.executable, *map(str, args)], cwd=cwd, env=env or ENV, capture_output=True, text=True, timeout=300
    )


def _files(d):
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The stage run here into results and executed folders of its own (COMPENDIUM_RESULTS). The byte-stability
    test compares it with the pipeline's own run (``results/evaluate``, ``book/executed``, brought up to date by
    the session's ``dvc repro``): two runs in two folders, without running the stage twice here."""
    d = tmp_path_factory.mktemp("evaluate")
    env = {**ENV, "COMPENDIUM_RESULTS": str(d / "results")}
    p = _py(
        "-m", "compendium.pipeline.stage", "run", "evaluate", "--executed-dir", d / "executed", cwd=paths.ROOT, env=env
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return [d]


@pytest.fixture(scope="module")
def values(runs):
    return json.loads((runs[0] / "results" / "evaluate" / "values.json").read_text())


def test_the_stage_is_byte_stable_and_leaves_no_temporary_path(runs, fresh_stage):
    """The run here and the pipeline's (another process, another folder, another temporary folder) agree byte
    for byte, the executed chapter included."""
    a, b = _files(runs[0] / "results" / "evaluate"), _files(fresh_stage("evaluate"))
    assert set(a) == {"values.json", "tables/score_placement.csv", "tables/rank.csv", "tables/intervals.csv"}
    assert a == b
    nb = [
        (runs[0] / "executed" / "12_evaluate.ipynb").read_bytes(),
        (paths.BOOK / "executed" / "12_evaluate.ipynb").read_bytes(),
    ]
    assert nb[0] == nb[1]
    text = nb[0].decode()
    assert not re.search(r"compendium-evaluate-[A-Za-z0-9_]{4,}", text), "a temporary folder's name reached the chapter"
    cells = json.loads(text)["cells"]
    outputs = [o for c in cells if c["cell_type"] == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o["output_type"] in ("error", "stream")], "an error or a warning in the chapter"


@pytest.fixture(scope="module")
def score_cmd(tmp_path_factory):
    """The score command on the page's new model, generated afresh by the command the page prints:
    (stdout, score.json, score.csv)."""
    d = tmp_path_factory.mktemp("score")
    p = _py("-m", "compendium.data.synthetic_pwb", d / "my-model", "--model", NAME, "--prompt-sd", PROMPT_SD, cwd=d)
    assert p.returncode == 0, p.stderr
    assert len(list((d / "my-model").glob("*.json"))) == 2
    p = _py("-m", "compendium.pwb.score", d / "my-model", "--name", NAME, "--out", d / "out", cwd=d)
    assert p.returncode == 0, p.stderr
    return p.stdout, json.loads((d / "out" / "score.json").read_text()), pd.read_csv(d / "out" / "score.csv")


def test_the_score_numbers_are_what_the_command_prints(values, score_cmd):
    stdout, j, _ = score_cmd
    assert values["eval.score.model"] == j["model"] == NAME
    for k in ("n_judge_values", "n_layer1_runs"):
        assert values[f"eval.score.{k}"] == j[k]
    for k in ("delta_pwi", "d_pooled"):
        assert values[f"eval.score.{k}"] == pytest.approx(j[k], rel=1e-11)
    for lab in ("baseline", "prompted"):
        for k in ("pwi", "ci_lower", "ci_upper"):
            assert values[f"eval.score.{lab}.{k}"] == pytest.approx(j[lab][k], rel=1e-11)
        v = {k: values[f"eval.score.{lab}.{k}"] for k in ("pwi", "ci_lower", "ci_upper")}
        assert f"PWI {lab:9s} {v['pwi']:6.2f}  95 % CI [{v['ci_lower']:.2f}, {v['ci_upper']:.2f}]" in stdout
    assert f"ΔPWI {values['eval.score.delta_pwi']:+.2f}   d_pooled {values['eval.score.d_pooled']:.3f}" in stdout
    assert values["eval.score.released_source"] == j["released_source"]
    assert values["eval.score.coverage.line"] == j["coverage"]["line"] and values["eval.score.coverage.full"] is True
    assert f"Design coverage: {j['coverage']['line']}; it covers the benchmark's design" in stdout
    place = pd.DataFrame(j["placement"])
    for lab in ("baseline", "prompted"):
        p = place[place["condition"] == lab]
        assert values[f"eval.score.{lab}.rank"] == int(p.loc[p["new"], "rank"].iloc[0])
        assert values[f"eval.score.{lab}.n_models"] == len(p) == 8
        for key, start in (("n_higher", "higher"), ("n_lower", "lower"), ("n_not_distinguished", "not dist")):
            assert values[f"eval.score.{lab}.{key}"] == int(p["versus_new_model"].str.startswith(start).sum())


def test_the_page_shows_the_commands_placement_and_statement(runs, score_cmd):
    _, j, cmd = score_cmd
    page = pd.read_csv(runs[0] / "results" / "evaluate" / "tables" / "score_placement.csv")
    cols = ["condition", "rank", "model", "new", "versus_new_model"]
    assert len(page) == 16 and page[cols].equals(cmd[cols])
    for c in ("pwi", "ci_lower", "ci_upper"):
        assert (page[c] - cmd[c]).abs().max() <= 5e-5  # score.csv keeps 4 decimals
    executed = (runs[0] / "executed" / "12_evaluate.ipynb").read_text()
    # the honest statement and the coverage line, word for word (escaped for MyST)
    for s in [*j["statement"], j["coverage"]["line"]]:
        assert json.dumps(str(myst(s)), ensure_ascii=False)[1:-1] in executed, s


def test_the_rank_numbers_are_what_the_command_prints(values, tmp_path):
    p = _py("-m", "compendium.data.synthetic_hitl", tmp_path / "hitl", cwd=tmp_path)  # seed 1, parquet
    assert p.returncode == 0, p.stderr
    f = tmp_path / "hitl" / "data" / "annotations-00000-of-00001.parquet"
    assert values["eval.rank.file"] == f.relative_to(tmp_path / "hitl").as_posix()
    out = tmp_path / "out"
    p = _py("-m", "compendium.preferences.rank", f, "--out", out, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    j = json.loads((out / "rank.json").read_text())
    for k in ("judgements", "rows_without_choice", "models", "pairs", "n_boot", "seed", "boot_left_out"):
        assert values[f"eval.rank.{k}"] == j["info"][k]
    assert values["eval.rank.davidson_nu"] == pytest.approx(j["info"]["davidson_nu"], rel=1e-7)
    assert f"Davidson tie parameter nu = {values['eval.rank.davidson_nu']:.3f}" in p.stdout
    for m in j["models"]:
        for c in rank.VALUE_COLUMNS:
            rel = 1e-7 if c == "davidson_strength" else 1e-11  # the page rounds the BFGS fit to 8 digits
            assert values[f"eval.rank.{m['model']}.{c}"] == pytest.approx(m[c], rel=rel, abs=1e-15), (m["model"], c)
        assert f"{m['bt_strength']:.3f}" in p.stdout


def test_the_synthetic_rows_give_the_published_bradley_terry_strengths(values):
    """The synthetic HITL rows add up to the published pair counts (the page says so): the page's
    Bradley-Terry strengths are then the report's, as the register prints them."""
    reg = {c["id"]: c for c in yaml.safe_load((paths.PUBLISHED / "hitl.yaml").read_text())["claims"]}
    for m in ("untrained", "recipe_a", "recipe_b", "recipe_c", "recipe_d"):
        c = reg[f"hitl.bt.{m}"]
        assert values[f"eval.rank.{m}.bt_strength"] == pytest.approx(c["published"], abs=c["tol"])


def test_top_sentence_names_the_models_whose_interval_overlaps_the_top_ones():
    t = pd.DataFrame(
        {
            "model": ["a", "b_1", "c", "d"],
            "bt_rank": [1, 2, 3, 4],
            "bt_lo": [1.0, 0.9, 0.8, 0.5],
            "bt_hi": [1.4, 1.05, 1.0, 0.99],
            "p_best": [0.8, 0.2, 0.0, 0.0],
        }
    )
    head = "a is strongest in 80 % of the bootstrap replicates; its interval "
    tail = ", so the bootstrap does not settle which of them is strongest."
    assert rank.top_sentence(t) == head + "overlaps those of b\\_1 and c" + tail  # c's upper end touches a's lower
    t.loc[2, "bt_hi"] = 0.99
    assert rank.top_sentence(t) == head + "overlaps that of b\\_1" + tail
    t.loc[1, "bt_hi"] = 0.99
    assert rank.top_sentence(t) == head + "lies above every other model's."


def test_the_page_shows_the_commands_intervals(runs, score_cmd):
    """The interval table of the page is the one the command prints (same strings), and the prose's reading of
    it holds for these numbers: with prompts that differ, each PWI's design-respecting interval is wider than
    the paper's, ΔPWI's narrower than the paper's assumption extended gives."""
    from compendium.pwb import design_bootstrap as db

    stdout, j, _ = score_cmd
    page = pd.read_csv(runs[0] / "results" / "evaluate" / "tables" / "intervals.csv", keep_default_na=False)
    cmd = db.interval_table(j)
    assert page.astype(str).equals(cmd.astype(str))
    for r in cmd.itertuples():
        assert f"  {r.quantity:13s} {r.paper:40s} {r.design}" in stdout
        assert f"{r.quantity} {r.judges_resampled}" in " ".join(stdout.split())
    assert " ".join(db.ROUNDING_NOTE.split()) in " ".join(stdout.split())
    des = j["design"]

    def width(v):
        return v["ci_upper"] - v["ci_lower"]

    for lab in ("baseline", "prompted"):
        assert width(des["design"][lab]) > 1.2 * width(j[lab])
    assert width(des["design"]["delta_pwi"]) < width(des["runs_independent"]["delta_pwi"])


def test_synthetic_pwb_prompt_sd_zero_writes_the_same_bytes(tmp_path):
    """``--prompt-sd`` draws from a stream of its own: at 0 (the default) the files are those written without it;
    above 0 the runs of a prompt are alike (their mean score varies between prompts more than runs do)."""
    import numpy as np

    a, b, c = (synthetic_pwb.write_model(tmp_path / k, "m", seed=4, size="small", prompt_sd=sd)
               for k, sd in (("a", 0.0), ("b", 0.0), ("c", 1.5)))  # fmt: skip
    assert [f.read_bytes() for f in a] == [f.read_bytes() for f in b]
    p = synthetic_pwb.write_model(tmp_path / "d", "m", seed=4, size="full")
    q = synthetic_pwb.write_model(tmp_path / "e", "m", seed=4, size="full", prompt_sd=1.5)

    def between_share(files):
        data = json.loads(files[0].read_text())
        within, between = [], []
        for recs in data["layer1"].values():
            means = []
            for r in recs:
                s = [x["score"] for x in r["runs"] if x["score"] >= 0]
                means.append(np.mean(s))
                within.append(np.var(s, ddof=1))
            between.append(np.var(means, ddof=1))
        return np.mean(between) / np.mean(within)

    assert between_share(q) > 2 * between_share(p)
    with pytest.raises(ValueError, match="--prompt-sd"):
        synthetic_pwb.write_model(tmp_path / "f", "m", prompt_sd=-1)
    assert c[0].read_bytes() != a[0].read_bytes()
