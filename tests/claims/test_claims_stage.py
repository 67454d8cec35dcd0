"""The claims stage end to end, on a copy of the study stages' outputs: it reads the previous run's
claims.csv before writing, and when a value moves off the paper (as `dvc exp run -S ...` would) it still
runs, prints the claim whose status changed to the terminal, and records it in results/.history/claims_changes.csv."""

import json
import os
import shutil
import subprocess
import sys

import pandas as pd

from compendium import claims
from compendium.pipeline import paths


def _run_stage(env, executed):
    return subprocess.run(
        [sys.executable, "-m", "compendium.pipeline.stage", "run", "claims", "--executed-dir", str(executed)],
        cwd=paths.ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_stage_reports_status_changes_and_still_runs_off_the_paper(tmp_path, evaluation):
    results = tmp_path / "results"
    for stage in sorted(set(claims.STUDY_STAGE.values())):
        if (paths.RESULTS / stage / "values.json").exists():
            (results / stage).mkdir(parents=True)
            for f in ("values.json", "missing.json"):
                if (paths.RESULTS / stage / f).exists():
                    shutil.copyfile(paths.RESULTS / stage / f, results / stage / f)
    t = evaluation.table
    movable = t[
        (t["status"] == "reproduced")
        & (t["kind"] == "")
        & (t["relation"] == "")
        & t["_published"].map(lambda v: isinstance(v, (int, float)))
    ]
    assert len(movable), "no reproduced numeric claim to move"
    target = movable.iloc[0]
    env = {**os.environ, "COMPENDIUM_RESULTS": str(results), "PYTHONPATH": str(paths.ROOT / "src")}
    env.pop("COMPENDIUM_QUIET", None)

    first = _run_stage(env, tmp_path / "executed")
    assert first.returncode == 0, first.stderr[-3000:]
    assert "first run" in first.stderr
    before = pd.read_csv(results / "claims" / "claims.csv", dtype=str, keep_default_na=False).set_index("claim_id")
    assert before.loc[target["claim_id"], "status"] == "reproduced"

    stage = claims.STUDY_STAGE[target["study"]]
    values = json.loads((results / stage / "values.json").read_text())
    values[target["claim_id"]] = float(target["_published"]) * 2 + 1  # a parameter moved off the paper
    (results / stage / "values.json").write_text(json.dumps(values))

    second = _run_stage(env, tmp_path / "executed")
    assert second.returncode == 0, second.stderr[-3000:]  # the stage runs; only the claims test fails
    assert f"status changed: {target['claim_id']}: reproduced -> unexplained" in second.stderr
    changes = pd.read_csv(results / ".history" / "claims_changes.csv", dtype=str, keep_default_na=False)
    assert changes.to_dict("records") == [
        {"claim_id": target["claim_id"], "study": target["study"], "before": "reproduced", "after": "unexplained"}
    ]
    after = pd.read_csv(results / "claims" / "claims.csv", dtype=str, keep_default_na=False).set_index("claim_id")
    assert after.loc[target["claim_id"], "status"] == "unexplained"
    nb = json.loads((tmp_path / "executed" / "05_claims.ipynb").read_text())
    html = "".join("".join(o.get("data", {}).get("text/html", "")) for c in nb["cells"] for o in c.get("outputs", []))
    assert target["claim_id"] in html and "✗ unexplained" in html
