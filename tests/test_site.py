"""The site builds strictly and offline, pages and snippets name each other, and what a search
engine or the site's own search reads is right: sitemap, descriptions, the search index."""
import html
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

from tests.site_tools import page_source, published_url, site_pages
from tests.paths import DOCS, OUTPUTS, ROOT, all_snippets, snippet_path

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


# --- for search engines and the site's search ----------------------------------------------------

def _description(page_html: str) -> str | None:
    match = re.search(r'<meta name="description" content="([^"]*)"', page_html)
    return html.unescape(match.group(1)) if match else None


def test_sitemap_lists_every_page_at_the_published_address(built_site):
    """sitemap.xml (empty without site_url) lists each page under the site's address, the same
    address each page names as its canonical URL, each with its other edition's page as an
    hreflang alternate (mkdocs-static-i18n's sitemap)."""
    home = published_url(built_site)
    assert home.startswith("https://"), f"the site is built for {home!r}"
    root = ET.parse(built_site / "sitemap.xml").getroot()
    locs = {loc.text for loc in root.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")}
    assert locs == {home + page for page in site_pages(built_site)}
    for url in root.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}url"):
        page = url.find("{http://www.sitemaps.org/schemas/sitemap/0.9}loc").text.removeprefix(home)
        alternates = {link.get("hreflang"): link.get("href") for link in url.iter("{http://www.w3.org/1999/xhtml}link")}
        english = page.removeprefix("zh/") if page != "zh/" else ""
        assert alternates == {"en": home + english, "zh": home + "zh/" + english}, (page, alternates)


# A notebook page cannot carry front matter (mkdocs-jupyter#99): it gets the site's description.
DESCRIPTION_PENDING = {"your-machine/"}


def test_every_page_has_a_description_of_its_own(built_site):
    """Each page's front matter `description` is what a search engine shows under its title:
    one sentence of its own, not the site's description repeated."""
    descriptions = {}
    for page in site_pages(built_site):
        description = _description((built_site / page / "index.html").read_text())
        assert description, f"/{page} has no meta description"
        descriptions[page] = description
    # a page the Chinese edition has not translated is the English page again, description and all
    counted = {page: d for page, d in descriptions.items() if page.removeprefix("zh/") not in DESCRIPTION_PENDING
               and not (page.startswith("zh/") and page_source(page).suffixes[:1] != [".zh"])}
    shared = {d for d in counted.values() if list(counted.values()).count(d) > 1}
    assert not shared, f"pages share a description: {shared}"
    site_wide = re.search(r"^site_description: (.+)$", (ROOT / "mkdocs.yml").read_text(), re.M).group(1)
    fallback = sorted(page for page, d in counted.items() if d == site_wide)
    assert not fallback, f"no description front matter, so the site's: {fallback}"
    for page, description in counted.items():
        assert 50 <= len(description) <= 200 and description.count(". ") == 0, (
            f"/{page}: a description is one sentence of 50-200 characters: {description!r}")


def _squeezed(text: str) -> str:
    """Text without any whitespace: highlighted code and the index space it differently."""
    return "".join(text.split())


def _text(fragment: str) -> str:
    """Text of an HTML fragment, tags and whitespace dropped."""
    return _squeezed(html.unescape(re.sub(r"<[^>]+>", "", fragment)))


def test_whole_programs_are_not_in_the_search_index(built_site):
    """The full listings at the end of a page are left out of the search index (data-search-exclude):
    a search for an API name lists the pages about it, not every program that calls it. Each
    listing is on its page (so the check can see one), and in no entry of the index."""
    index = json.loads((built_site / "search" / "search_index.json").read_text())
    entries = [_text(doc["text"]) for doc in index["docs"]]
    checked = 0
    for page in site_pages(built_site):
        source = page_source(page)
        if source is None or source.suffix != ".md":
            continue
        page_text = _text((built_site / page / "index.html").read_text())
        for name in re.findall(r'--8<-- "snippets/(\w+)\.py"', source.read_text()):
            lines = snippet_path(name).read_text().splitlines()
            program = _squeezed("".join(line for line in lines if "--8<--" not in line))  # markers are not shown
            assert program in page_text, f"/{page} does not show snippets/{name}.py whole"
            assert not any(program in entry for entry in entries), (
                f"snippets/{name}.py is in the search index: mark its fence with data-search-exclude")
            checked += 1
    assert checked >= len(all_snippets()) - 2, f"only {checked} whole programs found on the pages"


def test_the_notebook_page_offers_the_notebook_for_download(built_site):
    page = built_site / "your-machine" / "index.html"
    links = re.findall(r'<a href="([^"]+\.ipynb)" download', page.read_text())
    assert links, "no download link for the notebook on /your-machine/"
    assert (page.parent / links[0]).read_bytes() == (DOCS / "your-machine.ipynb").read_bytes()
