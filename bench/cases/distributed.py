"""Data-parallel training on one CPU machine: 1 process x 2 threads vs DDP 2 x 1 vs DDP 2 x 2 (gloo, loopback)."""
import os
import socket
import statistics
import time

TITLE = "Scaling out"
ORDER = 130

GLOBAL_BATCH, FEATURES, HIDDEN, WARMUP = 128, 256, 512, 3


def _worker(rank, world, threads, port, steps, results):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    torch.set_num_threads(threads)
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
    times = []
    for _ in range(WARMUP + steps):
        start = time.perf_counter()
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        times.append(time.perf_counter() - start)
    if world > 1:
        dist.barrier()
        dist.destroy_process_group()
    results.put((rank, times[WARMUP:]))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _measure(world: int, threads: int, steps: int):
    """Step times measured inside the workers (process start-up and init excluded); slowest rank's median."""
    import torch.multiprocessing as mp

    # Not fork: a child forked after the parent has run OpenMP work can hang in its first
    # parallel op (pytorch#17199). Start-up is not timed, so spawn costs nothing here.
    method = "spawn"
    results = mp.get_context(method).SimpleQueue()
    mp.start_processes(_worker, args=(world, threads, _free_port(), steps, results), nprocs=world,
                       join=True, start_method=method)
    per_rank = [results.get() for _ in range(world)]
    medians = [statistics.median(t) for _, t in per_rank]
    all_times = [t for _, ts in per_rank for t in ts]
    q = statistics.quantiles(all_times, n=4)
    return max(medians), q[2] - q[0], len(all_times)


def run(session):
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_gloo_available():
        return
    steps = session.pick(8, 40)
    old = os.environ.get("GLOO_SOCKET_IFNAME")
    names = [n for _, n in socket.if_nameindex() if n.startswith("lo")]
    if old is None and names:
        os.environ["GLOO_SOCKET_IFNAME"] = names[0]  # loopback only
    try:
        group = f"MLP training, global batch {GLOBAL_BATCH}, samples/s"
        for label, world, threads, baseline in [("1 process x 2 threads", 1, 2, True),
                                                ("DDP 2 processes x 1 thread", 2, 1, False),
                                                ("DDP 2 processes x 2 threads (oversubscribed)", 2, 2, False)]:
            step, spread, runs = _measure(world, threads, steps)
            session.record(group, label, GLOBAL_BATCH / step, "samples/s", baseline=baseline,
                           higher_is_better=True, spread=GLOBAL_BATCH * spread / step ** 2, runs=runs,
                           params={"processes": world, "threads_per_process": threads})
    finally:
        if old is None:
            os.environ.pop("GLOO_SOCKET_IFNAME", None)
