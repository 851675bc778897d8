"""Recorded outputs: what of a snippet's printed output must match a fresh run (mask, with each
snippet's machine-dependent parts and why), and the one place that rewrites a committed generated
file from a fresh copy (keep, keep_only; under --update-outputs: make regen)."""
from __future__ import annotations

import os
import re
from pathlib import Path

from tests.paths import OUTPUTS

_FLOAT = re.compile(r"[-+]?\d+\.\d+(?:e[-+]?\d+)?")
_TMP = re.compile(r"(?:/tmp|/var/folders)/\S+")

# What a snippet prints differently on another CPU or core count, by snippet: (a multi-line regex,
# why it varies). mask() replaces the regex's groups with MACHINE in the recorded output and in a
# new run alike, so the rest of each line is still compared; the page tests check these values
# against the machine they run on.
MACHINE = "<machine>"
_TIMED_THREADS = (r"\((\d+ threads?)\)$", "timed on torch's default threads: one per usable core")
MACHINE_DEPENDENT: dict[str, tuple[tuple[str, str], ...]] = {
    "generate_text": (
        (r"; (\d+) thread\(s\)$", "torch's default threads: the usable cores"),
        (r" (\d+)% ", "the share of the bandwidth bound (timed) and the agreement with fp32 (this CPU's bf16 "
                       "arithmetic)"),
    ),
    "bfloat16_autocast_cpu": (
        (r"^torch CPU capability: (\w+);", "the instruction set torch dispatches to on this CPU"),
        (r"AVX512_BF16: (yes|no); AMX_BF16: (yes|no)$", "the CPU's bf16 instructions (/proc/cpuinfo)"),
        (r"^native bf16 matmul: (.+)$", "follows from the CPU's bf16 instructions"),
        (r"changed the fp32 results: (True|False)$", "True only where oneDNN has native bf16 to use"),
        _TIMED_THREADS,
    ),
    "channels_last_conv_inference": (_TIMED_THREADS,),
    "quantisation_int8_dynamic_torchao": (_TIMED_THREADS,),
    "compile_speedup_small_mlp": ((r"batch 64, (\d+) thread\(s\)", "torch's default threads: the usable cores"),),
    "thread_budget_dataloader_workers": (
        (r"^main process: (\d+) thread", "torch's default threads: the usable cores"),
        (r"busy: (\d+) \+ 2 x 1 = (\d+)$", "the main process's default threads, plus one per worker"),
    ),
    "thread_budget_processes": (
        (r"^budget (\d+) core\(s\): 2 process\(es\) x (\d+) thread\(s\) = (\d+) \(oversubscribed: (True|False)\)$",
         "the usable cores split between 2 processes, oversubscribed below 2 cores"),
        (r"asked (\d+) thread\(s\), torch reports (\d+);", "each process's share of the usable cores"),
    ),
    "thread_budget_python_threads": (
        (r"(?:default|before|after set_num_threads): (\d+)", "torch's default threads: the usable cores"),
    ),
    "thread_budget_report": (
        (r"^(?:os.cpu_count\(\)|usable \(affinity\)|physical cores|torch default threads|thread budget): +(\d+)$",
         "the machine's CPUs, the ones this process may use, and what follows from them"),
        (r"^cgroup CPU quota: +(.+)$", "the container's CPU limit and cgroup version"),
        (r"^1 process\(es\) x (\d+) thread\(s\) = (\d+) ", "the thread budget, all for 1 process"),
    ),
    "threads_env_after_import": (
        (r"^threads torch uses: (\d+)$", "torch's default threads: the usable cores"),
        (r"got (\d+); honoured: (True|False)$", "the default; True where it already is the 1 asked for (one core)"),
    ),
    "threads_oversubscription": (
        (r"^usable cores: (\d+);", "the CPUs this process may use"),
        (r"^ +2 +2 +\S+ +\S+x\n?((?: +\d+ +\d+ +\S+ +\S+x\n?)*)",
         "rows for 3 up to twice the usable cores threads: none on one core (tests/test_threads.py checks them)"),
    ),
    "profiling_which_kernel": (
        (r"^torch CPU capability: (\w+)$", "the instruction set torch dispatches to on this CPU"),
        (r"(?:convolution|matmul) \S+:(\w+);", "oneDNN names each kernel after the ISA it was built for"),
        (r"^bf16 linear under autocast: +(.+)$",
         "oneDNN runs bf16 matmuls only where the CPU has bf16 (AVX512_BF16, AMX); elsewhere torch's own kernel"),
    ),
    "vectorise_matmul_gflops": (
        (r"^FMA units: (.+)$", "from the CPU model where the snippet's table knows it, else inferred from a probe"),
        (r"^with a native path, for those threads: (.+)$",
         "bf16 and int8 peaks only where the CPU has AVX512_BF16, VNNI or AMX"),
    ),
    "case_study_inference": (
        (r"^torch \S+, (\d+) thread\(s\), CPU capability (\w+), native bf16: (yes|no), native int8: (yes|no)$",
         "threads, the ISA torch dispatches to, and whether the CPU has bf16 (AVX512_BF16/AMX) and int8 (VNNI/AMX)"),
        (r"^batch size: steps 1 and 2 (\d+) \(step batching's best\)", "the fastest batch size depends on the CPU"),
        (r"^(?:\d [a-z_]+|  [a-z0-9 ]+ \(side\)) +(\d+) +\d", "so does each row's own (column batch)"),
        (r"^parity inputs: \d+, in (\d+) classes by fp32 eager$",
         "near-ties between classes round either way with the ISA's summation order"),
    ),
    "tune_your_model": (
        (r"^torch \S+; CPU capability (\w+); native bf16: (yes|no); native int8: (yes|no); (\d+) physical core\(s\); "
         r"torch's default: (\d+) thread\(s\)$", "the ISA torch dispatches to, the CPU's bf16 and int8 instructions, its cores"),
        (r"^threads +skipped: torch already runs (\d+) threads", "torch's default: one thread per usable core"),
        (r"^bf16 +(.+)$", "measured where the CPU has native bf16, else the reason"),
        (r"^batch_size +(.+)$", "the batch size the sweep found fastest, measured where it is another than the current one"),
        (r"^(?:inference_mode|channels_last|compile|int8) +(\d+) +\S+ +\S+ +\S+ +((?:paid|lost|even)(?:, [a-z ]+)?)  ",
         "each step's batch size, verdict, and whether it was kept (or lost parity): the CPU's"),
        (r"^fastest configuration that kept parity: (.+(?:\n  side by side with the baseline: .+)?)$",
         "the steps kept on this CPU"),
        (r"^  against [\w ]+: \S+ \(\S+, (paid|lost|even)\);", "how the other runtimes fare on this CPU"),
        (r"^code:\n    import torch\n    model\.(?:eval|train)\(\)\n((?:    .*\n?)+)",
         "the code of the configuration kept on this CPU"),
    ),
    "case_study_resnet50_runtimes": (
        (r"^torch \S+, (\d+) thread\(s\)", "threads: one per usable core"),
        (r"^(?:ONNX Runtime|OpenVINO) int8 +\S+ +\S+ +\S+ +(\d+%)",
         "int8 rounding flips near-ties differently with and without VNNI"),
        (r"^OpenVINO bf16 +(.+)$", "measured only where OpenVINO has native bf16 (AVX512_BF16, AMX)"),
    ),
    "case_study_training": (
        (r"^5 bf16 +(.+)$", "measured only where the CPU has native bf16 (AVX512_BF16, AMX)"),
        (r"^tcmalloc against glibc malloc, .+ \(preloaded (\S+), found in /proc/self/maps\)$",
         "where the package put libtcmalloc_minimal.so.4 (.ci/run installs it), and its version"),
    ),
    "threads_parallel_info": (
        (r"^logical CPUs: (\d+), usable: (\d+), physical cores: (\d+)$", "the machine's CPUs and cores"),
        (r"^suggested intra-op threads: (\d+); torch default: (\d+)$", "one thread per usable core"),
        (r"(?:get_num_threads|get_num_interop_threads|get_max_threads|hardware_concurrency)\(\) : (\d+)$",
         "thread pools sized to the usable cores (hardware_concurrency: to all CPUs)"),
    ),
}


def _hide_groups(pattern: str, text: str) -> str:
    """text with every group of every match of pattern replaced by MACHINE."""
    def hide(match: re.Match) -> str:
        kept, at = [], match.start()
        for group in range(1, match.re.groups + 1):
            start, end = match.span(group)
            if start >= 0:
                kept += [match.string[at:start], MACHINE]
                at = end
        return "".join(kept) + match.string[at:match.end()]
    return re.sub(pattern, hide, text, flags=re.M)


# On another torch release (make test-torch, tests/releases.py sets TORCH_RELEASE_RUN): the version
# banners a snippet prints (torch 2.14.1, oneDNN v3.x (Git Hash …)) differ by construction; what
# the run compares is everything else.
_VERSION = re.compile(r"(?<![\d.])\d+\.\d+\.\d+(?:\+[\w.]+)?(?![\d.])|(?<=Git Hash )[0-9a-f]{7,40}\b")


def keep(path: Path, fresh: str, request, same=lambda stored, fresh: stored == fresh) -> str:
    """The committed copy of a generated file, which a test compares with a fresh one (a snippet's
    recorded output with this machine's stamp above it: stamped). Under
    --update-outputs (make regen) it is first rewritten from fresh where same(stored, fresh) says
    they differ: a new timing alone, which the comparison masks, leaves the file as it is, so
    make regen twice changes nothing."""
    # a snippet's recorded output (tune/: tune_your_model's runs on the example models)
    stamps = path.suffix == ".txt" and path.parent.resolve() in (OUTPUTS.resolve(), (OUTPUTS / "tune").resolve())
    if stamps:
        fresh = stamped(fresh)
    if updating(request) and (not path.is_file() or not same(path.read_text(), fresh)
                              or (stamps and stamp_of(path.read_text()) is None)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(fresh)
    return path.read_text() if path.is_file() else ""


def keep_only(folder: Path, kept: set[Path], request) -> set[Path]:
    """The files under folder that no fresh copy was made for (paths relative to folder): under
    --update-outputs removed first, so a generated file nothing makes any more goes too."""
    extra = {p.relative_to(folder) for p in folder.rglob("*") if p.is_file()} - kept
    if updating(request):
        for path in extra:
            (folder / path).unlink()
        return set()
    return extra


def updating(request) -> bool:
    """--update-outputs (make regen): rewrite generated files from fresh copies instead of failing.
    The one place that reads the flag."""
    return request.config.getoption("--update-outputs")


# A recorded output's first line: the machine and torch release that printed it, written by the run
# that recorded it (stamped), never typed; a page names no machine for an output itself.
STAMP = "# recorded on "


def stamped(output: str) -> str:
    """The output with the stamp of this machine and torch release above it."""
    import torch

    from bench.machine import kind, machine_name, this_machine
    machine = this_machine()
    return f"{STAMP}{machine_name(machine)} [{kind(machine)}]; torch {torch.__version__.split('+')[0]}\n{output}"


def stamped_kind(text: str) -> str | None:
    """The CPU kind a recorded output's stamp names ('amd-avx512-bf16'), or None."""
    found = re.search(r"\[([\w-]+)\]; torch ", stamp_of(text) or "")
    return found.group(1) if found else None


def stamp_of(text: str) -> str | None:
    """The machine a recorded output names (its stamp without the prefix), or None."""
    first = text.split("\n", 1)[0]
    return first[len(STAMP):] if first.startswith(STAMP) else None


def mask(text: str, name: str = "") -> str:
    """What must match between a page's recorded output and a new run: everything but its stamp,
    measured numbers (decimals), temporary paths, column padding and, for snippet `name`, the parts
    that MACHINE_DEPENDENT lists; on another torch release, its version numbers too."""
    if stamp_of(text) is not None:
        text = text.split("\n", 1)[1] if "\n" in text else ""
    for pattern, _ in MACHINE_DEPENDENT.get(name, ()):
        text = _hide_groups(pattern, text)
    if os.environ.get("TORCH_RELEASE_RUN"):
        text = _VERSION.sub("<version>", text)
    lines = []
    for line in text.strip().splitlines():
        line = _TMP.sub("<tmp>", _FLOAT.sub("<n>", line))
        lines.append(" ".join(line.split()))
    return "\n".join(lines)
