"""fp32 against bfloat16 autocast for inference and for a training step, with the model and the
functions of snippets/bfloat16_autocast_cpu.py. Where the CPU has no AVX512_BF16/AMX (the
reference machine has neither), bf16 is emulated and slower: the table shows that side.
"""

import torch

from bench.core import load_snippet

TITLE = "bfloat16"
ORDER = 70


def run(session) -> None:
    bf = load_snippet("bfloat16_autocast_cpu")
    hw = bf.native_bf16()
    native = "native bf16" if hw["avx512_bf16"] or hw["amx_bf16"] else "no native bf16 (emulated)"
    torch.manual_seed(0)
    batch = session.pick(64, 256)
    model = bf.make_model().eval()
    x = torch.randn(batch, 128)
    y = torch.randint(0, 10, (batch,))
    for threads in session.pick((1,), (1, 2)):
        group = f"MLP inference, batch {batch}, {threads} thread(s), {native}"
        for label, bf16 in (("fp32", False), ("bf16 autocast", True)):
            session.time(group, label, lambda: bf.predict(model, x, bf16), num_threads=threads,
                         baseline=not bf16, items=batch, params={"isa": hw})
        group = f"MLP training step, batch {batch}, {threads} thread(s), {native}"
        for label, bf16 in (("fp32", False), ("bf16 autocast", True)):
            net = bf.make_model().train()
            opt = torch.optim.AdamW(net.parameters(), lr=3e-4)
            session.time(group, label, lambda: bf.train_step(net, opt, x, y, bf16), num_threads=threads,
                         baseline=not bf16, items=batch, params={"isa": hw})
