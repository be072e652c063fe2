# Two entry points for a fresh machine: `make start` and `make test` (see README.md).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup start test lint bench clean lock

# Every dependency comes from requirements.lock (exact versions, transitive ones included);
# nlu-tui itself is then installed editable without resolving anything again.
$(VENV)/.installed: pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

setup: $(VENV)/.installed

start: setup
	$(BIN)/nlu-tui

lint: setup
	$(BIN)/ruff check nlu_tui tests bench
	$(BIN)/mypy

test: lint
	$(BIN)/pytest -q

bench: setup
	for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

# Refresh requirements.lock after editing the dependencies in pyproject.toml: resolve them in a
# throw-away venv and freeze the result (the lock's leading comment lines are kept).
LOCK_VENV ?= .lock-venv
lock:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install --quiet --upgrade pip
	$(LOCK_VENV)/bin/pip install --quiet -e '.[dev]'
	{ grep '^#' requirements.lock; $(LOCK_VENV)/bin/pip freeze --exclude-editable; } > requirements.lock.new
	mv requirements.lock.new requirements.lock
	rm -rf $(LOCK_VENV)

clean:
	rm -rf $(VENV) $(LOCK_VENV) build dist *.egg-info
