"""A CPU kind no reference has yet: everything that shows the references still works with it.
bench.machine.KINDS is the one list of the kinds measured so far; a reader's machine of another
kind, or a fifth reference, must not need an edit elsewhere to render."""
import copy
import re

import pytest

from bench import render
from bench.compare import WIDTH, column_head, side_by_side
from bench.figures import render as render_page
from bench.machine import KINDS, kind, kind_colors, kind_title
from bench.references import load_all
from tests.paths import DOCS


@pytest.fixture(scope="module")
def five():
    """The references, and a copy of the first as if measured on an Arm server (no AVX2)."""
    references = load_all()
    fifth = copy.deepcopy(references[0])
    fifth["machine"].update(vendor="", cpu_model="Neoverse-V2", arch="aarch64",
                            isa=dict.fromkeys(fifth["machine"]["isa"], False))
    assert kind(fifth["machine"]) not in KINDS
    return [*references, fifth]


def test_every_reference_is_a_listed_kind_in_the_registrys_order():
    """Each committed reference is a kind bench.machine.KINDS lists (its colours, the claims'
    names), and load_all() gives them in KINDS' order: the columns' order, AVX2 up to AMX."""
    kinds = [kind(r["machine"]) for r in load_all()]
    assert not set(kinds) - set(KINDS), f"references of kinds bench.machine.KINDS does not list: {set(kinds) - set(KINDS)}"
    assert kinds == [k for k in KINDS if k in kinds], f"load_all() gives {kinds}, KINDS lists {list(KINDS)}"


def test_a_new_kind_gets_a_colour_of_its_own():
    for theme in render.THEMES:
        colors = kind_colors([*KINDS, "arm-baseline", "x86_64-baseline"], theme)
        assert len(set(colors)) == len(colors), colors


def same_figure(svg: str) -> str:
    """The SVG with its ids numbered in order of appearance: matplotlib names a marker or a hatch
    after a hash of its style, colours included, so the same figure in other colours has other ids."""
    ids = {name: f"id{n}" for n, name in enumerate(dict.fromkeys(re.findall(r'id="([^"]+)"', svg)))}
    return re.sub(r'(?<=id=")[^"]+|(?<=#)[A-Za-z][\w-]*', lambda m: ids.get(m.group(0), m.group(0)), svg)


def test_a_plot_recoloured_is_the_plot_drawn_in_that_theme(five, tmp_path):
    """render.render draws each plot in the first theme and recolours it for the others: the same
    SVG as drawing it in the theme, for bars of the spare colours (the fifth kind), the steps'
    gains, losses and hollow side rows (training's waterfall) and the text and grid. (The language
    changes the words, not the colours.)"""
    group = next(g for g in render.waterfall_groups(five) if g.startswith("Training"))
    for name, draw in (("plot", lambda theme, svg: render.plot(five, "bfloat16", theme, svg)),
                       ("waterfall", lambda theme, svg: render.waterfall(five, group, theme, svg))):
        written = render.themed(draw, lambda theme: tmp_path / f"{name}-{theme}.svg")
        for theme, recoloured in list(zip(render.THEMES, written))[1:]:
            draw(theme, tmp_path / "drawn.svg")
            assert same_figure(recoloured.read_text()) == same_figure((tmp_path / "drawn.svg").read_text()), name


@pytest.mark.slow  # every results page and plot rendered again, as test_bench's staleness test renders them
def test_a_fifth_kind_renders_every_table_and_plot(five, tmp_path):
    """Every technique's table has the fifth kind's column, in both languages, beside its plots."""
    written = render.render(five, tmp_path)
    title = kind_title(five[-1]["machine"])
    assert written and all(p.stat().st_size for p in written)
    techniques = {row["technique"] for row in five[-1]["results"]}
    for folder in (tmp_path, tmp_path / "zh"):
        for technique in techniques:
            assert title in (folder / f"{technique}.md").read_text(), (folder, technique)
            assert all((folder / f"{technique}-{theme}.svg").is_file() for theme in render.THEMES)
        assert title in (folder / "machine.md").read_text()


def test_a_fifth_kind_fits_the_side_by_side_view(five):
    for mine in (None, five[-1]):
        text = side_by_side(mine, five)
        wide = [line for line in text.splitlines() if len(line) > WIDTH]
        assert not wide, wide[:3]
        assert all(re.search(column_head(kind(r["machine"])), text) for r in five)


@pytest.mark.parametrize("page", sorted(p.name for p in DOCS.glob("*.md")))
def test_every_page_renders_with_a_fifth_kind(five, page):
    """The pages' figures (tables across kinds, conclusions per kind) take the fifth kind in."""
    lang = "zh" if page.endswith(".zh.md") else "en"
    assert render_page((DOCS / page).read_text(), lang, five, page)


@pytest.mark.slow  # the notebook's plot per technique drawn again, 6 s
def test_the_your_machine_notebook_plots_a_fifth_kind_beside_a_readers_run(five, monkeypatch, tmp_path):
    """The Your machine notebook's code, run with a fifth reference and a reader's run: a plot per
    technique, each with a bar of its own colour for the reader and for every reference (the
    registry's colour for each kind, a spare one for the fifth)."""
    import json

    import matplotlib
    import matplotlib.pyplot as plt
    import nbformat

    from bench.cases import techniques

    matplotlib.use("Agg")
    mine = tmp_path / "bench-results.json"
    mine.write_text(json.dumps(five[0]))
    monkeypatch.setenv("BENCH_RESULTS", str(mine))
    monkeypatch.setattr("bench.references.load_all", lambda: five)
    monkeypatch.chdir(DOCS)  # the notebook finds the repository upwards from where it runs
    shown = []

    def show():
        for number in plt.get_fignums():
            bars = plt.figure(number).axes[0].containers
            shown.append([bar.patches[0].get_facecolor() for bar in bars])
        plt.close("all")

    monkeypatch.setattr(plt, "show", show)
    namespace = {}
    cells = [c.source for c in nbformat.read(DOCS / "your-machine.ipynb", as_version=4).cells if c.cell_type == "code"]
    for source in cells:
        exec(compile(source, "your-machine.ipynb", "exec"), namespace)  # noqa: S102 - the notebook's own code
    # one plot per technique the reader's run measured (a reference's copy: amd-avx2, which predates one)
    assert len(shown) == len(set(techniques()) & {row["technique"] for row in five[0]["results"]}), "one plot per technique"
    for colours in shown:
        assert len(colours) == 1 + len(five) and len(set(colours)) == len(colours), colours
