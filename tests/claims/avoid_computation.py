"""Claims of avoid-computation.md and avoid-computation.zh.md (and sentences of other pages that repeat its figures)."""
from __future__ import annotations

from tests.claims import claim


# avoid-computation.md
FORWARD = "avoid_computation/forward-3-layer-mlp-1-thread"
MEMORY = "avoid_computation/activation-memory-kept-for-backward-by-one-forward"
FROZEN = "avoid_computation/forward-backward-3-layer-backbone-linear-head-1-thread/backbone-frozen-requires-grad-false"
CACHED = "avoid_computation/train-the-head-for-a-few-epochs-frozen-backbone-1-thread/features-cached-once-incl-caching"
HOISTED = "avoid_computation/positional-table-causal-mask-1-thread/built-once-as-buffers"


def no_grad_costs_little_time(m, within=1.2):
    """no_grad and inference_mode within a fifth of the autograd forward (a statement about
    equality, which inverted ratios keep: the claims that use it pair it with one that has a direction)."""
    return all(1 / within < m.ratio(k, f"{FORWARD}/{label}") < within for k in m.kinds()
               for label in ("torch-no-grad", "torch-inference-mode"))


def inference_mode_no_faster(m):
    """inference_mode not faster than no_grad by more than a few per cent (10%) on any kind."""
    return all(m.between(k, f"{FORWARD}/torch-inference-mode", f"{FORWARD}/torch-no-grad") < 1.1 for k in m.kinds())


def saves_memory(m):
    """The memory group: no_grad and inference_mode keep nothing, autograd keeps activations."""
    kinds = m.having(f"{MEMORY}/autograd-default")
    return all(m.median(k, f"{MEMORY}/autograd-default") > 0 and m.median(k, f"{MEMORY}/torch-no-grad") == 0
               and m.median(k, f"{MEMORY}/torch-inference-mode") == 0 for k in kinds)


def skipping_work_pays(m):
    """Freezing (about twice or more), caching (faster, caching included), constants built once (several times)."""
    return all(m.ratio(k, FROZEN) > 1.8 and m.ratio(k, CACHED) > 1.25 and m.ratio(k, HOISTED) > 2.5 for k in m.kinds())


@claim("avoid-computation.zh.md", "其中 `no_grad` 和 `inference_mode` 两行为 0，因此没有比值")
@claim("avoid-computation.md", "its `no_grad` and `inference_mode` rows are 0, so they have no ratio")
@claim("avoid-computation.zh.md", "在这里关闭 autograd 省下的是第二组里的内存。本页的时间节省来自跳过计算本身")
@claim("avoid-computation.md", "what switching autograd off saves here is the memory in the second group. The time "
                               "savings on this page come from skipping work instead")
@claim("avoid-computation.zh.md", "这时 `no_grad` 省下的更多是内存而不是时间，本页测量的 MLP 的前向时间一组就说明了这一点")
@claim("avoid-computation.md", "`no_grad` then saves memory more than time, as the forward-time group shows for the MLP "
                               "measured here")
def _(m):
    return saves_memory(m) and no_grad_costs_little_time(m) and skipping_work_pays(m)


@claim("avoid-computation.zh.md", "但在 MLP 上，它在任何一台参考机器上都没有比 `no_grad` 明显更快")
@claim("avoid-computation.md", "on an MLP it is not measurably faster than `no_grad` on any reference machine")
@claim("avoid-computation.zh.md", "在前向时间一组中，`inference_mode` 在任何一台参考机器上都没有比 `no_grad` 快出几个百分点以上")
@claim("avoid-computation.md", "in the forward-time group `inference_mode` is not faster than `no_grad` by more than a "
                               "few per cent on any reference machine")
def _(m):
    return inference_mode_no_faster(m)


@claim("avoid-computation.zh.md", "在每台参考机器上，`no_grad` 和 `inference_mode` 对前向时间的改变都不到五分之一，快慢方向不定；"
                                  "而每种跳过计算的做法都更快：冻结主干网络让它的前向+反向快到约两倍或更多，"
                                  "缓存冻结后的特征即使算上缓存本身的耗时，也让三轮 (epoch) 训练更快，只构建一次常量则让该例快数倍")
@claim("avoid-computation.md", "On every reference machine `no_grad` and `inference_mode` change the forward time by less "
                               "than a fifth, in whichever direction, while each way of skipping work is faster: freezing "
                               "the backbone makes its forward+backward about twice as fast or more, caching the frozen "
                               "features speeds up the three epochs even with the caching included, and building the "
                               "constants once makes that case several times faster")
def _(m):
    return no_grad_costs_little_time(m) and skipping_work_pays(m)


@claim("avoid-computation.zh.md", "以及训练中三种跳过计算的做法（冻结主干网络、缓存特征、只构建一次常量）在所有测过它们的组里的结果")
@claim("avoid-computation.md", "and of the three ways of skipping work in training (frozen backbone, cached features, "
                               "constants built once), over every group that measured them")
def _(m):
    return all(m.verdict(k, ["avoid_computation/forward-backward-*/backbone-frozen-*",
                             "avoid_computation/train-the-head-*/features-cached-*",
                             "avoid_computation/positional-*/built-once-as-buffers"]) == "paid" for k in m.kinds())
