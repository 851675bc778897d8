"""Render the committed references into the tables and plots the pages include, every CPU kind
side by side.

python -m bench.render                        # bench/references/*.json -> docs/results
python -m bench.render --results R [R ...] --out D   # any results files, any folder
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from pathlib import Path

from bench import machine
from bench.cases import techniques
from bench.compare import by_id, fmt_ratio, fmt_value
from bench.machine import kind, kind_colors, kind_order, kind_title, machine_name, microarchitecture, one_line
from bench.references import load_all, recordings, same_cpu, unmeasured
from bench.words import ZH_SIZES, say, zh_names, zh_notes

ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = ROOT / "docs" / "results"

# Each kind's own colour comes from bench.machine.KINDS, per theme of machine.THEMES (light, dark);
# gain and loss colour the waterfall's steps
THEMES = dict(zip(machine.THEMES, (
    {"text": "#333333", "grid": "#cccccc", "gain": "#31a354", "loss": "#e6550d"},
    {"text": "#e0e0e0", "grid": "#555555", "gain": "#74c476", "loss": "#fd8d3c"}), strict=True))
# Chinese text in the plots falls back to Noto Sans CJK (Debian's fonts-noto-cjk, which .ci/run
# installs); the SVGs draw each glyph as a path, so a reader needs no font.
FONTS = {"en": {}, "zh": {"font.family": ["DejaVu Sans", "Noto Sans CJK SC"]}}
# Parameters that describe the machine or the run, not the workload: not shown as "sizes".
NOT_SIZES = {"num_threads", "isa", "usable_cores", "LD_PRELOAD", "mhz", "cores", "runs", "requests",
             # the case study's per-row results, shown by step_details
             "step", "tuned_path", "precision", "gflops", "share_of_peak", "top1_agreement_pct",
             "max_abs_logit_diff", "p99_s", "compile_s", "load_s", "package_mb",
             "target_accuracy_pct", "accuracy_pct", "epochs_to_target", "images_per_s", "compared_step",
             "allocator", "kept"}

def value(number: float | None, unit: str, lang: str) -> str:
    """fmt_value in the language: its units are SI, but for samples/s."""
    return fmt_value(number, unit).replace("samples/s", say("samples/s", lang))


def groups(references: list[dict], technique: str) -> dict[str, dict[str, str]]:
    """{group: {row id: label}} in the order the references measured them."""
    found: dict[str, dict[str, str]] = {}
    for ref in references:
        for row in ref["results"]:
            if row["technique"] == technique:
                found.setdefault(row["group"], {}).setdefault(row["id"], row["label"])
    return found


def sizes_note(references: list[dict], ids: set[str], lang: str = "en") -> str:
    """The workload sizes every machine used for these rows, e.g. 'batch size 256, size 1024'."""
    values: dict[str, set] = {}
    for ref in references:
        for row in ref["results"]:
            if row["id"] in ids:
                for k, v in row["params"].items():
                    if k not in NOT_SIZES:
                        values.setdefault(k, set()).add(json.dumps(v))
    shared = [(k.replace("_", " "), json.loads(next(iter(v)))) for k, v in values.items() if len(v) == 1]
    shared = [(k, say(", ", lang).join(map(str, v)) if isinstance(v, list) else say(v, lang) if isinstance(v, str) else v)
              for k, v in shared]  # a list of names as words, not Python's repr
    if lang == "en":
        return ", ".join(f"{k} {v}" for k, v in shared)
    return "，".join(f"{ZH_SIZES.get(k, k)} {v}" for k, v in shared)


def small_note(note: str, lang: str) -> str:
    return "" if not note else f" <small>({note})</small>" if lang == "en" else f" <small>（{note}）</small>"


def table(references: list[dict], technique: str, lang: str = "en") -> str:
    """One narrow table per group: the variant, then per machine the ratio over the median, so that
    a column per CPU kind still fits a phone's screen."""
    heads = [kind_title(r["machine"]) for r in references]
    rows = [by_id(r) for r in references]
    out = []
    for group, members in groups(references, technique).items():
        out.append(f"**{say(group, lang)}**" + small_note(sizes_note(references, set(members), lang), lang))
        out.append("")
        out.append(f"| {say('Variant', lang)} | " + " | ".join(heads) + " |")
        out.append("|---|" + "---:|" * len(heads))
        for row_id, label in members.items():
            cells = []
            for found in rows:
                row = found.get(row_id)
                cells.append("–" if row is None else
                             f"**{fmt_ratio(row.get('ratio'))}**<br>"
                             f"<small>{value(row['median'], row['unit'], lang).replace(' ', '&nbsp;')}</small>")
            # the baseline row says so, unless its label already does ("baseline")
            base = any(found.get(row_id, {}).get("baseline") for found in rows) and label.lower() != "baseline"
            out.append(f"| {say(label, lang)}{say(' (baseline)', lang) if base else ''} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def spread(row: dict, lang: str = "en") -> str:
    """The interquartile range and how many samples it is taken over; one sample has no spread."""
    if row["runs"] < 2 or row["spread"] is None:
        return f"n={row['runs']}"
    return f"IQR {value(row['spread'], row['unit'], lang)}, n={row['runs']}"


def all_figures(references: list[dict], technique: str, lang: str = "en") -> str:
    """Every measured value with its spread, per machine, in a collapsed block."""
    lines = [f'??? info "{say("Every figure: medians, interquartile ranges (IQR) and sample counts", lang)}"', ""]
    for ref in references:
        lines += [f"    **{kind_title(ref['machine'])}**", "",
                  f"    {say('| Case | Variant | Median | Spread |', lang)}", "    |---|---|---:|---|"]
        for row in ref["results"]:
            if row["technique"] == technique:
                lines.append(f"    | {say(row['group'], lang)} | {say(row['label'], lang)} | "
                             f"{value(row['median'], row['unit'], lang)} | {spread(row, lang)} |")
        lines.append("")
    return "\n".join(lines)


def provenance(references: list[dict], technique: str, lang: str = "en") -> str:
    lines = []
    for ref in references:
        reasons: dict[str, list[str]] = {}  # one reason for several rows is said once
        for what, why in unmeasured(ref).items():
            if what.split("/")[0] == technique:
                reasons.setdefault(why, []).append("" if what == technique else what.split("/", 1)[1])
        gaps = [f" *{say('Not shown', lang)}{' (' + ', '.join(whats) + ')' if any(whats) else ''}: {say(why, lang)}*"
                for why, whats in reasons.items()]
        machine_line = one_line(ref["machine"])
        if lang == "zh":
            machine_line = re.sub(r", (\d+) cores, ", r"，\1 个核心，", machine_line)
        # the recordings that measured the technique: its first run's date, then each later one
        measured = [i for i, rows in enumerate(recordings(ref)) if any(i_.startswith(technique + "/") for i_ in rows)] or [0]
        created = (ref.get("measured_separately", {}).get(technique, {}).get("created") or ref["created"]) \
            if measured[0] == 0 else ref["recordings"][measured[0] - 1]["created"]
        again = [ref["recordings"][i - 1] for i in measured[1:]]
        later = ""
        if again:
            dates = say(", ", lang).join(
                rec["created"][:16].replace("T", " ") + (f" ({machine_name(rec['machine'])}, {say('family', lang)} {rec['machine'].get('cpu_family')})"
                                       if not same_cpu(rec["machine"], ref["machine"]) else "") for rec in again)
            later = f" {say('Recorded again (the verdicts hold only where they hold in each):', lang)} {dates}."
        titles = {row["id"].split("/")[1]: row["group"] for row in ref["results"] if row["technique"] == technique}
        elsewhere = sorted({say(titles.get(i.split("/")[1], i.split("/")[1]), lang)
                            for i in ref.get("elsewhere", {}) if i.split("/")[0] == technique})
        if elsewhere:
            later += (f" *{say('Measured in a later recording, on another machine of the kind:', lang)} "
                      f"{say('; ', lang).join(elsewhere)}.*")
        lines.append(f"- **{kind_title(ref['machine'])}**: {machine_line}; {ref['mode']}{say(' mode, ', lang)}"
                     f"{created[:10]}.{later}" + "".join(gaps))
    return (say("Ratios are times better than the group's baseline (higher is better), measured side by "
                "side in each run of a machine:", lang)
            + "\n\n" + "\n".join(lines) + "\n\n" + say("Your numbers: `python -m bench --full`.", lang))


def style(theme: str, lang: str) -> dict:
    """The plots' matplotlib settings: the theme's text and grid colours, the language's fonts,
    SVGs that are the same bytes for the same figure."""
    colors = THEMES[theme]
    return {**FONTS[lang], "svg.hashsalt": "fast-pytorch-cpu", "svg.fonttype": "path",
            "text.color": colors["text"], "axes.labelcolor": colors["text"], "xtick.color": colors["text"],
            "ytick.color": colors["text"], "axes.edgecolor": colors["grid"], "font.size": 9}


def _lay_out(fig, **tight) -> None:
    fig.tight_layout(**tight)
    # tight_layout() leaves a placeholder layout engine, for which savefig draws the whole
    # figure once more before drawing it into the file: none, same file, a quarter less time.
    fig.set_layout_engine(None)


def theme_colours(theme: str) -> dict[str, str]:
    """{colour in the first theme: the same role's colour in `theme`}: text, grid, gain and loss,
    and each kind's bars (the listed kinds' and the spare colours)."""
    column = machine.THEMES.index(theme)
    pairs = {(first, THEMES[theme][role]) for role, first in THEMES[machine.THEMES[0]].items()}
    pairs |= {(colours[0], colours[column]) for colours in (*machine.KINDS.values(), *machine.SPARE_COLORS)}
    mapping = dict(pairs)
    assert len(mapping) == len(pairs), f"a colour of the first theme has two roles with different colours in {theme}"
    return mapping


def recolour(svg: str, theme: str) -> str:
    """A plot drawn in the first theme, in another: each theme colour swapped for its counterpart.
    The themes differ in colours only, so this is the figure drawn in that theme (tests/test_kinds.py
    checks it against drawing it), at half the time of drawing every figure twice."""
    mapping = theme_colours(theme)
    return re.sub(r"#[0-9a-f]{6}\b", lambda m: mapping.get(m.group(0), m.group(0)), svg)


def plot(references: list[dict], technique: str, theme: str, path: Path, lang: str = "en") -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    colors = THEMES[theme]
    machines = kind_colors([kind(r["machine"]) for r in references], theme)
    rows_of = [by_id(r) for r in references]
    heads = [kind_title(r["machine"]) for r in references]
    found = groups(references, technique)
    n = len(references)
    with plt.rc_context(style(theme, lang)):
        heights = [len(members) * (0.35 + 0.22 * n) for members in found.values()]
        fig, axes = plt.subplots(len(found), 1, figsize=(7, 1.2 + sum(heights) + 0.55 * len(found)),
                                 gridspec_kw={"height_ratios": heights}, squeeze=False)
        for ax, (group, members) in zip(axes[:, 0], found.items()):
            labels = [say(label, lang) for label in members.values()]
            ratios = [rows[i]["ratio"] for rows in rows_of for i in members if rows.get(i, {}).get("ratio")] or [1.0]
            log = max(ratios) / min(ratios) > 20  # a linear axis would hide the small bars
            bar = 0.8 / n
            for m, rows in enumerate(rows_of):
                for y, row_id in enumerate(members):
                    row = rows.get(row_id)
                    if row is None:
                        continue
                    pos = y + (m - (n - 1) / 2) * bar
                    ratio = row.get("ratio")
                    if ratio:
                        ax.barh(pos, ratio, height=bar, color=machines[m])
                    # A ratio that rounds to 0.00× says nothing: show the measured value instead.
                    text = fmt_ratio(ratio) if ratio and ratio >= 0.01 else fmt_value(row["median"], row["unit"])
                    ax.text(ratio or (min(ratios) if log else 0), pos, f" {text}", va="center", fontsize=7,
                            color=colors["text"])
            ax.set_yticks(range(len(labels)), [textwrap.fill(label, 34 if lang == "en" else 20) for label in labels])
            ax.invert_yaxis()
            ax.axvline(1.0, color=colors["text"], linewidth=0.8, linestyle="--")
            ax.set_title(textwrap.fill(say(group, lang), 70 if lang == "en" else 40), loc="left",
                         color=colors["text"], fontsize=9)
            if log:
                ax.set_xscale("log")
                ax.set_xlim(min(min(ratios), 1) / 1.5, max(ratios) * 4)
            else:
                ax.set_xlim(0, max(ratios) * 1.3)
            ax.set_facecolor("none")
            ax.grid(axis="x", color=colors["grid"], linewidth=0.5)
            ax.set_axisbelow(True)
            ax.set_xlabel(say("log scale", lang) if log else "", fontsize=7)
        axes[-1, 0].set_xlabel(say("times better than the baseline (dashed line: the baseline, 1×)", lang)
                               + (say("; log scale", lang) if log else ""))
        handles = [Patch(color=machines[m], label=head) for m, head in enumerate(heads)]
        fig.legend(handles=handles, loc="upper center", ncol=min(n, 3), frameon=False)
        fig.patch.set_alpha(0)
        _lay_out(fig, rect=(0, 0, 1, 1 - 0.35 / fig.get_figheight()))
        fig.savefig(path, format="svg", metadata={"Date": None, "Creator": None})
        plt.close(fig)


def waterfall_groups(references: list[dict]) -> dict[str, list[str]]:
    """{group: row ids in step order} for the groups whose rows are cumulative steps (params
    "step"), the case study's regimes."""
    found: dict[str, dict[str, int]] = {}
    for ref in references:
        for row in ref["results"]:
            if row["params"].get("step") is not None:  # None: a row beside the steps (llama.cpp)
                found.setdefault(row["group"], {})[row["id"]] = row["params"]["step"]
    return {group: sorted(steps, key=steps.get) for group, steps in found.items()}


def waterfall(references: list[dict], group: str, theme: str, path: Path, lang: str = "en") -> None:
    """Each cumulative step's factor, one panel per machine that measured the group: a bar from
    where the previous step left the speed-up to where this one takes it (log axis, so each bar's
    length is the step's share of the total gain). A step left out of that machine's tuned path
    (params "tuned_path" false: bf16 without native bf16, say) is drawn hollow beside the path, not
    added to it: shown, not hidden."""
    import math

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = THEMES[theme]
    order = waterfall_groups(references)[group]
    measured = [r for r in references if any(row["group"] == group for row in r["results"])]
    with plt.rc_context(style(theme, lang)):
        fig, axes = plt.subplots(len(measured), 1, figsize=(7, 0.6 + 0.42 * len(order) * len(measured) + 0.6),
                                 squeeze=False)
        for ax, ref in zip(axes[:, 0], measured):
            rows = by_id(ref)
            level, labels, highest = 1.0, [], 1.0
            for y, row_id in enumerate(order):
                row = rows.get(row_id)
                labels.append(textwrap.fill(say(row["label"], lang) if row else row_id.rsplit("/", 1)[1],
                                            30 if lang == "en" else 18))
                if row is None or not row.get("ratio"):
                    continue
                on_path = row["params"].get("tuned_path", True)
                new = row["ratio"] if on_path else level * row["ratio"] / _path_ratio(rows, order, y)
                start, end = (level, new)
                if row["params"].get("compared_step"):  # another runtime: from the PyTorch step it is compared with
                    beside = next((rows[i] for i in order if rows.get(i) and rows[i]["params"]["step"]
                                   == row["params"]["compared_step"] and rows[i].get("ratio")), None)
                    start = level * beside["ratio"] / _path_ratio(rows, order, y) if beside else level
                gain = end >= start
                ax.barh(y, math.log10(end) - math.log10(start), left=math.log10(start), height=0.6,
                        color=(colors["gain"] if gain else colors["loss"]) if on_path else "none",
                        edgecolor=colors["text"] if not on_path else "none", hatch=None if on_path else "//")
                step = end / start
                # compared with another row: PyTorch's (another runtime) or the control's (an allocator)
                aside = say((" vs glibc" if row["params"].get("allocator") else " vs PyTorch")
                            if row["params"].get("compared_step") else " (not taken)", lang)
                ax.text(math.log10(max(start, end)), y, f" {fmt_ratio(step)}" + ("" if on_path else aside),
                        va="center", fontsize=7, color=colors["text"])
                if on_path:
                    level = new
                highest = max(highest, start, end)
            ax.set_yticks(range(len(order)), labels)
            ax.invert_yaxis()
            ticks = [t for t in (1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 500) if t <= highest * 1.5]
            ax.set_xticks([math.log10(t) for t in ticks], [f"{t}×" for t in ticks])
            ax.set_xlim(min(0, *(ax.get_xlim()[:1])), math.log10(highest) * 1.25 + 0.05)
            ax.set_title(textwrap.fill(f"{kind_title(ref['machine'])}: {say(group, lang)}{say(', total ', lang)}"
                                       f"{fmt_ratio(level)}", 70 if lang == "en" else 40),
                         loc="left", fontsize=9, color=colors["text"])
            ax.set_facecolor("none")
            ax.grid(axis="x", color=colors["grid"], linewidth=0.5)
            ax.set_axisbelow(True)
        axes[-1, 0].set_xlabel(say("speed-up over the naive loop, log scale: each bar is one step's factor", lang))
        fig.patch.set_alpha(0)
        _lay_out(fig)
        fig.savefig(path, format="svg", metadata={"Date": None, "Creator": None})
        plt.close(fig)


def _path_ratio(rows: dict, order: list[str], index: int) -> float:
    """The ratio of the last step before order[index] that is on the tuned path (1.0 if none):
    what a step left off the path was measured on top of."""
    for row_id in reversed(order[:index]):
        row = rows.get(row_id)
        if row and row.get("ratio") and row["params"].get("tuned_path", True):
            return row["ratio"]
    return 1.0


def step_details(references: list[dict], technique: str, lang: str = "en") -> str:
    """The case study's per-step figures the ratio table leaves out: GFLOP/s and its share of
    the step's precision, batch-1 p99, parity with fp32 eager and compile time, per machine."""
    lines = []
    for ref in references:
        rows = [r for r in ref["results"] if r["technique"] == technique and "gflops" in r["params"]
                and r["unit"] == "samples/s"]
        for group in dict.fromkeys(r["group"] for r in rows):  # one table per model, in run order
            lines += [f"**{kind_title(ref['machine'])}: {group.split(' throughput')[0]}**", "",
                      say("| Step | Batch | GFLOP/s or int8 GOPS (share of peak) | Batch-1 p99 | Top-1 agreement, max logit diff |", lang),
                      "|---|---:|---:|---:|---:|"]
            lines += [_step_line(r, lang) for r in rows if r["group"] == group] + [""]
    if not lines:
        return ""
    return (f'??? info "{say("Every step: GFLOP/s against the peak, p99 latency, parity and compile time", lang)}"\n\n'
            + "\n".join(("    " + line) if line else "" for line in lines) + "\n\n")


def _step_line(r: dict, lang: str) -> str:
    """One row of step_details' table."""
    p = r["params"]
    share = say(" ({:.0%} of {})", lang).format(p["share_of_peak"], p["precision"]) if p.get("share_of_peak") else ""
    # another runtime: export and conversion (an allocator row compiles step 7 in its own process)
    built = "built in {:.0f}&nbsp;s" if p.get("compared_step") and not p.get("allocator") else "compiled in {:.0f}&nbsp;s"
    compiled = f"<br><small>{say(built, lang).format(p['compile_s'])}</small>" if p.get("compile_s") else ""
    if p.get("load_s"):
        compiled += f"<br><small>{say('loads in {:.1f}&nbsp;s', lang).format(p['load_s'])}</small>"
    return (f"| {say(r['label'], lang)}{compiled} | {p['batch']} | {p['gflops']:.0f}{share} | {fmt_value(p['p99_s'], 's')} | "
            f"{p['top1_agreement_pct']:.0f}%, {p['max_abs_logit_diff']:.1g} |")


def page_fragment(references: list[dict], technique: str, lang: str = "en") -> str:
    title = say(techniques().get(technique, technique), lang)
    plots = f"{RESULTS_DIR.name}/" + ("zh/" if lang == "zh" else "")
    return (f"{table(references, technique, lang)}\n"
            + step_details(references, technique, lang)
            # Each plot links to itself: on a phone, a tap opens it full size.
            + "".join(f"[![{title}{say(': measured speed-ups on each machine', lang)}]({plots}{technique}-{theme}.svg"
                      f"#only-{theme})]({plots}{technique}-{theme}.svg)\n" for theme in THEMES)
            + f"\n{all_figures(references, technique, lang)}\n\n"
            f"<small>{provenance(references, technique, lang)}</small>\n")


def measured_clock(reference: dict) -> float | None:
    """The clock measured on the reference's machine: its run's, or where that run's clock loop
    failed, the later run's that recorded the peak rows (measured_separately's vectorise)."""
    return reference["machine"].get("measured_mhz") or \
        reference.get("measured_separately", {}).get("vectorise", {}).get("measured_mhz")


def run_time(reference: dict, lang: str = "en") -> str:
    """How long the reference's full run took: the sum of its techniques' times where it has one
    for each (technique_seconds, which --update-reference --only keeps current). Else the first
    run's own time (`seconds`, which parts recorded later on their own never update), then those
    parts' times apart (measured_separately: the time of the run that recorded them), and no sum:
    what the first run measured of those parts is in its time, and no reference says how much."""
    def took(seconds: float) -> str:
        return f"{seconds:.0f}&nbsp;s" if seconds < 60 else say("{:.0f}&nbsp;min", lang).format(seconds / 60)

    each = reference.get("technique_seconds") or {}
    if set(reference["techniques"]) <= set(each):
        return say("{}, the sum of its techniques' times", lang).format(took(sum(each[t] for t in reference["techniques"])))
    runs: dict[str, tuple[float, list[str]]] = {}  # parts recorded by one later run, together
    for name, part in reference.get("measured_separately", {}).items():
        runs.setdefault(part["created"], (part["seconds"], []))[1].append(say(reference["techniques"][name], lang))
    later = [say(" and ", lang).join(names) + " " + took(seconds) for _, (seconds, names) in sorted(runs.items())]
    return took(reference["seconds"]) + (say("; later, on their own: ", lang) + say(", ", lang).join(later) if later else "")


def machine_table(references: list[dict], lang: str = "en") -> str:
    """Every reference machine, one column each."""
    def isa(m):
        return ", ".join(k.upper() for k, v in m["isa"].items() if v) or "no AVX"

    def peak(r):
        m = r["machine"]
        peaks = m.get("peak_gflops") or {}
        if not peaks:
            return say("unknown (no /proc/cpuinfo)", lang)
        # one peak per machine: at the clock measured on it (measured_clock), not the one the run's
        # peaks were computed at when its own clock loop failed (the reported base clock)
        scale = measured_clock(r) / (m.get("measured_mhz") or m["mhz"]) if measured_clock(r) else 1
        basis = say(" (FMA units inferred)", lang) if "inferred" in (m.get("peak_basis") or "") else ""
        return "<br>".join(f"{p} {v * scale:.0f}&nbsp;{'GOPS' if p == 'int8' else 'GFLOP/s'}{basis if p == 'fp32' else ''}"
                           for p, v in peaks.items())

    def clock(r):
        m = r["machine"]
        measured = say(", measured {:.0f}", lang).format(measured_clock(r)) if measured_clock(r) else ""
        return say("{:.0f} MHz reported", lang).format(m["mhz"]) + measured

    fields = [("CPU", lambda r: f"{r['machine']['cpu_model']} ({r['machine']['arch']})"),
              ("Cores", lambda r: say("{} physical, {} usable", lang).format(r["machine"]["physical_cores"],
                                                                             r["machine"]["usable_cores"])),
              ("ISA flags", lambda r: isa(r["machine"])),
              ("torch CPU capability", lambda r: r["machine"]["torch_cpu_capability"]),
              ("Clock", clock),
              ("Theoretical peak, native precisions", peak),
              ("torch / Python", lambda r: f"{r['machine']['torch']} / {r['machine']['python']}"),
              ("Run", lambda r: f"{r['mode']}{say(' mode, ', lang)}{r['created'][:10]}, {run_time(r, lang)}")]
    lines = ["| | " + " | ".join(kind_title(r["machine"]) for r in references) + " |",
             "|---|" + "---|" * len(references)]
    lines += [f"| {say(name, lang)} | " + " | ".join(get(r) for r in references) + " |" for name, get in fields]
    notes = [f"- **{kind_title(r['machine'])}**: " + ("" if lang == "zh" else " ").join(
        text for text in (say(r["notes"], lang) if r.get("notes") else "", recorded_again(r, lang)) if text)
        for r in references if r.get("notes") or r.get("recordings")]
    return "\n".join(lines) + "\n" + ("\n" + "\n".join(notes) + "\n" if notes else "")


def recorded_again(reference: dict, lang: str = "en") -> str:
    """The later recordings merged into a reference (its "recordings"), when and on which CPU: the
    machine block describes the first recording's machine only, while every verdict and range the
    pages show spans them all (bench.figures: cell, ratio_span), so a range's ends may be theirs."""
    again = reference.get("recordings", [])
    if not again:
        return ""
    by_cpu: dict[str, list[str]] = {}  # one CPU's recordings said together, oldest first
    for rec in again:
        m = rec["machine"]
        cpu = say("the same CPU", lang) if same_cpu(m, reference["machine"]) else say("{}, family {}", lang).format(
            f"{m['cpu_model']} ({microarchitecture(m)})" if microarchitecture(m) else m["cpu_model"], m.get("cpu_family"))
        by_cpu.setdefault(cpu, []).append(rec["created"][:16].replace("T", " "))
    where = [say("on {}: {}", lang).format(cpu, say(", ", lang).join(times)) for cpu, times in by_cpu.items()]
    others = [rec for rec in again if not same_cpu(rec["machine"], reference["machine"])]
    text = say("Recorded again {}, each merged into this kind's verdicts and ranges (a verdict holds only "
               "where it holds in each recording, and a range's ends may come from any of them): {}.", lang).format(
        say("once", lang) if len(again) == 1 else say("{} times", lang).format(len(again)), say("; ", lang).join(where))
    if others:
        text += ("" if lang == "zh" else " ") + say("The table above describes the first recording's machine only.", lang)
    return text


def headline(references: list[dict], lang: str = "en") -> str:
    """Home's table: per technique and CPU kind, the verdict on the variant a reader should use
    (its RECOMMENDED rows, every group that measured them), inference and training apart."""
    from bench.figures import Figures
    return Figures(references, lang).headline()


def themed(draw, path_of) -> list[Path]:
    """draw(theme, path) in the first theme, the others recoloured from it; the paths written."""
    first, *others = machine.THEMES
    draw(first, path_of(first))
    for theme in others:
        path_of(theme).write_text(recolour(path_of(first).read_text(), theme))
    return [path_of(theme) for theme in machine.THEMES]


def render(references: list[dict], out: Path, plots: bool = True) -> list[Path]:
    """Write <technique>.md and its two plots per technique, machine.md and headline.md, in English
    into out and in Chinese into out/zh; return the paths. plots=False: the Markdown alone (the
    tables take a second, the plots most of a minute)."""
    references = sorted(references, key=lambda r: kind_order(r["machine"]))
    measured = [t for t in techniques() if t in {row["technique"] for r in references for row in r["results"]}]
    written = []
    for lang, folder in (("en", out), ("zh", out / "zh")):
        folder.mkdir(parents=True, exist_ok=True)
        for technique in measured:
            md = folder / f"{technique}.md"
            md.write_text(page_fragment(references, technique, lang))
            written.append(md)
            if plots:
                written += themed(lambda theme, svg: plot(references, technique, theme, svg, lang),
                                  lambda theme: folder / f"{technique}-{theme}.svg")
        for group, order in waterfall_groups(references).items():
            if plots:  # the group's slug in its row ids
                written += themed(lambda theme, svg: waterfall(references, group, theme, svg, lang),
                                  lambda theme: folder / f"waterfall-{order[0].split('/')[1]}-{theme}.svg")
        for name, text in (("machine.md", machine_table(references, lang)), ("headline.md", headline(references, lang))):
            (folder / name).write_text(text)
            written.append(folder / name)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.render", description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, nargs="+", help="results files (default: every reference)")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = parser.parse_args(argv)
    missing = [str(p) for p in args.results or [] if not p.is_file()]
    if missing:
        parser.error(f"no results file at {', '.join(missing)}; run python -m bench first")
    references = [json.loads(p.read_text()) for p in args.results] if args.results else load_all()
    for path in render(references, args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
