"""Measuring: torch.utils.benchmark timings and other metrics, ratios against a baseline."""
from __future__ import annotations

import runpy
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

from torch.utils.benchmark import Measurement, Timer


SNIPPETS = Path(__file__).resolve().parents[1] / "snippets"


def load_snippet(name: str) -> SimpleNamespace:
    """The functions of snippets/<name>.py, so the benchmark times the code the page shows;
    its __main__ block does not run and no bytecode is written into snippets/."""
    return SimpleNamespace(**runpy.run_path(str(SNIPPETS / f"{name}.py")))


class Session:
    """Collects one run's rows. Cases call time() for durations and record() for anything else."""

    def __init__(self, quick: bool):
        self.quick = quick
        # blocked_autorange grows its block tenfold until one block takes min_run_time, then runs
        # blocks for min_run_time: quick mode's small value keeps a call of a few ms from being
        # repeated a hundred times.
        self.min_run_time = 0.01 if quick else 0.6
        self.technique = ""
        self.rows: list[dict] = []
        self.measurements: list[Measurement] = []

    def pick(self, quick, full):
        """A size or count for quick mode (CI, seconds) or full mode (published numbers)."""
        return quick if self.quick else full

    def time(self, group: str, label: str, fn: Callable[[], Any], *, num_threads: int = 1,
             baseline: bool = False, items: int | None = None, params: dict | None = None,
             min_run_time: float | None = None) -> dict:
        """Median and IQR of fn() with blocked_autorange and an explicit thread count.

        items: how many samples one call handles, to also report items/s.
        """
        timer = Timer(stmt="fn()", globals={"fn": fn}, num_threads=num_threads,
                      label=f"{self.technique}: {group}", sub_label=label,
                      description=f"{num_threads} thread(s)")
        m = timer.blocked_autorange(min_run_time=min_run_time or self.min_run_time)
        self.measurements.append(m)
        row = self._add(group, label, m.median, "s", baseline=baseline, higher_is_better=False,
                        spread=m.iqr, runs=len(m.times), params={"num_threads": num_threads, **(params or {})})
        if items:
            row["items_per_s"] = items / m.median
        return row

    def record(self, group: str, label: str, value: float, unit: str, *, baseline: bool = False,
               higher_is_better: bool = False, spread: float | None = None, runs: int = 1,
               params: dict | None = None) -> dict:
        """A metric that is not a Timer duration: images/s, MB, peak RSS, a count."""
        return self._add(group, label, value, unit, baseline=baseline, higher_is_better=higher_is_better,
                         spread=spread, runs=runs, params=params or {})

    def _add(self, group, label, value, unit, *, baseline, higher_is_better, spread, runs, params):
        row = {"technique": self.technique, "group": group, "label": label, "unit": unit,
               "median": float(value), "spread": None if spread is None else float(spread),
               "runs": runs, "baseline": baseline, "higher_is_better": higher_is_better,
               "params": params}
        self.rows.append(row)
        return row


def add_ratios(rows: list[dict]) -> None:
    """ratio = how many times better than the group's baseline (>1 is better, whatever the unit)."""
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault((row["technique"], row["group"]), []).append(row)
    for key, members in groups.items():
        bases = [r for r in members if r["baseline"]]
        if len(bases) != 1:
            raise ValueError(f"group {key} needs exactly one baseline row, has {len(bases)}")
        base = bases[0]["median"]
        for r in members:
            if not base or not r["median"]:
                r["ratio"] = None
            elif r["higher_is_better"]:
                r["ratio"] = r["median"] / base
            else:
                r["ratio"] = base / r["median"]
