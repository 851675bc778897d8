"""benchmark.md#when-a-difference-counts: the one verdict rule (bench/noise.py), and the benchmark's
samples and disturbance watch that feed it."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest

from bench import noise
from bench.core import DISTURBED, Session, Watch, add_ratios
from bench.figures import Figures
from bench.references import load_all


def row(median, spread=None, runs=1, samples=None, higher_is_better=False, paired=False, name="r"):
    out = {"id": name, "unit": "s" if not higher_is_better else "samples/s", "median": median, "spread": spread,
           "runs": runs, "higher_is_better": higher_is_better}
    if samples:
        out["samples"] = samples
    if paired:
        out["paired"] = True
    return out


def test_a_clear_speed_up_is_paid_and_its_inverse_lost():
    fast = row(1.0, samples=[0.98, 0.99, 1.0, 1.01, 1.02])
    slow = row(2.0, samples=[1.96, 1.98, 2.0, 2.02, 2.04])
    low, high = noise.interval(fast, slow)
    assert 1.9 < low <= 2.0 <= high < 2.1
    assert noise.outcome((low, high)) == "paid"
    assert noise.outcome(noise.interval(slow, fast)) == "lost"


def test_a_ratio_inside_the_rows_spread_is_even():
    """1.14x with IQRs of 20% (data loading's persistent workers on the Xeon without AMX) is not a verdict."""
    base, other = row(9.63, spread=1.9, runs=3), row(8.42, spread=1.69, runs=3)
    low, high = noise.interval(other, base)
    assert low < 1 + noise.EVEN < 9.63 / 8.42 < high
    assert noise.outcome((low, high)) == "even"


def test_rows_without_samples_use_half_their_iqr_either_side_of_the_median():
    base, other = row(10.0, spread=2.0, runs=5), row(5.0, spread=1.0, runs=5)
    assert noise.interval(other, base) == pytest.approx((9.0 / 5.5, 11.0 / 4.5))


def test_a_row_of_one_sample_gets_the_one_sample_spread():
    base, other = row(10.0), row(5.0)
    half = noise.ONE_SAMPLE / 2
    assert noise.interval(other, base) == pytest.approx((10 * (1 - half) / (5 * (1 + half)),
                                                          10 * (1 + half) / (5 * (1 - half))))


def test_rates_are_better_when_higher():
    base, other = row(100.0, spread=2, runs=5, higher_is_better=True), row(150.0, spread=3, runs=5, higher_is_better=True)
    low, high = noise.interval(other, base)
    assert low == pytest.approx(148.5 / 101) and high == pytest.approx(151.5 / 99)


def test_interleaved_rounds_cancel_what_moved_both_rows():
    """A round that slowed both rows alike (another tenant, a clock change) widens each row's
    quartiles but not their per-round ratios."""
    base = row(100.0, samples=[100.0, 60.0, 140.0], higher_is_better=True, paired=True)
    other = row(120.0, samples=[120.0, 72.0, 168.0], higher_is_better=True, paired=True)
    assert noise.interval(other, base) == pytest.approx((1.2, 1.2))
    assert noise.outcome(noise.interval(other, base)) == "paid"
    unpaired = dict(other)
    del unpaired["paired"]
    assert noise.outcome(noise.interval(unpaired, base)) == "even"


def test_verdicts_over_groups():
    assert noise.combined(["paid", "even"]) == "paid"
    assert noise.combined(["lost", "even"]) == "lost"
    assert noise.combined(["paid", "lost"]) == "mixed"
    assert noise.combined(["even", "even"]) == "even"


def test_the_pages_verdict_and_each_figure_use_the_rule():
    """Figures.verdict (every table and cell) calls a row paid only where its interval is beyond
    the even band, on every reference."""
    figures = Figures(load_all())
    for kind_, rows in figures.rows.items():
        for row_id, r in rows.items():
            if not r.get("ratio") or r["baseline"]:
                continue
            low, high = figures.span(kind_, r)
            assert low <= r["ratio"] * 1.0001 and r["ratio"] <= high * 1.0001, (kind_, row_id)
            word = figures.verdict(kind_, [row_id])[0]
            assert word == ("paid" if low > 1 + noise.EVEN else "lost" if high < 1 - noise.EVEN else "even"), (kind_, row_id)


def test_a_cells_range_quotes_only_rows_beyond_noise():
    """A paid cell's range runs over paid rows; the even ones are named apart."""
    figures = Figures(load_all())
    kind_ = "intel-avx512-bf16"
    patterns = ["data_loading/*/num-workers-2"]
    cell = figures.cell(kind_, patterns)
    paid = [r for r in figures.matching(kind_, patterns) if figures.row_outcome(kind_, r["id"]) == "paid"]
    even = [r for r in figures.matching(kind_, patterns) if figures.row_outcome(kind_, r["id"]) == "even"]
    assert paid and cell.startswith("**paid** ")
    head = cell.split(", even ")[0]
    assert all(f"{r['ratio']:.2f}" not in head for r in even if all(f"{r['ratio']:.2f}" != f"{p['ratio']:.2f}" for p in paid))
    if even:
        assert ", even " in cell


def test_the_watch_sees_another_process_using_the_cpu():
    """A process spinning beside the measurement shows as others_busy above the threshold."""
    spinner = subprocess.Popen([sys.executable, "-c", "import time\nend = time.time() + 5\nwhile time.time() < end: pass"])
    try:
        time.sleep(0.3)  # let it start
        with Watch() as watch:
            time.sleep(0.6)
    finally:
        spinner.kill()
        spinner.wait()
    assert watch.others_busy > DISTURBED and watch.disturbed()


def test_a_timed_row_keeps_its_samples_and_what_the_watch_saw():
    session = Session(quick=False)
    session.technique = "t"
    r = session.time("g", "x", lambda: sum(range(200)), baseline=True, min_run_time=0.2)
    assert len(r["samples"]) == r["runs"] >= 2
    lo, hi = noise.quartiles(r)
    assert min(r["samples"]) <= lo <= r["median"] <= hi <= max(r["samples"])
    assert r["others_busy"] >= 0 and 0 <= r["disturbed_dropped"] <= 2


def _machine(family="25", model="17"):
    return {"cpu_model": "AMD EPYC", "vendor": "AuthenticAMD", "cpu_family": family, "cpu_model_number": model,
            "arch": "x86_64", "torch": "2.14.1",
            "isa": {"avx2": True, "fma": True, "avx512f": True, "avx512_bf16": True, "avx512_vnni": True,
                    "avx_vnni": False, "amx_bf16": False, "amx_int8": False, "amx_tile": False}}


def _timed(group, label, median, spread, baseline=False, technique="t"):
    return {"id": f"{technique}/{group}/{label}", "technique": technique, "group": group, "label": label, "unit": "s",
            "median": median, "spread": spread, "runs": 10, "baseline": baseline, "higher_is_better": False,
            "params": {}, "ratio": None}


def test_a_second_recording_widens_the_verdict_to_what_holds_in_each():
    """add_recording: rows of the reference's groups become a second recording, a group it lacked
    joins its results (named elsewhere, from another CPU model), disturbed rows stay out; a row
    paid in the first recording and even in the second is even."""
    from bench.references import add_recording, recording_count, recordings
    reference = {"machine": _machine(), "mode": "full", "not_measured": {"t/h": "added after this run"},
                 "results": [_timed("g", "base", 1.0, 0.01, baseline=True), _timed("g", "fast", 0.8, 0.01)]}
    run = {"machine": _machine("26", "2"), "mode": "full", "created": "2026-12-07T13:00:00", "seconds": 9,
           "results": [_timed("g", "base", 1.0, 0.01, baseline=True), _timed("g", "fast", 0.98, 0.01),
                       _timed("h", "base", 1.0, 0.01, baseline=True), _timed("h", "other", 1.0, 0.01),
                       _timed("g", "noisy", 0.5, 0.01)],
           "disturbed": {"kept_disturbed": ["t/g/noisy"]}}
    add_ratios(reference["results"])
    add_ratios(run["results"])
    merged, counts = add_recording(reference, run)
    assert counts == {"again": 2, "new": 2, "left_out_disturbed": 1}
    assert recording_count(merged, "t/g/fast") == 2 and recording_count(merged, "t/h/other") == 1
    assert "t/h/other" in merged["elsewhere"] and "Zen 5" in merged["elsewhere"]["t/h/other"]
    assert merged["not_measured"] == {} and not any(r["id"] == "t/g/noisy" for r in merged["results"])
    # the new group's rows, from another CPU, sit in the second recording beside that run's rows,
    # not in the first machine's (a comparison across groups reads one run)
    first, second = recordings(merged)
    assert "t/h/other" in second and "t/h/other" not in first and "t/g/fast" in second
    alone = Figures([reference])
    assert alone.verdict("amd-avx512-bf16", ["t/g/fast"])[0] == "paid"
    both = Figures([merged])
    assert both.verdict("amd-avx512-bf16", ["t/g/fast"])[0] == "even"
    assert "(one recording)" in alone.verdicts({"x": ["t/g/fast"]})
    assert "(one recording)" not in both.verdicts({"x": ["t/g/fast"]})
    with pytest.raises(ValueError, match="torch"):
        add_recording(reference, {**run, "machine": {**_machine(), "torch": "2.15.0"}})
    with pytest.raises(ValueError, match="quick"):
        add_recording(reference, {**run, "mode": "quick"})


def test_add_recording_refuses_a_missing_file_with_a_message(tmp_path):
    done = subprocess.run([sys.executable, "-m", "bench", "--add-recording", str(tmp_path / "none.json")],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "is not a file" in done.stderr and "Traceback" not in done.stderr


def test_record_missing_picks_what_fewer_than_two_recordings_have():
    """--record-missing (bench.__main__.to_record): a technique with a row recorded once, or with a
    row added after the first run (not_measured) that fewer than two recordings have, or with no
    row; not one whose added row two later recordings have, nor one whose missing row was not run
    on purpose (not_run)."""
    from bench.__main__ import to_record

    def row(i):
        return {"id": i, "technique": i.split("/")[0], "group": i.split("/")[1], "label": i, "median": 1.0}
    reference = {
        "results": [row("a/g/x"), row("b/g/x"), row("c/g/x"), row("d/g/x")],
        "not_measured": {"c/g/new": "added after this run", "d/g/new": "added after this run"},
        "not_run": {"b/g/y": "ResNet-50 only"},
        "recordings": [{"results": [row("a/g/x"), row("b/g/x"), row("c/g/x"), row("d/g/x"), row("d/g/new")]},
                       {"results": [row("b/g/x"), row("c/g/x"), row("d/g/x"), row("d/g/new")]}]}
    assert to_record(reference, ["a", "b", "c", "d", "e"]) == ["c", "e"]
    reference["recordings"][1]["results"].append(row("c/g/new"))
    reference["recordings"][0]["results"].append(row("c/g/new"))
    assert to_record(reference, ["a", "b", "c", "d", "e"]) == ["e"]
