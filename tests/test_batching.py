"""docs/batching.md: batched results equal one-at-a-time results; the tables report what they say."""
import re

import pytest
import torch

from bench.core import load_snippet
from tests.isolation import run_isolated
from tests.paths import DOCS, OUTPUTS
from tests.running import run_here, run_shared

THROUGHPUT = "batching_throughput_latency"
SERVING = "batching_serving_latency"
MODELS = ("MLP 784-512-512-10", "CNN 2 conv + 1 linear")
ROW = re.compile(r"^\s*(\d+) \|\s+([\d.]+)\s+([\d.]+) \|\s+([\d.]+)\s+([\d.]+)$", re.M)


def _load(name):
    """The snippet's definitions, without running main() or writing bytecode next to it."""
    return load_snippet(name)


def _tables(out: str) -> dict[str, list[tuple[int, float, float, float, float]]]:
    """Per model: (batch, 1-thread ms, 1-thread samples/s, all-threads ms, all-threads samples/s)."""
    tables = {}
    for model in MODELS:
        section = out.split(f"\n{model}:")[1].split("\n\n")[0]
        tables[model] = [(int(b), *map(float, cells)) for b, *cells in ROW.findall(section)]
    return tables


def test_batched_outputs_equal_one_at_a_time_outputs():
    out = run_shared(THROUGHPUT).stdout
    for model in MODELS:
        line = next(line for line in out.splitlines() if line.startswith(f"{model}: batched vs one at a time"))
        assert "allclose(atol=1e-05, rtol=1e-05): True, same predicted class: True" in line
        diff = float(re.search(r"max \|difference\| ([\d.e+-]+)", line).group(1))
        assert diff <= 1e-5


@pytest.mark.parametrize("build", ["mlp", "cnn"])
def test_batching_agrees_in_this_process_too(build):
    """The same check, done here on other inputs, so it does not rest on what the snippet prints."""
    snippet = _load(THROUGHPUT)
    torch.manual_seed(1)
    model = getattr(snippet, build)().eval()
    x = torch.randn(32, 1, 28, 28)
    with torch.inference_mode():
        batched = model(x)
        single = torch.cat([model(x[i:i + 1]) for i in range(len(x))])
    assert torch.allclose(batched, single, atol=snippet.ATOL, rtol=snippet.RTOL)
    assert torch.equal(batched.argmax(1), single.argmax(1))


def test_table_covers_every_batch_size_and_its_columns_agree():
    tables = _tables(run_shared(THROUGHPUT).stdout)
    for model, rows in tables.items():
        assert [r[0] for r in rows] == [1, 2, 4, 8, 16, 32, 64], model
        for batch, ms_one, rate_one, ms_all, rate_all in rows:
            for ms, rate in ((ms_one, rate_one), (ms_all, rate_all)):
                assert rate == pytest.approx(batch / (ms / 1e3), rel=0.01, abs=0.1)  # samples/s = batch / time


RECORDED_SAYS = {
    "batching.md": "In the throughput output, one run on that Zen 5, all threads process more samples per second than "
                   "one thread at every batch from 8 up, in both models",
    "batching.zh.md": "在吞吐量输出（那台 Zen 5 上的一次运行）中，从批大小 8 起，两个模型在每个批大小上都是全部线程每秒处理的样本多于单线程",
}


def test_recorded_throughput_output_says_what_the_page_says_of_it():
    """The page describes the recorded throughput output (docs/outputs, one run on a Zen 5): from
    batch 8 up all threads are ahead of one thread in both models. A re-recording that contradicts
    the sentence fails here, and the sentence must change with it."""
    for page, quote in RECORDED_SAYS.items():
        assert quote in re.sub(r"\s+", " ", (DOCS / page).read_text()), f"{page} no longer says: {quote}"
    recorded = (OUTPUTS / f"{THROUGHPUT}.txt").read_text()
    assert "(Zen 5)" in recorded.splitlines()[0], "the page says the output was recorded on a Zen 5"
    tables = _tables(recorded)
    for model, rows in tables.items():
        large = [r for r in rows if r[0] >= 8]
        assert large, model
        for batch, _, rate_one, _, rate_all in large:
            assert rate_all > rate_one, f"{model} batch {batch}: all threads {rate_all} not above 1 thread {rate_one}"


def test_threads_and_batch_sizes_options():
    result = run_here(THROUGHPUT, "--batch-sizes", "8,1", "--threads", "1", "--min-run-time", "0.01")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("all threads: 1, eval() + inference_mode()")
    for rows in _tables(result.stdout).values():
        assert [r[0] for r in rows] == [1, 8]


@pytest.mark.parametrize("name, args, message", [
    (THROUGHPUT, ["--batch-sizes", "0,4"], "batch sizes must be between 1 and 1024"),
    (THROUGHPUT, ["--batch-sizes", "one"], "not a comma-separated list of integers"),
    (THROUGHPUT, ["--threads", "0"], "--threads must be between"),
    (THROUGHPUT, ["--min-run-time", "0"], "--min-run-time must be between"),
    (SERVING, ["--requests", "5"], "--requests must be between 20 and 100000"),
    (SERVING, ["--parallel", "1"], "--parallel must be between 2 and 64"),
    (SERVING, ["--threads", "0"], "--threads must be between 1 and 256"),
])
def test_bad_arguments_are_rejected(name, args, message):
    result = run_here(name, *args)
    assert result.returncode == 2
    assert message in result.stderr


SETTINGS = ("1 request at a time, all threads", "1 request at a time, 1 thread", "2 requests at a time, 1 thread each")


def _serving_rows(out: str) -> dict[str, tuple[float, float, float]]:
    rows = {}
    for setting in SETTINGS:
        line = next(line for line in out.splitlines() if line.startswith(setting) and ":" not in line)
        p50, p95, rate = map(float, line[len(setting):].split())
        rows[setting] = p50, p95, rate
    return rows


def test_serving_threads_and_outputs():
    out = run_shared(SERVING).stdout
    for setting in SETTINGS:
        assert (f"{setting}: every serving thread sees the thread count set: True, "
                "outputs allclose(atol=1e-05, rtol=1e-05) to one big batch: True") in out
    for p50, p95, rate in _serving_rows(out).values():
        assert 0 < p50 <= p95 and rate > 0


def test_serving_on_one_core():
    """Started on one CPU (the isolated run of tests/test_portability.py), every setting still
    runs and the answers do not change."""
    result, _ = run_isolated(SERVING)
    assert result.returncode == 0, result.stderr
    assert "2 requests at a time, 1 thread each: every serving thread sees the thread count set: True" in result.stdout
    assert result.stdout.count("to one big batch: True") == 3
