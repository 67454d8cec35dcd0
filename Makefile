# The front door. `make reproduce` and `make test` work on a fresh clone with no network beyond PyPI:
# they create .venv if missing, install the pinned stack and the package, and restore data/ with DVC
# from the remote bundled in the repository.
SHELL := /bin/bash
.ONESHELL:
.SHELLFLAGS := -eu -o pipefail -c

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(abspath $(VENV))/bin
STAMP := $(VENV)/.installed
#: the installer make setup uses first (its pin in requirements.txt, like every package)
UV_PIN = $(shell grep -m1 "^uv==" requirements.txt)
export PATH := $(BIN):$(PATH)
export PYTHONDONTWRITEBYTECODE := 1
export MPLBACKEND := Agg

.PHONY: chromium help setup data reproduce reset test test-scratch test-reliability test-security test-with-data test-commands test-unit lint format book browser-test book-archive pdf benchmark freeze clean metadata report

help:
	@echo "make reproduce   set up, restore data, run every stage (dvc repro), build the book"
	@echo "make reset       back to the committed run after dvc exp run (params.yaml, dvc.lock, metrics, stage outputs; about 7 s)"
	@echo "make test        set up, restore data, run every test except the four scratch-clone suites (test-reliability, test-security, test-with-data, test-commands: minutes each)"
	@echo "make lint        ruff on the package, tests, benchmarks and the notebooks' code cells (make format fixes)"
	@echo "make test-reliability  failure cases (bad data, bad params, killed stages) on a scratch clone"
	@echo "make test-security payloads in every rendered text field, a parameter and a file name, on a scratch clone: the book must show them as text"
	@echo "make test-with-data    the hub's data end to end (synthetic PWB and HITL snapshots, a loopback hub, acquisition, dvc repro) on scratch clones"
	@echo "make test-scratch      the four scratch-clone suites below in one session, side by side on both cores (what .ci/run runs)"
	@echo "make test-commands     every command the README, CONTRIBUTING.md, the book and the chapters print, run on a scratch clone (about 20 min)"
	@echo "make book        rebuild the book from the stored notebook outputs (fresh: every page read; dvc repro builds it incrementally)"
	@echo "make browser-test open every built page in headless Chromium (screenshots in book/_build/screenshots) and audit it with axe-core"
	@echo "make metadata    regenerate .zenodo.json and codemeta.json from CITATION.cff"
	@echo "make book-archive pack the built book with its checksum for a release"
	@echo "make chromium    install Debian's chromium and poppler-utils (as root), which the browser, PDF and layout tests need"
	@echo "make pdf         the whole book as one PDF, offline (book/_build/pdf/book.pdf; headless Chromium), checked: body text 9 pt or more, no page but the last under a quarter full, figures whole, bookmarks"
	@echo "make benchmark   time a forced and a no-op dvc repro and the book build"
	@echo "make freeze      re-pin requirements.txt from the current .venv"

# Every path is quoted in the recipes: a checkout path may hold spaces or non-ASCII characters.
WRITABLE = test -w . || { echo "ERROR: this checkout is read-only ($(CURDIR)); the pipeline writes .venv, data/, results/ and the book here. Clone it somewhere writable and run make there: git clone \"$(CURDIR)\" ~/compendium && cd ~/compendium && make reproduce"; exit 1; }

$(STAMP): requirements.txt pyproject.toml
	@$(WRITABLE)
	test -n "$(PYTHON)" && "$(PYTHON)" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null || \
	  { echo "ERROR: Python 3.11 is needed, but '$(or $(PYTHON),python3)' is $$("$(or $(PYTHON),python3)" --version 2>&1). Install Python 3.11 and run: make setup PYTHON=/path/to/python3.11"; exit 1; }
	if [ -x "$(BIN)/python" ] && ! "$(BIN)/python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then \
	  echo "ERROR: $(VENV) was made with another Python ($$("$(BIN)/python" --version 2>&1)); remove it (rm -rf $(VENV)) and run make setup again"; exit 1; fi
	if [ -e "$(VENV)" ] && ! "$(BIN)/python" -m pip --version >/dev/null 2>&1; then \
	  echo ">> $(VENV) is incomplete (no working pip: an interrupted 'python -m venv'?); removing it and creating it again"; \
	  rm -rf "$(VENV)"; fi
	echo ">> setting up $(VENV) (Python: $(PYTHON)): installing the pinned packages of requirements.txt (with uv: about a minute the first time; prints only errors)"
	@# uv (pinned in requirements.txt) installs the same pins in about 30 s where pip takes minutes; where uv cannot
	@# (no wheel for the platform, an index that only pip.conf names), pip installs them as before. Both write the
	@# packages' bytecode (uv only when asked): every make target runs with PYTHONDONTWRITEBYTECODE=1, so without it
	@# every Python process (each stage's runner and kernel, DVC, Sphinx, each test's subprocess) compiled pandas,
	@# scipy, DVC and Sphinx from source again (importing pandas, scipy.stats, matplotlib.pyplot and Sphinx took
	@# 1.9 s of CPU without bytecode and 1.1 s with it; the exercise loop took about 0.7 times as long with it)
	new=0; test -x "$(BIN)/python" || { "$(PYTHON)" -m venv "$(VENV)" && new=1; }; \
	{ { "$(BIN)/python" -m pip install --quiet --disable-pip-version-check "$(UV_PIN)" 2>/dev/null && \
	    "$(BIN)/uv" pip install --quiet --compile-bytecode --python "$(BIN)/python" -r requirements.txt && \
	    "$(BIN)/uv" pip install --quiet --python "$(BIN)/python" --no-deps -e . ; } || \
	  { echo ">> uv could not install them; pip installs them instead (it reads pip.conf; a few minutes)"; \
	    "$(BIN)/python" -m pip install --quiet --disable-pip-version-check -r requirements.txt && \
	    "$(BIN)/python" -m pip install --quiet --disable-pip-version-check --no-deps -e . ; } ; } || \
	{ if [ $$new = 1 ]; then rm -rf "$(VENV)"; echo "ERROR: installing the pinned packages failed (see pip's message above); the new $(VENV) was removed, so nothing is half-installed. Fix what pip reports (e.g. the package index is unreachable) and run make setup again"; \
	  else echo "ERROR: installing the pinned packages into the existing $(VENV) failed (see pip's message above); $(VENV) is as pip left it. Fix what pip reports and run make setup again (or start afresh: rm -rf $(VENV) && make setup)"; fi; exit 1; }
	touch "$(STAMP)"

setup: $(STAMP)

data: setup
	@$(WRITABLE)
	python -m compendium.pipeline.stage preflight   # params.yaml, dvc.yaml and dvc.lock readable, or the recovery
	@# a modified raw file: the documented message and recovery (compendium.data.verify), not DVC's "Use --force"
	@if [ -d data ]; then python -m compendium.data.verify --quiet || exit 1; fi
	@echo ">> restoring data/ from the bundled DVC remote (dvc pull data.dvc)"
	dvc pull data.dvc || { echo "ERROR: dvc could not restore data/ from the bundled remote dvc-remote/ (DVC's message above). Check that dvc-remote/ exists in this checkout (git status) and is readable."; exit 1; }
	python -m compendium.data.verify

reproduce: data
	@echo ">> dvc repro (every stage, the book included)"
	dvc repro
	echo ">> the book: $(CURDIR)/book/_build/html/index.html"

# both cores (pytest-xdist), one file per worker at a time so that a file's module fixtures are built once
test: data
	@SECONDS=0; rc=0; python -m pytest -n 2 --dist loadfile || rc=$$?; \
	  echo ">> make test took $$((SECONDS / 60)) min $$((SECONDS % 60)) s"; exit $$rc

# no `setup` prerequisite: a reset must not reinstall anything (it takes about 7 s: DVC checks every output file against the cache)
reset:
	@test -x "$(BIN)/python" || { echo "ERROR: no $(VENV) in this checkout; run make setup first"; exit 1; }
	"$(BIN)/python" -m compendium.pipeline.reset

# the four scratch-clone suites, and the teaching guide's slow key, in one session on both cores (.ci/run): a test file on one worker (the with-data
# suite's files together: tests/conftest.py), so each clone is built once; the two longest first, side by side, and the
# short ones fill in;
# -rP prints what each passed test reported (clone and stage timings, the commands not run here), which workers capture
SCRATCH_SUITES = tests/commands tests/reliability/test_reliability.py tests/withdata tests/security \
	tests/reliability/test_raw_data_guard.py tests/reliability/test_alias_bomb.py tests/book/test_teaching_keys.py
test-scratch: data
	@SECONDS=0; rc=0; COMPENDIUM_SLOW_KEYS=1 python -m pytest $(SCRATCH_SUITES) -m 'reliability or security or withdata or commands or slow' \
	  -n 2 --dist loadfile --no-loadscope-reorder -v -rfEsxXP --durations=25 || rc=$$?; \
	  echo ">> make test-scratch took $$((SECONDS / 60)) min $$((SECONDS % 60)) s"; exit $$rc

test-reliability: data
	python -m pytest tests/reliability -m reliability -v

test-security: data
	python -m pytest tests/security -m security -v -s

test-with-data: data
	python -m pytest tests/withdata -m withdata -v -s

test-commands: data
	python -m pytest tests/commands -m commands -v -s

lint: setup
	ruff check src tests benchmarks
	ruff format --check src tests benchmarks
	@# the chapters' code cells, through jupytext (linted, not reformatted: captions are prose on one line)
	for nb in notebooks/*.md; do jupytext --check 'ruff check --quiet {}' "$$nb" || exit 1; done
	@echo "lint: package, tests, benchmarks and notebooks clean"

format: setup
	ruff format src tests benchmarks
	ruff check --fix src tests benchmarks

test-unit: setup
	python -m pytest -q   # every room's tests (the scratch-clone suites excluded, as in make test), without restoring data first

book: setup
	@$(WRITABLE)
	python -m compendium.book build --fresh   # a new Sphinx environment, every page read; built aside, swapped in only on success

# axe-core for the browser test's accessibility audit, exactly as pinned by package-lock.json (npm ci);
# npm itself comes from Debian, like chromium
node_modules/axe-core/axe.min.js: package.json package-lock.json
	command -v npm >/dev/null || { echo "installing Debian's npm for the browser test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; }
	npm ci --no-audit --no-fund
	touch $@

# Debian's chromium (the browser check, the PDF and the layout tests drive it) and poppler (the PDF checks)
chromium:
	test -n "$${CHROMIUM:-}" || command -v chromium >/dev/null || { echo "installing Debian's chromium"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	command -v pdfimages >/dev/null || { echo "installing Debian's poppler-utils"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils >/dev/null; }

browser-test: setup node_modules/axe-core/axe.min.js chromium
	python -m compendium.book.browsercheck

metadata: setup
	python -m compendium.book.fair write

# a replication report per study (reports/<study>/report.md and .pdf, metadata.yaml, references.bib) from the claims
# ledger; offline (the PDF through the book's Chromium path); the ledger is results/claims/claims.csv of the last `dvc repro`
report: setup chromium
	@test -f results/claims/claims.csv || { echo ">> no claims ledger yet: dvc repro claims"; dvc repro claims; }
	python -m compendium.claims report reports
	python -m compendium.book.reports reports

book-archive: setup
	test -f book/_build/html/index.html || dvc repro book
	mkdir -p book-archive
	tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2026-01-01 00:00Z' -czf book-archive/book-html.tar.gz -C book/_build html
	cd book-archive && sha256sum book-html.tar.gz > book-html.tar.gz.sha256 && cat book-html.tar.gz.sha256

pdf: data chromium
	@python -c 'import sys; from compendium.book.pdf import missing_chapters; sys.exit(1 if missing_chapters() else 0)' || \
	  { echo ">> the built book lacks chapters: dvc repro book"; dvc repro book; }
	@python -m compendium.book.pdf

benchmark: data
	python benchmarks/pipeline.py

freeze: setup
	{ echo "# Exact pins of the whole resolved stack (pip freeze of a working .venv on Python 3.11)."; \
	  echo "# Regenerate: make freeze. environment.yml installs this file through its pip section."; \
	  "$(BIN)/python" -m pip freeze --exclude-editable | grep -v '^-e'; } > requirements.txt

clean:
	rm -rf book/_build book-archive reports .pytest_cache
