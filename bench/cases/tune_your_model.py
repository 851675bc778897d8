"""Tune your model (snippets/tune_your_model.py) run as a reader runs it, in a process of its own
with its own interleaved rounds: in full mode on ResNet-50 (random weights), which the Tune your
model page sets beside the case study's steps; in quick mode on a small CNN, without the compiled
steps. Its rows: the configuration it recommends against the baseline and the other runtimes, in the
same rounds (throughput and batch-1 p50; each row's params give the batch size and threads it ran
at, the baseline's its own), and each step against the configuration kept before it."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.core import SNIPPETS

TITLE = "Tune your model"
ORDER = 6
PAGE = "tune-your-model.md"
WHEN = "Your own model: the guide's steps measured on it, with parity, in one command."  # Home's headline table: when the technique applies
# What its verdicts and Home's headline count: the variant a reader should use, per regime (row-id patterns)
RECOMMENDED = {"inference": ["tune_your_model/the-program-s-choice-throughput/kept-configuration"]}

FULL = ["--model", "resnet50"]
QUICK = ["--model", "tune_your_model_examples.py:cnn", "--quick", "--skip", "compile,int8,onnxruntime,openvino"]
CHOICE = "the program's choice"
STEPS = "each step against the configuration before it"
SKIPPED = "skipped by the program on this CPU (its output says why: no native bf16, threads already one per core, ...)"


def tune(arguments: list[str]) -> dict:
    """The program's JSON report from a run in a fresh process (the benchmark's warm compiler and
    thread pools are not the reader's)."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        done = subprocess.run([sys.executable, str(SNIPPETS / "tune_your_model.py"), *arguments, "--json", str(report)],
                              capture_output=True, text=True, cwd=SNIPPETS,
                              env={**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(Path(folder) / "inductor")})
        if done.returncode:
            raise RuntimeError(f"tune_your_model.py {' '.join(arguments)} failed ({done.returncode}): {done.stderr[-2000:]}")
        return json.loads(report.read_text())


def run(session) -> None:
    found = tune(QUICK if session.quick else FULL)
    final = found["final"]
    common = {"model": found["model"], "num_threads": final["config"]["threads"], "batch_size": final["config"]["batch"]}
    # the baseline runs in its own configuration (the inputs' batch, the default threads), the
    # kept configuration and the other runtimes in the kept one: each row carries what it ran at
    start = found["rows"][0]["config"]
    own = {"baseline": {"num_threads": start["threads"], "batch_size": start["batch"]}}
    timed = [("kept configuration", final)] + [(o["name"], o) for o in final["against"] if o.get("rounds")]
    bases = [label for label, _ in timed if label == "baseline"] or ["kept configuration"]  # nothing kept: it is the baseline
    for group, key, unit, higher, scale in ((f"{CHOICE}, throughput", "items_per_s", "samples/s", True, 1),
                                            (f"{CHOICE}, batch-1 p50", "p50_ms", "s", False, 1e-3)):
        for label, entry in timed:
            samples = [r[key] * scale for r in entry["rounds"]]
            params = {**common, **own.get(label, {}),
                      **({"steps_kept": final["steps"]} if label == "kept configuration" else {}),
                      **({"top1_agreement_pct": entry["parity"]["top1_pct"],
                          "max_abs_logit_diff": entry["parity"]["max_abs_diff"]} if entry.get("parity") else {})}
            session.record(group, label, statistics.median(samples), unit, baseline=label == bases[0],
                           higher_is_better=higher, runs=len(samples), samples=samples, paired=True, params=params)
    # each step against the configuration kept before it, from its per-round ratios, beside a row of
    # ones for that configuration: both paired, so bench.noise reads the program's own interval
    steps = [r for r in found["rows"][1:] if r.get("ratios")]
    rounds = len(steps[0]["ratios"]) if steps else 1
    session.record(STEPS, "the configuration before it", 1.0, "×", baseline=True, higher_is_better=True,
                   runs=rounds, samples=[1.0] * rounds, paired=True)
    for row in steps:
        session.record(STEPS, row["step"], statistics.median(row["ratios"]), "×", higher_is_better=True,
                       runs=len(row["ratios"]), samples=row["ratios"], paired=True,
                       params={"batch_size": row["batch"], "kept": row["kept"], "compile_s": row.get("compile_s"),
                               "items_per_s": row["items_per_s"], "p50_ms": row.get("p50_ms"),
                               **({"top1_agreement_pct": row["parity"]["top1_pct"]} if row.get("parity") else {})})
    for row in found["rows"][1:]:
        if row.get("skipped"):  # the program says why in its output (a machine's core count, its ISA)
            session.skip(STEPS, row["step"], SKIPPED)
