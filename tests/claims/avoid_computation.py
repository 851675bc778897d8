"""Claims of avoid-computation.md and avoid-computation.zh.md (and sentences of other pages that repeat its figures)."""
from __future__ import annotations

from tests.claims import AMX_XEON, NO_AMX_XEON, claim


# avoid-computation.md
FORWARD = "avoid_computation/forward-3-layer-mlp-1-thread"
NO_GRAD = f"{FORWARD}/torch-no-grad"
INFERENCE_MODE = f"{FORWARD}/torch-inference-mode"
MEMORY = "avoid_computation/activation-memory-kept-for-backward-by-one-forward"
FROZEN = "avoid_computation/forward-backward-3-layer-backbone-linear-head-1-thread/backbone-frozen-requires-grad-false"
CACHED = "avoid_computation/train-the-head-for-a-few-epochs-frozen-backbone-1-thread/features-cached-once-incl-caching"
HOISTED = "avoid_computation/positional-table-causal-mask-1-thread/built-once-as-buffers"


def inference_mode_even(m):
    """inference_mode within noise of the autograd forward on every kind (a statement about equality,
    which inverted ratios keep: the claims that use it pair it with one that has a direction)."""
    return all(m.outcome(k, INFERENCE_MODE) == "even" for k in m.kinds())


def no_grad_even_but_on_the_amx_xeon(m):
    """no_grad within noise of the autograd forward on every kind but the AMX Xeon, where it paid."""
    return all(m.outcome(k, NO_GRAD) == ("paid" if k == AMX_XEON else "even") for k in m.kinds()) \
        and AMX_XEON in m.kinds()


def inference_mode_no_faster(m):
    """inference_mode never faster than no_grad beyond noise; slower on the Xeon without AMX."""
    return all(m.outcome(k, INFERENCE_MODE, NO_GRAD) != "paid" for k in m.kinds()) \
        and all(m.outcome(k, INFERENCE_MODE, NO_GRAD) == "lost" for k in m.kinds(NO_AMX_XEON))


def saves_memory(m):
    """The memory group: no_grad and inference_mode keep nothing, autograd keeps activations."""
    kinds = m.having(f"{MEMORY}/autograd-default")
    return all(m.median(k, f"{MEMORY}/autograd-default") > 0 and m.median(k, f"{MEMORY}/torch-no-grad") == 0
               and m.median(k, f"{MEMORY}/torch-inference-mode") == 0 for k in kinds)


def skipping_work_pays(m):
    """Paid by the rule on every kind: freezing (about twice or more), caching (faster, caching
    included), constants built once (several times)."""
    return all(m.outcome(k, row) == "paid" for k in m.kinds() for row in (FROZEN, CACHED, HOISTED)) and all(
        m.span(k, FROZEN)[0] > 1.7 and m.span(k, HOISTED)[0] > 2.5 for k in m.kinds())


@claim("avoid-computation.zh.md", "其中 `no_grad` 和 `inference_mode` 两行为 0，因此没有比值")
@claim("avoid-computation.md", "its `no_grad` and `inference_mode` rows are 0, so they have no ratio")
@claim("avoid-computation.zh.md", "在这里关闭 autograd 省下的是第二组里的内存。本页的时间节省来自跳过计算本身")
@claim("avoid-computation.md", "what switching autograd off saves here is the memory in the second group. The time "
                               "savings on this page come from skipping work instead")
@claim("avoid-computation.zh.md", "这时 `no_grad` 省下的更多是内存而不是时间，本页测量的 MLP 的前向时间一组就说明了这一点")
@claim("avoid-computation.md", "`no_grad` then saves memory more than time, as the forward-time group shows for the MLP "
                               "measured here")
def _(m):
    return saves_memory(m) and inference_mode_even(m) and no_grad_even_but_on_the_amx_xeon(m) and skipping_work_pays(m)


@claim("avoid-computation.zh.md", "但在 MLP 上，它在任何一台参考机器上都没有比 `no_grad` 明显更快")
@claim("avoid-computation.md", "on an MLP it is not measurably faster than `no_grad` on any reference machine")
@claim("avoid-computation.zh.md", "在前向时间一组中，`inference_mode` 在任何一台参考机器上都没有比 `no_grad` 快到超出噪声"
                                  "（在没有 AMX 的 Xeon 上它反而更慢")
@claim("avoid-computation.md", "in the forward-time group `inference_mode` was faster than `no_grad` beyond noise on no "
                               "reference machine (on the Xeon without AMX it was slower:")
def _(m):
    return inference_mode_no_faster(m)


@claim("avoid-computation.zh.md", "在每台参考机器上，`inference_mode` 与 autograd 下的前向计算都持平（在噪声之内）；"
                                  "`no_grad` 也是如此，只有在带 AMX 的 Xeon 上快了几个百分点")
@claim("avoid-computation.zh.md", "每种跳过计算的做法在每台参考机器上都更快：冻结主干网络让它的前向+反向快到约两倍或更多，"
                                  "缓存冻结后的特征即使算上缓存本身的耗时，也让三轮 (epoch) 训练更快，"
                                  "只构建一次常量则让那个模块的前向计算快数倍")
@claim("avoid-computation.md", "On every reference machine `inference_mode` was even with the autograd forward (within "
                               "noise), and so was `no_grad` except on the AMX Xeon, where it paid a few per cent")
@claim("avoid-computation.md", "Each way of skipping work paid on every reference machine: freezing the backbone made its "
                               "forward+backward about twice as fast or more, caching the frozen features sped up the "
                               "three epochs even with the caching included, and building the constants once made that "
                               "module's forward several times faster")
def _(m):
    return inference_mode_even(m) and no_grad_even_but_on_the_amx_xeon(m) and skipping_work_pays(m) and all(
        m.span(k, NO_GRAD)[1] < 1.2 for k in m.kinds(AMX_XEON))


@claim("avoid-computation.zh.md", "训练中两种跳过计算的做法（冻结主干网络、缓存特征）的结果，以及只构建一次常量的结果"
                                  "（它计时的是一个只加上位置编码表、构建因果掩码的模块的前向计算，不是训练）")
@claim("avoid-computation.md", "of the two ways of skipping work in training (frozen backbone, cached features), and of "
                               "building constants once, which is timed on the forward of a module that only adds a "
                               "positional table and builds a causal mask (not training)")
def _(m):
    return all(m.verdict(k, ["avoid_computation/forward-backward-*/backbone-frozen-*",
                             "avoid_computation/train-the-head-*/features-cached-*"]) == "paid"
               and m.verdict(k, ["avoid_computation/positional-*/built-once-as-buffers"]) == "paid"
               and m.verdict(k, ["avoid_computation/forward-*/torch-inference-mode"]) == "even" for k in m.kinds())
