"""Glue between mkdocs-static-i18n and the other plugins and the theme, in the build of each edition.

- i18n replaces the site's files in its on_files, which runs last: mkdocs-jupyter's notebook pages
  are wrapped again, and htmlproofer, which keeps the files it saw to check links against their
  pages, is handed the files the pages belong to.
- Material's JavaScript fetches a sitemap.xml next to every hreflang link in a page's head, taking
  each for an edition's root; i18n's name the page's own counterpart, so each fetch fails (404)
  in every reader's console. The head's hreflang links are dropped: search engines read them in
  sitemap.xml, i18n's, which lists both editions of every page, and the language menu keeps its own.
- The site has one 404 page, at its root (GitHub Pages serves it for any missing address): the
  Chinese edition's build, which writes into the same folder, does not overwrite it.
- The search index is one file for both editions (i18n merges them); a page the Chinese edition
  has not translated is served under /zh/ in English, and its entries would show every English
  result twice: they are dropped.
"""
import json
import os
import re
from pathlib import Path

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
    proofer = config.plugins.get("htmlproofer")
    if proofer is not None:
        proofer.files = list(files)
    return files


HREFLANG_IN_HEAD = re.compile(r'[ \t]*<link rel="alternate" href="[^"]*" hreflang="[\w-]+">\n?')


def on_post_page(output, page, config):
    head, _, body = output.partition("</head>")
    return HREFLANG_IN_HEAD.sub("", head) + "</head>" + body if body else output


def on_post_template(output, template_name, config):  # the 404 page
    return on_post_page(output, None, config)


@event_priority(-110)  # after i18n's on_post_build (-100), which writes the merged index last
def on_post_build(config):
    index = Path(config.site_dir) / "search" / "search_index.json"
    if not index.is_file():
        return
    docs = Path(config.docs_dir)
    search = json.loads(index.read_text())
    search["docs"] = [entry for entry in search["docs"] if not _untranslated(entry["location"], docs)]
    index.write_text(json.dumps(search, ensure_ascii=False, separators=(",", ":")))


def _untranslated(location: str, docs: Path) -> bool:
    """An entry of the Chinese edition whose page has no <page>.zh.md (or .zh.ipynb)."""
    if not location.startswith("zh/"):
        return False
    page = location[3:].split("#")[0].rstrip("/") or "index"
    return not any((docs / f"{page}.zh{suffix}").is_file() for suffix in (".md", ".ipynb"))
