"""DataLoader workers: images/s for num_workers 0, 1, 2, cheap vs CPU-heavy transform, start-up paid per epoch or once.

The data set is torchvision.datasets.MNIST reading the synthetic IDX files written by the page's
snippet (snippets/data_loading_mnist_workers.py), so this measures the pipeline the page shows.
Full mode loads MNIST-size epochs (60,000 images with the cheap transform, a few thousand with
the heavy one) three times per row, so worker start-up weighs what it weighs in real training.
"""
from __future__ import annotations

import gc
import multiprocessing as mp
import tempfile
import time
from pathlib import Path

import torch
from torch.utils.data import DataLoader
from torchvision import datasets
from torchvision.transforms import v2

from bench.core import load_snippet
from bench.machine import usable_cores

TITLE = "Data loading"
ORDER = 20
WHEN = 'When loading or augmentation shows in the profile; keep workers persistent.'  # Home's headline table: when the technique applies
# What its verdicts and Home's headline count: the variant a reader should use, per regime (row-id patterns)
RECOMMENDED = {"speed": ["data_loading/*-persistent-workers-true/num-workers-2"]}

BATCH = 64
RUNS = 3  # epochs timed per row
# Deterministic "augmentation" that costs real CPU per image: upscale, blur, normalise.
HEAVY = v2.Compose([v2.ToImage(), v2.Resize(112), v2.GaussianBlur(9, sigma=2.0),
                    v2.ToDtype(torch.float32, scale=True), v2.Normalize([0.5], [0.5])])


def _epoch(loader) -> float:
    started = time.perf_counter()
    for _ in loader:
        pass
    return time.perf_counter() - started


def _fresh_epochs(make_loader) -> list[float]:
    """A new DataLoader per epoch: each epoch pays for starting (and stopping) its workers."""
    return [_epoch(make_loader()) for _ in range(RUNS)]


def _persistent_epochs(loader) -> list[float]:
    """Workers started once, before the timed epochs (a few batches of warm-up), then reused."""
    batches = iter(loader)
    for _ in range(min(4, len(loader))):
        next(batches)
    del batches
    return [_epoch(loader) for _ in range(RUNS)]


def run(session) -> None:
    snippet = load_snippet("data_loading_mnist_workers")
    threads = usable_cores()
    default_method = mp.get_start_method(allow_none=True) or mp.get_all_start_methods()[0]
    previous_threads = torch.get_num_threads()
    torch.set_num_threads(threads)  # the main process uses every core, as a training script would
    try:
        with tempfile.TemporaryDirectory(prefix="bench-mnist-") as tmp:
            cheap_images, heavy_images = session.pick(256, 60_000), session.pick(32, 2_048)
            snippet.write_mnist(Path(tmp), cheap_images, 64)
            train = datasets.MNIST(tmp, train=True)
            for name, steps, transform, images, one_worker in (
                    ("cheap", "ToImage + ToDtype", snippet.TO_TENSOR, cheap_images, False),
                    ("CPU-heavy", "Resize 112 + GaussianBlur 9", HEAVY, heavy_images, True)):
                ds = datasets.MNIST(tmp, train=True, transform=transform)
                if images < len(train):
                    ds = torch.utils.data.Subset(ds, range(images))
                # Warm-up in this process (imports, first PIL and transform calls), not timed.
                _epoch(DataLoader(torch.utils.data.Subset(ds, range(min(len(ds), 4 * BATCH))), batch_size=BATCH))

                def fresh(workers, context=None):
                    def make_loader():
                        return DataLoader(ds, batch_size=BATCH, num_workers=workers, multiprocessing_context=context)
                    return make_loader

                fresh_group = f"{name} transform, new DataLoader every epoch"
                kept_group = f"{name} transform, persistent_workers=True"
                params = {"transform": steps, "images": images, "batch_size": BATCH,
                          "start_method": default_method, "num_threads": threads}
                base = session.time_samples(fresh_group, "num_workers=0", _fresh_epochs(fresh(0)),
                                            baseline=True, items=images, params=params)
                # One worker is timed only with persistent workers on the heavy set: a full cheap
                # epoch of it is the slowest row of all (time budget).
                session.time_samples(fresh_group, "num_workers=2", _fresh_epochs(fresh(2)),
                                     items=images, params={**params, "num_workers": 2})
                if (transform is snippet.TO_TENSOR and not session.quick and default_method != "spawn"
                        and "spawn" in mp.get_all_start_methods()):
                    # What macOS and Windows pay: each new worker imports torch and torchvision again.
                    session.time_samples(fresh_group, "num_workers=2, spawn",
                                         _fresh_epochs(fresh(2, mp.get_context("spawn"))), items=images,
                                         params={**params, "num_workers": 2, "start_method": "spawn"})

                # num_workers=0 has no workers to keep: the same measurement is this group's baseline.
                kept_base = session.record(kept_group, "num_workers=0", base["median"], "s", baseline=True,
                                           spread=base["spread"], runs=base["runs"], params=params)
                kept_base["items_per_s"] = base["items_per_s"]
                for workers in (1, 2) if one_worker else (2,):
                    loader = DataLoader(ds, batch_size=BATCH, num_workers=workers, persistent_workers=True)
                    session.time_samples(kept_group, f"num_workers={workers}", _persistent_epochs(loader),
                                         items=images, params={**params, "num_workers": workers})
                    del loader
                    gc.collect()
    finally:
        torch.set_num_threads(previous_threads)
