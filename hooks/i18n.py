"""Glue between mkdocs-static-i18n and the other plugins and the theme, in the build of each edition.

- i18n replaces the site's files in its on_files, which runs last: mkdocs-jupyter's notebook pages
  are wrapped again, and htmlproofer, which keeps the files it saw to check links against their
  pages, is handed the files the pages belong to; i18n's sitemap is handed the wrapped notebooks.
- Material's JavaScript fetches a sitemap.xml next to every hreflang link in a page's head, taking
  each for an edition's root; i18n's name the page's own counterpart, so each fetch fails (404)
  in every reader's console. The head's hreflang links are dropped: search engines read them in
  sitemap.xml, i18n's, which lists both editions of every page, and the language menu keeps its own.
- The language menu links to each edition by i18n's absolute address ("/fast-pytorch-cpu/zh/" on
  the home pages): served from another root (`python -m http.server` in site/, a mirror), both are
  404s. On every page they become addresses relative to the page; the 404 page, which is served
  at any address, keeps the absolute ones.
- The site has one 404 page, at its root (GitHub Pages serves it for any missing address): the
  Chinese edition's build, which writes into the same folder, does not overwrite it.
- i18n merges both editions' search entries into one index at the root, which both editions'
  search boxes load: an English search listed every translated page twice, once in Chinese. The
  merged index is split again, the English entries at the root and the Chinese edition's (its
  untranslated pages among them, served in English under /zh/) in zh/search/, and the Chinese
  pages' search loads theirs: Material looks for the index under its "base", which on those pages
  becomes the edition's root, as search results' links are resolved against it too.
"""
import json
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

from mkdocs.plugins import event_priority
from mkdocs_jupyter.plugin import NotebookFile


@event_priority(-110)  # after i18n's on_config (-100) has chosen the edition to build
def on_config(config):
    i18n = config.plugins["i18n"]
    if i18n.current_language == i18n.default_language:
        config.theme.static_templates.add("404.html")
    else:
        config.theme.static_templates.discard("404.html")
    return config


@event_priority(-110)  # after i18n's on_files (-100)
def on_files(files, config):
    jupyter, i18n = config.plugins["mkdocs-jupyter"], config.plugins["i18n"]
    # i18n leaves an untranslated notebook where the English edition puts it: the Chinese edition's
    # copy goes under zh/ as its pages do
    edition = "" if i18n.current_language == i18n.default_language else f"{i18n.current_language}/"
    for file in [f for f in files if jupyter.should_include(f) and not isinstance(f, NotebookFile)]:
        files.remove(file)  # in place: the collection is i18n's own, which knows each file's language
        page = NotebookFile(file, **config)
        if not page.dest_path.startswith(edition):
            page.dest_path, page.url = edition + page.dest_path, edition + page.url
            page.abs_dest_path = os.path.normpath(os.path.join(config.site_dir, page.dest_path))
        files.append(page)
        # i18n's sitemap lists the documentation pages of its own on_files, which a notebook was
        # not yet: the wrapper is added, with the alternates i18n gave the file it wraps (an
        # untranslated notebook is its own alternate in the other edition, at the address there)
        page.alternates = {lang: page if alt is file and lang == i18n.current_language else alt
                           for lang, alt in getattr(file, "alternates", {}).items()}
        i18n.i18n_files_per_language.setdefault(i18n.current_language, []).append(page)
    proofer = config.plugins.get("htmlproofer")
    if proofer is not None:
        proofer.files = list(files)
    return files


@event_priority(-110)  # after i18n's on_page_context (50), which sets the menu's links for the page
def on_page_context(context, page, config, nav):
    base = urlsplit(config.site_url or "").path.rstrip("/") + "/"
    # i18n sets config.extra.alternate as an attribute, which the theme's template reads first
    alternates = getattr(config.extra, "alternate", None) or config.extra.get("alternate") or []
    _ABSOLUTE.clear()
    for alt in alternates:  # relative to the site's root; Material's url filter makes them relative to the page
        if alt["link"].startswith(base):
            _ABSOLUTE.append((alt, alt["link"]))
            alt["link"] = alt["link"][len(base):] or "./"
    return context


_ABSOLUTE: list[tuple[dict, str]] = []  # (menu entry, i18n's link): restored once the page is rendered


HREFLANG_IN_HEAD = re.compile(r'[ \t]*<link rel="alternate" href="[^"]*" hreflang="[\w-]+">\n?')


def on_post_page(output, page, config):
    for alt, link in _ABSOLUTE:  # the 404 page, rendered after the pages, keeps absolute links
        alt["link"] = link
    _ABSOLUTE.clear()
    head, _, body = output.partition("</head>")
    output = HREFLANG_IN_HEAD.sub("", head) + "</head>" + body if body else output
    return _search_in_own_edition(output, page, config)


def on_post_template(output, template_name, config):  # the 404 page
    return on_post_page(output, None, config)


@event_priority(-110)  # after i18n's on_post_build (-100), which writes the merged index last
def on_post_build(config):
    i18n = config.plugins["i18n"]
    index = Path(config.site_dir) / "search" / "search_index.json"
    if i18n.building or not index.is_file():  # an edition's own build, inside i18n's
        return
    merged = json.loads(index.read_text())
    for language in i18n.build_languages:
        prefix = "" if language == i18n.default_language else f"{language}/"
        entries = [entry for entry in merged["docs"] if _edition(entry["location"], i18n) == language]
        for entry in entries:
            entry["location"] = entry["location"].removeprefix(prefix)
        path = Path(config.site_dir) / prefix / "search" / "search_index.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**merged, "docs": entries}, ensure_ascii=False, separators=(",", ":")))


def _edition(location: str, i18n) -> str:
    first = location.split("/", 1)[0]
    return first if first in i18n.build_languages else i18n.default_language


CONFIG_BASE = re.compile(r'(<script id="__config" type="application/json">[^<]*?"base": ")([^"]*)(")')


def _search_in_own_edition(output: str, page, config) -> str:
    """A translated edition's page has that edition's root as its base: its search box loads the
    edition's index."""
    i18n = config.plugins["i18n"]
    edition = _edition(page.url, i18n) if page is not None else i18n.default_language
    if edition == i18n.default_language:
        return output
    return CONFIG_BASE.sub(lambda m: f"{m.group(1)}{m.group(2).rstrip('/')}/{edition}/{m.group(3)}", output, count=1)
