"""How close torch.mm gets to the CPU's theoretical peak (an estimate from /proc/cpuinfo)."""
import argparse
import os
from pathlib import Path

import torch
from torch.utils.benchmark import Timer


# --8<-- [start:peak]
def read_cpuinfo() -> dict[str, str]:
    """The first CPU's fields of /proc/cpuinfo; {} where there is none (not Linux)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return {}
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    return fields


def fp32_flops_per_cycle(vendor: str, family: int, model: int, name: str, flags: set[str]) -> int | None:
    """FP32 flops one core can issue per cycle: FMA units x lanes they really have x 2, per
    microarchitecture. None where the model does not tell: AVX-512 Xeons have one or two
    512-bit FMA units depending on the SKU, and cloud VMs often hide the SKU."""
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
        if family == 6 and model in (0x6A, 0x6C, 0x8F, 0xCF, 0xAD, 0xAE):
            return 64  # Ice Lake-SP, Sapphire, Emerald and Granite Rapids: every SKU has two (Intel ARK)
    return None


def inferred_fp32_flops_per_cycle(flags: set[str], one_thread_gflops: float, mhz: float) -> int:
    """Where the model does not tell: the vector width from the flags, and the fewest FMA units
    (one or two) that account for what one thread of torch.mm reached at this clock. A clock
    below the one the cores run at (a VM's base clock) can make one unit look like two."""
    one_unit = 2 * (16 if "avx512f" in flags else 8 if flags & {"avx", "avx2"} else 4)  # 2 flops per FMA lane
    return one_unit if one_thread_gflops <= mhz / 1000 * one_unit else 2 * one_unit


def ops_per_cycle(fp32_per_cycle: int, flags: set[str]) -> dict[str, int]:
    """Matrix work one core can do per cycle, per precision with a native path: AMX tiles do
    1024 bf16 flops or 2048 int8 ops a cycle (Intel's optimisation manual); without AMX,
    AVX512_BF16's dot product doubles the fp32 rate and VNNI's int8 dot product quadruples it."""
    ops = {"fp32": fp32_per_cycle}
    if "amx_bf16" in flags:
        ops["bf16"] = 1024
    elif "avx512_bf16" in flags:
        ops["bf16"] = 2 * fp32_per_cycle
    if "amx_int8" in flags:
        ops["int8"] = 2048
    elif "avx512_vnni" in flags or "avx_vnni" in flags:
        ops["int8"] = 4 * fp32_per_cycle
    return ops


def estimated_peaks(cores: int, mhz: float, one_thread_gflops=None) -> tuple[dict[str, float], str] | None:
    """({precision: peak GFLOP/s (int8: GOPS) of `cores` cores at `mhz`}, how the FMA units
    were found), or None without /proc/cpuinfo. one_thread_gflops() measures a 1-thread torch.mm,
    called only where the model does not tell. Count physical cores: two SMT threads share one
    core's units. An estimate: turbo, thermal limits and other load move the real ceiling."""
    fields = read_cpuinfo()
    if not fields:
        return None
    flags = set(fields.get("flags", "").split())
    try:
        family, model = int(fields.get("cpu family", "")), int(fields.get("model", ""))
    except ValueError:
        family = model = -1
    per_cycle = fp32_flops_per_cycle(fields.get("vendor_id", ""), family, model, fields.get("model name", ""), flags)
    basis = "from the CPU model"
    if per_cycle is None:
        per_cycle = inferred_fp32_flops_per_cycle(flags, one_thread_gflops(), mhz)
        basis = "inferred from a 1-thread torch.mm"
    return {precision: cores * mhz / 1000 * ops for precision, ops in ops_per_cycle(per_cycle, flags).items()}, basis
# --8<-- [end:peak]


def mm_gflops(n: int, threads: int, min_run_time: float) -> float:
    torch.manual_seed(0)
    a, b = torch.randn(n, n), torch.randn(n, n)
    # --8<-- [start:measure]
    timer = Timer("torch.mm(a, b)", globals={"torch": torch, "a": a, "b": b}, num_threads=threads)
    seconds = timer.blocked_autorange(min_run_time=min_run_time).median
    return 2 * n**3 / seconds / 1e9  # an n x n x n product is n^3 multiply-adds
    # --8<-- [end:measure]


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

    threads = torch.get_num_threads()
    achieved = mm_gflops(args.size, threads, min_run_time=1.0)
    print(f"torch.mm {args.size}x{args.size} float32 on torch.get_num_threads() threads: {achieved:.1f} GFLOP/s")
    # More threads than usable cores add no FMA units.
    cores = min(threads, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    mhz = args.mhz or float(read_cpuinfo().get("cpu MHz", 0) or 0)
    found = estimated_peaks(cores, mhz, lambda: mm_gflops(512, 1, min_run_time=0.3)) if mhz else None
    if found is None:
        print("estimated peak: unknown on this platform (no /proc/cpuinfo with a clock)")
        return
    peaks, basis = found
    print(f"clock for the peak: {mhz:.1f} MHz ({'--mhz' if args.mhz else 'cpu MHz in /proc/cpuinfo'})")
    print(f"FMA units: {basis}")
    print(f"estimated FP32 peak for those threads: {peaks['fp32']:.1f} GFLOP/s; torch.mm reaches "
          f"{achieved / peaks['fp32']:.2f} of it")
    native = ", ".join(f"{p} {peaks[p]:.1f} {'GOPS' if p == 'int8' else 'GFLOP/s'}" for p in ("bf16", "int8") if p in peaks)
    print(f"with a native path, for those threads: {native or 'none (no AVX512_BF16, VNNI or AMX)'}")


if __name__ == "__main__":
    main()
