"""Which oneDNN kernel ran: read oneDNN's verbose lines for a convolution and a bf16 matmul.

From the shell, for any program: ONEDNN_VERBOSE=1 python train.py | grep ,exec,
In code, for one region: with torch.backends.mkldnn.verbose(torch.backends.mkldnn.VERBOSE_ON): ...
The implementation name ends in the instruction set the kernel was built for (jit:avx2,
brg_conv_fwd:avx512_core, brg_matmul:avx512_core_bf16, ...).
"""
import argparse
import ctypes
import os
import sys
import tempfile

import torch


# --8<-- [start:capture]
def onednn_lines(fn) -> list[str]:
    """oneDNN's verbose lines while fn() runs. oneDNN prints them from C to file descriptor 1,
    so they are caught there, not through sys.stdout."""
    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    with tempfile.TemporaryFile(mode="w+") as caught:
        saved = os.dup(1)
        os.dup2(caught.fileno(), 1)
        try:
            with torch.backends.mkldnn.verbose(torch.backends.mkldnn.VERBOSE_ON):
                fn()
        finally:
            libc.fflush(None)  # C's stdout buffer, before fd 1 goes back
            os.dup2(saved, 1)
            os.close(saved)
        caught.seek(0)
        return [line.strip() for line in caught if line.startswith("onednn_verbose")]


def kernels(lines: list[str]) -> list[tuple[str, str]]:
    """(primitive, implementation) of each primitive executed, e.g. ("convolution", "jit:avx2")."""
    found = []
    for line in lines:
        fields = line.split(",")
        if "exec" in fields and "cpu" in fields:  # onednn_verbose,v1,primitive,exec,cpu,<primitive>,<impl>,...
            at = fields.index("cpu")
            found.append((fields[at + 1], fields[at + 2]))
    return found
# --8<-- [end:capture]


def describe(found: list[tuple[str, str]], main: str) -> str:
    names = [impl for primitive, impl in found if primitive == main]
    reorders = sum(primitive == "reorder" for primitive, _ in found)
    if not names:
        return "no oneDNN primitive (torch's own kernel or MKL ran it)"
    return f"{main} {', '.join(names)}; layout reorders: {reorders}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="also print oneDNN's raw lines")
    args = parser.parse_args()
    if not torch.backends.mkldnn.is_available():
        print("SKIP: this torch build has no oneDNN (torch.backends.mkldnn.is_available() is False)")
        return 0

    torch.manual_seed(0)
    conv = torch.nn.Conv2d(16, 32, 3, padding=1).eval()
    images = torch.randn(8, 16, 32, 32)
    linear = torch.nn.Linear(64, 64).eval()
    rows = torch.randn(8, 64)

    def bf16_linear():
        with torch.autocast("cpu", dtype=torch.bfloat16):
            linear(rows)

    # --8<-- [start:cases]
    cases = {
        "fp32 conv, NCHW input": lambda: conv(images),
        "fp32 conv, channels_last input": lambda: conv(images.to(memory_format=torch.channels_last)),
        "bf16 linear under autocast": bf16_linear,
        "fp32 linear": lambda: linear(rows),
    }
    print(f"torch CPU capability: {torch.backends.cpu.get_cpu_capability()}")
    with torch.inference_mode():
        for name, fn in cases.items():
            lines = onednn_lines(fn)
            main_primitive = "matmul" if "linear" in name else "convolution"
            print(f"{name + ':':32} {describe(kernels(lines), main_primitive)}")
            if args.verbose:
                print("\n".join(f"    {line}" for line in lines if ",exec," in line))
    # --8<-- [end:cases]
    return 0


if __name__ == "__main__":
    sys.exit(main())
