"""Every free-text field of every raw file: what a refreshed upstream release could put into the book.

Two sources, never a list typed twice:

- **the tables**: generated from :mod:`compendium.data.schema`, every ``str`` column that has no fixed
  set of allowed values (a column with allowed values cannot carry other text: validation refuses it);
- **the files with no table schema** (:data:`DOCUMENTS`): the PWB system prompt, the rubrics, the prompt
  YAMLs (the Layer-2 scenario ``domain`` among them) and the HITL comment themes, each with the paths of
  its text fields and a small loader (:func:`read_document` / :func:`write_document`).

A path is dot-separated keys; ``*`` is every key of a mapping, ``[]`` every item of a list (``themes[].label``,
``*.rubric.*.label``); the empty path is the whole text of a text file. The security suite
(``tests/security/``) injects its payloads into every field listed here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from compendium.pipeline import yamlfile

from .schema import HITL, PWB, STR, WORKBANK, TableSpec

__all__ = ["TableField", "Document", "DOCUMENTS", "table_fields", "document_files", "map_strings"]


@dataclass(frozen=True)
class TableField:
    spec: TableSpec
    column: str

    @property
    def relpath(self) -> str:
        return self.spec.relpath


@dataclass(frozen=True)
class Document:
    pattern: str  # glob under data/
    fmt: str  # text | yaml | json
    paths: tuple[str, ...]
    what: str = ""


DOCUMENTS: tuple[Document, ...] = (
    Document("pwb/system_prompt.md", "text", ("",), "the pro-worker system prompt (rendered verbatim)"),
    Document(
        "pwb/rubrics/dimension_rubrics.yaml",
        "yaml",
        ("*.name", "*.description", "*.rubric.*.label", "*.rubric.*.description"),
        "dimension names, questions, anchor labels and anchors",
    ),
    Document(
        "pwb/prompts/layer1_behavioral/*.yaml",
        "yaml",
        ("prompts[].domain", "prompts[].difficulty", "prompts[].user_type"),
        "the Layer-1 probes' domains",
    ),
    Document(
        "pwb/prompts/layer2_scenarios/*.yaml",
        "yaml",
        ("scenario_id", "domain", "dimensions_tested[]"),
        "the Layer-2 scenarios (id, domain, dimensions tested)",
    ),
    Document(
        "pwb/prompts/layer3_adversarial/stress_tests.yaml",
        "yaml",
        ("prompts[].category", "prompts[].domain", "prompts[].difficulty"),
        "the Layer-3 pressure categories",
    ),
    Document(
        "hitl/prolific_prompts.json",
        "json",
        ("_meta.categories[]",),
        "the prompt categories the study lists (the prompts themselves are a table: schema hitl_prompts)",
    ),
    Document(
        "hitl/comment_themes_llm.json",
        "json",
        ("themes[].label", "themes[].description", "themes[].quotes[]"),
        "the comment themes",
    ),
)


def table_fields() -> list[TableField]:
    """Every free-text column of every table schema (``str``, no allowed values)."""
    return [
        TableField(spec, c.name)
        for spec in (*WORKBANK, *PWB, *HITL)
        for c in spec.columns
        if c.kind == STR and not c.allowed
    ]


def document_files(data_root: Path, doc: Document) -> list[Path]:
    """The files under ``data_root`` a :class:`Document` pattern names (a clear error if there are none)."""
    files = sorted(data_root.glob(doc.pattern))
    if not files:
        raise FileNotFoundError(f"{data_root / doc.pattern}: no file matches the text-field declaration")
    return files


def read_document(path: Path, fmt: str):
    text = path.read_text(encoding="utf-8")
    if fmt == "text":
        return text
    return yamlfile.loads(text, str(path)) if fmt == "yaml" else json.loads(text)  # aliases bounded


def write_document(path: Path, fmt: str, obj) -> None:
    if fmt == "text":
        out = obj
    elif fmt == "yaml":
        out = yaml.safe_dump(obj, sort_keys=False, allow_unicode=True)
    else:
        out = json.dumps(obj, ensure_ascii=False, indent=2) + "\n"
    path.write_text(out, encoding="utf-8")


def _steps(path: str) -> list[str]:
    out: list[str] = []
    for part in path.split(".") if path else []:
        if part.endswith("[]"):
            if part[:-2]:
                out.append(part[:-2])
            out.append("[]")
        else:
            out.append(part)
    return out


def _walk(obj, steps: list[str], fn: Callable[[str], str]) -> Iterator[int]:
    if not steps:
        return
    head, rest = steps[0], steps[1:]
    if head == "[]":
        items = list(enumerate(obj)) if isinstance(obj, list) else []
    elif head == "*":
        items = list(obj.items()) if isinstance(obj, dict) else []
    else:
        items = [(head, obj[head])] if isinstance(obj, dict) and head in obj else []
    for key, value in items:
        if rest:
            yield from _walk(value, rest, fn)
        elif isinstance(value, str):
            obj[key] = fn(value)
            yield 1


def map_strings(obj, path: str, fn: Callable[[str], str]):
    """Apply ``fn`` to every string ``path`` names in ``obj`` (in place for containers); returns
    ``(obj, count)``. The empty path maps a whole text."""
    if not path:
        return fn(obj), 1
    return obj, sum(_walk(obj, _steps(path), fn))
