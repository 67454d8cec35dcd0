"""One schema for ``params.yaml``: types, ranges, allowed values and relations, checked before any stage runs.

    python -m compendium.pipeline.params check      # the `params` stage of dvc.yaml (first in the pipeline)

Every section of ``params.yaml`` is a pydantic model below. A bad value stops ``dvc repro`` in the
``params`` stage, before any other stage's outputs are touched, with one message per bad key naming it as
written in ``params.yaml``::

    params.yaml: workbank.cutoff: 9 is invalid: must be at most 5 (the zone cut-off on the 1-5 rating scale)

The ``params`` stage writes the validated sections to ``results/params/<section>.json``; each study stage
depends on its own section's file (so changing one study's parameter re-runs only that study; a stage that
reads only some keys of a section has a record of its own, :data:`PARTIAL_RECORDS`), and on
``results/params/valid.json``, whose content never changes (so every stage waits for the check).

The values are checked strictly: a boolean is not a number (``n_boot: true`` is refused, not read as 1)
and a quoted string is not a number (``"3"`` is refused); an integer is accepted where a decimal is
expected. ``params.yaml`` is read with YAML 1.2 rules by the reader DVC itself uses (ruamel.yaml,
``YAML(typ="safe")``), so ``dvc exp run -S workbank.raking_tol=1e-12`` is the number 1e-12 here as in
DVC, ``yes`` is the string "yes", and a repeated key is an error. Every count has an upper bound that
keeps a run within a few GB of memory on the machine the compendium is built on (23 GB, 2 cores).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from compendium.pipeline import paths, studies

RESTORE_HINT = (
    "Fix params.yaml; if a failed `dvc exp run -S ...` left the bad value there, restore the "
    "committed run with `make reset` (a plain `git checkout -- params.yaml` can miss DVC's same-size rewrite)."
)

Seed = Annotated[int, Field(ge=0, le=2**32 - 1, description="a random seed (0 to 2^32-1)")]
Level = Annotated[
    float, Field(gt=0, lt=1, allow_inf_nan=False, description="a probability level strictly between 0 and 1")
]
Rating = Annotated[float, Field(ge=1, le=5, allow_inf_nan=False, description="a value on the 1-5 rating scale")]


def Count(most: int, what: str = "draws or repetitions", memory: str = ""):  # noqa: N802 - a type, as Seed
    """A count of at least 1 and at most ``most``: the bound keeps one run within this machine's memory
    (``memory`` says what grows with the count, from the array shapes of the code that uses it)."""
    why = f"; {memory}" if memory else ""
    return Annotated[int, Field(ge=1, le=most, description=f"a number of {what}, 1 to {most:,}{why}")]


def Real(**bounds):  # noqa: N802 - a type, as Seed
    """A finite decimal within ``bounds`` (pydantic's ge/gt/le/lt and the description)."""
    return Annotated[float, Field(allow_inf_nan=False, **bounds)]


def _inside_repository(v: str) -> str:
    """``v`` if it is a path inside the repository, relative to its root (a file the stage reads when present)."""
    if not v or Path(v).is_absolute() or ".." in Path(v).parts:
        raise ValueError("must be a path inside the repository, relative to its root")
    return v


class _Section(BaseModel):
    """A section of ``params.yaml``; ``section`` names it (a study's id, :mod:`compendium.pipeline.studies`)."""

    # strict: no bool -> number and no str -> number coercion (pydantic's lax mode reads `true` as 1 and
    # "3" as 3); pydantic's strict mode still accepts an int where a float is declared
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    section: ClassVar[str]


def _csv(value: str, key: str) -> list[str]:
    items = [s.strip() for s in str(value).split(",")]
    if not items or any(s == "" for s in items):
        raise ValueError(f"a comma-separated list without empty items is needed for {key}")
    return items


def _csv_floats(value: str, key: str, lo: float, hi: float, lo_open: bool = False, hi_open: bool = False) -> str:
    out = []
    for s in _csv(value, key):
        try:
            x = float(s)
        except ValueError:
            raise ValueError(f"{s!r} is not a number") from None
        below = x <= lo if lo_open else x < lo
        above = x >= hi if hi_open else x > hi
        if below or above:
            raise ValueError(f"{s} is outside {'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}")
        out.append(x)
    if len(set(out)) != len(out):
        raise ValueError("the list repeats a value")
    return str(value)


def _csv_choices(value: str, key: str, allowed: tuple[str, ...]) -> str:
    items = _csv(value, key)
    bad = [s for s in items if s not in allowed]
    if bad:
        raise ValueError(f"{', '.join(map(repr, bad))} not among {', '.join(allowed)}")
    return str(value)


class Data(_Section):
    section = "data"


class Workbank(_Section):
    section = "workbank"

    cutoff: Real(ge=1, le=5, description="the zone cut-off on the 1-5 rating scale")
    has_tie_rule: Literal["lowest", "highest", "random", "mean"]
    seed: Seed
    n_boot: Count(50_000, "bootstrap draws", "the stage holds about 27 kB a draw (1.4 GB at the bound)")
    stable_level: Real(
        gt=0.5, lt=1, description="share of bootstrap draws that keep a task's zone for it to count as stable"
    )
    n_tie_draws: Count(20_000, "random tie-breaks", "the stage holds about 61 kB a draw (1.2 GB at the bound)")
    n_boot_groups: Count(50_000, "bootstrap draws", "the stage holds about 27 kB a draw (1.4 GB at the bound)")
    sweep_min: Rating
    sweep_max: Rating
    sweep_step: Real(gt=0, le=4, description="the cut-off sweep's step")
    mixed_method: Literal["bfgs", "lbfgs", "cg", "powell", "nm", "newton"]
    raking_max_iter: Count(1_000_000, "raking iterations")
    raking_tol: Real(gt=0, lt=1, description="the raking convergence tolerance")

    @model_validator(mode="after")
    def _sweep(self):
        if not self.sweep_min < self.sweep_max:
            raise ValueError(f"sweep_min ({self.sweep_min:g}) must be below sweep_max ({self.sweep_max:g})")
        if self.sweep_step > self.sweep_max - self.sweep_min:
            raise ValueError(
                f"sweep_step ({self.sweep_step:g}) is larger than the sweep's range "
                f"{self.sweep_min:g}-{self.sweep_max:g}"
            )
        return self


# ranking snapshots of the active-sampling simulation, (repetitions, checkpoints, 5, 5) floats and the pair
# counts per strategy: about 1 kB each, so 2 GB at this bound (the committed values use 80,000)
SIM_SNAPSHOTS_MAX = 2_000_000


class Preferences(_Section):
    section = "preferences"

    seed: Seed
    n_bootstrap: Count(200_000, "bootstrap replicates", "about 1.4 kB a replicate (0.3 GB at the bound)")
    ci_level: Level
    trueskill_orders: Count(10_000, "random judgement orders", "about 38 kB an order (0.4 GB at the bound)")
    sim_budget: Count(1_000_000, "judgements per simulated study")
    sim_repetitions: Count(100_000, "simulated studies", "each keeps a ranking per checkpoint")
    sim_checkpoint_every: Count(1_000_000, "judgements between checkpoints")
    sim_batch: Count(1_000_000, "judgements per selection round")
    sim_arena_skew: Real(ge=0, le=10, description="the arena popularity skew")
    sim_prior_sd: Real(gt=0, le=100, description="the prior SD of the log-strengths")
    sim_target: Level
    annotations_path: str

    @model_validator(mode="after")
    def _sim(self):
        snapshots = self.sim_repetitions * (self.sim_budget // max(self.sim_checkpoint_every, 1))
        if snapshots > SIM_SNAPSHOTS_MAX:
            raise ValueError(
                f"sim_repetitions x sim_budget / sim_checkpoint_every ({snapshots:,}) is above {SIM_SNAPSHOTS_MAX:,}: "
                "the simulation keeps a ranking snapshot of about 1 kB per repetition and checkpoint, so this "
                "would not fit in memory"
            )
        if self.sim_checkpoint_every > self.sim_budget:
            raise ValueError(
                f"sim_checkpoint_every ({self.sim_checkpoint_every}) is larger than sim_budget ({self.sim_budget})"
            )
        if self.sim_batch > self.sim_checkpoint_every:
            raise ValueError(
                f"sim_batch ({self.sim_batch}) is larger than sim_checkpoint_every ({self.sim_checkpoint_every})"
            )
        return self

    @field_validator("annotations_path")
    @classmethod
    def _relative(cls, v: str) -> str:
        return _inside_repository(v)


class Pwb(_Section):
    section = "pwb"

    weight_scheme: Literal["weights", "legacy_weights_v2_0"]
    n_boot: Count(1_000_000, "bootstrap draws", "drawn in chunks: about 100 B a draw and cell")
    seed: Seed
    diag_n_boot: Count(200_000, "bootstrap draws", "drawn in chunks, as n_boot")
    diag_seed: Seed
    ci_level: Level
    cf_heavy_weight: Real(gt=0, lt=1, description="the CF weight of the CF-heavy scheme")
    restore_weight: Real(gt=0, lt=0.5, description="the UT and AR_d weight when restored")
    fourth_judge_rule: Literal["first", "last", "drop", "all"]


#: the robustness grids: comma-separated lists written without quotes in params.yaml (so DVC's rewrite of the
#: file after ``dvc exp run -S`` changes one line), set from the command line as
#: ``-S "robustness.zone_cutoffs='2.5,3.5'"`` (quoted inside: unquoted, DVC reads a comma list as a sweep)
GRIDS = (
    "zone_cutoffs",
    "zone_boundaries",
    "has_tie_rules",
    "pwb_cf_heavy_weights",
    "pwb_restore_weights",
    "bt_tie_weights",
)


class Robustness(_Section):
    section = "robustness"

    seed: Seed
    zone_cutoffs: str
    zone_boundaries: str
    has_tie_rules: str
    has_random_draws: Count(20_000, "random tie-breaks", "as workbank.n_tie_draws")
    pwb_cf_heavy_weights: str
    pwb_restore_weights: str
    pwb_random_schemes: Count(1_000_000, "random weight schemes")
    pwb_random_concentration: Real(gt=0, le=1e6, description="the Dirichlet concentration")
    bt_tie_weights: str
    n_sampling: Count(40_000, "resampling replicates", "about 44 kB a replicate (1.7 GB at the bound)")

    @field_validator(*GRIDS, mode="before")
    @classmethod
    def _one_value(cls, v):
        # a grid of one value arrives as a number after `dvc exp run -S robustness.bt_tie_weights=0.5`
        # (DVC writes it to params.yaml unquoted); it is the same grid as the string "0.5"
        return str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v

    @field_validator("zone_cutoffs")
    @classmethod
    def _cutoffs(cls, v):
        return _csv_floats(v, "zone_cutoffs", 1, 5)

    @field_validator("zone_boundaries")
    @classmethod
    def _boundaries(cls, v):
        return _csv_choices(v, "zone_boundaries", ("ge", "gt"))

    @field_validator("has_tie_rules")
    @classmethod
    def _tie_rules(cls, v):
        return _csv_choices(v, "has_tie_rules", ("lowest", "highest", "random", "mean"))

    @field_validator("pwb_cf_heavy_weights")
    @classmethod
    def _cf(cls, v):
        return _csv_floats(v, "pwb_cf_heavy_weights", 0, 1, lo_open=True, hi_open=True)

    @field_validator("pwb_restore_weights")
    @classmethod
    def _restore(cls, v):
        return _csv_floats(v, "pwb_restore_weights", 0, 0.5, lo_open=True, hi_open=True)

    @field_validator("bt_tie_weights")
    @classmethod
    def _bt(cls, v):
        return _csv_floats(v, "bt_tie_weights", 0, 1)


class Humane(_Section):
    section = "humane"

    seed: Seed
    time_budget_s: Annotated[float, Field(gt=0, le=600, description="seconds the default grid may take in dvc repro")]
    default_repetitions: Count(10_000, "repetitions per design of the default grid", "each keeps a few numbers")
    block_size: Count(100_000, "repetitions per Dask task")
    scheduler_address: Annotated[str, Field(max_length=200, description="a Dask scheduler address, or empty")]
    wide_sd: Annotated[float, Field(gt=0, le=5, description="the wide spread's SD of log-strengths")]
    group_sd: Annotated[float, Field(ge=0, le=5, description="the SD of the groups' log-strength perturbations")]

    @field_validator("scheduler_address")
    @classmethod
    def _address(cls, v: str) -> str:
        if v and "://" not in v:
            raise ValueError("must be empty or a scheduler address such as tcp://127.0.0.1:8786")
        return v


class Audit(_Section):
    section = "audit"

    seed: Seed
    n_boot: Count(50_000, "bootstrap draws", "each keeps a few numbers per judge or model")
    n_sims: Count(50_000, "Monte-Carlo simulations (critical values and power)")
    level: Level
    humaine_studies: Annotated[
        int,
        Field(
            ge=2,
            le=10_000,
            description="simulated studies per HUMAINE comparison, 2 (a Monte-Carlo error needs "
            "two) to 10,000; about 1 s of CPU per 100",
        ),
    ]
    annotations_path: str

    @field_validator("annotations_path")
    @classmethod
    def _relative(cls, v: str) -> str:
        return _inside_repository(v)


#: section -> its model: ``data`` and one per study (:data:`compendium.pipeline.studies.STUDIES`, in that order),
#: found by each model's ``section``; tests/pipeline/test_params.py checks that every study has one
_MODELS: dict[str, type[_Section]] = {m.section: m for m in _Section.__subclasses__()}
SCHEMA: dict[str, type[_Section]] = {"data": _MODELS["data"]} | {s.id: _MODELS[s.id] for s in studies.STUDIES}


_P, _C = "the paper", "the committed run"
#: The reference value of every key, and where it comes from: the paper's setting where the paper (or the
#: authors' code) fixes one, otherwise the committed run's. A run whose values differ from these is
#: *off the paper*: every page of the book then says so (:func:`off_paper`, ``compendium.book``) and the
#: claims that depend on a changed key get the status ``off_paper`` instead of ``unexplained``.
#: tests/pipeline/test_params.py checks that the committed ``params.yaml`` equals these values.
REFERENCE: dict[str, dict[str, tuple[Any, str]]] = {
    "data": {},
    "workbank": {
        "cutoff": (3.0, _P),
        "has_tie_rule": ("lowest", _P),
        "seed": (20250606, _C),
        "n_boot": (2000, _C),
        "stable_level": (0.95, _C),
        "n_tie_draws": (200, _C),
        "n_boot_groups": (1000, _C),
        "sweep_min": (2.5, _C),
        "sweep_max": (3.5, _C),
        "sweep_step": (0.1, _C),
        "mixed_method": ("bfgs", _P),
        "raking_max_iter": (1000, _C),
        "raking_tol": (1.0e-10, _C),
    },
    "preferences": {
        "seed": (20260513, _C),
        "n_bootstrap": (5000, _C),
        "ci_level": (0.95, _P),
        "trueskill_orders": (200, _C),
        "sim_budget": (40000, _C),
        "sim_repetitions": (1000, _C),
        "sim_checkpoint_every": (500, _C),
        "sim_batch": (20, _C),
        "sim_arena_skew": (1.0, _C),
        "sim_prior_sd": (1.0, _C),
        "sim_target": (0.95, _C),
        "annotations_path": ("data/hitl/annotations.parquet", _C),
    },
    "pwb": {
        "weight_scheme": ("weights", _P),
        "n_boot": (10000, _P),
        "seed": (42, _P),
        "diag_n_boot": (2000, _C),
        "diag_seed": (0, _C),
        "ci_level": (0.95, _P),
        "cf_heavy_weight": (0.3, _P),
        "restore_weight": (0.1, _P),
        "fourth_judge_rule": ("first", _C),
    },
    "robustness": {
        "seed": (20260601, _C),
        "zone_cutoffs": ("2.5,2.75,3.0,3.25,3.5", _C),
        "zone_boundaries": ("ge,gt", _C),
        "has_tie_rules": ("lowest,highest,random,mean", _C),
        "has_random_draws": (200, _C),
        "pwb_cf_heavy_weights": ("0.2,0.3,0.4,0.5", _C),
        "pwb_restore_weights": ("0.05,0.1,0.15", _C),
        "pwb_random_schemes": (500, _C),
        "pwb_random_concentration": (40.0, _C),
        "bt_tie_weights": ("0,0.25,0.5,0.75,1", _C),
        "n_sampling": (2000, _C),
    },
    "audit": {
        "seed": (20261205, _C),
        "n_boot": (2000, _C),
        "n_sims": (2000, _C),
        "level": (0.95, _C),
        "humaine_studies": (200, _C),
        "annotations_path": ("data/hitl/annotations.parquet", _C),
    },
    "humane": {
        "seed": (20260701, _C),
        "time_budget_s": (20.0, _C),
        "default_repetitions": (40, _C),
        "block_size": (50, _C),
        "scheduler_address": ("", _C),
        "wide_sd": (0.6, _C),
        "group_sd": (0.2, _C),
    },
}


#: The paper's cut-off on the 1-5 scales (a mean at or above it is "high"; the headline share is "> 3"): the one
#: place the WORKBank code takes it from where a claim is defined at the paper's cut-off whatever the run's.
WORKBANK_PAPER_CUTOFF: float = REFERENCE["workbank"]["cutoff"][0]


def reference(section: str) -> dict[str, Any]:
    """The reference value of every key of ``section`` (:data:`REFERENCE`, without the sources)."""
    return {k: v for k, (v, _) in REFERENCE[section].items()}


def study_params(section: str, **overrides: Any) -> _Section:
    """The validated parameters of a study: its section's model (:data:`SCHEMA`) with :data:`REFERENCE`'s values,
    ``overrides`` applied (e.g. the notebook's papermill parameters). Every default of a study lives in
    :data:`REFERENCE` and nowhere else; an unknown key or a bad value raises :class:`ParamsError` naming it."""
    if section not in SCHEMA:
        raise ParamsError(f"{section} is not a section of params.yaml (known: {', '.join(SCHEMA)})")
    model, values = SCHEMA[section], reference(section)
    unknown = sorted(set(overrides) - set(values))
    if unknown:
        raise ParamsError(f"{section}: unknown parameter(s) {', '.join(unknown)} (known: {', '.join(values)})")
    try:
        return model.model_validate(values | overrides)
    except ValidationError as exc:
        problems = "; ".join(_describe(section, model, e) for e in exc.errors(include_url=False))
        raise ParamsError(problems) from None


def _same(value: Any, ref: Any) -> bool:
    if isinstance(ref, (int, float)) and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value) == float(ref)
    return str(value) == str(ref)


def off_paper(sections: dict[str, dict], only: tuple[str, ...] | None = None) -> list[tuple[str, Any, Any, str]]:
    """``(section.key, value, reference, source)`` for every key of validated ``sections`` that differs from
    :data:`REFERENCE` (in ``params.yaml`` order); ``only``: restrict to these sections. Empty: the paper's run."""
    out = []
    for name, values in sections.items():
        if only is not None and name not in only:
            continue
        for key, value in values.items():
            ref, source = REFERENCE.get(name, {}).get(key, (None, _C))
            if not _same(value, ref):
                out.append((f"{name}.{key}", value, ref, source))
    return out


def off_paper_from_files(params_dir: Path | None = None, only: tuple[str, ...] | None = None):
    """:func:`off_paper` of the validated sections the ``params`` stage wrote (``results/params/<section>.json``)."""
    d = Path(params_dir) if params_dir is not None else paths.stage_dir("params")
    # in params.yaml's order (REFERENCE is written in it), as the banner lists the keys
    sections = {n: json.loads((d / f"{n}.json").read_text()) for n in REFERENCE if (d / f"{n}.json").exists()}
    return off_paper(sections, only)


class ParamsError(ValueError):
    """``params.yaml`` is unreadable or has bad values; the message names every bad key."""


def _describe(section: str, model: type[_Section], err: dict) -> str:
    loc = ".".join(str(p) for p in err["loc"])
    key = f"{section}.{loc}" if loc else section
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        return f"{key} is not a parameter of this stage (known: {', '.join(model.model_fields)})"
    if err["type"] == "missing":
        return f"{key} is missing"
    field = model.model_fields.get(str(err["loc"][0])) if err["loc"] else None
    why = ""
    if field is not None:
        desc = field.description or next(
            (m.description for m in field.metadata if getattr(m, "description", None)), None
        )
        if desc:
            why = f" ({desc})"
    value = err.get("input")
    shown = _show(value)
    if isinstance(value, bool) and err["type"] in ("int_type", "float_type"):
        why += "; true/false is not a number"
    elif isinstance(value, str) and err["type"] in ("int_type", "float_type") and _is_number(value):
        why += f"; {shown} is quoted text, write the number without quotes"
    elif isinstance(value, float) and err["type"] == "int_type" and value.is_integer():
        why += f"; write it as a whole number ({int(value)})"
    return f"{key}: {shown} is invalid: {msg[0].lower() + msg[1:] if msg else msg}{why}"


def _show(value: Any) -> str:
    """A value as the message shows it: text quoted (so '3' is visibly not 3), numbers as Python writes
    them (1e-10, 2000.0), booleans and null as YAML writes them."""
    if isinstance(value, dict):
        return "this section"
    if isinstance(value, bool):
        return str(value).lower()
    if value is None:
        return "null"
    if isinstance(value, (str, int, float)):
        return repr(value)
    return json.dumps(value, default=str)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def validate(doc: Any, source: str = "params.yaml") -> dict[str, dict]:
    """Validate a parsed ``params.yaml``; return ``{section: values}``. Raises :class:`ParamsError`."""
    if not isinstance(doc, dict):
        raise ParamsError(f"{source}: expected one mapping of sections ({', '.join(SCHEMA)}). {RESTORE_HINT}")
    problems = []
    unknown = sorted(set(doc) - set(SCHEMA))
    problems += [f"{k} is not a section of {source} (known: {', '.join(SCHEMA)})" for k in unknown]
    problems += [f"section {k} is missing" for k in SCHEMA if k not in doc]
    out = {}
    for name in [k for k in doc if k in SCHEMA]:  # in the file's order (the banner lists keys as params.yaml does)
        model = SCHEMA[name]
        raw = doc[name] if doc[name] is not None else {}
        if not isinstance(raw, dict):
            problems.append(f"{name} must be a mapping of parameters")
            continue
        try:
            out[name] = model.model_validate(raw).model_dump()
        except ValidationError as exc:
            problems += [_describe(name, model, e) for e in exc.errors(include_url=False)]
    if problems:
        lines = "\n".join(f"  {source}: {p}" for p in problems)
        raise ParamsError(f"{len(problems)} bad parameter value(s):\n{lines}\n{RESTORE_HINT}")
    return out


#: a syntax error is a hand edit (DVC writes valid YAML), which git's stat cache sees: git checkout restores it
YAML_HINT = "Fix the line, or restore the committed file with `git checkout -- params.yaml`."


def _load_bounded(text: str, path: Path) -> Any:
    """``YAML(typ="safe").load(text)`` (DVC's own call: ruamel.yaml's C parser, ``ruamel.yaml.clib``, where it is
    installed, as requirements.txt pins it; the pure-Python one otherwise) in its two steps, with an alias bomb
    refused between them (:func:`compendium.pipeline.yamlfile.check_aliases` raises
    :class:`~compendium.pipeline.yamlfile.AliasBombError`, naming the file and the anchor's line): composing
    shares an alias's node, and only building values from the graph (as DVC's parsing of ``params.yaml``
    does) expands it. One parse, as before. The parser is DVC's because the two can differ: under a ``%YAML 1.1``
    directive the pure one reads ``yes`` as true, the C one as the string ``'yes'``."""
    from ruamel.yaml import YAML

    from compendium.pipeline.yamlfile import check_aliases

    yaml = YAML(typ="safe")
    node = yaml.compose(text)
    check_aliases(node, path.name)
    return None if node is None else yaml.constructor.construct_document(node)


def read_yaml(path: Path, hint: str = YAML_HINT) -> Any:
    """Parse ``path`` as DVC does (ruamel.yaml, ``YAML(typ="safe")``: YAML 1.2, repeated keys refused).

    PyYAML follows YAML 1.1, where ``1e-12`` (as ``dvc exp run -S`` writes it) is a string and ``yes``
    is true; reading with DVC's own parser means the values checked here are the values DVC records.
    Raises :class:`ParamsError` with the file, line and column of a syntax error, and ``hint``."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    from compendium.pipeline.yamlfile import AliasBombError

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ParamsError(f"{path.name} does not exist; restore it with `git checkout -- {path.name}`") from None
    except UnicodeDecodeError as exc:
        raise ParamsError(f"{path.name} is not UTF-8 text (byte {exc.start}). {hint}") from None
    except OSError as exc:
        raise ParamsError(f"{path.name} cannot be read ({exc.strerror or exc}).") from None
    try:
        return _load_bounded(text, path)
    except AliasBombError as exc:
        raise ParamsError(f"{exc}: refused before DVC or anything else expands it. {hint}") from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = " ".join(str(exc.problem or exc.context or "a syntax error").split())
        if "duplicate key" in problem:
            problem = problem.split(" with value")[0]
        raise ParamsError(f"{path.name} is not valid YAML{where}: {problem}. {hint}") from None
    except (YAMLError, RecursionError, ValueError) as exc:
        problem = " ".join(str(exc).split())[:200] if not isinstance(exc, RecursionError) else "nested too deep"
        raise ParamsError(f"{path.name} is not valid YAML: {problem}. {hint}") from None


def load(path: Path | None = None) -> dict[str, dict]:
    """Read and validate ``params.yaml`` (every section)."""
    path = Path(path) if path is not None else paths.PARAMS
    return validate(read_yaml(path), source=path.name)


def load_section(section: str, path: Path | None = None) -> dict:
    """The validated values of one section (what the stage's notebook receives as parameters), or of a
    :data:`PARTIAL_RECORDS` entry (its keys of its section only)."""
    if section in PARTIAL_RECORDS:
        of, keys = PARTIAL_RECORDS[section]
        values = load(path)[of]
        return {k: values[k] for k in keys}
    return load(path)[section]


#: Stages that read only some keys of a section (:attr:`compendium.pipeline.studies.Stage.keys`), each recorded by
#: the ``params`` stage in a file of its own, ``results/params/<stage>.json`` (its DVC dependency), so that a change
#: of any other key of the section leaves the stage up to date: ``workbank_models`` computes what no zone cut-off,
#: sweep or zone-bootstrap setting reaches (:mod:`compendium.workbank.models`), and ``dvc exp run -S
#: workbank.cutoff=3.5`` skips it. A stage that reads its whole section depends on ``results/params/<section>.json``.
PARTIAL_RECORDS: dict[str, tuple[str, tuple[str, ...]]] = {
    st.name: (st.section, studies.param_keys(st.name, tuple(SCHEMA[st.section].model_fields)))
    for st in studies.ALL_STAGES
    if st.section is not None and st.keys is not None
}


def stage_section(section: str) -> dict:
    """The parameters a study stage runs with: its section (or :data:`PARTIAL_RECORDS` entry) as the ``params``
    stage recorded it in ``results/params/<section>.json``, the file ``dvc.yaml`` tracks as the stage's dependency, so the stage
    runs with exactly what DVC hashed. A run outside DVC (``python -m compendium.pipeline.stage run workbank`` after an
    edit of ``params.yaml``) finds the record missing or different; it then validates and records again
    first, as ``dvc repro`` would (and ``dvc status`` shows the ``params`` stage changed, which it has)."""
    current = json.loads(json.dumps(load_section(section)))
    record = paths.stage_dir("params") / f"{section}.json"
    if not record.exists() or json.loads(record.read_text()) != current:
        check()
    return json.loads(record.read_text())


def records(sections: dict[str, dict]) -> dict[str, str]:
    """What the ``params`` stage writes for validated ``sections``: file name -> text. One record per section, one
    per :data:`PARTIAL_RECORDS` stage (its keys only), and ``valid.json``, whose content never changes."""
    out = {f"{name}.json": json.dumps(values, indent=1, sort_keys=True) + "\n" for name, values in sections.items()}
    for name, (of, keys) in PARTIAL_RECORDS.items():
        out[f"{name}.json"] = json.dumps({k: sections[of][k] for k in keys}, indent=1, sort_keys=True) + "\n"
    out["valid.json"] = json.dumps({"params.yaml": "valid"}) + "\n"
    return out


def check(out_dir: Path | None = None) -> Path:
    """The ``params`` stage: validate, then write each record (:func:`records`) to ``results/params/``."""
    sections = load()
    out_dir = Path(out_dir) if out_dir is not None else paths.stage_dir("params")
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, text in records(sections).items():
        (out_dir / name).write_text(text)
    return out_dir


def main(argv: list[str] | None = None) -> int:
    from compendium.pipeline.cli import safe_output

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError
    argv = sys.argv[1:] if argv is None else argv
    if argv != ["check"]:
        print(__doc__, file=sys.stderr)
        return 2
    from compendium.pipeline.rawdata import guard

    raw = guard()  # the first stage: `dvc exp run` re-records a modified data/ before it; guard() undoes that
    if raw:
        print(raw, file=sys.stderr)
        return 1
    try:
        check()
    except ParamsError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a full disk or a read-only results/: one sentence, not a traceback
        where = paths.stage_dir("params")
        print(
            f"ERROR: params.yaml is valid, but its record could not be written to {where} ({exc.strerror}); "
            "free some space or make the checkout writable, then run `dvc repro` again.",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
