"""The training case study: the digits reach torchvision's MNIST class intact and the tuned loop
reads the same images as the naive one; every step is in the table, measured or marked not run
with its reason, and each measured step stopped at the naive loop's accuracy or above it; bad
arguments get a usage message. Correctness only: no speed bound is asserted (the claims do that
against the references)."""
import re

import pytest
import torch
from sklearn.datasets import load_digits
from torchvision import datasets, transforms

from bench.core import load_snippet
from tests.snippets import run_here, run_shared

NAME = "case_study_training"
training = load_snippet(NAME)
NUMBER = r"[\d.]+"


@pytest.fixture(scope="module")
def quick() -> str:
    return run_shared(NAME, "--quick").stdout


@pytest.fixture(scope="module")
def digits(tmp_path_factory):
    root = tmp_path_factory.mktemp("digits")
    training.write_digits_as_mnist(root)
    return root


def table_row(out: str, step: str) -> str:
    label = f"{training.STEPS.index(step) + 1} {step}" if step in training.STEPS else f"(side) {step}"
    match = re.search(rf"^{re.escape(label)} +(.+)$", out, re.M)
    assert match, f"no row for {step} in:\n{out}"
    return match.group(1)


def test_digits_are_read_by_torchvision_mnist(digits):
    """All 1,797 of scikit-learn's digits, split 1,437 / 360 with every class held out, each image
    the scan scaled up (its brightest pixels where the scan's are)."""
    train, test = (datasets.MNIST(digits, train=split, download=False) for split in (True, False))
    assert (len(train), len(test)) == (1437, training.HELD_OUT)
    assert train.data.shape[1:] == (28, 28) and train.data.dtype == torch.uint8
    assert set(test.targets.tolist()) == set(range(10)), "every class held out"
    source = load_digits()
    assert sorted(train.targets.tolist() + test.targets.tolist()) == sorted(source.target.tolist())
    assert train.data.max() > 200 and train.data[:, :4].max() == 0, "ink inside, a 4-pixel margin as MNIST's"


def test_tuned_loop_reads_the_images_the_naive_loop_reads(digits):
    """The in-memory tensor is what the DataLoader's ToTensor() gives, image for image."""
    train = datasets.MNIST(digits, train=True, download=False, transform=transforms.ToTensor())
    in_memory = train.data[:, None].float() / 255
    loaded = torch.stack([train[i][0] for i in range(0, len(train), 97)])
    torch.testing.assert_close(in_memory[::97], loaded, rtol=0, atol=1e-6)


def test_quick_run_has_every_step(quick):
    assert "digits: 1437 to train on, 360 held out (scikit-learn's, as MNIST files)" in quick
    target = float(re.search(r"^target: ([\d.]+)% held-out accuracy \(the naive loop's after 4 epochs, "
                             r"the lowest of 1 run\)$", quick, re.M).group(1))
    assert target > 30, "four epochs learn the digits well beyond chance (10%)"
    naive = table_row(quick, "naive").split()
    assert naive[1] == "1.00" and float(naive[3].rstrip("%")) >= target
    for step in [s for s in training.STEPS + training.SIDE_ROWS if s != "naive"]:
        row = table_row(quick, step)
        if row.startswith("not run: "):
            assert (step, row) in (("bf16", "not run: no native bf16 on this CPU (it would be emulated, "
                                            "slower than fp32)"), ("compile", "not run: --quick: no compilation"))
            continue
        seconds, speedup, epochs, accuracy, images_per_s = row.split()
        assert float(accuracy.rstrip("%")) >= target, f"{step} stopped below the target: {row}"
        assert float(epochs) <= training.QUICK["max_epochs"] and float(images_per_s) > 0


@pytest.mark.parametrize("args, message", [
    (("--steps", "naive,adam"), "--steps: unknown step(s) adam"),
    (("--steps", "in_memory,optimiser"), "--steps must include naive"),
])
def test_bad_arguments_get_a_usage_message(args, message):
    result = run_here(NAME, *args)
    assert result.returncode == 2 and message in result.stderr, result.stderr
