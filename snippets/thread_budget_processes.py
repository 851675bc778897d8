"""N worker processes x M intra-op threads each, kept within the core budget (N x M <= cores)."""
import argparse
import multiprocessing as mp
import os

import torch


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


# --8<-- [start:worker]
def worker(rank: int, threads: int, results) -> None:
    torch.set_num_threads(threads)  # first thing in the worker, before any torch op
    torch.manual_seed(rank)
    a = torch.randn(256, 256)
    results.put((rank, torch.get_num_threads(), (a @ a).sum().item()))
# --8<-- [end:worker]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--processes", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads per worker (default: usable cores // processes, at least 1)")
    parser.add_argument("--start-method", choices=mp.get_all_start_methods(), default=None,
                        help="fork, spawn or forkserver (default: the platform's)")
    args = parser.parse_args()
    if args.processes < 1 or (args.threads is not None and args.threads < 1):
        parser.error("--processes and --threads must be at least 1")

    # --8<-- [start:budget]
    budget = usable_cores()
    threads = args.threads or max(1, budget // args.processes)
    print(f"budget {budget} core(s): {args.processes} process(es) x {threads} thread(s) = "
          f"{args.processes * threads} (oversubscribed: {args.processes * threads > budget})")
    # --8<-- [end:budget]

    # Start the workers before the parent runs any torch op: with fork, a child of a parent that
    # has used its OpenMP pool can hang as soon as it runs a parallel op itself.
    ctx = mp.get_context(args.start_method)
    results = ctx.Queue()
    procs = [ctx.Process(target=worker, args=(rank, threads, results)) for rank in range(args.processes)]
    for p in procs:
        p.start()
    reports = sorted(results.get(timeout=120) for _ in procs)
    for p in procs:
        p.join()
        if p.exitcode != 0:
            raise SystemExit(f"a worker failed with exit code {p.exitcode}")

    print(f"start method: {ctx.get_start_method()}")
    for rank, got, checksum in reports:
        torch.manual_seed(rank)
        a = torch.randn(256, 256)
        same = torch.isclose(torch.tensor(checksum), (a @ a).sum(), rtol=1e-4).item()
        print(f"worker {rank}: asked {threads} thread(s), torch reports {got}; same result as the parent: {same}")


if __name__ == "__main__":
    main()
