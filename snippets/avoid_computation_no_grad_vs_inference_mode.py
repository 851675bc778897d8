"""Forward passes with autograd, under torch.no_grad and under torch.inference_mode.

Same outputs; the activations autograd keeps for backward are measured with saved_tensors_hooks;
and the two things an inference tensor may not do afterwards are shown with their exact errors.
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.benchmark import Timer


def make_model() -> nn.Module:
    return nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))


# --8<-- [start:saved]
def saved_bytes(model: nn.Module, x: torch.Tensor, context) -> int:
    """Bytes of activations (the input included) autograd keeps for backward during one forward
    pass under `context`: the tensors it saves, less the parameters, which stay in memory anyway."""
    parameters = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        # Count each storage once: a ReLU's output saved again as the next Linear's input is one tensor.
        storage = t.untyped_storage()
        if storage.data_ptr() not in parameters:  # a weight saved as W.t() is a view of the parameter
            seen[storage.data_ptr()] = storage.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), context():
        model(x)
    return sum(seen.values())
# --8<-- [end:saved]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-size", type=int, default=64, help="samples per forward (default 64)")
    args = parser.parse_args()
    if not 1 <= args.batch_size <= 65536:
        parser.error("--batch-size must be between 1 and 65536")

    torch.manual_seed(0)
    model = make_model().eval()
    x = torch.randn(args.batch_size, 256)

    # --8<-- [start:contexts]
    with_grad = model(x)
    with torch.no_grad():
        no_grad = model(x)
    with torch.inference_mode():
        inference = model(x)
    # --8<-- [end:contexts]
    assert torch.equal(with_grad, no_grad) and torch.equal(with_grad, inference)
    print("autograd, no_grad and inference_mode outputs are identical: True")
    print(f"requires_grad: autograd {with_grad.requires_grad}, no_grad {no_grad.requires_grad}, "
          f"inference_mode {inference.requires_grad}; is_inference(): {inference.is_inference()}")

    contexts = {"autograd": torch.enable_grad, "no_grad": torch.no_grad, "inference_mode": torch.inference_mode}
    for name, context in contexts.items():
        saved = saved_bytes(model, x, context)
        print(f"activations saved for backward under {name}: {saved:,} bytes ({saved / 2**20:.2f} MiB)")

    times = {name: Timer("with c(): model(x)", globals={"c": c, "model": model, "x": x}, num_threads=1)
             .blocked_autorange(min_run_time=0.3).median for name, c in contexts.items()}
    print(f"speed-up over the autograd forward (autograd time / this time, 1 thread): "
          f"no_grad {times['autograd'] / times['no_grad']:.2f}, inference_mode {times['autograd'] / times['inference_mode']:.2f}")

    # --8<-- [start:limits]
    try:
        inference.add_(1)  # in-place update outside inference mode
    except RuntimeError as error:
        print(f"in-place on an inference tensor: RuntimeError: {str(error).split('.')[0]}.")
    try:
        head = nn.Linear(10, 1)
        head(inference).sum().backward()  # autograd needs to save its input for backward
    except RuntimeError as error:
        print(f"autograd on an inference tensor: RuntimeError: {str(error).split('.')[0]}.")
    head(inference.clone()).sum().backward()  # a clone is a normal tensor
    print(f"after .clone(), backward works: {head.weight.grad is not None}")
    # --8<-- [end:limits]


if __name__ == "__main__":
    main()
