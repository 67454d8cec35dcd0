"""One schema for ``params.yaml``: types, ranges, allowed values and relations, checked before any stage runs.

    python -m compendium.params check      # the `params` stage of dvc.yaml (first in the pipeline)

Every section of ``params.yaml`` is a pydantic model below. A bad value stops ``dvc repro`` in the
``params`` stage, before any other stage's outputs are touched, with one message per bad key naming it as
written in ``params.yaml``::

    params.yaml: workbank.cutoff: 9 is invalid: must be at most 5 (the zone cut-off on the 1-5 rating scale)

The ``params`` stage writes the validated sections to ``results/params/<section>.json``; each study stage
depends on its own section's file (so changing one study's parameter re-runs only that study), and on
``results/params/valid.json``, whose content never changes (so every stage waits for the check).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from . import paths

RESTORE_HINT = (
    "Fix params.yaml; if a failed `dvc exp run -S ...` left the bad value there, restore the "
    "committed file with `git checkout -- params.yaml`."
)

Seed = Annotated[int, Field(ge=0, le=2**32 - 1, description="a random seed (0 to 2^32-1)")]
Count = Annotated[int, Field(ge=1, description="a number of draws or repetitions (at least 1)")]
Level = Annotated[float, Field(gt=0, lt=1, description="a probability level strictly between 0 and 1")]
Rating = Annotated[float, Field(ge=1, le=5, description="a value on the 1-5 rating scale")]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=False, frozen=True)


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
    pass


class Workbank(_Section):
    cutoff: Annotated[float, Field(ge=1, le=5, description="the zone cut-off on the 1-5 rating scale")]
    has_tie_rule: Literal["lowest", "highest", "random", "mean"]
    seed: Seed
    n_boot: Count
    stable_level: Annotated[
        float,
        Field(gt=0.5, lt=1, description="share of bootstrap draws that keep a task's zone for it to count as stable"),
    ]
    n_tie_draws: Count
    n_boot_groups: Count
    sweep_min: Rating
    sweep_max: Rating
    sweep_step: Annotated[float, Field(gt=0, le=4, description="the cut-off sweep's step")]
    mixed_method: Literal["bfgs", "lbfgs", "cg", "powell", "nm", "newton"]
    raking_max_iter: Count
    raking_tol: Annotated[float, Field(gt=0, lt=1, description="the raking convergence tolerance")]

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


class Preferences(_Section):
    seed: Seed
    n_bootstrap: Count
    ci_level: Level
    trueskill_orders: Count
    sim_budget: Count
    sim_repetitions: Count
    sim_checkpoint_every: Count
    sim_batch: Count
    sim_arena_skew: Annotated[float, Field(ge=0, le=10, description="the arena popularity skew")]
    sim_prior_sd: Annotated[float, Field(gt=0, le=100, description="the prior SD of the log-strengths")]
    sim_target: Level
    annotations_path: str

    @model_validator(mode="after")
    def _sim(self):
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
        if not v or Path(v).is_absolute() or ".." in Path(v).parts:
            raise ValueError("must be a path inside the repository, relative to its root")
        return v


class Pwb(_Section):
    weight_scheme: Literal["weights", "legacy_weights_v2_0"]
    n_boot: Count
    seed: Seed
    diag_n_boot: Count
    diag_seed: Seed
    ci_level: Level
    cf_heavy_weight: Annotated[float, Field(gt=0, lt=1, description="the CF weight of the CF-heavy scheme")]
    restore_weight: Annotated[float, Field(gt=0, lt=0.5, description="the UT and AR_d weight when restored")]
    fourth_judge_rule: Literal["first", "last", "drop", "all"]


class Robustness(_Section):
    seed: Seed
    zone_cutoffs: str
    zone_boundaries: str
    has_tie_rules: str
    has_random_draws: Count
    pwb_cf_heavy_weights: str
    pwb_restore_weights: str
    pwb_random_schemes: Count
    pwb_random_concentration: Annotated[float, Field(gt=0, le=1e6, description="the Dirichlet concentration")]
    bt_tie_weights: str
    n_sampling: Count

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
    seed: Seed
    time_budget_s: Annotated[float, Field(gt=0, le=600, description="seconds the default grid may take in dvc repro")]
    default_repetitions: Count
    block_size: Count
    scheduler_address: Annotated[str, Field(max_length=200, description="a Dask scheduler address, or empty")]
    wide_sd: Annotated[float, Field(gt=0, le=5, description="the wide spread's SD of log-strengths")]
    group_sd: Annotated[float, Field(ge=0, le=5, description="the SD of the groups' log-strength perturbations")]

    @field_validator("scheduler_address")
    @classmethod
    def _address(cls, v: str) -> str:
        if v and "://" not in v:
            raise ValueError("must be empty or a scheduler address such as tcp://127.0.0.1:8786")
        return v


SCHEMA: dict[str, type[_Section]] = {
    "data": Data,
    "workbank": Workbank,
    "preferences": Preferences,
    "pwb": Pwb,
    "robustness": Robustness,
    "humane": Humane,
}


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
    shown = (
        yaml.safe_dump(value, default_flow_style=True).strip().removesuffix("...").strip()
        if not isinstance(value, dict)
        else "this section"
    )
    return f"{key}: {shown} is invalid: {msg[0].lower() + msg[1:] if msg else msg}{why}"


def validate(doc: Any, source: str = "params.yaml") -> dict[str, dict]:
    """Validate a parsed ``params.yaml``; return ``{section: values}``. Raises :class:`ParamsError`."""
    if not isinstance(doc, dict):
        raise ParamsError(f"{source}: expected one mapping of sections ({', '.join(SCHEMA)}). {RESTORE_HINT}")
    problems = []
    unknown = sorted(set(doc) - set(SCHEMA))
    problems += [f"{k} is not a section of {source} (known: {', '.join(SCHEMA)})" for k in unknown]
    problems += [f"section {k} is missing" for k in SCHEMA if k not in doc]
    out = {}
    for name, model in SCHEMA.items():
        if name not in doc:
            continue
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


def load(path: Path | None = None) -> dict[str, dict]:
    """Read and validate ``params.yaml`` (every section)."""
    path = Path(path) if path is not None else paths.PARAMS
    try:
        doc = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise ParamsError(f"{path} does not exist; restore it with `git checkout -- params.yaml`") from None
    except yaml.YAMLError as exc:
        raise ParamsError(f"{path.name} is not valid YAML ({exc}). {RESTORE_HINT}") from None
    return validate(doc, source=path.name)


def load_section(section: str, path: Path | None = None) -> dict:
    """The validated values of one section (what the stage's notebook receives as parameters)."""
    return load(path)[section]


def check(out_dir: Path | None = None) -> Path:
    """The ``params`` stage: validate, then write each section to ``results/params/<section>.json``."""
    sections = load()
    out_dir = Path(out_dir) if out_dir is not None else paths.stage_dir("params")
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, values in sections.items():
        (out_dir / f"{name}.json").write_text(json.dumps(values, indent=1, sort_keys=True) + "\n")
    (out_dir / "valid.json").write_text(json.dumps({"params.yaml": "valid"}) + "\n")
    return out_dir


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv != ["check"]:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        check()
    except ParamsError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
