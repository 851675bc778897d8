"""Data-parallel training on one CPU machine: 1 process x 2 threads vs DDP 2 x 1 vs DDP 2 x 2 (gloo, loopback)."""
import os
import socket
import statistics
import time

TITLE = "Scaling out"
ORDER = 130
WHEN = 'More than one machine; on one machine, one process with all cores.'  # Home's headline table: when the technique applies
# What its verdicts and Home's headline count: the variant a reader should use, per regime (row-id patterns)
RECOMMENDED = {"training": ["distributed/*/ddp-2-processes-x-1-thread"]}

GLOBAL_BATCH, FEATURES, HIDDEN, WARMUP = 128, 256, 512, 3


def _worker(rank, world, thread_counts, port, steps, results, env):
    """Train with each of thread_counts in turn (full mode: one, in fresh processes); put
    (rank, {threads: step times}) in results."""
    os.environ.update(env)  # a forkserver's child has the server's environment, not its parent's
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    torch.set_num_threads(thread_counts[0])
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(FEATURES, HIDDEN), torch.nn.ReLU(),
                                torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, 10))
    if world > 1:
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
        model = DistributedDataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    g = torch.Generator().manual_seed(rank)
    x = torch.randn(GLOBAL_BATCH // world, FEATURES, generator=g)  # this rank's share of the global batch
    y = torch.randint(0, 10, (GLOBAL_BATCH // world,), generator=g)
    measured = {}
    for threads in thread_counts:
        torch.set_num_threads(threads)
        times = []
        for _ in range(WARMUP + steps):
            start = time.perf_counter()
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
            times.append(time.perf_counter() - start)
        measured[threads] = times[WARMUP:]
    if world > 1:
        dist.barrier()
        dist.destroy_process_group()
    results.put((rank, measured))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _summary(per_rank: list[list[float]]):
    """Slowest rank's median step time, IQR over all ranks' steps, number of steps."""
    all_times = [t for times in per_rank for t in times]
    q = statistics.quantiles(all_times, n=4)
    return max(statistics.median(times) for times in per_rank), q[2] - q[0], len(all_times)


def _measure(world: int, thread_counts: tuple[int, ...], steps: int, method: str) -> dict:
    """Step times measured inside `world` new processes (start-up and init excluded), one
    summary per thread count."""
    import torch.multiprocessing as mp

    results = mp.get_context(method).SimpleQueue()
    env = {name: os.environ[name] for name in ("GLOO_SOCKET_IFNAME",) if name in os.environ}
    mp.start_processes(_worker, args=(world, thread_counts, _free_port(), steps, results, env), nprocs=world,
                       join=True, start_method=method)
    per_rank = [results.get()[1] for _ in range(world)]
    return {threads: _summary([measured[threads] for measured in per_rank]) for threads in thread_counts}


def _measure_here(threads: int, steps: int):
    """The 1-process case in this process (no DDP), its thread count put back afterwards."""
    import queue

    import torch

    previous, results = torch.get_num_threads(), queue.SimpleQueue()
    try:
        _worker(0, 1, (threads,), None, steps, results, {})
    finally:
        torch.set_num_threads(previous)
    return _summary([results.get()[1][threads]])


def run(session):
    import torch.distributed as dist
    import torch.multiprocessing as mp

    if not dist.is_available() or not dist.is_gloo_available():
        return
    steps = session.pick(5, 40)
    old = os.environ.get("GLOO_SOCKET_IFNAME")
    names = [n for _, n in socket.if_nameindex() if n.startswith("lo")]
    if old is None and names:
        os.environ["GLOO_SOCKET_IFNAME"] = names[0]  # loopback only
    configs = [("1 process x 2 threads", 1, 2, True),
               ("DDP 2 processes x 1 thread", 2, 1, False),
               ("DDP 2 processes x 2 threads (oversubscribed)", 2, 2, False)]
    # Not fork: a child forked after the parent has run OpenMP work can hang in its first
    # parallel op (pytorch#17199). Start-up is not timed, so full mode spawns: fresh processes
    # for every configuration, each importing torch. Quick mode starts two processes instead of
    # five: the 1-process case runs here, and one pair trains with 1 and then 2 threads each,
    # forked from the forkserver that thread_budgets leaves running with torch imported.
    quick_method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
    try:
        if session.quick:
            measured = {(1, 2): _measure_here(2, steps)}
            for threads, summary in _measure(2, (1, 2), steps, quick_method).items():
                measured[2, threads] = summary
        else:
            measured = {(world, threads): _measure(world, (threads,), steps, "spawn")[threads]
                        for _, world, threads, _ in configs}
        group = f"MLP training, global batch {GLOBAL_BATCH}, samples/s"
        for label, world, threads, baseline in configs:
            step, spread, runs = measured[world, threads]
            session.record(group, label, GLOBAL_BATCH / step, "samples/s", baseline=baseline,
                           higher_is_better=True, spread=GLOBAL_BATCH * spread / step ** 2, runs=runs,
                           params={"processes": world, "threads_per_process": threads})
    finally:
        if old is None:
            os.environ.pop("GLOO_SOCKET_IFNAME", None)
