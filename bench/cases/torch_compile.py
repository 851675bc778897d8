"""torch.compile (inductor) on CPU: steady-state speed, compile time, the inference settings
(freezing, cpp_wrapper, max-autotune), and where it does not pay."""
import os
import tempfile
import time

import torch
import torch._inductor.config

from bench.core import in_new_process, load_snippet, num_threads

TITLE = "torch.compile"
ORDER = 80
WHEN = 'Models called many times whose small ops can fuse; not for one big matmul or a tiny call.'  # Home's headline table: when the technique applies
# What its verdicts and Home's headline count: the variant a reader should use, per regime (row-id patterns)
RECOMMENDED = {"inference": ["torch_compile/steady-state-mlp-*/torch-compile-inductor"]}


MLP = load_snippet("compile_speedup_small_mlp").MLP  # the page's model: Linear, hand-written tanh GELU, Linear


def first_call(fn, x) -> float:
    start = time.perf_counter()
    with torch.inference_mode():
        fn(x)
    return time.perf_counter() - start


FIRST_CALL = """
import sys, torch
from bench.cases.torch_compile import MLP, first_call
torch.manual_seed(0)
model = MLP().eval()
print(first_call(torch.compile(model) if sys.argv[2] == "compiled" else model, torch.randn(int(sys.argv[1]), 256)))
"""


def first_call_in_new_process(batch: int, variant: str, quick: bool) -> float:
    """The first call as a reader's program makes it: in a process of its own with an empty cache.
    In the benchmark's process an earlier case may have compiled already (started Inductor's
    compile workers, imported its modules), and the "cold" compile came out four times faster."""
    with tempfile.TemporaryDirectory(prefix="bench-inductor-") as cache:
        # quick mode compiles in the process, as below: no pool of compile workers
        env = {"TORCHINDUCTOR_CACHE_DIR": cache, **({"TORCHINDUCTOR_COMPILE_THREADS": "1"} if quick else {})}
        return float(in_new_process(FIRST_CALL, batch, variant, env=env)[0])


def compiled_with(model, x, settings: dict, mode: str | None = None):
    """model compiled afresh under inductor settings, its first call made under them."""
    torch._dynamo.reset()
    compiled = torch.compile(model, mode=mode)
    with torch._inductor.config.patch(settings), torch.inference_mode():
        compiled(x)
    return compiled


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
    session.record(group, "eager", first_call_in_new_process(batch, "eager", session.quick), "s", baseline=True,
                   params=sizes)
    session.record(group, "torch.compile (inductor)", first_call_in_new_process(batch, "compiled", session.quick), "s",
                   params=sizes)
    with torch.inference_mode():
        assert torch.allclose(compiled(x), model(x), rtol=1e-4, atol=1e-5)
        group = "steady state, MLP, all cores"
        session.time(group, "eager", lambda: model(x), num_threads=threads, baseline=True, items=batch,
                     params=sizes)
        session.time(group, "torch.compile (inductor)", lambda: compiled(x), num_threads=threads, items=batch,
                     params=sizes)
    # The settings for inference, at one thread, where a small difference is measurable on a
    # busy machine. freezing: weights become constants, so Inductor folds them and prepacks them
    # for MKL/oneDNN; cpp_wrapper: the calling code is C++ instead of Python; max-autotune: times
    # candidate GEMM kernels (C++ templates against MKL) while compiling. Each is compiled at the
    # one thread it is timed at. Quick mode leaves them out: four more compiles are longer than
    # its budget.
    variants = [] if session.quick else [
        ("torch.compile (inductor)", {}, None),
        ("torch.compile, freezing", {"freezing": True}, None),
        ("torch.compile, freezing + cpp_wrapper", {"freezing": True, "cpp_wrapper": True}, None),
        ("torch.compile, max-autotune + freezing", {"freezing": True}, "max-autotune")]
    group = "steady state, MLP, 1 thread"
    if variants:
        with torch.inference_mode():
            session.time(group, "eager", lambda: model(x), num_threads=1, baseline=True, items=batch, params=sizes)
    for label, settings, mode in variants:
        with num_threads(1):
            tuned = compiled_with(model, x, settings, mode)
        with torch.inference_mode():
            assert torch.allclose(tuned(x), model(x), rtol=1e-4, atol=1e-5)
            session.time(group, label, lambda: tuned(x), num_threads=1, items=batch,
                         params={**sizes, "settings": settings, "mode": mode or "default"})
    torch._dynamo.reset()
    with torch.inference_mode():

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

    # ... or a call so small that guard checks and the wrapper cost more than the work,
    # compiled at the one thread it is timed at. cpp_wrapper cuts the wrapper's share.
    tiny = torch.nn.Linear(16, 4).eval()
    one = torch.randn(1, 16)
    group = "tiny Linear(16, 4), batch 1, 1 thread"
    tiny_variants = [("torch.compile (inductor)", {})] + ([] if session.quick else [
        ("torch.compile, cpp_wrapper", {"cpp_wrapper": True})])
    with torch.inference_mode():
        session.time(group, "eager", lambda: tiny(one), num_threads=1, baseline=True)
    for label, settings in tiny_variants:
        with num_threads(1):
            fn = compiled_with(tiny, one, settings)
        with torch.inference_mode():
            assert torch.allclose(fn(one), tiny(one), rtol=1e-4, atol=1e-5)
            session.time(group, label, lambda: fn(one), num_threads=1)
