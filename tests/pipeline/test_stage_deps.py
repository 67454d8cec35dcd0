"""dvc.yaml lists, for each stage, exactly the package code its notebook imports (followed through the
package): editing one study's subpackage re-runs that study's stages and what reads them, nothing else."""

import ast

import yaml
from committed import committed_params_text

from compendium.pipeline import deps, paths, studies
from compendium.pipeline.stage import STAGES


def _dvc_code_deps(stage: str) -> list[str]:
    spec = yaml.safe_load((paths.ROOT / "dvc.yaml").read_text())["stages"][stage]
    return sorted(d for d in spec["deps"] if d.startswith("src/compendium"))


def test_every_stage_lists_the_modules_its_notebook_imports():
    wanted = deps.stage_dep_paths()
    wrong = {
        st: {"dvc.yaml": _dvc_code_deps(st), "imports": wanted[st]} for st in STAGES if _dvc_code_deps(st) != wanted[st]
    }
    assert wrong == {}, "update dvc.yaml (python -m compendium.pipeline.deps prints the lists)"


def test_one_study_does_not_depend_on_another():
    wanted = deps.stage_dep_paths()
    assert "src/compendium/pwb" not in wanted["workbank"] and "src/compendium/preferences" not in wanted["workbank"]
    assert "src/compendium/workbank" not in wanted["pwb"] and "src/compendium/preferences" not in wanted["pwb"]
    assert "src/compendium/workbank" not in wanted["preferences"] and "src/compendium/pwb" not in wanted["preferences"]


def test_relative_and_absolute_imports_are_resolved():
    tree = ast.parse(
        "from .pipeline import paths\nfrom .stats import pairwise\nimport compendium.pipeline.results\n"
        "from compendium.workbank import landscape\nimport numpy\n"
    )
    found = deps._imports(tree, "compendium.claims", is_package=False)
    assert {
        "compendium.pipeline.paths",
        "compendium.stats",
        "compendium.stats.pairwise",
        "compendium.pipeline.results",
        "compendium.workbank",
        "compendium.workbank.landscape",
    } <= found
    assert not any(m.startswith("numpy") for m in found)


def test_closure_follows_package_imports():
    mods = deps.closure({"compendium.pipeline.stage"})
    assert {
        "compendium.pipeline.stage",
        "compendium.pipeline.paths",
        "compendium.pipeline.params",
        "compendium.pipeline.notebooks",
        "compendium.pipeline.metrics",
    } <= mods


def test_rewrite_replaces_only_the_package_deps():
    text = (
        "stages:\n  a:\n    cmd: x\n    deps:\n      - notebooks/a.md\n      - src/compendium/old.py\n"
        "      - data.txt\n    outs:\n      - results/a\n"
    )
    new = deps.rewrite_dvc_yaml(text, {"a": ["src/compendium/x.py", "src/compendium/y"]})
    assert new == (
        "stages:\n  a:\n    cmd: x\n    deps:\n      - notebooks/a.md\n      - src/compendium/x.py\n"
        "      - src/compendium/y\n      - data.txt\n    outs:\n      - results/a\n"
    )


# ------------------------------------------------------------------ which stages a parameter re-runs (issue 31)

#: the files a stage reads from another stage's outputs that only some keys can change (every other output of a
#: re-run stage may change): the preferences chapter's exports and its Davidson table change with the data and,
#: for the bootstrap shares, with the bootstrap's seed and size, not with an interval level or the simulations
FILE_KEYS = {
    "results/preferences/exports/humane.json": {"preferences.annotations_path"},
    "results/preferences/tables/davidson.csv": {"preferences.annotations_path"},
    "results/preferences/exports/robustness.json": {
        "preferences.annotations_path",
        "preferences.seed",
        "preferences.n_bootstrap",
    },
}
#: what every change of a study's key re-runs besides the study's own stages: the parameter check, the claims
#: check (its statuses, and the abstract reads robustness) and the book; not the reproducibility page, which reads
#: no stage's results (the pins, the data's checksums and the package versions)
AFTER = {"params", "claims", "book"}
WB_MODELS = set(studies.stage("workbank_models").keys)


def expected_stages(key: str) -> set[str]:
    """The stages whose outputs ``key`` can change, from what each stage computes (the oracle of the test below)."""
    section, name = key.split(".")
    if section == "humane":
        return {"params", "humane", "book"}  # no claim reads the scale study
    if section == "audit":
        return {"params", "audit", "book"}  # nor the audit of the judges and leaderboards
    if section == "workbank":
        return AFTER | {"workbank"} | ({"workbank_models"} if name in WB_MODELS else set())
    if section == "preferences":
        out = AFTER | {"preferences"}
        if name in ("seed", "n_bootstrap", "annotations_path"):
            out |= {"robustness"}  # P(C beats D) is a share of the bootstrap's replicates
        if name == "annotations_path":
            out |= {"humane"}  # the data: the Davidson strengths and nu
        return out
    return AFTER | {section}  # pwb, robustness


def _off_value(section: str, name: str):
    """A valid value other than the reference (the schema's type and bounds)."""
    from compendium.pipeline import params

    ref = params.REFERENCE[section][name][0]
    if isinstance(ref, bool):
        return not ref
    if isinstance(ref, int):
        return ref + 1
    if isinstance(ref, float):
        return ref * 0.9 if 0 < ref <= 1 else ref + 0.05
    choices = {
        "has_tie_rule": "highest",
        "mixed_method": "lbfgs",
        "weight_scheme": "legacy_weights_v2_0",
        "fourth_judge_rule": "all",
        "annotations_path": "data/hitl/other.parquet",
        "scheduler_address": "tcp://127.0.0.1:8786",
    }
    return choices.get(name, "2.5,3.5" if "," in str(ref) else ref + "x")


def stages_dvc_reruns(key: str, value, dvc_yaml: dict) -> set[str]:
    """The stages ``dvc repro`` re-runs after ``key`` changes from its committed value to ``value``, by dvc.yaml's
    own graph: ``params`` (its params), the stages whose parameter record changes
    (:func:`compendium.pipeline.params.records`; the other records and ``valid.json`` keep their bytes, so DVC sees
    them unchanged), then every stage depending on a path inside the outputs of a re-run stage, unless
    :data:`FILE_KEYS` says the key cannot change that file. From the committed ``params.yaml``, not the
    workspace's: after a teaching exercise that set ``key`` to ``value`` already, nothing would change (issue 38)."""
    import copy

    from compendium.pipeline import params

    section, name = key.split(".")
    before = params.validate(yaml.safe_load(committed_params_text()))
    after = copy.deepcopy(before)
    after[section][name] = value
    old, new = params.records(before), params.records(after)
    changed = {f"results/params/{f}" for f in new if new[f] != old.get(f)}
    stages = dvc_yaml["stages"]
    outs = {
        st: [str(next(iter(o)) if isinstance(o, dict) else o) for o in spec.get("outs", [])]
        for st, spec in stages.items()
    }
    rerun = {"params"}
    grew = True
    while grew:
        grew = False
        for st, spec in stages.items():
            if st in rerun:
                continue
            for d in map(str, spec.get("deps", [])):
                if (
                    d in changed
                    or any(d == o or d.startswith(o + "/") for up in rerun - {"params"} for o in outs[up])
                    and key in FILE_KEYS.get(d, {key})
                ):
                    rerun.add(st)
                    grew = True
                    break
    return rerun


def test_every_parameter_re_runs_exactly_the_stages_whose_outputs_it_can_change():
    """For every key of params.yaml (one off-reference value each), the stages dvc.yaml makes DVC re-run are the
    stages whose outputs the key can change: no stage re-runs for a key it does not read (``dvc exp run -S
    preferences.ci_level=0.8`` re-runs neither HUMANE nor robustness), and none is left stale."""
    from compendium.pipeline import params

    dvc_yaml = yaml.safe_load((paths.ROOT / "dvc.yaml").read_text())
    wrong = {}
    for section, keys in params.REFERENCE.items():
        for name in keys:
            key = f"{section}.{name}"
            got, want = stages_dvc_reruns(key, _off_value(section, name), dvc_yaml), expected_stages(key)
            if got != want:
                wrong[key] = {"re-run": sorted(got - want), "stale": sorted(want - got)}
    assert wrong == {}
    assert stages_dvc_reruns("preferences.ci_level", 0.8, dvc_yaml) == {
        "params",
        "preferences",
        "claims",
        "book",
    }


def test_a_stage_depending_on_more_than_it_reads_is_caught():
    """The check can fail: with HUMANE depending on the preferences chapter's whole values.json (as before the study
    contract), an interval level would re-run it."""
    dvc_yaml = yaml.safe_load((paths.ROOT / "dvc.yaml").read_text())
    dvc_yaml["stages"]["humane"]["deps"].append("results/preferences/values.json")
    assert "humane" in stages_dvc_reruns("preferences.ci_level", 0.8, dvc_yaml)
    assert "humane" not in expected_stages("preferences.ci_level")


def test_no_stage_depends_on_another_studys_whole_values_json():
    dvc_yaml = yaml.safe_load((paths.ROOT / "dvc.yaml").read_text())
    own = {st.name: s.stage for s in studies.STUDIES for st in s.stages}
    bad = [
        (name, d)
        for name, spec in dvc_yaml["stages"].items()
        if name in own
        for d in map(str, spec.get("deps", []))
        if d.endswith("/values.json") and d.split("/")[1] != name and d.split("/")[1] != f"{own[name]}_mc"
    ]
    assert bad == []


def test_the_data_deps_of_every_study_stage_are_generated():
    wanted = deps.stage_data_deps()
    spec = yaml.safe_load((paths.ROOT / "dvc.yaml").read_text())["stages"]
    for stage, lines in wanted.items():
        got = [str(d) for d in spec[stage]["deps"] if str(d).startswith(deps.DATA_PREFIXES)]
        assert got == lines, f"{stage}: run python -m compendium.pipeline.deps --write"
