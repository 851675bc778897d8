"""Run snippets as a reader would: each in a fresh process, from a directory outside the repo."""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

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


# Set by conftest for the whole session: pytest-xdist workers share it, so each plain run
# happens once however the tests that read it are spread over workers.
RUN_CACHE_ENV = "SNIPPET_RUN_CACHE"


def run_default(name: str, *args: str) -> subprocess.CompletedProcess:
    """The plain run whose output a page shows, done once per test session and shared."""
    cache = Path(os.environ[RUN_CACHE_ENV])
    key = hashlib.sha1(json.dumps([name, *args]).encode()).hexdigest()[:16]
    with open(cache / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second worker waits for the first run instead of repeating it
        stored = cache / f"{key}.json"
        if stored.exists():
            saved = json.loads(stored.read_text())
            result = subprocess.CompletedProcess(saved["args"], saved["returncode"], saved["stdout"], saved["stderr"])
        else:
            result = run(name, *args)
            stored.write_text(json.dumps({"args": result.args, "returncode": result.returncode,
                                          "stdout": result.stdout, "stderr": result.stderr}))
    assert result.returncode == 0, f"{name} failed:\n{result.stdout}\n{result.stderr}"
    return result


_FLOAT = re.compile(r"[-+]?\d+\.\d+(?:e[-+]?\d+)?")
_TMP = re.compile(r"(?:/tmp|/var/folders)/\S+")


def mask(text: str) -> str:
    """What must match between a page's recorded output and a new run: everything but
    measured numbers (decimals), temporary paths and column padding."""
    lines = []
    for line in text.strip().splitlines():
        line = _TMP.sub("<tmp>", _FLOAT.sub("<n>", line))
        lines.append(" ".join(line.split()))
    return "\n".join(lines)
