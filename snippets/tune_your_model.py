"""Tune your model: the guide's steps applied to your own model on this CPU, each measured against
the configuration before it (interleaved rounds), with parity against fp32 eager and a verdict,
then the code of the fastest configuration that kept parity.

python tune_your_model.py --model resnet18                       # a torchvision model (random weights)
python tune_your_model.py --model my_models.py:build             # build() returns (model, example inputs)
python tune_your_model.py --model my_models.py:build --input-shape 8,3,224,224   # build() returns a model
python tune_your_model.py --model mypackage.models:build --quick --json report.json
python tune_your_model.py --model my_models.py:build --train     # a training step instead
"""
import argparse
import contextlib
import copy
import importlib
import importlib.util
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn as nn
from torch.utils.benchmark import Timer

INFERENCE_STEPS = ("threads", "inference_mode", "batch_size", "channels_last", "compile", "bf16", "int8")
RESWEPT = ("channels_last", "compile", "bf16", "int8")  # each picks its own batch size from the sweep
RUNTIMES = ("onnxruntime", "openvino")  # side rows: compared with the final PyTorch configuration
TRAINING_STEPS = ("threads", "channels_last", "bf16", "compile")
# The verdict rule of the guide's Benchmark page ("When a difference counts"): a ratio's interval is
# the range of the per-round ratios (the rows were timed in the same interleaved rounds); paid only
# when all of it is above 1 + EVEN, lost only when all of it is below 1 - EVEN, else even.
EVEN = 0.05
ONE_SAMPLE = 0.10  # one round has no spread of its own: each side is given +-5%
FULL = {"rounds": 5, "seconds": 0.5, "latency_calls": 10, "train_steps": 20, "sweep": (1, 8, 32, 64)}
QUICK = {"rounds": 3, "seconds": 0.05, "latency_calls": 3, "train_steps": 4, "sweep": (1, 8, 32)}


def fail(message: str) -> None:
    """A clear message and a non-zero exit, for whatever the user gave that cannot work."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0][:160] if text else ''}".rstrip(": ")


# --8<-- [start:load]
def load_model(spec: str, input_shape: list[int] | None):
    """(model, inputs, targets or None, a title) from --model: 'file.py:function' or
    'package.module:function' (the function returns a model, (model, inputs) or (model, inputs,
    targets); inputs a tensor or a tuple of tensors, batched along dimension 0), or a torchvision
    model name (random weights: nothing is downloaded)."""
    if ":" in spec:
        where, name = spec.rsplit(":", 1)
        if where.endswith(".py") or os.sep in where:
            path = Path(where)
            beside = Path(__file__).resolve().parent / where  # a file downloaded next to this program
            path = path if path.is_file() or not beside.is_file() else beside
            if not path.is_file():
                fail(f"--model {spec}: no such file {where} (looked in {os.getcwd()} and beside this program)")
            sys.path.insert(0, str(path.resolve().parent))  # its own imports, as `python file.py` would find them
            module_spec = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(module_spec)
            try:
                module_spec.loader.exec_module(module)
            except Exception as error:  # noqa: BLE001  the user's file: say what it raised
                fail(f"--model {spec}: importing {where} raised {one_line(error)}")
        else:
            try:
                module = importlib.import_module(where)
            except ImportError as error:
                fail(f"--model {spec}: cannot import {where} ({one_line(error)}); run from the folder that holds it")
        build = getattr(module, name, None)
        if not callable(build):
            found = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_"))
            fail(f"--model {spec}: {where} has no function {name}; it has: {', '.join(found) or 'none'}")
        try:
            made = build()
        except Exception as error:  # noqa: BLE001
            fail(f"--model {spec}: {name}() raised {one_line(error)}")
        title = spec
    else:
        try:
            import torchvision
        except ImportError:
            fail(f"--model {spec}: a torchvision model name needs torchvision (pip install torchvision), "
                 f"or pass file.py:function")
        if spec not in torchvision.models.list_models():
            fail(f"--model {spec}: no torchvision model of that name, and not file.py:function "
                 f"(torchvision has e.g. {', '.join(torchvision.models.list_models()[:6])}, ...)")
        torch.manual_seed(0)
        made = torchvision.models.get_model(spec, weights=None)
        title = f"{spec} (torchvision, random weights)"
        input_shape = input_shape or [16, 3, 224, 224]
    model, inputs, targets = (made, None, None) if isinstance(made, nn.Module) else (tuple(made) + (None, None))[:3]
    if not isinstance(model, nn.Module):
        fail(f"--model {spec}: expected a torch.nn.Module (or (model, inputs)), got {type(model).__name__}")
    if inputs is None:
        if not input_shape:
            fail(f"--model {spec} returned a model and no inputs: pass --input-shape, e.g. 8,3,224,224")
        inputs = torch.randn(*input_shape, generator=torch.Generator().manual_seed(1))
    inputs = (inputs,) if isinstance(inputs, torch.Tensor) else tuple(inputs)
    if not inputs or not all(isinstance(t, torch.Tensor) and t.dim() >= 1 for t in inputs):
        fail(f"--model {spec}: the inputs must be a tensor or a tuple of tensors, batched along dimension 0")
    if len({len(t) for t in inputs}) != 1:
        fail(f"--model {spec}: the inputs' first dimensions differ ({[len(t) for t in inputs]}): one batch size")
    model.eval()
    try:
        with torch.no_grad():
            output = first_tensor(model(*inputs))
    except Exception as error:  # noqa: BLE001  a shape that does not fit, most often
        fail(f"--model {spec}: the model fails on inputs of shape "
             f"{', '.join(str(list(t.shape)) for t in inputs)}: {one_line(error)}")
    if output is None:
        fail(f"--model {spec}: the model's output holds no tensor to compare")
    return model, inputs, targets, title
# --8<-- [end:load]


def first_tensor(output):
    """The tensor to compare: the output, its first tensor (tuple, list) or its 'logits' (dict)."""
    if isinstance(output, torch.Tensor):
        return output
    if isinstance(output, dict):
        return first_tensor(output.get("logits", next(iter(output.values()), None)))
    if isinstance(output, (tuple, list)):
        return next((t for t in map(first_tensor, output) if t is not None), None)
    return None


def batch_of(inputs: tuple, n: int) -> tuple:
    """The inputs repeated (or cut) to n items along dimension 0."""
    return tuple(t.repeat(math.ceil(n / len(t)), *[1] * (t.dim() - 1))[:n] for t in inputs)


# --8<-- [start:cpu]
def cpu_flags() -> set[str]:
    try:
        return set(Path("/proc/cpuinfo").read_text().split())
    except OSError:
        return set()


def physical_cores() -> int:
    """Cores this process may use, one per physical core (SMT siblings counted once): the guide's
    thread budget for one process. Linux reads /proc/cpuinfo; elsewhere the logical CPUs."""
    usable = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set(range(os.cpu_count() or 1))
    try:
        blocks = Path("/proc/cpuinfo").read_text().strip().split("\n\n")
    except OSError:
        return len(usable)
    cores = set()
    for block in blocks:
        fields = dict(line.split(":", 1) for line in block.splitlines() if ":" in line)
        fields = {k.strip(): v.strip() for k, v in fields.items()}
        if int(fields.get("processor", -1)) in usable:
            cores.add((fields.get("physical id"), fields.get("core id", fields.get("processor"))))
    return len(cores) or len(usable)


def capped() -> bool:
    """torch dispatching below AVX-512 (ATEN_CPU_CAPABILITY=avx2 emulates an AVX2 CPU)."""
    return torch.backends.cpu.get_cpu_capability() in ("DEFAULT", "AVX2")


def native_bf16() -> bool:
    """bf16 instructions oneDNN uses: AMX or AVX512_BF16 (x86), BF16 (Arm); elsewhere bf16 is
    emulated and slower than fp32."""
    if platform.machine().lower() in ("aarch64", "arm64"):
        return "bf16" in cpu_flags()
    return not capped() and bool({"amx_bf16", "avx512_bf16"} & cpu_flags())


def native_int8() -> bool:
    """int8 dot-product instructions: VNNI (AVX512_VNNI, AVX_VNNI) or AMX-INT8."""
    flags = cpu_flags()
    return (bool({"avx512_vnni", "amx_int8"} & flags) and not capped()) or "avx_vnni" in flags
# --8<-- [end:cpu]


# --8<-- [start:verdict]
def interval(ratios: list[float]) -> tuple[float, float]:
    """How many times better a step is than the configuration before it, as (low, high): the range
    of the per-round ratios; one round: each of the two rows given +-5% (ONE_SAMPLE / 2) of itself, as
    the benchmark does, so the ratio about +-10%."""
    if len(ratios) >= 2:
        return min(ratios), max(ratios)
    low, high = 1 - ONE_SAMPLE / 2, 1 + ONE_SAMPLE / 2
    return ratios[0] * low / high, ratios[0] * high / low


def verdict(span: tuple[float, float]) -> str:
    low, high = span
    return "paid" if low > 1 + EVEN else "lost" if high < 1 - EVEN else "even"
# --8<-- [end:verdict]


# --8<-- [start:configurations]
class Bf16Autocast(nn.Module):
    """The model under CPU autocast: convolutions and matrix products in bf16, fp32 out."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, *inputs):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = first_tensor(self.model(*inputs))
        return out.float()


def nhwc(t: torch.Tensor) -> torch.Tensor:
    return t.to(memory_format=torch.channels_last) if t.dim() == 4 and t.is_floating_point() else t


def int8_model(model: nn.Module, calibration: tuple, reduce_range: bool) -> nn.Module:
    """Static int8 by PT2E (torchao's X86InductorQuantizer): export with a dynamic batch size,
    observe the calibration inputs, convert; reduce_range (7-bit activations) where the CPU has no
    VNNI, as the quantizer's documentation advises. Raises where export or quantisation fails, or
    where the quantizer found nothing to quantise."""
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from torchao.quantization.pt2e.quantizer.x86_inductor_quantizer import (
        X86InductorQuantizer, get_default_x86_inductor_quantization_config)

    example = batch_of(calibration, max(2, len(calibration[0])))  # at batch 1 export fixes the size
    shapes = tuple({0: torch.export.Dim("batch", min=1, max=1024)} for _ in example)
    try:
        exported = torch.export.export(model, example, dynamic_shapes=shapes, strict=True)
    except Exception:  # noqa: BLE001  strict tracing refused: the default, non-strict one
        exported = torch.export.export(model, example, dynamic_shapes=shapes)
    config = get_default_x86_inductor_quantization_config(reduce_range=reduce_range)
    prepared = prepare_pt2e(exported.module(), X86InductorQuantizer().set_global(config))
    with torch.no_grad():
        prepared(*calibration)
    converted = convert_pt2e(prepared)
    pairs = sum("quantize_per_tensor" in str(node.target) for node in converted.graph.nodes)
    if not pairs:
        raise RuntimeError("the x86 quantizer found no layer it quantises (convolution, linear, matmul)")
    converted.int8_pairs = pairs
    return converted


def build(model: nn.Module, config: dict, calibration: tuple):
    """predict(inputs) for a configuration: {"inference_mode", "channels_last", "compile", "bf16",
    "int8"} (threads and batch size are applied by the caller)."""
    if config["int8"]:
        model = int8_model(model, calibration, reduce_range=not native_int8())
    if config["channels_last"]:
        model = copy.deepcopy(model).to(memory_format=torch.channels_last)
    if config["bf16"]:
        model = Bf16Autocast(model)
    if config["compile"] or config["int8"]:  # PT2E's int8 is fast only compiled (its kernels come from Inductor)
        model = torch.compile(model, dynamic=False)
    freezing = torch._inductor.config.patch(freezing=True) if config["compile"] or config["int8"] else None

    def predict(inputs: tuple):
        if config["channels_last"]:
            inputs = tuple(map(nhwc, inputs))
        with torch.inference_mode() if config["inference_mode"] else torch.no_grad() if freezing \
                else contextlib.nullcontext(), freezing or contextlib.nullcontext():
            return first_tensor(model(*inputs))
    return predict
# --8<-- [end:configurations]


@contextlib.contextmanager
def threads(n: int):
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


# --8<-- [start:measure]
def rate(predict, inputs: tuple, n_threads: int, seconds: float) -> float:
    """Items per second: the median of torch.utils.benchmark's blocks (its first call sizes them)."""
    timer = Timer("predict(inputs)", globals={"predict": predict, "inputs": inputs}, num_threads=n_threads)
    return len(inputs[0]) / timer.blocked_autorange(min_run_time=seconds).median


def call_ms(predict, inputs: tuple, n_threads: int, calls: int) -> float:
    """The median of `calls` batch-1 calls, each timed on its own, in milliseconds."""
    with threads(n_threads):
        predict(inputs)
        times = []
        for _ in range(calls):
            start = time.perf_counter()
            predict(inputs)
            times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def side_by_side(rows: list[dict], inputs: tuple, settings: dict) -> None:
    """Time each row ({"predict", "batch", "threads"}) in the same rounds, which alternate their
    order: per round its items/s at its batch and its batch-1 median; the rows' "rounds"."""
    one = batch_of(inputs, 1)
    for turn in range(settings["rounds"]):
        for row in rows[::-1] if turn % 2 else rows:
            batch = batch_of(inputs, row["batch"])
            row["rounds"].append({
                "items_per_s": rate(row["predict"], batch, row["threads"], settings["seconds"]),
                "p50_ms": call_ms(row["predict"], one, row["threads"], settings["latency_calls"])})
    for row in rows:
        row["items_per_s"] = statistics.median(r["items_per_s"] for r in row["rounds"])
        row["p50_ms"] = statistics.median(r["p50_ms"] for r in row["rounds"])
# --8<-- [end:measure]


# --8<-- [start:parity]
def outputs_of(predict, inputs: tuple, batch: int, n_threads: int) -> torch.Tensor:
    """The predict's outputs for every item of inputs, `batch` at a time (the last batch padded),
    so a compiled model sees only the shapes it was compiled for."""
    n, out = len(inputs[0]), []
    with threads(n_threads):
        for start in range(0, n, batch):
            chunk = batch_of(tuple(t[start:start + batch] for t in inputs), batch)
            out.append(predict(chunk)[:min(batch, n - start)].detach().float())
    return torch.cat(out)


def parity(reference: torch.Tensor, output: torch.Tensor, min_top1: float, max_rel: float) -> dict:
    """Max |difference| (and relative to max |reference|); top-1 agreement where the output is a
    classification (one row of scores per item). ok: top-1 agreement >= min_top1 for a
    classification, else the relative difference <= max_rel."""
    diff = (reference - output).abs().max().item()
    rel = diff / max(reference.abs().max().item(), 1e-12)
    found = {"max_abs_diff": diff, "rel_diff": rel, "top1_pct": None}
    if reference.dim() == 2 and reference.shape[1] > 1:
        found["top1_pct"] = 100 * (reference.argmax(1) == output.argmax(1)).double().mean().item()
        found["ok"] = found["top1_pct"] >= min_top1
    else:
        found["ok"] = rel <= max_rel
    return found
# --8<-- [end:parity]


def report(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def skip_reason(step: str, model: nn.Module, inputs: tuple, default_threads: int, args) -> str | None:
    """Why the guide says a step does not apply here, or None."""
    if step == "threads" and args.threads == default_threads:
        return f"torch already runs {default_threads} threads, one per physical core"
    if step == "batch_size" and args.goal == "latency":
        return "--goal latency: measured at batch 1"
    if step == "channels_last":
        if not any(isinstance(m, nn.Conv2d) for m in model.modules()):
            return "no 2-D convolutions"
        if not any(t.dim() == 4 and t.is_floating_point() for t in inputs):
            return "no 4-D input"
    if step == "bf16" and not native_bf16():
        return "no native bf16 (AVX512_BF16, AMX): emulated, slower than fp32"
    if step == "int8" and importlib.util.find_spec("torchao") is None:
        return "torchao is not installed (pip install torchao)"
    if step in args.skip:
        return "left out (--skip)"
    return None


def step_config(step: str, kept: dict, args) -> dict:
    """The configuration a step tries: the kept one with the step's change."""
    change = {"threads": {"threads": args.threads}, "inference_mode": {"inference_mode": True},
              "batch_size": {}, "channels_last": {"channels_last": True}, "compile": {"compile": True},
              "bf16": {"bf16": True}, "int8": {"int8": True, "bf16": False}}[step]  # int8 instead of bf16, not on it
    return {**kept, **change}


def ready(model, config, calibration, inputs, reference, args, step: str, sweep: tuple = (), seconds: float = 0) -> dict:
    """Build a configuration, make its first calls (where a compiled model compiles: timed) and
    check its parity; {"predict", "batch", "sweep", "compile_s", "parity", "notes"}. With sweep (batch
    sizes), the configuration's batch size becomes its own best of them (one pass each; "sweep":
    {size: items/s}), as in the guide's case study: compiling or a lower precision can move the
    best size. A size the model refuses (a fixed batch size) is left out of the sweep."""
    notes = []
    if step == "compile":  # where Dynamo splits the model (each break: a return to Python between graphs);
        with torch.no_grad():  # traced before anything is compiled, since reset() drops compiled code
            breaks = torch._dynamo.explain(model)(*inputs).graph_break_count
        torch._dynamo.reset()
        if breaks:
            notes.append(f"{breaks} graph break(s): TORCH_LOGS=graph_breaks shows where")
    long = config["compile"] or config["int8"]
    start = time.perf_counter()
    if long:
        report(f"  {step}: compiling " + (f"each batch size of the sweep {', '.join(map(str, sorted({*sweep, 1})))}..."
                                           if sweep else f"(batch {config['batch']} and batch 1)..."))
    predict = build(model, config, calibration)
    built, first, rates = time.perf_counter() - start, {}, {}
    for n in sorted({config["batch"], 1, *sweep}):
        try:
            with threads(config["threads"]):
                began = time.perf_counter()
                predict(batch_of(inputs, n))  # a compiled model compiles each new shape here
                first[n] = time.perf_counter() - began
            if sweep:  # the sizes asked for and the current one
                rates[n] = rate(predict, batch_of(inputs, n), config["threads"], seconds)
        except Exception as error:  # noqa: BLE001
            if n == config["batch"] or n not in sweep:  # the sizes the configuration must run at
                raise
            report(f"  {step}: batch {n} failed ({one_line(error)})")
    config = {**config, "batch": max(rates, key=rates.get) if rates else config["batch"]}
    took = built + first[config["batch"]] + (first[1] if config["batch"] != 1 else 0.0)
    if long:
        report(f"  {step}: ready in {took:.1f} s" + (f" (batch {config['batch']} and 1)" if sweep else ""))

    found = parity(reference, outputs_of(predict, inputs, config["batch"], config["threads"]), args.min_top1, args.max_rel)
    return {"predict": predict, "batch": config["batch"], "sweep": rates, "compile_s": took if long else None,
            "parity": found, "notes": notes}


# --8<-- [start:runtimes]
def onnxruntime_predictor(model: nn.Module, inputs: tuple, n_threads: int):
    """The fp32 model exported by torch.onnx.export (dynamo=True, dynamic batch size) and run by
    ONNX Runtime's CPU execution provider on the threads torch uses."""
    import tempfile

    import onnxruntime

    with tempfile.TemporaryDirectory(prefix="tune-onnx-") as folder:
        path = os.path.join(folder, "model.onnx")
        shapes = tuple({0: torch.export.Dim("batch", min=1, max=1024)} for _ in inputs)
        torch.onnx.export(model, batch_of(inputs, 2), path, dynamo=True, dynamic_shapes=shapes, verbose=False)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads, options.inter_op_num_threads = n_threads, 1
        session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    return lambda batch: torch.from_numpy(session.run(None, dict(zip(names, (t.numpy() for t in batch))))[0])


def openvino_predictor(model: nn.Module, inputs: tuple, n_threads: int):
    """The fp32 model through torch.export (dynamic batch size) and openvino.convert_model,
    compiled for the CPU plugin with the LATENCY hint (one stream on the threads torch uses), fp32
    set explicitly (its default is bf16 where the CPU has it)."""
    import openvino

    shapes = tuple({0: torch.export.Dim("batch", min=1, max=1024)} for _ in inputs)
    converted = openvino.convert_model(torch.export.export(model, batch_of(inputs, 2), dynamic_shapes=shapes))
    compiled = openvino.Core().compile_model(converted, "CPU", {
        "PERFORMANCE_HINT": "LATENCY", "INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": n_threads})
    request = compiled.create_infer_request()
    return lambda batch: torch.from_numpy(request.infer([t.numpy() for t in batch])[0].copy())
# --8<-- [end:runtimes]


def timed_pair(base: dict, candidate: dict, inputs: tuple, settings: dict, goal: str) -> tuple:
    """(per-round ratios of how many times better candidate is, its interval, the verdict)."""
    side_by_side([base, candidate], inputs, settings)
    if goal == "latency":
        ratios = [b["p50_ms"] / c["p50_ms"] for b, c in zip(base["rounds"], candidate["rounds"])]
    else:
        ratios = [c["items_per_s"] / b["items_per_s"] for b, c in zip(base["rounds"], candidate["rounds"])]
    span = interval(ratios)
    return ratios, span, verdict(span)


def middle(ratios: list[float]) -> float:
    """The ratio to print: the median of the per-round ratios."""
    return statistics.median(ratios)


def timing_row(predict, config: dict) -> dict:
    return {"predict": predict, "batch": config["batch"], "threads": config["threads"], "rounds": []}


def tune_inference(model: nn.Module, inputs: tuple, args, settings: dict) -> dict:
    """The guide's inference steps in order, each on the configuration kept so far (kept: paid
    beyond noise with parity; inference_mode also when even, since it only removes work)."""
    default_threads = torch.get_num_threads()
    kept = {"threads": default_threads, "batch": len(inputs[0]), "inference_mode": False,
            "channels_last": False, "compile": False, "bf16": False, "int8": False}
    with torch.no_grad():
        reference = outputs_of(lambda batch: first_tensor(model(*batch)), inputs, len(inputs[0]), default_threads)
    current = ready(model, kept, inputs, inputs, reference, args, "baseline")
    rows = [{"step": "baseline", "config": dict(kept), "parity": None, "compile_s": None, "notes": []}]
    for step in [s for s in INFERENCE_STEPS if s in args.steps]:
        reason = skip_reason(step, model, inputs, default_threads, args)
        config, sweep_line = step_config(step, kept, args), None
        report(f"{step}...")
        try:
            swept = step == "batch_size" or (args.goal == "throughput" and "batch_size" in args.steps and step in RESWEPT)
            candidate = None if reason else ready(model, config, inputs, inputs, reference, args, step,
                                                  tuple(args.batch_sizes) if swept else (), settings["seconds"])
            config = {**config, "batch": candidate["batch"]} if candidate else config
            if step == "batch_size" and candidate:
                sweep_line = ", ".join(f"{n}: {v:.1f}" for n, v in candidate["sweep"].items())
                if config["batch"] == kept["batch"]:
                    reason = f"batch {kept['batch']}, the current one, was the fastest of the sweep"
        except Exception as error:  # noqa: BLE001  the step does not work on this model: say why, go on
            reason = f"failed: {one_line(error)}"
        if reason:
            rows.append({"step": step, "skipped": reason, **({"sweep": sweep_line} if sweep_line else {})})
            continue
        base, trial = timing_row(current["predict"], kept), timing_row(candidate["predict"], config)
        ratios, span, found = timed_pair(base, trial, inputs, settings, args.goal)
        keep = candidate["parity"]["ok"] and (found == "paid" or (step == "inference_mode" and found == "even"))
        if rows[0].get("items_per_s") is None:  # the baseline's figures: from its first side-by-side timing
            rows[0].update(items_per_s=base["items_per_s"], p50_ms=base["p50_ms"], batch=kept["batch"])
        rows.append({"step": step, "config": dict(config), "batch": config["batch"], "items_per_s": trial["items_per_s"],
                     "p50_ms": trial["p50_ms"], "ratios": ratios, "interval": span, "verdict": found, "kept": keep,
                     "compile_s": candidate["compile_s"], "parity": candidate["parity"], "notes": candidate["notes"],
                     **({"sweep": sweep_line} if sweep_line else {})})
        if keep:
            kept, current = config, candidate
    return final_comparison(model, inputs, reference, kept, current, rows, args, settings)


def kept_steps(rows: list[dict], config: dict) -> list[str]:
    """The kept steps the final configuration still has: int8 replaces a kept bf16."""
    return [r["step"] for r in rows[1:] if r.get("kept") and config.get(r["step"]) is not False]


def final_comparison(model, inputs, reference, kept, current, rows, args, settings) -> dict:
    """The kept configuration against the baseline, and the other runtimes against it, in the
    same rounds."""
    baseline = {k: rows[0]["config"][k] for k in kept}
    table = [dict(timing_row(current["predict"], kept), name="kept")]
    if kept != baseline:
        table.append(dict(timing_row(build(model, baseline, inputs), baseline), name="baseline"))
    skipped = []  # other runtimes that did not run, and why
    for runtime in [r for r in RUNTIMES if r in args.steps]:
        title = {"onnxruntime": "ONNX Runtime fp32", "openvino": "OpenVINO fp32"}[runtime]
        if importlib.util.find_spec(runtime) is None:
            skipped.append({"name": title, "skipped": f"{runtime} is not installed (pip install {runtime})"})
            continue
        report(f"{title}...")
        try:
            make = onnxruntime_predictor if runtime == "onnxruntime" else openvino_predictor
            predict = make(model, inputs, kept["threads"])
            found = parity(reference, outputs_of(predict, inputs, kept["batch"], kept["threads"]), args.min_top1, args.max_rel)
        except Exception as error:  # noqa: BLE001
            skipped.append({"name": title, "skipped": f"failed: {one_line(error)}"})
            continue
        table.append(dict(timing_row(predict, kept), name=title, parity=found))
    if len(table) > 1:
        side_by_side(table, inputs, settings)
    final = {"config": kept, "steps": kept_steps(rows, kept), "against": []}
    for other in table[1:]:
        if args.goal == "latency":
            ratios = [o["p50_ms"] / k["p50_ms"] for k, o in zip(table[0]["rounds"], other["rounds"])]
        else:
            ratios = [k["items_per_s"] / o["items_per_s"] for k, o in zip(table[0]["rounds"], other["rounds"])]
        span = interval(ratios)  # how many times better the kept configuration is than the other
        final["against"].append({"name": other["name"], "items_per_s": other["items_per_s"], "p50_ms": other["p50_ms"],
                                 "ratios": ratios, "interval": span, "verdict": verdict(span),
                                 "parity": other.get("parity"), "rounds": other["rounds"]})
    final["against"] += skipped
    final.update(items_per_s=table[0]["items_per_s"] if len(table) > 1 else None,
                 p50_ms=table[0]["p50_ms"] if len(table) > 1 else None, rounds=table[0]["rounds"] if len(table) > 1 else [])
    return {"rows": rows, "final": final}


# --8<-- [start:train]
def tune_training(model: nn.Module, inputs: tuple, targets, args, settings: dict) -> dict:
    """Training steps (SGD on one fixed batch): time per step side by side, and the loss after the
    same number of steps from the same weights (a change that moves it by more than --max-rel is
    not kept: it is not the same training)."""
    with torch.no_grad():
        output = first_tensor(model(*inputs)).float()
    classes = output.dim() == 2 and output.shape[1] > 1
    loss_fn = nn.functional.cross_entropy if classes else nn.functional.mse_loss
    if targets is None:  # nothing given: classes or values drawn once, seeded
        g = torch.Generator().manual_seed(2)
        targets = torch.randint(0, output.shape[1], (len(output),), generator=g) if classes \
            else torch.randn(output.shape, generator=g)
    start_weights = copy.deepcopy(model).train()

    def make_step(config: dict):
        net = copy.deepcopy(start_weights)
        if config["channels_last"]:
            net = net.to(memory_format=torch.channels_last)
        optimiser = torch.optim.SGD(net.parameters(), lr=args.lr)

        def forward_loss(batch, target):
            if config["channels_last"]:
                batch = tuple(map(nhwc, batch))
            with torch.autocast("cpu", dtype=torch.bfloat16) if config["bf16"] else contextlib.nullcontext():
                return loss_fn(first_tensor(net(*batch)).float(), target)
        forward = torch.compile(forward_loss) if config["compile"] else forward_loss

        def step(batch):
            optimiser.zero_grad(set_to_none=True)
            loss = forward(batch, targets[:len(batch[0])])
            loss.backward()
            optimiser.step()
            return loss.detach()
        return step

    def loss_after(config: dict) -> float:
        step = make_step(config)
        with threads(config["threads"]):
            for _ in range(settings["train_steps"]):
                loss = step(inputs)
        return loss.item()

    default_threads = torch.get_num_threads()
    kept = {"threads": default_threads, "batch": len(inputs[0]), "channels_last": False, "bf16": False, "compile": False}
    base_loss = loss_after(kept)
    rows = [{"step": "baseline", "config": dict(kept), "loss": base_loss, "notes": []}]
    for step in [s for s in TRAINING_STEPS if s in args.steps]:
        reason = skip_reason(step, model, inputs, default_threads, args)
        config = {**kept, **({"threads": args.threads} if step == "threads" else {step: True})}
        report(f"{step}...")
        if not reason:
            try:
                if step == "compile":
                    report("  compile: compiling the forward and backward pass...")
                started = time.perf_counter()
                loss = loss_after(config)
                took = time.perf_counter() - started
                base, trial = timing_row(make_step(kept), kept), timing_row(make_step(config), config)
                for row in (base, trial):  # the first calls, where a compiled step compiles
                    with threads(row["threads"]):
                        row["predict"](inputs)
            except Exception as error:  # noqa: BLE001
                reason = f"failed: {one_line(error)}"
        if reason:
            rows.append({"step": step, "skipped": reason})
            continue
        ratios, span, found = timed_pair(base, trial, inputs, {**settings, "latency_calls": 1}, "throughput")
        same = abs(loss - base_loss) <= args.max_rel * max(abs(base_loss), 1e-12)  # the fp32 baseline's loss
        keep = same and found == "paid"
        if rows[0].get("items_per_s") is None:
            rows[0].update(items_per_s=base["items_per_s"], batch=kept["batch"])
        rows.append({"step": step, "config": dict(config), "batch": config["batch"], "items_per_s": trial["items_per_s"],
                     "ratios": ratios, "interval": span, "verdict": found, "kept": keep, "loss": loss,
                     "same_loss": same, "compile_s": took if config["compile"] else None, "notes": []})
        if keep:
            kept = config
    return {"rows": rows, "final": {"config": kept, "steps": kept_steps(rows, kept)}}
# --8<-- [end:train]


def allocator_line() -> str:
    """The allocator to try next: preloading needs a new process, so it is a command, not a row."""
    for path in (f"/usr/lib/{platform.machine()}-linux-gnu/libtcmalloc_minimal.so.4", "/usr/lib64/libtcmalloc_minimal.so.4"):
        if os.path.isfile(path):
            return f"next, in a new process: LD_PRELOAD={path} python your_training.py (the Memory allocators page)"
    return ("next, in a new process: tcmalloc (Debian/Ubuntu: apt install libtcmalloc-minimal4), then "
            "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4 python your_training.py")


# --8<-- [start:code]
def code_for(config: dict, default_threads: int, training: bool = False) -> list[str]:
    """The few lines that build a kept configuration."""
    lines = ["import torch", "model.train()" if training else "model.eval()"]
    if config["threads"] != default_threads:
        lines.append(f"torch.set_num_threads({config['threads']})  # before the first call")
    if config.get("int8"):
        lines += ["# int8: PT2E with X86InductorQuantizer, calibrated on your inputs (see int8_model in this program)",
                  f"model = int8_model(model, calibration_inputs, reduce_range={not native_int8()})"]
    if config["channels_last"]:
        lines.append("model = model.to(memory_format=torch.channels_last)  # and each 4-D input: x.to(memory_format=torch.channels_last)")
    contexts = [] if training else ["torch.inference_mode()"] if config.get("inference_mode") else []
    compiled = config["compile"] or config.get("int8")
    if compiled:
        lines.append("model = torch.compile(model, dynamic=False)" if not training else
                     "loss_of = torch.compile(loss_of)  # your forward pass and loss, in one function")
        contexts += [] if training else ["torch._inductor.config.patch(freezing=True)"]
    if config["bf16"]:
        contexts.append('torch.autocast("cpu", dtype=torch.bfloat16)')
    call = "loss = loss_of(batch, target); loss.backward(); optimiser.step()" if training else "out = model(batch)"
    batch = f"  # batches of {config['batch']}" if not training else ""
    lines += [f"with {', '.join(contexts)}:", f"    {call}{batch}"] if contexts else [f"{call}{batch}"]
    return lines
# --8<-- [end:code]


def print_report(title: str, inputs: tuple, result: dict, args, settings: dict, default_threads: int) -> None:
    unit = "items/s"
    print(f"{title}; inputs {', '.join('x'.join(map(str, t.shape)) + ' ' + str(t.dtype).replace('torch.', '') for t in inputs)}")
    print(f"torch {torch.__version__.split('+')[0]}; CPU capability {torch.backends.cpu.get_cpu_capability()}; "
          f"native bf16: {'yes' if native_bf16() else 'no'}; native int8: {'yes' if native_int8() else 'no'}; "
          f"{physical_cores()} physical core(s); torch's default: {default_threads} thread(s)")
    print(f"{'quick mode (--quick): ' if args.quick else ''}{settings['rounds']} interleaved rounds of "
          f"{settings['seconds']} s per row; verdicts {'on items/s' if args.goal == 'throughput' else 'on batch-1 p50'}: "
          f"paid or lost only when every round's ratio is beyond +-{EVEN:.0%}, else even")
    train = args.train
    plan = ("threads (one per physical core), channels_last (4-D convolutions), bf16 autocast (native bf16 only), "
            "torch.compile of the forward pass and loss; an allocator needs a new process: the line at the end" if train
            else "threads (one per physical core), inference_mode, batch size (a sweep; each later step runs at its own "
            "best of it), channels_last (4-D "
            "convolutions), torch.compile with freezing, bf16 autocast (native bf16 only), int8 (PT2E, compiled, "
            "instead of bf16); then ONNX Runtime and OpenVINO in fp32 beside the fastest")
    print(f"the guide's steps, in its order, each against the configuration kept before it: {plan}")
    print(f"\n{'step':16}{'batch':>6}{unit:>10}{'x before':>10}{'rounds':>13}  {'verdict':16}"
          + ("" if train else f"{'b1 p50 ms':>10}") + f"{'compile s':>10}  {'loss' if train else 'parity'}")
    for row in result["rows"]:
        if "skipped" in row:
            print(f"{row['step']:16} skipped: {row['skipped']}")
            continue
        if row["step"] == "baseline":
            batch, rate_ = row.get("batch", row["config"]["batch"]), row.get("items_per_s")
            print(f"{'baseline':16}{batch:6d}{rate_ or 0:10.1f}{'':10}{'':13}  {'':16}"
                  + ("" if train else f"{row.get('p50_ms') or 0:10.2f}") + f"{'':10}  "
                  + (f"loss {row['loss']:.4g}" if train else "fp32 eager: the reference"))
            continue
        low, high = row["interval"]
        verdict_ = row["verdict"] + (", kept" if row["kept"] else "" if row.get("parity", {"ok": True})["ok"]
                                     and row.get("same_loss", True) else ", no parity" if not train else ", other loss")
        compile_s = f"{row['compile_s']:10.1f}" if row.get("compile_s") is not None else f"{'':10}"
        if train:
            check = f"loss {row['loss']:.4g}"
        else:
            p = row["parity"]
            check = (f"top-1 {p['top1_pct']:.1f}%, " if p["top1_pct"] is not None else "") + \
                f"max diff {p['max_abs_diff']:.1e}"
        notes = f"; {', '.join(row['notes'])}" if row.get("notes") else ""
        print(f"{row['step']:16}{row['batch']:6d}{row['items_per_s']:10.1f}{middle(row['ratios']):9.2f}x"
              f"{f'{low:.2f}-{high:.2f}':>13}  {verdict_:16}"
              + ("" if train else f"{row['p50_ms']:10.2f}") + f"{compile_s}  {check}{notes}")
    print("items/s: the step's own rate in its rounds beside the configuration before it (rows were timed in "
          "different rounds: compare them by x before, not by items/s); x before: how many times the configuration "
          "before it, the median round; rounds: the lowest and highest round; kept: paid beyond noise " + ("with the fp32 baseline's loss (within --max-rel) after the same steps"
          if train else "with parity (top-1 agreement >= --min-top1, else max diff within --max-rel of the largest "
          "output); inference_mode also when even, as it only removes work") + "; each step builds on the kept ones")
    sweep = next((r["sweep"] for r in result["rows"] if r.get("sweep")), None)
    if sweep:
        print(f"batch_size's sweep, items/s at each batch size (one pass each): {sweep}")
    final = result["final"]
    print(f"\nfastest configuration that kept {'the loss' if train else 'parity'}: "
          + ("baseline + " + " + ".join(final["steps"]) if final["steps"] else "the baseline (no step paid beyond noise)"))
    for other in final.get("against", []):
        if "skipped" in other:
            print(f"  {other['name']}: skipped: {other['skipped']}")
            continue
        low, high = other["interval"]
        if other["name"] == "baseline":
            print(f"  side by side with the baseline: {middle(other['ratios']):.2f}x ({low:.2f}-{high:.2f}, {other['verdict']})")
        else:
            p = other["parity"]
            print(f"  against {other['name']}: {middle(other['ratios']):.2f}x ({low:.2f}-{high:.2f}, "
                  f"{other['verdict']}); {other['name']}'s parity: "
                  + (f"top-1 {p['top1_pct']:.1f}%, " if p["top1_pct"] is not None else "") + f"max diff {p['max_abs_diff']:.1e}")
    print("code:")
    for line in code_for(final["config"], default_threads, train):
        print(f"    {line}")
    if train:
        print(allocator_line())


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model",
                        help="(required) "
                             "file.py:function or package.module:function returning a model, (model, inputs) or "
                             "(model, inputs, targets); or a torchvision model name (random weights)")
    parser.add_argument("--input-shape", help="with a function that returns only a model: the inputs' shape, "
                                              "batch first, e.g. 8,3,224,224 (random fp32 values)")
    parser.add_argument("--batch-sizes", default=None, help="the batch sizes the batch_size step tries "
                        f"(default {','.join(map(str, FULL['sweep']))}; --quick {','.join(map(str, QUICK['sweep']))})")
    parser.add_argument("--threads", type=int, help="the thread count the threads step tries (default: one per physical core)")
    parser.add_argument("--goal", choices=("throughput", "latency"), default="throughput",
                        help="what a verdict is on: items/s at each row's batch (default) or batch-1 p50")
    parser.add_argument("--skip", default="", help=f"steps to leave out, comma-separated: {', '.join(INFERENCE_STEPS + RUNTIMES)}")
    parser.add_argument("--train", action="store_true", help=f"time a training step instead: {', '.join(TRAINING_STEPS)}")
    parser.add_argument("--lr", type=float, default=0.01, help="--train: the SGD learning rate (default 0.01)")
    parser.add_argument("--min-top1", type=float, default=99.0,
                        help="parity for a classification: top-1 agreement with fp32 eager, in %% (default 99)")
    parser.add_argument("--max-rel", type=float, default=0.05, help="parity otherwise: max |difference| over max "
                        "|reference| (default 0.05); --train: the loss after the same steps, relatively")
    parser.add_argument("--quick", action="store_true", help="fewer and shorter rounds: seconds for a small model")
    parser.add_argument("--json", type=Path, help="also write the report to this file (not overwritten: pick a new name)")
    args = parser.parse_args(argv)
    if not args.model:  # checked here, so that a mistyped option is named first
        parser.error("--model is required: file.py:function, package.module:function or a torchvision model name")
    settings = QUICK if args.quick else FULL
    try:
        args.input_shape = [int(n) for n in args.input_shape.split(",")] if args.input_shape else None
        args.batch_sizes = [int(n) for n in args.batch_sizes.split(",")] if args.batch_sizes else list(settings["sweep"])
    except ValueError:
        parser.error("--input-shape and --batch-sizes take whole numbers separated by commas, e.g. 8,3,224,224")
    if args.input_shape is not None and (not args.input_shape or min(args.input_shape) < 1):
        parser.error("--input-shape: every dimension at least 1")
    if not args.batch_sizes or min(args.batch_sizes) < 1 or max(args.batch_sizes) > 1024:
        parser.error("--batch-sizes: each between 1 and 1024")
    if args.threads is not None and not 1 <= args.threads <= (os.cpu_count() or 1):
        parser.error(f"--threads must be between 1 and {os.cpu_count()} (this machine's CPUs), not {args.threads}")
    args.threads = args.threads or physical_cores()
    steps = TRAINING_STEPS if args.train else INFERENCE_STEPS + RUNTIMES
    args.skip = [s.strip() for s in args.skip.split(",") if s.strip()]
    unknown = [s for s in args.skip if s not in steps]
    if unknown:
        parser.error(f"--skip: unknown step(s) {', '.join(unknown)}; valid: {', '.join(steps)}")
    args.steps = [s for s in steps if s not in args.skip]
    if not 0 <= args.min_top1 <= 100 or args.max_rel < 0 or args.lr <= 0:
        parser.error("--min-top1 is a percentage (0 to 100), --max-rel at least 0, --lr above 0")
    if args.json and args.json.exists():
        parser.error(f"--json: {args.json} exists; pass another name (nothing is overwritten)")
    if args.json and not args.json.parent.is_dir():
        parser.error(f"--json: folder {args.json.parent} does not exist")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    settings = QUICK if args.quick else FULL
    torch.manual_seed(0)
    model, inputs, targets, title = load_model(args.model, args.input_shape)
    default_threads = torch.get_num_threads()
    if args.train:
        result = tune_training(model, inputs, targets, args, settings)
    else:
        result = tune_inference(model, inputs, args, settings)
    print_report(title, inputs, result, args, settings, default_threads)
    if args.json:
        clean = lambda rows: [{k: v for k, v in r.items() if k != "predict"} for r in rows]  # noqa: E731
        args.json.write_text(json.dumps({
            "model": title, "mode": "quick" if args.quick else "full", "goal": args.goal, "train": args.train,
            "torch": torch.__version__, "cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "native_bf16": native_bf16(), "native_int8": native_int8(), "physical_cores": physical_cores(),
            "default_threads": default_threads, "rows": clean(result["rows"]), "final": result["final"],
            "code": code_for(result["final"]["config"], default_threads, args.train)}, indent=1, default=str) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
