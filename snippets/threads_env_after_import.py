"""The origin article's thread setting: OMP_NUM_THREADS / MKL_NUM_THREADS set AFTER `import torch`.

Run it plainly, then with the variable set by the shell, and compare:
    python threads_env_after_import.py              # the count does not change
    OMP_NUM_THREADS=1 python threads_env_after_import.py   # set before start: it does
"""
import argparse
import os

import torch  # loads OpenMP and MKL, which read their environment variables now


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="thread count to ask for (default 1)")
    args = parser.parse_args()
    if args.threads < 1:
        parser.error("--threads must be at least 1")

    # --8<-- [start:article]
    os.environ["OMP_NUM_THREADS"] = str(args.threads)  # too late: torch is already imported
    os.environ["MKL_NUM_THREADS"] = str(args.threads)
    print("threads torch uses:", torch.get_num_threads())
    # --8<-- [end:article]
    print(f"asked for {args.threads} after import; got {torch.get_num_threads()}; "
          f"honoured: {torch.get_num_threads() == args.threads}")


if __name__ == "__main__":
    main()
