"""fp32 against int8 for a Linear-heavy MLP: serialized size and latency.

torchao (the maintained API) with the model and function of
snippets/quantisation_int8_dynamic_torchao.py, plus int8 weight-only, plus the deprecated
torch.ao.quantization.quantize_dynamic that older tutorials use, for comparison only. In full
mode also the two compiled int8 paths: the torchao model under torch.compile, and torchao's PT2E
flow with X86InductorQuantizer (dynamic int8) compiled with Inductor's freezing, which it needs.
"""
import copy
import warnings

import torch
import torch._inductor.config

from bench.core import load_snippet, num_threads

TITLE = "Quantisation"
ORDER = 90
WHEN = 'Linear-heavy inference: always smaller; which int8 path is faster depends on the CPU.'  # Home's headline table: when the technique applies
# What its verdicts and Home's headline count: the variant a reader should use, per regime (row-id patterns)
RECOMMENDED = {"inference": ["quantisation/mlp-*-inference-*/torchao-int8-dynamic-torch-compile"]}


def run(session) -> None:
    q = load_snippet("quantisation_int8_dynamic_torchao")
    torch.manual_seed(0)
    model = q.make_model()
    variants = {"fp32": model}
    try:
        variants["torchao int8 dynamic (activations + weights)"] = q.quantize_int8_dynamic(model)
        from torchao.quantization import Int8WeightOnlyConfig, quantize_
        weight_only = copy.deepcopy(model)
        quantize_(weight_only, Int8WeightOnlyConfig())
        variants["torchao int8 weight-only"] = weight_only
    except ImportError:
        pass  # torchao absent: fp32 and the deprecated path only
    with warnings.catch_warnings():  # deprecated since torch 2.10: shown for comparison only
        warnings.simplefilter("ignore")
        variants["torch.ao quantize_dynamic (deprecated)"] = torch.ao.quantization.quantize_dynamic(
            copy.deepcopy(model), {torch.nn.Linear}, dtype=torch.qint8)

    for label, m in variants.items():
        session.record("serialized state_dict (torch.save)", label, q.serialized_bytes(m) / 1e6, "MB",
                       baseline=m is model)
    batch = session.pick(8, 32)
    x = torch.randn(batch, 512)
    pre_grad_pass = torch._inductor.config.pre_grad_custom_pass  # importing the PT2E quantizer replaces it
    try:
        for threads, where in session.thread_settings():
            group = f"MLP 512-1024-1024-10 inference, {where}"
            timed = dict(variants)
            # Quick mode leaves the compiled paths out: two cold compiles per thread count are
            # longer than its budget.
            if not session.quick and "torchao int8 dynamic (activations + weights)" in variants:
                timed.update(compiled_int8(model, variants["torchao int8 dynamic (activations + weights)"], x,
                                           threads))
            with torch.inference_mode(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for label, m in timed.items():
                    session.time(group, label, lambda: m(x), num_threads=threads, baseline=m is model,
                                 items=batch, params={"batch_size": batch})
    finally:
        torch._dynamo.reset()
        torch._inductor.config.pre_grad_custom_pass = pre_grad_pass


def compiled_int8(model, torchao_model, x, threads: int) -> dict:
    """The int8 models compiled at the thread count they are timed at (Inductor plans its kernels
    for it). PT2E needs freezing: with the weights as constants Inductor replaces its
    quantize/dequantize pattern with a prepacked oneDNN int8 Linear (onednn.qlinear_pointwise);
    without it, it dequantizes and runs an fp32 matmul. torchao's model calls aten._int_mm
    with or without freezing, so it is compiled as most programs would: plainly."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
        from torchao.quantization.pt2e.quantizer.x86_inductor_quantizer import (
            X86InductorQuantizer, get_default_x86_inductor_quantization_config)

        torch._dynamo.reset()
        exported = torch.export.export(model, (x,)).module()
        quantizer = X86InductorQuantizer().set_global(get_default_x86_inductor_quantization_config(is_dynamic=True))
        prepared = prepare_pt2e(exported, quantizer)
        prepared(x)  # dynamic: activations are quantised per call, this only runs the observers once
        pt2e = torch.compile(convert_pt2e(prepared))
        torchao = torch.compile(torchao_model)
        with num_threads(threads), torch.inference_mode():
            torchao(x)  # compiles here, at the thread count it runs at
            with torch._inductor.config.patch(freezing=True):
                pt2e(x)
    return {"torchao int8 dynamic + torch.compile": torchao,
            "PT2E X86InductorQuantizer int8 dynamic + freezing": pt2e}
