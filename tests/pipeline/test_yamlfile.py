"""compendium.pipeline.yamlfile parses every YAML file of the project to the same object as yaml.safe_load."""

from pathlib import Path

import pytest
import yaml

from compendium.pipeline import paths, yamlfile

# the raw data's YAML files are there once `dvc pull data.dvc` ran; the project's own always are
FILES = sorted(
    f
    for f in [*paths.ROOT.joinpath("published").rglob("*.yaml"), *paths.ROOT.joinpath("data").rglob("*.yaml")]
    + [paths.ROOT / "params.yaml", paths.ROOT / "dvc.yaml", paths.ROOT / "CITATION.cff"]
    if f.exists()
)


def test_there_are_files_to_check():
    assert len(FILES) >= 10


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(Path(p).relative_to(paths.ROOT)))
def test_same_object_as_safe_load(path):
    assert yamlfile.load(path) == yaml.safe_load(path.read_text(encoding="utf-8"))


def test_unsafe_tags_rejected_like_safe_load():
    with pytest.raises(yaml.YAMLError):
        yamlfile.loads("!!python/object/apply:os.system ['true']")


def test_bad_yaml_raises_yaml_error():
    with pytest.raises(yaml.YAMLError):
        yamlfile.loads("a: [1, 2\nb: 3")
