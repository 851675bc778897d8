"""The "From naive to fast" page as a notebook to download (docs/downloads/): made from the page
and its snippets as they are now, linked from the page, served by the site as a file, and it runs
top to bottom, its programs printing what the page shows."""
import re

import nbformat
import pytest
from nbclient import NotebookClient

from tests.page_notebook import build
from tests.snippets import DOCS, OUTPUTS, mask

PAGE = DOCS / "naive-to-fast.md"
NOTEBOOK = DOCS / "downloads" / "naive-to-fast.ipynb"


def test_stored_notebook_is_current(request):
    fresh = nbformat.writes(build(PAGE)) + "\n"
    if request.config.getoption("--update-outputs"):
        NOTEBOOK.parent.mkdir(exist_ok=True)
        NOTEBOOK.write_text(fresh)
    assert NOTEBOOK.read_text() == fresh, (
        f"{NOTEBOOK.relative_to(DOCS.parent)} is not what {PAGE.name} makes now: rewrite it with "
        "pytest tests/test_case_study_notebook.py --update-outputs")


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_notebook_runs_and_its_programs_print_what_the_page_shows(tmp_path):
    """In an empty folder, as a reader's download: the cells write the programs, then run them."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=900, resources={"metadata": {"path": str(tmp_path)}}).execute()
    runs = [cell for cell in nb.cells if cell.cell_type == "code" and cell.source.startswith("!")]
    assert runs, "the notebook runs no program"
    for cell in runs:
        name = re.search(r"snippets/(\w+)\.py", cell.source).group(1)
        # A `!` command runs in a terminal (\r\n line ends), its stderr (progress lines, warnings)
        # in the same stream: the page's lines must all be there, in order, among them.
        printed = "".join(out.get("text", "") for out in cell.outputs
                          if out.get("output_type") == "stream").replace("\r\n", "\n")
        printed_lines = iter(mask(printed, name).splitlines())
        missing = [line for line in mask((OUTPUTS / f"{name}.txt").read_text(), name).splitlines()
                   if line not in printed_lines]
        assert not missing, f"the notebook's {cell.source!r} printed:\n{printed}"


def test_the_page_links_the_notebook_and_the_site_serves_it(built_site):
    page = built_site / "naive-to-fast" / "index.html"
    links = re.findall(r'href="([^"]+\.ipynb)"', page.read_text())
    assert links, "no link to the notebook on /naive-to-fast/"
    assert (page.parent / links[0]).read_bytes() == NOTEBOOK.read_bytes()
    assert not (built_site / "downloads" / "naive-to-fast").exists(), "the notebook is rendered as a page too"
