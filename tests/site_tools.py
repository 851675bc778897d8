"""Helpers for the checks of the built site: a local HTTP server, an offline link checker,
and the code blocks a page's source says it shows (what a copy button must copy)."""
from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import threading
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from tests.paths import DOCS, ROOT


def artifacts_dir() -> Path:
    """Where screenshots and the external-link list go (CI uploads it); created on demand."""
    path = Path(os.environ.get("TEST_ARTIFACTS", ROOT / "test-artifacts" / "screenshots"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def announce(config, message: str) -> None:
    """A line on pytest's terminal even when output is captured (e.g. where artifacts went)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(message)
    else:
        print(message)


def site_pages(site: Path) -> list[str]:
    """The URL path of every page of a built site, relative to its root ("" is the home page)."""
    pages = []
    for index in sorted(site.rglob("index.html")):
        rel = index.parent.relative_to(site).as_posix()
        pages.append("" if rel == "." else rel + "/")
    return pages


def published_url(site: Path) -> str:
    """The address the site is built for (site_url): what the home page names as canonical."""
    match = re.search(r'<link rel="canonical" href="([^"]*)"', (site / "index.html").read_text())
    assert match, "the home page has no canonical link: site_url is not set in mkdocs.yml"
    return match.group(1)


# --- a local server -------------------------------------------------------------------------

class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # one line per request would drown pytest's output
        pass


@contextlib.contextmanager
def serve(directory: Path):
    """Serve `directory` on 127.0.0.1 on a free port from a thread; yield the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


# --- links ---------------------------------------------------------------------------------

_LINK_ATTRS = {"a": ("href",), "link": ("href",), "img": ("src",), "script": ("src",),
               "iframe": ("src",), "source": ("src",), "video": ("src",), "audio": ("src",)}
_IGNORED_SCHEMES = ("mailto:", "tel:", "javascript:", "data:", "blob:")


class _PageParser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []  # (tag, url)
        self.assets: list[str] = []               # what the browser loads by itself
        self.inline_urls: list[str] = []          # absolute URLs written inside <script> code
        self._in_script = False

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.inline_urls += re.findall(r"""["'`](https?://[^"'`\s]+)""", data)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script":
            self._in_script = not attrs.get("src")
        if tag in ("script", "img", "iframe", "source", "video", "audio", "embed") and attrs.get("src"):
            self.assets.append(attrs["src"])
        if tag == "link" and attrs.get("href") and set((attrs.get("rel") or "").split()) & {
                "stylesheet", "icon", "preload", "modulepreload", "preconnect", "dns-prefetch",
                "manifest", "prefetch"}:
            self.assets.append(attrs["href"])
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for name in _LINK_ATTRS.get(tag, ()):
            if attrs.get(name):
                self.links.append((tag, attrs[name]))
        if tag in ("img", "source") and attrs.get("srcset"):
            for candidate in attrs["srcset"].split(","):
                if candidate.strip():
                    self.links.append((tag, candidate.split()[0]))


@dataclass
class LinkReport:
    broken: list[str] = field(default_factory=list)      # "page: url (why)"
    external: dict[str, set[str]] = field(default_factory=dict)  # url -> pages
    remote_assets: list[str] = field(default_factory=list)       # "page: url" loaded off-machine
    inline_remote: list[str] = field(default_factory=list)       # "page: url" named in inline JS


SERVED_AT = "http://site.invalid/served/elsewhere/"  # where check_links imagines the site served


def check_links(site: Path) -> LinkReport:
    """Every internal href/src of every HTML file resolves to a file of the built site, and
    every #fragment of a link to a page names an element id there. External URLs are only
    collected, never fetched. 404.html is skipped: it is served at any depth, so its links
    are written relative to the site root rather than to its own location."""
    parsed: dict[Path, _PageParser] = {}

    def parse(path: Path) -> _PageParser:
        if path not in parsed:
            parser = _PageParser()
            parser.feed(path.read_text(encoding="utf-8", errors="replace"))
            parsed[path] = parser
        return parsed[path]

    report = LinkReport()
    # The site as served from a root other than its published path (site_url's, e.g.
    # /fast-pytorch-cpu/): `python -m http.server` in site/, a mirror. A link written from the
    # published root (or any other absolute path on the same host) leaves the site there: broken.
    base = SERVED_AT
    for page in sorted(site.rglob("*.html")):
        rel = page.relative_to(site).as_posix()
        if rel == "404.html":
            continue
        page_url = base + rel
        for raw in parse(page).assets:
            if urlsplit(urljoin(page_url, raw.strip())).scheme in ("http", "https") and \
                    not urljoin(page_url, raw.strip()).startswith(base):
                report.remote_assets.append(f"{rel}: {raw}")
        report.inline_remote += [f"{rel}: {url}" for url in parse(page).inline_urls
                                 if not url.startswith("http://www.w3.org/")]
        for tag, raw in parse(page).links:
            url = raw.strip()
            if not url or url.startswith(_IGNORED_SCHEMES):
                continue
            absolute = urljoin(page_url, url)
            parts = urlsplit(absolute)
            if not absolute.startswith(base):
                if parts.netloc == urlsplit(base).netloc:
                    report.broken.append(f"{rel}: {raw} (leaves the site when it is served from another root)")
                elif parts.scheme in ("http", "https"):
                    report.external.setdefault(absolute, set()).add(rel)
                else:
                    report.broken.append(f"{rel}: {raw} (unknown scheme)")
                continue
            target = site / unquote(parts.path[len(urlsplit(base).path):])
            if target.is_dir() or parts.path.endswith("/"):
                target = target / "index.html"
            if not target.is_file():
                report.broken.append(f"{rel}: {raw} (no file {target.relative_to(site).as_posix()})")
                continue
            # Fragments on images (#only-light) are theme hints, not anchors.
            if parts.fragment and tag == "a" and target.suffix == ".html":
                fragment = unquote(parts.fragment)
                if fragment not in parse(target).ids:
                    report.broken.append(f"{rel}: {raw} (no id '{fragment}' in "
                                         f"{target.relative_to(site).as_posix()})")
    return report


# --- what a page's code blocks contain -----------------------------------------------------

@dataclass
class SourceBlock:
    lang: str      # "python", "text", "console", ... ("" when the fence names none)
    info: str      # the whole info string, e.g. '{.python title="snippets/x.py"}'
    text: str      # the body as the reader should get it, includes expanded


def page_source(page_url: str) -> Path | None:
    """The docs/ file a built page comes from: "threads/" -> docs/threads.md, "zh/threads/" ->
    docs/threads.zh.md, or docs/threads.md where the Chinese edition has no translation yet."""
    stem = page_url.rstrip("/") or "index"
    chinese = stem == "zh" or stem.startswith("zh/")
    stem = (stem[3:] or "index") if chinese else stem
    for suffix in ([".zh.md"] if chinese else []) + [".md", "/index.md", ".ipynb"]:
        candidate = DOCS / f"{stem}{suffix}"
        if candidate.is_file():
            return candidate
    return None


@functools.lru_cache(maxsize=1)
def mkdocs_config():
    """mkdocs.yml as MkDocs reads it (its !ENV and !!python tags resolved)."""
    import logging
    from mkdocs.config import load_config
    logging.getLogger("mkdocs").setLevel(logging.ERROR)
    return load_config(str(ROOT / "mkdocs.yml"))


@functools.lru_cache(maxsize=1)
def _markdown_config():
    config = mkdocs_config()
    extensions = list(config.markdown_extensions)
    configs = {k: dict(v) for k, v in config.mdx_configs.items()}
    configs.setdefault("pymdownx.snippets", {})["base_path"] = [str(ROOT)]
    custom = [f["name"] for f in configs.get("pymdownx.superfences", {}).get("custom_fences", [])]
    return extensions, configs, tuple(custom)


def expand_includes(text: str) -> str:
    """The page's markdown with every `--8<--` include replaced, as pymdownx.snippets does
    it for the build (same extension, same configuration), then tabs expanded as
    Python-Markdown does right after (so a tab in an output file shows as spaces)."""
    import markdown
    extensions, configs, _ = _markdown_config()
    md = markdown.Markdown(extensions=extensions, extension_configs=configs)
    expanded = "\n".join(md.preprocessors["snippet"].run(text.split("\n")))
    return expanded.expandtabs(md.tab_length)


_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")


def fenced_blocks(markdown_text: str) -> list[SourceBlock]:
    """The fenced code blocks of expanded markdown, in order, without custom fences
    (mermaid), which render as diagrams rather than code."""
    _, _, custom = _markdown_config()
    blocks: list[SourceBlock] = []
    lines = markdown_text.split("\n")
    i = 0
    while i < len(lines):
        m = _FENCE_OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m["indent"]), m["fence"], m["info"].strip()
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        body = []
        i += 1
        while i < len(lines) and not closing.match(lines[i]):
            line = lines[i]
            strip = len(line) - len(line.lstrip(" "))
            body.append(line[min(indent, strip):])
            i += 1
        i += 1
        lang = re.sub(r"^\{?\s*\.?", "", info).split()[0].rstrip("}") if info else ""
        if lang in custom:
            continue
        blocks.append(SourceBlock(lang=lang, info=info, text="\n".join(body)))
    return blocks


def expected_code_blocks(page_url: str) -> list[SourceBlock] | None:
    """What each copy button of a page must copy, in page order ({{ pinned("torch") }} and the
    other template functions filled in); None for pages whose source is not markdown (the notebook)."""
    source = page_source(page_url)
    if source is None or source.suffix != ".md":
        return None
    from bench.figures import render  # the figures and pins the site fills in, as the build does
    text = render(source.read_text(encoding="utf-8"), "zh" if source.name.endswith(".zh.md") else "en", page=source.name)
    return fenced_blocks(expand_includes(text))


_ANNOTATION_BANG = re.compile(r"[ \t]*(#|//)[ \t]*\(\d+\)![ \t]*$")
_ANNOTATION = re.compile(r"\((\d+)\)(?=[ \t]*$)")


def strip_annotations(text: str) -> str:
    """Material removes a `# (1)!` comment entirely and only the `(1)` of a `# (1)` comment
    from what it renders and copies."""
    out = []
    for line in text.split("\n"):
        line = _ANNOTATION_BANG.sub("", line)
        if re.search(r"(#|//)[^\n]*\(\d+\)[ \t]*$", line):
            line = _ANNOTATION.sub("", line)
        out.append(line)
    return "\n".join(out)
