"""From naive to fast: ResNet-50 inference on a CPU, one cumulative step at a time, measured side by side.

python case_study_resnet50_inference.py            # 224x224, two compiles: about 5 minutes on 2 cores
python case_study_resnet50_inference.py --quick    # 64x64, no compile: well under a minute
python case_study_resnet50_inference.py --steps batching,compile --batch 8
"""
import argparse
import copy
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.utils.benchmark import Timer
from torch.utils.flop_counter import FlopCounterMode

STEPS = ("naive", "inference_mode", "batching", "channels_last", "compile", "bf16", "int8")
COMPILED = ("compile", "bf16", "int8")
BF16_EAGER = "bf16 eager"  # a side row: bf16 autocast on step 4, not on the cumulative path
PACKAGE = "package"  # a side row: step 5's model compiled ahead of time into one file (AOTInductor)
SIDE_ROWS = {BF16_EAGER: ("bf16", "channels_last"), PACKAGE: ("compile", "compile")}  # run with, compared with
# rounds: every row is measured once per round, so a slow minute on a shared machine falls on all rows alike
FULL = {"size": 224, "sweep": (1, 4, 8, 16, 32), "latency_calls": 20, "parity_items": 64, "seconds": 1.0, "rounds": 3}
QUICK = {"size": 64, "sweep": (1, 4, 16), "latency_calls": 20, "parity_items": 16, "seconds": 0.2, "rounds": 1}
NAIVE_MAX_PIXELS = 64 * 224 * 224  # batch x size^2: the naive step keeps ~130 MB of autograd state per 224x224 image


# --8<-- [start:models]
def make_images(n: int, size: int, seed: int = 1) -> torch.Tensor:
    """Smooth random images (a coarse random field, upsampled): unlike pixel noise, they differ
    from each other in ways a network's features can tell apart."""
    g = torch.Generator().manual_seed(seed)
    coarse = 2 * torch.randn(n, 3, 7, 7, generator=g) + torch.randn(n, 3, 1, 1, generator=g)
    return F.interpolate(coarse, size=size, mode="bilinear", align_corners=False) + 0.1 * torch.randn(
        n, 3, size, size, generator=g)


def make_resnet50(size: int, seed: int = 0) -> torch.nn.Module:
    """torchvision's ResNet-50 with random weights (nothing downloaded): speed does not depend on
    the weights' values, as long as none of them is denormal (see denormal_fraction). Random
    weights give every image nearly the same features, hence the same class; the classifier's
    bias is set so that the mean image of a calibration set scores zero, and the top-1 class
    then depends on the image, which the parity check needs."""
    import torchvision

    torch.manual_seed(seed)
    model = torchvision.models.resnet50(weights=None).eval()
    features = {}
    hook = model.avgpool.register_forward_hook(lambda module, args, out: features.update(f=out.flatten(1)))
    with torch.no_grad():
        model(make_images(16, size, seed=100))
        hook.remove()
        model.fc.bias.copy_(-model.fc.weight @ features["f"].mean(0))
    return model


def denormal_fraction(model: torch.nn.Module) -> float:
    """Share of weights that are denormal: non-zero and below the smallest normal float32.
    Arithmetic on them can be many times slower; random (and most trained) weights have none."""
    tiny = torch.finfo(torch.float32).tiny
    weights = torch.cat([p.detach().flatten() for p in model.parameters()])
    return ((weights != 0) & (weights.abs() < tiny)).double().mean().item()
# --8<-- [end:models]


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


def best_batch(model: torch.nn.Module, size: int, sizes: tuple[int, ...], seconds: float,
               threads: int) -> tuple[int, dict[int, float]]:
    """The batch size with the most images/s (step 3's predict), and the whole sweep."""
    predict = batched(model)
    sweep = {n: throughput(predict, make_images(n, size), seconds, threads) for n in sizes}
    return max(sweep, key=sweep.get), sweep
# --8<-- [end:batching]


# --8<-- [start:channels_last]
def channels_last(model: torch.nn.Module):
    """Step 4: weights and input in NHWC, the layout oneDNN's convolutions prefer."""
    model = copy.deepcopy(model).to(memory_format=torch.channels_last)  # .to() changes it in place

    def predict(batch: torch.Tensor) -> torch.Tensor:
        with torch.inference_mode():
            return model(batch.to(memory_format=torch.channels_last))
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
            return model(batch.to(memory_format=torch.channels_last))
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
    """Step 7: static int8 through PT2E and X86InductorQuantizer: export the graph, insert
    observers, run calibration images through it (they record each activation's range), convert
    to quantize/dequantize pairs, then compile with freezing, which turns them into oneDNN int8
    kernels. Export with strict=True: the default non-strict tracing groups torchvision's
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
    return compiled(convert_pt2e(prepared))


def native_int8() -> bool:
    """int8 dot-product instructions oneDNN uses: VNNI (AVX512_VNNI, AVX_VNNI) or AMX-INT8.
    Without them int8 still runs, on slower instruction sequences."""
    flags, capped = cpu_flags(), torch.backends.cpu.get_cpu_capability() in ("DEFAULT", "AVX2")
    return (bool({"avx512_vnni", "amx_int8"} & flags) and not capped) or "avx_vnni" in flags
# --8<-- [end:int8]


# --8<-- [start:package]
def build_package(model: torch.nn.Module, example: torch.Tensor, folder: Path) -> Path:
    """torch.export with a dynamic batch size, then AOTInductor compiles the model ahead of time
    into one .pt2 file (kernels and frozen weights, as in step 5). A server loads it with no
    compiler, no model code and no compile at start-up."""
    model = copy.deepcopy(model).to(memory_format=torch.channels_last)
    batch = torch.export.Dim("batch", min=1, max=1024)
    example = torch.cat([example, example])[:2]  # traced at batch 2: at batch 1 export fixes the size
    exported = torch.export.export(model, (example.to(memory_format=torch.channels_last),),
                                   dynamic_shapes=({0: batch},))
    with torch.no_grad():  # freezing applies to inference graphs
        return Path(torch._inductor.aoti_compile_and_package(
            exported, package_path=str(folder / "resnet50.pt2"), inductor_configs={"freezing": True}))


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


# --8<-- [start:measure]
def flops_per_image(model: torch.nn.Module, size: int) -> int:
    """Floating-point operations of one forward pass (a multiply-add counts 2)."""
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(make_images(1, size))
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
             BF16_EAGER: bf16_eager}  # int8 and the package take more than the model: measure_steps calls them


def not_run_reason(step: str, quick: bool, bf16: bool) -> str | None:
    if step in (*COMPILED, *SIDE_ROWS) and quick:  # the same rows on every CPU
        return "not run in --quick"
    if step in ("bf16", BF16_EAGER) and not bf16:
        return "not run: no native bf16"
    return None


def measure_steps(steps=STEPS, quick: bool = False, batch: int | None = None, size: int | None = None,
                  log=print, progress=lambda step: None, peers: dict | None = None) -> list[dict]:
    """Measure the chosen steps (names from STEPS; "bf16" brings its side row, "bf16 eager")
    and return one dict per row, in table order. log(line) gets the lines printed above the
    table; progress(step) is called as each step starts. peers: {name: (build, precision)}
    adds rows after the steps, measured the same way on the same model and inputs, where
    build(model, calibration_images) returns a predict (another runtime, say); its
    time, and that of the first calls, is the row's compile_s."""
    peers = peers or {}
    settings = QUICK if quick else FULL
    size = size or settings["size"]
    threads = torch.get_num_threads()
    bf16 = native_bf16()
    log(f"torch {torch.__version__.split('+')[0]}, {threads} thread(s), CPU capability "
        f"{torch.backends.cpu.get_cpu_capability()}, native bf16: {'yes' if bf16 else 'no'}, "
        f"native int8: {'yes' if native_int8() else 'no'}")
    log(f"ResNet-50 (torchvision, weights=None, seed 0), {size}x{size} images, "
        f"{'quick mode (--quick)' if quick else 'full mode'}")
    model = make_resnet50(size)
    flop = flops_per_image(model, size)
    log(f"GFLOP per image: {flop / 1e9:.2f}")
    log(f"denormal weights: {denormal_fraction(model):.3%} of {sum(p.numel() for p in model.parameters()):,}")
    if batch is None:
        batch, sweep = best_batch(model, size, settings["sweep"], settings["seconds"], threads)
        log("batch sweep (step batching, images/s): " + ", ".join(f"{n}: {v:.1f}" for n, v in sweep.items()))
        log(f"batch size: {batch} (best of the sweep)")
    else:
        log("batch sweep (step batching, images/s): skipped")
        log(f"batch size: {batch} (--batch)")

    images, image = make_images(batch, size), make_images(1, size, seed=2)
    parity_images = make_images(settings["parity_items"], size, seed=3)
    reference = reference_logits(model, parity_images, batch)
    log(f"parity inputs: {len(parity_images)}, in {reference.argmax(1).unique().numel()} classes by fp32 eager")
    rows, built = [], []  # built: (row, predict) for every row that runs
    folder = tempfile.TemporaryDirectory(prefix="resnet50-package-")  # the package's file, removed at the end
    calibration = make_images(16, size, seed=4)  # int8's ranges, recorded on 16 fixed images
    for step in [s for s in (*STEPS, *SIDE_ROWS) if s in steps or SIDE_ROWS.get(s, ("",))[0] in steps] + [*peers]:
        precision = peers[step][1] if step in peers else "bf16" if step in ("bf16", BF16_EAGER) else \
            "int8" if step == "int8" else "fp32"
        row = {"step": step, "batch": batch, "precision": precision,
               "size": size, "gflop_per_image": flop / 1e9, "images_per_s": None, "p50_s": None,
               "p99_s": None, "gflops": None, "top1_agreement_pct": None, "max_abs_logit_diff": None,
               "compile_s": None, "load_s": None, "package_mb": None, "run": False,
               "images_per_s_rounds": [], "latency_samples_s": [],
               "reason": None if step in peers else not_run_reason(step, quick, bf16)}
        rows.append(row)
        if row["reason"]:
            continue
        progress(step)
        start = time.perf_counter()
        # int8 and peers: export, calibration and conversion, counted as compile time
        if step == PACKAGE:  # compile_s: the build; load_s: a server's start-up
            path = build_package(model, images, Path(folder.name))
            row["compile_s"] = time.perf_counter() - start
            row["package_mb"] = path.stat().st_size / 1e6
            row["load_s"] = new_process_load_s(path, size)
            predict = load_package(path)
        elif step in peers:
            predict = peers[step][0](model, calibration)
        else:
            predict = int8_compiled(model, calibration) if step == "int8" else FACTORIES[step](model)
        if step in COMPILED or step in peers:  # both shapes measured below, at the threads they run at
            predict(images)
            predict(image)
            row["compile_s"] = time.perf_counter() - start
        row["top1_agreement_pct"], row["max_abs_logit_diff"] = parity(
            reference, all_logits(predict, parity_images, batch))
        built.append((row, predict))
    for _ in range(settings["rounds"]):  # every row once per round, in table order
        for row, predict in built:
            row["images_per_s_rounds"].append(throughput(predict, images, settings["seconds"], threads))
            row["latency_samples_s"] += latency(predict, image, settings["latency_calls"])
    for row, _ in built:  # throughput: the median round; latency: every round's calls pooled
        row["images_per_s"] = statistics.median(row["images_per_s_rounds"])
        row["p50_s"], row["p99_s"] = p50_p99(row["latency_samples_s"])
        row["gflops"] = row["images_per_s"] * flop / 1e9
        row["run"] = True
    folder.cleanup()
    return rows


def print_table(rows: list[dict], parity_items: int) -> None:
    by_step = {r["step"]: r for r in rows if r["run"]}
    base = by_step.get("naive")
    label = lambda step: f"{STEPS.index(step) + 1} {step}" if step in STEPS else f"  {step} (side)"
    previous = lambda step: SIDE_ROWS[step][1] if step in SIDE_ROWS else (
        STEPS[STEPS.index(step) - 1] if STEPS.index(step) else None)
    ratio = lambda a, b: f"{a / b:.2f}x" if a and b else "-"

    print(f"\n{'step':20}{'images/s':>9}{'x naive':>9}{'x prev':>8}{'GFLOP/s':>9}"
          f"{'p50 ms':>9}{'x naive':>9}{'p99 ms':>9}")
    for r in rows:
        if not r["run"]:
            print(f"{label(r['step']):20} {r['reason']}")
            continue
        before = by_step.get(previous(r["step"]))
        print(f"{label(r['step']):20}{r['images_per_s']:9.1f}"
              f"{ratio(r['images_per_s'], base and base['images_per_s']):>9}"
              f"{ratio(r['images_per_s'], before and before['images_per_s']):>8}{r['gflops']:9.1f}"
              f"{r['p50_s'] * 1e3:9.1f}{ratio(base and base['p50_s'], r['p50_s']):>9}{r['p99_s'] * 1e3:9.1f}")
    for r in rows:
        if r["step"] in COMPILED:
            took = f"{r['compile_s']:.1f} s (batch {r['batch']} and batch 1), not in the times above" \
                if r["run"] else r["reason"]
            print(f"compile time, {label(r['step']).strip()}: {took}")
        if r["step"] == PACKAGE:
            print(f"package: built in {r['compile_s']:.1f} s, {r['package_mb']:.0f} MB; loaded and answering in a new "
                  f"process in {r['load_s']:.2f} s" if r["run"] else f"package: {r['reason']}")
    print(f"\nparity on {parity_items} inputs against fp32 eager (eval, no grad): "
          f"top-1 agreement, max |logit difference|")
    for r in rows:
        if r["run"]:
            print(f"  {label(r['step']):20}{r['top1_agreement_pct']:6.1f}%  {r['max_abs_logit_diff']:.1e}")
        else:
            print(f"  {label(r['step']):20}{r['reason']}")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default=",".join(STEPS),
                        help=f"comma-separated steps to measure (default: all): {', '.join(STEPS)}")
    parser.add_argument("--batch", type=int,
                        help="images per batch for throughput, 1 to 256 (default: the best of a sweep)")
    parser.add_argument("--quick", action="store_true",
                        help="64x64 images, fewer calls, no compile: well under a minute")
    parser.add_argument("--size", type=int, help="image height and width, 32 to 448 (default 224; 64 with --quick)")
    args = parser.parse_args()
    args.steps = [s.strip() for s in args.steps.split(",") if s.strip()]
    unknown = [s for s in args.steps if s not in STEPS]
    if unknown or not args.steps:
        parser.error(f"--steps: unknown step(s) {', '.join(unknown) or '(none given)'}; "
                     f"valid: {', '.join(STEPS)}")
    if args.batch is not None and not 1 <= args.batch <= 256:
        parser.error(f"--batch must be between 1 and 256, not {args.batch}")
    if args.size is not None and not 32 <= args.size <= 448:
        parser.error(f"--size must be between 32 and 448 (ResNet-50 downsamples 32x), not {args.size}")
    size = args.size or (QUICK if args.quick else FULL)["size"]
    batch = args.batch or max((QUICK if args.quick else FULL)["sweep"])
    if "naive" in args.steps and batch * size * size > NAIVE_MAX_PIXELS:
        parser.error(f"batch {batch} at --size {size}: the naive step keeps every image's autograd "
                     f"state (about 130 MB per 224x224 image); keep batch x size^2 <= 64 x 224^2, "
                     f"or leave naive out of --steps")
    return args


def main() -> None:
    args = parse_args()
    rows = measure_steps(args.steps, args.quick, args.batch, args.size, log=lambda line: print(line, flush=True),
                         progress=lambda step: print(f"measuring {step}...", file=sys.stderr, flush=True))
    print_table(rows, (QUICK if args.quick else FULL)["parity_items"])


if __name__ == "__main__":
    main()
