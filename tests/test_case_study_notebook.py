"""The "From naive to fast" page as a notebook to download (docs/downloads/): made from the page
and its snippets as they are now, linked from the page, served by the site as a file, and it runs
top to bottom, its programs printing what the page shows. The Chinese edition's page offers the
notebook in Chinese (downloads/<name>.zh.ipynb, served under zh/ as i18n serves a translation),
with the very programs and commands of the English one."""
import re

import nbformat
import pytest
from nbclient import NotebookClient

from tests.page_notebook import WORDS, build
from tests.paths import DOCS, OUTPUTS, snippet_path
from tests.recorded import keep, mask
from tests.running import PAGE_ARGS, run_shared

PAGE = DOCS / "naive-to-fast.md"
NOTEBOOK = DOCS / "downloads" / "naive-to-fast.ipynb"
SECTION = re.compile(r"^\s*# --8<-- \[(start|end):\w+\]$")  # pymdownx.snippets' section markers
EDITIONS = {"": (PAGE, NOTEBOOK), "zh/": (DOCS / "naive-to-fast.zh.md", DOCS / "downloads" / "naive-to-fast.zh.ipynb")}


@pytest.mark.recorded
@pytest.mark.parametrize("edition", EDITIONS, ids=lambda e: e or "en")
def test_stored_notebook_is_current(request, edition):
    page, notebook = EDITIONS[edition]
    fresh = nbformat.writes(build(page)) + "\n"
    assert keep(notebook, fresh, request) == fresh, (
        f"{notebook.relative_to(DOCS.parent)} is not what {page.name} makes now: rewrite it with "
        "pytest tests/test_case_study_notebook.py --update-outputs")


def test_the_chinese_notebook_runs_what_the_english_one_runs():
    """Its code cells are the English notebook's, but for the one comment in the setup cell: the
    same programs, written and run the same way (the English one's run is tested below)."""
    code = lambda path: [cell.source for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"]
    english, chinese = code(NOTEBOOK), code(EDITIONS["zh/"][1])
    assert chinese[1:] == english[1:]
    without = lambda source, language: [line for line in source.splitlines() if line != WORDS[language]["setup"]]
    assert without(chinese[0], "zh") == without(english[0], "en")
    markdown = " ".join(cell.source for cell in nbformat.read(EDITIONS["zh/"][1], as_version=4).cells
                        if cell.cell_type == "markdown")
    assert "/zh/naive-to-fast/" in markdown and "从朴素到高效" in markdown


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_notebook_runs_and_its_programs_print_what_the_page_shows(tmp_path):
    """In an empty folder, as a reader's download, every cell runs top to bottom. Its programs are
    snippets/ line for line (but for the section markers, comments, that the page's includes drop),
    and each run cell starts one with this kernel's Python and the arguments the page's output was
    made with (PAGE_ARGS): the command of the page's run (run_shared, which test_snippet_outputs
    compares whole), so that run's output is what the notebook prints; its lines are checked here
    against the page. The kernel starts each program with --help instead (its imports and command
    line): seconds, not the minutes of the three quick runs a second time."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    runs = [cell for cell in nb.cells if cell.cell_type == "code" and cell.source.startswith("!")]
    assert runs, "the notebook runs no program"
    names = []
    for cell in runs:
        name = re.search(r"snippets/(\w+)\.py", cell.source).group(1)
        assert cell.source == f"!{{sys.executable}} snippets/{name}.py {' '.join(PAGE_ARGS[name])}", cell.source
        cell.source = f"!{{sys.executable}} snippets/{name}.py --help"
        names.append(name)
    NotebookClient(nb, timeout=300, resources={"metadata": {"path": str(tmp_path)}}).execute()
    for cell, name in zip(runs, names):
        assert (tmp_path / "snippets" / f"{name}.py").read_text().splitlines() == [
            line for line in snippet_path(name).read_text().splitlines() if not SECTION.match(line)], name
        printed = "".join(out.get("text", "") for out in cell.outputs if out.get("output_type") == "stream")
        assert f"usage: {name}.py" in printed and "Traceback" not in printed, printed
        page_run = run_shared(name).stdout  # its lines, in order, as test_snippet_outputs compares them whole
        printed_lines = iter(mask(page_run, name).splitlines())
        missing = [line for line in mask((OUTPUTS / f"{name}.txt").read_text(), name).splitlines()
                   if line not in printed_lines]
        assert not missing, f"{name} {' '.join(PAGE_ARGS[name])} printed:\n{page_run}"


@pytest.mark.parametrize("edition", EDITIONS, ids=lambda e: e or "en")
def test_the_page_links_the_notebook_and_the_site_serves_it(built_site, edition):
    page = built_site / edition / "naive-to-fast" / "index.html"
    links = re.findall(r'href="([^"]+\.ipynb)"', page.read_text())
    assert links, f"no link to the notebook on /{edition}naive-to-fast/"
    assert (page.parent / links[0]).read_bytes() == EDITIONS[edition][1].read_bytes()
    assert not (built_site / edition / "downloads" / "naive-to-fast").exists(), "the notebook is rendered as a page too"
