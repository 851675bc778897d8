"""Formatting results: values with units, and a reader's run beside the reference."""
from __future__ import annotations


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


def key(row: dict) -> tuple[str, str, str]:
    return row["technique"], row["group"], row["label"]


def side_by_side(mine: dict, reference: dict) -> str:
    """A text table: each of the reader's rows with the reference's value and ratio beside it."""
    ref = {key(r): r for r in reference["results"]}
    from bench.machine import one_line
    lines = [f"yours:     {one_line(mine['machine'])} ({mine['mode']} mode)",
             f"reference: {one_line(reference['machine'])} ({reference['mode']} mode)",
             f"{'technique / group / variant':60} {'yours':>12} {'×':>7} {'reference':>12} {'×':>7}"]
    for row in mine["results"]:
        other = ref.get(key(row), {})
        name = " / ".join(key(row))
        lines.append(f"{name[:60]:60} {fmt_value(row['median'], row['unit']):>12} "
                     f"{fmt_ratio(row.get('ratio')):>7} "
                     f"{fmt_value(other.get('median'), row['unit']):>12} {fmt_ratio(other.get('ratio')):>7}")
    return "\n".join(lines)
