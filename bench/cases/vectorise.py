"""Python loops against torch.mm, broadcasting, einsum and bmm; torch.mm against the FP32 peak.

The loop and vectorised functions are the ones the page shows, loaded from snippets/.
"""

import torch
from torch.utils.benchmark import Timer

from bench import machine
from bench.core import load_snippet

TITLE = "Vectorised tensor ops"
ORDER = 30


def run(session) -> None:
    torch.manual_seed(0)
    mm = load_snippet("vectorise_loop_vs_mm")
    n = session.pick(32, 64)
    a, b = torch.randn(n, n), torch.randn(n, n)
    group = f"matmul {n}x{n}, 1 thread"
    session.time(group, "element loop (torch.dot per element)", lambda: mm.matmul_python_loop(a, b), baseline=True)
    session.time(group, "row loop (vector @ matrix per row)", lambda: mm.matmul_row_loop(a, b))
    session.time(group, "torch.mm", lambda: mm.matmul_vectorised(a, b))

    vec = load_snippet("vectorise_broadcast_einsum_bmm")
    points = session.pick(50, 200)
    x, c = torch.randn(points, 16), torch.randn(8, 16)
    group = f"squared distances, {points} points x 8 centres, 1 thread"
    session.time(group, "loop over pairs", lambda: vec.distances_loop(x, c), baseline=True)
    session.time(group, "broadcasting", lambda: vec.distances_broadcast(x, c))

    batch = session.pick(16, 64)
    q, k = torch.randn(batch, 32, 64), torch.randn(batch, 32, 64)
    group = f"scores q @ k^T, batch {batch} of 32x64, 1 thread"
    session.time(group, "loop over the batch", lambda: vec.scores_loop(q, k), baseline=True)
    session.time(group, "torch.bmm", lambda: vec.scores_bmm(q, k))
    session.time(group, "torch.einsum", lambda: vec.scores_einsum(q, k))

    item = load_snippet("vectorise_item_in_loop")
    t = torch.randn(session.pick(2_000, 20_000))
    group = f"count and sum positives of {t.numel()} values, 1 thread"
    session.time(group, ".item() per element", lambda: item.count_and_sum_with_item(t), baseline=True)
    session.time(group, "mask + sum, one conversion", lambda: item.count_and_sum_vectorised(t))

    # Achieved torch.mm GFLOP/s against the theoretical FP32 peak of the cores used.
    info = machine.describe()
    size = session.pick(512, 1024)
    a, b = torch.randn(size, size), torch.randn(size, size)
    flops = 2 * size**3
    cores = info["usable_cores"]
    for threads in sorted({1, cores}):
        group = f"torch.mm {size}x{size}, {threads} thread(s), vs theoretical FP32 peak"
        peak = machine.peak_fp32_gflops(threads, info["mhz"], {k for k, v in info["isa"].items() if v})
        timer = Timer("torch.mm(a, b)", globals={"torch": torch, "a": a, "b": b}, num_threads=threads)
        m = timer.blocked_autorange(min_run_time=session.min_run_time)
        # GFLOP/s of the median time; spread from the IQR of the times (faster time = more GFLOP/s).
        q1, q3 = (torch.tensor(m.times).quantile(torch.tensor([0.25, 0.75]), interpolation="midpoint")).tolist()
        achieved, spread = flops / m.median / 1e9, flops / q1 / 1e9 - flops / q3 / 1e9
        params = {"size": size, "num_threads": threads}
        if peak:
            session.record(group, f"theoretical peak, {threads} core(s)", peak, "GFLOP/s",
                           higher_is_better=True, baseline=True, params={"mhz": info["mhz"]})
            session.record(group, "torch.mm achieved", achieved, "GFLOP/s", higher_is_better=True,
                           spread=spread, runs=len(m.times), params=params)
        else:
            session.record(group, "torch.mm achieved (peak unknown: baseline)", achieved, "GFLOP/s",
                           higher_is_better=True, baseline=True, spread=spread, runs=len(m.times), params=params)
