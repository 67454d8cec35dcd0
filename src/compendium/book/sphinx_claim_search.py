"""Sphinx extension: a claim id typed into the book's search finds the claim on the claims page.

The claims page shows most claims as cells of the papers' tables, without their ids, so the full-text index
holds few of them (``hitl.bt.recipe_c`` is on no page). At the end of the build this extension adds every
claim id of ``results/claims/claims.csv`` to the search index's titles (``alltitles``, which the search page
matches by substring: an entry is listed when it contains the query and is at most twice its length). The
search for ``pwb.table8.glm51.cognitive_forcing`` then lists "1. Claims check > pwb.table8.glm51.cognitive_forcing",
linked to the claim's place on the claims page (:func:`claim_anchor`): its own cell or row (anchored by its
id), else its entry in the list of reasons
(``why-<id>``: the paper's value and ours) where it has one, else the section of its table
(``claims-<study>-<table>``), else its study's text claims (``claims-<study>-text``, where its row shows the
id). An anchor the built page does not hold is not used, so a search never lands on a missing anchor.

At the end of the build it also publishes what the claims stage wrote for readers and other tools: the ledger
``claims.json`` at the book's root (:func:`publish_ledger`) and the replication reports under ``reports/<study>/``
(:func:`compendium.book.reports.publish`), which the claims page links to.

Enabled in ``book/_config.yml`` (``sphinx.config.extensions``); the book stage depends on
``results/claims/claims.csv``, ``claims.json`` and ``reports``.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from compendium.pipeline import paths

#: the claims page (its docname); the claims stage writes it from notebooks/05_claims.md
CLAIMS_DOC = "executed/05_claims"
COLUMNS = ("claim_id", "study", "table")
_ID = re.compile(r"""\sid=["']([^"']+)["']""")


class ClaimSearchError(RuntimeError):
    pass


def why_anchor(claim_id: str) -> str:
    """The id of a claim's entry in the list of reasons (as :func:`compendium.claims.html.anchor` makes it)."""
    return "why-" + re.sub(r"[^A-Za-z0-9_.-]", "-", claim_id)


def section_anchor(study: str, slug: str) -> str:
    """The id of a section of the claims page (as :func:`compendium.claims.html.section_id` makes it)."""
    return f"claims-{study}-{re.sub(r'[^A-Za-z0-9_-]', '-', slug)}"


def claim_anchor(row: Mapping[str, str], ids: set[str] | frozenset[str]) -> str | None:
    """Where a claim (a row of claims.csv) is on the claims page whose element ids are ``ids``: the first of its
    own place (its cell or row, anchored by its id: :func:`compendium.claims.html.claim_anchor`), its reason, its
    table's section, its study's text claims that the page holds; None if none."""
    study, table = row["study"], row["table"]
    for a in (row["claim_id"], why_anchor(row["claim_id"]), section_anchor(study, table or "text")):
        if a in ids:
            return a
    return None


def read_claims(path: Path) -> list[dict[str, str]]:
    """The rows of claims.csv; a :class:`ClaimSearchError` naming the file and the missing column."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise ClaimSearchError(
                f"{path}: no column {missing[0]!r} (columns: {', '.join(reader.fieldnames or [])}); the book's "
                "search finds claims by it: re-run the claims stage (`dvc repro claims`) to write the file anew"
            )
        return list(reader)


def page_ids(html: str) -> set[str]:
    """Every element id of a built page."""
    return set(_ID.findall(html))


def add_claims(index: dict, doc: str, claims: Iterable[Mapping[str, str]], ids: set[str]) -> tuple[dict, int]:
    """``index`` (``searchindex.js``'s object) with each claim id among the titles of page ``doc``, anchored
    by :func:`claim_anchor`, and how many were added (a claim whose anchor is missing, or whose id is already
    listed there, is not)."""
    if doc not in index["docnames"]:
        return index, 0
    k = index["docnames"].index(doc)
    alltitles = {t: list(e) for t, e in index["alltitles"].items()}
    n = 0
    for row in claims:
        anchor = claim_anchor(row, ids)
        entry = [k, anchor]
        if anchor is None or entry in alltitles.get(row["claim_id"], []):
            continue
        alltitles.setdefault(row["claim_id"], []).append(entry)
        n += 1
    return {**index, "alltitles": alltitles}, n


def _add(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    from compendium.book.sphinx_safe_search import rewrite_index

    out = Path(app.outdir)
    page, index, csv_path = out / f"{CLAIMS_DOC}.html", out / "searchindex.js", paths.stage_dir("claims") / "claims.csv"
    if not (page.exists() and index.exists() and csv_path.exists()):
        return  # a book without the claims page (a test book): nothing to find
    claims = read_claims(csv_path)
    ids = page_ids(page.read_text(encoding="utf-8"))
    rewrite_index(index, lambda obj: add_claims(obj, CLAIMS_DOC, claims, ids)[0])
    publish_ledger(csv_path.parent / "claims.json", out)
    from compendium.book.reports import publish

    publish(csv_path.parent / "reports", out)  # the replication reports the claims page links to


def publish_ledger(ledger: Path, outdir: Path) -> Path | None:
    """Copy the claims stage's ``claims.json`` (the machine-readable ledger) to the built book's root, where a
    reader or another tool downloads it (``<book>/claims.json``; ``python -m compendium.claims diff A.json B.json``
    compares two releases' copies). None when the stage has not written it."""
    import shutil

    if not ledger.is_file():
        return None
    return Path(shutil.copyfile(ledger, Path(outdir) / "claims.json"))


def setup(app) -> dict[str, Any]:
    app.connect("build-finished", _add)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
