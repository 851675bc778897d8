"""The site builds strictly and offline, and pages and snippets name each other."""
import re
import subprocess
import sys


from tests.snippets import DOCS, OUTPUTS, ROOT, all_snippets

INCLUDE = re.compile(r'--8<--\s+"([^"]+?)(?::[\w-]+)?"')


def page_includes() -> set[str]:
    found = set()
    for page in DOCS.rglob("*.md"):
        found.update(INCLUDE.findall(page.read_text()))
    return found


def test_every_snippet_is_shown_by_a_page():
    included = page_includes()
    unused = [n for n in all_snippets() if f"snippets/{n}.py" not in included]
    assert not unused, f"snippets no page includes: {unused}"


def test_every_snippet_output_is_shown_by_a_page():
    included = page_includes()
    unused = [n for n in all_snippets() if f"docs/outputs/{n}.txt" not in included]
    assert not unused, f"outputs no page shows: {unused}"


def test_no_output_without_its_snippet():
    names = set(all_snippets())
    orphans = [p.name for p in OUTPUTS.glob("*.txt") if p.stem not in names]
    assert not orphans, f"outputs of snippets that no longer exist: {orphans}"


def test_strict_build_succeeds(built_site):
    assert (built_site / "index.html").is_file()
    assert (built_site / "plan" / "index.html").is_file()


def test_missing_snippet_breaks_the_build(tmp_path):
    """check_paths: a page that names a missing snippet fails the build, never renders empty."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text('```python\n--8<-- "snippets/no_such_file.py"\n```\n')
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "site_name: t\nmarkdown_extensions:\n  - pymdownx.snippets:\n"
        f"      base_path: ['{ROOT}']\n      check_paths: true\n")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config),
                             "-d", str(tmp_path / "site")], capture_output=True, text=True)
    assert result.returncode != 0
    assert "no_such_file.py" in result.stderr
