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


def path_for(machine: dict) -> Path:
    return FOLDER / f"{kind(machine)}.json"


def load_all(folder: Path = FOLDER) -> list[dict]:
    """Every reference, older instruction sets first."""
    found = [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]
    return sorted(found, key=lambda r: kind_order(r["machine"]))


def unmeasured(reference: dict) -> dict[str, str]:
    """What a reference lacks on purpose, by technique, row-id prefix or row id, with the reason:
    "withdrawn" (measured with a harness since found wrong, and removed) and "not_measured"
    (rows added to the benchmark after this run, on a CPU kind no session has had since)."""
    return {**reference.get("withdrawn", {}), **reference.get("not_measured", {})}


def lacks(reference: dict, row_id: str) -> str | None:
    """Why the reference has no row_id on purpose, or None."""
    for prefix, reason in unmeasured(reference).items():
        if row_id == prefix or row_id.startswith(prefix.rstrip("/") + "/"):
            return reason
    return None
