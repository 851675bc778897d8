"""The figures in the pages' prose come from the references (bench/figures.py): every template
renders on the committed references, and every figure changes when the row it names changes."""
from __future__ import annotations

import copy
import re
import zlib

import pytest

from bench import noise
from bench.figures import PAGE_TABLES, Figures, environment, page_stem, page_table, render, typed_figures
from bench.machine import kind, kind_title
from bench.references import load_all, load_releases, load_upgrades, pins
from tests.releases import OLDEST
from tests.paths import DOCS

PAGES = sorted(p.name for p in DOCS.glob("*.md"))
TEMPLATE = re.compile(r"\{\{.*?\}\}", re.S)


def _lang(page: str) -> str:
    return "zh" if page.endswith(".zh.md") else "en"


def _scaled(references: list[dict], factor: float, salt: str = "") -> list[dict]:
    """The references with every measured value (ratio, median, numeric param) scaled, each row by
    its own power of factor, so that a comparison of two rows (between) changes too. Two rows can
    draw the same power: another salt gives them others."""
    out = copy.deepcopy(references)
    for ref in out:
        ref["seconds"] *= factor
        for part in [*ref.get("measured_separately", {}).values(), *ref.get("recordings", [])]:
            part["seconds"] *= factor
        for part, seconds in ref.get("technique_seconds", {}).items():
            ref["technique_seconds"][part] = seconds * factor
        later = [(f"{index}", row) for index, rec in enumerate(ref.get("recordings", [])) for row in rec["results"]]
        for extra, row in [("", row) for row in ref["results"]] + later:
            factor_ = factor ** (1 + zlib.crc32((salt + extra + row["id"]).encode()) % 5)
            for key in ("ratio", "median"):
                if row.get(key):
                    row[key] *= factor_
            for key, value in row["params"].items():
                if isinstance(value, float) and key not in ("step",):
                    row["params"][key] = value * factor_
    return out


@pytest.mark.parametrize("page", PAGES)
def test_every_figure_renders(page):
    """A template naming a kind or row no reference has stops the build; so it fails here."""
    render((DOCS / page).read_text(), _lang(page), page=page)


NAMED = re.compile(r"\{\{\s*fig\.([a-z][a-z0-9_]*)\s*\}\}")


def _names(page: str) -> set[str]:
    return set(NAMED.findall((DOCS / page).read_text()))


@pytest.mark.parametrize("page", PAGES)
def test_a_page_types_no_figure_only_names_one(page):
    """Every template on a page is {{ fig.<name> }}: the call behind it is typed once, in
    bench/pages/<page>.yml, for both editions, and not again in either."""
    typed = [t for t in TEMPLATE.findall((DOCS / page).read_text()) if not NAMED.fullmatch(t)]
    assert not typed, f"{page}: name these in bench/pages/{page_stem(page)}.yml and write {{{{ fig.<name> }}}}: {typed[:3]}"


@pytest.mark.parametrize("stem", sorted({page_stem(p) for p in PAGES}))
def test_both_editions_show_each_named_figure(stem):
    """A page's table names exactly the figures its English and its Chinese edition show: one
    shown in one edition only, or named and shown nowhere, fails (a translation changes prose only)."""
    table = set(page_table(f"{stem}.md"))
    editions = [p for p in (f"{stem}.md", f"{stem}.zh.md") if (DOCS / p).is_file()]
    for page in editions:
        assert _names(page) <= table, f"{page} shows figures bench/pages/{stem}.yml does not name: {sorted(_names(page) - table)}"
        assert table <= _names(page), f"{page} does not show {sorted(table - _names(page))} (bench/pages/{stem}.yml)"


def test_every_page_table_is_a_pages_and_names_each_call_once():
    """bench/pages/<page>.yml belongs to docs/<page>.md, and no call has two names there."""
    for path in sorted(PAGE_TABLES.glob("*.yml")):
        assert (DOCS / f"{path.stem}.md").is_file(), f"{path.name}: no page docs/{path.stem}.md"
        calls = [" ".join(call.split()) for call in page_table(path.name).values()]
        twice = {c for c in calls if calls.count(c) > 1}
        assert not twice, f"{path.name} names one call twice: {sorted(twice)}"


def test_a_missing_name_stops_the_build():
    """A page that shows a figure its table does not name fails to render, with the table's path."""
    with pytest.raises(Exception, match="bench/pages/threads.yml"):
        render("{{ fig.no_such_figure }}", "en", page="threads.md")


def _flipped(records: list[dict]) -> list[dict]:
    """The torch-release records with every outcome turned over (passed <-> failed)."""
    out = copy.deepcopy(records)
    for record in out:
        for result in record["tests"].values():
            result["outcome"] = {"passed": "failed", "failed": "passed"}.get(result["outcome"], result["outcome"])
            result["message"] = result.get("message") or "AssertionError"
    return out


def _scaled_upgrades(upgrades: dict[str, dict], factor: float) -> dict[str, dict]:
    """The upgrade comparisons with every row's factor scaled, each by its own power of factor (the
    other release's median moved to match), so that a span or a probe's cost changes too."""
    out = copy.deepcopy(upgrades)
    for data in out.values():
        for row in data["results"]:
            factor_ = factor ** (1 + zlib.crc32(row["id"].encode()) % 5)
            if row["faster"]:
                row["faster"] *= factor_
                row[row["release"]] *= factor_ if row["higher_is_better"] else 1 / factor_
    return out


# Template functions over the upgrade comparisons (bench/releases.py), not the references
UPGRADE_FUNCTIONS = re.compile(r"^\s*upgrade_summary\(")
# Template functions over the torch-release records (tests/releases.py), not the references
RELEASE_FUNCTIONS = re.compile(r"^\s*(release_check|holds_on|releases_table)\(")
PINNED = re.compile(r'^\s*pinned\("([\w-]+)"\)\s*$')
# The verdict rule's constants (bench/noise.py), which are settings, not measurements
RULE = re.compile(r'^\s*noise\("(\w+)"\)\s*$')
# Template functions over what a reference says of its rows' machines ("elsewhere"), not their values
PROVENANCE = re.compile(r"^\s*elsewhere_rows\(")


def _fewer_elsewhere(references: list[dict]) -> list[dict]:
    """The references with the "elsewhere" entries of each one's first technique in it dropped."""
    out = copy.deepcopy(references)
    for reference in out:
        where = reference.get("elsewhere", {})
        first = next(iter(where), "").split("/")[0]
        reference["elsewhere"] = {k: v for k, v in where.items() if k.split("/")[0] != first}
    return out


@pytest.mark.parametrize("page", [p for p in PAGES if TEMPLATE.search((DOCS / p).read_text())])
def test_every_figure_follows_its_reference(page):
    """Change the references and every figure on the page changes with them: none is a constant;
    a statement about torch releases changes with the records of what make test-torch found, and
    a pinned version is requirements.txt's."""
    references, records = load_all(), load_releases()
    now = environment(Figures(references, _lang(page)))
    changed = environment(Figures(_scaled(references, 1.37), _lang(page)))
    resalted = [environment(Figures(_scaled(references, 1.37, salt=salt), _lang(page))) for salt in ("b", "c", "d")]
    turned = environment(Figures(references, _lang(page), releases=_flipped(records)))
    upgraded = environment(Figures(references, _lang(page), upgrades=_scaled_upgrades(load_upgrades(), 1.37)))
    shown = [t for t in TEMPLATE.findall((DOCS / page).read_text()) if not NAMED.fullmatch(t)]
    named = ["{{ " + call + " }}" for name, call in page_table(page).items() if name in _names(page)]
    for expression in shown + named:
        inner = expression.strip("{} \n")
        if PINNED.match(inner):
            assert now.from_string(expression).render() == pins()[PINNED.match(inner).group(1)]
            continue
        if RULE.match(inner):
            constant = {"even": noise.EVEN, "one_sample": noise.ONE_SAMPLE}[RULE.match(inner).group(1)]
            assert now.from_string(expression).render() == f"{constant * 100:.0f}%"
            continue
        if PROVENANCE.match(inner):
            fewer = environment(Figures(_fewer_elsewhere(references), _lang(page)))
            assert now.from_string(expression).render() != fewer.from_string(expression).render(), \
                f"{page}: {expression} does not follow the references' elsewhere"
            continue
        if UPGRADE_FUNCTIONS.match(inner):
            before, after = now.from_string(expression).render(), upgraded.from_string(expression).render()
            assert before != after, f"{page}: {expression} does not follow the upgrade comparisons"
            continue
        if RELEASE_FUNCTIONS.match(inner):
            before, after = now.from_string(expression).render(), turned.from_string(expression).render()
            assert before != after, f"{page}: {expression} does not follow the torch-release records"
            continue
        before = now.from_string(expression).render()
        after = {env.from_string(expression).render() for env in (changed, *resalted)}
        assert after != {before}, f"{page}: {expression} does not follow the references (renders {before!r} either way)"


def test_one_changed_value_changes_the_page_that_quotes_it():
    """Home quotes the bf16 verdicts: one reference's bf16 ratio changed, Home's text changes."""
    references = load_all()
    text = (DOCS / "index.md").read_text()
    edited = copy.deepcopy(references)
    row = next(r for r in edited[0]["results"] if r["id"].startswith("bfloat16/mlp-inference-") and r["id"].endswith("/bf16-autocast"))
    row["ratio"] = 3.21
    assert "3.21×" in render(text, "en", edited, "index.md") and "3.21×" not in render(text, "en", references, "index.md")


def test_typed_figures_are_counted():
    """typed_figures finds a figure typed into prose and ignores one drawn from a template or in code."""
    assert typed_figures("ran 1.5 times faster, 2.3× and 83%") == ["1.5 times", "2.3×", "83%"]
    assert typed_figures('{{ ratio("a", "b") }} and `3×` in code, 224×224 images, 2 × 1 processes') == []


# What typed_figures still finds in prose: thresholds (5%, 10%, 1×, 1.00×), a percentage's definition
# (100 %), bytes per value (4×), how a ratio rounds (0.00×): none is a measurement. A new one is a
# measured figure typed by hand until shown otherwise: draw it from the references instead.
TYPED_AT_MOST = {"en": 10, "zh": 11}


@pytest.mark.parametrize("lang", TYPED_AT_MOST)
def test_no_more_figures_typed_into_prose(lang):
    pages = [p for p in PAGES if _lang(p) == lang]
    found = {p: typed_figures((DOCS / p).read_text()) for p in pages}
    total = sum(len(f) for f in found.values())
    assert total <= TYPED_AT_MOST[lang], (
        f"{total} figures typed into the {lang} prose (at most {TYPED_AT_MOST[lang]}): "
        f"{ {p: f for p, f in found.items() if f} }")



def _with_factors(upgrades: dict[str, dict], faster: float, fp16_on_2_14: float = 1.0) -> dict[str, dict]:
    """The comparisons with every timed row's factor set to `faster`, and the probe's fp16 matmul on
    the 2.14 release made fp16_on_2_14 times slower."""
    out = copy.deepcopy(upgrades)
    for data in out.values():
        for row in data["results"]:
            if row["technique"] == "pytorch-193951":
                if row["label"] == "fp16":
                    row[data["pinned"]] *= fp16_on_2_14
            elif row["faster"]:
                row["faster"] = faster
    return out


@pytest.mark.parametrize("faster, said", [(1.2, "faster than torch"), (0.8, "slower than torch"),
                                          (1.02, "as fast as torch")])
def test_the_upgrade_verdict_follows_the_rows(faster, said):
    upgrades = load_upgrades()
    assert upgrades, "no upgrade comparison: run make bench-torch TORCH=2.15.0"
    text = Figures(upgrades=_with_factors(upgrades, faster)).upgrade_summary()
    assert said in text, text


def test_the_probe_says_whether_the_2_14_slow_down_shows():
    upgrades = load_upgrades()
    figures, slowed = Figures(upgrades=upgrades), Figures(upgrades=_with_factors(upgrades, 1.0, fp16_on_2_14=1000))
    for kind_ in upgrades:
        before = figures.fp16_cost(kind_, pins()["torch"]) / figures.fp16_cost(kind_, OLDEST)
        shows = "the 2.14 slow-down shows on this machine" in figures.upgrade_probe(kind_)
        assert shows == (before >= 10 or figures.fp16_kernel(kind_, pins()["torch"]) == "ref:any")
        assert "the 2.14 slow-down shows on this machine" in slowed.upgrade_probe(kind_)


def _later_row(references: list[dict]) -> tuple[dict, dict, dict]:
    """(reference, its first recording's row, the same row in its last later recording): a ratio row
    with a numeric param, measured in both."""
    for ref in references:
        for rec in reversed(ref.get("recordings", [])):
            first = {r["id"]: r for r in ref["results"] if "from_recording" not in r}
            for row in rec["results"]:
                own = first.get(row["id"])
                if own and own.get("ratio") and row.get("ratio") and not row["baseline"] and any(
                        isinstance(v, float) for v in row["params"].values()):
                    return ref, own, row
    pytest.skip("no reference has a row recorded again")


def test_a_span_takes_every_recording_of_a_kind():
    """ratio_span, param_span and param_max read each row in every recording of its kind, as a verdict
    table's range does (Figures.cell): a later recording's value can be an end of the range."""
    references = copy.deepcopy(load_all())
    ref, first, later = _later_row(references)
    key = next(k for k, v in later["params"].items() if isinstance(v, float))
    later["ratio"], later["params"][key] = 0.0123, 98765.0
    figures = Figures(references)
    assert figures.ratio_span(later["id"]).startswith("0.01")
    assert figures.param_span(later["id"], key).endswith("98765")
    assert figures.param_max(later["id"], key) == "98765"
    assert figures.ratio(kind(ref["machine"]), later["id"]) == f"{first['ratio']:.2f}×"  # one row: the first recording's


def test_the_headline_marks_a_column_once_only_over_the_rows_it_shows():
    """Home's headline marks a kind "(one recording)" by the rows its column shows: not by a row it
    leaves out (taken on another machine of the kind: "elsewhere"), nor by a technique it has no row
    for. Without its later recordings, every row is recorded once and the mark is back."""
    references = load_all()
    figures = Figures(references)
    head = figures.headline().splitlines()[0]
    for kind_, ref in figures.references.items():
        title = re.escape(kind_title(ref["machine"]))
        marked = bool(re.search(title + r" <small>\(one recording\)</small>", head))
        if not ref.get("recordings"):
            assert marked, f"{kind_} has one recording and its column is not marked"
            continue
        once_elsewhere = [i for i in ref.get("elsewhere", {}) if sum(i in rec for rec in figures.recordings[kind_]) < 2]
        if once_elsewhere:  # the row left out must not mark the column it is left out of
            assert not marked, f"{kind_}'s column is marked by rows it does not show ({once_elsewhere[:2]})"
        alone = copy.deepcopy(references)
        for r in alone:
            if kind(r["machine"]) == kind_:
                r.pop("recordings")
                r["results"] = [row for row in r["results"] if "from_recording" not in row]
        assert re.search(title + r" <small>\(one recording\)</small>", Figures(alone).headline().splitlines()[0])


def test_the_drift_table_counts_rows_and_comparisons_apart():
    """The drift table's row count is of distinct rows (in the first recording and a later one), and
    its comparisons count each such row once per later recording of it."""
    figures = Figures(load_all())
    table = figures.drift_table()
    for kind_, recs in figures.recordings.items():
        first, *later = recs
        pairs = [row_id for rows in later for row_id, row in rows.items() if row_id in first
                 and first[row_id].get("ratio") and row.get("ratio") and not row["baseline"]]
        line = next(l for l in table.splitlines() if l.startswith(f"| {kind_title(figures.references[kind_]['machine'])} |"))
        assert f"| {len(set(pairs))} | {len(pairs)} |" in line, line
