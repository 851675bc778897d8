"""Claims of profiling.md and profiling.zh.md (and sentences of other pages that repeat its figures)."""
from __future__ import annotations

from tests.claims import INTEL_KINDS, ZEN4, claim


# profiling.md
PROFILED = "profiling/training-steps-under-the-profiler-1-thread"
FIXED = "profiling/the-bottleneck-the-profile-found-1-thread/vectorised-metrics-after"
DENORMAL = "profiling/mlp-with-weights-decayed-into-denormals-1-thread"


@claim("profiling.zh.md", "在这些小训练步上，性能分析器在每台参考机器上都让训练步变慢，收集形状和调用栈时更慢")
@claim("profiling.md", "On these small steps the profiler makes the steps slower on every reference machine, and shapes "
                       "and stacks slower still")
@claim("profiling.zh.md", "下表按参考机器列出性能分析器的开销（各种设置下的训练步相对于不开性能分析器时）")
@claim("profiling.md", "Per reference machine, the profiler's cost (the step under each profiler setting against no profiler)")
def _(m):
    return all(m.ratio(k, f"{PROFILED}/profile-activities-cpu") < 1 / 1.3
               and m.ratio(k, f"{PROFILED}/record-shapes-with-stack") < 0.8 * m.ratio(k, f"{PROFILED}/profile-activities-cpu")
               for k in m.kinds())


@claim("profiling.zh.md", "在每台参考机器上，去掉逐样本循环后训练步都快了数倍")
@claim("profiling.md", "on every reference machine the step is several times faster without the per-sample loop")
@claim("profiling.zh.md", "以及性能分析引出的修复")
@claim("profiling.md", "and the fix the profile led to")
def _(m):
    return all(m.ratio(k, FIXED) > 2.5 for k in m.kinds())


@claim("profiling.zh.md", "在上面记录的那次运行中，清零与不清零时前向传播的耗时大致相同：这颗 Zen 4 核心以全速计算非规格化数")
@claim("profiling.md", "the forward pass takes about as long with flushing as without: this Zen 4 core computes with "
                       "denormals at full speed")
def _(m):
    # about even on the Zen 4, paired with the Xeons' slow path so that inverted references fail
    even = all(m.verdict(k, [f"{DENORMAL}/denormal-weights-set-flush-denormal-true"]) == "even" for k in m.kinds(ZEN4))
    return even and all(m.ratio(k, f"{DENORMAL}/denormal-weights-set-flush-denormal-true") > 10
                        for k in m.kinds(*INTEL_KINDS))


@claim("profiling.zh.md", "两台 Intel Xeon 都走慢速路径：非规格化权重使前向传播在没有 AMX 的 Xeon 上慢了")
@claim("profiling.zh.md", "而在这两台上，清零都把这些时间全部找了回来")
@claim("profiling.md", "The Intel Xeons take the slow path: the denormal weights made the forward pass")
@claim("profiling.md", "and on both flushing gave all of it back")
def _(m):
    return all(m.ratio(k, f"{DENORMAL}/denormal-weights-set-flush-denormal-true") > 10
               and 0.9 < m.between(k, f"{DENORMAL}/denormal-weights-set-flush-denormal-true",
                                   f"{DENORMAL}/weights-not-decayed-no-denormals") < 1.15 for k in m.kinds(*INTEL_KINDS))


@claim("profiling.zh.md", "它走的是 torch 自己的、慢得多的路径，这正是 [bfloat16](bfloat16.md) 在这类 CPU 上反而变慢的原因")
@claim("profiling.md", "it takes torch's own, much slower path, which is why [bfloat16](bfloat16.md) is a slow-down on "
                       "such CPUs")
def _(m):
    return all(m.verdict(k, ["bfloat16/*/bf16-autocast"]) == "lost"
               and all(m.ratio(k, f"bfloat16/{g}/bf16-autocast") < 0.5 for g in
                       ("mlp-inference-1-thread", "mlp-training-step-1-thread", "mlp-inference-all-cores",
                        "mlp-training-step-all-cores"))
               for k in m.kinds("avx2"))
