"""`python -m compendium.pwb.score`: a new model's PWI with the paper's bootstrap, beside the released models."""

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from compendium.data import synthetic_pwb
from compendium.pipeline import paths
from compendium.pwb import instances as I, score

NAME = "My Model 1"


@pytest.fixture(scope="module")
def new_model(tmp_path_factory):
    d = tmp_path_factory.mktemp("new") / "results"
    synthetic_pwb.write_model(d, NAME, seed=7, size="small")
    return d


@pytest.fixture(scope="module")
def full_model(tmp_path_factory):
    """A new model on the benchmark's full design (20 prompts x 5 runs x 3 judges per dimension): ranked."""
    d = tmp_path_factory.mktemp("full") / "results"
    synthetic_pwb.write_model(d, NAME, seed=7, size="full")
    return d


def _run(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(paths.ROOT / "src"))
    return subprocess.run(
        [sys.executable, "-m", "compendium.pwb.score", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )


def test_the_printed_command_scores_a_new_model_and_places_it(full_model, tmp_path):
    new_model = full_model
    out = tmp_path / "out"
    p = _run(new_model, "--name", NAME, "--out", out, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "PWI baseline" in p.stdout and "PWI prompted" in p.stdout and "d_pooled" in p.stdout
    line = "your run: 20/20 prompts per dimension, 5/5 runs per prompt, 3/3 judges per run"
    assert f"Design coverage: {line}; it covers the benchmark's design" in p.stdout  # tests/pwb/test_score_design.py
    assert "Released models: the released per-model bootstrap PWIs" in p.stdout  # no per-instance data here
    j = json.loads((out / "score.json").read_text())
    place = pd.read_csv(out / "score.csv")
    assert len(place) == 16 and set(place["condition"]) == {"baseline", "prompted"}
    assert place.groupby("condition")["rank"].apply(sorted).map(list).tolist() == [list(range(1, 9))] * 2
    # the same numbers as the package's bootstrap on the same files (10,000 draws, seed 42, v2.1 weights)
    runs = I.layer1_runs(I.panel_scores(I.load_hf_results(new_model, models=None)))
    ref = I.pwi_bootstrap(runs, score._weights(), n_boot=10_000, seed=42).set_index("condition")
    assert j["baseline"]["pwi"] == pytest.approx(ref.loc["baseline", "pwi"], abs=1e-12)
    assert j["prompted"]["ci_upper"] == pytest.approx(ref.loc["with_system_prompt", "ci_upper"], abs=1e-12)
    assert j["delta_pwi"] == pytest.approx(j["prompted"]["pwi"] - j["baseline"]["pwi"])
    b = runs.loc[runs["condition"] == "baseline", "panel"].to_numpy()
    q = runs.loc[runs["condition"] == "with_system_prompt", "panel"].to_numpy()
    sp = np.sqrt(((b.size - 1) * b.var(ddof=1) + (q.size - 1) * q.var(ddof=1)) / (b.size + q.size - 2))
    assert j["d_pooled"] == pytest.approx((q.mean() - b.mean()) / sp, rel=1e-12)  # Cohen's d by hand
    # the verdicts follow the intervals
    me = place[place["new"]].set_index("condition")
    for _, r in place[~place["new"]].iterrows():
        m = me.loc[r["condition"]]
        if r["ci_lower"] > m["ci_upper"]:
            assert r["versus_new_model"].startswith("higher")
        elif r["ci_upper"] < m["ci_lower"]:
            assert r["versus_new_model"].startswith("lower")
        else:
            assert r["versus_new_model"].startswith("not distinguished")
    assert any("do not overlap" in s for s in j["statement"])


def test_it_never_writes_under_results(new_model, tmp_path):
    p = _run(new_model, "--out", paths.ROOT / "results" / "mine", cwd=tmp_path)
    assert p.returncode == 1 and "refusing to write under results/" in p.stderr
    assert not (paths.ROOT / "results" / "mine").exists()


def test_a_malformed_file_gets_one_sentence(new_model, tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    for f in new_model.glob("*.json"):
        d = json.loads(f.read_text())
        d["layer1"]["cognitive_forcing"][0]["runs"][0]["score"] = "high"
        (bad / f.name).write_text(json.dumps(d))
    p = _run(bad, cwd=tmp_path)
    assert p.returncode == 1 and p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "field layer1.cognitive_forcing[0].runs[0].score" in lines[0], p.stderr
    assert "Traceback" not in p.stderr


def test_a_folder_with_one_condition_only_is_refused(new_model, tmp_path):
    one = tmp_path / "one"
    one.mkdir()
    f = sorted(new_model.glob("*baseline*.json"))[0]
    (one / f.name).write_bytes(f.read_bytes())
    p = _run(one, cwd=tmp_path)
    assert p.returncode == 1 and "with_system_prompt" in p.stderr
