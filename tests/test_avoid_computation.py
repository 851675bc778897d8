"""The avoid-computation page: the training loop learns, the cheaper variants compute the same thing."""
import re

import pytest

from bench.core import load_snippet
from tests.running import run_here, run_shared


def test_training_loop_reduces_validation_loss_and_zero_grad_sets_none():
    out = run_shared("avoid_computation_training_loop").stdout
    before = float(re.search(r"MSE before training: ([\d.]+)", out).group(1))
    after = float(re.search(r"MSE after 300 steps of batch 64: ([\d.]+)", out).group(1))
    assert after < before / 10
    assert "loss fell more than tenfold: True" in out
    assert "after zero_grad(), every grad is None: True" in out


def test_training_loop_fails_loudly_when_it_cannot_learn():
    """The snippet's own assertion is live: one step is not enough to cut the loss tenfold."""
    result = run_here("avoid_computation_training_loop", "--steps", "1")
    assert result.returncode != 0 and "AssertionError" in result.stderr


def test_training_loop_rejects_bad_arguments():
    result = run_here("avoid_computation_training_loop", "--batch-size", "0")
    assert result.returncode == 2 and "--batch-size" in result.stderr


@pytest.mark.release
def test_no_grad_and_inference_mode_match_autograd_and_save_nothing():
    out = run_shared("avoid_computation_no_grad_vs_inference_mode").stdout
    assert "outputs are identical: True" in out
    assert "requires_grad: autograd True, no_grad False, inference_mode False; is_inference(): True" in out
    saved = {name: int(n.replace(",", "")) for name, n in
             re.findall(r"activations saved for backward under (\w+): ([\d,]+) bytes", out)}
    assert saved["autograd"] == (256 + 512 + 512) * 64 * 4  # the input and two ReLU outputs, batch 64
    assert saved["no_grad"] == 0 and saved["inference_mode"] == 0


@pytest.mark.parametrize("batch", [1, 64])
def test_saved_bytes_count_activations_not_parameters(batch):
    """The input and the two ReLU outputs (each saved once, though two ops save it): 256 + 512
    + 512 floats per sample. The weights autograd also saves are parameters and not counted."""
    import torch

    snippet = load_snippet("avoid_computation_no_grad_vs_inference_mode")
    torch.manual_seed(0)
    model = snippet.make_model().eval()
    x = torch.randn(batch, 256)
    assert snippet.saved_bytes(model, x, torch.enable_grad) == (256 + 512 + 512) * batch * 4
    assert snippet.saved_bytes(model, x, torch.no_grad) == 0


@pytest.mark.release
def test_inference_tensors_raise_the_documented_errors():
    out = run_shared("avoid_computation_no_grad_vs_inference_mode").stdout
    assert ("in-place on an inference tensor: RuntimeError: "
            "Inplace update to inference tensor outside InferenceMode is not allowed.") in out
    assert "autograd on an inference tensor: RuntimeError: Inference tensors cannot be saved for backward." in out
    assert "after .clone(), backward works: True" in out


def test_saved_bytes_scale_with_the_batch():
    small = run_here("avoid_computation_no_grad_vs_inference_mode", "--batch-size", "1")
    assert small.returncode == 0, small.stderr
    saved = re.compile(r"under autograd: ([\d,]+) bytes")
    saved_small = int(saved.search(small.stdout).group(1).replace(",", ""))
    saved_default = int(saved.search(run_shared("avoid_computation_no_grad_vs_inference_mode").stdout)
                        .group(1).replace(",", ""))
    assert saved_default == 64 * saved_small > 0  # activations grow with the batch; weights are not counted


def test_frozen_backbone_has_no_grads_and_all_heads_agree():
    out = run_shared("avoid_computation_frozen_backbone").stdout
    assert "not frozen: backbone params with a grad: 6 of 6" in out
    assert "frozen: backbone params with a grad: 0; every frozen param.grad is None: True" in out
    assert "the three heads end with the same weights (rtol=1e-5, atol=1e-6): True" in out
    # Quiet, 2.2x (AVX2 reference) to 3x. Under the suite's two workers a single pair of timings read
    # 0.96x once (CI, 2026-12-06): the snippet now times the two by turns, five rounds, and prints the
    # median ratio. The floor checks the direction, the benchmark the size.
    assert float(re.search(r"frozen backbone ([\d.]+)x faster", out).group(1)) > 1.1


def test_hoisted_constants_give_identical_results():
    out = run_shared("avoid_computation_hoist_constant").stdout
    assert "same output and mask, bit for bit: True" in out
    # measured: 4-6x alone, 1.9x while the rest of the suite loaded both cores (before the
    # snippet took the median of five rounds by turns)
    assert float(re.search(r"once is ([\d.]+)x faster per call", out).group(1)) > 1.5


@pytest.mark.parametrize("length", ["1", "300"])
def test_hoisted_constants_at_other_lengths(length):
    result = run_here("avoid_computation_hoist_constant", "--length", length)
    assert result.returncode == 0, result.stderr
    assert "bit for bit: True" in result.stdout
