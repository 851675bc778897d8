import functools
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests import releases
from tests.paths import ROOT, all_snippets
from tests.running import PAGE_ARGS, RUN_CACHE_ENV, as_dict, as_result, clean_env, shared

# The origin article's examples, kept verbatim: test_corrections.py runs them in subprocesses;
# importing them (pytest-markdown-docs reads every module's docstrings) would run them here.
collect_ignore = ["article"]


def pytest_configure(config):
    """Folders for the session, made by the controller and inherited by xdist workers: one for
    shared snippet runs, and one inductor cache, so a model that several runs compile is
    compiled once (snippets take TORCHINDUCTOR_CACHE_DIR from the environment when it is set)."""
    if config.getoption("--release-outcomes") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(ReleaseOutcomes(config.getoption("--release-outcomes")))
    if not hasattr(config, "workerinput"):
        # Two workers on two cores, each running programs with one OpenMP thread per core: GNU
        # OpenMP's threads spin at each barrier while the other worker's hold the cores, which
        # made a case study's quick run 2.5x slower than alone (64 s for two side by side, 52 s
        # one after the other; 35 s with this). The guide's own advice for a busy machine
        # (docs/threads.md): sleep instead. Tests compare runs side by side, never with a clock;
        # set the variable yourself to override it. Not when recording outputs (--update-outputs,
        # run serially): a page's output is a reader's run, and a reader's OpenMP spins: with
        # PASSIVE, bfloat16's snippet printed 0.39 ms for fp32 and bf16 alike, 0.18 and 0.13 without.
        if not config.getoption("--update-outputs"):
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    if not hasattr(config, "workerinput") and RUN_CACHE_ENV not in os.environ:
        folder = tempfile.mkdtemp(prefix="snippet-runs-")
        os.environ[RUN_CACHE_ENV] = folder
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(folder, "inductor-cache")
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


def pytest_collection_modifyitems(config, items):
    """Mark the matrix (left out by `make test` and `make test-fast`): tests that run a snippet under
    the isolation conditions (run_isolated) or under another start method (a spawn/forkserver
    parameter); mark slow (left out by `make test-fast` only) the tests long_program names. On another torch release
    (tests/releases.py), skip the release tests that need a package that did not install for it,
    with pip's reason; and write the release tests' fingerprints."""
    missing = json.loads(os.environ.get("RELEASE_MISSING") or "{}")
    for item in items:
        if item.get_closest_marker("release"):
            for package, why in missing.items():
                if releases.needs(item, package):
                    item.add_marker(pytest.mark.skip(reason=f"not installed: {why}"))

        params = getattr(getattr(item, "callspec", None), "params", {})
        isolated = "run_isolated(" in source(item)
        other_start = any(value in ("spawn", "forkserver") for value in params.values())
        if isolated or other_start or item.name.startswith("test_isolation_is_what_it_claims"):
            item.add_marker(pytest.mark.matrix)
        if long_program(item, params):
            item.add_marker(pytest.mark.slow)
    path = config.getoption("--release-fingerprints")
    if path:
        Path(path).write_text(json.dumps({item.nodeid: releases.fingerprint(item) for item in items
                                          if item.get_closest_marker("release")}))


# Snippets whose page run, though it takes no --quick, lasts ten seconds or more on two cores: Inductor
# compiling C++ in fresh processes, three allocators' training children, and two that time every
# variant in rounds (11 s each alone on the AVX2 EPYC, 2026-12-07).
LONG_RUNS = ("allocators_ld_preload", "compile_cache_outside_source_tree", "compile_speedup_small_mlp",
             "batching_throughput_latency", "vectorise_broadcast_einsum_bmm")


def long_program(item, params: dict) -> bool:
    """Left out by `make test-fast` (marked slow): a test that needs a program running for ten seconds
    or more on two cores: the quick benchmark (the quick_run fixture), the snippets whose page shows
    a --quick run (PAGE_ARGS: the case studies, text generation) and those of LONG_RUNS: every
    test in their own module (one named for that snippet alone: test_case_study_runtimes, not
    test_batching, which has two), a test that runs one given as a parameter, and one that names
    one to run_shared or run_isolated. Tests that start such programs themselves carry the mark.
    `make test` runs them all."""
    long = (*PAGE_ARGS, *LONG_RUNS)
    text = source(item)
    runs = any(f"{runner}(" in text for runner in ("run_shared", "run_isolated"))
    return ("quick_run" in getattr(item, "fixturenames", ())
            or _module_snippet(Path(str(item.fspath)).stem) in long
            or (runs and any(value in long for value in params.values() if isinstance(value, str)))
            or (runs and any(f'"{name}"' in text for name in long))
            or (runs and any(re.search(rf"\b{constant}\b", text) for constant in _constants_naming(item, long))))


def _constants_naming(item, names) -> list[str]:
    """The test module's constants that hold one of names (test_batching's THROUGHPUT)."""
    module = getattr(item, "module", None)
    return [key for key, value in vars(module).items()
            if key.isupper() and isinstance(value, str) and value in names] if module else []


@functools.cache
def _module_snippet(stem: str) -> str | None:
    """The one snippet a test module is named for (its words all in the snippet's name), or None:
    test_case_study_runtimes -> case_study_resnet50_runtimes; test_batching (two) -> None."""
    words = set(stem.removeprefix("test_").split("_"))
    named = [name for name in all_snippets() if words <= set(name.split("_"))]
    return named[0] if len(named) == 1 else None


def source(item) -> str:
    """The test function's source ("" for a test that is no function: a page's Python fence)."""
    function = getattr(item, "function", None)
    return _source_of(function) if function is not None else ""


@functools.cache  # a parametrized test's items share one function: read its source once
def _source_of(function) -> str:
    return inspect.getsource(function)


class ReleaseOutcomes:
    """--release-outcomes FILE: each test's outcome, written by the controller (xdist's workers
    report to it) when the session ends: {node id: {"outcome": ..., "message": ...}}."""

    def __init__(self, path: str):
        self.path, self.seen = Path(path), {}

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            message = ""
            if report.skipped and isinstance(report.longrepr, tuple):
                message = report.longrepr[2]
            elif report.failed:
                message = str(report.longrepr.reprcrash.message if hasattr(report.longrepr, "reprcrash")
                              else report.longrepr)
            if report.nodeid not in self.seen or self.seen[report.nodeid]["outcome"] == "passed":
                self.seen[report.nodeid] = {"outcome": report.outcome, "message": message.strip()[:600]}

    def pytest_sessionfinish(self):
        self.path.write_text(json.dumps(self.seen, indent=1))


def pytest_addoption(parser):
    parser.addoption("--update-outputs", action="store_true",
                     help="rewrite the recorded outputs (docs/outputs, the notebook) from fresh runs")
    parser.addoption("--release-fingerprints", default="", help="tests/releases.py: write the release tests' fingerprints")
    parser.addoption("--release-outcomes", default="", help="tests/releases.py: write each test's outcome")


def pytest_sessionfinish(session, exitstatus):
    """`make regen` in one pass: with --update-outputs, once every worker has written its recorded
    outputs, make the page notebooks again from them (their test may have run before the outputs
    it carries were rewritten). Only where the run included the notebook test (a run that updates
    one output leaves the notebooks to their test)."""
    config = session.config
    if hasattr(config, "workerinput") or not config.getoption("--update-outputs"):
        return
    if not any(item.nodeid.startswith("tests/test_case_study_notebook.py") for item in session.items):
        return
    import nbformat

    from tests.page_notebook import build
    from tests.test_case_study_notebook import EDITIONS
    for page, notebook in EDITIONS.values():
        fresh = nbformat.writes(build(page)) + "\n"
        if not notebook.is_file() or notebook.read_text() != fresh:
            notebook.write_text(fresh)


@pytest.fixture(scope="session")
def built_site():
    """`mkdocs build --strict` offline into a temporary folder, once for the whole test run
    (shared by xdist workers like the snippet runs)."""
    site = Path(os.environ[RUN_CACHE_ENV]) / "site"

    def build() -> dict:
        done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
                              cwd=ROOT, env=clean_env(NO_MKDOCS_2_WARNING="1"), capture_output=True, text=True)
        return {"returncode": done.returncode, "stderr": done.stderr}

    result = shared(["mkdocs build"], build)
    assert result["returncode"] == 0, result["stderr"]
    return site


@pytest.fixture(scope="session")
def quick_run():
    """One `python -m bench --quick` for the whole test run, shared by xdist workers like the
    snippet runs: (completed process, results, path of the results file)."""
    out = Path(os.environ[RUN_CACHE_ENV]) / "bench-quick.json"

    def quick() -> dict:
        return as_dict(subprocess.run([sys.executable, "-m", "bench", "--quick", "--out", str(out)], cwd=ROOT,
                                      env=clean_env(), capture_output=True, text=True, timeout=900))

    result = as_result(shared(["bench --quick"], quick))
    assert result.returncode == 0, result.stderr[-3000:]
    return result, json.loads(out.read_text()), out
