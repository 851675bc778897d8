"""Dynamic int8 quantisation of a Linear-heavy model with torchao: size, accuracy and latency against fp32.

python quantisation_int8_dynamic_torchao.py [--batch 32]
"""
import argparse
import copy
import io
import logging

import torch


def make_model() -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024),
                               torch.nn.ReLU(), torch.nn.Linear(1024, 10)).eval()


# --8<-- [start:quantize]
def quantize_int8_dynamic(model: torch.nn.Module) -> torch.nn.Module:
    """int8 weights (per channel) and int8 activations (scale computed per call) for every nn.Linear."""
    # torchao logs (logging, not warnings) a notice about KernelPreference.register_constant on import.
    logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)
    from torchao.quantization import Int8DynamicActivationInt8WeightConfig, quantize_

    quantized = copy.deepcopy(model)
    # In place, hence the copy. set_inductor_config=False: by default quantize_ also changes
    # global torch._inductor.config settings for the rest of the process.
    quantize_(quantized, Int8DynamicActivationInt8WeightConfig(set_inductor_config=False))
    return quantized
# --8<-- [end:quantize]


# --8<-- [start:size]
def serialized_bytes(model: torch.nn.Module) -> int:
    """What the model costs on disk: the bytes torch.save writes for its state_dict."""
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getbuffer().nbytes
# --8<-- [end:size]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=32, help="inputs per batch (default 32)")
    args = parser.parse_args()
    if args.batch < 1:
        parser.error("--batch must be >= 1")
    return args


def main() -> None:
    from torch.utils.benchmark import Timer

    args = parse_args()
    logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)  # see quantize_int8_dynamic
    try:
        import torchao  # noqa: F401
    except ImportError:
        print("SKIP: torchao is not installed (pip install torchao)")
        return

    torch.manual_seed(0)
    model = make_model()
    quantized = quantize_int8_dynamic(model)
    fp32_size, int8_size = serialized_bytes(model), serialized_bytes(quantized)
    print(f"serialized state_dict: fp32 {fp32_size / 1e6:.2f} MB, int8 {int8_size / 1e6:.2f} MB, "
          f"{fp32_size / int8_size:.1f}x smaller")

    x = torch.randn(args.batch, 512)
    with torch.inference_mode():
        ref, out = model(x), quantized(x)
    rel = ((ref - out).norm() / ref.norm()).item()
    agree = (ref.argmax(1) == out.argmax(1)).float().mean().item()
    print(f"int8 vs fp32: relative error {rel:.1e} (tolerance 5e-2): {'OK' if rel < 5e-2 else 'FAIL'}; "
          f"same class for {agree:.1%} of inputs")

    threads = torch.get_num_threads()
    for label, m in (("fp32", model), ("int8 dynamic", quantized)):
        with torch.inference_mode():
            t = Timer("m(x)", globals={"m": m, "x": x}, num_threads=threads).blocked_autorange(min_run_time=0.2)
        print(f"{label:13} {t.median * 1e3:8.2f} ms per batch of {args.batch} ({threads} thread{'s' if threads > 1 else ''})")


if __name__ == "__main__":
    main()
