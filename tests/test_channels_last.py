"""The channels_last page: NHWC gives the NCHW result, stays NHWC through resnet18, and the hook
check finds the layer where a .contiguous() drops it."""
import re

import pytest

from tests.running import run_here, run_shared

NAME = "channels_last_conv_inference"


def test_channels_last_output_matches_contiguous_within_tolerance():
    out = run_shared(NAME).stdout
    assert "input channels_last: True" in out
    diff = float(re.search(r"max \|NCHW - NHWC\| of the logits: (\S+) \(tolerance 1e-4\): OK", out).group(1))
    assert diff < 1e-4


def test_format_survives_every_resnet18_layer():
    out = run_shared(NAME).stdout
    off, seen = map(int, re.search(r"resnet18: (\d+) of (\d+) layers see a tensor", out).groups())
    assert off == 0 and seen > 50  # every conv, bn, relu, pool saw NHWC tensors


def test_hook_check_finds_the_contiguous_leak():
    """The check can fail: .contiguous() after the stem makes exactly the next conv see NCHW."""
    out = run_shared(NAME).stdout
    assert "with .contiguous() after the stem: 1 of " in out
    assert out.rstrip().count("model.layer1.0.conv1") == 1


def test_both_layouts_are_timed():
    out = run_shared(NAME).stdout
    assert re.search(r"NCHW \(default\)\s+[\d.]+ ms per batch of 4", out)
    assert re.search(r"NHWC \(channels_last\)\s+[\d.]+ ms per batch of 4", out)


@pytest.mark.parametrize("args", [("--size", "8"), ("--batch", "0"), ("--batch", "x")])
def test_bad_arguments_exit_with_a_message(args):
    result = run_here(NAME, *args)
    assert result.returncode == 2 and args[0] in result.stderr
