"""From naive to fast: ResNet-50 and a BERT-base-shaped transformer, inference taken through the
cumulative steps of snippets/case_study_inference.py, measured side by side in one run per model,
in two regimes: throughput at the best batch size, and batch-1 latency (p50; p99 in params).
Quick mode runs the eager steps at the smallest sizes the snippet takes (its MODELS' size_range); full mode every
step (224x224, 128 tokens), the compilations included, each row measured in three interleaved rounds, and beside
ResNet-50 ONNX Runtime and OpenVINO on the same model and inputs
(snippets/case_study_resnet50_runtimes.py).
Then training (snippets/case_study_training.py), in a process of its own: a small CNN on scikit-learn's digits, the time each
step takes to reach the naive loop's held-out accuracy, median of 3 runs (quick: 1 run of QUICK_TRAINING's
epochs); beside step 4, tcmalloc (LD_PRELOAD) and its control, glibc's malloc, each in a fresh process.
"""
from bench import machine
from bench.core import load_snippet, summarise

TITLE = "From naive to fast"
ORDER = 5
PAGE = "naive-to-fast.md"
WHEN = "Start here: the order of the steps on two real models, and how far each CPU gets."  # Home's headline table: when the technique applies
# What its verdicts and Home's headline count: the variant a reader should use, per regime (row-id patterns)
RECOMMENDED = {"inference": ["case_study/resnet-50-throughput-all-cores/7-int8", "case_study/resnet-50-batch-1-latency-p50-all-cores/7-int8"], "training": ["case_study/training-*/training-4-channels-last"]}

THROUGHPUT = "ResNet-50 throughput, all cores"
LATENCY = "ResNet-50 batch-1 latency p50, all cores"
# {model: (its throughput group, its latency group)}, as measure_steps names the models
GROUPS = {"resnet50": (THROUGHPUT, LATENCY),
          "transformer": ("Transformer throughput, all cores", "Transformer batch-1 latency p50, all cores")}
TRAINING = "Training: time to the naive loop's held-out accuracy"
# Quick mode's training, like its inference, at the least that runs every step and records its row: the
# naive loop for one epoch, the others to its accuracy (within an epoch on the AVX2 EPYC, so four is
# room enough); the snippet's own --quick (4 and 8) is what the page shows and the tests run anyway.
QUICK_TRAINING = {"runs": 1, "naive_epochs": 1, "max_epochs": 4}


SIDE_NAMES = {"package": "AOTInductor package", "package bf16": "AOTInductor package bf16",
              "package int8": "AOTInductor package int8",
              "int8 glibc": "int8, glibc, fresh process", "int8 tcmalloc": "int8, tcmalloc, fresh process",
              "int8 TorchScript": "int8, FX quantization, TorchScript"}
# step 7's allocator rows: {row: its step number}; tcmalloc is compared with its control, glibc's malloc
# in a fresh process, not with step 7 (which ran in the benchmark's own process)
ALLOCATOR_STEPS = {"int8 glibc": 7.6, "int8 tcmalloc": 7.7}
# the side rows' numbers where two sit beside one step: step 7's package is 7.5, its TorchScript row after the allocators
SIDE_STEPS = {**ALLOCATOR_STEPS, "int8 TorchScript": 7.8}
# The other runtimes, full mode only (snippets/case_study_resnet50_runtimes.py):
# {row: (runtime, precision, the PyTorch step it sits beside)}
PEERS = {"ONNX Runtime fp32": ("onnxruntime", "fp32", "compile"),
         "OpenVINO fp32": ("openvino", "fp32", "compile"),
         "OpenVINO bf16": ("openvino", "bf16", "bf16"),
         "ONNX Runtime int8": ("onnxruntime", "int8", "int8"),
         "OpenVINO int8": ("openvino", "int8", "int8")}


def label(step: str, index: int) -> str:
    """'1 naive', ... as the page numbers them; a side row keeps its name."""
    if step in PEERS:
        return f"{step} (other runtime)"
    return f"{index} {step.replace('_', ' ')}" if index else f"{SIDE_NAMES.get(step, step)} (side row)"


def peers(bf16: bool) -> dict:
    """The runtimes' builders for measure_steps; a runtime that is not installed is left out
    with a SKIP line (the test suite fails on it under REQUIRE_RUNTIMES=1)."""
    import functools
    import sys

    runtimes = load_snippet("case_study_resnet50_runtimes")
    found = {}
    for row, (runtime, precision, _) in PEERS.items():
        module = runtimes.missing_module(runtime)
        if module:
            print(f"SKIP: case_study row {row!r}: {module} is not installed (requirements.txt)", file=sys.stderr)
        elif precision != "bf16" or bf16:
            build = getattr(runtimes, f"{runtime}_predictor")
            found[row] = functools.partial(build, precision=precision), precision
    return found


# Where a batch-1 int8 call's time goes, ResNet-50, full mode: {row: its name in the group's title}
PROFILED = {"int8": "PyTorch (step 7)", "ONNX Runtime int8": "ONNX Runtime", "OpenVINO int8": "OpenVINO"}
PROFILE = "Where a ResNet-50 int8 batch-1 call's time goes, {}, all cores"


def run(session) -> None:
    case = load_snippet("case_study_inference")
    for model, (throughput, latency) in GROUPS.items():
        with_peers = model == "resnet50" and not session.quick
        profiles = {}
        # quick: the smallest size the snippet takes, enough to check that every step runs and is
        # recorded; the snippet's own --quick sizes are what the page shows
        size = case.MODELS[model]["size_range"][0] if session.quick else None
        rows = case.measure_steps(quick=session.quick, size=size,
                                  log=lambda line: None, model_name=model,
                                  peers=peers(case.native_bf16()) if with_peers else None,
                                  inspect=lambda row, predict, image: profile(profiles, row, predict, image))
        record(session, case, rows, throughput, latency)
        if model == "resnet50":
            record_profiles(session, profiles, "not run in --quick" if session.quick else None)
        free_compiled()
        for row, (_, precision, _) in (PEERS.items() if with_peers and not case.native_bf16() else ()):
            if precision == "bf16":  # peers() leaves it out
                for group in (throughput, latency):
                    session.skip(group, label(row, 0), "not run: no native bf16")
    training = load_snippet("case_study_training")
    target, rows = train_in_fresh_process(session.quick)
    record_training(session, training, target, rows)


TRAIN = """
import json, sys
from bench.core import load_snippet
cfg = json.loads(sys.argv[1])  # QUICK_TRAINING in quick mode; null in full mode (the snippet's FULL)
target, rows = load_snippet("case_study_training").measure_steps(quick=cfg is not None, cfg=cfg, log=lambda line: None)
print(json.dumps([target, rows]))
"""


def train_in_fresh_process(quick: bool) -> tuple[float, list[dict]]:
    """The training part's (target, rows), measured in a process of its own: on the Zen 4, training
    in the process that had just run the inference part (compiled models, ONNX Runtime, OpenVINO)
    died with SIGSEGV twice, where the same training run alone completed."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    done = subprocess.run([sys.executable, "-c", TRAIN, json.dumps(QUICK_TRAINING if quick else None)], capture_output=True,
                          text=True, cwd=Path(__file__).resolve().parents[2])
    if done.returncode != 0:
        raise RuntimeError(f"the training part failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return tuple(json.loads(done.stdout.strip().splitlines()[-1]))


def free_compiled() -> None:
    """Drop the compiled graphs of the model just measured (Dynamo's caches keep every compiled
    variant and its weights alive) before the next model is built."""
    import gc

    import torch

    torch._dynamo.reset()
    gc.collect()


def profile(profiles: dict, row: dict, predict, image) -> None:
    """Profile the int8 rows at batch 1 after the timed rounds (the snippet's profile_* functions):
    PyTorch's step with torch.profiler, a runtime with its own profiler (predict.profile)."""
    if row["step"] in PROFILED:
        runtimes = load_snippet("case_study_resnet50_runtimes")
        profiles[row["step"]] = predict.profile(image) if hasattr(predict, "profile") else \
            runtimes.profile_pytorch(predict, image)


def record_profiles(session, profiles: dict, quick_reason: str | None) -> None:
    """One group per profiled row: its parts in seconds per call, each with its share of the whole
    call (ratio, higher_is_better: part ÷ call, not a speed-up); PyTorch's also the part of its
    convolutions inside oneDNN's kernels. A row that did not run is skipped."""
    runtimes = load_snippet("case_study_resnet50_runtimes")
    for step, name in PROFILED.items():
        parts = (*runtimes.PARTS, runtimes.KERNELS) if step == "int8" else runtimes.PARTS  # oneDNN's log: PyTorch
        group = PROFILE.format(name)
        if step not in profiles:
            reason = quick_reason or ("not run: a runtime is not installed" if step in PEERS else "not run")
            for part in parts:
                session.skip(group, part, reason)
            continue
        found = profiles[step]
        whole = summarise(found["whole call"])[0]
        for part in parts:
            median, spread = summarise(found[part])
            session.record(group, part, median, "s", baseline=part == "whole call", higher_is_better=True,
                           spread=spread, runs=len(found[part]),
                           params={"num_threads": machine.usable_cores(), "share_of_call": median / whole})


# The training side rows' labels: the allocator rows each train in a fresh process
TRAINING_SIDE = {"compile": "compile", "glibc_fresh": "glibc, fresh process", "tcmalloc": "tcmalloc, fresh process"}


def training_label(training, step: str) -> str:
    """'training: 4 channels last' for a step on the path, 'training: compile (side row)' for a side row."""
    if step in training.STEPS:
        return f"training: {training.STEPS.index(step) + 1} {step.replace('_', ' ')}"
    return f"training: {TRAINING_SIDE[step]} (side row)"


def record_training(session, training, target: float, rows: list[dict]) -> None:
    """One row per step that reached the target: seconds of training (accuracy checks not timed),
    the median over the runs; a side row sits after step 4, which it is tried on. tcmalloc is
    compared with its control, glibc in a fresh process (compared_step), not with step 4."""
    steps = {row["step"]: round(4.5 + 0.1 * training.SIDE_ROWS.index(row["step"]), 1)
             for row in rows if row["step"] in training.SIDE_ROWS}
    control = next((r for r in rows if r["step"] == "glibc_fresh" and not r["not_run"]), None)
    for row in [r for r in rows if r["not_run"]]:
        session.skip(TRAINING, training_label(training, row["step"]), row["not_run"])
    for row in [r for r in rows if not r["not_run"] and r["seconds"] is not None]:
        on_path = row["step"] in training.STEPS
        index = training.STEPS.index(row["step"]) + 1 if on_path else 0
        seconds = row["run_seconds"]
        params = {"step": index or steps[row["step"]], "tuned_path": on_path,
                  "target_accuracy_pct": target, "accuracy_pct": row["accuracy"], "epochs_to_target": row["epochs"],
                  "images_per_s": row["images_per_s"], "num_threads": machine.usable_cores()}
        if row["step"] in training.CHILD_ROWS:  # which allocator the child had mapped
            params["allocator"] = row["allocator"]
        if row["step"] == "tcmalloc" and control and control["seconds"] is not None:
            params["compared_step"] = steps["glibc_fresh"]
        session.record(TRAINING, training_label(training, row["step"]), row["seconds"], "s", baseline=row["step"] == "naive", params=params,
                       spread=summarise(seconds)[1], runs=len(seconds), samples=seconds)


def record(session, case, rows: list[dict], throughput: str, latency: str) -> None:
    cores = machine.usable_cores()
    peaks = (machine.peaks(cores) or ({}, None))[0]
    speed = {r["step"]: r["items_per_s"] for r in rows if r["run"]}
    for row in [r for r in rows if not r["run"] and r["reason"]]:
        index = case.STEPS.index(row["step"]) + 1 if row["step"] in case.STEPS else 0
        for group in (throughput, latency):
            session.skip(group, label(row["step"], index), row["reason"])
    for row in [r for r in rows if r["run"]]:
        index = case.STEPS.index(row["step"]) + 1 if row["step"] in case.STEPS else 0
        # int8 is the other low precision after step 5: on the path only where it beats bf16 (or,
        # without native bf16, the compiled fp32 model); the side row never is
        taken = bool(index) and (row["step"] != "int8" or speed["int8"] > speed.get("bf16", speed.get("compile", 0)))
        peak = peaks.get(row["precision"])
        # a side row sits after the step it is compared with: bf16 eager after 4, the package after
        # 5, another runtime after the PyTorch step of its precision (compared_step)
        compared = PEERS[row["step"]][2] if row["step"] in PEERS else case.SIDE_ROWS.get(row["step"], (None, None))[1]
        offset = 1.6 + 0.1 * list(PEERS).index(row["step"]) if row["step"] in PEERS else 1.5
        step = index or SIDE_STEPS.get(row["step"]) or case.STEPS.index(compared) + offset
        params = {"step": step,
                  "compared_step": case.STEPS.index(compared) + 1 if row["step"] in PEERS
                  else ALLOCATOR_STEPS.get(compared),
                  "tuned_path": taken, "precision": row["precision"], "batch": row["batch"],
                  "size": row["size"], "gflops": row["gflops"],
                  "share_of_peak": row["gflops"] / peak if peak else None,
                  "top1_agreement_pct": row["top1_agreement_pct"],
                  "max_abs_logit_diff": row["max_abs_logit_diff"], "p99_s": row["p99_s"],
                  "compile_s": row["compile_s"], "load_s": row["load_s"], "package_mb": row["package_mb"],
                  "num_threads": cores}
        if row["step"] in ALLOCATOR_STEPS:  # which allocator the child had mapped
            params["allocator"] = row["allocator"]
        baseline = row["step"] == "naive"
        # spread: the IQR over the rounds (throughput) and over the pooled batch-1 calls (latency)
        session.record(throughput, label(row["step"], index), row["items_per_s"], "samples/s",
                       higher_is_better=True, baseline=baseline, params=params,
                       spread=summarise(row["items_per_s_rounds"])[1], runs=len(row["items_per_s_rounds"]),
                       samples=row["items_per_s_rounds"], paired=True)
        session.record(latency, label(row["step"], index), row["p50_s"], "s", baseline=baseline, params=params,
                       spread=summarise(row["latency_samples_s"])[1], runs=len(row["latency_samples_s"]),
                       samples=row["latency_samples_s"])
