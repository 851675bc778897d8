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
ISA_FLAGS = ("avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni", "avx_vnni", "amx_bf16", "amx_int8", "amx_tile")


def physical_cores() -> int:
    import psutil
    return psutil.cpu_count(logical=False) or os.cpu_count() or 1


def usable_cores() -> int:
    """Cores this process may run on (affinity), which a container or taskset can lower."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


# Four dependent multiplies per iteration, three cycles each on every x86 core since 2011 (Intel
# and AMD alike): the loop runs at one iteration per 12 cycles. Not adds: Golden Cove and later
# Intel cores fold chains of add-immediate in the renamer, and such a loop read 14 GHz there.
CLOCK_LOOP = r"""
#include <stdio.h>
#include <time.h>
int main(void) {
    struct timespec a, b; long x = 1, k = 3, n = 150000000L;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < n; i++)
        __asm__ volatile("imul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0" : "+r"(x) : "r"(k));
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%f\n", 12.0 * n / ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9) / 1e6);
    return 0;
}
"""


@functools.cache
def measured_mhz() -> float | None:
    """The clock a busy core really runs at, from a dependent-multiply loop (x86 with a C compiler;
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


@functools.cache
def _peak_snippet():
    """The vectorise page's peak estimate (snippets/vectorise_matmul_gflops.py), the one place
    that knows FMA units per microarchitecture and reads /proc/cpuinfo."""
    from bench.core import load_snippet  # bench.core imports this module
    return load_snippet("vectorise_matmul_gflops")


def cpuinfo() -> dict[str, str]:
    return _peak_snippet().read_cpuinfo()


@functools.cache
def peaks(cores: int) -> tuple[dict[str, float], str] | None:
    """({"fp32": GFLOP/s, "bf16": GFLOP/s, "int8": GOPS} for the precisions with a native path,
    how the FMA units were found) for `cores` cores at the measured clock, or None (no
    /proc/cpuinfo). Never "unknown" on x86 Linux: where the CPU model does not tell, a 1-thread
    torch.mm probe decides between one and two FMA units."""
    mhz = measured_mhz() or float(cpuinfo().get("cpu MHz", 0) or 0)
    return _peak_snippet().estimated_peaks(cores, mhz, _one_thread_mm_gflops) if mhz else None


@functools.cache
def _one_thread_mm_gflops() -> float:
    """The probe, once per process, so that every core count infers the same FMA units."""
    return _peak_snippet().mm_gflops(512, 1, min_run_time=0.3)


def peak_fp32_gflops(cores: int) -> float | None:
    found = peaks(cores)
    return found[0]["fp32"] if found else None


def describe() -> dict:
    import torch  # here, not at the top: one_line() (the notebook, the pages) needs no torch

    info = cpuinfo()
    flags = set(info.get("flags", "").split())
    mhz = float(info.get("cpu MHz", 0) or 0)
    cores = physical_cores()
    peak, basis = peaks(cores) or (None, None)
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
        "peak_fp32_gflops": peak["fp32"] if peak else None,
        "peak_gflops": peak,  # per precision with a native path; int8 in GOPS
        "peak_basis": basis,  # how the FMA units per core were found
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


# The kinds measured so far (one reference each, bench/references/<kind>.json), in column order
# (kind_order), each with its plot colour in the light and the dark theme. A kind not listed still
# runs and renders: it takes a spare colour (kind_colors).
KINDS = {"amd-avx2": ("#e6550d", "#fd8d3c"), "amd-avx512-bf16": ("#3182bd", "#6baed6"),
         "intel-avx512-bf16": ("#31a354", "#74c476"), "intel-amx": ("#756bb1", "#9e9ac8")}
SPARE_COLORS = (("#636363", "#bdbdbd"), ("#8c6d31", "#e7ba52"), ("#d6616b", "#f4a5ae"), ("#17becf", "#9edae5"))
THEMES = ("light", "dark")


def kind_colors(names: list[str], theme: str) -> list[str]:
    """Each kind's plot colour in the theme: a listed kind's own, the others the spare colours in
    turn (then again, shared, past the last spare)."""
    column = THEMES.index(theme)
    spare = iter([c[column] for c in SPARE_COLORS] * (1 + len(names) // len(SPARE_COLORS)))
    return [KINDS[name][column] if name in KINDS else next(spare) for name in names]


def kind(machine: dict) -> str:
    """A reference's name: vendor and ISA level, e.g. amd-avx2, intel-avx512, amd-avx512-bf16."""
    return f"{_vendor(machine)}-{_isa_level(machine['isa'])}"


def this_kind() -> str:
    """This machine's kind, from /proc/cpuinfo alone (no torch, no timing): what describe() would give."""
    return kind(this_machine())


# Microarchitectures by (vendor, family, model range), for naming a machine from what it reports:
# the ones the references and sessions have met; elsewhere the model name alone.
MICROARCHITECTURES = (("amd", 0x19, range(0x00, 0x10), "Zen 3"), ("amd", 0x19, range(0x20, 0x60), "Zen 3"),
                      ("amd", 0x19, range(0x10, 0x20), "Zen 4"), ("amd", 0x19, range(0x60, 0x80), "Zen 4"),
                      ("amd", 0x19, range(0xa0, 0xb0), "Zen 4"), ("amd", 0x1a, range(0x00, 0x100), "Zen 5"),
                      ("intel", 6, range(143, 144), "Sapphire Rapids"), ("intel", 6, range(207, 208), "Emerald Rapids"),
                      ("intel", 6, range(173, 175), "Granite Rapids"))


def microarchitecture(machine: dict) -> str | None:
    """'Zen 5' from the vendor, family and model the machine reports; None where unknown."""
    try:
        family, model = int(machine["cpu_family"]), int(machine["cpu_model_number"])
    except (KeyError, TypeError, ValueError):
        return None
    return next((name for vendor, fam, models, name in MICROARCHITECTURES
                 if vendor == _vendor(machine) and fam == family and model in models), None)


def this_machine() -> dict:
    """What /proc/cpuinfo says of this machine (no torch, no timing): enough to name it."""
    info = cpuinfo()
    flags = set(info.get("flags", "").split())
    return {"vendor": info.get("vendor_id", ""), "cpu_model": info.get("model name") or platform.machine(),
            "cpu_family": info.get("cpu family"), "cpu_model_number": info.get("model"),
            "arch": platform.machine(), "isa": {flag: flag in flags for flag in ISA_FLAGS}}


def machine_name(machine: dict) -> str:
    """The machine as a recorded output names it: 'AMD EPYC (Zen 5), AMD AVX-512 + BF16'."""
    arch = microarchitecture(machine)
    return f"{machine['cpu_model']}{f' ({arch})' if arch else ''}, {kind_title(machine)}"


def kind_title(machine: dict) -> str:
    """The kind as a column heading: 'AMD, AVX2'."""
    vendor = _vendor(machine)
    return f"{vendor.upper() if vendor in ('amd', 'arm') else vendor.title()}, {ISA_TITLES[_isa_level(machine['isa'])]}"


def kind_order(machine: dict) -> tuple:
    """Older instruction sets first, so columns read from AVX2 up to AMX."""
    return list(ISA_TITLES)[::-1].index(_isa_level(machine["isa"])), kind(machine)
