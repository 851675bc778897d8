"""mkdocs-macros' module: the pages' {{ … }} figures and verdicts, drawn from the references
(bench/figures.py, which the claims tests render with too)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, beside mkdocs.yml

from bench.figures import Figures  # noqa: E402


def define_env(env) -> None:
    editions = {lang: Figures(lang=lang) for lang in ("en", "zh")}

    def source() -> str:
        page = env.variables.get("page")
        return page.file.src_uri if page is not None else ""

    def edition() -> Figures:
        """The page's language: a translation is <page>.zh.md (mkdocs-static-i18n's suffix layout)."""
        return editions["zh" if ".zh." in source() or source().startswith("zh/") else "en"]

    for name in editions["en"].functions():
        env.macro(lambda *args, _name=name, **kwargs: getattr(edition(), _name)(*args, **kwargs), name)

    class PageFigures:
        """fig.<name>: the figure bench/pages/<page>.yml names, for the page being rendered."""

        def __getattr__(self, name: str) -> str:
            if name.startswith("_"):
                raise AttributeError(name)
            return getattr(edition().named(source()), name)

    env.variables["fig"] = PageFigures()
