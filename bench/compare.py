"""Formatting results: values with units, and a reader's run beside every reference."""
from __future__ import annotations

import re
import textwrap

from bench.machine import kind, one_line


def fmt_value(value: float | None, unit: str) -> str:
    if value is None:
        return "–"
    if unit == "s":
        for scale, name in ((1, "s"), (1e-3, "ms"), (1e-6, "µs")):
            if value >= scale:
                return f"{value / scale:.3g} {name}"
        return f"{value * 1e9:.3g} ns"
    return f"{value:.3g} {unit}"


def fmt_ratio(ratio: float | None) -> str:
    return "–" if ratio is None else f"{ratio:.2f}×"


def short_ratio(ratio: float | None) -> str:
    """fmt_ratio in at most six characters: a hundredfold or more without decimals (3833×)."""
    return f"{ratio:.0f}×" if ratio is not None and ratio >= 100 else fmt_ratio(ratio)


def by_id(results: dict) -> dict[str, dict]:
    return {row["id"]: row for row in results["results"]}


WIDTH = 80  # a terminal's columns, which the side-by-side tables fit


def side_by_side(mine: dict | None, references: list[dict], technique: str | None = None) -> str:
    """A text table per group: the reader's value and ratio, then each reference's ratio, lined
    up by row id. With mine=None, the references alone; with technique, that technique's rows."""
    runs = ([("yours", mine)] if mine else []) + [(kind(r["machine"]), r) for r in references]
    lines = [] if technique else [line for name, r in runs for line in textwrap.wrap(
        f"{name + ':':18} {one_line(r['machine'])} ({r['mode']} mode)", WIDTH, subsequent_indent=" " * 19)]
    rows = by_id(mine) if mine else {}
    for r in ([] if mine else references):  # the references alone: every row any of them has
        rows.update({i: row for i, row in by_id(r).items() if i not in rows})
    others = [by_id(r) for _, r in runs]
    # A column's head: the vendor over the ISA level, split at its hyphens ("avx512" over "bf16"),
    # so that each column is as narrow as its ratios; the variant's column gives way (down to 12
    # characters, the rest cut) so that yours and five references fit 80 columns
    heads = [["", "ratio"] if name == "yours" else [name.split("-", 1)[0], *name.split("-", 1)[1].split("-")]
             for name, _ in runs]
    depth = max(len(head) for head in heads)
    heads = [[head[0], *[""] * (depth - len(head)), *head[1:]] for head in heads]  # levels bottom-aligned
    shown = [i for i, row in rows.items() if not technique or row["technique"] == technique]
    if not shown:  # the reader's run has no row of this technique (it predates it, or ran --only others)
        return "\n".join(lines)
    widths = [1 + max(6, *map(len, head), *(len(short_ratio(found.get(i, {}).get("ratio"))) for i in shown))
              for head, found in zip(heads, others)]
    values = {i: fmt_value(rows[i]["median"], rows[i]["unit"]) for i in shown} if mine else {}
    value_width = 1 + max(5, *map(len, values.values())) if mine else 0
    name_width = max(12, min(30, WIDTH - 2 - value_width - sum(widths)))
    group = None
    for row_id in shown:
        row = rows[row_id]
        if (row["technique"], row["group"]) != group:
            group = row["technique"], row["group"]
            title = row["group"] if technique else f"{row['technique']} / {row['group']}"
            lines += [""] * bool(lines) + textwrap.wrap(title, WIDTH) + [
                f"  {'variant' if line == depth - 1 else '':{name_width}}"
                + f"{'yours' if mine and line == depth - 1 else '':>{value_width}}"
                + "".join(f"{head[line]:>{w}}" for head, w in zip(heads, widths)).rstrip() for line in range(depth)]
        value = f"{values[row_id]:>{value_width}}" if mine else ""
        ratios = "".join(f"{short_ratio(found.get(row_id, {}).get('ratio')):>{w}}" for found, w in zip(others, widths))
        label = row["label"] if len(row["label"]) <= name_width else row["label"][:name_width - 1] + "…"
        lines.append(f"  {label:{name_width}}{value}{ratios}")
    return "\n".join(lines)


def column_head(kind_name: str) -> str:
    """A pattern for a reference's column head in side_by_side's tables: the vendor over the ISA
    level's parts, one per line."""
    vendor, *level = kind_name.split("-")
    return rf"{vendor}[^\n]*\n(?:[^\n]*\n)*?" + "".join(rf"[^\n]*\b{re.escape(part)}\b[^\n]*\n" for part in level)
