"""What a result was measured on: CPU, cores, ISA flags, torch build and thread settings."""
from __future__ import annotations

import os
import platform
from pathlib import Path

# ISA flags worth naming on a CPU performance page, as spelled in /proc/cpuinfo.
ISA_FLAGS = ("avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni", "avx_vnni", "amx_bf16", "amx_tile")


def _cpuinfo() -> dict[str, str]:
    info: dict[str, str] = {}
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return info
    for line in text.splitlines():
        key, _, value = line.partition(":")
        info.setdefault(key.strip(), value.strip())
    return info


def physical_cores() -> int:
    import psutil
    return psutil.cpu_count(logical=False) or os.cpu_count() or 1


def usable_cores() -> int:
    """Cores this process may run on (affinity), which a container or taskset can lower."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def peak_fp32_gflops(cores: int, mhz: float, flags: set[str]) -> float | None:
    """Theoretical FP32 peak: cores x clock x FMA lanes x 2 flops x 2 FMA units.

    Assumes two FMA pipes per core, true of current x86 server cores (Zen 2+, Skylake-SP+);
    turbo and thermal limits move the real ceiling either way.
    """
    if not mhz:
        return None
    lanes = 16 if "avx512f" in flags else 8 if "fma" in flags else 4
    return cores * mhz / 1000 * lanes * 2 * 2


def describe() -> dict:
    import torch  # here, not at the top: one_line() (the notebook, the pages) needs no torch

    info = _cpuinfo()
    flags = set(info.get("flags", "").split())
    mhz = float(info.get("cpu MHz", 0) or 0)
    cores = physical_cores()
    return {
        "cpu_model": info.get("model name") or platform.processor() or platform.machine(),
        "arch": platform.machine(),
        "logical_cores": os.cpu_count(),
        "physical_cores": cores,
        "usable_cores": usable_cores(),
        "mhz": mhz,
        "isa": {flag: flag in flags for flag in ISA_FLAGS},
        "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "peak_fp32_gflops": peak_fp32_gflops(cores, mhz, flags),
        "os": platform.platform(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "default_threads": torch.get_num_threads(),
        "interop_threads": torch.get_num_interop_threads(),
        "env": {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "LD_PRELOAD")},
    }


def one_line(machine: dict) -> str:
    isa = ", ".join(k.upper() for k, v in machine["isa"].items() if v) or "no AVX"
    return (f"{machine['cpu_model']}, {machine['physical_cores']} cores ({isa}), "
            f"torch {machine['torch']}, Python {machine['python']}")
