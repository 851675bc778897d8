"""fp32 against bfloat16 autocast for inference and for a training step, with the model and the
functions of snippets/bfloat16_autocast_cpu.py. Where the CPU has no AVX512_BF16, AMX or Arm
BF16 (the AVX2 reference has none), bf16 is emulated and slower; with AVX512_BF16 (the Zen 4
reference) it is faster.
"""

import torch

from bench.core import load_snippet

TITLE = "bfloat16"
ORDER = 70
WHEN = "Only on CPUs with AVX512_BF16 or AMX (or Arm's bf16), and not for every model there; far slower without."  # Home's headline table: when the technique applies
# What its verdicts and Home's headline count: the variant a reader should use, per regime (row-id patterns)
RECOMMENDED = {"inference": ["bfloat16/mlp-inference-*/bf16-autocast"], "training": ["bfloat16/mlp-training-step-*/bf16-autocast"]}


def run(session) -> None:
    bf = load_snippet("bfloat16_autocast_cpu")
    hw = bf.native_bf16()
    torch.manual_seed(0)
    batch = session.pick(64, 256)
    model = bf.make_model().eval()
    x = torch.randn(batch, 128)
    y = torch.randint(0, 10, (batch,))
    # Whether bf16 is native is the machine's, not the row's: it goes in params, not the group name.
    params = {"isa": hw, "batch_size": batch}
    for threads, where in session.thread_settings():
        group = f"MLP inference, {where}"
        for label, bf16 in (("fp32", False), ("bf16 autocast", True)):
            session.time(group, label, lambda: bf.predict(model, x, bf16), num_threads=threads,
                         baseline=not bf16, items=batch, params=params)
        group = f"MLP training step, {where}"
        for label, bf16 in (("fp32", False), ("bf16 autocast", True)):
            net = bf.make_model().train()
            opt = torch.optim.AdamW(net.parameters(), lr=3e-4)
            session.time(group, label, lambda: bf.train_step(net, opt, x, y, bf16), num_threads=threads,
                         baseline=not bf16, items=batch, params=params)
