"""The benchmark: quick mode works end to end, bad input is refused, rows keep their ids across
modes and machines, and every number the site shows is rendered from the committed references
(one full run per CPU kind, bench/references/<kind>.json)."""
import filecmp
import json
import re
import subprocess
import sys

import pytest

from bench.cases import case_study, techniques
from bench.compare import column_head
from bench.machine import kind
from bench.references import FOLDER as REFERENCES, lacks, load_all, unmeasured
from bench.render import RESULTS_DIR, render
from tests.paths import DOCS, ROOT
from tests.recorded import keep, keep_only
from tests.running import clean_env, unknown_model_args


def bench(*args):
    return subprocess.run([sys.executable, "-m", "bench", *args], cwd=ROOT, env=clean_env(COLUMNS="80"),
                          capture_output=True, text=True, timeout=900)


def check_results(results: dict, mode: str) -> None:
    assert results["mode"] == mode
    machine = results["machine"]
    for field in ("cpu_model", "physical_cores", "logical_cores", "isa", "torch", "default_threads"):
        assert machine[field] not in (None, ""), field
    assert {"avx2", "avx512f", "avx512_bf16", "amx_bf16"} <= set(machine["isa"])
    # every technique, but those a reference says it lacks as a whole (added after its run)
    assert set(techniques()) - set(unmeasured(results)) <= set(results["techniques"]) <= set(techniques())
    ids = [row["id"] for row in results["results"]]
    assert len(ids) == len(set(ids)), "row ids are unique"
    for row in results["results"]:
        assert row["id"].startswith(row["technique"] + "/"), row["id"]
        assert not re_size.search(row["group"]), f"a thread count in a group name: {row['group']}"
    groups = {}
    for row in results["results"]:
        assert row["median"] >= 0 and row["runs"] >= 1, row  # 0 is real: e.g. no memory kept
        assert row["spread"] is None or row["spread"] >= 0, row
        groups.setdefault((row["technique"], row["group"]), []).append(row)
    assert {t for t, _ in groups} == set(techniques()) - set(unmeasured(results)), "a technique measured nothing"
    for key, rows in groups.items():
        (base,) = [r for r in rows if r["baseline"]]
        assert base["ratio"] == pytest.approx(1.0), key
        for r in rows:
            if r["ratio"] is None:  # no ratio to a zero, or of a zero
                assert 0 in (r["median"], base["median"]), (key, r["label"])
                continue
            expected = (r["median"] / base["median"] if r["higher_is_better"]
                        else base["median"] / r["median"])
            assert r["ratio"] == pytest.approx(expected), (key, r["label"])


# "2 threads", "4 thread(s)": counts that differ between machines ("1 thread" and "all cores" do not).
re_size = re.compile(r"\b([2-9]|\d\d+) threads?\b|thread\(s\)")


def test_quick_mode_measures_every_technique(quick_run):
    """All that is checked about the quick run's output, in one test: a second one could start on
    the other xdist worker and sit there until the run is done."""
    result, results, _ = quick_run
    check_results(results, "quick")
    assert "Times are in" in result.stdout, "the torch.utils.benchmark Compare table is printed"
    assert "benchmark" in result.stderr and "100%" in result.stderr, "progress is shown"
    assert "yours:" in result.stdout, "the run is shown beside the references"
    for reference in load_all():
        assert re.search(column_head(kind(reference["machine"])), result.stdout), "every reference has a column"


def test_quick_run_rows_line_up_with_every_reference(quick_run):
    """A reader's quick run (and the notebook) finds each of its rows in every reference: ids carry
    no sizes or thread counts. Rows a reference withdrew or predates are the exception it states."""
    _, results, _ = quick_run
    for reference in load_all():
        theirs = {row["id"] for row in reference["results"]}
        missing = [row["id"] for row in results["results"] if row["id"] not in theirs and not lacks(reference, row["id"])]
        assert not missing, f"quick-run rows that {kind(reference['machine'])} lacks: {missing}"


def test_the_run_names_the_rows_it_did_not_run_and_why(quick_run):
    """What a run skips is in its results file with the reason (a reference states it on the results
    pages, and the line-up above accepts it): in --quick, on every CPU, the compiled steps."""
    _, results, _ = quick_run
    skipped = results["not_run"]
    assert skipped["case_study/training-time-to-the-naive-loop-s-held-out-accuracy/training-compile-side-row"] \
        == "--quick: no compilation", skipped
    assert skipped["case_study/resnet-50-throughput-all-cores/5-compile"] == "not run in --quick", skipped
    assert not set(skipped) & {row["id"] for row in results["results"]}, "a row both measured and not run"
    # Quick mode trains each step to the accuracy of one naive epoch (QUICK_TRAINING), and a step
    # that does not reach it leaves no row: every training row of the references is here, or not
    # run with its reason.
    training = {row["id"] for reference in load_all() for row in reference["results"] if row["group"] == case_study.TRAINING}
    assert training and training <= {row["id"] for row in results["results"]} | set(skipped), \
        sorted(training - {row["id"] for row in results["results"]} - set(skipped))


def test_an_unknown_cpu_model_changes_no_row_id(quick_run, tmp_path):
    """On a cloud VM that hides the SKU the vectorise case (the one whose rows depend on the peak)
    records the same row ids as here, and a peak per precision: labels and values may change,
    ids may not."""
    out = tmp_path / "unknown.json"
    done = subprocess.run(unknown_model_args("-m bench", "--quick", "--only", "vectorise", "--out", str(out)),
                          cwd=ROOT, env=clean_env(COLUMNS="80"), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(out.read_text())
    assert results["machine"]["cpu_model"] == "Intel(R) Xeon(R) Processor"
    assert results["machine"]["peak_fp32_gflops"] > 0 and results["machine"]["peak_basis"]
    _, here, _ = quick_run
    assert ([r["id"] for r in results["results"]]
            == [r["id"] for r in here["results"] if r["technique"] == "vectorise"])


@pytest.mark.parametrize("path", sorted(REFERENCES.glob("*.json")), ids=lambda p: p.stem)
def test_each_reference_is_a_full_run_named_after_its_cpu_kind(path):
    reference = json.loads(path.read_text())
    check_results(reference, "full")
    assert path.stem == kind(reference["machine"]), "the file is named after the machine's kind"
    # The techniques take about 6 minutes, the case study's two models, runtimes and training about 17
    assert reference["seconds"] < 1800, "full mode must finish in under 30 minutes on 2 cores"


def test_references_cover_more_than_one_instruction_set():
    levels = {kind(r["machine"]).split("-", 1)[1] for r in load_all()}
    assert len(levels) >= 2, f"one instruction-set level only: {levels}"


def layout(row: dict) -> tuple:
    p = row["params"]
    return p.get("processes", 1), p.get("threads_per_process", 1), p.get("num_threads", 1)


def test_no_parallel_speed_up_exceeds_the_cores():
    """Where a row runs on other threads or processes than its baseline, N cores cannot make the
    work more than N times faster: a ratio above that is a harness bug (10% for noise)."""
    checked = 0
    for reference in load_all():
        cores = reference["machine"]["usable_cores"]
        rows = reference["results"]
        for row in rows:
            (base,) = [r for r in rows if r["baseline"] and r["technique"] == row["technique"]
                       and r["group"] == row["group"]]
            if row["ratio"] and layout(row) != layout(base):
                checked += 1
                assert row["ratio"] <= cores * 1.1, (kind(reference["machine"]), row["id"], row["ratio"])
    assert checked >= 10, "the check found the rows that compare thread or process layouts"


def test_each_peak_row_is_at_the_clock_measured_in_its_run():
    """vectorise.md: each machine's theoretical peak is taken at the clock measured on it when the
    peak rows were recorded (the run's, or the later --only run's in measured_separately), not at
    the reported clock."""
    for reference in load_all():
        run = reference.get("measured_separately", {}).get("vectorise") or reference["machine"]
        for row in reference["results"]:
            if row["id"].endswith("/theoretical-peak"):
                assert run["measured_mhz"] and row["params"]["mhz"] == run["measured_mhz"], (
                    kind(reference["machine"]), row["id"], row["params"]["mhz"], run["measured_mhz"])


@pytest.mark.recorded
@pytest.mark.parametrize("plots", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["tables", "plots"])
def test_pages_show_the_current_references(plots, tmp_path, request):
    """Rendering the committed references again gives exactly the committed tables and plots
    (--update-outputs, make regen: writes them and removes the rest). The tables alone in the fast
    tier; the whole folder, plots and files no technique renders any more, in the slow one."""
    written = {p.relative_to(tmp_path) for p in render(load_all(), tmp_path, plots=plots)}
    for path in written:
        keep(RESULTS_DIR / path, (tmp_path / path).read_text(), request)
    extra = keep_only(RESULTS_DIR, written, request) if plots else set()
    stale = [str(p) for p in written if not filecmp.cmp(tmp_path / p, RESULTS_DIR / p, shallow=False)]
    assert not stale, f"docs/results is stale for {stale}: run make regen"
    assert not extra, f"docs/results has files no technique renders: {extra}"


@pytest.mark.parametrize("technique", list(techniques()))
def test_each_technique_page_shows_its_results(technique):
    fragment = f'--8<-- "docs/results/{technique}.md"'
    pages = [p.name for p in DOCS.glob("*.md") if fragment in p.read_text()]
    assert pages, f"no page includes {fragment}"


@pytest.mark.parametrize("args, message", [
    (["--only", "no_such_technique"], "unknown technique"),
    (["--quick", "--full"], "not allowed with"),
    (["--quick", "--update-reference"], "--update-reference needs a full run"),
    (["--out", "bench/references/amd-avx2.json"], "is in the committed references"),
    (["--out", "no/such/folder/r.json"], "does not exist"),
])
def test_bad_arguments_are_refused(args, message):
    result = bench(*args)
    assert result.returncode == 2
    assert message in result.stderr


def test_arguments_are_checked_without_importing_torch():
    """--list, --help and argument errors answer at once: torch (seconds to import) waits for a run."""
    code = ("import sys\nfrom bench.__main__ import main\n"
            "for argv in (['--list'], ['--help'], ['--only', 'no_such_technique']):\n"
            "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
            "assert 'torch' not in sys.modules, 'torch was imported'\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=clean_env(),
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "Thread budgets across processes" in result.stdout, "--list shows the titles"


def test_an_existing_results_file_is_not_overwritten(tmp_path):
    mine = tmp_path / "bench-results.json"
    mine.write_text("my earlier run")
    result = bench("--quick", "--only", "vectorise", "--out", str(mine))
    assert result.returncode == 2 and "--overwrite" in result.stderr
    assert mine.read_text() == "my earlier run"


@pytest.mark.recorded
def test_help_shown_on_the_benchmark_page_is_current(request):
    result = bench("--help")
    assert result.returncode == 0
    assert result.stdout == keep(DOCS / "outputs" / "cli" / "bench_help.txt", result.stdout, request)


def test_update_reference_only_replaces_those_techniques_rows():
    """--update-reference --only T: T's rows, not-run reasons and what the reference said it lacked
    of T come from the run; every other technique's rows stay; another torch release is refused."""
    from bench.__main__ import merged

    def row(technique, label):
        return {"id": f"{technique}/g/{label}", "technique": technique, "label": label}

    reference = {"machine": {"torch": "2.14.1"}, "techniques": {"a": "A"},
                 "results": [row("a", "x"), row("b", "old")], "technique_seconds": {"a": 30.0, "b": 500.0},
                 "not_measured": {"b": "added after this run", "a/g2": "later"}, "not_run": {"b/g/y": "no bf16"}}
    run = {"machine": {"torch": "2.14.1", "measured_mhz": 3500.0}, "techniques": {"b": "B"}, "created": "now",
           "seconds": 60.0, "technique_seconds": {"b": 59.0}, "results": [row("b", "new")],
           "not_run": {"b/g/z": "no kernel"}}
    out = merged(reference, run)
    assert [r["id"] for r in out["results"]] == ["a/g/x", "b/g/new"]
    assert out["techniques"] == {"a": "A", "b": "B"}
    assert out["not_measured"] == {"a/g2": "later"} and out["not_run"] == {"b/g/z": "no kernel"}
    assert out["measured_separately"]["b"]["created"] == "now"
    assert out["technique_seconds"] == {"a": 30.0, "b": 59.0}, "each technique's time is its latest run's"
    with pytest.raises(ValueError, match="one reference, one torch release"):
        merged(reference, {**run, "machine": {"torch": "2.15.0"}})


def test_a_references_run_time_is_the_sum_of_its_parts_or_says_what_it_is():
    """The machine table's run time: the sum of the techniques' latest times where the reference
    has each; else the first run's time (which later parts never update) and each later part apart,
    never a sum of the two."""
    from bench.render import run_time

    each = {"techniques": {"a": "A", "b": "B", "c": "C"}, "seconds": 100.0,
            "technique_seconds": {"a": 40.0, "b": 1200.0, "c": 2400.0}}
    assert run_time(each) == "61&nbsp;min, the sum of its techniques' times"
    assert run_time(each, "zh") == "61&nbsp;分钟（各技巧用时之和）"
    first = {"techniques": each["techniques"], "seconds": 324.5,
             "measured_separately": {"b": {"created": "2026-12-05T03", "seconds": 911.3},
                                     "c": {"created": "2026-12-05T00", "seconds": 971.7},
                                     "a": {"created": "2026-12-05T00", "seconds": 971.7}}}
    assert run_time(first) == "5&nbsp;min; later, on their own: C and A 16&nbsp;min, B 15&nbsp;min"
    assert run_time({"techniques": {"a": "A"}, "seconds": 13.0}) == "13&nbsp;s"


def test_no_case_study_row_exceeds_the_peak_of_its_precision():
    """A row above its precision's peak is a harness bug (a precision mislabelled, a wrong count
    of work): every case-study row's share of the peak stays below it, and a row of an int8 or
    bf16 step or side row is labelled with that precision, so its share is of the right peak."""
    checked = 0
    for reference in load_all():
        for row in reference["results"]:
            p = row["params"]
            if not row["id"].startswith("case_study/") or "gflops" not in p:
                continue
            named = [precision for precision in ("int8", "bf16") if precision in row["label"]]
            assert not named or p["precision"] == named[0], (reference["machine"]["cpu_model"], row["id"])
            if p.get("share_of_peak") is not None:
                assert p["share_of_peak"] <= 1.0, (reference["machine"]["cpu_model"], row["id"], p["share_of_peak"])
                checked += 1
    assert checked


def test_render_machine_table_names_each_kinds_later_recordings():
    """Home's and the Benchmark page's machine table describes each kind's first recording; a kind's
    note names its later recordings (how many, when, and the CPU family of those on another CPU),
    which its verdicts and ranges span, in both languages."""
    from bench.machine import kind_title
    from bench.render import machine_table

    references = load_all()
    for lang, said in (("en", "Recorded again"), ("zh", "之后又录制过")):
        lines = machine_table(references, lang).splitlines()
        for reference in references:
            again = reference.get("recordings", [])
            note = next((line for line in lines if line.startswith(f"- **{kind_title(reference['machine'])}**")), "")
            if not again:
                assert said not in note
                continue
            assert said in note, f"{kind(reference['machine'])}: its later recordings are not named ({lang})"
            assert all(rec["created"][:16].replace("T", " ") in note for rec in again), note
            assert (f"{len(again)} 次" if lang == "zh" else f"{len(again)} times" if len(again) > 1 else "once") in note
            others = {str(rec["machine"].get("cpu_family")) for rec in again
                      if str(rec["machine"].get("cpu_family")) != str(reference["machine"].get("cpu_family"))}
            assert all(f"family {family}" in note for family in others), note
    assert "Recorded again" not in machine_table(references, "zh")
