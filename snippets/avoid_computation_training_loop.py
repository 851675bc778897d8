"""The article's training step, made complete: imports, batched data, a loop that lowers the loss."""
import argparse

import torch
import torch.nn as nn


class SimpleModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 5)

    def forward(self, x):
        return self.fc(x)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=300, help="optimizer steps (default 300)")
    parser.add_argument("--batch-size", type=int, default=64, help="samples per step (default 64)")
    args = parser.parse_args()
    if args.steps < 1 or args.batch_size < 1:
        parser.error("--steps and --batch-size must be at least 1")

    torch.manual_seed(0)
    # --8<-- [start:loop]
    # A learnable target: y = x @ W + b + noise, so a falling loss means the model learned it.
    true_w, true_b = torch.randn(10, 5), torch.randn(5)
    x_train = torch.randn(4096, 10)
    y_train = x_train @ true_w + true_b + 0.01 * torch.randn(4096, 5)
    x_val = torch.randn(512, 10)
    y_val = x_val @ true_w + true_b

    model = SimpleModel()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = nn.MSELoss()  # built once, outside the loop

    def val_loss() -> float:
        model.eval()
        with torch.inference_mode():  # no graph, no saved tensors: evaluation only
            loss = loss_fn(model(x_val), y_val).item()
        model.train()
        return loss

    before = val_loss()
    running = torch.zeros(())
    for step in range(args.steps):
        idx = torch.randint(0, x_train.shape[0], (args.batch_size,))
        x, y = x_train[idx], y_train[idx]  # a batch: (batch_size, 10) -> (batch_size, 5)
        optimizer.zero_grad()  # set_to_none=True is the default: grads become None, not zeros
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        running += loss.detach()  # stays a tensor: no .item() (and no sync on a GPU) per step
    after = val_loss()
    # --8<-- [end:loop]

    print(f"validation MSE before training: {before:.4f}")
    print(f"validation MSE after {args.steps} steps of batch {args.batch_size}: {after:.4f}")
    print(f"mean training loss over the run: {(running / args.steps).item():.4f}")
    assert after < before / 10, (before, after)
    print("loss fell more than tenfold: True")

    optimizer.zero_grad()
    print(f"after zero_grad(), every grad is None: {all(p.grad is None for p in model.parameters())}")


if __name__ == "__main__":
    main()
