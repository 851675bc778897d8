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
