"""Render a results file into the tables and plots the pages include.

python -m bench.render                      # reference -> docs/results (what the site shows)
python -m bench.render --results R --out D  # any results file, any folder
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench.compare import fmt_ratio, fmt_value
from bench.machine import one_line

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "bench" / "reference.json"
RESULTS_DIR = ROOT / "docs" / "results"

THEMES = {"light": {"text": "#333333", "grid": "#cccccc", "bar": "#e6550d", "base": "#888888"},
          "dark": {"text": "#e0e0e0", "grid": "#555555", "bar": "#fd8d3c", "base": "#aaaaaa"}}


def provenance(results: dict) -> str:
    return (f"Measured on {one_line(results['machine'])}; {results['mode']} mode, "
            f"{results['created'][:10]}. Your numbers: `python -m bench --full`.")


def table(results: dict, technique: str) -> str:
    rows = [r for r in results["results"] if r["technique"] == technique]
    throughput = any("items_per_s" in r for r in rows)
    head = "| Case | Variant | Median | Spread (IQR) | " + ("Items/s | " if throughput else "") + "vs baseline |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        label = f"{r['label']} (baseline)" if r["baseline"] else r["label"]
        spread = "–" if r["spread"] is None else "±" + fmt_value(r["spread"] / 2, r["unit"])
        cells = [r["group"], label, fmt_value(r["median"], r["unit"]), spread]
        if throughput:
            cells.append(f"{r['items_per_s']:.3g}" if "items_per_s" in r else "–")
        cells.append(fmt_ratio(r.get("ratio")))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(results: dict, technique: str, theme: str, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = THEMES[theme]
    rows = [r for r in results["results"] if r["technique"] == technique and r.get("ratio")]
    groups = list(dict.fromkeys(r["group"] for r in rows))
    with plt.rc_context({"svg.hashsalt": "fast-pytorch-cpu", "svg.fonttype": "path",
                         "text.color": colors["text"], "axes.labelcolor": colors["text"],
                         "xtick.color": colors["text"], "ytick.color": colors["text"],
                         "axes.edgecolor": colors["grid"], "font.size": 9}):
        heights = [max(1, sum(r["group"] == g for r in rows)) for g in groups]
        fig, axes = plt.subplots(len(groups), 1, figsize=(7, 0.9 + 0.32 * sum(heights) + 0.45 * len(groups)),
                                 gridspec_kw={"height_ratios": heights}, squeeze=False)
        for ax, group in zip(axes[:, 0], groups):
            members = [r for r in rows if r["group"] == group]
            labels = [r["label"] for r in members][::-1]
            ratios = [r["ratio"] for r in members][::-1]
            bar_colors = [colors["base"] if r["baseline"] else colors["bar"] for r in members][::-1]
            ax.barh(labels, ratios, color=bar_colors)
            ax.axvline(1.0, color=colors["text"], linewidth=0.8, linestyle="--")
            for y, ratio in enumerate(ratios):
                ax.text(ratio, y, f" {ratio:.2f}×", va="center", color=colors["text"])
            ax.set_title(group, loc="left", color=colors["text"], fontsize=9)
            ax.set_xlim(0, max(ratios) * 1.25)
            ax.set_facecolor("none")
            ax.grid(axis="x", color=colors["grid"], linewidth=0.5)
            ax.set_axisbelow(True)
        axes[-1, 0].set_xlabel("times better than the baseline (higher is better)")
        fig.patch.set_alpha(0)
        fig.tight_layout()
        # tight_layout() leaves a placeholder layout engine, for which savefig draws the whole
        # figure once more before drawing it into the file: none, same file, a quarter less time.
        fig.set_layout_engine(None)
        fig.savefig(path, format="svg", metadata={"Date": None, "Creator": None})
        plt.close(fig)


def page_fragment(results: dict, technique: str) -> str:
    title = results["techniques"][technique]
    return (f"{table(results, technique)}\n\n"
            f"![{title}: measured speed-ups]({RESULTS_DIR.name}/{technique}-light.svg#only-light)\n"
            f"![{title}: measured speed-ups]({RESULTS_DIR.name}/{technique}-dark.svg#only-dark)\n\n"
            f"<small>{provenance(results)}</small>\n")


def render(results: dict, out: Path) -> list[Path]:
    """Write <technique>.md and its two plots per technique, and machine.md; return the paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for technique in results["techniques"]:
        md = out / f"{technique}.md"
        md.write_text(page_fragment(results, technique))
        written.append(md)
        for theme in THEMES:
            svg = out / f"{technique}-{theme}.svg"
            plot(results, technique, theme, svg)
            written.append(svg)
    machine = out / "machine.md"
    m = results["machine"]
    isa = ", ".join(f"{k.upper()}: {'yes' if v else 'no'}" for k, v in m["isa"].items())
    peak = f"{m['peak_fp32_gflops']:.0f} GFLOP/s" if m.get("peak_fp32_gflops") else "unknown"
    machine.write_text(
        "| Machine | |\n|---|---|\n"
        f"| CPU | {m['cpu_model']} ({m['arch']}) |\n"
        f"| Cores | {m['physical_cores']} physical, {m['logical_cores']} logical, {m['usable_cores']} usable |\n"
        f"| ISA | {isa} |\n| torch CPU capability | {m['torch_cpu_capability']} |\n"
        f"| Theoretical FP32 peak | {peak} ({m['mhz']:.0f} MHz) |\n"
        f"| torch / Python | {m['torch']} / {m['python']} |\n"
        f"| Default threads (intra-op / inter-op) | {m['default_threads']} / {m['interop_threads']} |\n"
        f"| Run | {results['mode']} mode, {results['created']}, {results['seconds']} s |\n")
    written.append(machine)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.render", description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=REFERENCE)
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = parser.parse_args(argv)
    if not args.results.is_file():
        parser.error(f"no results file at {args.results}; run python -m bench first")
    for path in render(json.loads(args.results.read_text()), args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
