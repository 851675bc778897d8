"""The Chinese edition (docs/<page>.zh.md, built under /zh/ by mkdocs-static-i18n): each
translation shows the very programs, outputs and results of its English page, so it cannot drift
from the code; it keeps the English page's anchors, so links work in both editions; and the built
site links each page to its other edition, says so on a page not translated yet, and indexes only
the Chinese pages that are Chinese."""
import json
import re
from urllib.parse import urlsplit

import pytest
from markdown.extensions.toc import slugify

from tests.site_tools import mkdocs_config, published_url
from tests.paths import DOCS

TRANSLATIONS = sorted(DOCS.glob("*.zh.md"))
INCLUDE = re.compile(r"^[ \t]*--8<--[ \t]+\"[^\"]+\"[ \t]*$", re.M)
HEADING = re.compile(r"^(#{1,6}) (.+?)[ \t]*$", re.M)
EXPLICIT_ID = re.compile(r"^(.*?)[ \t]*\{#([\w-]+)\}$")
FENCE = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[ \t]*$", re.M | re.S)


def english(translation):
    return DOCS / translation.name.replace(".zh.md", ".md")


def headings(text: str) -> list[tuple[int, str]]:
    """(level, anchor) of each heading outside code blocks: its explicit {#id}, or the id the
    toc extension gives its text."""
    found = []
    for hashes, title in HEADING.findall(FENCE.sub("", text)):
        explicit = EXPLICIT_ID.match(title)
        plain = re.sub(r"`([^`]*)`", r"\1", re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title))
        found.append((len(hashes), explicit.group(2) if explicit else slugify(plain, "-")))
    return found


# Markdown pages served in English under /zh/ for now, and why: the page's issue names its translation.
NOT_YET_TRANSLATED = {}


def test_the_chinese_edition_covers_every_page():
    """Issue 23 translated Home, the plan, the corrections, the article's five techniques and From
    naive to fast; the other technique pages and the benchmark followed. Every Markdown page has
    its translation but those NOT_YET_TRANSLATED names: the notebook (Your machine) is served in
    English under /zh/."""
    english_pages = {p.name for p in DOCS.glob("*.md") if not p.name.endswith(".zh.md")} - set(NOT_YET_TRANSLATED)
    assert {p.name.replace(".zh.md", ".md") for p in TRANSLATIONS} == english_pages


@pytest.mark.parametrize("translation", TRANSLATIONS, ids=lambda p: p.name)
def test_translation_shows_what_its_english_page_shows(translation):
    """The same snippet sections, recorded outputs and generated results, in the same order; only
    the results come from docs/results/zh/, the renderer's Chinese tables."""
    assert english(translation).is_file(), f"{translation.name} translates no English page"
    ours = INCLUDE.findall(translation.read_text())
    theirs = [line.replace('"docs/results/', '"docs/results/zh/')
              for line in INCLUDE.findall(english(translation).read_text())]
    assert ours == theirs


@pytest.mark.parametrize("translation", TRANSLATIONS, ids=lambda p: p.name)
def test_translation_keeps_the_english_anchors(translation):
    """Every heading names its English anchor ({#id}), so a link to page.md#anchor lands in both
    editions; and the text is Chinese, not the English page copied."""
    text = translation.read_text()
    assert headings(text) == headings(english(translation).read_text())
    assert all(EXPLICIT_ID.match(title) for _, title in HEADING.findall(FENCE.sub("", text))), (
        "a heading without an explicit {#id} gets a Chinese-derived anchor the English links miss")
    prose = FENCE.sub("", text)
    assert len(re.findall(r"[\u4e00-\u9fff]", prose)) > len(re.findall(r"[A-Za-z]", prose)) / 4


@pytest.mark.parametrize("translation", TRANSLATIONS, ids=lambda p: p.name)
def test_no_hard_line_break_inside_chinese_text(translation):
    """A line break between two Chinese characters renders as a stray space."""
    prose = FENCE.sub("", translation.read_text())
    assert not re.search(r"[\u4e00-\u9fff，。：；）]\n[ \t]*[\u4e00-\u9fff（]", prose)


def test_every_nav_title_has_a_chinese_title():
    def titles(nav):
        for item in nav:
            for title, value in item.items():
                yield title
                if isinstance(value, list):
                    yield from titles(value)

    config = mkdocs_config()
    chinese = next(lang for lang in config.plugins["i18n"].config.languages if lang.locale == "zh")
    missing = set(titles(config.nav)) - set(chinese.nav_translations)
    assert not missing, f"add these to nav_translations in mkdocs.yml: {missing}"


def test_each_page_links_its_other_edition(built_site):
    """The language menu's links point at the same page in the other edition. (Search engines
    find each page's other edition in sitemap.xml: tests/test_site.py. The head has no hreflang
    links, for which Material's script would fetch a sitemap.xml beside each, in vain.)"""
    root = urlsplit(published_url(built_site)).path
    for page, other in (("threads/index.html", "zh/threads/"), ("zh/threads/index.html", "threads/"),
                        ("index.html", "zh/"), ("zh/your-machine/index.html", "your-machine/")):
        html = (built_site / page).read_text()
        assert not re.search(r'<link rel="alternate" href="[^"]*" hreflang=', html)
        heads = dict(re.findall(r'<a href="([^"]+)" hreflang="(\w+)"', html))
        language = "en" if other.startswith(("threads", "your-machine")) else "zh"
        href = {hreflang: href for href, hreflang in heads.items()}[language]
        # the home pages' links are written from the published root (/fast-pytorch-cpu/zh/)
        target = built_site / href.removeprefix(root) if href.startswith("/") else (built_site / page).parent / href
        assert target.resolve() == (built_site / other).resolve(), f"{page}: hreflang={language} -> {href}"


def test_an_untranslated_page_says_so_in_chinese(built_site):
    note = "本页尚未翻译成中文，以下是英文原文。"
    assert note in (built_site / "zh" / "your-machine" / "index.html").read_text()  # a notebook, not translated
    assert note not in (built_site / "zh" / "threads" / "index.html").read_text()
    assert note not in (built_site / "your-machine" / "index.html").read_text()


def test_each_edition_searches_its_own_pages(built_site):
    """i18n merges both editions' entries into one index; the build splits it again, so that an
    English search lists no Chinese page and a Chinese one no English page twice: the English
    pages at the root, the Chinese edition's pages (every page of its nav, the translated ones in
    Chinese, segmented by jieba with zero-width spaces) in zh/search/, which the Chinese pages load."""
    english = json.loads((built_site / "search" / "search_index.json").read_text())["docs"]
    chinese = json.loads((built_site / "zh" / "search" / "search_index.json").read_text())["docs"]
    pages = lambda docs: {d["location"].split("#")[0] for d in docs}
    assert not any(location.startswith("zh/") for location in pages(english))
    assert pages(chinese) == pages(english)
    titles = {d["location"]: d["title"] for d in chinese if "#" not in d["location"]}
    for translation in TRANSLATIONS:
        location = "" if translation.name == "index.zh.md" else f"{translation.name[:-6]}/"
        assert re.search(r"[\u4e00-\u9fff]", titles[location]), f"zh/{location} is indexed in English"
    threads = " ".join(d["text"] for d in chinese if d["location"].startswith("threads/"))
    assert "\u200b线程\u200b" in threads or "线程\u200b" in threads
    text = " ".join(d["text"] for d in chinese if d["location"].startswith("generate-text/"))
    for word in ("大模型", "推理", "量化"):  # what a Chinese reader running a small language model types
        assert re.search(f"(^|\u200b){word}\u200b", text), f"{word} is not a word of zh/generate-text/'s index"
    config = lambda page: json.loads(re.search(r'<script id="__config" type="application/json">(.*?)</script>',
                                               (built_site / page / "index.html").read_text(), re.S).group(1))
    assert config("threads")["base"] == ".."
    assert config("zh/threads")["base"] == "../../zh/"


def test_every_benchmark_name_has_a_chinese_name():
    """The Chinese tables and plots (docs/results/zh/) name each case, variant and technique in
    Chinese: bench/names.zh.json has one entry for each name the references and cases use (and each
    column of a verdict table the pages show), and none that nothing uses."""
    import ast

    from bench.cases import recommended, techniques, when
    from bench.figures import PAGE_TABLES, page_table
    from bench.references import load_all
    from bench.words import zh_names

    used = {row[key] for reference in load_all() for row in reference["results"] for key in ("group", "label")}
    used |= set(techniques().values()) | set(when().values())
    used |= {column for regimes in recommended().values() for column in regimes}  # the verdict tables' columns
    used |= {column for table in PAGE_TABLES.glob("*.yml") for call in page_table(f"{table.stem}.md").values()
             if call.startswith("verdicts({") for column in ast.literal_eval(call[len("verdicts("):-1])}
    names = zh_names()
    assert not used - set(names), f"add Chinese names to bench/names.zh.json for: {sorted(used - set(names))}"
    assert not set(names) - used, f"names nothing uses any more: {sorted(set(names) - used)}"
    assert all(names.values()), "an empty name"


def test_every_reference_note_and_reason_has_a_chinese_translation():
    """The Chinese tables (docs/results/zh/) show each reference's notes and the reason each row is
    not shown in Chinese: bench/notes.zh.json has one translation for each, and none that nothing uses."""
    from bench.references import load_all, unmeasured
    from bench.words import zh_notes

    used = {reference["notes"] for reference in load_all() if reference.get("notes")}
    used |= {why for reference in load_all() for why in unmeasured(reference).values()}
    notes = zh_notes()
    missing = sorted(used - set(notes))
    assert not missing, f"add Chinese translations to bench/notes.zh.json for: {missing}"
    assert not set(notes) - used, f"translations nothing uses any more: {sorted(set(notes) - used)}"
    assert all(notes.values()), "an empty translation"


def test_the_words_stand_alone_and_the_figures_do_not_import_the_renderer():
    """bench/words.py holds the Chinese edition's words that no page holds and imports nothing of the
    project; bench.figures reads them there, so it never imports bench.render (which imports it):
    no import cycle between the two (issue 63)."""
    import ast

    from tests.paths import ROOT

    def imported(path):
        tree = ast.parse(path.read_text())
        return {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module} | \
               {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not {m for m in imported(ROOT / "bench" / "words.py") if m.split(".")[0] in ("bench", "tests", "snippets")}
    assert "bench.render" not in imported(ROOT / "bench" / "figures.py")
