"""Batching: time per batch and samples/s against batch size (all cores), batch-1 latency percentiles at 1 vs all threads."""
from __future__ import annotations

import statistics
import time

import torch
from torch import nn

from bench.core import in_new_process, summarise
from bench.machine import usable_cores

TITLE = "Batching and latency"
ORDER = 100
WHEN = 'Throughput: batch requests together; latency: keep batches small.'  # Home's headline table: when the technique applies
# What its verdicts and Home's headline count: the variant a reader should use, per regime (row-id patterns)
RECOMMENDED = {"throughput": ["batching/*-samples-s-*/batch-64"]}


def _mlp() -> nn.Module:
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                         nn.Linear(512, 10)).eval()


def _cnn() -> nn.Module:
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 7 * 7, 10)).eval()


def _percentiles(model: nn.Module, x: torch.Tensor, threads: int, requests: int) -> tuple[float, float]:
    """p50 and p95 of single-request latency, each request timed on its own."""
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        with torch.inference_mode():
            for _ in range(20):
                model(x)
            times = []
            for _ in range(requests):
                start = time.perf_counter()
                model(x)
                times.append(time.perf_counter() - start)
    finally:
        torch.set_num_threads(previous)
    cuts = statistics.quantiles(times, n=100, method="inclusive")
    return cuts[49], cuts[94]


# Each thread count in a process of its own: in one process, the count measured first changed the
# other's latency (on a Xeon, 1 thread then 2 made the batch-1 MLP look three times faster on 2 cores).
PERCENTILES = """
import sys, torch
from bench.cases.batching import _mlp, _percentiles
torch.manual_seed(0)
print(*_percentiles(_mlp(), torch.randn(1, 1, 28, 28), int(sys.argv[1]), int(sys.argv[2])))
"""


def run(session) -> None:
    cores = usable_cores()
    torch.manual_seed(0)
    sizes = session.pick([1, 4, 16, 64], [1, 2, 4, 8, 16, 32, 64])
    inputs = torch.randn(max(sizes), 1, 28, 28)
    for name, model in (("MLP 784-512-512-10", _mlp()), ("CNN 2 conv + 1 linear", _cnn())):
        for threads, where, batch_sizes in ((cores, "all cores", sizes),
                                            (1, "1 thread", session.pick([1, 64], [1, 8, 64]))):
            if where == "1 thread" and cores == 1:  # the all-cores run already is one thread
                continue
            rows = []
            for size in batch_sizes:
                x = inputs[:size]

                def call(model=model, x=x):
                    with torch.inference_mode():
                        return model(x)

                rows.append(session.time(f"{name}: time per batch, {where}", f"batch {size}", call,
                                         num_threads=threads, baseline=size == 1, items=size,
                                         params={"batch_size": size}))
            # The same measurements as throughput, so the ratio reads "times more samples per second".
            for size, row in zip(batch_sizes, rows):
                per_s = [size / t for t in row.get("samples", [])]
                session.record(f"{name}: samples/s, {where}", f"batch {size}", row["items_per_s"], "samples/s",
                               higher_is_better=True, baseline=size == 1, spread=summarise(per_s)[1] if per_s else None,
                               runs=max(len(per_s), 1), samples=per_s or None,
                               params={"batch_size": size, "num_threads": threads})

    if cores >= 2:
        requests = session.pick(300, 2000)
        measured = {threads: tuple(map(float, in_new_process(PERCENTILES, threads, requests)))
                    for threads in (1, cores)}
        for index, name in enumerate(("p50", "p95")):
            for threads, cuts in measured.items():
                session.record(f"MLP batch 1: {name} latency per request", "1 thread" if threads == 1 else
                               "all cores", cuts[index], "s", baseline=threads == 1, runs=requests,
                               params={"num_threads": threads, "requests": requests})
