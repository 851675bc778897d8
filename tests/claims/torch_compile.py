"""Claims of torch-compile.md and torch-compile.zh.md (and sentences of other pages that repeat its figures)."""
from __future__ import annotations

from tests.claims import claim


# torch-compile.md: a small, CPU-dependent gain; freezing adds a little on this MLP
TC = "torch_compile/steady-state-mlp-all-cores"
TC_1T = "torch_compile/steady-state-mlp-1-thread"
TC_GROUPS = (TC, TC_1T)
TC_FIRST = "torch_compile/first-call-mlp-cold-compile-cache/torch-compile-inductor"
TC_TINY = "torch_compile/tiny-linear-16-4-batch-1-1-thread"


@claim("torch-compile.zh.md", "在每台参考机器上，编译后模型的第一次调用都要好几秒")
@claim("torch-compile.md", "The compiled model's first call took seconds on every reference machine")
def _(m):
    return all(3 < m.median(k, TC_FIRST) < 60 for k in m.having(TC_FIRST))


def _steady(m):
    """(kind, group) pairs that measured the compiled MLP's steady state."""
    return [(k, g) for g in TC_GROUPS for k in m.having(f"{g}/torch-compile-inductor")]


@claim("torch-compile.zh.md", "无论哪种 CPU、哪一组，编译后的 MLP 都没有比 eager 快到五分之一，所以冷编译要经过数万次乃至更多次调用才能回本")
@claim("torch-compile.md", "On no kind and in no group was the compiled MLP as much as a fifth faster than eager, so the "
       "cold compile takes tens of thousands of calls or more to pay back")
def _(m):
    def break_even(k, group):  # compile time / time saved per call, where compiling saved time
        saved = m.median(k, f"{group}/eager") * (1 - 1 / m.ratio(k, f"{group}/torch-compile-inductor"))
        return m.median(k, TC_FIRST) / saved if saved > 0 else float("inf")
    pairs = [(k, g) for k, g in _steady(m) if k in m.having(TC_FIRST)]
    ratios = [m.ratio(k, f"{g}/torch-compile-inductor") for k, g in _steady(m)]
    fewest = min(break_even(k, g) for k, g in pairs)
    # faster somewhere (a gain to pay back), never by a fifth; the quickest payback takes tens of thousands of calls
    return max(ratios) < 1.2 and max(ratios) > 1.07 and 1e4 < fewest < 3e5


@claim("torch-compile.zh.md", "单个矩阵乘法编译后并没有更快，而极小的 Linear 在它运行所用的单个线程下编译后，反而慢了好几倍。")
@claim("torch-compile.md", "The single matmul is no faster compiled, and the tiny Linear, compiled at the one thread "
       "it runs on, is several times slower.")
def _(m):
    # the old AVX2 reference's tiny-Linear row was compiled at 2 threads and timed at 1: withdrawn
    matmul = "torch_compile/one-square-matmul-all-cores/torch-compile-inductor"
    return (all(m.ratio(k, matmul) < 1.05 for k in m.having(matmul))
            and all(m.ratio(k, f"{TC_TINY}/torch-compile-inductor") < 0.5 for k in m.having(f"{TC_TINY}/torch-compile-inductor")))


@claim("torch-compile.zh.md", "在测过它的每种 CPU 上，加冻结后编译的 MLP 都至少与普通编译一样快")
@claim("torch-compile.zh.md", "在冻结之外再加 `cpp_wrapper` 或 `mode=\"max-autotune\"`，则与只加冻结时差不多快")
@claim("torch-compile.md", "With freezing the compiled MLP ran at least as fast as the plain compile on every kind that "
       "measured it")
@claim("torch-compile.md", 'and with `cpp_wrapper` or `mode="max-autotune"` added to freezing about as fast as with '
       "freezing alone")
def _(m):
    def r(k, label):
        return m.ratio(k, f"{TC_1T}/{label}")
    kinds = m.having(f"{TC_1T}/torch-compile-freezing")
    frozen = [r(k, "torch-compile-freezing") / r(k, "torch-compile-inductor") for k in kinds]
    added = [r(k, s) / r(k, "torch-compile-freezing") for k in kinds
             for s in ("torch-compile-freezing-cpp-wrapper", "torch-compile-max-autotune-freezing")]
    # freezing: never slower, clearly faster on the AMX Xeon (whose figure the sentence quotes);
    # the two settings on top of it: within a tenth of freezing alone
    return (min(frozen) > 0.97 and all(r(k, "torch-compile-freezing") / r(k, "torch-compile-inductor") > 1.1
                                       for k in m.kinds("amx"))
            and all(0.9 < a < 1.1 for a in added))


@claim("torch-compile.zh.md", "`cpp_wrapper` 也没有让极小的 Linear 的调用变得更便宜")
@claim("torch-compile.md", "`cpp_wrapper` did not make the tiny Linear's calls cheaper either")
def _(m):
    kinds = m.having(f"{TC_TINY}/torch-compile-cpp-wrapper")
    return all(m.ratio(k, f"{TC_TINY}/torch-compile-cpp-wrapper") / m.ratio(k, f"{TC_TINY}/torch-compile-inductor") < 1.05
               and m.ratio(k, f"{TC_TINY}/torch-compile-cpp-wrapper") < 0.5 for k in kinds)
