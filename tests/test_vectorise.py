"""The vectorise page: loops and vectorised ops give the same answer; torch.mm is measured against a peak."""
import os
import re

import pytest

from tests.isolation import run_isolated
from tests.snippets import clean_env, run, run_here, run_shared


def test_loop_row_loop_and_mm_agree_and_article_sizes_are_computed():
    out = run_shared("vectorise_loop_vs_mm").stdout
    assert "all three give the same result (rtol=1.3e-6, atol=1e-5)" in out
    speedups = [float(x) for x in re.findall(r"([\d.]+)x faster than the element loop", out)]
    assert len(speedups) == 2
    row_loop, mm = speedups  # floors far under the measured ~100x and ~3000-5000x
    assert row_loop > 3 and mm > 10 and mm > row_loop
    # 10000 x 10000 float32 = 400 MB; 2 * 10000 * 1000 * 10000 flops = 200 GFLOP
    assert "result 400 MB of float32, 200 GFLOP" in out


@pytest.mark.parametrize("args", [("--size", "0"), ("--size", "big")])
def test_loop_vs_mm_rejects_bad_sizes(args):
    result = run_here("vectorise_loop_vs_mm", *args)
    assert result.returncode == 2 and "--size" in result.stderr


def test_broadcasting_einsum_and_bmm_match_the_loops():
    out = run_shared("vectorise_broadcast_einsum_bmm").stdout
    assert "loop and vectorised results agree (rtol=1e-05, atol=0.0001)" in out
    assert float(re.search(r"broadcasting is ([\d.]+)x faster", out).group(1)) > 10  # measured: hundreds
    bmm, einsum = map(float, re.search(r"bmm is ([\d.]+)x and einsum ([\d.]+)x faster", out).groups())
    assert bmm > 1.3 and einsum > 1.3  # measured: 3-5x


def test_item_loop_and_vectorised_reduction_agree():
    out = run_shared("vectorise_item_in_loop").stdout
    assert "same count: True; same sum within 1e-9 relative: True" in out
    faster = float(re.search(r"([\d.]+)x faster; the \.item\(\) loop costs [\d.]+ ns per element", out).group(1))
    assert faster > 10  # measured: about 200x


def test_item_loop_agrees_on_other_sizes():
    result = run_here("vectorise_item_in_loop", "--n", "1")
    assert result.returncode == 0, result.stderr
    assert "same count: True" in result.stdout


def test_mm_gflops_is_reported_against_an_estimated_peak():
    out = run_shared("vectorise_matmul_gflops").stdout
    achieved = float(re.search(r"threads: ([\d.]+) GFLOP/s", out).group(1))
    assert achieved > 0
    match = re.search(r"peak for those threads: ([\d.]+) GFLOP/s; torch.mm reaches ([\d.]+) of it", out)
    if match is None:
        assert "estimated peak: unknown" in out
    else:
        peak, fraction = float(match.group(1)), float(match.group(2))
        assert peak > 0 and fraction == pytest.approx(achieved / peak, abs=0.01)


def test_peak_estimate_follows_the_thread_count():
    """The peak is for the threads torch uses: two threads, twice the one-thread peak."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two usable cores")
    peaks = []
    for threads in ("1", "2"):
        result = run("vectorise_matmul_gflops", "--size", "128", env=clean_env(OMP_NUM_THREADS=threads))
        assert result.returncode == 0, result.stderr
        match = re.search(r"peak for those threads: ([\d.]+)", result.stdout)
        if match is None:
            pytest.skip("no /proc/cpuinfo peak estimate on this platform")
        peaks.append(float(match.group(1)))
    assert peaks[1] == pytest.approx(2 * peaks[0], rel=0.05)  # cpu MHz may drift a little between runs


def test_peak_follows_the_clock_given():
    """--mhz replaces the clock /proc/cpuinfo reports (a VM's base clock) in the peak estimate."""
    peaks = []
    for mhz in ("1000", "3000"):
        result = run_here("vectorise_matmul_gflops", "--size", "64", "--mhz", mhz)
        assert result.returncode == 0, result.stderr
        if "estimated peak: unknown" in result.stdout:
            pytest.skip("no FMA table entry for this CPU")
        assert f"clock for the peak: {mhz}.0 MHz (--mhz)" in result.stdout
        peaks.append(float(re.search(r"peak for those threads: ([\d.]+)", result.stdout).group(1)))
    assert peaks[1] == pytest.approx(3 * peaks[0], rel=1e-3)


@pytest.mark.parametrize("mhz", ["0", "20000"])
def test_bad_clock_is_rejected(mhz):
    result = run_here("vectorise_matmul_gflops", "--mhz", mhz)
    assert result.returncode == 2 and "--mhz" in result.stderr


def test_single_core_run_works():
    result, _ = run_isolated("vectorise_matmul_gflops")  # one CPU, emulated AVX2
    assert result.returncode == 0, result.stderr
    assert re.search(r"threads: [\d.]+ GFLOP/s", result.stdout), result.stdout
