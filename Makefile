# One command each: `make site` (set up + build), `make serve`, `make test`, `make test-fast`, `make bench`.
export NO_MKDOCS_2_WARNING := 1
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: setup site serve test test-fast bench
setup: $(VENV)/.installed

$(VENV)/.installed: requirements.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -r requirements.txt
	touch $@

site: setup
	$(PY) -m mkdocs build --strict

serve: setup
	$(PY) -m mkdocs serve

test: setup
	$(PY) -m pytest

# For editing loops: all but the isolation / start-method matrix, the browser and the slow reruns (CI runs all).
test-fast: setup
	$(PY) -m pytest -m "not matrix and not browser and not slow"

bench: setup
	$(PY) -m bench --full
