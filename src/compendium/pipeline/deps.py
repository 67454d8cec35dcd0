"""Which package files each stage really uses: the ``compendium`` modules its notebook imports, followed
through the package's own imports.

    python -m compendium.pipeline.deps            # print, per stage, the src/compendium paths its dvc.yaml deps need
    python -m compendium.pipeline.deps --write    # write them into dvc.yaml, with each study stage's data deps

``dvc.yaml`` lists these paths as each stage's code dependencies (a study's subpackage, the data layer, the
stage runner and the chapter helpers as folders, other shared modules as files), so editing
``compendium/workbank/`` re-runs the WORKBank stages and what reads them, not PWB or the preferences.
Editing any file of ``compendium/pipeline/`` re-runs every stage (the price of one folder dep instead of
about a dozen file deps per stage, which makes DVC's every pass over ``dvc.lock`` shorter).
``tests/pipeline/test_stage_deps.py`` compares them with ``dvc.yaml``.
"""

from __future__ import annotations

import ast
import sys
from functools import cache
from pathlib import Path

from compendium.pipeline import paths, studies

PACKAGE = paths.ROOT / "src" / "compendium"
#: the runner every stage's command starts (compendium.pipeline.stage and what it imports)
RUNNER = ("compendium.pipeline.stage",)
#: package files a stage loads by path, which its ``import`` statements do not show: the claims stage loads
#: each study's plain-data ``provenance.py`` on its own (:func:`compendium.claims.register.load_provenance`), and
#: reads the data catalog (the replication reports' provenance of the data, :func:`compendium.claims.report.catalog`)
#: and the data manifest (the reports' checksums; the chapter's links to a file's row or to the hub,
#: :mod:`compendium.claims.links`)
READS: dict[str, tuple[str, ...]] = {
    "claims": (
        *(f"src/compendium/{s.id}/provenance.py" for s in sorted(studies.STUDIES, key=lambda s: s.id) if s.register),
        "src/compendium/data/catalog.py",
        "src/compendium/data/manifest.json",
    ),
}
#: stages whose command is a module's ``main`` (no notebook): stage -> module; their deps are that module's closure
MODULE_STAGES: dict[str, str] = {s.name: s.module for s in studies.ALL_STAGES if s.module is not None}
#: subpackages listed as a whole folder: every study's wing, the claims check (with its templates/, read, not
#: imported), the data layer, the shared statistics, and the stage runner and the chapter helpers, which nearly
#: every stage uses (the module docstring: the price)
FOLDERS = (
    "compendium.claims",
    *(s.package for s in studies.STUDIES),
    "compendium.data",
    "compendium.stats",
    "compendium.pipeline",
    "compendium.chapter",
)


def module_file(name: str) -> Path | None:
    """The file of module ``name`` (``compendium.x.y``), or None if it is not in the package."""
    parts = name.split(".")
    if parts[0] != "compendium" or not all(parts):
        return None
    if len(parts) == 1:
        return PACKAGE / "__init__.py"
    rel = Path(*parts[1:])
    for cand in (PACKAGE / rel.with_suffix(".py"), PACKAGE / rel / "__init__.py"):
        if cand.exists():
            return cand
    return None


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join(["compendium", *parts])


def _imports(tree: ast.AST, current: str | None, is_package: bool) -> set[str]:
    """Names of the ``compendium`` modules a parsed file imports (relative imports resolved)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "compendium"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if current is None:
                    continue
                base = current.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] != "compendium":
                continue
            out.add(mod)
            # `from compendium.x import y` may import a submodule y
            out |= {f"{mod}.{a.name}" for a in node.names if module_file(f"{mod}.{a.name}") is not None}
    return {m for m in out if module_file(m) is not None}


@cache
def _file_imports(path: Path) -> frozenset[str]:
    name = _module_name(path)
    return frozenset(_imports(ast.parse(path.read_text()), name, path.name == "__init__.py"))


def closure(modules: set[str]) -> set[str]:
    """The modules and everything they import inside the package (a package's ``__init__`` included)."""
    seen: set[str] = set()
    todo = list(modules)
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        parts = m.split(".")
        for k in range(2, len(parts)):  # importing a.b.c runs a/__init__ and a/b/__init__
            todo.append(".".join(parts[:k]))
        f = module_file(m)
        if f is not None:
            todo.extend(_file_imports(f))
    return seen


def notebook_modules(notebook: Path) -> set[str]:
    """The ``compendium`` modules the code cells of a MyST text notebook import, followed transitively."""
    import jupytext

    nb = jupytext.read(notebook)
    found: set[str] = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        src = "\n".join(ln for ln in cell.source.splitlines() if not ln.lstrip().startswith(("%", "!")))
        found |= _imports(ast.parse(src), None, False)
    return closure(found | set(RUNNER))


def dep_paths(modules: set[str]) -> list[str]:
    """Repository-relative paths to list as deps: a folder for each subpackage of :data:`FOLDERS` used,
    the file of every other module."""
    out = set()
    for m in modules:
        folder = next((f for f in FOLDERS if m == f or m.startswith(f + ".")), None)
        if folder is not None:
            out.add(str(module_file(folder).parent.relative_to(paths.ROOT)))
        else:
            out.add(str(module_file(m).relative_to(paths.ROOT)))
    return sorted(out)


def stage_dep_paths() -> dict[str, list[str]]:
    """For every notebook stage and every :data:`MODULE_STAGES` stage, the src/compendium paths its deps must list."""
    from compendium.pipeline.stage import STAGES

    out = {
        name: sorted(set(dep_paths(notebook_modules(st.source))) | set(READS.get(name, ())))
        for name, st in STAGES.items()
    }
    for name, module in MODULE_STAGES.items():
        out[name] = sorted(set(dep_paths(closure({module}))) | set(READS.get(name, ())))
    return out


#: the dependency lines :func:`stage_data_deps` owns in a study's stage (any other line is kept as written)
DATA_PREFIXES = ("results/", "published/", "sweeps/")


def stage_data_deps() -> dict[str, list[str]]:
    """For every stage of a study (:data:`compendium.pipeline.studies.STUDIES`), the data it depends on, in order:
    the params check and its parameter record (``results/params/<stage>.json`` when it reads only some keys of its
    section, else ``results/params/<section>.json``), then the files of other stages it reads
    (:attr:`~compendium.pipeline.studies.Stage.reads`: small files of their own, never another study's whole
    ``values.json``)."""
    from compendium.pipeline.params import PARTIAL_RECORDS

    out = {}
    for study in studies.STUDIES:
        for st in study.stages:
            lines = []
            if st.section is not None:
                record = st.name if st.name in PARTIAL_RECORDS else st.section
                lines += ["results/params/valid.json", f"results/params/{record}.json"]
            out[st.name] = lines + list(st.reads)
    return out


def rewrite_dvc_yaml(text: str, wanted: dict[str, list[str]], data: dict[str, list[str]] | None = None) -> str:
    """``dvc.yaml`` with each stage's ``src/compendium`` deps replaced by ``wanted[stage]`` (inserted
    after the stage's notebook dep) and, for the stages of ``data`` (:func:`stage_data_deps`), its
    ``results/``, ``published/`` and ``sweeps/`` deps replaced by ``data[stage]`` (inserted after
    ``requirements.txt``); everything else kept as written."""
    data = data or {}
    out, stage, block = [], None, None
    for line in text.splitlines():
        head = line[2:-1] if line.startswith("  ") and not line.startswith("   ") and line.endswith(":") else None
        if head is not None:
            stage = head
        if line.startswith("    ") and not line.startswith("     ") and line.rstrip().endswith(":"):
            block = line.strip()[:-1]  # deps, outs, params, metrics
        if stage in wanted and line.startswith("      - src/compendium"):
            continue
        if stage in data and block == "deps" and line.startswith(tuple(f"      - {p}" for p in DATA_PREFIXES)):
            continue
        out.append(line)
        if stage in wanted and (
            line.startswith("      - notebooks/") or stage in MODULE_STAGES and line == "    deps:"
        ):
            out += [f"      - {d}" for d in wanted[stage]]
        if stage in data and line == "      - requirements.txt":
            out += [f"      - {d}" for d in data[stage]]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    from compendium.pipeline.cli import safe_output

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError
    argv = sys.argv[1:] if argv is None else argv
    wanted, data = stage_dep_paths(), stage_data_deps()
    if argv == ["--write"]:
        f = paths.ROOT / "dvc.yaml"
        f.write_text(rewrite_dvc_yaml(f.read_text(), wanted, data))
        print(f"updated the package deps of {len(wanted)} stages and the data deps of {len(data)} in {f}")
        return 0
    for name, deps in wanted.items():
        print(f"{name}:")
        for d in deps + data.get(name, []):
            print(f"  - {d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
