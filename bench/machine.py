"""What a result was measured on: CPU, cores, ISA flags, torch build and thread settings."""
from __future__ import annotations

import functools
import os
import platform
import shutil
import subprocess
import tempfile
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


# Four dependent adds per iteration, one cycle each: the loop runs at one iteration per 4 cycles.
CLOCK_LOOP = r"""
#include <stdio.h>
#include <time.h>
int main(void) {
    struct timespec a, b; long x = 0, n = 400000000L;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < n; i++)
        __asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(x));
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%f\n", 4.0 * n / ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9) / 1e6);
    return 0;
}
"""


@functools.cache
def measured_mhz() -> float | None:
    """The clock a busy core really runs at, from a dependent-add loop (x86 with a C compiler;
    else None). A VM's /proc/cpuinfo tends to report the base clock: 2596 MHz on the Zen 4
    reference, which this loop measures at about 3550 MHz, so a peak from cpuinfo is too low."""
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if platform.machine() not in ("x86_64", "AMD64") or not compiler:
        return None
    with tempfile.TemporaryDirectory(prefix="bench-clock-") as tmp:
        source, binary = Path(tmp, "clock.c"), Path(tmp, "clock")
        source.write_text(CLOCK_LOOP)
        built = subprocess.run([compiler, "-O1", str(source), "-o", str(binary)], capture_output=True)
        if built.returncode != 0:
            return None
        runs = [float(subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout)
                for _ in range(3)]
    return max(runs)  # the least disturbed run


def peak_fp32_gflops(cores: int) -> float | None:
    """Theoretical FP32 peak of this machine's cores at the measured clock, from the page's own
    estimate (snippets/vectorise_matmul_gflops.py: FMA units per microarchitecture), or None."""
    import runpy
    snippet = Path(__file__).resolve().parents[1] / "snippets" / "vectorise_matmul_gflops.py"
    return runpy.run_path(str(snippet))["estimated_peak_gflops"](cores, measured_mhz())


def describe() -> dict:
    import torch  # here, not at the top: one_line() (the notebook, the pages) needs no torch

    info = _cpuinfo()
    flags = set(info.get("flags", "").split())
    mhz = float(info.get("cpu MHz", 0) or 0)
    cores = physical_cores()
    return {
        "cpu_model": info.get("model name") or platform.processor() or platform.machine(),
        "vendor": info.get("vendor_id", ""),
        "cpu_family": info.get("cpu family", ""),
        "cpu_model_number": info.get("model", ""),
        "arch": platform.machine(),
        "logical_cores": os.cpu_count(),
        "physical_cores": cores,
        "usable_cores": usable_cores(),
        "mhz": mhz,
        "measured_mhz": measured_mhz(),
        "isa": {flag: flag in flags for flag in ISA_FLAGS},
        "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "peak_fp32_gflops": peak_fp32_gflops(cores),
        "os": platform.platform(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "default_threads": torch.get_num_threads(),
        "interop_threads": torch.get_num_interop_threads(),
        "env": {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "LD_PRELOAD")},
    }


def one_line(machine: dict) -> str:
    return (f"{machine['cpu_model']}, {machine['physical_cores']} cores, "
            f"{ISA_TITLES[_isa_level(machine['isa'])]}, torch {machine['torch']}")


def _vendor(machine: dict) -> str:
    vendor, name = machine.get("vendor", ""), machine["cpu_model"]
    if vendor == "AuthenticAMD" or name.startswith("AMD"):
        return "amd"
    if vendor == "GenuineIntel" or name.startswith("Intel"):
        return "intel"
    return "arm" if machine["arch"] in ("aarch64", "arm64") else machine["arch"]


def _isa_level(isa: dict) -> str:
    """The instruction-set level that decides which advice holds: bf16 and int8 flip with it."""
    if isa.get("amx_bf16"):
        return "amx"
    if isa.get("avx512f"):
        return "avx512-bf16" if isa.get("avx512_bf16") else "avx512-vnni" if isa.get("avx512_vnni") else "avx512"
    return "avx2" if isa.get("avx2") else "baseline"


ISA_TITLES = {"amx": "AMX", "avx512-bf16": "AVX-512 + BF16", "avx512-vnni": "AVX-512 + VNNI",
              "avx512": "AVX-512", "avx2": "AVX2", "baseline": "no AVX2"}


def kind(machine: dict) -> str:
    """A reference's name: vendor and ISA level, e.g. amd-avx2, intel-avx512, amd-avx512-bf16."""
    return f"{_vendor(machine)}-{_isa_level(machine['isa'])}"


def kind_title(machine: dict) -> str:
    """The kind as a column heading: 'AMD, AVX2'."""
    vendor = _vendor(machine)
    return f"{vendor.upper() if vendor in ('amd', 'arm') else vendor.title()}, {ISA_TITLES[_isa_level(machine['isa'])]}"


def kind_order(machine: dict) -> tuple:
    """Older instruction sets first, so columns read from AVX2 up to AMX."""
    return list(ISA_TITLES)[::-1].index(_isa_level(machine["isa"])), kind(machine)
