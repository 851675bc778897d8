"""`.item()` in a loop: one Python float per element, instead of one reduction on the tensor."""
import argparse

import torch
from torch.utils.benchmark import Timer


# --8<-- [start:item]
def count_and_sum_with_item(t: torch.Tensor) -> tuple[int, float]:
    """Anti-pattern: every t[i] makes a 0-d tensor, every .item() boxes it into a Python float."""
    count, total = 0, 0.0
    for i in range(t.shape[0]):
        value = t[i].item()
        if value > 0:
            count += 1
            total += value
    return count, total


def count_and_sum_vectorised(t: torch.Tensor) -> tuple[int, float]:
    """Mask and reduce on the tensor; convert to Python numbers once, at the end."""
    positive = t > 0
    return int(positive.sum()), float(t[positive].sum(dtype=torch.float64))
# --8<-- [end:item]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=20_000, help="tensor length (default 20000)")
    args = parser.parse_args()
    if not 1 <= args.n <= 1_000_000:
        parser.error("--n must be between 1 and 1000000")

    torch.manual_seed(0)
    t = torch.randn(args.n)
    slow_count, slow_total = count_and_sum_with_item(t)
    fast_count, fast_total = count_and_sum_vectorised(t)
    assert slow_count == fast_count
    # The loop adds in Python float64, the tensor sum in float64 too, in another order.
    assert abs(slow_total - fast_total) <= 1e-9 * max(1.0, abs(fast_total)), (slow_total, fast_total)
    print(f"same count: {slow_count == fast_count}; same sum within 1e-9 relative: True")

    timings = {}
    for fn in (count_and_sum_with_item, count_and_sum_vectorised):
        timer = Timer("fn(t)", globals={"fn": fn, "t": t}, num_threads=1)
        timings[fn.__name__] = timer.blocked_autorange(min_run_time=0.2).median
    slow, fast = timings["count_and_sum_with_item"], timings["count_and_sum_vectorised"]
    print(f"{args.n} elements: .item() loop {slow * 1e3:.2f} ms, vectorised {fast * 1e3:.3f} ms, "
          f"{slow / fast:.1f}x faster; the .item() loop costs {slow / args.n * 1e9:.1f} ns per element")


if __name__ == "__main__":
    main()
