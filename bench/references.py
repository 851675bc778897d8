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
