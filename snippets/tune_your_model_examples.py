"""Three models of different shape for tune_your_model.py, each a function that returns (model,
example inputs): the form your own model takes there. Random weights, seeded; nothing downloaded.

python tune_your_model.py --model tune_your_model_examples.py:cnn
python tune_your_model.py --model tune_your_model_examples.py:encoder
python tune_your_model.py --model tune_your_model_examples.py:mlp
python tune_your_model_examples.py      # each model's size and output
"""
import torch
import torch.nn as nn


def cnn():
    """A CNN: four convolution blocks (convolution, batch norm, ReLU; stride 2 from the second),
    global average pooling and a 10-class head, on 16 images of 64x64."""
    torch.manual_seed(0)
    blocks, width = [], 3
    for out, stride in ((32, 1), (64, 2), (128, 2), (256, 2)):
        blocks += [nn.Conv2d(width, out, 3, stride, 1, bias=False), nn.BatchNorm2d(out), nn.ReLU()]
        width = out
    model = nn.Sequential(*blocks, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(width, 10))
    images = torch.randn(16, 3, 64, 64, generator=torch.Generator().manual_seed(1))
    return model, images


class Encoder(nn.Module):
    """Token and position embeddings, 4 layers of nn.TransformerEncoderLayer (d_model 256, 4 heads,
    GELU), mean pooling and a 10-class head."""

    def __init__(self, vocab: int = 8000, length: int = 64, width: int = 256):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.positions = nn.Parameter(0.02 * torch.randn(length, width))
        layer = nn.TransformerEncoderLayer(width, 4, 4 * width, activation="gelu", batch_first=True)
        self.body = nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)
        self.head = nn.Linear(width, 10)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(self.embed(tokens) + self.positions[:tokens.shape[1]]).mean(1))


def encoder():
    """A transformer encoder (Encoder) on 16 sequences of 64 token ids."""
    torch.manual_seed(0)
    tokens = torch.randint(0, 8000, (16, 64), generator=torch.Generator().manual_seed(1))
    return Encoder(), tokens


def mlp():
    """A small MLP: 256 features, two hidden layers of 512, 10 classes, on a batch of 64 rows."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    return model, torch.randn(64, 256, generator=torch.Generator().manual_seed(1))


if __name__ == "__main__":
    for build in (cnn, encoder, mlp):
        model, inputs = build()
        with torch.no_grad():
            out = model.eval()(inputs)
        print(f"{build.__name__}: {sum(p.numel() for p in model.parameters()):,} parameters; "
              f"inputs {list(inputs.shape)} {str(inputs.dtype).replace('torch.', '')} -> output {list(out.shape)}")
