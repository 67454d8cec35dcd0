"""The expected shape of every raw table: file, columns, dtypes, value ranges and keys.

One :class:`TableSpec` per table: the project's declaration of a raw table (also read by the datasheet
and the acquisition step). :func:`pandera_schema` turns a spec into a pandera ``DataFrameSchema`` (column
presence, nulls, kind, range, allowed values, unique key, row count), which does the checking;
:func:`compendium.data.load.load_table` reads a file, checks it against the recorded sha256, validates it
with that schema and turns the first failure into a :class:`DataValidationError` naming the file, the
column and the expectation. Nothing is dropped or coerced.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

# column kinds
INT, FLOAT, STR, BOOL, LIST, ANY = "int", "float", "str", "bool", "list", "any"


@dataclass(frozen=True)
class Column:
    name: str
    kind: str = ANY
    lo: float | None = None  # inclusive lower bound (numbers)
    hi: float | None = None  # inclusive upper bound (numbers)
    nullable: bool = False
    allowed: tuple | None = None  # allowed values (categoricals)


@dataclass(frozen=True)
class TableSpec:
    name: str  # loader name without the "load_" prefix
    relpath: str  # path under data/
    reader: str  # csv | jsonl | json_records | json_prompts
    columns: tuple[Column, ...]
    key: tuple[str, ...] = ()  # columns that must be unique together
    expected_rows: int | None = None  # rows in the released file (sanity check)
    # expected_rows is a full grid (model x condition x dimension) of which the authors' analysis leaves out
    # a cell with no valid run (``if scores:``): fewer rows pass, more do not
    grid: bool = False
    read_kwargs: dict = field(default_factory=dict)
    description: str = ""


def _ratings(*names: str, lo: int = 1, hi: int = 5) -> tuple[Column, ...]:
    return tuple(Column(n, INT, lo, hi) for n in names)


_WB_TASK = (Column("Task ID", INT, 1), Column("Occupation (O*NET-SOC Title)", STR), Column("Task", STR))
_DESIRE_REASONS = tuple(
    Column(f"Reasons for Automation Desire - {r}", BOOL)
    for r in ("Free Time", "Repetitive", "Human Error", "Stress", "Difficulty", "Scale")
)
_AGENCY_REASONS = tuple(
    Column(f"Reasons for Human Agency - {r}", BOOL)
    for r in ("Physical", "Control", "Domain Knowledge", "Empathy", "Quality Oversight", "Dynamic", "Ethical")
)
_TASK_CHARS = _ratings(
    "Physical Action Requirement",
    "Interpersonal Communication Requirement",
    "Involved Uncertainty",
    "Domain Expertise Requirement",
)
_LLM_TYPES = tuple(
    Column(f"LLM Usage by Type - {t}", STR, nullable=True)
    for t in (
        "Information Access",
        "Edit",
        "Idea Generation",
        "Communication",
        "Analysis",
        "Decision",
        "Coding",
        "System Design",
        "Data Processing",
    )
)

WORKBANK = (
    TableSpec(
        "worker_desires",
        "workbank/domain_worker_desires.csv",
        "csv",
        _WB_TASK
        + (Column("User ID", STR), Column("Date", STR), Column("Self-reported Expertise", STR))
        + _ratings("Automation Desire Rating", "Time", "Core Skill Rating", "Job Security Rating", "Enjoyment Rating")
        + _DESIRE_REASONS
        + _TASK_CHARS
        + _ratings("Human Agency Scale Rating")
        + _AGENCY_REASONS
        + (
            Column("Other Reason for Automation Desire", STR, nullable=True),
            Column("Other Reason for Human Agency", STR, nullable=True),
        ),
        key=("User ID", "Task ID"),
        expected_rows=5731,
        description="worker ratings: one row per (worker, task)",
    ),
    TableSpec(
        "worker_metadata",
        "workbank/domain_worker_metadata.csv",
        "csv",
        (
            Column("User ID", STR),
            Column("Occupation (O*NET-SOC Title)", STR),
            Column("Gender", STR),
            Column("Race", STR),
            Column("Income", STR),
            Column("Age", INT, 16, 100),
            Column("Education", STR),
            Column("Experience", STR),
            Column("AI Tedious Work Attitude", STR),
            Column("AI Job Importance Attitude", STR),
            Column("AI Daily Interest Attitude", STR),
            Column("AI Suffering Attitude", STR),
            Column("Zip Code", STR, nullable=True),
            Column("Political Affiliation", STR),
            Column("LLM Familiarity", STR),
            Column("LLM Use in Work", STR),
        )
        + _LLM_TYPES
        + (Column("Recruitment Source", STR),),
        key=("User ID",),
        expected_rows=1500,
        read_kwargs={"dtype": {"Zip Code": "string"}},
        description="worker demographics and attitudes: one row per worker",
    ),
    TableSpec(
        "expert_ratings",
        "workbank/expert_rated_technological_capability.csv",
        "csv",
        _WB_TASK
        + (Column("User ID", STR), Column("Date", STR))
        + _ratings("Automation Capacity Rating")
        + _ratings(
            "Physical Action Requirement",
            "Involved Uncertainty",
            "Domain Expertise Requirement",
            "Interpersonal Communication Requirement",
            "Human Agency Scale Rating",
        ),
        key=(),
        expected_rows=2057,  # 19 (expert, task) pairs occur twice in the release: kept, see datasheet
        description="AI-expert ratings: one row per (expert, task) rating",
    ),
    TableSpec(
        "task_metadata",
        "workbank/task_statement_with_metadata.csv",
        "csv",
        (
            Column("O*NET-SOC Code", STR),
            Column("Occupation (O*NET-SOC Title)", STR),
            Column("Task ID", INT, 1),
            Column("Task", STR),
            Column("Task Type", STR),
            Column("Date", STR),
            Column("Category", FLOAT, 1, 7),
            Column("Frequency", FLOAT, 1, 7),
            Column("Importance", FLOAT, 1, 5),
            Column("Relevance", FLOAT, 0, 100),
            Column("Occupation Mean Annual Wage", FLOAT, 0, nullable=True),
            Column("Occupation Employment", FLOAT, 0, nullable=True),
            Column("Skill (O*NET Work Activity)", STR),
            Column("Skill ID (O*NET Generalized Work Activity ID)", STR),
        ),
        key=("Task ID",),
        expected_rows=2131,
        description="O*NET task statements with wages, employment and skills: one row per task ID",
    ),
    TableSpec(
        "claude_usage",
        "workbank/external/usage_from_anthropic.csv",
        "csv",
        (Column("task_name", STR), Column("pct", FLOAT, 0, 100)),
        key=("task_name",),
        expected_rows=3514,
        description="Anthropic Economic Index: share of Claude.ai conversations per O*NET task",
    ),
    TableSpec(
        "yc_company_mappings",
        "workbank/external/company_to_workflow_aggregation.csv",
        "csv",
        (Column("task", STR), Column("occupation", STR), Column("company_count", INT, 0), Column("company", STR)),
        key=("task", "occupation"),
        expected_rows=2076,
        description="YC companies mapped (by an LLM, by the authors) to O*NET tasks",
    ),
    TableSpec(
        "company_years",
        "workbank/external/company_to_year_mapping.csv",
        "csv",
        (Column("company", STR), Column("year", INT, 1990, 2030)),
        key=("company",),
        expected_rows=1633,
        description="YC company batch year",
    ),
    TableSpec(
        "arxiv_paper_mappings",
        "workbank/external/paper_to_workflow_mapping_aggregated.csv",
        "csv",
        (Column("task", STR), Column("occupation", STR), Column("paper_count", INT, 0), Column("paper_ids", STR)),
        key=("task", "occupation"),
        expected_rows=2176,
        description="arXiv papers mapped (by an LLM, by the authors) to O*NET tasks",
    ),
    TableSpec(
        "paper_years",
        "workbank/external/paper_id_to_year_mapping.csv",
        "csv",
        (Column("paper_id", STR), Column("year", INT, 1990, 2030)),
        key=("paper_id",),
        expected_rows=1214,
        read_kwargs={"dtype": {"paper_id": "string"}},
        description="arXiv paper year (paper_id read as text: as a number 2301.12050 would lose its 0)",
    ),
    TableSpec(
        "bls_wages",
        "workbank/external/M2024_bls_wage_data.csv",
        "csv",
        (
            Column("OCC_CODE", STR),
            Column("OCC_TITLE", STR),
            Column("O_GROUP", STR),
            Column("TOT_EMP", STR),
            Column("A_MEAN", STR),
        ),
        key=("OCC_CODE", "O_GROUP"),
        expected_rows=1403,
        read_kwargs={"dtype": str, "keep_default_na": False},
        description="BLS OEWS May 2024, national cross-industry (numbers as printed, e.g. '154,187,380', '#')",
    ),
    TableSpec(
        "bls_age",
        "workbank/external/bls_age.csv",
        "csv",
        (Column("Occupation", STR, nullable=True),),
        expected_rows=None,
        read_kwargs={"dtype": str},
        description="BLS CPS 2024 table 11b: employed by occupation and age (multi-line headers as published)",
    ),
    TableSpec(
        "bls_race_gender",
        "workbank/external/bls_race_gender.csv",
        "csv",
        (
            Column("Occupation", STR, nullable=True),
            Column("Total employed", STR, nullable=True),
            Column("Women", STR, nullable=True),
            Column("White", STR, nullable=True),
            Column("Black or African American", STR, nullable=True),
            Column("Asian", STR, nullable=True),
            Column("Hispanic or Latino", STR, nullable=True),
        ),
        expected_rows=None,
        read_kwargs={"dtype": str},
        description="BLS CPS 2024 table 11: employed by occupation, sex, race and Hispanic origin (% as printed)",
    ),
)

PWB_MODELS = (
    "GLM 5.1",
    "Gemma 4 31B",
    "DeepSeek V3.2",
    "GPT-oss 120B",
    "Nemotron-Cascade 30B",
    "Devstral-2 123B",
    "Qwen3.5 27B",
)
PWB_VARIANTS = ("baseline", "with_system_prompt")
PWB_DIMENSIONS = (
    "cognitive_forcing",
    "contrastive_explanation",
    "skill_preservation",
    "draft_annotation",
    "uncertainty_transparency",
    "complementarity",
    "anti_sycophancy",
    "metacognitive_calibration",
    "appropriate_reliance",
    "ethical_surfacing",
)
_AO = "pwb/analysis_output/"
_MODEL = Column("Model", STR, allowed=PWB_MODELS)
_VARIANT = Column("Variant", STR, allowed=PWB_VARIANTS)

PWB = (
    TableSpec(
        "pwb_dimension_scores",
        _AO + "dimension_scores.csv",
        "csv",
        (
            _MODEL,
            _VARIANT,
            Column("Dimension", STR, allowed=PWB_DIMENSIONS),
            Column("Mean", FLOAT, 0, 3),
            Column("HDI_lower", FLOAT, 0, 3),
            Column("HDI_upper", FLOAT, 0, 3),
            Column("N", INT, 0),
        ),
        key=("Model", "Variant", "Dimension"),
        expected_rows=140,
        grid=True,
        description="released per-cell means (model x condition x dimension), 0-3",
    ),
    TableSpec(
        "pwb_pwi_scores",
        _AO + "pwi_scores.csv",
        "csv",
        (
            _MODEL,
            _VARIANT,
            Column("PWI", FLOAT, 0, 100),
            Column("CI_lower", FLOAT, 0, 100),
            Column("CI_upper", FLOAT, 0, 100),
        ),
        key=("Model", "Variant"),
        expected_rows=14,
        description="released bootstrap PWI per model and condition",
    ),
    TableSpec(
        "pwb_summary_table",
        _AO + "summary_table.csv",
        "csv",
        (
            _MODEL,
            Column("PWI_baseline", FLOAT, 0, 100),
            Column("PWI_prompted", FLOAT, 0, 100),
            Column("Delta_PWI", FLOAT, -100, 100),
        ),
        key=("Model",),
        expected_rows=7,
        description="released PWI summary (paper Table 2)",
    ),
    TableSpec(
        "pwb_effect_sizes",
        _AO + "effect_sizes.csv",
        "csv",
        (
            _MODEL,
            Column("Dimension", STR, allowed=PWB_DIMENSIONS),
            Column("Cohens_d", FLOAT, nullable=True),
            Column("Interpretation", STR, nullable=True),
            Column("Baseline_mean", FLOAT, 0, 3),
            Column("Prompted_mean", FLOAT, 0, 3),
        ),
        key=("Model", "Dimension"),
        expected_rows=70,
        grid=True,
        description="released per-model, per-dimension Cohen's d",
    ),
    TableSpec(
        "pwb_dimension_diagnostics",
        _AO + "dimension_diagnostics.csv",
        "csv",
        (
            Column("Dimension", STR, allowed=PWB_DIMENSIONS),
            Column("Baseline", FLOAT, 0, 3),
            Column("Prompted", FLOAT, 0, 3),
            Column("Delta", FLOAT, -3, 3),
            Column("CI_lower", FLOAT, -3, 3),
            Column("CI_upper", FLOAT, -3, 3),
            Column("QWK", FLOAT, -1, 1),
            Column("Spread", FLOAT, 0, 3),
            Column("Models_improving", INT, 0, 7),
            Column("Weight", FLOAT, 0, 1),
        ),
        key=("Dimension",),
        expected_rows=10,
        description="released Table 3 diagnostics",
    ),
    TableSpec(
        "pwb_irr_table",
        _AO + "irr_table.csv",
        "csv",
        (
            Column("Dimension", STR),
            Column("N", INT, 0),
            Column("exact", FLOAT, 0, 100),
            Column("adjacent", FLOAT, 0, 100),
            Column("qwk", FLOAT, -1, 1),
            Column("alpha", FLOAT, -1, 1),
            Column("spread", FLOAT, 0, 3),
        ),
        key=("Dimension",),
        expected_rows=11,
        description="released inter-rater reliability on the full data",
    ),
    TableSpec(
        "pwb_layer_summary",
        _AO + "layer_summary.csv",
        "csv",
        (Column("Layer", STR), _VARIANT, Column("Mean", FLOAT, 0, 3), Column("N", INT, 0)),
        key=("Layer", "Variant"),
        expected_rows=6,
        description="released pooled means per layer",
    ),
    TableSpec(
        "pwb_correlation_matrix",
        _AO + "correlation_matrix.csv",
        "csv",
        tuple(Column(d, FLOAT, -1.0000001, 1.0000001) for d in PWB_DIMENSIONS),
        expected_rows=10,
        read_kwargs={"index_col": 0},
        description="released dimension correlation matrix",
    ),
    TableSpec(
        "pwb_pilot_scores",
        "pwb/pilot/pilot_scores.csv",
        "csv",
        (Column("item_id", INT, 1), Column("human_score", INT, 0, 3), Column("note", STR, nullable=True)),
        key=("item_id",),
        expected_rows=30,
        description="human pilot: one human score per item",
    ),
    TableSpec(
        "pwb_pilot_ground_truth",
        "pwb/pilot/pilot_ground_truth.json",
        "json_records",
        (
            Column("item_id", INT, 1),
            Column("dimension", STR, allowed=PWB_DIMENSIONS),
            Column("model", STR, allowed=PWB_MODELS),
            Column("condition", STR, allowed=PWB_VARIANTS),
            Column("prompt_id", STR),
            Column("run_idx", INT, 0),
            Column("llm_judge_median", INT, 0, 3),
            Column("llm_individual_scores", LIST),
        ),
        key=("item_id",),
        expected_rows=30,
        description="human pilot: the panel's scores for each item",
    ),
    TableSpec(
        "pwb_fourth_judge_scores",
        "pwb/pilot/fourth_judge_scores.jsonl",
        "jsonl",
        (
            Column("item_id", INT, 1),
            Column("dimension", STR, allowed=PWB_DIMENSIONS),
            Column("model", STR, allowed=PWB_MODELS),
            Column("condition", STR, allowed=PWB_VARIANTS),
            Column("prompt_id", STR),
            Column("panel_individual_scores", LIST),
            Column("panel_median", INT, 0, 3),
            Column("claude_score", INT, -1, 3),
            Column("claude_reasoning", STR, nullable=True),
            Column("claude_evidence", ANY, nullable=True),
            Column("attempts", INT, 0, nullable=True),
        ),
        key=(),
        expected_rows=504,  # 4 item_ids occur twice: kept; the PWB chapter states the rule
        description="fourth-judge sample: panel scores, panel median and a fourth judge per item",
    ),
    TableSpec(
        "pwb_fourth_judge_errors",
        "pwb/pilot/fourth_judge_errors.jsonl",
        "jsonl",
        (
            Column("item_id", INT, 1),
            Column("claude_score", INT, -1, 3),
            Column("error", STR, nullable=True),
            Column("attempts", INT, 0, nullable=True),
        ),
        expected_rows=111,
        description="fourth-judge calls that failed (score -1) and their errors",
    ),
    TableSpec(
        "pwb_temporal_scores",
        _AO + "temporal_trend/all_scores_long.csv",
        "csv",
        (Column("model", STR), Column("dimension", STR), Column("score", FLOAT, 0, 3)),
        expected_rows=2516,
        description="temporal-trend side study: long table of scores",
    ),
    TableSpec(
        "pwb_temporal_by_model",
        _AO + "temporal_trend/pwi6_by_model.csv",
        "csv",
        (Column("model", STR), Column("PWI_6", FLOAT, 0, 100)),
        key=("model",),
        expected_rows=10,
        description="temporal-trend side study: PWI over 6 dimensions per model",
    ),
    TableSpec(
        "pwb_temporal_per_dim",
        _AO + "temporal_trend/per_dim_trend.csv",
        "csv",
        (
            Column("dimension", STR),
            Column("slope_per_month", FLOAT),
            Column("r", FLOAT, -1, 1),
            Column("p", FLOAT, 0, 1),
        ),
        key=("dimension",),
        expected_rows=6,
        description="temporal-trend side study: per-dimension slopes",
    ),
)

HITL_MODELS = ("untrained", "recipe_a", "recipe_b", "recipe_c", "recipe_d")
_PAIR = (
    Column("model_x", STR, allowed=HITL_MODELS),
    Column("model_y", STR, allowed=HITL_MODELS),
    Column("x_wins", INT, 0),
    Column("y_wins", INT, 0),
    Column("ties", INT, 0),
    Column("n", INT, 1),
    Column("source", STR),
)

HITL = (
    TableSpec(
        "hitl_pair_counts",
        "hitl/published_pair_counts.csv",
        "csv",
        _PAIR,
        key=("model_x", "model_y"),
        expected_rows=10,
        description="win/tie/loss counts for the 10 model pairs",
    ),
    TableSpec(
        "hitl_pair_counts_by_category",
        "hitl/published_pair_counts_by_category.csv",
        "csv",
        (Column("category", STR),) + _PAIR,
        key=("category", "model_x", "model_y"),
        expected_rows=80,
        description="the same counts per prompt category",
    ),
    TableSpec(
        "hitl_prompts",
        "hitl/prolific_prompts.json",
        "json_prompts",
        (Column("id", STR), Column("category", STR), Column("text", STR)),
        key=("id",),
        expected_rows=50,
        description="the 50 prompts in 8 categories",
    ),
    TableSpec(
        "hitl_scenario_votes",
        "hitl/report_scenario_vote_examples.csv",
        "csv",
        (
            Column("prompt_id", STR),
            Column("winner_model", STR, allowed=HITL_MODELS),
            Column("loser_model", STR, allowed=HITL_MODELS),
            Column("winner_votes", INT, 0),
            Column("ties", INT, 0),
            Column("loser_votes", INT, 0),
            Column("derived_source_scenario_id", STR),
            Column("source", STR),
        ),
        expected_rows=5,
        description="5 scenario-level vote tallies shown in the report",
    ),
)

ALL_TABLES: dict[str, TableSpec] = {s.name: s for s in WORKBANK + PWB + HITL}


# --- the pandera schema of a spec -------------------------------------------------------------------
# Check names are the expectation each failure is reported with (compendium.data.load._message).
KIND_EXPECTATION = {INT: "integers", FLOAT: "numbers", BOOL: "True/False", STR: "text"}


def _kind_check(kind: str):
    """A whole-column dtype check, on the non-missing values (a column of whole numbers with gaps is
    read as float by pandas, so an INT column is judged on its non-missing values as loaded)."""
    api = pd.api.types
    test = {
        INT: api.is_integer_dtype,
        FLOAT: api.is_numeric_dtype,
        BOOL: api.is_bool_dtype,
        STR: lambda v: api.is_string_dtype(v) or v.map(lambda x: isinstance(x, str)).all(),
    }[kind]
    import pandera.pandas as pa

    return pa.Check(lambda s: bool(test(s.dropna())), name=f"kind:{KIND_EXPECTATION[kind]}")


_SCHEMAS: dict[int, tuple] = {}


def pandera_schema(spec: TableSpec):
    """The pandera ``DataFrameSchema`` of ``spec`` (built once per spec). Extra columns are allowed."""
    hit = _SCHEMAS.get(id(spec))
    if hit is not None and hit[0] is spec:
        return hit[1]
    import pandera.pandas as pa

    columns = {}
    for col in spec.columns:
        checks = []
        if col.kind in KIND_EXPECTATION:
            checks.append(_kind_check(col.kind))
        if col.kind == LIST:
            checks.append(pa.Check(lambda x: isinstance(x, list), element_wise=True, name="kind:a list"))
        if col.kind in (INT, FLOAT) and (col.lo is not None or col.hi is not None):
            lo = float("-inf") if col.lo is None else col.lo
            hi = float("inf") if col.hi is None else col.hi
            checks.append(pa.Check.in_range(lo, hi))
        if col.allowed is not None:
            checks.append(pa.Check.isin(list(col.allowed)))
        columns[col.name] = pa.Column(None, checks, nullable=col.nullable, required=True)
    frame_checks = []
    if spec.expected_rows is not None:
        n = spec.expected_rows
        if spec.grid:
            frame_checks.append(pa.Check(lambda df: 0 < len(df) <= n, name="rows"))
        else:
            frame_checks.append(pa.Check(lambda df: len(df) == n, name="rows"))
    schema = pa.DataFrameSchema(
        columns, checks=frame_checks, unique=list(spec.key) or None, strict=False, coerce=False, name=spec.name
    )
    _SCHEMAS[id(spec)] = (spec, schema)
    return schema
