"""Generating text on a CPU: a decoder of Qwen2.5-0.5B's shape (random weights, nothing downloaded)
from a naive loop to weight-only int4, each step's decode speed against the memory-bandwidth bound.

python generate_text.py              # Qwen2.5-0.5B's shape, 128-token prompt, 32 new tokens: minutes
python generate_text.py --quick      # a tiny decoder of the same architecture; the compiled steps compile it too
python generate_text.py --steps kv_cache,bf16 --threads 1
python generate_text.py --steps int4,llama_q4_0    # PyTorch's int4 beside llama.cpp's on the same weights
Needs: pip install torch torchao transformers; for the llama.cpp rows llama-cpp-python==0.3.36 gguf==0.19.0
"""
import argparse
import copy
import ctypes
import logging
import statistics
import tempfile
import time
import warnings
from pathlib import Path

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
STEPS = ("naive", "kv_cache", "bf16", "compile", "int8", "int4", "loop", "da8w4")
LLAMA_CPP = ("llama_f16", "llama_q8_0", "llama_q4_0")  # llama.cpp on the same weights, beside the steps
TITLES = {"naive": "naive loop, fp32, autograd on", "kv_cache": "KV cache (generate), fp32",
          "bf16": "bf16 weights", "compile": "static cache + torch.compile",
          "int8": "int8 weight-only, compiled", "int4": "int4 weight-only (A16W4), compiled",
          "loop": "int4, own loop, one compiled step",
          "da8w4": "int8 activations, int4 weights (DA8W4)",
          "llama_f16": "llama.cpp, F16", "llama_q8_0": "llama.cpp, Q8_0", "llama_q4_0": "llama.cpp, Q4_0"}
LLAMA_INSTALL = "pip install llama-cpp-python==0.3.36 gguf==0.19.0 (builds llama.cpp: a C++ compiler and cmake)"


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


def on_int4_grid(shape, std: float, group: int = 128, block: int = 32) -> torch.Tensor:
    """Random weights that both 4-bit formats store exactly: integers times one bf16 scale, in
    each group of 128 inputs either -8 ... 7 or (sign flipped) -7 ... 8, each block of 32 reaching
    the 8 (llama.cpp's Q4_0 takes its scale from a block's largest magnitude, / 8) and each group
    spanning 15 steps (torchao's int4 takes its scale from a group's range, / 15). int8 and bf16
    store them nearly exactly. So parity measures the steps' kernels and activations, not the
    rounding of the weights: rounding random weights compounds through 24 layers as it does not
    on a trained model's. The extremes sit at random places; the signs are random per group, so
    the weights have no common direction."""
    rows, cols = shape
    levels = torch.randint(-8, 8, (rows, cols // block, block))
    low = torch.randint(0, block, (rows, cols // block, 1))
    levels.scatter_(2, low, -8)
    high = (low[:, ::group // block] + torch.randint(1, block, (rows, cols // group, 1))) % block  # not on the -8
    levels[:, ::group // block].scatter_(2, high, 7)
    sign = torch.randint(0, 2, (rows, cols // group, 1)).repeat_interleave(group // block, dim=1) * 2 - 1
    levels = (levels * sign).float()
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


def int4_weights(model):
    """int4 weights in groups of 128, packed for torchao's CPU kernel; bf16 activations."""
    from torchao.prototype.quantization.int4 import PrototypeInt4WeightOnlyConfig
    from torchao.quantization import quantize_

    quantized = copy.deepcopy(model).to(torch.bfloat16)
    quantize_(quantized, PrototypeInt4WeightOnlyConfig(group_size=128, set_inductor_config=False))
    return quantized


def int4(model):
    """Step 6: int4 weights, compiled as step 4."""
    return compiled(int4_weights(model))


def decode_loop(model):
    """Step 7: step 6's int4 model in a greedy loop of your own, as gpt-fast writes one: a static
    cache made once per generation, the prompt in one eager forward, then one compiled function
    per new token that runs the forward and picks the token (its argmax), so nothing else runs
    between two tokens and the shapes never change."""
    from transformers import StaticCache

    quantized = int4_weights(model)

    def next_token(token, cache, position):
        logits = quantized(input_ids=token, cache=cache, cache_position=position).logits
        return logits[:, -1].argmax(-1, keepdim=True)

    step = torch.compile(next_token, fullgraph=True)

    def generate(ids, new_tokens, streamer):
        with torch.inference_mode():
            cache = StaticCache(config=quantized.config, max_cache_len=ids.shape[1] + new_tokens)
            streamer.put(ids)
            logits = quantized(input_ids=ids, cache=cache, cache_position=torch.arange(ids.shape[1])).logits
            tokens = [ids, logits[:, -1].argmax(-1, keepdim=True)]
            streamer.put(tokens[-1][:, 0])
            position = torch.tensor([ids.shape[1]])
            for _ in range(new_tokens - 1):
                with torch.profiler.record_function("decode step"):  # what profile_decode finds
                    tokens.append(step(tokens[-1], cache, position))
                position += 1
                streamer.put(tokens[-1][:, 0])
            return torch.cat(tokens, dim=1)

    generate.marks_decode_steps = True
    return quantized, generate


def da8w4(model):
    """Step 6's variant: activations quantised to int8 per token at run time, int4 weights."""
    from torchao.prototype.quantization.int4 import Int8DynamicActivationInt4WeightConfig
    from torchao.quantization import quantize_

    quantized = copy.deepcopy(model).to(torch.bfloat16)
    quantize_(quantized, Int8DynamicActivationInt4WeightConfig(group_size=128, set_inductor_config=False))
    return compiled(quantized)


BUILD = {"naive": naive, "kv_cache": kv_cache, "bf16": bf16, "compile": static_cache_compiled, "int8": int8,
         "int4": int4, "loop": decode_loop, "da8w4": da8w4}
# --8<-- [end:steps]


# --8<-- [start:llama_cpp]
def write_gguf(model, path: Path) -> None:
    """The same weights as a GGUF file of llama.cpp's "qwen2" architecture, written with the gguf
    package: matrices in F16 (the weights' grid fits F16 exactly, not BF16), norms and biases in
    F32, as llama.cpp's convert_hf_to_gguf.py writes them. No tokenizer: tokenizer.ggml.model
    "none" with a vocab_size makes llama.cpp take token ids and give logits over the vocabulary.
    No output.weight: llama.cpp then uses the token embedding for both, as the tied model does.
    Qwen2 rotates halves of each head (NEOX RoPE), as llama.cpp's qwen2 does: no permutation."""
    import gguf
    import numpy as np

    c = model.config
    writer = gguf.GGUFWriter(str(path), "qwen2")
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    writer.add_context_length(c.max_position_embeddings)
    writer.add_embedding_length(c.hidden_size)
    writer.add_block_count(c.num_hidden_layers)
    writer.add_feed_forward_length(c.intermediate_size)
    writer.add_head_count(c.num_attention_heads)
    writer.add_head_count_kv(c.num_key_value_heads)
    writer.add_rope_freq_base((getattr(c, "rope_parameters", None) or {}).get("rope_theta") or c.rope_theta)
    writer.add_layer_norm_rms_eps(c.rms_norm_eps)
    writer.add_vocab_size(c.vocab_size)
    writer.add_tokenizer_model("none")
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.QWEN2, c.num_hidden_layers)
    for name, tensor in model.state_dict().items():
        if name == "lm_head.weight" and c.tie_word_embeddings:
            continue
        data = tensor.detach().float().numpy()  # PyTorch's [out, in] is GGUF's {in, out}
        writer.add_tensor(names.get_name(name, try_suffixes=(".weight", ".bias")),
                          data.astype(np.float16) if data.ndim == 2 else data)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def quantize_gguf(source: Path, target: Path, kind: str) -> None:
    """llama.cpp's own quantiser (what llama-quantize runs): Q8_0 or Q4_0, blocks of 32 weights
    with one f16 scale each. pure: every matrix, the tied embedding/output table too (by default
    llama.cpp keeps that one at 6 or 8 bits)."""
    import llama_cpp

    logging.getLogger("llama-cpp-python").setLevel(logging.CRITICAL)  # a line per tensor otherwise
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype, params.pure = getattr(llama_cpp, f"LLAMA_FTYPE_MOSTLY_{kind}"), True
    if llama_cpp.llama_model_quantize(str(source).encode(), str(target).encode(), ctypes.byref(params)) != 0:
        raise RuntimeError(f"llama.cpp could not quantize {source} to {kind}")


class LlamaCpp:
    """A GGUF file run by llama-cpp-python: greedy generate() from token ids with the same
    streamer as the steps, teacher-forced logits for parity, and its sizes."""

    def __init__(self, path: Path, config, context: int = 512):
        import psutil
        from llama_cpp import Llama

        rss = psutil.Process().memory_info().rss
        self.path, self.config, self.dtype = path, config, torch.float16  # dtype: the KV cache's
        self.llm = Llama(model_path=str(path), n_ctx=context, n_batch=context, verbose=False)
        self.llm.eval([0])  # loads (and repacks) the weights
        self.resident = psutil.Process().memory_info().rss - rss
        self.weight_bytes = self.llm._model.size()  # bytes of its tensors

    def generate(self, ids: torch.Tensor, new_tokens: int, streamer) -> torch.Tensor:
        """Greedy: the argmax of llama.cpp's logits (no sampler, so no penalties), from an empty
        cache, at the thread count torch uses."""
        import llama_cpp
        import numpy as np

        threads = torch.get_num_threads()
        llama_cpp.llama_set_n_threads(self.llm.ctx, threads, threads)
        streamer.put(ids)  # the prompt, 2-D, as generate() passes it
        tokens = ids[0].tolist()
        self.llm.reset()
        self.llm.eval(tokens)  # prefill
        for i in range(new_tokens):
            logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(self.llm.ctx, -1), shape=(self.llm.n_vocab(),))
            tokens.append(int(logits.argmax()))
            streamer.put(torch.tensor(tokens[-1:]))
            if i < new_tokens - 1:
                self.llm.eval(tokens[-1:])
        return torch.tensor([tokens])

    def logits(self, ids: torch.Tensor) -> torch.Tensor:
        """Teacher-forced logits of every position of ids[0] ([n, vocab], float32)."""
        from llama_cpp import Llama

        n = ids.shape[-1]
        llm = Llama(model_path=str(self.path), n_ctx=max(512, n), n_batch=max(512, n), logits_all=True, verbose=False)
        llm.eval(ids[0].tolist())
        try:
            return torch.from_numpy(llm.scores[:n].copy())
        finally:
            llm.close()


def llama_cpp(model, kind: str):
    """llama.cpp on the model's weights: F16, or llama.cpp's Q8_0 / Q4_0 made from the F16 file."""
    folder = tempfile.TemporaryDirectory(prefix="gguf-")
    f16 = Path(folder.name) / "model-F16.gguf"
    write_gguf(model, f16)
    path = f16
    if kind != "F16":
        path = f16.with_name(f"model-{kind}.gguf")
        quantize_gguf(f16, path, kind)
        f16.unlink()
    engine = LlamaCpp(path, model.config)
    engine.folder = folder  # the file lives as long as the engine
    return engine, engine.generate
# --8<-- [end:llama_cpp]


BUILD.update({step: lambda model, kind=step[6:].upper(): llama_cpp(model, kind) for step in LLAMA_CPP})


def why_not(step: str) -> str | None:
    """Why this installation cannot run a step, or None."""
    if step in ("int8", "int4", "loop", "da8w4"):
        try:
            import torchao  # noqa: F401  (registers torchao's operators)
        except ImportError:
            return "needs torchao (pip install torchao)"
    if step in LLAMA_CPP:
        try:
            import gguf  # noqa: F401
            import llama_cpp  # noqa: F401
        except ImportError:
            return f"needs llama-cpp-python and gguf ({LLAMA_INSTALL})"
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


def memory_bandwidth(mib: int, threads: int, repeats: int = 9) -> float:
    """GB/s of a streaming read: the largest element of a tensor much larger than the last-level
    cache (integer compares, so arithmetic is never the limit). The fastest of `repeats` reads:
    a bound is what the machine can do, and on a shared machine most reads are slower."""
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
        return data.nbytes / min(seconds) / 1e9
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
    row, unless the output layer reads it too) and the cache of `positions` positions. llama.cpp:
    its tensors (the tied table is its output layer) and its f16 cache."""
    if isinstance(model, LlamaCpp):
        return model.weight_bytes + kv_cache_bytes(model, positions)
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
    """What the step keeps in memory: its weights and buffers, and the cache for `positions`.
    llama.cpp: what its process grew by when it loaded the file (weights, repacked copies, cache)."""
    if isinstance(model, LlamaCpp):
        return model.resident
    return unique_bytes(list(model.parameters()) + list(model.buffers())) + kv_cache_bytes(model, positions, batch)


def parity(reference: torch.nn.Module, model: torch.nn.Module, ids: torch.Tensor, prompt: int) -> tuple[float, float, float]:
    """Teacher-forced against fp32 eager on the reference's own greedy tokens: the share of new
    positions where this model picks the same next token, the largest logit difference, and the
    lowest cosine similarity of a position's logits. Random weights leave the top two logits
    close (no token is much likelier than the next), so the first is harsher than on a trained
    model; the cosine shows how far the arithmetic itself moved."""
    with torch.inference_mode():
        ref = reference(ids[:, :-1]).logits[:, prompt - 1:].float()
        if isinstance(model, LlamaCpp):
            got = model.logits(ids[:, :-1])[None, prompt - 1:]
        else:
            got = type(model).forward(model, ids[:, :-1]).logits[:, prompt - 1:].float()  # eager forward
    agree = (got.argmax(-1) == ref.argmax(-1)).float().mean().item()
    cosine = torch.nn.functional.cosine_similarity(got, ref, dim=-1).min().item()
    return agree, (got - ref).abs().max().item(), cosine
# --8<-- [end:measure]


# --8<-- [start:profile]
# What a decode step's operators are, by the names torch.profiler gives them: {part: name fragments}
PARTS = {"matrix products": ("mm", "linear", "matmul", "int4pack", "int4mm"),
         "attention": ("scaled_dot_product", "attention")}


def profile_decode(model, generate, prompt: torch.Tensor, new_tokens: int) -> dict[str, list[float]]:
    """Where each decode step's time goes, per token (seconds): the operators torch.profiler
    sees inside the model's forward for one new position, by PARTS ("matrix products",
    "attention"); the rest of the forward ("other", for a compiled step mostly Inductor's fused
    kernels, which the profiler sees as one call); generate()'s own work between two forward
    calls ("generate() between forwards"; for step 7, "the loop between steps"); and the whole
    token ("token"). Profiled twice, the
    first discarded (a compiled model recompiles once under the profiler)."""
    inner = model.forward

    def forward(*args, **kwargs):
        ids = kwargs.get("input_ids", args[0] if args else None)
        with torch.profiler.record_function("decode step" if ids.shape[1] == 1 else "prefill"):
            return inner(*args, **kwargs)

    own_loop = getattr(generate, "marks_decode_steps", False)  # step 7 marks its compiled steps itself
    if not own_loop:
        model.forward = forward
    try:
        for _ in range(2):
            clock = TokenClock()
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
                generate(prompt, new_tokens, clock)
    finally:
        model.forward = inner
    events = prof.events()
    steps = {id(e): e for e in events if e.name == "decode step"}
    parts = {step: dict.fromkeys(PARTS, 0.0) for step in steps}
    for e in events:
        parent = e.cpu_parent
        while parent is not None and id(parent) not in steps:
            parent = parent.cpu_parent
        if parent is None or e.name.split("::")[0] not in ("aten", "quantized", "torchao"):
            continue
        part = next((p for p, names in PARTS.items() if any(n in e.name.split("::")[-1] for n in names)), None)
        if part:
            parts[id(parent)][part] += e.self_cpu_time_total / 1e6
    _, tokens = clock.result()
    decode = sorted(steps.values(), key=lambda e: e.time_range.start)[:len(tokens)]  # one forward per new token
    found = {p: [parts[id(e)][p] for e in decode] for p in PARTS}
    found["other"] = [e.cpu_time_total / 1e6 - sum(parts[id(e)].values()) for e in decode]
    between = "the loop between steps" if own_loop else "generate() between forwards"
    found[between] = [t - e.cpu_time_total / 1e6 for t, e in zip(tokens, decode)]
    found["token"] = tokens
    return found
# --8<-- [end:profile]


def build(model, steps) -> dict:
    """{step: {"model", "generate"}} or, where it cannot run here, {step: {"not_run": why}}."""
    found = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torchao's and transformers' notices
        for step in steps:
            reason = why_not(step)
            start = time.perf_counter()
            found[step] = {"not_run": reason} if reason else dict(zip(("model", "generate"), BUILD[step](model)))
            found[step]["build_s"] = time.perf_counter() - start  # copying, quantizing, writing GGUF files
    return found


def measure(built: dict, prompt: torch.Tensor, new_tokens: int, rounds: int, naive_tokens: int) -> dict:
    """{step: {"ids", "first_call_s", "ttft": [s], "per_token": [s]}} for the built steps that run. Each step
    generates once to warm up (the compiled ones compile there, at the current thread count),
    then once per round, steps by turns, so that a slow minute falls on every step alike. The
    naive loop makes naive_tokens tokens (each costs the whole sequence)."""
    running = {s: r["generate"] for s, r in built.items() if "generate" in r}
    count = {s: naive_tokens if s == "naive" else new_tokens for s in running}
    found = {}
    for s, generate in running.items():
        start = time.perf_counter()
        ids = time_generation(generate, prompt, count[s])[2]
        found[s] = {"ids": ids, "first_call_s": time.perf_counter() - start, "ttft": [], "per_token": []}  # compiles
    for _ in range(rounds):
        for step, generate in running.items():
            first, later, _ = time_generation(generate, prompt, count[step])
            found[step]["ttft"].append(first)
            found[step]["per_token"].extend(later)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tiny decoder of the same architecture; the compiled steps compile it too")
    parser.add_argument("--steps", default=",".join(STEPS + LLAMA_CPP),
                        help=f"comma-separated, from {','.join(STEPS + LLAMA_CPP)}")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads(), help="torch threads (default: all cores)")
    args = parser.parse_args()
    steps = [s for s in args.steps.split(",") if s]
    unknown = sorted(set(steps) - set(STEPS + LLAMA_CPP))
    if unknown:
        parser.error(f"unknown step(s) {', '.join(unknown)}; choose from {', '.join(STEPS + LLAMA_CPP)}")
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
    if any("not_run" in built[s] for s in LLAMA_CPP if s in built):
        print(f"SKIP: llama-cpp-python is not installed, no llama.cpp rows; {LLAMA_INSTALL}")
    found = {**built, **measure(built, prompt, cfg["new_tokens"], cfg["rounds"], cfg["naive_tokens"])}
    if "ids" in found.get("naive", {}) and "ids" in found.get("kv_cache", {}):
        n = cfg["prompt"] + cfg["naive_tokens"]
        print(f"the KV cache gives the naive loop's tokens: {torch.equal(found['naive']['ids'], found['kv_cache']['ids'][:, :n])}")
    reference_ids = found.get("kv_cache", {}).get("ids")
    positions = cfg["prompt"] + cfg["new_tokens"] // 2
    print(f"{'step':40} {'tok/s':>7} {'bound':>7} {'share':>6} {'TTFT ms':>8} {'p99 ms':>7} {'agree':>6} {'max dlogit':>10} {'cosine':>6} {'MB':>7}")
    for step in steps:
        title = f"{STEPS.index(step) + 1} {TITLES[step]}" if step in STEPS else TITLES[step]
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
