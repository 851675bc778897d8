"""How close torch.mm gets to the CPU's theoretical FP32 peak (an estimate from /proc/cpuinfo)."""
import argparse
import os
from pathlib import Path

import torch
from torch.utils.benchmark import Timer


# --8<-- [start:peak]
def fp32_flops_per_cycle(vendor: str, family: int, model: int, name: str, flags: set[str]) -> int | None:
    """FP32 flops one core can issue per cycle: FMA units x lanes they really have x 2, per
    microarchitecture. None where the flags do not tell (AVX-512 Xeons have one or two 512-bit
    FMA units depending on the SKU): better "unknown" than a peak twice too high."""
    if "fma" not in flags:
        return None
    if vendor == "AuthenticAMD":
        if family == 0x17:              # Zen, Zen+ (2 x 128-bit FMA); Zen 2 from model 0x30 (2 x 256)
            return 32 if model >= 0x30 else 16
        if family == 0x19:              # Zen 3, and Zen 4, whose AVX-512 runs on 256-bit FMA units
            return 32
        return None                     # Zen 5 has 256- or 512-bit data paths depending on the part
    if vendor == "GenuineIntel":
        if "avx512f" not in flags:      # Haswell and later cores: 2 x 256-bit FMA
            return 32
        if "Platinum" in name or "Gold 6" in name:  # Xeon SKUs with two 512-bit FMA units
            return 64
    return None


def estimated_peak_gflops(threads: int, mhz: float | None = None) -> float | None:
    """threads x GHz x FP32 flops per cycle (Linux/x86 only; None where unknown).

    mhz defaults to /proc/cpuinfo's "cpu MHz", which a VM often reports as the base clock while
    the core boosts higher: then torch.mm can beat this "peak". Two SMT threads share one
    core's units, so count physical cores. An estimate.
    """
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return None
    fields = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())  # the first CPU's fields
    mhz = mhz or float(fields.get("cpu MHz", 0) or 0)
    try:
        family, model = int(fields.get("cpu family", "")), int(fields.get("model", ""))
    except ValueError:
        return None
    per_cycle = fp32_flops_per_cycle(fields.get("vendor_id", ""), family, model, fields.get("model name", ""),
                                     set(fields.get("flags", "").split()))
    if not mhz or per_cycle is None:
        return None
    return threads * mhz / 1000 * per_cycle
# --8<-- [end:peak]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=1024, help="square matrix size (default 1024)")
    parser.add_argument("--mhz", type=float,
                        help="the clock the cores really run at, for the peak (default: /proc/cpuinfo's "
                             "cpu MHz, which a VM often reports as its base clock)")
    args = parser.parse_args()
    if not 16 <= args.size <= 4096:
        parser.error("--size must be between 16 and 4096")
    if args.mhz is not None and not 100 <= args.mhz <= 10000:
        parser.error("--mhz must be between 100 and 10000")

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
    peak = estimated_peak_gflops(min(threads, cores), args.mhz)
    if peak is None:
        print("estimated peak: unknown for this CPU (not in the table of FMA units per core)")
    else:
        clock = peak / min(threads, cores) / estimated_peak_gflops(1, 1000.0) * 1000  # the MHz it used
        print(f"clock for the peak: {clock:.1f} MHz ({'--mhz' if args.mhz else 'cpu MHz in /proc/cpuinfo'})")
        print(f"estimated FP32 peak for those threads: {peak:.1f} GFLOP/s; torch.mm reaches {achieved / peak:.2f} of it")


if __name__ == "__main__":
    main()
