"""Every printed number of the three registers, checked: each has a status, none is unexplained, every
table cell is published, the register is the team's copy byte for byte, and each reason is backed."""

import ast
import math
from pathlib import Path

import pandas as pd
import pytest

from compendium import claims
from compendium.pipeline import paths

REGISTER_FILES = ("pwb.yaml", "workbank.yaml", "hitl.yaml", "METHODS.md")


def test_register_is_byte_identical_to_shared(shared_candidates):
    """published/ is a copy of ../shared/published (the team's register); a missing copy is a failure."""
    candidates = shared_candidates
    shared = next((c for c in candidates if c.is_dir()), None)
    assert shared is not None, (
        "the shared register is missing: looked for "
        + ", ".join(str(c) for c in candidates)
        + " (set COMPENDIUM_SHARED to the folder that holds published/)"
    )
    differ = [
        f
        for f in REGISTER_FILES
        if not (shared / f).exists() or (shared / f).read_bytes() != (paths.PUBLISHED / f).read_bytes()
    ]
    assert not differ, (
        f"published/ differs from {shared} in {differ}: copy the files from there "
        "(cp ../shared/published/{pwb,workbank,hitl}.yaml ../shared/published/METHODS.md published/)"
    )


def test_every_claim_has_a_status(evaluation):
    t = evaluation.table
    assert len(t) == len(claims.load_published()) == t["claim_id"].nunique()
    assert set(t["status"]) <= set(claims.STATUSES)
    on_disk = pd.read_csv(paths.RESULTS / "claims" / "claims.csv", dtype=str, keep_default_na=False)
    assert dict(zip(on_disk["claim_id"], on_disk["status"])) == dict(zip(t["claim_id"], t["status"])), (
        "results/claims/claims.csv is not the claims stage's output for the current values: run dvc repro claims"
    )


def test_no_claim_is_unexplained(evaluation):
    bad = evaluation.table[evaluation.table["status"] == "unexplained"]
    by = bad.groupby(["study", "level"]).size().to_dict()
    lines = [
        f"{r.claim_id}: paper {r.published}, ours {r.reproduced or '(none)'}: {r.note}"
        for r in bad.head(25).itertuples()
    ]
    assert bad.empty, f"{len(bad)} unexplained claims (by study and level: {by}); the first:\n" + "\n".join(lines)


def test_every_register_table_cell_is_a_published_key(evaluation):
    """Each table x row x col id (id_pattern / existing_ids, minus blank_cells) is a key of some values.json."""
    missing = evaluation.missing_cells
    total = sum(len(v) for v in missing.values())
    report = "\n".join(f"  {table}: {len(ids)} missing, e.g. {', '.join(ids[:3])}" for table, ids in missing.items())
    assert not missing, f"{total} table cell ids are a key of no results/*/values.json:\n{report}"


def _flat(v):
    if isinstance(v, list):
        for x in v:
            yield from _flat(x)
    else:
        yield v


def test_reproduced_numbers_recheck_independently(evaluation):
    """Re-check the plain-tolerance 'reproduced' claims with plain arithmetic, not through claims.matches."""
    t = evaluation.table
    sel = t[(t["status"] == "reproduced") & (t["relation"] == "") & (t["kind"] == "")]
    for r in sel.to_dict("records"):
        pub, ours = list(_flat(r["_published"])), list(_flat(r["_ours"]))
        assert len(pub) == len(ours), r["claim_id"]
        tol = float(r["tolerance"])
        for a, b in zip(pub, ours):
            assert math.isfinite(float(b)) and abs(float(b) - float(a)) <= tol + 1e-9, (
                f"{r['claim_id']}: ours {b} vs paper {a} (tol {tol})"
            )


def test_needs_data_and_quoted_follow_the_level(evaluation):
    t = evaluation.table
    nd = t[t["status"] == "needs_data"]
    assert set(nd["level"]) <= {"per_instance", "row_level", "outside"}
    assert (nd["reproduced"] == "").all() and (nd["note"].str.len() > 0).all()
    assert set(t.loc[t["status"] == "quoted", "level"]) <= {"none"}


def _test_exists(ref: str) -> bool:
    path, _, name = ref.partition("::")
    f = paths.ROOT / path
    if not f.exists():
        return False
    if not name:
        return True
    tree = ast.parse(f.read_text())
    return any(isinstance(n, ast.FunctionDef) and n.name == name.split("[")[0] for n in ast.walk(tree))


def test_every_note_names_a_claim_and_resolvable_evidence(evaluation):
    """Notes refer to claims of the register; evidence is a label of a chapter or an existing test."""
    published = claims.load_published()
    assert claims.note_problems(evaluation.notes, published) == []
    labels = claims.sphinx_labels()
    bad = [
        f"{n['file']}: {cid}: evidence {n['evidence']!r}"
        for cid, n in evaluation.notes.items()
        if n["evidence"] and n["evidence"] not in labels and not _test_exists(n["evidence"])
    ]
    assert not bad, "evidence that is neither a Sphinx label of a chapter nor an existing test:\n" + "\n".join(bad)


def test_differs_have_a_reason_of_a_fixed_kind(evaluation):
    d = evaluation.table[evaluation.table["status"] == "differs"]
    assert set(d["reason"]) <= set(claims.REASONS)
    assert (d["note"].str.len() > 0).all() and (d["evidence"].str.len() > 0).all()


@pytest.mark.parametrize("study", claims.STUDIES)
def test_notes_file_exists_per_study(study):
    assert (paths.PUBLISHED / "notes" / f"{study}.yaml").exists()
    assert not (paths.PUBLISHED / "notes.yaml").exists(), "published/notes.yaml was migrated to published/notes/"


def test_claims_page_within_budget():
    """The built claims chapter stays within 2 MB of HTML (load time: make browser-test)."""
    page = paths.BOOK / "_build" / "html" / "executed" / "05_claims.html"
    if not page.exists():
        pytest.skip("the book is not built (python -m compendium.book build)")
    assert page.stat().st_size <= 2_000_000, f"{page}: {page.stat().st_size / 1e6:.2f} MB of HTML (budget 2 MB)"


def test_shared_candidates_cover_a_worktree(shared_candidates):
    cands = shared_candidates
    assert cands and all(isinstance(c, Path) and c.name == "published" for c in cands)
