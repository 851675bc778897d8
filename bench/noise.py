"""No verdict sharper than its measurement: how many times better one row is than another, as an
interval, and the one rule that turns an interval into a verdict (paid, lost, even).

Every verdict, range and ranking on the site goes through `outcome(interval(...))`, the pages'
figures (bench.figures) and the claims that check them (tests/claims) alike. The rule, stated on
the Benchmark page:

- A row's spread is its quartiles: those of its samples (one per timing block or per round) where
  the row kept them, else its median minus and plus half its interquartile range (references
  recorded before rows kept samples), else, for a row of one sample, its median plus or minus
  ONE_SAMPLE / 2 of itself.
- Two rows measured in the same interleaved rounds (both marked `paired`, as many samples each) are
  compared round by round: the interval is the range of the per-round ratios.
- Any other two rows: the interval runs from the worse end of one quartile range against the better
  end of the other to the reverse (a ratio of 1.14 with both rows' IQRs at 10% of their medians
  spans about 1.03-1.26).
- A verdict is *paid* only when the whole interval is above 1 + EVEN, *lost* only when it is all
  below 1 - EVEN, and *even* (within noise) otherwise.
"""
from __future__ import annotations

import statistics

# Two recordings of one row on these shared 2-core VMs differ by about this much, beyond any spread
# inside one run: the even band around 1.
EVEN = 0.05
# The relative interquartile range a row of one sample is given: it has no spread of its own.
ONE_SAMPLE = 0.10


def quartiles(row: dict) -> tuple[float, float]:
    """The row's lower and upper quartile, in its own unit (see the module's rule)."""
    median, samples = row["median"], row.get("samples") or []
    if len(samples) >= 2:
        low, _, high = statistics.quantiles(samples, n=4, method="inclusive")
    elif row.get("spread") is not None and row.get("runs", 1) > 1:
        low, high = median - row["spread"] / 2, median + row["spread"] / 2
    else:
        low, high = median * (1 - ONE_SAMPLE / 2), median * (1 + ONE_SAMPLE / 2)
    low, high = min(low, median), max(high, median)
    return max(low, median * 1e-3), high  # a time or a rate is above zero


def paired(row: dict, other: dict) -> bool:
    samples, others = row.get("samples") or [], other.get("samples") or []
    return bool(row.get("paired") and other.get("paired") and len(samples) == len(others) >= 2)


def interval(row: dict, other: dict) -> tuple[float, float]:
    """How many times better row is than other (same unit; > 1 is better, whatever the unit), as
    (low, high)."""
    if row["unit"] != other["unit"]:
        raise ValueError(f"{row['id']} and {other['id']} are in different units")
    better = (lambda a, b: a / b) if row["higher_is_better"] else (lambda a, b: b / a)
    if row is other:
        return 1.0, 1.0
    if not row["median"] or not other["median"]:
        raise ValueError(f"{row['id']} against {other['id']}: a median of zero has no ratio")
    if paired(row, other):
        ratios = [better(a, b) for a, b in zip(row["samples"], other["samples"])]
        return min(ratios), max(ratios)
    (r_low, r_high), (o_low, o_high) = quartiles(row), quartiles(other)
    if row["higher_is_better"]:
        return r_low / o_high, r_high / o_low
    return o_low / r_high, o_high / r_low


def outcome(span: tuple[float, float]) -> str:
    """paid, lost or even (within noise) for an interval of how many times better."""
    low, high = span
    return "paid" if low > 1 + EVEN else "lost" if high < 1 - EVEN else "even"


def combined(outcomes: list[str]) -> str:
    """A verdict over several groups: paid (paid somewhere beyond noise, lost nowhere), lost (the
    reverse), even (within noise everywhere) or mixed (paid in one group, lost in another)."""
    found = set(outcomes)
    if {"paid", "lost"} <= found:
        return "mixed"
    return "paid" if "paid" in found else "lost" if "lost" in found else "even"



def across(recordings: list[dict[str, dict]], row_id: str, other_id: str) -> tuple[float, float]:
    """The interval of row_id over other_id over every recording that has both (each a {row id:
    row} of one run): from the lowest low to the highest high, so that paid or lost holds only
    where it holds in each recording."""
    spans = [interval(rows[row_id], rows[other_id]) for rows in recordings if row_id in rows and other_id in rows]
    if not spans:
        raise ValueError(f"no recording has both {row_id} and {other_id}")
    return min(low for low, _ in spans), max(high for _, high in spans)
