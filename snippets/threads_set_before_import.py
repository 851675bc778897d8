"""Set OMP_NUM_THREADS before torch is imported, so OpenMP and MKL read it when they load."""
import argparse

# --8<-- [start:before]
import os
import sys


def set_threads_before_import(threads: int) -> None:
    """Call before the first `import torch`: OpenMP and MKL read these once, while torch loads them."""
    if "torch" in sys.modules:
        sys.exit("torch is already imported; setting OMP_NUM_THREADS now would have no effect")
    os.environ["OMP_NUM_THREADS"] = str(threads)
    os.environ["MKL_NUM_THREADS"] = str(threads)
# --8<-- [end:before]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=1, help="thread count to ask for (default 1)")
    args = parser.parse_args()
    if args.threads < 1:
        parser.error("--threads must be at least 1")

    set_threads_before_import(args.threads)
    import torch

    print("threads torch uses:", torch.get_num_threads())
    print(f"asked for {args.threads} before import; got {torch.get_num_threads()}; "
          f"honoured: {torch.get_num_threads() == args.threads}")


if __name__ == "__main__":
    main()
