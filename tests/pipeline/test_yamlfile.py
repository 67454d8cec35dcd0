"""compendium.pipeline.yamlfile parses every YAML file of the project to the same object as yaml.safe_load."""

import time
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


# ----------------------------------------------------------------------------------------------
# aliases: bounded (issue 32: ten lines standing for 10^9 values hung `dvc repro` with no output)
# ----------------------------------------------------------------------------------------------

BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{k}: &{k} [{', '.join([f'*{p}'] * 10)}]\n" for p, k in zip("abcdefgh", "bcdefghi")
)


def test_an_alias_bomb_is_refused_quickly_naming_the_file_and_the_line(tmp_path):
    f = tmp_path / "bomb.yaml"
    f.write_text("# a pulled branch's file\n" + BOMB)
    t0 = time.monotonic()
    with pytest.raises(yamlfile.AliasBombError) as e:
        yamlfile.load(f)
    assert time.monotonic() - t0 < 2
    assert str(e.value).startswith(f"{f}: YAML aliases (the anchor at line 9, repeated by *aliases) make the ")
    assert isinstance(e.value, yaml.YAMLError) and "alias bomb" in str(e.value)
    # small aliases, as the project's own files use them, still load
    doc = yamlfile.loads("x: &x {kind: caveat, note: n}\ny: *x\nz: {<<: *x, kind: differs}\n")
    assert doc["y"] == doc["x"] == {"kind": "caveat", "note": "n"} and doc["z"] == {"kind": "differs", "note": "n"}
    assert yamlfile.load(paths.PUBLISHED / "notes" / "pwb.yaml")


def test_an_alias_that_contains_itself_is_refused():
    with pytest.raises(yamlfile.AliasBombError, match=r"line 1 contains an alias of itself"):
        yamlfile.loads("a: &a [1, *a]\n")


def test_the_bound_holds_for_dvcs_parser_too(tmp_path):
    """read_yaml (DVC's ruamel parser, for params.yaml, dvc.yaml, dvc.lock, data.dvc) refuses the same bomb."""
    from compendium.pipeline.params import ParamsError, read_yaml

    f = tmp_path / "params.yaml"
    f.write_text("workbank: {cutoff: 3.0}\n" + BOMB)
    with pytest.raises(ParamsError, match=r"^params.yaml: YAML aliases \(the anchor at line 9, .* alias bomb\)"):
        read_yaml(f)


# every place YAML allows an alias, in block and flow style, after a JSON-like key, as a complex key, on a line of its own
ALIAS_FORMS = [
    "a: &a [1]\nb: *a\n",
    "a: &a [1]\nb:\n  - *a\n",
    "- &a x\n- *a\n",
    "a: &a x\nb: [*a, *a]\n",
    "a: &a x\nb: [1,*a]\n",
    "a: &a x\nb: {k: *a}\n",
    'a: &a x\nb: {"k":*a}\n',
    "a: &a x\nb: {*a : 1}\n",
    "a: &a x\n? *a\n: 1\n",
    "a: &a x\nb:\n  *a\n",
    "a: &a x\nb: [\n*a]\n",
    "a: &a x\nb: [?*a]\n",
    "a: &a x\nb:\n\ufeff*a\n",
    "a: &a x\nb: [\n\ufeff*a]\n",
]


@pytest.mark.parametrize("text", ALIAS_FORMS)
def test_an_alias_anywhere_yaml_allows_one_is_seen_so_the_walk_bounds_it(text, monkeypatch):
    """A text is read without the node walk only when MAYBE_ALIAS finds no '*' where a node can start: every form
    of alias that libyaml (the C loader the project reads with) reads must be found, so that check_aliases runs."""
    walked = []
    real = yamlfile.check_aliases
    monkeypatch.setattr(yamlfile, "check_aliases", lambda node, source: walked.append(real(node, source)))
    libyaml = yaml.load(text, Loader=yamlfile.Loader)  # noqa: S506 - the C safe loader the project reads with
    assert yamlfile.loads(text) == libyaml and walked == [None]
    no_alias = text.replace("*a", "a")
    walked.clear()
    assert yamlfile.loads(no_alias) == yaml.load(no_alias, Loader=yamlfile.Loader) and walked == []  # noqa: S506


def test_a_bomb_whose_aliases_follow_a_byte_order_mark_is_refused():
    """libyaml skips U+FEFF at the start of any line, so '\ufeff*a' is an alias there (a reviewer's find: the first
    gate let this 12-million-value bomb through)."""
    text = (
        "l0: &l0 ["
        + ", ".join(["x"] * 10)
        + "]\n"
        + "".join(f"l{k}: &l{k} [\n" + "".join(f"\ufeff*l{k - 1},\n" for _ in range(10)) + "]\n" for k in range(1, 7))
    )
    assert yaml.load(text, Loader=yamlfile.Loader)["l1"][0] == ["x"] * 10  # noqa: S506 - libyaml reads aliases
    with pytest.raises(yamlfile.AliasBombError):
        yamlfile.loads(text)
