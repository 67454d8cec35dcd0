"""dvc.yaml lists, for each stage, exactly the package code its notebook imports (followed through the
package): editing one study's subpackage re-runs that study's stages and what reads them, nothing else."""

import ast

import yaml

from compendium.pipeline import deps, paths
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
