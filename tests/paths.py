"""Where things are: the repository, its snippets, the pages and their recorded outputs."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SNIPPETS = ROOT / "snippets"
OUTPUTS = ROOT / "docs" / "outputs"
DOCS = ROOT / "docs"


def all_snippets() -> list[str]:
    return sorted(p.stem for p in SNIPPETS.glob("*.py"))


def snippet_path(name: str) -> Path:
    path = SNIPPETS / f"{name}.py"
    assert path.is_file(), f"no snippet {path}"
    return path
