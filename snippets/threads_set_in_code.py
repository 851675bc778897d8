"""Set the intra-op and inter-op thread counts in code, at the top of the program."""
import argparse

# --8<-- [start:set]
import torch


def set_thread_counts(intra_op: int, inter_op: int) -> None:
    """Call once at the top of the program, before the first model runs."""
    torch.set_num_threads(intra_op)  # intra-op: threads inside one op (matmul, conv, sum)
    torch.set_num_interop_threads(inter_op)  # inter-op: once, before any parallel work
    print("intra-op threads:", torch.get_num_threads())
    print("inter-op threads:", torch.get_num_interop_threads())
# --8<-- [end:set]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads (default 1)")
    parser.add_argument("--interop-threads", type=int, default=1, help="inter-op threads (default 1)")
    args = parser.parse_args()
    if args.threads < 1 or args.interop_threads < 1:
        parser.error("thread counts must be at least 1")

    set_thread_counts(args.threads, args.interop_threads)

    # --8<-- [start:late]
    torch.set_num_threads(1)  # intra-op may be changed at any time
    try:
        torch.set_num_interop_threads(1)  # a second call is refused, whatever the count
    except RuntimeError as err:
        print("RuntimeError:", err)
    # --8<-- [end:late]


if __name__ == "__main__":
    main()
