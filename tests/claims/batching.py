"""Claims of batching.md and batching.zh.md."""
from __future__ import annotations

from bench.noise import outcome
from tests.claims import AMD_KINDS, INTEL_KINDS, ZEN4, claim


def _batch(model: str, what: str, where: str, size: int) -> str:
    """model "mlp" or "cnn", what "time-per-batch" or "samples-s", where "all-cores" or "1-thread"."""
    group = {"mlp": "mlp-784-512-512-10", "cnn": "cnn-2-conv-1-linear"}[model]
    return f"batching/{group}-{what}-{where}/batch-{size}"


# The batch-1 latency groups compare all cores (these rows) against one thread (each group's baseline).
BATCH_P50 = "batching/mlp-batch-1-p50-latency-per-request/all-cores"
BATCH_P95 = "batching/mlp-batch-1-p95-latency-per-request/all-cores"


def _threads_gains(m, k, model, size):
    """How many times faster all cores run one batch than one thread (medians), in each recording of
    the kind (on the kind of the Zen 4: the Zen 4's, then the Zen 5's); inverted like a ratio."""
    a, o = _batch(model, "time-per-batch", "all-cores", size), _batch(model, "time-per-batch", "1-thread", size)
    values = [rows[o]["median"] / rows[a]["median"] for rows in m.recordings[k] if a in rows and o in rows]
    assert values, f"no recording of {k} has {a} and {o}"
    return [1 / v for v in values] if m.inverted else values


def _threads_gain(m, k, model, size):
    """How many times faster all cores run one batch than one thread: the most in any recording."""
    return max(_threads_gains(m, k, model, size))


def _threads_outcome(m, k, model, size):
    """The rule's verdict on all cores against one thread for one batch (time per batch)."""
    return m.outcome(k, _batch(model, "time-per-batch", "all-cores", size), _batch(model, "time-per-batch", "1-thread", size))


# The kind of the Zen 4 merges a second recording, on a Zen 5 (2026-12-07): the pages quote the
# first recording's figures (the Zen 4's), and a verdict over the kind spans both (m.span,
# m.outcome). Where a sentence tells the two machines apart, it reads each recording on its own.
def _gains(m, k, model, where, size):
    """Batch `size` over batch 1 in samples per second, in each recording: [(low, high), ...]."""
    return m.spans_each(k, _batch(model, "samples-s", where, size), _batch(model, "samples-s", where, 1))


CNN_1T_1, CNN_ALL_1 = (_batch("cnn", "time-per-batch", where, 1) for where in ("1-thread", "all-cores"))


@claim("batching.zh.md", "在下表中，CNN 的收益在批大小达到几十之后趋于平稳，MLP 的收益到 64 时仍在上升")
@claim("batching.md", "in the table below the CNN's gain levels off after a few tens, the MLP's is still rising at 64")
def _(m):
    def step(k, model):
        return m.outcome(k, _batch(model, "samples-s", "all-cores", 64), _batch(model, "samples-s", "all-cores", 32))
    return all(step(k, "mlp") == "paid" and step(k, "cnn") == "even"
               and m.between(k, _batch("cnn", "samples-s", "all-cores", 64), _batch("cnn", "samples-s", "all-cores", 32)) < 1.1
               for k in m.kinds())


@claim("batching.zh.md", "在每台参考机器上，从批大小 8 起，全部核心都胜过单线程")
@claim("batching.md", "On every reference machine all cores beat one thread from batch 8 on")
@claim("batching.zh.md", "从批大小 8 起，全部核心都胜过单线程，但不到两倍：两个核心做不到更多。")
@claim("batching.md", "From batch 8 on, all cores beat one thread, by less than twice: two cores cannot do more.")
def _(m):
    return all(_threads_outcome(m, k, model, size) == "paid" and _threads_gain(m, k, model, size) < 2.0
               for k in m.kinds() for model in ("mlp", "cnn") for size in (8, 64))


def _batch_1_mlp(m):
    """All cores against one thread for single MLP requests: even on the AMD machines, paid on the
    Intel Xeons (p50 and p95 cut to about half)."""
    amd = all(m.outcome(k, r) == "even" for k in m.kinds(*AMD_KINDS) for r in (BATCH_P50, BATCH_P95))
    intel = all(m.outcome(k, r) == "paid" and 1.6 < m.ratio(k, r) < 2.4
                for k in m.kinds(*INTEL_KINDS) for r in (BATCH_P50, BATCH_P95))
    return amd and intel


@claim("batching.zh.md", "对批大小为 1 的 MLP，它在 AMD 机器上没有带来超出噪声的差别，在 Intel Xeon 上则缩短了延迟")
@claim("batching.md", "for the batch-1 MLP it made no difference beyond noise on the AMD machines and cut the\n"
                      "  latency on the Intel Xeons")
@claim("batching.zh.md", "批大小为 1 时则取决于 CPU：用全部核心后，批大小为 1 的 MLP 的延迟在 Intel Xeon 上缩短了，在 AMD 机器上则没有超出噪声的差别。")
@claim("batching.md", "At batch 1 it depends on the CPU: all cores cut the batch-1 MLP's latency on the Intel Xeons and "
                      "made no difference beyond noise on the AMD machines.")
@claim("batching.zh.md", "基准测试依次计时了单个请求：在两台 Intel Xeon 上，全部核心把批大小为 1 的 MLP 的 p50 和 p95 延迟缩短到单线程时的一半左右")
@claim("batching.md", "The benchmark timed single requests in sequence: on the Intel Xeons all cores cut the batch-1 MLP's "
                      "p50 and p95 latency to about half of one thread's")
@claim("batching.zh.md", "在 AMD 机器上则没有超出噪声的差别。所以在 Xeon 上，每个请求一个线程会让每个请求变慢")
@claim("batching.md", "and on the AMD machines they made no difference beyond noise. So on a Xeon one thread per request "
                      "makes each request slower")
@claim("batching.zh.md", "在 AMD 机器上，全部核心对批大小为 1 的 MLP 没有超出噪声的影响；在两台 Intel Xeon 上，它们同时缩短了 p50 和 p95。")
@claim("batching.md", "On the AMD machines all cores made no difference to the batch-1 MLP beyond noise; on the Intel "
                      "Xeons they cut both p50 and p95.")
@claim("batching.zh.md", "这在 Intel Xeon 上让每个请求都变慢了，因为在那里全部核心缩短了批大小为 1 的延迟；在 AMD 机器上则没有超出噪声的代价")
@claim("batching.md", "made each request slower on the Intel Xeons, where all cores cut the batch-1 latency, and cost "
                      "nothing beyond noise on the AMD machines")
def _(m):
    return _batch_1_mlp(m)


@claim("batching.zh.md", "全部核心让批大小为 1 的 CNN 在 AVX2 EPYC 和 Zen 4 上变慢了，在 Zen 5（Zen 4 这一类 CPU 的第二次记录）上却变快了，"
                         "所以按这一类的两次记录合起来看，批大小为 1 的 CNN 在噪声之内")
@claim("batching.md", "They made the batch-1 CNN slower on the AVX2 EPYC and the Zen 4, but faster on the Zen 5 (the second "
                      "recording of the Zen 4's kind), so over that kind's two recordings the batch-1 CNN is within noise")
@claim("batching.zh.md", "在 AVX2 EPYC 和 Zen 4 上，全部核心的耗时比单线程更长")
@claim("batching.zh.md", "但在同一类 CPU 的 Zen 5（它的第二次记录）上，全部核心耗时更短，所以按这一类的两次记录合起来看在噪声之内")
@claim("batching.zh.md", "在两台 Intel Xeon 上，全部核心耗时更短")
@claim("batching.md", "is longer on all cores than on one thread on the AVX2 EPYC and the Zen 4")
@claim("batching.md", "but shorter on all cores on the Zen 5 (the second recording of that kind), so over that kind's two "
                      "recordings it is within noise")
@claim("batching.md", "and shorter on all cores on the Intel Xeons")
def _(m):
    avx2 = all(m.outcome(k, CNN_ALL_1, CNN_1T_1) == "lost" for k in m.kinds("amd-avx2"))
    # lost on the Zen 4, paid on the Zen 5: over the kind's two recordings, even
    zen = (m.recorded_twice(ZEN4) and m.outcomes_each(ZEN4, CNN_ALL_1, CNN_1T_1) == ["lost", "paid"]
           and m.outcome(ZEN4, CNN_ALL_1, CNN_1T_1) == "even")
    intel = all(m.outcome(k, CNN_ALL_1, CNN_1T_1) == "paid" for k in m.kinds(*INTEL_KINDS))
    return avx2 and zen and intel


@claim("batching.zh.md", "批大小为 1 的这个耗时正是全部核心组中 CNN 各行的基线，Zen 5 上全部核心时 CNN 从批处理得到的收益只有 Zen 4 的一半左右，原因就在这里")
@claim("batching.zh.md", "在批大小 64 时，两者的第二个核心都带来了收益，而用单线程时，两者的批处理都没有超出噪声的收益。")
@claim("batching.md", "That batch-1 time is the baseline of the all-cores CNN rows, and it is why the Zen 5's all-cores CNN "
                      "gains from batching are about half the Zen 4's")
@claim("batching.md", "at batch 64 the second core paid on both, and on one thread batching gained nothing beyond noise on either.")
def _(m):
    # the all-cores gain (batch 64 over batch 1) is the one-thread gain times the second core's gain at
    # batch 64 over its gain at batch 1: the first two alike on both machines, the last lost on the
    # Zen 4 and paid on the Zen 5
    def ratios(k, row):
        values = [rows[row]["ratio"] for rows in m.recordings[k] if row in rows]
        return [1 / v for v in values] if m.inverted else values

    if not m.recorded_twice(ZEN4):
        return False
    zen4, zen5 = ratios(ZEN4, _batch("cnn", "samples-s", "all-cores", 64))
    at_64 = _threads_gains(m, ZEN4, "cnn", 64)
    return (0.35 < zen5 / zen4 < 0.6
            and m.outcomes_each(ZEN4, CNN_ALL_1, CNN_1T_1) == ["lost", "paid"]
            and m.outcomes_each(ZEN4, _batch("cnn", "time-per-batch", "all-cores", 64),
                              _batch("cnn", "time-per-batch", "1-thread", 64)) == ["paid", "paid"]
            and 0.8 < at_64[0] / at_64[1] < 1.25
            and [outcome(span) for span in _gains(m, ZEN4, "cnn", "1-thread", 64)] == ["even", "even"])


@claim("batching.zh.md", "对 MLP 来说，批处理带来的收益远大于线程；对 CNN 来说则取决于线程数（在 Zen 4 和 Zen 5 上用单线程时，批大小 64 都与批大小 1 持平，在噪声之内）")
@claim("batching.md", "for the MLP, batching buys far more than threads; for the CNN it depends on the threads (on one "
                      "thread on the Zen 4 and on the Zen 5, batch 64 was even with batch 1, within noise)")
def _(m):
    # MLP, per kind: batch 64's gain over batch 1 (either group) at least twice the most all cores
    # gained over one thread at any batch size, both ends of the intervals
    def threads_high(k):
        return max(m.span(k, _batch("mlp", "time-per-batch", "all-cores", size), _batch("mlp", "time-per-batch", "1-thread", size))[1]
                   for size in (1, 8, 64))
    mlp = all(m.outcome(k, _batch("mlp", "samples-s", where, 64)) == "paid"
              and m.span(k, _batch("mlp", "samples-s", where, 64))[0] > 2 * threads_high(k)
              for k in m.kinds() for where in ("1-thread", "all-cores"))
    # CNN: the one-thread gain lies below the all-cores gain on every kind, in each recording
    cnn = all(one[1] < every[0] for k in m.kinds()
              for one, every in zip(_gains(m, k, "cnn", "1-thread", 64), _gains(m, k, "cnn", "all-cores", 64)))
    # on one thread even on the Zen 4 and on the Zen 5
    zen = m.recorded_twice(ZEN4) and [outcome(span) for span in _gains(m, ZEN4, "cnn", "1-thread", 64)] == ["even", "even"]
    return mlp and cnn and zen


@claim("batching.zh.md", "在每一类 CPU 上，用全部核心时，批大小 64 都让 MLP 每秒处理的样本数翻了好几倍；CNN 即使在其最佳批大小下，提升也小一些。")
@claim("batching.md", "On all cores batch 64 multiplied the MLP's samples per second several times over on every kind, "
                      "and the CNN's by less at its best batch size.")
def _(m):
    def gain(k, model, size):
        return m.span(k, _batch(model, "samples-s", "all-cores", size))
    return all(m.outcome(k, _batch("mlp", "samples-s", "all-cores", 64)) == "paid" and gain(k, "mlp", 64)[0] > 4
               and all(gain(k, "cnn", size)[1] < gain(k, "mlp", 64)[0] for size in (2, 4, 8, 16, 32, 64))
               for k in m.kinds())


@claim("batching.zh.md", "单线程时，AMD 机器上的收益较小，每次记录都是如此（AVX2 EPYC、Zen 4 和 Zen 5）；在 Intel Xeon 上，MLP 单线程时的收益至少与全部核心时一样大，因为在那里单线程的批大小 1 正是慢的那一种情况")
@claim("batching.md", "On one thread the gains are smaller on the AMD machines, in each recording (the AVX2 EPYC, the Zen 4 "
                      "and the Zen 5); on the Intel Xeons the MLP gains at least as much on one thread as on all cores, "
                      "because there its one-thread batch 1 is the slow case")
def _(m):
    # AMD: in each recording (the Zen 4's and the Zen 5's apart: two machines), the one-thread gain's
    # interval lies wholly below the all-cores one's, for both models
    amd = m.recorded_twice(ZEN4) and all(
        one[1] < every[0] for k in m.kinds(*AMD_KINDS) for model in ("mlp", "cnn")
        for one, every in zip(_gains(m, k, model, "1-thread", 64), _gains(m, k, model, "all-cores", 64)))
    # Intel: the one-thread gain is no smaller (its median at least the all-cores one's), and the
    # reason holds: all cores cut the one-thread batch-1 time
    intel = all(m.ratio(k, _batch("mlp", "samples-s", "1-thread", 64)) >= m.ratio(k, _batch("mlp", "samples-s", "all-cores", 64))
                and _threads_outcome(m, k, "mlp", 1) == "paid" for k in m.kinds(*INTEL_KINDS))
    return amd and intel


# Cites thread-budgets' rows (moved here from tests/claims/thread_budgets.py: the sentence is on this page).
# An earlier AVX2 run of these rows was withdrawn, so m.having() lists the references that measured them.
BUDGET_MLP = "thread_budgets/mlp-forward-batches/"


@claim("batching.zh.md", "最接近的测量是[线程预算](thread-budgets.md#how-much-it-buys)，它显示两个单线程进程运行批大小为 64 的 MLP 前向传播比一个双线程进程快")
@claim("batching.md", "[Thread budgets](thread-budgets.md#how-much-it-buys), shows two one-thread processes running "
                      "batch-64 MLP forward passes faster than one two-thread process")
@claim("batching.zh.md", "两个这样的进程运行批大小为 64 的 MLP 前向传播比一个双线程进程快（这是吞吐量：它们在批大小为 1 时的延迟没有测量过），"
                         "并且远远领先于两个保持 torch 默认设置（每个核心一个线程）的进程")
@claim("batching.md", "two such processes run batch-64 MLP forward passes faster than one two-thread process (throughput: "
                      "their batch-1 latency was not measured), and well ahead of two processes left at torch's default of "
                      "one thread per core")
def _(m):
    split, over = BUDGET_MLP + "2-processes-x-1-thread", BUDGET_MLP + "2-processes-x-2-threads-oversubscribed"
    return all(m.row(k, split)["params"]["size"] == 64 and m.outcome(k, split) == "paid" and m.ratio(k, split) < 2
               and m.outcome(k, split, over) == "paid" and m.between(k, split, over) > 1.4 for k in m.having(split))
