"""Run one allocation-heavy PyTorch workload under glibc malloc, jemalloc and tcmalloc (LD_PRELOAD).

python allocators_ld_preload.py [--workload infer|train] [--allocator all|glibc|jemalloc|tcmalloc]
                                [--jemalloc PATH] [--tcmalloc PATH]

Each allocator runs in a fresh process: LD_PRELOAD (and MALLOC_CONF) are read only when a process starts.
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


# --8<-- [start:train]
def make_training(steps: int = 5, batch: int = 64):
    """pytorch/examples' MNIST CNN and optimiser, on random MNIST-size images held in memory:
    returns epoch(), which trains `steps` batches and returns their losses. Its activations
    (about 9 MB for the second convolution's output) are freed and allocated again every step."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 32, 3), torch.nn.ReLU(), torch.nn.Conv2d(32, 64, 3), torch.nn.ReLU(),
        torch.nn.MaxPool2d(2), torch.nn.Dropout(0.25), torch.nn.Flatten(), torch.nn.Linear(9216, 128),
        torch.nn.ReLU(), torch.nn.Dropout(0.5), torch.nn.Linear(128, 10), torch.nn.LogSoftmax(dim=1))
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    images, labels = torch.randn(steps * batch, 1, 28, 28), torch.randint(0, 10, (steps * batch,))
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images, labels), batch_size=batch,
                                         shuffle=True, generator=torch.Generator().manual_seed(0))

    def epoch() -> torch.Tensor:
        losses = []
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.nll_loss(model(x), y)
            loss.backward()
            optimizer.step()
            losses.append(loss.detach())
        return torch.stack(losses)
    return epoch
# --8<-- [end:train]


# --8<-- [start:malloc_conf]
# jemalloc's settings are read from MALLOC_CONF when the process starts. By default it returns
# freed pages to the OS within seconds, so a training loop that frees and allocates the same
# large activations every step faults them in again every step.
MALLOC_CONFS = {
    # what `python -m torch.backends.xeon.run_cpu --enable-jemalloc` sets (torch 2.14.1)
    "run_cpu's": "oversize_threshold:1,background_thread:true,metadata_thp:auto",
    # never return freed pages to the OS: no faults, but memory stays at its peak
    "no-decay": "dirty_decay_ms:-1,muzzy_decay_ms:-1",
}
# --8<-- [end:malloc_conf]


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


def child(expect: str, task: str = "infer", steps: int = 5) -> None:
    """Runs inside the relaunched process: check the allocator, time the workload, print JSON."""
    from torch.utils.benchmark import Timer

    name = os.path.basename(os.path.realpath(expect)) if expect else ""  # maps shows the real file
    if name and name not in loaded_libraries():
        print(json.dumps({"error": f"{name} is not mapped although LD_PRELOAD={os.environ.get('LD_PRELOAD')}"}))
        sys.exit(1)
    before = rss_mb()
    faults = None
    if task == "train":
        import resource  # Unix-only, like the rest of the child

        epoch = make_training(steps)
        result = epoch()  # the first epoch, the same in every process: the results to compare
        start = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        epoch()  # page faults of a warm epoch: pages the allocator gave back to the OS, touched again
        faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - start) / steps
        t = Timer("epoch()", globals={"epoch": epoch}, num_threads=1).blocked_autorange(min_run_time=0.5)
        median, iqr = t.median / steps, t.iqr / steps  # per training step
    else:
        model = make_model()
        result = workload(model)
        t = Timer("workload(model)", globals={"workload": workload, "model": model},
                  num_threads=1).blocked_autorange(min_run_time=0.5)
        median, iqr = t.median, t.iqr
    # Memory the allocator kept from the OS after the workload (what a long-running server keeps).
    print(json.dumps({"median": median, "iqr": iqr, "result": result.tolist(), "rss_growth_mb": rss_mb() - before,
                      "faults_per_step": faults}))


# --8<-- [start:relaunch]
def run_under(library: str | None, task: str = "infer", malloc_conf: str | None = None,
              steps: int = 5) -> dict:
    """This file again, in a fresh process, with LD_PRELOAD (and MALLOC_CONF) set, or not, for glibc."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("LD_PRELOAD", None)
    env.pop("MALLOC_CONF", None)
    if library:
        env["LD_PRELOAD"] = library
    if malloc_conf:
        env["MALLOC_CONF"] = malloc_conf
    done = subprocess.run([sys.executable, __file__, "--child", library or "", "--workload", task,
                           "--steps", str(steps)], env=env, capture_output=True, text=True, timeout=300)
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
    parser.add_argument("--workload", choices=["infer", "train"], default="infer",
                        help="small inference calls of varying shapes (default) or MNIST CNN training steps")
    parser.add_argument("--allocator", choices=["all", "glibc", "jemalloc", "tcmalloc"], default="all")
    parser.add_argument("--jemalloc", metavar="PATH", help="path of libjemalloc.so.2 (default: search)")
    parser.add_argument("--tcmalloc", metavar="PATH", help="path of libtcmalloc_minimal.so.4 (default: search)")
    parser.add_argument("--steps", type=int, default=5, help="training steps per timed epoch (default 5)")
    parser.add_argument("--child", metavar="LIBRARY", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not 1 <= args.steps <= 1000:
        parser.error("--steps must be between 1 and 1000")
    return args


def main() -> None:
    args = parse_args()
    if args.child is not None:
        child(args.child, args.workload, args.steps)
        return
    if sys.platform != "linux":
        print("SKIP: LD_PRELOAD and /proc/self/maps are Linux-only (macOS: DYLD_INSERT_LIBRARIES)")
        return

    chosen = ["glibc", "jemalloc", "tcmalloc"] if args.allocator == "all" else [args.allocator]
    settings = []  # (label, library, MALLOC_CONF)
    for allocator in chosen:
        library = None
        if allocator != "glibc":
            library = find(allocator, getattr(args, allocator))
            if library is None:
                tried = getattr(args, allocator) or ", ".join(CANDIDATES[allocator])
                print(f"SKIP: {allocator}: library not found (tried {tried})")
                continue
        settings.append((allocator, library, None))
        if allocator == "jemalloc" and args.workload == "train":  # its settings matter for training
            settings += [(f"jemalloc + {name} MALLOC_CONF", library, conf) for name, conf in MALLOC_CONFS.items()]

    unit = "step" if args.workload == "train" else "run"
    reports = {}
    for label, library, conf in settings:
        r = reports[label] = run_under(library, args.workload, conf, args.steps)
        where = f"LD_PRELOAD={library}, found in /proc/self/maps" if library else "no LD_PRELOAD"
        if conf:
            where = f"MALLOC_CONF={conf}, " + where
        cost = (f"RSS +{r['rss_growth_mb']:.1f} MB" if args.workload == "infer"
                else f"{r['faults_per_step']:.1f} page faults per step")
        print(f"{label:9} {r['median'] * 1e3:7.1f} ms per {unit} (IQR {r['iqr'] * 1e3:.1f} ms), {cost}; {where}")

    if "glibc" in reports:
        base = torch.tensor(reports["glibc"]["result"])
        for label, r in reports.items():
            if label != "glibc":
                same = torch.allclose(torch.tensor(r["result"]), base, rtol=1e-5, atol=1e-5)
                print(f"{label}: same results as glibc: {same}; "
                      f"{reports['glibc']['median'] / r['median']:.2f}x glibc's speed")


if __name__ == "__main__":
    main()
