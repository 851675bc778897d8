"""The allocators page: each allocator really is loaded in its own process, gives glibc's results,
and a missing library prints SKIP and exits 0; jemalloc's settings change the page faults of a
training step as the page says."""
import os
import re
import shutil
import sys

import pytest

from tests.running import run_here, run_shared

NAME = "allocators_ld_preload"
DEBIAN = {"jemalloc": "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
          "tcmalloc": "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4"}

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="LD_PRELOAD is Linux-only")


def installed(allocator: str) -> bool:
    """Whether the Debian package's library is there; where it is not, the tests that need it skip,
    and fail under REQUIRE_ALLOCATORS=1 (.ci/run sets it and installs both)."""
    if os.path.isfile(DEBIAN[allocator]):
        return True
    if os.environ.get("REQUIRE_ALLOCATORS") == "1":
        pytest.fail(f"REQUIRE_ALLOCATORS=1 but {DEBIAN[allocator]} is missing")
    return False


def test_glibc_runs_without_preload():
    out = run_shared(NAME).stdout
    assert re.search(r"^glibc\s+[\d.]+ ms per run .*; no LD_PRELOAD$", out, re.M)


@pytest.mark.parametrize("allocator", ["jemalloc", "tcmalloc"])
def test_each_installed_allocator_is_loaded_and_gives_the_same_results(allocator):
    out = run_shared(NAME).stdout
    if not installed(allocator):
        assert f"SKIP: {allocator}: library not found" in out
        return
    assert re.search(rf"^{allocator}\s+[\d.]+ ms per run .*; LD_PRELOAD={DEBIAN[allocator]}, "
                     r"found in /proc/self/maps$", out, re.M)
    assert f"{allocator}: same results as glibc: True" in out


@pytest.mark.parametrize("allocator", ["jemalloc", "tcmalloc"])
def test_missing_library_prints_skip_and_exits_0(allocator, tmp_path):
    missing = str(tmp_path / "no-such-lib.so")
    result = run_here(NAME, "--allocator", allocator, f"--{allocator}", missing)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"SKIP: {allocator}: library not found (tried {missing})"


def test_load_check_fails_when_the_library_was_not_preloaded():
    """The /proc/self/maps check can fail: the child told to expect jemalloc, run here, where
    nothing preloaded it."""
    if not installed("jemalloc"):
        pytest.skip("libjemalloc2 not installed")
    assert "jemalloc" not in os.environ.get("LD_PRELOAD", "")
    result = run_here(NAME, "--child", DEBIAN["jemalloc"])
    assert result.returncode == 1
    assert "libjemalloc.so.2 is not mapped" in result.stdout


def _faults(out: str, label: str) -> float:
    return float(re.search(rf"^{re.escape(label)} +[\d.]+ ms per step .*?, ([\d.]+) page faults per step;", out, re.M).group(1))


def test_jemalloc_defaults_fault_training_pages_in_again_and_no_decay_does_not():
    """The page's reason for jemalloc's slower training: with its defaults (and with run_cpu's
    MALLOC_CONF) a warm training step faults pages in again; with decay off it does not."""
    if not installed("jemalloc"):
        pytest.skip("libjemalloc2 not installed")
    out = run_shared(NAME, "--workload", "train", "--allocator", "jemalloc", "--steps", "2").stdout
    default = _faults(out, "jemalloc")
    run_cpu = _faults(out, "jemalloc + run_cpu's MALLOC_CONF")
    no_decay = _faults(out, "jemalloc + no-decay MALLOC_CONF")
    assert "MALLOC_CONF=oversize_threshold:1,background_thread:true,metadata_thp:auto, LD_PRELOAD=" in out
    assert "MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1, LD_PRELOAD=" in out
    # thousands here (4 KiB pages); with transparent huge pages always on, far fewer, still many times more
    assert default > 20 * max(no_decay, 1) and run_cpu > 20 * max(no_decay, 1), out


@pytest.mark.skipif(not shutil.which("lscpu"), reason="run_cpu reads the core layout from lscpu")
def test_run_cpu_sets_the_malloc_conf_the_snippet_measures(monkeypatch):
    """The snippet's "run_cpu's" setting is what torch's launcher sets with --enable-jemalloc: its
    own code, run here with the library search stubbed (it looks for libjemalloc.so, which
    Debian's package does not ship) and MALLOC_CONF unset; monkeypatch restores both."""
    from torch.backends.xeon import run_cpu

    from bench.core import load_snippet
    monkeypatch.setenv("MALLOC_CONF", "unset below")  # so that teardown restores the original
    monkeypatch.delenv("MALLOC_CONF")
    monkeypatch.setattr(run_cpu._Launcher, "add_lib_preload", lambda self, lib_type: True)
    run_cpu._Launcher().set_memory_allocator(enable_tcmalloc=False, enable_jemalloc=True)
    assert os.environ["MALLOC_CONF"] == load_snippet(NAME).MALLOC_CONFS["run_cpu's"]


def test_bad_allocator_name_is_rejected():
    result = run_here(NAME, "--allocator", "mimalloc")
    assert result.returncode == 2 and "--allocator" in result.stderr
    for args in (["--workload", "serve"], ["--steps", "0"]):
        result = run_here(NAME, *args)
        assert result.returncode == 2 and args[0] in result.stderr
