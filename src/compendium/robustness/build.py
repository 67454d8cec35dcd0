"""The robustness chapter's one computation: ``build(params, inputs) -> RobustnessResult``.

``params`` is the chapter's section of ``params.yaml``, the pydantic model
:class:`compendium.pipeline.params.Robustness` (made with ``study_params("robustness", ...)``);
:meth:`Inputs.load` reads the raw data the sweeps need and the values the preferences chapter exports for this
one (``results/preferences/exports/robustness.json``, :func:`compendium.pipeline.results.read_export`). :func:`build`
parses the grids (the paper's setting added to each, :func:`.sweeps.with_reference`), runs every sweep of
:mod:`.sweeps` and every resampling check of :mod:`.sampling` once, and decides which findings hold
(:func:`.findings.findings`). The result is immutable (frozen dataclasses; its frames are the chapter's
tables, not to be edited in place): the chapter displays and narrates it, :mod:`.summary` phrases it,
:mod:`.values` records it and :mod:`.views` and :mod:`.figures` show it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import pandas as pd

from compendium.pipeline.progress import step
from compendium.pipeline.results import merge_values

from . import findings as fd, sampling, sweeps

if TYPE_CHECKING:
    from compendium.pipeline.params import Robustness

__all__ = [
    "STAGE",
    "Grids",
    "Inputs",
    "Zones",
    "Agency",
    "Pwb",
    "PreferenceSweeps",
    "RobustnessResult",
    "build",
]

STAGE = "robustness"


@dataclass(frozen=True)
class Grids:
    """The parsed grids, each with the paper's setting (cut-offs and tie weights sorted)."""

    cutoffs: tuple[float, ...]
    boundaries: tuple[str, ...]
    tie_rules: tuple[str, ...]
    cf_weights: tuple[float, ...]
    restore_weights: tuple[float, ...]
    tie_weights: tuple[float, ...]

    @classmethod
    def from_params(cls, p: Robustness) -> Grids:
        """The grids of ``p`` (:class:`compendium.pipeline.params.Robustness`; each a comma-separated string)."""
        parse, ref = sweeps.parse_grid, sweeps.with_reference
        return cls(
            cutoffs=ref(parse(p.zone_cutoffs, float, "zone_cutoffs"), sweeps.PAPER_CUTOFF, sort=True),
            boundaries=ref(parse(p.zone_boundaries, str, "zone_boundaries"), sweeps.PAPER_BOUNDARY),
            tie_rules=ref(parse(p.has_tie_rules, str, "has_tie_rules"), sweeps.PAPER_TIE_RULE),
            cf_weights=parse(p.pwb_cf_heavy_weights, float, "pwb_cf_heavy_weights"),
            restore_weights=parse(p.pwb_restore_weights, float, "pwb_restore_weights"),
            tie_weights=ref(parse(p.bt_tie_weights, float, "bt_tie_weights"), sweeps.PAPER_TIE_WEIGHT, sort=True),
        )


@dataclass(frozen=True)
class Inputs:
    """What the sweeps read: the raw data (:mod:`compendium.data`) and the preferences chapter's exported values."""

    desires: pd.DataFrame  # WORKBank worker ratings
    experts: pd.DataFrame  # WORKBank expert ratings
    pwb_config: Mapping  # PWB weights (config.yaml scoring block)
    cells: pd.DataFrame  # PWB per-cell score sums (compendium.pwb.aggregates.reconstruct_cells)
    pwi: pd.DataFrame  # PWB PWI per model and condition with its printed 95 % interval (pwi_scores.csv)
    counts: pd.DataFrame  # preference study: per-pair wins and ties
    by_category: pd.DataFrame | None  # the same counts per prompt category
    pref_values: Mapping[str, Any]  # results/preferences/exports/robustness.json (P(C beats D))

    @classmethod
    def load(cls, params: Robustness, pref_values: Mapping[str, Any] | None = None) -> Inputs:
        """The raw data of the three studies, each read once, and the values the preferences chapter exports for
        this stage (``results/preferences/exports/robustness.json``, :func:`.sampling.preference_values`) unless
        ``pref_values`` is given. No parameter changes what is read; ``params`` is taken for the contract's one
        signature."""
        import compendium.data as data
        from compendium.pwb import aggregates as agg

        return cls(
            desires=data.load_worker_desires(),
            experts=data.load_expert_ratings(),
            pwb_config=data.load_pwb_config(),
            cells=agg.reconstruct_cells(data.load_pwb_dimension_scores(), data.load_pwb_effect_sizes()),
            pwi=data.load_pwb_pwi_scores(),
            counts=data.load_hitl_pair_counts(),
            by_category=data.load_hitl_pair_counts_by_category(),
            pref_values=MappingProxyType(dict(sampling.preference_values() if pref_values is None else pref_values)),
        )


@dataclass(frozen=True)
class Zones:
    """WORKBank zones: the landscape, the cut-off sweep, both boundaries at the paper's cut-off, the rater resampling."""

    land: pd.DataFrame  # compendium.workbank.landscape.task_landscape
    sweep: pd.DataFrame  # sweeps.zone_sweep over the grid
    at_paper_cutoff: pd.DataFrame  # sweeps.zone_sweep at 3.0, ge and gt, indexed by boundary (whatever the grid)
    sampling: Mapping[str, float]  # sampling.zone_sampling_check


@dataclass(frozen=True)
class Agency:
    """WORKBank Human Agency Scale: the tie-rule sweep and the untied tasks."""

    sweep: pd.DataFrame  # sweeps.has_sweep
    untied: Mapping  # compendium.workbank.agency.untied_only
    n_random: int  # random tie-breaks per cell


@dataclass(frozen=True)
class Pwb:
    """PWB weights: the schemes, the sweep (with ``glm_lead``) and the PWIs."""

    schemes: Mapping[str, Mapping[str, float]]  # the named schemes (v2.1 is "default")
    all_schemes: Mapping[str, Mapping[str, float]]  # named and random
    families: Mapping[str, str]  # scheme -> family (random ones "random")
    sweep: pd.DataFrame  # sweeps.pwb_sweep, with glm_lead (GLM 5.1's prompted PWI minus the best other's)
    pwis: pd.DataFrame  # scheme, model, condition, pwi of every scheme
    intervals: Mapping[str, float]  # sampling.pwb_gain_intervals: the printed intervals, prompted against baseline
    concentration: float  # the Dirichlet concentration of the random schemes

    @property
    def n_weights(self) -> int:
        """The number of dimension weights of v2.1 (for a random weight's typical relative spread)."""
        return len(self.schemes[sweeps.DEFAULT_SCHEME])

    @property
    def named_pwis(self) -> pd.DataFrame:
        return self.pwis[self.pwis["scheme"].isin(self.schemes)]

    @property
    def weights(self) -> pd.DataFrame:
        """One row of dimension weights per scheme (0 where a scheme leaves a dimension out)."""
        return pd.DataFrame(dict(self.all_schemes)).T.fillna(0.0).rename_axis("scheme")


@dataclass(frozen=True)
class PreferenceSweeps:
    """Preferences: the tie-convention sweep and the judgement and category resampling (not to be confused with
    :class:`compendium.pipeline.params.Preferences`, the preferences chapter's parameters)."""

    sweep: pd.DataFrame  # sweeps.bt_sweep, Davidson included
    tie_weights: tuple[float, ...]
    n_ties: int  # "about equal" judgements
    sampling: Mapping[str, float]  # sampling.bt_sampling_check | sampling.c_beats_d_shares
    models: tuple[str, ...]  # compendium.preferences.MODELS
    labels: Mapping[str, str]  # compendium.preferences.MODEL_LABELS


@dataclass(frozen=True)
class RobustnessResult:
    """Every sweep, resampling check and finding of the chapter, each computed once by :func:`build`."""

    params: Robustness
    grids: Grids
    zones: Zones
    agency: Agency
    pwb: Pwb
    bt: PreferenceSweeps
    findings: pd.DataFrame  # findings.findings: results/robustness/tables/summary.csv


def _agency(params: Robustness, inputs: Inputs, grids: Grids) -> Agency:
    from compendium.workbank import agency
    from compendium.workbank.common import TASK

    worker_counts = agency.has_counts(inputs.desires, TASK, "worker desires")
    expert_counts = agency.has_counts(inputs.experts, TASK, "expert ratings")
    with step(STAGE, "HAS tie-rule grid", n=params.has_random_draws, unit="random tie-breaks per cell"):
        has = sweeps.has_sweep(
            worker_counts, expert_counts, grids.tie_rules, seed=params.seed, n_random=params.has_random_draws
        )
    untied = agency.untied_only(worker_counts, expert_counts)
    return Agency(sweep=has, untied=untied, n_random=params.has_random_draws)


def _pwb(params: Robustness, inputs: Inputs, grids: Grids) -> Pwb:
    schemes, families = sweeps.pwb_named_schemes(inputs.pwb_config, grids.cf_weights, grids.restore_weights)
    random_w = sweeps.random_schemes(
        schemes[sweeps.DEFAULT_SCHEME], params.pwb_random_schemes, params.pwb_random_concentration, params.seed
    )
    all_schemes = {**schemes, **random_w}
    all_families = {**families, **{k: "random" for k in random_w}}
    with step(STAGE, "PWB weight schemes", n=len(all_schemes), unit="schemes"):
        per_scheme, pwis = sweeps.pwb_sweep(inputs.cells, all_schemes, all_families)
    per_scheme["glm_lead"] = per_scheme["scheme"].map(sweeps.pwb_lead(pwis, fd.TOP_MODEL))
    return Pwb(
        schemes=MappingProxyType(schemes),
        all_schemes=MappingProxyType(all_schemes),
        families=MappingProxyType(all_families),
        sweep=per_scheme,
        pwis=pwis,
        intervals=MappingProxyType(sampling.pwb_gain_intervals(inputs.pwi)),
        concentration=float(params.pwb_random_concentration),
    )


def _sampling(params: Robustness, inputs: Inputs) -> tuple[dict, dict]:
    """The "how sure?" checks at the paper's setting: (zone check, preference check with P(C beats D)). The
    preference checks run :data:`.sampling.BT_FACTOR` times ``n_sampling`` replicates (they are cheap)."""
    what = "how-sure resampling checks (WORKBank raters, preference judgements and categories)"
    with step(STAGE, what, n=params.n_sampling, unit="replicates"):
        zs = sampling.zone_sampling_check(
            inputs.desires, inputs.experts, sweeps.PAPER_CUTOFF, params.n_sampling, params.seed
        )
        bs = sampling.bt_sampling_check(
            inputs.counts, inputs.by_category, sampling.BT_FACTOR * params.n_sampling, params.seed
        )
    # P(C beats D): the preferences chapter's one computation of it (a key both gave would raise, naming it)
    what = "robustness: the preference resampling checks and P(C beats D)"
    return zs, merge_values(bs, sampling.c_beats_d_shares(inputs.pref_values), what=what)


def build(params: Robustness, inputs: Inputs) -> RobustnessResult:
    """Every sweep of the chapter on ``inputs`` over the grids of ``params``, the resampling checks at the
    paper's setting, and which findings hold: the chapter's whole computation, each part once."""
    from compendium import preferences as pref
    from compendium.workbank import landscape

    grids = Grids.from_params(params)
    land = landscape.task_landscape(inputs.desires, inputs.experts)
    zone_sweep = sweeps.zone_sweep(land, grids.cutoffs, grids.boundaries)
    at_paper = sweeps.zone_sweep(land, [sweeps.PAPER_CUTOFF], ("ge", "gt")).set_index("boundary")
    agency = _agency(params, inputs, grids)
    pwb = _pwb(params, inputs, grids)
    bt = sweeps.bt_sweep(inputs.counts, grids.tie_weights, davidson=True)
    zs, bs = _sampling(params, inputs)
    found = fd.findings(zone_sweep, agency.sweep, agency.untied, pwb.sweep, bt, zs, bs, pwb.intervals)
    return RobustnessResult(
        params=params,
        grids=grids,
        zones=Zones(land=land, sweep=zone_sweep, at_paper_cutoff=at_paper, sampling=MappingProxyType(zs)),
        agency=agency,
        pwb=pwb,
        bt=PreferenceSweeps(
            sweep=bt,
            tie_weights=grids.tie_weights,
            n_ties=int(inputs.counts["ties"].sum()),
            sampling=MappingProxyType(bs),
            models=tuple(pref.MODELS),
            labels=MappingProxyType(dict(pref.MODEL_LABELS)),
        ),
        findings=found,
    )
