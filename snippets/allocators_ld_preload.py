"""Run one allocation-heavy PyTorch workload under glibc malloc, jemalloc and tcmalloc (LD_PRELOAD).

python allocators_ld_preload.py [--allocator all|glibc|jemalloc|tcmalloc] [--jemalloc PATH] [--tcmalloc PATH]

Each allocator runs in a fresh process: LD_PRELOAD is read only when a process starts.
"""
import argparse
import json
import os
import platform
import subprocess
import sys

import torch

# --8<-- [start:libraries]
# Where the packages put the libraries (Debian/Ubuntu: apt install libjemalloc2 libtcmalloc-minimal4;
# conda: conda install -c conda-forge jemalloc gperftools -> $CONDA_PREFIX/lib).
CANDIDATES = {
    "jemalloc": [f"/usr/lib/{platform.machine()}-linux-gnu/libjemalloc.so.2", "/usr/lib64/libjemalloc.so.2",
                 os.path.join(os.environ.get("CONDA_PREFIX", "/nonexistent"), "lib", "libjemalloc.so.2")],
    "tcmalloc": [f"/usr/lib/{platform.machine()}-linux-gnu/libtcmalloc_minimal.so.4",
                 "/usr/lib64/libtcmalloc_minimal.so.4",
                 os.path.join(os.environ.get("CONDA_PREFIX", "/nonexistent"), "lib", "libtcmalloc_minimal.so.4")],
}
# --8<-- [end:libraries]


# --8<-- [start:workload]
def workload(model: torch.nn.Module, steps: int = 50) -> torch.Tensor:
    """Small-batch inference with a different batch size and sequence length each call: every
    step frees and allocates tensors of new sizes, which is where allocators differ."""
    total = torch.zeros(8)
    with torch.inference_mode():
        for i in range(steps):
            batch, length = 1 + (i * 7) % 16, 8 + (i * 13) % 57
            x = torch.randn(batch, length, 64, generator=torch.Generator().manual_seed(i))
            h = model(x)                                   # (batch, length, 8)
            total += torch.cat([h.mean(1), h.amax(1)]).sum(0)
    return total


def make_model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.LayerNorm(256),
                               torch.nn.Linear(256, 8)).eval()
# --8<-- [end:workload]


# --8<-- [start:loaded]
def loaded_libraries() -> str:
    """The shared objects mapped into this process (Linux): proof that LD_PRELOAD took effect."""
    with open("/proc/self/maps") as maps:
        return maps.read()
# --8<-- [end:loaded]


def rss_mb() -> float:
    """Resident memory of this process now (Linux), in MB."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def child(expect: str) -> None:
    """Runs inside the relaunched process: check the allocator, time the workload, print JSON."""
    from torch.utils.benchmark import Timer

    name = os.path.basename(os.path.realpath(expect)) if expect else ""  # maps shows the real file
    if name and name not in loaded_libraries():
        print(json.dumps({"error": f"{name} is not mapped although LD_PRELOAD={os.environ.get('LD_PRELOAD')}"}))
        sys.exit(1)
    model = make_model()
    before = rss_mb()
    result = workload(model)
    t = Timer("workload(model)", globals={"workload": workload, "model": model},
              num_threads=1).blocked_autorange(min_run_time=0.5)
    # Memory the allocator kept from the OS after the workload (what a long-running server keeps).
    print(json.dumps({"median": t.median, "iqr": t.iqr, "result": result.tolist(), "rss_growth_mb": rss_mb() - before}))


# --8<-- [start:relaunch]
def run_under(library: str | None) -> dict:
    """This file again, in a fresh process, with LD_PRELOAD set (or not, for glibc)."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("LD_PRELOAD", None)
    if library:
        env["LD_PRELOAD"] = library
    done = subprocess.run([sys.executable, __file__, "--child", library or ""],
                          env=env, capture_output=True, text=True, timeout=300)
    lines = done.stdout.strip().splitlines()
    if not lines:
        raise SystemExit(f"the child process failed:\n{done.stderr}")
    report = json.loads(lines[-1])
    if done.returncode or "error" in report:
        raise SystemExit(f"the child process failed: {report.get('error', done.stderr)}")
    return report
# --8<-- [end:relaunch]


def find(allocator: str, override: str | None) -> str | None:
    paths = [override] if override else CANDIDATES[allocator]
    return next((p for p in paths if os.path.isfile(p)), None)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--allocator", choices=["all", "glibc", "jemalloc", "tcmalloc"], default="all")
    parser.add_argument("--jemalloc", metavar="PATH", help="path of libjemalloc.so.2 (default: search)")
    parser.add_argument("--tcmalloc", metavar="PATH", help="path of libtcmalloc_minimal.so.4 (default: search)")
    parser.add_argument("--child", metavar="LIBRARY", help=argparse.SUPPRESS)
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    if args.child is not None:
        child(args.child)
        return
    if sys.platform != "linux":
        print("SKIP: LD_PRELOAD and /proc/self/maps are Linux-only (macOS: DYLD_INSERT_LIBRARIES)")
        return

    chosen = ["glibc", "jemalloc", "tcmalloc"] if args.allocator == "all" else [args.allocator]
    reports = {}
    for allocator in chosen:
        library = None
        if allocator != "glibc":
            library = find(allocator, getattr(args, allocator))
            if library is None:
                tried = getattr(args, allocator) or ", ".join(CANDIDATES[allocator])
                print(f"SKIP: {allocator}: library not found (tried {tried})")
                continue
        reports[allocator] = run_under(library)
        r = reports[allocator]
        where = f"LD_PRELOAD={library}, found in /proc/self/maps" if library else "no LD_PRELOAD"
        print(f"{allocator:9} {r['median'] * 1e3:7.1f} ms per run (IQR {r['iqr'] * 1e3:.1f} ms), "
              f"RSS +{r['rss_growth_mb']:.1f} MB; {where}")

    if "glibc" in reports:
        base = torch.tensor(reports["glibc"]["result"])
        for allocator, r in reports.items():
            if allocator != "glibc":
                same = torch.allclose(torch.tensor(r["result"]), base, rtol=1e-5, atol=1e-5)
                print(f"{allocator}: same results as glibc: {same}; "
                      f"{reports['glibc']['median'] / r['median']:.2f}x glibc's speed")


if __name__ == "__main__":
    main()
