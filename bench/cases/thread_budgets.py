"""A fixed batch of work done by P worker processes x M threads each on the same cores.

Each configuration gets a persistent process pool (forkserver, torch preloaded) that is started
and warmed up before timing, so session.time measures only the work: K independent MLP forward
batches (or K matmuls) handed out one per task, and items/s = K / median time.
"""
import multiprocessing as mp

import torch

TITLE = "Thread budgets across processes"
ORDER = 110

_state = {}


def _init(threads: int, kind: str, size: int) -> None:
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
    groups = [(f"{k} MLP forward batches of {batch}", "mlp", batch)]
    if not session.quick:  # quick mode (CI) keeps to one group: each pool costs a process start
        groups.append((f"{k} matmuls {size}x{size}", "matmul", size))
    for group, kind, arg in groups:
        for processes, threads, label, baseline in CONFIGS:
            with ctx.Pool(processes, initializer=_init, initargs=(threads, kind, arg)) as pool:
                reported = set(pool.map(_unit, range(4 * processes), chunksize=1))  # warm-up
                assert reported == {threads}, f"workers report {reported} threads, asked {threads}"

                def batch_of_work():
                    pool.map(_unit, range(k), chunksize=1)

                session.time(group, label, batch_of_work, num_threads=1, baseline=baseline, items=k,
                             params={"processes": processes, "threads_per_process": threads})
