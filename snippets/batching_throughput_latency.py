"""Throughput and latency against batch size (1 thread and all threads), small MLP and CNN; batched == one at a time.

    python batching_throughput_latency.py
    python batching_throughput_latency.py --batch-sizes 1,8,64 --threads 1
"""
import argparse
import os
import sys

import torch
from torch import nn
from torch.utils.benchmark import Timer

# Batched and one-at-a-time results may differ in the last bits (different kernels, summation
# order); this is the agreement checked, and far below what changes a prediction.
ATOL, RTOL = 1e-5, 1e-5


def mlp() -> nn.Module:
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                         nn.Linear(512, 10))


def cnn() -> nn.Module:
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 7 * 7, 10))


def batch_sizes(text: str) -> list[int]:
    try:
        sizes = [int(s) for s in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of integers: {text!r}") from None
    if not sizes or min(sizes) < 1 or max(sizes) > 1024:
        raise argparse.ArgumentTypeError("batch sizes must be between 1 and 1024")
    return sorted(set(sizes))


def parse_args() -> argparse.Namespace:
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-sizes", type=batch_sizes, default=[1, 2, 4, 8, 16, 32, 64],
                        help="comma-separated (default: 1,2,4,8,16,32,64)")
    parser.add_argument("--threads", type=int,
                        help="the 'all threads' column (default: torch's, all cores); 1 thread is always timed too")
    parser.add_argument("--min-run-time", type=float, default=0.1, help="seconds per timing (default: 0.1)")
    args = parser.parse_args()
    if args.threads is not None and not 1 <= args.threads <= max(usable, 1) * 4:
        parser.error(f"--threads must be between 1 and {max(usable, 1) * 4}")
    if not 0.01 <= args.min_run_time <= 10:
        parser.error("--min-run-time must be between 0.01 and 10 seconds")
    return args


def main() -> int:
    args = parse_args()
    torch.manual_seed(0)
    inputs = torch.randn(max(args.batch_sizes), 1, 28, 28)
    threads = args.threads or torch.get_num_threads()
    print(f"all threads: {'torch default (all cores)' if args.threads is None else args.threads}, "
          "eval() + inference_mode()")
    for name, build in (("MLP 784-512-512-10", mlp), ("CNN 2 conv + 1 linear", cnn)):
        model = build().eval()  # eval(): dropout/batch-norm in inference behaviour
        # --8<-- [start:check]
        with torch.inference_mode():  # no autograd bookkeeping at all
            batched = model(inputs)
            one_at_a_time = torch.cat([model(inputs[i:i + 1]) for i in range(len(inputs))])
        # --8<-- [end:check]
        diff = (batched - one_at_a_time).abs().max().item()
        agree = torch.allclose(batched, one_at_a_time, atol=ATOL, rtol=RTOL)
        same_class = torch.equal(batched.argmax(1), one_at_a_time.argmax(1))
        print(f"\n{name}: batched vs one at a time, max |difference| {diff:.1e}, "
              f"allclose(atol={ATOL:g}, rtol={RTOL:g}): {agree}, same predicted class: {same_class}")
        print(f"{'batch':>5} | {'1 thread: ms per batch':>22} {'samples/s':>10} "
              f"| {'all threads: ms per batch':>25} {'samples/s':>10}")
        for size in args.batch_sizes:
            x = inputs[:size]
            cells = []
            for num_threads in (1, threads):
                with torch.inference_mode():
                    # --8<-- [start:time]
                    timing = Timer("model(x)", globals={"model": model, "x": x},
                                   num_threads=num_threads).blocked_autorange(min_run_time=args.min_run_time)
                    # --8<-- [end:time]
                cells.append((timing.median * 1e3, size / timing.median))
            (ms_one, rate_one), (ms_all, rate_all) = cells
            print(f"{size:>5} | {ms_one:>22.4f} {rate_one:>10.1f} | {ms_all:>25.4f} {rate_all:>10.1f}")
    print("\nEvery sample in a batch waits for the whole batch: its latency is the 'ms per batch' column.\n"
          "On a busy machine the all-threads column can be far slower: each operator waits for its slowest thread.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
