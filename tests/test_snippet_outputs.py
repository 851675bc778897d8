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
from tests.recorded import MACHINE, MACHINE_DEPENDENT, keep, mask, stamp_of
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


@pytest.mark.parametrize("name", all_snippets())
def test_each_recorded_output_names_the_machine_that_ran_it(name):
    """Its first line, written by the run that recorded it: the CPU model, microarchitecture where
    known, and kind, and the torch release; a page's output title types no machine."""
    stamp = stamp_of((OUTPUTS / f"{name}.txt").read_text())
    assert stamp and "; torch " in stamp, f"{name}: its recorded output has no stamp: run make regen"


def test_no_page_types_the_machine_of_an_output():
    """An output's title says nothing of the machine (its stamp does): a typed "this machine: Zen 4"
    stayed while make regen rewrote the output on another CPU."""
    from tests.paths import DOCS
    typed = [(p.name, m.group(0)) for p in DOCS.glob("*.md")
             for m in re.finditer(r'title="(?:Output|输出)[^"]*(?:this machine|本机)[^"]*"', p.read_text())]
    assert not typed, typed


# Timings a recorded output prints that the benchmark measures too, on the same model, batch and
# threads (the case loads the snippet): (the output's pattern, its unit's seconds, the row). A
# recorded output more than KEY_FACTOR times off its kind's reference was disturbed: record it again.
KEY_FIGURES = {
    "compile_speedup_small_mlp": [
        (r"steady state, batch 64, 2 thread\(s\): eager ([\d.]+) us", 1e-6, "torch_compile/steady-state-mlp-all-cores/eager"),
        (r"steady state, batch 64, 2 thread\(s\): .*compiled ([\d.]+) us", 1e-6,
         "torch_compile/steady-state-mlp-all-cores/torch-compile-inductor")],
    "quantisation_int8_dynamic_torchao": [
        (r"^fp32 +([\d.]+) ms per batch of 32 \(2 threads\)", 1e-3, "quantisation/mlp-512-1024-1024-10-inference-all-cores/fp32"),
        (r"^int8 dynamic +([\d.]+) ms per batch of 32 \(2 threads\)", 1e-3,
         "quantisation/mlp-512-1024-1024-10-inference-all-cores/torchao-int8-dynamic-activations-weights")],
}
KEY_FACTOR = 2.0


@pytest.mark.parametrize("name", sorted(KEY_FIGURES))
def test_a_recorded_outputs_timings_agree_with_its_kinds_reference(name):
    """The output a page shows was not taken on a disturbed machine: each timing it shares with the
    benchmark is within KEY_FACTOR of a recording of the kind its stamp names (the recording whose
    median is nearest: a kind's recordings may come from two CPU models, the first from the other
    one; two CPU models of one kind differ by less)."""
    import math

    from bench.references import load_all, recordings
    from bench.machine import kind
    from tests.recorded import stamped_kind

    text = (OUTPUTS / f"{name}.txt").read_text()
    kind_ = stamped_kind(text)
    each = {kind(r["machine"]): recordings(r) for r in load_all()}
    assert kind_ in each, f"{name}: its stamp names no reference kind ({kind_})"
    checked = 0
    for pattern, unit, row_id in KEY_FIGURES[name]:
        found = re.search(pattern, text, re.M)
        assert found, f"{name}: no {pattern!r} in its recorded output"
        medians = [rows[row_id]["median"] for rows in each[kind_] if row_id in rows]
        if not medians:  # withdrawn or not measured on that kind
            continue
        printed = float(found.group(1)) * unit
        factor = printed / min(medians, key=lambda median: abs(math.log(printed / median)))
        assert 1 / KEY_FACTOR <= factor <= KEY_FACTOR, (
            f"{name}: {row_id} printed {factor:.2f} times the nearest {kind_} recording's median: a disturbed run, "
            f"record it again (pytest --update-outputs -k {name} on a quiet machine)")
        checked += 1
    if not checked:
        pytest.skip(f"the {kind_} reference has none of {name}'s rows (withdrawn or not measured)")


# How a page says which machine recorded the outputs it shows ("recorded on a Zen 5", "录制于一台 Zen 5")
RECORDED_ON = re.compile(r"recorded on an? ((?:Zen|Sapphire|Emerald|Granite) ?\w*)|录制于一台 ((?:Zen|Sapphire|Emerald|Granite) ?\w*)")


def test_a_page_names_the_machine_its_outputs_were_recorded_on():
    """A page that says its outputs were recorded on a Zen 5 shows outputs whose stamps say Zen 5:
    when make regen records them on another CPU, this fails until the prose follows."""
    from tests.paths import DOCS
    wrong = []
    for page in DOCS.glob("*.md"):
        text = page.read_text()
        named = {a or b for a, b in RECORDED_ON.findall(text)}
        shown = re.findall(r'--8<-- "docs/outputs/(\w+)\.txt"', text)
        for name in shown:
            stamp = stamp_of((OUTPUTS / f"{name}.txt").read_text()) or ""
            wrong += [(page.name, name, said) for said in named if f"({said})" not in stamp]
    assert not wrong, f"pages name a machine their outputs' stamps do not: {wrong}"
