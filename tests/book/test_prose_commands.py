"""The commands the prose prints: extracted, every placeholder declared, every `dvc exp run -S` argument
accepted by DVC's own parser, and every command that cannot run here marked beside it in the prose.
(The scratch-clone run of every command is tests/commands, `make test-commands`.)"""

import pytest

from compendium.book import prose_commands as pc
from compendium.pipeline import paths


@pytest.fixture(scope="module")
def commands():
    return pc.extract()


def test_extraction_finds_fenced_inline_and_two_line_commands(tmp_path):
    (tmp_path / "book").mkdir()
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "README.md").write_text(
        "Run:\n\n```bash\nmake reproduce   # all of it\ndvc exp run -S 'a.b=1' # one\n```\n\n"
        "or `dvc exp run --queue -S 'a.b=1,2'\n  -S 'a.c=x,y'` and {glue:text}`dvc_not_a_command` and `params.yaml`.\n"
    )
    (tmp_path / "CONTRIBUTING.md").write_text("```{code-cell}\nx = '`dvc repro`'\n```\n")
    (tmp_path / "notebooks" / "10_x.md").write_text("```{admonition} Try it\n- `dvc repro book`: builds\n```\n")
    got = [(c.file, c.text) for c in pc.extract(tmp_path)]
    assert got == [
        ("README.md", "make reproduce"),
        ("README.md", "dvc exp run -S 'a.b=1'"),
        ("README.md", "dvc exp run --queue -S 'a.b=1,2' -S 'a.c=x,y'"),
        ("notebooks/10_x.md", "dvc repro book"),
    ]


def test_the_prose_prints_about_two_hundred_commands(commands):
    assert len(commands) >= 190, len(commands)
    files = {c.file for c in commands}
    assert {"README.md", "CONTRIBUTING.md", "CHANGELOG.md", "book/teaching.md", "notebooks/40_robustness.md"} <= files


def test_dvc_parser_calls_an_unquoted_comma_list_a_sweep_and_a_quoted_one_a_value():
    assert pc.is_sweep("robustness.bt_tie_weights=0,0.5,1")
    assert not pc.is_sweep("robustness.bt_tie_weights='0,0.5,1'")
    assert pc.override_value("robustness.bt_tie_weights='0,0.5,1'") == ("robustness.bt_tie_weights", "0,0.5,1")
    assert pc.set_arguments("""dvc exp run -S "robustness.x='0,1'" -S a.b=2""") == ["robustness.x='0,1'", "a.b=2"]


def test_no_exp_run_without_queue_passes_a_sweep(commands):
    bad = [
        f"{c.file}:{c.line}: {c.text}"
        for c in commands
        if c.kind == "exp" and any(pc.is_sweep(a) for a in pc.set_arguments(c.text))
    ]
    assert bad == [], "DVC refuses these without --queue (quote the list: -S \"key='a,b'\"):\n" + "\n".join(bad)


def test_every_exp_run_sets_a_known_parameter_to_a_valid_value(commands):
    import yaml
    from committed import committed_params_text

    from compendium.pipeline import params

    committed = yaml.safe_load(committed_params_text())  # as committed: an exercise may have changed the workspace
    for c in commands:
        if c.kind != "exp":
            continue
        doc = {k: dict(v or {}) for k, v in committed.items()}
        for arg in pc.set_arguments(c.text):
            key, value = pc.override_value(arg)
            section, _, name = key.partition(".")
            assert name in doc.get(section, {}), f"{c.file}:{c.line}: {key} is not a parameter"
            doc[section][name] = value
        params.validate(doc)  # raises ParamsError naming the key


def test_every_placeholder_is_declared(commands):
    left = {f"{c.file}:{c.line}: {c.text}": pc.placeholders_left(c.text) for c in commands if c.kind != "mention"}
    assert {k: v for k, v in left.items() if v} == {}, "add them to compendium.book.prose_commands.SUBSTITUTE"


def test_commands_that_cannot_run_here_say_so_in_the_prose(commands):
    off = [c for c in commands if c.kind == "offline"]
    assert off, "the conda and network commands are classified offline"
    for c in off:
        word, _ = pc.cannot_run(c)
        assert word.lower() in c.context.lower(), f"{c.file}:{c.line}: the prose beside {c.text!r} should say {word!r}"


def test_every_command_has_one_kind(commands):
    kinds = {c.kind for c in commands}
    assert kinds <= {"exp", "queue", "run", "ci", "benchmark", "maintenance", "mention", "offline"}
    assert {"exp", "queue", "run"} <= kinds


def test_every_timing_command_printed_is_one_the_benchmark_suite_runs(commands):
    """tests/commands/test_tool_commands.py runs pc.BENCHMARKS: every timing command printed, and those the
    README names in its comments (``# python benchmarks/pipeline.py --baseline REV: ...``), which a reader runs too."""
    printed = {c.text for c in commands if c.text.startswith(("python benchmarks/", "make benchmark"))}
    assert printed <= set(pc.BENCHMARKS)
    assert {c.kind for c in commands if c.text in printed} == {"benchmark"}
    readme = (paths.ROOT / "README.md").read_text()
    assert [c for c in pc.BENCHMARKS if c not in readme] == []


def test_every_maintenance_target_is_named_and_in_one_list_only(commands):
    """pc.MAINTENANCE: printed, or named where a reader meets them (the README's comments, `make help`)."""
    named = (paths.ROOT / "README.md").read_text() + (paths.ROOT / "Makefile").read_text()
    assert [c for c in pc.MAINTENANCE if c not in named] == []
    assert {c.kind for c in commands if c.text in pc.MAINTENANCE} <= {"maintenance"}
    assert not set(pc.MAINTENANCE) & (set(pc.CI) | set(pc.BENCHMARKS))


def test_every_runnable_command_is_run_by_a_phase_of_the_commands_suite(commands):
    planned = {c for cmds in pc.PHASES.values() for c in cmds}
    missing = sorted(
        {
            f"{c.text}  ({c.file}:{c.line})"
            for c in commands
            if c.kind in ("run", "queue") and pc.substitute(c.text) not in planned
        }
    )
    assert missing == [], "add each to compendium.book.prose_commands.PHASES (tests/commands runs them):\n" + "\n".join(
        missing
    )
