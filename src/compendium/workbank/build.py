"""The WORKBank chapter's one computation: ``build(params, inputs) -> WorkbankResult``.

:meth:`Inputs.load` reads every input once (the raw files of ``data/workbank`` and the register
``published/workbank.yaml``); :func:`build` runs every section of :mod:`.sections` once and returns a read-only
:class:`WorkbankResult`, which the chapter displays, :mod:`.summary` phrases, :mod:`.values` publishes and
:mod:`.register` maps to the register's claim ids.

    from compendium.pipeline.params import study_params
    from compendium.workbank import Inputs, build

    params = study_params("workbank", cutoff=3.5)
    result = build(params, Inputs.load(params))
    result.values["wb.zones.green"], result.tables["zones_by_sector"], result.seconds

Sections (in order; each may read the frames of those before it): counts, desire, landscape, agency,
skills, reliability, external, demographics, slips, paper (the register-only constructions of the
authors' notebooks). No two sections publish the same value key (:func:`build` checks it). The sections no zone
setting reaches (:data:`MODEL_SECTIONS`) are computed once by the ``workbank_models`` stage
(:func:`build_models`, :mod:`.models`) and handed to :func:`build` as ``models``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType

import pandas as pd

from compendium.pipeline import paths, studies, yamlfile
from compendium.pipeline.params import Workbank
from compendium.pipeline.progress import step

from . import sections
from .sections import Section

__all__ = [
    "Inputs",
    "WorkbankResult",
    "SECTIONS",
    "MODEL_SECTIONS",
    "MODEL_KEYS",
    "build",
    "build_models",
    "model_params",
    "load_register",
]

STAGE = "workbank"
#: the sections of :class:`WorkbankResult`, in the order :func:`build` computes them
SECTIONS = (
    "counts",
    "desire",
    "landscape",
    "agency",
    "skills",
    "reliability",
    "external",
    "demographics",
    "slips",
    "paper",
)


def load_register(path=None) -> dict:
    """The WORKBank register (``published/workbank.yaml``): its claims and the layout of its tables."""
    p = path or paths.PUBLISHED / "workbank.yaml"
    reg = yamlfile.load(p)
    if not isinstance(reg, dict) or "tables" not in reg or "claims" not in reg:
        raise ValueError(f"{p}: expected a mapping with 'tables' and 'claims'")
    return reg


@dataclass(frozen=True, eq=False)
class Inputs:
    """The raw frames of the chapter (as :mod:`compendium.data` loads them) and the parsed register.

    ``usage``/``yc``/``papers`` (the authors' external files) may be None: their register cells are then
    null with the file named."""

    desires: pd.DataFrame
    metadata: pd.DataFrame
    experts: pd.DataFrame
    task_metadata: pd.DataFrame
    bls_wages: pd.DataFrame
    bls_age: pd.DataFrame
    bls_race_gender: pd.DataFrame
    usage: pd.DataFrame | None
    yc: pd.DataFrame | None
    papers: pd.DataFrame | None
    register: Mapping

    @classmethod
    def load(cls, params: Workbank) -> Inputs:
        """Every input from the checked raw files (``data/workbank``) and ``published/workbank.yaml``, read once.
        No parameter chooses an input: ``params`` is taken for the contract's one signature and not read."""
        from .. import data

        return cls(
            desires=data.load_worker_desires(),  # one row per (worker, task)
            metadata=data.load_worker_metadata(),  # one row per worker
            experts=data.load_expert_ratings(),  # one row per (expert, task) rating
            task_metadata=data.load_task_metadata(),  # O*NET tasks with wages and skills
            bls_wages=data.load_bls_wages(),  # BLS OEWS May 2024 (SOC major groups, employment)
            bls_age=data.load_bls_age(),  # CPS 2024 table 11b
            bls_race_gender=data.load_bls_race_gender(),  # CPS 2024 table 11
            usage=data.load_claude_usage(),
            yc=data.load_yc_company_mappings(),
            papers=data.load_arxiv_paper_mappings(),
            register=load_register(),
        )


@dataclass(frozen=True, eq=False)
class WorkbankResult:
    """Every section of the chapter, computed once by :func:`build` (read-only).

    ``values``, ``tables`` and ``facts`` merge the sections' (no key is in two sections); ``register`` is the
    parsed register the result is mapped to (:attr:`Inputs.register`: claim ids and table layouts, so that
    :func:`.register.register_values` reads no file); ``seconds`` is the wall time of each section (not a
    result: never written)."""

    params: Workbank
    register: Mapping
    counts: Section
    desire: Section
    landscape: Section
    agency: Section
    skills: Section
    reliability: Section
    external: Section
    demographics: Section
    slips: Section
    paper: Section
    seconds: Mapping[str, float] = field(default_factory=dict)

    def sections(self) -> dict[str, Section]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name in SECTIONS}

    def _merged(self, what: str) -> Mapping:
        out: dict = {}
        for s in self.sections().values():
            out.update(getattr(s, what))
        return MappingProxyType(out)

    @property
    def values(self) -> Mapping:
        """Every value the sections publish (``results/workbank/values.json`` beside the register's cells)."""
        return self._merged("values")

    @property
    def tables(self) -> Mapping[str, pd.DataFrame]:
        """Every table the sections compute (``results/workbank/tables/`` with the register summary:
        :func:`.values.tables`)."""
        return self._merged("tables")

    @property
    def facts(self) -> Mapping:
        """The numbers only the prose quotes (not published)."""
        return self._merged("facts")


def _check_disjoint(parts: Mapping[str, Section]) -> None:
    """Raise ValueError if two sections of ``parts`` compute the same value, table or fact key."""
    for what in ("values", "tables", "facts"):
        seen: dict[str, str] = {}
        for name, s in parts.items():
            for k in getattr(s, what):
                if k in seen:
                    raise ValueError(f"build: sections {seen[k]!r} and {name!r} both compute {what[:-1]} {k!r}")
                seen[k] = name


#: the sections that no zone cut-off, cut-off sweep or zone-bootstrap setting reaches (only :data:`MODEL_KEYS`):
#: the ``workbank_models`` stage computes them once
#: (:func:`build_models`, :mod:`.models`) and :func:`build` takes them from there, so an exercise on the
#: cut-off does not fit the mixed model or re-rake the sample again
MODEL_SECTIONS = ("agency", "skills", "reliability", "demographics")
#: the keys of the ``workbank`` section those sections read: the ``workbank_models`` stage's row of the one list of
#: studies (:attr:`compendium.pipeline.studies.Stage.keys`, in its order: the order ``sections.pkl`` records them
#: in), which ``params.PARTIAL_RECORDS`` records for the stage
MODEL_KEYS: tuple[str, ...] = studies.stage("workbank_models").keys


def model_params(params: Workbank) -> dict:
    """The values of the keys :data:`MODEL_SECTIONS` read (what the ``workbank_models`` stage records)."""
    return {k: getattr(params, k) for k in MODEL_KEYS}


def _runner(stage: str, out: dict, seconds: dict):
    def run(name, fn, *args, what=None, n=None, unit="", **kw):
        t0 = time.perf_counter()
        if what is None:
            out[name] = fn(*args, **kw)
        else:
            with step(stage, what, n=n, unit=unit):
                out[name] = fn(*args, **kw)
        seconds[name] = time.perf_counter() - t0
        return out[name]

    return run


def _model_sections(run, p: Workbank, i: Inputs, name: str, sectors: pd.DataFrame) -> None:
    """Run the section ``name`` of :data:`MODEL_SECTIONS` (each reads only the raw inputs, the occupations'
    SOC sectors and :data:`MODEL_KEYS`)."""
    if name == "agency":
        run(
            "agency",
            sections.agency_section,
            i.desires,
            i.experts,
            tie_rule=p.has_tie_rule,
            seed=p.seed,
            n_random=p.n_tie_draws,
            what="Human Agency Scale and tie-rule sensitivity",
            n=p.n_tie_draws,
            unit="random tie-breaks",
        )
    elif name == "skills":
        run("skills", sections.skills_section, i.experts, i.task_metadata)
    elif name == "reliability":
        run(
            "reliability",
            sections.reliability_section,
            i.desires,
            i.experts,
            i.metadata,
            method=p.mixed_method,
            what=f"Krippendorff's alpha and the mixed model ({p.mixed_method})",
        )
    elif name == "demographics":
        run(
            "demographics",
            sections.demographics_section,
            i.desires,
            i.metadata,
            i.bls_age,
            i.bls_race_gender,
            n_boot=p.n_boot_groups,
            seed=p.seed,
            max_iter=p.raking_max_iter,
            tol=p.raking_tol,
            sectors=sectors,
            bls_wages=i.bls_wages,
            what="demographic groups (worker bootstrap) and raking",
            n=p.n_boot_groups,
            unit="draws",
        )
    else:
        raise ValueError(f"{name!r} is not one of the model sections {MODEL_SECTIONS}")


def build_models(params: Workbank, inputs: Inputs, *, stage: str = STAGE) -> dict[str, Section]:
    """The sections of :data:`MODEL_SECTIONS`, computed once with ``params`` (only :data:`MODEL_KEYS` are read)."""
    from . import desire

    out: dict[str, Section] = {}
    run = _runner(stage, out, {})
    # the occupations' SOC sectors (O*NET codes joined to the BLS groups), which the desire section of the
    # workbank stage also derives: a lookup table read by the raking's sector mix, no published number
    sectors = desire.occupation_sectors(inputs.task_metadata, inputs.bls_wages)
    for name in MODEL_SECTIONS:
        _model_sections(run, params, inputs, name, sectors)
    return out


def build(
    params: Workbank, inputs: Inputs, *, models: Mapping[str, Section] | None = None, stage: str = STAGE
) -> WorkbankResult:
    """Run every section of the WORKBank chapter once, with ``params`` (``study_params("workbank", ...)``,
    :func:`compendium.pipeline.params.study_params`), on ``inputs``; progress of the long steps goes to the
    pipeline's terminal (:mod:`compendium.pipeline.progress`, prefixed ``[stage]``).

    ``models``: the sections of :data:`MODEL_SECTIONS` as the ``workbank_models`` stage computed them
    (:func:`compendium.workbank.models.load`); they are used as they are, not computed again, and must have
    been computed with this run's values of :data:`MODEL_KEYS` (the loader checks it)."""
    p, i = params, inputs
    out: dict[str, Section] = {}
    seconds: dict[str, float] = {}
    run = _runner(stage, out, seconds)
    if models is not None and set(models) != set(MODEL_SECTIONS):
        raise ValueError(f"build: models must hold the sections {MODEL_SECTIONS}, got {tuple(models)}")

    def model(name):
        if models is None:
            _model_sections(run, p, i, name, sectors)
        else:
            out[name] = models[name]

    # the data; automation desire; the desire-capability landscape
    run("counts", sections.counts_section, i.desires, i.metadata, i.experts)
    des = run("desire", sections.desire_section, i.desires, i.task_metadata, i.bls_wages, cutoff=p.cutoff)
    sectors = des.extra["sectors"]
    land = run(
        "landscape",
        sections.landscape_section,
        i.desires,
        i.experts,
        sectors,
        cutoff=p.cutoff,
        sweep=(p.sweep_min, p.sweep_max, p.sweep_step),
        n_boot=p.n_boot,
        seed=p.seed,
        stable_level=p.stable_level,
        what="landscape, cut-off sweep and zone bootstrap",
        n=p.n_boot,
        unit="draws",
    ).extra["landscape"]
    # the Human Agency Scale; skills; agreement between raters and the mixed model
    model("agency")
    model("skills")
    model("reliability")
    # WORKBank against outside data; who is the sample
    ext = run("external", sections.external_section, des.extra["tasks"], land, i.usage, i.yc, i.papers)
    model("demographics")
    # the paper's slips, at the paper's cut-off whatever the run's
    so_far = {k: x for s in out.values() for k, x in s.values.items()}
    run(
        "slips",
        sections.slips_section,
        so_far,
        land,
        sectors,
        i.papers,
        cutoff=p.cutoff,
        zones_by_sector=out["landscape"].tables["zones_by_sector"],
        paper_density=ext.extra["density_by_task"]["arxiv"],
    )
    # what only the register needs: its tables by the authors' constructions
    labels = {t["slug"]: t.get("row_labels") or {} for t in i.register["tables"]}
    run(
        "paper",
        sections.paper_section,
        i.desires,
        i.metadata,
        i.experts,
        i.task_metadata,
        land,
        sectors,
        usage=i.usage,
        yc=i.yc,
        papers=i.papers,
        row_labels=labels,
        what="the register's tables by the authors' constructions",
    )
    _check_disjoint(out)
    return WorkbankResult(params=p, register=i.register, seconds=MappingProxyType(seconds), **out)
