"""Fine-tune only a head: freeze the backbone, then stop recomputing its features every epoch.

Three ways to train the same head give the same weights; the frozen ones skip work.
"""
import argparse
import copy
import statistics

import torch
import torch.nn as nn
from torch.utils.benchmark import Timer


def make_backbone() -> nn.Module:
    # Stands in for a pretrained feature extractor (no dropout, eval mode: deterministic).
    return nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                         nn.Linear(256, 256), nn.ReLU()).eval()


# --8<-- [start:freeze]
def freeze(backbone: nn.Module) -> None:
    """No grads for these parameters: backward stops at the head's input."""
    backbone.requires_grad_(False)
# --8<-- [end:freeze]


def train_head(backbone, head, batches, epochs, *, cached_features=None) -> None:
    optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(epochs):
        for i, (x, y) in enumerate(batches):
            features = cached_features[i] if cached_features is not None else backbone(x)
            optimizer.zero_grad()
            loss_fn(head(features), y).backward()
            optimizer.step()


# --8<-- [start:cache]
def cache_features(backbone: nn.Module, batches) -> list[torch.Tensor]:
    """A frozen backbone gives the same features every epoch: compute them once."""
    with torch.inference_mode():
        features = [backbone(x) for x, _ in batches]
    # Plain tensors again (inference tensors cannot be saved for backward by the head).
    return [f.clone() for f in features]
# --8<-- [end:cache]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3, help="epochs over the data (default 3)")
    parser.add_argument("--batches", type=int, default=20, help="batches of 128 samples (default 20)")
    args = parser.parse_args()
    if args.epochs < 1 or args.batches < 1:
        parser.error("--epochs and --batches must be at least 1")

    torch.manual_seed(0)
    backbone, head0 = make_backbone(), nn.Linear(256, 10)
    batches = [(torch.randn(128, 64), torch.randint(0, 10, (128,))) for _ in range(args.batches)]

    # 1. Everything trainable, but only the head is stepped: grads for the backbone are wasted.
    full_backbone, full_head = copy.deepcopy(backbone), copy.deepcopy(head0)
    train_head(full_backbone, full_head, batches, args.epochs)
    print(f"not frozen: backbone params with a grad: "
          f"{sum(p.grad is not None for p in full_backbone.parameters())} of {len(list(full_backbone.parameters()))}")

    # 2. Frozen backbone: backward computes grads for the head only.
    frozen_backbone, frozen_head = copy.deepcopy(backbone), copy.deepcopy(head0)
    freeze(frozen_backbone)
    train_head(frozen_backbone, frozen_head, batches, args.epochs)
    print(f"frozen: backbone params with a grad: "
          f"{sum(p.grad is not None for p in frozen_backbone.parameters())}; "
          f"every frozen param.grad is None: {all(p.grad is None for p in frozen_backbone.parameters())}")

    # 3. Frozen and cached: the backbone runs once, not once per epoch.
    cached_head = copy.deepcopy(head0)
    features = cache_features(frozen_backbone, batches)
    train_head(frozen_backbone, cached_head, batches, args.epochs, cached_features=features)

    for head in (frozen_head, cached_head):
        for p, q in zip(full_head.parameters(), head.parameters()):
            torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6)
    print("the three heads end with the same weights (rtol=1e-5, atol=1e-6): True")

    # One training step's forward and backward, full vs frozen backbone, same head. The two are
    # timed by turns, five rounds, and the median of the rounds' ratios is printed: a burst of other
    # work on the machine then slows one round of both, not all of one side.
    x, y = batches[0]
    def step(bb):
        nn.functional.cross_entropy(full_head(bb(x)), y).backward()
    ratios = []
    for _ in range(5):
        full, frozen = (Timer("step(bb)", globals={"step": step, "bb": bb}, num_threads=1)
                        .blocked_autorange(min_run_time=0.1).median for bb in (full_backbone, frozen_backbone))
        ratios.append(full / frozen)
    print(f"forward+backward of one batch: frozen backbone {statistics.median(ratios):.2f}x faster "
          f"(1 thread, median of 5 rounds taken by turns)")


if __name__ == "__main__":
    main()
