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
export PATH := $(BIN):$(PATH)
export PYTHONDONTWRITEBYTECODE := 1
export MPLBACKEND := Agg

.PHONY: help setup data reproduce test test-reliability test-security test-unit lint format book browser-test book-archive pdf benchmark freeze clean metadata

help:
	@echo "make reproduce   set up, restore data, run every stage (dvc repro), build the book"
	@echo "make test        set up, restore data, run the whole test suite"
	@echo "make lint        ruff on the package, tests, benchmarks and the notebooks' code cells (make format fixes)"
	@echo "make test-reliability  failure cases (bad data, bad params, killed stages) on a scratch clone"
	@echo "make test-security payloads in every rendered text field, a parameter and a file name, on a scratch clone: the book must show them as text"
	@echo "make book        rebuild the book from the stored notebook outputs"
	@echo "make browser-test open every built page in headless Chromium (screenshots in book/_build/screenshots) and audit it with axe-core"
	@echo "make metadata    regenerate .zenodo.json and codemeta.json from CITATION.cff"
	@echo "make book-archive pack the built book with its checksum for a release"
	@echo "make pdf         the whole book as one PDF, offline (book/_build/pdf/book.pdf; headless Chromium)"
	@echo "make benchmark   time a forced and a no-op dvc repro and the book build"
	@echo "make freeze      re-pin requirements.txt from the current .venv"

$(STAMP): requirements.txt pyproject.toml
	@test -w . || { echo "ERROR: this checkout is read-only ($(CURDIR)); the pipeline writes .venv, results/ and the book here. Copy it somewhere writable (cp -r $(CURDIR) ~/compendium) and run make there."; exit 1; }
	@test -n "$(PYTHON)" && $(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null || \
	  { echo "ERROR: Python 3.11 is needed, but '$(or $(PYTHON),python3)' is $$($(or $(PYTHON),python3) --version 2>&1). Install Python 3.11 and run: make setup PYTHON=/path/to/python3.11"; exit 1; }
	@if [ -x $(BIN)/python ] && ! $(BIN)/python -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then \
	  echo "ERROR: $(VENV) was made with another Python ($$($(BIN)/python --version 2>&1)); remove it (rm -rf $(VENV)) and run make setup again"; exit 1; fi
	@echo ">> setting up $(VENV) (Python: $(PYTHON))"
	@new=0; test -x $(BIN)/python || { $(PYTHON) -m venv $(VENV) && new=1; }; \
	{ $(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt && \
	  $(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e . ; } || \
	{ [ $$new = 1 ] && rm -rf $(VENV); echo "ERROR: installing the pinned packages failed (see pip's message above); nothing was left half-installed, run make setup again once the package index is reachable"; exit 1; }
	touch $(STAMP)

setup: $(STAMP)

data: setup
	@echo ">> restoring data/ from the bundled DVC remote (dvc pull data.dvc)"
	dvc pull data.dvc || { echo "ERROR: dvc could not restore data/ from the bundled remote dvc-remote/ (DVC's message above). Check that dvc-remote/ exists in this checkout (git status) and is readable."; exit 1; }
	python -m compendium.data.manifest

reproduce: data
	@echo ">> dvc repro (every stage, the book included)"
	dvc repro
	@echo ">> the book: $(abspath book/_build/html/index.html)"

test: data
	python -m pytest

test-reliability: data
	python -m pytest tests/reliability -m reliability -v

test-security: data
	python -m pytest tests/security -m security -v -s

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
	python -m pytest tests/unit -q

book: setup
	python -m compendium.book build   # built aside and swapped in only on success

# axe-core for the browser test's accessibility audit, exactly as pinned by package-lock.json (npm ci);
# npm itself comes from Debian, like chromium
node_modules/axe-core/axe.min.js: package.json package-lock.json
	command -v npm >/dev/null || { echo "installing Debian's npm for the browser test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; }
	npm ci --no-audit --no-fund
	touch $@

browser-test: setup node_modules/axe-core/axe.min.js
	test -n "$${CHROMIUM:-}" || command -v chromium >/dev/null || { echo "installing Debian's chromium for the browser test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	python -m compendium.browsercheck

metadata: setup
	python -m compendium.fair write

book-archive: setup
	test -f book/_build/html/index.html || dvc repro book
	mkdir -p book-archive
	tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2026-01-01 00:00Z' -czf book-archive/book-html.tar.gz -C book/_build html
	cd book-archive && sha256sum book-html.tar.gz > book-html.tar.gz.sha256 && cat book-html.tar.gz.sha256

pdf: data
	test -n "$${CHROMIUM:-}" || command -v chromium >/dev/null || { echo "installing Debian's chromium to print the book"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	python -c 'import sys; from compendium.pdf import missing_chapters; sys.exit(1 if missing_chapters() else 0)' || dvc repro book
	python -m compendium.pdf

benchmark: data
	python benchmarks/pipeline.py

freeze: setup
	{ echo "# Exact pins of the whole resolved stack (pip freeze of a working .venv on Python 3.11)."; \
	  echo "# Regenerate: make freeze. environment.yml installs this file through its pip section."; \
	  $(BIN)/python -m pip freeze --exclude-editable | grep -v '^-e'; } > requirements.txt

clean:
	rm -rf book/_build book-archive .pytest_cache
