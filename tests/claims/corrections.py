"""Claims of corrections.md and corrections.zh.md: the sentences that repeat figures of other pages."""
from __future__ import annotations

from tests.claims import claim
from tests.claims.avoid_computation import no_grad_costs_little_time, saves_memory, skipping_work_pays


def _threads(m, k, group, label):
    return m.ratio(k, f"threads/{group}/{label}")


@claim("corrections.zh.md", "而 `torch.set_num_threads(4)` 会被照办，但在每台参考机器上都不比 2 个线程快，MLP 前向计算还明显更慢")
@claim("corrections.md", "`torch.set_num_threads(4)` is obeyed and, on every reference machine, is no faster than 2 "
                         "threads, and clearly slower on the MLP forward")
def _(m):
    no_faster = all(_threads(m, k, g, "2-x-all-cores") < 1.07 * _threads(m, k, g, "all-cores") for k in m.kinds()
                    for g in ("square-matmul", "mlp-forward"))
    return no_faster and all(_threads(m, k, "mlp-forward", "2-x-all-cores") < 0.9 * _threads(m, k, "mlp-forward", "all-cores")
                             for k in m.kinds())


@claim("corrections.zh.md", "冻结参数、不重复计算可以保留的结果，以及推理时使用 `torch.inference_mode`（它不为反向传播保留任何东西："
                            "在该页的小模型上，它省下了激活值占用的内存，而前向时间变化很小，快慢方向不定）")
@claim("corrections.md", "frozen parameters, not recomputing what can be kept, and `torch.inference_mode` for inference "
                         "(which keeps nothing for backward: on that page's small model it saves the activations' memory, "
                         "while the forward time moves by little, in either direction)")
def _(m):
    return saves_memory(m) and no_grad_costs_little_time(m) and skipping_work_pays(m)
