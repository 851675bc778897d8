"""Batch-of-one serving: per-request latency percentiles with 1 thread vs all threads, and requests in parallel.

    python batching_serving_latency.py
    python batching_serving_latency.py --requests 2000 --parallel 4
"""
import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import torch
from torch import nn

ATOL, RTOL = 1e-5, 1e-5  # same agreement as batching_throughput_latency.py


def mlp() -> nn.Module:
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                         nn.Linear(512, 10))


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


# --8<-- [start:serve]
def serve(model: nn.Module, requests: torch.Tensor) -> tuple[torch.Tensor, list[float]]:
    """Answer each request alone (batch of one), as an online service does; return outputs and latencies."""
    outputs, latencies = [], []
    with torch.inference_mode():  # per thread: each serving thread enters it itself
        for x in requests:
            start = time.perf_counter()
            outputs.append(model(x[None]))
            latencies.append(time.perf_counter() - start)
    return torch.cat(outputs), latencies
# --8<-- [end:serve]


def parse_args() -> argparse.Namespace:
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=600, help="requests per setting (default: 600)")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads(),
                        help=f"the 'all cores' setting (default: torch's, here {torch.get_num_threads()})")
    parser.add_argument("--parallel", type=int, default=2,
                        help=f"requests served at once, 1 thread each (default: 2; this machine has {usable} cores)")
    args = parser.parse_args()
    if not 20 <= args.requests <= 100_000:
        parser.error("--requests must be between 20 and 100000")
    if not 1 <= args.threads <= 256:
        parser.error("--threads must be between 1 and 256")
    if not 2 <= args.parallel <= 64:
        parser.error("--parallel must be between 2 and 64")
    return args


def main() -> int:
    args = parse_args()
    torch.manual_seed(0)
    model = mlp().eval()
    requests = torch.randn(args.requests, 1, 28, 28)
    with torch.inference_mode():
        reference = model(requests)  # offline scoring: one big batch
        for x in requests[:50]:
            model(x[None])  # warm-up: first calls allocate and pick kernels

    print(f"{args.requests} requests of batch 1 to an MLP 784-512-512-10")
    print(f"{'setting':<40} {'p50 ms':>7} {'p95 ms':>7} {'requests/s':>11}")
    results = {}
    for label, threads, parallel in (("1 request at a time, all threads", args.threads, 1),
                                     ("1 request at a time, 1 thread", 1, 1),
                                     (f"{args.parallel} requests at a time, 1 thread each", 1, args.parallel)):
        torch.set_num_threads(threads)  # process-wide: each serving thread gets a team of this size
        chunks = requests.chunk(parallel)
        start = time.perf_counter()
        with ThreadPoolExecutor(parallel) as pool:
            # each serving thread asks its thread count (which sets up its team), then serves its share
            served = list(pool.map(lambda chunk: (torch.get_num_threads(), *serve(model, chunk)), chunks))
        wall = time.perf_counter() - start
        outputs = torch.cat([out for _, out, _ in served])
        latencies = [t for _, _, times in served for t in times]
        results[label] = (all(seen == threads for seen, _, _ in served),
                          torch.allclose(outputs, reference, atol=ATOL, rtol=RTOL))
        print(f"{label:<40} {percentile(latencies, 50) * 1e3:>7.3f} {percentile(latencies, 95) * 1e3:>7.3f} "
              f"{len(latencies) / wall:>11.1f}")
    print()
    for label, (threads_as_asked, agree) in results.items():
        print(f"{label}: every serving thread sees the thread count set: {threads_as_asked}, "
              f"outputs allclose(atol={ATOL:g}, rtol={RTOL:g}) to one big batch: {agree}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
