"""Time one matmul with 1 thread up to twice the usable cores: past the core count it gets slower."""
import argparse
import os

import torch
from torch.utils.benchmark import Timer


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=512, help="square matrix size (default 512)")
    parser.add_argument("--max-threads", type=int, default=2 * usable_cores(),
                        help="largest thread count to try (default: twice the usable cores)")
    args = parser.parse_args()
    if args.size < 1 or args.max_threads < 1:
        parser.error("--size and --max-threads must be at least 1")

    torch.manual_seed(0)
    a = torch.randn(args.size, args.size)
    expected = a @ a
    print(f"usable cores: {usable_cores()}; {args.size}x{args.size} matmul")
    print(f"{'threads':>7} {'torch reports':>13} {'ms per matmul':>13} {'vs 1 thread':>11}")
    one = None
    for n in range(1, args.max_threads + 1):
        torch.set_num_threads(n)
        got = torch.get_num_threads()  # what was asked for, even past the core count
        torch.testing.assert_close(a @ a, expected)  # same answer whatever the thread count
        m = Timer("a @ a", globals={"a": a}, num_threads=n).blocked_autorange(min_run_time=0.2)
        one = one or m.median
        print(f"{n:>7} {got:>13} {m.median * 1e3:>13.3f} {one / m.median:>10.2f}x")


if __name__ == "__main__":
    main()
