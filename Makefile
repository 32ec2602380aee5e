# The two commands: `make demo` and `make test`. Both create .venv and install everything first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast install lint bench clean docs

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# CPU build of PyTorch first: an unpinned install would pull a multi-GB CUDA build (see README).
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e '.[dev,team]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" bash scripts/demo.sh

# The type checker (mypy, configured in pyproject.toml) over stigmergy/, then the whole suite.
test: $(STAMP)
	$(BIN)/python -m mypy
	$(BIN)/python -m pytest -q

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not model"

lint: $(STAMP)
	$(BIN)/ruff check .

# docs/cli.md and docs/schema.md come from the code (tests/test_docs_generated.py fails on drift).
docs: $(STAMP)
	$(BIN)/python scripts/gen_docs.py

bench: $(STAMP)
	$(BIN)/python bench/capture.py

clean:
	rm -rf $(VENV) demo-wiki .pytest_cache
