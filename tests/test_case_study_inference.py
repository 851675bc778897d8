"""The ResNet-50 case study: every step is in the table (measured, or marked not run with its
reason), each step's logits agree with fp32 eager, bad arguments get a usage message, and
--steps picks the rows. Correctness only: no speed bound is asserted."""
import os
import re

import pytest

from bench.core import load_snippet
from tests.running import clean_env, run, run_here, run_shared

NAME = "case_study_inference"
STEPS = ("naive", "inference_mode", "batching", "channels_last", "compile", "bf16", "int8")
FP32_EAGER = STEPS[:4]
NUMBER = r"[\d.]+"
MEASURED = rf"\d+ +{NUMBER} +(?:{NUMBER}x|-) +(?:{NUMBER}x|-) +{NUMBER} +{NUMBER} +(?:{NUMBER}x|-) +{NUMBER}"


def label(step: str) -> str:
    return f"{STEPS.index(step) + 1} {step}" if step in STEPS else f"  {step} (side)"


def table_row(out: str, step: str) -> str | None:
    """What follows the step's label in the timing table (None: no such row)."""
    table = out.split("\nstep ", 1)[1].split("\nparity on", 1)[0]
    match = re.search(rf"^{re.escape(label(step))} +(.+)$", table, re.M)
    return match and match.group(1)


def parity_row(out: str, step: str) -> str | None:
    match = re.search(rf"^  {re.escape(label(step))} +(.+)$", out.split("\nparity on", 1)[1], re.M)
    return match and match.group(1)


def agreement(out: str, step: str) -> tuple[float, float]:
    match = re.fullmatch(r"([\d.]+)% +(\S+)", parity_row(out, step))
    assert match, f"{step}: no parity numbers in {parity_row(out, step)!r}"
    return float(match.group(1)), float(match.group(2))


@pytest.fixture(scope="module")
def quick() -> str:
    return run_shared(NAME, "--quick").stdout


def test_quick_run_prints_header_and_model_facts(quick):
    assert re.search(r"^torch \S+, \d+ thread\(s\), CPU capability \w+, native bf16: (yes|no), native int8: (yes|no)$",
                     quick, re.M)
    assert "64x64 images, quick mode (--quick)" in quick
    gflop = float(re.search(r"^GFLOP per image: ([\d.]+)$", quick, re.M).group(1))
    assert 0.6 < gflop < 0.75  # 8.2 GFLOP at 224x224, scaled by (64/224)^2 for the convolutions
    assert re.search(r"^denormal weights: 0\.000% of 25,557,032$", quick, re.M)
    chosen = int(re.search(r"^batch size: steps 1 and 2 (\d+) \(step batching's best\); from step 3 on each "
                           r"row's own best of the sweep 1, 4, 16 \(column batch\)$", quick, re.M).group(1))
    swept = re.search(r"^batch sweep \(step batching, images/s\): (.+)$", quick, re.M).group(1)
    sizes = [int(part.split(":")[0]) for part in swept.split(", ")]
    assert chosen in sizes and sizes == [1, 4, 16]
    batch = {step: int(table_row(quick, step).split()[0]) for step in FP32_EAGER}
    assert batch["naive"] == batch["inference_mode"] == batch["batching"] == chosen  # the eager sweep's best
    assert batch["channels_last"] in sizes  # its own sweep's best
    assert "parity on 16 inputs against fp32 eager" in quick


def test_quick_run_has_every_step_measured_or_marked_not_run(quick):
    """Quick mode measures the eager fp32 steps, the same rows on every CPU."""
    for step in FP32_EAGER:
        assert re.fullmatch(MEASURED, table_row(quick, step)), f"{step}: {table_row(quick, step)!r}"
    for step in ("compile", "bf16", "int8"):
        assert table_row(quick, step) == "not run in --quick"
        assert parity_row(quick, step) == "not run in --quick"
        assert re.search(rf"^compile time, {label(step)}: not run in --quick$", quick, re.M)
    assert table_row(quick, "bf16 eager") == "not run in --quick"
    assert table_row(quick, "package") == "not run in --quick" and "package: not run in --quick" in quick
    for step in ("int8 glibc", "int8 tcmalloc"):  # step 7's allocator rows come with it
        assert table_row(quick, step) == "not run in --quick" and parity_row(quick, step) == "not run in --quick"
    assert "tcmalloc against glibc malloc, step 7 in a fresh process each: not run in --quick" in quick
    assert table_row(quick, "int8 TorchScript") == "not run in --quick" and "int8 TorchScript: not run in --quick" in quick
    naive = table_row(quick, "naive").split()
    assert naive[2] == "1.00x" and naive[3] == "-" and naive[6] == "1.00x"  # naive against itself


def test_every_step_agrees_with_fp32_eager(quick):
    for step in FP32_EAGER:
        agree, diff = agreement(quick, step)
        assert agree >= 99.0, f"{step}: top-1 agreement {agree}%"
        assert diff < 1e-3, f"{step}: max |logit difference| {diff}"  # fp32: rounding only
    agree, diff = agreement(quick, "batching")
    assert diff == 0.0  # the reference's very computation: batched fp32 eager
    classes = int(re.search(r"^parity inputs: 16, in (\d+) classes by fp32 eager$", quick, re.M).group(1))
    assert classes >= 4, "the parity inputs must not all be one class, or agreement proves nothing"


@pytest.mark.parametrize("args,message", [
    (("--steps", "naive,warp"), "valid: naive, inference_mode, batching, channels_last, compile, bf16, int8"),
    (("--steps", ","), "--steps"),
    (("--batch", "0"), "--batch must be between 1 and 256"),
    (("--batch", "257"), "--batch must be between 1 and 256"),
    (("--batch", "x"), "--batch"),
    (("--size", "16"), "--size must be between 32 and 448"),
    (("--model", "transformer", "--size", "4"), "--size must be between 8 and 512 tokens"),
    (("--model", "gpt"), "invalid choice: 'gpt'"),
    (("--batch", "256"), "leave naive out of --steps"),  # 256 images' autograd state at 224x224
    (("--quick", "--no-such-option"), "--no-such-option"),
    (("--tcmalloc", "/nonexistent/libtcmalloc_minimal.so.4"), "--tcmalloc: no such file"),
    (("--child", "--size", "32"), "--child needs --size, --batch, --threads and --parity-items"),
])
def test_bad_arguments_exit_2_with_a_message(args, message):
    result = run_here(NAME, *args)
    assert result.returncode == 2 and "usage:" in result.stderr and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_steps_selects_the_rows():
    """A later step alone: it builds on the model itself, not on earlier rows."""
    result = run_here(NAME, "--quick", "--size", "32", "--batch", "2", "--steps", "channels_last,bf16")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "batch sweep (step batching, images/s): skipped" in out and "batch size: 2 (--batch)" in out
    for step in ("naive", "inference_mode", "batching", "compile"):
        assert table_row(out, step) is None and parity_row(out, step) is None
    row = table_row(out, "channels_last").split()
    assert row[0] == "2" and row[2] == "-" and row[3] == "-" and row[6] == "-"  # no naive or batching row to compare with
    assert agreement(out, "channels_last")[0] >= 99.0
    assert table_row(out, "bf16") == "not run in --quick"
    assert table_row(out, "bf16 eager") == "not run in --quick"  # the side row comes with bf16
    assert "compile time, 5 compile" not in out and "compile time, 6 bf16: not run in --quick" in out


def test_measurements_are_importable_as_rows():
    """What a benchmark module records: runpy without __main__ runs nothing, measure_steps returns
    one dict per row."""
    snippet = load_snippet(NAME)
    lines = []
    rows = snippet.measure_steps(["batching", "compile"], quick=True, batch=2, size=32, log=lines.append)
    assert [r["step"] for r in rows] == ["batching", "compile", "package"]  # the package comes with compile
    batching, compiled, _ = rows
    assert batching["run"] and batching["precision"] == "fp32" and batching["batch"] == 2
    assert batching["items_per_s"] > 0 and 0 < batching["p50_s"] <= batching["p99_s"]
    assert batching["gflops"] == pytest.approx(batching["items_per_s"] * batching["gflop_per_item"])
    assert batching["top1_agreement_pct"] == 100.0 and batching["max_abs_logit_diff"] == 0.0
    assert batching["compile_s"] is None
    assert not compiled["run"] and compiled["reason"] == "not run in --quick" and compiled["items_per_s"] is None
    assert {"step", "items_per_s", "p50_s", "p99_s", "gflops", "top1_agreement_pct", "max_abs_logit_diff",
            "precision", "batch", "compile_s", "run"} <= set(batching)
    assert lines[0].startswith("torch ") and "batch size: 2 (--batch)" in lines


def test_the_transformer_runs_the_steps_that_apply():
    """The BERT-base-shaped classifier through the eager steps: channels_last does not apply (no
    convolutions), the package is ResNet-50's only, and the fp32 steps agree with fp32 eager."""
    result = run_here(NAME, "--model", "transformer", "--quick", "--size", "16", "--batch", "2")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "BERT-base-shaped text classifier (nn.TransformerEncoder, 12 layers, seed 0), 16-token sequences" in out
    assert re.search(r"^denormal weights: 0\.000% of 108,896,266$", out, re.M)  # BERT-base's size, 10-class head
    gflop = float(re.search(r"^GFLOP per sequence: ([\d.]+)$", out, re.M).group(1))
    assert 2.6 < gflop < 2.8  # 2 x 85M encoder weights x 16 tokens, plus attention and the head
    for step in ("naive", "inference_mode", "batching"):
        assert re.fullmatch(MEASURED, table_row(out, step)), f"{step}: {table_row(out, step)!r}"
        agree, diff = agreement(out, step)
        assert agree == 100.0 and diff < 1e-4, (step, agree, diff)
    assert table_row(out, "channels_last") == "not run: no convolutions"
    assert table_row(out, "package") == "not run: ResNet-50 only"
    classes = int(re.search(r"^parity inputs: 16, in (\d+) classes by fp32 eager$", out, re.M).group(1))
    assert classes >= 4, "the re-centred head must give the inputs different classes"


CHILD = ("--child", "--size", "32", "--batch", "2", "--threads", "1", "--parity-items", "8")


def test_step_7_in_a_child_has_its_allocator_mapped_and_measures_rounds():
    """The allocator rows' fresh processes: with tcmalloc preloaded the child finds it in
    /proc/self/maps, the control finds glibc's malloc; each builds step 7 on the same model and
    inputs (so both agree with fp32 eager on the same images), then measures a round on request."""
    snippet = load_snippet(NAME)
    library = snippet.find_tcmalloc()
    if library is None:
        missing = "tcmalloc is not installed (Debian/Ubuntu: apt install libtcmalloc-minimal4)"
        if os.environ.get("REQUIRE_ALLOCATORS") == "1":  # .ci/run installs it
            pytest.fail(f"REQUIRE_ALLOCATORS=1 but {missing}")
        pytest.skip(missing)
    found = {}
    for row, preload in (("tcmalloc", library), ("glibc", None)):
        child = snippet.Step7InChild("resnet50", 32, 2, preload, 8)
        try:
            found[row] = child.ready, child.measure(0.05, 3), child.measure(0.05, 2)
        finally:
            child.close()
        assert child.process.returncode == 0
    assert "libtcmalloc_minimal.so" in found["tcmalloc"][0]["allocator"]
    assert found["glibc"][0]["allocator"] == "glibc malloc"
    for ready, first, second in found.values():
        assert ready["compile_s"] > 0 and 0 <= ready["top1_agreement_pct"] <= 100
        assert first["items_per_s"] > 0 and second["items_per_s"] > 0
        assert len(first["latency_samples_s"]) == 3 and len(second["latency_samples_s"]) == 2
    assert found["tcmalloc"][0]["top1_agreement_pct"] == found["glibc"][0]["top1_agreement_pct"]


def test_a_child_expecting_tcmalloc_without_the_preload_refuses():
    """An ignored preload cannot pass as tcmalloc: the child checks the map before it builds."""
    env = clean_env()
    env.pop("LD_PRELOAD", None)
    done = run(NAME, *CHILD, "--expect", "/nonexistent/libtcmalloc_minimal.so.4", env=env)
    assert done.returncode == 1, done.stderr[-2000:]
    assert 'CHILD {"error": "libtcmalloc_minimal.so.4 is not mapped although LD_PRELOAD=None"}' in done.stdout


def test_without_tcmalloc_the_allocator_rows_say_how_to_install_it():
    snippet = load_snippet(NAME)
    missing = "/nonexistent/libtcmalloc_minimal.so.4"
    for step in ("int8 glibc", "int8 tcmalloc"):  # the control is not measured without what it controls
        reason = snippet.not_run_reason(step, quick=False, bf16=True, tcmalloc=missing)
        assert reason == (f"not run: tcmalloc not found (tried {missing}); "
                          "Debian/Ubuntu: apt install libtcmalloc-minimal4")
    assert snippet.not_run_reason("int8", quick=False, bf16=True, tcmalloc=missing) is None
    for step in ("int8 tcmalloc", "int8 TorchScript"):
        assert snippet.not_run_reason(step, quick=False, bf16=True, model="transformer") == "not run: ResNet-50 only"


def test_the_torchscript_row_is_int8_like_step_7_for_any_batch():
    """The TorchScript side row (FX quantization, oneDNN engine, traced at batch 1 and frozen):
    a batch of six and the same images one at a time are both as near fp32's logits as step 7's
    int8 graph is (a trace fixed to the batch it was traced with would fail or give garbage; the
    two need not match bit for bit, as oneDNN picks other kernels for another batch), and the
    process's quantized engine is left as it was."""
    import torch

    snippet = load_snippet(NAME)
    model = snippet.make_resnet50(64)
    calibration, images = snippet.make_images(16, 64, seed=4), snippet.make_images(6, 64, seed=3)
    engine = torch.backends.quantized.engine
    predict = snippet.int8_torchscript(model, calibration)
    assert torch.backends.quantized.engine == engine
    with torch.inference_mode():
        reference = model(images)
        step_7 = snippet.int8_model(model, calibration)(images)  # the same calibration through PT2E, eager
    batched = predict(images)
    one_by_one = torch.cat([predict(image[None]) for image in images])
    assert batched.shape == one_by_one.shape == reference.shape
    error = lambda logits: float((logits - reference).norm() / reference.norm())  # noqa: E731
    for logits in (batched, one_by_one):
        assert 0 < error(logits) < max(2 * error(step_7), 0.05), (error(logits), error(step_7))
