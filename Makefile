# The two a newcomer needs: `make site` (the venv's Python packages, then the site: nothing compiled) and
# `make test-all` (every test, what CI runs: builds llama.cpp first). The others, README's "Other commands":
# `make serve`, `make test`, `make test-fast`, `make regen`, `make bench`, `make test-torch TORCH=2.15.0`,
# `make bench-torch TORCH=2.15.0`.
export NO_MKDOCS_2_WARNING := 1
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: packages setup site serve test-all test test-fast regen test-torch bench bench-torch
# Two steps. packages: requirements.txt but llama-cpp-python, nothing compiled; all the site needs
# (site, serve). setup: packages, then llama.cpp (llama-cpp-python), which Generating text runs, for every
# target that runs it (the tests, regen, the benchmark): compiled for the CPU it is built on (g++ and cmake)
# by bench/llama_build.py, and again when the venv meets another CPU (its stamp names the CPU's vector
# extensions; the release venvs of bench/releases.py go through the same script).
packages: $(VENV)/.installed

setup: $(VENV)/.installed
	@$(PY) bench/llama_build.py $(VENV)

$(VENV)/.installed: requirements.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	grep -v '^llama-cpp-python==' requirements.txt > $(VENV)/requirements-but-llama-cpp.txt
	$(PY) -m pip install -r $(VENV)/requirements-but-llama-cpp.txt
	touch $@

site: packages
	$(PY) -m mkdocs build --strict

serve: packages
	$(PY) -m mkdocs serve

# Every test: what CI runs (.ci/run).
test-all: setup
	$(PY) -m pytest

# The suite before a push: all but the matrix, which runs again snippets that other tests run, on one
# CPU under the isolation conditions or under another start method (tests/conftest.py marks it); CI
# runs it.
test: setup
	$(PY) -m pytest -m "not matrix"

# For editing loops: all but the isolation / start-method matrix, the browser and the slow tier (long programs
# and reruns, tests/conftest.py long_program); CI runs all. The site is built without the htmlproofer plugin,
# half the build: tests/test_links.py checks every link and anchor of the built site either way.
test-fast: setup
	HTMLPROOFER=false $(PY) -m pytest -m "not matrix and not browser and not slow"

# Every generated file again, from the references and fresh runs: docs/results in both languages,
# the recorded outputs (docs/outputs), the page notebooks, the Your machine notebook. The tests
# marked recorded compare each with a fresh copy; --update-outputs writes it instead, and at the end of the
# run makes the page notebooks again from the outputs just written (tests/conftest.py). Twice: nothing changes.
regen: setup
	$(PY) -m pytest -m recorded --update-outputs

# The errata, snippets' outputs and API statements on another torch release, in a venv of its own
# (.venv-torch/<release>); records docs/outputs/releases/torch-<release>.json (tests/releases.py).
test-torch: setup
	@test -n "$(TORCH)" || { echo "usage: make test-torch TORCH=2.15.0 [TORCH_OVERWRITE=1 | TORCH_STALE=1]" >&2; exit 2; }
	$(PY) -m tests.releases $(TORCH) $(if $(TORCH_OVERWRITE),--overwrite) $(if $(TORCH_STALE),--stale)

bench: setup
	$(PY) -m bench --full

# What an upgrade does to speed: the benchmark under the pinned torch and under TORCH, techniques
# by turns, on this machine (bench/releases.py); writes bench/references/releases/<kind>.json.
bench-torch: setup
	@test -n "$(TORCH)" || { echo "usage: make bench-torch TORCH=2.15.0 [BENCH_OVERWRITE=1]" >&2; exit 2; }
	$(PY) -m bench.releases $(TORCH) $(if $(BENCH_OVERWRITE),--overwrite)
