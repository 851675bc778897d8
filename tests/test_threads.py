"""docs/threads.md: each claim about thread settings, checked in a fresh process."""
import os
import re

import psutil
import pytest

from tests.isolation import run_isolated
from tests.running import clean_env, fresh_default_threads, run, run_here, run_shared


def got(stdout: str) -> int:
    return int(re.search(r"; got (\d+);", stdout).group(1))


def usable() -> int:
    return len(os.sched_getaffinity(0))


@pytest.mark.release
def test_env_set_after_import_leaves_the_default():
    out = run_shared("threads_env_after_import").stdout
    default = fresh_default_threads()
    assert got(out) == default
    assert f"threads torch uses: {default}" in out
    if default != 1:  # on a 1-core machine asking for 1 cannot show the difference
        assert "honoured: False" in out


@pytest.mark.release
def test_env_set_by_the_shell_before_start_is_honoured():
    result = run("threads_env_after_import", env=clean_env(OMP_NUM_THREADS="1"))
    assert result.returncode == 0, result.stderr
    assert got(result.stdout) == 1
    assert "honoured: True" in result.stdout


@pytest.mark.release
def test_env_set_before_import_is_honoured():
    out = run_shared("threads_set_before_import").stdout
    assert got(out) == 1
    assert "honoured: True" in out


# More threads than this machine's physical cores: the cap below shows, set_num_threads has none.
ABOVE_THE_CORES = str(psutil.cpu_count(logical=False) + 2)


@pytest.mark.release
def test_env_var_above_the_core_count_is_capped_but_set_num_threads_is_not():
    """MKL caps OMP_NUM_THREADS at the physical cores; torch.set_num_threads takes any count
    (the second run is shared with the test below)."""
    result = run("threads_set_before_import", "--threads", ABOVE_THE_CORES)
    assert result.returncode == 0, result.stderr
    assert got(result.stdout) == min(psutil.cpu_count(logical=False), usable())
    code = run_shared("threads_set_in_code", "--threads", ABOVE_THE_CORES, "--interop-threads", "2")
    assert f"intra-op threads: {ABOVE_THE_CORES}" in code.stdout


@pytest.mark.release
@pytest.mark.parametrize("threads,interop", [("1", "1"), (ABOVE_THE_CORES, "2")])
def test_set_in_code_gives_what_was_asked(threads, interop):
    result = run_shared("threads_set_in_code") if threads == "1" else run_shared(
        "threads_set_in_code", "--threads", threads, "--interop-threads", interop)
    assert f"intra-op threads: {threads}" in result.stdout
    assert f"inter-op threads: {interop}" in result.stdout


@pytest.mark.release
def test_second_set_num_interop_threads_raises():
    out = run_shared("threads_set_in_code").stdout
    assert "RuntimeError: Error: cannot set number of interop threads" in out


def test_bad_thread_count_is_refused():
    for name in ("threads_env_after_import", "threads_set_before_import", "threads_set_in_code"):
        result = run_here(name, "--threads", "0")
        assert result.returncode != 0
        assert "must be at least 1" in result.stderr


def test_parallel_info_reports_the_cores_and_torch_default():
    out = run_shared("threads_parallel_info").stdout
    assert f"usable: {usable()}" in out
    default = fresh_default_threads()
    assert f"torch default: {default}" in out
    assert f"at::get_num_threads() : {default}" in out
    assert "ATen parallel backend:" in out


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs Linux affinity")
def test_parallel_info_under_taskset_sees_one_core():
    result, _ = run_isolated("threads_parallel_info")  # taskset to one CPU, no thread variables
    assert result.returncode == 0, result.stderr
    assert "usable: 1" in result.stdout
    assert "suggested intra-op threads: 1; torch default: 1" in result.stdout


def test_oversubscription_runs_every_count_up_to_twice_the_cores():
    out = run_shared("threads_oversubscription").stdout
    rows = re.findall(r"^\s*(\d+)\s+(\d+)\s+[\d.]+\s+[\d.]+x$", out, re.M)
    assert [int(n) for n, _ in rows] == list(range(1, 2 * usable() + 1))
    assert all(n == reported for n, reported in rows)  # torch honours counts past the cores
