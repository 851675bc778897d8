"""One module per technique. Each defines TITLE (as on its page), ORDER (nav order), WHEN (when
the technique applies, for Home's headline table) and run(session: bench.core.Session), which
calls session.time()/session.record() with one baseline row per group.

TITLE, ORDER and WHEN are plain literals: techniques() reads them from the source, so that --list,
--help and argument errors answer at once instead of importing torch through every module."""
from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

FOLDER = Path(__file__).parent


def _literals(path: Path) -> dict:
    """The module-level NAME = <literal> assignments of a case module, read without importing it."""
    found = {}
    for node in ast.parse(path.read_text(), filename=str(path)).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                found[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass  # not a literal
    return found


def techniques() -> dict[str, str]:
    """Every module in bench/cases, by name, in nav order (ORDER, then name): its TITLE."""
    found = []
    for info in pkgutil.iter_modules([str(FOLDER)]):
        if info.name.startswith("_"):
            continue
        path = FOLDER / f"{info.name}.py"
        literals = _literals(path)
        if not (isinstance(literals.get("TITLE"), str) and isinstance(literals.get("ORDER"), int)):
            raise ValueError(f"{path} needs TITLE = '<title>' and ORDER = <number>, written as literals")
        found.append((literals["ORDER"], info.name, literals["TITLE"]))
    return {name: title for _, name, title in sorted(found)}


def when() -> dict[str, str]:
    """Every technique's WHEN, read like its TITLE."""
    return {p.stem: _literals(p)["WHEN"] for p in sorted(FOLDER.glob("[!_]*.py"))}


def recommended() -> dict[str, dict[str, list[str]]]:
    """Every technique's RECOMMENDED: {regime: row-id patterns of the variant a reader should use},
    which its verdicts and Home's headline count over every group that measured them."""
    return {p.stem: _literals(p)["RECOMMENDED"] for p in sorted(FOLDER.glob("[!_]*.py"))}


def pages() -> dict[str, str]:
    """Every technique's page under docs/: its PAGE where it sets one, else its name with dashes."""
    return {p.stem: _literals(p).get("PAGE", p.stem.replace("_", "-") + ".md") for p in sorted(FOLDER.glob("[!_]*.py"))}


def load(name: str) -> ModuleType:
    """The case module itself (imports torch), for its run(session)."""
    return importlib.import_module(f"{__name__}.{name}")
