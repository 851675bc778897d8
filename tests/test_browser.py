"""The site as readers meet it: every page of the built site, served from 127.0.0.1, in a real
headless Chromium (Debian's /usr/bin/chromium driven by Playwright; no browser is downloaded).

Each page is loaded once and all its checks run on that load: page loads and full-page
screenshots are what cost time. Screenshots are written to $TEST_ARTIFACTS (default
test-artifacts/screenshots) for a human to look at: every page whole (alternately in the light
and the dark palette), its plots in the other palette, and the mobile navigation."""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import threading
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from tests.site_tools import (announce, artifacts_dir, expected_code_blocks, mkdocs_config,
                              page_source, published_url, serve, site_pages, strip_annotations)
from tests.paths import DOCS, ROOT

try:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
except ImportError:  # the `browser` fixture then skips (or fails under REQUIRE_BROWSER=1)
    PlaywrightError = PlaywrightTimeoutError = AssertionError

# Under `pytest -n 2` these tests spread over both workers, each starting its own browser (the
# site is built once for both): no test here relies on another having run.
pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
DESKTOP = {"width": 1280, "height": 900}
MOBILE = {"width": 375, "height": 740}
TIMEOUT_MS = 15_000

# Words a reader types into the search box, and the page that must come up among the first
# three results (线程, "threads", is the origin article's word: its code is on Corrections).
SEARCH_WORDS = {
    "num_threads": "threads/",
    "set_num_threads": "threads/",
    "DataLoader": "data-loading/",
    "num_workers": "data-loading/",
    "inference_mode": "avoid-computation/",
    "channels_last": "channels-last/",
    "bfloat16": "bfloat16/",
    "jemalloc": "allocators/",
}
# Typed into the Chinese edition's search box: its words, segmented by jieba at build time.
SEARCH_WORDS_ZH = {
    "线程": "zh/threads/",
    "数据加载": "zh/data-loading/",
    "向量化": "zh/vectorise/",
    "性能分析": "zh/profiling/",
    "勘误": "zh/corrections/",
    "量化": "zh/quantisation/",
    "内存分配器": "zh/allocators/",
    "大模型": "zh/generate-text/",
}
SEARCH_TOP = 3


def _pages_of_the_nav() -> list[str]:
    """Page URLs known before the build (for parametrizing): every docs page, in English and in
    the Chinese edition (translated, or the English page with a note)."""
    urls = []
    for path in sorted(DOCS.glob("*.md")) + sorted(DOCS.glob("*.ipynb")):
        if not path.stem.endswith(".zh"):
            urls.append("" if path.stem == "index" else f"{path.stem}/")
    return urls + [f"zh/{url}" for url in urls]


PAGES = _pages_of_the_nav()


def _slug(page_url: str) -> str:
    return page_url.strip("/").replace("/", "_") or "home"


# --- the browser and its tabs ------------------------------------------------------------------

def _unavailable(reason: str):
    if os.environ.get("REQUIRE_BROWSER") == "1":
        pytest.fail(f"REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        _unavailable(f"no Chromium at {CHROMIUM} (apt install chromium, or set CHROMIUM=path)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright for Python is not installed (pip install playwright)")
    with sync_playwright() as playwright:
        try:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        except Exception as error:  # noqa: BLE001 - any launch failure means "no usable browser"
            _unavailable(f"Chromium at {CHROMIUM} does not start: {error}")
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def site_url(built_site, pytestconfig):
    with serve(built_site) as url:
        yield url
    announce(pytestconfig, f"\nscreenshots of the site: {artifacts_dir()}")


def _is_local(url: str) -> bool:
    if url.startswith(("data:", "blob:", "about:")):
        return True
    return urlsplit(url).hostname in ("127.0.0.1", "localhost")


OPEN_SHADOW = """{
    // Material renders each diagram into a closed shadow root; open it so the test can look.
    const attach = Element.prototype.attachShadow;
    Element.prototype.attachShadow = function (init) { return attach.call(this, {...init, mode: 'open'}); };
}"""


def _new_context(browser, viewport=DESKTOP, **kw):
    context = browser.new_context(viewport=viewport, color_scheme="light", **kw)
    context.set_default_timeout(TIMEOUT_MS)
    # Anything off the machine is recorded by the tab and aborted here: no waiting for timeouts.
    context.route(re.compile(r"^(?!https?://(127\.0\.0\.1|localhost)[:/]).*"),
                  lambda route: route.abort())
    return context


class Tab:
    """A browser tab recording what a reader would not see: requests leaving the machine,
    console errors, uncaught exceptions, failed local requests (the search worker's requests
    included). `open` starts a new record for the page it opens."""

    def __init__(self, context, base: str):
        self.base = base
        self.page = context.new_page()
        self.off_machine: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", self._on_request)
        self.page.on("response", self._on_response)
        self.page.on("requestfailed", self._on_failed)
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(f"console: {m.text}"))
        self.page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))

    def _on_request(self, request):
        if not _is_local(request.url):
            self.off_machine.append(request.url)

    def _on_response(self, response):
        if _is_local(response.url) and response.status >= 400:
            self.errors.append(f"HTTP {response.status}: {response.url}")

    def _on_failed(self, request):
        if _is_local(request.url):
            self.errors.append(f"failed: {request.url} ({request.failure})")

    def reset(self):
        self.off_machine.clear()
        self.errors.clear()

    def open(self, page_url: str):
        """Load a page (until its load event; what comes later, such as the search index,
        is waited for by assert_clean)."""
        if self.page.url != "about:blank":
            # Let the page before finish: its requests, cut short, would count against this one.
            self.page.wait_for_load_state("networkidle")
        self.reset()
        self.page.goto(self.base + page_url)
        return self.page

    def assert_clean(self, what: str):
        # Late requests (the search worker's index, the favicon) are part of the page: wait
        # until the network is quiet. Free when that moment has already passed.
        self.page.wait_for_load_state("networkidle")
        problems = []
        if self.off_machine:
            problems.append(f"{what} made requests off the machine (the site must work offline):"
                            "\n  " + "\n  ".join(self.off_machine))
        if self.errors:
            problems.append(f"{what}:\n  " + "\n  ".join(self.errors))
        assert not problems, "\n".join(problems)

    def close(self):
        self.page.close()


@pytest.fixture(scope="module")
def desktop(browser, site_url):
    """One desktop context for the page and search tests: its HTTP cache stays warm from page
    to page and the palette a reader picks persists, as in a reader's browser."""
    context = _new_context(browser)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url.rstrip("/"))
    context.add_init_script(OPEN_SHADOW)
    yield context
    context.close()


@pytest.fixture(scope="module", autouse=True)
def mkdocs_config_loaded():
    """mkdocs.yml with its plugins takes seconds of Python to load (the copy checks and the
    mobile test read it): load it in a thread while `mkdocs build` runs in its subprocess."""
    thread = threading.Thread(target=expected_code_blocks, args=("",), daemon=True)
    thread.start()
    return thread


@pytest.fixture(scope="module")
def tab(desktop, site_url, mkdocs_config_loaded):
    """The one desktop tab: the page tests load each page into it, and the tests after them
    use whatever page of the site it shows."""
    mkdocs_config_loaded.join()
    t = Tab(desktop, site_url)
    yield t
    t.close()


def _on_the_site(tab: Tab):
    """The tab's page, after opening the home page if it shows none yet (run after the page
    tests, it shows the last page)."""
    if urlsplit(tab.page.url).hostname is None:
        tab.open("")
    tab.reset()
    return tab.page


# --- the checks made on every page -------------------------------------------------------------

class Checks:
    """The named checks of one page: a failing check is recorded and the next one still runs,
    so one run lists every problem of the page, each under its check's name."""

    def __init__(self):
        self.failed: list[str] = []

    @contextlib.contextmanager
    def __call__(self, name: str):
        try:
            yield
        except (AssertionError, PlaywrightError) as error:
            self.failed.append(f"[{name}] {error}")


PLOTS_JS = """() => Array.from(document.querySelectorAll('img')).filter(
    i => /#only-(light|dark)$/.test(i.getAttribute('src') || '')).map(i => ({
        src: i.getAttribute('src'),
        shown: getComputedStyle(i).display !== 'none',
    }))"""

LOADED_JS = """async () => {
    const shown = Array.from(document.querySelectorAll('img')).filter(
        i => /#only-(light|dark)$/.test(i.getAttribute('src') || '')
             && getComputedStyle(i).display !== 'none');
    const out = [];
    for (const img of shown) {
        if (!img.complete) img.scrollIntoView({block: 'center'});  // a lazy image loads on screen
        try { await img.decode(); } catch (e) {}
        out.push({src: img.getAttribute('src'), width: img.naturalWidth});
    }
    return out;
}"""

PALETTES = {"default": "light", "slate": "dark"}


def _scheme(page) -> str:
    return page.evaluate("document.body.getAttribute('data-md-color-scheme')")


def _check_palette(page, scheme: str):
    """The background is light in `default` and dark in `slate`, and each light/dark plot pair
    shows exactly the plot for the scheme, loaded."""
    assert scheme in PALETTES, f"unknown color scheme {scheme!r}"
    want = PALETTES[scheme]
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    r, g, b = (int(c) for c in re.findall(r"[\d.]+", background)[:3])
    looks = "light" if (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255 > 0.5 else "dark"
    assert looks == want, f"the {scheme} scheme has a {looks} background ({background})"
    pairs: dict[str, dict[str, bool]] = {}
    for plot in page.evaluate(PLOTS_JS):
        kind = plot["src"].rsplit("#only-", 1)[1]
        key = re.sub(r"-(light|dark)(\.\w+)#only-\w+$", r"\2", plot["src"])
        pairs.setdefault(key, {})[kind] = plot["shown"]
    for key, shown in pairs.items():
        assert set(shown) == {"light", "dark"}, f"{key}: only a {set(shown)} plot, no partner"
        assert shown[want] and not shown["dark" if want == "light" else "light"], (
            f"{key} in the {scheme} scheme shows {shown}; expected only the {want} plot")
    for img in page.evaluate(LOADED_JS):
        assert img["width"] > 0, f"plot {img['src']} did not load (naturalWidth 0)"


def _toggle_palette(page):
    """Click the header's palette toggle; wait for the scheme to change."""
    before = _scheme(page)
    page.locator('form[data-md-component="palette"] label:not([hidden])').click()
    page.wait_for_function("s => document.body.getAttribute('data-md-color-scheme') !== s", arg=before)


def _screenshot(page, name: str):
    """The whole page, as JPEG: a third of the time of PNG and still legible."""
    page.evaluate("window.scrollTo(0, 0)")  # else the sticky header lands mid-picture
    page.screenshot(path=str(artifacts_dir() / name), full_page=True, type="jpeg", quality=80)


def _screenshot_plots(page, prefix: str, scheme: str):
    """Each plot on screen, in its surroundings: a full-page picture of a long page costs about
    a second, and apart from its plots a page looks like every other in the same palette."""
    plots = page.locator(f'img[src$="#only-{PALETTES[scheme]}"]')
    for i in range(plots.count()):
        plots.nth(i).evaluate("img => img.scrollIntoView({block: 'center'})")
        page.screenshot(path=str(artifacts_dir() / f"{prefix}-plot{i + 1}.png"))


# A ```mermaid fence and the diagram type on its first line (after an optional %%{init}%%).
MERMAID_KIND = re.compile(r"^\s*```+\s*mermaid\s*\n(?:\s*%%\{.*\}%%\s*\n)?\s*(\w+)", re.M)


def _mermaid_kinds(source: str) -> list[str]:
    """The diagram type of each ```mermaid fence of a page's source, in order ("?" if unknown)."""
    kinds = []
    for m in re.finditer(r"^\s*```+\s*mermaid\b.*$", source, flags=re.M):
        kind = MERMAID_KIND.match(source, m.start())
        kinds.append(kind[1] if kind else "?")
    return kinds


DRAWN_JS = """n => { const divs = Array.from(document.querySelectorAll('div.mermaid'));
    return divs.length >= n && divs.every(d => d.shadowRoot && d.shadowRoot.querySelector('svg')); }"""

DIAGRAMS_JS = """() => Array.from(document.querySelectorAll('div.mermaid')).map(d => {
    const svg = d.shadowRoot && d.shadowRoot.querySelector('svg');
    if (!svg) return null;
    const box = svg.getBoundingClientRect();
    return {role: svg.getAttribute('aria-roledescription'), width: box.width, height: box.height,
            tasks: svg.querySelectorAll('rect.task').length,
            ticks: Array.from(svg.querySelectorAll('.tick text')).map(t => t.textContent)};
})"""


def _check_diagrams(page, kinds: list[str]):
    """Each ```mermaid fence is drawn (by the self-hosted Mermaid) as an SVG diagram of a
    sensible size, a Gantt chart with its task bars; none is left as source text."""
    if kinds:
        with contextlib.suppress(PlaywrightTimeoutError):  # the assertions below say what is missing
            page.wait_for_function(DRAWN_JS, arg=len(kinds))
    diagrams = [d for d in page.evaluate(DIAGRAMS_JS) if d]
    assert len(diagrams) == len(kinds), f"{len(kinds)} ```mermaid fences, {len(diagrams)} drawn as SVG"
    for kind, d in zip(kinds, diagrams):
        assert d["width"] > 100 and d["height"] > 50, f"a {kind} diagram drawn at {d}"
        if kind == "gantt":
            assert d["role"] == "gantt" and d["tasks"] > 0, f"the gantt fence drew {d}"
            ticks = [tick for tick in d["ticks"] if tick.strip()]
            assert ticks and len(ticks) == len(set(ticks)), f"the Gantt axis repeats its dates: {ticks}"
    assert page.locator("pre.mermaid, code.language-mermaid").count() == 0, \
        "a mermaid fence is still shown as source text"
    if "gantt" in kinds:
        assert "dateFormat" not in page.locator(".md-content").inner_text(), \
            "the Gantt chart's source text is on the page"


# All blocks in few evaluates: a Playwright click and clipboard round trip per block cost
# seconds on a page of twenty blocks. The button is clicked from script after checking a
# reader could click it (on screen, not covered), which runs the same copy handler. The copy
# event tells that the click copied something, so the clipboard need not be cleared first.
# Chromium lets script copy only within its transient user activation (about 5 s after a real
# click): when it has run out, the loop stops at that block, the test clicks that button as a
# reader does (a real click, which renews the activation) and the loop resumes there.
COPY_BUTTONS = '.md-content button.md-code__button[data-md-type="copy"]'
COPY_JS = """async ([selector, start, renewed]) => {
    let copies = 0;
    const count = () => { copies += 1; };
    document.addEventListener('copy', count, true);
    const out = [];
    const buttons = Array.from(document.querySelectorAll(selector));
    let i = start;
    for (; i < buttons.length; i++) {
        const button = buttons[i];
        // Open the tabs and <details> a block sits in, as a reader would before copying it.
        for (let el = button; el; el = el.parentElement) {
            if (el.tagName === 'DETAILS' && !el.open) el.open = true;
            if (el.classList && el.classList.contains('tabbed-block')) {
                const index = Array.from(el.parentElement.children).indexOf(el);
                const inputs = el.closest('.tabbed-set').querySelectorAll(':scope > input');
                if (inputs[index] && !inputs[index].checked) inputs[index].click();
            }
        }
        button.scrollIntoView({block: 'center'});
        const r = button.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        const clickable = r.width > 0 && r.height > 0 && !!hit && (hit === button || button.contains(hit));
        if (!navigator.userActivation.isActive && !(renewed && i === start)) break;
        const before = copies;
        button.click();
        const block = button.closest('.highlight');
        out.push({copied: copies > before ? await navigator.clipboard.readText() : null, clickable,
                  annotated: !!block && !!block.querySelector('.md-annotation')});
    }
    document.removeEventListener('copy', count, true);
    return {out, next: i, total: buttons.length};
}"""


def _copy_all(page) -> list[dict]:
    """What each copy button on the page puts on the clipboard, in page order (COPY_JS)."""
    copies, start, renewed = [], 0, False
    while True:
        done = page.evaluate(COPY_JS, [COPY_BUTTONS, start, renewed])
        copies += done["out"]
        if done["next"] >= done["total"]:
            return copies
        # The activation ran out before block `next` (its tabs and <details> are open by now):
        # a reader's click on its button renews it, and the loop resumes at that block.
        start, renewed = done["next"], True
        page.locator(COPY_BUTTONS).nth(start).click()


PROMPT = {"console": re.compile(r"^(\$|#|%|>) "), "bash": re.compile(r"^\$ "),
          "sh": re.compile(r"^\$ "), "shell": re.compile(r"^\$ "), "python": re.compile(r"^>>> ")}


def _check_copy_buttons(page, page_url: str):
    """Each code block's copy button puts on the clipboard exactly the code the source shows
    (includes expanded, section markers dropped): no prompt, line number or annotation marker."""
    expected = expected_code_blocks(page_url)
    if expected is None:
        return  # a notebook: its cells have no copy button
    copies = _copy_all(page)
    assert len(copies) == len(expected), (
        f"{len(copies)} code blocks with a copy button but the source has {len(expected)} "
        f"fences ({[b.info for b in expected]}): a fence did not render as code")
    problems = []
    for i, (block, copy) in enumerate(zip(expected, copies)):
        copied = copy["copied"]
        if not copy["clickable"]:
            problems.append(f"block {i + 1} ({block.info}): its copy button is hidden or covered")
        if copied is None:
            problems.append(f"block {i + 1} ({block.info}): its copy button copied nothing")
            continue
        want = (strip_annotations(block.text) if copy["annotated"] else block.text).rstrip()
        if copied != want:
            problems.append(f"block {i + 1} ({block.info}): copied\n{copied!r}\nbut the source is\n{want!r}")
        prompt = PROMPT.get(block.lang)
        if prompt and any(prompt.match(line) for line in copied.splitlines()):
            problems.append(f"block {i + 1} ({block.info}) copies a prompt: a reader pasting it "
                            f"gets an error; drop the prompt or show it as text:\n{copied}")
    assert not problems, "\n\n".join(problems)


@pytest.mark.parametrize("page_url", PAGES, ids=_slug)
def test_page(tab, built_site, page_url):
    """One load of the page, then:
    - diagrams: each ```mermaid fence is drawn as an SVG diagram (the plan's Gantt chart);
    - light / dark: in the palette the page opens in, and in the other one after clicking the
      header's toggle, the background matches and each light/dark plot pair shows the right
      plot, loaded;
    - copy buttons: each copies exactly the code the source shows;
    - offline: no request left 127.0.0.1, no console error, no failed asset.
    The palette persists from page to page, as for a reader, so pages open alternately in the
    light and the dark palette and one toggle per page covers both. Saved: the whole page in
    the palette it opened in, its plots in the other."""
    if not (built_site / page_url / "index.html").is_file():
        pytest.fail(f"docs page for {page_url!r} was not built")
    source = page_source(page_url)
    kinds = _mermaid_kinds(source.read_text(encoding="utf-8")) if source.suffix == ".md" else []
    check = Checks()
    page = tab.open(page_url)
    with check("diagrams"):  # before the screenshots, so they show the drawn diagrams
        _check_diagrams(page, kinds)
    first = _scheme(page)
    with check(f"{PALETTES.get(first, first)} palette, as opened"):
        _check_palette(page, first)
    with check("screenshot"):
        _screenshot(page, f"{_slug(page_url)}-{PALETTES.get(first, first)}.jpg")
    with check("palette toggle"):
        _toggle_palette(page)
    second = _scheme(page)
    if second != first:  # else the toggle failed, and said so
        with check(f"{PALETTES.get(second, second)} palette, after the toggle"):
            _check_palette(page, second)
            _screenshot_plots(page, f"{_slug(page_url)}-{PALETTES[second]}", second)
    with check("copy buttons"):  # last: it opens tabs and <details>
        _check_copy_buttons(page, page_url)
    with check("offline, no errors"):
        tab.assert_clean("the page")
    assert not check.failed, f"/{page_url}:\n" + "\n\n".join(check.failed)


def test_every_built_page_is_checked(built_site):
    """The page tests are parametrized from docs/ before the build; make sure that list
    is every page the build produced."""
    assert sorted(site_pages(built_site)) == sorted(PAGES)


def test_plan_is_a_gantt_chart():
    """docs/plan.md draws the plan as a ```mermaid gantt fence; test_page[plan] checks that
    it is drawn as an SVG Gantt chart, not shown as source text."""
    source = (DOCS / "plan.md").read_text()
    kinds = _mermaid_kinds(source)
    if not kinds:
        if "PLACEHOLDER" in source:
            pytest.skip("docs/plan.md is still a placeholder without the Gantt chart")
        pytest.fail("docs/plan.md has no ```mermaid fence: the plan must be a Gantt chart")
    assert "gantt" in kinds, f"docs/plan.md's mermaid fences are {kinds}, not a gantt chart"


# --- the offline check itself ------------------------------------------------------------------

def test_offline_check_catches_a_cdn_request(tab):
    """The recorder is not vacuous: a page that pulls a script from a CDN is caught (the
    request is aborted, so the test needs no network)."""
    cdn = "https://cdn.jsdelivr.net/npm/mermaid/dist/mermaid.min.js"
    page = _on_the_site(tab)
    try:
        page.evaluate("url => new Promise(done => { const s = document.createElement('script');"
                      " s.src = url; s.onerror = s.onload = done; document.head.append(s); })", cdn)
        assert tab.off_machine == [cdn]
        with pytest.raises(AssertionError, match="off the machine"):
            tab.assert_clean("a page with a CDN script")
    finally:
        tab.reset()  # the tests after this one use the tab


# --- search --------------------------------------------------------------------------------------

# Material's words under the search box: the placeholder once the index is ready and the box is
# empty, then "N matching documents", "1 matching document" or "No matching documents".
SEARCH_META = ".md-search-result__meta"
# In the Chinese edition: 键入以开始搜索, then N 个符合条件的结果.
READY_JS = f"/^(Type to start|键入以开始)/.test(document.querySelector('{SEARCH_META}').textContent)"
ANSWERED_JS = f"/matching|符合条件/.test(document.querySelector('{SEARCH_META}').textContent)"
# Each result item is one page (its sections nested in it), best first.
RESULT_PAGES_JS = """Array.from(document.querySelectorAll('.md-search-result__item > a:first-child'))
    .map(a => new URL(a.href).pathname)"""


def _search(page, word: str) -> list[str]:
    """Type `word` into the search box; the pages listed, best first, as site-relative URLs."""
    box = page.locator("input.md-search__input")
    box.click()
    # Material searches on keyup: clearing the box (one key press) brings back the placeholder,
    # which it shows only once the index is loaded; then one key press sends the whole word.
    box.fill("")
    box.press("End")
    page.wait_for_function(READY_JS)
    box.fill(word)
    box.press("End")
    page.wait_for_function(ANSWERED_JS)
    pages = []
    for path in page.evaluate(RESULT_PAGES_JS):
        path = path.lstrip("/")
        if path not in pages:
            pages.append(path)
    return pages


@pytest.mark.parametrize("word,page_url", sorted(SEARCH_WORDS.items()))
def test_search_lists_the_page_near_the_top(tab, word, page_url):
    """Typing a technique's API name (or the article's word for it) into the search box lists
    the page about it among the first three results."""
    source = page_source(page_url)
    assert source is not None, f"no source for {page_url}"
    if "PLACEHOLDER" in source.read_text():
        pytest.skip(f"{source.relative_to(ROOT)} is still a placeholder")
    pages = _search(tab.open(""), word)  # the English edition: the tab may show a Chinese page
    assert page_url in pages[:SEARCH_TOP], (
        f"searching {word!r} lists {pages[:SEARCH_TOP + 2]} first, not {page_url}. The search "
        f"plugin's separator (mkdocs.yml) must split on '_' and '.', full listings must carry "
        f"data-search-exclude, and the page's title should name the API")
    assert not [p for p in pages if p.startswith("zh/")], f"the English search lists Chinese pages: {pages}"
    tab.assert_clean(f"search for {word!r}")


@pytest.mark.parametrize("word,page_url", sorted(SEARCH_WORDS_ZH.items()))
def test_chinese_search_lists_the_page_near_the_top(tab, word, page_url):
    """In the Chinese edition, a word a Chinese reader types lists its translated page among the
    first three results."""
    assert page_source(page_url).suffixes[0] == ".zh", f"{page_url} is not translated"
    tab.open("zh/")
    pages = _search(tab.page, word)
    assert page_url in pages[:SEARCH_TOP], f"searching {word!r} in /zh/ lists {pages[:SEARCH_TOP + 2]} first"
    assert all(p.startswith("zh/") for p in pages), f"the Chinese search leaves its edition: {pages}"
    tab.assert_clean(f"search for {word!r}")


def test_language_switch_leads_to_the_same_page_in_the_other_edition(tab):
    """The header's language menu takes a reader from a page to its translation and back; on a page
    not translated yet, the Chinese edition says so in Chinese."""
    page = tab.open("threads/")
    page.locator(".md-header .md-select").hover()
    page.locator('.md-select__link[hreflang="zh"]').click()
    page.wait_for_url("**/zh/threads/")
    assert page.locator("h1").inner_text().startswith("线程")
    page.locator(".md-header .md-select").hover()
    page.locator('.md-select__link[hreflang="en"]').click()
    page.wait_for_url("**/threads/")
    assert "/zh/" not in page.url and page.locator("h1").inner_text().startswith("Threads")
    page = tab.open("zh/your-machine/")
    assert page.locator(".i18n-fallback").inner_text() == "本页尚未翻译成中文，以下是英文原文。"
    tab.assert_clean("the language switch")


# --- a phone -------------------------------------------------------------------------------------

IN_VIEW_JS = """(el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return false;
    const x = r.left + Math.min(r.width / 2, 20), y = r.top + r.height / 2;
    if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) return false;
    const hit = document.elementFromPoint(x, y);
    return !!hit && (el === hit || el.contains(hit) || hit.contains(el));
}"""

# The texts of the given links that a reader can see and tap, in one round trip.
SHOWN_LINKS_JS = f"""(els) => {{
    const inView = {IN_VIEW_JS};
    return els.filter(inView).map(el => el.innerText.trim());
}}"""

SETTLE_JS = """() => Promise.all(document.getAnimations()
    .filter(a => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
    .map(a => a.finished.catch(() => null)))"""


def _settle(page):
    """Wait until the CSS transitions a click started (a drawer sliding in) have finished."""
    page.evaluate(SETTLE_JS)


def _nav_titles() -> tuple[list[str], str, list[str]]:
    """Top-level nav titles from mkdocs.yml, and the first section with its page titles."""
    nav = mkdocs_config().nav
    top = [next(iter(item)) for item in nav]
    section = next(item for item in nav if isinstance(next(iter(item.values())), list))
    title = next(iter(section))
    return top, title, [next(iter(child)) for child in section[title]]


def test_mobile_drawer_lists_the_pages(browser, site_url, mkdocs_config_loaded):
    """At 375x740 the navigation is behind the hamburger: it opens a drawer that lists the
    top-level entries, a section opens to its pages, and a page can be reached from it."""
    mkdocs_config_loaded.join()
    top, section, children = _nav_titles()
    context = _new_context(browser, viewport=MOBILE, is_mobile=True, has_touch=True,
                           device_scale_factor=2)
    try:
        phone = Tab(context, site_url)
        page = phone.open("")
        shots = artifacts_dir()
        page.screenshot(path=str(shots / "mobile-home.png"))
        drawer = page.locator('nav.md-nav--primary')
        hamburger = page.locator('label.md-header__button[for="__drawer"]')
        assert hamburger.is_visible(), "no hamburger button on a phone"
        assert not drawer.locator("a.md-nav__link, label.md-nav__link").first.evaluate(IN_VIEW_JS)
        hamburger.click()
        _settle(page)  # the drawer slides in
        shown = drawer.locator(":scope > ul > li > .md-nav__link").evaluate_all(SHOWN_LINKS_JS)
        page.screenshot(path=str(shots / "mobile-drawer.png"))
        assert shown == top, f"drawer shows {shown}, nav has {top}"
        drawer.locator(":scope > ul > li > label.md-nav__link", has_text=section).first.click()
        _settle(page)  # the section's pages slide in
        visible = set(drawer.locator("a.md-nav__link").evaluate_all(SHOWN_LINKS_JS))
        page.screenshot(path=str(shots / "mobile-drawer-section.png"))
        assert set(children) <= visible, f"section {section!r} shows {visible}, expected {children}"
        with page.expect_navigation():
            drawer.locator("a.md-nav__link", has_text=children[0]).first.click()
        assert page.url != phone.base, "tapping a page in the drawer did not navigate"
        phone.assert_clean("mobile navigation")
    finally:
        context.close()


PLAN_ON_A_PHONE_JS = """() => {
    const box = document.querySelector('div.mermaid');
    const svg = box.shadowRoot.querySelector('svg');
    return {page: document.documentElement.scrollWidth, box: box.clientWidth, scroll: box.scrollWidth,
            drawn: svg.getBoundingClientRect().width, natural: svg.viewBox.baseVal.width,
            steps: document.querySelectorAll('.md-content ol:first-of-type > li').length};
}"""


def test_plan_reads_on_a_phone(browser, site_url):
    """At 375 px the plan does not make the page scroll sideways: the order to work in is a
    numbered list, and the Gantt chart keeps its natural width (its labels legible) in a box
    that scrolls sideways on its own."""
    context = _new_context(browser, viewport=MOBILE, is_mobile=True, has_touch=True,
                           device_scale_factor=2)
    context.add_init_script(OPEN_SHADOW)
    try:
        phone = Tab(context, site_url)
        page = phone.open("plan/")
        page.wait_for_function(DRAWN_JS, arg=1)
        plan = page.evaluate(PLAN_ON_A_PHONE_JS)
        _screenshot(page, "mobile-plan.jpg")
        assert plan["steps"] >= 5, f"the order to work in is not a numbered list: {plan}"
        assert plan["page"] <= MOBILE["width"], f"the page scrolls sideways on a phone: {plan}"
        assert abs(plan["drawn"] - plan["natural"]) < 2, f"the Gantt chart is shrunk to fit: {plan}"
        assert plan["scroll"] > plan["box"], f"the Gantt chart's box does not scroll: {plan}"
        phone.assert_clean("the plan on a phone")
    finally:
        context.close()


TABLES_ON_A_PHONE_JS = """() => {
    // Every table a reader can reach: collapsed blocks opened, each tab of a tab set shown in turn.
    document.querySelectorAll('.md-content details').forEach(d => d.open = true);
    const width = document.documentElement.clientWidth, wide = [];
    const check = () => document.querySelectorAll('.md-content table').forEach((t, i) => {
        const r = t.getBoundingClientRect();
        if (r.width > 0 && (t.scrollWidth > t.clientWidth + 1 || r.right > width + 1 || r.left < -1))
            wide.push({table: i, heading: t.rows[0].innerText.replace(/\\s+/g, ' ').slice(0, 60),
                       width: Math.max(t.scrollWidth, Math.round(r.width)), right: Math.round(r.right)});
    });
    check();
    document.querySelectorAll('.md-content .tabbed-set > input').forEach(input => { input.checked = true; check(); });
    return {page: document.documentElement.scrollWidth, width, wide};
}"""
PHONE = {"width": 390, "height": 844}


def test_every_table_fits_a_phone(browser, site_url):
    """At 390 px (a common phone) no table is cut off at the right edge or scrolls sideways, with
    a column per reference CPU kind: Home's headline, the results tables, the machine table."""
    context = _new_context(browser, viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        phone = context.new_page()
        problems = {}
        for page_url in PAGES:
            # Until the load event only: the page's late requests (the search index) do not
            # change its tables, and no request is checked here (test_page checks them).
            phone.goto(site_url + page_url)
            found = phone.evaluate(TABLES_ON_A_PHONE_JS)
            if found["wide"] or found["page"] > PHONE["width"]:
                problems[page_url] = found
        assert not problems, f"tables wider than a {PHONE['width']}-px screen: {problems}"
    finally:
        context.close()


# --- the 404 page --------------------------------------------------------------------------------

def test_404_page_is_styled_and_leads_home(browser, built_site, tmp_path):
    """GitHub Pages answers an unknown address with 404.html, whose links start with the site's
    path (from site_url) because it is served at any depth. Served under that path, it loads
    its stylesheets and scripts, says what happened, and its logo leads to the home page."""
    prefix = urlsplit(published_url(built_site)).path  # "/fast-pytorch-cpu/"
    root = built_site
    if prefix.strip("/"):
        root = tmp_path / "pages"
        (root / prefix.strip("/")).parent.mkdir(parents=True)
        (root / prefix.strip("/")).symlink_to(built_site, target_is_directory=True)
    with serve(root) as base:
        home = urljoin(base, prefix)
        context = _new_context(browser)
        try:
            tab = Tab(context, home)
            page = tab.open("404.html")
            _screenshot(page, "404.jpg")
            assert page.locator(".md-content h1").inner_text() == "404 - Not found"
            header = page.evaluate("getComputedStyle(document.querySelector('.md-header')).backgroundColor")
            assert header not in ("rgba(0, 0, 0, 0)", "transparent"), "the 404 page is unstyled"
            logo = page.locator("a.md-header__button.md-logo").get_attribute("href")
            assert urljoin(page.url, logo) == home, f"the 404 page's logo leads to {logo}"
            tab.assert_clean("the 404 page")
        finally:
            context.close()

