"""From naive to fast, training: the article's loop against a tuned one, on real handwritten digits,
compared by the time each takes to reach the same held-out accuracy.

The digits are scikit-learn's (1,797 scans of 8x8 pixels shipped inside the package: no download),
scaled to 28x28 and written as MNIST's files, so the real torchvision.datasets.MNIST reads them;
a fixed split holds 360 of them out. The naive loop trains for a fixed number of epochs; the
held-out accuracy every run of it ended at or above is the target every other step trains to.

Beside step 4 (channels_last) two side rows try a memory allocator: the same loop in a fresh
process with tcmalloc preloaded (LD_PRELOAD is read only when a process starts), against the same
loop in a fresh process with glibc's malloc, run in the same round: child against child, the
training timed as every other step's is, not the process start or the data set-up. The child
checks /proc/self/maps for the library, so a preload that was ignored cannot pass as tcmalloc.
Without libtcmalloc_minimal.so.4 (Debian/Ubuntu: apt install libtcmalloc-minimal4) the two rows
are "not run", with the reason.

    python case_study_training.py            # every step, 3 runs each (about two minutes on 2 cores)
    python case_study_training.py --quick    # one run each, fewer epochs, no compile
    python case_study_training.py --tcmalloc PATH   # libtcmalloc_minimal.so.4 elsewhere
"""
import argparse
import contextlib
import json
import os
import platform
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import load_digits
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

STEPS = ("naive", "in_memory", "optimiser", "channels_last", "bf16")  # cumulative: each adds to the one before
# Tried on top of channels_last, off the path: compile does not pay back in a run this short; the
# allocator rows each train in a fresh process, tcmalloc compared with the glibc one (its control).
SIDE_ROWS = ("compile", "glibc_fresh", "tcmalloc")
CHILD_ROWS = {"glibc_fresh": None, "tcmalloc": "tcmalloc"}  # {row: the allocator its child preloads}
NAMES = {"glibc_fresh": "glibc fresh", "tcmalloc": "tcmalloc"}  # the table's names: both in fresh processes
# Where the packages put tcmalloc (Debian/Ubuntu: apt install libtcmalloc-minimal4; conda: conda
# install -c conda-forge gperftools -> $CONDA_PREFIX/lib), as snippets/allocators_ld_preload.py finds it.
TCMALLOC = [f"/usr/lib/{platform.machine()}-linux-gnu/libtcmalloc_minimal.so.4", "/usr/lib64/libtcmalloc_minimal.so.4",
            os.path.join(os.environ.get("CONDA_PREFIX", "/nonexistent"), "lib", "libtcmalloc_minimal.so.4")]
HELD_OUT = 360  # digits kept for the accuracy check, the same ones in every run
EVAL_EVERY = 320  # training images between two accuracy checks (a fifth of an epoch); not timed
FULL = {"runs": 3, "naive_epochs": 10, "max_epochs": 20}
QUICK = {"runs": 1, "naive_epochs": 4, "max_epochs": 8}


# --8<-- [start:data]
def write_digits_as_mnist(root: Path) -> None:
    """scikit-learn's digits (0-16 on 8x8) as 28x28 uint8 images, a 20x20 digit centred as MNIST's
    are, in MNIST's IDX files: magic (0x0803 images, 0x0801 labels), sizes, then the bytes."""
    digits = load_digits()
    images = torch.tensor(digits.images, dtype=torch.float32)[:, None] / 16
    images = F.pad(F.interpolate(images, size=(20, 20), mode="bilinear"), (4, 4, 4, 4))[:, 0]
    images = (images.clamp(0, 1) * 255).round().to(torch.uint8)
    labels = torch.tensor(digits.target, dtype=torch.uint8)
    order = torch.randperm(len(labels), generator=torch.Generator().manual_seed(0))  # the fixed split
    raw = root / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for split, index in (("t10k", order[:HELD_OUT]), ("train", order[HELD_OUT:])):
        (raw / f"{split}-images-idx3-ubyte").write_bytes(
            struct.pack(">4I", 0x0803, len(index), 28, 28) + images[index].numpy().tobytes())
        (raw / f"{split}-labels-idx1-ubyte").write_bytes(
            struct.pack(">2I", 0x0801, len(index)) + labels[index].numpy().tobytes())
# --8<-- [end:data]


# --8<-- [start:model]
class DigitsCNN(nn.Module):
    """Two 3x3 convolutions and two linear layers: 4.2 million multiply-adds per 28x28 image."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 32 x 14 x 14
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))  # 64 x 7 x 7
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x))
# --8<-- [end:model]


class Checker:
    """Held-out accuracy every EVAL_EVERY training images, with the clock stopped while it checks."""

    def __init__(self, model: nn.Module, images: torch.Tensor, labels: torch.Tensor, target: float | None):
        self.model, self.images, self.labels, self.target = model, images, labels, target
        self.trained_s, self.seen, self.history = 0.0, 0, []  # history: (seconds trained, epochs, accuracy)
        self.started = time.perf_counter()

    def step_done(self, images: int, epochs: float) -> bool:
        """Count a step's images; True once the accuracy has reached the target."""
        self.seen += images
        return self.seen >= EVAL_EVERY and self.check(epochs)

    def finish(self, epochs: float) -> None:
        """The accuracy where training ended, if the last check was before it."""
        if self.seen:
            self.check(epochs)

    def check(self, epochs: float) -> bool:
        self.seen = 0
        self.trained_s += time.perf_counter() - self.started
        accuracy = self.accuracy()
        self.history.append((self.trained_s, epochs, accuracy))
        self.started = time.perf_counter()
        return self.target is not None and accuracy >= self.target

    def accuracy(self) -> float:
        self.model.eval()
        with torch.inference_mode():
            right = (self.model(self.images).argmax(1) == self.labels).sum().item()
        self.model.train()
        return 100 * right / len(self.labels)


# --8<-- [start:naive]
def train_naive(root: Path, checker: Checker, epochs: int) -> None:
    """The article's loop: DataLoader with 4 worker processes, batches of 64, SGD at 0.01 (with the
    momentum of PyTorch's tutorials), a loss module built in every step, .item() every step."""
    model = checker.model
    train_data = datasets.MNIST(root, train=True, download=False, transform=transforms.ToTensor())
    train_loader = DataLoader(train_data, batch_size=64, shuffle=True, num_workers=4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for epoch in range(epochs):
        running_loss = 0.0
        for step, (images, labels) in enumerate(train_loader):
            output = model(images)
            loss = nn.CrossEntropyLoss()(output, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
            checker.step_done(len(labels), epoch + (step + 1) / len(train_loader))
# --8<-- [end:naive]


# --8<-- [start:tuned]
def train_tuned(images: torch.Tensor, labels: torch.Tensor, checker: Checker, max_epochs: int, step: str) -> None:
    """Step 2 on: the training set is one tensor, read once, and a batch is a slice of a shuffled
    index (no worker processes, no per-image transform, no .item()). Each later step adds to it."""
    uses = set(STEPS[:STEPS.index(step) + 1]) if step in STEPS else {*STEPS[:4], step}
    model = checker.model
    if "optimiser" in uses:  # step 3: Adam, twice the batch at 2e-3: fewer epochs to the target
        batch, optimizer = 128, torch.optim.Adam(model.parameters(), lr=2e-3)
    else:  # the naive loop's batch and optimiser
        batch, optimizer = 64, torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    if "channels_last" in uses:  # step 4
        model = model.to(memory_format=torch.channels_last)
        images = images.contiguous(memory_format=torch.channels_last)
    cold_cache = contextlib.nullcontext()
    if "compile" in uses:  # the side row: every run pays a cold compilation, as a first run does
        torch._dynamo.reset()
        # not the kernels an earlier run left on disk; only while this loop compiles
        cold_cache = torch._inductor.config.patch(force_disable_caches=True)
        model = torch.compile(model)
    loss_fn = nn.CrossEntropyLoss()
    steps_per_epoch = len(labels) // batch
    with cold_cache:
        for epoch in range(max_epochs):
            order = torch.randperm(len(labels))
            for step_index in range(steps_per_epoch):
                index = order[step_index * batch:(step_index + 1) * batch]
                with torch.autocast("cpu", dtype=torch.bfloat16, enabled="bf16" in uses):  # step 5
                    loss = loss_fn(model(images[index]), labels[index])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                if checker.step_done(batch, epoch + (step_index + 1) / steps_per_epoch):
                    return
# --8<-- [end:tuned]


def native_bf16() -> bool:
    """bf16 instructions oneDNN uses: AMX or AVX512_BF16 (x86), BF16 (Arm), read from Linux's
    /proc/cpuinfo (elsewhere: unknown, so no). Not where torch is capped below AVX-512
    (ATEN_CPU_CAPABILITY=avx2 emulates an AVX2 CPU): there, and on CPUs without them, bf16 is
    emulated and slower than fp32. The same rule as case_study_inference.py's."""
    try:
        flags = set(Path("/proc/cpuinfo").read_text().split())
    except OSError:
        flags = set()
    if platform.machine().lower() in ("aarch64", "arm64"):
        return "bf16" in flags
    capped = torch.backends.cpu.get_cpu_capability() in ("DEFAULT", "AVX2")
    return not capped and bool({"amx_bf16", "avx512_bf16"} & flags)


def find_tcmalloc(path: str | None = None) -> str | None:
    """The tcmalloc library to preload: path if given (None if it is not a file), else the first
    of TCMALLOC that exists."""
    return next((p for p in ([path] if path else TCMALLOC) if os.path.isfile(p)), None)


def not_run_reason(step: str, quick: bool, tcmalloc: str | None = None) -> str | None:
    if step == "bf16" and not native_bf16():
        return "no native bf16 on this CPU (it would be emulated, slower than fp32)"
    if step == "compile" and quick:
        return "--quick: no compilation"
    if step in CHILD_ROWS and not sys.platform.startswith("linux"):
        return "LD_PRELOAD and /proc/self/maps are Linux-only"
    if step in CHILD_ROWS and find_tcmalloc(tcmalloc) is None:
        tried = tcmalloc or ", ".join(TCMALLOC)
        return f"tcmalloc not found (tried {tried}); Debian/Ubuntu: apt install libtcmalloc-minimal4"
    return None


# --8<-- [start:allocator]
def train_in_child(step: str, target: float, seed: int, max_epochs: int, library: str | None) -> dict:
    """Step 4's loop in a fresh process (this file again, with --child): LD_PRELOAD=library for
    tcmalloc, none for the glibc control; the same threads as this process. Returns the child's
    history and the allocator it found mapped."""
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "MALLOC_CONF")}
    if library:
        env["LD_PRELOAD"] = library
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", step, "--target", str(target),
                           "--seed", str(seed), "--max-epochs", str(max_epochs),
                           "--threads", str(torch.get_num_threads()), "--expect", library or ""],
                          env=env, capture_output=True, text=True, timeout=600)
    lines = done.stdout.strip().splitlines()
    report = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {"error": done.stderr[-2000:]}
    if done.returncode or "error" in report:
        raise RuntimeError(f"the {step} child process failed: {report.get('error') or done.stderr[-2000:]}")
    report["history"] = [tuple(h) for h in report["history"]]
    return report


def child(step: str, target: float, seed: int, max_epochs: int, threads: int, expect: str) -> dict:
    """Inside the fresh process: check which allocator is mapped, set up the data (not timed), then
    train step 4's loop to the target as the parent does, timed by the Checker."""
    with open("/proc/self/maps") as maps:
        mapped = maps.read()
    name = os.path.basename(os.path.realpath(expect)) if expect else ""  # maps shows the real file
    if name and name not in mapped:
        return {"error": f"{name} is not mapped although LD_PRELOAD={os.environ.get('LD_PRELOAD')}"}
    if not name and any(other in mapped for other in ("tcmalloc", "jemalloc")):
        return {"error": "the glibc control has another allocator mapped"}
    torch.set_num_threads(threads)
    with tempfile.TemporaryDirectory(prefix="digits-") as tmp:
        root = Path(tmp)
        write_digits_as_mnist(root)
        train, test = (datasets.MNIST(root, train=split, download=False) for split in (True, False))
        train_images, test_images = (d.data[:, None].float() / 255 for d in (train, test))
        torch.manual_seed(seed)
        checker = Checker(DigitsCNN(), test_images, test.targets, target=target)
        train_tuned(train_images, train.targets, checker, max_epochs, "channels_last")
    library = next((line.split()[-1] for line in mapped.splitlines() if name and line.endswith(name)), None)
    return {"step": step, "allocator": library or "glibc malloc", "threads": threads, "history": checker.history}
# --8<-- [end:allocator]


def measure_steps(steps=STEPS + SIDE_ROWS, quick: bool = False, log=print,
                  tcmalloc: str | None = None, cfg: dict | None = None) -> tuple[float, list[dict]]:
    """Trains the naive loop cfg["runs"] times (seeds 0, 1, ...); the lowest of its final accuracies,
    which every run of it reached, is the target. Then trains every other step as many times, in
    rounds (one run of each step per round, so a slow minute falls on all alike), each stopping at
    the target; the allocator rows in fresh processes, tcmalloc and its glibc control in turn
    first. Returns the target and a row per step: the median over its runs. cfg: the runs and
    epochs (default: QUICK with quick, else FULL)."""
    cfg = cfg or (QUICK if quick else FULL)
    if "tcmalloc" in steps or "glibc_fresh" in steps:  # the one is measured against the other
        steps = [*steps, *[s for s in CHILD_ROWS if s not in steps]]
    library = find_tcmalloc(tcmalloc)
    with tempfile.TemporaryDirectory(prefix="digits-") as tmp:
        root = Path(tmp)
        write_digits_as_mnist(root)
        # what the tuned loop reads once: the same files, as float tensors scaled as ToTensor() does
        train, test = (datasets.MNIST(root, train=split, download=False) for split in (True, False))
        tensors = {name: (d.data[:, None].float() / 255, d.targets) for name, d in (("train", train), ("test", test))}
        log(f"digits: {len(train)} to train on, {len(test)} held out (scikit-learn's, as MNIST files)")

        rows = [{"step": s, "histories": [], "not_run": not_run_reason(s, quick, tcmalloc)}
                for s in STEPS + SIDE_ROWS if s in steps]
        for seed in range(cfg["runs"]):
            torch.manual_seed(seed)
            checker = Checker(DigitsCNN(), *tensors["test"], target=None)
            train_naive(root, checker, cfg["naive_epochs"])
            checker.finish(cfg["naive_epochs"])
            rows[0]["histories"].append(checker.history)
        target = min(history[-1][2] for history in rows[0]["histories"])
        log(f"target: {target:.1f}% held-out accuracy (the naive loop's after {cfg['naive_epochs']} epochs, "
            f"the lowest of {cfg['runs']} run{'s' * (cfg['runs'] > 1)})")
        for seed in range(cfg["runs"]):
            in_process = [r for r in rows[1:] if not r["not_run"] and r["step"] not in CHILD_ROWS]
            children = [r for r in rows if not r["not_run"] and r["step"] in CHILD_ROWS]
            for row in in_process:
                torch.manual_seed(seed)
                checker = Checker(DigitsCNN(), *tensors["test"], target=target)
                train_tuned(*tensors["train"], checker, cfg["max_epochs"], row["step"])
                row["histories"].append(checker.history)
            for row in children[::-1] if seed % 2 else children:  # which goes first alternates
                preload = library if CHILD_ROWS[row["step"]] else None
                report = train_in_child(row["step"], target, seed, cfg["max_epochs"], preload)
                row["histories"].append(report["history"])
                row["allocator"] = report["allocator"]

    for row in [r for r in rows if not r["not_run"]]:
        # each run where it first reached the target (or, if it never did, where it stopped)
        runs = [next((h for h in history if h[2] >= target), history[-1]) for history in row["histories"]]
        reached = all(accuracy >= target for _, _, accuracy in runs)
        row["seconds"] = statistics.median(seconds for seconds, _, _ in runs) if reached else None
        row["run_seconds"] = [seconds for seconds, _, _ in runs]
        row["epochs"] = statistics.median(epochs for _, epochs, _ in runs)
        row["accuracy"] = statistics.median(accuracy for _, _, accuracy in runs)
        row["images_per_s"] = statistics.median(epochs * len(train) / seconds for seconds, epochs, _ in runs)
    return target, rows


def print_table(target: float, rows: list[dict]) -> None:
    naive = next((r["seconds"] for r in rows if r["step"] == "naive" and not r["not_run"]), None)
    print(f"{'step':20} {'time to target':>14} {'x naive':>8} {'epochs':>7} {'accuracy':>9} {'images/s':>9}")
    for row in rows:
        name = (f"{STEPS.index(row['step']) + 1} {row['step']}" if row["step"] in STEPS
                else f"(side) {NAMES.get(row['step'], row['step'])}")
        if row["not_run"]:
            print(f"{name:20} not run: {row['not_run']}")
        elif row["seconds"] is None:
            print(f"{name:20} {'not reached':>14} {'':>8} {row['epochs']:7.1f} {row['accuracy']:8.1f}% "
                  f"{row['images_per_s']:9.1f}")
        else:
            speedup = f"{naive / row['seconds']:.2f}" if naive else "-"
            print(f"{name:20} {row['seconds']:13.2f}s {speedup:>8} {row['epochs']:7.1f} {row['accuracy']:8.1f}% "
                  f"{row['images_per_s']:9.1f}")
    children = {r["step"]: r for r in rows if r["step"] in CHILD_ROWS}
    if children:  # tcmalloc against its control, both children
        found = {step: r for step, r in children.items() if not r["not_run"] and r["seconds"]}
        result = (f"{found['glibc_fresh']['seconds'] / found['tcmalloc']['seconds']:.2f}x (preloaded "
                  f"{found['tcmalloc']['allocator']}, found in /proc/self/maps)" if len(found) == len(CHILD_ROWS)
                  else "not measured")
        print(f"tcmalloc against glibc malloc, each in a fresh process on top of step 4: {result}")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default=",".join(STEPS + SIDE_ROWS),
                        help=f"comma-separated steps, naive among them (default: all): {', '.join(STEPS + SIDE_ROWS)}")
    parser.add_argument("--quick", action="store_true", help="one run per step, fewer epochs, no compile")
    parser.add_argument("--tcmalloc", metavar="PATH", help="path of libtcmalloc_minimal.so.4 (default: search)")
    # the allocator rows' fresh process: which row, the target, the seed, epochs, threads, the library
    parser.add_argument("--child", metavar="STEP", help=argparse.SUPPRESS)
    parser.add_argument("--target", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--max-epochs", type=int, default=FULL["max_epochs"], help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads(), help=argparse.SUPPRESS)
    parser.add_argument("--expect", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        if args.child not in CHILD_ROWS:
            parser.error(f"--child: unknown row {args.child!r}; valid: {', '.join(CHILD_ROWS)}")
        if args.target is None or not 0 < args.target <= 100:
            parser.error("--child needs --target, a held-out accuracy in percent (0 to 100]")
        if args.max_epochs < 1 or args.threads < 1:
            parser.error("--max-epochs and --threads must be at least 1")
        if bool(CHILD_ROWS[args.child]) != bool(args.expect):
            parser.error(f"--child {args.child}: --expect names the preloaded library for tcmalloc only")
        return args
    args.steps = [s.strip() for s in args.steps.split(",") if s.strip()]
    unknown = [s for s in args.steps if s not in STEPS + SIDE_ROWS]
    if unknown or not args.steps:
        parser.error(f"--steps: unknown step(s) {', '.join(unknown) or '(none given)'}; "
                     f"valid: {', '.join(STEPS + SIDE_ROWS)}")
    if "naive" not in args.steps:
        parser.error("--steps must include naive: its final accuracy is the target the others train to")
    return args


def main() -> None:
    args = parse_args()
    if args.child is not None:  # one allocator row's fresh process: JSON on stdout
        report = child(args.child, args.target, args.seed, args.max_epochs, args.threads, args.expect)
        print(json.dumps(report))
        sys.exit(1 if "error" in report else 0)
    target, rows = measure_steps(args.steps, args.quick, tcmalloc=args.tcmalloc)
    print_table(target, rows)


if __name__ == "__main__":
    main()
