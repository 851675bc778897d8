"""Claims of vectorise.md and vectorise.zh.md (and sentences of other pages that repeat its figures)."""
from __future__ import annotations

from bench.noise import outcome
from tests.claims import NO_AMX_XEON, ZEN4, claim


# vectorise.md
VEC = "vectorise"
PEAK = f"{VEC}/torch-mm-vs-theoretical-fp32-peak-{{}}/torch-mm-achieved"


@claim("vectorise.zh.md", "在每台参考机器上，`torch.mm` 无论单线程还是全部核心，都超过估算峰值的一半")
@claim("vectorise.md", "On every reference machine `torch.mm` reaches more than half of the estimated peak, on one "
                       "thread and on all cores")
def _(m):
    return all(m.span(k, PEAK.format(w))[0] > 0.5 and m.ratio(k, PEAK.format(w)) <= 1.0
               for k in m.kinds() for w in ("1-thread", "all-cores"))


@claim("vectorise.zh.md", "在每台参考机器上，全部核心（两个）下 `torch.mm` 的 GFLOP/s 都约为单线程的两倍")
@claim("vectorise.zh.md", "但在每台机器上，这个比值的区间都落到两倍的")
@claim("vectorise.zh.md", "与两倍的差别在噪声之内")
@claim("vectorise.md", "On all cores (two) `torch.mm` does about twice the GFLOP/s of one thread on every reference "
                       "machine")
@claim("vectorise.md", "but on every machine the interval of that ratio comes within")
@claim("vectorise.md", "twice: within noise of it, by the rule of")
def _(m):
    def against_twice(k):  # the interval of all cores over one thread, as a multiple of twice
        low, high = m.span(k, PEAK.format("all-cores"), PEAK.format("1-thread"))
        return outcome((low / 2, high / 2))
    return all(against_twice(k) == "even" and m.between(k, PEAK.format("all-cores"), PEAK.format("1-thread")) > 1.6
               for k in m.kinds()) and {ZEN4, NO_AMX_XEON} <= set(m.kinds())


@claim("vectorise.zh.md", "`torch.mm` 都比逐元素循环快数千倍，广播比逐对循环快数百倍，`bmm` 比逐批次循环快数倍")
@claim("vectorise.md", "`torch.mm` is thousands of times faster than the element loop, broadcasting hundreds of times "
                       "faster than the loop over pairs, and `bmm` several times faster than the loop over the batch")
def _(m):
    bmm = f"{VEC}/scores-q-k-t-of-32x64-blocks-1-thread/torch-bmm"
    return all(m.span(k, f"{VEC}/matmul-1-thread/torch-mm")[0] > 1500
               and m.span(k, f"{VEC}/squared-distances-to-8-centres-1-thread/broadcasting")[0] > 150
               and m.span(k, bmm)[0] > 2.5 and m.span(k, bmm)[1] < 15 for k in m.kinds())


@claim("vectorise.zh.md", "下表按参考机器列出向量化写法在日常代码的各个循环组中相对于循环的结果")
@claim("vectorise.md", "Per reference machine, the vectorised version against its loop in the groups of everyday code")
def _(m):
    return all(m.verdict(k, [f"{VEC}/squared-distances-*/broadcasting", f"{VEC}/scores-*/torch-bmm",
                             f"{VEC}/count-and-sum-*/mask-sum-one-conversion"]) == "paid"
               for k in m.kinds())


@claim("vectorise.zh.md", "在每台参考机器上，它都比直接调用 `bmm` 慢（对比表中这两行）")
@claim("vectorise.md", "It was slower than the direct `bmm` on every reference machine (compare the two rows in the table)")
def _(m):
    scores = f"{VEC}/scores-q-k-t-of-32x64-blocks-1-thread"
    return all(m.outcome(k, f"{scores}/torch-einsum", f"{scores}/torch-bmm") == "lost" for k in m.kinds())


# "The limit" and the note under the results table: the Zen 5's bf16 torch.mm rows (the kind's
# elsewhere rows) beat the bf16 peak doubled from its inferred fp32 peak
MM_BF16 = f"{VEC}/torch-mm-bf16-vs-fp32-{{}}/{{}}"


@claim("vectorise.zh.md", "同类的一台 Zen 5 则做到了它推断出的 fp32 峰值的两倍以上")
@claim("vectorise.md", "a Zen 5 of its kind did more than twice its inferred fp32 peak")
@claim("vectorise.zh.md", "下表中 Zen 5 的 bf16 各行超出了每核心一个单元所能做到的，所以在那里一个单元是数少了")
@claim("vectorise.md", "The Zen 5's bf16 rows in the table below do more than one unit per core can, so one is too few there")
def _(m):
    # share_of_peak is against the bf16 peak, twice the inferred fp32 one; fp32 stays below its own,
    # so bf16 is more than twice fp32
    return (m.param(ZEN4, MM_BF16.format("1-thread", "fp32"), "share_of_peak") < 1
            and all(m.param(ZEN4, MM_BF16.format(t, "bf16"), "share_of_peak") > 1 for t in ("1-thread", "all-cores"))
            and m.figure("vectorise", "zen5_mm_bf16_1t") > 2 and m.figure("vectorise", "zen5_mm_bf16_all") > 2)
