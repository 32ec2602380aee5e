# The two commands: `make demo` and `make test`. Both create .venv and install everything first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast install lint bench clean docs ocr-engine browser

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# CPU build of PyTorch first: an unpinned install would pull a multi-GB CUDA build (see README).
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e '.[dev,team]'
	@$(MAKE) -s ocr-engine
	@$(MAKE) -s browser
	touch $(STAMP)

# Image capture (OCR) runs Debian's tesseract-ocr program: installed here when it is missing and this
# user may (root with apt-get, as on CI); otherwise say so (the OCR tests fail on CI without it).
ocr-engine:
	@command -v tesseract >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr >/dev/null; \
	  else echo "note: install tesseract-ocr (Debian: apt-get install tesseract-ocr) to capture images"; fi; }

# The web view's tests drive Debian's headless Chromium through its chromedriver (Selenium): installed
# here when missing and this user may (root with apt-get, as on CI); the browser tests fail on CI without it.
browser:
	@{ command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; } || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	  else echo "note: install chromium and chromium-driver (Debian) for the web view's browser tests"; fi; }

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
