"""The "Your machine" notebook runs, shows a reader's run beside the reference, and the output
stored in it (what the site shows) is what it prints today."""
import nbformat
from nbclient import NotebookClient

from tests.snippets import DOCS, mask


NOTEBOOK = DOCS / "your-machine.ipynb"


def execute(env_results=None, monkeypatch=None):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    if env_results:
        monkeypatch.setenv("BENCH_RESULTS", str(env_results))
    else:
        monkeypatch.setenv("BENCH_RESULTS", str(DOCS / "no-such-results.json"))
    NotebookClient(nb, timeout=300, resources={"metadata": {"path": str(DOCS)}}).execute()
    return nb


def text_outputs(nb) -> list[str]:
    return [mask(out.get("text", "")) for cell in nb.cells if cell.cell_type == "code"
            for out in cell.get("outputs", []) if out.get("output_type") == "stream"]


def test_reader_run_is_shown_beside_reference(quick_run, monkeypatch):
    _, results, path = quick_run
    nb = execute(path, monkeypatch)
    printed = "\n".join(text_outputs(nb))
    assert "yours: " in printed and "none yet" not in printed
    assert "quick mode" in printed
    figures = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(figures) == 1


def test_stored_output_is_current(monkeypatch, request):
    fresh = execute(None, monkeypatch)
    if request.config.getoption("--update-outputs"):
        nbformat.write(fresh, NOTEBOOK)
    stored = nbformat.read(NOTEBOOK, as_version=4)
    assert text_outputs(stored) == text_outputs(fresh), (
        "docs/your-machine.ipynb shows stale output: re-run it with tests/test_your_machine.py "
        "--update-outputs")
