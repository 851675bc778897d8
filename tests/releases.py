"""Which PyTorch: the Corrections page's errata, every snippet's recorded output and the statements
about torch's API and behaviour (the tests marked `release`), re-run on another torch release.

    make test-torch TORCH=2.15.0      # or: .venv/bin/python -m tests.releases 2.15.0

builds a venv of its own for that release (.venv-torch/<release>), with the torchvision paired
with it and the pinned torchao where they install (what does not install is left out, with pip's
reason, and the tests that need it are skipped saying so), prints the torch it really runs, runs
the release tests there and writes what they found to docs/outputs/releases/torch-<release>.json.
The pages read those records (bench/figures.py: releases_table, release_check, holds_on), and
tests/test_releases.py fails when a record no longer matches the tests it was made from.

pip on this project's machines may carry a constraint that caps torch at the pinned release
(/etc/xdg/pip/constraints.txt): this script installs the release asked for on purpose, with pip's
configuration files left out, and stops if the venv runs any other torch.
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from bench import references
from bench.machine import this_kind
# the venv is built as make bench-torch builds it (tests monkeypatch build and runs_torch here)
from bench.releases import VENVS, VERSION, build, last_error, runs_torch, shown
from tests.recorded import mask

ROOT = Path(__file__).resolve().parents[1]
# The oldest torch the site supports: torchao 0.18 (pinned; the quantisation steps use it) loads
# its CPU kernels only on torch >= 2.11 (torchao/__init__.py), so 2.11.0 is the oldest release
# on which every page's code path exists as the page shows it.
OLDEST = "2.11.0"
# What a release test runs, named in its source: a snippet, or one of the article's examples
RUNS = re.compile(r"\b(?:run|run_shared|run_here|run_isolated|load_snippet)\(\s*\"(\w+)\"")
ARTICLE_RUNS = re.compile(r"\brun_article\(\s*\"(\w+)\"")


# --- what a release test depends on (used by conftest at collection) ---------------------------
def sources(item) -> list[Path]:
    """The files a test item runs besides its own code: the snippets and article examples it
    names, and their recorded outputs."""
    function = getattr(item, "function", None)
    code = inspect.getsource(function) if function is not None else ""
    params = getattr(getattr(item, "callspec", None), "params", {})
    snippets = set(RUNS.findall(code))
    snippets |= {v for v in params.values() if isinstance(v, str) and (ROOT / "snippets" / f"{v}.py").is_file()}
    files = []
    for name in sorted(snippets):
        files += [ROOT / "snippets" / f"{name}.py", ROOT / "docs" / "outputs" / f"{name}.txt"]
    for name in sorted(set(ARTICLE_RUNS.findall(code))):
        files += [ROOT / "tests" / "article" / f"{name}.py", ROOT / "docs" / "outputs" / "article" / f"{name}.txt"]
    return [f for f in files if f.is_file()]


def fingerprint(item) -> str:
    """What a record of this test was made from: its code and the files it runs and compares with.
    A record whose fingerprint differs is stale: the test, a snippet or a recorded output changed
    (a recorded output as the tests compare it: new timings alone leave the record current)."""
    digest = hashlib.sha256()
    function = getattr(item, "function", None)
    digest.update((inspect.getsource(function) if function is not None else item.nodeid).encode())
    for path in sources(item):
        content = path.read_bytes()
        if path.suffix == ".txt":  # a recorded output: as the tests compare it, timings masked
            content = mask(path.read_text(), path.stem).encode()
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + content)
    return digest.hexdigest()[:16]


def needs(item, package: str) -> bool:
    """The test, or a file it runs, imports the package."""
    function = getattr(item, "function", None)
    texts = [inspect.getsource(function) if function is not None else ""]
    texts += [p.read_text() for p in sources(item) if p.suffix == ".py"]
    pattern = re.compile(rf"^\s*(?:import|from)\s+{package}\b", re.M)
    return any(pattern.search(text) for text in texts)


def torchao_note(venv: Path) -> str | None:
    """torchao's own word when it does not load its kernels for this torch (a warning at import)."""
    done = subprocess.run([str(venv / "bin" / "python"), "-c", "import torchao"], capture_output=True, text=True)
    lines = [line for line in done.stderr.splitlines() if "Skipping" in line or "Failed to load" in line]
    if done.returncode != 0:
        return f"import torchao failed: {last_error(done)}"
    return re.sub(r"^.*?(Skipping|Failed)", r"\1", lines[0]) if lines else None


# --- running the release tests ---------------------------------------------------------------------
def modules() -> list[str]:
    """The test modules with release tests: only these are collected (another module may import
    a package that did not install for the release)."""
    return [p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "tests").glob("test_*.py"))
            if "pytest.mark.release" in p.read_text()]


def collect(python: Path | str, env: dict[str, str] | None = None) -> dict[str, str]:
    """{node id: fingerprint} of the release tests, as this tree has them."""
    out = VENVS / f"fingerprints-{os.getpid()}.json"
    out.parent.mkdir(exist_ok=True)
    done = subprocess.run([str(python), "-m", "pytest", "--collect-only", "-q", "-m", "release", "-p", "no:xdist",
                           "-o", "addopts=-p no:cacheprovider", f"--release-fingerprints={out}", *modules()],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0 or not out.is_file():
        sys.exit(f"collecting the release tests failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    found = json.loads(out.read_text())
    out.unlink()
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release", help=f"a torch release, e.g. 2.15.0 or {OLDEST} (the oldest the site supports)")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing record without asking")
    parser.add_argument("--stale", action="store_true",
                        help="re-run only the tests that are new or changed since the existing record, keep the rest")
    args = parser.parse_args(argv)
    if not VERSION.match(args.release):
        parser.error(f"{args.release!r} is not a release number like 2.15.0")
    record_path = references.RELEASES / f"torch-{args.release}.json"
    if args.stale and not record_path.exists():
        parser.error(f"--stale: there is no {shown(record_path)} to update")
    if not args.stale and record_path.exists() and not args.overwrite and sys.stdin.isatty():
        if input(f"{shown(record_path)} exists; replace it? [y/N] ").strip().lower() != "y":
            return 1
    elif not args.stale and record_path.exists() and not args.overwrite:
        sys.exit(f"{shown(record_path)} exists: pass --overwrite (TORCH_OVERWRITE=1 with make) to replace it, "
                 f"or --stale (TORCH_STALE=1) to re-run only what changed")

    venv, installed, missing = build(args.release)
    running = runs_torch(venv)
    print(f"torch.__version__ in {shown(venv)}: {running}", flush=True)
    if running.split("+")[0] != args.release:
        sys.exit(f"the venv runs torch {running}, not {args.release}: stopping rather than recording another release")
    for package, why in missing.items():
        print(f"left out: {package}: {why}", flush=True)
    note = torchao_note(venv) if "torchao" in installed else None
    if note:
        print(f"torchao: {note}", flush=True)

    env = {**os.environ, "RELEASE_MISSING": json.dumps(missing), "TORCH_RELEASE_RUN": args.release}
    for key in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "PYTHONPATH"):
        env.pop(key, None)
    python = venv / "bin" / "python"
    # fingerprints as the main suite computes them: without the release run's version masking
    fingerprints = collect(python, {k: v for k, v in env.items() if k != "TORCH_RELEASE_RUN"})
    outcomes_path = VENVS / f"outcomes-{args.release}.json"
    outcomes_path.unlink(missing_ok=True)
    kept = {}
    if args.stale:
        old = json.loads(record_path.read_text())
        if old["torch"] != running:
            sys.exit(f"{shown(record_path)} is of torch {old['torch']}, the venv runs {running}: re-run it whole")
        # each kept result keeps the CPU kind it ran on (a record before per-test kinds: the record's),
        # its keys in the order of a fresh result's, so that a re-run moves no line of the file
        kept = {node: {**{k: v for k, v in result.items() if k not in ("fingerprint", "cpu")},
                       "cpu": result.get("cpu", old["cpu"])}
                for node, result in old["tests"].items()
                if node in fingerprints and result["fingerprint"] == fingerprints[node]}
    selected = [node for node in sorted(fingerprints) if node not in kept]
    print(f"running {len(selected)} release tests on torch {running}"
          + (f" ({len(kept)} unchanged since the record, kept)" if kept else "") + " ...", flush=True)
    outcomes = {}
    if selected:
        done = subprocess.run([str(python), "-m", "pytest", "-m", "release", f"--release-outcomes={outcomes_path}",
                               "-q", *selected], cwd=ROOT, env=env)
        if not outcomes_path.is_file():
            sys.exit(f"pytest ended with exit code {done.returncode} and recorded no outcome")
        outcomes = {node: {**result, "cpu": this_kind()} for node, result in json.loads(outcomes_path.read_text()).items()}
    outcomes = {**kept, **outcomes}
    # the CPU kinds the tests ran on, most tests first: with --stale, the kept ones may be of another kind
    kinds = [r["cpu"] for r in outcomes.values()]
    record = {
        "asked": args.release, "torch": running, "installed": installed, "not_installed": missing,
        "torchao_note": note, "date": datetime.date.today().isoformat(),
        "cpu": ", ".join(sorted(set(kinds), key=lambda k: (-kinds.count(k), k))) or this_kind(),
        "tests": {node: {"fingerprint": fingerprints[node], **outcomes.get(node, {"outcome": "not run"})}
                  for node in sorted(fingerprints)},
    }
    references.RELEASES.mkdir(parents=True, exist_ok=True)
    record_path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    counts = {}
    for result in record["tests"].values():
        counts[result["outcome"]] = counts.get(result["outcome"], 0) + 1
    print(f"torch {running}: " + ", ".join(f"{n} {o}" for o, n in sorted(counts.items())))
    print(f"wrote {shown(record_path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
