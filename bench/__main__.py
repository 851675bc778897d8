"""python -m bench [--quick | --full] [--only T1,T2] [--out FILE] [--overwrite] [--update-reference]"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path

# Names and titles are read from the case files: --help, --list and argument errors import no torch.
from bench.cases import load, techniques
from bench.references import FOLDER as REFERENCES


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    known = list(techniques())
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Measure every technique of the guide on this machine and write a results file.")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="small sizes, a few minutes on 2 cores (what the tests run)")
    mode.add_argument("--full", action="store_true", help="published sizes, the case study included: tens of minutes on 2 cores (default)")
    parser.add_argument("--only", default="", help="comma-separated techniques to run (names from --list)")
    parser.add_argument("--out", type=Path, default=Path("bench-results.json"),
                        help="results file to write (default: ./bench-results.json)")
    parser.add_argument("--overwrite", action="store_true", help="replace --out if it exists")
    parser.add_argument("--update-reference", action="store_true",
                        help="write this CPU kind's reference (bench/references/<kind>.json, e.g. "
                             "amd-avx2.json); full mode only; with --only, replace those techniques' "
                             "rows in the existing reference and keep the rest")
    parser.add_argument("--list", action="store_true", help="list the techniques and exit")
    args = parser.parse_args(argv)
    if args.list:
        return args

    args.techniques = [t for t in args.only.split(",") if t] or known
    unknown = [t for t in args.techniques if t not in known]
    if unknown:
        parser.error(f"unknown technique(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    if args.update_reference:
        if args.quick:
            parser.error("--update-reference needs a full run (no --quick)")
        missing = missing_allocators()
        if missing:  # CI measures their rows: a reference without them fails the row-id test there
            parser.error(f"--update-reference needs every allocator the benchmark compares; install "
                         f"{' and '.join(missing)} (Debian: apt install libjemalloc2 libtcmalloc-minimal4)")
        args.out = None  # named after the machine's kind, once torch can tell it
    elif args.out.resolve().parent == REFERENCES.resolve():
        parser.error(f"{args.out} is in the committed references; use --update-reference to write one")
    elif args.out.exists() and not args.overwrite:
        parser.error(f"{args.out} exists; pass --overwrite to replace it or --out to choose another file")
    elif args.out.parent and not args.out.parent.exists():
        parser.error(f"folder {args.out.parent} does not exist")
    return args


def missing_allocators() -> list[str]:
    from bench.core import load_snippet
    find = load_snippet("allocators_ld_preload").find
    return [name for name in ("jemalloc", "tcmalloc") if not find(name, None)]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.list:
        for name, title in techniques().items():
            print(f"{name:20} {title}")
        return 0

    from tqdm import tqdm
    from torch.utils.benchmark import Compare

    from bench import machine
    from bench.compare import side_by_side
    from bench.core import Session, add_ratios
    from bench.references import load_all, path_for

    titles = techniques()
    session = Session(quick=args.quick)
    started = dt.datetime.now(dt.timezone.utc)
    progress = tqdm(args.techniques, desc="benchmark", unit="technique", file=sys.stderr)
    for name in progress:
        progress.set_postfix_str(name)
        session.technique = name
        load(name).run(session)
    add_ratios(session.rows)

    results = {
        "schema": 1,
        "mode": "quick" if args.quick else "full",
        "created": started.isoformat(timespec="seconds"),
        "seconds": round((dt.datetime.now(dt.timezone.utc) - started).total_seconds(), 1),
        "machine": machine.describe(),
        "techniques": {name: titles[name] for name in args.techniques},
        "results": session.rows,
        "not_run": session.not_run,
    }
    out = path_for(results["machine"]) if args.update_reference else args.out
    if args.update_reference and args.only:
        try:
            results = merged(json.loads(out.read_text()), results)
        except (FileNotFoundError, ValueError) as error:
            print(f"error: --update-reference --only: {error}", file=sys.stderr)
            return 2
    out.write_text(json.dumps(results, indent=1) + "\n")

    Compare(session.measurements).print()
    if not args.update_reference:
        print(side_by_side(results, load_all()))
    print(f"wrote {out} ({results['seconds']} s)")
    return 0


def merged(reference: dict, run: dict) -> dict:
    """The reference with the run's techniques replaced by what the run measured (their rows,
    their not-run reasons; what the reference said it lacked of them dropped), and the run
    noted under "measured_separately". Only on the torch release the reference was measured on."""
    if reference["machine"]["torch"] != run["machine"]["torch"]:
        raise ValueError(f"the reference was measured on torch {reference['machine']['torch']}, this run on "
                         f"{run['machine']['torch']}: one reference, one torch release")
    names = set(run["techniques"])

    def ours(key: str) -> bool:
        return key.split("/", 1)[0] in names

    out = dict(reference)
    out["techniques"] = {**reference["techniques"], **run["techniques"]}
    out["results"] = [r for r in reference["results"] if r["technique"] not in names] + run["results"]
    for field in ("not_run", "not_measured", "withdrawn"):
        kept = {k: v for k, v in reference.get(field, {}).items() if not ours(k)}
        if field == "not_run":
            kept.update(run["not_run"])
        if kept or field in reference:
            out[field] = kept
    out["measured_separately"] = {**reference.get("measured_separately", {}),
                                  **{name: {"created": run["created"], "seconds": run["seconds"],
                                            "measured_mhz": run["machine"].get("measured_mhz")} for name in names}}
    return out


if __name__ == "__main__":
    sys.exit(main())
