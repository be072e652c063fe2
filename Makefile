# Two entry points for a fresh machine: `make start` and `make test` (see README.md).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup start test lint bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
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

clean:
	rm -rf $(VENV) build dist *.egg-info
