"""What an upgrade does to CPU speed: the benchmark's own rows under the pinned torch and under
another release, on this machine, side by side in one run.

    make bench-torch TORCH=2.15.0      # or: .venv/bin/python -m bench.releases 2.15.0

The other release runs in a venv of its own (.venv-torch/<release>, built as `make test-torch`
builds it). Each technique runs in a fresh process per release, `python -m bench --full --only
<technique>`, the two releases by turns: A then B in the first round, B then A in the second
(a drift in the machine's speed during the run then weighs on both alike). The case study and the
other techniques that take minutes a run (LONG) have one round: A then B or B then A, alternating
from one to the next. A probe of pytorch/pytorch#193951 (fp16 matmul fell to oneDNN's reference
kernel in torch 2.14.0) runs the same way, in every venv asked for with --probe-only too.

Writes bench/references/releases/<kind>.json: per row, each release's median over its rounds and
the factor by which the other release is faster (>1) or slower (<1) than the pinned one.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import llama_build, references
from bench.cases import techniques

ROOT = Path(__file__).resolve().parents[1]
VENVS = ROOT / ".venv-torch"
FOLDER = references.UPGRADES
# The packages whose release goes with torch's: torchvision 0.(minor + 15) pairs with torch 2.minor.
PAIRED = ("torch", "torchvision", "torchao")
VERSION = re.compile(r"^\d+\.\d+\.\d+$")
ROUNDS = 2
# Minutes a run each (the case study ~13 on 2 cores): one round per release.
LONG = ("case_study", "data_loading", "allocators")
PROBE = references.PROBE


# --- building a release's venv (make test-torch and make bench-torch) ----------------------------
def shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def pip(venv: Path, *args: str) -> subprocess.CompletedProcess:
    """pip in the release's venv, without pip's configuration files: a site-wide constraint that
    caps torch would otherwise turn the release asked for into another one, or into an error."""
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull}
    env.pop("PIP_CONSTRAINT", None)
    return subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", *args],
                          env=env, capture_output=True, text=True)


def last_error(done: subprocess.CompletedProcess) -> str:
    lines = [line.strip() for line in (done.stderr + done.stdout).splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR")]
    return re.sub(r"\s*\(from versions:.*?\)", "", (errors or lines or ["pip failed"])[0])


def build(release: str) -> tuple[Path, dict[str, str], dict[str, str]]:
    """The venv for one torch release: returns it, what was installed ({package: version}) and
    what was not ({package: why})."""
    venv = VENVS / release
    pins = references.pins()
    if not (venv / "bin" / "python").is_file():
        subprocess.run(["python3", "-m", "venv", str(venv)], check=True)
    rest = [line for line in (ROOT / "requirements.txt").read_text().splitlines()  # llama.cpp: bench/llama_build.py
            if not re.match(rf"^({'|'.join(PAIRED)}|llama-cpp-python)\b", line.strip())]
    requirements = venv / "requirements-rest.txt"
    requirements.write_text("\n".join(rest) + "\n")
    constraint = venv / "constraint.txt"
    constraint.write_text(f"torch=={release}\n")
    print(f"installing torch=={release} and the site's other requirements into {shown(venv)} ...", flush=True)
    done = pip(venv, "-c", str(constraint), f"torch=={release}", "-r", str(requirements))
    if done.returncode != 0:
        sys.exit(f"torch {release} did not install: {last_error(done)}")
    missing = {}
    vision = f"0.{int(release.split('.')[1]) + 15}"
    done = pip(venv, "-c", str(constraint), f"torchvision=={vision}.*")
    if done.returncode != 0:
        missing["torchvision"] = (f"no torchvision {vision}.x (the release paired with torch {release}) installs: "
                                  f"{last_error(done)}")
    done = pip(venv, "--no-deps", f"torchao=={pins['torchao']}")
    if done.returncode != 0:
        missing["torchao"] = f"torchao {pins['torchao']} did not install: {last_error(done)}"
    why = llama_build.build(venv)  # the tests that import llama_cpp are skipped saying why
    if why:
        missing["llama_cpp"] = why
    return venv, installed(venv / "bin" / "python"), missing


def installed(python: Path | str, env: dict | None = None) -> dict[str, str]:
    """{package: version} of the paired packages a Python finds (its venv and PYTHONPATH)."""
    return json.loads(subprocess.run(
        [str(python), "-c",
         "import importlib.metadata as m, json\n"
         f"print(json.dumps({{p: m.version(p) for p in {list(PAIRED)!r} "
         "if any(d.metadata['Name'].lower() == p for d in m.distributions())}))"],
        capture_output=True, text=True, check=True, env=env).stdout)


def runs_torch(venv: Path) -> str:
    return subprocess.run([str(venv / "bin" / "python"), "-c", "import torch; print(torch.__version__)"],
                          capture_output=True, text=True, check=True).stdout.strip()


def vision_overlay(release: str, venv: Path) -> tuple[Path, str]:
    """The pinned torchvision, without its dependencies, in a folder of its own put on the path of
    the release's benchmark runs only (its test venv keeps saying what does not install): the case
    study's ResNet-50 is torchvision's Python code over torch's operators, the same code on both
    sides of the comparison."""
    version = references.pins()["torchvision"]
    overlay = VENVS / f"{release}-torchvision-{version}"
    if not (overlay / "torchvision").is_dir():
        done = pip(venv, "--no-deps", "--target", str(overlay), f"torchvision=={version}")
        if done.returncode != 0:
            sys.exit(f"torchvision {version} did not install for the comparison: {last_error(done)}")
    return overlay, version


# --- the probe of pytorch#193951 ----------------------------------------------------------------
# One matmul with oneDNN's verbose log on: which of its implementations ran (nothing: not oneDNN)
ONEDNN_IMPL = """
import re, sys, torch
x = torch.randn(256, 256).to(getattr(torch, sys.argv[1]))
x @ x
"""


def onednn_impl(dtype: str) -> str | None:
    """The oneDNN implementation that runs a matmul of this dtype ("brg_matmul:avx10_1_512",
    "ref:any": the reference kernel), or None when torch does not call oneDNN for it."""
    done = subprocess.run([sys.executable, "-c", ONEDNN_IMPL, dtype], env={**os.environ, "ONEDNN_VERBOSE": "1"},
                          capture_output=True, text=True, check=True)
    found = re.findall(r",exec,cpu,matmul,([^,]+),", done.stdout)
    return found[-1] if found else None


def probe(session) -> None:
    """A 1024 x 1024 matmul in fp32, bf16 and fp16, one thread and all cores, and which oneDNN
    kernel runs it: from torch 2.14.0, on CPUs where torch hands fp16 matmuls to oneDNN
    (AVX512-FP16 or AMX-FP16), oneDNN ran them with its reference kernel (pytorch/pytorch#193951);
    fp32 and bf16 were not affected. Elsewhere torch runs fp16 in a plain loop of its own."""
    import torch

    torch.manual_seed(0)
    a = torch.randn(1024, 1024)
    dtypes = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}
    impls = {name: onednn_impl(dtype) for name, dtype in dtypes.items()}
    for threads, where in session.thread_settings():
        group = f"matmul 1024, {where}"
        for name, dtype in dtypes.items():
            x = a.to(getattr(torch, dtype))
            session.time(group, name, lambda: x @ x, num_threads=threads, baseline=name == "fp32",
                         params={"dtype": name, "onednn": impls[name]}, min_run_time=0.2)


def run_probe(out: Path) -> None:
    from bench.core import Session, add_ratios

    session = Session(quick=False)
    session.technique = PROBE
    probe(session)
    add_ratios(session.rows)
    out.write_text(json.dumps({"results": session.rows}))


# --- the comparison -------------------------------------------------------------------------------
def one_run(python: Path | str, technique: str, out: Path, env: dict) -> list[dict]:
    """One technique's rows, measured in a fresh process of the given Python."""
    if technique == PROBE:
        command = [str(python), "-m", "bench.releases", "--probe", str(out)]
    else:
        command = [str(python), "-m", "bench", "--full", "--only", technique, "--out", str(out), "--overwrite"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command[1:])} failed under {python}:\n{done.stderr[-3000:]}")
    return json.loads(out.read_text())["results"]


def combine(runs: dict[str, list[list[dict]]], base: str, other: str) -> list[dict]:
    """Per row: each release's median over its rounds, and how many times faster the other
    release is (>1 faster, <1 slower, whatever the unit's direction)."""
    rows = []
    by_id = {release: {} for release in runs}
    for release, rounds in runs.items():
        for results in rounds:
            for row in results:
                by_id[release].setdefault(row["id"], []).append(row)
    for row_id, base_rows in by_id[base].items():
        other_rows = by_id[other].get(row_id)
        if not other_rows:
            continue
        first = base_rows[0]
        a = statistics.median(r["median"] for r in base_rows)
        b = statistics.median(r["median"] for r in other_rows)
        factor = None
        if a and b:
            factor = b / a if first["higher_is_better"] else a / b
        rows.append({key: first[key] for key in ("id", "technique", "group", "label", "unit", "higher_is_better",
                                                  "params")}
                    | {base: a, other: b, "rounds": {base: [r["median"] for r in base_rows],
                                                     other: [r["median"] for r in other_rows]},
                       "faster": factor, "params_by_release": {base: first["params"], other: other_rows[0]["params"]}})
    return rows


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    known = [*techniques(), PROBE]
    parser = argparse.ArgumentParser(prog="python -m bench.releases", description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("release", nargs="?", help="the torch release to compare with the pinned one, e.g. 2.15.0")
    parser.add_argument("--only", default="", help=f"comma-separated techniques (names from python -m bench --list, "
                                                    f"or {PROBE})")
    parser.add_argument("--probe-only", default="",
                        help="comma-separated further releases (venvs built as make test-torch builds them) in "
                             f"which only the {PROBE} probe runs, e.g. 2.11.0")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"rounds per technique (default {ROUNDS}; "
                                                                   f"{', '.join(LONG)}: 1)")
    parser.add_argument("--overwrite", action="store_true", help="replace this CPU kind's comparison without asking")
    parser.add_argument("--probe", type=Path, help=argparse.SUPPRESS)  # one probe run, inside a venv
    args = parser.parse_args(argv)
    if args.probe:
        return args
    if not args.release or not VERSION.match(args.release):
        parser.error(f"{args.release!r} is not a release number like 2.15.0")
    for release in [r for r in args.probe_only.split(",") if r]:
        if not VERSION.match(release):
            parser.error(f"--probe-only: {release!r} is not a release number like 2.11.0")
    if args.release == references.pins()["torch"]:
        parser.error(f"{args.release} is the pinned torch: name another release to compare with it")
    args.techniques = [t for t in args.only.split(",") if t] or known
    unknown = [t for t in args.techniques if t not in known]
    if unknown:
        parser.error(f"unknown technique(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    if args.rounds < 1:
        parser.error("--rounds must be >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.probe:
        run_probe(args.probe)
        return 0

    from bench import machine

    kind = machine.this_kind()
    out = FOLDER / f"{kind}.json"
    if out.exists() and not args.overwrite:
        if not sys.stdin.isatty() or input(f"{shown(out)} exists; replace it? [y/N] ").strip().lower() != "y":
            sys.exit(f"{shown(out)} exists: pass --overwrite (BENCH_OVERWRITE=1 with make) to replace it")
    base = references.pins()["torch"]
    env = {k: v for k, v in os.environ.items() if k not in {"OMP_NUM_THREADS", "MKL_NUM_THREADS", "PYTHONPATH"}}
    pythons: dict[str, tuple[str, dict]] = {base: (sys.executable, {**env, "PYTHONPATH": str(ROOT)})}
    borrowed = {}  # {release: {"torchvision": the pinned one it ran with instead of its own, "why": …}}
    for release in [args.release, *[r for r in args.probe_only.split(",") if r]]:
        venv, _, missing = build(release)
        running = runs_torch(venv)
        if running.split("+")[0] != release:
            sys.exit(f"the venv runs torch {running}, not {release}: stopping rather than measuring another release")
        path = str(ROOT)
        if "torchvision" in missing and release == args.release:
            overlay, version = vision_overlay(release, venv)
            path += os.pathsep + str(overlay)
            borrowed[release] = {"torchvision": version, "why": missing["torchvision"]}
        pythons[release] = (str(venv / "bin" / "python"), {**env, "PYTHONPATH": path})
    versions = {release: installed(python, run_env) for release, (python, run_env) in pythons.items()}
    if versions[base].get("torch", "").split("+")[0] != base:
        sys.exit(f"{sys.executable} runs torch {versions[base].get('torch')}, not the pinned {base}")
    for release, found in versions.items():
        print(f"torch {release}: {', '.join(f'{p} {v}' for p, v in found.items())}", flush=True)

    started = dt.datetime.now(dt.timezone.utc)
    runs: dict[str, dict[str, list]] = {release: {} for release in pythons}
    with tempfile.TemporaryDirectory(prefix="bench-releases-") as tmp:
        for i, technique in enumerate(args.techniques):
            members = list(pythons) if technique == PROBE else [base, args.release]
            rounds = 1 if technique in LONG else args.rounds
            for r in range(rounds):
                order = members if (i + r) % 2 == 0 else members[::-1]
                for release in order:
                    python, run_env = pythons[release]
                    print(f"{dt.datetime.now():%H:%M:%S} {technique}, round {r + 1} of {rounds}: torch {release}",
                          flush=True)
                    results = one_run(python, technique, Path(tmp) / f"{release}-{technique}-{r}.json", run_env)
                    runs[release].setdefault(technique, []).append(results)

    rows = []
    for technique in args.techniques:
        base_runs = {base: runs[base][technique]}
        for release in runs:
            if release != base and technique in runs[release]:
                rows += [row | {"release": release}
                         for row in combine({**base_runs, release: runs[release][technique]}, base, release)]
    result = {
        "schema": 1,
        "created": started.isoformat(timespec="seconds"),
        "seconds": round((dt.datetime.now(dt.timezone.utc) - started).total_seconds(), 1),
        "machine": machine.describe(),
        "pinned": base,
        "release": args.release,
        "probe_only": [r for r in args.probe_only.split(",") if r],
        "versions": versions,
        "borrowed": borrowed,
        "rounds": {t: 1 if t in LONG else args.rounds for t in args.techniques},
        "techniques": {t: techniques().get(t, "fp16 matmul regression probe (pytorch/pytorch#193951)")
                       for t in args.techniques},
        "results": rows,
    }
    FOLDER.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    timed = references.timed_rows(result)
    if timed:
        factors = sorted(r["faster"] for r in timed)
        print(f"torch {args.release} against {base}: median {statistics.median(factors):.2f}x faster over "
              f"{len(factors)} timed rows (from {factors[0]:.2f}x to {factors[-1]:.2f}x)")
    print(f"wrote {shown(out)} ({result['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
