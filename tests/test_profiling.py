"""The profiling page: the profiler finds the labelled bottleneck, the fix keeps the result, traces are real."""
import json
import re

from tests.snippets import run_here, run_shared


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


def test_chrome_traces_go_to_the_named_folder_and_are_not_overwritten(tmp_path):
    """Profiling in this process is fine: nothing here is about process start-up."""
    folder = tmp_path / "traces"
    folder.mkdir()
    (folder / "trace_before.json").write_text("the user's earlier trace")
    refused = run_here("profiling_find_bottleneck", "--trace-dir", str(folder))
    assert refused.returncode == 2 and "--overwrite" in refused.stderr
    assert (folder / "trace_before.json").read_text() == "the user's earlier trace"
    forced = run_here("profiling_find_bottleneck", "--trace-dir", str(folder), "--overwrite", "--table")
    assert forced.returncode == 0, forced.stderr
    assert f"traces kept in {folder}" in forced.stdout
    for name in ("before", "after"):
        trace = json.loads((folder / f"trace_{name}.json").read_text())
        names = {event.get("name") for event in trace["traceEvents"]}
        assert {"forward", "backward", "metrics"} <= names  # the record_function labels
    # key_averages().table(sort_by=..., row_limit=...) prints a table per profile
    assert forced.stdout.count("Self CPU time total") == 2
    assert "aten::" in forced.stdout and "Name" in forced.stdout


def test_bad_thread_count_is_rejected():
    result = run_here("profiling_find_bottleneck", "--threads", "0")
    assert result.returncode == 2 and "--threads" in result.stderr
