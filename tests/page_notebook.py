"""A page of the site as a notebook a reader downloads and runs top to bottom: its prose as
markdown, its excerpts as code blocks to read, and each full program it shows as a cell that
writes the file, followed by a cell that runs it as the page's recorded output says it was run.

The programs keep their `if __name__ == "__main__":` guard and command line: they run in their
own process, as on the page, instead of being pasted into the kernel (whose __name__ is
"__main__" too). Written by tests/test_case_study_notebook.py --update-outputs."""
from __future__ import annotations

import ast
import posixpath
import re
from importlib.metadata import packages_distributions
from pathlib import Path

from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from bench.figures import render
from tests.site_tools import expand_includes, mkdocs_config
from tests.paths import DOCS, ROOT

INCLUDE = re.compile(r'^[ \t]*--8<--[ \t]+"([^"]+)"[ \t]*$')
WHOLE_PROGRAM = re.compile(r"snippets/\w+\.py")
RECORDED_OUTPUT = re.compile(r"docs/outputs/[\w/]+\.txt")
ADMONITION = re.compile(r'^(?:!!!|\?\?\?\+?)[ \t]+\w+(?:[ \t]+"([^"]*)")?[ \t]*$')
FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")
TITLE = re.compile(r'title="([^"]*)"')
RUN_COMMAND = re.compile(r"^(?:Output of )?python (\S+\.py.*?)(?: 的输出)?$")  # English, Chinese
IMAGE_LINE = re.compile(r"^\[?!\[([^\]]*)\]\(([^)]*)\)(?:\]\([^)]*\))?$")
RELATIVE_LINK = re.compile(r"\]\((?!https?://|mailto:)([^)\s]*)\)")


# The notebook's own words, in the page's language (a translation is <page>.zh.md).
WORDS = {
    "en": {
        "intro": "The page [{title}]({url}) of *{site}* as a notebook. The excerpts are for reading; the code "
                 "cells at the end write the full programs to `snippets/` and run them as the page's outputs "
                 "were made, in quick mode: a few minutes on 2 cores. Uncomment the install lines below if this "
                 "kernel lacks the packages.",
        "setup": "# The programs run in their own process, with this kernel's Python.",
        "recorded": "Recorded on the site's machine:",
        "chart": "Chart on the site",
    },
    "zh": {
        "intro": "*{site}* 的页面 [{title}]({url})，做成了 notebook。摘录的代码只供阅读；末尾的代码单元把完整的程序写入 "
                 "`snippets/`，并按页面上输出的录制方式（快速模式）运行它们：在 2 个核心上要几分钟。如果这个内核缺少所需的包，"
                 "请取消下面安装命令的注释。",
        "setup": "# 每个程序都在自己的进程中运行，用的是这个内核的 Python。",
        "recorded": "在本站的机器上录制的输出：",
        "chart": "本站上的图表",
    },
}


def language(page: Path) -> str:
    return "zh" if page.name.endswith(".zh.md") else "en"


def site_name(edition: str) -> str:
    """The site's name in an edition (mkdocs.yml: i18n's languages)."""
    config = mkdocs_config()
    names = {lang.locale: lang.site_name for lang in config.plugins["i18n"].config.languages}
    return names.get(edition) or config.site_name


def page_url(page: Path, edition: str = "en") -> str:
    """The published address of a docs/ page (mkdocs.yml's site_url) in an edition (/zh/)."""
    stem = page.relative_to(DOCS).with_suffix("").as_posix().removesuffix(".zh")
    path = "" if stem == "index" else stem.removesuffix("/index") + "/"
    return mkdocs_config().site_url + ("" if edition == "en" else f"{edition}/") + path


def absolute_links(text: str, page: Path) -> str:
    """Links relative to the page become links to the published site: in a notebook on the
    reader's disk they would point nowhere, and the site's #anchors are not Jupyter's."""
    here = page.relative_to(DOCS).parent.as_posix()

    def published(match: re.Match) -> str:
        target, _, fragment = match.group(1).partition("#")
        if not target:
            url = page_url(page, language(page))
        elif target.endswith(".md"):
            url = page_url(DOCS / posixpath.normpath(posixpath.join(here, target)), language(page))
        else:
            url = mkdocs_config().site_url + posixpath.normpath(posixpath.join(here, target))
        return f"]({url}{'#' + fragment if fragment else ''})"

    return RELATIVE_LINK.sub(published, text)


def flatten_admonitions(lines: list[str]) -> list[str]:
    """`!!! note "Title"` and `??? example "Title"` blocks as their title in bold and their body
    unindented: Jupyter renders neither syntax."""
    out, depth = [], 0
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        if line.strip() and indent < 4 * depth:
            depth = indent // 4
        body = line[4 * depth:]
        header = ADMONITION.match(body)
        if header:
            out.append(f"**{header.group(1)}**\n" if header.group(1) else "")
            depth += 1
        else:
            out.append(body)
    return out


def expand_shown_includes(text: str) -> list[str]:
    """Every include expanded as the build does, except a whole program or a recorded output:
    those become cells that write and run the program."""
    lines = []
    for line in text.split("\n"):
        include = INCLUDE.match(line)
        if include and not (WHOLE_PROGRAM.fullmatch(include.group(1)) or RECORDED_OUTPUT.fullmatch(include.group(1))):
            lines += expand_includes(line).split("\n")
        else:
            lines.append(line)
    return lines


def prose(lines: list[str], page: Path) -> str:
    """Markdown with a link to each of the site's charts instead of the chart: the site shows one
    of a light and a dark copy by its theme, a notebook would show both."""
    out = []
    for line in lines:
        image = IMAGE_LINE.match(line.strip())
        if image and "#only-dark" in image.group(2):
            continue
        chart = image and image.group(2).partition("#")[0]
        out.append(f"*{WORDS[language(page)]['chart']}: [{image.group(1)}]({chart})*" if image else line)
    return absolute_links("\n".join(out), page).strip()


def prose_cells(lines: list[str], page: Path) -> list[NotebookNode]:
    """One markdown cell per section: a cell starts at each heading."""
    starts = [0] + [i for i, line in enumerate(lines) if i and line.startswith("#")] + [len(lines)]
    sections = [prose(lines[start:end], page) for start, end in zip(starts, starts[1:])]
    return [new_markdown_cell(section) for section in sections if section]


def fence_cells(info: str, body: list[str], words: dict) -> list[NotebookNode]:
    """A whole program: a cell that writes it. Its recorded output: a cell that runs it as the
    output's title says, after the recorded output to compare with. Anything else: for reading."""
    include = INCLUDE.match(body[0]) if len(body) == 1 else None
    title = TITLE.search(info)
    if include and WHOLE_PROGRAM.fullmatch(include.group(1)):
        return [new_code_cell(f"%%writefile {include.group(1)}\n" + expand_includes(body[0]))]
    if include and RECORDED_OUTPUT.fullmatch(include.group(1)):
        command = RUN_COMMAND.match(title.group(1)) if title else None
        recorded = f"{words['recorded']}\n\n```text\n{expand_includes(body[0]).rstrip()}\n```"
        run = [new_code_cell(f"!{{sys.executable}} {command.group(1)}")] if command else []
        return [new_markdown_cell(recorded), *run]
    lang = re.sub(r"^\{?\s*\.?", "", info).split()[0].rstrip("}") if info.strip() else ""
    caption = f"*{title.group(1)}*\n\n" if title else ""
    return [new_markdown_cell(caption + f"```{lang}\n" + "\n".join(body) + "\n```")]


def used_modules(program: str) -> set[str]:
    """The top-level modules a program imports, by statement or by name (importlib)."""
    used = set()
    for node in ast.walk(ast.parse(program)):
        if isinstance(node, ast.Import):
            used |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            used.add(node.module.split(".")[0])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            used.add(node.value)
    return used


def required_installs(programs: list[str]) -> list[str]:
    """pip lines for the pinned packages the programs import: PyTorch from its CPU-only wheels, as
    README.md says (about 200 MB, against about 5 GB for PyPI's CUDA build), the rest from PyPI."""
    cpu_wheels = re.search(r"pip install (.+--index-url \S+)", (ROOT / "README.md").read_text()).group(1)
    on_cpu_index = {spec.split("==")[0] for spec in cpu_wheels.split() if "==" in spec}
    used = set().union(*map(used_modules, programs))
    distributions = {distribution.lower() for module, names in packages_distributions().items()
                     if module in used for distribution in names} | used  # scikit-learn is imported as sklearn
    pins = re.findall(r"^(([\w.-]+)==\S+)", (ROOT / "requirements.txt").read_text(), re.M)
    named = [pin for pin, name in pins if name.lower() in distributions and name not in on_cpu_index]
    return [f"%pip install {cpu_wheels}", *([f"%pip install {' '.join(named)}"] if named else [])]


def build(page: Path) -> NotebookNode:
    text = re.sub(r"\A---\n.*?\n---\n", "", page.read_text(encoding="utf-8"), flags=re.S)
    text = render(text, language(page), page=page)  # its figures, as the site shows them
    title = re.search(r"^# (.+)\n", text, re.M)
    lines = flatten_admonitions(expand_shown_includes(text.replace(title.group(0), "", 1)))
    cells, chunk, i = [], [], 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            chunk.append(lines[i])
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith(fence.group(1)))
        cells += prose_cells(chunk, page)
        cells += fence_cells(fence.group(2), lines[i + 1:end], WORDS[language(page)])
        chunk, i = [], end + 1
    cells += prose_cells(chunk, page)
    programs = [cell.source.split("\n", 1)[1] for cell in cells if cell.source.startswith("%%writefile")]
    install = "\n".join("# " + line for line in required_installs(programs))
    words = WORDS[language(page)]
    heading = re.sub(r"[ \t]*\{#[\w-]+\}$", "", title.group(1))  # a translation's explicit anchor
    intro = new_markdown_cell(f"# {heading}\n\n" + words["intro"].format(
        title=heading, url=page_url(page, language(page)), site=site_name(language(page))))
    setup = new_code_cell(f"{install}\nimport os, sys\n\n{words['setup']}\nos.makedirs(\"snippets\", exist_ok=True)")
    nb = new_notebook(cells=[intro, setup, *merge_markdown(cells)])
    for number, cell in enumerate(nb.cells):  # nbformat's ids are random: the file would change on every run
        cell.id = f"cell-{number}"
    nb.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                   "language_info": {"name": "python"}}
    return nb


def merge_markdown(cells: list[NotebookNode]) -> list[NotebookNode]:
    """Prose and the excerpts it introduces in one cell per section: the reader scrolls through a
    section, and stops at code cells."""
    merged = []
    for cell in cells:
        if merged and cell.cell_type == merged[-1].cell_type == "markdown" and not cell.source.startswith("#"):
            merged[-1].source += "\n\n" + cell.source
        else:
            merged.append(cell)
    return merged
