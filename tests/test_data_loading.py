"""docs/data-loading.md: MNIST read offline by the real torchvision class, workers change speed, not data."""
import socket
import struct
import textwrap

import pytest
import torch

from tests.isolation import run_isolated
from tests.running import clean_env, run, run_here, run_shared

NAME = "data_loading_mnist_workers"
FILES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")


def test_mnist_class_reads_the_written_files():
    out = run_shared(NAME).stdout
    assert "torchvision.datasets.MNIST(download=False): 1024 train, 170 test images" in out
    assert "one item: image (1, 28, 28) torch.float32 in [0, 1], label int" in out
    assert "raw pixels and labels round-trip exactly: True" in out
    assert "transformed pixels * 255 give the written bytes back: True" in out


def test_files_are_mnist_idx_format_and_no_download_is_tried(no_network, tmp_path):
    """Checked here, not by the snippet: file names, folder, magic numbers, big-endian dims, and
    MNIST loads them; the run made no network call; --force replaced the user's file."""
    from torchvision.datasets import MNIST

    env, marker = no_network
    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    (raw / "train-images-idx3-ubyte").write_bytes(b"the user's file")
    result = run(NAME, "--data-dir", str(tmp_path), "--images", "256", "--force", env=env)
    assert result.returncode == 0, result.stderr
    assert not marker.exists(), "the snippet used the network"
    assert "MNIST(download=False)" in result.stdout
    assert sorted(p.name for p in raw.iterdir()) == sorted(FILES)
    counts = {"train": 256, "t10k": 64}
    for split, count in counts.items():
        images = (raw / f"{split}-images-idx3-ubyte").read_bytes()
        labels = (raw / f"{split}-labels-idx1-ubyte").read_bytes()
        assert struct.unpack(">IIII", images[:16]) == (2051, count, 28, 28)
        assert len(images) == 16 + count * 28 * 28
        assert struct.unpack(">II", labels[:8]) == (2049, count)
        assert len(labels) == 8 + count and max(labels[8:]) <= 9
    for train, count in ((True, 256), (False, 64)):
        ds = MNIST(tmp_path, train=train)
        assert len(ds) == count
        assert ds.data.shape == (count, 28, 28) and ds.data.dtype == torch.uint8
        assert ds.targets.tolist() == list((raw / f"{'train' if train else 't10k'}-labels-idx1-ubyte").read_bytes()[8:])
    assert len(set(MNIST(tmp_path).targets.tolist())) == 10  # every digit occurs


@pytest.mark.parametrize("start_method", [None, "spawn", "forkserver"])
def test_same_batches_with_and_without_workers(start_method):
    """The spawn and forkserver runs are shared with tests/test_portability.py."""
    out = run_shared(NAME, *(("--start-method", start_method) if start_method else ())).stdout
    assert f"start method: {start_method or 'fork'}, num_workers=2" in out
    for epoch in (1, 2):
        assert f"epoch {epoch}: 16 batches, same images, labels and order as num_workers=0: True" in out
    assert "torch threads inside each worker: [1, 1]" in out
    assert "worker processes started per worker over 2 epochs: [1, 1]" in out  # persistent_workers
    assert "main process threads unchanged: True" in out


_BLOCK_NETWORK = """
import pathlib, socket
def _refuse(*args, **kwargs):
    pathlib.Path({marker!r}).write_text("network used")
    raise OSError("network disabled by the test")
_connect = socket.socket.connect
def _connect_local_only(self, address):  # multiprocessing's own AF_UNIX sockets still work
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _refuse()
    return _connect(self, address)
socket.getaddrinfo = _refuse
socket.socket.connect = _connect_local_only
"""


@pytest.fixture
def no_network(tmp_path):
    """A sitecustomize that makes every name lookup or connection fail and leaves a marker file."""
    site = tmp_path / "site"
    site.mkdir()
    marker = tmp_path / "network-used"
    (site / "sitecustomize.py").write_text(_BLOCK_NETWORK.format(marker=str(marker)))
    return clean_env(PYTHONPATH=str(site)), marker


def test_download_flag_does_try_the_network(monkeypatch, tmp_path):
    """The other side: with --download and no files, MNIST goes to the network and the snippet
    fails clearly. Run in this process with name lookups refused, so the attempt is seen."""
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args[:2])
        raise OSError("network disabled by the test")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    result = run_here(NAME, "--data-dir", str(tmp_path / "data"), "--download")
    assert result.returncode == 1
    assert attempts, "no network call was attempted"
    assert result.stderr.startswith("error: Error downloading train-images-idx3-ubyte.gz")


def test_existing_files_are_not_overwritten_without_force(tmp_path):
    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    (raw / "train-images-idx3-ubyte").write_bytes(b"the user's file")
    result = run_here(NAME, "--data-dir", str(tmp_path))
    assert result.returncode == 2
    assert "pass --force to overwrite them" in result.stderr
    assert (raw / "train-images-idx3-ubyte").read_bytes() == b"the user's file"


@pytest.mark.parametrize("args, message", [
    (["--num-workers", "0"], "--num-workers must be between 1 and 64"),
    (["--images", "10"], "--images must be between 64 and 60000"),
    (["--batch-size", "0"], "--batch-size must be between 1 and 4096"),
    (["--prefetch-factor", "0"], "--prefetch-factor must be between 1 and 64"),
    (["--download"], "--download needs --data-dir"),
    (["--start-method", "threads"], "invalid choice: 'threads'"),
])
def test_bad_arguments_are_rejected(args, message):
    result = run_here(NAME, *args)
    assert result.returncode == 2
    assert message in result.stderr


# The article's loop, reduced: module-level code, no `if __name__ == "__main__":`.
_IMPORTS = """
import sys
import torch
from torch.utils.data import DataLoader, TensorDataset
"""
_BODY = """
loader = DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4, num_workers=1,
                    multiprocessing_context=sys.argv[1])
print("sum", sum(float(x.sum()) for (x,) in loader))
"""
_UNGUARDED = _IMPORTS + _BODY
_GUARDED = _IMPORTS + 'if __name__ == "__main__":' + textwrap.indent(_BODY, "    ")


@pytest.mark.parametrize("start_method, works", [("fork", True), ("spawn", False), ("forkserver", False)])
def test_workers_without_main_guard(tmp_path, start_method, works):
    """spawn and forkserver workers import the main script again; without the guard it starts workers again."""
    script = tmp_path / "unguarded.py"
    script.write_text(_UNGUARDED)
    result = run("unguarded", start_method, path=script)
    if works:
        assert result.returncode == 0, result.stderr
        assert "sum 28.0" in result.stdout
    else:
        assert result.returncode != 0
        assert "An attempt has been made to start a new process before the" in result.stderr
        assert "has finished its bootstrapping phase" in result.stderr
        assert "DataLoader worker (pid" in result.stderr and "exited unexpectedly" in result.stderr


@pytest.mark.parametrize("start_method", ["spawn", "forkserver"])
def test_main_guard_fixes_it(tmp_path, start_method):
    script = tmp_path / "guarded.py"
    script.write_text(_GUARDED)
    result = run("guarded", start_method, path=script)
    assert result.returncode == 0, result.stderr
    assert "sum 28.0" in result.stdout


def test_one_core_same_results_and_torch_warns_about_too_many_workers():
    """On one CPU (the isolated run of tests/test_portability.py) the claims hold, and DataLoader
    warns that 2 workers > 1 core."""
    result, _ = run_isolated(NAME)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("same images, labels and order as num_workers=0: True") == 2
    assert "torch threads inside each worker: [1, 1]" in result.stdout
    assert ("This DataLoader will create 2 worker processes in total. "
            "Our suggested max number of worker in current system is 1") in result.stderr


_GENERATOR_PLACES = """
import torch
from torch.utils.data import DataLoader, RandomSampler, TensorDataset

def orders(loader, epochs=3):
    return [torch.cat([x for (x,) in loader]).tolist() for _ in range(epochs)]

if __name__ == "__main__":
    ds = TensorDataset(torch.arange(64))
    for where in ("loader", "sampler"):
        def loader(**workers):
            if where == "loader":
                return DataLoader(ds, batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(0), **workers)
            return DataLoader(ds, batch_size=8, sampler=RandomSampler(ds, generator=torch.Generator().manual_seed(0)),
                              **workers)
        same = [a == b for a, b in zip(orders(loader(num_workers=2, persistent_workers=True)), orders(loader()))]
        print(f"{where} generator:", same)
"""


def test_seed_the_sampler_not_the_loader_with_persistent_workers(tmp_path):
    """The page's advice: a loader-level generator gives other epochs with persistent workers; a sampler's does not."""
    script = tmp_path / "generator_places.py"
    script.write_text(_GENERATOR_PLACES)
    result = run("generator_places", path=script)
    assert result.returncode == 0, result.stderr
    assert "loader generator: [True, False, False]" in result.stdout
    assert "sampler generator: [True, True, True]" in result.stdout
