"""compendium.workbank.build: one computation per study (issue 19).

The chapter used to compute its claims twice (its sections, and the register recomputing them) and to
check the two against each other. Now :func:`compendium.workbank.build` computes every section once, the
register only maps the result to claim ids, the summary only phrases it and :mod:`compendium.workbank.values`
only hands it to ``publish``. These tests replace the chapter-vs-register check: they fail if a number is
computed twice in one pass as the notebook makes it (build, summary, and the values, register cells and tables
it publishes), or if the result can be changed after the fact.
"""

from __future__ import annotations

import dataclasses

import pytest
from counting import calls_of, key_of

from compendium.pipeline.params import REFERENCE, WORKBANK_PAPER_CUTOFF, study_params
from compendium.workbank import (
    Inputs,
    WorkbankResult,
    agency,
    authors,
    build,
    demographics,
    desire,
    external,
    icc,
    landscape,
    register,
    reliability,
    skills,
    summary,
    values,
)

#: few bootstrap draws: what is counted is the calls, not the draws
FAST = study_params("workbank", n_boot=20, n_tie_draws=5, n_boot_groups=20)
#: the wing's modules that run the pass, whose calls of the statistics functions count (a statistics function
#: calling a helper of its own, e.g. the zone bootstrap assigning zones to its draws, is one computation); the
#: authors' constructions count from any of the package's modules (``compendium.``: one may not call another again)
PIPELINE = tuple(f"compendium.workbank.{m}" for m in ("sections", "build", "register", "summary", "values"))

#: (module, function) -> calls in one pass at the paper's settings; each call computes something different
ONCE = {
    (desire, "task_desire"): 1,
    (desire, "desire_shares"): 1,  # at the paper's cut-off the run's share is the paper's
    (desire, "occupation_sectors"): 1,
    (desire, "desire_reasons"): 1,
    (landscape, "task_landscape"): 1,
    (landscape, "assign_zones"): 1,  # the slips reuse the landscape's zones at the paper's cut-off
    (landscape, "zone_counts"): 1,
    (landscape, "zones_by_sector"): 1,
    (landscape, "cutoff_sweep"): 1,
    (landscape, "zone_bootstrap"): 1,
    (landscape, "zone_cluster_bootstrap"): 4,  # both sides dropped / kept, experts alone, workers alone
    (agency, "has_counts"): 2,  # workers, experts
    (agency, "dominant_level"): 2,
    (agency, "occupation_levels"): 1,
    (agency, "tie_rule_sensitivity"): 1,
    (agency, "h5_profiles"): 1,
    (skills, "skill_ranks"): 1,  # Fig 7 of the register reads the skills table
    (reliability, "alpha_values"): 1,
    (reliability, "mixed_model_data"): 1,
    (reliability, "fit_mixed_model"): 1,  # Table 1 of the register reads the chapter's fit
    (icc, "icc_reml_intercept_only"): 1,
    (external, "claude_top_share"): 1,
    (external, "mapping_density"): 4,  # YC and arXiv, joined on task and on task + occupation
    (demographics, "demographic_groups"): 1,
    (demographics, "raked_headline"): 1,
    (demographics, "raked_sector_mix"): 1,
    (demographics, "raking_bootstrap"): 1,
    (authors, "occupation_pools"): 1,
    (authors, "occupation_has"): 1,
    (authors, "merged_task_means"): 1,
    (authors, "mapping_frames"): 1,
    (authors, "text_claim_stats"): 1,
}


@pytest.fixture(scope="module")
def inputs():
    return Inputs.load(FAST)


def _one_pass(params, inputs):
    """Build, summary and what the chapter publishes (its values, the register's cells and every table) as
    notebooks/20_workbank.md runs them, counting the section functions' calls (:func:`counting.calls_of`)."""
    stats = [getattr(m, n) for m, n in ONCE if m is not authors]
    own = [getattr(m, n) for m, n in ONCE if m is authors]
    keys = {(m, n): key_of(getattr(m, n)) for m, n in ONCE}
    with calls_of(*stats, only_from=PIPELINE) as calls, calls_of(*own, only_from=("compendium.",)) as calls_authors:
        result = build(params, inputs)
        summary.summary(result)
        values.stage_values(result), register.register_values(result), values.tables(result)
    counts = calls + calls_authors
    return result, {key: counts[k] for key, k in keys.items()}


def test_one_pass_computes_each_section_once(inputs):
    result, counts = _one_pass(FAST, inputs)
    wrong = {f"{m.__name__}.{n}": (counts[(m, n)], k) for (m, n), k in ONCE.items() if counts[(m, n)] != k}
    assert not wrong, f"called (times, expected) in one pass (build, summary, and what the chapter publishes): {wrong}"
    assert set(result.seconds) == {
        f.name for f in dataclasses.fields(result) if f.name not in ("params", "register", "seconds")
    }


def test_off_the_paper_cutoff_the_slips_assign_their_own_zones(inputs):
    """Off the paper's cut-off the slips (always at the paper's) need a second zone assignment, and the shares
    at the run's cut-off a second share: each then computes something different, not the same thing twice."""
    _, counts = _one_pass(study_params("workbank", cutoff=3.5, n_boot=20, n_tie_draws=5, n_boot_groups=20), inputs)
    assert counts[(landscape, "assign_zones")] == 2 and counts[(desire, "desire_shares")] == 2
    assert counts[(reliability, "fit_mixed_model")] == 1 and counts[(landscape, "task_landscape")] == 1


def test_no_value_is_published_by_two_sections(inputs):
    """Every published key has one owner section; build refuses two sections computing the same key."""
    result = build(FAST, inputs)
    owners = {}
    for name, sec in result.sections().items():
        for k in sec.values:
            assert k not in owners, (k, owners.get(k), name)
            owners[k] = name
    assert set(owners) == set(result.values)
    # the register maps, it does not recompute: a text claim that is also a chapter value is that very object;
    # a table cell whose id is a chapter claim (the zones and HAS means of the authors' tables) is exactly equal
    # (the check the chapter used to make at rtol 1e-9 between two computations)
    reg, _ = register.register_values(result)
    cells = {vid for t in inputs.register["tables"] for vid in register.cell_ids(t).values()}
    for k in set(reg) & set(result.values):
        if k in cells:
            assert float(reg[k]) == float(result.values[k]) if k != "wb.has.matrix" else reg[k] == result.values[k], k
        else:
            assert reg[k] is result.values[k], k
    from compendium.workbank.build import _check_disjoint

    clash = dataclasses.replace(result.paper, values={"wb.zones.green": 1})
    with pytest.raises(ValueError, match="both compute value 'wb.zones.green'"):
        _check_disjoint({"landscape": result.landscape, "paper": clash})


def test_the_result_is_read_only(inputs):
    result = build(FAST, inputs)
    assert isinstance(result, WorkbankResult)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.counts = result.desire
    with pytest.raises(TypeError):
        result.values["wb.zones.green"] = 0
    with pytest.raises(TypeError):
        result.landscape.values["wb.zones.green"] = 0
    assert result.params.cutoff == WORKBANK_PAPER_CUTOFF == REFERENCE["workbank"]["cutoff"][0]


def test_the_defaults_live_in_the_params_schema_only():
    """No WORKBank function or section types the cut-off (or another parameter) as a default: they take it as
    a required argument, and the notebook's parameters cell reads compendium.pipeline.params."""
    import inspect

    import jupytext

    from compendium.pipeline import paths
    from compendium.workbank import sections

    params = set(REFERENCE["workbank"]) | {"n_draws", "n_random", "rule", "tie_rule", "method", "max_iter", "tol"}
    mods = (sections, agency, demographics, desire, landscape, reliability, authors, register)
    typed = []
    for mod in mods:
        for name, fn in vars(mod).items():
            if inspect.isfunction(fn) and fn.__module__ == mod.__name__:
                for p in inspect.signature(fn).parameters.values():
                    if p.name in params and p.default not in (inspect.Parameter.empty, None):
                        typed.append(f"{mod.__name__}.{name}({p.name}={p.default!r})")
    assert not typed, typed
    nb = jupytext.read(paths.ROOT / "notebooks" / "20_workbank.md")
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    for key in REFERENCE["workbank"]:
        assert f"{key} = ref.{key}" in cell.source, key


def test_params_reject_unknown_and_bad_values():
    from compendium.pipeline.params import ParamsError

    assert study_params("workbank").model_dump() == {k: v for k, (v, _) in REFERENCE["workbank"].items()}
    with pytest.raises(ParamsError, match="unknown parameter"):
        study_params("workbank", cut_off=3.5)
    with pytest.raises(ParamsError, match="workbank.cutoff"):
        study_params("workbank", cutoff=9)
