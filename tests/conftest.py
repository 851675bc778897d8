import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

from tests.snippets import ROOT, RUN_CACHE_ENV, clean_env

# The origin article's examples, kept verbatim: test_corrections.py runs them in subprocesses;
# importing them (pytest-markdown-docs reads every module's docstrings) would run them here.
collect_ignore = ["article"]


def pytest_configure(config):
    """One folder for cached snippet runs, made by the controller and inherited by xdist workers."""
    if not hasattr(config, "workerinput") and RUN_CACHE_ENV not in os.environ:
        folder = tempfile.mkdtemp(prefix="snippet-runs-")
        os.environ[RUN_CACHE_ENV] = folder
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


def pytest_addoption(parser):
    parser.addoption("--update-outputs", action="store_true",
                     help="rewrite the recorded outputs (docs/outputs, the notebook) from fresh runs")


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """`mkdocs build --strict` once per session, offline, into a temporary folder."""
    site = tmp_path_factory.mktemp("site")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
                            cwd=ROOT, env=clean_env(NO_MKDOCS_2_WARNING="1"), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return site


@pytest.fixture(scope="session")
def quick_run(tmp_path_factory):
    """One `python -m bench --quick` for the session: (completed process, results, path)."""
    out = tmp_path_factory.mktemp("bench") / "quick.json"
    result = subprocess.run([sys.executable, "-m", "bench", "--quick", "--out", str(out)], cwd=ROOT,
                            env=clean_env(), capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    return result, json.loads(out.read_text()), out
