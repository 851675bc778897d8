"""Python threads and torch's thread count: new threads pick it up, older ones need init_num_threads()."""
import argparse
import threading

import torch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads to set (default 1)")
    args = parser.parse_args()
    if args.threads < 1:
        parser.error("--threads must be at least 1")
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
        report["new thread"] = torch.get_num_threads()  # set up on first use: already right

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


if __name__ == "__main__":
    main()
