"""The site as readers meet it: every page of the built site, served from 127.0.0.1, in a real
headless Chromium (Debian's /usr/bin/chromium driven by Playwright; no browser is downloaded).

Screenshots of every page (light and dark) and of the mobile navigation are written to
$TEST_ARTIFACTS (default test-artifacts/screenshots) for a human to look at."""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.site_tools import (announce, artifacts_dir, expected_code_blocks, mkdocs_config,
                              page_source, serve, site_pages, strip_annotations)
from tests.snippets import DOCS, ROOT

# One browser, one worker: under `pytest -n 2 --dist loadgroup` the page tests stay together
# (each page is loaded once and shared by three tests) while the snippet tests spread out.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
DESKTOP = {"width": 1280, "height": 900}
MOBILE = {"width": 375, "height": 740}
TIMEOUT_MS = 15_000

# Words a reader types into the search box, and the page that must come up.
SEARCH_WORDS = {
    "num_workers": "data-loading/",
    "inference_mode": "avoid-computation/",
    "channels_last": "channels-last/",
    "set_num_threads": "threads/",
    "bfloat16": "bfloat16/",
    "jemalloc": "allocators/",
}


def _pages_of_the_nav() -> list[str]:
    """Page URLs known before the build (for parametrizing): every docs page."""
    urls = []
    for path in sorted(DOCS.glob("*.md")) + sorted(DOCS.glob("*.ipynb")):
        urls.append("" if path.stem == "index" else f"{path.stem}/")
    return urls


PAGES = _pages_of_the_nav()


def _slug(page_url: str) -> str:
    return page_url.strip("/").replace("/", "_") or "home"


# --- fixtures --------------------------------------------------------------------------------

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


class Visit:
    """A fresh browser context on one page, recording what a reader would not see: requests
    leaving the machine, console errors, uncaught exceptions, failed local requests."""

    def __init__(self, browser, base: str, viewport=DESKTOP, init_script: str | None = None, **kw):
        self.base = base
        self.context = browser.new_context(viewport=viewport, color_scheme="light", **kw)
        self.context.set_default_timeout(TIMEOUT_MS)
        self.off_machine: list[str] = []
        self.errors: list[str] = []
        self.context.on("request", self._on_request)
        self.context.on("response", self._on_response)
        self.context.on("requestfailed", self._on_failed)
        # Anything off the machine is recorded above and aborted here: no waiting for timeouts.
        self.context.route(re.compile(r"^(?!https?://(127\.0\.0\.1|localhost)[:/]).*"),
                           lambda route: route.abort())
        if init_script:
            self.context.add_init_script(init_script)
        self.page = self.context.new_page()
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

    def open(self, page_url: str):
        self.page.goto(self.base + page_url)
        self.page.wait_for_load_state("networkidle")
        return self.page

    def assert_clean(self, what: str):
        assert not self.off_machine, (f"{what} made requests off the machine (the site must work "
                                      "offline):\n  " + "\n  ".join(self.off_machine))
        assert not self.errors, f"{what}:\n  " + "\n  ".join(self.errors)

    def close(self):
        self.context.close()


@pytest.fixture
def visit(browser, site_url):
    opened: list[Visit] = []

    def make(**kw) -> Visit:
        v = Visit(browser, site_url, **kw)
        opened.append(v)
        return v

    yield make
    for v in opened:
        v.close()


def test_offline_check_catches_a_cdn_request(visit):
    """The recorder is not vacuous: a page that pulls a script from a CDN is caught (the
    request is aborted, so the test needs no network)."""
    v = visit()
    v.open("")
    cdn = "https://cdn.jsdelivr.net/npm/mermaid/dist/mermaid.min.js"
    v.page.evaluate("url => new Promise(done => { const s = document.createElement('script');"
                    " s.src = url; s.onerror = s.onload = done; document.head.append(s); })", cdn)
    assert v.off_machine == [cdn]
    with pytest.raises(AssertionError, match="off the machine"):
        v.assert_clean("a page with a CDN script")


def test_every_built_page_is_checked(built_site):
    """The per-page tests are parametrized from docs/ before the build; make sure that list
    is every page the build produced."""
    assert sorted(site_pages(built_site)) == sorted(PAGES)


# --- every page, light and dark ----------------------------------------------------------------

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
        img.scrollIntoView();
        try { await img.decode(); } catch (e) {}
        out.push({src: img.getAttribute('src'), width: img.naturalWidth});
    }
    return out;
}"""


def _check_plots(page, scheme: str):
    """Each light/dark plot pair shows exactly the one for the current scheme, and it loaded."""
    want = "light" if scheme == "default" else "dark"
    plots = page.evaluate(PLOTS_JS)
    pairs: dict[str, dict[str, bool]] = {}
    for plot in plots:
        kind = plot["src"].rsplit("#only-", 1)[1]
        key = re.sub(r"-(light|dark)(\.\w+)#only-\w+$", r"\2", plot["src"])
        pairs.setdefault(key, {})[kind] = plot["shown"]
    for key, shown in pairs.items():
        assert set(shown) == {"light", "dark"}, f"{key}: only a {set(shown)} plot, no partner"
        assert shown[want] and not shown["dark" if want == "light" else "light"], (
            f"{key} in the {scheme} scheme shows {shown}; expected only the {want} plot")
    for img in page.evaluate(LOADED_JS):
        assert img["width"] > 0, f"plot {img['src']} did not load (naturalWidth 0)"
    return len(pairs)


def _screenshot(page, name: str):
    page.evaluate("window.scrollTo(0, 0)")  # else the sticky header lands mid-picture
    page.screenshot(path=str(artifacts_dir() / name), full_page=True)


def _scheme(page) -> str:
    return page.evaluate("document.body.getAttribute('data-md-color-scheme')")


def _background(page) -> str:
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


@pytest.fixture(scope="module", params=PAGES, ids=_slug)
def opened(request, browser, site_url, built_site):
    """One page, loaded once (the page loads dominate the run time) and shared by the light,
    dark and copy tests below, which pytest runs one page after the other. Each test puts the
    page in the state it needs, so they do not depend on each other's order."""
    page_url = request.param
    if not (built_site / page_url / "index.html").is_file():
        pytest.fail(f"docs page for {page_url!r} was not built")
    v = Visit(browser, site_url)
    v.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url.rstrip("/"))
    v.url = page_url
    v.open(page_url)
    yield v
    v.close()


def _switch_scheme(page, scheme: str):
    """Click the header's palette toggle until the page is in `scheme`."""
    if _scheme(page) != scheme:
        page.locator('form[data-md-component="palette"] label:not([hidden])').click()
        page.wait_for_function(f"document.body.getAttribute('data-md-color-scheme') === {scheme!r}")


def test_page_loads_offline_without_errors(opened):
    """Light scheme (the default for a reader whose system is light): no request leaves
    127.0.0.1, no console error, no failed asset, and every plot pair shows its light plot."""
    page = opened.page
    _switch_scheme(page, "default")
    _check_plots(page, "default")
    _screenshot(page, f"{_slug(opened.url)}-light.png")
    opened.assert_clean(f"page /{opened.url}")


def test_dark_palette_toggle(opened):
    """The header's palette toggle switches to the dark (slate) scheme: the scheme attribute and
    the background colour change, each plot pair shows its dark plot; toggling again restores
    the light scheme."""
    page = opened.page
    _switch_scheme(page, "default")
    light_bg = _background(page)
    _switch_scheme(page, "slate")
    page.wait_for_function(f"getComputedStyle(document.body).backgroundColor !== {light_bg!r}")
    _check_plots(page, "slate")
    _screenshot(page, f"{_slug(opened.url)}-dark.png")
    _switch_scheme(page, "default")
    page.wait_for_function(f"getComputedStyle(document.body).backgroundColor === {light_bg!r}")
    opened.assert_clean(f"page /{opened.url} in the dark scheme")


# --- copy buttons --------------------------------------------------------------------------------

REVEAL_JS = """(button) => {
    // Open the tabs and <details> a block sits in, as a reader would before copying it.
    for (let el = button; el; el = el.parentElement) {
        if (el.tagName === 'DETAILS' && !el.open) el.open = true;
        if (el.classList && el.classList.contains('tabbed-block')) {
            const index = Array.from(el.parentElement.children).indexOf(el);
            const inputs = el.closest('.tabbed-set').querySelectorAll(':scope > input');
            if (inputs[index] && !inputs[index].checked) inputs[index].click();
        }
    }
}"""

PROMPT = {"console": re.compile(r"^(\$|#|%|>) "), "bash": re.compile(r"^\$ "),
          "sh": re.compile(r"^\$ "), "shell": re.compile(r"^\$ "), "python": re.compile(r"^>>> ")}


def test_copy_buttons_copy_exactly_the_code(opened):
    """Each code block's copy button puts on the clipboard exactly the code the source shows
    (includes expanded, section markers dropped): no prompt, line number or annotation marker."""
    page_url, page = opened.url, opened.page
    expected = expected_code_blocks(page_url)
    if expected is None:
        pytest.skip(f"{page_source(page_url)} is a notebook: its cells have no copy button")
    buttons = page.locator('.md-content button.md-code__button[data-md-type="copy"]')
    count = buttons.count()
    assert count == len(expected), (
        f"/{page_url} shows {count} code blocks with a copy button but its source has "
        f"{len(expected)} fences ({[b.info for b in expected]}): a fence did not render as code")
    problems = []
    for i, block in enumerate(expected):
        button = buttons.nth(i)
        button.evaluate(REVEAL_JS)
        page.evaluate("navigator.clipboard.writeText('<nothing copied>')")
        button.click()
        copied = page.evaluate("navigator.clipboard.readText()")
        annotated = button.evaluate(
            "b => !!b.closest('.highlight') && !!b.closest('.highlight').querySelector('.md-annotation')")
        want = (strip_annotations(block.text) if annotated else block.text).rstrip()
        if copied != want:
            problems.append(f"block {i + 1} ({block.info}): copied\n{copied!r}\nbut the source is\n{want!r}")
        prompt = PROMPT.get(block.lang)
        if prompt and any(prompt.match(line) for line in copied.splitlines()):
            problems.append(f"block {i + 1} ({block.info}) copies a prompt: a reader pasting it "
                            f"gets an error; drop the prompt or show it as text:\n{copied}")
    assert not problems, "\n\n".join(problems)
    opened.assert_clean(f"page /{page_url} while copying")


# --- Mermaid ------------------------------------------------------------------------------------

OPEN_SHADOW = """{
    // Material renders each diagram into a closed shadow root; open it so the test can look.
    const attach = Element.prototype.attachShadow;
    Element.prototype.attachShadow = function (init) { return attach.call(this, {...init, mode: 'open'}); };
}"""


def test_plan_gantt_renders_as_svg(visit, built_site):
    """plan/ shows its ```mermaid gantt as a drawn SVG diagram (self-hosted Mermaid), not as
    source text."""
    if not (built_site / "plan" / "index.html").is_file():
        pytest.fail("plan/ was not built")
    source = (DOCS / "plan.md").read_text()
    fences = len(re.findall(r"^\s*```+\s*mermaid\b", source, flags=re.M))
    if not fences:
        if "PLACEHOLDER" in source:
            pytest.skip("docs/plan.md is still a placeholder without the Gantt chart")
        pytest.fail("docs/plan.md has no ```mermaid fence: the plan must be a Gantt chart")
    assert re.search(r"^\s*```+\s*mermaid\s*\n(?:\s*%%\{.*\}%%\s*\n)?\s*gantt\b", source, flags=re.M), \
        "docs/plan.md's mermaid fence is not a gantt chart"
    v = visit(init_script=OPEN_SHADOW)
    page = v.open("plan/")
    page.wait_for_function(
        f"document.querySelectorAll('div.mermaid').length >= {fences} && Array.from("
        "document.querySelectorAll('div.mermaid')).every(d => d.shadowRoot && d.shadowRoot.querySelector('svg'))")
    diagrams = page.evaluate("""() => Array.from(document.querySelectorAll('div.mermaid')).map(d => {
        const svg = d.shadowRoot.querySelector('svg');
        const box = svg.getBoundingClientRect();
        return {role: svg.getAttribute('aria-roledescription'), width: box.width, height: box.height,
                tasks: svg.querySelectorAll('rect.task').length};
    })""")
    assert len(diagrams) == fences
    gantt = [d for d in diagrams if d["role"] == "gantt"]
    assert gantt, f"no gantt diagram among {diagrams}"
    for d in gantt:
        assert d["width"] > 100 and d["height"] > 50 and d["tasks"] > 0, d
    assert page.locator("pre.mermaid").count() == 0, "a mermaid fence is still shown as source text"
    assert "dateFormat" not in page.locator(".md-content").inner_text()
    _screenshot(page, "plan-gantt.png")
    v.assert_clean("plan/")


# --- search --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def home(browser, site_url):
    v = Visit(browser, site_url)
    v.open("")
    yield v
    v.close()


@pytest.mark.parametrize("word,page_url", sorted(SEARCH_WORDS.items()))
def test_search_finds_the_page_by_technique_word(home, word, page_url):
    """Typing a technique's API name into the search box lists the page about it."""
    source = page_source(page_url)
    assert source is not None, f"no source for {page_url}"
    if "PLACEHOLDER" in source.read_text():
        pytest.skip(f"{source.relative_to(ROOT)} is still a placeholder")
    page = home.page
    box = page.locator("input.md-search__input")
    box.click()
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    box.fill("")
    page.keyboard.type(word)
    # Wait for the answer to this query, not to a prefix typed on the way: Material adds
    # ?h=<query> to each result link. A query with no answer shows no such link, so the wait
    # ends by timeout and the assertion below says what was listed.
    try:
        page.wait_for_function(
            """q => Array.from(document.querySelectorAll('.md-search-result__list a'))
                        .some(a => new URL(a.href).searchParams.get('h') === q)""",
            arg=word, timeout=15_000)
    except PlaywrightTimeoutError:
        pass
    found = page.evaluate(
        "Array.from(document.querySelectorAll('.md-search-result__list a')).map(a => a.href)")
    pages = {urlsplit(url).path.lstrip("/") for url in found}
    assert page_url in pages, (
        f"searching {word!r} lists {sorted(pages)}, not {page_url}. If the page writes it as "
        f"torch.{word}, the search plugin needs a separator that splits on '.' (mkdocs.yml)")
    home.assert_clean(f"search for {word!r}")


# --- a phone -------------------------------------------------------------------------------------

IN_VIEW_JS = """(el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return false;
    const x = r.left + Math.min(r.width / 2, 20), y = r.top + r.height / 2;
    if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) return false;
    const hit = document.elementFromPoint(x, y);
    return !!hit && (el === hit || el.contains(hit) || hit.contains(el));
}"""


def _nav_titles() -> tuple[list[str], str, list[str]]:
    """Top-level nav titles from mkdocs.yml, and the first section with its page titles."""
    nav = mkdocs_config().nav
    top = [next(iter(item)) for item in nav]
    section = next(item for item in nav if isinstance(next(iter(item.values())), list))
    title = next(iter(section))
    return top, title, [next(iter(child)) for child in section[title]]


def test_mobile_drawer_lists_the_pages(visit, built_site):
    """At 375x740 the navigation is behind the hamburger: it opens a drawer that lists the
    top-level entries, a section opens to its pages, and a page can be reached from it."""
    top, section, children = _nav_titles()
    v = visit(viewport=MOBILE, is_mobile=True, has_touch=True, device_scale_factor=2)
    page = v.open("")
    shots = artifacts_dir()
    page.screenshot(path=str(shots / "mobile-home.png"))
    drawer = page.locator('nav.md-nav--primary')
    hamburger = page.locator('label.md-header__button[for="__drawer"]')
    assert hamburger.is_visible(), "no hamburger button on a phone"
    assert not drawer.locator("a.md-nav__link, label.md-nav__link").first.evaluate(IN_VIEW_JS)
    hamburger.click()
    page.wait_for_timeout(400)  # the drawer slides in (0.25 s transition)
    entries = drawer.locator(":scope > ul > li > .md-nav__link")
    shown = [entries.nth(i).inner_text().strip() for i in range(entries.count())
             if entries.nth(i).evaluate(IN_VIEW_JS)]
    page.screenshot(path=str(shots / "mobile-drawer.png"))
    assert shown == top, f"drawer shows {shown}, nav has {top}"
    drawer.locator(":scope > ul > li > label.md-nav__link", has_text=section).first.click()
    page.wait_for_timeout(400)
    pages = drawer.locator("a.md-nav__link")
    visible = {pages.nth(i).inner_text().strip() for i in range(pages.count())
               if pages.nth(i).evaluate(IN_VIEW_JS)}
    page.screenshot(path=str(shots / "mobile-drawer-section.png"))
    assert set(children) <= visible, f"section {section!r} shows {visible}, expected {children}"
    drawer.locator("a.md-nav__link", has_text=children[0]).first.click()
    page.wait_for_load_state("networkidle")
    assert page.url != v.base, "tapping a page in the drawer did not navigate"
    v.assert_clean("mobile navigation")
