"""Every command the prose prints, run on one scratch clone, with its effect checked (`make test-commands`).

The commands come from :func:`compendium.book.prose_commands.extract` (README.md, CONTRIBUTING.md, book/*.md,
notebooks/*.md). Phases (``compendium.book.prose_commands.PHASES``) run the ``run`` and ``queue`` commands
verbatim, placeholders substituted through the declared table; the ``dvc exp run -S`` exercises run in
rounds: the teaching guide's two reference exercises alone and verbatim (WORKBank ``workbank.cutoff=3.5``,
PWB ``pwb.weight_scheme=legacy_weights_v2_0``: banner, statuses and prose checked), then every other
``-S`` argument as printed, grouped into as few ``dvc exp run`` calls as keep each key once (a run of
every stage takes minutes here; one per exercise would take an hour), each followed by ``make reset``.
``ci`` commands (``.ci/run`` runs them), ``benchmark`` and ``maintenance`` ones (``test_tool_commands.py`` runs
them), ``mention`` and ``offline`` ones are listed, never run silently.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from compendium.book import prose_commands as pc
from compendium.pipeline import paths

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import scratch  # noqa: E402

pytestmark = pytest.mark.commands

SHOTS = Path(os.environ.get("COMPENDIUM_SHOTS", str(paths.ROOT / "book" / "_build" / "screenshots" / "commands")))
RAN: list[tuple[str, str, int, float]] = []  # (phase, command, exit status, seconds)
BANNER = "compendium-off-paper"


#: commands that ask for a confirmation at the terminal
ASKS = ("dvc gc ",)


def sh(clone: Path, phase: str, cmd: str, timeout: float = 1800) -> subprocess.CompletedProcess:
    """Run ``cmd`` verbatim through bash in the clone (as a reader would type it) and record it."""
    t0 = time.perf_counter()
    if cmd.startswith(ASKS):
        # DVC asks "Are you sure? [y/n]" and, without a terminal, takes no for an answer: run it on a
        # pseudo-terminal (util-linux `script`) and answer yes, as the reader at a terminal would
        p = subprocess.run(
            ["script", "-qec", cmd, "/dev/null"],
            cwd=clone,
            env=scratch.env(clone),
            input="y\n",
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    else:
        p = scratch.sh(clone, cmd, timeout=timeout)
    dt = time.perf_counter() - t0
    RAN.append((phase, cmd, p.returncode, dt))
    print(f"  [{phase}] {cmd}  -> exit {p.returncode} in {dt:.1f} s", file=sys.stderr)
    return p


def ok(p: subprocess.CompletedProcess) -> str:
    out = p.stdout + p.stderr
    assert p.returncode == 0, f"{p.args[-1]!r} failed (exit {p.returncode}):\n{out[-3000:]}"
    return out


def tree(*roots: Path) -> dict[str, str]:
    out = {}
    for root in roots:
        files = (
            [root]
            if root.is_file()
            else sorted(p for p in root.rglob("*") if p.is_file() and ".staging" not in p.parts)
        )
        for p in files:
            out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def committed_run(clone: Path) -> dict[str, str]:
    return tree(
        clone / "results" / "workbank",
        clone / "results" / "pwb",
        clone / "results" / "claims",
        clone / "book" / "executed",
        clone / "metrics",
        clone / "params.yaml",
        clone / "dvc.lock",
        clone / "data.dvc",
    )


def claims_table(clone: Path):
    import pandas as pd

    return pd.read_csv(clone / "results" / "claims" / "claims.csv", dtype=str, keep_default_na=False)


def page(clone: Path, name: str) -> str:
    return (clone / "book" / "_build" / "html" / name).read_text()


def text_of(html: str) -> str:
    from bs4 import BeautifulSoup

    # Sphinx typesets ' as ’ in prose
    return " ".join(BeautifulSoup(html, "html.parser").get_text().split()).replace("\u2019", "'")


def assert_banner(clone: Path, keys: list[str]):
    """Every page carries the banner naming each key."""
    pages = sorted((clone / "book" / "_build" / "html").rglob("*.html"))
    assert pages
    for f in pages:
        rel = f.relative_to(clone / "book" / "_build" / "html").as_posix()
        if rel.startswith(("_static/", "code/")) or 'http-equiv="Refresh"' in f.read_text()[:200]:
            # the theme's macro templates, index.html (a redirect to intro.html), and the source listings the claims
            # link to (compendium.book.sphinx_sources: code, not chapters; no parameter reaches them)
            continue
        html = f.read_text()
        assert BANNER in html, f"no off-paper banner on {f.name}"
        for k in keys:
            assert k in html, f"{f.name}: the banner does not name {k}"


def assert_no_banner(clone: Path):
    for name in ("intro.html", "executed/20_workbank.html"):
        assert BANNER not in page(clone, name), name


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A clone of HEAD, its data pulled and the pipeline reproduced; the run committed in the clone, so
    that HEAD's dvc.lock is the run whose outputs are in this clone's cache (as on a clean checkout)."""
    reuse = os.environ.get("COMPENDIUM_COMMANDS_CLONE")  # a clone this fixture made earlier (development only)
    if reuse:
        return Path(reuse)
    d = tmp_path_factory.mktemp("commands") / "repo"
    scratch.make_clone(d, paths.ROOT)
    ok(sh(d, "setup", "dvc pull data.dvc"))
    p = sh(d, "setup", "dvc pull")  # README: a plain dvc pull reports the stage outputs missing (never pushed)
    assert p.returncode != 0, p.stdout + p.stderr
    for cmd in ("python -m compendium.data.manifest", "python -m compendium.data.verify"):
        ok(sh(d, "setup", cmd))
    scratch.restore_outputs(d, paths.ROOT)  # HEAD's outputs where the working copy computed them: repro runs the rest
    ok(sh(d, "setup", "dvc repro"))
    git = "git -c user.email=t@t -c user.name=t"
    ok(sh(d, "setup", f"{git} commit -qm 'the reproduced run' -- dvc.lock metrics || true"))
    return d


def test_workspace_commands_leave_the_committed_run(clone):
    before = committed_run(clone)
    for cmd in pc.PHASES["workspace"]:
        p = sh(clone, "workspace", cmd)
        if cmd in pc.EXPECT_FAIL:
            assert p.returncode != 0, f"{cmd!r}: the prose says it fails ({pc.EXPECT_FAIL[cmd]})"
            continue
        out = ok(p)
        if cmd == "git status":
            assert "nothing to commit" in out, out
        if cmd == "dvc repro":
            assert "up to date" in out, out[-1500:]
    assert committed_run(clone) == before
    assert sh(clone, "workspace", "git status --porcelain").stdout == ""


def _exercise(clone: Path, cmd: str, keys: list[str]) -> str:
    """Run one `dvc exp run`, check params.yaml got each value (one line changed per key), the claims have
    no unexplained status, and the banner names each key."""
    args = pc.set_arguments(cmd)
    for a in args:
        assert not pc.is_sweep(a), f"{cmd!r}: DVC reads {a!r} as a sweep"
    out = ok(sh(clone, "exercise", cmd))
    doc = yaml.safe_load((clone / "params.yaml").read_text())
    for a in args:
        key, value = pc.override_value(a)
        section, _, name = key.partition(".")
        got = doc[section][name]
        assert str(got) == str(value) or (isinstance(got, float) and float(value) == got), (key, got, value)
    diff = ok(sh(clone, "exercise", "git diff params.yaml"))
    changed = [ln for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    assert len(changed) <= len(args), f"{cmd!r} rewrote more of params.yaml than its keys:\n{diff}"
    t = claims_table(clone)
    assert (t["status"] == "unexplained").sum() == 0, t[t["status"] == "unexplained"][["claim_id", "note"]].head()
    assert_banner(clone, keys)
    assert_only_moved_values_relabelled(clone, t)
    assert_no_run_value_given_as_the_papers(clone)
    return out


def _reference_claims(clone: Path):
    """The claims table of the committed run (the clone's HEAD), from its DVC cache."""
    from compendium.claims import diff as claims_diff

    lock = subprocess.run(["git", "show", "HEAD:dvc.lock"], cwd=clone, capture_output=True, text=True).stdout
    return claims_diff.read_claims_csv(claims_diff.from_cache(lock, clone / ".dvc" / "cache"))


def assert_only_moved_values_relabelled(clone: Path, table) -> None:
    """Issue 38: a claim is *off-paper run* only if its value moved against the committed run, and a claim whose
    value did not move keeps its status, reason and evidence (WORKBank's paper slips stay *differs*)."""
    ref = _reference_claims(clone)
    bad = []
    for r in table.itertuples(index=False):
        before = ref[r.claim_id]
        same = before["reproduced"] == r.reproduced and before["mc_se"] == r.mc_se
        if r.status == "off_paper" and same:
            bad.append(f"{r.claim_id}: off-paper run, value unmoved ({r.reproduced})")
        if same and (r.status, r.reason, r.evidence) != (before["status"], before["reason"], before["evidence"]):
            bad.append(f"{r.claim_id}: {before['status']} -> {r.status} with its value unmoved")
    assert bad == [], "\n".join(bad[:20])


def assert_no_run_value_given_as_the_papers(clone: Path) -> None:
    """No chapter sentence gives a run's value as the paper's (issue 38: "+24.8 in the paper's own table")."""
    from offpaper import attribution_problems, published_numbers

    numbers = published_numbers()
    bad = []
    for name in ("10_pwb", "20_workbank", "30_preferences", "05_claims"):
        bad += [
            f"{name}: {p}"
            for p in attribution_problems(text_of(page(clone, f"executed/{name}.html")), numbers, (25.4, 24.8))
        ]
    assert bad == [], "\n".join(bad)


def run_make_test_subset(clone: Path) -> None:
    """The tests of `make test` that read the built run (every claim's status, the book's claims links, and that the
    results agree with params.yaml and dvc.lock), and those a full `make test` in an exercise's state found reading
    the workspace's params.yaml, in the exercise's state: they must pass after an exercise, not only on the
    committed run (about 40 s)."""
    ok(
        sh(
            clone,
            "exercise",
            "python -m pytest -q -x -p no:cacheprovider tests/claims/test_claims.py tests/book/test_claims_links.py "
            "tests/pipeline/test_workspace.py::test_the_workspace_agrees_with_params_yaml_and_dvc_lock "
            # the tests a full `make test` after `workbank.cutoff=3.5` found reading the workspace's params (fixed)
            "tests/pipeline/test_params.py::test_the_committed_params_are_valid "
            "tests/pipeline/test_params.py::test_the_workspace_params_are_valid "
            "tests/pipeline/test_params.py::test_dvc_rewrites_params_yaml_with_one_changed_line_per_set_param "
            "tests/pipeline/test_params.py::test_a_stage_runs_with_the_recorded_section_and_a_stale_record_is_refreshed "
            "tests/workbank/test_workbank_summary.py::test_the_headline_verdict_follows_the_claims_statuses "
            # and after `pwb.restore_weight=0.05`
            "tests/pipeline/test_params.py::test_off_paper_names_each_changed_key_with_value_reference_and_source "
            "tests/pwb/test_pwb_summary.py::test_the_table2_verdict_follows_the_claims_statuses "
            "tests/pipeline/test_workspace.py::test_results_computed_with_other_parameters_than_dvc_lock_records_are_named_with_make_reset",
        )
    )


def _reset(clone: Path, before: dict[str, str]):
    p = sh(clone, "exercise", "make reset")
    ok(p)
    assert committed_run(clone) == before, "make reset did not restore the committed run"
    assert_no_banner(clone)
    # its speed is measured by benchmarks/pipeline.py, not asserted here (a loaded machine is not a failure)
    print(f"  make reset took {RAN[-1][3]:.2f} s", file=sys.stderr)


@contextlib.contextmanager
def then_reset(clone: Path, before: dict[str, str]):
    """Run an exercise's checks, then the printed recovery, ``make reset`` (checked): and if a check fails,
    reset all the same before the failure is reported, so the next test starts from the committed run."""
    try:
        yield
    except BaseException:
        sh(clone, "exercise", "make reset")
        raise
    _reset(clone, before)


def _screenshot(html: Path, out: Path, at: str | None = None) -> bool:
    """A headless-Chromium screenshot of the top of a page (the banner), as compendium.book.browsercheck opens pages;
    ``at``: a CSS selector to scroll to first (the banner then stays at the top: it is sticky or not, as built)."""
    from playwright.sync_api import sync_playwright

    from compendium.book import browsercheck

    out.parent.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=browsercheck.chromium_path(), headless=True, args=browsercheck.CHROMIUM_ARGS
        )
        pg = browser.new_page(viewport={"width": 1280, "height": 1000})
        pg.goto(html.as_uri())
        pg.wait_for_timeout(500)
        if at is not None:
            pg.locator(at).first.scroll_into_view_if_needed()
            pg.wait_for_timeout(200)
        pg.screenshot(path=str(out))
        browser.close()
    return out.exists()


def test_workbank_exercise_banner_statuses_prose_and_reset(clone):
    before = committed_run(clone)
    with then_reset(clone, before):
        cmd = "dvc exp run -S workbank.cutoff=3.5"
        _exercise(clone, cmd, ["workbank.cutoff"])
        values = json.loads((clone / "results" / "workbank" / "values.json").read_text())
        assert values["wb.zones.green"] == 125
        t = claims_table(clone)
        wb = t[t["study"] == "workbank"]
        assert (wb["status"] == "off_paper").sum() > 0
        assert set(t[t["study"] != "workbank"]["status"]) <= {"reproduced", "differs", "needs_data", "quoted"}
        chapter = text_of(page(clone, "executed/20_workbank.html"))
        assert "The headline numbers reproduce." not in chapter
        assert (
            "Off the paper's settings (workbank.cutoff = 3.5 (reference 3.0, the paper)), the zone counts moved away "
            "from the paper's" in chapter
        )
        wb_differs = (t[t["study"] == "workbank"]["status"] == "differs").sum()
        assert wb_differs > 0, "WORKBank's paper slips must stay differs during an exercise"
        run_make_test_subset(clone)
        # the landing page (index.html is only a redirect to it)
        assert "workbank.cutoff = 3.5 (the paper: 3.0)" in text_of(page(clone, "intro.html"))
        claims_page = text_of(page(clone, "executed/05_claims.html"))
        assert "off-paper run" in claims_page and "Every claim is accounted for." in claims_page
        show = ok(sh(clone, "exercise", "dvc exp show --only-changed --drop 'Created|book/.*|results/.*'"))
        assert "workbank.cutoff" in show and "3.5" in show
        md = ok(sh(clone, "exercise", "dvc metrics diff"))
        assert "zone_green" in md and "364" in md and "125" in md and "364.0" not in md, md
        html = clone / "book" / "_build" / "html" / "executed"
        shots = [_screenshot(html / "20_workbank.html", SHOTS / "workbank_cutoff_3.5_banner.png")]
        shots.append(_screenshot(html / "05_claims.html", SHOTS / "claims_workbank_cutoff_3.5.png"))
        print(f"  screenshots: {SHOTS} ({sum(shots)} of 2 taken)", file=sys.stderr)


def test_pwb_restore_weight_exercise_keeps_the_papers_numbers_apart(clone):
    """Issue 38's exercise: at pwb.restore_weight=0.05 only the restored scheme moves; the stale Table 8, the pooled
    means and the fourth-judge claims keep their *differs*, and the opening's bullet does not give +24.8 as the
    paper's table (screenshots of the bullet and the claims summary for the record)."""
    before = committed_run(clone)
    with then_reset(clone, before):
        _exercise(clone, "dvc exp run -S pwb.restore_weight=0.05", ["pwb.restore_weight"])
        t = claims_table(clone)
        pwb_t = t[t["study"] == "pwb"]
        # only the parameter itself, a design constant the paper prints (0.10), is off the paper; no computed value
        assert set(pwb_t.loc[pwb_t["status"] == "off_paper", "claim_id"]) == {"pwb.params.restore_weight"}
        assert (pwb_t["status"] == "differs").sum() > 60
        chapter = text_of(page(clone, "executed/10_pwb.html"))
        assert "this run restores them at 0.05: +24.8" in chapter and "the paper's own table prints +25.4" in chapter
        assert ", and it does" in chapter  # the PWIs did not move
        run_make_test_subset(clone)
        html = clone / "book" / "_build" / "html" / "executed"
        _screenshot(
            html / "10_pwb.html", SHOTS / "pwb_restore_weight_0.05_opening.png", "li:has-text('weight-sensitivity')"
        )
        _screenshot(html / "05_claims.html", SHOTS / "claims_pwb_restore_weight_0.05.png", "#tbl-claims-summary")


def test_pwb_exercise_banner_statuses_prose_and_reset(clone):
    before = committed_run(clone)
    with then_reset(clone, before):
        _exercise(clone, "dvc exp run -S pwb.weight_scheme=legacy_weights_v2_0", ["pwb.weight_scheme"])
        chapter = text_of(page(clone, "executed/10_pwb.html"))
        assert "and it does" not in chapter
        assert (
            "off the paper's settings (pwb.weight_scheme = legacy_weights_v2_0 (reference weights, the paper))"
            in chapter
        )
        t = claims_table(clone)
        assert (t[t["study"] == "pwb"]["status"] == "off_paper").sum() > 0


#: keys that each multiply the cost of the same simulation (the information-gain study of the preferences stage:
#: one judgement per selection round, twice the simulated studies): never in one round, where together they cost
#: about 3 minutes of the 2-core machine instead of about one each
APART = {"preferences.sim_batch", "preferences.sim_repetitions"}


def rounds(commands) -> list[list[str]]:
    """Every `-S` argument of the other exercises, grouped: each round sets each key at most once, and at most
    one of the keys :data:`APART`."""
    done = {"workbank.cutoff=3.5", "pwb.weight_scheme=legacy_weights_v2_0", "pwb.restore_weight=0.05"}
    seen, args = set(), []
    for c in commands:
        if c.kind != "exp":
            continue
        group = pc.set_arguments(c.text)
        if not group or tuple(group) in seen or (len(group) == 1 and group[0] in done):
            continue
        seen.add(tuple(group))
        args.append(group)
    out: list[list[list[str]]] = []
    for group in args:
        keys = {pc.override_value(a)[0] for a in group}
        for r in out:
            taken = {pc.override_value(a)[0] for g in r for a in g}
            if not keys & taken and not (keys & APART and taken & APART):
                r.append(group)
                break
        else:
            out.append([group])
    return [[a for g in r for a in g] for r in out]


def test_every_other_exercise_runs_in_rounds_and_resets(clone):
    before = committed_run(clone)
    for r in rounds(pc.extract(clone)):
        cmd = "dvc exp run " + " ".join(f"-S {shlex.quote(a)}" for a in r)
        keys = [pc.override_value(a)[0] for a in r]
        with then_reset(clone, before):
            _exercise(clone, cmd, keys)


def test_queue_commands(clone):
    before = committed_run(clone)
    names = {}
    try:
        for cmd in pc.PHASES["queue"]:
            if cmd == "make reset":
                _reset(clone, before)
                continue
            run = cmd.format(**names)
            if run == "dvc queue start -j 2":
                # the exercises before made experiments of their own
                earlier = set(ok(sh(clone, "queue", "dvc exp list --name-only")).split())
                # the queue's worker daemons may keep inherited stdout/stderr pipes open until the queue drains
                # (seen: a 2-core machine under load, where communicate() then waited 2,400 s for EOF although
                # the command had exited 0), so its output goes to a file beside the clone; the loop below
                # waits for the queue
                log = clone.parent / "queue-start.log"
                p = sh(clone, "queue", f"{run} > {shlex.quote(str(log))} 2>&1", timeout=600)
                out = log.read_text()
                assert p.returncode == 0, f"{run!r} failed (exit {p.returncode}):\n{out[-3000:]}"
            else:
                out = ok(sh(clone, "queue", run, timeout=2400))
            if run.startswith("dvc exp run --queue -S 'workbank.cutoff=2.5,3.0,3.5'"):
                assert out.count("Queued experiment") == 3, out
            if "has_tie_rule=lowest,highest" in run:
                assert out.count("Queued experiment") == 4, out
            if run == "dvc queue start -j 2":
                deadline = time.time() + 1800
                while time.time() < deadline:
                    st = sh(clone, "queue", "dvc queue status").stdout
                    if "Queued" not in st and "Running" not in st:
                        break
                    time.sleep(10)
                assert "Failed" not in st, st
                # the experiments by their cut-off (dvc exp show's own table): an experiment of the queue whose
                # results equal an earlier exercise's (3.5 was run alone above) may be listed under that one's name
                import csv
                import io

                table = ok(sh(clone, "queue", "dvc exp show --csv --drop 'Created|book/.*|results/.*|metrics/.*'"))
                by_cutoff = {
                    r.get("workbank.cutoff"): r["Experiment"]
                    for r in csv.DictReader(io.StringIO(table[table.index("Experiment,") :]))
                    if r.get("Experiment")
                }
                assert {"2.5", "3.5"} <= set(by_cutoff), table[-3000:]
                assert set(by_cutoff.values()) - earlier, "the queue made no new experiment"
                names = {"exp_a": by_cutoff["2.5"], "exp_b": by_cutoff["3.5"]}
            if run.startswith("dvc exp apply"):
                assert "cutoff: 3.0" not in (clone / "params.yaml").read_text()
    except BaseException:  # leave the next test no queued or applied experiment
        for cleanup in ("dvc queue remove --all", "dvc exp remove -A", "make reset"):
            sh(clone, "queue", cleanup)
        raise


def test_data_commands_name_the_file_and_recover(clone):
    data_dvc = (clone / "data.dvc").read_bytes()
    for cmd in pc.PHASES["data"]:
        p = sh(clone, "data", cmd, timeout=300)
        out = p.stdout + p.stderr
        if cmd == "python -m compendium.data.verify":
            assert (
                p.returncode == 1
                and "data/hitl/published_pair_counts.csv" in out
                and "dvc pull --force data.dvc" in out
            )
        elif cmd in pc.EXPECT_FAIL:
            assert p.returncode != 0, (cmd, out[-500:])
        else:
            ok(p)
    assert (clone / "data.dvc").read_bytes() == data_dvc
    ok(sh(clone, "data", "python -m compendium.data.verify"))


def test_last_commands_and_the_list(clone):
    for cmd in pc.PHASES["last"]:
        ok(sh(clone, "last", cmd))
    cmds = pc.extract(clone)
    by = {}
    for c in cmds:
        by.setdefault(c.kind, []).append(c)
    print(f"\n{len(RAN)} commands run on the scratch clone in {sum(r[3] for r in RAN):.0f} s", file=sys.stderr)
    print(
        f"{len(cmds)} command mentions in the prose: " + ", ".join(f"{len(v)} {k}" for k, v in sorted(by.items())),
        file=sys.stderr,
    )
    for c in by.get("offline", []):
        print(f"  not run here ({pc.cannot_run(c)[1]}): {c.file}:{c.line}: {c.text}", file=sys.stderr)
    for c in sorted({c.text for c in by.get("ci", [])}):  # pc.CI's comment: which .ci/run runs, and which none does
        print(f"  front door, listed (pc.CI: .ci/run runs it or its equivalent): {c}", file=sys.stderr)
    for c in sorted({c.text for c in by.get("benchmark", [])}):
        print(f"  run by tests/commands/test_tool_commands.py (smoke mode): {c}", file=sys.stderr)
    for c in sorted({c.text for c in by.get("maintenance", [])}):
        print(f"  run by tests/commands/test_tool_commands.py: {c}", file=sys.stderr)
    failed = [r for r in RAN if r[2] != 0 and r[1] not in pc.EXPECT_FAIL and r[1] != "python -m compendium.data.verify"]
    assert failed == [], failed
