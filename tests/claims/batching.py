"""Claims of batching.md and batching.zh.md."""
from __future__ import annotations

from tests.claims import AMD_KINDS, INTEL_KINDS, claim


def _batch(model: str, what: str, where: str, size: int) -> str:
    """model "mlp" or "cnn", what "time-per-batch" or "samples-s", where "all-cores" or "1-thread"."""
    group = {"mlp": "mlp-784-512-512-10", "cnn": "cnn-2-conv-1-linear"}[model]
    return f"batching/{group}-{what}-{where}/batch-{size}"


# The batch-1 latency groups compare all cores (these rows) against one thread (each group's baseline).
BATCH_P50 = "batching/mlp-batch-1-p50-latency-per-request/all-cores"
BATCH_P95 = "batching/mlp-batch-1-p95-latency-per-request/all-cores"


def _threads_gain(m, k, model, size):
    """How many times faster all cores run one batch than one thread."""
    return m.between(k, _batch(model, "time-per-batch", "all-cores", size),
                     _batch(model, "time-per-batch", "1-thread", size))


def _best(m, k, model, where, sizes):
    return max(m.ratio(k, _batch(model, "samples-s", where, size)) for size in sizes)


@claim("batching.zh.md", "在下表中，CNN 的收益在批大小达到几十之后趋于平稳，MLP 的收益到 64 时仍在上升")
@claim("batching.md", "in the table below the CNN's gain levels off after a few tens, the MLP's is still rising at 64")
def _(m):
    return all(m.between(k, _batch("mlp", "samples-s", "all-cores", 64), _batch("mlp", "samples-s", "all-cores", 32)) > 1.1
               and m.between(k, _batch("cnn", "samples-s", "all-cores", 64), _batch("cnn", "samples-s", "all-cores", 32)) < 1.1
               for k in m.kinds())


@claim("batching.zh.md", "在每台参考机器上，从批大小 8 起，全部核心都胜过单线程")
@claim("batching.md", "On every reference machine all cores beat one thread from batch 8 on")
@claim("batching.zh.md", "从批大小 8 起，全部核心都胜过单线程，但不到两倍：两个核心做不到更多。")
@claim("batching.md", "From batch 8 on, all cores beat one thread, by less than twice: two cores cannot do more.")
def _(m):
    return all(1.05 < _threads_gain(m, k, model, size) < 2.0
               for k in m.kinds() for model in ("mlp", "cnn") for size in (8, 64))


@claim("batching.zh.md", "批大小为 1 时则取决于 CPU：用全部核心后，批大小为 1 的 MLP 的延迟在 Intel Xeon 上缩短得比在 AMD 机器上多得多")
@claim("batching.md", "At batch 1 it depends on the CPU: all cores cut the batch-1 MLP's latency much more on the "
                      "Intel Xeons than on the AMD machines")
@claim("batching.zh.md", "批大小为 1 时，全部核心在 AMD 机器上带来的收益比在 Intel Xeon 上小，甚至没有收益。")
@claim("batching.md", "On the AMD machines all cores gained less at batch 1 than on the Intel Xeons, or nothing.")
@claim("batching.zh.md", "这在 Intel Xeon 上代价更大，因为在那里全部核心对批大小为 1 的延迟缩短得更多；在 AMD 机器上代价较小")
@claim("batching.md", "that costs more on the Intel Xeons, where all cores cut the batch-1 latency more, than on the "
                      "AMD machines")
def _(m):
    amd = [m.ratio(k, r) for k in m.kinds(*AMD_KINDS) for r in (BATCH_P50, BATCH_P95)]
    intel = [m.ratio(k, r) for k in m.kinds(*INTEL_KINDS) for r in (BATCH_P50, BATCH_P95)]
    return min(intel) > 1.3 and max(amd) < 0.85 * min(intel)


@claim("batching.zh.md", "在 AMD 机器上，全部核心的耗时并不比单线程短；在两台 Intel Xeon 上，全部核心耗时更短")
@claim("batching.md", "is no shorter on all cores than on one thread on the AMD machines, and shorter on all cores on the "
                      "Intel Xeons")
def _(m):
    return (all(_threads_gain(m, k, "cnn", 1) < 1.02 for k in m.kinds(*AMD_KINDS))
            and all(_threads_gain(m, k, "cnn", 1) > 1.05 for k in m.kinds(*INTEL_KINDS)))


@claim("batching.zh.md", "批处理带来的收益远大于线程。")
@claim("batching.md", "batching buys far more than threads.")
@claim("batching.zh.md", "在每一类 CPU 上，用全部核心时，批大小 64 都让 MLP 每秒处理的样本数翻了好几倍；CNN 即使在其最佳批大小下，提升也小一些。")
@claim("batching.md", "On all cores batch 64 multiplied the MLP's samples per second several times over on every kind, "
                      "and the CNN's by less at its best batch size.")
def _(m):
    threads = max(_threads_gain(m, k, model, size) for k in m.kinds() for model in ("mlp", "cnn") for size in (1, 8, 64))
    return all(m.ratio(k, _batch("mlp", "samples-s", "all-cores", 64)) > 4
               and _best(m, k, "cnn", "all-cores", (2, 4, 8, 16, 32, 64)) < m.ratio(k, _batch("mlp", "samples-s", "all-cores", 64))
               and m.ratio(k, _batch("mlp", "samples-s", "all-cores", 64)) > 3 * threads
               for k in m.kinds())


@claim("batching.zh.md", "单线程时，AMD 机器上的收益较小；在 Intel Xeon 上，MLP 单线程时的收益反而更大，因为在那里批大小为 1 正是慢的那一种情况。")
@claim("batching.md", "On one thread the gains are smaller on the AMD machines; on the Intel Xeons the MLP gains more on "
                      "one thread, because there its batch 1 is the slow case.")
def _(m):
    return all(_best(m, k, "mlp", "1-thread", (8, 64)) < _best(m, k, "mlp", "all-cores", (8, 64))
               and _best(m, k, "cnn", "1-thread", (8, 64)) < _best(m, k, "cnn", "all-cores", (8, 64))
               for k in m.kinds(*AMD_KINDS)) and all(
        _best(m, k, "mlp", "1-thread", (8, 64)) > _best(m, k, "mlp", "all-cores", (8, 64)) for k in m.kinds(*INTEL_KINDS))


# Cites thread-budgets' rows (moved here from tests/claims/thread_budgets.py: the sentence is on this page).
# An earlier AVX2 run of these rows was withdrawn, so m.having() lists the references that measured them.
BUDGET_MLP = "thread_budgets/mlp-forward-batches/"


@claim("batching.zh.md", "两个这样的进程运行小 MLP 批次的速度至少与一个双线程进程一样快，并且远远领先于两个保持 torch 默认设置（每个核心一个线程）的进程")
@claim("batching.md", "two such processes run small MLP batches at least as fast as one two-thread process, and well "
                      "ahead of two processes left at torch's default of one thread per core")
def _(m):
    split, over = BUDGET_MLP + "2-processes-x-1-thread", BUDGET_MLP + "2-processes-x-2-threads-oversubscribed"
    return all(0.95 < m.ratio(k, split) < 2 and m.between(k, split, over) > 1.4 for k in m.having(split))
