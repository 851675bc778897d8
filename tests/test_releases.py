"""Which PyTorch: the records of other torch releases (docs/outputs/releases, written by
`make test-torch TORCH=<release>`, tests/releases.py) are of the release tests as they are now,
ran the release they name, and cover the newest release and the oldest the site supports."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.references import RELEASES, load_releases, pins, release_key
from tests import releases
from tests.paths import ROOT

# Besides the pin: the oldest release the site supports, and the newest on PyPI when checked
CHECKED = (releases.OLDEST, "2.15.0")


@pytest.fixture(scope="module")
def current() -> dict[str, str]:
    """{node id: fingerprint} of the release tests in this tree."""
    return releases.collect(sys.executable)


def test_the_newest_and_the_oldest_supported_release_are_recorded():
    recorded = {r["asked"] for r in load_releases()}
    missing = [r for r in CHECKED if r not in recorded]
    assert not missing, f"no record for torch {', '.join(missing)}: run make test-torch TORCH=<release>"
    assert release_key(releases.OLDEST) < release_key(pins()["torch"]) < release_key(max(CHECKED, key=release_key))


@pytest.mark.parametrize("path", sorted(RELEASES.glob("torch-*.json")), ids=lambda p: p.stem)
def test_record_ran_the_release_it_names(path):
    record = json.loads(path.read_text())
    assert path.stem == f"torch-{record['asked']}"
    assert record["torch"].split("+")[0] == record["asked"], "the venv ran another torch than the one asked for"
    assert record["installed"].get("torch", "").split("+")[0] == record["asked"]
    assert all(r["outcome"] in ("passed", "failed", "skipped") for r in record["tests"].values())


@pytest.mark.parametrize("path", sorted(RELEASES.glob("torch-*.json")), ids=lambda p: p.stem)
def test_record_is_of_the_release_tests_as_they_are(path, current):
    """A record goes stale when a release test is added or removed, or its code, a snippet it runs
    or a recorded output it compares with changes: then the pages would quote an old run."""
    record = json.loads(path.read_text())["tests"]
    added = sorted(set(current) - set(record))
    gone = sorted(set(record) - set(current))
    changed = sorted(n for n in set(current) & set(record) if current[n] != record[n]["fingerprint"])
    assert not (added or gone or changed), (
        f"{path.name} is stale: run make test-torch TORCH={path.stem.split('-', 1)[1]} TORCH_OVERWRITE=1\n"
        f"new: {added}\ngone: {gone}\nchanged: {changed}")


def test_release_tests_include_every_erratum_and_snippet(current):
    names = {n.split("::")[-1] for n in current}
    assert {f"test_page_output_is_a_real_run[{s}]" for s in
            (p.stem for p in (ROOT / "snippets").glob("*.py"))} <= names
    corrections = [n for n in current if n.startswith("tests/test_corrections.py::")]
    assert len(corrections) >= 7, corrections


@pytest.mark.parametrize("args, message", [
    (["2.15"], "is not a release number like 2.15.0"),
    (["latest"], "is not a release number like 2.15.0"),
])
def test_bad_release_is_refused(args, message):
    done = subprocess.run([sys.executable, "-m", "tests.releases", *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode != 0 and message in done.stderr, done.stderr


def test_an_existing_record_is_not_replaced_without_asking(tmp_path, monkeypatch):
    monkeypatch.setattr(releases.references, "RELEASES", tmp_path)
    (tmp_path / "torch-2.15.0.json").write_text("kept")
    monkeypatch.setattr(sys, "stdin", open("/dev/null"))
    with pytest.raises(SystemExit, match="exists: pass --overwrite"):
        releases.main(["2.15.0"])
    assert (tmp_path / "torch-2.15.0.json").read_text() == "kept"


def test_a_venv_that_runs_another_torch_is_not_recorded(tmp_path, monkeypatch):
    """pip capped by a constraint (or a cached wheel) may install another release: never record it."""
    monkeypatch.setattr(releases.references, "RELEASES", tmp_path)
    monkeypatch.setattr(releases, "build", lambda release: (ROOT / ".venv", {"torch": "2.14.1"}, {}))
    monkeypatch.setattr(releases, "runs_torch", lambda venv: "2.14.1+cu130")
    with pytest.raises(SystemExit, match="runs torch 2.14.1\\+cu130, not 2.15.0"):
        releases.main(["2.15.0", "--overwrite"])
    assert not list(tmp_path.iterdir())


def test_stale_keeps_each_kept_results_cpu_kind(tmp_path, monkeypatch):
    """--stale re-runs only what changed: a kept result stays stamped with the kind it ran on."""
    monkeypatch.setattr(releases.references, "RELEASES", tmp_path)
    monkeypatch.setattr(releases, "VENVS", tmp_path)
    (tmp_path / "torch-2.15.0.json").write_text(json.dumps({
        "asked": "2.15.0", "torch": "2.15.0+cpu", "cpu": "intel-amx",
        "tests": {"t::kept": {"fingerprint": "same", "outcome": "passed"},
                  "t::changed": {"fingerprint": "old", "outcome": "passed"}}}))
    monkeypatch.setattr(releases, "build", lambda release: (ROOT / ".venv", {"torch": "2.15.0"}, {}))
    monkeypatch.setattr(releases, "runs_torch", lambda venv: "2.15.0+cpu")
    monkeypatch.setattr(releases, "collect", lambda python, env=None: {"t::kept": "same", "t::changed": "new"})
    monkeypatch.setattr(releases, "this_kind", lambda: "amd-avx2")
    ran = []

    def pytest_run(args, **kwargs):
        ran.append([a for a in args if a.startswith("t::")])
        outcomes = next(a for a in args if a.startswith("--release-outcomes=")).split("=", 1)[1]
        Path(outcomes).write_text(json.dumps({"t::changed": {"outcome": "failed", "message": "m"}}))
        return subprocess.CompletedProcess(args, 1)
    monkeypatch.setattr(releases.subprocess, "run", pytest_run)
    assert releases.main(["2.15.0", "--stale"]) == 0
    record = json.loads((tmp_path / "torch-2.15.0.json").read_text())
    assert ran == [["t::changed"]]
    assert record["tests"]["t::kept"] == {"fingerprint": "same", "cpu": "intel-amx", "outcome": "passed"}
    assert record["tests"]["t::changed"] == {"fingerprint": "new", "outcome": "failed", "message": "m", "cpu": "amd-avx2"}
    assert record["cpu"] == "amd-avx2, intel-amx"

# --- what an upgrade does to speed (bench/releases.py: make bench-torch) --------------------------
def _row(row_id: str, median: float, higher_is_better: bool = False, unit: str = "s") -> dict:
    technique, group, label = row_id.split("/")
    return {"id": row_id, "technique": technique, "group": group, "label": label, "unit": unit,
            "higher_is_better": higher_is_better, "params": {}, "median": median}


def test_upgrade_rows_take_each_releases_median_over_its_rounds_and_say_which_is_faster():
    from bench.releases import combine
    runs = {"2.14.1": [[_row("t/g/a", 2.0), _row("t/g/rate", 100.0, True, "samples/s")],
                       [_row("t/g/a", 4.0), _row("t/g/rate", 300.0, True, "samples/s")],
                       [_row("t/g/a", 3.0), _row("t/g/rate", 200.0, True, "samples/s")]],
            "2.15.0": [[_row("t/g/a", 1.0), _row("t/g/rate", 100.0, True, "samples/s"), _row("t/g/new", 1.0)]]}
    rows = {r["id"]: r for r in combine(runs, "2.14.1", "2.15.0")}
    assert set(rows) == {"t/g/a", "t/g/rate"}, "a row measured under one release only has no factor"
    assert rows["t/g/a"]["2.14.1"] == 3.0 and rows["t/g/a"]["faster"] == 3.0  # a time: 3 s -> 1 s is 3x faster
    assert rows["t/g/rate"]["faster"] == 0.5  # a rate: 200 -> 100 samples/s is half as fast
    assert rows["t/g/a"]["rounds"] == {"2.14.1": [2.0, 4.0, 3.0], "2.15.0": [1.0]}


@pytest.mark.parametrize("args, message", [
    ([pins()["torch"]], "is the pinned torch"),
    (["2.15"], "is not a release number like 2.15.0"),
    (["2.15.0", "--only", "nothing"], "unknown technique(s) nothing"),
    (["2.15.0", "--probe-only", "2.11"], "--probe-only: '2.11' is not a release number"),
    (["2.15.0", "--rounds", "0"], "--rounds must be >= 1"),
])
def test_bad_upgrade_comparison_is_refused(args, message):
    done = subprocess.run([sys.executable, "-m", "bench.releases", *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and message in done.stderr, done.stderr


def test_an_upgrade_comparison_is_not_replaced_without_asking(tmp_path, monkeypatch):
    from bench import machine
    from bench import releases as upgrade
    monkeypatch.setattr(upgrade, "FOLDER", tmp_path)
    (tmp_path / f"{machine.this_kind()}.json").write_text("kept")
    monkeypatch.setattr(sys, "stdin", open("/dev/null"))
    with pytest.raises(SystemExit, match="exists: pass --overwrite"):
        upgrade.main(["2.15.0"])
    assert (tmp_path / f"{machine.this_kind()}.json").read_text() == "kept"


@pytest.mark.parametrize("path", sorted((ROOT / "bench" / "references" / "releases").glob("*.json")),
                         ids=lambda p: p.stem)
def test_upgrade_comparison_ran_the_releases_it_names(path):
    from bench.machine import kind
    data = json.loads(path.read_text())
    assert path.stem == kind(data["machine"])
    assert data["pinned"] == pins()["torch"], "compared with another torch than the pinned one: run make bench-torch again"
    for release, found in data["versions"].items():
        assert found["torch"].split("+")[0] == release
    assert {r["release"] for r in data["results"]} <= {data["release"], *data["probe_only"]}
    assert all(len(r["rounds"][data["pinned"]]) == data["rounds"][r["technique"]] for r in data["results"])
