"""compendium.params: every key of params.yaml has a bad value that is refused with a message naming it."""

import copy

import pytest
import yaml

from compendium import params, paths

GOOD = yaml.safe_load(paths.PARAMS.read_text())

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
    ("humane", "seed", -1, "greater than or equal to 0"),
    ("humane", "time_budget_s", 0, "greater than 0"),
    ("humane", "default_repetitions", 0, "greater than or equal to 1"),
    ("humane", "block_size", 0, "greater than or equal to 1"),
    ("humane", "scheduler_address", "localhost", "tcp://127.0.0.1:8786"),
    ("humane", "wide_sd", 0, "greater than 0"),
    ("humane", "group_sd", -0.1, "greater than or equal to 0"),
]


def test_the_committed_params_are_valid():
    out = params.load()
    assert set(out) == set(params.SCHEMA)
    assert out["workbank"]["cutoff"] == 3.0 and out["pwb"]["seed"] == 42


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
    assert "git checkout -- params.yaml" in msg  # how to restore after a failed `dvc exp run -S`


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
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f"{s}.json" for s in params.SCHEMA] + ["valid.json"])
