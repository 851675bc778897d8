"""Every snippet survives the machines readers run it on.

Each snippet runs once under the hard conditions of tests/isolation.py (one CPU of an emulated
AVX2 machine, no network, deprecations as errors, a read-only source tree, a working directory
outside the repo); page tests read that same run for their one-CPU claims, and
tests/test_snippet_outputs.py compares its output with the page's. Snippets that start processes
run under the spawn and forkserver start methods (macOS/Windows and Python 3.14 defaults), shared
with the page tests that check their results, and snippets that take arguments must refuse bad
ones with a usage message."""
from __future__ import annotations

import json
from pathlib import Path
from textwrap import dedent

import pytest

from tests.isolation import EMULATED_AVX2, Isolated, listing, one_cpu, require_isolation, run_isolated
from tests.paths import ROOT, all_snippets, snippet_path
from tests.running import run_here, run_shared


def _source(name: str) -> str:
    return snippet_path(name).read_text()


def _starts_processes(name: str) -> bool:
    return "--start-method" in _source(name)


def _takes_arguments(name: str) -> bool:
    return "argparse" in _source(name)


PROBE = dedent("""
    import errno, json, os, socket, sys, warnings
    out = {"cpus": sorted(os.sched_getaffinity(0)), "omp": os.environ.get("OMP_NUM_THREADS"),
           "isa": {k: os.environ.get(k) for k in ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA")},
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


def test_isolation_is_what_it_claims(tmp_path):
    """The conditions really hold, and a write into the repo is caught (not made)."""
    require_isolation()
    iso = Isolated(tmp_path)
    (iso.copy / "probe.py").write_text(PROBE)
    iso.before = listing(iso.copy)
    target = ROOT / "isolation-probe-write.txt"
    result = iso.run("probe", str(target), script=iso.copy / "probe.py")
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["cpus"] == [one_cpu()] and seen["omp"] is None  # one core as `taskset` alone gives it
    assert seen["isa"] == EMULATED_AVX2
    assert seen["internet"] in ("ENETUNREACH", "EHOSTUNREACH"), seen
    assert seen["loopback"] == "ok"
    assert seen["snippets_dir"] == "EROFS"
    assert seen["deprecation"] == "error"
    assert not Path(seen["cwd"]).is_relative_to(ROOT) and Path(seen["cwd"]) == iso.cwd
    assert not target.exists(), "the probe's write reached the real repository"
    assert iso.writes() == [f"<repo>/{target.name}"]


@pytest.mark.parametrize("name", all_snippets())
def test_snippet_runs_on_one_cpu_offline_read_only_with_deprecations_as_errors(name):
    result, written = run_isolated(name)
    assert result.returncode == 0, (
        f"{name} failed on one CPU / offline / read-only source / -W error::DeprecationWarning "
        f"(exit {result.returncode}):\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}")
    assert result.stdout.strip(), f"{name} printed nothing: it must print what its page claims"
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
    result = run_shared(name, "--start-method", method)  # fails unless it exits 0; page tests check the output
    assert result.stdout.strip(), f"{name} --start-method {method} printed nothing"


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
    not a traceback and not a silent run with defaults. (In this process: it is about argument
    handling, not start-up, and a fresh process would spend seconds importing torch first.)"""
    result = run_here(name, *args)
    assert result.returncode != 0, f"{name} {' '.join(args)} exited 0:\n{result.stdout}"
    assert "usage:" in result.stderr and named in result.stderr, (
        f"{name} {' '.join(args)}: no usage message naming {named!r} on stderr:\n{result.stderr}")
    assert "Traceback" not in result.stderr, f"{name} {' '.join(args)} crashed:\n{result.stderr}"
