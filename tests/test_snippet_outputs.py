"""Every snippet runs on its own, and the output its page shows is what a real run prints, on any
CPU and core count: the recorded outputs come from the reference machine (docs/outputs), and what
depends on the machine is masked with a stated reason (MACHINE_DEPENDENT in tests/recorded.py);
everything else is compared exactly.

Two runs prove it: the plain run on the machine the tests run on, and the isolated run
(tests/isolation.py), which is one core of an emulated AVX2 CPU."""
import os
import re

import pytest

from tests.isolation import EMULATED_AVX2, emulation_gap, run_isolated
from tests.paths import OUTPUTS, all_snippets
from tests.recorded import MACHINE, MACHINE_DEPENDENT, keep, mask
from tests.running import run_shared


def compare(name: str, stdout: str, env: dict[str, str], request) -> None:
    gap = emulation_gap(name, env)
    if gap:  # strict: once the emulation prints what an AVX2 CPU does, the gap must go
        request.applymarker(pytest.mark.xfail(reason=gap, strict=True))
    recorded = OUTPUTS / f"{name}.txt"
    assert recorded.is_file(), f"{recorded} missing: run pytest --update-outputs -k {name}"
    assert mask(stdout, name) == mask(recorded.read_text(), name), (
        f"{name} prints something else than its page shows; if the change is intended, run "
        f"pytest --update-outputs -k {name}; if it depends on the machine, add it to MACHINE_DEPENDENT")


@pytest.mark.release
@pytest.mark.recorded
@pytest.mark.parametrize("name", all_snippets())
def test_page_output_is_a_real_run(name, request):
    """On this machine, as it is (run the suite under `taskset -c 0` or with EMULATED_AVX2's
    variables set to try another; the snippets inherit them)."""
    result = run_shared(name)
    keep(OUTPUTS / f"{name}.txt", result.stdout, request, lambda stored, fresh: mask(stored, name) == mask(fresh, name))
    compare(name, result.stdout, dict(os.environ), request)


@pytest.mark.parametrize("name", all_snippets())
def test_page_output_holds_on_one_core_of_an_avx2_cpu(name, request):
    """On one core of an emulated AVX2 CPU: the isolated run, which tests/test_portability.py
    already makes (and checks for exit code, writes and warnings)."""
    result, _ = run_isolated(name)
    assert result.returncode == 0, f"{name} failed in isolation: see test_portability.py\n{result.stderr}"
    compare(name, result.stdout, EMULATED_AVX2, request)


def test_isolated_run_is_an_avx2_cpu():
    """The emulation takes: torch dispatches to AVX2 kernels, and oneDNN does not use the bf16
    instructions an AVX-512 CPU may have (which would change the fp32 results)."""
    result, _ = run_isolated("bfloat16_autocast_cpu")
    assert "torch CPU capability: AVX2;" in result.stdout, result.stdout
    assert "'bf16' changed the fp32 results: False" in result.stdout, result.stdout


@pytest.mark.parametrize("name", sorted(MACHINE_DEPENDENT))
def test_machine_dependent_parts_are_in_the_output_and_few(name):
    """No dead rule: each one masks something in the recorded output; and the rules leave at
    least three quarters of it compared."""
    assert name in all_snippets(), f"MACHINE_DEPENDENT names {name}, which is no snippet"
    recorded = (OUTPUTS / f"{name}.txt").read_text()
    for pattern, reason in MACHINE_DEPENDENT[name]:
        assert any(all(m.groups()) for m in re.finditer(pattern, recorded, re.M)), (
            f"{name}: the rule {pattern!r} ({reason}) masks nothing in its recorded output:\n{recorded}")
    compared = len(mask(recorded, name).replace(MACHINE, "")) / len(mask(recorded))
    assert compared >= 0.75, f"{name}: the machine-dependent rules hide {1 - compared:.0%} of its output"


def test_no_page_types_the_machine_of_an_output():
    """An output's title says nothing of the machine (its stamp does): a typed "this machine: Zen 4"
    stayed while make regen rewrote the output on another CPU."""
    from tests.paths import DOCS
    typed = [(p.name, m.group(0)) for p in DOCS.glob("*.md")
             for m in re.finditer(r'title="(?:Output|输出)[^"]*(?:this machine|本机)[^"]*"', p.read_text())]
    assert not typed, typed

