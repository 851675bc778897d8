# One command each: `make site` (set up + build), `make serve`, `make test`, `make test-fast`, `make bench`,
# `make test-torch TORCH=2.15.0`, `make bench-torch TORCH=2.15.0`.
export NO_MKDOCS_2_WARNING := 1
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: setup site serve test test-fast test-torch bench bench-torch
# llama.cpp (llama-cpp-python) is compiled for the CPU it is built on (-march=native): the stamp
# names that CPU's vector extensions, and setup builds llama.cpp again when the venv meets another
# CPU (bench/releases.py does the same for the release venvs).
LLAMA_FLAGS := $(strip $(shell grep -o -w -E 'avx2|avx512[a-z_0-9]*|amx[a-z_0-9]*' /proc/cpuinfo 2>/dev/null | sort -u | tr '\n' ' '))
LLAMA_STAMP := $(VENV)/.llama-cpp-built-for

setup: $(VENV)/.installed
	@test "$$(cat $(LLAMA_STAMP) 2>/dev/null)" = "$(LLAMA_FLAGS)" || { \
	  echo "llama-cpp-python was built for another CPU (or not yet): building it for this one"; \
	  $(PY) -m pip install --no-cache-dir --force-reinstall --no-deps $$(grep -E '^llama-cpp-python==' requirements.txt) \
	  && echo "$(LLAMA_FLAGS)" > $(LLAMA_STAMP); }

# --no-cache-dir: pip would otherwise keep the llama.cpp wheel it compiles for this CPU and reuse it on another.
$(VENV)/.installed: requirements.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	@$(PY) -m pip show -q llama-cpp-python 2>/dev/null || echo "$(LLAMA_FLAGS)" > $(LLAMA_STAMP).new
	$(PY) -m pip install --no-cache-dir -r requirements.txt
	@test ! -e $(LLAMA_STAMP).new || mv $(LLAMA_STAMP).new $(LLAMA_STAMP)  # built just now, for this CPU
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
