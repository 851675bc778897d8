"""The case study's other runtimes: the snippet runs on its own and agrees with PyTorch eager; a
missing runtime gives a SKIP line (a failure under REQUIRE_RUNTIMES=1, as in CI); the benchmark
case measures them beside the PyTorch steps, on the same model and inputs. Correctness only: no
speed bound is asserted."""
import os
import re
import sys

import pytest

from bench.cases import case_study
from bench.core import load_snippet
from tests.running import require_modules, run_here, run_shared

NAME = "case_study_resnet50_runtimes"
MODULES = {runtime: modules for runtime, (modules, _) in load_snippet(NAME).RUNTIMES.items()}
ROW = re.compile(r"^(?P<name>.+?) +(?P<build>[\d.]+) +(?P<per_s>[\d.]+) +(?P<ms>[\d.]+) +(?P<agree>\d+)% +(?P<diff>\S+)$")


def require(*runtimes: str) -> None:
    """Skip where a runtime is not installed; under REQUIRE_RUNTIMES=1 fail instead."""
    require_modules(*(m for r in runtimes for m in MODULES[r]))


def rows(out: str) -> dict[str, dict]:
    found = {}
    for line in out.splitlines():
        match = ROW.match(line)
        if match:
            found[match["name"]] = {k: float(v) for k, v in match.groupdict().items() if k != "name"}
    return found


@pytest.fixture(scope="module")
def quick() -> str:
    return run_shared(NAME).stdout  # the page's run: --quick


def test_quick_run_names_versions_and_rows(quick):
    require("onnxruntime", "openvino")
    assert re.search(r"^torch \S+, \d+ thread\(s\), ResNet-50 at 64x64, batch 8$", quick, re.M), quick
    assert re.search(r"^onnxruntime \d+\.\d+\.\d+$", quick, re.M) and re.search(r"^openvino \d+\.\d+\.\d+$", quick, re.M)
    assert "SKIP" not in quick
    expected = ["PyTorch eager", "ONNX Runtime fp32", "ONNX Runtime int8", "OpenVINO fp32"]
    assert list(rows(quick))[:4] == expected, quick
    assert all(r["per_s"] > 0 and r["ms"] > 0 for r in rows(quick).values())


def test_onnxruntime_agrees_with_pytorch(quick):
    require("onnxruntime")
    measured = rows(quick)
    assert measured["PyTorch eager"]["diff"] == 0.0
    assert measured["ONNX Runtime fp32"]["agree"] == 100 and measured["ONNX Runtime fp32"]["diff"] < 1e-3  # rounding only
    assert 0 < measured["ONNX Runtime int8"]["diff"] < 10  # quantised: close, not equal


def test_openvino_agrees_with_pytorch(quick):
    """fp32 asked for explicitly gives fp32 logits; NNCF's int8 is close, not equal; the bf16 row
    exists where OpenVINO has native bf16."""
    require("openvino")
    measured = rows(quick)
    assert measured["OpenVINO fp32"]["agree"] == 100 and measured["OpenVINO fp32"]["diff"] < 1e-3
    assert 1e-3 < measured["OpenVINO int8"]["diff"] < 20  # quantised: close, not equal
    if load_snippet(NAME).openvino_native_bf16():
        assert 1e-3 < measured["OpenVINO bf16"]["diff"] < 5
    else:
        assert re.search(r"^OpenVINO bf16 +not run: no native bf16$", quick, re.M), quick


@pytest.mark.parametrize("runtime,left", [("onnxruntime", ["OpenVINO fp32", "OpenVINO int8", "OpenVINO bf16"]),
                                          ("openvino", ["ONNX Runtime fp32", "ONNX Runtime int8"])])
def test_a_missing_runtime_prints_skip_and_the_other_still_runs(runtime, left, monkeypatch, capsys):
    """Which rows run, without running them: the SKIP line names the missing module and how to
    install it, and the other runtime's rows stay."""
    require("onnxruntime", "openvino")
    snippet = load_snippet(NAME)
    monkeypatch.setitem(sys.modules, runtime, None)  # `import runtime` now raises ModuleNotFoundError
    planned = [name for name, _, _ in snippet.rows_to_run(["onnxruntime", "openvino"])]
    assert planned == ["PyTorch eager", *left]
    printed = capsys.readouterr().out
    assert re.search(rf"^SKIP: {runtime} is not installed, no {runtime} rows; pip install .*{runtime}==", printed, re.M)


def test_runtime_missing_alone_leaves_pytorch_only(monkeypatch):
    """The whole program with its one runtime missing: a SKIP line, PyTorch's row, exit 0."""
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    result = run_here(NAME, "--quick", "--runtime", "onnxruntime", "--batch", "2")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("SKIP: onnxruntime is not installed") == 1
    assert list(rows(result.stdout)) == ["PyTorch eager"], result.stdout


@pytest.mark.parametrize("args,message", [(("--batch", "1"), "between 2 and 256"), (("--batch", "257"), "between 2 and 256"),
                                          (("--runtime", "tvm"), "invalid choice: 'tvm'")])
def test_bad_arguments_exit_2(args, message):
    result = run_here(NAME, *args)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr, result.stderr


def test_the_benchmark_measures_the_runtimes_beside_pytorch():
    """measure_steps with the case's peers: the same model, inputs and parity check as the
    PyTorch steps (fp32 runtimes agree with fp32 eager), and a build time recorded."""
    require("onnxruntime", "openvino")
    case = load_snippet("case_study_inference")
    peers = {name: peer for name, peer in case_study.peers(bf16=False).items() if "fp32" in name}
    assert list(peers) == ["ONNX Runtime fp32", "OpenVINO fp32"]
    measured = case.measure_steps(["batching"], quick=True, batch=2, size=32, log=lambda line: None, peers=peers)
    assert [r["step"] for r in measured] == ["batching", "ONNX Runtime fp32", "OpenVINO fp32"]
    for row in measured[1:]:
        assert row["run"] and row["precision"] == "fp32" and row["batch"] == 2 and row["items_per_s"] > 0
        assert row["top1_agreement_pct"] == 100.0 and row["max_abs_logit_diff"] < 1e-3
        assert row["compile_s"] > 0 and 0 < row["p50_s"] <= row["p99_s"]


def test_a_missing_runtime_leaves_its_rows_out_with_a_skip_line(monkeypatch, capsys):
    """The benchmark's side: no OpenVINO rows and a SKIP line on stderr, the other runtime kept."""
    require("onnxruntime")
    monkeypatch.setitem(sys.modules, "openvino", None)
    found = case_study.peers(bf16=True)
    assert list(found) == ["ONNX Runtime fp32", "ONNX Runtime int8"]
    assert "SKIP: case_study row 'OpenVINO fp32': openvino is not installed" in capsys.readouterr().err


@pytest.fixture(scope="module")
def small_int8():
    """ResNet-50 at 32x32, its int8 rows built as the benchmark builds them: PyTorch's step 7,
    ONNX Runtime's and OpenVINO's."""
    require("onnxruntime", "openvino")
    case = load_snippet("case_study_inference")
    snippet = load_snippet(NAME)
    model = case.make_resnet50(32)
    calibration = case.make_images(16, 32, seed=4)
    built = {"PyTorch": case.int8_compiled(model, calibration),
             "ONNX Runtime": snippet.onnxruntime_predictor(model, calibration, "int8"),
             "OpenVINO": snippet.openvino_predictor(model, calibration, "int8")}
    return snippet, built, case.make_images(1, 32, seed=2)


@pytest.mark.parametrize("engine", ["PyTorch", "ONNX Runtime", "OpenVINO"])
def test_a_profiled_call_splits_into_parts_that_add_up(engine, small_int8):
    """What the page's profile table shows: each batch-1 call split by the engine's own profiler
    into convolutions, other operators and the time around them, which add up to the call; the
    convolutions were seen (by name: QLinearConv, onednn::qconv..., Convolution) and take time."""
    snippet, built, image = small_int8
    predict = built[engine]
    found = predict.profile(image, calls=5) if hasattr(predict, "profile") else snippet.profile_pytorch(predict, image, 5)
    extra = [snippet.KERNELS] if engine == "PyTorch" else []  # oneDNN's log: PyTorch's own kernels only
    assert list(found) == [*snippet.PARTS, *extra] and all(len(v) == 5 for v in found.values())
    for i in range(5):
        parts = [found[p][i] for p in ("convolutions", "other operators", "around the operators")]
        assert abs(sum(parts) - found["whole call"][i]) < 1e-9
    if engine == "OpenVINO" and min(found["around the operators"]) < 0:
        # Seen on a Xeon with AMX and in CI (2026-12-05): OpenVINO's executed nodes' real times added
        # up to more than the infer() call around them, so "around the operators" came out negative
        # (seen in a reference recording too). ov::ProfilingInfo's documentation says why: with nodes
        # run in parallel their times can add up to more than the inference, so subtraction cannot
        # give OpenVINO's time around the operators (the page says so). A known limit of the method,
        # shown as an expected failure, not a pass.
        pytest.xfail("OpenVINO's node times exceeded the call: around the operators (ms) "
                     + ", ".join(f"{v * 1e3:.2f}" for v in found["around the operators"]))
    for i in range(5):
        assert 0 < found["convolutions"][i] < found["whole call"][i] and found["other operators"][i] >= 0
        # oneDNN's kernels, call by call, inside the convolution operators that ran them
        assert not extra or 0 < found[snippet.KERNELS][i] < found["convolutions"][i], (i, found)


def test_onednn_kernels_gives_the_standard_output_back(capfd):
    """The log goes to a file while the block runs; a line printed before and after it reaches
    the standard output as usual, and oneDNN's lines do not."""
    import torch

    snippet = load_snippet(NAME)
    conv, image, calls = torch.nn.Conv2d(3, 8, 3).eval(), torch.randn(1, 3, 16, 16), []
    print("before", flush=True)
    with torch.no_grad(), snippet.onednn_kernels(calls) as call_ends:
        for _ in range(3):
            conv(image)
            call_ends()
    print("after", flush=True)
    out = capfd.readouterr().out
    assert out == "before\nafter\n" and len(calls) == 3 and all(c >= 0 for c in calls)


def test_openvino_int8_runs_int8_convolutions(small_int8, monkeypatch):
    """NNCF's model runs its convolutions as int8 kernels: OpenVINO's counters name the
    precision each executed convolution ran in. The model is the snippet's own int8 predictor's,
    as its --profile option compiles it (PERF_COUNT on), caught where it is handed to
    profile_openvino."""
    import openvino

    _, built, image = small_int8
    predict, executed = built["OpenVINO"], []

    def counters(compiled, image, calls):
        request = compiled.create_infer_request()
        request.infer(image.contiguous().numpy())
        executed.extend((n.node_name, n.exec_type) for n in request.profiling_info if n.node_type == "Convolution"
                        and n.status == openvino.ProfilingInfo.Status.EXECUTED)

    monkeypatch.setitem(predict.profile.__globals__, "profile_openvino", counters)
    predict.profile(image, calls=1)
    assert len(executed) >= 20 and all("I8" in kind.upper() or "U8" in kind.upper() for _, kind in executed), executed


def test_int8_model_runs_every_convolution_as_qlinearconv(tmp_path):
    """What quantize_int8's docstring and the page say: with uint8 activations ONNX Runtime's
    optimiser fuses every Quantize/DequantizeLinear + Conv group of ResNet-50 into QLinearConv;
    with quantize_static's default, int8 activations, many stay fp32 Conv."""
    require("onnxruntime")
    import collections

    import onnx
    import onnxruntime
    import torch
    import torchvision
    from onnxruntime.quantization import CalibrationDataReader, quantize_static

    snippet = load_snippet(NAME)
    torch.manual_seed(0)
    model = torchvision.models.resnet50(weights=None).eval()
    calibration = torch.randn(8, 3, 32, 32, generator=torch.Generator().manual_seed(2))
    exported = snippet.export_onnx(model, calibration, tmp_path / "m.onnx")

    def optimised_ops(path) -> collections.Counter:
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.optimized_model_filepath = str(tmp_path / "optimised.onnx")
        onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        return collections.Counter(node.op_type for node in onnx.load(options.optimized_model_filepath).graph.node)

    ops = optimised_ops(snippet.quantize_int8(exported, calibration))
    assert ops["QLinearConv"] == 53 and ops["Conv"] == 0, ops  # ResNet-50 has 53 convolutions
    class Images(CalibrationDataReader):
        batches = iter([{"x": calibration.numpy()}])

        def get_next(self):
            return next(self.batches, None)

    reader = Images()
    quantize_static(str(exported.with_suffix(".prep.onnx")), str(tmp_path / "default.onnx"), reader, per_channel=True)
    ops = optimised_ops(tmp_path / "default.onnx")
    assert ops["Conv"] >= 10 and ops["QLinearConv"] < 53, ops  # the defaults: int8 activations


def test_openvino_runs_bf16_unless_told_fp32():
    """What the page warns of: on a CPU with native bf16, OpenVINO's CPU plugin defaults to bf16
    inference precision, so a model left at its defaults no longer gives fp32 logits."""
    require("openvino")
    import openvino
    import torch

    if os.environ.get("ONEDNN_MAX_CPU_ISA"):
        pytest.skip("OpenVINO's defaults follow the real CPU, not the ISA cap of an emulated one")
    core = openvino.Core()
    native = "BF16" in core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")
    assert core.get_property("CPU", "INFERENCE_PRECISION_HINT") == (openvino.Type.bf16 if native else openvino.Type.f32)
    model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10)).eval()
    x = torch.randn(4, 256, generator=torch.Generator().manual_seed(0))
    converted = openvino.convert_model(torch.export.export(model, (x,)))
    expected = model(x).detach()
    diff = {hint: float((torch.from_numpy(core.compile_model(converted, "CPU", config)(x.numpy())[0]) - expected).abs().max())
            for hint, config in (("default", {}), ("f32", {"INFERENCE_PRECISION_HINT": "f32"}))}
    assert diff["f32"] < 1e-4
    assert (diff["default"] > 1e-3) == native, diff


@pytest.mark.parametrize("isa,native", [("AVX2", False), ("AVX", False), ("AVX512_CORE_VNNI", False),
                                        ("AVX512_CORE_BF16", True), ("AVX512_CORE_AMX", True), ("", True)])
def test_an_isa_cap_turns_openvino_bf16_off(isa, native, monkeypatch):
    """Under ONEDNN_MAX_CPU_ISA below bf16 (the emulated AVX2 CPU of the isolated run) OpenVINO
    still reports BF16 but has no bf16 kernels: the snippet must not run its bf16 row there."""
    require("openvino")
    import openvino

    if "BF16" not in openvino.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES"):
        pytest.skip("this CPU has no native bf16 to turn off")
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", isa)
    assert load_snippet(NAME).openvino_native_bf16() is native


def test_profile_option_prints_each_rows_split():
    """--profile, as the page tells readers to run it: one line per row, the medians of its
    convolutions, other operators and time around them, none below zero and together not above
    the median profiled call (each call's parts add up exactly:
    test_a_profiled_call_splits_into_parts_that_add_up), and for PyTorch the part of its
    convolutions in oneDNN's kernels."""
    require("openvino")
    result = run_here(NAME, "--quick", "--runtime", "openvino", "--batch", "2", "--profile")
    assert result.returncode == 0, result.stderr
    section = result.stdout.split("under each one's profiler", 1)[1].splitlines()[2:]
    split = {line[:20].strip(): line[20:].split() for line in section if line.strip()}
    assert list(split)[:2] == ["PyTorch eager", "OpenVINO fp32"], result.stdout
    overlapping = []
    for name, cells in split.items():
        conv, other, around, whole = map(float, cells[:4])
        assert conv > 0 and other >= 0, (name, cells)
        # oneDNN's kernels: PyTorch's, within its convolutions; a dash for a runtime
        assert (0 <= float(cells[4]) <= conv) if name.startswith("PyTorch") else cells[4] == "-", (name, cells)
        if name.startswith("OpenVINO") and around < 0:
            # OpenVINO's node times added up to more than the call (the documented limit that
            # test_a_profiled_call_splits_into_parts_that_add_up xfails on): its calls' node sums then
            # vary so much that the medians of the parts are far from the median call (OpenVINO bf16 on
            # a Xeon with AMX, in a full suite: 11.73 + 0.74 - 3.36 ms against 7.49)
            overlapping.append((name, conv, other, around, whole))
            continue
        # an operator counted twice (one nested in another) would put the operators above the call
        assert around >= 0, (name, cells)
        # the medians of the parts need not add up to the median call (the median of sums is not the
        # sum of medians). Time taken by another process lands in one part of some calls and another
        # part of others, and raises the median call more than any part's median: on a Xeon with AMX,
        # the other worker busy, PyTorch eager's parts came to two thirds of its median call
        # (33.9 + 4.41 + 3.33 ms against 61.42). Well above it they would count something twice; the
        # two were 12% apart for OpenVINO int8 once in a full suite on two busy cores, so 15%
        assert conv + other + around <= 1.15 * whole, (name, conv, other, around, whole)
    if overlapping:
        pytest.xfail(f"OpenVINO's node times exceeded the call, every other row checked: {overlapping}")
