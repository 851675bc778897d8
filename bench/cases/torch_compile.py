"""torch.compile (inductor) on CPU: steady-state speed, compile time, and where it does not pay."""
import os
import tempfile
import time

import torch
import torch._inductor.config

TITLE = "torch.compile"
ORDER = 80
WHEN = 'Models called many times whose small ops can fuse; not for one big matmul or a tiny call.'  # Home's headline table: when the technique applies


class MLP(torch.nn.Module):
    """The page's model: Linear, hand-written tanh GELU, Linear."""

    def __init__(self, dim: int = 256, hidden: int = 1024):
        super().__init__()
        self.fc1 = torch.nn.Linear(dim, hidden)
        self.fc2 = torch.nn.Linear(hidden, dim)

    def forward(self, x):
        h = self.fc1(x)
        h = 0.5 * h * (1.0 + torch.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))
        return self.fc2(h)


def first_call(fn, x) -> float:
    start = time.perf_counter()
    with torch.inference_mode():
        fn(x)
    return time.perf_counter() - start


def run(session):
    threads = torch.get_num_threads()
    torch.manual_seed(0)
    old = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="bench-inductor-") as cache:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache  # empty cache: every run measures a cold compile
        torch._dynamo.reset()
        # Quick mode compiles in this process: inductor's pool of compile workers (each a new
        # process importing torch) costs a small machine more than it saves on these small graphs.
        settings = {"compile_threads": 1} if session.quick else {}
        try:
            with torch._inductor.config.patch(settings):
                _run(session, threads)
        finally:
            torch._dynamo.reset()
            if old is None:
                os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
            else:
                os.environ["TORCHINDUCTOR_CACHE_DIR"] = old


def _run(session, threads):
    batch = session.pick(16, 64)
    model = MLP().eval()
    x = torch.randn(batch, 256)
    compiled = torch.compile(model)
    sizes = {"batch_size": batch}
    group = "first call, MLP (cold compile cache)"
    session.record(group, "eager", first_call(model, x), "s", baseline=True, params=sizes)
    session.record(group, "torch.compile (inductor)", first_call(compiled, x), "s", params=sizes)
    with torch.inference_mode():
        assert torch.allclose(compiled(x), model(x), rtol=1e-4, atol=1e-5)
        group = "steady state, MLP, all cores"
        session.time(group, "eager", lambda: model(x), num_threads=threads, baseline=True, items=batch,
                     params=sizes)
        session.time(group, "torch.compile (inductor)", lambda: compiled(x), num_threads=threads, items=batch,
                     params=sizes)

        # Where compiling loses: nothing to fuse (one big matmul is already an MKL/oneDNN call) ...
        n = session.pick(512, 1024)
        linear = torch.nn.Linear(n, n, bias=False).eval()
        big = torch.randn(n, n)
        compiled_linear = torch.compile(linear)
        assert torch.allclose(compiled_linear(big), linear(big), rtol=1e-4, atol=1e-4)
        group = "one square matmul, all cores"
        session.time(group, "eager", lambda: linear(big), num_threads=threads, baseline=True, params={"size": n})
        session.time(group, "torch.compile (inductor)", lambda: compiled_linear(big), num_threads=threads,
                     params={"size": n})

        # ... or a call so small that guard checks and the wrapper cost more than the work.
        tiny = torch.nn.Linear(16, 4).eval()
        one = torch.randn(1, 16)
        compiled_tiny = torch.compile(tiny)
        assert torch.allclose(compiled_tiny(one), tiny(one), rtol=1e-4, atol=1e-5)
        group = "tiny Linear(16, 4), batch 1, 1 thread"
        session.time(group, "eager", lambda: tiny(one), num_threads=1, baseline=True)
        session.time(group, "torch.compile (inductor)", lambda: compiled_tiny(one), num_threads=1)
