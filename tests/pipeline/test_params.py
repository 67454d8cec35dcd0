"""compendium.pipeline.params: every key of params.yaml has a bad value that is refused with a message naming it."""

import copy
import json
import shutil
import subprocess
import typing

import pytest
import yaml
from committed import committed_params_text

from compendium.pipeline import params, paths

GOOD = yaml.safe_load(committed_params_text())  # as committed: an exercise may have changed the workspace

# (section, key, bad value, words the message must contain)
BAD = [
    ("workbank", "cutoff", 9, "less than or equal to 5"),
    ("workbank", "cutoff", "abc", "valid number"),
    ("workbank", "has_tie_rule", "median", "'lowest', 'highest', 'random' or 'mean'"),
    ("workbank", "seed", -1, "greater than or equal to 0"),
    ("workbank", "n_boot", 0, "greater than or equal to 1"),
    ("workbank", "stable_level", 1.5, "less than 1"),
    ("workbank", "n_tie_draws", 2.5, "valid integer"),
    ("workbank", "n_boot_groups", -3, "greater than or equal to 1"),
    ("workbank", "sweep_min", 0, "greater than or equal to 1"),
    ("workbank", "sweep_max", 6, "less than or equal to 5"),
    ("workbank", "sweep_step", 0, "greater than 0"),
    ("workbank", "mixed_method", "adam", "'bfgs'"),
    ("workbank", "raking_max_iter", 0, "greater than or equal to 1"),
    ("workbank", "raking_tol", 0, "greater than 0"),
    ("preferences", "seed", 2**40, "less than or equal to"),
    ("preferences", "n_bootstrap", 0, "greater than or equal to 1"),
    ("preferences", "ci_level", 1.5, "less than 1"),
    ("preferences", "trueskill_orders", "many", "valid integer"),
    ("preferences", "sim_budget", 0, "greater than or equal to 1"),
    ("preferences", "sim_repetitions", -1, "greater than or equal to 1"),
    ("preferences", "sim_checkpoint_every", 0, "greater than or equal to 1"),
    ("preferences", "sim_batch", 0, "greater than or equal to 1"),
    ("preferences", "sim_arena_skew", -1, "greater than or equal to 0"),
    ("preferences", "sim_prior_sd", 0, "greater than 0"),
    ("preferences", "sim_target", 1.0, "less than 1"),
    ("preferences", "annotations_path", "/etc/passwd", "inside the repository"),
    ("pwb", "weight_scheme", "v3", "'weights' or 'legacy_weights_v2_0'"),
    ("pwb", "n_boot", 0, "greater than or equal to 1"),
    ("pwb", "seed", -1, "greater than or equal to 0"),
    ("pwb", "diag_n_boot", 0, "greater than or equal to 1"),
    ("pwb", "diag_seed", "x", "valid integer"),
    ("pwb", "ci_level", 1.5, "less than 1"),
    ("pwb", "cf_heavy_weight", 1.2, "less than 1"),
    ("pwb", "restore_weight", 0.7, "less than 0.5"),
    ("pwb", "fourth_judge_rule", "median", "'first', 'last', 'drop' or 'all'"),
    ("robustness", "seed", -5, "greater than or equal to 0"),
    ("robustness", "zone_cutoffs", "2.5,9", "outside [1, 5]"),
    ("robustness", "zone_boundaries", "ge,lt", "'lt' not among ge, gt"),
    ("robustness", "has_tie_rules", "lowest,,mean", "without empty items"),
    ("robustness", "has_random_draws", 0, "greater than or equal to 1"),
    ("robustness", "pwb_cf_heavy_weights", "0.2,1.0", "outside (0, 1)"),
    ("robustness", "pwb_restore_weights", "0.1,0.1", "repeats a value"),
    ("robustness", "pwb_random_schemes", 0, "greater than or equal to 1"),
    ("robustness", "pwb_random_concentration", 0, "greater than 0"),
    ("robustness", "bt_tie_weights", "0,1.5", "outside [0, 1]"),
    ("robustness", "n_sampling", 0, "greater than or equal to 1"),
    ("audit", "seed", -1, "greater than or equal to 0"),
    ("audit", "n_boot", 0, "greater than or equal to 1"),
    ("audit", "n_sims", 50_001, "less than or equal to 50000"),
    ("audit", "level", 1.0, "less than 1"),
    ("audit", "humaine_studies", 1, "greater than or equal to 2"),
    ("audit", "annotations_path", "/etc/passwd", "inside the repository"),
    ("humane", "seed", -1, "greater than or equal to 0"),
    ("humane", "time_budget_s", 0, "greater than 0"),
    ("humane", "default_repetitions", 0, "greater than or equal to 1"),
    ("humane", "block_size", 0, "greater than or equal to 1"),
    ("humane", "scheduler_address", "localhost", "tcp://127.0.0.1:8786"),
    ("humane", "wide_sd", 0, "greater than 0"),
    ("humane", "group_sd", -0.1, "greater than or equal to 0"),
]


def test_the_committed_params_are_valid():
    out = params.validate(yaml.safe_load(committed_params_text()))
    assert set(out) == set(params.SCHEMA)
    assert out["workbank"]["cutoff"] == 3.0 and out["pwb"]["seed"] == 42


def test_the_workspace_params_are_valid():
    assert set(params.load()) == set(params.SCHEMA)  # whatever an exercise set, it passed the params stage


def test_every_key_of_every_section_has_a_bad_value_case():
    covered = {(s, k) for s, k, _, _ in BAD}
    every = {(s, k) for s, model in params.SCHEMA.items() for k in model.model_fields}
    assert every - covered == set()


@pytest.mark.parametrize("section,key,value,words", BAD, ids=[f"{s}.{k}={v!r}" for s, k, v, _ in BAD])
def test_a_bad_value_is_refused_naming_the_key(section, key, value, words):
    doc = copy.deepcopy(GOOD)
    doc[section][key] = value
    with pytest.raises(params.ParamsError) as e:
        params.validate(doc)
    msg = str(e.value)
    assert f"params.yaml: {section}.{key}: " in msg
    assert words in msg
    assert "`make reset`" in msg  # how to restore after a failed `dvc exp run -S`


@pytest.mark.parametrize(
    "change,words",
    [
        (lambda d: d["workbank"].update(sweep_min=3.5, sweep_max=2.5), "sweep_min (3.5) must be below sweep_max (2.5)"),
        (lambda d: d["workbank"].update(sweep_step=2.0), "sweep_step (2) is larger than the sweep's range"),
        (
            lambda d: d["preferences"].update(sim_checkpoint_every=50000),
            "sim_checkpoint_every (50000) is larger than sim_budget",
        ),
        (lambda d: d["preferences"].update(sim_batch=600), "sim_batch (600) is larger than sim_checkpoint_every"),
        (
            lambda d: d["preferences"].update(sim_repetitions=100_000, sim_budget=1_000_000, sim_checkpoint_every=10),
            "sim_repetitions x sim_budget / sim_checkpoint_every (10,000,000,000) is above 2,000,000",
        ),
        (lambda d: d["pwb"].update(seeed=1), "pwb.seeed is not a parameter of this stage"),
        (lambda d: d.update(extra={}), "extra is not a section of params.yaml"),
        (lambda d: d.pop("pwb"), "section pwb is missing"),
        (lambda d: d["pwb"].pop("seed"), "pwb.seed is missing"),
    ],
)
def test_relations_unknown_and_missing_keys(change, words):
    doc = copy.deepcopy(GOOD)
    change(doc)
    with pytest.raises(params.ParamsError, match=words.replace("(", r"\(").replace(")", r"\)")):
        params.validate(doc)


def test_all_problems_are_reported_at_once():
    doc = copy.deepcopy(GOOD)
    doc["workbank"]["cutoff"] = 9
    doc["pwb"]["ci_level"] = 1.5
    with pytest.raises(params.ParamsError, match="2 bad parameter value"):
        params.validate(doc)


def test_unreadable_yaml_names_the_file(tmp_path):
    p = tmp_path / "params.yaml"
    p.write_text("workbank: [unclosed\n")
    with pytest.raises(params.ParamsError, match="params.yaml is not valid YAML"):
        params.load(p)


def test_check_writes_one_file_per_section(tmp_path):
    params.check(tmp_path)
    want = [f"{s}.json" for s in params.SCHEMA] + [f"{s}.json" for s in params.PARTIAL_RECORDS] + ["valid.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(want)


# ---- reference values, off-paper runs and DVC's rewrite of params.yaml (issue 22)


def test_every_key_has_a_reference_equal_to_the_committed_params_yaml():

    committed = yaml.safe_load(
        subprocess.run(
            ["git", "show", "HEAD:params.yaml"], cwd=params.paths.ROOT, capture_output=True, text=True
        ).stdout
    )
    sections = params.validate(committed)
    assert {s: set(v) for s, v in params.REFERENCE.items()} == {s: set(v) for s, v in sections.items()}
    assert params.off_paper(sections) == []
    assert {src for sec in params.REFERENCE.values() for _, src in sec.values()} == {"the paper", "the committed run"}


def test_off_paper_names_each_changed_key_with_value_reference_and_source():
    sections = params.validate(yaml.safe_load(committed_params_text()))
    sections["workbank"]["cutoff"] = 3.5
    sections["pwb"]["weight_scheme"] = "legacy_weights_v2_0"
    assert params.off_paper(sections) == [
        ("workbank.cutoff", 3.5, 3.0, "the paper"),
        ("pwb.weight_scheme", "legacy_weights_v2_0", "weights", "the paper"),
    ]
    assert params.off_paper(sections, only=("pwb",)) == [
        ("pwb.weight_scheme", "legacy_weights_v2_0", "weights", "the paper")
    ]
    sections["workbank"]["cutoff"] = 3  # an int equal to the float reference is the paper's value
    assert params.off_paper(sections, only=("workbank",)) == []


def test_a_one_value_grid_written_as_a_number_is_the_same_grid():
    doc = yaml.safe_load(params.paths.PARAMS.read_text())
    doc["robustness"]["bt_tie_weights"] = 0.5  # what DVC writes for -S robustness.bt_tie_weights=0.5
    doc["robustness"]["zone_cutoffs"] = 3
    got = params.validate(doc)["robustness"]
    assert (got["bt_tie_weights"], got["zone_cutoffs"]) == ("0.5", "3")
    doc["robustness"]["has_tie_rules"] = True
    with pytest.raises(params.ParamsError, match="has_tie_rules"):
        params.validate(doc)


def test_dvc_rewrites_params_yaml_with_one_changed_line_per_set_param(tmp_path):
    from dvc.utils.hydra import apply_overrides

    f = tmp_path / "params.yaml"
    f.write_text(committed_params_text())
    before = f.read_text().splitlines()
    apply_overrides(str(f), ["workbank.cutoff=3.5"])
    apply_overrides(str(f), ["robustness.bt_tie_weights='0,0.5,1'"])
    after = f.read_text().splitlines()
    assert len(after) == len(before)
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert [b.split("#")[0].strip() for _, b in changed] == ["cutoff: 3.5", "bt_tie_weights: 0,0.5,1"]
    assert params.validate(yaml.safe_load(f.read_text()))["robustness"]["bt_tie_weights"] == "0,0.5,1"


# --- strict types: no bool -> number, no str -> number; int -> float allowed --------------------------


def _fields(kind):
    return [
        (s, k)
        for s, model in params.SCHEMA.items()
        for k, f in model.model_fields.items()
        if typing.get_origin(f.annotation) is None and f.annotation is kind
    ]


NUMERIC = _fields(int) + _fields(float)


def test_the_numeric_fields_are_found():
    assert ("workbank", "n_boot") in NUMERIC and ("workbank", "cutoff") in NUMERIC and len(NUMERIC) > 30


@pytest.mark.parametrize("section,key", NUMERIC, ids=[f"{s}.{k}" for s, k in NUMERIC])
@pytest.mark.parametrize("value", [True, False])
def test_a_boolean_is_not_a_number(section, key, value):
    doc = copy.deepcopy(GOOD)
    doc[section][key] = value
    with pytest.raises(params.ParamsError) as e:
        params.validate(doc)
    assert f"params.yaml: {section}.{key}: {str(value).lower()} is invalid" in str(e.value)
    assert "true/false is not a number" in str(e.value)


@pytest.mark.parametrize("section,key", NUMERIC, ids=[f"{s}.{k}" for s, k in NUMERIC])
def test_a_quoted_number_is_not_a_number(section, key):
    doc = copy.deepcopy(GOOD)
    doc[section][key] = str(GOOD[section][key])
    with pytest.raises(params.ParamsError) as e:
        params.validate(doc)
    assert f"params.yaml: {section}.{key}: '{GOOD[section][key]}' is invalid" in str(e.value)
    assert "is quoted text, write the number without quotes" in str(e.value)


def test_an_integer_is_accepted_where_a_decimal_is_expected():
    doc = copy.deepcopy(GOOD)
    doc["workbank"]["cutoff"] = 3
    out = params.validate(doc)["workbank"]["cutoff"]
    assert out == 3.0 and type(out) is float


def test_a_whole_decimal_is_not_a_count():
    doc = copy.deepcopy(GOOD)
    doc["workbank"]["n_boot"] = 2000.0
    with pytest.raises(params.ParamsError, match=r"workbank\.n_boot: 2000\.0 is invalid: .*whole number \(2000\)"):
        params.validate(doc)


@pytest.mark.parametrize("text", [".nan", ".inf", "-.inf"])
def test_non_finite_decimals_are_refused(tmp_path, text):
    p = tmp_path / "params.yaml"
    p.write_text(committed_params_text().replace("raking_tol: 1.0e-10", f"raking_tol: {text}"))
    with pytest.raises(params.ParamsError, match=r"workbank\.raking_tol: .* is invalid: input should be a finite"):
        params.load(p)


# --- upper bounds on every count ---------------------------------------------------------------------

COUNTS = [(s, k) for s, k in _fields(int) if "seed" not in k]


def _most(section, key):
    f = params.SCHEMA[section].model_fields[key]
    return next(m.le for m in f.metadata if getattr(m, "le", None) is not None)


@pytest.mark.parametrize("section,key", COUNTS, ids=[f"{s}.{k}" for s, k in COUNTS])
def test_every_count_has_an_upper_bound_that_is_enforced(section, key):
    most = _most(section, key)
    assert GOOD[section][key] * 5 <= most <= 1_000_000  # room for experiments, never a runaway allocation
    doc = copy.deepcopy(GOOD)
    doc[section][key] = most + 1
    with pytest.raises(params.ParamsError) as e:
        params.validate(doc)
    assert f"params.yaml: {section}.{key}: {most + 1} is invalid: input should be less than or equal to {most}" in str(
        e.value
    )


# --- params.yaml is read with YAML 1.2 rules, as DVC reads and writes it -----------------------------


def _dvc_set(tmp_path, *overrides):
    """params.yaml after `dvc exp run -S <override>`: DVC's own writer (hydra overrides, ruamel.yaml)."""
    from dvc.utils.hydra import apply_overrides

    p = tmp_path / "params.yaml"
    shutil.copyfile(paths.PARAMS, p)
    apply_overrides(p, list(overrides))
    return p


def test_a_tolerance_set_by_dvc_exp_run_is_a_number(tmp_path):
    p = _dvc_set(tmp_path, "workbank.raking_tol=1e-12")
    assert "raking_tol: 1e-12" in p.read_text()  # what DVC wrote (PyYAML's YAML 1.1 reads it as a string)
    assert params.load(p)["workbank"]["raking_tol"] == 1e-12


def test_a_count_set_by_dvc_exp_run_beyond_its_bound_is_refused_naming_the_key(tmp_path):
    p = _dvc_set(tmp_path, "workbank.n_boot=1e9")
    with pytest.raises(params.ParamsError, match=r"params\.yaml: workbank\.n_boot: 1000000000\.0 is invalid"):
        params.load(p)
    p = _dvc_set(tmp_path, "workbank.n_boot=1000000000")
    with pytest.raises(params.ParamsError, match=r"workbank\.n_boot: 1000000000 is invalid: .*less than or equal"):
        params.load(p)


def test_yes_is_a_string_not_true(tmp_path):
    p = tmp_path / "params.yaml"
    p.write_text(committed_params_text().replace("seed: 42 ", "seed: yes "))
    with pytest.raises(params.ParamsError, match=r"pwb\.seed: 'yes' is invalid: input should be a valid integer"):
        params.load(p)


def test_the_project_reads_params_yaml_as_dvc_does(tmp_path):
    from dvc.utils.serialize import load_yaml

    tricky = "a: yes\nb: 1e-12\nc: 010\nd: 0o10\ne: on\nf: 1_000\ng: .inf\nh: ~\ni: 2026-01-01\nj: -.5\n"
    # under a YAML 1.1 directive ruamel's pure-Python parser reads yes as true and its C parser (DVC's, with
    # ruamel.yaml.clib installed) as 'yes': the project must read what DVC reads
    directive = "%YAML 1.1\n---\na: yes\nb: on\n"
    for text in (paths.PARAMS.read_text(), tricky, directive):
        p = tmp_path / "params.yaml"
        p.write_text(text)
        assert params.read_yaml(p) == load_yaml(p)


def test_a_repeated_key_is_refused_with_its_line(tmp_path):
    p = tmp_path / "params.yaml"
    p.write_text(committed_params_text().replace("  seed: 42 ", "  seed: 7\n  seed: 42 "))
    with pytest.raises(params.ParamsError) as e:
        params.load(p)
    assert "params.yaml is not valid YAML at line" in str(e.value) and 'duplicate key "seed"' in str(e.value)


def test_malformed_yaml_gets_one_line_with_the_position_and_the_restore(tmp_path):
    p = tmp_path / "params.yaml"
    p.write_text("workbank:\n  cutoff: 3\n   n_boot: 2\n")
    with pytest.raises(params.ParamsError) as e:
        params.load(p)
    msg = str(e.value)
    assert msg.startswith("params.yaml is not valid YAML at line 3, column ") and "\n" not in msg
    assert msg.endswith("`git checkout -- params.yaml`.")


def test_a_stage_runs_with_the_recorded_section_and_a_stale_record_is_refreshed(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(paths, "PARAMS", tmp_path / "params.yaml")
    (tmp_path / "params.yaml").write_text(committed_params_text())
    record = tmp_path / "results" / "params" / "workbank.json"
    assert params.stage_section("workbank")["cutoff"] == 3.0  # no record yet: validated and recorded first
    assert json.loads(record.read_text())["cutoff"] == 3.0
    # what DVC tracked is what the stage reads: a record that matches params.yaml is read, not rewritten
    record.write_text(record.read_text().replace('"seed": 20250606', '"seed": 20250606 '))
    before = record.read_text()
    assert params.stage_section("workbank")["seed"] == 20250606 and record.read_text() == before
    # an edit of params.yaml that the params stage has not recorded yet (a run outside DVC): recorded again
    text = (tmp_path / "params.yaml").read_text().replace("cutoff: 3.0 ", "cutoff: 3.5 ", 1)
    (tmp_path / "params.yaml").write_text(text)
    assert params.stage_section("workbank")["cutoff"] == 3.5
    assert json.loads(record.read_text())["cutoff"] == 3.5


def test_check_that_cannot_write_its_record_says_so_in_one_sentence(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    (tmp_path / "results").write_text("a file where the results folder should be")  # mkdir fails
    import compendium.pipeline.rawdata

    monkeypatch.setattr(compendium.pipeline.rawdata, "guard", lambda: "")
    assert params.main(["check"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("ERROR: params.yaml is valid, but its record could not be written to ")
    assert "run `dvc repro` again." in err and "Traceback" not in err
