"""Measuring: torch.utils.benchmark timings and other metrics, ratios against a baseline."""
from __future__ import annotations

import contextlib
import os
import re
import runpy
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import torch
from torch.utils.benchmark import Measurement, Timer
from torch.utils.benchmark.utils.common import TaskSpec

from bench.machine import usable_cores


SNIPPETS = Path(__file__).resolve().parents[1] / "snippets"


@contextlib.contextmanager
def num_threads(n: int):
    """torch's intra-op thread count set to n inside the block, for what must happen at the
    count it is timed at: torch.compile plans its C++ kernels for the thread count at compile time
    (serial when compiled at one thread)."""
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def in_new_process(code: str, *args, env: dict | None = None) -> list[str]:
    """Run `code` with this Python in a process of its own, this repository importable, and return
    the words of its last line: for what a process's history changes (a warm compiler, an
    OpenMP pool sized for another thread count), which a reader's program does not have."""
    env = {**os.environ, **(env or {}), "PYTHONPATH": str(Path(__file__).parents[1])}
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)], env=env, capture_output=True, text=True,
                          check=True)
    return done.stdout.strip().splitlines()[-1].split()


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
        self.not_run: dict[str, str] = {}  # row id: why this run has no such row (no native bf16, ...)
        self.measurements: list[Measurement] = []

    def pick(self, quick, full):
        """A size or count for quick mode (CI, seconds) or full mode (published numbers)."""
        return quick if self.quick else full

    def thread_settings(self) -> list[tuple[int, str]]:
        """(threads, name) for one thread and, in full mode, all usable cores. Named rather than
        numbered, so that rows line up across machines with different core counts."""
        cores = usable_cores()
        return [(1, "1 thread")] + ([(cores, "all cores")] if cores > 1 and not self.quick else [])

    def time(self, group: str, label: str, fn: Callable[[], Any], *, num_threads: int = 1,
             baseline: bool = False, items: int | None = None, params: dict | None = None,
             min_run_time: float | None = None) -> dict:
        """Median and IQR of fn() with blocked_autorange and an explicit thread count, its blocks
        kept as the row's samples. A measurement during which other processes used the CPU
        (Watch) is taken again, up to RETRIES times; the row says how many were dropped and how
        busy the others were in the one it keeps.

        items: how many samples one call handles, to also report items/s.
        """
        timer = Timer(stmt="fn()", globals={"fn": fn}, num_threads=num_threads,
                      label=f"{self.technique}: {group}", sub_label=label,
                      description=f"{num_threads} thread(s)")
        dropped = 0
        while True:
            with Watch() as watch:
                m = timer.blocked_autorange(min_run_time=min_run_time or self.min_run_time)
            if not watch.disturbed() or dropped == RETRIES or self.quick:
                break
            dropped += 1
        row = self._measured(m, group, label, baseline=baseline, items=items,
                             params={"num_threads": num_threads, **(params or {})})
        row["others_busy"] = round(watch.others_busy, 3)
        row["disturbed_dropped"] = dropped
        if watch.disturbed():
            row["disturbed"] = True
        return row

    def time_samples(self, group: str, label: str, seconds: list[float], *, baseline: bool = False,
                     items: int | None = None, params: dict | None = None) -> dict:
        """Durations measured elsewhere (inside worker processes, fresh processes), summarised
        exactly as time() summarises its own: torch.utils.benchmark's median and IQR."""
        spec = TaskSpec(stmt=label, setup="", label=f"{self.technique}: {group}", sub_label=label,
                        description="samples", num_threads=(params or {}).get("num_threads", 1))
        m = Measurement(number_per_run=1, raw_times=list(seconds), task_spec=spec)
        return self._measured(m, group, label, baseline=baseline, items=items, params=params or {})

    def _measured(self, m: Measurement, group, label, *, baseline, items, params) -> dict:
        self.measurements.append(m)
        row = self._add(group, label, m.median, "s", baseline=baseline, higher_is_better=False,
                        spread=m.iqr, runs=len(m.times), params=params, samples=m.times)
        if items:
            row["items_per_s"] = items / m.median
        return row

    def record(self, group: str, label: str, value: float, unit: str, *, baseline: bool = False,
               higher_is_better: bool = False, spread: float | None = None, runs: int = 1,
               params: dict | None = None, samples: list[float] | None = None, paired: bool = False) -> dict:
        """A metric that is not a Timer duration: images/s, MB, peak RSS, a count. samples: the
        values it summarises, one per round where the case measures its rows in interleaved
        rounds (paired: bench.noise compares two such rows round by round)."""
        row = self._add(group, label, value, unit, baseline=baseline, higher_is_better=higher_is_better,
                        spread=spread, runs=runs, params=params or {}, samples=samples)
        if paired:
            row["paired"] = True
        return row

    def skip(self, group: str, label: str, reason: str) -> None:
        """A row this run did not measure, and why: a reference then states it (bench.references.lacks)."""
        self.not_run[row_id(self.technique, group, label)] = re.sub(r"^not run: ", "", reason)

    def _add(self, group, label, value, unit, *, baseline, higher_is_better, spread, runs, params, samples=None):
        row = {"id": row_id(self.technique, group, label),
               "technique": self.technique, "group": group, "label": label, "unit": unit,
               "median": float(value), "spread": None if spread is None else float(spread),
               "runs": runs, "baseline": baseline, "higher_is_better": higher_is_better,
               "params": params}
        if samples is not None and len(samples) > 1:
            row["samples"] = [float(f"{v:.4g}") for v in samples]
        self.rows.append(row)
        return row


# A measurement is taken again when other processes kept more than this share of one core busy
# during it (their CPU time over its wall time), at most RETRIES times.
DISTURBED = 0.10
RETRIES = 2


class Watch:
    """The CPU time that processes other than this one used while the block ran, in cores
    (system-wide busy time from /proc/stat, hypervisor steal included, minus this process's own):
    what tells a quiet round from one that shared the machine."""

    def __enter__(self):
        import psutil
        self._psutil, self._me = psutil, psutil.Process()
        self._start = self._read()
        return self

    def _read(self) -> tuple[float, float, float]:
        import time as clock
        total = self._psutil.cpu_times()
        busy = total.user + total.system + getattr(total, "nice", 0) + getattr(total, "irq", 0) \
            + getattr(total, "softirq", 0) + getattr(total, "steal", 0)
        mine = self._me.cpu_times()
        return clock.perf_counter(), busy, mine.user + mine.system + mine.children_user + mine.children_system

    def __exit__(self, *exc):
        wall0, busy0, mine0 = self._start
        wall1, busy1, mine1 = self._read()
        self.others_busy = max(0.0, (busy1 - busy0) - (mine1 - mine0)) / max(wall1 - wall0, 1e-9)
        return False

    def disturbed(self) -> bool:
        return self.others_busy > DISTURBED


def summarise(values: list[float]) -> tuple[float, float | None]:
    """Median and IQR of repeated samples of any unit, computed as torch.utils.benchmark computes
    them for timings (the one formula in the benchmark); one sample has no spread."""
    m = Measurement(number_per_run=1, raw_times=list(values), task_spec=TaskSpec(stmt="", setup=""))
    return m.median, (m.iqr if len(values) > 1 else None)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def row_id(technique: str, group: str, label: str) -> str:
    """The row's name in every results file: the same in quick and full mode and on every machine,
    because groups and labels name what is compared and leave sizes and thread counts to params."""
    return f"{technique}/{slug(group)}/{slug(label)}"


def add_ratios(rows: list[dict]) -> None:
    """ratio = how many times better than the group's baseline (>1 is better, whatever the unit)."""
    duplicated = {r["id"] for r in rows if sum(o["id"] == r["id"] for o in rows) > 1}
    if duplicated:
        raise ValueError(f"row ids measured twice: {sorted(duplicated)}")
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
