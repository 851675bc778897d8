"""Claims of plan.md and plan.zh.md."""
from __future__ import annotations

from tests.claims import NO_AMX_XEON, claim
from tests.claims.avoid_computation import saves_memory, skipping_work_pays

BF16_GROUPS = ("mlp-inference-1-thread", "mlp-training-step-1-thread", "mlp-inference-all-cores",
               "mlp-training-step-all-cores")


@claim("plan.zh.md", "因为在没有 AMX 的 Xeon 上，bf16 在每一组里都比 float32 慢")
@claim("plan.md", "on the Xeon without AMX bf16 was slower than float32 in every group")
def _(m):
    return all(m.outcome(k, f"bfloat16/{g}/bf16-autocast") == "lost" for k in m.kinds(NO_AMX_XEON) for g in BF16_GROUPS) \
        and all(m.verdict(k, ["bfloat16/*/bf16-autocast"]) == "lost" for k in m.kinds(NO_AMX_XEON))


@claim("plan.zh.md", "在 `torch.inference_mode()` 下运行推理，这样可以省下 autograd 本要保留的内存")
@claim("plan.md", "run inference under `torch.inference_mode()`, which frees the memory autograd would keep")
def _(m):
    # a statement about memory, which inverted medians keep (0 × 10 is 0): paired with the page's
    # skipping-work claims, which have a direction
    return saves_memory(m) and skipping_work_pays(m)
