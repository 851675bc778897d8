"""python -m bench [--quick | --full] [--only T1,T2] [--out FILE] [--overwrite] [--update-reference]
[--record-missing] [--add-recording FILE]"""
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
    parser.add_argument("--record-missing", action="store_true",
                        help="full mode: run the techniques whose rows this CPU kind's reference has fewer than two "
                             "recordings of, and merge the run into it as another recording (verdicts hold only "
                             "where they hold in each)")
    parser.add_argument("--add-recording", type=Path, metavar="FILE",
                        help="merge FILE, a finished full run of this kind (python -m bench --full), into its "
                             "reference as another recording, and exit")
    parser.add_argument("--list", action="store_true", help="list the techniques and exit")
    args = parser.parse_args(argv)
    if args.list or args.add_recording:
        if args.add_recording and not args.add_recording.is_file():
            parser.error(f"{args.add_recording} is not a file")
        return args
    if args.record_missing:
        if args.quick or args.update_reference or args.only:
            parser.error("--record-missing picks its techniques and runs in full mode: no --quick, --only or "
                         "--update-reference")
        missing = missing_allocators()
        if missing:
            parser.error(f"--record-missing needs every allocator the benchmark compares; install {' and '.join(missing)}")
        args.only = ",".join(missing_recordings())
        if not args.only:
            print("every row of this kind's reference has two recordings or more: nothing to record")
            raise SystemExit(0)

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


def missing_recordings() -> list[str]:
    """The techniques this kind's reference has recorded fewer than twice (to_record)."""
    from bench.machine import this_machine
    from bench.references import path_for
    path = path_for(this_machine())
    if not path.is_file():
        raise SystemExit(f"error: no reference for this CPU kind ({path.name}): record one with --update-reference")
    return to_record(json.loads(path.read_text()), list(techniques()))


def to_record(reference: dict, names: list[str]) -> list[str]:
    """Of names, the techniques of which the reference has a row recorded fewer than twice, a row
    added after its first run (not_measured) that fewer than two of its recordings have, or no
    row at all. Rows it did not run on purpose (not_run: e.g. ResNet-50 only) are not lacking."""
    from bench.references import recording_count, recordings, under
    thin = {r["technique"] for r in reference["results"] if recording_count(reference, r["id"]) < 2}
    recorded = recordings(reference)
    lacking = {key.split("/", 1)[0] for key in reference.get("not_measured", {})
               if sum(any(under(i, key) for i in rows) for rows in recorded) < 2}
    absent = {name for name in names if not any(r["technique"] == name for r in reference["results"])}
    return [name for name in names if name in thin | lacking | absent]


def add_recording_file(path: Path) -> int:
    """--add-recording: merge a finished run into its kind's reference."""
    from bench.references import add_recording, path_for
    try:
        run = json.loads(path.read_text())
        reference_path = path_for(run["machine"])
        merged_reference, counts = add_recording(json.loads(reference_path.read_text()), run)
    except (OSError, KeyError, ValueError) as error:
        print(f"error: --add-recording {path}: {error}", file=sys.stderr)
        return 2
    reference_path.write_text(json.dumps(merged_reference, indent=1) + "\n")
    print(f"merged into {reference_path}: {counts['again']} rows recorded again, {counts['new']} rows of groups it "
          f"lacked, {counts['left_out_disturbed']} disturbed rows left out")
    return 0


def missing_allocators() -> list[str]:
    from bench.core import load_snippet
    find = load_snippet("allocators_ld_preload").find
    return [name for name in ("jemalloc", "tcmalloc") if not find(name, None)]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.add_recording:
        return add_recording_file(args.add_recording)
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
    took: dict[str, float] = {}
    for name in progress:
        progress.set_postfix_str(name)
        session.technique = name
        began = dt.datetime.now(dt.timezone.utc)
        load(name).run(session)
        took[name] = round((dt.datetime.now(dt.timezone.utc) - began).total_seconds(), 1)
    add_ratios(session.rows)
    timed = [r for r in session.rows if "others_busy" in r]

    results = {
        "schema": 1,
        "mode": "quick" if args.quick else "full",
        "created": started.isoformat(timespec="seconds"),
        "seconds": round((dt.datetime.now(dt.timezone.utc) - started).total_seconds(), 1),
        "technique_seconds": took,
        # what the disturbance watch saw (bench.core.Watch): measurements taken again because other
        # processes used the CPU, and rows whose kept measurement was still disturbed
        "disturbed": {"dropped": sum(r["disturbed_dropped"] for r in timed),
                      "kept_disturbed": sorted(r["id"] for r in timed if r.get("disturbed")),
                      "watched_rows": len(timed)},
        "machine": machine.describe(),
        "techniques": {name: titles[name] for name in args.techniques},
        "results": session.rows,
        "not_run": session.not_run,
    }
    out = path_for(results["machine"]) if args.update_reference else args.out
    if args.record_missing:
        out.write_text(json.dumps(results, indent=1) + "\n")
        print(f"wrote {out} ({results['seconds']} s)")
        return add_recording_file(out)
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
    watch = results["disturbed"]
    print(f"disturbance watch: {watch['dropped']} measurement(s) taken again, {len(watch['kept_disturbed'])} of "
          f"{watch['watched_rows']} watched rows still disturbed")
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
    if reference.get("recordings"):  # later recordings of the replaced techniques measured another harness
        out["recordings"] = [{**rec, "results": [r for r in rec["results"] if r["technique"] not in names]}
                             for rec in reference["recordings"]]
    if "technique_seconds" in reference or "technique_seconds" in run:  # each technique's latest time
        out["technique_seconds"] = {**reference.get("technique_seconds", {}), **run.get("technique_seconds", {})}
    out["measured_separately"] = {**reference.get("measured_separately", {}),
                                  **{name: {"created": run["created"], "seconds": run["seconds"],
                                            "measured_mhz": run["machine"].get("measured_mhz")} for name in names}}
    return out


if __name__ == "__main__":
    sys.exit(main())
