"""Generating text: every step is in the table (measured, or not run with its reason); the KV cache
gives the naive loop's tokens; random weights at the snippet's initializer_range do not collapse to
a few repeated tokens and do at the config's default; parity fails on a broken step; the bytes a
token reads count a tied embedding once. Correctness only: no speed bound is asserted."""
import re

import pytest
import torch

from bench.core import load_snippet
from tests.paths import ROOT
from tests.running import require_modules, run_here, run_shared

NAME = "generate_text"
STEPS = ("naive", "kv_cache", "bf16", "compile", "int8", "int4", "loop", "da8w4")
LLAMA_CPP = {"llama_f16": "llama.cpp, F16", "llama_q8_0": "llama.cpp, Q8_0", "llama_q4_0": "llama.cpp, Q4_0"}
NUMBER = r"[\d.]+"
# tok/s, bound, share, TTFT ms, p99 ms, agreement, max logit difference, cosine, MB
MEASURED = rf"{NUMBER} +{NUMBER} +\d+% +{NUMBER} +{NUMBER} +\d+% +{NUMBER} +{NUMBER} +{NUMBER}"


@pytest.fixture(scope="module")
def quick() -> str:
    return run_shared(NAME, "--quick").stdout


@pytest.fixture(scope="module")
def g():
    return load_snippet(NAME)


def row(out: str, index: int) -> str:
    """What follows step `index`'s title in the table."""
    title = re.escape(load_snippet(NAME).TITLES[STEPS[index - 1]])
    match = re.search(rf"^{index} {title} +(\S.*)$", out, re.M)
    assert match, f"no row {index} in\n{out}"
    return match.group(1)


def test_every_step_is_measured_or_says_why_not(quick, g):
    assert g.STEPS == STEPS
    for index, step in enumerate(STEPS, 1):
        assert re.search(rf"^{index} {re.escape(g.TITLES[step])} ", quick, re.M), (step, quick)
        cells = row(quick, index)
        if step in ("naive", "kv_cache", "bf16", "compile"):  # stock torch: runs on every CPU
            assert re.fullmatch(MEASURED, cells), (step, cells)
        else:
            assert cells.startswith("not run: ") or re.fullmatch(MEASURED, cells), (step, cells)


def test_the_kv_cache_gives_the_naive_loops_tokens(quick):
    """Step 2 is the same computation as step 1, done once per position: same greedy tokens."""
    assert "the KV cache gives the naive loop's tokens: True" in quick


def test_fp32_steps_agree_exactly_and_the_others_closely(quick):
    """fp32 eager against itself: every token, no difference. The bf16 and quantized steps: the
    weights are on the int4 grid, so only bf16 activations move the logits (cosine >= 0.99)."""
    for index in (1, 2):
        assert re.search(r" 100% +0\.000 +1\.000 ", row(quick, index)), row(quick, index)
    for index in (3, 4, 5, 6, 7):
        if not row(quick, index).startswith("not run"):
            cosine = float(re.search(r"% +[\d.]+ +([\d.]+) ", row(quick, index)).group(1))
            assert cosine >= 0.99, row(quick, index)


def test_step_7_picks_the_models_next_token_and_compiles_once(g):
    """Your own loop: each token it picks is the int4 model's argmax at that position, given the
    tokens before it (teacher-forced, eager; a cache position that did not advance, or a cache
    that was not written, picks others), and a second generation reuses the compiled step (no
    new graph: the static cache and the position tensor keep every shape)."""
    require_modules("torchao")
    from torch._dynamo.utils import counters

    model = g.make_model(g.TINY)
    prompt = g.make_prompts(model.config.vocab_size, 1, 16)
    quantized, generate = g.decode_loop(model)
    first = generate(prompt, 12, g.TokenClock())
    graphs = counters["stats"]["unique_graphs"]
    second = generate(prompt, 12, g.TokenClock())
    assert counters["stats"]["unique_graphs"] == graphs, "the second generation compiled again"
    assert first.shape == (1, 28) and torch.equal(first, second)
    with torch.inference_mode():
        eager = type(quantized).forward(quantized, first[:, :-1]).logits[0, 15:].argmax(-1)
    agree = (eager == first[0, 16:]).float().mean().item()
    assert agree >= 0.9, (agree, eager, first[0, 16:])  # bf16 activations: a near tie may differ


def test_llama_cpp_rows_are_measured_or_the_snippet_says_skip(quick, g):
    """llama.cpp's rows follow the steps: measured where llama-cpp-python is installed; where it
    is not, a SKIP line saying how to install it and each row "not run" (CI requires them)."""
    assert g.LLAMA_CPP == tuple(LLAMA_CPP) and all(g.TITLES[k] == v for k, v in LLAMA_CPP.items())
    if "SKIP: llama-cpp-python is not installed" in quick:
        assert "pip install llama-cpp-python==" in quick
        require_modules("llama_cpp", "gguf")  # skips here, or fails under REQUIRE_RUNTIMES=1
    for title in LLAMA_CPP.values():
        match = re.search(rf"^{re.escape(title)} +(\S.*)$", quick, re.M)
        assert match and re.fullmatch(MEASURED, match.group(1)), (title, quick)


def test_the_gguf_file_carries_the_same_weights(g, tmp_path):
    """llama.cpp's F16 file of the model computes what PyTorch's fp32 model computes (the same
    greedy tokens, teacher-forced; cosine above 0.9999 at every position): the weights, their names and the hyperparameters
    were carried over. The same file with two layers' weights swapped falls far below."""
    require_modules("llama_cpp", "gguf")
    model = g.make_model(g.TINY)
    prompt = g.make_prompts(model.config.vocab_size, 1, 16)
    with torch.inference_mode():
        ids = model.generate(prompt, max_new_tokens=16, min_new_tokens=16, do_sample=False)
    engine, generate = g.llama_cpp(model, "F16")
    out = generate(prompt, 16, g.TokenClock())  # free-running: a near tie may part the two later
    assert out.shape == ids.shape and torch.equal(out[:, :20], ids[:, :20]), (out, ids)
    agree, dlogit, cosine = g.parity(model, engine, ids, 16)
    assert agree >= 0.9 and cosine > 0.9999, (agree, dlogit, cosine)
    swapped = g.make_model(g.TINY)
    with torch.no_grad():
        first, second = swapped.model.layers[0], swapped.model.layers[1]
        for a, b in zip(first.parameters(), second.parameters()):
            kept = a.clone()
            a.copy_(b)
            b.copy_(kept)
    g.write_gguf(swapped, tmp_path / "swapped.gguf")
    broken = g.LlamaCpp(tmp_path / "swapped.gguf", model.config)
    agree, dlogit, cosine = g.parity(model, broken, ids, 16)
    assert cosine < 0.9 and agree < 0.8, (agree, dlogit, cosine)


def test_the_weights_are_on_a_grid_both_4_bit_formats_store(g):
    """on_int4_grid's docstring: integers times one scale; each group of 128 spans -8 ... 7 or
    -7 ... 8 (15 steps: torchao's int4) and each block of 32 reaches the 8 (Q4_0's scale); no
    common direction (the mean level is near 0)."""
    weight = g.on_int4_grid((64, 512), 0.05)
    levels = weight / (weight.abs().max() / 8)
    assert torch.equal(levels, levels.round())
    groups, blocks = levels.view(64, 4, 128), levels.view(64, 16, 32)
    assert (groups.max(-1).values - groups.min(-1).values == 15).all()
    assert (blocks.abs().max(-1).values == 8).all()
    assert abs(levels.mean().item()) < 0.1 and abs(weight.std().item() - 0.05) < 0.005


def at_range(model, initializer_range: float):
    """make_model(shape, initializer_range) from a model make_model built at another range, without
    drawing again: the same seed gives the same levels (integers, each block reaching 8), and only
    the scale, initializer_range / the levels' std in bf16, differs."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, (torch.nn.Linear, torch.nn.Embedding)) and module is not model.lm_head:
                levels = module.weight / (module.weight.abs().max() / 8)
                module.weight.copy_(levels * torch.tensor(initializer_range / levels.std().item()).to(torch.bfloat16).float())
    return model


def test_random_weights_do_not_collapse_and_the_default_range_does(g):
    """The model docstring's claim, on Qwen2.5-0.5B's shape: at initializer_range 0.05 greedy
    decoding gives varied tokens that depend on the prompt; at the config's 0.02 it repeats a few.
    The 0.5B model is built once and rescaled (at_range), which gives make_model's 0.02 model to
    the bit: checked on the tiny decoder."""
    tiny = g.make_model(g.TINY, 0.02).state_dict()
    rescaled = at_range(g.make_model(g.TINY, 0.05), 0.02).state_dict()
    assert all(torch.equal(rescaled[k], tiny[k]) for k in tiny)

    def runs(model) -> list[list[int]]:
        prompts = g.make_prompts(model.config.vocab_size, 2, 32)
        with torch.inference_mode():
            out = model.generate(prompts, max_new_tokens=24, min_new_tokens=24, do_sample=False)
        return out[:, 32:].tolist()

    model = g.make_model(g.QWEN2_5_0_5B, 0.05)
    ours = runs(model)
    assert all(len(set(tokens)) >= 20 for tokens in ours), ours
    assert ours[0] != ours[1]
    default = runs(at_range(model, 0.02))
    assert any(len(set(tokens)) <= 12 for tokens in default), default


def test_parity_fails_on_a_broken_step(g):
    """A model whose layers are shuffled computes something else: agreement and cosine drop."""
    model = g.make_model(g.TINY)
    prompt = g.make_prompts(model.config.vocab_size, 1, 16)
    with torch.inference_mode():
        ids = model.generate(prompt, max_new_tokens=16, min_new_tokens=16, do_sample=False)
    assert g.parity(model, model, ids, 16)[0] == 1.0
    broken = g.make_model(g.TINY)
    with torch.no_grad():
        for p in broken.model.layers.parameters():
            p.copy_(p.flatten()[torch.randperm(p.numel())].view_as(p))
    agree, dlogit, cosine = g.parity(model, broken, ids, 16)
    assert agree < 0.5 and cosine < 0.9 and dlogit > 1, (agree, dlogit, cosine)


def test_bytes_per_token_count_a_tied_embedding_once(g):
    model = g.make_model(g.TINY)
    weights = sum(p.numel() for p in model.parameters()) * 4  # parameters() lists a tied weight once
    assert model.get_output_embeddings().weight is model.get_input_embeddings().weight
    assert g.bytes_per_token(model, 0) == weights
    assert g.bytes_per_token(model.to(torch.bfloat16), 0) == weights // 2
    assert g.kv_cache_bytes(model, 10) == 2 * 2 * 2 * 64 * 10 * 2  # K and V, 2 layers, 2 heads of 64, bf16


def test_a_quantized_output_layer_reads_one_embedding_row(g):
    pytest.importorskip("torchao")
    from torchao.quantization import Int8WeightOnlyConfig, quantize_

    model = g.make_model(g.TINY).to(torch.bfloat16)
    quantize_(model, Int8WeightOnlyConfig(set_inductor_config=False))
    embedding = model.get_input_embeddings().weight
    assert model.get_output_embeddings().weight is not embedding  # quantize_ unties it
    full = g.unique_bytes(list(model.parameters()))
    assert g.bytes_per_token(model, 0) == full - embedding.nbytes + embedding[0].nbytes


def test_the_decode_profile_splits_each_token_into_its_parts(g):
    """profile_decode: one sample per decode step (the first new token is the prefill's); the
    parts add up to the token; the matrix products of an fp32 eager model are in aten::mm/addmm
    and take time. The parts are measured from the same profiled run, so they add up exactly."""
    model = g.make_model(g.TINY)
    generate = g.kv_cache(model)[1]
    prompt = g.make_prompts(model.config.vocab_size, 1, 16)
    found = g.profile_decode(model, generate, prompt, 6)
    assert set(found) == {*g.PARTS, "other", "generate() between forwards", "token"}
    assert all(len(samples) == 5 for samples in found.values()), found
    for i, token in enumerate(found["token"]):
        parts = sum(found[p][i] for p in found if p != "token")
        assert abs(parts - token) < 1e-9 and all(found[p][i] >= 0 for p in g.PARTS), (i, found)
    assert all(t > 0 for t in found["matrix products"]) and all(t > 0 for t in found["attention"])
    assert model.forward.__func__ is type(model).forward  # the profiler's wrapper is gone


@pytest.mark.parametrize("args, message", [(("--steps", "naive,warp"), "unknown step(s) warp"),
                                           (("--threads", "0"), "--threads must be at least 1")])
def test_bad_arguments_exit_2_with_a_message(args, message):
    result = run_here(NAME, *args)
    assert result.returncode == 2 and message in result.stderr, result.stderr


def test_no_reference_decodes_faster_than_its_bandwidth_allows():
    """tokens/s x bytes read per token is memory traffic: above the bandwidth measured in the same
    run (10% for noise) it would be a harness bug, not a fast step. Prefill is compute: below peak."""
    from bench.references import load_all, recordings

    checked = 0
    for reference in load_all():
        for row in (row for rows in recordings(reference) for row in rows.values()):  # every recording
            if row["id"].startswith("generate_text/decode-batch-1-"):
                assert row["params"]["share_of_bound"] <= 1.1, row
                checked += 1
        # the first recording's prefill only: the Zen 5 recordings' peak counts one 512-bit FMA unit
        # per core (inferred: the peak table does not know the Zen 5; the Benchmark page says so), and
        # their bf16 prefill goes above it
        for row in reference["results"]:
            if row["id"].startswith("generate_text/time-to-first-token-") and row["params"]["share_of_peak"]:
                assert row["params"]["share_of_peak"] <= 1.1, row
    assert checked or not any("generate_text" in r["techniques"] for r in load_all())


def test_a_static_cache_compiles_again_for_another_length(g, monkeypatch):
    """The page's note: the static cache is sized for prompt + max_new_tokens, so the same length
    reuses the compiled graphs and another length compiles again. Whether a call compiles again is
    dynamo's decision (its guards on the shapes), whatever the backend: the step's torch.compile
    runs with the eager backend here, in seconds instead of Inductor's half a minute of C++."""
    from torch._dynamo.utils import counters

    real = torch.compile
    monkeypatch.setattr(torch, "compile", lambda fn, **options: real(fn, **options, backend="eager"))
    torch._dynamo.reset()
    model, generate = g.static_cache_compiled(g.make_model(g.TINY))
    prompt = g.make_prompts(model.config.vocab_size, 1, 8)

    def graphs_after(new_tokens: int) -> int:
        generate(prompt, new_tokens, g.TokenClock())
        return counters["stats"]["unique_graphs"]

    try:
        first = graphs_after(4)
        assert graphs_after(4) == first
        assert graphs_after(6) > first
    finally:
        torch._dynamo.reset()


def test_the_int4_configs_the_page_says_fail_on_a_cpu_do():
    """The page's note: in the pinned torchao, Int4WeightOnlyConfig's default layout needs the mslk
    GPU kernels, and DA8W4 needs a CPU kernel the wheel does not have (so the snippet skips it)."""
    pytest.importorskip("torchao")
    from torchao.prototype.quantization.int4 import Int8DynamicActivationInt4WeightConfig
    from torchao.quantization import Int4WeightOnlyConfig, quantize_

    def linear():
        return torch.nn.Sequential(torch.nn.Linear(256, 256)).to(torch.bfloat16)

    with pytest.raises(ImportError, match="Requires mslk"):
        quantize_(linear(), Int4WeightOnlyConfig(group_size=128, set_inductor_config=False))
    with pytest.raises(AssertionError, match="da8w4_linear_cpu kernel"):
        quantize_(linear(), Int8DynamicActivationInt4WeightConfig(group_size=128, set_inductor_config=False))


def test_the_pages_amx_build_command_is_the_one_setup_runs():
    """The warning on the page gives the CMAKE_ARGS bench/llama_build.py uses on a CPU with
    AMX-INT8 (here, a Sapphire Rapids' flags): every extension but AMX, -march=native off; on a
    CPU without AMX the build is native and the stamp says which CPU it was made for."""
    from bench import llama_build

    sapphire = {"avx2", "fma", "avx512f", "avx512vbmi", "avx512_vnni", "avx512_bf16", "avx_vnni",
                "amx_tile", "amx_int8", "amx_bf16"}
    args = llama_build.cmake_args(sapphire)
    assert "-DGGML_NATIVE=OFF" in args and "AMX" not in args and "-DGGML_AVX512_BF16=ON" in args
    for page in ("generate-text.md", "generate-text.zh.md"):
        assert f'CMAKE_ARGS="{args}"' in (ROOT / "docs" / page).read_text(), page
    zen4 = sapphire - {"amx_tile", "amx_int8", "amx_bf16"}
    assert llama_build.cmake_args(zen4) == "" and llama_build.stamp_text(zen4) != llama_build.stamp_text(sapphire)
