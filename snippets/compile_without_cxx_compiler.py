"""What torch.compile does when no C++ compiler works, and the fallbacks that still run."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile


def attempt(description: str, make_compiled, model, x) -> None:
    import torch

    torch._dynamo.reset()
    try:
        with torch.inference_mode():
            ok = torch.allclose(make_compiled()(x), model(x))
        print(f"{description}: runs, output matches eager: {ok}")
    except Exception as error:  # the first call is where compiling happens, so where it fails
        print(f"{description}: fails: {type(error).__name__}: {str(error).splitlines()[0]}")


def child() -> None:
    """Runs in a fresh process whose CXX names a compiler that does not exist."""
    import torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU()).eval()  # ReLU needs a C++ kernel
    x = torch.randn(4, 16)
    # --8<-- [start:fallbacks]
    attempt("torch.compile(model) (inductor, needs g++/clang++)", lambda: torch.compile(model), model, x)
    attempt('torch.compile(model, backend="aot_eager") (no C++)',
            lambda: torch.compile(model, backend="aot_eager"), model, x)
    torch._dynamo.config.suppress_errors = True  # on a backend failure: log it, run that code eagerly
    attempt("torch.compile(model) with suppress_errors=True", lambda: torch.compile(model), model, x)
    # --8<-- [end:fallbacks]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child()
        return

    cxx = os.environ.get("CXX", "g++")
    print(f"this machine: C++ compiler {cxx!r} {'found' if shutil.which(cxx) else 'NOT found'} on PATH")
    with tempfile.TemporaryDirectory(prefix="no-cxx-") as tmp:
        # Inductor reads $CXX (default g++ on Linux) when torch is imported; name one that does not exist.
        env = {**os.environ, "CXX": os.path.join(tmp, "missing", "g++"),
               "TORCHINDUCTOR_CACHE_DIR": os.path.join(tmp, "cache")}
        print(f"child process runs with CXX={env['CXX']}")
        result = subprocess.run([sys.executable, __file__, "--child"], env=env,
                                capture_output=True, text=True, timeout=600)
        if result.returncode != 0:
            sys.exit(f"child process crashed:\n{result.stderr}")
        print(result.stdout.strip())


if __name__ == "__main__":
    main()
