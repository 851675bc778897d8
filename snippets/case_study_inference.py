"""From naive to fast: inference on a CPU, one cumulative step at a time, measured side by side,
for ResNet-50 or a BERT-base-shaped transformer text classifier.

python case_study_inference.py                      # ResNet-50, 224x224, all steps: 8 minutes on the 2-core Xeon with AMX
python case_study_inference.py --quick              # 64x64, no compile: well under a minute
python case_study_inference.py --model transformer  # 128-token sequences
python case_study_inference.py --steps batching,compile --batch 8
python case_study_inference.py --tcmalloc PATH      # libtcmalloc_minimal.so.4 elsewhere (the allocator rows)
"""
import argparse
import copy
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.benchmark import Timer
from torch.utils.flop_counter import FlopCounterMode

STEPS = ("naive", "inference_mode", "batching", "channels_last", "compile", "bf16", "int8")
COMPILED = ("compile", "bf16", "int8")
BF16_EAGER = "bf16 eager"  # a side row: bf16 autocast on step 4, not on the cumulative path
PACKAGE = "package"  # a side row: step 5's model compiled ahead of time into one file (AOTInductor)
PACKAGE_BF16, PACKAGE_INT8 = "package bf16", "package int8"  # side rows: steps 6 and 7's models, packaged
PACKAGES = (PACKAGE, PACKAGE_BF16, PACKAGE_INT8)
# side rows: step 7 in a fresh process each, with tcmalloc preloaded and with glibc's malloc (its control)
INT8_GLIBC, INT8_TCMALLOC = "int8 glibc", "int8 tcmalloc"
ALLOCATOR_ROWS = {INT8_GLIBC: None, INT8_TCMALLOC: "tcmalloc"}  # {row: the allocator its child preloads}
INT8_SCRIPT = "int8 TorchScript"  # a side row: step 7's int8 through FX quantization and TorchScript (deprecated)
SIDE_ROWS = {BF16_EAGER: ("bf16", "channels_last"), PACKAGE: ("compile", "compile"),  # run with, compared with
             PACKAGE_BF16: ("bf16", "bf16"), PACKAGE_INT8: ("int8", "int8"),
             INT8_GLIBC: ("int8", "int8"), INT8_TCMALLOC: ("int8", INT8_GLIBC), INT8_SCRIPT: ("int8", "int8")}
# Where the packages put tcmalloc (Debian/Ubuntu: apt install libtcmalloc-minimal4; conda: conda
# install gperftools): the first that exists is preloaded, unless --tcmalloc names another
TCMALLOC = [f"/usr/lib/{platform.machine()}-linux-gnu/libtcmalloc_minimal.so.4", "/usr/lib64/libtcmalloc_minimal.so.4",
            os.path.join(os.environ.get("CONDA_PREFIX", "/nonexistent"), "lib", "libtcmalloc_minimal.so.4")]
# rounds: every row is measured once per round, so a slow minute on a shared machine falls on all rows alike
FULL = {"sweep": (1, 4, 8, 16, 32), "latency_calls": 20, "parity_items": 64, "seconds": 1.0, "rounds": 3}
QUICK = {"sweep": (1, 4, 16), "latency_calls": 20, "parity_items": 16, "seconds": 0.2, "rounds": 1}
NAIVE_MAX_PIXELS = 64 * 224 * 224  # batch x size^2: the naive step keeps ~130 MB of autograd state per 224x224 image


# --8<-- [start:models]
def make_images(n: int, size: int, seed: int = 1) -> torch.Tensor:
    """Smooth random images (a coarse random field, upsampled): unlike pixel noise, they differ
    from each other in ways a network's features can tell apart."""
    g = torch.Generator().manual_seed(seed)
    coarse = 2 * torch.randn(n, 3, 7, 7, generator=g) + torch.randn(n, 3, 1, 1, generator=g)
    return F.interpolate(coarse, size=size, mode="bilinear", align_corners=False) + 0.1 * torch.randn(
        n, 3, size, size, generator=g)


def recentre(model: nn.Module, classifier: nn.Linear, calibration: torch.Tensor) -> nn.Module:
    """Random weights give every input nearly the same features, hence the same class. Set the
    classifier's bias so that the mean calibration input scores zero: the top-1 class then
    depends on the input, which the parity check needs."""
    features = {}
    hook = classifier.register_forward_pre_hook(lambda module, args: features.update(f=args[0]))
    with torch.no_grad():
        model(calibration)
        hook.remove()
        classifier.bias.copy_(-classifier.weight @ features["f"].mean(0))
    return model


def make_resnet50(size: int, seed: int = 0) -> nn.Module:
    """torchvision's ResNet-50 with random weights (nothing downloaded): speed does not depend on
    the weights' values, as long as none of them is denormal (see denormal_fraction)."""
    import torchvision

    torch.manual_seed(seed)
    model = torchvision.models.resnet50(weights=None).eval()
    return recentre(model, model.fc, make_images(16, size, seed=100))


def denormal_fraction(model: torch.nn.Module) -> float:
    """Share of weights that are denormal: non-zero and below the smallest normal float32.
    Arithmetic on them can be many times slower; random (and most trained) weights have none."""
    tiny = torch.finfo(torch.float32).tiny
    weights = torch.cat([p.detach().flatten() for p in model.parameters()])
    return ((weights != 0) & (weights.abs() < tiny)).double().mean().item()
# --8<-- [end:models]


# --8<-- [start:transformer]
VOCAB, POSITIONS = 30522, 512  # BERT-base's vocabulary and position table (the longest sequence it takes)


class TextClassifier(nn.Module):
    """BERT-base's shape: token and position embeddings, 12 encoder layers (d_model 768, 12 heads,
    feed-forward 3072, GELU), mean pooling, a 10-class head; random weights, nothing downloaded."""

    def __init__(self, vocab: int = VOCAB, d_model: int = 768, heads: int = 12, layers: int = 12,
                 classes: int = 10, max_length: int = POSITIONS):
        super().__init__()
        self.tokens = nn.Embedding(vocab, d_model)
        self.positions = nn.Embedding(max_length, d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.tokens(tokens) + self.positions(torch.arange(tokens.shape[1], device=tokens.device))
        return self.head(self.encoder(x).mean(1))


def make_tokens(n: int, length: int, seed: int = 1) -> torch.Tensor:
    """n sequences of random token ids (no padding)."""
    return torch.randint(0, VOCAB, (n, length), generator=torch.Generator().manual_seed(seed))


def make_text_classifier(length: int, seed: int = 0) -> nn.Module:
    torch.manual_seed(seed)
    model = TextClassifier().eval()
    return recentre(model, model.head, make_tokens(16, length, seed=100))
# --8<-- [end:transformer]


# {model: what measure_steps needs}: the title, the builder, the inputs, one input's name, the
# size (pixels or tokens) in full and quick mode and the sizes --size takes (with why), and the
# steps that do not apply
MODELS = {
    "resnet50": {"title": "ResNet-50 (torchvision, weights=None, seed 0)", "build": make_resnet50,
                 "inputs": make_images, "item": "image", "sizes": "{0}x{0} images", "full": 224, "quick": 64,
                 "size_range": (32, 448), "size_why": "(ResNet-50 downsamples 32x)", "skip": {}},
    "transformer": {"title": "BERT-base-shaped text classifier (nn.TransformerEncoder, 12 layers, seed 0)",
                    "build": make_text_classifier, "inputs": make_tokens, "item": "sequence",
                    "sizes": "{0}-token sequences", "full": 128, "quick": 32,
                    "size_range": (8, POSITIONS), "size_why": "tokens (the position table's length)",
                    "skip": {"channels_last": "not run: no convolutions",
                             **{name: "not run: ResNet-50 only" for name in (*PACKAGES, *ALLOCATOR_ROWS, INT8_SCRIPT)}},
                    "steps": {"bf16": lambda model: bf16_weights_compiled(model)}},  # see bf16_weights_compiled
}


# --8<-- [start:naive]
def naive(model: torch.nn.Module):
    """Step 1, as a first attempt looks: one image at a time in a Python loop, autograd recording
    a graph nobody will use (and keeping every image's activations until the loop ends), NCHW
    fp32, torch's default threads."""
    def predict(batch: torch.Tensor) -> torch.Tensor:
        return torch.cat([model(image.unsqueeze(0)) for image in batch])
    return predict
# --8<-- [end:naive]


# --8<-- [start:inference_mode]
def with_inference_mode(model: torch.nn.Module):
    """Step 2: the same loop without autograd: no graph recorded, no activations kept."""
    def predict(batch: torch.Tensor) -> torch.Tensor:
        with torch.inference_mode():
            return torch.cat([model(image.unsqueeze(0)) for image in batch])
    return predict
# --8<-- [end:inference_mode]


# --8<-- [start:batching]
def batched(model: torch.nn.Module):
    """Step 3: the whole batch in one call: larger matrix products, one Python round trip."""
    def predict(batch: torch.Tensor) -> torch.Tensor:
        with torch.inference_mode():
            return model(batch)
    return predict


def best_batch(predict, inputs, sizes: tuple[int, ...], seconds: float,
               threads: int) -> tuple[int, dict[int, float], dict[int, float]]:
    """The batch size with the most inputs/s for this predict, the whole sweep, and each size's
    first call in seconds (where a compiled model compiles that shape); inputs(n) makes a batch
    of n. Every step from this one on runs its own sweep: compiling, a lower precision or another
    runtime can move the best size."""
    sweep, first = {}, {}
    for n in sizes:
        batch = inputs(n)
        start = time.perf_counter()
        predict(batch)
        first[n] = time.perf_counter() - start
        sweep[n] = throughput(predict, batch, seconds, threads)
    return max(sweep, key=sweep.get), sweep, first
# --8<-- [end:batching]


# --8<-- [start:channels_last]
def nhwc(batch: torch.Tensor) -> torch.Tensor:
    """Images (4-d) in channels_last; token ids and other inputs as they are."""
    return batch.to(memory_format=torch.channels_last) if batch.dim() == 4 else batch


def channels_last(model: torch.nn.Module):
    """Step 4: weights and input in NHWC, the layout oneDNN's convolutions prefer (a model
    without convolutions has nothing to convert: .to() only changes 4-d weights)."""
    model = copy.deepcopy(model).to(memory_format=torch.channels_last)  # .to() changes it in place

    def predict(batch: torch.Tensor) -> torch.Tensor:
        with torch.inference_mode():
            return model(nhwc(batch))
    return predict
# --8<-- [end:channels_last]


# --8<-- [start:compile]
def compiled(model: torch.nn.Module):
    """Step 5: torch.compile with freezing: the weights become constants, so Inductor folds batch
    norm into the convolutions and prepacks the weights for oneDNN. Freezing is set through
    torch._inductor.config: torch.compile(options={"freezing": True}) does not freeze in torch
    2.14. Compiling happens at the first call of each batch shape (dynamic=False: one graph per
    shape), so make those calls, timed apart, at the thread count the model will run at."""
    model = torch.compile(copy.deepcopy(model).to(memory_format=torch.channels_last), dynamic=False)

    def predict(batch: torch.Tensor) -> torch.Tensor:
        with torch.inference_mode(), torch._inductor.config.patch(freezing=True):
            return model(nhwc(batch))
    return predict
# --8<-- [end:compile]


# --8<-- [start:bf16]
class Bf16Autocast(torch.nn.Module):
    """The model under CPU autocast: convolutions and matrix products in bfloat16, fp32 logits."""

    def __init__(self, model: torch.nn.Module):
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return self.model(x).float()


def bf16_compiled(model: torch.nn.Module):
    """Step 6: bf16 autocast on the compiled channels_last model (weights prepacked in bf16)."""
    return compiled(Bf16Autocast(model))


class Bf16Weights(torch.nn.Module):
    """The model with its weights cast to bfloat16 (a copy), fp32 logits out."""

    def __init__(self, model: torch.nn.Module):
        super().__init__()
        self.model = copy.deepcopy(model).to(torch.bfloat16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x.to(torch.bfloat16) if x.is_floating_point() else x).float()


def bf16_weights_compiled(model: torch.nn.Module):
    """Step 6 for the transformer: bf16 weights, compiled. Under autocast, torch.compile traces
    nn.TransformerEncoder's regular path instead of its fused fast path, and CPU autocast runs
    that path several times slower than fp32; with the weights themselves in bf16 both paths
    are fast, eager and compiled."""
    return compiled(Bf16Weights(model))


def bf16_eager(model: torch.nn.Module):
    """The side row: bf16 autocast on step 4 (channels_last, not compiled)."""
    return channels_last(Bf16Autocast(model))


def cpu_flags() -> set[str]:
    try:
        return set(Path("/proc/cpuinfo").read_text().split())  # Linux; elsewhere: unknown
    except OSError:
        return set()


def native_bf16() -> bool:
    """bf16 instructions oneDNN uses: AMX or AVX512_BF16 (x86), BF16 (Arm). Not where torch is
    capped below AVX-512 (ATEN_CPU_CAPABILITY=avx2 emulates an AVX2 CPU): there, and on CPUs
    without them, bf16 is emulated and slower than fp32."""
    flags = cpu_flags()
    if platform.machine().lower() in ("aarch64", "arm64"):
        return "bf16" in flags
    capped = torch.backends.cpu.get_cpu_capability() in ("DEFAULT", "AVX2")
    return not capped and bool({"amx_bf16", "avx512_bf16"} & flags)
# --8<-- [end:bf16]


# --8<-- [start:int8]
def int8_compiled(model: torch.nn.Module, calibration: torch.Tensor):
    """Step 7: static int8 (int8_model), compiled with freezing, which turns the quantize/dequantize
    pairs around each convolution and linear layer into oneDNN int8 kernels."""
    return compiled(int8_model(model, calibration))


def int8_model(model: torch.nn.Module, calibration: torch.Tensor) -> torch.nn.Module:
    """Static int8 through PT2E and X86InductorQuantizer: export the graph, insert observers,
    run calibration images through it (they record each activation's range), convert to
    quantize/dequantize pairs (weights stored in int8). Export with strict=True: the default non-strict tracing groups torchvision's
    Bottleneck ReLU (one module called three times) into one partition, which the quantizer
    rejects ("Input partition has more than one output node")."""
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from torchao.quantization.pt2e.quantizer.x86_inductor_quantizer import (
        X86InductorQuantizer, get_default_x86_inductor_quantization_config)

    batch = torch.export.Dim("batch", min=1, max=1024)  # one graph for every batch size
    exported = torch.export.export(model, (calibration[:8],), dynamic_shapes=({0: batch},), strict=True).module()
    quantizer = X86InductorQuantizer().set_global(get_default_x86_inductor_quantization_config())
    prepared = prepare_pt2e(exported, quantizer)
    with torch.no_grad():
        for chunk in calibration.split(8):
            prepared(chunk)
    return convert_pt2e(prepared)


def native_int8() -> bool:
    """int8 dot-product instructions oneDNN uses: VNNI (AVX512_VNNI, AVX_VNNI) or AMX-INT8.
    Without them int8 still runs, on slower instruction sequences."""
    flags, capped = cpu_flags(), torch.backends.cpu.get_cpu_capability() in ("DEFAULT", "AVX2")
    return (bool({"avx512_vnni", "amx_int8"} & flags) and not capped) or "avx_vnni" in flags
# --8<-- [end:int8]


# --8<-- [start:int8_script]
def int8_torchscript(model: torch.nn.Module, calibration: torch.Tensor):
    """A side row beside step 7: static int8 through the older path torch still ships, FX graph
    mode quantization with the oneDNN engine's default settings, traced and frozen in TorchScript.
    Both are deprecated (TorchScript warns so), but its int8 convolutions (quantized::conv2d) keep
    their oneDNN primitive beside the packed weights, where step 7's compiled ones build it on every
    call. The engine is set for the conversion only: the packed weights keep theirs."""
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    engine, torch.backends.quantized.engine = torch.backends.quantized.engine, "onednn"
    try:
        prepared = prepare_fx(copy.deepcopy(model).eval(), get_default_qconfig_mapping("onednn"),
                              example_inputs=(calibration[:1],))
        with torch.no_grad():
            for chunk in calibration.split(8):
                prepared(chunk)
            scripted = torch.jit.freeze(torch.jit.trace(convert_fx(prepared), calibration[:1]).eval())
    finally:
        torch.backends.quantized.engine = engine

    def predict(batch: torch.Tensor) -> torch.Tensor:
        with torch.inference_mode():
            return scripted(batch)
    return predict
# --8<-- [end:int8_script]


# --8<-- [start:package]
def build_package(model: torch.nn.Module, example: torch.Tensor, path: Path) -> Path:
    """torch.export with a dynamic batch size, then AOTInductor compiles the model ahead of time
    into one .pt2 file (kernels and frozen weights, as in step 5). A server loads it with no
    compiler, no model code and no compile at start-up. The model may be step 6's
    (Bf16Autocast(model): autocast is exported with the graph) or step 7's (int8_model(...):
    the quantize/dequantize pairs become oneDNN int8 kernels, as under torch.compile)."""
    model = copy.deepcopy(model).to(memory_format=torch.channels_last)
    batch = torch.export.Dim("batch", min=1, max=1024)
    example = torch.cat([example, example])[:2]  # traced at batch 2: at batch 1 export fixes the size
    exported = torch.export.export(model, (example.to(memory_format=torch.channels_last),),
                                   dynamic_shapes=({0: batch},))
    with torch.no_grad():  # freezing applies to inference graphs
        return Path(torch._inductor.aoti_compile_and_package(
            exported, package_path=str(path), inductor_configs={"freezing": True}))


def load_package(path: Path):
    """The serving side: load the file and call it."""
    runner = torch._inductor.aoti_load_package(str(path))

    def predict(batch: torch.Tensor) -> torch.Tensor:
        with torch.inference_mode():
            return runner(batch.to(memory_format=torch.channels_last))
    return predict


LOAD_IN_A_NEW_PROCESS = """
import sys, time, torch
start = time.perf_counter()
runner = torch._inductor.aoti_load_package(sys.argv[1])
with torch.inference_mode():
    runner(torch.zeros(1, 3, int(sys.argv[2]), int(sys.argv[2])).to(memory_format=torch.channels_last))
print(time.perf_counter() - start)
"""


def new_process_load_s(path: Path, size: int) -> float:
    """Seconds from loading the package to its first answer in a new process, as a server
    starting up sees them (torch's own import left out: every PyTorch server pays it)."""
    done = subprocess.run([sys.executable, "-c", LOAD_IN_A_NEW_PROCESS, str(path), str(size)],
                          capture_output=True, text=True, check=True)
    return float(done.stdout.split()[-1])
# --8<-- [end:package]


# --8<-- [start:allocator]
def find_tcmalloc(path: str | None = None) -> str | None:
    """The tcmalloc library to preload: path if given (None if it is not a file), else the first
    of TCMALLOC that exists."""
    return next((p for p in ([path] if path else TCMALLOC) if os.path.isfile(p)), None)


class Step7InChild:
    """Step 7 in a fresh process (this file again, with --child), kept alive across the rounds:
    LD_PRELOAD=library for tcmalloc, none for the glibc control (LD_PRELOAD is read only when a
    process starts). The child builds, calibrates and compiles the same model on the same inputs,
    checks which allocator /proc/self/maps shows, and then measures one round at each request."""

    def __init__(self, model_name: str, size: int, batch: int, library: str | None, parity_items: int):
        env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "MALLOC_CONF")}
        if library:
            env["LD_PRELOAD"] = library
        self.errors = tempfile.TemporaryFile(mode="w+")  # the child's stderr, read if it fails
        self.process = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--child", "--model", model_name, "--size", str(size),
             "--batch", str(batch), "--threads", str(torch.get_num_threads()), "--expect", library or "",
             "--parity-items", str(parity_items)],
            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors, text=True)
        self.ready = self.answer()  # {"allocator", "compile_s", "top1_agreement_pct", "max_abs_logit_diff"}

    def answer(self) -> dict:
        """The child's next report: a line "CHILD {json}" (anything else it prints is skipped)."""
        for line in self.process.stdout:
            if line.startswith("CHILD "):
                report = json.loads(line[6:])
                if "error" in report:
                    self.close()
                    raise RuntimeError(f"the step 7 child process: {report['error']}")
                return report
        self.process.wait()
        self.errors.seek(0)
        raise RuntimeError(f"the step 7 child process exited ({self.process.returncode}):\n{self.errors.read()[-3000:]}")

    def measure(self, seconds: float, calls: int) -> dict:
        """One round in the child: {"items_per_s": ..., "latency_samples_s": [...]}."""
        self.process.stdin.write(f"{seconds} {calls}\n")
        self.process.stdin.flush()
        return self.answer()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()  # end of input: the child returns
            self.process.wait(timeout=60)
        self.errors.close()


def child(model_name: str, size: int, batch: int, threads: int, expect: str, parity_items: int) -> int:
    """Inside the fresh process: check which allocator is mapped, build step 7 as measure_steps
    does, report its compile time and parity, then one round per line read from the parent.
    Returns the exit status: 1 where the allocator is not the one expected."""
    def report(**fields) -> None:
        print("CHILD " + json.dumps(fields), flush=True)

    with open("/proc/self/maps") as maps:
        mapped = maps.read()
    name = os.path.basename(os.path.realpath(expect)) if expect else ""  # maps shows the real file
    if name and name not in mapped:
        report(error=f"{name} is not mapped although LD_PRELOAD={os.environ.get('LD_PRELOAD')}")
        return 1
    if not name and any(other in mapped for other in ("tcmalloc", "jemalloc")):
        report(error="the glibc control has another allocator mapped")
        return 1
    torch.set_num_threads(threads)
    spec = MODELS[model_name]
    inputs = lambda n, seed=1: spec["inputs"](n, size, seed=seed)  # noqa: E731  the parent's inputs, seed for seed
    model, image, parity_images = spec["build"](size), inputs(1, seed=2), inputs(parity_items, seed=3)
    reference = reference_logits(model, parity_images, batch)
    start = time.perf_counter()
    predict = int8_compiled(model, inputs(16, seed=4))
    predict(inputs(batch))
    predict(image)
    agree, diff = parity(reference, all_logits(predict, parity_images, batch))
    library = next((line.split()[-1] for line in mapped.splitlines() if name and line.endswith(name)), None)
    report(allocator=library or "glibc malloc", compile_s=time.perf_counter() - start,
           top1_agreement_pct=agree, max_abs_logit_diff=diff)
    batch_inputs = inputs(batch)
    for line in sys.stdin:  # "seconds calls": one round
        seconds, calls = line.split()
        report(items_per_s=throughput(predict, batch_inputs, float(seconds), threads),
               latency_samples_s=latency(predict, image, int(calls)))
    return 0
# --8<-- [end:allocator]


# --8<-- [start:measure]
def flops_per_item(model: torch.nn.Module, example: torch.Tensor) -> int:
    """Floating-point operations of one forward pass on one input (a multiply-add counts 2).
    Counted with autograd on: under no_grad nn.TransformerEncoder takes its fused fast path,
    whose kernels the counter does not see."""
    with FlopCounterMode(display=False) as counter:
        model(example)
    return counter.get_total_flops()


def throughput(predict, batch: torch.Tensor, seconds: float, threads: int) -> float:
    """Images per second at this batch: the median of torch.utils.benchmark's blocks (its first,
    untimed call to size the blocks is the warm-up)."""
    timer = Timer("predict(batch)", globals={"predict": predict, "batch": batch}, num_threads=threads)
    return len(batch) / timer.blocked_autorange(min_run_time=seconds).median


def latency(predict, image: torch.Tensor, calls: int) -> list[float]:
    """Seconds of single-image calls, each timed on its own as a server sees it."""
    predict(image)  # warm-up
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        predict(image)
        samples.append(time.perf_counter() - start)
    return samples


def p50_p99(samples: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return cuts[49], cuts[98]
# --8<-- [end:measure]


# --8<-- [start:parity]
def all_logits(predict, images: torch.Tensor, batch: int) -> torch.Tensor:
    """Logits for every image, `batch` at a time; the last batch is padded to full size, so a
    compiled model sees only the shape it was compiled for."""
    out = []
    for start in range(0, len(images), batch):
        chunk = images[start:start + batch]
        padded = torch.cat([chunk, images[:batch - len(chunk)]]) if len(chunk) < batch else chunk
        out.append(predict(padded)[:len(chunk)].detach().float())
    return torch.cat(out)


def reference_logits(model: torch.nn.Module, images: torch.Tensor, batch: int) -> torch.Tensor:
    """What every step is compared with: fp32 eager, eval mode, no grad."""
    def predict(chunk: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return model(chunk)
    return all_logits(predict, images, batch)


def parity(reference: torch.Tensor, logits: torch.Tensor) -> tuple[float, float]:
    """(top-1 agreement in %, max |logit difference|) against the reference."""
    agree = (reference.argmax(1) == logits.argmax(1)).double().mean().item() * 100
    return agree, (reference - logits).abs().max().item()
# --8<-- [end:parity]


FACTORIES = {"naive": naive, "inference_mode": with_inference_mode, "batching": batched,
             "channels_last": channels_last, "compile": compiled, "bf16": bf16_compiled,
             BF16_EAGER: bf16_eager}  # int8 and the packages take more than the model: measure_steps calls them


def not_run_reason(step: str, quick: bool, bf16: bool, model: str = "resnet50",
                   tcmalloc: str | None = None) -> str | None:
    if step in MODELS[model]["skip"]:
        return MODELS[model]["skip"][step]
    if step in (*COMPILED, *SIDE_ROWS) and quick:  # the same rows on every CPU
        return "not run in --quick"
    if step in ("bf16", BF16_EAGER, PACKAGE_BF16) and not bf16:
        return "not run: no native bf16"
    if step == INT8_SCRIPT and "onednn" not in torch.backends.quantized.supported_engines:
        return "not run: this torch has no oneDNN quantized engine"
    if step in ALLOCATOR_ROWS and not sys.platform.startswith("linux"):
        return "not run: LD_PRELOAD and /proc/self/maps are Linux-only"
    if step in ALLOCATOR_ROWS and find_tcmalloc(tcmalloc) is None:
        return (f"not run: tcmalloc not found (tried {tcmalloc or ', '.join(TCMALLOC)}); "
                "Debian/Ubuntu: apt install libtcmalloc-minimal4")
    return None


def measure_steps(steps=STEPS, quick: bool = False, batch: int | None = None, size: int | None = None,
                  log=print, progress=lambda step: None, peers: dict | None = None,
                  model_name: str = "resnet50", inspect=None, tcmalloc: str | None = None) -> list[dict]:
    """Measure the chosen steps (names from STEPS; a step brings its side rows: "bf16" the
    "bf16 eager" row, "int8" its package, its TorchScript row and the two allocator rows, step 7 in a fresh process
    each, with tcmalloc (found in TCMALLOC, or the path tcmalloc) and with glibc's malloc)
    of the model (a key of MODELS) and return one dict per row, in table order. log(line) gets
    the lines printed above the table; progress(step) is called as each step starts. peers:
    {name: (build, precision)} adds rows after the steps, measured the same way on the same
    model and inputs, where build(model, calibration_inputs) returns a predict (another runtime,
    say); its time, and that of the first calls, is the row's compile_s. inspect(row, predict,
    image), if given, is called for every row that ran, after the timed rounds."""
    peers, spec = peers or {}, MODELS[model_name]
    settings = QUICK if quick else FULL
    size = size or spec["quick" if quick else "full"]
    threads = torch.get_num_threads()
    bf16 = native_bf16()
    log(f"torch {torch.__version__.split('+')[0]}, {threads} thread(s), CPU capability "
        f"{torch.backends.cpu.get_cpu_capability()}, native bf16: {'yes' if bf16 else 'no'}, "
        f"native int8: {'yes' if native_int8() else 'no'}")
    log(f"{spec['title']}, {spec['sizes'].format(size)}, {'quick mode (--quick)' if quick else 'full mode'}")
    model = spec["build"](size)
    inputs = lambda n, seed=1: spec["inputs"](n, size, seed=seed)  # noqa: E731
    flop = flops_per_item(model, inputs(1))
    item = spec["item"]
    log(f"GFLOP per {item}: {flop / 1e9:.2f}")
    log(f"denormal weights: {denormal_fraction(model):.3%} of {sum(p.numel() for p in model.parameters()):,}")
    sweeps = batch is None  # each step from batching on picks its own batch size
    if sweeps:
        batch, sweep, _ = best_batch(batched(model), inputs, settings["sweep"], settings["seconds"], threads)
        log(f"batch sweep (step batching, {item}s/s): " + ", ".join(f"{n}: {v:.1f}" for n, v in sweep.items()))
        log(f"batch size: steps 1 and 2 {batch} (step batching's best); from step 3 on each row's own best "
            f"of the sweep {', '.join(map(str, settings['sweep']))} (column batch)")
    else:
        log(f"batch sweep (step batching, {item}s/s): skipped")
        log(f"batch size: {batch} (--batch)")

    image = inputs(1, seed=2)  # one input for batch-1 latency
    parity_images = inputs(settings["parity_items"], seed=3)
    reference = reference_logits(model, parity_images, batch)
    log(f"parity inputs: {len(parity_images)}, in {reference.argmax(1).unique().numel()} classes by fp32 eager")
    rows, built, children = [], [], []  # built: (row, predict, its batch) for every row that runs
    folder = tempfile.TemporaryDirectory(prefix="case-study-package-")  # the package's file, removed at the end
    calibration = inputs(16, seed=4)  # int8's ranges, recorded on 16 fixed inputs
    for step in [s for s in (*STEPS, *SIDE_ROWS) if s in steps or SIDE_ROWS.get(s, ("",))[0] in steps] + [*peers]:
        precision = peers[step][1] if step in peers else "bf16" if step in ("bf16", BF16_EAGER, PACKAGE_BF16) \
            else "int8" if step in ("int8", PACKAGE_INT8, *ALLOCATOR_ROWS, INT8_SCRIPT) else "fp32"
        row = {"step": step, "batch": batch, "precision": precision,
               "size": size, "gflop_per_item": flop / 1e9, "items_per_s": None, "p50_s": None,
               "p99_s": None, "gflops": None, "top1_agreement_pct": None, "max_abs_logit_diff": None,
               "compile_s": None, "load_s": None, "package_mb": None, "allocator": None, "run": False,
               "items_per_s_rounds": [], "latency_samples_s": [],
               "reason": None if step in peers else not_run_reason(step, quick, bf16, model_name, tcmalloc)}
        rows.append(row)
        if row["reason"]:
            continue
        progress(step)
        start = time.perf_counter()
        # int8 and peers: export, calibration and conversion, counted as compile time
        if step in ALLOCATOR_ROWS:  # at step 7's batch; the child builds, compiles and checks parity itself
            row["batch"] = next((r["batch"] for r in rows if r["step"] == "int8"), batch)
            library = find_tcmalloc(tcmalloc) if ALLOCATOR_ROWS[step] else None
            children.append(Step7InChild(model_name, size, row["batch"], library, len(parity_images)))
            report = children[-1].ready
            row["allocator"], row["compile_s"] = report["allocator"], report["compile_s"]
            row["top1_agreement_pct"], row["max_abs_logit_diff"] = report["top1_agreement_pct"], report["max_abs_logit_diff"]
            built.append((row, children[-1], None))
            continue
        if step in PACKAGES:  # compile_s: the build (int8: with calibration); load_s: a server's start-up
            packaged = {PACKAGE: lambda: model, PACKAGE_BF16: lambda: Bf16Autocast(model),
                        PACKAGE_INT8: lambda: int8_model(model, calibration)}[step]()
            path = build_package(packaged, inputs(2), Path(folder.name) / f"{step.replace(' ', '-')}.pt2")
            row["compile_s"] = time.perf_counter() - start
            row["package_mb"] = path.stat().st_size / 1e6
            row["load_s"] = new_process_load_s(path, size)
            predict = load_package(path)
        elif step in peers:
            predict = peers[step][0](model, calibration)
        else:
            predict = int8_compiled(model, calibration) if step == "int8" else \
                int8_torchscript(model, calibration) if step == INT8_SCRIPT else \
                spec.get("steps", {}).get(step, FACTORIES[step])(model)  # a model's own version of a step
        ready = time.perf_counter() - start
        # naive and inference_mode take one image at a time; batching's sweep is the one above
        if sweeps and step not in ("naive", "inference_mode", "batching"):
            row["batch"], _, first = best_batch(predict, inputs, settings["sweep"], settings["seconds"], threads)
        else:
            first = {n: 0.0 for n in {row["batch"], 1}}
            for n in first:  # both shapes measured below, at the threads they run at
                start = time.perf_counter()
                predict(inputs(n))
                first[n] = time.perf_counter() - start
        if step in (*COMPILED, INT8_SCRIPT) or step in peers:  # building, and compiling the two shapes measured below
            row["compile_s"] = ready + first[row["batch"]] + (first[1] if row["batch"] != 1 else 0.0)
        row["top1_agreement_pct"], row["max_abs_logit_diff"] = parity(
            reference, all_logits(predict, parity_images, row["batch"]))
        built.append((row, predict, inputs(row["batch"])))
    try:
        for turn in range(settings["rounds"]):  # every row once per round, in table order
            in_process = [(row, predict, images) for row, predict, images in built if row["step"] not in ALLOCATOR_ROWS]
            for row, predict, images in in_process:
                row["items_per_s_rounds"].append(throughput(predict, images, settings["seconds"], threads))
                row["latency_samples_s"] += latency(predict, image, settings["latency_calls"])
            in_children = [entry for entry in built if entry[0]["step"] in ALLOCATOR_ROWS]
            for row, child_process, _ in in_children[::-1] if turn % 2 else in_children:  # which goes first alternates
                report = child_process.measure(settings["seconds"], settings["latency_calls"])
                row["items_per_s_rounds"].append(report["items_per_s"])
                row["latency_samples_s"] += report["latency_samples_s"]
    finally:
        for child_process in children:
            child_process.close()
    for row, _, _ in built:  # throughput: the median round; latency: every round's calls pooled
        row["items_per_s"] = statistics.median(row["items_per_s_rounds"])
        row["p50_s"], row["p99_s"] = p50_p99(row["latency_samples_s"])
        row["gflops"] = row["items_per_s"] * flop / 1e9
        row["run"] = True
    for row, predict, _ in built if inspect else ():
        if row["step"] not in ALLOCATOR_ROWS:  # those ran in their own processes
            inspect(row, predict, image)
    folder.cleanup()
    return rows


def print_table(rows: list[dict], parity_items: int, item: str = "image") -> None:
    by_step = {r["step"]: r for r in rows if r["run"]}
    base = by_step.get("naive")
    label = lambda step: f"{STEPS.index(step) + 1} {step}" if step in STEPS else f"  {step} (side)"
    previous = lambda step: SIDE_ROWS[step][1] if step in SIDE_ROWS else (
        STEPS[STEPS.index(step) - 1] if STEPS.index(step) else None)
    ratio = lambda a, b: f"{a / b:.2f}x" if a and b else "-"

    print(f"\n{'step':26}{'batch':>6}{item + 's/s':>12}{'x naive':>9}{'x prev':>8}{'GFLOP/s':>9}"
          f"{'p50 ms':>9}{'x naive':>9}{'p99 ms':>9}")
    for r in rows:
        if not r["run"]:
            print(f"{label(r['step']):26} {r['reason']}")
            continue
        before = by_step.get(previous(r["step"]))
        print(f"{label(r['step']):26}{r['batch']:6d}{r['items_per_s']:12.1f}"
              f"{ratio(r['items_per_s'], base and base['items_per_s']):>9}"
              f"{ratio(r['items_per_s'], before and before['items_per_s']):>8}{r['gflops']:9.1f}"
              f"{r['p50_s'] * 1e3:9.1f}{ratio(base and base['p50_s'], r['p50_s']):>9}{r['p99_s'] * 1e3:9.1f}")
    for r in rows:
        if r["step"] in COMPILED:
            took = f"{r['compile_s']:.1f} s (batch {r['batch']} and batch 1), not in the times above" \
                if r["run"] else r["reason"]
            print(f"compile time, {label(r['step']).strip()}: {took}")
        if r["step"] == INT8_SCRIPT:
            print(f"{r['step']}: quantized, traced and frozen in {r['compile_s']:.1f} s (batch {r['batch']} and batch 1), "
                  f"not in the times above" if r["run"] else f"{r['step']}: {r['reason']}")
        if r["step"] in PACKAGES:
            print(f"{r['step']}: built in {r['compile_s']:.1f} s, {r['package_mb']:.0f} MB; loaded and answering in a new "
                  f"process in {r['load_s']:.2f} s" if r["run"] else f"{r['step']}: {r['reason']}")
    found = {r["step"]: r for r in rows if r["step"] in ALLOCATOR_ROWS}
    if found:  # tcmalloc against its control, both children
        both = all(r["run"] for r in found.values())
        glibc, tcmalloc = found.get(INT8_GLIBC), found.get(INT8_TCMALLOC)
        print("tcmalloc against glibc malloc, step 7 in a fresh process each: " + (
            f"{tcmalloc['items_per_s'] / glibc['items_per_s']:.2f}x throughput, "
            f"{glibc['p50_s'] / tcmalloc['p50_s']:.2f}x batch-1 p50 (preloaded {tcmalloc['allocator']}, "
            f"found in /proc/self/maps)" if both else next(r["reason"] for r in found.values() if not r["run"])))
    print(f"\nparity on {parity_items} inputs against fp32 eager (eval, no grad): "
          f"top-1 agreement, max |logit difference|")
    for r in rows:
        if r["run"]:
            print(f"  {label(r['step']):26}{r['top1_agreement_pct']:6.1f}%  {r['max_abs_logit_diff']:.1e}")
        else:
            print(f"  {label(r['step']):26} {r['reason']}")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default=",".join(STEPS),
                        help=f"comma-separated steps to measure (default: all): {', '.join(STEPS)}")
    parser.add_argument("--model", choices=list(MODELS), default="resnet50",
                        help="resnet50 (default) or transformer (a BERT-base-shaped text classifier)")
    parser.add_argument("--batch", type=int,
                        help="inputs per batch for throughput, 1 to 256 (default: the best of a sweep)")
    parser.add_argument("--quick", action="store_true",
                        help="smaller inputs ({}x{} images, {} tokens), fewer calls, no compile: well under a minute".format(
                            MODELS["resnet50"]["quick"], MODELS["resnet50"]["quick"], MODELS["transformer"]["quick"]))
    parser.add_argument("--size", type=int, help="ResNet-50: image height and width, {} to {} (default {}); "
                        "transformer: tokens per sequence, {} to {} (default {})".format(
                            *MODELS["resnet50"]["size_range"], MODELS["resnet50"]["full"],
                            *MODELS["transformer"]["size_range"], MODELS["transformer"]["full"]))
    parser.add_argument("--tcmalloc", metavar="PATH",
                        help="libtcmalloc_minimal.so.4 for the allocator rows (default: the first of "
                             + ", ".join(TCMALLOC) + " that exists)")
    # the allocator rows' child process (Step7InChild), with --model, --size and --batch
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--expect", default="", help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--parity-items", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        if None in (args.size, args.batch, args.threads, args.parity_items) or \
                min(args.size, args.batch, args.threads, args.parity_items) < 1:
            parser.error("--child needs --size, --batch, --threads and --parity-items, each at least 1")
        return args
    if args.tcmalloc is not None and not os.path.isfile(args.tcmalloc):
        parser.error(f"--tcmalloc: no such file: {args.tcmalloc}")
    args.steps = [s.strip() for s in args.steps.split(",") if s.strip()]
    unknown = [s for s in args.steps if s not in STEPS]
    if unknown or not args.steps:
        parser.error(f"--steps: unknown step(s) {', '.join(unknown) or '(none given)'}; "
                     f"valid: {', '.join(STEPS)}")
    if args.batch is not None and not 1 <= args.batch <= 256:
        parser.error(f"--batch must be between 1 and 256, not {args.batch}")
    smallest, largest = MODELS[args.model]["size_range"]
    if args.size is not None and not smallest <= args.size <= largest:
        parser.error(f"--size must be between {smallest} and {largest} {MODELS[args.model]['size_why']}, not {args.size}")
    size = args.size or MODELS[args.model]["quick" if args.quick else "full"]
    batch = args.batch or max((QUICK if args.quick else FULL)["sweep"])
    if args.model == "resnet50" and "naive" in args.steps and batch * size * size > NAIVE_MAX_PIXELS:
        parser.error(f"batch {batch} at --size {size}: the naive step keeps every image's autograd "
                     f"state (about 130 MB per 224x224 image); keep batch x size^2 <= 64 x 224^2, "
                     f"or leave naive out of --steps")
    return args


def main() -> None:
    args = parse_args()
    if args.child:
        sys.exit(child(args.model, args.size, args.batch, args.threads, args.expect, args.parity_items))
    rows = measure_steps(args.steps, args.quick, args.batch, args.size, log=lambda line: print(line, flush=True),
                         progress=lambda step: print(f"measuring {step}...", file=sys.stderr, flush=True),
                         model_name=args.model, tcmalloc=args.tcmalloc)
    print_table(rows, (QUICK if args.quick else FULL)["parity_items"], MODELS[args.model]["item"])


if __name__ == "__main__":
    main()
