"""Run snippets as a reader would: in a fresh process from a directory outside the repo (run,
run_shared), or, for argument checks and other sizes, inside the test process (run_here); share
a run between tests and xdist workers (shared); and a CPU no table knows (unknown_model_args)."""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import runpy
import subprocess
import sys
import tempfile
import traceback
import warnings
from pathlib import Path
from typing import Callable

from tests.paths import snippet_path

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
                                         "generate_text": ("--quick",),
                                         "tune_your_model": ("--model", "tune_your_model_examples.py:mlp", "--quick")}


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
