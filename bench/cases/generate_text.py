"""Generating text: a decoder of Qwen2.5-0.5B's shape (random weights) taken through the cumulative
steps of snippets/generate_text.py, at one thread and all cores, each row measured in three
interleaved rounds beside the machine's memory bandwidth, measured in the same run (the fastest read
before and after the rounds). Decode at
batch 1 (median time per token; p99, the bandwidth bound and the share of it in params) and at
batch 8, and the time to the first token after a 128-token prompt (prefill tokens/s, its share of
the compute peak). Parity against fp32 eager and the resident size ride on the batch-1 rows.
The compiled steps' build + first call (build_s, first_call_s) compile in an empty Inductor cache,
a new one at each thread count (fresh_inductor_cache).
Quick mode: a tiny decoder of the same architecture, eager steps only.
"""
import contextlib
import os
import statistics
import tempfile

import torch

from bench import machine
from bench.core import load_snippet, num_threads, summarise

TITLE = "Generating text"
ORDER = 8
PAGE = "generate-text.md"
WHEN = "Running a language model: the KV cache, then fewer bytes per weight, compiled."  # Home's headline table: when the technique applies
# What its verdicts and Home's headline count: the variant a reader should use, per regime (row-id patterns)
RECOMMENDED = {"decode": ["generate_text/decode-batch-1-*/6-int4-weight-only-a16w4-compiled"]}

COMPILED = ("compile", "int8", "int4", "loop", "da8w4")
PROFILED = ("int4", "loop")  # the fastest steps: where their decode time goes
# Step 7 (your own loop) is a candidate for reaching the bound: it is timed in the same rounds as
# step 6 and llama.cpp's Q4_0 and recorded in a group of its own, "Own decode loop against
# generate()" (not in the decode groups, which every kind's first recording has without it).
LIMIT = ("int4", "loop", "llama_q4_0")
BATCH = 8


def label(g, step: str) -> str:
    """'1 naive loop, fp32, autograd on' for a step on the path; DA8W4 is a side row beside step 6;
    llama.cpp's rows are named by their file type ('llama.cpp, Q4_0')."""
    if step in g.LLAMA_CPP:
        return g.TITLES[step]
    index = g.STEPS.index(step) + 1
    return f"{index} {g.TITLES[step]}" if step != "da8w4" else f"{g.TITLES[step]} (side row)"


def run(session) -> None:
    g = load_snippet("generate_text")
    cfg = g.QUICK if session.quick else g.FULL
    model = g.make_model(cfg["shape"])
    steps = [s for s in g.STEPS if not (session.quick and s in COMPILED)] + list(g.LLAMA_CPP)
    prompt = g.make_prompts(model.config.vocab_size, 1, cfg["prompt"])
    batch_prompt = g.make_prompts(model.config.vocab_size, BATCH, cfg["prompt"], seed=2)
    positions = cfg["prompt"] + cfg["new_tokens"] // 2
    flops = {"naive": prefill_flops(model, prompt, last_only=False), "generate": prefill_flops(model, prompt)}
    parity = {}
    for threads, where in session.thread_settings():
        groups = {"decode": f"Decode, batch 1, {where}", "batch": f"Decode, batch {BATCH}, {where}",
                  "ttft": f"Time to first token, {where}"}
        limit = f"Own decode loop against generate(), batch 1, {where}"
        if session.quick:
            for step in COMPILED:
                for key, group in groups.items():
                    if step != "loop":
                        session.skip(group, label(g, step), "--quick: no compilation")
            for step in LIMIT:
                session.skip(limit, label(g, step), "--quick: no compilation")
        # Build + first call compile cold: an empty Inductor cache for each thread count, as
        # bench/cases/torch_compile.py times its first call. Without it Inductor reads its default
        # folder, which outlives the process, and a second run on a machine can time a warm compile.
        with fresh_inductor_cache():
            bandwidth = g.memory_bandwidth(cfg["bandwidth_mib"], threads)
            built = g.build(model, steps)
            # The compiled steps share one forward's code, and dynamo counts its graphs per code: three
            # models, each prefill and decode, at batch 1 and 8, are more than its default limit (8).
            with num_threads(threads), torch._dynamo.config.patch(recompile_limit=64):
                single = g.measure(built, prompt, cfg["new_tokens"], cfg["rounds"], cfg["naive_tokens"])
                batched = g.measure({s: r for s, r in built.items() if s not in ("naive", "loop", *g.LLAMA_CPP)},
                                    batch_prompt, cfg["new_tokens"],
                                    cfg["rounds"], cfg["naive_tokens"])
            # The bound: the fastest read before and after the rounds (a shared machine's bandwidth varies).
            bandwidth = max(bandwidth, g.memory_bandwidth(cfg["bandwidth_mib"], threads))
            session.record(f"Memory bandwidth, streaming read, {where}", "int32 max over a tensor larger than the caches",
                           bandwidth, "GB/s", baseline=True, higher_is_better=True,
                           params={"num_threads": threads, "mib": cfg["bandwidth_mib"]})
            peaks = (machine.peaks(threads) or ({}, None))[0]
            reference = single["kv_cache"]["ids"]
            for step in steps:
                if "not_run" in built[step]:
                    for group in ([limit] if step == "loop" else groups.values()):
                        session.skip(group, label(g, step), built[step]["not_run"])
                    continue
                found, m = single[step], built[step]["model"]
                if step not in parity:
                    parity[step] = g.parity(model, m, reference, cfg["prompt"])
                agree, dlogit, cosine = parity[step]
                bound = bandwidth * 1e9 / g.bytes_per_token(m, positions)
                seconds = statistics.median(found["per_token"])
                if step in g.LLAMA_CPP:
                    precision, index = step[6:].upper(), None  # the GGUF file type
                    session.skip(groups["batch"], label(g, step), "llama-cpp-python's Llama decodes one sequence")
                else:
                    precision, index = "fp32" if m.dtype == torch.float32 else "bf16", g.STEPS.index(step) + 1
                common = {"num_threads": threads, "step": index, "precision": precision,
                          "prompt_tokens": cfg["prompt"]}
                decode = {**common, "new_tokens": len(found["ids"][0]) - cfg["prompt"],
                          "p99_s": g.p99(found["per_token"]),
                          "bytes_per_token": g.bytes_per_token(m, positions),
                          "bound_tokens_per_s": bound, "share_of_bound": 1 / seconds / bound,
                          "top1_agreement_pct": 100 * agree,
                          "max_abs_logit_diff": dlogit, "min_logit_cosine": cosine,
                          "resident_mb": g.resident_bytes(m, cfg["prompt"] + cfg["new_tokens"]) / 1e6,
                          "build_s": built[step]["build_s"], "first_call_s": found["first_call_s"]}
                if step in LIMIT and "model" in built.get("int4", {}):  # the same samples, beside step 7's, from the same interleaved rounds
                    session.time_samples(limit, label(g, step), found["per_token"], baseline=step == "int4", items=1,
                                         params={**decode, "ttft_s": statistics.median(found["ttft"])})
                if step == "loop":
                    continue
                session.time_samples(groups["decode"], label(g, step), found["per_token"], baseline=step == "naive",
                                     items=1, params=decode)
                ttft = statistics.median(found["ttft"])
                flop = (flops["generate"], flops["naive"])
                peak = peaks.get(precision)
                session.time_samples(groups["ttft"], label(g, step), found["ttft"], baseline=step == "naive",
                                     items=cfg["prompt"], params={**common, "gflops": flop[step == "naive"] / 1e9,
                                                                  "share_of_peak": flop[step == "naive"] / ttft / 1e9 / peak if peak else None})
                if step in batched and "per_token" in batched[step]:
                    session.time_samples(groups["batch"], label(g, step), batched[step]["per_token"],
                                         baseline=step == "kv_cache", items=BATCH,
                                         params={**common, "batch": BATCH,
                                                 "bound_tokens_per_s": BATCH * bandwidth * 1e9
                                                 / (g.bytes_per_token(m, positions) + (BATCH - 1) * g.kv_cache_bytes(m, positions))})
            for step in PROFILED:
                profile(session, g, built, step, prompt, cfg, threads, where, bandwidth)
            del built, single, batched


@contextlib.contextmanager
def fresh_inductor_cache():
    """Inductor's cache in a new temporary folder (TORCHINDUCTOR_CACHE_DIR), emptied of what this
    process compiled before (dynamo's and Inductor's in-memory caches), and the variable restored
    afterwards: what bench/cases/torch_compile.py does for its compile times (and what torch's own
    torch._inductor.utils.fresh_cache does, whose in-memory clearing is clear_caches, before 2.14
    named clear_inductor_caches)."""
    from torch._inductor import utils as inductor_utils

    clear_inductor_caches = getattr(inductor_utils, "clear_caches", None) or inductor_utils.clear_inductor_caches
    old = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="bench-inductor-") as cache:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
        torch._dynamo.reset()  # compile afresh at this thread count
        clear_inductor_caches()
        try:
            yield
        finally:
            torch._dynamo.reset()
            clear_inductor_caches()
            if old is None:
                os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
            else:
                os.environ["TORCHINDUCTOR_CACHE_DIR"] = old


def prefill_flops(model, prompt: torch.Tensor, last_only: bool = True) -> float:
    """The floating-point operations of the prefill generate() runs (torch's FlopCounterMode: the
    matmuls and attention), what the time to the first token mostly spends: the output layer for
    the last position only (logits_to_keep=1, as generate() asks), not for all 128."""
    from torch.utils.flop_counter import FlopCounterMode

    counter = FlopCounterMode(display=False)
    with torch.inference_mode(), counter:
        model(prompt, logits_to_keep=1 if last_only else 0)
    return float(counter.get_total_flops())


def profile(session, g, built, step, prompt, cfg, threads, where, bandwidth) -> None:
    """Where a step's decode time goes (snippet's profile_decode), per token: the matrix
    products (with the rate they read the quantized weights at, against the bandwidth measured in
    the same run), the attention, the rest of the forward, the work between two forwards
    (generate()'s, or step 7's own loop's)."""
    group = f"Where a decode token's time goes, {g.TITLES[step]}, {where}"
    between = "the loop between steps" if step == "loop" else "generate() between forwards"
    labels = {"token": "whole token", **{part: part for part in (*g.PARTS, "other", between)}}
    if "model" not in built.get(step, {}):
        reason = built.get(step, {}).get("not_run", "--quick: no compilation")
        for label in labels.values():
            session.skip(group, label, reason)
        return
    model = built[step]["model"]
    with num_threads(threads), torch._dynamo.config.patch(recompile_limit=64):
        found = g.profile_decode(model, built[step]["generate"], prompt, cfg["new_tokens"])
    weights = g.unique_bytes(m.weight for m in model.modules() if isinstance(m, torch.nn.Linear))
    for part, label in labels.items():
        median, spread = summarise(found[part])
        params = {"num_threads": threads, "share_of_token": median / summarise(found["token"])[0]}
        if part == "matrix products":  # the linear layers' weights, read once per token
            params.update(linear_weight_mb=weights / 1e6, read_gb_per_s=weights / median / 1e9,
                          share_of_bandwidth=weights / median / 1e9 / bandwidth)
        # A part's ratio is its share of the whole token (higher_is_better: part ÷ token), not a speed-up.
        session.record(group, label, median, "s", baseline=part == "token", higher_is_better=True, spread=spread,
                       runs=len(found[part]), params=params)
