"""Claims of corrections.md and corrections.zh.md: the sentences that repeat figures of other pages."""
from __future__ import annotations

from tests.claims import claim
from tests.claims.avoid_computation import inference_mode_even, saves_memory, skipping_work_pays


def _threads(m, k, group, label, other):
    """Four threads against the thread count of the cores, by the rule: paid, lost or even."""
    return m.outcome(k, f"threads/{group}/{label}", f"threads/{group}/{other}")


@claim("corrections.zh.md", "而 `torch.set_num_threads(4)` 会被照办，但在每台参考机器上都不比 2 个线程快，MLP 前向计算还明显更慢")
@claim("corrections.md", "`torch.set_num_threads(4)` is obeyed and, on every reference machine, is no faster than 2 "
                         "threads, and clearly slower on the MLP forward")
def _(m):
    no_faster = all(_threads(m, k, g, "2-x-all-cores", "all-cores") != "paid" for k in m.kinds()
                    for g in ("square-matmul", "mlp-forward"))
    return no_faster and all(_threads(m, k, "mlp-forward", "2-x-all-cores", "all-cores") == "lost" for k in m.kinds())


@claim("corrections.zh.md", "冻结参数、不重复计算可以保留的结果，以及推理时使用 `torch.inference_mode`（它不为反向传播保留任何东西："
                            "在该页的小模型上，它省下了激活值占用的内存，而前向时间在每台参考机器上都与 autograd 下的前向计算持平，在噪声之内）")
@claim("corrections.md", "frozen parameters, not recomputing what can be kept, and `torch.inference_mode` for inference "
                         "(which keeps nothing for backward: on that page's small model it saves the activations' memory, "
                         "while the forward time stays within noise of the autograd forward on every reference machine)")
def _(m):
    return saves_memory(m) and inference_mode_even(m) and skipping_work_pays(m)
