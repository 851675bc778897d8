"""Denormal numbers: weights that weight decay shrank below float32's smallest normal value, with
and without torch.set_flush_denormal(True).

Hidden units that stop receiving gradient only see weight decay, which multiplies their weights by
(1 - lr * weight_decay) every step until they fall below 1.18e-38 (torch.finfo(torch.float32).tiny)
and become denormal. Some CPUs compute with denormals far more slowly than with normal numbers;
flushing them to zero (FTZ/DAZ) removes that cost for values too small to matter.
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.benchmark import Timer

TINY = torch.finfo(torch.float32).tiny  # the smallest normal float32


def make_model() -> nn.Module:
    return nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))


# --8<-- [start:decay]
def decay_dead_units(model: nn.Module, fraction: float, steps: int = 1700, lr: float = 0.1,
                     weight_decay: float = 0.5) -> None:
    """What SGD's weight decay does to the weights of hidden units that get no gradient (dead
    ReLUs): `steps` multiplications by (1 - lr * weight_decay), here in one go (in float64, then
    rounded to float32), which takes weights of about 0.05 to about 1e-39: denormal."""
    shrink = (1 - lr * weight_decay) ** steps
    with torch.no_grad():
        for layer in [m for m in model if isinstance(m, nn.Linear)][:-1]:  # the hidden layers
            dead = slice(0, int(fraction * layer.out_features))  # the first units of the layer
            for p in (layer.weight, layer.bias):
                p[dead] = (p[dead].double() * shrink).float()


def denormal_share(model: nn.Module) -> float:
    weights = torch.cat([p.detach().flatten() for p in model.parameters()])
    return ((weights != 0) & (weights.abs() < TINY)).float().mean().item()
# --8<-- [end:decay]


def forward_seconds(model: nn.Module, x: torch.Tensor, flush: bool) -> float:
    # --8<-- [start:flush]
    torch.set_flush_denormal(flush)  # this thread's FTZ/DAZ; threads started later inherit it
    try:
        timer = Timer("model(x)", globals={"model": model, "x": x}, num_threads=1)
        with torch.inference_mode():
            return timer.blocked_autorange(min_run_time=0.5).median
    finally:
        torch.set_flush_denormal(False)
    # --8<-- [end:flush]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dead", type=float, default=0.5, help="fraction of hidden units that decay (default 0.5)")
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    if not 0 <= args.dead <= 1:
        parser.error("--dead must be between 0 and 1")
    if not 1 <= args.batch_size <= 4096:
        parser.error("--batch-size must be between 1 and 4096")
    if not torch.set_flush_denormal(False):
        print("SKIP: this CPU has no flush-to-zero mode torch can set (x86 with SSE3, or Arm64, needed)")
        return 0

    torch.manual_seed(0)
    model = make_model().eval()
    decay_dead_units(model, args.dead)
    x = torch.randn(args.batch_size, 256)
    print(f"{args.dead:.0%} of hidden units decayed: {denormal_share(model):.1%} of all weights are denormal")

    with torch.inference_mode():
        exact = model(x)
        torch.set_flush_denormal(True)
        flushed = model(x)
        torch.set_flush_denormal(False)
    # Denormals are below 1.2e-38: flushing them to zero cannot change an output of normal size.
    print("outputs with and without flushing agree (rtol=1e-5, atol=1e-30):",
          torch.allclose(exact, flushed, rtol=1e-5, atol=1e-30))

    default, flush = forward_seconds(model, x, False), forward_seconds(model, x, True)
    print(f"forward, batch {args.batch_size}, 1 thread: {default * 1e3:.3f} ms as is, "
          f"{flush * 1e3:.3f} ms with set_flush_denormal(True): {default / flush:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
