import pytest


def pytest_addoption(parser):
    parser.addoption("--update-outputs", action="store_true",
                     help="rewrite docs/outputs/*.txt from fresh snippet runs")


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """`mkdocs build --strict` once per session, offline, into a temporary folder."""
    import subprocess
    import sys

    from tests.snippets import ROOT

    site = tmp_path_factory.mktemp("site")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return site


@pytest.fixture(scope="session")
def quick_run(tmp_path_factory):
    """One `python -m bench --quick` for the session: (completed process, results, path)."""
    import json
    import subprocess
    import sys

    from tests.snippets import ROOT, clean_env

    out = tmp_path_factory.mktemp("bench") / "quick.json"
    result = subprocess.run([sys.executable, "-m", "bench", "--quick", "--out", str(out)], cwd=ROOT,
                            env=clean_env(), capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    return result, json.loads(out.read_text()), out
