"""The profiling page: the profiler finds the labelled bottleneck, the fix keeps the result, traces are real."""
import json
import re

from tests.snippets import run, run_default


def test_profiler_finds_the_per_sample_metrics_and_the_fix_shrinks_them():
    out = run_default("profiling_find_bottleneck").stdout
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
    folder = tmp_path / "traces"
    first = run("profiling_find_bottleneck", "--trace-dir", str(folder))
    assert first.returncode == 0, first.stderr
    assert f"traces kept in {folder}" in first.stdout
    for name in ("before", "after"):
        trace = json.loads((folder / f"trace_{name}.json").read_text())
        names = {event.get("name") for event in trace["traceEvents"]}
        assert {"forward", "backward", "metrics"} <= names  # the record_function labels
    again = run("profiling_find_bottleneck", "--trace-dir", str(folder))
    assert again.returncode == 2 and "--overwrite" in again.stderr
    forced = run("profiling_find_bottleneck", "--trace-dir", str(folder), "--overwrite", "--table")
    assert forced.returncode == 0, forced.stderr
    # key_averages().table(sort_by=..., row_limit=...) prints a table per profile
    assert forced.stdout.count("Self CPU time total") == 2
    assert "aten::" in forced.stdout and "Name" in forced.stdout


def test_bad_thread_count_is_rejected():
    result = run("profiling_find_bottleneck", "--threads", "0")
    assert result.returncode == 2 and "--threads" in result.stderr
