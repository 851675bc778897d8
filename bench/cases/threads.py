"""Intra-op threads from 1 to twice the usable cores: the speed-up, then what oversubscription costs."""

import torch

from bench.machine import usable_cores

TITLE = "Threads"
ORDER = 10


def run(session) -> None:
    torch.manual_seed(0)
    size = session.pick(256, 1024)
    a = torch.randn(size, size)
    batch = session.pick(64, 256)
    mlp = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(),
                              torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
                              torch.nn.Linear(1024, 10)).eval()
    x = torch.randn(batch, 512)

    def forward():
        with torch.inference_mode():
            return mlp(x)

    usable = usable_cores()
    cases = [(f"{size}x{size} matmul", lambda: a @ a, None),
             (f"MLP forward, batch {batch}", forward, batch)]
    for group, fn, items in cases:
        for n in range(1, 2 * usable + 1):
            label = f"{n} thread{'s' if n > 1 else ''}" + (" (> usable cores)" if n > usable else "")
            session.time(group, label, fn, num_threads=n, baseline=n == 1, items=items,
                         params={"usable_cores": usable})
