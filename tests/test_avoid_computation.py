"""The avoid-computation page: the training loop learns, the cheaper variants compute the same thing."""
import re

import pytest

from tests.snippets import run_here, run_shared


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


def test_no_grad_and_inference_mode_match_autograd_and_save_nothing():
    out = run_shared("avoid_computation_no_grad_vs_inference_mode").stdout
    assert "outputs are identical: True" in out
    assert "requires_grad: autograd True, no_grad False, inference_mode False; is_inference(): True" in out
    saved = dict(re.findall(r"saved for backward under (\w+): ([\d.]+) MiB", out))
    assert float(saved["autograd"]) > 0
    assert float(saved["no_grad"]) == 0 and float(saved["inference_mode"]) == 0


def test_inference_tensors_raise_the_documented_errors():
    out = run_shared("avoid_computation_no_grad_vs_inference_mode").stdout
    assert ("in-place on an inference tensor: RuntimeError: "
            "Inplace update to inference tensor outside InferenceMode is not allowed.") in out
    assert "autograd on an inference tensor: RuntimeError: Inference tensors cannot be saved for backward." in out
    assert "after .clone(), backward works: True" in out


def test_saved_bytes_scale_with_the_batch():
    small = run_here("avoid_computation_no_grad_vs_inference_mode", "--batch-size", "1")
    assert small.returncode == 0, small.stderr
    saved_small = float(re.search(r"under autograd: ([\d.]+) MiB", small.stdout).group(1))
    saved_default = float(re.search(r"under autograd: ([\d.]+) MiB",
                                    run_shared("avoid_computation_no_grad_vs_inference_mode").stdout).group(1))
    assert saved_default > saved_small > 0  # activations grow with the batch; weights do not


def test_frozen_backbone_has_no_grads_and_all_heads_agree():
    out = run_shared("avoid_computation_frozen_backbone").stdout
    assert "not frozen: backbone params with a grad: 6 of 6" in out
    assert "frozen: backbone params with a grad: 0; every frozen param.grad is None: True" in out
    assert "the three heads end with the same weights (rtol=1e-5, atol=1e-6): True" in out
    assert re.search(r"frozen backbone [\d.]+x faster", out)


def test_hoisted_constants_give_identical_results():
    out = run_shared("avoid_computation_hoist_constant").stdout
    assert "same output and mask, bit for bit: True" in out


@pytest.mark.parametrize("length", ["1", "300"])
def test_hoisted_constants_at_other_lengths(length):
    result = run_here("avoid_computation_hoist_constant", "--length", length)
    assert result.returncode == 0, result.stderr
    assert "bit for bit: True" in result.stdout
