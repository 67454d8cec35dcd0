"""Every shell command the project's prose shows, extracted, classified and made runnable.

    python -m compendium.book.prose_commands      # list every command with its file, line and how it is checked

Sources: ``README.md``, ``CONTRIBUTING.md``, ``CHANGELOG.md`` (the book's Changelog page), ``book/*.md`` and the
chapters ``notebooks/*.md``: fenced
``bash``/``sh``/``console`` blocks (one command a line, comments dropped) and inline code spans that start
with a command word (``dvc``, ``make``, ``python``, ``pytest``, ``git``, ``pip``, ``conda``, ``echo``, ...),
a span broken over two lines included. MyST roles (``{glue:text}`x```) are not commands.

Each command gets one *kind* (:func:`classify`), which says how ``tests/commands`` checks it:

- ``exp``: ``dvc exp run -S ...`` -- run on the scratch clone (the value must reach ``params.yaml`` and
  the stage's ``values.json`` must move), then ``make reset`` must bring the committed run back;
- ``queue``: ``dvc exp run --queue ...`` and ``dvc queue ...`` -- run on the scratch clone (queuing is cheap;
  ``dvc queue start`` runs two queued experiments);
- ``run``: any other command, run verbatim on the scratch clone, exit status checked;
- ``ci``: the long front-door commands ``.ci/run`` itself runs on a clean clone (``make reproduce``,
  ``make test``, ``make lint``, ...): listed, not run twice;
- ``benchmark``: the timing commands (:data:`BENCHMARKS`), run as printed on a scratch clone by
  ``tests/commands/test_tool_commands.py`` with ``COMPENDIUM_BENCH_SMOKE=1`` (one run per step, small
  workloads): that each runs to its table and leaves the checkout as it was, not what it measures;
- ``maintenance``: the make targets that regenerate committed or built files (:data:`MAINTENANCE`: format, metadata,
  the pins, the book, its archive), run as printed on the same clone: each must leave ``git status`` and
  ``dvc status`` clean (what they regenerate is what is committed);
- ``mention``: a bare command word named in a sentence (:data:`MENTIONS`), not an instruction;
- ``offline``: needs what this machine does not have (network, a cluster's git remote, conda); the
  prose beside it must say so (:data:`CANNOT_RUN`), and the test lists them.

Placeholders (``<exp-a>``, ``REV``, ``robustness.<key>=...``) go through :data:`SUBSTITUTE`, a declared
table; a command with a placeholder the table does not know fails the unit test, so none is skipped.
Every ``-S`` argument of ``dvc exp run`` is parsed with DVC's own parser: without ``--queue`` it must not
be a sweep (``to_hydra_overrides([arg])[0].is_sweep_override()``), or DVC refuses to run it.
"""

from __future__ import annotations

import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from compendium.pipeline import paths

COMMAND_WORDS = (
    "dvc",
    "make",
    "python",
    "python3.11",
    "pytest",
    "git",
    "pip",
    "conda",
    "echo",
    "source",
    "npm",
    "bin/py",
    "rm",
    "jupyter-book",
    "sha256sum",
)
_FENCE = re.compile(r"^```(bash|sh|console|shell)\s*\n(.*?)^```", re.M | re.S)
_CODE_CELL = re.compile(r"^```\{code-cell\}.*?^```", re.M | re.S)

#: placeholder -> what the scratch-clone run puts in its place (experiment names are filled at run time)
SUBSTITUTE = {
    "<exp-a>": "{exp_a}",
    "<exp-b>": "{exp_b}",
    "<exp>": "{exp_a}",
    "<name>": "{exp_a}",
    "REV": "HEAD",
    "<commit>": "HEAD",
    "<stage>": "workbank",
    "<key>": "seed",
    "robustness.<key>='...'": "robustness.seed=1",
    "<stage>.<key>=<value>": "workbank.cutoff=3.5",
    "<git-remote>": "{git_remote}",
    "workbank|pwb|hitl": "workbank",
    "<address printed above>": "127.0.0.1:8786",
    "<checkout>": "/path/to/this/checkout",
}

#: a command word or a bare command named in a sentence ("a plain `dvc pull`", "every `dvc exp run`"),
#: not an instruction: {text: what the sentence says about it}; the test runs those with a claim
MENTIONS = {
    "make": "the tool",
    "dvc": "the tool",
    "bin/py": "the stages' interpreter wrapper (every stage's command in dvc.yaml runs it)",
    "dvc exp run": "the command, named",
    "dvc exp run -S": "the command, named",
    "python -m compendium.data.acquire": "the tool, named (with a dataset: python -m compendium.data.acquire workbank)",
    "dvc push": "DVC's advice after a run, which the README says to ignore (the remote holds the raw data only)",
    "dvc checkout --force": "what make reset runs, named (make reset is run)",
    "dvc exp apply": "the command, named (dvc exp apply <exp> is run)",
    "git blob SHA-1": "the kind of checksum the hub publishes for files kept in git, named",
    "python -m venv": "the command an interrupted set-up left half done, named (make setup is run)",
}

#: commands the prose says fail, with what it says (run; a non-zero exit is the expected effect)
EXPECT_FAIL = {
    "dvc pull": "on a fresh clone a plain dvc pull reports the stage outputs missing (never pushed)",
    "python -m compendium.data.acquire workbank": "offline it stops within seconds and changes nothing",
    "python -m compendium.data.acquire pwb": "offline it stops within seconds and changes nothing",
    "python -m compendium.data.acquire hitl": "offline it stops within seconds and changes nothing",
    "python -m compendium.data.acquire hitl --from data/hitl/annotations.parquet": (
        "without acquired rows there is no such file: one sentence naming it"
    ),
}

#: which phase of tests/commands runs each ``run``/``queue`` command (after substitution); ``exp`` commands
#: run in the exercise phases. tests/book/test_prose_commands.py fails on a command no phase runs.
PHASES = {
    "setup": [
        "dvc pull data.dvc",
        "dvc pull",
        "dvc repro",
        "python -m compendium.data.manifest",
        "python -m compendium.data.verify",
    ],
    "workspace": [
        "dvc repro",
        "dvc status",
        "git status",
        "python -m compendium.pipeline.stage preflight",
        "dvc checkout",
        "git checkout HEAD -- dvc.lock && dvc checkout",
        "dvc repro workbank",
        "dvc repro book",
        "git checkout -- params.yaml",
        "git checkout -- dvc-remote",
        "python -m compendium.pipeline.deps --write",
        "python -m compendium.data.manifest --write",
        "dvc add data",
        "python -m compendium.data.manifest --write && dvc add data",
        "dvc exp show",
        "dvc exp show --only-changed",
        "dvc metrics diff",
        "python -m compendium.pipeline.params check",
        "python -m compendium.workbank.models",
        "python -m compendium.pipeline.stage run workbank",
        "python -m compendium.book build",
        "git checkout -- params.yaml dvc.lock && dvc repro",
        "git checkout -- dvc.lock",
        "dvc repro humane",
        # the book's grid is committed (sweeps/humane/blocks): the sweep finds every block and computes none
        "python -m compendium.humane.sweep --grid book",
        "python -m compendium.humane.sweep --grid book --models 5 --workers 2",
        "python -m compendium.claims diff HEAD",
        "make reset",
    ],
    "exercise": [
        "git diff params.yaml",
        "dvc exp show --only-changed --drop 'Created|book/.*|results/.*'",
        "dvc metrics diff",
        "make reset",
    ],
    "queue": [
        "dvc exp run --queue -S 'workbank.cutoff=2.5,3.0,3.5'",
        "dvc exp run --queue -S 'workbank.cutoff=2.8,3.2' -S 'workbank.has_tie_rule=lowest,highest'",
        "dvc queue status",
        "dvc queue remove --all",
        "dvc exp run --queue -S 'workbank.cutoff=2.5,3.5' data.dvc workbank",
        "dvc queue start -j 2",
        "dvc exp show --only-changed",
        "dvc metrics diff {exp_a} {exp_b}",
        "dvc plots diff {exp_a} {exp_b} -o /tmp/plots",
        "dvc plots diff {exp_a} {exp_b} -o plots",
        "dvc exp apply {exp_a}",
        "make reset",
        "dvc exp remove -A",
    ],
    "data": [
        "echo x >> data/hitl/published_pair_counts.csv",
        "python -m compendium.data.verify",
        "dvc repro",
        "git show HEAD:data.dvc",
        "dvc pull --force data.dvc",
        "python -m compendium.data.manifest",
        "python -m compendium.data.acquire workbank",
        "python -m compendium.data.acquire pwb",
        "python -m compendium.data.acquire hitl",
        "python -m compendium.data.acquire hitl --from data/hitl/annotations.parquet",
    ],
    "last": ["rm .dvc/tmp/rwlock", "dvc gc --workspace", "dvc gc --workspace --all-experiments"],
}

#: commands that cannot run here: (a part of the command, the word the prose beside it must use, why)
CANNOT_RUN = (
    ("conda env create", "Conda", "conda is not installed here"),
    ("dvc exp push", "CI runners", "a git remote of a cluster's CI runners"),
    ("dvc exp pull", "CI runners", "a git remote of a cluster's CI runners"),
    ("python -m compendium.data.acquire pwb && dvc repro pwb", "network", "the Hugging Face hub (network)"),
    ("dvc exp run -S pwb.n_boot=2000 -S pwb.seed=1", "network", "follows the network acquisition"),
    ("dask-jobqueue", "Slurm", "a Slurm cluster"),
    ("dask_jobqueue", "Slurm", "a Slurm cluster"),
    ("dask-kubernetes", "Kubernetes", "a Kubernetes cluster with the Dask operator"),
    ("dask_kubernetes", "Kubernetes", "a Kubernetes cluster with the Dask operator"),
    ("--scheduler tcp://<address printed above>", "cluster", "the scheduler a cluster recipe above printed"),
)

#: the timing commands, printed or named in the README's comments: run as printed, in their smoke mode, by
#: tests/commands/test_tool_commands.py (``python benchmarks/pipeline.py`` alone is what ``make benchmark`` runs)
BENCHMARKS = (
    "make benchmark",
    "python benchmarks/pipeline.py --stages",
    "python benchmarks/pipeline.py --baseline REV",
    "python benchmarks/humane_scale.py",
)

#: the make targets that regenerate committed or built files: run as printed by tests/commands/test_tool_commands.py
MAINTENANCE = ("make format", "make metadata", "make freeze", "make book", "make book-archive")

#: the front door, run by .ci/run on a clean clone (minutes each), listed, not run a second time: directly (make
#: reproduce, test, lint, browser-test, pdf, test-scratch), as their prerequisites (make setup, make data), or as the
#: same test files through make test-scratch (the four suites' own targets). Not run anywhere: the set-up a reader
#: without make would type (python3.11 -m venv, pip install -r requirements.txt -e ., make setup PYTHON=..., a bare
#: pytest), which make setup and make test do with uv and `python -m pytest -n 2`
CI = (
    "make reproduce",
    "make test",
    "make lint",
    "make test-reliability",
    "make test-scratch",
    "make test-commands",
    "make browser-test",
    "make pdf",
    "make setup",
    "make data",
    "make setup PYTHON=/path/to/python3.11",
    "pytest",
    "python3.11 -m venv .venv && source .venv/bin/activate",
    "pip install -r requirements.txt -e .",
    # the forced full run: make benchmark and python benchmarks/pipeline.py --stages run it (test_tool_commands.py)
    "dvc repro -f",
    "make test-security",
    "make test-with-data",
    # run by the suites inside .ci/run, each as printed (the test named runs it)
    "python -m compendium.data.acquire pwb --from DIR",  # tests/withdata/conftest.py (the accept step)
    "python -m compendium.data.synthetic_pwb OUTDIR",  # tests/withdata/conftest.py
    'python -m compendium.data.synthetic_pwb DIR --model "My model" --prompt-sd 0.8',  # tests/book/test_evaluate_page.py
    "python -m compendium.data.synthetic_hitl DIR",  # tests/data/test_synthetic_hitl.py
    "python -m compendium.preferences.rank FILE",  # tests/preferences/test_preferences_rank.py
    "python -m compendium.pwb.score RESULTS_DIR --name NAME",  # tests/pwb/test_pwb_score.py
    "python -m compendium.claims report OUT",  # tests/claims/test_claims_report.py
    "make report",  # tests/claims/test_claims_report.py
    # the read-only checkout's recovery: tests/reliability (the read-only case checks the message)
    'git clone "<checkout>" ~/compendium && cd ~/compendium && make reproduce',
)


@dataclass(frozen=True)
class Command:
    text: str  # as printed (white space normalised)
    file: str  # relative to the repository root
    line: int
    context: str  # the source line(s) around it

    @property
    def kind(self) -> str:
        return classify(self)

    def runnable(self, **names) -> str:
        """The command with every placeholder substituted (experiment names from ``names``)."""
        return substitute(self.text).format(**names) if "{" in substitute(self.text) else substitute(self.text)


def sources(root: Path | None = None) -> list[Path]:
    root = Path(root) if root is not None else paths.ROOT
    # CHANGELOG.md: the book renders it as its Changelog page (compendium.book.sphinx_chrome)
    return [
        root / "README.md",
        root / "CONTRIBUTING.md",
        *([root / "CHANGELOG.md"] if (root / "CHANGELOG.md").is_file() else []),
        *sorted((root / "book").glob("*.md")),
        *sorted((root / "notebooks").glob("*.md")),
    ]


def _is_command(text: str) -> bool:
    first = text.split()[0] if text.split() else ""
    return first in COMMAND_WORDS and not text.endswith(("…", "...")) or text.startswith("dvc exp run -S ...")


def _clean_line(line: str) -> str:
    """A shell line without its trailing comment (a '#' outside quotes), white space normalised."""
    return " ".join(line[: _comment_start(line)].split())


def _comment_start(line: str) -> int:
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return i
    return len(line)


def extract(root: Path | None = None) -> list[Command]:
    """Every command of every source, in file order (one entry per mention)."""
    root = Path(root) if root is not None else paths.ROOT
    out = []
    for f in sources(root):
        text = f.read_text()
        rel = f.relative_to(root).as_posix()
        lines = text.splitlines()
        fenced_spans = []
        for m in _FENCE.finditer(text):
            fenced_spans.append((m.start(), m.end()))
            start_line = text.count("\n", 0, m.start(2)) + 1
            for k, raw in enumerate(m.group(2).splitlines()):
                cmd = _clean_line(raw)
                if cmd and _is_command(cmd):
                    out.append(Command(cmd, rel, start_line + k, raw.strip()))
        cells = [(m.start(), m.end()) for m in _CODE_CELL.finditer(text)]
        # fence lines (```{admonition}, ```) are not span delimiters; an admonition's body is prose
        prose = re.sub(r"^```.*$", lambda m: " " * len(m.group(0)), text, flags=re.M)
        for start, body in code_spans(prose, fenced_spans + cells):
            cmd = " ".join(body.split())
            if _is_command(cmd):
                ln = text.count("\n", 0, start) + 1
                out.append(Command(cmd, rel, ln, " ".join(lines[max(ln - 2, 0) : ln + 1])))
    return out


def code_spans(text: str, skip: list[tuple[int, int]]) -> list[tuple[int, str]]:
    """(offset, content) of every inline code span (CommonMark: a run of n backticks up to the next run of
    exactly n), outside the ``skip`` ranges; a span right after ``}`` is a MyST role's argument, not code."""
    runs = [(m.start(), m.end()) for m in re.finditer(r"`+", text)]
    out, i = [], 0
    while i < len(runs):
        a, b = runs[i]
        if any(lo <= a < hi for lo, hi in skip):
            i += 1
            continue
        n = b - a
        j = next((k for k in range(i + 1, len(runs)) if runs[k][1] - runs[k][0] == n), None)
        if j is None:
            i += 1
            continue
        if not (a > 0 and text[a - 1] == "}"):
            out.append((a, text[b : runs[j][0]]))
        i = j + 1
    return out


def substitute(text: str) -> str:
    for k in sorted(SUBSTITUTE, key=len, reverse=True):
        text = text.replace(k, SUBSTITUTE[k])
    return text


def placeholders_left(text: str) -> list[str]:
    """Placeholders the table does not know (``<...>`` or a bare ``...``) after substitution."""
    t = substitute(text)
    return re.findall(r"<[^<>]+>", t) + (["..."] if "..." in t or "…" in t else [])


def cannot_run(cmd: Command) -> tuple[str, str] | None:
    """(the prose word that marks it, why) when the command cannot run here, else None."""
    for part, word, why in CANNOT_RUN:
        if part in cmd.text:
            return word, why
    return None


def classify(cmd: Command) -> str:
    if cannot_run(cmd):
        return "offline"
    t = cmd.text
    if t in MENTIONS:
        return "mention"
    if t in BENCHMARKS:
        return "benchmark"
    if t in MAINTENANCE:
        return "maintenance"
    if t in CI:
        return "ci"
    if t.startswith("dvc exp run") and "--queue" not in t:
        return "exp"
    if t.startswith(("dvc exp run --queue", "dvc queue")):
        return "queue"
    return "run"


def set_arguments(text: str) -> list[str]:
    """The ``-S``/``--set-param`` arguments of a ``dvc exp run`` command, as the shell passes them."""
    try:
        argv = shlex.split(substitute(text))
    except ValueError as exc:
        raise ValueError(f"{text!r} does not parse as a shell command: {exc}") from None
    out = []
    for i, a in enumerate(argv):
        if a in ("-S", "--set-param") and i + 1 < len(argv):
            out.append(argv[i + 1])
        elif a.startswith("--set-param="):
            out.append(a.split("=", 1)[1])
    return out


def is_sweep(arg: str) -> bool:
    """DVC's own verdict: would ``dvc exp run -S arg`` be a sweep (refused without ``--queue``)?"""
    from dvc.utils.hydra import to_hydra_overrides

    return to_hydra_overrides([arg])[0].is_sweep_override()


def override_value(arg: str):
    """The value DVC writes for ``-S key=value`` (parsed by Hydra, as DVC does): (key, value)."""
    from dvc.utils.hydra import to_hydra_overrides

    ov = to_hydra_overrides([arg])[0]
    return ov.key_or_group, ov.value()


def main(argv: list[str] | None = None) -> int:
    from compendium.pipeline.cli import safe_output

    safe_output()  # a terminal without UTF-8 gets escapes, not a UnicodeEncodeError
    cmds = extract()
    by = {}
    for c in cmds:
        by.setdefault(c.kind, []).append(c)
        print(f"{c.kind:8s} {c.file}:{c.line}: {c.text}")
    print(f"{len(cmds)} commands: " + ", ".join(f"{len(v)} {k}" for k, v in sorted(by.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
