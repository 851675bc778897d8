"""Claims of threads.md and threads.zh.md (and sentences of other pages that repeat its figures)."""
from __future__ import annotations

from tests.claims import AMD_KINDS, INTEL_KINDS, NO_AMX_XEON, ZEN4, claim
from tests.claims.batching import BATCH_P50, BATCH_P95


# threads.md (and the figures corrections.md repeats from it)
def _threads(m, k, group, label):
    return m.ratio(k, f"threads/{group}/{label}")


GROUPS = ("square-matmul", "mlp-forward", "large-elementwise-add")


def _groups(m, k):
    """The thread groups the kind measured (the large add is missing from some references)."""
    return [g for g in GROUPS if f"threads/{g}/all-cores" in m.rows[k]]


@claim("threads.zh.md", "在每台参考机器上，矩阵乘法和 MLP 前向传播用 2 个线程都比 1 个线程快，接近第二个核心所能带来的上限")
@claim("threads.md", "On every reference machine the matmul and the MLP forward run faster on 2 threads than on 1, "
                     "by most of what a second core allows")
def _(m):
    return all(_threads(m, k, g, "all-cores") > 1.5 for k in m.kinds() for g in ("square-matmul", "mlp-forward"))


@claim("threads.zh.md", "在每台参考机器、每个场景中，3 个和 4 个线程都不比 2 个线程快（差异不超出运行间的波动）。MLP 前向传播用 4 个线程明显比用 2 个线程慢，已获得的加速丢掉了相当一部分")
@claim("threads.md", "on every reference machine and in every group, 3 and 4 threads are no faster than 2 beyond "
                     "run-to-run noise. The MLP forward at 4 threads is clearly slower than at 2 and gives back a good "
                     "part of its gain")
def _(m):
    no_gain = all(_threads(m, k, g, more) < 1.1 * _threads(m, k, g, "all-cores")
                  for k in m.kinds() for g in _groups(m, k) for more in ("all-cores-plus-1", "2-x-all-cores"))
    mlp = [(_threads(m, k, "mlp-forward", "2-x-all-cores"), _threads(m, k, "mlp-forward", "all-cores")) for k in m.kinds()]
    return no_gain and all(four < 0.9 * two and four - 1 < 0.75 * (two - 1) for four, two in mlp)


@claim("threads.zh.md", "在两台 Intel Xeon 上，矩阵乘法和 MLP 用 3 个线程就已明显比 2 个线程慢")
@claim("threads.md", "on the Intel Xeons even 3 threads are clearly slower than 2 in the matmul and the MLP")
def _(m):
    return all(_threads(m, k, g, "all-cores-plus-1") < 0.85 * _threads(m, k, g, "all-cores")
               for k in m.kinds(*INTEL_KINDS) for g in ("square-matmul", "mlp-forward"))


@claim("threads.zh.md", "在 Zen 4 上，它对加法的加速远小于对矩阵乘法的加速")
@claim("threads.md", "On the Zen 4 the second core speeds the add up by much less than it speeds up the matmul")
def _(m):
    add, matmul = "threads/large-elementwise-add/all-cores", "threads/square-matmul/all-cores"
    return all(m.ratio(k, add) < 1.5 and m.ratio(k, add) < m.ratio(k, matmul) - 0.3 for k in m.kinds(ZEN4))


@claim("threads.zh.md", "在没有 AMX 的 Xeon 上，加法的加速与矩阵乘法差不多，接近两倍")
@claim("threads.md", "On the Xeon without AMX the add gained about as much as the matmul, close to twice")
def _(m):
    add, matmul = "threads/large-elementwise-add/all-cores", "threads/square-matmul/all-cores"
    return all(1.7 < m.ratio(k, add) and abs(m.ratio(k, add) - m.ratio(k, matmul)) < 0.3
               for k in m.kinds(NO_AMX_XEON))


@claim("threads.zh.md", "在每台测了这一项的参考机器上，这样的两个进程在两种负载下都比一个进程慢")
@claim("threads.md", "two such processes are slower than one process on every reference machine that measured them, "
                     "in both workloads")
def _(m):
    rows = [f"thread_budgets/{g}/2-processes-x-2-threads-oversubscribed" for g in ("mlp-forward-batches", "square-matmuls")]
    return all(m.ratio(k, r) < 0.8 for r in rows for k in m.having(r))


@claim("threads.zh.md", "在 Zen 4 上，批大小为 1 的 CNN 用 1 个线程比用两个核心更快；批大小为 1 的 MLP 在两台 AMD 机器上从第二个核心得到的收益，"
                        "也远小于在两台 Intel Xeon 上，后者两个模型都能从第二个核心获益")
@claim("threads.md", "the batch-1 CNN is faster on 1 thread than on both cores on the Zen 4, and the batch-1 MLP gains "
                     "much less from the second core on the AMD machines than on the Intel Xeons, where both gain from it")
def _(m):
    cnn_1t, cnn_all = (f"batching/cnn-2-conv-1-linear-time-per-batch-{w}/batch-1" for w in ("1-thread", "all-cores"))
    zen4_cnn = all(m.between(k, cnn_1t, cnn_all) > 1.1 for k in m.kinds(ZEN4))  # 1 thread faster
    intel_cnn = all(m.between(k, cnn_all, cnn_1t) > 1.1 for k in m.kinds(*INTEL_KINDS))  # both cores faster
    amd_mlp = max(m.ratio(k, r) for k in m.kinds(*AMD_KINDS) for r in (BATCH_P50, BATCH_P95))
    intel_mlp = min(m.ratio(k, r) for k in m.kinds(*INTEL_KINDS) for r in (BATCH_P50, BATCH_P95))
    return zen4_cnn and intel_cnn and intel_mlp > 1.2 and intel_mlp - 1 > 2 * (amd_mlp - 1)
