"""torch.compile on CPU: compile cost on the first call, then steady-state speed vs eager, plain and with freezing."""
import argparse
import os
import tempfile
import time

import torch
import torch._inductor.config
from torch.utils.benchmark import Timer


# --8<-- [start:model]
class MLP(torch.nn.Module):
    """Linear, hand-written tanh GELU (nine element-wise ops in eager), Linear."""

    def __init__(self, dim: int = 256, hidden: int = 1024):
        super().__init__()
        self.fc1 = torch.nn.Linear(dim, hidden)
        self.fc2 = torch.nn.Linear(hidden, dim)

    def forward(self, x):
        h = self.fc1(x)
        h = 0.5 * h * (1.0 + torch.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))
        return self.fc2(h)
# --8<-- [end:model]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batch", type=int, default=64, help="rows per call (default: 64)")
    parser.add_argument("--cache-dir",
                        help="keep inductor's compile cache here (default: a fresh temporary folder, even if "
                             "$TORCHINDUCTOR_CACHE_DIR is set, so the compile time shown is a cold compile, "
                             "as on a fresh CI runner)")
    args = parser.parse_args()
    if args.batch < 1:
        parser.error("--batch must be at least 1")

    with tempfile.TemporaryDirectory(prefix="inductor-cache-") as fresh:
        # Set before the first compile: inductor reads it when it first writes a kernel.
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.abspath(args.cache_dir or fresh)
        print("compile cache:", "the folder given by --cache-dir (warm if it holds this model)" if args.cache_dir
              else "a fresh empty folder (the compile time below is a cold compile)")
        run(args.batch)


def run(batch: int) -> None:
    torch.manual_seed(0)

    # --8<-- [start:compile]
    model = MLP().eval()
    x = torch.randn(batch, 256)
    compiled = torch.compile(model)  # default backend: inductor (C++/OpenMP kernels on CPU)

    with torch.inference_mode():
        start = time.perf_counter()
        expected = model(x)
        eager_first = time.perf_counter() - start
        start = time.perf_counter()
        got = compiled(x)  # the first call traces, generates C++, runs g++: seconds
        compiled_first = time.perf_counter() - start
    # --8<-- [end:compile]
        assert torch.allclose(got, expected, rtol=1e-4, atol=1e-5)
        print(f"first call: eager {eager_first * 1e3:.1f} ms, compiled {compiled_first:.1f} s (compile time)")
        print(f"outputs match eager: True (max abs diff {(got - expected).abs().max().item():.1e})")

        threads = torch.get_num_threads()  # the count it compiled at: inductor plans its kernels for it
        steady = lambda fn: Timer("fn(x)", globals={"fn": fn, "x": x}, num_threads=threads).blocked_autorange(
            min_run_time=0.5).median
        t_eager, t_compiled = steady(model), steady(compiled)

    # --8<-- [start:freezing]
    # For inference: freezing turns the weights into constants, so inductor can fold them and
    # prepack them for MKL/oneDNN. It needs inference_mode (or no_grad) around the calls, and
    # import torch._inductor.config (at the top of this file).
    torch._dynamo.reset()  # forget the first compile: Dynamo's cache does not look at inductor settings
    torch._inductor.config.freezing = True
    frozen = torch.compile(model)
    with torch.inference_mode():
        got = frozen(x)  # compiles again, with the weights as constants
    # --8<-- [end:freezing]
        assert torch.allclose(got, expected, rtol=1e-4, atol=1e-5)
        t_frozen = steady(frozen)
    print(f"steady state, batch {batch}, {threads} thread(s): eager {t_eager * 1e6:.1f} us, "
          f"compiled {t_compiled * 1e6:.1f} us, speed-up {t_eager / t_compiled:.2f}x; "
          f"with freezing {t_frozen * 1e6:.1f} us, speed-up {t_eager / t_frozen:.2f}x")


if __name__ == "__main__":
    main()
