"""fp32 against int8 for a Linear-heavy MLP: serialized size and latency.

torchao (the maintained API) with the model and function of
snippets/quantisation_int8_dynamic_torchao.py, plus int8 weight-only, plus the deprecated
torch.ao.quantization.quantize_dynamic that older tutorials use, for comparison only.
"""
import copy
import warnings

import torch

from bench.core import load_snippet

TITLE = "Quantisation"
ORDER = 90
WHEN = 'Linear-heavy inference: always smaller; which int8 path is faster depends on the CPU.'  # Home's headline table: when the technique applies


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
    for threads, where in session.thread_settings():
        group = f"MLP 512-1024-1024-10 inference, {where}"
        with torch.inference_mode(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for label, m in variants.items():
                session.time(group, label, lambda: m(x), num_threads=threads, baseline=m is model, items=batch,
                             params={"batch_size": batch})
