"""Every snippet survives the machines readers run it on.

One run per snippet combines the hard conditions: a single CPU (`taskset -c 0`, or one other
CPU per pytest-xdist worker, with OMP_NUM_THREADS=1), deprecations as errors
(`-W error::DeprecationWarning`), a working directory outside the repo, the snippet run from a read-only copy of snippets/, and no network
at all (a new network namespace with only loopback up, which torch.distributed needs). Linux
namespaces do this even as root, where chmod would not stop a write: `unshare --net --mount`,
a read-only bind mount of the copy, and an overlay on the repository so that anything a
snippet writes there is caught instead of landing in the tree. Then snippets that start
processes run under the spawn and forkserver start methods (macOS/Windows and Python 3.14
defaults), and snippets that take arguments must refuse bad ones with a usage message."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.snippets import ROOT, SNIPPETS, all_snippets, clean_env, run, snippet_path

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
# Paths in the repo overlay that are the interpreter's doing, not the snippet's.
NOT_THE_SNIPPETS_WRITE = (".venv/", "__pycache__/")


def one_cpu() -> int:
    """The single CPU a run may use: CPU 0, or under pytest-xdist one per worker, so parallel
    workers do not all queue on CPU 0."""
    cpus = sorted(os.sched_getaffinity(0))
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return cpus[int(worker.removeprefix("gw") or 0) % len(cpus)]


def _source(name: str) -> str:
    return snippet_path(name).read_text()


def _starts_processes(name: str) -> bool:
    return "--start-method" in _source(name)


def _takes_arguments(name: str) -> bool:
    return "argparse" in _source(name)


def _listing(folder: Path) -> dict[str, tuple[int, int]]:
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
        self.before = _listing(self.copy)

    def prefix(self) -> tuple[str, ...]:
        namespaces = ["unshare", "--net", "--mount"]
        if os.geteuid() != 0:  # an unprivileged reader: a user namespace maps them to root
            namespaces[1:1] = ["--user", "--map-root-user"]
        return (*namespaces, "--", "sh", "-c", ISOLATE, "isolate",
                str(self.copy), str(ROOT), str(self.upper), str(self.work), str(one_cpu()))

    def run(self, name: str, *args: str, script: Path | None = None, timeout: float = 300):
        return run(name, *args, env=clean_env(OMP_NUM_THREADS="1"), prefix=self.prefix(),
                   python_flags=WARNINGS_AS_ERRORS, cwd=self.cwd,
                   path=script or self.copy / f"{name}.py", timeout=timeout)

    def writes(self) -> list[str]:
        """What the run left behind: in the snippets copy, the working directory, the repo."""
        found = []
        after = _listing(self.copy)
        found += [f"snippets/{p} (changed or created)" for p in after if after[p] != self.before.get(p)]
        found += [f"snippets/{p} (deleted)" for p in self.before if p not in after]
        found += [f"<working directory>/{p}" for p in _listing(self.cwd)]
        found += [f"<repo>/{p}" for p, _ in _listing(self.upper).items()
                  if (self.upper / p).is_file() and not any(x in p + "/" for x in NOT_THE_SNIPPETS_WRITE)]
        return found


@pytest.fixture(scope="module")
def isolation(tmp_path_factory):
    """Skip (or fail under REQUIRE_ISOLATION=1) where namespaces are not allowed."""
    missing = [tool for tool in ("unshare", "taskset", "ip", "mount") if not shutil.which(tool)]
    reason = f"missing {missing}" if missing else None
    if not reason:
        iso = Isolated(tmp_path_factory.mktemp("isolation-probe"))
        probe = subprocess.run([*iso.prefix(), sys.executable, "-c", "pass"],
                               capture_output=True, text=True, timeout=60)
        if probe.returncode != 0:
            reason = f"unshare --net --mount with an overlay is not permitted here: {probe.stderr.strip()}"
    if reason:
        if os.environ.get("REQUIRE_ISOLATION") == "1":
            pytest.fail(f"REQUIRE_ISOLATION=1 but {reason}")
        pytest.skip(f"cannot isolate snippets on this machine ({reason})")
    return Isolated


PROBE = textwrap.dedent("""
    import errno, json, os, socket, sys, warnings
    out = {"cpus": sorted(os.sched_getaffinity(0)), "omp": os.environ.get("OMP_NUM_THREADS"),
           "cwd": os.getcwd(), "script": os.path.abspath(__file__)}
    try:
        socket.create_connection(("1.1.1.1", 53), timeout=3).close()
        out["internet"] = "connected"
    except OSError as e:
        out["internet"] = errno.errorcode.get(e.errno, str(e))
    server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen()
    socket.create_connection(server.getsockname(), timeout=3).close()
    out["loopback"] = "ok"
    try:
        open(os.path.join(os.path.dirname(out["script"]), "written.txt"), "w").close()
        out["snippets_dir"] = "writable"
    except OSError as e:
        out["snippets_dir"] = errno.errorcode.get(e.errno, str(e))
    open(sys.argv[1], "w").close()          # a write into the repo: must be caught
    try:
        warnings.warn("old", DeprecationWarning)
        out["deprecation"] = "ignored"
    except DeprecationWarning:
        out["deprecation"] = "error"
    print(json.dumps(out))
    """)


def test_isolation_is_what_it_claims(isolation, tmp_path):
    """The conditions really hold, and a write into the repo is caught (not made)."""
    iso = isolation(tmp_path)
    (iso.copy / "probe.py").write_text(PROBE)
    iso.before = _listing(iso.copy)
    target = ROOT / "isolation-probe-write.txt"
    result = iso.run("probe", str(target), script=iso.copy / "probe.py")
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["cpus"] == [one_cpu()] and seen["omp"] == "1"
    assert seen["internet"] in ("ENETUNREACH", "EHOSTUNREACH"), seen
    assert seen["loopback"] == "ok"
    assert seen["snippets_dir"] == "EROFS"
    assert seen["deprecation"] == "error"
    assert not Path(seen["cwd"]).is_relative_to(ROOT) and Path(seen["cwd"]) == iso.cwd
    assert not target.exists(), "the probe's write reached the real repository"
    assert iso.writes() == [f"<repo>/{target.name}"]


@pytest.mark.parametrize("name", all_snippets())
def test_snippet_runs_on_one_cpu_offline_read_only_with_deprecations_as_errors(isolation, tmp_path, name):
    iso = isolation(tmp_path)
    result = iso.run(name)
    assert result.returncode == 0, (
        f"{name} failed on one CPU / offline / read-only source / -W error::DeprecationWarning "
        f"(exit {result.returncode}):\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}")
    assert result.stdout.strip(), f"{name} printed nothing: it must print what its page claims"
    written = iso.writes()
    assert not written, (f"{name} wrote outside tempfile / a folder the user named: {written}\n"
                         f"--- stdout\n{result.stdout}")
    skips = [line for line in result.stdout.splitlines() if line.startswith("SKIP:")]
    if skips:
        print(f"{name}: {skips[0]}")


def _process_snippets() -> list[tuple[str, str]]:
    return [(n, m) for n in all_snippets() if _starts_processes(n) for m in ("spawn", "forkserver")]


@pytest.mark.parametrize("name,method", _process_snippets())
def test_snippet_works_with_start_method(name, method):
    """spawn (macOS, Windows) and forkserver (Linux default from Python 3.14) re-import the
    main module in each child: a snippet without a __main__ guard or with unpicklable
    workers breaks here, not under fork."""
    result = run(name, "--start-method", method, python_flags=WARNINGS_AS_ERRORS)
    assert result.returncode == 0, (f"{name} --start-method {method} failed (exit {result.returncode}):"
                                    f"\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}")


def _bad_arguments() -> list:
    cases = []
    for name in all_snippets():
        if _takes_arguments(name):
            cases.append(pytest.param(name, ("--no-such-option",), "--no-such-option",
                                      id=f"{name}-unknown-option"))
        if _starts_processes(name):
            cases.append(pytest.param(name, ("--start-method", "nonsense"), "nonsense",
                                      id=f"{name}-bad-start-method"))
    return cases


@pytest.mark.parametrize("name,args,named", _bad_arguments())
def test_snippet_refuses_a_bad_argument(name, args, named):
    """A typo gets argparse's usage message naming the bad argument and a non-zero exit,
    not a traceback and not a silent run with defaults."""
    result = run(name, *args)
    assert result.returncode != 0, f"{name} {' '.join(args)} exited 0:\n{result.stdout}"
    assert "usage:" in result.stderr and named in result.stderr, (
        f"{name} {' '.join(args)}: no usage message naming {named!r} on stderr:\n{result.stderr}")
    assert "Traceback" not in result.stderr, f"{name} {' '.join(args)} crashed:\n{result.stderr}"
