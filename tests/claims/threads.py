"""Claims of threads.md and threads.zh.md (and sentences of other pages that repeat its figures)."""
from __future__ import annotations

from tests.claims import AMD_KINDS, AMX_XEON, INTEL_KINDS, NO_AMX_XEON, ZEN4, claim
from tests.claims.batching import BATCH_P50, BATCH_P95


# threads.md (and the figures corrections.md repeats from it)
def _threads(m, k, group, label):
    return m.ratio(k, f"threads/{group}/{label}")


GROUPS = ("square-matmul", "mlp-forward", "large-elementwise-add")


def _groups(m, k):
    """The thread groups the kind measured (the large add is missing from some references)."""
    return [g for g in GROUPS if f"threads/{g}/all-cores" in m.rows[k]]


def _vs_two(m, k, group, label):
    """The rule's verdict on `label` threads against 2 (all cores) in one group."""
    return m.outcome(k, f"threads/{group}/{label}", f"threads/{group}/all-cores")


@claim("threads.zh.md", "在每台参考机器上，矩阵乘法和 MLP 前向传播用 2 个线程都比 1 个线程快，接近第二个核心所能带来的上限")
@claim("threads.md", "On every reference machine the matmul and the MLP forward run faster on 2 threads than on 1, "
                     "by most of what a second core allows")
def _(m):
    return all(m.outcome(k, f"threads/{g}/all-cores") == "paid" and _threads(m, k, g, "all-cores") > 1.5
               for k in m.kinds() for g in ("square-matmul", "mlp-forward"))


@claim("threads.zh.md", "在每台参考机器、每个场景中，3 个和 4 个线程都不比 2 个线程快（差异不超出运行间的波动）。MLP 前向传播用 4 个线程明显比用 2 个线程慢，已获得的加速丢掉了相当一部分")
@claim("threads.md", "on every reference machine and in every group, 3 and 4 threads are no faster than 2 beyond "
                     "run-to-run noise. The MLP forward at 4 threads is clearly slower than at 2 and gives back a good "
                     "part of its gain")
def _(m):
    no_gain = all(_vs_two(m, k, g, more) != "paid"
                  for k in m.kinds() for g in _groups(m, k) for more in ("all-cores-plus-1", "2-x-all-cores"))
    mlp = [(_threads(m, k, "mlp-forward", "2-x-all-cores"), _threads(m, k, "mlp-forward", "all-cores")) for k in m.kinds()]
    return (no_gain and all(_vs_two(m, k, "mlp-forward", "2-x-all-cores") == "lost" for k in m.kinds())
            and all(four - 1 < 0.75 * (two - 1) for four, two in mlp))


@claim("threads.zh.md", "在两台 Intel Xeon 上，矩阵乘法和 MLP 用 3 个线程就已明显比 2 个线程慢")
@claim("threads.md", "on the Intel Xeons even 3 threads are clearly slower than 2 in the matmul and the MLP")
def _(m):
    return all(_vs_two(m, k, g, "all-cores-plus-1") == "lost"
               for k in m.kinds(*INTEL_KINDS) for g in ("square-matmul", "mlp-forward"))


ADD, MATMUL = "threads/large-elementwise-add/all-cores", "threads/square-matmul/all-cores"


@claim("threads.zh.md", "在 Zen 4 上，它对加法的加速远小于对矩阵乘法的加速")
@claim("threads.md", "On the Zen 4 the second core speeds the add up by much less than it speeds up the matmul")
def _(m):
    # the add's whole interval lies below the matmul's, and well below
    return all(m.span(k, ADD)[1] < m.span(k, MATMUL)[0] and m.ratio(k, ADD) < m.ratio(k, MATMUL) - 0.3
               for k in m.kinds(ZEN4))


@claim("threads.zh.md", "在没有 AMX 的 Xeon 上，加法的加速为 {{ fig.xeon_large_elementwise_add_all_cores }}"
                        "（{{ fig.interval_xeon_large_elementwise_add_all_cores }}），高于矩阵乘法："
                        "这已到了两个核心所能带来加速的上限，而这个上限落在该区间之内")
@claim("threads.md", "On the Xeon without AMX the add gained {{ fig.xeon_large_elementwise_add_all_cores }} "
                     "({{ fig.interval_xeon_large_elementwise_add_all_cores }}), more than the "
                     "matmul: at the bound of what two cores can give, which lies inside that interval")
def _(m):
    # paid, above the matmul's gain beyond both intervals, and 2x (two cores' bound) inside the interval
    low, high = m.figure("threads", "interval_xeon_large_elementwise_add_all_cores")  # what both editions show
    return (all(m.outcome(k, ADD) == "paid" and m.span(k, ADD)[0] > m.span(k, MATMUL)[1]
                for k in m.kinds(NO_AMX_XEON)) and low <= 2 <= high
            and m.figure("threads", "xeon_large_elementwise_add_all_cores") > m.ratio(NO_AMX_XEON, MATMUL))


OVER = [f"thread_budgets/{g}/2-processes-x-2-threads-oversubscribed" for g in ("mlp-forward-batches", "square-matmuls")]
AMX_OVER_MATMUL = "thread_budgets/square-matmuls/2-processes-x-2-threads-oversubscribed"


@claim("threads.zh.md", "在每台测了这一项的参考机器上，这样的两个进程在两种负载下都比一个进程慢，在 Zen 4 上只有后者速度的")
@claim("threads.zh.md", "例外是有 AMX 的 Xeon 上的矩阵乘法，其各轮结果分散得太开，无法判断（{{ fig.interval_amx_square_matmuls_2_processes_x_2_threads_oversubscribed }}：在噪声之内），以及 Zen 4 "
                        "这一类 CPU 上的矩阵乘法，它的 Zen 5 记录各轮结果同样分散，所以两次记录合起来的区间")
@claim("threads.md", "two such processes are slower than one process in both workloads on every reference machine that "
                     "measured them, down to")
@claim("threads.md", "except in the matmuls on the Xeon with AMX, whose rounds spread too widely to tell "
                     "({{ fig.interval_amx_square_matmuls_2_processes_x_2_threads_oversubscribed }}: "
                     "within noise), and in the matmuls on the Zen 4's kind, whose Zen 5 recording spread as widely, so "
                     "over its two recordings the interval")
def _(m):
    """Lost everywhere but the matmuls on the AMX Xeon (even) and on the Zen 4's kind (the Zen 4 lost,
    the Zen 5 even, so even over both)."""
    wide = {(AMX_XEON, AMX_OVER_MATMUL), (ZEN4, AMX_OVER_MATMUL)}
    others = all(m.outcome(k, r) == "lost" for r in OVER for k in m.having(r) if (k, r) not in wide)
    return (others and all(m.outcome(k, r) == "even" and m.ratio(k, r) < 1 for k, r in wide)
            and m.outcomes_each(ZEN4, AMX_OVER_MATMUL) == ["lost", "even"])


CNN_1T, CNN_ALL = (f"batching/cnn-2-conv-1-linear-time-per-batch-{w}/batch-1" for w in ("1-thread", "all-cores"))
MLP_1T, MLP_ALL = (f"batching/mlp-784-512-512-10-time-per-batch-{w}/batch-1" for w in ("1-thread", "all-cores"))


@claim("threads.zh.md", "在 AVX2 EPYC 和 Zen 4 上，批大小为 1 的 CNN 用 1 个线程比用两个核心更快")
@claim("threads.zh.md", "但在 Zen 4 这一类 CPU 的第二次记录、一台 Zen 5 上并非如此，那里第二个核心带来了收益，所以按这一类的两次记录合起来看在噪声之内")
@claim("threads.zh.md", "在 AMD 机器上，批大小为 1 的 MLP 用两个核心的延迟与用 1 个线程持平（在噪声之内）；而在两台 Intel Xeon 上，两个模型都能从第二个核心获益")
@claim("threads.md", "the batch-1 CNN is faster on 1 thread than on both cores on the AVX2 EPYC and the Zen 4")
@claim("threads.md", "but not on the Zen 5 (the second recording of the Zen 4's kind), where the second core paid, so "
                     "over that kind's two recordings it is within noise")
@claim("threads.md", "the batch-1 MLP's latency on both cores is even with 1 thread on the AMD machines (within noise), "
                     "while on the Intel Xeons both models gain from the second core")
def _(m):
    amd, intel = m.kinds(*AMD_KINDS), m.kinds(*INTEL_KINDS)
    # 1 thread faster on the AVX2 EPYC; on the Zen 4's kind faster on the Zen 4 (its first recording),
    # slower on the Zen 5 (its second), even over both
    amd_cnn = (all(m.outcome(k, CNN_1T, CNN_ALL) == "paid" for k in m.kinds("amd-avx2"))
               and m.recorded_twice(ZEN4) and m.outcomes_each(ZEN4, CNN_1T, CNN_ALL) == ["paid", "lost"]
               and m.outcome(ZEN4, CNN_1T, CNN_ALL) == "even")
    amd_mlp = all(m.outcome(k, r) == "even" for k in amd for r in (BATCH_P50, BATCH_P95)) \
        and all(m.outcome(k, MLP_ALL, MLP_1T) == "even" for k in amd)
    intel_both = all(m.outcome(k, CNN_ALL, CNN_1T) == "paid" and m.outcome(k, MLP_ALL, MLP_1T) == "paid"
                     and all(m.outcome(k, r) == "paid" for r in (BATCH_P50, BATCH_P95)) for k in intel)
    return amd_cnn and amd_mlp and intel_both


@claim("threads.zh.md", "两个各用一个线程的忙碌进程，在两种负载下、在每台参考机器上都胜过两个每核心一个线程的进程，只有有 AMX 的 Xeon "
                        "和 Zen 4 这一类 CPU 上的矩阵乘法例外：这一类 CPU 的 Zen 5 记录与 Zen 4 的不同，在噪声之内")
@claim("threads.zh.md", "两者都在噪声之内。")
@claim("threads.md", "two busy processes with one thread each beat two with a thread per core in both workloads on every "
                     "reference machine, except in the matmuls on the Xeon with AMX and on the Zen 4's kind, whose Zen 5 "
                     "recording, unlike the Zen 4's, was within noise")
@claim("threads.md", "over its two recordings): within noise on both.")
def _(m):
    def split_vs_over(k, g):
        return m.outcome(k, f"thread_budgets/{g}/2-processes-x-1-thread", f"thread_budgets/{g}/2-processes-x-2-threads-oversubscribed")
    rows = [(k, g) for g in ("mlp-forward-batches", "square-matmuls") for k in m.having(f"thread_budgets/{g}/2-processes-x-1-thread")]
    wide = {(AMX_XEON, "square-matmuls"), (ZEN4, "square-matmuls")}
    return (len(rows) == 8 and all(split_vs_over(k, g) == ("even" if (k, g) in wide else "paid") for k, g in rows)
            and m.outcomes_each(ZEN4, "thread_budgets/square-matmuls/2-processes-x-1-thread",
                                "thread_budgets/square-matmuls/2-processes-x-2-threads-oversubscribed") == ["paid", "even"])
