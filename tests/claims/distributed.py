"""Claims of distributed.md and distributed.zh.md (and sentences of other pages that repeat its figures)."""
from __future__ import annotations

from tests.claims import claim
from tests.claims.thread_budgets import BUDGET_SPLIT, _budget


# distributed.md
DDP_SPLIT = "distributed/mlp-training-global-batch-128-samples-s/ddp-2-processes-x-1-thread"
DDP_OVER = "distributed/mlp-training-global-batch-128-samples-s/ddp-2-processes-x-2-threads-oversubscribed"


@claim("distributed.zh.md", "在本站各页面数据所来自的每台 2 个核心的机器上，它都比一个使用两个核心的进程更慢")
@claim("distributed.md", "on every 2-core machine behind these pages it is slower than one process using both cores")
@claim("distributed.zh.md", "在每台参考机器上，代价都高于收益")
@claim("distributed.md", "On every reference machine the price is higher than the gain")
def _(m):
    return all(m.outcome(k, DDP_SPLIT) == "lost" and m.ratio(k, DDP_SPLIT) < 0.8 for k in m.kinds())


@claim("distributed.zh.md", "在每台 2 个核心的参考机器上，DDP 都不划算：2 个进程 × 1 个线程的训练速度为一个使用两个线程的进程的")
@claim("distributed.md", "On every 2-core reference machine DDP does not pay: 2 processes × 1 thread train at")
def _(m):
    # lost beyond noise on every kind, both layouts; the figures themselves are ratio_span macros
    return all(m.outcome(k, r) == "lost" for k in m.kinds() for r in (DDP_SPLIT, DDP_OVER)) \
        and all(m.ratio(k, DDP_OVER) < m.ratio(k, DDP_SPLIT) for k in m.kinds())


@claim("distributed.zh.md", "在每台参考机器上，批大小为 256 的 MLP 前向传播用 2 个线程都能用足第二个核心的大部分算力")
@claim("distributed.md", "a batch-256 MLP forward pass gets most of a second core out of 2 threads on every reference machine")
def _(m):
    return all(m.outcome(k, "threads/mlp-forward/all-cores") == "paid" and m.ratio(k, "threads/mlp-forward/all-cores") > 1.5
               for k in m.kinds())


@claim("distributed.zh.md", "两个单线程进程运行小批次 MLP 前向传播至少和一个双线程进程一样快，而上面的 DDP 训练只有那个速度的")
@claim("distributed.md", "two one-thread processes run small MLP forward batches at least as fast as one two-thread "
                         "process, where DDP training above runs at")
def _(m):
    split = _budget("mlp-forward-batches", BUDGET_SPLIT)
    return (all(m.outcome(k, split) != "lost" for k in m.having(split))
            and all(m.outcome(k, DDP_SPLIT) == "lost" for k in m.kinds())
            and all(m.ratio(k, split) > 1.3 * m.ratio(k, DDP_SPLIT) for k in m.having(split)))


@claim("distributed.zh.md", "“2 x 2”那一行最慢")
@claim("distributed.md", "the \"2 x 2\" row is the slowest")
def _(m):
    return all(m.outcome(k, DDP_OVER, DDP_SPLIT) == "lost" for k in m.kinds())
