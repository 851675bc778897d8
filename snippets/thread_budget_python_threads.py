"""Python threads and torch's thread count: each thread gets its own team, and takes the count lazily."""
import argparse
import os
import sys
import threading

import torch


# --8<-- [start:teams]
def new_os_threads(k: int, m: int, init: bool = True) -> int:
    """How many OS threads the process gains while k Python threads run matmuls after
    torch.set_num_threads(m): each thread brings itself and its own OpenMP team (Linux)."""
    torch.set_num_threads(m)
    x = torch.randn(256, 256)
    ready, stop = threading.Barrier(k + 1), threading.Event()

    def serve() -> None:
        if init:
            torch.init_num_threads()  # take the process-wide count (m) for this thread's team
        x @ x  # this thread's first op starts its team
        ready.wait()
        while not stop.is_set():
            x @ x

    before = set(os.listdir("/proc/self/task"))  # thread ids, so threads ending now do not count
    workers = [threading.Thread(target=serve) for _ in range(k)]
    for worker in workers:
        worker.start()
    ready.wait()  # every thread has run a matmul: all k teams exist
    during = set(os.listdir("/proc/self/task"))
    stop.set()
    for worker in workers:
        worker.join()
    return len(during - before)
# --8<-- [end:teams]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads to set (default 1)")
    parser.add_argument("--python-threads", type=int, default=3, metavar="K",
                        help="Python threads running matmuls at once, for the OS-thread count (default 3)")
    parser.add_argument("--team", type=int, default=2, metavar="M",
                        help="torch.set_num_threads for the OS-thread count (default 2)")
    parser.add_argument("--without-init", action="store_true",
                        help="also count threads that skip init_num_threads() after set_num_threads(1)")
    args = parser.parse_args()
    for name in ("threads", "python_threads", "team"):
        if not 1 <= getattr(args, name) <= 64:
            parser.error(f"--{name.replace('_', '-')} must be between 1 and 64")
    default = torch.get_num_threads()
    ran_torch, threads_set = threading.Event(), threading.Event()
    report = {}

    # --8<-- [start:threads]
    def started_early() -> None:
        report["before"] = torch.get_num_threads()  # this thread's pool is set up now
        ran_torch.set()
        threads_set.wait()
        report["after set_num_threads"] = torch.get_num_threads()  # still the old count
        torch.init_num_threads()  # copy the process-wide setting onto this thread
        report["after init_num_threads"] = torch.get_num_threads()

    def started_late() -> None:
        report["new thread"] = torch.get_num_threads()  # asking sets it up: already right

    early = threading.Thread(target=started_early)
    early.start()
    ran_torch.wait()
    torch.set_num_threads(args.threads)  # from the main thread, while `early` is alive
    threads_set.set()
    early.join()
    late = threading.Thread(target=started_late)
    late.start()
    late.join()
    # --8<-- [end:threads]

    print(f"default: {default}; main thread set {args.threads}, reports {torch.get_num_threads()}")
    for key in ("before", "after set_num_threads", "after init_num_threads"):
        print(f"thread started before the call, {key}: {report[key]}")
    print(f"thread started after the call: {report['new thread']}")

    if not os.path.isdir("/proc/self/task"):
        print(f"SKIP: counting OS threads needs Linux's /proc (this is {sys.platform})")
        return
    k, m = args.python_threads, args.team
    print(f"{k} Python threads running matmuls with set_num_threads({m}) and init_num_threads(): "
          f"{new_os_threads(k, m)} more OS threads (K x M = {k * m})")
    if args.without_init:  # their matmuls go to MKL before anything copies the count onto them
        print(f"{k} Python threads running matmuls with set_num_threads(1), without init_num_threads(): "
              f"{new_os_threads(k, 1, init=False)} more OS threads (each team: the OpenMP default)")


if __name__ == "__main__":
    main()
