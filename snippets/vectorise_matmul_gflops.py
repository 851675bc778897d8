"""How close torch.mm gets to the CPU's theoretical FP32 peak (an estimate from /proc/cpuinfo)."""
import argparse
import os
from pathlib import Path

import torch
from torch.utils.benchmark import Timer


# --8<-- [start:peak]
def estimated_peak_gflops(threads: int) -> float | None:
    """threads x GHz x FP32 lanes per vector x 2 FMA units x 2 flops per FMA (Linux/x86 only).

    "cpu MHz" is the current clock, not turbo; two FMA units per core is true of recent
    x86 server cores (Zen 2+, Skylake-SP+) and not of every laptop core; two SMT threads
    share one core's units, so count physical cores. An estimate.
    """
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    flags = set(fields.get("flags", "").split())
    mhz = float(fields.get("cpu MHz", 0) or 0)
    if not mhz or "fma" not in flags:
        return None
    lanes = 16 if "avx512f" in flags else 8
    return threads * mhz / 1000 * lanes * 2 * 2
# --8<-- [end:peak]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=1024, help="square matrix size (default 1024)")
    args = parser.parse_args()
    if not 16 <= args.size <= 4096:
        parser.error("--size must be between 16 and 4096")

    torch.manual_seed(0)
    n = args.size
    a, b = torch.randn(n, n), torch.randn(n, n)
    threads = torch.get_num_threads()
    # --8<-- [start:measure]
    timer = Timer("torch.mm(a, b)", globals={"torch": torch, "a": a, "b": b}, num_threads=threads)
    seconds = timer.blocked_autorange(min_run_time=1.0).median
    achieved = 2 * n**3 / seconds / 1e9  # an n x n x n product is n^3 multiply-adds
    # --8<-- [end:measure]
    print(f"torch.mm {n}x{n} float32 on torch.get_num_threads() threads: {achieved:.1f} GFLOP/s")
    # More threads than usable cores add no FMA units.
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    peak = estimated_peak_gflops(min(threads, cores))
    if peak is None:
        print("estimated peak: unknown on this platform (needs /proc/cpuinfo with an FMA CPU)")
    else:
        print(f"estimated FP32 peak for those threads: {peak:.1f} GFLOP/s; torch.mm reaches {achieved / peak:.2f} of it")


if __name__ == "__main__":
    main()
