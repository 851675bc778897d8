"""Python loops against torch.mm, broadcasting, einsum and bmm; torch.mm against the FP32 peak, and
bf16 torch.mm against fp32 torch.mm.

The loop and vectorised functions are the ones the page shows, loaded from snippets/.
"""

import torch
from torch.utils.benchmark import Timer

from bench import machine
from bench.core import load_snippet

TITLE = "Vectorised tensor ops"
ORDER = 30
WHEN = 'Always: any Python loop over tensor elements, rows or batch items.'  # Home's headline table: when the technique applies
# What its verdicts and Home's headline count: the variant a reader should use, per regime (row-id patterns)
RECOMMENDED = {"speed": ["vectorise/squared-distances-*/broadcasting", "vectorise/scores-*/torch-bmm", "vectorise/count-and-sum-*/mask-sum-one-conversion"]}


def run(session) -> None:
    torch.manual_seed(0)
    mm = load_snippet("vectorise_loop_vs_mm")
    n = session.pick(32, 64)
    a, b = torch.randn(n, n), torch.randn(n, n)
    sizes = {"size": n}
    group = "matmul, 1 thread"
    session.time(group, "element loop (torch.dot per element)", lambda: mm.matmul_python_loop(a, b), baseline=True,
                 params=sizes)
    session.time(group, "row loop (vector @ matrix per row)", lambda: mm.matmul_row_loop(a, b), params=sizes)
    session.time(group, "torch.mm", lambda: mm.matmul_vectorised(a, b), params=sizes)

    vec = load_snippet("vectorise_broadcast_einsum_bmm")
    points = session.pick(50, 200)
    x, c = torch.randn(points, 16), torch.randn(8, 16)
    sizes = {"points": points, "centres": 8}
    group = "squared distances to 8 centres, 1 thread"
    session.time(group, "loop over pairs", lambda: vec.distances_loop(x, c), baseline=True, params=sizes)
    session.time(group, "broadcasting", lambda: vec.distances_broadcast(x, c), params=sizes)

    batch = session.pick(16, 64)
    q, k = torch.randn(batch, 32, 64), torch.randn(batch, 32, 64)
    sizes = {"batch_size": batch}
    group = "scores q @ k^T of 32x64 blocks, 1 thread"
    session.time(group, "loop over the batch", lambda: vec.scores_loop(q, k), baseline=True, params=sizes)
    session.time(group, "torch.bmm", lambda: vec.scores_bmm(q, k), params=sizes)
    session.time(group, "torch.einsum", lambda: vec.scores_einsum(q, k), params=sizes)

    item = load_snippet("vectorise_item_in_loop")
    t = torch.randn(session.pick(2_000, 20_000))
    sizes = {"values": t.numel()}
    group = "count and sum positives, 1 thread"
    session.time(group, ".item() per element", lambda: item.count_and_sum_with_item(t), baseline=True,
                 params=sizes)
    session.time(group, "mask + sum, one conversion", lambda: item.count_and_sum_vectorised(t), params=sizes)

    # Achieved torch.mm GFLOP/s against the theoretical FP32 peak of the cores used.
    info = machine.describe()
    size = session.pick(512, 1024)
    a, b = torch.randn(size, size), torch.randn(size, size)
    flops = 2 * size**3
    for threads, where in session.thread_settings():
        group = f"torch.mm vs theoretical FP32 peak, {where}"
        peak = machine.peak_fp32_gflops(threads)
        timer = Timer("torch.mm(a, b)", globals={"torch": torch, "a": a, "b": b}, num_threads=threads)
        m = timer.blocked_autorange(min_run_time=session.min_run_time)
        # GFLOP/s of the median time; spread from the IQR of the times (faster time = more GFLOP/s).
        q1, q3 = (torch.tensor(m.times).quantile(torch.tensor([0.25, 0.75]), interpolation="midpoint")).tolist()
        achieved, spread = flops / m.median / 1e9, flops / q1 / 1e9 - flops / q3 / 1e9
        params = {"size": size, "num_threads": threads}
        # The row ids are the same on every machine: only whether a peak exists (not on a
        # platform without /proc/cpuinfo) decides which row is the baseline.
        if peak:
            session.record(group, "theoretical peak", peak, "GFLOP/s", higher_is_better=True, baseline=True,
                           params={"mhz": info["measured_mhz"] or info["mhz"], "cores": threads})
        session.record(group, "torch.mm achieved", achieved, "GFLOP/s", higher_is_better=True, baseline=not peak,
                       spread=spread, runs=len(m.times), params=params)

    # bf16 against fp32 torch.mm, same sizes and threads: what bf16 matrix products really run at on
    # this CPU, against the bf16 peak its flags imply (taken as twice fp32's with AVX512_BF16, from
    # AMX's tiles with AMX), so that a step's share of that peak can be checked, not assumed.
    a16, b16 = a.bfloat16(), b.bfloat16()
    for threads, where in session.thread_settings():
        group = f"torch.mm bf16 vs fp32, {where}"
        peaks = (machine.peaks(threads) or ({}, None))[0] or {}
        for label, x, y, precision in (("fp32", a, b, "fp32"), ("bf16", a16, b16, "bf16")):
            row = session.time(group, label, lambda x=x, y=y: torch.mm(x, y), num_threads=threads,
                               baseline=precision == "fp32", params={"size": size})
            row["params"]["gflops"] = flops / row["median"] / 1e9
            peak = peaks.get(precision)  # none for bf16 without a native path
            row["params"]["share_of_peak"] = row["params"]["gflops"] / peak if peak else None
