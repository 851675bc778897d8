"""Claims of benchmark.md and benchmark.zh.md (more of its sentences, shared with Home, are in
tests/claims/index.py)."""
from __future__ import annotations

from tests.claims import ZEN4, claim

MM_BF16 = "vectorise/torch-mm-bf16-vs-fp32-{}/{}"


# "The reference machines": the inferred peak is a lower bound the Zen 5's bf16 rows exceed
@claim("benchmark.zh.md", "它的 FP32 峰值被推断为每核心一个 512 位 FMA 单元，因为单线程 FP32 `torch.mm` 没有超过一个单元所能解释的速率；"
                          "然而它的 bf16 `torch.mm` 在一个核心上达到 {{ fig.zen5_mm_bf16_1t_gflops }}&nbsp;GFLOP/s，"
                          "是由该 FP32 峰值翻倍得到的 bf16 峰值的 {{ fig.zen5_mm_bf16_1t_share }} 倍，在全部核心上是 "
                          "{{ fig.zen5_mm_bf16_all_share }} 倍：超出了每核心一个 512 位单元所能提供的")
@claim("benchmark.md", "its fp32 peak was inferred as one 512-bit FMA unit per core, because one thread of fp32 "
                       "`torch.mm` stayed below what one unit accounts for, yet its bf16 `torch.mm` reached "
                       "{{ fig.zen5_mm_bf16_1t_gflops }}&nbsp;GFLOP/s on one core, {{ fig.zen5_mm_bf16_1t_share }} "
                       "times the bf16 peak doubled from that fp32 peak, and {{ fig.zen5_mm_bf16_all_share }} times "
                       "it on all cores: more than one 512-bit unit per core delivers")
def _(m):
    # bf16 above its doubled peak while fp32 stays below its own: bf16 more than twice fp32
    return (m.param(ZEN4, MM_BF16.format("1-thread", "fp32"), "share_of_peak") < 1
            and m.figure("benchmark", "zen5_mm_bf16_1t_share") > 1
            and m.figure("benchmark", "zen5_mm_bf16_all_share") > 1
            and all(m.ratio(ZEN4, MM_BF16.format(t, "bf16")) > 2 for t in ("1-thread", "all-cores")))
