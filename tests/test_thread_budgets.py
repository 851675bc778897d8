"""docs/thread-budgets.md: budgets, per-process thread counts and launchers. Anything about how a
process starts (affinity, launchers, start methods) runs in a fresh process; reading cgroup
files and splitting a budget run in this one."""
import os
import re
import shutil
import sys

import pytest

from bench.core import load_snippet
from tests.paths import snippet_path
from tests.running import fresh_default_threads, run, run_here, run_shared

START_METHODS = ["fork", "spawn", "forkserver"]


def usable() -> int:
    return len(os.sched_getaffinity(0))


def physical() -> int:
    import psutil
    return psutil.cpu_count(logical=False)


def budget(stdout: str) -> int:
    return int(re.search(r"thread budget:\s+(\d+)", stdout).group(1))


def report(*args, **kwargs) -> str:
    result = run("thread_budget_report", *args, **kwargs)
    assert result.returncode == 0, result.stderr
    return result.stdout


def report_here(*args) -> str:
    result = run_here("thread_budget_report", *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_report_without_limits_is_the_smaller_of_affinity_and_physical_cores():
    out = run_shared("thread_budget_report").stdout
    assert f"os.cpu_count():           {os.cpu_count()}" in out
    assert f"usable (affinity):        {usable()}" in out
    assert budget(out) == min(usable(), physical())


@pytest.mark.parametrize("files,quota,expected", [
    ({"cpu.max": "50000 100000\n"}, "0.50 CPUs (cgroup v2 cpu.max)", 1),
    ({"cpu.max": "max 100000\n"}, "no limit (cgroup v2 cpu.max)", None),
    ({"cpu/cpu.cfs_quota_us": "150000\n", "cpu/cpu.cfs_period_us": "100000\n"},
     "1.50 CPUs (cgroup v1 cpu.cfs_quota_us)", 1),
    ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"},
     "no limit (cgroup v1 cpu.cfs_quota_us)", None),
    ({}, "no limit (none found)", None),
])
def test_budget_follows_the_cgroup_quota(tmp_path, files, quota, expected):
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    out = report_here("--cgroup-root", str(tmp_path))
    assert f"cgroup CPU quota:         {quota}" in out
    assert budget(out) == (expected or min(usable(), physical()))


def test_torch_ignores_the_cgroup_quota():
    """Its default is the affinity count, whatever the cgroup says: the plain run reports the
    same default as a bare `import torch`, and the budget does not come from torch."""
    out = run_shared("thread_budget_report").stdout
    assert f"torch default threads:    {fresh_default_threads()}" in out


def test_budget_is_split_between_processes():
    out = report_here("--processes", "2")
    per = max(1, min(usable(), physical()) // 2)
    assert f"2 process(es) x {per} thread(s) = {2 * per}" in out


@pytest.mark.skipif(not shutil.which("taskset"), reason="taskset not installed")
def test_taskset_limits_affinity_budget_and_torch_default_to_one():
    out = report(prefix=("taskset", "-c", "0"))
    assert "usable (affinity):        1" in out
    assert "torch default threads:    1" in out
    assert budget(out) == 1


def test_numactl_physcpubind_limits_affinity_to_one():
    if not shutil.which("numactl"):  # often not installed; .ci/run installs it and sets REQUIRE_NUMACTL=1
        if os.environ.get("REQUIRE_NUMACTL") == "1":
            pytest.fail("REQUIRE_NUMACTL=1 but numactl is not installed")
        pytest.skip("numactl not installed")
    out = report(prefix=("numactl", "--physcpubind=0"))
    assert "usable (affinity):        1" in out


def by_start_method(name: str, method: str):
    """fork is Linux's default for Python < 3.14, so the plain run; spawn and forkserver runs are
    shared with tests/test_portability.py."""
    return run_shared(name) if method == "fork" else run_shared(name, "--start-method", method)


@pytest.mark.parametrize("method", START_METHODS)
def test_each_worker_process_gets_the_threads_asked(method):
    out = by_start_method("thread_budget_processes", method).stdout
    per = max(1, usable() // 2)
    assert f"start method: {method}" in out
    for rank in (0, 1):
        assert f"worker {rank}: asked {per} thread(s), torch reports {per}; same result as the parent: True" in out


def test_asking_more_than_the_budget_is_reported_as_oversubscribed():
    out = run_shared("thread_budget_processes", "--threads", "2").stdout  # a fresh process: it forks
    for rank in (0, 1):
        assert f"worker {rank}: asked 2 thread(s), torch reports 2; same result as the parent: True" in out
    assert f"oversubscribed: {4 > usable()}" in out


def test_default_split_keeps_within_the_budget():
    out = run_shared("thread_budget_processes").stdout
    per = max(1, usable() // 2)
    assert f"2 process(es) x {per} thread(s)" in out
    assert out.count(f"asked {per} thread(s), torch reports {per}; same result as the parent: True") == 2


@pytest.mark.parametrize("method", START_METHODS)
def test_dataloader_workers_get_one_thread_main_keeps_its_own(method):
    out = by_start_method("thread_budget_dataloader_workers", method).stdout
    assert f"main process: {fresh_default_threads()} thread(s)" in out
    assert "worker 0 built items with 1 thread(s)" in out
    assert "worker 1 built items with 1 thread(s)" in out


def _new_os_threads(out: str, how: str) -> int:
    return int(re.search(rf"^3 Python threads running matmuls with {re.escape(how)}: (\d+) more OS threads", out, re.M).group(1))


@pytest.mark.release
def test_python_threads_need_init_num_threads_once_they_ran_torch():
    default = fresh_default_threads()
    asked = default + 1
    result = run("thread_budget_python_threads", "--threads", str(asked), "--without-init")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert f"main thread set {asked}, reports {asked}" in out
    assert f"thread started before the call, before: {default}" in out
    assert f"thread started before the call, after set_num_threads: {default}" in out
    assert f"thread started before the call, after init_num_threads: {asked}" in out
    assert f"thread started after the call: {asked}" in out
    if sys.platform.startswith("linux"):
        # each of K=3 Python threads brings its own team of M=2: the process gains K x M OS threads
        assert _new_os_threads(out, "set_num_threads(2) and init_num_threads()") == 3 * 2
        # without init_num_threads() a thread's matmuls (MKL) ignore set_num_threads(1): the
        # OpenMP default of one thread per core, as the page says
        assert _new_os_threads(out, "set_num_threads(1), without init_num_threads()") == 3 * default
    else:
        assert "SKIP: counting OS threads needs Linux's /proc" in out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts threads in /proc/self/task")
def test_each_python_thread_gets_its_own_team_of_the_set_size():
    """K x M, counted in this process on other sizes (the count is of threads, not cores, so a
    team of 3 exists on a 1-core machine too); the count is restored afterwards."""
    import torch
    snippet = load_snippet("thread_budget_python_threads")
    previous = torch.get_num_threads()
    try:
        assert snippet.new_os_threads(2, 3) >= 2 * 3
        assert snippet.new_os_threads(4, 1) == 4  # set_num_threads(1): no team, the thread alone
    finally:
        torch.set_num_threads(previous)


def test_bad_arguments_are_refused():
    for name, args in [("thread_budget_report", ["--processes", "0"]),
                       ("thread_budget_processes", ["--start-method", "nope"]),
                       ("thread_budget_dataloader_workers", ["--workers", "-1"]),
                       ("thread_budget_python_threads", ["--threads", "0"]),
                       ("thread_budget_python_threads", ["--python-threads", "0"]),
                       ("thread_budget_python_threads", ["--team", "65"])]:
        result = run_here(name, *args)
        assert result.returncode != 0
        assert "error:" in result.stderr


RUN_CPU = ("-m", "torch.backends.xeon.run_cpu")


@pytest.mark.skipif(not sys.platform.startswith("linux") or not shutil.which("lscpu"),
                    reason="run_cpu needs Linux and lscpu")
def test_run_cpu_documented_command_pins_and_sets_threads():
    # as on the page: python -m torch.backends.xeon.run_cpu --ninstances 1 --ncores-per-instance 1 -- train.py
    result = run("thread_budget_report", python_flags=(*RUN_CPU, "--ninstances", "1",
                                                      "--ncores-per-instance", "1", "--"))
    assert result.returncode == 0, result.stderr
    assert "usable (affinity):        1" in result.stdout
    assert "OMP_NUM_THREADS:          1" in result.stdout
    assert "torch default threads:    1" in result.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux") or not shutil.which("lscpu"),
                    reason="run_cpu needs Linux and lscpu")
def test_run_cpu_ncores_per_instance_swallows_the_script_without_double_dash():
    result = run("thread_budget_report", python_flags=(*RUN_CPU, "--ninstances", "1", "--ncores-per-instance", "1"))
    assert result.returncode != 0
    assert "--ncores-per-instance" in result.stderr and "invalid int value" in result.stderr
    assert str(snippet_path("thread_budget_report")) in result.stderr
