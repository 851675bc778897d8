"""bfloat16 on a CPU: check the hardware, run inference and training under autocast, compare with fp32.

python bfloat16_autocast_cpu.py [--steps 20]
"""
import argparse
import copy
import platform
from pathlib import Path

import torch


# --8<-- [start:detect]
def native_bf16() -> dict[str, bool]:
    """What the CPU can do in bfloat16. Without AVX512_BF16, AMX or Arm's BF16, bf16 is emulated and slower."""
    try:
        flags = set(Path("/proc/cpuinfo").read_text().split())  # Linux; elsewhere: unknown -> False
    except OSError:
        flags = set()
    arm = platform.machine().lower() in ("aarch64", "arm64")
    capability = torch.backends.cpu.get_cpu_capability()  # "AVX2", "AVX512", "DEFAULT", ...
    return {"avx512_bf16": "avx512_bf16" in flags, "amx_bf16": "amx_bf16" in flags,
            "arm_bf16": arm and "bf16" in flags,  # Arm's "Features" line: Graviton 3 and later
            "intel": "GenuineIntel" in flags,  # vendor_id
            "torch_capability": capability}


def native_bf16_feature(hw: dict) -> str | None:
    """The first bf16 instruction set found, or None."""
    return next((name for name in ("amx_bf16", "avx512_bf16", "arm_bf16") if hw[name]), None)
# --8<-- [end:detect]


# --8<-- [start:dtypes]
def autocast_dtypes() -> dict[str, torch.dtype]:
    """The dtype each op returns under CPU autocast: only matmul-like ops (and losses) are listed
    by autocast; softmax and layer_norm simply run in the bf16 they are given."""
    torch.manual_seed(0)
    linear, norm = torch.nn.Linear(16, 16), torch.nn.LayerNorm(16)
    x, target = torch.randn(8, 16), torch.randint(0, 16, (8,))
    with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
        h = linear(x)
        return {"linear": h.dtype, "softmax": torch.softmax(h, dim=-1).dtype, "layer_norm": norm(h).dtype,
                "cross_entropy": torch.nn.functional.cross_entropy(h, target).dtype}
# --8<-- [end:dtypes]


def make_model() -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.GELU(), torch.nn.Linear(256, 256),
                               torch.nn.GELU(), torch.nn.Linear(256, 10))


# --8<-- [start:inference]
def predict(model: torch.nn.Module, x: torch.Tensor, bf16: bool) -> torch.Tensor:
    """Weights stay fp32; autocast runs Linear/conv/matmul in bfloat16 (and what follows them, in
    the dtype it is given); only losses and a few ops are kept in fp32."""
    with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        return model(x).float()
# --8<-- [end:inference]


# --8<-- [start:training]
def train_step(model, opt, x, y, bf16: bool) -> torch.Tensor:
    """Mixed precision: forward and loss under autocast, backward and the step outside it.
    bfloat16 has fp32's exponent range, so unlike float16 no GradScaler is needed."""
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return loss


def train(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, steps: int, bf16: bool) -> float:
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for _ in range(steps):
        train_step(model, opt, x, y, bf16)
    with torch.no_grad():  # final loss measured in fp32 for both, so they compare like for like
        return torch.nn.functional.cross_entropy(model(x), y).item()
# --8<-- [end:training]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20, help="training steps for each precision (default 20)")
    args = parser.parse_args()
    if args.steps < 1:
        parser.error("--steps must be >= 1")
    return args


def main() -> None:
    from torch.utils.benchmark import Timer

    args = parse_args()
    hw = native_bf16()
    native = native_bf16_feature(hw)
    print(f"torch CPU capability: {hw['torch_capability']}; AVX512_BF16: {'yes' if hw['avx512_bf16'] else 'no'}; "
          f"AMX_BF16: {'yes' if hw['amx_bf16'] else 'no'}")
    if native == "avx512_bf16" and hw["intel"]:  # an Intel core without AMX: its bf16 kernels are no faster
        verdict = "yes (avx512_bf16, no AMX on this Intel CPU), expect no speed-up"
    else:
        verdict = f"yes ({native}), expect a speed-up" if native else "no, bf16 is emulated here: expect a slow-down"
    print("native bf16 matmul:", verdict)
    print("dtypes under autocast:", ", ".join(f"{op} {dtype}".replace("torch.", "")
                                              for op, dtype in autocast_dtypes().items()))

    torch.manual_seed(0)
    model = make_model().eval()
    x = torch.randn(128, 128)
    ref, out = predict(model, x, bf16=False), predict(model, x, bf16=True)
    max_abs = (ref - out).abs().max().item()
    rel = ((ref - out).norm() / ref.norm()).item()
    agree = (ref.argmax(1) == out.argmax(1)).float().mean().item()
    print(f"inference: max abs error {max_abs:.1e}, relative error {rel:.1e} (tolerance 2e-2): "
          f"{'OK' if rel < 2e-2 else 'FAIL'}; same class for {agree:.1%} of inputs")

    # A learnable target: labels from a fixed random "teacher" network.
    teacher = make_model()
    with torch.no_grad():
        y = teacher(x).argmax(1)
    start = make_model()
    losses = {bf16: train(copy.deepcopy(start).train(), x, y, args.steps, bf16) for bf16 in (False, True)}
    gap = abs(losses[True] - losses[False]) / losses[False]
    print(f"training, {args.steps} steps: final loss fp32 {losses[False]:.5f}, bf16 autocast {losses[True]:.5f}, "
          f"relative gap {gap:.2%} (tolerance 10%): {'OK' if gap < 0.10 else 'FAIL'}")

    threads = torch.get_num_threads()
    for label, bf16 in (("fp32", False), ("bf16 autocast", True)):
        t = Timer("predict(model, x, bf16)", globals={"predict": predict, "model": model, "x": x, "bf16": bf16},
                  num_threads=threads).blocked_autorange(min_run_time=0.2)
        print(f"{label:14} {t.median * 1e3:8.2f} ms per batch of {len(x)} ({threads} thread{'s' if threads > 1 else ''})")

    # --8<-- [start:fp32_precision]
    # torch >= 2.9: let oneDNN run *fp32* matmuls in bf16 internally, without autocast.
    # It takes effect where oneDNN chooses a bf16 kernel (AMX, AMD's AVX512_BF16); on AVX2-only CPUs and
    # an Intel Xeon without AMX oneDNN kept its fp32 kernel (ONEDNN_VERBOSE=1: brg_matmul:avx512_core).
    if hasattr(torch.backends.mkldnn, "matmul"):
        torch.backends.mkldnn.matmul.fp32_precision = "bf16"
        try:
            changed = not torch.equal(predict(model, x, bf16=False), ref)
        finally:
            torch.backends.mkldnn.matmul.fp32_precision = "none"  # the default
        print(f"torch.backends.mkldnn.matmul.fp32_precision = 'bf16' changed the fp32 results: {changed}")
    else:
        print("SKIP: torch.backends.mkldnn.matmul.fp32_precision needs torch >= 2.9")
    # --8<-- [end:fp32_precision]


if __name__ == "__main__":
    main()
