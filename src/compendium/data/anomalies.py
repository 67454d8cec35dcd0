"""One anomaly policy: what the loaders tolerate (and count), drop, or refuse, in one table.

:data:`POLICY` is the table (the Data chapter renders it with :func:`policy_table`); the helpers below
are what the loaders call, so that the rule and its message live here once. Tolerated values are kept as
the authors' code keeps them and listed (the PWB judge-anomalies table,
:func:`compendium.pwb.instances.judge_anomalies`); dropped values follow the authors' rule and are
counted; refused input stops the load with one sentence naming the file, the row (the JSON path of the
record) and the field. Other datasets add their rows to :data:`POLICY` beside these.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from compendium.pipeline.cli import quote, visible

#: the largest magnitude any score-like number may have (a larger one is a corrupt or hostile file)
ABSURD = 1e6
#: the range of a stored PWB score: 0-3, or -1, the runner's failed-run marker
STORED_SCORE_RANGE = (-1.0, 3.0)


class DataAnomalyError(ValueError):
    """Input the policy refuses; the message is one sentence naming file, row and field."""


@dataclass(frozen=True)
class Rule:
    dataset: str
    case: str
    action: str  # tolerated | dropped | skipped | refused
    handling: str


POLICY: tuple[Rule, ...] = (
    Rule(
        "PWB",
        "judge value above 3 (e.g. 4)",
        "tolerated",
        "kept in the run's stored score as the runner computed it; not a complete triple for the IRR; "
        "listed in the judge-anomalies table",
    ),
    Rule(
        "PWB",
        "judge value not an integer (e.g. 2.5)",
        "tolerated",
        "read as int(x) by the IRR, as the authors' code does; listed in the judge-anomalies table",
    ),
    Rule(
        "PWB",
        "stored run score below 0 (-1, the runner's failed-run marker)",
        "dropped",
        "the run is not scored, as in the authors' analysis; counted in the completeness table",
    ),
    Rule(
        "PWB",
        "results file without layer1, layer2 or layer3, or with one of them null (the runner's Layer-1 checkpoint)",
        "skipped",
        "when a complete file for the same model and condition exists, as the authors' loader, and counted "
        "(the loader's skipped_files); refused otherwise, naming the file and the missing layer",
    ),
    Rule("PWB", "Layer-2 scenario without an average_score", "skipped", "left out of the Layer-2 means"),
    Rule("all", "non-finite number (NaN, Infinity)", "refused", "file, record and field named"),
    Rule("PWB", "stored score outside [-1, 3]", "refused", "file, record and field named"),
    Rule("all", f"a number with |x| > {ABSURD:.0e}", "refused", "file, record and field named"),
    Rule(
        "all",
        "wrong type (text, a list, true/false where a number or a record is expected)",
        "refused",
        "file, record and field named",
    ),
    Rule(
        "PWB",
        "results file without model_name, or with a variant other than baseline / with_system_prompt",
        "refused",
        "file and field named (the hub's results/ and the runner's output hold results files only, so a JSON "
        "file without a model is a stray file: refused, not skipped)",
    ),
    Rule(
        "PWB",
        "results file of a model outside the paper's seven (the authors' earlier models)",
        "skipped",
        "as the authors' loader (its V2_MODELS) skips it; counted (the loader's other_model_files)",
    ),
    Rule(
        "PWB",
        "a model x condition of the release without any results file (one model's baseline, or a whole model)",
        "refused",
        "before any computation, naming the folder, the model and the condition: the per-instance path "
        "needs both conditions of all seven models",
    ),
    Rule(
        "all",
        "acquired file changed, added or removed after its acquisition (sha256 or list differs from "
        "acquired/<dataset>/manifest.json)",
        "refused",
        "file named, with the two ways on: re-acquire, or accept the copy with the acquire command's --from",
    ),
    Rule(
        "HITL",
        "the same participant judging the same scenario twice (row key participant_id x scenario_id)",
        "tolerated",
        "counted, as the study's report counts every row; a warning names the file, the key and the rows",
    ),
    Rule("HITL", "annotation row without a choice", "skipped", "as the study's report skips it; counted"),
    Rule(
        "HITL",
        "one response-text column without its partner (response_a without response_b, or a_text without b_text)",
        "refused",
        "file and the missing column named: response texts come in pairs; annotations with neither pair are read "
        "without texts, and the two length ratios say which columns they need",
    ),
    Rule("all", "JSON nested too deep to parse, or not valid JSON", "refused", "file named (and the line)"),
)


def policy_table():
    """:data:`POLICY` as a DataFrame (dataset, case, action, handling) for the Data chapter."""
    import pandas as pd

    return pd.DataFrame([r.__dict__ for r in POLICY])


def refuse(where: str, field: str, problem: str) -> DataAnomalyError:
    """The error for refused input: ``"<where>: field <field>: <problem>."`` (raise it). A field path that
    holds a key of the file (``layer1.<dimension>``) is shown visibly and, if long, quoted and cut
    (:func:`compendium.pipeline.cli.quote`)."""
    shown = visible(field, inline=True)
    if shown != field or len(field) > 200:
        shown = quote(field, limit=200)
    return DataAnomalyError(f"{where}: field {shown}: {problem}.")


def number(value, where: str, field: str, *, lo: float | None = None, hi: float | None = None) -> float:
    """``value`` as a float, or :class:`DataAnomalyError` if the policy refuses it (wrong type, non-finite,
    |x| > :data:`ABSURD`, outside [lo, hi])."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise refuse(where, field, f"expected a number, found {type(value).__name__} {_short(value)}")
    x = float(value)
    if not math.isfinite(x):
        raise refuse(where, field, f"non-finite value {value!r} (refused by the anomaly policy)")
    if abs(x) > ABSURD:
        raise refuse(where, field, f"absurd value {value!r} (|x| > {ABSURD:.0e}, refused by the anomaly policy)")
    if (lo is not None and x < lo) or (hi is not None and x > hi):
        raise refuse(where, field, f"value {value!r} outside [{lo:g}, {hi:g}] (refused by the anomaly policy)")
    return x


def parse_json(text: str, where: str, line: int | None = None, error: type[ValueError] = DataAnomalyError) -> object:
    """Parse JSON ``text`` read from ``where`` (a file; ``line``: its line, for JSON lines); invalid or too
    deeply nested JSON (Python's parser raises a bare RecursionError) raises ``error`` in one sentence naming
    the file and the line or position."""
    import json

    at = f"{where}: line {line}" if line is not None else str(where)
    try:
        return json.loads(text)
    except RecursionError:
        raise error(f"{at}: JSON nested too deep to read; refused by the anomaly policy.") from None
    except json.JSONDecodeError as exc:
        pos = f"column {exc.colno}" if line is not None else f"line {exc.lineno}, column {exc.colno}"
        raise error(f"{at}: not valid JSON ({exc.msg} at {pos}).") from None


def load_json(path) -> object:
    """Parse a JSON file; invalid or too deeply nested JSON (Python's parser raises a bare RecursionError)
    is refused in one sentence naming the file."""
    import json
    from pathlib import Path

    p = Path(path)
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except RecursionError:
        raise DataAnomalyError(
            f"{p}: JSON nested too deep to read (a results file nests about 7 levels); refused by the anomaly policy."
        ) from None
    except UnicodeDecodeError as exc:
        raise DataAnomalyError(f"{p}: not UTF-8 text ({exc.reason} at byte {exc.start}).") from None
    except json.JSONDecodeError as exc:
        raise DataAnomalyError(f"{p}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}).") from None


def _short(value) -> str:
    return quote(value, limit=40)
