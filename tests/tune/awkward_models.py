"""Models that tune_your_model.py must get through, a step failing without stopping the run:
loaded by tests/test_tune_your_model.py as --model tests/tune/awkward_models.py:<function>."""
import torch
import torch.nn as nn


class Branchy(nn.Module):
    """A branch on the data: torch.compile breaks the graph there, and torch.export (int8, the
    other runtimes) refuses it."""

    def __init__(self):
        super().__init__()
        self.first, self.second = nn.Linear(32, 64), nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.first(x))
        if h.sum() > 0:  # data-dependent control flow
            h = h * 2
        return self.second(h)


def graph_break():
    torch.manual_seed(0)
    return Branchy(), torch.randn(16, 32, generator=torch.Generator().manual_seed(1))


def nothing_to_quantise():
    """No convolution, linear layer or matrix product: the x86 int8 quantizer has nothing to do."""
    torch.manual_seed(0)
    return nn.Sequential(nn.LayerNorm(64), nn.GELU(), nn.LayerNorm(64)), \
        torch.randn(16, 8, 64, generator=torch.Generator().manual_seed(1))


def only_a_model():
    """A model and no inputs: --input-shape is needed."""
    return nn.Linear(8, 4)


def raises():
    raise ValueError("checkpoint not found")


def not_a_model():
    return "model", torch.zeros(2, 2)
