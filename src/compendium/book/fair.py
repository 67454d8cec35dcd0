"""FAIR metadata of the compendium, all from one source: ``CITATION.cff``.

    python -m compendium.book.fair write          # regenerate .zenodo.json and codemeta.json from CITATION.cff
    python -m compendium.book.fair check          # fail if they are not what CITATION.cff gives (CI, tests)
    python -m compendium.book.fair crate [HTML]   # write ro-crate-metadata.json into the built book

* :func:`zenodo` and :func:`codemeta` convert the Citation File Format (1.2.0) to Zenodo's deposit metadata
  (``.zenodo.json``, read by Zenodo's GitHub integration) and CodeMeta 2.0 (``codemeta.json``). This is a
  small converter of the fields the compendium uses, written here because ``cffconvert`` pins an old
  ``jsonschema`` that conflicts with the project's stack; both outputs are checked offline against the
  schemas in :data:`ZENODO_SCHEMA` / :data:`CODEMETA_SCHEMA` (the parts of the official ones we fill).
* :func:`build_crate` describes the built book as an RO-Crate (``ro-crate-metadata.json``, made with the
  ``rocrate`` library): the three datasets with their licences *as recorded* in
  :data:`compendium.data.catalog.DATASETS` (the PWB licence conflict and WORKBank's missing licence are
  stated, not resolved), every raw file with its SHA-256 and size from ``src/compendium/data/manifest.json``,
  the executed notebooks, the HTML pages, and the software. Dates come from ``date-released``, never from
  the clock, so the file is byte-stable for the same inputs; :func:`validate_crate` checks it offline.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from compendium.pipeline import paths, yamlfile
from compendium.pipeline.rawdata import sha256_file

CFF = paths.ROOT / "CITATION.cff"
ZENODO_JSON = paths.ROOT / ".zenodo.json"
CODEMETA_JSON = paths.ROOT / "codemeta.json"
CRATE_NAME = "ro-crate-metadata.json"
SPDX = "https://spdx.org/licenses/{}"

# The parts of Zenodo's legacy deposit schema and CodeMeta 2.0 that the compendium fills, as JSON Schema.
ZENODO_SCHEMA = {
    "type": "object",
    "required": ["title", "upload_type", "description", "creators", "publication_date", "access_right"],
    "properties": {
        "title": {"type": "string", "minLength": 1},
        "upload_type": {
            "enum": [
                "publication",
                "poster",
                "presentation",
                "dataset",
                "image",
                "video",
                "software",
                "lesson",
                "physicalobject",
                "other",
            ]
        },
        "description": {"type": "string", "minLength": 1},
        "creators": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["name"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "affiliation": {"type": "string"},
                    "orcid": {"type": "string", "pattern": r"^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$"},
                },
            },
        },
        "publication_date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
        "access_right": {"enum": ["open", "embargoed", "restricted", "closed"]},
        "license": {"type": "string", "minLength": 1},
        "version": {"type": "string"},
        "keywords": {"type": "array", "items": {"type": "string"}},
        "related_identifiers": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["identifier", "relation"],
                "properties": {
                    "identifier": {"type": "string"},
                    "relation": {"type": "string"},
                    "scheme": {"type": "string"},
                    "resource_type": {"type": "string"},
                },
            },
        },
        "references": {"type": "array", "items": {"type": "string"}},
    },
    "additionalProperties": False,
}
CODEMETA_SCHEMA = {
    "type": "object",
    "required": ["@context", "@type", "name", "author", "license", "version"],
    "properties": {
        "@context": {"const": "https://doi.org/10.5063/schema/codemeta-2.0"},
        "@type": {"const": "SoftwareSourceCode"},
        "name": {"type": "string", "minLength": 1},
        "description": {"type": "string"},
        "author": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["@type"],
                "properties": {
                    "@type": {"enum": ["Person", "Organization"]},
                    "@id": {"type": "string"},
                    "name": {"type": "string"},
                    "givenName": {"type": "string"},
                    "familyName": {"type": "string"},
                },
            },
        },
        "license": {"type": "string", "pattern": "^https://spdx.org/licenses/"},
        "version": {"type": "string"},
        "datePublished": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
        "keywords": {"type": "array", "items": {"type": "string"}},
        "referencePublication": {"type": "array"},
    },
}


class CitationError(ValueError):
    """CITATION.cff lacks a field the metadata needs, or has one in the wrong form."""


def load_cff(path: Path | str = CFF) -> dict:
    path = Path(path)
    cff = yamlfile.load(path)  # aliases bounded
    if not isinstance(cff, dict):
        raise CitationError(f"{path}: not a YAML mapping")
    for key in ("cff-version", "title", "authors", "version", "date-released", "license"):
        if not cff.get(key):
            raise CitationError(
                f"{path}: field '{key}' is missing or empty (needed for .zenodo.json, codemeta.json and the RO-Crate)"
            )
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(cff["date-released"])):
        raise CitationError(f"{path}: date-released {cff['date-released']!r} is not YYYY-MM-DD")
    if not isinstance(cff["license"], str):
        raise CitationError(f"{path}: license must be one SPDX id (a list is not supported here)")
    return cff


def _person_name(a: dict) -> str:
    if a.get("name"):
        return str(a["name"])
    parts = [a.get("given-names"), a.get("name-particle"), a.get("family-names"), a.get("name-suffix")]
    name = " ".join(str(p) for p in parts if p)
    if not name:
        raise CitationError(f"author {a!r} has neither name nor family-names")
    return name


def _zenodo_creator(a: dict) -> dict:
    if a.get("family-names"):
        name = a["family-names"] + (f", {a['given-names']}" if a.get("given-names") else "")
    else:
        name = _person_name(a)
    out = {"name": name}
    if a.get("affiliation"):
        out["affiliation"] = str(a["affiliation"])
    if a.get("orcid"):
        out["orcid"] = str(a["orcid"]).rsplit("/", 1)[-1]
    return out


def _reference_text(r: dict) -> str:
    authors = ", ".join(_person_name(a) for a in r.get("authors", []))
    ids = "; ".join(str(i["value"]) for i in r.get("identifiers", []) if i.get("value"))
    venue = r.get("institution", {}).get("name") if isinstance(r.get("institution"), dict) else None
    title = r["title"] if r["title"].endswith((".", "?", "!")) else r["title"] + "."
    text = f"{authors} ({r['year']}). {title}" if r.get("year") else f"{authors}. {title}"
    return " ".join(x for x in (text, f"{venue}." if venue else "", ids) if x)


def _description(cff: dict) -> str:
    return str(cff.get("abstract") or cff.get("message") or cff["title"]).strip()


def _arxiv_ids(cff: dict) -> list[str]:
    out = []
    for r in cff.get("references", []):
        for i in r.get("identifiers", []):
            m = re.fullmatch(r"arXiv:(\d{4}\.\d{4,5}(v\d+)?)", str(i.get("value", "")))
            if m:
                out.append(f"arXiv:{m.group(1)}")
    return out


#: what ``repository-code`` may hold: an https address of a repository, no query, fragment or white space (the
#: book's repository link and launch buttons are built from it, :mod:`compendium.book.sphinx_chrome`)
_REPOSITORY = re.compile(r"https://[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+(:\d{1,5})?(/[A-Za-z0-9._~%+-]+)+/?")


def repository_url(cff: dict, path: Path | str = CFF) -> str | None:
    """The compendium's public repository, ``repository-code`` of CITATION.cff (no trailing ``/`` or ``.git``),
    or None while the field is unset or empty: the one setting the book's repository link and its Binder and
    Colab buttons come from, so that none of them shows an address nobody wrote."""
    value = cff.get("repository-code")
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    text = str(value).strip()
    if not _REPOSITORY.fullmatch(text):
        raise CitationError(
            f"{path}: repository-code {text[:200]!r} is not the https:// address of a repository (such as "
            "https://github.com/<owner>/<repo>); correct it, or delete the line while the compendium has no public "
            "repository (the book then shows no repository link and no launch buttons)"
        )
    text = text.rstrip("/")
    text = text[: -len(".git")] if text.endswith(".git") else text
    if re.match(r"https://github\.com/", text, re.I) and text.count("/") != 4:
        raise CitationError(
            f"{path}: repository-code {text[:200]!r} is not a GitHub repository's address, which is "
            "https://github.com/<owner>/<repo> (no branch, folder or file after it); correct it"
        )
    return text


_BIBTEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "%": r"\%",
    "&": r"\&",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _bib(text) -> str:
    """``text`` as the value of a BibTeX field: LaTeX's special characters escaped, white space collapsed."""
    return "".join(_BIBTEX_SPECIAL.get(ch, ch) for ch in " ".join(str(text).split()))


def _bib_author(a: dict) -> str:
    if not a.get("family-names"):  # an organisation (or a one-part name): braced, so BibTeX does not split it
        return "{" + _bib(_person_name(a)) + "}"
    last = " ".join(str(p) for p in (a.get("name-particle"), a["family-names"]) if p)
    parts = [last] + ([str(a["name-suffix"])] if a.get("name-suffix") else [])
    parts += [str(a["given-names"])] if a.get("given-names") else []
    return ", ".join(_bib(p) for p in parts)


def bibtex_key(cff: dict) -> str:
    """The entry's key: the first author's family name (an organisation: its first word that is not an article)
    and the year released, in ASCII letters and digits (``compendium2026``)."""
    import unicodedata

    first = cff["authors"][0]
    words = str(first.get("family-names") or _person_name(first)).split()
    words = [w for w in words if w.lower() not in ("the", "a", "an")] or words or ["compendium"]
    if not first.get("family-names") and len(words) > 1 and words[-1].lower() in ("team", "group", "project"):
        words = words[:-1]
    ascii_word = unicodedata.normalize("NFKD", words[0]).encode("ascii", "ignore").decode().lower()
    return (re.sub(r"[^a-z0-9]", "", ascii_word) or "compendium") + str(cff["date-released"])[:4]


def bibtex(cff: dict, path: Path | str = CFF) -> str:
    """A BibTeX (biblatex ``@software``) entry for the compendium from a parsed CITATION.cff: the entry the
    landing page shows beside "Cite as" (:mod:`compendium.book.sphinx_chrome`), from the same fields as
    ``.zenodo.json`` and ``codemeta.json``. Titles are double-braced (their capitals kept); every value has
    LaTeX's special characters escaped; ``url`` is ``repository-code`` (only when set) and ``doi`` the DOI."""
    date = str(cff["date-released"])
    fields = [
        ("author", " and ".join(_bib_author(a) for a in cff["authors"])),
        ("title", "{" + _bib(cff["title"]) + "}"),
        ("year", date[:4]),
        ("month", _MONTHS[int(date[5:7]) - 1]),
        ("date", date),
        ("version", _bib(cff["version"])),
    ]
    if cff.get("doi"):
        fields.append(("doi", _bib(cff["doi"])))
    repo = repository_url(cff, path)
    if repo:
        fields.append(("url", repo))  # validated: no character BibTeX or LaTeX treats specially but % and ~
    lines = [f"@software{{{bibtex_key(cff)},"]
    for k, (name, value) in enumerate(fields):
        value = value if name == "month" else "{" + value + "}"
        lines.append(f"  {name:<7} = {value}" + ("," if k < len(fields) - 1 else ""))
    return "\n".join(lines + ["}"]) + "\n"


def zenodo(cff: dict) -> dict:
    """Zenodo deposit metadata (``.zenodo.json``) from a parsed CITATION.cff."""
    out = {
        "title": cff["title"],
        "upload_type": "software" if cff.get("type", "software") == "software" else "dataset",
        "description": _description(cff),
        "creators": [_zenodo_creator(a) for a in cff["authors"]],
        "publication_date": str(cff["date-released"]),
        "access_right": "open",
        "license": cff["license"],
        "version": str(cff["version"]),
    }
    if cff.get("keywords"):
        out["keywords"] = [str(k) for k in cff["keywords"]]
    rel = [
        {"identifier": a, "relation": "references", "scheme": "arxiv", "resource_type": "publication-article"}
        for a in _arxiv_ids(cff)
    ]
    if rel:
        out["related_identifiers"] = rel
    if cff.get("references"):
        out["references"] = [_reference_text(r) for r in cff["references"]]
    return out


def _codemeta_person(a: dict) -> dict:
    if a.get("family-names"):
        p = {"@type": "Person", "familyName": a["family-names"]}
        if a.get("given-names"):
            p["givenName"] = a["given-names"]
        if a.get("orcid"):
            p["@id"] = a["orcid"]
        return p
    return {"@type": "Organization", "name": _person_name(a)}


def codemeta(cff: dict) -> dict:
    """CodeMeta 2.0 (``codemeta.json``) from a parsed CITATION.cff."""
    out = {
        "@context": "https://doi.org/10.5063/schema/codemeta-2.0",
        "@type": "SoftwareSourceCode",
        "name": cff["title"],
        "description": _description(cff),
        "author": [_codemeta_person(a) for a in cff["authors"]],
        "license": SPDX.format(cff["license"]),
        "version": str(cff["version"]),
        "datePublished": str(cff["date-released"]),
        "programmingLanguage": "Python",
    }
    if repository_url(cff):
        out["codeRepository"] = repository_url(cff)
    if cff.get("keywords"):
        out["keywords"] = [str(k) for k in cff["keywords"]]
    refs = []
    for r in cff.get("references", []):
        ref = {
            "@type": "ScholarlyArticle" if r.get("type") == "article" else "Report",
            "name": r["title"],
            "author": [_codemeta_person(a) for a in r.get("authors", [])],
        }
        if r.get("year"):
            ref["datePublished"] = str(r["year"])
        ids = [f"https://arxiv.org/abs/{a.split(':', 1)[1]}" for a in _arxiv_ids({"references": [r]})]
        if ids:
            ref["@id"] = ids[0]
        refs.append(ref)
    if refs:
        out["referencePublication"] = refs
    return out


def _dump(obj: dict) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def validate(obj: dict, schema: dict, what: str) -> None:
    import jsonschema

    try:
        jsonschema.validate(obj, schema)
    except jsonschema.ValidationError as exc:
        raise CitationError(
            f"{what}: {exc.message} (at {'/'.join(map(str, exc.absolute_path)) or 'top level'})"
        ) from exc


def generated(cff_path: Path | str = CFF) -> dict[Path, str]:
    """{output path: text} of .zenodo.json and codemeta.json for ``cff_path`` (validated)."""
    cff = load_cff(cff_path)
    z, c = zenodo(cff), codemeta(cff)
    validate(z, ZENODO_SCHEMA, ".zenodo.json")
    validate(c, CODEMETA_SCHEMA, "codemeta.json")
    return {ZENODO_JSON: _dump(z), CODEMETA_JSON: _dump(c)}


def stale(cff_path: Path | str = CFF) -> list[str]:
    """Names of the metadata files that differ from what CITATION.cff gives."""
    return [
        p.name for p, text in generated(cff_path).items() if not p.exists() or p.read_text(encoding="utf-8") != text
    ]


# --------------------------------------------------------------------------- RO-Crate of the built book


def _licence_entities(licence_text: str) -> list[tuple[str, dict]]:
    """(id, properties) of the licence entities for a licence *as recorded* in the catalog.

    A plain SPDX-like licence gives its SPDX entity; a conflict gives every licence named plus a
    statement of the conflict; "none declared" gives a statement that there is none. Nothing is resolved."""
    low = licence_text.lower()
    found = []
    for name, spdx in (("CC BY-NC-SA 4.0", "CC-BY-NC-SA-4.0"), ("CC BY 4.0", "CC-BY-4.0"), ("MIT", "MIT")):
        if re.search(re.escape(name) + r"(?![\w-])", licence_text):
            found.append((SPDX.format(spdx), {"@type": "CreativeWork", "name": name, "identifier": spdx}))
    if low.startswith("none declared"):
        return [
            (
                "#licence-none-declared",
                {
                    "@type": "CreativeWork",
                    "name": "No licence declared by the authors",
                    "description": f"Licence as recorded: {licence_text}",
                },
            )
        ]
    if low.startswith("conflicting"):
        return [
            (
                "#licence-conflict-pwb",
                {
                    "@type": "CreativeWork",
                    "name": "Conflicting licences (unresolved)",
                    "description": f"Licence as recorded: {licence_text}",
                },
            )
        ] + found
    return found


def build_crate(html_dir: Path | str, cff_path: Path | str = CFF, manifest_path: Path | str | None = None):
    """The RO-Crate (a ``rocrate.rocrate.ROCrate``) describing the built book in ``html_dir``."""
    from rocrate.model.contextentity import ContextEntity
    from rocrate.rocrate import ROCrate

    from compendium.data import catalog

    html_dir = Path(html_dir)
    cff = load_cff(cff_path)
    manifest_path = (
        Path(manifest_path) if manifest_path else paths.ROOT / "src" / "compendium" / "data" / "manifest.json"
    )
    files = json.loads(manifest_path.read_text())["files"]
    date = str(cff["date-released"])

    crate = ROCrate(gen_preview=False)
    root = crate.root_dataset
    root["name"] = cff["title"]
    root["description"] = (
        _description(cff) + " This crate is the built Jupyter Book of the compendium: its pages, "
        "the executed notebooks they render, and a description of the raw data (with checksums "
        "and licences as recorded) and of the software that produced them."
    )
    root["datePublished"] = date
    root["version"] = str(cff["version"])
    root["keywords"] = [str(k) for k in cff.get("keywords", [])]
    lic = crate.add(
        ContextEntity(
            crate,
            SPDX.format(cff["license"]),
            properties={"@type": "CreativeWork", "name": cff["license"], "identifier": cff["license"]},
        )
    )
    root["license"] = lic
    authors = []
    for k, a in enumerate(cff["authors"]):
        person = _codemeta_person(a)
        pid = person.pop("@id", None) or f"#author-{k + 1}"
        if "name" not in person:
            person["name"] = _person_name(a)
        authors.append(crate.add(ContextEntity(crate, pid, properties=person)))
    root["author"] = authors

    software = crate.add(
        ContextEntity(
            crate,
            "#software",
            properties={
                "@type": "SoftwareSourceCode",
                "name": "compendium (Python package, src/compendium)",
                "description": "The package, DVC pipeline (dvc.yaml) and notebooks (notebooks/*.md) that regenerate every "
                "table and figure of this book from the raw data.",
                "version": str(cff["version"]),
                "license": lic,
                "programmingLanguage": "Python",
                "datePublished": date,
                "author": authors,
            },
        )
    )
    root["mentions"] = [software]

    # the datasets, with their licences as recorded and every raw file with its checksum
    datasets = []
    for key, meta in catalog.DATASETS.items():
        lic_ids = []
        for lid, props in _licence_entities(meta["licence"]):
            ent = crate.get(lid) or crate.add(ContextEntity(crate, lid, properties=props))
            lic_ids.append(ent)
        parts = []
        for rel in sorted(f for f in files if f.split("/", 1)[0] == key):
            rec = files[rel]
            props = {
                "@type": "File",
                "name": rel.split("/")[-1],
                "identifier": f"data/{rel}",
                "sha256": rec["sha256"],
                "contentSize": str(rec["bytes"]),
                "description": f"data/{rel} in the compendium repository (restored with `dvc pull`); "
                "not included in this crate",
            }
            if rec.get("rows") is not None:
                props["description"] += f"; {rec['rows']} records"
            parts.append(crate.add(ContextEntity(crate, f"#data/{rel}", properties=props)))
        ds = crate.add(
            ContextEntity(
                crate,
                f"https://huggingface.co/datasets/{meta['hf_id']}",
                properties={
                    "@type": "Dataset",
                    "name": meta["title"],
                    "identifier": f"data/{key}",
                    "description": f"{meta['citation']}. Code / provenance: {meta['code']}. Here (offline): {meta['offline']}. "
                    f"Hub only: {meta['online_only']}. Licence as recorded: {meta['licence']}.",
                    "license": lic_ids[0] if len(lic_ids) == 1 else lic_ids,
                    "hasPart": parts,
                },
            )
        )
        datasets.append(ds)
    root["isBasedOn"] = datasets

    # what is in the crate: the executed notebooks the pages render, and the pages themselves
    has_part = []
    for nb in sorted((html_dir / "_sources").rglob("*.ipynb")):
        rel = nb.relative_to(html_dir).as_posix()
        has_part.append(
            crate.add_file(
                nb,
                rel,
                properties={
                    "@type": "File",
                    "name": nb.stem,
                    "encodingFormat": "application/x-ipynb+json",
                    "description": f"executed notebook of notebooks/{nb.stem}.md, as run by its DVC stage",
                    "sha256": sha256_file(nb),
                    "contentSize": str(nb.stat().st_size),
                },
            )
        )
    pages = sorted(
        p
        for p in html_dir.rglob("*.html")
        if "_static" not in p.relative_to(html_dir).parts and "_sources" not in p.relative_to(html_dir).parts
    )
    for page in pages:
        rel = page.relative_to(html_dir).as_posix()
        has_part.append(
            crate.add_file(
                page, rel, properties={"@type": "File", "name": _title(page) or rel, "encodingFormat": "text/html"}
            )
        )
    root["hasPart"] = datasets + has_part  # web-based data entities are linked from hasPart too
    if (html_dir / "index.html").exists():
        root["mainEntity"] = crate.get("index.html")
    crate.metadata["datePublished"] = date
    return crate


def _title(page: Path) -> str | None:
    m = re.search(r"<title>(.*?)</title>", page.read_text(errors="replace"), re.DOTALL)
    if not m:
        return None
    import html

    return " ".join(html.unescape(m.group(1)).split())


def crate_json(crate) -> dict:
    """The crate's JSON-LD, with its graph sorted by @id (deterministic)."""
    data = crate.metadata.generate()
    head = [e for e in data["@graph"] if e["@id"] in (CRATE_NAME, "./")]
    rest = sorted((e for e in data["@graph"] if e["@id"] not in (CRATE_NAME, "./")), key=lambda e: e["@id"])
    data["@graph"] = head + rest
    return data


def write_crate(
    html_dir: Path | str = paths.BOOK / "_build" / "html",
    cff_path: Path | str = CFF,
    manifest_path: Path | str | None = None,
) -> Path:
    """Write ``ro-crate-metadata.json`` into the built book (and so into its archive); returns its path."""
    html_dir = Path(html_dir)
    crate = build_crate(html_dir, cff_path, manifest_path)
    out = html_dir / CRATE_NAME
    out.write_text(json.dumps(crate_json(crate), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    problems = validate_crate(html_dir)
    if problems:
        raise ValueError(f"{out}: the RO-Crate does not validate:\n  " + "\n  ".join(problems))
    return out


def _context_terms() -> set[str]:
    import importlib.resources

    ctx = json.loads((importlib.resources.files("rocrate") / "data" / "ro-crate.jsonld").read_text())
    return set(ctx["@context"])


def validate_crate(crate_dir: Path | str) -> list[str]:
    """Offline checks of ``crate_dir/ro-crate-metadata.json`` against the RO-Crate rules; [] if valid.

    The metadata descriptor conforms to RO-Crate and is about ``./``; the root dataset has name,
    description, datePublished (ISO date) and license; every property is a term of the bundled RO-Crate
    context; every referenced @id is described; every local data entity exists in the crate with the
    recorded SHA-256; and the ``rocrate`` library reads it back."""
    from rocrate.rocrate import ROCrate

    crate_dir = Path(crate_dir)
    path = crate_dir / CRATE_NAME
    if not path.exists():
        return [f"{path} missing"]
    data = json.loads(path.read_text(encoding="utf-8"))
    problems = []
    if not str(data.get("@context", "")).startswith("https://w3id.org/ro/crate/"):
        problems.append(f"@context {data.get('@context')!r} is not an RO-Crate context")
    graph = {e["@id"]: e for e in data.get("@graph", [])}
    desc = graph.get(CRATE_NAME, {})
    if not str(desc.get("conformsTo", {}).get("@id", "")).startswith("https://w3id.org/ro/crate/"):
        problems.append("metadata descriptor does not conform to an RO-Crate version")
    if desc.get("about", {}).get("@id") != "./":
        problems.append("metadata descriptor is not about ./")
    root = graph.get("./", {})
    for key in ("name", "description", "datePublished", "license"):
        if not root.get(key):
            problems.append(f"root dataset lacks {key}")
    if root.get("datePublished") and not re.fullmatch(r"\d{4}-\d{2}-\d{2}(T.*)?", root["datePublished"]):
        problems.append(f"root datePublished {root['datePublished']!r} is not ISO 8601")
    terms = _context_terms()
    for eid, e in graph.items():
        for k, v in e.items():
            if not k.startswith("@") and k not in terms:
                problems.append(f"{eid}: property {k!r} is not in the RO-Crate context")
            for ref in v if isinstance(v, list) else [v]:
                if (
                    isinstance(ref, dict)
                    and set(ref) == {"@id"}
                    and ref["@id"] not in graph
                    and not ref["@id"].startswith(("http://", "https://"))
                ):
                    problems.append(f"{eid}: {k} refers to undescribed {ref['@id']}")
        types = e.get("@type", [])
        types = types if isinstance(types, list) else [types]
        if "File" in types and not eid.startswith(("#", "http://", "https://")):
            f = crate_dir / eid
            if not f.is_file():
                problems.append(f"{eid}: data entity missing from the crate")
            elif e.get("sha256") and sha256_file(f) != e["sha256"]:
                problems.append(f"{eid}: sha256 differs from the file")
    try:
        ROCrate(crate_dir)
    except Exception as exc:  # noqa: BLE001 - report any reader failure as a problem
        problems.append(f"rocrate cannot read it: {type(exc).__name__}: {exc}")
    return problems


def main(argv: list[str] | None = None) -> int:
    from compendium.pipeline.cli import safe_output

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["write", "check", "crate"])
    ap.add_argument("html", nargs="?", default=str(paths.BOOK / "_build" / "html"))
    args = ap.parse_args(argv)
    if args.command == "write":
        for p, text in generated().items():
            p.write_text(text, encoding="utf-8")
            print(f"wrote {p.relative_to(paths.ROOT)}")
        return 0
    if args.command == "check":
        bad = stale()
        if bad:
            print(
                f"ERROR: {', '.join(bad)} out of date with CITATION.cff: run `python -m compendium.book.fair write`",
                file=sys.stderr,
            )
            return 1
        print(".zenodo.json and codemeta.json match CITATION.cff")
        return 0
    out = write_crate(Path(args.html))
    print(f"wrote and validated {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
