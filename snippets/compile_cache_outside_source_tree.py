"""Where torch.compile keeps its compiled kernels, and how to keep them out of your source tree."""
import argparse
import os
import subprocess
import sys
import tempfile
import time


def child() -> None:
    """One program run: compile a small model and report whether the kernel came from the cache."""
    import torch
    from torch._dynamo.utils import counters
    from torch._inductor.runtime.cache_dir_utils import default_cache_dir

    print(f"default cache folder (TORCHINDUCTOR_CACHE_DIR unset): {default_cache_dir()}")

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8)).eval()
    x = torch.randn(16, 64)
    with torch.inference_mode():
        start = time.perf_counter()
        out = torch.compile(model)(x)
        seconds = time.perf_counter() - start
        assert torch.allclose(out, model(x), rtol=1e-4, atol=1e-5)
    hits, misses = counters["inductor"]["fxgraph_cache_hit"], counters["inductor"]["fxgraph_cache_miss"]
    print(f"first call {seconds:.1f} s, compiled-graph cache: {hits} hit(s), {misses} miss(es)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cache-dir", default=None,
                        help="folder for the cache, e.g. ~/.cache/torchinductor "
                             "(default: a temporary folder removed at the end)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child()
        return

    with tempfile.TemporaryDirectory(prefix="inductor-cache-") as tmp:
        cache = os.path.abspath(os.path.expanduser(args.cache_dir or os.path.join(tmp, "cache")))
        # --8<-- [start:env]
        env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache}  # set before the program starts
        # --8<-- [end:env]
        project = os.path.join(tmp, "project")  # stands for your checkout: the runs start in it
        os.mkdir(project)
        for i, run in enumerate(("first run (cold cache)", "second run (warm cache)")):
            result = subprocess.run([sys.executable, os.path.abspath(__file__), "--child"], env=env,
                                    cwd=project, capture_output=True, text=True, timeout=600)
            if result.returncode != 0:
                sys.exit(f"child process failed:\n{result.stderr}")
            *default, report = result.stdout.strip().splitlines()
            if i == 0:
                print(*default, f"TORCHINDUCTOR_CACHE_DIR={cache}", sep="\n")
            print(f"{run}: {report}")
        kernels = [f for _, _, files in os.walk(cache) for f in files if f.endswith(".so")]
        print(f"compiled kernels (.so) in the cache folder: {'yes' if kernels else 'no'}")
        print(f"files written in the folder the program ran from: {len(os.listdir(project))}")


if __name__ == "__main__":
    main()
