"""The preferences study's one computation: :func:`build` runs every analysis once and returns it typed.

    params = study_params("preferences")   # compendium.pipeline.params: the validated section, REFERENCE's defaults
    result = build(params, Inputs.load(params))

``params`` is the validated ``preferences`` section of ``params.yaml`` (:class:`compendium.pipeline.params.Preferences`,
made by :func:`compendium.pipeline.params.study_params`), ``inputs`` the data (:class:`Inputs`, every input read
once). Each section of the result is computed by one function below, from the inputs and the sections before it,
and by no other code: :mod:`.register` maps the result to the register's claim ids, :mod:`.values` to the
chapter's ``values.json`` entries and tables, :mod:`.summary` phrases it and :mod:`.views` displays it
(``tests/preferences/test_preferences_build.py`` counts the calls of every analysis function in a build,
register and summary pass: each runs once).

Which parameters reach which section (:data:`REACHES`): the heavy sections, the active-sampling simulation
and TrueSkill, depend on the simulation and TrueSkill parameters and the seed only.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from compendium.pipeline import paths, yamlfile
from compendium.pipeline.params import Preferences
from compendium.pipeline.progress import say
from compendium.pipeline.studies import study
from compendium.stats.mcdigits import mc_format, mc_step

from . import montecarlo, rowlevel
from .reproduce import (
    MODELS,
    TRAINED,
    bradley_terry_crosscheck,
    bradley_terry_fit,
    bradley_terry_table,
    category_bradley_terry,
    category_pair_table,
    category_sums_match,
    category_win_rates,
    comment_themes_table,
    head_to_head,
    model_record,
    pair_table,
    spearman_bt_vs_val,
    spearman_bt_vs_val_ci,
    validate_pair_counts,
    winrate_vs_base,
)
from .simulation import (
    SimulationResult,
    compare_with_uniform,
    decisive_truth,
    detectable_saving,
    simulate_active_sampling,
    uniform_recovery_at,
)
from .uncertainty import (
    BootstrapBT,
    TrueSkillOrders,
    asymptotic_log_se,
    bootstrap_bradley_terry,
    bootstrap_bradley_terry_clustered,
    category_heterogeneity,
    davidson_comparison,
    holm_pair_tests,
    trueskill_library_check,
    trueskill_orders,
    wilson_rule_familywise_error,
)

#: the study's names (register, claim-id prefix, stages): compendium.pipeline.studies
STUDY = study("preferences")

#: Which ``preferences`` parameters each section of :func:`build` reads (the rest read none).
REACHES: dict[str, tuple[str, ...]] = {
    "bootstrap": ("seed", "n_bootstrap", "ci_level"),
    "cluster_bootstrap": ("seed", "n_bootstrap", "ci_level"),
    "trueskill": ("seed", "trueskill_orders"),
    "simulation": (
        "seed",
        "sim_budget",
        "sim_repetitions",
        "sim_checkpoint_every",
        "sim_batch",
        "sim_arena_skew",
        "sim_prior_sd",
        "sim_target",
    ),
    "rows": ("annotations_path",),
}


# ----------------------------------------------------------------------------------------------
# Inputs
# ----------------------------------------------------------------------------------------------


def published_claims(path: str | Path | None = None) -> dict[str, Any]:
    """``{claim id: published value}`` of the study's register, ``published/hitl.yaml`` (the prose quotes a few
    beside ours)."""
    reg = yamlfile.load(path or paths.PUBLISHED / f"{STUDY.register}.yaml")
    return {c["id"]: c["published"] for c in reg["claims"]}


@dataclass(frozen=True)
class Inputs:
    """Everything the study reads: the released aggregate tables, the row-level annotations when acquired
    (``annotations``: the raw rows, or None), the report's example scenarios, the ``preferences_mc`` stage's
    outputs (``mc``; :func:`compendium.preferences.montecarlo.load`) and the register's published values."""

    counts: pd.DataFrame
    by_category: pd.DataFrame
    prompts: pd.DataFrame
    themes: dict
    scenario_votes: pd.DataFrame | None = None
    annotations: pd.DataFrame | None = None
    mc: dict | None = None
    published: dict = field(default_factory=dict)

    @classmethod
    def load(cls, params: Preferences, *, mc: bool = True) -> Inputs:
        """Read every input from the project, the row-level annotations from ``params.annotations_path`` when
        that file exists (``mc=False``: without the ``preferences_mc`` outputs)."""
        from .. import data

        ann_file = rowlevel.annotations_path(params.annotations_path)
        return cls(
            counts=data.load_hitl_pair_counts(),
            by_category=data.load_hitl_pair_counts_by_category(),
            prompts=data.load_hitl_prompts(),
            themes=data.load_hitl_comment_themes(),
            scenario_votes=data.load_hitl_scenario_votes(),
            annotations=rowlevel.read_annotations(ann_file) if ann_file.exists() else None,
            mc=montecarlo.load() if mc else None,
            published=published_claims(),
        )


# ----------------------------------------------------------------------------------------------
# Sections (each a frozen dataclass, computed by the function after it)
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Report:
    """The study's report from the pair counts: pair table, records, Bradley-Terry as published (with its
    cross-check), win rates against the untrained model, Spearman rho, the category-sum check."""

    cat_check: pd.DataFrame
    pairs: pd.DataFrame
    record: pd.DataFrame
    bt: pd.DataFrame
    bt_point: np.ndarray
    bt_n_iter: int
    crosscheck: pd.DataFrame
    vs_base: dict
    d_vs_b: dict
    rho: float
    rho_ci: dict
    n_ratings: int
    n_ties: int
    n_decisive: int
    tracking: int
    flipping: int
    max_diff_vs_published: float


def reproduce_report(inputs: Inputs) -> Report:
    counts = validate_pair_counts(inputs.counts)
    fit = bradley_terry_fit(counts)
    bt = bradley_terry_table(counts, fit=fit)
    pairs = pair_table(counts)
    return Report(
        cat_check=category_sums_match(inputs.by_category, counts),
        pairs=pairs,
        record=model_record(counts),
        bt=bt,
        bt_point=_frozen(fit.strengths),
        bt_n_iter=int(fit.n_iter),
        crosscheck=bradley_terry_crosscheck(counts, published=fit.strengths),
        vs_base=winrate_vs_base(counts),
        d_vs_b=head_to_head(counts, "recipe_d", "recipe_b"),
        rho=spearman_bt_vs_val(bt),
        rho_ci=spearman_bt_vs_val_ci(bt),
        n_ratings=int(counts["n"].sum()),
        n_ties=int(counts["ties"].sum()),
        n_decisive=int(counts["x_wins"].sum() + counts["y_wins"].sum()),
        tracking=int((pairs["signal"] == "tracks").sum()),
        flipping=int((pairs["signal"] == "flips").sum()),
        max_diff_vs_published=_bt_vs_published(bt, inputs.published),
    )


def _bt_vs_published(bt: pd.DataFrame, pub: dict) -> float:
    """Largest |our BT strength - published| over the trained recipes (NaN without the published values)."""
    if not pub:
        return float("nan")
    s = bt.set_index("model")["strength"]
    return float(max(abs(s[m] - pub[f"{STUDY.claim_prefix}bt.{m}"]) for m in TRAINED))


@dataclass(frozen=True)
class Categories:
    """Per prompt category: Bradley-Terry fits, win rates, pair tables, and the heterogeneity test."""

    bt: pd.DataFrame
    win_rates: pd.DataFrame
    pairs: pd.DataFrame
    heterogeneity: dict
    model_decisive: pd.Series


def per_category(inputs: Inputs) -> Categories:
    bc = inputs.by_category
    return Categories(
        bt=category_bradley_terry(bc),
        win_rates=category_win_rates(bc),
        pairs=category_pair_table(bc),
        heterogeneity=category_heterogeneity(bc),
        model_decisive=category_model_decisive(bc),
    )


def category_model_decisive(by_category: pd.DataFrame) -> pd.Series:
    """Decisive judgements per (category, model), over the model's four pairs."""
    dec = by_category.assign(d=by_category["x_wins"] + by_category["y_wins"])
    return (
        pd.concat(
            [
                dec[["category", "model_x", "d"]].rename(columns={"model_x": "m"}),
                dec[["category", "model_y", "d"]].rename(columns={"model_y": "m"}),
            ]
        )
        .groupby(["category", "m"])["d"]
        .sum()
    )


@dataclass(frozen=True)
class Themes:
    table: pd.DataFrame
    check: dict


def comment_themes(inputs: Inputs) -> Themes:
    table, check = comment_themes_table(inputs.themes)
    return Themes(table=table, check=check)


@dataclass(frozen=True)
class Bootstrap:
    """A bootstrap of the published fit: the replicates, their summary at ``ci_level`` (the judgement
    bootstrap's with the asymptotic SE beside it), and log(pi_C / pi_D) with P(C stronger than D)."""

    boot: BootstrapBT
    summary: pd.DataFrame
    c_vs_d: dict
    rank_probs: pd.DataFrame | None = None
    prob_greater: pd.DataFrame | None = None
    rank_shares: dict | None = None


def judgement_bootstrap(inputs: Inputs, params: Preferences, report: Report) -> Bootstrap:
    counts = inputs.counts
    boot = bootstrap_bradley_terry(counts, n_boot=params.n_bootstrap, seed=params.seed, point=report.bt_point)
    summary = boot.summary(level=params.ci_level)
    summary["asymptotic_se_log"] = asymptotic_log_se(counts, boot.point)
    return Bootstrap(
        boot=boot,
        summary=summary,
        c_vs_d=boot.log_ratio_interval("recipe_c", "recipe_d", level=params.ci_level),
        rank_probs=boot.rank_probabilities(),
        prob_greater=boot.prob_greater(),
        rank_shares=rank_shares(boot),
    )


def rank_shares(boot) -> dict[str, float]:
    """Shares of bootstrap replicates with the untrained model and Recipe A in the bottom two / untrained last."""
    r_s = (-boot.strengths).argsort(1).argsort(1)  # 0 = best
    ui, ai = MODELS.index("untrained"), MODELS.index("recipe_a")
    return {
        "bottom_pair": float(((r_s[:, ui] >= 3) & (r_s[:, ai] >= 3)).mean()),
        "untrained_last": float((r_s[:, ui] == 4).mean()),
    }


def category_bootstrap(inputs: Inputs, params: Preferences, report: Report) -> Bootstrap:
    boot = bootstrap_bradley_terry_clustered(
        inputs.by_category, n_boot=params.n_bootstrap, seed=params.seed + 1, point=report.bt_point
    )
    return Bootstrap(
        boot=boot,
        summary=boot.summary(level=params.ci_level),
        c_vs_d=boot.log_ratio_interval("recipe_c", "recipe_d", level=params.ci_level),
    )


@dataclass(frozen=True)
class PairTests:
    """Recipe D against Recipe C head to head, the Holm-adjusted pair tests, the Wilson rule's familywise error."""

    d_vs_c: dict
    holm: pd.DataFrame
    wilson_fwer: dict


def pair_tests(inputs: Inputs, report: Report) -> PairTests:
    counts = inputs.counts
    return PairTests(
        d_vs_c=head_to_head(counts, "recipe_d", "recipe_c"),
        holm=holm_pair_tests(report.pairs),
        wilson_fwer=wilson_rule_familywise_error(counts["x_wins"] + counts["y_wins"]),
    )


@dataclass(frozen=True)
class Davidson:
    """The Davidson ties model beside the half-win fit; ``truth`` (its strengths, :data:`MODELS` order) is the
    simulation's truth (:func:`compendium.preferences.decisive_truth` ``"davidson"``), ``truth_ties_dropped``
    the alternative it is compared with."""

    table: pd.DataFrame
    fit: dict
    truth: np.ndarray
    truth_ties_dropped: np.ndarray


def davidson(inputs: Inputs, report: Report) -> Davidson:
    table, fit = davidson_comparison(inputs.counts, report.bt)
    return Davidson(
        table=table,
        fit=fit,
        truth=_frozen(table["davidson"].to_numpy(float)),
        truth_ties_dropped=_frozen(decisive_truth(inputs.counts, "ties_dropped")),
    )


@dataclass(frozen=True)
class TrueSkill:
    """TrueSkill over random orders in two environments (package defaults, tau = 0), their summaries
    (indexed by model), the stacked table, the library check and the shares of orders matching BT."""

    default: TrueSkillOrders
    static: TrueSkillOrders
    libdiff: float
    summary_default: pd.DataFrame
    summary_static: pd.DataFrame
    table: pd.DataFrame
    match_default: float
    match_static: float


def trueskill(inputs: Inputs, params: Preferences, report: Report) -> TrueSkill:
    counts, n, seed = inputs.counts, params.trueskill_orders, params.seed
    ts_default = trueskill_orders(counts, n_orders=n, seed=seed)
    ts_static = trueskill_orders(counts, n_orders=n, seed=seed, tau=0.0)
    libdiff = max(
        trueskill_library_check(counts, ts_default, n_check=1),
        trueskill_library_check(counts, ts_static, n_check=1, tau=0.0),
    )
    sd, ss = ts_default.summary(), ts_static.summary()
    strengths = report.bt.set_index("model").loc[list(MODELS), "strength"].to_numpy()
    return TrueSkill(
        default=ts_default,
        static=ts_static,
        libdiff=float(libdiff),
        summary_default=sd.set_index("model"),
        summary_static=ss.set_index("model"),
        table=pd.concat([sd.assign(environment="default tau"), ss.assign(environment="tau = 0")], ignore_index=True),
        match_default=float(ts_default.share_matching_ranking(strengths)),
        match_static=float(ts_static.share_matching_ranking(strengths)),
    )


@dataclass(frozen=True)
class Simulation:
    """The active-sampling simulation, the judgements each design needs, recovery at the study's own size,
    each design against uniform sampling at ``n_compare`` (where uniform first reaches the target, or the
    budget) and the difference that comparison can detect."""

    sim: SimulationResult
    needed: pd.DataFrame
    n_decisive: int
    at_study: dict
    n_compare: int
    vs_uniform: pd.DataFrame
    detectable: dict


def simulation(params: Preferences, report: Report, dav: Davidson) -> Simulation:
    p, truth = params, dav.truth
    sim = simulate_active_sampling(
        truth,
        budget=p.sim_budget,
        repetitions=p.sim_repetitions,
        checkpoint_every=p.sim_checkpoint_every,
        seed=p.seed,
        batch=p.sim_batch,
        arena_skew=p.sim_arena_skew,
        prior_sd=p.sim_prior_sd,
        labels=MODELS,
    )
    needed = sim.judgements_needed(target=p.sim_target, seed=p.seed)
    nd = report.n_decisive
    at_study = uniform_recovery_at(truth, nd, repetitions=p.sim_repetitions, seed=p.seed, prior_sd=p.sim_prior_sd)
    v = needed.set_index("strategy").loc["uniform", "first_checkpoint_ranking"]  # where the curve itself gets there
    n_cmp = int(v) if np.isfinite(v) else int(p.sim_budget)
    return Simulation(
        sim=sim,
        needed=needed,
        n_decisive=nd,
        at_study=at_study,
        n_compare=n_cmp,
        vs_uniform=compare_with_uniform(sim, n_cmp),
        detectable=detectable_saving(sim.curves, n_cmp, p.sim_repetitions),
    )


@dataclass(frozen=True)
class Gap:
    """The C-D gap: its Davidson-scale estimate, the bootstrap draws, the adjacent gaps of the truth, and
    the needed-by-gap table of the ``preferences_mc`` stage (``kept``: the rows where C-D stays the closest
    pair; ``table``: those rows rounded, with the share of bootstrap gaps below each)."""

    gap_hat: float
    cd_draws: np.ndarray
    adjacent: list
    kept: pd.DataFrame
    table: pd.DataFrame
    dropped: list


def _needed_to_mc_digits(n: float, lo: float, hi: float, se: float) -> tuple[float, str]:
    """One row of the needed-by-gap table as the chapter prints it: the number of judgements to the digits its
    Monte Carlo SE supports (:func:`compendium.stats.mcdigits.mc_step`, rule ``"estimate"``: the shortest number
    within one SE) and its 90 % Monte Carlo interval, ``"13,700–14,200"``, whose ends are printed to the SE's
    leading digit (rule ``"leading"``: they describe the error itself)."""
    step = mc_step(se, n, "estimate")
    ends = mc_step(se, rule="leading")
    return round(n / step) * step, f"{mc_format(lo, ends, thousands=True)}–{mc_format(hi, ends, thousands=True)}"


def c_d_gap(inputs: Inputs, dav: Davidson, boot: Bootstrap) -> Gap:
    if inputs.mc is None:
        raise ValueError("build: inputs.mc is None; the gap section needs the preferences_mc stage's outputs")
    ts, cd = dav.truth, boot.c_vs_d
    ci_, di_ = MODELS.index("recipe_c"), MODELS.index("recipe_d")
    gap_hat = float(np.log(ts[ci_] / ts[di_]))
    cd_draws = np.log(boot.boot.strengths[:, ci_] / boot.boot.strengths[:, di_])
    order = list(np.argsort(-np.log(ts), kind="stable"))
    adjacent = [
        (MODELS[a], MODELS[b], float(np.log(ts[a] / ts[b]))) for a, b in zip(order[:-1], order[1:], strict=True)
    ]
    mc = inputs.mc["gap"]
    kept = mc[mc["closest_pair"].astype(bool)].reset_index(drop=True)
    printed = [
        _needed_to_mc_digits(*row)
        for row in zip(kept["n_needed"], kept["n_mc_lo"], kept["n_mc_hi"], kept["n_mc_se"].to_numpy(float), strict=True)
    ]
    table = pd.DataFrame(
        {
            "ratio_to_estimate": kept["factor"].to_numpy(float),
            "log_gap": kept["log_gap"].to_numpy(float),
            "n_needed": [n for n, _ in printed],
            "n_mc_interval": [interval for _, interval in printed],
            "share_of_bootstrap_gaps_below": [
                float((cd_draws * gap_hat / cd["log_ratio"] < g).mean()) for g in kept["log_gap"]
            ],
        }
    )
    dropped = [f"×{f:g}" for f in mc.loc[~mc["closest_pair"].astype(bool), "factor"]]
    return Gap(gap_hat=gap_hat, cd_draws=_frozen(cd_draws), adjacent=adjacent, kept=kept, table=table, dropped=dropped)


@dataclass(frozen=True)
class RowLevel:
    """The row-level annotations (normalised ``rows``) and everything computed from them."""

    rows: pd.DataFrame
    pairs_check: pd.DataFrame
    categories_check: pd.DataFrame
    kappa: pd.DataFrame
    side: dict
    position: dict | None
    per_participant: pd.DataFrame
    activity: dict
    disagreement: pd.DataFrame
    examples: pd.DataFrame
    n_participants: int
    length_ratios: dict | None
    scenario_votes: dict | None


def row_level(inputs: Inputs) -> RowLevel | None:
    """None without acquired annotations."""
    if inputs.annotations is None:
        return None
    ann = rowlevel.normalise_annotations(inputs.annotations, prompts=inputs.prompts)
    per_participant, activity = rowlevel.participant_activity(ann)
    votes = None
    if inputs.scenario_votes is not None:
        votes = {
            r.prompt_id: rowlevel.scenario_votes(ann, r.prompt_id, r.winner_model, r.loser_model)
            for r in inputs.scenario_votes.itertuples(index=False)
        }
    return RowLevel(
        rows=ann,
        pairs_check=rowlevel.compare_with_published(rowlevel.aggregate_pair_counts(ann), inputs.counts),
        categories_check=rowlevel.compare_with_published(
            rowlevel.aggregate_pair_counts(ann, by=("category",)), inputs.by_category, by=("category",)
        ),
        kappa=rowlevel.fleiss_table(ann),
        side=rowlevel.canonical_side_asymmetry(ann),
        position=rowlevel.position_bias(ann),
        per_participant=per_participant,
        activity=activity,
        disagreement=rowlevel.disagreement_by_category(ann),
        examples=rowlevel.disagreement_examples(ann),
        n_participants=rowlevel.n_participants(ann),
        length_ratios=rowlevel.length_ratios(ann),
        scenario_votes=votes,
    )


# ----------------------------------------------------------------------------------------------
# The result
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DataSections:
    """The sections of a build that no parameter reaches except ``annotations_path`` (what the register
    reads: :func:`compendium.preferences.register.register_values` takes these or a whole result)."""

    inputs: Inputs
    report: Report
    categories: Categories
    themes: Themes
    rows: RowLevel | None


def data_sections(inputs: Inputs, timings: dict | None = None, stage: str | None = None) -> DataSections:
    """The report, per-category, theme and row-level sections, each computed once."""
    t = {} if timings is None else timings
    with _section(t, "report", stage):
        report = reproduce_report(inputs)
    with _section(t, "categories", stage):
        categories = per_category(inputs)
        themes = comment_themes(inputs)
    with _section(t, "rows", stage):
        rows = row_level(inputs)
    return DataSections(inputs=inputs, report=report, categories=categories, themes=themes, rows=rows)


@dataclass(frozen=True)
class PreferencesResult:
    """Every analysis of the preferences study, each computed once (:func:`build`). Read-only: the arrays
    are not writeable; treat the frames as read-only too. ``timings``: seconds per section (not compared)."""

    params: Preferences
    inputs: Inputs
    report: Report
    categories: Categories
    themes: Themes
    bootstrap: Bootstrap
    cluster: Bootstrap
    tests: PairTests
    davidson: Davidson
    trueskill: TrueSkill
    simulation: Simulation
    gap: Gap
    rows: RowLevel | None
    timings: dict = field(default_factory=dict, compare=False, repr=False)

    def c_beats_d(self) -> dict[str, float]:
        """P(Recipe C stronger than Recipe D) over this build's bootstrap replicates, judgements resampled
        (``_judgements``) and prompt categories resampled too (``_categories``), the number of replicates
        and each share's Monte Carlo SE: the keys of ``compendium.robustness.sampling.c_beats_d_shares``, from the one
        computation of this number (``values.json``: ``pref.c_vs_d.p_c_stronger``,
        ``pref.bootstrap_cluster.p_c_stronger_than_d``, ``pref.c_vs_d.n_bootstrap``)."""
        n = int(self.params.n_bootstrap)
        out: dict[str, float] = {"c_beats_d_n_boot": n}
        for name, b in (("judgements", self.bootstrap), ("categories", self.cluster)):
            p = float(b.c_vs_d["p_greater"])
            out[f"p_c_beats_d_{name}"] = p
            out[f"p_c_beats_d_{name}_mc_se"] = float(np.sqrt(p * (1 - p) / n))
        return out


def _frozen(a) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


@contextmanager
def _section(timings: dict, name: str, stage: str | None):
    if stage:
        say(stage, f"{name} ...")
    t0 = time.perf_counter()
    yield
    timings[name] = time.perf_counter() - t0
    if stage:
        say(stage, f"{name}: done in {timings[name]:.1f} s")


def build(params: Preferences, inputs: Inputs, *, stage: str | None = None) -> PreferencesResult:
    """Run every analysis of the study once, in the chapter's order (``params``: the validated section,
    :func:`compendium.pipeline.params.study_params`). ``stage``: report each section's progress to the pipeline's
    terminal under that name (:func:`compendium.pipeline.progress.say`)."""
    t: dict[str, float] = {}
    d = data_sections(inputs, t, stage)
    report = d.report
    with _section(t, "bootstrap", stage):
        boot = judgement_bootstrap(inputs, params, report)
    with _section(t, "cluster_bootstrap", stage):
        cluster = category_bootstrap(inputs, params, report)
    with _section(t, "tests", stage):
        tests = pair_tests(inputs, report)
    with _section(t, "davidson", stage):
        dav = davidson(inputs, report)
    with _section(t, "trueskill", stage):
        ts = trueskill(inputs, params, report)
    with _section(t, "simulation", stage):
        sim = simulation(params, report, dav)
    with _section(t, "gap", stage):
        gap = c_d_gap(inputs, dav, boot)
    return PreferencesResult(
        params=params,
        inputs=inputs,
        report=report,
        categories=d.categories,
        themes=d.themes,
        bootstrap=boot,
        cluster=cluster,
        tests=tests,
        davidson=dav,
        trueskill=ts,
        simulation=sim,
        gap=gap,
        rows=d.rows,
        timings=t,
    )
