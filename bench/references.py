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


def unmeasured(reference: dict) -> dict[str, str]:
    """What a reference lacks on purpose, by technique, row-id prefix or row id, with the reason:
    "withdrawn" (measured with a harness since found wrong, and removed), "not_measured" (rows
    added to the benchmark after this run, on a CPU kind no session has had since) and "not_run"
    (rows the run itself skipped on this CPU, e.g. bf16 steps without native bf16)."""
    return {**reference.get("withdrawn", {}), **reference.get("not_measured", {}), **reference.get("not_run", {})}


def lacks(reference: dict, row_id: str) -> str | None:
    """Why the reference has no row_id on purpose, or None."""
    for prefix, reason in unmeasured(reference).items():
        if row_id == prefix or row_id.startswith(prefix.rstrip("/") + "/"):
            return reason
    return None
