"""MNIST through DataLoader workers, offline: write MNIST's own files, read them with torchvision.

The article calls datasets.MNIST(root="./data", download=True), which needs the network.
This file writes a small, seeded, digit-like set in MNIST's exact file format (IDX files under
<root>/MNIST/raw/), so the real torchvision.datasets.MNIST class reads it with download=False.

    python data_loading_mnist_workers.py                     # temporary folder, 2 workers
    python data_loading_mnist_workers.py --start-method spawn
    python data_loading_mnist_workers.py --data-dir ./data --download   # real MNIST, needs network
"""
import argparse
import multiprocessing as mp
import struct
import sys
import tempfile
from functools import partial
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, RandomSampler
from torchvision import datasets
from torchvision.transforms import v2

START_METHODS = ("fork", "spawn", "forkserver")
# The four files MNIST checks for (the .gz names in MNIST.resources, without .gz).
FILES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
         "t10k": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}
# What transforms.ToTensor() did, in the transforms.v2 spelling: uint8 HxW -> float 1xHxW in [0, 1].
TO_TENSOR = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])


def write_idx(path: Path, array: torch.Tensor) -> None:
    """IDX format: magic 0x0000 0x08 <ndim> (0x08 = unsigned byte), then each dim as big-endian uint32."""
    assert array.dtype == torch.uint8
    header = struct.pack(">HBB", 0, 0x08, array.dim()) + struct.pack(f">{array.dim()}I", *array.shape)
    path.write_bytes(header + array.contiguous().numpy().tobytes())


def read_idx_header(path: Path) -> tuple[int, tuple[int, ...]]:
    with path.open("rb") as f:
        magic = struct.unpack(">I", f.read(4))[0]
        dims = struct.unpack(f">{magic & 0xFF}I", f.read(4 * (magic & 0xFF)))
    return magic, dims


def seven_segment_digits(count: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Digit-like 28x28 uint8 images (seven-segment strokes, shifted, blurred, noisy) and their labels."""
    segments = {  # rows, columns of each stroke in a 28x28 frame
        "a": (slice(5, 7), slice(9, 19)), "b": (slice(5, 14), slice(17, 19)),
        "c": (slice(13, 23), slice(17, 19)), "d": (slice(21, 23), slice(9, 19)),
        "e": (slice(13, 23), slice(9, 11)), "f": (slice(5, 14), slice(9, 11)),
        "g": (slice(13, 15), slice(9, 19))}
    lit = ["abcdef", "bc", "abged", "abgcd", "fgbc", "afgcd", "afgedc", "abc", "abcdefg", "abcdfg"]
    templates = torch.zeros(10, 28, 28)
    for digit, names in enumerate(lit):
        for name in names:
            templates[digit][segments[name]] = 1.0
    labels = torch.randint(0, 10, (count,), generator=generator, dtype=torch.uint8)
    images = templates[labels.long()]
    shift = torch.randint(-3, 4, (count, 2, 1), generator=generator)  # move each digit up to 3 pixels
    rows, cols = (torch.arange(28) - shift[:, 0]) % 28, (torch.arange(28) - shift[:, 1]) % 28
    images = images[torch.arange(count)[:, None, None], rows[:, :, None], cols[:, None, :]]
    images = F.avg_pool2d(images[:, None], 3, stride=1, padding=1)[:, 0]  # soft edges, like pen strokes
    ink = torch.empty(count, 1, 1).uniform_(0.6, 1.0, generator=generator)
    noise = torch.rand(count, 28, 28, generator=generator) * 0.08
    return ((images * ink + noise).clamp(0, 1) * 255).round().to(torch.uint8), labels


def write_mnist(root: Path, train_count: int, test_count: int) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    raw = root / "MNIST" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    generator = torch.Generator().manual_seed(0)
    written = {}
    for split, count in (("train", train_count), ("t10k", test_count)):
        images, labels = seven_segment_digits(count, generator)
        image_file, label_file = FILES[split]
        write_idx(raw / image_file, images)
        write_idx(raw / label_file, labels)
        written[split] = images, labels
    return written


def note_worker(worker_id: int, starts, threads) -> None:
    """worker_init_fn: runs once in each worker process when it starts."""
    with starts.get_lock():
        starts[worker_id] += 1
    threads[worker_id] = torch.get_num_threads()  # DataLoader sets 1 in every worker


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path,
                        help="folder to write <dir>/MNIST/raw into (default: a temporary folder, deleted at exit)")
    parser.add_argument("--force", action="store_true", help="overwrite MNIST files already in --data-dir")
    parser.add_argument("--download", action="store_true",
                        help="download the real MNIST into --data-dir instead of writing a synthetic set (needs network)")
    parser.add_argument("--images", type=int, default=1024, help="synthetic training images (default: 1024)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--num-workers", type=int, default=2, help="DataLoader worker processes (default: 2)")
    parser.add_argument("--prefetch-factor", type=int, default=2, help="batches each worker keeps ready (default: 2)")
    parser.add_argument("--start-method", choices=START_METHODS,
                        help=f"how workers start (default: this platform's, {mp.get_all_start_methods()[0]})")
    args = parser.parse_args()
    for name, low, high in (("images", 64, 60000), ("batch_size", 1, 4096),
                            ("num_workers", 1, 64), ("prefetch_factor", 1, 64)):
        if not low <= getattr(args, name) <= high:
            parser.error(f"--{name.replace('_', '-')} must be between {low} and {high}")
    if args.download and args.data_dir is None:
        parser.error("--download needs --data-dir, so the download is kept")
    if args.download and args.force:
        parser.error("--force overwrites the synthetic files; with --download, MNIST keeps files already there")
    if args.data_dir is not None and not args.download and not args.force:
        existing = [f for pair in FILES.values() for f in pair if (args.data_dir / "MNIST" / "raw" / f).exists()]
        if existing:
            parser.error(f"{args.data_dir / 'MNIST' / 'raw'} already holds {', '.join(existing)}; "
                         "pass --force to overwrite them")
    return args


def main() -> int:
    args = parse_args()
    if args.start_method and args.start_method not in mp.get_all_start_methods():
        print(f"SKIP: start method {args.start_method!r} is not available on this platform")
        return 0
    context = mp.get_context(args.start_method)
    with tempfile.TemporaryDirectory(prefix="mnist-") as tmp:
        root = args.data_dir or Path(tmp)
        written = None
        if not args.download:
            written = write_mnist(root, args.images, max(64, args.images // 6))
            print(f"wrote a synthetic MNIST to {root / 'MNIST' / 'raw'}:")
            for split in FILES.values():
                for name in split:
                    magic, dims = read_idx_header(root / "MNIST" / "raw" / name)
                    print(f"  {name:26} magic {magic}  dims {' x '.join(map(str, dims))}")

        # --8<-- [start:dataset]
        try:  # download=False unless asked: no network at run time, a clear error if files are missing
            train = datasets.MNIST(root, train=True, download=args.download, transform=TO_TENSOR)
            test = datasets.MNIST(root, train=False, download=args.download, transform=TO_TENSOR)
        except RuntimeError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        # --8<-- [end:dataset]
        image, label = train[0]
        print(f"torchvision.datasets.MNIST(download={args.download}): {len(train)} train, {len(test)} test images")
        print(f"one item: image {tuple(image.shape)} {image.dtype} in [0, 1], label {type(label).__name__}")
        if written is not None:
            images, labels = written["train"]
            pixels = torch.stack([train[i][0] for i in range(len(train))])  # through the transform
            print("raw pixels and labels round-trip exactly:",
                  torch.equal(train.data, images) and torch.equal(train.targets, labels.long()))
            print("transformed pixels * 255 give the written bytes back:",
                  torch.equal((pixels * 255).round().to(torch.uint8)[:, 0], images))

        # --8<-- [start:loader]
        starts = context.Array("i", args.num_workers)   # how often each worker process started
        threads = context.Array("i", args.num_workers)  # torch.get_num_threads() inside each worker
        loader = DataLoader(
            train, batch_size=args.batch_size,
            sampler=RandomSampler(train, generator=torch.Generator().manual_seed(0)),  # seeded shuffle
            num_workers=args.num_workers,
            persistent_workers=True,                   # start the workers once, not at every epoch
            prefetch_factor=args.prefetch_factor,      # batches each worker prepares ahead
            multiprocessing_context=context,           # fork / spawn / forkserver, explicit
            worker_init_fn=partial(note_worker, starts=starts, threads=threads),
        )
        # --8<-- [end:loader]
        in_process = DataLoader(train, batch_size=args.batch_size, num_workers=0,
                                sampler=RandomSampler(train, generator=torch.Generator().manual_seed(0)))
        print(f"start method: {context.get_start_method()}, num_workers={args.num_workers}, "
              f"prefetch_factor={args.prefetch_factor}, persistent_workers=True")
        main_threads = torch.get_num_threads()
        for epoch in (1, 2):
            # strict=True also runs in_process to its end, so both samplers draw the same numbers
            same = [torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
                    for a, b in zip(loader, in_process, strict=True)]
            print(f"epoch {epoch}: {len(same)} batches, same images, labels and order as num_workers=0: "
                  f"{all(same)}")
        print(f"worker processes started per worker over 2 epochs: {list(starts)}")
        print(f"torch threads inside each worker: {list(threads)}")
        print(f"main process threads unchanged: {torch.get_num_threads() == main_threads}")
    return 0


if __name__ == "__main__":  # required: spawn and forkserver workers import this file again
    sys.exit(main())
