"""Build llama-cpp-python (requirements.txt's pin) into a venv for the CPU it runs on: the one way
the Makefile (.venv: make setup, which the targets that run Generating text run first; make site and
make serve need no llama.cpp) and bench/releases.py (the release venvs) install it.

    python bench/llama_build.py VENV      # builds only when VENV's stamp names another CPU

pip compiles llama.cpp with -march=native, so a build is for this CPU's vector extensions: the
stamp (VENV/.llama-cpp-built-for) names them, and the build is redone when the venv meets another
CPU, without pip's cache (which would hand back the wheel built for the other one).

On a CPU with AMX-INT8, llama.cpp 0.3.36's AMX path (the "AMX" buffer it repacks Q8_0 and Q4_0
weights into) died with a general protection fault on the first Q8_0 or Q4_0 forward pass on the
project's Xeon VMs (as in ggml-org/llama.cpp#20824, ollama/ollama#17249); the same file ran with
that buffer switched off. There llama.cpp is built with every extension the CPU has but AMX.
No torch import here: this runs before anything else is installed.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAMP = ".llama-cpp-built-for"
# ggml's CMake switch for each extension this build names, AMX left out
GGML_SWITCHES = {"avx2": ["GGML_AVX", "GGML_AVX2", "GGML_FMA", "GGML_F16C", "GGML_BMI2"], "avx_vnni": ["GGML_AVX_VNNI"],
                 "avx512f": ["GGML_AVX512"], "avx512vbmi": ["GGML_AVX512_VBMI"],
                 "avx512_vnni": ["GGML_AVX512_VNNI"], "avx512_bf16": ["GGML_AVX512_BF16"]}


def cpu_flags() -> set[str]:
    try:
        return set(Path("/proc/cpuinfo").read_text().split())
    except OSError:
        return set()


def cmake_args(flags: set[str]) -> str:
    """CMAKE_ARGS for this CPU: none (-march=native) unless it has AMX-INT8, then the native
    build's extensions named one by one, without AMX."""
    if "amx_int8" not in flags:
        return ""
    return " ".join(["-DGGML_NATIVE=OFF"] + [f"-D{switch}=ON" for flag, switches in GGML_SWITCHES.items()
                                              if flag in flags for switch in switches])


def stamp_text(flags: set[str]) -> str:
    """What the stamp says of a build for these flags: the vector extensions, and the CMake
    arguments where they are not -march=native's."""
    named = " ".join(sorted(f for f in flags if re.fullmatch(r"avx2|avx512\w*|amx\w*", f)))
    args = cmake_args(flags)
    return named + (f" | {args}" if args else "")


def pin() -> str:
    return next(line.strip() for line in (ROOT / "requirements.txt").read_text().splitlines()
                if line.startswith("llama-cpp-python=="))


def build(venv: Path) -> str | None:
    """Build the pin into venv unless its stamp says it was built for this CPU; None when done,
    else why not (no build for another CPU is left behind)."""
    flags, stamp = cpu_flags(), venv / STAMP
    if stamp.is_file() and stamp.read_text().strip() == stamp_text(flags):
        return None
    python = str(venv / "bin" / "python")
    args = cmake_args(flags)
    print(f"building {pin()} for this CPU in {venv} (minutes){': CMAKE_ARGS=' + args if args else ''} ...",
          flush=True)
    env = {**os.environ, "CMAKE_ARGS": args} if args else None
    done = subprocess.run([python, "-m", "pip", "install", "-q", "--no-cache-dir", "--force-reinstall", "--no-deps",
                           pin()], capture_output=True, text=True, env=env)
    if done.returncode == 0:  # its dependencies (the build above installs the package alone)
        done = subprocess.run([python, "-m", "pip", "install", "-q", pin()], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        stamp.unlink(missing_ok=True)
        subprocess.run([python, "-m", "pip", "uninstall", "-y", "-q", "llama-cpp-python"], capture_output=True)
        lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        return f"{pin()} did not build for this CPU: {lines[-1] if lines else 'pip failed'}"
    stamp.write_text(stamp_text(flags) + "\n")
    return None


def main() -> int:
    if len(sys.argv) != 2 or not (Path(sys.argv[1]) / "bin" / "python").exists():
        print("usage: python bench/llama_build.py VENV (a virtual environment's folder)", file=sys.stderr)
        return 2
    why = build(Path(sys.argv[1]))
    if why:
        print(f"error: {why}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
