"""Run snippets as a reader would: each in a fresh process, from a directory outside the repo."""
from __future__ import annotations

import functools
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


@functools.lru_cache(maxsize=None)
def run_default(name: str, *args: str) -> subprocess.CompletedProcess:
    """The plain run whose output a page shows; cached so every test reads the same run."""
    result = run(name, *args)
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
