"""ResNet-50 under ONNX Runtime and OpenVINO, beside PyTorch eager on the same inputs: exported
with torch.onnx.export(dynamo=True) and run by ONNX Runtime's CPU execution provider in fp32 and
static int8; converted from torch.export by OpenVINO and compiled for the CPU device with its
latency and throughput hints, in fp32, static int8 (calibrated by NNCF) and, where the CPU has it
natively, bf16.

python case_study_resnet50_runtimes.py                          # 224x224: about a minute on 2 cores
python case_study_resnet50_runtimes.py --quick                  # 64x64 images, short timings
python case_study_resnet50_runtimes.py --runtime onnxruntime    # one runtime only
Needs: pip install onnx==1.23.2 onnxscript==0.7.2 onnxruntime==1.32.0 openvino==2026.4.1 nncf==3.4.0
"""
import argparse
import contextlib
import importlib
import io
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from torch.utils.benchmark import Timer

# {runtime: (the modules it needs, how to install them)}; torch.onnx.export needs onnx and onnxscript
RUNTIMES = {"onnxruntime": (("onnx", "onnxscript", "onnxruntime"),
                            "pip install onnx==1.23.2 onnxscript==0.7.2 onnxruntime==1.32.0"),
            "openvino": (("openvino", "nncf"), "pip install openvino==2026.4.1 nncf==3.4.0")}


def missing_module(runtime: str) -> str | None:
    """The first module the runtime needs that does not import, or None."""
    for module in RUNTIMES[runtime][0]:
        try:
            importlib.import_module(module)
        except ImportError:
            return module
    return None


# --8<-- [start:export]
def export_onnx(model: torch.nn.Module, example: torch.Tensor, path: Path) -> Path:
    """torch.onnx.export with dynamo=True (the exporter PyTorch recommends: torch.export, then
    ONNX Script), the batch size left dynamic. Traced at batch 2: at batch 1 export fixes it."""
    batch = torch.export.Dim("batch", min=1, max=1024)
    torch.onnx.export(model, (torch.cat([example, example])[:2],), str(path), dynamo=True,
                      dynamic_shapes=({0: batch},), verbose=False)
    return path
# --8<-- [end:export]

# --8<-- [start:int8]
def quantize_int8(path: Path, calibration: torch.Tensor) -> Path:
    """Static int8 (QDQ format, per-channel weights), the ranges read from calibration images.
    Activations uint8 and weights int8, the pairing ONNX Runtime's x86 kernels are built for: with
    the default (int8 activations) its optimiser leaves many convolutions as fp32 Conv between
    Quantize/DequantizeLinear instead of fusing them into QLinearConv. Without VNNI the u8s8
    kernels can saturate: reduce_range keeps 7 bits there."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    name = onnx.load(str(path), load_external_data=False).graph.input[0].name

    class Images(CalibrationDataReader):
        def __init__(self):
            self.batches = iter([{name: chunk.numpy()} for chunk in calibration.split(8)])

        def get_next(self):
            return next(self.batches, None)

    prepared, quantized = path.with_suffix(".prep.onnx"), path.with_suffix(".int8.onnx")
    quant_pre_process(str(path), str(prepared))  # shape inference and graph clean-up first, as the docs advise
    cpuinfo = Path("/proc/cpuinfo")
    vnni = cpuinfo.exists() and bool({"avx512_vnni", "avx_vnni", "amx_int8"} & set(cpuinfo.read_text().split()))
    quantize_static(str(prepared), str(quantized), Images(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, reduce_range=not vnni)
    return quantized
# --8<-- [end:int8]

# --8<-- [start:onnxruntime]
def onnxruntime_predictor(model: torch.nn.Module, calibration: torch.Tensor, precision: str = "fp32",
                          threads: int | None = None):
    """The model as ONNX Runtime runs it: the CPU execution provider, every graph optimisation
    on, intra-op threads set to the cores torch uses (not left to ONNX Runtime's own count),
    and no inter-op pool. Returns predict(batch) -> logits, tensors in and out. The .onnx
    files are written to a temporary folder, removed once the session has read them."""
    import onnx
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads or torch.get_num_threads()
    options.inter_op_num_threads = 1
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    with tempfile.TemporaryDirectory(prefix="resnet50-onnx-") as folder:
        path = export_onnx(model, calibration, Path(folder) / "resnet50.onnx")
        if precision == "int8":
            path = quantize_int8(path, calibration)
        data = onnx.load(str(path)).SerializeToString()  # weights inlined; kept for profile_onnxruntime
    session = onnxruntime.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name

    def predict(batch: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(session.run(None, {name: batch.contiguous().numpy()})[0])
    predict.profile = lambda image, calls=20: profile_onnxruntime(data, options, image, calls)
    return predict
# --8<-- [end:onnxruntime]

# --8<-- [start:openvino]
def quantize_openvino(converted, calibration: torch.Tensor):
    """Static int8 by NNCF, OpenVINO's quantiser: the activation ranges read from the same
    calibration images, one at a time; per-channel int8 weights, fake-quantize nodes that the CPU
    plugin fuses into int8 convolutions; NNCF's default preset (symmetric weights and
    activations)."""
    import nncf

    images = nncf.Dataset([image.unsqueeze(0).numpy() for image in calibration])
    with contextlib.redirect_stdout(io.StringIO()):  # its progress bars, drawn on stdout
        return nncf.quantize(converted, images, subset_size=len(calibration))


def openvino_predictor(model: torch.nn.Module, example: torch.Tensor, precision: str = "fp32",
                       threads: int | None = None):
    """torch.export with a dynamic batch size, then openvino.convert_model reads the exported
    program directly (no ONNX file; given the module itself it would trace it with the
    deprecated torch.jit.trace); for int8, NNCF calibrates it on `example` (the calibration
    images). Then the CPU plugin compiles it twice: with the LATENCY hint (one stream on
    all threads) for single images, and with the THROUGHPUT hint (several streams, each taking
    a slice of the batch as its own request) for batches. The precision is set explicitly: on a
    CPU with native bf16 OpenVINO's default is bf16, not the fp32 the model was written in (for
    int8, what is not quantised runs in fp32, as in the other runtimes' int8)."""
    import openvino

    batch = torch.export.Dim("batch", min=1, max=1024)
    pair = torch.cat([example, example])[:2]  # traced at batch 2: at batch 1 export fixes the size
    converted = openvino.convert_model(torch.export.export(model.eval(), (pair,), dynamic_shapes=({0: batch},)))
    if precision == "int8":
        converted = quantize_openvino(converted, example)
    config = {"INFERENCE_PRECISION_HINT": {"fp32": "f32", "int8": "f32", "bf16": "bf16"}[precision],
              "INFERENCE_NUM_THREADS": threads or torch.get_num_threads()}  # the cores torch uses, as for ONNX Runtime
    core = openvino.Core()
    latency = core.compile_model(converted, "CPU", {**config, "PERFORMANCE_HINT": "LATENCY"})
    throughput = core.compile_model(converted, "CPU", {**config, "PERFORMANCE_HINT": "THROUGHPUT"})
    profiled = lambda: core.compile_model(converted, "CPU", {**config, "PERFORMANCE_HINT": "LATENCY", "PERF_COUNT": True})
    requests = openvino.AsyncInferQueue(throughput, throughput.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS"))
    single = latency.create_infer_request()
    answers = {}
    requests.set_callback(lambda request, slot: answers.__setitem__(slot, request.get_output_tensor(0).data.copy()))

    def predict(batch: torch.Tensor) -> torch.Tensor:
        if len(batch) == 1:
            return torch.from_numpy(single.infer(batch.contiguous().numpy())[0].copy())
        slices = np.array_split(batch.contiguous().numpy(), min(len(requests), len(batch)))
        answers.clear()
        for slot, part in enumerate(slices):
            requests.start_async(part, userdata=slot)
        requests.wait_all()
        return torch.from_numpy(np.concatenate([answers[slot] for slot in range(len(slices))]))
    predict.profile = lambda image, calls=20: profile_openvino(profiled(), image, calls)
    return predict
# --8<-- [end:openvino]


# --8<-- [start:profile]
PARTS = ("convolutions", "other operators", "around the operators", "whole call")


def split_call(whole: float, operators: list[tuple[str, float]]) -> dict[str, float]:
    """One call's seconds by PARTS: its operators' time, convolutions (by name) and the rest,
    and what the call spent around them (the framework's own work per call)."""
    convolutions = sum(seconds for name, seconds in operators if "conv" in name.lower())
    busy = sum(seconds for _, seconds in operators)
    return {"convolutions": convolutions, "other operators": busy - convolutions,
            "around the operators": whole - busy, "whole call": whole}


def by_part(calls: list[dict[str, float]]) -> dict[str, list[float]]:
    return {part: [call[part] for call in calls] for part in PARTS}


KERNELS = "oneDNN convolution kernels"  # PyTorch's profile only: see onednn_kernels


def profile_pytorch(predict, image: torch.Tensor, calls: int = 20) -> dict[str, list[float]]:
    """Where PyTorch's batch-1 calls go, by torch.profiler: the outermost operators (aten::,
    quantized::, onednn::, with what they call), and around them Python, Dynamo's guards, the
    compiled graph's wrapper and Inductor's own generated kernels, which the profiler does not
    see as operators. Profiled twice, the first discarded (a compiled model may recompile once).
    KERNELS: the part of the convolutions spent inside oneDNN's own kernels, by oneDNN's log of
    the same calls; the rest of the convolutions' time is PyTorch's work around each kernel."""
    for _ in range(2):
        kernels = []
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof, \
                onednn_kernels(kernels) as call_ends:
            for _ in range(calls):
                with torch.profiler.record_function("call"):
                    predict(image)
                call_ends()
    events = prof.events()
    found = {id(e): [] for e in events if e.name == "call"}
    for event in [e for e in events if "::" in e.name]:  # operators are namespaced
        parent = event.cpu_parent
        while parent is not None and id(parent) not in found and "::" not in parent.name:
            parent = parent.cpu_parent
        if parent is not None and id(parent) in found:  # outermost: no operator between it and the call
            found[id(parent)].append((event.name, event.cpu_time_total / 1e6))
    parts = by_part([split_call(e.cpu_time_total / 1e6, found[id(e)]) for e in events if e.name == "call"])
    return {**parts, KERNELS: kernels}


@contextlib.contextmanager
def onednn_kernels(calls: list[float]):
    """oneDNN's verbose log while the block runs: one line per kernel it executes, with its time in
    ms. oneDNN writes it to the process's standard output (file descriptor 1), which goes to a
    temporary file meanwhile (Linux and macOS). The block calls the function it gets after each
    call; at the end calls holds each call's seconds in oneDNN's convolution kernels."""
    import ctypes
    import sys

    libc, ends = ctypes.CDLL(None), []

    def call_ends() -> None:
        libc.fflush(None)  # the C library's buffer, then where the file stands
        ends.append(os.lseek(1, 0, os.SEEK_CUR))

    with tempfile.TemporaryFile() as log:
        sys.stdout.flush()
        saved = os.dup(1)
        os.dup2(log.fileno(), 1)
        try:
            with torch.backends.mkldnn.verbose(torch.backends.mkldnn.VERBOSE_ON):
                yield call_ends
        finally:
            libc.fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
        log.seek(0)
        text = log.read()
    for start, end in zip([0, *ends], ends):
        fields = [line.split(b",") for line in text[start:end].splitlines()]
        calls.append(sum(float(f[-1]) for f in fields  # onednn_verbose,...,exec,cpu,convolution,...,ms
                         if f[0] == b"onednn_verbose" and b"exec" in f and b"convolution" in f) / 1e3)


def profile_onnxruntime(data: bytes, options, image: torch.Tensor, calls: int = 20) -> dict[str, list[float]]:
    """The same for ONNX Runtime: a second session on the same model with its profiler on;
    each node's kernel time (QLinearConv, QLinearAdd, ...) per run, and around them the rest
    of session.run as Python times it."""
    import json
    import onnxruntime

    with tempfile.TemporaryDirectory(prefix="onnxruntime-profile-") as folder:
        options.enable_profiling, options.profile_file_prefix = True, str(Path(folder) / "profile")
        try:
            session = onnxruntime.InferenceSession(data, options, providers=["CPUExecutionProvider"])
        finally:
            options.enable_profiling = False
        feed = {session.get_inputs()[0].name: image.contiguous().numpy()}
        session.run(None, feed)  # warm-up
        walls = []
        for _ in range(calls):
            start = time.perf_counter()
            session.run(None, feed)
            walls.append(time.perf_counter() - start)
        events = json.loads(Path(session.end_profiling()).read_text())
    runs = sorted((e["ts"], e["ts"] + e["dur"]) for e in events if e.get("cat") == "Session" and e["name"] == "model_run")[-calls:]
    nodes = [(e["ts"], e["args"]["op_name"], e["dur"] / 1e6) for e in events
             if e.get("cat") == "Node" and e["name"].endswith("_kernel_time")]
    return by_part([split_call(wall, [(op, s) for ts, op, s in nodes if first <= ts <= last])
                    for wall, (first, last) in zip(walls, runs)])


def profile_openvino(compiled, image: torch.Tensor, calls: int = 20) -> dict[str, list[float]]:
    """The same for OpenVINO: the model compiled with PERF_COUNT on (LATENCY hint); each executed
    node's real time per inference (its type: Convolution, ...), and around them the rest of
    infer() as Python times it."""
    import openvino

    executed = openvino.ProfilingInfo.Status.EXECUTED  # a node fused into another is NOT_EXECUTED
    request = compiled.create_infer_request()
    data = image.contiguous().numpy()
    request.infer(data)  # warm-up
    found = []
    for _ in range(calls):
        start = time.perf_counter()
        request.infer(data)
        wall = time.perf_counter() - start
        found.append(split_call(wall, [(node.node_type, node.real_time.total_seconds())
                                       for node in request.profiling_info if node.status == executed]))
    return by_part(found)
# --8<-- [end:profile]


def openvino_native_bf16() -> bool:
    """What OpenVINO's CPU plugin reports it can run natively (AMX or AVX512_BF16), unless
    ONEDNN_MAX_CPU_ISA caps oneDNN below AVX-512 (as when emulating an AVX2 CPU): the plugin
    still reports BF16 then, but its capped oneDNN has no bf16 kernels to run."""
    import openvino
    isa = os.environ.get("ONEDNN_MAX_CPU_ISA", "").upper()
    capped = bool(isa) and not any(level in isa for level in ("BF16", "FP16", "AMX", "AVX10", "ALL", "DEFAULT"))
    return not capped and "BF16" in openvino.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")


def per_call_s(predict, batch: torch.Tensor, seconds: float) -> float:
    """Median seconds per call (torch.utils.benchmark's blocks; its first call is the warm-up)."""
    return Timer("predict(batch)", globals={"predict": predict, "batch": batch},
                 num_threads=torch.get_num_threads()).blocked_autorange(min_run_time=seconds).median


def rows_to_run(runtimes: list[str]) -> list[tuple[str, object, str | None]]:
    """(row name, predictor or None for PyTorch eager, precision or the reason it is not run);
    prints each runtime's version, or a SKIP line where it is not installed."""
    rows = [("PyTorch eager", None, None)]
    for runtime in runtimes:
        module = missing_module(runtime)
        if module:
            print(f"SKIP: {module} is not installed, no {runtime} rows; {RUNTIMES[runtime][1]}")
            continue
        print(f"{runtime} {importlib.import_module(runtime).__version__.split('-')[0]}")
        if runtime == "onnxruntime":
            rows += [("ONNX Runtime fp32", onnxruntime_predictor, "fp32"), ("ONNX Runtime int8", onnxruntime_predictor, "int8")]
        else:
            rows += [("OpenVINO fp32", openvino_predictor, "fp32"), ("OpenVINO int8", openvino_predictor, "int8"),
                     ("OpenVINO bf16", openvino_predictor, "bf16" if openvino_native_bf16() else "not run: no native bf16")]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="64x64 images, short timings")
    parser.add_argument("--batch", type=int, default=8, help="images per batch for throughput, 2 to 256 (default 8)")
    parser.add_argument("--runtime", choices=[*RUNTIMES, "all"], default="all", help="which runtime(s) to run (default all)")
    parser.add_argument("--profile", action="store_true",
                        help="also show where a batch-1 call's time goes in each row, by each one's profiler")
    args = parser.parse_args()
    if not 2 <= args.batch <= 256:
        parser.error(f"--batch must be between 2 and 256 (batch 1 is the latency column), not {args.batch}")
    import torchvision

    size, seconds = (64, 0.2) if args.quick else (224, 2.0)
    torch.manual_seed(0)
    model = torchvision.models.resnet50(weights=None).eval()  # your model here; random weights: nothing downloaded
    images = torch.randn(args.batch, 3, size, size, generator=torch.Generator().manual_seed(1))
    calibration = torch.randn(16, 3, size, size, generator=torch.Generator().manual_seed(2))  # int8's ranges
    print(f"torch {torch.__version__.split('+')[0]}, {torch.get_num_threads()} thread(s), "
          f"ResNet-50 at {size}x{size}, batch {args.batch}")
    rows = rows_to_run(list(RUNTIMES) if args.runtime == "all" else [args.runtime])

    def eager(batch: torch.Tensor) -> torch.Tensor:
        with torch.inference_mode():
            return model(batch)

    expected = eager(images)
    profiles = {}
    print(f"{'runtime':20}{'build s':>8}{'images/s':>10}{'batch-1 ms':>11}{'top-1 agree':>12}{'max |diff|':>11}")
    for name, build, precision in rows:
        if precision and precision.startswith("not run"):  # the same rows on every CPU
            print(f"{name:20}{precision}")
            continue
        start = time.perf_counter()
        predict = build(model, calibration, precision) if build else eager
        built = time.perf_counter() - start
        logits = predict(images)
        agree = (logits.argmax(1) == expected.argmax(1)).double().mean().item()
        print(f"{name:20}{built:8.1f}{args.batch / per_call_s(predict, images, seconds):10.1f}"
              f"{per_call_s(predict, images[:1], seconds) * 1e3:11.1f}{agree:12.0%}"
              f"{(logits - expected).abs().max().item():11.1e}")
        profiles[name] = predict
    if args.profile:
        print(f"\nbatch 1, ms per call under each one's profiler (median of 20 calls)\n{'runtime':20}"
              + "".join(f"{part:>22}" for part in PARTS) + f"{KERNELS:>28}")
        for name, predict in profiles.items():
            found = predict.profile(images[:1]) if hasattr(predict, "profile") else profile_pytorch(predict, images[:1])
            kernels = f"{np.median(found[KERNELS]) * 1e3:28.2f}" if KERNELS in found else f"{'-':>28}"  # PyTorch's
            print(f"{name:20}" + "".join(f"{np.median(found[part]) * 1e3:22.2f}" for part in PARTS) + kernels)


if __name__ == "__main__":
    main()
