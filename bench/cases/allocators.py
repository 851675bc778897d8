"""glibc malloc against jemalloc and tcmalloc (LD_PRELOAD) on the allocation-heavy workload of
snippets/allocators_ld_preload.py, each run in a fresh process; median and IQR over the runs.
"""
import statistics
from concurrent.futures import ThreadPoolExecutor

from bench.core import load_snippet
from bench.machine import usable_cores

TITLE = "Memory allocators"
ORDER = 120
WHEN = 'Allocation-heavy loops: try tcmalloc or jemalloc, and measure.'  # Home's headline table: when the technique applies


def iqr(values: list[float]) -> float | None:
    if len(values) < 2:
        return None
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[2] - q[0]


def run(session) -> None:
    alloc = load_snippet("allocators_ld_preload")
    runs = session.pick(1, 3)
    libraries = {"glibc malloc": None}
    for name in ("jemalloc", "tcmalloc"):
        path = alloc.find(name, None)
        if path:  # absent library: no row (the snippet prints SKIP)
            libraries[name] = path
    group = "50 small inference calls of varying shapes, 1 thread, fresh process per run"
    rss_group = "resident memory kept after the workload (RSS growth)"
    # Each run is a fresh 1-thread process that spends most of its time importing torch. Full mode
    # runs them one after another; quick mode (one run per allocator) runs one per core at once.
    with ThreadPoolExecutor(max_workers=session.pick(usable_cores(), 1)) as pool:
        futures = {label: [pool.submit(alloc.run_under, path) for _ in range(runs)]
                   for label, path in libraries.items()}
    reports = {label: [future.result() for future in fs] for label, fs in futures.items()}
    for name, key, unit in ((group, "median", "s"), (rss_group, "rss_growth_mb", "MB")):
        for label, path in libraries.items():
            values = [r[key] for r in reports[label]]
            session.record(name, label, statistics.median(values), unit, baseline=path is None,
                           spread=iqr(values), runs=runs,
                           params={"num_threads": 1, "runs": runs, "LD_PRELOAD": path})
