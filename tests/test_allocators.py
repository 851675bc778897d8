"""The allocators page: each allocator really is loaded in its own process, gives glibc's results,
and a missing library prints SKIP and exits 0."""
import os
import re
import sys

import pytest

from tests.snippets import run_here, run_shared

NAME = "allocators_ld_preload"
DEBIAN = {"jemalloc": "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
          "tcmalloc": "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4"}

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="LD_PRELOAD is Linux-only")


def test_glibc_runs_without_preload():
    out = run_shared(NAME).stdout
    assert re.search(r"^glibc\s+[\d.]+ ms per run .*; no LD_PRELOAD$", out, re.M)


@pytest.mark.parametrize("allocator", ["jemalloc", "tcmalloc"])
def test_each_installed_allocator_is_loaded_and_gives_the_same_results(allocator):
    out = run_shared(NAME).stdout
    if not os.path.isfile(DEBIAN[allocator]):
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
    if not os.path.isfile(DEBIAN["jemalloc"]):
        pytest.skip("libjemalloc2 not installed")
    assert "jemalloc" not in os.environ.get("LD_PRELOAD", "")
    result = run_here(NAME, "--child", DEBIAN["jemalloc"])
    assert result.returncode == 1
    assert "libjemalloc.so.2 is not mapped" in result.stdout


def test_bad_allocator_name_is_rejected():
    result = run_here(NAME, "--allocator", "mimalloc")
    assert result.returncode == 2 and "--allocator" in result.stderr
