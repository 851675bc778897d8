"""The profiling page: the profiler finds the labelled bottleneck, the fix keeps the result, traces are real."""
import json
import re
from pathlib import Path

import pytest

from tests.isolation import run_isolated
from tests.paths import OUTPUTS
from tests.recorded import keep
from tests.running import as_dict, as_result, clean_env, run_here, run_shared, shared

# The table the page shows: from `python snippets/profiling_find_bottleneck.py --table`.
RECORDED_TABLE = OUTPUTS / "profiling" / "key_averages_table.txt"
# The per-sample loop's ops: a table without them at the top did not find the bottleneck.
PER_SAMPLE_OPS = {"metrics", "aten::select", "aten::argmax", "aten::item"}


def test_profiler_finds_the_per_sample_metrics_and_the_fix_shrinks_them():
    out = run_shared("profiling_find_bottleneck").stdout
    assert "per-sample and vectorised metrics count the same correct predictions: True" in out
    # 3 profiled steps x 512 samples x 2 .item() before; one int() per step after.
    assert "before: aten::item calls in the 3 profiled steps: 3072" in out
    assert "after: aten::item calls in the 3 profiled steps: 3" in out
    match = re.search(r"largest labelled region: (\w+) \(([\d.]+) of the profiled step time\)", out)
    assert match.group(1) == "metrics" and 0.5 < float(match.group(2)) <= 1
    after = float(re.search(r"after the fix, metrics takes ([\d.]+)", out).group(1))
    assert after < float(match.group(2))
    assert "metrics share dropped: True" in out
    assert "traces were in a temporary folder, now deleted" in out


@pytest.fixture(scope="module")
def kept_traces(tmp_path_factory):
    """In this process (nothing here is about process start-up): a run that must refuse to
    replace a trace of the user's, then one with --overwrite and --table."""
    folder = tmp_path_factory.mktemp("profiling") / "traces"
    folder.mkdir()
    (folder / "trace_before.json").write_text("the user's earlier trace")
    refused = run_here("profiling_find_bottleneck", "--trace-dir", str(folder))
    kept = (folder / "trace_before.json").read_text()
    forced = run_here("profiling_find_bottleneck", "--trace-dir", str(folder), "--overwrite", "--table")
    return folder, refused, kept, forced


def test_chrome_traces_go_to_the_named_folder_and_are_not_overwritten(kept_traces):
    folder, refused, kept, forced = kept_traces
    assert refused.returncode == 2 and "--overwrite" in refused.stderr
    assert kept == "the user's earlier trace"
    assert forced.returncode == 0, forced.stderr
    assert f"traces kept in {folder}" in forced.stdout
    for name in ("before", "after"):
        trace = json.loads((folder / f"trace_{name}.json").read_text())
        names = {event.get("name") for event in trace["traceEvents"]}
        assert {"forward", "backward", "metrics"} <= names  # the record_function labels


def key_averages_table(text: str) -> str:
    """The one key_averages() table printed in `text`: from its first rule to its total."""
    match = re.search(r"^-{10,}[ -]*\n.*?^Self CPU time total: [^\n]*$", text, flags=re.M | re.S)
    assert match, f"no key_averages() table in:\n{text}"
    return match.group(0) + "\n"


def table_layout(table: str) -> tuple[list[str], list[tuple[str, int]]]:
    """The column names of a key_averages() table and each row's (name, number of calls)."""
    lines = table.splitlines()
    rules = [i for i, line in enumerate(lines) if re.fullmatch(r"-+( +-+)* *", line)]
    assert len(rules) == 3, f"expected a rule above and below the header and one below the rows:\n{table}"
    columns = re.split(r" {2,}", lines[rules[0] + 1].strip())
    rows = [re.split(r" {2,}", line.strip()) for line in lines[rules[1] + 1:rules[2]]]
    assert all(len(row) == len(columns) for row in rows), f"rows do not fit the columns {columns}"
    return columns, [(row[0], int(row[-1])) for row in rows]


@pytest.mark.recorded
def test_the_recorded_table_is_one_a_run_prints(kept_traces, request):
    """The page's table (times and the order of close rows vary between runs) has the columns,
    the number of rows and the call counts of a fresh run's, with the per-sample ops in both."""
    fresh = key_averages_table(kept_traces[3].stdout)
    assert kept_traces[3].stdout.count("Self CPU time total") == 1, "--table prints one table"
    recorded = keep(RECORDED_TABLE, fresh, request, lambda stored, new: not table_differences(stored, new))
    assert key_averages_table(recorded) == recorded, f"{RECORDED_TABLE} holds more than the table"
    differences = table_differences(recorded, fresh)
    assert not differences, f"{differences}; if the change is intended, run pytest --update-outputs -k recorded_table"


def table_differences(recorded: str, fresh: str) -> list[str]:
    """What a fresh table does not share with the recorded one (its times and the order of
    close rows may differ)."""
    (columns, rows), (fresh_columns, fresh_rows) = table_layout(recorded), table_layout(fresh)
    calls, fresh_calls = dict(rows), dict(fresh_rows)
    common = set(calls) & set(fresh_calls)
    found = []
    if not columns == fresh_columns == ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total",
                                        "CPU time avg", "# of Calls"]:
        found.append("columns changed")
    if not len(rows) == len(fresh_rows) == 10:
        found.append("row_limit=10 is not what the page shows")
    if not PER_SAMPLE_OPS <= common:
        found.append(f"the per-sample ops are not in both: {rows} / {fresh_rows}")
    if len(common) < 7:
        found.append(f"the tables share only {sorted(common)}")
    if {n: calls[n] for n in common} != {n: fresh_calls[n] for n in common}:
        found.append("call counts differ")
    return found


def test_bad_thread_count_is_rejected():
    result = run_here("profiling_find_bottleneck", "--threads", "0")
    assert result.returncode == 2 and "--threads" in result.stderr


def _kernels(out: str) -> dict[str, str]:
    return dict(re.findall(r"^([^:\n]+):\s+(.+)$", out, flags=re.M))


@pytest.mark.release
def test_onednn_verbose_names_the_kernel_for_this_cpu():
    """The convolution's implementation ends in the instruction set torch dispatches to, and a
    channels_last input needs fewer layout reorders than NCHW."""
    out = run_shared("profiling_which_kernel").stdout
    if out.startswith("SKIP:"):
        return
    seen = _kernels(out)
    isa = {"AVX512": "avx512", "AVX2": "avx2"}.get(seen["torch CPU capability"])
    nchw = re.fullmatch(r"convolution (\S+); layout reorders: (\d+)", seen["fp32 conv, NCHW input"])
    last = re.fullmatch(r"convolution (\S+); layout reorders: (\d+)", seen["fp32 conv, channels_last input"])
    assert nchw and last, out
    if isa:
        assert isa in nchw.group(1) and isa in last.group(1)
    assert int(last.group(2)) < int(nchw.group(2))
    assert seen["fp32 linear"].startswith("no oneDNN primitive")


@pytest.mark.release
def test_bf16_matmul_goes_to_onednn_only_where_it_has_bf16():
    import torch

    seen = _kernels(run_shared("profiling_which_kernel").stdout)
    if "bf16 linear under autocast" not in seen:
        pytest.skip("no oneDNN in this build")
    native = torch.ops.mkldnn._is_mkldnn_bf16_supported()
    assert seen["bf16 linear under autocast"].startswith("matmul ") == native, seen


@pytest.mark.release
def test_kernels_follow_an_isa_cap():
    """ONEDNN_MAX_CPU_ISA=AVX2 (the isolated run emulates an AVX2 CPU): AVX2 kernels only."""
    result, _ = run_isolated("profiling_which_kernel")
    assert result.returncode == 0, result.stderr
    if result.stdout.startswith("SKIP:"):
        return
    seen = _kernels(result.stdout)
    for case in ("fp32 conv, NCHW input", "fp32 conv, channels_last input"):
        assert re.fullmatch(r"convolution \S*avx2\S*; layout reorders: \d+", seen[case]), seen[case]
    assert "avx512" not in result.stdout


def test_denormal_weights_flush_without_changing_the_outputs():
    out = run_shared("profiling_denormals").stdout
    if out.startswith("SKIP:"):
        return
    share = float(re.search(r"([\d.]+)% of all weights are denormal", out).group(1))
    assert 40 < share < 60, out  # half the hidden units of the two hidden layers decayed
    assert "outputs with and without flushing agree (rtol=1e-5, atol=1e-30): True" in out
    assert re.search(r"ms with set_flush_denormal\(True\): [\d.]+x$", out, flags=re.M)


def test_no_decay_no_denormals_and_the_mode_is_switched_back_off():
    import torch

    result = run_here("profiling_denormals", "--dead", "0", "--batch-size", "8")
    assert result.returncode == 0, result.stderr
    if not result.stdout.startswith("SKIP:"):
        assert "0.0% of all weights are denormal" in result.stdout
    assert (torch.tensor([1e-39]) * 1.0).item() != 0, "the snippet left flush-to-zero on"


@pytest.mark.parametrize("args", [("--dead", "1.5"), ("--batch-size", "0")])
def test_denormals_rejects_bad_arguments(args):
    result = run_here("profiling_denormals", *args)
    assert result.returncode == 2 and args[0] in result.stderr


FLUSH_AND_THREADS = """
import numpy as np
import torch
torch.set_num_threads(2)
denormals = np.full(1 << 20, 1e-39, dtype=np.float32)
assert (denormals != 0).all()
x = torch.from_numpy(denormals)  # no torch op yet
if {before}:
    torch.set_flush_denormal(True)
x.add(0.0)  # the first parallel op: torch's intra-op threads start here
torch.set_flush_denormal(True)
y = x * 1.0
torch.set_flush_denormal(False)  # count in numpy, on this thread, with denormals seen as they are
print((y.numpy() == 0).mean())
"""


@pytest.mark.release
@pytest.mark.parametrize("before, flushed", [(True, 1.0), (False, 0.5)])
def test_flush_mode_reaches_the_threads_started_after_it(before, flushed):
    """The page: set before the first parallel op, every intra-op thread flushes; set after,
    only the calling thread does (on 2 threads: half of a large elementwise op)."""
    import os
    import subprocess
    import sys

    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two usable cores")
    done = subprocess.run([sys.executable, "-c", FLUSH_AND_THREADS.format(before=before)], env=clean_env(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) == pytest.approx(flushed, abs=0.01)


# --- what a profiler session prints on stderr (the page's "Lines on stderr") -------------------------
TWO_SESSIONS = """
import torch
for _ in range(2):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        torch.ones(64).sum()
print(any(e.key == "aten::sum" for e in prof.key_averages()))
"""


def _two_sessions(**env: str):
    """The program in a fresh process, once per test run however the two tests that read it are
    spread over the workers (shared)."""
    import subprocess
    import sys

    done = as_result(shared(["two profiler sessions", env], lambda: as_dict(subprocess.run(
        [sys.executable, "-c", TWO_SESSIONS], env=clean_env(**env), capture_output=True, text=True, timeout=120))))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "True\n"  # the profile itself is whole
    return done


@pytest.mark.release
def test_each_profiler_session_prints_kinetos_start_and_stop_markers():
    """The page: every session prints Kineto's USDT markers on stderr; KINETO_LOG_LEVEL=6 hides them."""
    # as the page shows them: USDT:<date> <time> <pid>:<tid> SyncActivityProfilerHandler.cpp:<line>] ...
    markers = re.findall(r"^USDT:\S+ \S+ \d+:\d+ SyncActivityProfilerHandler\.cpp:\d+\] (profiler_\w+)$",
                         _two_sessions().stderr, re.M)
    assert markers == ["profiler_start", "profiler_stop"] * 2
    assert "USDT:" not in _two_sessions(KINETO_LOG_LEVEL="6").stderr


@pytest.mark.release
def test_the_cuda_build_without_a_driver_logs_one_kineto_error():
    """The page: torch built with CUDA, on a machine with no NVIDIA driver, logs one ERROR line
    (gpuGetDeviceCount, code 35: no driver) per process; the CPU profile is whole all the same."""
    import subprocess
    import sys

    probe = subprocess.run([sys.executable, "-c", "import torch; print(torch.version.cuda is not None)"],
                           capture_output=True, text=True, timeout=120)
    if probe.stdout.strip() != "True" or Path("/proc/driver/nvidia/version").exists():
        pytest.skip("needs torch built with CUDA on a machine with no NVIDIA driver loaded")
    errors = re.findall(r"^ERROR:.*$", _two_sessions().stderr, re.M)
    # as the page shows it: ERROR:<date> <time> <pid>:<tid> DeviceProperties.cpp:<line>] ...
    assert len(errors) == 1 and re.fullmatch(
        r"ERROR:\S+ \S+ \d+:\d+ DeviceProperties\.cpp:\d+\] gpuGetDeviceCount failed with code 35", errors[0]), errors
    assert "ERROR:" not in _two_sessions(KINETO_LOG_LEVEL="6").stderr
