# Entry points for a fresh machine: `make start`, `make test` (lint, the documentation build and
# all tests, as CI) and `make test-quick` (without the slow, tmux and Rasa tests); see README.md.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

# `make start` installs the runtime only (requirements-runtime.lock); the others install everything.
.PHONY: setup start extra test test-quick lint docs screenshots bench clean lock

# Every dependency comes from a lock (exact versions, transitive ones included); nlu-tui itself
# is then installed editable without resolving anything again. requirements.lock holds
# everything (the extras and the dev tools: `make setup`, tests, lint, CI);
# requirements-runtime.lock what `make start` needs (the core and the `web` extra).
$(VENV)/.installed: pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@ $(VENV)/.runtime

# The runtime only; a venv that already has everything (`make setup`) is kept as it is.
# The venv is filled from outside, so it carries no pip or setuptools (27 MB): by uv when it is on
# PATH (several times faster), else by $(PYTHON)'s own pip (22.3 or later: `pip --python`); only
# a Python with neither gets pip inside the venv. The wheels go in without byte-compiling, then
# everything is compiled in parallel but the libraries' own test suites (37 MB of .pyc that
# nlu-tui never imports), so that the first start compiles nothing. docs/guides/install.md.
COMPILE_SKIP := '[/\\]tests?[/\\]'
# Sets the shell's "$$@" to that installer's command (`install` included). `make start UV=` uses
# pip even where uv is installed (uv reads its own settings, not pip.conf's index or mirrors).
UV ?= uv
PICK_INSTALLER = if [ -n "$(UV)" ] && command -v $(UV) >/dev/null 2>&1; then \
		set -- $(UV) pip install --python $(BIN)/python; \
	elif $(PYTHON) -m pip --python $(BIN)/python --version >/dev/null 2>&1; then \
		set -- $(PYTHON) -m pip --python $(BIN)/python install --no-compile; \
	else $(BIN)/python -m ensurepip --upgrade >/dev/null && \
		set -- $(BIN)/python -m pip install --no-compile; fi
COMPILE = $(BIN)/python -m compileall -q -j 0 -x $(COMPILE_SKIP) $(VENV)/lib nlu_tui
$(VENV)/.runtime: pyproject.toml requirements-runtime.lock
	if [ -f $(VENV)/.installed ]; then $(MAKE) --no-print-directory setup; else \
		$(PYTHON) -m venv --without-pip $(VENV) && $(PICK_INSTALLER) && \
		"$$@" --quiet --no-deps -r requirements-runtime.lock -e . && $(COMPILE); fi
	touch $@

# Add extras to the `make start` venv, at requirements.lock's versions: make extra NAME=plots
# (NAME=lex,jwt for several; the extras are in pyproject.toml and docs/guides/install.md).
extra: $(VENV)/.runtime
	@[ -n "$(NAME)" ] || { echo "make extra NAME=EXTRA (lex, jwt, postgres, trackers, plots, all)"; exit 2; }
	$(PICK_INSTALLER) && "$$@" --quiet -c requirements.lock -e '.[$(NAME)]' && $(COMPILE)

setup: $(VENV)/.installed

start: $(VENV)/.runtime
	$(BIN)/nlu-tui

lint: setup
	$(BIN)/ruff check nlu_tui tests bench docs/screenshots.py docs/_hooks
	$(BIN)/ruff format --check nlu_tui tests bench docs/screenshots.py docs/_hooks
	$(BIN)/mypy
	$(BIN)/lint-imports

# The documentation site (mkdocs.yml, docs/): --strict makes every warning, a broken link or
# anchor included, fail the build. `make test` (and so CI) runs it.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# Redraw the screenshots in docs/images/ with the workbench itself (and their text, which
# tests/test_docs_screenshots.py compares with a fresh drawing).
screenshots: setup
	$(BIN)/python docs/screenshots.py --text

# Tests run in parallel (pytest-xdist, one worker per CPU; PYTEST_WORKERS=0 runs them serially);
# the 30 slowest are listed at the end, to keep CI under its 30 minutes.
# Tests of one xdist_group share a worker (tests/conftest.py: the Rasa peer, the tmux tests).
PYTEST_WORKERS ?= auto
PYTEST := $(BIN)/pytest -q -n $(PYTEST_WORKERS) --dist loadgroup --durations=30

# Everything, as CI runs it (.ci/run): lint, the documentation build, then every test (slow, tmux
# and Rasa tests included).
test: lint docs
	$(PYTEST)

# The quick loop while editing: skips the tests marked slow, tmux or rasa.
test-quick: setup
	$(PYTEST) -m "not slow and not tmux and not rasa"

bench: setup
	for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

# Refresh requirements.lock after editing the dependencies in pyproject.toml: resolve them in a
# throw-away venv and freeze the result (the lock's leading comment lines are kept).
# LOCK_HOLD keeps pyarrow at 23.0.1: later releases add 21 MB to the runtime venv (163 MB unpacked
# against 142) and nothing nlu-tui uses; textual-fastdatatable asks for >= 18.1 (>= 22 on
# Python 3.14, which 23.0.1 has wheels for). bench/README.md, "Install".
LOCK_VENV ?= .lock-venv
LOCK_HOLD ?= pyarrow==23.0.1
lock:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install --quiet --upgrade pip
	$(LOCK_VENV)/bin/pip install --quiet -e '.[dev]' $(LOCK_HOLD)
	{ grep '^#' requirements.lock; $(LOCK_VENV)/bin/pip freeze --exclude-editable; } > requirements.lock.new
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install --quiet -c requirements.lock.new -e '.[web]'
	{ grep '^#' requirements-runtime.lock; $(LOCK_VENV)/bin/pip freeze --exclude-editable; } > requirements-runtime.lock.new
	mv requirements.lock.new requirements.lock
	mv requirements-runtime.lock.new requirements-runtime.lock
	rm -rf $(LOCK_VENV)

clean:
	rm -rf $(VENV) $(LOCK_VENV) build dist site *.egg-info
