"""A fixed batch of work done by P worker processes x M threads each on the same cores.

Each configuration gets a persistent process pool (forkserver, torch preloaded), started and
warmed up before timing. The time is taken inside the workers: each takes K/P of the K
independent MLP forward batches (or matmuls), all start together at a barrier, and a round
lasts from the first start to the last finish on the system-wide monotonic clock. Handing out
tasks one by one and timing them in the parent would add the parent's messaging and its
threads to the time, which favoured several processes beyond what the cores allow.
"""
import multiprocessing as mp
import time

import torch

TITLE = "Thread budgets across processes"
ORDER = 110
WHEN = 'Several processes on one machine: processes x threads at most the cores.'  # Home's headline table: when the technique applies
# What its verdicts and Home's headline count: the variant a reader should use, per regime (row-id patterns)
RECOMMENDED = {"speed": ["thread_budgets/*/2-processes-x-1-thread"]}

_state = {}


def _init(threads: int, kind: str, size: int, barrier) -> None:
    _state["barrier"] = barrier
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    if kind == "mlp":
        _state["model"] = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(),
                                              torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
                                              torch.nn.Linear(1024, 10)).eval()
        _state["x"] = torch.randn(size, 512)
    else:
        _state["model"] = None
        _state["x"] = torch.randn(size, size)


def _unit(_: int) -> int:
    with torch.inference_mode():
        x = _state["x"]
        _state["model"](x) if _state["model"] is not None else x @ x
    return torch.get_num_threads()


def _share(units: int) -> tuple[float, float]:
    """This worker's share of a round: wait until every worker holds one (so no worker takes two),
    then do it. (start, end) on time.perf_counter, which on Linux is one clock for all processes."""
    _state["barrier"].wait()
    start = time.perf_counter()
    for _ in range(units):
        _unit(0)
    return start, time.perf_counter()


def _context():
    methods = mp.get_all_start_methods()
    if "forkserver" in methods:
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload([__name__])  # one torch import for every pool below
        return ctx
    return mp.get_context("spawn")


CONFIGS = [  # (processes, threads each, label, baseline)
    (1, 2, "1 process x 2 threads", True),
    (2, 1, "2 processes x 1 thread", False),
    (2, 2, "2 processes x 2 threads (oversubscribed)", False),
]


def run(session) -> None:
    ctx = _context()
    k = session.pick(8, 24)
    batch = session.pick(32, 64)
    size = 512
    groups = [("MLP forward batches", "mlp", batch)]
    if not session.quick:  # quick mode (CI) keeps to one group: each pool costs a process start
        groups.append(("square matmuls", "matmul", size))
    rounds = session.pick(5, 15)
    for group, kind, arg in groups:
        for processes, threads, label, baseline in CONFIGS:
            barrier = ctx.Barrier(processes)
            with ctx.Pool(processes, initializer=_init, initargs=(threads, kind, arg, barrier)) as pool:
                reported = set(pool.map(_unit, range(4 * processes), chunksize=1))  # warm-up
                assert reported == {threads}, f"workers report {reported} threads, asked {threads}"
                pool.map(_share, [1] * processes, chunksize=1)  # warm-up of the timed path
                durations = []
                for _ in range(rounds):
                    spans = pool.map(_share, [k // processes] * processes, chunksize=1)
                    durations.append(max(end for _, end in spans) - min(start for start, _ in spans))
            session.time_samples(group, label, durations, baseline=baseline, items=k,
                                 params={"processes": processes, "threads_per_process": threads,
                                         "tasks": k, "size": arg})
