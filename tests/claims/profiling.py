"""Claims of profiling.md and profiling.zh.md (and sentences of other pages that repeat its figures)."""
from __future__ import annotations

from tests.claims import AMD_KINDS, INTEL_KINDS, claim


# profiling.md
PROFILED = "profiling/training-steps-under-the-profiler-1-thread"
FIXED = "profiling/the-bottleneck-the-profile-found-1-thread/vectorised-metrics-after"
DENORMAL = "profiling/mlp-with-weights-decayed-into-denormals-1-thread"
FLUSHED = f"{DENORMAL}/denormal-weights-set-flush-denormal-true"
CLEAN = f"{DENORMAL}/weights-not-decayed-no-denormals"


def _slow_path_given_back(m):
    """On the Xeons denormals cost tens of times, and flushing gives it all back (within noise of
    weights with no denormals)."""
    return all(m.outcome(k, FLUSHED) == "paid" and m.span(k, FLUSHED)[0] > 10 and m.outcome(k, FLUSHED, CLEAN) == "even"
               for k in m.kinds(*INTEL_KINDS))


@claim("profiling.zh.md", "在这些小训练步上，性能分析器在每台参考机器上都让训练步变慢，收集形状和调用栈时更慢")
@claim("profiling.md", "On these small steps the profiler makes the steps slower on every reference machine, and shapes "
                       "and stacks slower still")
@claim("profiling.zh.md", "下表按参考机器列出性能分析器的开销（各种设置下的训练步相对于不开性能分析器时）")
@claim("profiling.md", "Per reference machine, the profiler's cost (the step under each profiler setting against no profiler)")
def _(m):
    return all(m.outcome(k, f"{PROFILED}/profile-activities-cpu") == "lost"
               and m.outcome(k, f"{PROFILED}/record-shapes-with-stack", f"{PROFILED}/profile-activities-cpu") == "lost"
               for k in m.kinds())


@claim("profiling.zh.md", "在每台参考机器上，去掉逐样本循环后训练步都快了数倍")
@claim("profiling.md", "on every reference machine the step is several times faster without the per-sample loop")
@claim("profiling.zh.md", "以及性能分析引出的修复")
@claim("profiling.md", "and the fix the profile led to")
def _(m):
    return all(m.outcome(k, FIXED) == "paid" and m.span(k, FIXED)[0] > 2.5 for k in m.kinds())


@claim("profiling.zh.md", "在两台 AMD 机器上，清零与不清零时前向传播的耗时相同，带非规格化权重与权重中没有非规格化数时的耗时也相同"
                          "（都在噪声之内）：这些核心以全速计算非规格化数")
@claim("profiling.md", "On the two AMD machines the forward pass took as long with flushing as without, and as long with "
                       "the denormal weights as with weights that have none (both within noise): those cores compute "
                       "with denormals at full speed")
def _(m):
    # even on the AMD machines, paired with the Xeons' slow path so that inverted references fail
    amd = m.kinds(*AMD_KINDS)
    even = len(amd) == 2 and all(m.outcome(k, FLUSHED) == "even" and m.outcome(k, CLEAN) == "even" for k in amd)
    return even and _slow_path_given_back(m)


@claim("profiling.zh.md", "两台 Intel Xeon 都走慢速路径：与权重中没有非规格化数的同一个模型相比，非规格化权重使前向传播在没有 AMX 的 Xeon 上慢了 "
                          "{{ fig.times_xeon_mlp_with_weights_1t_weights_not_decayed_no_denormals }}，在带 AMX 的 Xeon 上慢了 "
                          "{{ fig.times_amx_mlp_with_weights_1t_weights_not_decayed_no_denormals }}")
@claim("profiling.md", "The Intel Xeons take the slow path: against the same model with no denormal weights, the denormal "
                       "weights made the forward pass {{ fig.times_xeon_mlp_with_weights_1t_weights_not_decayed_no_denormals }} "
                       "slower on the Xeon without AMX and {{ fig.times_amx_mlp_with_weights_1t_weights_not_decayed_no_denormals }} "
                       "slower on the AMX Xeon")
def _(m):
    # the figures are the no-denormal weights over the denormal ones (the group's baseline): tens of times
    shown = [m.figure("profiling", f"times_{k}_mlp_with_weights_1t_weights_not_decayed_no_denormals") for k in ("xeon", "amx")]
    return (all(m.outcome(k, CLEAN) == "paid" and m.span(k, CLEAN)[0] > 10 for k in m.kinds(*INTEL_KINDS))
            and all(figure > 10 for figure in shown))


@claim("profiling.zh.md", "而在这两台上，清零都把这些时间全部找了回来：清零后，前向传播与权重中没有非规格化数的同一个模型相比在噪声之内")
@claim("profiling.md", "and on both flushing gave all of it back: with flushing, the forward pass was within noise of the "
                       "same model with no denormal weights")
def _(m):
    return _slow_path_given_back(m)


@claim("profiling.zh.md", "它走的是 torch 自己的、慢得多的路径，这很可能就是 [bfloat16](bfloat16.md) 在这类 CPU 上反而变慢的原因")
@claim("profiling.md", "it takes torch's own, much slower path, which is probably why [bfloat16](bfloat16.md) is a "
                       "slow-down on such CPUs")
def _(m):
    return all(m.outcome(k, f"bfloat16/{g}/bf16-autocast") == "lost" and m.span(k, f"bfloat16/{g}/bf16-autocast")[1] < 0.5
               for g in ("mlp-inference-1-thread", "mlp-training-step-1-thread", "mlp-inference-all-cores",
                         "mlp-training-step-all-cores")
               for k in m.kinds("avx2"))
