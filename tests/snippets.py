"""Run snippets as a reader would: in a fresh process from a directory outside the repo (run,
run_shared), or, for argument checks and other sizes, inside the test process (run_here)."""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import re
import runpy
import subprocess
import sys
import tempfile
import traceback
import warnings
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
SNIPPETS = ROOT / "snippets"
OUTPUTS = ROOT / "docs" / "outputs"
DOCS = ROOT / "docs"


def all_snippets() -> list[str]:
    return sorted(p.stem for p in SNIPPETS.glob("*.py"))


def snippet_path(name: str) -> Path:
    path = SNIPPETS / f"{name}.py"
    assert path.is_file(), f"no snippet {path}"
    return path


def clean_env(**overrides: str) -> dict[str, str]:
    """The caller's environment without thread settings, so each test states its own."""
    env = {k: v for k, v in os.environ.items()
           if k not in {"OMP_NUM_THREADS", "MKL_NUM_THREADS", "PYTHONPATH"}}
    env.update(overrides)
    return env


def run(name: str, *args: str, env: dict[str, str] | None = None,
        prefix: tuple[str, ...] = (), python_flags: tuple[str, ...] = (),
        cwd: str | os.PathLike | None = None, path: Path | None = None,
        timeout: float = 300) -> subprocess.CompletedProcess:
    """Run one snippet in a new process and return what it printed."""
    script = path or snippet_path(name)
    with tempfile.TemporaryDirectory(prefix=f"run-{name}-") as tmp:
        return subprocess.run(
            [*prefix, sys.executable, *python_flags, str(script), *args],
            cwd=cwd or tmp, env=env or clean_env(), capture_output=True, text=True,
            timeout=timeout,
        )


# Set by conftest for the whole session: pytest-xdist workers share it, so a run that several
# tests read (a page's output, a start method, the isolated run) happens once however the tests
# are spread over workers.
RUN_CACHE_ENV = "SNIPPET_RUN_CACHE"


def shared(key: list, produce: Callable[[], dict]) -> dict:
    """produce() once per test session for this key, its JSON result read back by every other
    caller; a second worker waits for the first instead of repeating the work."""
    cache = Path(os.environ[RUN_CACHE_ENV])
    digest = hashlib.sha1(json.dumps(key).encode()).hexdigest()[:16]
    with open(cache / f"{digest}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stored = cache / f"{digest}.json"
        if stored.exists():
            return json.loads(stored.read_text())
        result = produce()
        stored.write_text(json.dumps(result))
        return result


def as_dict(result: subprocess.CompletedProcess) -> dict:
    return {"args": result.args, "returncode": result.returncode, "stdout": result.stdout, "stderr": result.stderr}


def as_result(saved: dict) -> subprocess.CompletedProcess:
    return subprocess.CompletedProcess(saved["args"], saved["returncode"], saved["stdout"], saved["stderr"])


# The arguments of the run a page shows, for a snippet whose default takes minutes (the case
# study's published sizes): the page says which command printed its output.
PAGE_ARGS: dict[str, tuple[str, ...]] = {"case_study_inference": ("--quick",),
                                         "case_study_resnet50_runtimes": ("--quick",),
                                         "case_study_training": ("--quick",),
                                         "generate_text": ("--quick",)}


def require_modules(*modules: str) -> None:
    """Skip where a runtime's module (onnxruntime, llama_cpp, ...) is not installed; under
    REQUIRE_RUNTIMES=1 (CI) fail instead: requirements.txt installs them all."""
    import importlib.util

    import pytest

    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        if os.environ.get("REQUIRE_RUNTIMES") == "1":
            pytest.fail(f"REQUIRE_RUNTIMES=1 but {', '.join(missing)} is not installed (requirements.txt)")
        pytest.skip(f"{', '.join(missing)} not installed")


def run_shared(name: str, *args: str) -> subprocess.CompletedProcess:
    """A plain run (fresh process, no thread variables, cwd outside the repo) done once per
    session and shared: with no arguments, the run whose output the page shows."""
    args = args or PAGE_ARGS.get(name, ())
    result = as_result(shared(["plain", name, *args], lambda: as_dict(run(name, *args))))
    assert result.returncode == 0, f"{name} {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}"
    return result


def run_here(name: str, *args: str) -> subprocess.CompletedProcess:
    """Run a snippet as __main__ inside this pytest process, where torch is already imported:
    for argument checks and results at other sizes, not for anything about process start-up
    (thread variables, start methods, affinity), which needs run(). Exit code and output are
    what `python snippet.py ARGS` would give; the environment, cwd and torch's thread count are
    put back afterwards."""
    import torch

    script = snippet_path(name)
    saved_env, saved_argv, saved_cwd = dict(os.environ), sys.argv, os.getcwd()
    threads = torch.get_num_threads()
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with tempfile.TemporaryDirectory(prefix=f"run-{name}-") as tmp:
        os.chdir(tmp)
        sys.argv = [str(script), *args]
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
                runpy.run_path(str(script), run_name="__main__")
        except SystemExit as exit_:  # argparse's error(), sys.exit("message"), sys.exit(n)
            if isinstance(exit_.code, str):
                err.write(exit_.code + "\n")
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        except Exception:  # what the interpreter would print before exiting 1
            err.write(traceback.format_exc())
            code = 1
        finally:
            os.chdir(saved_cwd)
            sys.argv = saved_argv
            os.environ.clear()
            os.environ.update(saved_env)
            torch.set_num_threads(threads)
    return subprocess.CompletedProcess([sys.executable, str(script), *args], code, out.getvalue(), err.getvalue())


# A CPU no table knows, as cloud VMs commonly show it (the SKU hidden), with this machine's flags
# and clock: what the peak estimate must handle without printing or recording anything else.
UNKNOWN_MODEL = {"vendor_id": "GenuineIntel", "cpu family": "6", "model": "254",
                 "model name": "Intel(R) Xeon(R) Processor"}
_UNKNOWN_MODEL_PRELUDE = f"""
import pathlib, runpy, sys
_read = pathlib.Path.read_text
def _read_text(self, *args, **kwargs):
    text = _read(self, *args, **kwargs)
    if str(self) != "/proc/cpuinfo":
        return text
    fake = {UNKNOWN_MODEL!r}
    return "\\n".join(f"{{key.strip()}}\\t: {{fake[key.strip()]}}" if key.strip() in fake else line
                      for line in text.splitlines() for key in [line.partition(":")[0]])
pathlib.Path.read_text = _read_text
"""


def unknown_model_args(target: str, *args: str) -> list[str]:
    """A command line that runs target (a script's path, or "-m module") with /proc/cpuinfo read
    as this machine's but with UNKNOWN_MODEL's vendor, family, model and name."""
    if target.startswith("-m "):
        start = f"runpy.run_module({target[3:]!r}, run_name='__main__', alter_sys=True)"
    else:
        start = f"runpy.run_path({target!r}, run_name='__main__')"
    return [sys.executable, "-c", _UNKNOWN_MODEL_PRELUDE + f"sys.argv = [{target!r}, *{list(args)!r}]\n" + start]


def fresh_default_threads() -> int:
    """torch.get_num_threads() in a new process with no thread variables set (asked once per session)."""
    def ask() -> dict:
        done = subprocess.run([sys.executable, "-c", "import torch; print(torch.get_num_threads())"],
                              env=clean_env(), capture_output=True, text=True, check=True)
        return {"threads": int(done.stdout.strip())}
    return shared(["default threads"], ask)["threads"]


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
    """The committed copy of a generated file, which a test compares with a fresh one. Under
    --update-outputs (make regen) it is first rewritten from fresh where same(stored, fresh) says
    they differ: a new timing alone, which the comparison masks, leaves the file as it is, so
    make regen twice changes nothing. The one place that knows the update flag."""
    if request.config.getoption("--update-outputs") and (not path.is_file() or not same(path.read_text(), fresh)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(fresh)
    return path.read_text() if path.is_file() else ""


def mask(text: str, name: str = "") -> str:
    """What must match between a page's recorded output and a new run: everything but measured
    numbers (decimals), temporary paths, column padding and, for snippet `name`, the parts that
    MACHINE_DEPENDENT lists; on another torch release, its version numbers too."""
    for pattern, _ in MACHINE_DEPENDENT.get(name, ()):
        text = _hide_groups(pattern, text)
    if os.environ.get("TORCH_RELEASE_RUN"):
        text = _VERSION.sub("<version>", text)
    lines = []
    for line in text.strip().splitlines():
        line = _TMP.sub("<tmp>", _FLOAT.sub("<n>", line))
        lines.append(" ".join(line.split()))
    return "\n".join(lines)
