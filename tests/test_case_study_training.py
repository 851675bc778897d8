"""The training case study: the digits reach torchvision's MNIST class intact and the tuned loop
reads the same images as the naive one; every step is in the table, measured or marked not run
with its reason, and each measured step stopped at the naive loop's accuracy or above it; the
allocator rows' fresh process has tcmalloc mapped (or glibc's malloc alone, the control), and
without the library both rows say how to install it; bad arguments get a usage message.
Correctness only: no speed bound is asserted (the claims do that against the references)."""
import json
import re

import pytest
import torch
from sklearn.datasets import load_digits
from torchvision import datasets, transforms

from bench.core import load_snippet
from tests.running import clean_env, run, run_here, run_shared

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
    label = (f"{training.STEPS.index(step) + 1} {step}" if step in training.STEPS
             else f"(side) {training.NAMES.get(step, step)}")
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
                                            "slower than fp32)"), ("compile", "not run: --quick: no compilation"),
                                   *[(s, f"not run: {NOT_FOUND}") for s in training.CHILD_ROWS]), row
            continue
        seconds, speedup, epochs, accuracy, images_per_s = row.split()
        assert float(accuracy.rstrip("%")) >= target, f"{step} stopped below the target: {row}"
        assert float(epochs) <= training.QUICK["max_epochs"] and float(images_per_s) > 0


def test_quick_run_has_the_allocator_rows(quick):
    """Where tcmalloc is installed the quick run measures it and its fresh-process control, and
    says which library the child had mapped; elsewhere both rows say how to install it."""
    library = training.find_tcmalloc()
    rows = [table_row(quick, step) for step in training.CHILD_ROWS]
    if library is None:
        assert rows == [f"not run: {NOT_FOUND}"] * 2
        assert "on top of step 4: not measured" in quick
        return
    assert not any(row.startswith("not run") for row in rows), rows
    line = re.search(r"^tcmalloc against glibc malloc, each in a fresh process on top of step 4: ([\d.]+)x "
                     r"\(preloaded (\S+), found in /proc/self/maps\)$", quick, re.M)
    assert line, quick
    assert float(line.group(1)) > 0 and "libtcmalloc_minimal.so" in line.group(2)


NOT_FOUND = (f"tcmalloc not found (tried {', '.join(training.TCMALLOC)}); "
             "Debian/Ubuntu: apt install libtcmalloc-minimal4")


def child_run(row: str, library: str | None, *extra: str):
    """The snippet's fresh process for one allocator row, as train_in_child starts it, with library
    preloaded (None: none), training until the first check (a target of 1%)."""
    env = clean_env(OMP_NUM_THREADS="1")
    env.pop("LD_PRELOAD", None)
    if library:
        env["LD_PRELOAD"] = library
    return run(NAME, "--child", row, "--target", "1", "--max-epochs", "1", "--threads", "1", *extra, env=env)


def test_the_tcmalloc_child_has_it_mapped():
    """The child started with LD_PRELOAD finds tcmalloc in /proc/self/maps and trains to the target;
    told to expect it without the preload, it refuses: an ignored preload cannot pass as tcmalloc."""
    library = training.find_tcmalloc()
    if library is None:
        pytest.skip(NOT_FOUND)
    done = child_run("tcmalloc", library, "--expect", library)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert "libtcmalloc_minimal.so" in report["allocator"] and report["threads"] == 1
    assert report["history"] and report["history"][-1][2] >= 1
    refused = child_run("tcmalloc", None, "--expect", library)
    assert refused.returncode == 1 and "is not mapped although LD_PRELOAD=None" in refused.stdout, refused.stdout
    control = child_run("glibc_fresh", None)
    assert control.returncode == 0 and json.loads(control.stdout.splitlines()[-1])["allocator"] == "glibc malloc"


def test_without_tcmalloc_the_allocator_rows_say_how_to_install_it():
    missing = "/nonexistent/libtcmalloc_minimal.so.4"
    # a fresh process: training in a pytest worker that had run the compiled and runtime tests died
    # with SIGSEGV on a Xeon with AMX, as the benchmark's did on a Zen 4 (bench/cases/case_study.py)
    out = run(NAME, "--quick", "--steps", "naive,tcmalloc", "--tcmalloc", missing).stdout
    reason = f"not run: tcmalloc not found (tried {missing}); Debian/Ubuntu: apt install libtcmalloc-minimal4"
    assert [table_row(out, step) for step in training.CHILD_ROWS] == [reason] * 2, out
    assert "tcmalloc against glibc malloc, each in a fresh process on top of step 4: not measured" in out


@pytest.mark.parametrize("args, message", [
    (("--steps", "naive,adam"), "--steps: unknown step(s) adam"),
    (("--steps", "in_memory,optimiser"), "--steps must include naive"),
    (("--child", "jemalloc", "--target", "50"), "--child: unknown row 'jemalloc'; valid: glibc_fresh, tcmalloc"),
    (("--child", "glibc_fresh", "--target", "150"), "--child needs --target, a held-out accuracy in percent"),
    (("--child", "glibc_fresh"), "--child needs --target"),
    (("--child", "tcmalloc", "--target", "50"), "--expect names the preloaded library for tcmalloc only"),
    (("--child", "glibc_fresh", "--target", "50", "--threads", "0"), "--max-epochs and --threads must be at least 1"),
])
def test_bad_arguments_get_a_usage_message(args, message):
    result = run_here(NAME, *args)
    assert result.returncode == 2 and message in result.stderr, result.stderr
