"""Each stage's headline numbers as a DVC metrics file, ``metrics/<stage>.json``.

``values.json`` holds every number a stage computes (thousands of register cells); a reader comparing two
experiments wants the dozen that tell the story: the zone counts, the PWIs, the Bradley-Terry strengths,
the claims' status counts. The stage runner writes them after a successful run; ``dvc.yaml`` declares
them as metrics, so ``dvc exp show`` lists them beside the parameters and ``dvc metrics diff`` compares
two runs. They are small and tracked by git (``cache: false``), so an experiment's commit carries them.
"""

from __future__ import annotations

import json
from pathlib import Path

from compendium.pipeline import paths, studies

#: stage -> {metric name: values.json key}: the studies' and the other chapters' headlines
#: (:mod:`compendium.pipeline.studies`, plain data, so the stage runner that imports this module depends on no study)
HEADLINE: dict[str, dict[str, str]] = {
    **{k: dict(v) for k, v in studies.CHAPTER_HEADLINE.items() if k == "datasheet"},
    **{s.stage: dict(s.headline) for s in studies.STUDIES if s.headline},
    **{k: dict(v) for k, v in studies.CHAPTER_HEADLINE.items() if k != "datasheet"},
}
#: the metrics that count something: written as integers (values.json may hold a count as 364.0), so that
#: ``dvc metrics diff`` and ``dvc exp show`` print 364, not 364.0
COUNTS = frozenset(
    {
        "files",
        "worker_ratings",
        "expert_ratings",
        "pair_judgements",
        "zone_green",
        "zone_red",
        "zone_rnd",
        "zone_low",
        "dimensions",
        "layer1_prompts",
        "judgements",
        "ties",
        "findings",
        "findings_holding_everywhere",
    }
)
METRICS = paths.ROOT / "metrics"
#: the claims check's statuses (compendium.claims.vocab.STATUSES, spelled here: the runner imports this module and
#: must not import the claims check; tests/pipeline/test_metrics.py checks they are the same)
CLAIM_STATUSES = ("reproduced", "differs", "needs_data", "quoted", "off_paper", "unexplained")


def metrics_file(stage: str) -> Path:
    return METRICS / f"{stage}.json"


def headline(stage: str, results_dir: Path | None = None) -> dict[str, float | int | None]:
    """The stage's headline numbers (a key the stage did not publish is left out, never invented)."""
    d = Path(results_dir) if results_dir is not None else paths.stage_dir(stage)
    if stage == "claims":
        f = d / "claims.csv"
        if not f.exists():
            return {}
        # the csv module, not pandas: the stage runner calls this after the claims stage, and importing pandas
        # there cost 0.17 s for one column's counts. A status is counted as the text it is (the claims check
        # writes only its own words); an empty cell is not counted; a byte order mark is not part of a header
        import csv
        from collections import Counter

        with open(f, newline="", encoding="utf-8-sig") as fh:
            counts = Counter(row["status"] for row in csv.DictReader(fh) if row["status"])
        # every status, zeros included, so that `dvc metrics diff` after an exercise reads 0 -> 74, not - -> 74
        return {f"claims_{k}": int(counts.get(k, 0)) for k in sorted(set(CLAIM_STATUSES) | set(counts))}
    keys = HEADLINE.get(stage)
    if not keys:
        return {}
    f = d / "values.json"
    values = json.loads(f.read_text()) if f.exists() else {}
    out = {}
    for name, key in keys.items():
        v = values.get(key)
        if isinstance(v, bool):
            v = int(v)
        if name in COUNTS and isinstance(v, float) and v.is_integer():
            v = int(v)
        if isinstance(v, (int, float)):
            out[name] = v
    return out


def write(stage: str, results_dir: Path | None = None) -> Path | None:
    """Write ``metrics/<stage>.json`` (sorted keys, one line per metric); None for a stage without metrics."""
    if stage != "claims" and stage not in HEADLINE:
        return None
    out = metrics_file(stage)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(headline(stage, results_dir), indent=1, sort_keys=True) + "\n")
    return out
