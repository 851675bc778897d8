"""Formatting results: values with units, and a reader's run beside every reference."""
from __future__ import annotations

import re

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


def by_id(results: dict) -> dict[str, dict]:
    return {row["id"]: row for row in results["results"]}


def side_by_side(mine: dict | None, references: list[dict], technique: str | None = None) -> str:
    """A text table per group: the reader's value and ratio, then each reference's ratio, lined
    up by row id. With mine=None, the references alone; with technique, that technique's rows."""
    runs = ([("yours", mine)] if mine else []) + [(kind(r["machine"]), r) for r in references]
    lines = [] if technique else [f"{name + ':':18} {one_line(r['machine'])} ({r['mode']} mode)" for name, r in runs]
    rows = by_id(mine) if mine else {}
    for r in ([] if mine else references):  # the references alone: every row any of them has
        rows.update({i: row for i, row in by_id(r).items() if i not in rows})
    others = [by_id(r) for _, r in runs]
    # A column's head on two lines, vendor over "× level", so that four references fit 80 columns
    heads = [("", name) if name == "yours" else tuple(name.split("-", 1)) for name, _ in runs]
    widths = [max(7, len(level) + 3) for _, level in heads]
    group = None
    for row_id, row in rows.items():
        if technique and row["technique"] != technique:
            continue
        if (row["technique"], row["group"]) != group:
            group = row["technique"], row["group"]
            lines += [""] * bool(lines) + [row["group"] if technique else f"{row['technique']} / {row['group']}",
                      f"  {'':30}" + ("" if not mine else f"{'':>10}")
                      + "".join(f"{vendor:>{w}}" for (vendor, _), w in zip(heads, widths)),
                      f"  {'variant':30}" + ("" if not mine else f"{'yours':>10}")
                      + "".join(f"{'× ' + level:>{w}}" for (_, level), w in zip(heads, widths))]
        value = f"{fmt_value(row['median'], row['unit']):>10}" if mine else ""
        ratios = "".join(f"{fmt_ratio(found.get(row_id, {}).get('ratio')):>{w}}" for found, w in zip(others, widths))
        label = row["label"] if len(row["label"]) <= 30 else row["label"][:29] + "…"
        lines.append(f"  {label:30}{value}{ratios}")
    return "\n".join(lines)


def column_head(kind_name: str) -> str:
    """A pattern for a reference's column head in side_by_side's tables: vendor over "× level"."""
    vendor, level = kind_name.split("-", 1)
    return rf"{vendor}[^\n]*\n[^\n]*× {re.escape(level)}\b"
