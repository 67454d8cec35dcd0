"""A replication report per study, generated from the claims ledger: ``python -m compendium.claims report OUT``.

For each study of the ledger (``pwb``, ``workbank``, ``hitl``: the ``study`` column of
``results/claims/claims.csv``) it writes ``OUT/<study>/``:

- ``report.md``: the title, "[Re]" or "[¬Re]" by :data:`TITLE_RULE` over the statuses of the study's headline
  claims (:data:`compendium.claims.abstract.HEADLINE_CLAIMS`), and a *Reproducibility Summary* in the sections
  of the ML Reproducibility Challenge (scope of reproducibility, methodology, results, what was easy, what was
  difficult, communication with the original authors). Every number is counted from the ledger; the data's
  provenance is read from the data catalog (``src/compendium/data/catalog.py``, the source of the datasheet
  ``data/README.md``'s bullets) and the manifest (``src/compendium/data/manifest.json``), the code's from
  ``CITATION.cff``, the versions from ``requirements.txt``. Text from files is escaped for plain Markdown (:func:`_md`: one line, the characters that start markup backslash-escaped, so
  it reads as text and stays readable raw, and ``|`` and line breaks stay out of table cells);
- ``metadata.yaml``: ReScience C's submission metadata (the fields of its template, :data:`RESCIENCE_FIELDS`),
  filled from ``CITATION.cff`` and the original article's entry in ``book/references.bib``; a field the
  compendium cannot know (an ORCID, the editor, the reviewers, a DOI, a Software Heritage id, the dates) is
  left empty with a ``# to fill: ...`` comment, never guessed;
- ``references.bib``: the original article's entry, copied from the book's bibliography (``replication: bib``
  names its key).

A run off the reference settings (a teaching exercise) is said at the top of every report, with the changed keys
(:func:`off_paper_section`), and a study whose headline claims moved gets no verdict (:data:`OFF_PAPER_PREFIX`).

Everything is read from files of the checkout (:data:`INPUTS` and :data:`PARAM_INPUTS`, besides the ledger): no
network. The claims stage
writes a copy of the three reports into ``results/claims/reports/`` (``write_reports(..., record_commit=False)``),
which the book publishes beside the claims chapter: that copy leaves out the commit, the one input that is not a
file, so that the same ledger gives the same bytes in every checkout and ``dvc repro`` twice gives the same book;
``python -m compendium.claims report OUT`` (``make report``) records it.
"""

from __future__ import annotations

import copy
import functools
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from compendium.chapter.safetext import code
from compendium.pipeline import paths
from compendium.pipeline.cli import visible

from .abstract import HEADLINE_CLAIMS
from .html import CODE_SPAN, claim_decimals, fmt_number
from .ledger import _rel, git_commit, read_ledger
from .vocab import LEVEL_NAME, MARK, REASONS, STATUSES, STUDY_NAME

#: the reasons a differing claim may have and still count as replicated: the paper's own slip, a table printed
#: from an earlier run, a rounding edge, Monte-Carlo noise. ``method_open`` (a detail the paper leaves open, so
#: the method as published does not determine the number) is not among them.
REPLICATED_REASONS = frozenset(REASONS) - {"method_open"}

TITLE_RULE = (
    "[Re] when at least one headline claim was checked and every headline claim of the study is reproduced, "
    "or differs for a reason that is not a failure of the method (a slip in the paper, a table printed from an "
    "earlier run, a rounding boundary or Monte-Carlo noise); otherwise [¬Re] (a headline claim that differs "
    "because the paper leaves a detail of the method open, is unexplained, needs data, is quoted or is missing "
    "from the ledger). A run off the paper's settings in which a headline claim's value moved (status off-paper) "
    "gives no verdict at all: its title says [Off-paper run]."
)
"""The rule that gives a report's title its prefix, stated once: :func:`replicated` applies it and the report
prints it. The headline claims are :data:`compendium.claims.abstract.HEADLINE_CLAIMS` (the ones the landing page's
abstract phrases), so the title and the abstract rest on the same numbers."""

#: the command that restores the committed run, which the off-paper note prints (the book's banner prints it too)
RESET_COMMAND = "make reset"

#: each study's original article: its key in the book's bibliography (the key the study's chapter cites)
ORIGINAL_BIB_KEY = {"pwb": "leone2026pwb", "workbank": "shao2025workbank", "hitl": "petrova2026autoresearch"}
BIBLIOGRAPHY = Path("book") / "references.bib"
#: the datasheet, whose bullets on each dataset the report prints (from the catalog they are written from)
DATASHEET = Path("data") / "README.md"
#: the data catalog (plain data: ``DATASETS``), read by path, as the claims stage reads the studies' provenance.py
CATALOG = Path("src") / "compendium" / "data" / "catalog.py"
MANIFEST = Path("src") / "compendium" / "data" / "manifest.json"
#: every file a report reads besides the ledger, relative to the checkout: the claims stage, which writes the book's
#: copy, depends on each (dvc.yaml; ``tests/claims/test_claims_report.py`` checks it). Not ``data/README.md``: it
#: is DVC-tracked data, and a stage depending on it would make ``dvc repro`` re-record ``data.dvc``; its bullets
#: are written from the catalog, which the report reads instead (and a test keeps the two equal)
INPUTS = (Path("CITATION.cff"), Path("requirements.txt"), BIBLIOGRAPHY, CATALOG, MANIFEST)
#: and, to say whether the run is off the reference settings, the ``params`` stage's validated sections of the
#: studies (``results/params/<stage>.json``), which the claims stage depends on for its off-paper statuses too
PARAM_INPUTS = tuple(Path("results") / "params" / f"{stage}.json" for stage in ("workbank", "pwb", "preferences"))
#: the packages whose pinned versions the methodology names (requirements.txt pins every package)
KEY_PACKAGES = ("numpy", "pandas", "scipy", "statsmodels", "choix", "krippendorff", "dvc", "papermill", "jupyter-book")
#: the ReScience C template's fields (github.com/ReScience/template, metadata.yaml), each with the keys of its items
RESCIENCE_FIELDS = {
    "title": (),
    "authors": ("name", "orcid", "email", "affiliations"),
    "affiliations": ("code", "name", "address"),
    "keywords": (),
    "code": ("url", "doi", "swh"),
    "data": ("url", "doi"),
    "replication": ("cite", "bib", "url", "doi"),
    "abstract": (),
    "bibliography": (),
    "type": (),
    "domain": (),
    "language": (),
    "review": ("url",),
    "contributors": ("name", "orcid", "role"),
    "dates": ("received", "accepted", "published"),
    "article": ("number", "doi", "url"),
    "journal": ("name", "issn", "volume", "issue"),
}
COMMUNICATION = "None recorded: the compendium holds no record of correspondence with the original authors."


class ReportError(ValueError):
    """A report cannot be written: the message names the file and what to do."""


# ------------------------------------------------------------------------------------------------ the inputs


@dataclass(frozen=True)
class Original:
    """The original article, as the book's bibliography records it."""

    key: str
    title: str
    authors: tuple[str, ...]
    year: str
    venue: str  # institution, eprint or note: what the entry says about where it appeared
    url: str
    doi: str
    bibtex: str

    @property
    def cite(self) -> str:
        """A full textual citation: authors (year). Title. Venue."""
        stop = "" if self.title[-1:] in ".?!" else "."
        return f"{', '.join(self.authors)} ({self.year}). {self.title}{stop}" + (
            f" {self.venue}." if self.venue else ""
        )


#: the characters that can start Markdown markup in a plain (CommonMark / GitHub / pandoc) file: escaped in text
#: from files, so that it reads as text (a link, an image, raw HTML, emphasis, a heading, a table cell's end, math)
_MD_SPECIAL = frozenset("\\`*_[]<>|#$~&")


def _md(text) -> str:
    """``text`` as plain Markdown text: one line (line breaks become spaces), each character of
    :data:`_MD_SPECIAL` backslash-escaped (CommonMark escapes every ASCII punctuation character, so each escape is
    valid), everything else as written; except that a span between backticks stays a code span, the one construct
    the claims chapter also reads from such text (:func:`compendium.claims.html.readable_html`): a code span's text
    is shown literally (Markdown reads nothing inside it), only a ``|`` in it is escaped so that it cannot end a
    table cell. Lighter than the book's :func:`compendium.chapter.safetext.myst`, which also guards MyST's roles
    and directives; a report is read as a file, so it stays readable raw."""
    one_line = " ".join(str(text).split())

    def plain(t: str) -> str:
        return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in t)

    out, pos = [], 0
    for m in CODE_SPAN.finditer(one_line):  # the claims chapter's own reading of a code span (readable_html)
        tick = m.group(1)
        out += [plain(one_line[pos : m.start()]), tick + m.group(2).replace("|", "\\|") + tick]
        pos = m.end()
    return "".join(out) + plain(one_line[pos:])


def _latex_text(s: str) -> str:
    """A BibTeX field as plain text: LaTeX accents decoded (``M{\\'a}rquez`` -> ``Márquez``), braces dropped."""
    import latexcodec  # noqa: F401  (registers the "latex" codec)

    return " ".join(s.encode("utf-8").decode("latex").replace("{", "").replace("}", "").split())


def _person(p) -> str:
    """A BibTeX author as it is read: given names, then family names (``Shao, Yijia`` -> ``Yijia Shao``)."""
    parts = [*p.first_names, *p.middle_names, *p.prelast_names, *p.last_names, *p.lineage_names]
    return _latex_text(" ".join(parts))


@functools.lru_cache(maxsize=4)
def _bibliography(text: str):
    """The BibTeX ``text`` parsed, once per text: the claims stage reads the book's bibliography for each study's
    title page and again for its sources, and each parse scanned every installed package's entry points (pybtex's
    plugin lookup): 0.1 s of the stage. A caller takes a copy of what it uses (``BibliographyData`` sets the key of
    an entry added to it)."""
    from pybtex.database import parse_string

    return parse_string(text, "bibtex")


def original(study: str, bib: Path | None = None) -> Original:
    """The original article of ``study`` from the book's bibliography (:data:`ORIGINAL_BIB_KEY`); read, never
    made up: a missing entry is a :class:`ReportError`."""
    from pybtex.database import BibliographyData, PybtexError

    bib = Path(bib) if bib else paths.ROOT / BIBLIOGRAPHY
    key = ORIGINAL_BIB_KEY[study]
    try:
        entry = copy.deepcopy(_bibliography(bib.read_text(encoding="utf-8")).entries[key])  # the cache is not changed
    except (OSError, UnicodeDecodeError, PybtexError, KeyError) as exc:
        raise ReportError(f"{_rel(bib)} has no readable entry {key!r} ({type(exc).__name__}): restore it") from None
    f = entry.fields
    eprint = f.get("eprint", "")
    arxiv = eprint if f.get("archivePrefix", "").lower() == "arxiv" else ""
    venue = f.get("institution") or f.get("journal") or f.get("booktitle") or (f"arXiv:{arxiv}" if arxiv else "")
    if not venue and f.get("note"):
        venue = f["note"].split(". ")[0]
    return Original(
        key=key,
        title=_latex_text(f.get("title", "")),
        authors=tuple(_person(p) for p in entry.persons.get("author", [])),
        year=f.get("year", ""),
        venue=_latex_text(venue),
        url=f.get("url") or (f"https://arxiv.org/abs/{arxiv}" if arxiv else ""),
        doi=f.get("doi", ""),
        bibtex=BibliographyData({key: entry}).to_string("bibtex"),
    )


def catalog(path: Path | None = None) -> dict[str, dict]:
    """The data catalog's ``DATASETS`` (:mod:`compendium.data.catalog`: each dataset's source, hub id, code,
    licence, what is here and what only the hub has), loaded from its file on its own, as the claims stage loads
    the studies' plain-data ``provenance.py``: the claims check imports nothing of :mod:`compendium.data`. A file
    that does not load, or has no dict ``DATASETS``, is a :class:`ReportError` naming it."""
    import importlib.util

    path = Path(path) if path else paths.ROOT / CATALOG
    try:
        spec = importlib.util.spec_from_file_location("_claims_report_catalog", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    except Exception as exc:  # noqa: BLE001 - any failure of the file is reported as one sentence
        raise ReportError(
            f"{_rel(path)} cannot be loaded ({type(exc).__name__}: {exc}): restore it (git checkout -- {_rel(path)})"
        ) from None
    datasets = getattr(mod, "DATASETS", None)
    if not isinstance(datasets, dict):
        raise ReportError(f"{_rel(path)} has no dict DATASETS: restore it (git checkout -- {_rel(path)})")
    return datasets


def datasheet(study: str, path: Path | None = None) -> dict[str, str]:
    """The bullets of ``study``'s section of the datasheet (``data/README.md``: Source, Canonical Hugging Face id,
    Code / provenance, Licence as recorded, Here (offline), Hub only), key -> text, as written there, from the
    data catalog they are written from (:func:`catalog`; ``path``: another catalog file); {} for a study the
    catalog does not name."""
    entry = catalog(path).get(study)
    if not isinstance(entry, dict):
        return {}
    return {
        "Source": str(entry.get("citation", "")),
        "Canonical Hugging Face id": f"`{entry.get('hf_id', '')}` (revision recorded by acquisition in "
        "`acquired/<dataset>/manifest.json`)",
        "Code / provenance": str(entry.get("code", "")),
        "Licence as recorded": str(entry.get("licence", "")),
        "Here (offline)": str(entry.get("offline", "")),
        "Hub only": str(entry.get("online_only", "")),
    }


def manifest(path: Path | None = None) -> dict[str, dict]:
    """data file (relative to ``data/``) -> its rows, bytes and sha256, from the manifest; {} without it."""
    path = Path(path) if path else paths.ROOT / MANIFEST
    return json.loads(path.read_text(encoding="utf-8")).get("files", {}) if path.is_file() else {}


def pins(requirements: Path | None = None) -> dict[str, str]:
    """package -> pinned version of ``requirements.txt`` (``name==version`` lines; names lower-cased)."""
    path = Path(requirements) if requirements else paths.ROOT / "requirements.txt"
    if not path.is_file():
        return {}
    found = re.findall(r"^([A-Za-z0-9_.\-]+)==(\S+)", path.read_text(encoding="utf-8"), re.M)
    return {name.lower(): version for name, version in found}


def citation(cff: Path | None = None) -> dict:
    """``CITATION.cff`` as a mapping ({} without it)."""
    from compendium.pipeline.yamlfile import load

    path = Path(cff) if cff else paths.ROOT / "CITATION.cff"
    return (load(path) or {}) if path.is_file() else {}


# ------------------------------------------------------------------------------------------------- the rule


def headline_rows(claims: pd.DataFrame, study: str) -> pd.DataFrame:
    """The study's headline claims (:data:`HEADLINE_CLAIMS`) as ledger rows, in the set's order; a claim the
    ledger lacks is a row with status ''."""
    ids = list(HEADLINE_CLAIMS.get(study, ()))
    rows = claims.set_index("claim_id").reindex(ids).fillna("").reset_index()
    return rows.rename(columns={"index": "claim_id"})


#: the title's prefix when a headline claim is off the paper's settings: such a run is an exercise, not a replication
#: that failed, so it gets neither [Re] nor [¬Re]
OFF_PAPER_PREFIX = "[Off-paper run]"


def replicated(headline: pd.DataFrame) -> bool:
    """:data:`TITLE_RULE` over the headline claims' statuses and reasons."""
    ok = (headline["status"] == "reproduced") | (
        (headline["status"] == "differs") & headline["reason"].isin(REPLICATED_REASONS)
    )
    checked = headline["status"].isin(("reproduced", "differs"))
    return bool(len(headline) and checked.any() and ok.all())


def verdict(headline: pd.DataFrame) -> str:
    """The title's prefix by :data:`TITLE_RULE`: :data:`OFF_PAPER_PREFIX` when a headline claim is off the paper's
    settings, else "[Re]" or "[¬Re]"."""
    if (headline["status"] == "off_paper").any():
        return OFF_PAPER_PREFIX
    return "[Re]" if replicated(headline) else "[¬Re]"


def title(claims: pd.DataFrame, study: str, orig: Original) -> str:
    """The report's title: its prefix (:func:`verdict`) and the original title."""
    return f"{verdict(headline_rows(claims, study))} {orig.title}"


def off_paper_section(study: str, off_paper: dict[str, list[str]]) -> list[str]:
    """A note at the top of the report when the run is off the reference settings (``off_paper``: the changed keys
    by study, :func:`compendium.claims.compare.off_paper_studies`): the study's own changed keys and what that does
    to its statuses, or the other studies' keys and that this one's are the reference; [] on the paper's run."""
    if not off_paper:
        return []
    own = off_paper.get(study, [])
    others = [k for s, keys in off_paper.items() if s != study for k in keys]
    if own:
        text = (
            f"**Off-paper run.** This study's parameters differ from the reference in this run: {_md('; '.join(own))}. "
            "Its claims whose value moved are *off-paper*: they are not checked against the paper, so this report "
            f"is not a replication verdict. `{RESET_COMMAND}` restores the committed run."
        )
        if others:
            text += f" Other studies' parameters differ too: {_md('; '.join(others))}."
    else:
        text = (
            f"**Off-paper run.** Other studies' parameters differ from the reference in this run "
            f"({_md('; '.join(others))}); this study's are the reference, and its statuses are checked against "
            f"the paper as usual. `{RESET_COMMAND}` restores the committed run."
        )
    return [text]


# ---------------------------------------------------------------------------------------------- the sections


def _table(header: tuple[str, ...], rows: list[tuple]) -> list[str]:
    """A Markdown pipe table; every cell is given already escaped (:func:`myst` or :func:`code`)."""
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return out + ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]


def status_counts(rows: pd.DataFrame) -> dict[str, int]:
    """Claims per status, every status of :data:`STATUSES` present (zeros included)."""
    vc = rows["status"].value_counts()
    return {s: int(vc.get(s, 0)) for s in STATUSES}


def _status_word(status: str) -> str:
    """A status as the reader sees it (:data:`MARK`: a symbol and a word); one the vocabulary lacks, escaped."""
    if status not in MARK:
        return _md(status or "missing from the ledger")
    sym, word = MARK[status]
    return f"{sym} {word}"


def scope_section(rows: pd.DataFrame) -> list[str]:
    """Scope of reproducibility: how many claims were checked against the data, by status, and the ones that
    need data, with the data each needs (the ledger's note), counted."""
    n = status_counts(rows)
    checked = n["reproduced"] + n["differs"]
    out = [
        "### Scope of reproducibility",
        "",
        f"The original article prints {len(rows):,} numbers that the compendium's register records as claims. "
        f"{checked:,} were checked against a value computed from the data ({n['reproduced']:,} reproduced, "
        f"{n['differs']:,} differ with a stated reason); {n['needs_data']:,} need data that this release does not "
        f"hold, and {n['quoted']:,} are quoted: design constants, or statements (a cost, a recruitment count) that the released data do not determine.",
    ]
    needs = rows[rows["status"] == "needs_data"]
    if len(needs):
        by_note = needs.groupby("note", sort=False).size().sort_values(ascending=False, kind="stable")
        out += ["", "Claims that need data, by the data they need:", ""]
        out += _table(("data needed", "claims"), [(_md(k or "(not named)"), f"{v:,}") for k, v in by_note.items()])
    return out


def _data_rows(rows: pd.DataFrame, files: dict[str, dict]) -> list[tuple]:
    """(file, rows, sha256) of every data file or folder the claims name (the ledger's ``data`` column)."""
    used = sorted({p.strip() for cell in rows["data"] for p in cell.split(";") if p.strip()})
    out = []
    for p in used:
        f = files.get(p)
        inside = [k for k in files if p.endswith("/") and k.startswith(p)]
        if f:
            out.append((code(p, table_cell=True), f"{f['rows']:,}" if f.get("rows") else "", code(f["sha256"])))
        elif inside:
            out.append((code(p, table_cell=True), "", f"a folder of {len(inside):,} files, each in the manifest"))
        else:
            out.append((code(p, table_cell=True), "", "not in this release: acquired from the hub (see the datasheet)"))
    return out


def methodology_section(study: str, rows: pd.DataFrame, sources: dict) -> list[str]:
    """Methodology: the data files the study's claims read (with their provenance from the datasheet and
    checksums from the manifest), the code (CITATION.cff), the commands and the pinned versions."""
    sheet, cff, pinned = sources["datasheet"], sources["citation"], sources["pins"]
    out = ["### Methodology", ""]
    if sheet:
        out += [f"- **{_md(k)}:** {_md(v)}" for k, v in sheet.items()]
    else:
        out.append(f"- The data catalog {code(CATALOG)} names no dataset {code(study)}.")
    out += ["", "Data files the claims read (checksums from the manifest the loaders verify):", ""]
    out += _table(("file (under data/)", "rows", "sha256"), _data_rows(rows, sources["manifest"]))
    repo = cff.get("repository-code")
    out += [
        "",
        f"- **Code:** {_md(cff.get('title', 'this compendium'))}, version {_md(cff.get('version', 'not recorded'))}, "
        f"licence {_md(cff.get('license', 'not recorded'))}"
        + (f", {_md(repo)}" if repo else " (CITATION.cff sets no repository-code)")
        + f"; the Python package `compendium` (`src/compendium/{_md(sources['package'])}/`) at "
        + _commit_phrase(sources)
        + ".",
        "- **Commands:** `make reproduce` sets up the environment, restores the data and runs every stage "
        "(`dvc repro`), which writes the ledger `results/claims/claims.csv` this report is generated from.",
        f"- **Versions:** {len(pinned):,} packages pinned in `requirements.txt`, among them "
        + ", ".join(f"{_md(p)} {_md(pinned[p])}" for p in KEY_PACKAGES if p in pinned)
        + ".",
    ]
    return out


#: where the commit goes in a copy that leaves it out (the claims stage's, which the book publishes)
COMMIT_LEFT_OUT = (
    "the commit the book this copy is published with was built from (named on its Reproducibility page; left out "
    "of this copy, so that the same ledger always gives the same file: `make report` writes a copy that records it)"
)


def _commit_phrase(sources: dict) -> str:
    """The code's commit as the methodology names it: the commit, or where it is when this copy leaves it out
    (:data:`COMMIT_LEFT_OUT`), or that the checkout is not a git checkout."""
    if not sources.get("record_commit", True):
        return COMMIT_LEFT_OUT
    return "commit " + (code(sources["commit"]) if sources["commit"] else "not recorded (not a git checkout)")


def _value(row: dict, column: str) -> str:
    """A published or reproduced value as the report prints it: the paper's printed token for the published
    one where the register has it, else the paper's number to its decimals; ours to the paper's decimals and one
    more (:func:`fmt_number`), so a reader sees which side of the rounding it is on."""
    if column == "published" and row.get("printed"):
        return _md(row["printed"])
    v = row.get(column, "")
    try:
        x = float(v)
    except ValueError:
        return _md(v) if v else "—"
    d = claim_decimals(row)
    if column == "published" and math.isfinite(x) and 1e-3 <= abs(x) < 1e7:
        return _md(f"{x:,.{min(d, 6)}f}")
    return _md(fmt_number(x, d))


def results_section(rows: pd.DataFrame, headline: pd.DataFrame) -> list[str]:
    """Results: the counts by status (they sum to the study's claims in the ledger) and the headline claims with
    the published and the reproduced value."""
    n = status_counts(rows)
    out = ["### Results", "", "Claims by status:", ""]
    out += _table(
        ("status", "claims"), [(_status_word(s), f"{k:,}") for s, k in n.items()] + [("total", f"{len(rows):,}")]
    )
    out += ["", "Headline claims:", ""]
    hl = [
        (
            code(r["claim_id"], table_cell=True),
            _md(r["what"]),
            _value(r, "published"),
            _value(r, "reproduced"),
            _status_word(r["status"]),
        )
        for r in headline.to_dict("records")
    ]
    return out + _table(("claim", "what", "published", "reproduced", "status"), hl)


def easy_section(rows: pd.DataFrame) -> list[str]:
    """What was easy: the claims reproduced, by the level of data they rest on."""
    rep = rows[rows["status"] == "reproduced"]
    by_level = rep.groupby("level", sort=False).size().sort_values(ascending=False, kind="stable")
    out = ["### What was easy", ""]
    if rep.empty:
        return out + ["No claim reproduced."]
    out.append(
        f"{len(rep):,} of the {len(rows):,} claims reproduced within the precision printed, by the data they rest on:"
    )
    out += [""] + _table(
        ("data", "claims reproduced"), [(_md(LEVEL_NAME.get(k, k)), f"{v:,}") for k, v in by_level.items()]
    )
    return out


def difficult_section(rows: pd.DataFrame) -> list[str]:
    """What was difficult: the differing claims counted by their reason (with up to three ids each), the claims
    that need data, and any unexplained or off-paper claims."""
    out = ["### What was difficult", ""]
    differs = rows[rows["status"] == "differs"]
    if differs.empty:
        out.append("No claim differs from the paper.")
    else:
        out += [f"{len(differs):,} claims differ from the paper, each for a stated and checked reason:", ""]
        tab = []
        for reason, g in differs.groupby("reason", sort=False):
            ids = ", ".join(code(c, table_cell=True) for c in g["claim_id"].head(3))
            tab.append(
                (_md(REASONS.get(reason, reason or "no reason")), f"{len(g):,}", ids + (", …" if len(g) > 3 else ""))
            )
        out += _table(("reason", "claims", "for example"), sorted(tab, key=lambda t: -int(t[1].replace(",", ""))))
    n = status_counts(rows)
    if n["needs_data"]:
        out += [
            "",
            f"{n['needs_data']:,} claims could not be checked: they need data this release does not "
            "bundle (see Scope).",
        ]
    for s in ("unexplained", "off_paper"):
        if n[s]:
            out += ["", f"{n[s]:,} claims are *{_status_word(s)}* in this build."]
    return out


def report_markdown(study: str, claims: pd.DataFrame, orig: Original, sources: dict) -> str:
    """The report (Markdown) of ``study`` from the ledger ``claims`` and the other ``sources`` (datasheet,
    manifest, citation, pins, package, commit)."""
    rows = claims[claims["study"] == study]
    headline = headline_rows(claims, study)
    prefix = verdict(headline)
    parts = [
        [f"# {_md(title(claims, study, orig))}", ""],
        [
            f"A replication report on {_md(orig.cite)} ({_md(STUDY_NAME.get(study, study))} in the compendium), "
            "generated from the claims ledger `results/claims/claims.csv`.",
            "",
            f"**Title rule.** {_md(TITLE_RULE)} Here the headline claims are "
            + ", ".join(f"{code(r['claim_id'])} ({_status_word(r['status'])})" for r in headline.to_dict("records"))
            + f": {_md(prefix)}.",
        ],
        off_paper_section(study, sources.get("off_paper") or {}),
        ["## Reproducibility Summary"],
        scope_section(rows),
        methodology_section(study, rows, sources),
        results_section(rows, headline),
        easy_section(rows),
        difficult_section(rows),
        ["### Communication with original authors", "", COMMUNICATION],
    ]
    return "\n\n".join("\n".join(p) for p in parts if p).replace("\n\n\n", "\n\n") + "\n"


# ------------------------------------------------------------------------------------------------ metadata


def _y(v) -> str:
    """A YAML scalar: text double-quoted (JSON's quoting is YAML's), control characters shown visibly."""
    return json.dumps(visible(str(v), inline=True), ensure_ascii=False)


def _fill(what: str) -> str:
    return f'""  # to fill: {what}'


def _authors_yaml(cff: dict) -> list[str]:
    out = ["authors:"]
    for a in cff.get("authors") or [{}]:
        name = a.get("name") or " ".join(x for x in (a.get("given-names"), a.get("family-names")) if x)
        out += [
            f"  - name: {_y(name) if name else _fill('the author (CITATION.cff names none)')}",
            f"    orcid: {_y(a['orcid']) if a.get('orcid') else _fill('ORCID (CITATION.cff records none)')}",
            f"    email: {_y(a['email']) if a.get('email') else _fill('e-mail (CITATION.cff records none)')}",
            f"    affiliations: {_fill('affiliation codes, with * for the contact author')}",
        ]
    return out


def metadata_yaml(study: str, claims: pd.DataFrame, orig: Original, sources: dict) -> str:
    """ReScience C's ``metadata.yaml`` for the study's report: every field of the template
    (:data:`RESCIENCE_FIELDS`); what CITATION.cff, the bibliography and the datasheet record is filled in, the
    rest is an empty string marked ``# to fill``. ``code`` also carries the compendium's version and licence
    (keys the template does not have; ReScience's tools read only url, doi and swh)."""
    cff, sheet = sources["citation"], sources["datasheet"]
    rows = claims[claims["study"] == study]
    n = status_counts(rows)
    hf = (sheet.get("Canonical Hugging Face id") or "").split("`")
    hf_id = hf[1] if len(hf) > 2 else ""
    abstract = (
        f"A replication, generated from a research compendium's claims ledger, of {orig.cite} Of the {len(rows)} "
        f"numbers the article prints, {n['reproduced']} reproduce, {n['differs']} differ for a stated reason, "
        f"{n['needs_data']} need data this release does not bundle and {n['quoted']} are quoted design constants."
    )
    keywords = ", ".join(str(k) for k in cff.get("keywords") or [])
    lines = [
        "# ReScience C metadata, generated by `python -m compendium.claims report` from the claims ledger,",
        "# CITATION.cff and book/references.bib. A field marked 'to fill' is one the compendium cannot know.",
        f"title: {_y(title(claims, study, orig))}",
        *_authors_yaml(cff),
        "affiliations:",
        f"  - code: {_fill('affiliation code')}",
        f"    name: {_fill('affiliation')}",
        f"    address: {_fill('address')}",
        f"keywords: {_y(keywords) if keywords else _fill('keywords')}",
        "code:",
        f"  - url: {_y(cff['repository-code']) if cff.get('repository-code') else _fill('code URL (CITATION.cff sets no repository-code)')}",
        f"  - doi: {_fill('code DOI (Zenodo), after acceptance')}",
        f"  - swh: {_fill('Software Heritage identifier')}",
        f"  - version: {_y(cff.get('version', ''))}",
        f"  - licence: {_y(cff.get('license', ''))}",
        "data:",
        f"  - url: {_y('https://huggingface.co/datasets/' + hf_id) if hf_id else _fill('data URL')}",
        f"  - doi: {_fill('data DOI')}",
        "replication:",
        f"  - cite: {_y(orig.cite)}",
        f"  - bib: {_y(orig.key)}",
        f"  - url: {_y(orig.url) if orig.url else _fill('URL of the original article (the bibliography records none)')}",
        f"  - doi: {_y(orig.doi) if orig.doi else _fill('DOI of the original article (the bibliography records none)')}",
        f"abstract: {_y(abstract)}",
        'bibliography: "references.bib"',
        "type: Replication",
        f"domain: {_fill('scientific domain')}",
        'language: "Python"',
        "review:",
        f"  - url: {_fill('URL of the review, after submission')}",
        "contributors:",
        f"  - name: {_fill('editor')}",
        f"    orcid: {_fill('editor ORCID')}",
        "    role: editor",
        *(
            line
            for i in (1, 2)
            for line in (
                f"  - name: {_fill(f'reviewer {i}')}",
                f"    orcid: {_fill(f'reviewer {i} ORCID')}",
                "    role: reviewer",
            )
        ),
        "dates:",
        f"  - received: {_fill('date received')}",
        f"  - accepted: {_fill('date accepted')}",
        f"  - published: {_fill('date published')}",
        "article:",
        f"  - number: {_fill('article number, by the editor')}",
        f"  - doi: {_fill('article DOI, by the editor')}",
        f"  - url: {_fill('article URL, by the editor')}",
        "journal:",
        '  - name: "ReScience C"',
        '  - issn: "2430-3658"',
        f"  - volume: {_fill('volume, by the editor')}",
        f"  - issue: {_fill('issue, by the editor')}",
    ]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------------ the book


def reports_html(csv: Path | None = None):
    """The claims page's list of the replication reports the book publishes (``reports/<study>/``: the page,
    its Markdown, ``metadata.yaml``, ``references.bib``; :func:`compendium.claims.links.report_href`), one item per
    study of the ledger ``csv`` (default ``results/claims/claims.csv``), in :data:`ORIGINAL_BIB_KEY`'s order, as
    :func:`write_reports` writes them: the study's name and its report's title ([Re] or [¬Re] by
    :data:`TITLE_RULE`), rendered by the autoescaping templates (titles come from the bibliography and the
    ledger)."""
    from .html import render
    from .links import report_href

    claims = read_ledger(Path(csv) if csv is not None else paths.RESULTS / "claims" / "claims.csv")

    labels = {"report.md": "Markdown", "metadata.yaml": "ReScience C metadata.yaml", "references.bib": "BibTeX"}
    reports = [
        {
            "study": STUDY_NAME.get(study, study),
            "title": title(claims, study, original(study)),
            "page": report_href(study),
            "files": [(label, report_href(study, f)) for f, label in labels.items()],
        }
        for study in ORIGINAL_BIB_KEY
        if study in set(claims["study"])
    ]
    return render("reports.html", reports=reports)


# ------------------------------------------------------------------------------------------------ writing


def _sources(study: str, record_commit: bool = True) -> dict:
    from .compare import off_paper_studies
    from .vocab import STUDY_PKG

    return {
        "datasheet": datasheet(study),
        "manifest": manifest(),
        "citation": citation(),
        "pins": pins(),
        "package": STUDY_PKG.get(study, study),
        "record_commit": record_commit,
        "commit": git_commit() if record_commit else None,
        # the changed keys by study when this run is off the reference settings (results/params: claims stage deps)
        "off_paper": off_paper_studies(),
    }


def write_reports(out: Path, csv: Path | None = None, *, record_commit: bool = True) -> dict[str, Path]:
    """Write ``out/<study>/report.md``, ``metadata.yaml`` and ``references.bib`` for every study of the ledger
    ``csv`` (default ``results/claims/claims.csv``); study -> its folder. With ``record_commit=False`` (the claims
    stage's copy, which the book publishes) the methodology says where the commit is instead of naming it, so the
    files depend on the ledger and :data:`INPUTS` only."""
    csv = Path(csv) if csv is not None else paths.RESULTS / "claims" / "claims.csv"
    claims = read_ledger(csv)
    written = {}
    for study in [s for s in ORIGINAL_BIB_KEY if s in set(claims["study"])]:
        orig, sources = original(study), _sources(study, record_commit)
        folder = Path(out) / study
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "report.md").write_text(report_markdown(study, claims, orig, sources), encoding="utf-8")
        (folder / "metadata.yaml").write_text(metadata_yaml(study, claims, orig, sources), encoding="utf-8")
        (folder / "references.bib").write_text(orig.bibtex, encoding="utf-8")
        written[study] = folder
    return written
