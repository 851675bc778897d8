"""The figures the pages' prose quotes, drawn from the committed references when the site is built,
and the verdicts per CPU kind that the pages and Home's headline table show.

A page writes a measured figure as a template expression over a row of a reference instead of
typing it (mkdocs-macros renders them: hooks/macros.py; the claims tests render the same way):

    bf16 autocast ran at {{ ratio("amd-avx512-bf16", "bfloat16/mlp-inference-1-thread/bf16-autocast") }}

and a technique's verdict on every kind as {{ verdicts("bfloat16") }}. A page does not type these
calls itself: each figure its two editions show is named once in bench/pages/<page>.yml (one table the
English page, the Chinese page and the claims read), and the page writes {{ fig.<name> }}:

    # bench/pages/bfloat16.yml
    zen_mlp_autocast: ratio("amd-avx512-bf16", "bfloat16/mlp-inference-1-thread/bf16-autocast")

    bf16 autocast ran at {{ fig.zen_mlp_autocast }}

A technique's recommended
variants (RECOMMENDED in its bench/cases module: row-id patterns per regime) are what a verdict
and the headline count: every group that measures them, one thread and all cores alike.
"""
from __future__ import annotations

import fnmatch
import re
import statistics
from pathlib import Path

import jinja2
import yaml

from bench.cases import pages, recommended, techniques, when
from bench.compare import by_id, fmt_ratio, fmt_value
from bench.machine import kind, kind_order, kind_title
from bench.noise import EVEN, ONE_SAMPLE, across, combined, outcome
from bench.references import PROBE, load_all, load_releases, load_upgrades, pins, recording_machines, recordings, release_key, timed_rows, under
from bench.words import say, zh_names

OUTCOMES = {"en": {"paid": "paid", "lost": "lost", "even": "even", "mixed": "mixed"},
            "zh": {"paid": "更快", "lost": "更慢", "even": "持平", "mixed": "有快有慢"}}
# Jinja's markers as the site uses them: {{ … }} only; {# is a heading's anchor ({#what-to-do}), not a comment.
JINJA = {"variable_start_string": "{{", "variable_end_string": "}}",
         "block_start_string": "{%", "block_end_string": "%}",
         "comment_start_string": "{#!", "comment_end_string": "!#}"}
# Fractions and multiples prose says in words when a value is within 5% of one.
SAID = {"en": [(1 / 5, "a fifth"), (1 / 4, "a quarter"), (1 / 3, "a third"), (1 / 2, "half"), (2 / 3, "two thirds"),
               (3 / 4, "three quarters"), (1.5, "one and a half times"), (2, "twice"), (3, "three times"),
               (4, "four times"), (5, "five times"), (10, "ten times")],
        "zh": [(1 / 5, "五分之一"), (1 / 4, "四分之一"), (1 / 3, "三分之一"), (1 / 2, "一半"), (2 / 3, "三分之二"),
               (3 / 4, "四分之三"), (1.5, "1.5 倍"), (2, "两倍"), (3, "三倍"), (4, "四倍"), (5, "五倍"), (10, "十倍")]}


# Batching changes nothing for one request at a time: its batch-1 row repeats step 2 and shows the
# eager steps' noise, not a step.
NOT_IN_LATENCY = {"3-batching"}


class FigureError(KeyError):
    """A template names a kind or row that no reference has: the build stops with this message."""

    def __str__(self) -> str:
        return self.args[0]


# The figures of each page, named once for both editions: bench/pages/<page>.yml ({name: expression})
PAGE_TABLES = Path(__file__).resolve().with_name("pages")
FIGURE_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def page_stem(page: str) -> str:
    """The page a file is an edition of: threads.md and threads.zh.md are both "threads"."""
    name = Path(page).name
    for suffix in (".zh.md", ".md", ".ipynb"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def page_table(page: str) -> dict[str, str]:
    """A page's named figures (bench/pages/<page>.yml): name -> template expression; {} for a page
    with none."""
    path = PAGE_TABLES / f"{page_stem(page)}.yml"
    if not path.is_file():
        return {}
    table = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    bad = [name for name, expression in table.items()
           if not FIGURE_NAME.match(str(name)) or not isinstance(expression, str)]
    if bad:
        raise FigureError(f"{path.name}: each entry is a lower-case name and a template expression; not {bad}")
    return table


class Named:
    """A page's named figures as its template reads them: {{ fig.<name> }} renders the expression
    bench/pages/<page>.yml gives that name, in the page's language."""

    def __init__(self, figures: "Figures", page: str | None):
        self._figures, self._page = figures, page
        self._table = page_table(page) if page else {}
        self._rendered: dict[str, str] = {}

    def __getattr__(self, name: str) -> str:
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self._table:
            where = f"bench/pages/{page_stem(self._page)}.yml" if self._page else "a page table (render() was given no page)"
            raise FigureError(f"{self._page}: no figure {name!r} in {where}")
        if name not in self._rendered:
            self._rendered[name] = self._figures.environment().from_string("{{ " + self._table[name] + " }}").render()
        return self._rendered[name]


def coarse_ratio(ratio: float) -> str:
    """A factor of ten or more without decimals (205×), a smaller one as fmt_ratio writes it."""
    return f"{ratio:.0f}×" if ratio >= 10 else fmt_ratio(ratio)


class Figures:
    """The references as the pages quote them, in one language ("en" or "zh")."""

    def __init__(self, references: list[dict] | None = None, lang: str = "en", releases: list[dict] | None = None,
                 upgrades: dict[str, dict] | None = None):
        self.releases = load_releases() if releases is None else releases
        self.upgrades = load_upgrades() if upgrades is None else upgrades
        references = sorted(load_all() if references is None else references, key=lambda r: kind_order(r["machine"]))
        self.references = {kind(r["machine"]): r for r in references}
        self.rows = {k: by_id(r) for k, r in self.references.items()}
        self.recordings = {k: recordings(r) for k, r in self.references.items()}
        self.lang = lang
        self._environment: jinja2.Environment | None = None
        self._named: dict[str, Named] = {}

    def environment(self) -> jinja2.Environment:
        """The template environment of these figures (one per Figures)."""
        if self._environment is None:
            self._environment = environment(self)
        return self._environment

    def named(self, page: str) -> Named:
        """The page's named figures, fig in its template."""
        if page_stem(page) not in self._named:
            self._named[page_stem(page)] = Named(self, page)
        return self._named[page_stem(page)]

    # --- one figure ---------------------------------------------------------------------------
    def row(self, kind_: str, row_id: str) -> dict:
        if kind_ not in self.rows:
            raise FigureError(f"no reference of kind {kind_!r} (have {', '.join(self.rows)})")
        if row_id not in self.rows[kind_]:
            raise FigureError(f"the {kind_} reference has no row {row_id!r}")
        return self.rows[kind_][row_id]

    def ratio(self, kind_: str, row_id: str, digits: int = 2) -> str:
        """The row's ratio over its group's baseline: '1.49×'."""
        return f"{self.row(kind_, row_id)['ratio']:.{digits}f}×"

    def times(self, kind_: str, row_id: str) -> str:
        """The ratio as prose says it: 'twice', 'about a third', '3.7 times' (zh: '3.7 倍')."""
        return self.said(self.row(kind_, row_id)["ratio"])

    def between(self, kind_: str, row_id: str, other_id: str, digits: int = 2) -> str:
        """How many times better row_id is than other_id (same unit, any groups): '1.21×'."""
        return f"{self._between(kind_, row_id, other_id):.{digits}f}×"

    def _between(self, kind_: str, row_id: str, other_id: str) -> float:
        row, other = self.row(kind_, row_id), self.row(kind_, other_id)
        if row["unit"] != other["unit"]:
            raise FigureError(f"{row_id} and {other_id} are in different units")
        return row["median"] / other["median"] if row["higher_is_better"] else other["median"] / row["median"]

    def value(self, kind_: str, row_id: str) -> str:
        """The row's median with its unit: '1.4 s', '12.3 samples/s'."""
        row = self.row(kind_, row_id)
        return fmt_value(row["median"], row["unit"]).replace("samples/s", "images/s" if "resnet" in row_id else "samples/s")

    def value_span(self, kind_: str, row_id: str) -> str:
        """The row's median over every recording of the kind that has it, lowest to highest, with its
        unit: '40.1–65.0 GB/s' (one value where they print the same)."""
        self.row(kind_, row_id)
        rows = sorted((rec[row_id] for rec in self.recordings[kind_] if row_id in rec), key=lambda r: r["median"])
        low, high = (fmt_value(r["median"], r["unit"]) for r in (rows[0], rows[-1]))
        unit = rows[0]["unit"]
        return low if low == high else f"{low.removesuffix(' ' + unit)}–{high}"

    def param(self, kind_: str, row_id: str, key: str, fmt: str = "{:.0f}", beside: str | None = None) -> str:
        """A value the row carries in params (compile_s, share_of_peak, gflops …), formatted. With
        beside (a row id of a group a later recording added): the value of the run that recorded
        that row, where the reference's own row is another run's (another machine's)."""
        params = (self.row(kind_, row_id) if beside is None else self._same_run(kind_, row_id, beside))["params"]
        if params.get(key) is None:
            raise FigureError(f"the {kind_} row {row_id!r} has no {key}")
        return fmt.format(params[key])

    def _same_run(self, kind_: str, row_id: str, beside: str) -> dict:
        """row_id as recorded in the run the reference's row of beside comes from (first_run), not
        the reference's own row of row_id."""
        self.row(kind_, beside)
        rows, _machine = self.first_run(kind_, beside)
        if row_id not in rows:
            raise FigureError(f"the {kind_} run that recorded {beside!r} has no row {row_id!r}")
        return rows[row_id]

    def part_minutes(self, kind_: str, technique: str) -> str:
        """How long one technique's part of the kind's reference took, in whole minutes: from the
        run's per-technique times, or from the run that recorded that part alone
        (measured_separately); never the whole run's time, which later parts replaced."""
        if kind_ not in self.references:
            raise FigureError(f"no reference of kind {kind_!r}")
        reference = self.references[kind_]
        seconds = reference.get("technique_seconds", {}).get(technique) \
            or reference.get("measured_separately", {}).get(technique, {}).get("seconds")
        if not seconds:
            raise FigureError(f"the {kind_} reference does not say how long {technique} took")
        return f"{seconds / 60:.0f}"

    def _across(self, patterns: str | list[str]) -> list[tuple[str, dict]]:
        patterns = [patterns] if isinstance(patterns, str) else patterns
        found = [(k, row) for k in self.rows for row_id, row in self.rows[k].items()
                 if any(fnmatch.fnmatchcase(row_id, p) for p in patterns)]
        if not found:
            raise FigureError(f"no reference has a row matching {patterns}")
        return found

    def _recorded(self, patterns: str | list[str]) -> list[tuple[str, dict]]:
        """(kind, row) for the matching rows in every recording of every kind that has them: a
        span takes each row as every recording measured it, as a verdict table's range does
        (cell, recorded_ratios), not the first recording only."""
        self._across(patterns)  # no kind has a matching row: stop the build
        patterns = [patterns] if isinstance(patterns, str) else patterns
        return [(k, row) for k in self.recordings for rows in self.recordings[k] for row_id, row in rows.items()
                if any(fnmatch.fnmatchcase(row_id, p) for p in patterns)]

    def ratio_span(self, patterns: str | list[str], digits: int = 2) -> str:
        """The range of the matching rows' ratios over every kind that measured them, in every
        recording of each kind: '1.52–2.00×'."""
        values = sorted(row["ratio"] for _, row in self._recorded(patterns) if row.get("ratio"))
        low, high = f"{values[0]:.{digits}f}", f"{values[-1]:.{digits}f}"
        return f"{low}×" if low == high else f"{low}–{high}×"

    def param_span(self, patterns: str | list[str], key: str, fmt: str = "{:.0f}") -> str:
        """The range of a param over the matching rows of every kind, in every recording of each: '15–49'."""
        values = sorted(row["params"][key] for _, row in self._recorded(patterns) if row["params"].get(key) is not None)
        if not values:
            raise FigureError(f"no row matching {patterns} has {key}")
        low, high = fmt.format(values[0]), fmt.format(values[-1])
        return low if low == high else f"{low}–{high}"

    def param_max(self, patterns: str | list[str], key: str, fmt: str = "{:.0f}") -> str:
        """The largest value of a param over the matching rows of every kind, in every recording of each."""
        values = [row["params"][key] for _, row in self._recorded(patterns) if row["params"].get(key) is not None]
        if not values:
            raise FigureError(f"no row matching {patterns} has {key}")
        return fmt.format(max(values))

    def runtimes(self) -> str:
        """The other runtimes against tuned PyTorch, per kind and precision: in throughput, how many
        times faster the runtime was; at batch 1, how many times lower its p50 latency; each with
        bench.noise's verdict (ahead, level within noise, behind)."""
        heads = {"en": ("CPU", "Precision", "Throughput: runtime ÷ PyTorch", "Batch-1 p50: PyTorch ÷ runtime"),
                 "zh": ("CPU", "精度", "吞吐量：运行时 ÷ PyTorch", "批大小 1 的 p50：PyTorch ÷ 运行时")}[self.lang]
        lines = ["| " + " | ".join(heads) + " |", "|---|---|---:|---:|"]
        for kind_, reference in self.references.items():
            by_step: dict[int, dict[str, list[str]]] = {}
            for row_id, row in self.rows[kind_].items():
                step = row["params"].get("compared_step")
                if not row_id.startswith("case_study/") or not step or not row.get("ratio") \
                        or not float(step).is_integer():  # not an allocator row against its control
                    continue
                group, variant = row_id.split("/")[1:]
                base = next((r for i, r in self.rows[kind_].items() if i.startswith(f"case_study/{group}/")
                             and r["params"].get("step") == step and r.get("ratio")), None)
                if base is None:
                    continue
                regime = "latency" if "latency" in group else "throughput"
                name = self._runtime_name(row["label"])
                name = re.sub(r" (fp32|bf16|int8)$", "", name)
                word = {"en": {"paid": "ahead", "even": "level", "lost": "behind"},
                        "zh": {"paid": "领先", "even": "持平", "lost": "落后"}}[self.lang][outcome(self.span(kind_, row, base))]
                by_step.setdefault(step, {}).setdefault(regime, []).append(
                    f"{name} {row['ratio'] / base['ratio']:.2f}×" + (f"（{word}）" if self.lang == "zh" else f" ({word})"))
            for step, regimes in sorted(by_step.items()):
                precision = next(r["params"]["precision"] for i, r in self.rows[kind_].items()
                                 if i.startswith("case_study/resnet-50") and r["params"].get("step") == step)
                where = f"（第 {step} 步）" if self.lang == "zh" else f" (step {step})"
                sep = "；" if self.lang == "zh" else ", "
                lines.append(f"| {kind_title(reference['machine'])} | {precision}{where} | "
                             f"{sep.join(regimes.get('throughput', ['–']))} | {sep.join(regimes.get('latency', ['–']))} |")
        return "\n".join(lines)

    def said(self, value: float) -> str:
        for exact, words in SAID[self.lang]:
            if abs(value / exact - 1) <= 0.05:
                return ("about " if self.lang == "en" else "约") + words
        if self.lang == "zh":
            return f"{value:.1f} 倍" if value >= 1 else f"{value:.2f} 倍"
        return f"{value:.1f} times" if value >= 1 else f"{value:.2f} times"

    # --- verdicts -----------------------------------------------------------------------------
    def recorded_ratios(self, kind_: str, row: dict) -> list[float]:
        """The row's ratio over its group's baseline in each recording of the kind that has it."""
        return [rec[row["id"]]["ratio"] for rec in self.recordings[kind_]
                if row["id"] in rec and rec[row["id"]].get("ratio")] or [row["ratio"]]

    def matching(self, kind_: str, patterns: list[str]) -> list[dict]:
        return [row for row_id, row in self.rows[kind_].items() if row.get("ratio")
                and any(fnmatch.fnmatchcase(row_id, p) for p in patterns)]

    def baseline(self, kind_: str, row: dict) -> dict:
        """The baseline row of the row's group on the kind."""
        return next(r for r in self.rows[kind_].values()
                    if r["baseline"] and r["technique"] == row["technique"] and r["group"] == row["group"])

    def span(self, kind_: str, row: dict, other: dict | None = None) -> tuple[float, float]:
        """The interval of the row's ratio over its group's baseline (or other), over every
        recording of the kind that has both (bench.noise)."""
        other = other or self.baseline(kind_, row)
        return across(self.recordings[kind_], row["id"], other["id"])

    def _pair(self, kind_: str, row_id: str, other_id: str | None) -> tuple[float, float]:
        row = self.row(kind_, row_id)
        try:
            return self.span(kind_, row, self.row(kind_, other_id) if other_id else None)
        except ValueError as error:
            raise FigureError(str(error)) from None

    def row_outcome(self, kind_: str, row_id: str, other_id: str | None = None) -> str:
        """paid, lost or even (within noise) for one row against its group's baseline (or other_id)."""
        return outcome(self._pair(kind_, row_id, other_id))

    def outcome_word(self, kind_: str, row_id: str, other_id: str | None = None) -> str:
        """The verdict on one row against its group's baseline (or other_id), by bench.noise's rule,
        in the page's language: 'paid', 'lost', 'even'."""
        return OUTCOMES[self.lang][self.row_outcome(kind_, row_id, other_id)]

    def interval(self, kind_: str, row_id: str, other_id: str | None = None) -> str:
        """The interval of the row's ratio over its baseline (or other_id): '1.03–1.26×'."""
        low, high = self._pair(kind_, row_id, other_id)
        return f"{low:.2f}–{high:.2f}×"

    def drift_table(self) -> str:
        """Per CPU kind: its recordings (when, on which CPU) and, over the rows the first recording and a
        later one both have, how far a row's ratio over its baseline moved from the first recording to
        each later one: how many rows, how many comparisons (a row against each later recording of it),
        and the median and the largest factor over the comparisons (1.00× = no drift)."""
        from bench.machine import machine_name
        from bench.references import machine_of
        heads = {"en": ("CPU kind", "Recordings", "Rows in the first recording and a later one",
                        "Comparisons (each row against each later recording)", "Ratio drift: median", "largest"),
                 "zh": ("CPU 类型", "录制", "第一次录制和之后某次录制都有的行", "比较次数（每行对照它之后的每次录制）",
                        "比值漂移：中位数", "最大")}[self.lang]
        lines = ["| " + " | ".join(heads) + " |", "|---|---|---:|---:|---:|---:|"]
        for kind_, reference in self.references.items():
            runs = [(reference["created"][:10], reference["machine"])] + [
                (rec["created"][:10], rec["machine"]) for rec in reference.get("recordings", [])]
            said = "<br>".join(f"{day}: {machine_name(machine_of(m))}" for day, m in runs)
            first, *later = self.recordings[kind_]
            factors, compared = [], set()
            for rows in later:
                for row_id, row in rows.items():
                    if row_id in first and first[row_id].get("ratio") and row.get("ratio") and not row["baseline"]:
                        moved = row["ratio"] / first[row_id]["ratio"]
                        factors.append(max(moved, 1 / moved))
                        compared.add(row_id)
            if factors:
                cells = [str(len(compared)), str(len(factors)), fmt_ratio(statistics.median(factors)),
                         fmt_ratio(max(factors))]
            else:
                cells = ["0", "0", {"en": "one recording", "zh": "只有一次录制"}[self.lang], "–"]
            lines.append(f"| {kind_title(reference['machine'])} | {said} | " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def noise(self, name: str) -> str:
        """A constant of the verdict rule as a percentage: noise("even") is the even band's '5%'."""
        value = {"even": EVEN, "one_sample": ONE_SAMPLE}[name]
        return f"{value * 100:.0f}%"

    def verdict(self, kind_: str, patterns: list[str]) -> tuple[str, list[dict]] | None:
        rows = self.matching(kind_, patterns)
        if not rows:
            return None
        return combined([outcome(self.span(kind_, r)) for r in rows]), rows

    def cell(self, kind_: str, patterns: list[str]) -> str:
        """'**paid** 1.14–1.49×' over the matching rows of one kind; '–' where none was measured.
        A range's ends are rows that are themselves beyond noise in the verdict's direction (paid:
        the paid rows; lost: the lost ones; mixed: both ranges); an even verdict spans every row.
        The range takes each row's ratio in every recording of the kind, not only the first."""
        found = self.verdict(kind_, patterns)
        if found is None:
            return "–"
        word, rows = found
        words = OUTCOMES[self.lang]

        def span(selected: list[dict]) -> str:
            ratios = [ratio for r in selected for ratio in self.recorded_ratios(kind_, r)]
            low, high = min(ratios), max(ratios)
            return fmt_ratio(low) if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}–{high:.2f}×"

        of = {w: [r for r in rows if outcome(self.span(kind_, r)) == w] for w in ("paid", "lost", "even")}
        if word == "even":
            return f"**{words['even']}** {span(rows)}"
        parts = [f"{words[w]} {span(of[w])}" for w in ("paid", "lost", "even") if of[w]]
        if word == "mixed":
            return f"**{words['mixed']}**: " + ", ".join(parts)
        return f"**{words[word]}** " + ", ".join(parts)[len(words[word]) + 1:]

    def verdicts(self, technique: str | dict[str, list[str]]) -> str:
        """A small table: per CPU kind, the technique's verdict in each regime, over every group that
        measures its recommended variant (one thread and all cores); or, given {column: row-id
        patterns}, those rows' verdicts."""
        regimes = recommended()[technique] if isinstance(technique, str) else technique
        lines = ["| CPU | " + " | ".join(self._regime(r) for r in regimes) + " |",
                 "|---|" + "---|" * len(regimes)]
        for kind_, reference in self.references.items():
            cells = [self.cell(kind_, patterns) for patterns in regimes.values()]
            if set(cells) != {"–"}:
                once = self._once(kind_, [p for patterns in regimes.values() for p in patterns])
                lines.append(f"| {kind_title(reference['machine'])}{once} | " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def _once(self, kind_: str, patterns: list[str]) -> str:
        """' <small>(one recording)</small>' where a row the patterns match on the kind has been
        recorded once only: its verdict rests on one run."""
        rows = self.matching(kind_, patterns)
        once = any(sum(r["id"] in rec for rec in self.recordings[kind_]) < 2 for r in rows)
        return {"en": " <small>(one recording)</small>", "zh": " <small>（一次录制）</small>"}[self.lang] if once else ""

    def _regime(self, name: str) -> str:
        """A verdict table's column in the page's language (bench/names.zh.json)."""
        return self._label(name)

    TUNED = "tune_your_model/the-program-s-choice-{}/{}"
    CASE_STEP = {"throughput": "case_study/resnet-50-throughput-all-cores/{}",
                 "batch-1-p50": "case_study/resnet-50-batch-1-latency-p50-all-cores/{}"}

    def first_run(self, kind_: str, row_id: str) -> tuple[dict, dict] | None:
        """(rows, machine) of the kind's first recording that has row_id, or None: the run the
        reference's own row of row_id comes from (from_recording), so a table of rows a later
        recording added shows the run the results tables and param(beside=) show, named by the
        machine that ran it."""
        ran = [i for i, rows in enumerate(self.recordings[kind_]) if row_id in rows]
        return (self.recordings[kind_][ran[0]], recording_machines(self.references[kind_])[ran[0]]) if ran else None

    def tuned(self) -> str:
        """Tune your model on ResNet-50, per kind it ran on: the steps it kept, its kept configuration
        (throughput and batch-1 p50) against the baseline and against the case study's fastest
        PyTorch step in the same run, each an interval with bench.noise's verdict."""
        zh = self.lang == "zh"
        heads = ("CPU", "保留的步骤", "场景", "保留的配置", "相对基线", "相对案例研究最快的一步（同一次运行）") if zh else \
            ("CPU", "Steps kept", "Regime", "Kept configuration", "Against the baseline", "Against the case study's fastest step (same run)")
        from bench.machine import machine_name
        lines = []
        kept_id = self.TUNED.format("throughput", "kept-configuration")
        for k in self.recordings:
            if not (first := self.first_run(k, kept_id)):
                continue
            run, machine = first
            kept = run[kept_id]
            step = self._case_best(run)
            for regime, name in (("throughput", "吞吐量" if zh else "throughput"), ("batch-1-p50", "批大小 1 的 p50" if zh else "batch-1 p50")):
                mine, base = self.TUNED.format(regime, "kept-configuration"), self.TUNED.format(regime, "baseline")
                row = run[mine]
                cells = [fmt_value(row["median"], row["unit"]).replace("samples/s", "张图像/秒" if zh else "images/s")]
                for other in (base, self.CASE_STEP[regime].format(step) if step else None):
                    if other not in run:
                        cells.append("–")
                        continue
                    span = across([run], mine, other)  # the same run only
                    against = "" if other == base else self._label(run[other]["label"]) + ": "
                    cells.append(f"{against}{span[0]:.2f}–{span[1]:.2f}× {OUTCOMES[self.lang][outcome(span)]}")
                steps = " + ".join(kept["params"].get("steps_kept") or []) if regime == "throughput" else ""
                lines.append(f"| {machine_name(machine) if regime == 'throughput' else ''} | {steps} | "
                             f"{name} | " + " | ".join(cells) + " |")
        if not lines:
            raise FigureError("no reference has Tune your model's rows")
        return "\n".join(["| " + " | ".join(heads) + " |", "|---|---|---|---:|---:|---:|", *lines])

    def _case_best(self, rows: dict) -> str | None:
        """The case study's fastest PyTorch step (1-7) in ResNet-50 throughput in one recording, as
        its row slug ('7-int8')."""
        steps = [(r["median"], i.rsplit("/", 1)[1]) for i, r in rows.items()
                 if i.startswith(self.CASE_STEP["throughput"].format("")) and re.match(r"[1-7]-", i.rsplit("/", 1)[1])]
        return max(steps)[1] if steps else None

    def steps(self, group_slug: str) -> str:
        """The case study's steps for one model: each step's factor over the step it was built on
        (_step_factor), in throughput / batch-1 latency, per kind, with its verdict over both."""
        groups = [g for g in self._case_groups() if g.startswith(group_slug)]
        order: dict[str, float] = {}
        labels: dict[str, str] = {}
        for kind_ in self.rows:
            for group in groups:
                for row_id, row in self.rows[kind_].items():
                    if row_id.startswith(f"case_study/{group}/") and row["params"]["step"] != 1 \
                            and self._path_step(row_id, row):
                        order[row_id.rsplit("/", 1)[1]] = row["params"]["step"]
                        labels[row_id.rsplit("/", 1)[1]] = row["label"]
        kinds = [k for k in self.rows if any(f"case_study/{g}/" in i for g in groups for i in self.rows[k])]
        lines = ["| | " + " | ".join(kind_title(self.references[k]["machine"]) for k in kinds) + " |",
                 "|---|" + "---|" * len(kinds)]
        for step in sorted(order, key=order.get):
            cells = []
            for kind_ in kinds:
                found = [self._step_factor(kind_, group, step) for group in groups]
                found = [f for f in found if f is not None]
                if not found:
                    cells.append("–")
                    continue
                factors = [f for f, _ in found]
                word = combined([outcome(span) for _, span in found])
                cells.append(f"**{OUTCOMES[self.lang][word]}** " + " / ".join(fmt_ratio(f) for f in factors))
            lines.append(f"| {self._label(labels[step])} | " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def paths(self) -> str:
        """From naive to fast's opening table: per CPU kind and model, the steps of the path that
        paid, lost (or were mixed) and were within noise (over throughput and batch-1 latency), and
        in each regime the best step, times the naive loop, with every step within noise of it
        (bench.noise's rule). Only the path's steps: not the side rows, not the other runtimes."""
        zh = self.lang == "zh"
        heads = ("CPU", "模型", "有效的步骤；变慢或有快有慢；在噪声之内", "最佳步骤：吞吐量或达到准确率的时间",
                 "最佳步骤：批大小 1 的延迟") if zh else \
            ("CPU", "Model", "Steps that paid; lost or mixed; within noise", "Best step, throughput or time to accuracy",
             "Best step, batch-1 latency")
        lines = ["| " + " | ".join(heads) + " |", "|---|---|---|---:|---:|"]
        comma = "、" if zh else ", "
        models = {}
        for group in self._case_groups():
            models.setdefault(group.split("-throughput")[0].split("-batch-1")[0].split("-time-to")[0], []).append(group)

        def name(row: dict) -> str:
            return self._label(row["label"]).split(": ", 1)[-1].split("：", 1)[-1]

        for kind_, reference in self.references.items():
            for model, groups in models.items():
                groups = [g for g in groups if any(i.startswith(f"case_study/{g}/") for i in self.rows[kind_])]
                if not groups:
                    continue
                steps = {}
                for group in groups:
                    for row_id, row in self.rows[kind_].items():
                        if row_id.startswith(f"case_study/{group}/") and self._path_step(row_id, row) \
                                and row["params"]["step"] != 1:
                            steps[row_id.rsplit("/", 1)[1]] = row
                said: dict[str, list[str]] = {"paid": [], "lost": [], "even": []}
                for step, row in sorted(steps.items(), key=lambda s: s[1]["params"]["step"]):
                    found = [f for g in groups if (f := self._step_factor(kind_, g, step)) is not None]
                    if found:
                        word = combined([outcome(span) for _, span in found])
                        said["lost" if word == "mixed" else word].append(name(row))
                text = comma.join(said["paid"]) or "–"
                if said["lost"]:
                    text += ("；变慢或有快有慢：" if zh else "; lost or mixed: ") + comma.join(said["lost"])
                if said["even"]:
                    text += ("；在噪声之内：" if zh else "; within noise: ") + comma.join(said["even"])
                best = []
                for group in groups:
                    rows = [r for i, r in self.rows[kind_].items() if i.startswith(f"case_study/{group}/") and r.get("ratio")
                            and self._path_step(i, r)]
                    top = max(rows, key=lambda r: r["ratio"])
                    level = sorted((r for r in rows if r is not top and outcome(self.span(kind_, r, top)) != "lost"),
                                   key=lambda r: -r["ratio"])
                    also = "".join((f"；与 {name(r)}（{fmt_ratio(r['ratio'])}）在噪声之内持平" if zh else
                                    f"; level with {name(r)}, {fmt_ratio(r['ratio'])}, within noise") for r in level)
                    best.append(f"{fmt_ratio(top['ratio'])} <small>{'（' if zh else '('}{name(top)}{also}{'）' if zh else ')'}</small>")
                title = kind_title(reference["machine"]) + ("*" if any(self._elsewhere(kind_, f"case_study/{g}/")
                                                                       for g in groups) else "")
                lines.append(f"| {title} | {self._model(model)} | {text} | "
                             + " | ".join(best + ["–"] * (2 - len(best))) + " |")
        notes = [kind_title(r["machine"]) for r in self.references.values() if r.get("elsewhere")]
        note = {"en": "\\* {}: these rows were measured on another machine of the same kind (the benchmark page's notes say which).",
                "zh": "\\* {}：这些行是在同类的另一台机器上测得的（基准测试页面的说明写明了是哪台）。"}[self.lang]
        return "\n".join(lines) + "".join("\n\n" + note.format(n) for n in notes)

    def elsewhere_rows(self) -> str:
        """Per kind whose reference names rows measured on another machine of the kind
        ("elsewhere"): the groups those rows are in, by technique, in the page's language and the
        reference's order: '**AMD, AVX-512 + BF16**: From naive to fast: “group”; Tune your model:
        “group”, “group”'."""
        zh = self.lang == "zh"
        titles = techniques()
        parts = []
        for reference in self.references.values():
            where = reference.get("elsewhere", {})
            found: dict[str, dict[str, str]] = {}
            for row in reference["results"]:
                if any(under(row["id"], i) for i in where):
                    found.setdefault(row["technique"], {}).setdefault(row["group"], say(row["group"], self.lang))
            if found:
                parts.append(f"**{kind_title(reference['machine'])}**{'：' if zh else ': '}" + ("；" if zh else "; ").join(
                    f"{say(titles.get(t, t), self.lang)}{'：' if zh else ': '}"
                    + ("、" if zh else ", ").join(f"“{g}”" for g in groups.values()) for t, groups in found.items()))
        if not parts:
            raise FigureError("no reference names rows measured elsewhere")
        return ("；" if zh else "; ").join(parts)

    def _label(self, label: str) -> str:
        """A row's label in the page's language (bench/names.zh.json for Chinese)."""
        return zh_names().get(label, label) if self.lang == "zh" else label

    def _runtime_name(self, label: str) -> str:
        """A case-study row's label in the page's language, without the "(other runtime)" mark."""
        return self._label(label).replace(" (other runtime)", "").replace("（其他运行时）", "")

    def _model(self, slug: str) -> str:
        names = {"resnet-50": ("ResNet-50", "ResNet-50"), "transformer": ("Transformer", "Transformer"),
                 "training": ("Training (small CNN)", "训练（小型 CNN）")}
        return names.get(slug, (slug, slug))[self.lang == "zh"]

    def _case_groups(self) -> list[str]:
        found = {}
        for rows in self.rows.values():
            for row_id, row in rows.items():
                if row_id.startswith("case_study/") and "step" in row["params"]:  # not the profiles
                    found[row_id.split("/")[1]] = None
        return list(found)

    @staticmethod
    def _path_step(row_id: str, row: dict) -> bool:
        """A step of the case study's path: a whole step number, not a side row (5.5, 7.6 …) and
        not another runtime's row (whose numbers only order them, OpenVINO's int8 at 8.0)."""
        return float(row["params"]["step"]).is_integer() and not row_id.endswith("-other-runtime")

    def _step_factor(self, kind_: str, group: str, step: str) -> tuple[float, tuple[float, float]] | None:
        """The step's ratio over the step it was built on, and its interval (bench.noise; None: not
        run on this kind): the step before it, and for a lower precision (bf16, int8) the last fp32
        step, which both start from."""
        rows = {i.rsplit("/", 1)[1]: r for i, r in self.rows[kind_].items()
                if i.startswith(f"case_study/{group}/") and self._path_step(i, r)}
        row = rows.get(step)
        if row is None or not row.get("ratio") or ("latency" in group and step in NOT_IN_LATENCY):
            return None
        precision = row["params"].get("precision", "fp32")
        before = [r for r in rows.values() if r.get("ratio") and r["params"]["step"] < row["params"]["step"]
                  and (precision == "fp32" or r["params"].get("precision", "fp32") == "fp32")]
        if not before:
            return None
        previous = max(before, key=lambda r: r["params"]["step"])
        return row["ratio"] / previous["ratio"], self.span(kind_, row, previous)

    # --- Home's headline ----------------------------------------------------------------------
    def headline(self) -> str:
        """Per technique, per kind: the verdict on the recommended variants in each regime, and when
        the technique applies. A row a reference took on another machine of its kind (its
        "elsewhere") is left out of that kind's column; a technique no column has is left out. A
        column is marked "(one recording)" where a row it shows was recorded once (_once), over
        the rows it shows only."""
        kinds = list(self.references)
        head = {"en": "Technique, and when it applies", "zh": "技巧，以及何时适用"}[self.lang]
        lines = []
        shown: dict[str, list[str]] = {k: [] for k in kinds}  # the patterns of each column's cells
        conditions, regimes_of = when(), recommended()
        for technique, title in techniques().items():
            regimes = regimes_of[technique]
            cells, used = [], {k: [] for k in kinds}
            for kind_ in kinds:
                parts = []
                for regime, patterns in regimes.items():
                    own = [p for p in patterns if not self._elsewhere(kind_, p)]
                    text = self.cell(kind_, own) if own else "–"
                    if text != "–":
                        used[kind_] += own
                        parts.append(text + (f"<br><small>{self._regime(regime)}</small>" if len(regimes) > 1 else ""))
                cells.append("<br>".join(parts) or "–")
            if set(cells) == {"–"}:  # no kind's own machine measured it (yet): no row of dashes
                continue
            for kind_ in kinds:
                shown[kind_] += used[kind_]
            lines.append(f"| [{self._label(title)}]({pages()[technique]})<br><small>{self._label(conditions[technique])}</small> | "
                         + " | ".join(cells) + " |")
        top = [f"| {head} | " + " | ".join(kind_title(self.references[k]["machine"]) + self._once(k, shown[k])
                                           for k in kinds) + " |",
               "|---|" + "---|" * len(kinds)]
        return "\n".join(top + lines) + "\n"

    # --- other torch releases (tests/releases.py: make test-torch) -----------------------------
    def _outcomes(self, test: str) -> list[tuple[str, str, str]]:
        """(release, outcome, message) of one release test, on the pinned release (every `make
        test` runs it there) and on each recorded release, oldest first."""
        found = [(pins()["torch"], "passed", "")]
        for record in self.releases:
            nodes = [n for n in record["tests"] if n == test or n.endswith("::" + test)]
            if len(nodes) != 1:
                raise FigureError(f"the torch {record['asked']} record has {len(nodes)} tests named {test!r}")
            result = record["tests"][nodes[0]]
            found.append((record["asked"], result["outcome"], result.get("message", "")))
        return sorted(found, key=lambda f: release_key(f[0]))

    def _and(self, items: list[str]) -> str:
        if self.lang == "zh":
            return "、".join(items[:-1]) + (" 和 " if len(items) > 1 else "") + items[-1]
        return ", ".join(items[:-1]) + (" and " if len(items) > 1 else "") + items[-1]

    def pinned(self, package: str) -> str:
        """The release requirements.txt pins: what every page, snippet and reference is of."""
        if package not in pins():
            raise FigureError(f"requirements.txt pins no {package!r}")
        return pins()[package]

    def release_check(self, test: str) -> str:
        """One sentence: on which torch releases a release test ran, and where it behaved otherwise."""
        outcomes = self._outcomes(test)
        same = [r for r, o, _ in outcomes if o == "passed"]
        other = [(r, m) for r, o, m in outcomes if o == "failed"]
        skipped = [(r, m) for r, o, m in outcomes if o not in ("passed", "failed")]
        every = self._and([r for r, _, _ in outcomes])
        zh = self.lang == "zh"
        if not other and not skipped:
            return (f"在 torch {every} 上重新运行过，结果都一样。" if zh and len(outcomes) > 1 else
                    f"仅在 torch {every} 上运行过。" if zh else
                    f"Re-run on torch {every}: the same on each." if len(outcomes) > 1 else f"Run on torch {every} only.")
        parts = [(f"在 {self._and(same)} 上一样" if zh else f"the same on {self._and(same)}")] if same else []
        for release, message in other:
            first = message.splitlines()[0] if message else ""
            parts.append(f"在 {release} 上不同（{first}）" if zh else f"on {release} it differs ({first})")
        for release, message in skipped:
            why = self._why_skipped(message)
            parts.append(f"在 {release} 上没有运行（{why}）" if zh else f"on {release} it did not run ({why})")
        return (f"在 torch {every} 上重新运行过：" + "；".join(parts) + "。") if zh else \
            (f"Re-run on torch {every}: " + "; ".join(parts) + ".")

    def _why_skipped(self, message: str) -> str:
        missing = re.search(r"not installed: no (\w+) ([\d.x]+)", message)
        if missing:
            return (f"没有能与之配套安装的 {missing[1]} {missing[2]}" if self.lang == "zh" else
                    f"no {missing[1]} {missing[2]}, the release paired with it, installs")
        return message.removeprefix("Skipped: ").split(": ERROR")[0]

    def holds_on(self, test: str) -> str:
        """The releases a statement held on, as a range of the checked ones: 'torch 2.11.0 to 2.15.0'."""
        outcomes = self._outcomes(test)
        held = [r for r, o, _ in outcomes if o == "passed"]
        ran = [r for r, o, _ in outcomes if o in ("passed", "failed")]
        if held == ran[ran.index(held[0]):ran.index(held[-1]) + 1] and len(held) > 1:
            return f"torch {held[0]} 至 {held[-1]}" if self.lang == "zh" else f"torch {held[0]} to {held[-1]}"
        return "torch " + self._and(held)

    def _test_title(self, node: str) -> str:
        """A release test as a reader knows it: a snippet's output, or the test's name."""
        name = node.split("::")[-1]
        snippet = re.fullmatch(r"test_page_output_is_a_real_run\[(\w+)\]", name)
        if snippet:
            return f"`{snippet[1]}.py` 的输出" if self.lang == "zh" else f"`{snippet[1]}.py`'s output"
        return f"`{name}`"

    @staticmethod
    def _not_installed_zh(package: str, why: str) -> str:
        """Why a companion package was not installed, in Chinese: 'torchvision：没有可安装的 torchvision
        0.30.x（与 torch 2.15.0 配套的版本）'; else that pip could not install it."""
        found = re.match(r"no (\S+ \S+) \(the release paired with torch ([\w.]+)\) installs", why)
        if found:
            return f"{package}：没有可安装的 {found.group(1)}（与 torch {found.group(2)} 配套的版本）"
        return f"{package}（pip 装不上）"

    def releases_table(self) -> str:
        """What make test-torch found on each recorded release, beside the pinned one, oldest first."""
        zh = self.lang == "zh"
        heads = (["torch", "一同安装", "没有装上", "重新运行的测试", "结果不同的测试"] if zh else
                 ["torch", "installed with it", "left out", "release tests", "behaved otherwise"])
        pinned = pins()
        rows = [(pinned["torch"],
                 f"| {pinned['torch']}（固定版本，每次 `make test`） | torchvision {pinned['torchvision']}, torchao "
                 f"{pinned['torchao']} | – | 全部通过 | – |" if zh else
                 f"| {pinned['torch']} (pinned: every `make test`) | torchvision {pinned['torchvision']}, torchao "
                 f"{pinned['torchao']} | – | all pass | – |")]
        words = {"passed": "一样", "failed": "不同", "skipped": "未运行"} if zh else \
            {"passed": "same", "failed": "differ", "skipped": "not run"}
        for record in self.releases:
            counts = {}
            for result in record["tests"].values():
                counts[result["outcome"]] = counts.get(result["outcome"], 0) + 1
            tally = ("，" if zh else ", ").join(f"{counts[o]} {words[o]}" for o in words if counts.get(o))
            companions = ", ".join(f"{p} {v}" for p, v in record["installed"].items() if p != "torch") or "–"
            left = "; ".join(self._not_installed_zh(p, why) if zh else f"{p}: {why.split(':')[0]}"
                             for p, why in record["not_installed"].items()) or "–"
            differed = ", ".join(self._test_title(n) for n, r in record["tests"].items() if r["outcome"] == "failed") or "–"
            rows.append((record["asked"], f"| {record['torch']} | {companions} | {left} | {tally} | {differed} |"))
        lines = ["| " + " | ".join(heads) + " |", "|---|---|---|---|---|"]
        return "\n".join(lines + [line for _, line in sorted(rows, key=lambda r: release_key(r[0]))])

    # --- what an upgrade does to speed (bench/releases.py: make bench-torch) --------------------
    def _upgrade(self, kind_: str) -> dict:
        if kind_ not in self.upgrades:
            raise FigureError(f"no upgrade comparison of kind {kind_!r} (have {', '.join(self.upgrades) or 'none'})")
        return self.upgrades[kind_]

    def _upgrade_rows(self, kind_: str, technique: str | None = None) -> list[dict]:
        """The timed rows (durations and rates, not sizes) measured under both releases."""
        return timed_rows(self._upgrade(kind_), technique)

    def _factors(self, kind_: str, technique: str | None = None) -> list[float]:
        return sorted(r["faster"] for r in self._upgrade_rows(kind_, technique))

    def _upgrade_verdict(self, kind_: str) -> str:
        """How the other release compares with the pinned one over every timed row: faster or slower
        only where the middle half of the rows' factors (their quartiles) lies beyond the even band."""
        data = self._upgrade(kind_)
        factors = self._factors(kind_)
        low, _, high = statistics.quantiles(factors, n=4, method="inclusive") if len(factors) > 1 else factors * 3
        said = outcome((low, high))
        pinned = f"torch {data['pinned']}"
        return {"paid": (f"faster than {pinned}", f"比 {pinned} 快"),
                "lost": (f"slower than {pinned}", f"比 {pinned} 慢"),
                "even": (f"as fast as {pinned} (within noise)", f"与 {pinned} 一样快（差异在噪声之内）")}[said][self.lang == "zh"]

    def _span(self, factors: list[float]) -> str:
        return f"{fmt_ratio(factors[0])} 至 {fmt_ratio(factors[-1])}" if self.lang == "zh" else \
            f"{fmt_ratio(factors[0])} to {fmt_ratio(factors[-1])}"

    def upgrade_summary(self) -> str:
        """Per CPU kind with a comparison: the verdict over every timed row, the runtimes' rows as
        the run's noise (their timed loop runs no torch), the table per technique, the case study's
        steps and the fp16 probe."""
        zh = self.lang == "zh"
        parts = []
        for kind_, data in self.upgrades.items():
            factors = self._factors(kind_)
            control = sorted(r["faster"] for r in self._upgrade_rows(kind_, "case_study")
                             if "other runtime" in r["label"])
            machine, release = kind_title(data["machine"]), data["release"]
            if zh:
                text = (f"在 {machine} 机器上，torch {release} 跑基准测试的 {len(factors)} 个计时行，"
                        f"{self._upgrade_verdict(kind_)}：中位数 {fmt_ratio(statistics.median(factors))}"
                        f"（大于 1× 即更快），范围 {self._span(factors)}。")
                if control:
                    text += (f"ONNX Runtime 和 OpenVINO 的行计时的循环里没有 torch，它们的倍数（{self._span(control)}）"
                             f"就是这次运行本身的噪声。")
            else:
                text = (f"On the {machine} machine, torch {release} ran the benchmark's {len(factors)} timed rows "
                        f"{self._upgrade_verdict(kind_)}: median {fmt_ratio(statistics.median(factors))} "
                        f"(above 1× is faster), from {self._span(factors)}.")
                if control:
                    text += (f" The ONNX Runtime and OpenVINO rows, whose timed loop runs no torch, moved by "
                             f"{self._span(control)}: that is the run's own noise.")
            for release_, borrowed in data["borrowed"].items():
                text += (f"torch {release_} 没有能装上的配套 torchvision，所以两个版本用的都是锁定的 torchvision "
                         f"{borrowed['torchvision']}（不带依赖安装）。" if zh else
                         f" No torchvision paired with torch {release_} installs, so both releases ran the pinned "
                         f"torchvision {borrowed['torchvision']} (installed without its dependencies).")
            parts += [text, self.upgrade_table(kind_),
                      "案例研究的各个步骤：" if zh else "The case study's steps:", self.upgrade_steps(kind_),
                      self.upgrade_probe(kind_)]
        if not parts:
            raise FigureError("no upgrade comparison (bench/references/releases/): run make bench-torch TORCH=<release>")
        return "\n\n".join(parts)

    def upgrade_table(self, kind_: str) -> str:
        """Per technique: how many timed rows, the median factor and the slowest and fastest."""
        zh = self.lang == "zh"
        data = self._upgrade(kind_)
        heads = (["技术", "计时行数", "中位数", "最慢", "最快"] if zh else
                 ["technique", "timed rows", "median", "slowest", "fastest"])
        lines = ["| " + " | ".join(heads) + " |", "|---|---:|---:|---:|---:|"]
        for technique, title in data["techniques"].items():
            rows = self._upgrade_rows(kind_, technique)
            if not rows:
                continue
            factors = self._factors(kind_, technique)
            link = f"[{self._label(title)}]({pages()[technique]})" if technique in pages() else self._label(title)
            lines.append(f"| {link} | {len(rows)} | {fmt_ratio(statistics.median(factors))} | "
                         f"{fmt_ratio(factors[0])} | {fmt_ratio(factors[-1])} |")
        return "\n".join(lines)

    def upgrade_steps(self, kind_: str) -> str:
        """The case study's steps, one column per measure: the factor of each."""
        rows = self._upgrade_rows(kind_, "case_study")
        groups = list(dict.fromkeys(r["group"] for r in rows))
        labels = list(dict.fromkeys(r["label"] for r in rows))
        cells = {(r["group"], r["label"]): r["faster"] for r in rows}
        lines = ["| " + ("步骤" if self.lang == "zh" else "step") + " | "
                 + " | ".join(self._label(g) for g in groups) + " |",
                 "|---|" + "---:|" * len(groups)]
        for label in labels:
            lines.append(f"| {self._label(label)} | "
                         + " | ".join(fmt_ratio(cells.get((g, label))) for g in groups) + " |")
        return "\n".join(lines)

    def _probe(self, kind_: str) -> dict[str, dict[str, dict]]:
        """{release: {row id: {"median": …, "onednn": …}}} of the fp16 matmul probe, every release it ran on."""
        data = self._upgrade(kind_)
        found: dict[str, dict[str, dict]] = {}
        for r in data["results"]:
            if r["technique"] == PROBE:
                for release in (data["pinned"], r["release"]):
                    found.setdefault(release, {})[r["id"]] = {"median": r[release],
                                                              "onednn": r["params_by_release"][release].get("onednn")}
        if not found:
            raise FigureError(f"the {kind_} upgrade comparison has no {PROBE} probe")
        return dict(sorted(found.items(), key=lambda f: release_key(f[0])))

    def fp16_cost(self, kind_: str, release: str, where: str = "all-cores") -> float:
        """How many times fp32's time an fp16 matmul took on one release."""
        rows = self._probe(kind_).get(release)
        if rows is None:
            raise FigureError(f"the {kind_} probe did not run on torch {release}")
        return rows[f"{PROBE}/matmul-1024-{where}/fp16"]["median"] / rows[f"{PROBE}/matmul-1024-{where}/fp32"]["median"]

    def fp16_kernel(self, kind_: str, release: str) -> str | None:
        """The oneDNN implementation that ran the fp16 matmul on one release (None: not oneDNN)."""
        return self._probe(kind_)[release][f"{PROBE}/matmul-1024-1-thread/fp16"]["onednn"]

    def upgrade_probe(self, kind_: str) -> str:
        """One sentence: fp16 matmul's time against fp32's on each release, which oneDNN kernel ran
        it, and whether torch 2.14's fall to oneDNN's reference kernel (pytorch#193951) shows:
        "ref:any" on 2.14, or fp16 ten times slower, relative to fp32, than on the release before."""
        zh = self.lang == "zh"
        releases = list(self._probe(kind_))
        costs = {r: self.fp16_cost(kind_, r) for r in releases}
        kernels = {r: self.fp16_kernel(kind_, r) for r in releases}
        before = [r for r in releases if release_key(r) < (2, 14)]
        after = [r for r in releases if (2, 14) <= release_key(r) < (2, 15)]
        if not before or not after:
            raise FigureError(f"the {kind_} probe needs a release before 2.14 and a 2.14 one, has {', '.join(releases)}")
        shows = kernels[after[0]] == "ref:any" or costs[after[0]] >= 10 * costs[before[-1]]
        if zh:
            text = ("1024 × 1024 的 fp16 矩阵乘法（全部核心）的用时是 fp32 的 "
                    + self._and([f"{coarse_ratio(costs[r])}（torch {r}）" for r in releases]) + "；")
            if not any(kernels.values()):
                text += "在这些版本上 torch 都没有把它交给 oneDNN（`ONEDNN_VERBOSE=1` 没有记录任何矩阵乘法），"
            else:
                text += "oneDNN 运行它用的是 " + self._and([f"`{kernels[r] or '（不是 oneDNN）'}`（torch {r}）"
                                                        for r in releases]) + "，"
            return text + ("2.14 的退化在这台机器上出现了。" if shows else "2.14 的退化在这台机器上没有出现。")
        text = ("A 1024 × 1024 fp16 matmul (all cores) took " + coarse_ratio(costs[releases[0]]) + " as long as fp32 on torch "
                + releases[0] + ", " + self._and([f"{coarse_ratio(costs[r])} on torch {r}" for r in releases[1:]]) + "; ")
        if not any(kernels.values()):
            text += "torch handed it to oneDNN on none of them (`ONEDNN_VERBOSE=1` logs no matmul), and "
        else:
            text += "oneDNN ran it with " + self._and([f"`{kernels[r] or '(not oneDNN)'}` on torch {r}"
                                                      for r in releases]) + ", and "
        return text + ("the 2.14 slow-down shows on this machine." if shows else
                       "the 2.14 slow-down does not show on this machine.")

    def decode_table(self) -> str:
        """Generating text: each step's batch-1 decode speed and its share of the memory-bandwidth
        bound (tokens/s ÷ (bandwidth ÷ bytes read per token)), per kind, at one thread and all cores."""
        heads = {"en": ("Step", "tokens/s (share of the bound)", "1 thread", "all cores", "memory bandwidth"),
                 "zh": ("步骤", "每秒 token 数（占上限的比例）", "1 线程", "全部核心", "内存带宽")}[self.lang]
        where = {"1 thread": "1-thread", "all cores": "all-cores"}
        kinds = [k for k in self.rows if any(i.startswith("generate_text/decode-batch-1-") for i in self.rows[k])]
        if not kinds:
            return {"en": "*No reference has measured these rows yet: "
                          "`python -m bench --full --only generate_text` measures yours.*",
                    "zh": "*还没有参考结果测过这些行：`python -m bench --full --only generate_text` "
                          "可以测你的机器。*"}[self.lang]
        columns = [(k, w) for k in kinds for w in where if f"generate_text/memory-bandwidth-streaming-read-{where[w]}/"
                   "int32-max-over-a-tensor-larger-than-the-caches" in self.rows[k]]
        labels: dict[str, tuple[float, str]] = {}
        for k, w in columns:
            for row_id, row in self.rows[k].items():
                if row_id.startswith(f"generate_text/decode-batch-1-{where[w]}/") and row["params"]["step"]:
                    labels[row_id.rsplit("/", 1)[1]] = (row["params"]["step"], row["label"])  # llama.cpp: engines_table
        title = {w: heads[2 + i] for i, w in enumerate(where)}
        lines = [f"| {heads[0]} | " + " | ".join(f"{kind_title(self.references[k]['machine'])}, {title[w]}"
                                                  for k, w in columns) + " |",
                 "|---|" + "---:|" * len(columns)]
        bandwidth = []
        for k, w in columns:
            row = self.rows[k][f"generate_text/memory-bandwidth-streaming-read-{where[w]}/"
                               "int32-max-over-a-tensor-larger-than-the-caches"]
            bandwidth.append(fmt_value(row["median"], row["unit"]))
        lines.append(f"| *{heads[4]}* | " + " | ".join(bandwidth) + " |")
        for slug, (_, label) in sorted(labels.items(), key=lambda item: item[1][0]):
            cells = []
            for k, w in columns:
                row = self.rows[k].get(f"generate_text/decode-batch-1-{where[w]}/{slug}")
                if row is None:
                    cells.append("–")
                    continue
                speed = 1 / row["median"]  # a token per decode step
                cells.append(f"{speed:.1f} ({speed / row['params']['bound_tokens_per_s']:.0%})")
            lines.append(f"| {self._label(label)} | " + " | ".join(cells) + " |")
        return "\n".join(lines)

    # PyTorch's fastest step at each width of the weights, and llama.cpp's file of that width
    ENGINES = (("16", "4-static-cache-torch-compile", "llama-cpp-f16"),
               ("8", "5-int8-weight-only-compiled", "llama-cpp-q8-0"),
               ("4", "6-int4-weight-only-a16w4-compiled", "llama-cpp-q4-0"))

    def engines_table(self) -> str:
        """Generating text: PyTorch's step and llama.cpp's file at each weight width, on the same
        weights, per kind measured: decode tokens/s at batch 1 (share of the bound) at one thread
        and all cores, time to the first token and resident size on all cores, and what the
        engine took before its first answer (building: copying, quantizing, writing the file;
        the first call: compiling)."""
        heads = {"en": ("Bits", "Engine", "tokens/s, 1 thread", "tokens/s, all cores", "first token, all cores",
                        "resident", "build + first call"),
                 "zh": ("位宽", "引擎", "每秒 token 数，1 线程", "每秒 token 数，全部核心", "首个 token 时间，全部核心",
                        "常驻内存", "构建 + 首次调用")}[self.lang]
        kinds = [k for k in self.rows if f"generate_text/decode-batch-1-all-cores/{self.ENGINES[0][2]}" in self.rows[k]]
        if not kinds:
            return {"en": "*No reference has measured llama.cpp yet: "
                          "`python -m bench --full --only generate_text` measures yours.*",
                    "zh": "*还没有参考结果测过 llama.cpp：`python -m bench --full --only generate_text` "
                          "可以测你的机器。*"}[self.lang]
        out = []
        for k in kinds:
            rows = self.rows[k]
            lines = [f"**{kind_title(self.references[k]['machine'])}**", "", "| " + " | ".join(heads) + " |",
                     "|---|---|" + "---:|" * (len(heads) - 2)]
            for bits, *engines in self.ENGINES:
                for slug in engines:
                    one, all_ = (rows.get(f"generate_text/decode-batch-1-{w}/{slug}") for w in ("1-thread", "all-cores"))
                    first = rows.get(f"generate_text/time-to-first-token-all-cores/{slug}")
                    if not (one and all_ and first):
                        continue
                    speed = [f"{1 / r['median']:.1f} ({1 / r['median'] / r['params']['bound_tokens_per_s']:.0%})"
                             for r in (one, all_)]
                    p = all_["params"]
                    lines.append(f"| {bits} | {self._label(all_['label'])} | {speed[0]} | {speed[1]} | "
                                 f"{fmt_value(first['median'], 's')} | {p['resident_mb']:.0f} MB | "
                                 f"{fmt_value(p['build_s'] + p['first_call_s'], 's')} |")
            out.append("\n".join(lines))
        return "\n\n".join(out)

    LIMIT = "generate_text/own-decode-loop-against-generate-batch-1-{}/{}"
    LIMIT_ROWS = ("6-int4-weight-only-a16w4-compiled", "7-int4-own-loop-one-compiled-step", "llama-cpp-q4-0")

    def decode_limit(self) -> str:
        """Generating text, step 7 (your own loop, one compiled step) against step 6 (generate()
        and a compiled forward) and llama.cpp's Q4_0, timed in the same interleaved rounds: per
        kind that measured them, from the first run that did, named by the machine that ran it;
        tokens/s (share of the bound) and the intervals of step 7 against the other two, each
        with bench.noise's verdict."""
        zh = self.lang == "zh"
        heads = ("CPU", "线程", "第 6 步：generate()", "第 7 步：自己的循环", "第 7 步相对第 6 步",
                 "llama.cpp Q4_0", "第 7 步相对 Q4_0") if zh else \
            ("CPU", "Threads", "Step 6: generate()", "Step 7: own loop", "Step 7 against step 6",
             "llama.cpp Q4_0", "Step 7 against Q4_0")
        from bench.machine import machine_name
        lines = []
        for k in self.recordings:
            for where, name in (("1-thread", "1"), ("all-cores", "全部核心" if zh else "all cores")):
                ids = [self.LIMIT.format(where, slug) for slug in self.LIMIT_ROWS]
                if not (first := self.first_run(k, ids[1])):
                    continue
                run, machine = first
                cells = []
                for row_id in ids:
                    row = run.get(row_id)
                    cells.append(f"{1 / row['median']:.1f} ({1 / row['median'] / row['params']['bound_tokens_per_s']:.0%})"
                                 if row else "–")
                against = []
                for other in (ids[0], ids[2]):
                    if other not in run:
                        against.append("–")
                        continue
                    span = across([run], ids[1], other)  # the same run only
                    against.append(f"{span[0]:.2f}–{span[1]:.2f}× {OUTCOMES[self.lang][outcome(span)]}")
                lines.append(f"| {machine_name(machine) if where == '1-thread' else ''} | {name} | {cells[0]} | {cells[1]} | "
                             f"{against[0]} | {cells[2]} | {against[1]} |")
        if not lines:
            raise FigureError("no reference has step 7's rows (generate_text, own decode loop)")
        unit = "每秒 token 数（占上限的比例）" if zh else "tokens/s (share of the bound)"
        return "\n".join([f"| {' | '.join(heads)} |", "|---|---|---:|---:|---:|---:|---:|", *lines,
                          "", f"<small>{unit}</small>"])

    # the case study's two regimes: (row-id prefix, name per language)
    REGIMES = {"throughput": ("case_study/resnet-50-throughput-all-cores/", {"en": "throughput", "zh": "吞吐量"}),
               "latency": ("case_study/resnet-50-batch-1-latency-p50-all-cores/",
                           {"en": "batch-1 p50", "zh": "批大小 1 的 p50"})}

    # how a runtime's lead over PyTorch reads by bench.noise's rule (the runtime's interval over PyTorch's row)
    LEADS = {"en": {"paid": "runtime ahead", "even": "level (within noise)", "lost": "PyTorch ahead"},
             "zh": {"paid": "运行时领先", "even": "持平（在噪声之内）", "lost": "PyTorch 领先"}}

    def _fastest(self, kind_: str, regime: str) -> tuple[list[dict], list[dict]] | None:
        """([PyTorch's fastest row, then every PyTorch row within noise of it], [the fastest other
        runtime's row, then every runtime row within noise of it]) of the regime on the kind (bench.noise's
        rule), or None where the kind has no runtime rows. PyTorch's rows: its steps, packages and side rows."""
        prefix = self.REGIMES[regime][0]
        group = {i: r for i, r in self.rows[kind_].items() if i.startswith(prefix) and r.get("ratio")}
        runtimes = [r for i, r in group.items() if i.endswith("-other-runtime")]
        pytorch = [r for i, r in group.items() if not i.endswith("-other-runtime")]
        if not runtimes or not pytorch:
            return None

        def level(rows: list[dict]) -> list[dict]:
            top = max(rows, key=lambda r: r["ratio"])
            return [top] + sorted((r for r in rows if r is not top and outcome(self.span(kind_, r, top)) != "lost"),
                                  key=lambda r: -r["ratio"])
        return level(pytorch), level(runtimes)

    def runtime_lead(self, kind_: str, regime: str) -> float:
        """How many times better the fastest other runtime was than PyTorch's fastest row
        (below 1: PyTorch was ahead)."""
        found = self._fastest(kind_, regime)
        if found is None:
            raise FigureError(f"the {kind_} reference has no other runtime's rows")
        return found[1][0]["ratio"] / found[0][0]["ratio"]

    def lead(self, kind_: str, regime: str) -> str:
        """runtime_lead as the page writes it: '1.07×'."""
        return f"{self.runtime_lead(kind_, regime):.2f}×"

    def leave_pytorch(self) -> str:
        """From naive to fast, the conclusion per kind: in each regime, PyTorch's fastest row (its
        steps, packages and side rows) against the fastest other runtime's, each with the rows within
        noise of it, and how many times better the runtime was (below 1×: PyTorch was ahead), with
        bench.noise's verdict on that lead."""
        zh = self.lang == "zh"
        heads = ("CPU", "场景", "最快的 PyTorch 行", "最快的其他运行时", "运行时 ÷ PyTorch") if zh else \
            ("CPU", "Regime", "Fastest PyTorch row", "Fastest other runtime", "Runtime ÷ PyTorch")
        lines = ["| " + " | ".join(heads) + " |", "|---|---|---|---|---:|"]
        comma = "，" if zh else ", "
        for k in self.rows:
            for regime, (_, name) in self.REGIMES.items():
                found = self._fastest(k, regime)
                if found is None:
                    continue
                cells = []
                for top, *level in found:
                    cell = self._runtime_name(top["label"]) + comma + fmt_value(top["median"], top["unit"]).replace(
                        "samples/s", "张图像/秒" if zh else "images/s")
                    if level:
                        names = ("、" if zh else "; ").join(self._runtime_name(r["label"]) for r in level)
                        cell += f"<br><small>{'在噪声之内持平：' if zh else 'level within noise: '}{names}</small>"
                    cells.append(cell)
                word = self.LEADS[self.lang][outcome(self.span(k, found[1][0], found[0][0]))]
                # a runtime level with the fastest one may itself be ahead of PyTorch beyond noise
                ahead = [r for r in found[1][1:] if outcome(self.span(k, r, found[0][0])) == "paid"]
                if ahead and outcome(self.span(k, found[1][0], found[0][0])) != "paid":
                    names = ("、" if zh else "; ").join(self._runtime_name(r["label"]) for r in ahead)
                    word += f"{'；领先超出噪声：' if zh else '; ahead beyond noise: '}{names}"
                lines.append(f"| {kind_title(self.references[k]['machine'])} | {name[self.lang]} | {cells[0]} | "
                             f"{cells[1]} | {self.lead(k, regime)}<br><small>{word}</small> |")
        return "\n".join(lines)

    # the profiled int8 rows of the case study: (group slug's engine part, the step's row slug)
    PROFILED = (("pytorch-step-7", "7-int8", {"en": "PyTorch int8 (step 7)", "zh": "PyTorch int8（第 7 步）"}),
                ("onnx-runtime", "onnx-runtime-int8-other-runtime", {"en": "ONNX Runtime int8", "zh": "ONNX Runtime int8"}),
                ("openvino", "openvino-int8-other-runtime", {"en": "OpenVINO int8", "zh": "OpenVINO int8"}))
    PARTS = ("convolutions", "other-operators", "around-the-operators", "whole-call")
    KERNELS = "onednn-convolution-kernels"  # PyTorch's only

    def call_profile(self) -> str:
        """From naive to fast: where a ResNet-50 int8 batch-1 call's time goes in PyTorch's step 7
        and in each runtime's int8, per kind measured: milliseconds per call under each engine's
        profiler (share of the whole call), of PyTorch's convolutions the part inside oneDNN's own
        kernels (a dash for a runtime, or a reference recorded before it was measured), and the
        p50 without a profiler from the latency table."""
        heads = {"en": ("CPU", "Engine", "convolutions", "of which oneDNN's kernels", "other operators",
                        "around the operators", "whole call, profiled", "p50, not profiled"),
                 "zh": ("CPU", "引擎", "卷积", "其中 oneDNN 内核", "其他算子", "算子之外", "整次调用（开着分析器）",
                        "p50（不开分析器）")}[self.lang]
        group = "case_study/where-a-resnet-50-int8-batch-1-call-s-time-goes-{}-all-cores/{}"
        lines = ["| " + " | ".join(heads) + " |", "|---|---|" + "---:|" * (len(heads) - 2)]
        for k, rows in self.rows.items():
            for engine, step, name in self.PROFILED:
                parts = [rows.get(group.format(engine, part)) for part in self.PARTS]
                latency = rows.get(f"case_study/resnet-50-batch-1-latency-p50-all-cores/{step}")
                if not all(parts) or latency is None:
                    continue
                kernels = rows.get(group.format(engine, self.KERNELS))
                cells = [f"{fmt_value(r['median'], 's')} ({r['params']['share_of_call']:.0%})" for r in parts[:-1]]
                cells.insert(1, fmt_value(kernels["median"], "s") if kernels else "—")
                lines.append(f"| {kind_title(self.references[k]['machine'])} | {name[self.lang]} | "
                             + " | ".join(cells) + f" | {fmt_value(parts[-1]['median'], 's')} | "
                             f"{fmt_value(latency['median'], 's')} |")
        if len(lines) == 2:
            return {"en": "*No reference has profiled these calls yet: "
                          "`python -m bench --full --only case_study` measures yours.*",
                    "zh": "*还没有参考结果分析过这些调用：`python -m bench --full --only case_study` "
                          "可以测你的机器。*"}[self.lang]
        return "\n".join(lines)

    def _elsewhere(self, kind_: str, pattern: str) -> bool:
        """Whether the pattern reaches rows the kind's reference took on another machine of its kind
        (its "elsewhere": row-id prefixes), by its own text or by a row of the kind it matches."""
        prefixes = tuple(self.references[kind_].get("elsewhere", {}))
        return bool(prefixes) and (pattern.startswith(prefixes) or any(
            row_id.startswith(prefixes) for row_id in self.rows[kind_] if fnmatch.fnmatchcase(row_id, pattern)))

    # --- the template functions ---------------------------------------------------------------
    def functions(self) -> dict:
        return {name: getattr(self, name) for name in
                ("ratio", "times", "between", "value", "value_span", "param", "verdicts", "steps", "outcome_word", "interval", "noise", "drift_table",
                 "part_minutes", "paths", "ratio_span", "param_span", "param_max", "runtimes",
                 "pinned", "release_check", "holds_on", "releases_table",
                 "upgrade_summary", "decode_table", "engines_table", "decode_limit", "call_profile", "leave_pytorch", "lead", "tuned",
                 "elsewhere_rows")}


def environment(figures: Figures) -> jinja2.Environment:
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True, **JINJA)
    env.globals.update(figures.functions())
    return env


def render(markdown: str, lang: str = "en", references: list[dict] | None = None, page: str | None = None) -> str:
    """A page's Markdown with its figures filled in, as the site shows it (what claims read); page
    (its file name) says whose named figures {{ fig.<name> }} reads."""
    figures = Figures(references, lang)
    return figures.environment().from_string(markdown).render(fig=Named(figures, page))


def typed_figures(markdown: str) -> list[str]:
    """Measured-looking figures typed into prose (outside code, includes and templates): '1.5×',
    '3.7 times', '83%'; not a size or a count (224×224, 2 × 1). What the audit counts."""
    text = re.sub(r"```.*?```|\{\{.*?\}\}", " ", markdown, flags=re.S)
    text = re.sub(r"`[^`\n]*`|^\s*--8<--.*$|^\s*\|.*$", " ", text, flags=re.M)
    return re.findall(r"\d+(?:\.\d+)?\s*(?:×|times\b|倍|%|x\b)(?!\s*\d)", text)  # not a size: 224×224, 2 × 1
