"""glibc malloc against jemalloc and tcmalloc (LD_PRELOAD) on the allocation-heavy workloads of
snippets/allocators_ld_preload.py, each run in a fresh process; median and IQR over the runs.
Two workloads: small inference calls of varying shapes, and training steps of pytorch/examples'
MNIST CNN, where jemalloc is also run with the MALLOC_CONF settings the snippet names.
"""
from concurrent.futures import ThreadPoolExecutor

from bench.core import load_snippet, summarise
from bench.machine import usable_cores

TITLE = "Memory allocators"
ORDER = 120
WHEN = 'Loops that allocate a lot: tcmalloc, or jemalloc with its decay off (MALLOC_CONF); measure.'  # Home's headline table: when the technique applies
# What its verdicts and Home's headline count: the variant a reader should use, per regime (row-id patterns)
RECOMMENDED = {"speed": ["allocators/*-fresh-process-per-run/tcmalloc"]}


def run(session) -> None:
    alloc = load_snippet("allocators_ld_preload")
    runs = session.pick(1, 3)
    steps = session.pick(2, 5)
    libraries = {"glibc malloc": None}
    for name in ("jemalloc", "tcmalloc"):
        path = alloc.find(name, None)
        if path:  # absent library: no row (the snippet prints SKIP)
            libraries[name] = path
    # (task, label, library, MALLOC_CONF)
    settings = [("infer", label, path, None) for label, path in libraries.items()]
    settings += [("train", label, path, None) for label, path in libraries.items()]
    if "jemalloc" in libraries and not session.quick:  # quick mode (CI) leaves out the variants
        settings += [("train", f"jemalloc + {name} MALLOC_CONF", libraries["jemalloc"], conf)
                     for name, conf in alloc.MALLOC_CONFS.items()]
    groups = {"infer": "50 small inference calls of varying shapes, 1 thread, fresh process per run",
              "train": "MNIST CNN training step, 1 thread, fresh process per run"}
    rss_group = "resident memory kept after the workload (RSS growth)"
    # Each run is a fresh 1-thread process that spends much of its time importing torch. Full mode
    # runs them one after another, taking turns (run 1 of every setting, then run 2, ...) so that
    # a slower spell of the machine does not land on one setting; quick mode (one run per
    # setting) runs one per core at once.
    with ThreadPoolExecutor(max_workers=session.pick(usable_cores(), 1)) as pool:
        futures = [[pool.submit(alloc.run_under, path, task, conf, steps) for task, _, path, conf in settings]
                   for _ in range(runs)]
    reports = [[future.result() for future in turn] for turn in futures]
    measured = [(task, label, path, conf, [turn[i] for turn in reports])
                for i, (task, label, path, conf) in enumerate(settings)]
    rows = [(groups[task], label, path, conf, "median", "s", r) for task, label, path, conf, r in measured
            if task == "infer"]
    rows += [(rss_group, label, path, conf, "rss_growth_mb", "MB", r) for task, label, path, conf, r in measured
             if task == "infer"]
    rows += [(groups[task], label, path, conf, "median", "s", r) for task, label, path, conf, r in measured
             if task == "train"]
    for group, label, path, conf, key, unit, reports_ in rows:
        values = [r[key] for r in reports_]
        params = {"num_threads": 1, "runs": runs, "LD_PRELOAD": path}
        if conf:
            params["MALLOC_CONF"] = conf
        if group == groups["train"]:
            params["steps_per_epoch"] = steps
        median, spread = summarise(values)
        session.record(group, label, median, unit, baseline=path is None, spread=spread, runs=runs,
                       params=params, samples=values)
