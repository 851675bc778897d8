"""From naive to fast: ResNet-50 inference taken through the cumulative steps of
snippets/case_study_resnet50_inference.py, measured side by side in one run, in two regimes:
throughput at the best batch size, and batch-1 latency (p50; p99 in params). Quick mode runs the
eager steps (1-4) at 64x64; full mode every step at 224x224, both compilations included.
"""
from bench import machine
from bench.core import load_snippet

TITLE = "From naive to fast"
ORDER = 5
PAGE = "naive-to-fast.md"
WHEN = "Start here: the order of the steps on one real model, and how far each CPU gets."  # Home's headline table: when the technique applies

THROUGHPUT = "ResNet-50 throughput, all cores"
LATENCY = "ResNet-50 batch-1 latency p50, all cores"


SIDE_NAMES = {"package": "AOTInductor package"}


def label(step: str, index: int) -> str:
    """'1 naive', ... as the page numbers them; a side row keeps its name."""
    return f"{index} {step.replace('_', ' ')}" if index else f"{SIDE_NAMES.get(step, step)} (side row)"


def run(session) -> None:
    case = load_snippet("case_study_resnet50_inference")
    rows = case.measure_steps(quick=session.quick, log=lambda line: None)
    cores = machine.usable_cores()
    peaks = (machine.peaks(cores) or ({}, None))[0]
    speed = {r["step"]: r["images_per_s"] for r in rows if r["run"]}
    for row in [r for r in rows if r["run"]]:
        index = case.STEPS.index(row["step"]) + 1 if row["step"] in case.STEPS else 0
        # int8 is the other low precision after step 5: on the path only where it beats bf16 (or,
        # without native bf16, the compiled fp32 model); the side row never is
        taken = bool(index) and (row["step"] != "int8" or speed["int8"] > speed.get("bf16", speed.get("compile", 0)))
        peak = peaks.get(row["precision"])
        # a side row sits after the step it is compared with: bf16 eager after 4, the package after 5
        compared = case.SIDE_ROWS.get(row["step"], (None, None))[1]
        params = {"step": index or case.STEPS.index(compared) + 1.5,
                  "tuned_path": taken, "precision": row["precision"], "batch": row["batch"],
                  "size": row["size"], "gflops": row["gflops"],
                  "share_of_peak": row["gflops"] / peak if peak else None,
                  "top1_agreement_pct": row["top1_agreement_pct"],
                  "max_abs_logit_diff": row["max_abs_logit_diff"], "p99_s": row["p99_s"],
                  "compile_s": row["compile_s"], "load_s": row["load_s"], "package_mb": row["package_mb"],
                  "num_threads": cores}
        baseline = row["step"] == "naive"
        session.record(THROUGHPUT, label(row["step"], index), row["images_per_s"], "samples/s",
                       higher_is_better=True, baseline=baseline, params=params)
        session.record(LATENCY, label(row["step"], index), row["p50_s"], "s", baseline=baseline, params=params)
