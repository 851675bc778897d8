"""docs/tune-your-model.md: the guide's steps on a reader's own model (snippets/tune_your_model.py).
Each run is a fresh process on the machine the tests run on; the page's outputs are quick runs on
the three example models (tune_your_model_examples.py), recorded with their machine."""
import json
import random
import re

import pytest

from bench import noise
from bench.core import load_snippet
from tests.paths import OUTPUTS, ROOT
from tests.recorded import keep, mask
from tests.running import run, run_here, run_shared

NAME = "tune_your_model"
AWKWARD = ROOT / "tests" / "tune" / "awkward_models.py"
EXAMPLES = ("cnn", "encoder", "mlp")
INFERENCE_ROWS = ("baseline", "threads", "inference_mode", "batch_size", "channels_last", "compile", "bf16", "int8")
RUNTIMES = ("ONNX Runtime fp32", "OpenVINO fp32")


def example_run(model: str, *more: str):
    return run_shared(NAME, "--model", f"tune_your_model_examples.py:{model}", "--quick", *more)


def rows_of(stdout: str) -> dict[str, str]:
    """{step: the rest of its table line}."""
    table = stdout.split("\nstep ", 1)[1].split("\nitems/s: ", 1)[0].splitlines()[1:]
    return {line[:16].strip(): line[16:].strip() for line in table}


def test_the_verdict_rule_is_the_benchmarks():
    """The program's interval and verdict are bench.noise's for rows timed in the same rounds (and
    for one round, each row its +-5%)."""
    tune = load_snippet(NAME)
    rng = random.Random(0)
    for rounds in (1, 2, 3, 5):
        for _ in range(200):
            base = [rng.uniform(50, 150) for _ in range(rounds)]
            other = [b * rng.uniform(0.8, 1.3) for b in base]
            row = lambda samples, name: {"id": name, "unit": "items/s", "higher_is_better": True, "paired": True,  # noqa: E731
                                         "median": sorted(samples)[len(samples) // 2], "samples": samples, "runs": rounds}
            ratios = [o / b for o, b in zip(other, base)]
            ours = tune.interval(ratios)
            if rounds >= 2:
                theirs = noise.interval(row(other, "b"), row(base, "a"))
                assert ours == pytest.approx(theirs)
                assert tune.verdict(ours) == noise.outcome(theirs)
            else:
                theirs = noise.interval({**row(other, "b"), "samples": [], "paired": False},
                                        {**row(base, "a"), "samples": [], "paired": False})
                assert ours == pytest.approx(theirs)
    assert (tune.EVEN, tune.ONE_SAMPLE) == (noise.EVEN, noise.ONE_SAMPLE)


@pytest.mark.parametrize("args, message", [
    (["--model", "no_such_file.py:build"], "no such file no_such_file.py"),
    (["--model", f"{AWKWARD}:missing"], "has no function missing; it has: "),
    (["--model", f"{AWKWARD}:raises"], "raises() raised ValueError: checkpoint not found"),
    (["--model", f"{AWKWARD}:not_a_model"], "expected a torch.nn.Module"),
    (["--model", f"{AWKWARD}:only_a_model"], "returned a model and no inputs: pass --input-shape"),
    (["--model", f"{AWKWARD}:only_a_model", "--input-shape", "4,3"], "the model fails on inputs of shape [4, 3]"),
    (["--model", "no_such_package.models:build"], "cannot import no_such_package.models"),
    (["--model", "resnet5000"], "no torchvision model of that name"),
    (["--model", "resnet18", "--skip", "warp_drive"], "--skip: unknown step(s) warp_drive"),
    (["--model", "resnet18", "--input-shape", "8,x"], "whole numbers separated by commas"),
    (["--model", "resnet18", "--batch-sizes", "0,8"], "--batch-sizes: each between 1 and 1024"),
    (["--model", "resnet18", "--threads", "100000"], "--threads must be between 1 and"),
])
def test_bad_input_is_a_message_and_a_non_zero_exit(args, message):
    result = run_here(NAME, *args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_an_existing_report_is_not_overwritten(tmp_path):
    report = tmp_path / "report.json"
    report.write_text("mine")
    result = run_here(NAME, "--model", "resnet18", "--json", str(report))
    assert result.returncode == 2 and "exists; pass another name" in result.stderr
    assert report.read_text() == "mine"


@pytest.mark.slow
@pytest.mark.recorded
@pytest.mark.parametrize("model", EXAMPLES)
def test_each_example_model_gets_every_step_measured_or_a_reason(model, request):
    """Every step is a row, measured or skipped with its reason; the page shows the output."""
    out = example_run(model).stdout
    if model != "mlp":  # mlp's is the snippet's own page run, recorded by test_snippet_outputs
        stored = keep(OUTPUTS / "tune" / f"{model}.txt", out, request, lambda a, b: mask(a, NAME) == mask(b, NAME))
        assert mask(stored, NAME) == mask(out, NAME), f"run pytest --update-outputs -k {model}"
    rows = rows_of(out)
    assert list(rows) == list(INFERENCE_ROWS), rows
    for step, line in rows.items():
        assert line.startswith("skipped: ") or re.match(r"\d+ +\d+\.\d", line), (step, line)
    for runtime in RUNTIMES:  # compared with the kept configuration, or the reason they did not run
        assert re.search(rf"^  (?:against {runtime}: \d|{runtime}: skipped: )", out, re.M), out
    conv = model == "cnn"
    assert rows["channels_last"].startswith("skipped: no 2-D convolutions") != conv


def check_report(report: dict, stdout: str) -> None:
    """What the report says holds by its own numbers: each verdict follows from its rounds by the
    rule, a kept step paid (inference_mode: or even) with parity, and the final configuration
    is the kept steps'."""
    tune = load_snippet(NAME)
    kept = []
    for row in report["rows"][1:]:
        if "skipped" in row:
            continue
        span = tune.interval(row["ratios"])
        assert tuple(row["interval"]) == pytest.approx(span)
        assert row["verdict"] == tune.verdict(span)
        if row["kept"]:
            kept.append(row["step"])
            assert row["verdict"] == "paid" or (row["step"] == "inference_mode" and row["verdict"] == "even")
            assert row.get("parity", {"ok": True})["ok"] and row.get("same_loss", True)
    # the steps the final configuration still has: int8 replaces a kept bf16, and then bf16 is off
    assert report["final"]["steps"] == [s for s in kept if not (s == "bf16" and "int8" in kept)]
    assert report["final"]["config"].get("bf16") is not True or "int8" not in kept
    assert "\n".join(f"    {line}" for line in report["code"]) in stdout


@pytest.mark.slow
def test_the_report_follows_from_its_measurements(tmp_path):
    report = tmp_path / "report.json"
    result = run(NAME, "--model", "tune_your_model_examples.py:cnn", "--quick", "--json", str(report), timeout=900)
    assert result.returncode == 0, result.stderr
    check_report(json.loads(report.read_text()), result.stdout)


@pytest.mark.slow
def test_a_graph_break_and_a_failed_export_are_reported_and_the_run_goes_on():
    result = run(NAME, "--model", f"{AWKWARD}:graph_break", "--quick", timeout=900)
    assert result.returncode == 0, result.stderr
    rows = rows_of(result.stdout)
    assert re.search(r"graph break\(s\)", rows["compile"]), rows["compile"]
    assert rows["int8"].startswith("skipped: failed: "), rows["int8"]
    assert "code:" in result.stdout


@pytest.mark.slow
def test_a_model_int8_cannot_quantise_is_reported():
    result = run(NAME, "--model", f"{AWKWARD}:nothing_to_quantise", "--quick", "--skip", "onnxruntime,openvino",
                 timeout=900)
    assert result.returncode == 0, result.stderr
    assert rows_of(result.stdout)["int8"] == \
        "skipped: failed: RuntimeError: the x86 quantizer found no layer it quantises (convolution, linear, matmul)"


@pytest.mark.slow
def test_training_steps_report_time_and_the_loss(tmp_path):
    report = tmp_path / "report.json"
    result = run(NAME, "--model", "tune_your_model_examples.py:cnn", "--train", "--quick", "--json", str(report),
                 timeout=900)
    assert result.returncode == 0, result.stderr
    rows = rows_of(result.stdout)
    assert list(rows) == ["baseline", "threads", "channels_last", "bf16", "compile"], rows
    assert re.search(r"loss \d", rows["baseline"])
    assert "next, in a new process: " in result.stdout and "LD_PRELOAD" in result.stdout
    check_report(json.loads(report.read_text()), result.stdout)


def test_the_benchmark_rows_carry_the_configuration_each_ran_at(monkeypatch):
    """bench/cases/tune_your_model.py: the baseline is timed in its own configuration (the inputs'
    batch, the default threads), the kept configuration and the other runtimes in the kept one;
    each row's params say which (the baseline is not labelled with the kept batch)."""
    from bench.cases import tune_your_model as case

    rounds = [{"items_per_s": 10.0 * i, "p50_ms": 5.0 / i} for i in (1, 2, 3)]
    report = {"model": "m", "rows": [{"step": "baseline", "config": {"threads": 2, "batch": 16}},
                                     {"step": "batch_size", "batch": 8, "ratios": [1.1, 1.2, 1.0], "kept": True,
                                      "items_per_s": 20.0, "p50_ms": 4.0}],
              "final": {"config": {"threads": 1, "batch": 8}, "steps": ["batch_size"], "rounds": rounds,
                        "against": [{"name": "baseline", "rounds": rounds},
                                    {"name": "ONNX Runtime fp32", "rounds": rounds,
                                     "parity": {"top1_pct": 100.0, "max_abs_diff": 1e-5}}]}}
    monkeypatch.setattr(case, "tune", lambda arguments: report)
    recorded = []

    class Session:
        quick = True

        def record(self, group, label, *args, params=None, **kwargs):
            recorded.append((group, label, params or {}))

        def skip(self, *args):
            pass

    case.run(Session())
    ran_at = {(group, label): (p.get("batch_size"), p.get("num_threads")) for group, label, p in recorded
              if group.startswith(case.CHOICE)}
    assert len(ran_at) == 6
    for (group, label), at in ran_at.items():
        assert at == ((16, 2) if label == "baseline" else (8, 1)), (group, label, at)
