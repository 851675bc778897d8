"""The vectorise page: loops and vectorised ops give the same answer; torch.mm is measured against a peak."""
import os
import re
import subprocess
from pathlib import Path

import pytest

from bench.core import load_snippet
from tests.isolation import run_isolated
from tests.paths import OUTPUTS, snippet_path
from tests.recorded import mask
from tests.running import clean_env, run_here, run_shared, unknown_model_args


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


HAS_CPUINFO = Path("/proc/cpuinfo").is_file()
FLAGS = set(next((line.partition(":")[2].split() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("flags")), [])) if HAS_CPUINFO else set()
PEAK = re.compile(r"peak for those threads: ([\d.]+) GFLOP/s; torch.mm reaches ([\d.]+) of it")


def peak_snippet():
    return load_snippet("vectorise_matmul_gflops")


def check_peak_output(out: str, basis: str) -> None:
    """A peak for fp32 and, exactly where the CPU has a native path, for bf16 and int8."""
    achieved = float(re.search(r"threads: ([\d.]+) GFLOP/s", out).group(1))
    assert achieved > 0
    peak, fraction = map(float, PEAK.search(out).groups())
    assert peak > 0 and fraction == pytest.approx(achieved / peak, abs=0.01)
    assert f"FMA units: {basis}" in out
    native = re.search(r"with a native path, for those threads: (.+)", out).group(1)
    assert ("bf16" in native) == bool(FLAGS & {"avx512_bf16", "amx_bf16"}), native
    assert ("int8" in native) == bool(FLAGS & {"avx512_vnni", "avx_vnni", "amx_int8"}), native


@pytest.mark.skipif(not HAS_CPUINFO, reason="the peak comes from /proc/cpuinfo")
def test_mm_gflops_is_reported_against_an_estimated_peak():
    """Never "unknown" where /proc/cpuinfo exists."""
    check_peak_output(run_shared("vectorise_matmul_gflops").stdout, "")


@pytest.mark.skipif(not HAS_CPUINFO, reason="the peak comes from /proc/cpuinfo")
def test_unknown_cpu_model_prints_what_the_page_shows():
    """A cloud VM that hides the SKU ("Intel(R) Xeon(R) Processor"): the same lines as the page, the
    FMA units inferred from the probe on an AVX-512 CPU (on an AVX2 one, every Intel core has two)."""
    result = subprocess.run(unknown_model_args(str(snippet_path("vectorise_matmul_gflops")), "--size", "256"),
                            env=clean_env(), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    recorded = (OUTPUTS / "vectorise_matmul_gflops.txt").read_text().replace("1024x1024", "256x256")
    assert mask(result.stdout, "vectorise_matmul_gflops") == mask(recorded, "vectorise_matmul_gflops")
    check_peak_output(result.stdout, "inferred from a 1-thread torch.mm" if "avx512f" in FLAGS else "from the CPU model")


@pytest.mark.parametrize("probe_share, units", [(0.7, 1), (1.0, 1), (1.1, 2), (1.8, 2)])
def test_fma_units_are_the_fewest_that_explain_the_probe(probe_share, units):
    """One thread at probe_share x one 512-bit unit's peak: one unit can do at most 1.0x."""
    infer = peak_snippet().inferred_fp32_flops_per_cycle
    one_unit = 3000 / 1000 * 32
    assert infer({"fma", "avx2", "avx512f"}, probe_share * one_unit, 3000) == 32 * units
    assert infer({"fma", "avx2"}, 0.5 * one_unit / 2, 3000) == 16  # AVX2: 8 lanes a unit


@pytest.mark.parametrize("flags, expected", [
    ({"avx2", "fma"}, {"fp32": 32}),
    ({"avx2", "fma", "avx_vnni"}, {"fp32": 32, "int8": 128}),
    ({"avx512f", "avx512_bf16", "avx512_vnni"}, {"fp32": 64, "bf16": 128, "int8": 256}),
    ({"avx512f", "avx512_bf16", "avx512_vnni", "amx_bf16", "amx_int8", "amx_tile"}, {"fp32": 64, "bf16": 1024, "int8": 2048}),
])
def test_peak_per_precision_follows_the_instructions(flags, expected):
    fp32 = 64 if "avx512f" in flags else 32
    assert peak_snippet().ops_per_cycle(fp32, flags) == expected


@pytest.mark.skipif(not HAS_CPUINFO, reason="the peak comes from /proc/cpuinfo")
def test_peak_estimate_follows_the_thread_count():
    """The peak is for the threads torch uses: two threads, twice the one-thread peak. (In this
    process, torch.set_num_threads before each run: the snippet reads torch.get_num_threads(), and
    how a process starts with a thread count is the Threads page's, tested there.)"""
    import torch

    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two usable cores")
    peaks, before = [], torch.get_num_threads()
    try:
        for threads in (1, 2):
            torch.set_num_threads(threads)
            # a clock no core reaches: where the CPU model does not give the FMA units (Zen 5, some
            # Xeons), one 1-thread torch.mm cannot look like two units' worth, in either run
            result = run_here("vectorise_matmul_gflops", "--size", "128", "--mhz", "10000")
            assert result.returncode == 0, result.stderr
            peaks.append(float(PEAK.search(result.stdout).group(1)))
    finally:
        torch.set_num_threads(before)
    assert peaks[1] == pytest.approx(2 * peaks[0], rel=1e-3)


@pytest.mark.skipif(not HAS_CPUINFO, reason="the peak comes from /proc/cpuinfo")
def test_peak_follows_the_clock_given():
    """--mhz replaces the clock /proc/cpuinfo reports (a VM's base clock) in the peak estimate,
    which is proportional to it. The proportion is checked on the estimate itself with a fixed
    1-thread figure: where the CPU model does not give the FMA units (Zen 5, some Xeons), the
    program infers them from a measured 1-thread torch.mm against the clock, and a quiet core with
    two 512-bit units can pass 160 GFLOP/s, one unit's rate at 5000 MHz: it looked like two units
    at 5000 MHz and one at 10000 (640 GFLOP/s at both), so two runs' peaks need not double."""
    for mhz in ("5000", "10000"):
        result = run_here("vectorise_matmul_gflops", "--size", "64", "--mhz", mhz)
        assert result.returncode == 0, result.stderr
        assert f"clock for the peak: {mhz}.0 MHz (--mhz)" in result.stdout
        assert float(PEAK.search(result.stdout).group(1)) > 0
    snippet = load_snippet("vectorise_matmul_gflops")
    low, high = (snippet.estimated_peaks(2, mhz, lambda: 100.0) for mhz in (5000, 10000))
    assert low[1] == high[1] and high[0]["fp32"] == pytest.approx(2 * low[0]["fp32"])


@pytest.mark.parametrize("mhz", ["0", "20000"])
def test_bad_clock_is_rejected(mhz):
    result = run_here("vectorise_matmul_gflops", "--mhz", mhz)
    assert result.returncode == 2 and "--mhz" in result.stderr


def test_single_core_run_works():
    result, _ = run_isolated("vectorise_matmul_gflops")  # one CPU, emulated AVX2
    assert result.returncode == 0, result.stderr
    assert re.search(r"threads: [\d.]+ GFLOP/s", result.stdout), result.stdout


def test_recorded_output_took_the_reported_clock_inferred_fma_units_and_stayed_below_the_peak():
    """The page says the recorded output at the end of the page "took the reported clock too, but
    inferred its FMA units from a one-thread torch.mm ... and there torch.mm stayed below that peak"."""
    recorded = (OUTPUTS / "vectorise_matmul_gflops.txt").read_text()
    assert "(cpu MHz in /proc/cpuinfo)" in recorded
    assert "FMA units: inferred from a 1-thread torch.mm" in recorded
    assert float(PEAK.search(recorded).group(2)) < 1.0
