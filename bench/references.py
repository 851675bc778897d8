"""The committed reference runs, one full run per CPU kind: bench/references/<kind>.json, where
<kind> is the vendor and instruction-set level (bench.machine.kind), e.g. amd-avx2."""
from __future__ import annotations

import json
import re
from pathlib import Path

from bench.machine import kind, kind_order

FOLDER = Path(__file__).with_name("references")
ROOT = FOLDER.parents[1]
# What tests/releases.py (make test-torch) found on other torch releases: torch-<release>.json
RELEASES = ROOT / "docs" / "outputs" / "releases"
# What an upgrade does to speed on a CPU kind (bench/releases.py: make bench-torch): releases/<kind>.json
UPGRADES = FOLDER / "releases"
# Its probe of pytorch/pytorch#193951 (fp16 matmul on torch 2.14): the technique of the probe's rows
PROBE = "pytorch-193951"


def pins() -> dict[str, str]:
    """requirements.txt's pins, {package: version}: the torch every page and reference is of."""
    found = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)==([^\s#]+)", line)
        if match:
            found[match.group(1).lower()] = match.group(2)
    return found


def release_key(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", release.split("+")[0])[:3])


def load_releases(folder: Path = RELEASES) -> list[dict]:
    """The other releases' records, oldest first."""
    found = [json.loads(p.read_text()) for p in folder.glob("torch-*.json")]
    return sorted(found, key=lambda r: release_key(r["asked"]))


def load_upgrades(folder: Path = UPGRADES) -> dict[str, dict]:
    """The upgrade comparisons, by CPU kind."""
    found = [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]
    return {kind(r["machine"]): r for r in sorted(found, key=lambda r: kind_order(r["machine"]))}


def timed_rows(upgrade: dict, technique: str | None = None) -> list[dict]:
    """An upgrade comparison's timed rows (durations and rates, not sizes or counts; the probe
    apart), measured under both releases: what its verdict and spans are taken over."""
    return [r for r in upgrade["results"] if r["release"] == upgrade["release"] and r["faster"]
            and r["unit"] in ("s", "samples/s", "GFLOP/s") and r["technique"] != PROBE
            and (technique is None or r["technique"] == technique)]


def path_for(machine: dict) -> Path:
    return FOLDER / f"{kind(machine)}.json"


def load_all(folder: Path = FOLDER) -> list[dict]:
    """Every reference, older instruction sets first."""
    found = [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]
    return sorted(found, key=lambda r: kind_order(r["machine"]))


def same_cpu(machine: dict, other: dict) -> bool:
    """Two machine blocks name the same CPU (model name, family and model number)."""
    return all(str(machine.get(k)) == str(other.get(k)) for k in ("cpu_model", "cpu_family", "cpu_model_number"))


def unmeasured(reference: dict) -> dict[str, str]:
    """What a reference lacks on purpose, by technique, row-id prefix or row id, with the reason:
    "withdrawn" (measured with a harness since found wrong, and removed), "not_measured" (rows
    added to the benchmark after this run, on a CPU kind no session has had since) and "not_run"
    (rows the run itself skipped on this CPU, e.g. bf16 steps without native bf16)."""
    return {**reference.get("withdrawn", {}), **reference.get("not_measured", {}), **reference.get("not_run", {})}


def under(row_id: str, prefix: str) -> bool:
    """row_id is prefix, or a row under it (prefix a technique, a technique/group or a row id)."""
    return row_id == prefix or row_id.startswith(prefix.rstrip("/") + "/")


def lacks(reference: dict, row_id: str) -> str | None:
    """Why the reference has no row_id on purpose, or None."""
    for prefix, reason in unmeasured(reference).items():
        if under(row_id, prefix):
            return reason
    return None


# --- recordings: a reference merges several independent runs of its kind ----------------------
def recordings(reference: dict) -> list[dict[str, dict]]:
    """Each recording's rows by id: the reference's own results (the figures the pages quote)
    first, then every later recording merged into it (add_recording), whose rows only widen the
    intervals the verdicts read (bench.noise: a verdict holds only where it holds in each). Rows of
    groups a later recording added (from_recording: its index in "recordings") are in that
    recording, beside the rows of the same run, not in the first."""
    later = [{r["id"]: r for r in recording["results"]} for recording in reference.get("recordings", [])]
    for r in reference["results"]:  # a group a later recording added: its rows are in that recording
        if "from_recording" in r:
            later[r["from_recording"]][r["id"]] = r
    return [{r["id"]: r for r in reference["results"] if "from_recording" not in r}] + later


def recording_machines(reference: dict) -> list[dict]:
    """The machine block of each recording, in recordings()' order: the reference's own, then each
    later recording's."""
    return [reference["machine"], *(recording["machine"] for recording in reference.get("recordings", []))]


def recording_count(reference: dict, row_id: str) -> int:
    return sum(row_id in rows for rows in recordings(reference))


def machine_of(machine: dict) -> dict:
    """What names the machine of a recording (bench.machine.machine_name reads it)."""
    keys = ("cpu_model", "vendor", "cpu_family", "cpu_model_number", "arch", "isa", "measured_mhz", "torch")
    return {k: machine.get(k) for k in keys}


def add_recording(reference: dict, run: dict) -> tuple[dict, dict[str, int]]:
    """The reference with a full run of its kind merged in, and counts of what went where: the
    run's rows of groups the reference has go into a new entry of "recordings" (a second, third
    ... recording of those rows); whole groups the reference lacks join its results (their first
    recording), named in "elsewhere" when the run's machine is another CPU model than the
    reference's; rows the disturbance watch kept disturbed are left out."""
    if run.get("mode") != "full":
        raise ValueError("only a full run is a recording (this one is quick mode)")
    if kind(run["machine"]) != kind(reference["machine"]):
        raise ValueError(f"the run is of kind {kind(run['machine'])}, the reference of {kind(reference['machine'])}")
    if run["machine"].get("torch") != reference["machine"].get("torch"):
        raise ValueError(f"the reference was measured on torch {reference['machine'].get('torch')}, this run on "
                         f"{run['machine'].get('torch')}: one reference, one torch release")
    disturbed = set(run.get("disturbed", {}).get("kept_disturbed", []))
    rows = [r for r in run["results"] if r["id"] not in disturbed]
    have_groups = {(r["technique"], r["group"]) for r in reference["results"]}
    out = json.loads(json.dumps(reference))
    new_groups = [r for r in rows if (r["technique"], r["group"]) not in have_groups]
    again = [r for r in rows if (r["technique"], r["group"]) in have_groups]
    if new_groups:
        # a technique the reference did not have at all is now one of its techniques
        out["techniques"] = {**out.get("techniques", {}), **{r["technique"]: run["techniques"][r["technique"]]
                                                             for r in new_groups if r["technique"] in run.get("techniques", {})}}
        # they belong to this recording, beside the rows of the same run (recordings()), not to the first
        new_groups = [{**r, "from_recording": len(out.get("recordings", []))} for r in new_groups]
        out["results"] += new_groups
        added = {r["id"] for r in new_groups}
        out["not_measured"] = {k: v for k, v in out.get("not_measured", {}).items()
                               if not any(under(i, k) for i in added)}
        if not same_cpu(run["machine"], reference["machine"]):
            from bench.machine import machine_name
            where = (f"measured in a later recording ({run['created'][:10]}) on {machine_name(run['machine'])}, "
                     f"family {run['machine'].get('cpu_family')} model {run['machine'].get('cpu_model_number')}: "
                     "not the machine the machine block describes")
            out.setdefault("elsewhere", {}).update({r["id"]: where for r in new_groups})
    out.setdefault("recordings", []).append({
        "created": run["created"], "seconds": run["seconds"],
        "technique_seconds": run.get("technique_seconds", {}), "machine": machine_of(run["machine"]),
        "disturbed": run.get("disturbed", {}), **({"notes": run["notes"]} if run.get("notes") else {}),
        "results": again})
    return out, {"again": len(again), "new": len(new_groups), "left_out_disturbed": len(disturbed)}
