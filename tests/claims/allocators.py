"""Claims of allocators.md and allocators.zh.md."""
from __future__ import annotations

from tests.claims import claim

# The training rows came after the first AVX2 run: m.having() lists the references that measured them.
ALLOC_INFER = "allocators/50-small-inference-calls-of-varying-shapes-1-thread-fresh-process-per-run/"
ALLOC_RSS = "allocators/resident-memory-kept-after-the-workload-rss-growth/"
ALLOC_TRAIN = "allocators/mnist-cnn-training-step-1-thread-fresh-process-per-run/"
ALTERNATIVES = ("jemalloc", "tcmalloc")


@claim("allocators.zh.md", "在每台参考机器上，jemalloc 和 tcmalloc 都至少与 glibc 一样快，最大的收益是")
@claim("allocators.md", "on every reference machine jemalloc and tcmalloc were at least as fast as glibc, and the largest "
                        "gain was")
@claim("allocators.zh.md", "对于小型推理调用，换内存分配器从没让耗时变长，收益最多")
@claim("allocators.md", "for small inference calls the allocator never cost time and gained at most")
def _(m):
    gains = {(k, a): m.ratio(k, ALLOC_INFER + a) for k in m.kinds() for a in ALTERNATIVES}
    # never slower, and the figure quoted (jemalloc on the AMX Xeon) is the largest gain
    return all(g > 0.97 for g in gains.values()) and all(
        max(gains.values()) == gains[(k, "jemalloc")] > 1.1 for k in m.kinds("amx"))


@claim("allocators.zh.md", "在每台参考机器上，两者保留的常驻内存都比 glibc 少，jemalloc 最少")
@claim("allocators.md", "both kept less resident memory than glibc on every reference machine, jemalloc the least")
def _(m):
    return all(m.ratio(k, ALLOC_RSS + "tcmalloc") > 1.05 and m.ratio(k, ALLOC_RSS + "jemalloc") > m.ratio(k, ALLOC_RSS + "tcmalloc")
               for k in m.kinds())


@claim("allocators.zh.md", "使用默认设置时，它让这个训练循环比 glibc 更慢，PyTorch 自带启动器所用的设置（`python -m torch.backends.xeon.run_cpu --en"
                           "able-jemalloc`）也没有改变这一点；关闭 decay 才改变了它")
@claim("allocators.md", "With its defaults it made this training loop slower than glibc, and the setting PyTorch's own "
                        "launcher uses (`python -m torch.backends.xeon.run_cpu --enable-jemalloc`) did not change that; "
                        "turning off the decay did")
@claim("allocators.zh.md", "默认设置下的 jemalloc 明显比 glibc 慢，`run_cpu` 的 `MALLOC_CONF` 也没有改变这一点")
@claim("allocators.md", "jemalloc with its defaults is clearly slower than glibc, and `run_cpu`'s `MALLOC_CONF` leaves it so")
def _(m):
    return all(m.ratio(k, ALLOC_TRAIN + "jemalloc") < 0.93 and m.ratio(k, ALLOC_TRAIN + "jemalloc-run-cpu-s-malloc-conf") < 0.93
               and m.ratio(k, ALLOC_TRAIN + "jemalloc-no-decay-malloc-conf") > 1.05
               for k in m.having(ALLOC_TRAIN + "jemalloc"))


@claim("allocators.zh.md", "tcmalloc 以及关闭了 decay 的 jemalloc 都比 glibc 快，并且明显快于默认设置下的 jemalloc。")
@claim("allocators.md", "tcmalloc, and jemalloc with its decay off, are faster than glibc and clearly faster than "
                        "jemalloc's defaults.")
@claim("allocators.zh.md", "对于训练，或者任何反复释放并分配大张量的循环，tcmalloc 开箱即有帮助；jemalloc 只有在关闭 decay 时才有帮助，不关闭则有害。")
@claim("allocators.md", "For training, or any loop that frees and allocates large tensors over and over, tcmalloc helps as "
                        "it is; jemalloc helps only with its decay turned off, and hurts without.")
def _(m):
    return all(m.ratio(k, ALLOC_TRAIN + a) > 1.08 and m.between(k, ALLOC_TRAIN + a, ALLOC_TRAIN + "jemalloc") > 1.2
               and m.ratio(k, ALLOC_TRAIN + "jemalloc") < 0.93
               for a in ("tcmalloc", "jemalloc-no-decay-malloc-conf") for k in m.having(ALLOC_TRAIN + "jemalloc"))
