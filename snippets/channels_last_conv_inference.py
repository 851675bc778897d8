"""Run a CNN in channels_last (NHWC) and check the format survives every layer.

python channels_last_conv_inference.py [--batch 4] [--size 112]
"""
import argparse
import copy

import torch
import torchvision


def make_model() -> torch.nn.Module:
    # Random weights: nothing is downloaded; the layout question does not depend on them.
    return torchvision.models.resnet18(weights=None, num_classes=10).eval()


# --8<-- [start:convert]
def to_channels_last(model: torch.nn.Module, x: torch.Tensor):
    """The whole change: the weights and the input in NHWC. Conv/BN/pool keep that format."""
    model = copy.deepcopy(model).to(memory_format=torch.channels_last)  # .to() is in place
    return model, x.to(memory_format=torch.channels_last)
# --8<-- [end:convert]


# --8<-- [start:check]
def layers_off_channels_last(model: torch.nn.Module, x: torch.Tensor) -> tuple[list[str], int]:
    """Leaf modules whose 4-D input or output is not channels_last (a silent NHWC<->NCHW copy
    happens there), and how many leaf modules saw 4-D tensors."""
    off, seen, hooks = [], [0], []
    is_cl = lambda t: t.is_contiguous(memory_format=torch.channels_last)

    def hook(name):
        def check(module, inputs, output):
            tensors = [t for t in (*inputs, output) if isinstance(t, torch.Tensor) and t.dim() == 4]
            if tensors:
                seen[0] += 1
                if not all(is_cl(t) for t in tensors):
                    off.append(name)
        return check

    for name, module in model.named_modules():
        if not list(module.children()):  # leaf modules: Conv2d, BatchNorm2d, ReLU, ...
            hooks.append(module.register_forward_hook(hook(name)))
    try:
        with torch.inference_mode():
            model(x)
    finally:
        for h in hooks:
            h.remove()
    return off, seen[0]
# --8<-- [end:check]


# --8<-- [start:leak]
class ContiguousAfterStem(torch.nn.Module):
    """A common leak: .contiguous() means NCHW; the next conv (NHWC weights) copies back to NHWC."""

    def __init__(self, model: torch.nn.Module):
        super().__init__()
        self.model = model

    def forward(self, x):
        m = self.model
        x = m.maxpool(m.relu(m.bn1(m.conv1(x)))).contiguous()  # use contiguous(memory_format=...) instead
        x = m.layer4(m.layer3(m.layer2(m.layer1(x))))
        return m.fc(torch.flatten(m.avgpool(x), 1))
# --8<-- [end:leak]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=4, help="images per batch (default 4)")
    parser.add_argument("--size", type=int, default=112, help="image height and width (default 112)")
    args = parser.parse_args()
    if args.batch < 1 or args.size < 32:
        parser.error("--batch must be >= 1 and --size >= 32 (resnet18 downsamples 32x)")
    return args


def main() -> None:
    from torch.utils.benchmark import Timer

    args = parse_args()
    torch.manual_seed(0)
    model = make_model()
    x = torch.randn(args.batch, 3, args.size, args.size)

    model_cl, x_cl = to_channels_last(model, x)
    with torch.inference_mode():
        reference, out = model(x), model_cl(x_cl)
    diff = (reference - out).abs().max().item()
    print(f"input channels_last: {x_cl.is_contiguous(memory_format=torch.channels_last)}")
    print(f"max |NCHW - NHWC| of the logits: {diff:.2e} (tolerance 1e-4): {'OK' if diff < 1e-4 else 'FAIL'}")

    off, seen = layers_off_channels_last(model_cl, x_cl)
    print(f"resnet18: {len(off)} of {seen} layers see a tensor that is not channels_last")
    off, seen = layers_off_channels_last(ContiguousAfterStem(model_cl), x_cl)
    print(f"with .contiguous() after the stem: {len(off)} of {seen}: {', '.join(off)}")

    threads = torch.get_num_threads()
    for label, m, inp in (("NCHW (default)", model, x), ("NHWC (channels_last)", model_cl, x_cl)):
        with torch.inference_mode():
            t = Timer("m(inp)", globals={"m": m, "inp": inp}, num_threads=threads).blocked_autorange(min_run_time=0.2)
        print(f"{label:22} {t.median * 1e3:8.1f} ms per batch of {args.batch} ({threads} thread{'s' if threads > 1 else ''})")


if __name__ == "__main__":
    main()
