"""The hard conditions a snippet must survive, in one run per snippet (shared by the tests that
read it): a single CPU as a reader gets it (`taskset -c 0`, or one other CPU per pytest-xdist
worker; no thread variables, so torch takes its one thread from the affinity), an AVX2 CPU
emulated on a bigger one (EMULATED_AVX2), deprecations as errors (`-W error::DeprecationWarning`),
a working directory outside the repo, the snippet run from a read-only copy of snippets/, and no
network at all (a new network namespace with only loopback up, which torch.distributed needs).

Linux namespaces do this even as root, where chmod would not stop a write: `unshare --net
--mount`, a read-only bind mount of the copy, and an overlay on the repository so that anything
a snippet writes there is caught instead of landing in the tree."""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.paths import ROOT, SNIPPETS
from tests.running import PAGE_ARGS, RUN_CACHE_ENV, as_dict, as_result, clean_env, run, shared

# $1 read-only folder (the snippets copy), $2 repo, $3/$4 overlay upper/work dirs, $5 the CPU,
# then the command.
ISOLATE = r"""
set -e
ip link set lo up
mount --bind "$1" "$1"
mount -o remount,bind,ro "$1"
mount -t overlay overlay -o "lowerdir=$2,upperdir=$3,workdir=$4" "$2"
cpu=$5
shift 5
exec taskset -c "$cpu" "$@"
"""
WARNINGS_AS_ERRORS = ("-W", "error::DeprecationWarning")
# torch's kernels and oneDNN's capped at AVX2, so an AVX-512 machine runs what an AVX2 one does.
EMULATED_AVX2 = {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}
# Where that emulation does not print what an AVX2 CPU prints, and why.
EMULATION_GAPS = {
    "quantisation_int8_dynamic_torchao": (
        "torch still sees VNNI (torch.cpu._is_vnni_supported()) and hands int8 matmuls to oneDNN, which "
        "ONEDNN_MAX_CPU_ISA=AVX2 makes compute them without VNNI, saturating: relative error 3e-1, FAIL; "
        "the AVX2 reference run is within tolerance"),
}
# Paths in the repo overlay that are the interpreter's doing, not the snippet's.
NOT_THE_SNIPPETS_WRITE = (".venv/", "__pycache__/")


def one_cpu() -> int:
    """The single CPU a run may use: CPU 0, or under pytest-xdist one per worker, so parallel
    workers do not all queue on CPU 0."""
    cpus = sorted(os.sched_getaffinity(0))
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return cpus[int(worker.removeprefix("gw") or 0) % len(cpus)]


def listing(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(folder).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*"))}


class Isolated:
    """Runs a script as described in the module docstring and reports what it wrote."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.copy = tmp / "reader" / "snippets"
        shutil.copytree(SNIPPETS, self.copy, ignore=shutil.ignore_patterns("__pycache__"))
        self.cwd = tmp / "cwd"
        self.upper, self.work = tmp / "repo-writes", tmp / "overlay-work"
        for d in (self.cwd, self.upper, self.work):
            d.mkdir()
        self.before = listing(self.copy)

    def prefix(self) -> tuple[str, ...]:
        namespaces = ["unshare", "--net", "--mount"]
        if os.geteuid() != 0:  # an unprivileged reader: a user namespace maps them to root
            namespaces[1:1] = ["--user", "--map-root-user"]
        return (*namespaces, "--", "sh", "-c", ISOLATE, "isolate",
                str(self.copy), str(ROOT), str(self.upper), str(self.work), str(one_cpu()))

    def run(self, name: str, *args: str, script: Path | None = None, timeout: float = 300):
        env = clean_env(**EMULATED_AVX2)
        # A cache of its own: inductor's does not key a compiled graph by ATEN_CPU_CAPABILITY, and in
        # torch 2.14 one compiled at AVX512 gives wrong results replayed at AVX2, and the reverse.
        if "TORCHINDUCTOR_CACHE_DIR" in env:
            env["TORCHINDUCTOR_CACHE_DIR"] += "-avx2"
        return run(name, *args, env=env, prefix=self.prefix(),
                   python_flags=WARNINGS_AS_ERRORS, cwd=self.cwd,
                   path=script or self.copy / f"{name}.py", timeout=timeout)

    def writes(self) -> list[str]:
        """What the run left behind: in the snippets copy, the working directory, the repo."""
        found = []
        after = listing(self.copy)
        found += [f"snippets/{p} (changed or created)" for p in after if after[p] != self.before.get(p)]
        found += [f"snippets/{p} (deleted)" for p in self.before if p not in after]
        found += [f"<working directory>/{p}" for p in listing(self.cwd)]
        found += [f"<repo>/{p}" for p, _ in listing(self.upper).items()
                  if (self.upper / p).is_file() and not any(x in p + "/" for x in NOT_THE_SNIPPETS_WRITE)]
        return found


@functools.cache
def _problem() -> str | None:
    """Why snippets cannot be isolated here, or None."""
    missing = [tool for tool in ("unshare", "taskset", "ip", "mount") if not shutil.which(tool)]
    if missing:
        return f"missing {missing}"
    with tempfile.TemporaryDirectory(prefix="isolation-probe-") as tmp:
        probe = subprocess.run([*Isolated(Path(tmp)).prefix(), sys.executable, "-c", "pass"],
                               capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        return f"unshare --net --mount with an overlay is not permitted here: {probe.stderr.strip()}"
    return None


def require_isolation() -> None:
    """Skip (or fail under REQUIRE_ISOLATION=1) where namespaces are not allowed."""
    reason = _problem()
    if reason:
        if os.environ.get("REQUIRE_ISOLATION") == "1":
            pytest.fail(f"REQUIRE_ISOLATION=1 but {reason}")
        pytest.skip(f"cannot isolate snippets on this machine ({reason})")


def emulation_gap(name: str, env: dict[str, str]) -> str | None:
    """Why a run of `name` with environment `env` cannot print what an AVX2 CPU prints, or None:
    the emulation caps oneDNN below a CPU with VNNI, and the snippet is in EMULATION_GAPS."""
    capped = env.get("ONEDNN_MAX_CPU_ISA", "").upper() == EMULATED_AVX2["ONEDNN_MAX_CPU_ISA"]
    if name not in EMULATION_GAPS or not capped:
        return None
    import torch
    return EMULATION_GAPS[name] if torch.cpu._is_vnni_supported() else None


def run_isolated(name: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    """The snippet with no arguments under all the conditions above, once per session:
    (what it printed, what it wrote outside a temporary folder)."""
    require_isolation()

    def isolated() -> dict:
        tmp = Path(tempfile.mkdtemp(prefix=f"isolated-{name}-", dir=os.environ[RUN_CACHE_ENV]))
        iso = Isolated(tmp)
        return {**as_dict(iso.run(name, *PAGE_ARGS.get(name, ()))), "writes": iso.writes()}

    saved = shared(["isolated", name], isolated)
    return as_result(saved), saved["writes"]
