"""Generating text on a CPU: a decoder of Qwen2.5-0.5B's shape (random weights, nothing downloaded)
from a naive loop to weight-only int4, each step's decode speed against the memory-bandwidth bound.

python generate_text.py              # Qwen2.5-0.5B's shape, 128-token prompt, 32 new tokens: minutes
python generate_text.py --quick      # a tiny decoder of the same architecture: seconds
python generate_text.py --steps kv_cache,bf16 --threads 1
"""
import argparse
import copy
import logging
import statistics
import time
import warnings

import torch

# Compiling torchao's quantized tensors notes that they do not implement a hash for caching.
warnings.filterwarnings("ignore", message=".*does not implement _stable_hash_for_caching")

# Qwen2.5-0.5B (Apache-2.0, ungated): the smallest widely run model, whose fp32 weights (2 GB)
# fit on any laptop. Its config, without its weights.
QWEN2_5_0_5B = dict(hidden_size=896, intermediate_size=4864, num_hidden_layers=24, num_attention_heads=14,
                    num_key_value_heads=2, vocab_size=151936, max_position_embeddings=32768,
                    rope_theta=1000000.0, rms_norm_eps=1e-6, tie_word_embeddings=True)
TINY = dict(QWEN2_5_0_5B, hidden_size=256, intermediate_size=1024, num_hidden_layers=2, num_attention_heads=4,
            vocab_size=8192)
FULL = {"shape": QWEN2_5_0_5B, "prompt": 128, "new_tokens": 32, "naive_tokens": 8, "rounds": 3, "bandwidth_mib": 1024}
QUICK = {"shape": TINY, "prompt": 16, "new_tokens": 8, "naive_tokens": 8, "rounds": 1, "bandwidth_mib": 256}
STEPS = ("naive", "kv_cache", "bf16", "compile", "int8", "int4", "da8w4")
TITLES = {"naive": "naive loop, fp32, autograd on", "kv_cache": "KV cache (generate), fp32",
          "bf16": "bf16 weights", "compile": "static cache + torch.compile",
          "int8": "int8 weight-only, compiled", "int4": "int4 weight-only (A16W4), compiled",
          "da8w4": "int8 activations, int4 weights (DA8W4)"}


# --8<-- [start:model]
def make_model(shape: dict = QWEN2_5_0_5B, initializer_range: float = 0.05) -> torch.nn.Module:
    """The architecture readers run (transformers' Qwen2ForCausalLM), random weights. At the
    config's initializer_range (0.02) attention scores are nearly flat: every position sees the
    same average of the context and greedy decoding repeats a few tokens. At 0.05 they are peaked
    enough that what comes next depends on the prompt and the tokens vary."""
    logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)  # torchao's import notice
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    model = Qwen2ForCausalLM(Qwen2Config(**shape, initializer_range=initializer_range)).eval()
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, (torch.nn.Linear, torch.nn.Embedding)) and module is not model.lm_head:
                module.weight.copy_(on_int4_grid(module.weight.shape, initializer_range))
    return model


def on_int4_grid(shape, std: float, group: int = 128) -> torch.Tensor:
    """Random weights that int4 (groups of 128), int8 and bf16 store (nearly) exactly: each group
    of `group` inputs takes the 16 values (-7.5 ... 7.5) x a bf16 scale. So parity measures the
    steps' kernels and bf16 activations, not the rounding of the weights: rounding random weights
    compounds through 24 layers as it does not on a trained model's."""
    levels = torch.randint(0, 16, (shape[0], shape[1] // group, group)).float() - 7.5
    scale = torch.tensor(std / levels.std().item()).to(torch.bfloat16).float()
    return (levels * scale).view(shape)


def make_prompts(vocab_size: int, batch: int, length: int, seed: int = 1) -> torch.Tensor:
    """Fixed token ids: no tokenizer to download."""
    return torch.randint(0, vocab_size, (batch, length), generator=torch.Generator().manual_seed(seed))
# --8<-- [end:model]


# --8<-- [start:steps]
def naive(model):
    """Step 1: run the whole sequence again for every new token, autograd recording."""
    def generate(ids, new_tokens, streamer):
        for _ in range(new_tokens):
            logits = model(ids, use_cache=False).logits
            ids = torch.cat([ids, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
            streamer.put(ids[:, -1])
        return ids
    return model, generate


def kv_cache(model):
    """Step 2: generate() keeps each layer's keys and values; a new token costs one position."""
    def generate(ids, new_tokens, streamer):
        with torch.inference_mode():
            return model.generate(ids, max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=False,
                                  streamer=streamer)
    return model, generate


def bf16(model):
    """Step 3: bf16 weights and activations: half the bytes to read per token."""
    return kv_cache(copy.deepcopy(model).to(torch.bfloat16))


def compiled(model):
    """Step 4: a static cache (fixed shapes: one graph for every decode step) and torch.compile,
    as Hugging Face documents it; generate() compiles by itself only on accelerators."""
    model.generation_config.cache_implementation = "static"
    model.forward = torch.compile(model.forward, fullgraph=True)
    return kv_cache(model)


def static_cache_compiled(model):
    """Step 4 on step 3's bf16 model."""
    return compiled(copy.deepcopy(model).to(torch.bfloat16))


def int8(model):
    """Step 5: int8 weights, one scale per output channel; bf16 activations."""
    from torchao.quantization import Int8WeightOnlyConfig, quantize_

    quantized = copy.deepcopy(model).to(torch.bfloat16)
    quantize_(quantized, Int8WeightOnlyConfig(set_inductor_config=False))
    return compiled(quantized)


def int4(model):
    """Step 6: int4 weights in groups of 128, packed for torchao's CPU kernel; bf16 activations."""
    from torchao.prototype.quantization.int4 import PrototypeInt4WeightOnlyConfig
    from torchao.quantization import quantize_

    quantized = copy.deepcopy(model).to(torch.bfloat16)
    quantize_(quantized, PrototypeInt4WeightOnlyConfig(group_size=128, set_inductor_config=False))
    return compiled(quantized)


def da8w4(model):
    """Step 6's variant: activations quantised to int8 per token at run time, int4 weights."""
    from torchao.prototype.quantization.int4 import Int8DynamicActivationInt4WeightConfig
    from torchao.quantization import quantize_

    quantized = copy.deepcopy(model).to(torch.bfloat16)
    quantize_(quantized, Int8DynamicActivationInt4WeightConfig(group_size=128, set_inductor_config=False))
    return compiled(quantized)


BUILD = {"naive": naive, "kv_cache": kv_cache, "bf16": bf16, "compile": static_cache_compiled, "int8": int8,
         "int4": int4, "da8w4": da8w4}
# --8<-- [end:steps]


def why_not(step: str) -> str | None:
    """Why this installation cannot run a step, or None."""
    if step in ("int8", "int4", "da8w4"):
        try:
            import torchao  # noqa: F401  (registers torchao's operators)
        except ImportError:
            return "needs torchao (pip install torchao)"
    if step == "da8w4" and "CPU" not in torch._C._dispatch_dump("torchao::da8w4_linear_cpu"):
        return "this torchao build has no CPU kernel for it (torchao::da8w4_linear_cpu)"
    return None


# --8<-- [start:measure]
class TokenClock:
    """A generate() streamer that notes when each new token arrives (the first call is the prompt)."""

    def __init__(self):
        self.start, self.times = time.perf_counter(), []

    def put(self, value):
        if self.times or value.ndim == 1:  # generate() passes the prompt first, as a 2-D tensor
            self.times.append(time.perf_counter())
        else:
            self.times.append(None)

    def end(self):
        pass

    def result(self) -> tuple[float, list[float]]:
        """Time to the first new token, and the time each later token took."""
        times = [t for t in self.times if t is not None]
        return times[0] - self.start, [b - a for a, b in zip(times, times[1:])]


def time_generation(generate, prompt: torch.Tensor, new_tokens: int) -> tuple[float, list[float], torch.Tensor]:
    clock = TokenClock()
    ids = generate(prompt, new_tokens, clock)
    ttft, per_token = clock.result()
    return ttft, per_token, ids


def memory_bandwidth(mib: int, threads: int, repeats: int = 5) -> float:
    """GB/s of a streaming read: the largest element of a tensor much larger than the last-level
    cache (integer compares, so arithmetic is never the limit). Median of `repeats` reads."""
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        data = torch.ones(mib * 2**20 // 4, dtype=torch.int32)
        data.max()  # first touch
        seconds = []
        for _ in range(repeats):
            start = time.perf_counter()
            data.max()
            seconds.append(time.perf_counter() - start)
        return data.nbytes / statistics.median(seconds) / 1e9
    finally:
        torch.set_num_threads(before)


def unique_bytes(tensors) -> int:
    """Bytes of the storages behind these tensors, each counted once (tied weights, the inner
    tensors of torchao's quantized tensors)."""
    seen, total = set(), 0
    stack = list(tensors)
    while stack:
        t = stack.pop()
        if type(t) not in (torch.Tensor, torch.nn.Parameter) and hasattr(t, "__tensor_flatten__"):
            names, _ = t.__tensor_flatten__()
            stack.extend(getattr(t, n) for n in names)
            continue
        storage = t.untyped_storage()
        if storage.data_ptr() not in seen:
            seen.add(storage.data_ptr())
            total += storage.nbytes()
    return total


def kv_cache_bytes(model, positions: int, batch: int = 1) -> int:
    c = model.config
    head_dim = c.hidden_size // c.num_attention_heads
    return 2 * c.num_hidden_layers * c.num_key_value_heads * head_dim * positions * batch * model.dtype.itemsize


def bytes_per_token(model, positions: int) -> int:
    """What decoding one token reads: every weight once (the embedding table only for its one
    row, unless the output layer reads it too) and the cache of `positions` positions."""
    embedding = model.get_input_embeddings().weight
    shared = model.get_output_embeddings().weight is embedding
    weights = unique_bytes(p for p in model.parameters() if shared or p is not embedding)
    row = 0 if shared else embedding[0].nbytes
    return weights + row + kv_cache_bytes(model, positions)


def p99(seconds: list[float]) -> float:
    """The 99th percentile (the slowest of fewer than 100)."""
    ordered = sorted(seconds)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def resident_bytes(model, positions: int, batch: int = 1) -> int:
    """What the step keeps in memory: its weights and buffers, and the cache for `positions`."""
    return unique_bytes(list(model.parameters()) + list(model.buffers())) + kv_cache_bytes(model, positions, batch)


def parity(reference: torch.nn.Module, model: torch.nn.Module, ids: torch.Tensor, prompt: int) -> tuple[float, float, float]:
    """Teacher-forced against fp32 eager on the reference's own greedy tokens: the share of new
    positions where this model picks the same next token, the largest logit difference, and the
    lowest cosine similarity of a position's logits. Random weights leave the top two logits
    close (no token is much likelier than the next), so the first is harsher than on a trained
    model; the cosine shows how far the arithmetic itself moved."""
    with torch.inference_mode():
        ref = reference(ids[:, :-1]).logits[:, prompt - 1:].float()
        got = type(model).forward(model, ids[:, :-1]).logits[:, prompt - 1:].float()  # eager forward
    agree = (got.argmax(-1) == ref.argmax(-1)).float().mean().item()
    cosine = torch.nn.functional.cosine_similarity(got, ref, dim=-1).min().item()
    return agree, (got - ref).abs().max().item(), cosine
# --8<-- [end:measure]


def build(model, steps) -> dict:
    """{step: {"model", "generate"}} or, where it cannot run here, {step: {"not_run": why}}."""
    found = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torchao's and transformers' notices
        for step in steps:
            reason = why_not(step)
            found[step] = {"not_run": reason} if reason else dict(zip(("model", "generate"), BUILD[step](model)))
    return found


def measure(built: dict, prompt: torch.Tensor, new_tokens: int, rounds: int, naive_tokens: int) -> dict:
    """{step: {"ids", "ttft": [s], "per_token": [s]}} for the built steps that run. Each step
    generates once to warm up (the compiled ones compile there, at the current thread count),
    then once per round, steps by turns, so that a slow minute falls on every step alike. The
    naive loop makes naive_tokens tokens (each costs the whole sequence)."""
    running = {s: r["generate"] for s, r in built.items() if "generate" in r}
    count = {s: naive_tokens if s == "naive" else new_tokens for s in running}
    found = {s: {"ids": time_generation(generate, prompt, count[s])[2], "ttft": [], "per_token": []}
             for s, generate in running.items()}
    for _ in range(rounds):
        for step, generate in running.items():
            first, later, _ = time_generation(generate, prompt, count[step])
            found[step]["ttft"].append(first)
            found[step]["per_token"].extend(later)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tiny decoder of the same architecture: seconds")
    parser.add_argument("--steps", default=",".join(STEPS), help=f"comma-separated, from {','.join(STEPS)}")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads(), help="torch threads (default: all cores)")
    args = parser.parse_args()
    steps = [s for s in args.steps.split(",") if s]
    unknown = sorted(set(steps) - set(STEPS))
    if unknown:
        parser.error(f"unknown step(s) {', '.join(unknown)}; choose from {', '.join(STEPS)}")
    if args.threads < 1:
        parser.error("--threads must be at least 1")
    cfg = QUICK if args.quick else FULL
    torch.set_num_threads(args.threads)

    model = make_model(cfg["shape"])
    prompt = make_prompts(model.config.vocab_size, 1, cfg["prompt"])
    name = "a tiny decoder of Qwen2.5's architecture" if args.quick else "Qwen2.5-0.5B's shape"
    print(f"model: {name}, random weights: {sum(p.numel() for p in model.parameters()) / 1e6:.1f}M parameters, "
          f"{model.config.num_hidden_layers} layers")
    print(f"prompt: {cfg['prompt']} fixed token ids; {cfg['new_tokens']} new tokens, greedy "
          f"(the naive loop: {cfg['naive_tokens']}); {args.threads} thread(s)")
    bandwidth = memory_bandwidth(cfg["bandwidth_mib"], args.threads)
    print(f"memory bandwidth (streaming read): {bandwidth:.1f} GB/s")

    built = build(model, steps)
    found = {**built, **measure(built, prompt, cfg["new_tokens"], cfg["rounds"], cfg["naive_tokens"])}
    if "ids" in found.get("naive", {}) and "ids" in found.get("kv_cache", {}):
        n = cfg["prompt"] + cfg["naive_tokens"]
        print(f"the KV cache gives the naive loop's tokens: {torch.equal(found['naive']['ids'], found['kv_cache']['ids'][:, :n])}")
    reference_ids = found.get("kv_cache", {}).get("ids")
    positions = cfg["prompt"] + cfg["new_tokens"] // 2
    print(f"{'step':40} {'tok/s':>7} {'bound':>7} {'share':>6} {'TTFT ms':>8} {'p99 ms':>7} {'agree':>6} {'max dlogit':>10} {'cosine':>6} {'MB':>7}")
    for n, step in enumerate(steps, 1):
        title = f"{n} {TITLES[step]}"
        r = {**built[step], **found[step]}
        if "not_run" in r:
            print(f"{title:40} not run: {r['not_run']}")
            continue
        m = r["model"]
        seconds = statistics.median(r["per_token"])
        bound = bandwidth * 1e9 / bytes_per_token(m, positions)
        if reference_ids is not None:
            agree, dlogit, cosine = parity(model, m, reference_ids, cfg["prompt"])
            agreement = f"{agree:6.0%} {dlogit:10.3f} {cosine:6.3f}"
        else:
            agreement = f"{'-':>6} {'-':>10} {'-':>6}"
        print(f"{title:40} {1 / seconds:7.1f} {bound:7.1f} {1 / seconds / bound:6.0%} "
              f"{statistics.median(r['ttft']) * 1e3:8.1f} {p99(r['per_token']) * 1e3:7.1f} {agreement} "
              f"{resident_bytes(m, cfg['prompt'] + cfg['new_tokens']) / 1e6:7.1f}")


if __name__ == "__main__":
    main()
