"""What the claims stage writes: ``results/claims/`` (claims.csv, summary.csv, values.json, claims.json and the
replication reports, ``reports/<study>/``), the status changes since the last run
(``results/.history/claims_changes.csv``), and the numbers and sentences the claims chapter's prose quotes
(:func:`prose_values`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compendium.pipeline import paths

from .compare import Evaluation, summary
from .vocab import APPROX_REL, COLUMNS, STATUSES


def write_outputs(ev: Evaluation, stage: str = "claims") -> dict[str, Path]:
    """``results/claims/``: claims.csv (every claim, every column), summary.csv (study x level x status),
    values.json (the counts), claims.json (:mod:`.ledger`'s export of claims.csv, without a commit) and
    ``reports/<study>/`` (:mod:`.report`'s replication reports, without a commit); the status changes since the
    last run go to ``results/.history/claims_changes.csv``, outside the stage's tracked outputs: they depend on
    which run came before, not on the data, and a fresh clone must produce the same tracked outputs as any other
    checkout."""
    from compendium.pipeline.results import FLOAT_FORMAT, write_values

    out = paths.stage_dir(stage)
    out.mkdir(parents=True, exist_ok=True)
    files = {}
    for name, df in (("claims", ev.table[COLUMNS]), ("summary", summary(ev.table))):
        p = out / f"{name}.csv"
        df.to_csv(p, index=False, float_format=FLOAT_FORMAT, lineterminator="\n")
        files[name] = p
    history = paths.RESULTS / ".history"
    history.mkdir(parents=True, exist_ok=True)
    files["changes"] = history / f"{stage}_changes.csv"
    ev.changes.to_csv(files["changes"], index=False, lineterminator="\n")
    counts = ev.counts
    values: dict[str, Any] = {f"claims.{s}": n for s, n in counts.items()}
    values["claims.total"] = len(ev.table)
    for study, grp in ev.table.groupby("study"):
        vc = grp["status"].value_counts()
        for s in STATUSES:
            values[f"claims.{study}.{s}"] = int(vc.get(s, 0))
    values["claims.missing_cells"] = sum(len(v) for v in ev.missing_cells.values())
    files["values"] = write_values(stage, values)
    # the machine-readable ledger the book publishes (book/_build/html/claims.json): no commit, so that one ledger
    # gives one file whatever the checkout (the release's commit is in the book's metadata)
    from .ledger import write_claims_json

    files["json"] = write_claims_json(
        out / "claims.json", files["claims"], record_commit=False, source=f"results/{stage}/claims.csv"
    )
    # the replication reports the book publishes beside the claims chapter (book/_build/html/reports/<study>/), from
    # the ledger just written: no commit either (the report says where it is), so the same ledger gives the same
    # reports; everything else they read is a dependency of this stage (compendium.claims.report.INPUTS)
    from .report import write_reports

    write_reports(out / "reports", files["claims"], record_commit=False)
    files["reports"] = out / "reports"
    return files


def prose_values(ev) -> dict:
    """Every number and sentence the claims chapter's prose quotes (``{glue:text}`` name -> value), from ``ev``."""
    counts = ev.counts
    out = {f"claims_{s}": n for s, n in counts.items()}
    n_missing_cells = sum(len(v) for v in ev.missing_cells.values())
    out.update(
        {
            "claims_total": len(ev.table),
            "claims_approx_pct": f"{APPROX_REL * 100:g}",
            "claims_n_tables": len(ev.tables),
            "claims_missing_cells_sentence": "Every cell id is."
            if n_missing_cells == 0
            else f"{n_missing_cells:,} cell ids of {len(ev.missing_cells)} tables are not yet; the claims test fails "
            "until they are.",
            "claims_unexplained_sentence": off_paper_sentence(ev)
            + (
                "Every claim is accounted for."
                if counts["unexplained"] == 0
                else f"{counts['unexplained']:,} claims are UNEXPLAINED: the claims test fails until each is "
                "computed, fixed or explained."
            ),
        }
    )
    return out


def off_paper_sentence(ev) -> str:
    """What an off-paper run did to the claims, per study run off the paper's settings: how many values moved, with
    which changed keys, how many of them became *off-paper run*, and that every other claim kept its status,
    reason and evidence. '' on the paper's settings."""
    from .vocab import STUDY_NAME

    parts = []
    for study, keys in ev.off_paper.items():
        rows = ev.table[ev.table["study"] == study]
        n_moved = len(ev.moved.get(study, []))
        n_off = int((rows["status"] == "off_paper").sum())
        still = n_moved - n_off
        if study in getattr(ev, "no_reference", ()):
            parts.append(
                f"{STUDY_NAME.get(study, study)} runs off the paper's settings ({'; '.join(keys)}) and this checkout "
                f"has no run at the reference settings to compare with (its first run was off them), so every claim "
                f"that misses the paper counts as moved: {n_off:,} of its {len(rows):,} claims are marked off-paper "
                f"run (⇄); a run at the paper's settings first tells the values that moved from those that did not."
            )
            continue
        parts.append(
            f"{STUDY_NAME.get(study, study)} runs off the paper's settings ({'; '.join(keys)}): "
            f"{n_moved:,} of its {len(rows):,} claims moved against the run at the reference settings"
            + (
                f"; {n_off:,} {'no longer matches' if n_off == 1 else 'no longer match'} the paper and "
                f"{'is' if n_off == 1 else 'are'} marked off-paper run (⇄)"
                if n_off
                else ""
            )
            + (f", {still:,} still {'matches' if still == 1 else 'match'} it" if still else "")
            + f"; the other {len(rows) - n_off:,} claims keep their status, reason and evidence."
        )
    return " ".join(parts) + (" " if parts else "")
