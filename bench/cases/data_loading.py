"""DataLoader workers: images/s for num_workers 0, 1, 2, cheap vs CPU-heavy transform, start-up paid per epoch or once.

The data set is torchvision.datasets.MNIST reading the synthetic IDX files written by the page's
snippet (snippets/data_loading_mnist_workers.py), so this measures the pipeline the page shows.
"""
from __future__ import annotations

import gc
import multiprocessing as mp
import tempfile
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

BATCH = 64
# Deterministic "augmentation" that costs real CPU per image: upscale, blur, normalise.
HEAVY = v2.Compose([v2.ToImage(), v2.Resize(112), v2.GaussianBlur(9, sigma=2.0),
                    v2.ToDtype(torch.float32, scale=True), v2.Normalize([0.5], [0.5])])


def _epoch(loader) -> None:
    for _ in loader:
        pass


def run(session) -> None:
    snippet = load_snippet("data_loading_mnist_workers")
    threads = usable_cores()
    default_method = mp.get_start_method(allow_none=True) or mp.get_all_start_methods()[0]
    with tempfile.TemporaryDirectory(prefix="bench-mnist-") as tmp:
        count = session.pick(128, 4096)
        snippet.write_mnist(Path(tmp), count, 64)
        for name, steps, transform, images in (
                ("cheap", "ToImage + ToDtype", snippet.TO_TENSOR, session.pick(128, 2048)),
                ("CPU-heavy", "Resize 112 + GaussianBlur 9", HEAVY, session.pick(16, 256))):
            ds = torch.utils.data.Subset(datasets.MNIST(tmp, train=True, transform=transform), range(images))
            fresh_group = f"{name} transform, new DataLoader every epoch"
            kept_group = f"{name} transform, persistent_workers=True"
            params = {"transform": steps, "images": images, "batch_size": BATCH, "start_method": default_method}
            base = session.time(fresh_group, "num_workers=0", lambda: _epoch(DataLoader(ds, batch_size=BATCH)),
                                num_threads=threads, baseline=True, items=images, params=params)
            for workers in (1, 2):
                session.time(fresh_group, f"num_workers={workers}",
                             lambda: _epoch(DataLoader(ds, batch_size=BATCH, num_workers=workers)),
                             num_threads=threads, items=images, params={**params, "num_workers": workers})
            if (transform is snippet.TO_TENSOR and not session.quick and default_method != "spawn"
                    and "spawn" in mp.get_all_start_methods()):
                # What macOS and Windows pay: each new worker imports torch and torchvision again.
                spawn = mp.get_context("spawn")
                session.time(fresh_group, "num_workers=2, spawn",
                             lambda: _epoch(DataLoader(ds, batch_size=BATCH, num_workers=2,
                                                       multiprocessing_context=spawn)),
                             num_threads=threads, items=images,
                             params={**params, "num_workers": 2, "start_method": "spawn"})

            # num_workers=0 has no workers to keep: the same measurement is this group's baseline.
            kept_base = session.record(kept_group, "num_workers=0", base["median"], "s", baseline=True,
                                       spread=base["spread"], runs=base["runs"], params=params)
            kept_base["items_per_s"] = base["items_per_s"]
            for workers in (1, 2):
                # Workers start in the timer's warm-up calls; the timed epochs reuse them.
                loader = DataLoader(ds, batch_size=BATCH, num_workers=workers, persistent_workers=True)
                session.time(kept_group, f"num_workers={workers}", lambda: _epoch(loader),
                             num_threads=threads, items=images, params={**params, "num_workers": workers})
                del loader
                gc.collect()
