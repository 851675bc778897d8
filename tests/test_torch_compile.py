"""docs/torch-compile.md: every compile runs in a snippet's own process (never in pytest), once."""
import concurrent.futures
import os
import re
import subprocess
import sys

import pytest

from tests.running import clean_env, run, run_here, run_shared

# Is a compiled model frozen? Freezing folds the weights into the compiled code as constants, so a
# weight changed after the first call no longer changes the output.
FROZEN = """
import torch
torch.manual_seed(0)
def frozen(how):
    torch._dynamo.reset()
    model = torch.nn.Linear(8, 8).eval()
    x = torch.randn(2, 8)
    compiled = torch.compile(model, options={"freezing": True}) if how == "options" else torch.compile(model)
    with torch.no_grad(), torch._inductor.config.patch(freezing=how == "config"):
        before = compiled(x)
        model.weight.mul_(2)
        return torch.equal(before, compiled(x))
print("options:", frozen("options"), "config:", frozen("config"))
"""


def test_compiled_output_matches_eager_and_both_are_timed():
    out = run_shared("compile_speedup_small_mlp").stdout
    assert "outputs match eager: True" in out
    assert re.search(r"compiled \d+\.\d s \(compile time\)", out)
    assert re.search(r"steady state, batch 64, \d+ thread\(s\): eager [\d.]+ us, compiled [\d.]+ us, "
                     r"speed-up [\d.]+x; with freezing [\d.]+ us, speed-up [\d.]+x", out)


def test_compile_time_shown_is_a_cold_compile():
    """The session sets one TORCHINDUCTOR_CACHE_DIR for every snippet (tests/conftest.py); the
    compile time on the page must still be a cold compile, in a fresh empty cache of its own."""
    assert os.environ.get("TORCHINDUCTOR_CACHE_DIR")  # the warm cache the snippet must not use
    out = run_shared("compile_speedup_small_mlp").stdout
    assert "compile cache: a fresh empty folder (the compile time below is a cold compile)" in out


def test_bad_batch_is_refused_before_compiling():
    result = run_here("compile_speedup_small_mlp", "--batch", "0")
    assert result.returncode != 0
    assert "--batch must be at least 1" in result.stderr


@pytest.mark.slow  # a fresh process compiling the model twice with Inductor
@pytest.mark.release
def test_compile_options_freezing_does_not_freeze_but_the_config_does():
    """naive-to-fast.md and the case study: torch.compile(options={"freezing": True}) leaves the
    weights as they are; torch._inductor.config.freezing = True freezes them."""
    done = subprocess.run([sys.executable, "-c", FROZEN], env=clean_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["options:", "False", "config:", "True"], done.stdout


@pytest.mark.release
def test_recompile_counts_default_static_dynamic():
    out = run_shared("compile_recompiles_dynamic_shapes").stdout
    assert "default (dynamic=None) compiled 2 graph(s) for 5 shapes" in " ".join(out.split())
    assert "dynamic=False compiled 5 graph(s) for 5 shapes" in " ".join(out.split())
    assert "dynamic=True compiled 1 graph(s) for 5 shapes" in " ".join(out.split())
    assert "dynamic=True, batch 1 too compiled 2 graph(s) for 6 shapes" in " ".join(out.split())
    assert "every compiled output matched eager" in out


@pytest.mark.release
@pytest.mark.slow  # the counts again, with real C++ compiles: the fast tier checks them with aot_eager
def test_inductor_recompiles_exactly_like_the_fast_demo_backend():
    """The page says the aot_eager counts hold for inductor: check it once with real C++ compiles."""
    fast = run_shared("compile_recompiles_dynamic_shapes").stdout.splitlines()[1:]
    result = run("compile_recompiles_dynamic_shapes", "--backend", "inductor")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1:] == fast


@pytest.mark.release
def test_without_a_compiler_inductor_fails_and_the_fallbacks_run():
    out = run_shared("compile_without_cxx_compiler").stdout
    assert "(inductor, needs g++/clang++): fails: InductorError: InvalidCxxCompiler" in out
    assert 'backend="aot_eager") (no C++): runs, output matches eager: True' in out
    assert "with suppress_errors=True: runs, output matches eager: True" in out


def test_cache_goes_where_the_variable_says_and_is_reused():
    out = run_shared("compile_cache_outside_source_tree").stdout
    assert re.search(r"default cache folder \(TORCHINDUCTOR_CACHE_DIR unset\): \S*torchinductor_", out)
    assert "first run (cold cache):" in out and "0 hit(s), 1 miss(es)" in out
    assert "second run (warm cache):" in out and "1 hit(s), 0 miss(es)" in out
    assert "compiled kernels (.so) in the cache folder: yes" in out
    assert "files written in the folder the program ran from: 0" in out


# A small convolutional model compiled for inference, in a fresh process: argv[1] "1" with freezing. Prints the
# compiled-graph cache's counters: hits, misses, bypasses, and the reasons logged for bypassing.
COMPILE_ONCE = """
import logging, sys, torch
from torch._dynamo.utils import counters
reasons = []  # what Inductor logs when it bypasses the cache
class Reasons(logging.Handler):
    def emit(self, record):
        if "Bypassing FX Graph Cache" in record.getMessage():
            reasons.append(record.getMessage())
logger = logging.getLogger("torch._inductor.codecache")
logger.setLevel(logging.INFO)
logger.addHandler(Reasons())
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(8 * 14 * 14, 4)).eval()
compiled = torch.compile(model)
with torch.inference_mode(), torch._inductor.config.patch(freezing=sys.argv[1] == "1"):
    compiled(torch.randn(2, 3, 16, 16))
c = counters["inductor"]
print(c["fxgraph_cache_hit"], c["fxgraph_cache_miss"], c["fxgraph_cache_bypass"], reasons)
"""


@pytest.mark.slow  # four fresh processes, two at a time, each importing torch and compiling with Inductor
@pytest.mark.release
def test_a_frozen_graph_is_compiled_again_in_every_process(tmp_path):
    """The page (freezing): a frozen graph whose weights Inductor prepacked for oneDNN (a convolution's,
    always) stays out of its compiled-graph cache, for the reason its log gives, so a second process
    with the same warm cache folder compiles the graph again; the C++ kernels' .so files are reused
    (no new one). Without freezing the second process hits the cache."""
    def two_processes(freezing: str) -> tuple[list[str], list[int]]:
        cache = tmp_path / f"cache-{freezing}"
        counts, kernels = [], []
        for _ in range(2):
            done = subprocess.run([sys.executable, "-c", COMPILE_ONCE, freezing], capture_output=True, text=True,
                                  env=clean_env(TORCHINDUCTOR_CACHE_DIR=str(cache)), cwd=tmp_path, timeout=300)
            assert done.returncode == 0, done.stderr
            counts.append(done.stdout.strip())
            kernels.append(len(list(cache.rglob("*.so"))))
        return counts, kernels

    # The two settings side by side (each pair in a row: its second process needs the first's
    # cache): at the end of a suite, with the other worker done, this test is the whole tail.
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        plain, frozen = pool.map(two_processes, ("0", "1"))
    counts, _ = plain
    assert counts == ["0 1 0 []", "1 0 0 []"]  # hits, misses, bypasses: a miss, then a hit
    counts, kernels = frozen
    bypassed = "0 0 1 [\"Bypassing FX Graph Cache because 'mkldnn tensors unpickleable'\"]"
    assert counts == [bypassed, bypassed]  # frozen: bypassed both times, for that reason
    assert kernels[0] > 0 and kernels[1] == kernels[0]
