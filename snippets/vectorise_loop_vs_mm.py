"""A matrix product three ways: a Python loop, a loop over rows, and one torch.mm call.

Same inputs, same answer (checked with torch.testing.assert_close), very different time.
"""
import argparse

import torch
from torch.utils.benchmark import Timer


# --8<-- [start:loops]
def matmul_python_loop(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """One torch.dot per output element: n*m small calls, each paying Python and dispatch overhead."""
    n, m = a.shape[0], b.shape[1]
    out = torch.empty(n, m)
    bt = b.t().contiguous()
    for i in range(n):
        for j in range(m):
            out[i, j] = torch.dot(a[i], bt[j])
    return out


def matmul_row_loop(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """One vector-matrix product per row: n calls instead of n*m, still a Python loop."""
    return torch.stack([a[i] @ b for i in range(a.shape[0])])


def matmul_vectorised(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """One call: the BLAS kernel tiles the work for cache and SIMD and can use every thread."""
    return torch.mm(a, b)
# --8<-- [end:loops]


def seconds(fn, *args) -> float:
    # One thread for every variant, so the gap is the loop's overhead, not parallelism.
    timer = Timer("fn(*args)", globals={"fn": fn, "args": args}, num_threads=1)
    return timer.blocked_autorange(min_run_time=0.2).median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=64, help="square matrix size (default 64)")
    args = parser.parse_args()
    if not 1 <= args.size <= 512:
        parser.error("--size must be between 1 and 512 (the element loop is O(size^2) Python calls)")

    torch.manual_seed(0)
    a = torch.randn(args.size, args.size)
    b = torch.randn(args.size, args.size)

    # --8<-- [start:check]
    expected = matmul_vectorised(a, b)
    for fn in (matmul_python_loop, matmul_row_loop):
        # float32 sums in a different order: equal within rtol=1.3e-6, atol=1e-5 (the float32 defaults)
        torch.testing.assert_close(fn(a, b), expected, rtol=1.3e-6, atol=1e-5)
    print("all three give the same result (rtol=1.3e-6, atol=1e-5)")
    # --8<-- [end:check]

    loop = seconds(matmul_python_loop, a, b)
    rows = seconds(matmul_row_loop, a, b)
    mm = seconds(matmul_vectorised, a, b)
    print(f"{args.size}x{args.size} @ {args.size}x{args.size}, 1 thread, median of blocked_autorange:")
    print(f"  element loop (torch.dot per element): {loop * 1e3:10.3f} ms")
    print(f"  row loop (vector @ matrix per row):   {rows * 1e3:10.3f} ms  {loop / rows:8.1f}x faster than the element loop")
    print(f"  torch.mm:                             {mm * 1e3:10.3f} ms  {loop / mm:8.1f}x faster than the element loop")

    # The article's example: what it costs before you run it.
    n, k, m = 10_000, 1_000, 10_000
    print(f"article's torch.mm({n}x{k}, {k}x{m}): result {n * m * 4 // 10**6} MB of float32, "
          f"{2 * n * k * m // 10**9} GFLOP (the loop it replaces would make {n * m:,} torch.dot calls)")


if __name__ == "__main__":
    main()
