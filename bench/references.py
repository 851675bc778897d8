"""The committed reference runs, one full run per CPU kind: bench/references/<kind>.json, where
<kind> is the vendor and instruction-set level (bench.machine.kind), e.g. amd-avx2."""
from __future__ import annotations

import json
from pathlib import Path

from bench.machine import kind, kind_order

FOLDER = Path(__file__).with_name("references")


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
