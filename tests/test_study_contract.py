"""The study contract (CONTRIBUTING.md, "A study"), checked on every wing of the one list of studies.

Every study in :data:`compendium.pipeline.studies.STUDIES` is a wing ``compendium/<id>/`` with the same modules
for the same jobs, so that learning one wing teaches the others and a cross-cutting fix is written once:

- ``build.py``: ``Inputs`` with a classmethod ``load(params, ...)``; a frozen dataclass ``<Study>Result`` (the
  list's ``result``); ``build(params, inputs, ...) -> <Study>Result``;
- ``register.py``: ``register_values(result) -> (values, missing)``;
- ``summary.py``: ``PHRASES``, a tuple of small ``*_phrases(result)`` functions, and ``summary(result)``; a study
  with a register also ``verdicts(values)`` (its "does it reproduce" sentences, from the claims' statuses);
- ``values.py``: ``stage_values(result)`` and ``tables(result)``;
- ``views.py``, ``figures.py``, ``alttext.py``, ``provenance.py``.

And: no function of a wing has a default for a key of its params section (defaults live in the schema,
``compendium.pipeline.params.REFERENCE``, only); the chapter's parameters cell reads the reference
(``ref = study_params("<id>")``, each key ``= ref.<key>``) and the chapter ends with ``publish``; importing a wing
loads neither pingouin, statsmodels nor matplotlib's pyplot (those are imported where a section uses them).

The checks are plain functions returning problems, so ``test_a_drifting_wing_is_caught`` can show that each
one fails on a wing that breaks it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from compendium.pipeline import studies

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "src" / "compendium"
MODULES = ("build", "register", "summary", "values", "views", "figures", "alttext", "provenance")
HEAVY = ("pingouin", "statsmodels", "matplotlib.pyplot")


def _tree(f: Path) -> ast.Module:
    return ast.parse(f.read_text())


def _top(tree: ast.Module) -> dict[str, ast.AST]:
    out: dict[str, ast.AST] = {}
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            out[n.name] = n
        elif isinstance(n, (ast.Assign, ast.AnnAssign)):
            for t in n.targets if isinstance(n, ast.Assign) else [n.target]:
                if isinstance(t, ast.Name):
                    out[t.id] = n
    return out


def _args(fn: ast.FunctionDef) -> list[str]:
    return [a.arg for a in fn.args.posonlyargs + fn.args.args]


def _frozen_dataclass(cls: ast.ClassDef) -> bool:
    for d in cls.decorator_list:
        if isinstance(d, ast.Call) and getattr(d.func, "id", getattr(d.func, "attr", "")) == "dataclass":
            return any(k.arg == "frozen" and getattr(k.value, "value", False) is True for k in d.keywords)
    return False


def wing_problems(wing: Path, result: str, has_register: bool) -> list[str]:
    """What the wing folder ``wing`` lacks of the contract's modules, names and signatures."""
    problems = [f"{wing.name}/{m}.py is missing" for m in MODULES if not (wing / f"{m}.py").is_file()]
    if problems:
        return problems
    top = {m: _top(_tree(wing / f"{m}.py")) for m in MODULES}

    def fn(module: str, name: str, first: tuple[str, ...]) -> None:
        node = top[module].get(name)
        if not isinstance(node, ast.FunctionDef):
            problems.append(f"{wing.name}/{module}.py has no function {name}")
        elif tuple(_args(node)[: len(first)]) != first:
            problems.append(
                f"{wing.name}/{module}.py: {name} takes {_args(node)}, the contract says {list(first)} first"
            )

    b = top["build"]
    inputs = b.get("Inputs")
    load = next((n for n in getattr(inputs, "body", []) if isinstance(n, ast.FunctionDef) and n.name == "load"), None)
    if not isinstance(inputs, ast.ClassDef):
        problems.append(f"{wing.name}/build.py has no class Inputs")
    elif load is None or not any(getattr(d, "id", "") == "classmethod" for d in load.decorator_list):
        problems.append(f"{wing.name}/build.py: Inputs has no classmethod load")
    elif _args(load)[:2] != ["cls", "params"]:
        problems.append(f"{wing.name}/build.py: Inputs.load takes {_args(load)}, the contract says (cls, params, ...)")
    res = b.get(result)
    if not isinstance(res, ast.ClassDef):
        problems.append(f"{wing.name}/build.py has no class {result}")
    elif not _frozen_dataclass(res):
        problems.append(f"{wing.name}/build.py: {result} is not a frozen dataclass")
    fn("build", "build", ("params", "inputs"))
    node = b.get("build")
    if isinstance(node, ast.FunctionDef) and ast.unparse(node.returns or ast.Constant(None)).strip("'\"") != result:
        problems.append(f"{wing.name}/build.py: build is not annotated to return {result}")
    fn("register", "register_values", ("result",))
    fn("summary", "summary", ("result",))
    if has_register:
        fn("summary", "verdicts", ("values",))
    phr = top["summary"].get("PHRASES")
    if phr is None:
        problems.append(f"{wing.name}/summary.py has no PHRASES")
    else:
        value = phr.value
        names = [e.id for e in value.elts] if isinstance(value, ast.Tuple) else None
        if names is None or not all(isinstance(e, ast.Name) for e in value.elts):
            problems.append(f"{wing.name}/summary.py: PHRASES is not a tuple of functions")
        else:
            for n in names:
                f = top["summary"].get(n)
                if not (isinstance(f, ast.FunctionDef) and n.endswith("_phrases") and len(_args(f)) == 1):
                    problems.append(f"{wing.name}/summary.py: PHRASES holds {n}, not a one-argument *_phrases function")
    fn("values", "stage_values", ("result",))
    fn("values", "tables", ("result",))
    return problems


def default_problems(wing: Path, keys: set[str]) -> list[str]:
    """Functions of the wing with a default for a params key (a default belongs in the params schema only)."""
    out = []
    for f in sorted(wing.glob("*.py")):
        for node in ast.walk(_tree(f)):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            a = node.args
            positional = a.posonlyargs + a.args
            pairs = list(zip(positional[len(positional) - len(a.defaults) :], a.defaults, strict=True))
            pairs += [(k, d) for k, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None]
            for arg, _ in pairs:
                if arg.arg in keys:
                    out.append(
                        f"{wing.name}/{f.name}:{node.lineno} {node.name}({arg.arg}=...): a default for a params key"
                    )
    return out


def notebook_problems(notebook: Path, section: str) -> list[str]:
    """The chapter's parameters cell reads the reference, key by key, and its last cells publish."""
    import jupytext

    nb = jupytext.read(notebook)
    cells = [c for c in nb.cells if c.cell_type == "code"]
    par = [c for c in cells if "parameters" in c.metadata.get("tags", [])]
    if len(par) != 1:
        return [f"{notebook.name}: {len(par)} parameters cells, not one"]
    tree = ast.parse(par[0].source)
    out = []
    ref = None
    for n in tree.body:
        if isinstance(n, ast.ImportFrom):
            continue
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)):
            out.append(f"{notebook.name}: the parameters cell holds more than assignments: {ast.unparse(n)[:60]}")
            continue
        name, value = n.targets[0].id, n.value
        if ref is None:
            want = f"study_params({section!r})"
            if ast.unparse(value) != want:
                out.append(f"{notebook.name}: the parameters cell starts {ast.unparse(n)[:60]}, not `{name} = {want}`")
            ref = name
        elif not (isinstance(value, ast.Attribute) and ast.unparse(value) == f"{ref}.{name}"):
            out.append(f"{notebook.name}: parameter {name} = {ast.unparse(value)[:40]}, not {ref}.{name}")
    if not any("publish(" in c.source for c in cells):
        out.append(f"{notebook.name}: the chapter does not end with publish(...)")
    return out


@pytest.mark.parametrize("study", studies.STUDIES, ids=lambda s: s.id)
def test_each_wing_has_the_contracts_modules_names_and_signatures(study):
    assert wing_problems(PKG / study.id, study.result, study.register is not None) == []


@pytest.mark.parametrize("study", studies.STUDIES, ids=lambda s: s.id)
def test_no_function_of_a_wing_has_a_default_for_a_params_key(study):
    from compendium.pipeline.params import SCHEMA

    assert default_problems(PKG / study.id, set(SCHEMA[study.id].model_fields)) == []


@pytest.mark.parametrize("study", studies.STUDIES, ids=lambda s: s.id)
def test_the_chapters_parameters_cell_reads_the_reference_and_the_chapter_publishes(study):
    assert notebook_problems(ROOT / "notebooks" / f"{study.stages[0].notebook}.md", study.id) == []


@pytest.mark.parametrize("study", studies.STUDIES, ids=lambda s: s.id)
def test_importing_a_wing_loads_no_heavy_library(study):
    code = f"import sys, {study.package}; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == [], f"importing {study.package} loads {out}: import them inside the function that uses them"


def test_every_study_has_a_params_section_and_every_section_a_study():
    from compendium.pipeline.params import SCHEMA

    assert list(SCHEMA) == ["data", *(s.id for s in studies.STUDIES)]
    assert all((PKG / s.id / "__init__.py").is_file() for s in studies.STUDIES)


def test_a_drifting_wing_is_caught(tmp_path):
    """Each check can fail: a wing whose build is not frozen and takes other arguments, a summary without
    PHRASES, a missing values.py, a default for a params key and a parameters cell with a literal are reported."""
    wing = tmp_path / "toy"
    wing.mkdir()
    for m in MODULES:
        (wing / f"{m}.py").write_text("")
    (wing / "build.py").write_text(
        "from dataclasses import dataclass\n"
        "class Inputs:\n    @classmethod\n    def load(cls, params): ...\n"
        "@dataclass\nclass ToyResult: ...\n"
        "def build(inputs, params) -> ToyResult: ...\n"
    )
    (wing / "register.py").write_text("def register_values(result): ...\n")
    (wing / "summary.py").write_text("def summary(result): ...\ndef verdicts(values): ...\n")
    (wing / "values.py").write_text("def stage_values(result): ...\n")
    (wing / "sweeps.py").write_text("def sweep(x, cutoff=3.0): ...\n")
    got = "\n".join(wing_problems(wing, "ToyResult", True))
    for words in (
        "ToyResult is not a frozen dataclass",
        "build takes ['inputs', 'params']",
        "has no PHRASES",
        "has no function tables",
    ):
        assert words in got
    (wing / "values.py").unlink()
    assert wing_problems(wing, "ToyResult", True) == ["toy/values.py is missing"]
    assert default_problems(wing, {"cutoff"}) == ["toy/sweeps.py:1 sweep(cutoff=...): a default for a params key"]
    nb = tmp_path / "toy.md"
    nb.write_text(
        "---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n---\n\n"
        "```{code-cell}\n:tags: [parameters]\n\nref = study_params('toy')\ncutoff = 3.5\n```\n"
    )
    got = notebook_problems(nb, "toy")
    assert "toy.md: parameter cutoff = 3.5, not ref.cutoff" in got
    assert "toy.md: the chapter does not end with publish(...)" in got


def test_the_shared_call_counter_counts_every_name_a_function_goes_by():
    """calls_of counts calls through the defining module, a ``from x import f`` copy and a tuple that lists it."""
    from counting import calls_of, key_of

    from compendium.chapter import publish
    from compendium.pipeline import results

    key = key_of(results.merge_values)
    with calls_of(results.merge_values) as calls:
        results.merge_values({"a": 1})
        publish.merge_values({"a": 1}, {"a": 1})  # the copy chapter.publish imported
        publish.phrases(None, (lambda r: {"x": 1},))  # calls merge_values once
    assert calls[key] == 3
    with calls_of(results.merge_values, only_from=("compendium.",)) as calls:
        results.merge_values({"a": 1})  # from this test: not counted
        publish.phrases(None, ())
    assert calls[key] == 1
