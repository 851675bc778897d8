"""The bfloat16 page: the hardware report is right, autocast stays within the stated tolerances
of fp32 for inference and a short training run, and the fp32-precision switch is shown."""
import platform
import re
from pathlib import Path

import pytest
import torch

from bench.core import load_snippet
from tests.running import run_here, run_shared

NAME = "bfloat16_autocast_cpu"


def cpu_flags() -> set[str]:
    try:
        return set(Path("/proc/cpuinfo").read_text().split())
    except OSError:
        return set()


def test_hardware_report_matches_this_machine():
    out = run_shared(NAME).stdout
    flags = cpu_flags()
    yes = lambda flag: "yes" if flag in flags else "no"
    assert (f"torch CPU capability: {torch.backends.cpu.get_cpu_capability()}; "
            f"AVX512_BF16: {yes('avx512_bf16')}; AMX_BF16: {yes('amx_bf16')}") in out
    arm = platform.machine().lower() in ("aarch64", "arm64")
    native = [f for f in ("amx_bf16", "avx512_bf16") if f in flags] + (["arm_bf16"] if arm and "bf16" in flags else [])
    if native == ["avx512_bf16"] and "GenuineIntel" in flags:
        expected = "yes (avx512_bf16, no AMX on this Intel CPU), expect no speed-up"
    else:
        expected = f"yes ({native[0]}), expect a speed-up" if native else "no, bf16 is emulated here: expect a slow-down"
    assert f"native bf16 matmul: {expected}" in out


def test_arm_bf16_feature_counts_as_native(monkeypatch, tmp_path):
    """Graviton 3 and later list `bf16` among their features: the check must call that native,
    and must not read a `bf16` token as such on x86."""
    funcs = load_snippet(NAME)
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor : 0\nFeatures : fp asimd evtstrm aes sha2 crc32 atomics bf16 i8mm sve\n")
    real_path = funcs.Path
    monkeypatch.setitem(funcs.native_bf16.__globals__, "Path",
                        lambda name: cpuinfo if name == "/proc/cpuinfo" else real_path(name))
    for machine, native in (("aarch64", "arm_bf16"), ("x86_64", None)):
        monkeypatch.setattr(platform, "machine", lambda: machine)
        hw = funcs.native_bf16()
        assert hw["arm_bf16"] is (machine == "aarch64")
        assert funcs.native_bf16_feature(hw) == native


def test_autocast_keeps_only_losses_in_fp32():
    """The page says CPU autocast runs softmax and LayerNorm in bf16 (unlike CUDA) and keeps losses in fp32."""
    out = run_shared(NAME).stdout
    assert ("dtypes under autocast: linear bfloat16, softmax bfloat16, layer_norm bfloat16, "
            "cross_entropy float32") in out


def test_inference_within_tolerance_of_fp32():
    out = run_shared(NAME).stdout
    m = re.search(r"inference: max abs error (\S+), relative error (\S+) \(tolerance 2e-2\): OK; "
                  r"same class for ([\d.]+)% of inputs", out)
    assert m, out
    assert float(m.group(2)) < 2e-2 and float(m.group(3)) >= 95.0


def test_training_loss_close_to_fp32():
    out = run_shared(NAME).stdout
    m = re.search(r"final loss fp32 ([\d.]+), bf16 autocast ([\d.]+), relative gap ([\d.]+)% "
                  r"\(tolerance 10%\): OK", out)
    assert m, out
    fp32, bf16 = float(m.group(1)), float(m.group(2))
    assert abs(bf16 - fp32) / fp32 < 0.10
    assert fp32 < 2.30  # it learned something: chance level for 10 classes is ln(10) = 2.30


def test_fp32_precision_switch_changes_nothing_without_native_bf16():
    out = run_shared(NAME).stdout
    if not hasattr(torch.backends.mkldnn, "matmul"):
        assert "SKIP: torch.backends.mkldnn.matmul.fp32_precision needs torch >= 2.9" in out
        return
    changed = re.search(r"fp32_precision = 'bf16' changed the fp32 results: (True|False)", out).group(1)
    flags = cpu_flags()
    if not torch.ops.mkldnn._is_mkldnn_bf16_supported():
        # AVX2 only, or oneDNN capped there (ONEDNN_MAX_CPU_ISA=AVX2 on a bigger CPU, whose flags
        # still list bf16): no oneDNN bf16 path, the fp32 results stay exact
        assert changed == "False"
    elif "amx_bf16" in flags or ("avx512_bf16" in flags and "AuthenticAMD" in flags):
        assert changed == "True"  # oneDNN takes the lower precision it is allowed
    elif "avx512_bf16" in flags:
        assert changed == "False"  # an Intel Xeon without AMX: oneDNN keeps brg_matmul:avx512_core, fp32


@pytest.mark.release
def test_fp32_precision_defaults_to_none():
    """The page shows torch.backends.mkldnn.matmul.fp32_precision and says its default is 'none'
    (on the releases this test passed on), and that it refuses a precision it does not know."""
    assert torch.backends.mkldnn.matmul.fp32_precision == "none"
    with pytest.raises(RuntimeError):
        torch.backends.mkldnn.matmul.fp32_precision = "no-such-precision"


def test_both_precisions_are_timed():
    out = run_shared(NAME).stdout
    assert re.search(r"^fp32\s+[\d.]+ ms per batch of 128", out, re.M)
    assert re.search(r"^bf16 autocast\s+[\d.]+ ms per batch of 128", out, re.M)


@pytest.mark.parametrize("args", [("--steps", "0"), ("--steps", "many")])
def test_bad_arguments_exit_with_a_message(args):
    result = run_here(NAME, *args)
    assert result.returncode == 2 and "--steps" in result.stderr
