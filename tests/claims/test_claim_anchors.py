"""Claims others can cite (issue 36): every claim of the ledger has a stable anchor on the claims page, its id
(``05_claims.html#wb.zones.green``), with a link to itself; and no anchor of the last release disappears
silently: ``book/claim_anchors.txt`` lists the anchors of the last release, and an id that is no longer
anchored must be listed with its new id in ``book/claim_renames.yaml``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from compendium.claims import html
from compendium.pipeline import paths

ROOT = Path(__file__).resolve().parents[2]
RELEASED = ROOT / "book" / "claim_anchors.txt"
RENAMES = ROOT / "book" / "claim_renames.yaml"
PAGE = ROOT / "book" / "executed" / "05_claims.ipynb"


def _page_ids() -> set[str]:
    return set(re.findall(r'\sid="([^"]+)"', _page_html()))


def _page_html() -> str:
    """The HTML the claims chapter's cells output (the executed notebook the book is built from)."""
    nb = json.loads(PAGE.read_text(encoding="utf-8"))
    text = "".join(
        "".join(o.get("data", {}).get("text/html", ""))
        for c in nb["cells"]
        for o in c.get("outputs", [])
        if "data" in o
    )
    return text


def test_a_claim_anchors_its_first_place_only_with_a_link_to_itself():
    anchored: set[str] = set()
    assert html.claim_anchor("wb.zones.green", anchored) == "wb.zones.green"
    assert html.claim_anchor("wb.zones.green", anchored) is None  # a second cell of the same claim
    assert html.claim_anchor("wb.zones.red", None) is None  # no page, no anchor


def test_every_claim_of_the_ledger_has_its_id_as_an_anchor_on_the_claims_page():
    if not PAGE.exists():
        pytest.fail(f"{PAGE} is missing: run `dvc repro claims` first")
    ids = _page_ids()
    claims = pd.read_csv(paths.RESULTS / "claims" / "claims.csv", dtype=str, keep_default_na=False)
    missing = sorted(set(claims["claim_id"]) - ids)
    assert missing == [], f"{len(missing)} claims have no anchor, e.g. {missing[:5]}"
    page = _page_html()
    for cid in ("wb.zones.green", "hitl.bt.recipe_c", claims["claim_id"].iloc[-1]):  # a cell, a cell, a row
        assert f'href="#{cid}"' in page, f"no link to #{cid} on the claims page"


def test_no_anchor_of_the_last_release_disappears_without_a_recorded_rename():
    released = [ln.strip() for ln in RELEASED.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    renames = (yaml.safe_load(RENAMES.read_text()) or {}) if RENAMES.exists() else {}
    ids = _page_ids()
    gone = [a for a in released if a not in ids and renames.get(a) not in ids]
    assert gone == [], (
        f"{len(gone)} anchors of the last release are gone, e.g. {gone[:5]}: a citation of them would break. Keep "
        f"the claim id, or record old: new in {RENAMES.relative_to(ROOT)}"
    )


def test_the_release_check_fails_on_a_silent_rename(tmp_path):
    ids = {"wb.zones.green", "wb.zones.red"}
    released, renames = ["wb.zones.green", "wb.zones.gren"], {}
    assert [a for a in released if a not in ids and renames.get(a) not in ids] == ["wb.zones.gren"]
    renames = {"wb.zones.gren": "wb.zones.green"}
    assert [a for a in released if a not in ids and renames.get(a) not in ids] == []
