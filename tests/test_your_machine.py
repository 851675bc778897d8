"""The "Your machine" notebook runs, shows a reader's run beside every reference, technique by
technique, and the output stored in it (what the site shows) is what it prints today."""
import re

import nbformat
import pytest
from nbclient import NotebookClient

from bench.cases import techniques
from bench.compare import column_head
from bench.machine import kind
from bench.references import load_all
from tests.paths import DOCS
from tests.recorded import keep, mask


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
    """Each code cell's printed text, masked; joined per cell, since how a kernel splits a cell's
    stream between the figures it shows varies from run to run."""
    return [mask("".join(out.get("text", "") for out in cell.get("outputs", []) if out.get("output_type") == "stream"))
            for cell in nb.cells if cell.cell_type == "code"]


def test_reader_run_is_shown_beside_reference(quick_run, monkeypatch):
    _, results, path = quick_run
    nb = execute(path, monkeypatch)
    printed = "\n".join(text_outputs(nb))
    assert "yours:" in printed and "none yet" not in printed
    assert "quick mode" in printed
    for reference in load_all():
        assert re.search(column_head(kind(reference["machine"])), printed), "every reference machine has a column"
    assert len(figures(nb)) == len(techniques()), "one plot per technique"


def figures(nb) -> list:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]


def test_stored_output_fits_a_laptop_screen():
    """One small plot per technique and text lines that fit 80 columns, not one giant figure."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert len(figures(nb)) == len(techniques())
    printed = [out.get("text", "") for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs]
    wide = [line for text in printed for line in text.splitlines() if len(line) > 80]
    assert not wide, wide[:3]


@pytest.mark.recorded
@pytest.mark.slow  # the notebook run again: a kernel importing torch and drawing a plot per technique, 11 s
def test_stored_output_is_current(monkeypatch, request):
    fresh = execute(None, monkeypatch)
    same = lambda stored, new: text_outputs(nbformat.reads(stored, as_version=4)) == text_outputs(nbformat.reads(new, as_version=4))  # noqa: E731
    stored = nbformat.reads(keep(NOTEBOOK, nbformat.writes(fresh) + "\n", request, same), as_version=4)
    assert text_outputs(stored) == text_outputs(fresh), (
        "docs/your-machine.ipynb shows stale output: re-run it with tests/test_your_machine.py "
        "--update-outputs")
