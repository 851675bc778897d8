"""Claims of vectorise.md and vectorise.zh.md (and sentences of other pages that repeat its figures)."""
from __future__ import annotations

from tests.claims import NO_AMX_XEON, ZEN4, claim


# vectorise.md
VEC = "vectorise"
PEAK = f"{VEC}/torch-mm-vs-theoretical-fp32-peak-{{}}/torch-mm-achieved"


@claim("vectorise.zh.md", "在每台参考机器上，`torch.mm` 无论单线程还是全部核心，都超过估算峰值的一半")
@claim("vectorise.md", "On every reference machine `torch.mm` reaches more than half of the estimated peak, on one "
                       "thread and on all cores")
def _(m):
    return all(0.55 < m.ratio(k, PEAK.format(w)) <= 1.0 for k in m.kinds() for w in ("1-thread", "all-cores"))


@claim("vectorise.zh.md", "全部核心（两个）下 `torch.mm` 的 GFLOP/s 接近单线程的两倍：单线程达到的峰值比例比全部核心小时，超过两倍")
@claim("vectorise.zh.md", "比例更大时，不到两倍（没有 AMX 的 Xeon 上单线程达到峰值的")
@claim("vectorise.md", "On all cores (two) `torch.mm` does close to twice the GFLOP/s of one thread: more than twice "
                       "where one thread reaches a smaller fraction of the peak than all cores do (on the Zen 4,")
@claim("vectorise.md", "less where it reaches a larger one (on the Xeon without AMX,")
def _(m):
    def scaling(k):
        return m.between(k, PEAK.format("all-cores"), PEAK.format("1-thread"))

    def smaller_fraction(k):  # one thread reaches less of its peak than all cores do
        return m.ratio(k, PEAK.format("1-thread")) < m.ratio(k, PEAK.format("all-cores"))
    close = all(1.6 < scaling(k) < 2.4 and (scaling(k) > 2) == smaller_fraction(k) for k in m.kinds())
    return close and scaling(ZEN4) > 2 and smaller_fraction(ZEN4) and scaling(NO_AMX_XEON) < 2


@claim("vectorise.zh.md", "`torch.mm` 都比逐元素循环快数千倍，广播比逐对循环快数百倍，`bmm` 比逐批次循环快数倍")
@claim("vectorise.md", "`torch.mm` is thousands of times faster than the element loop, broadcasting hundreds of times "
                       "faster than the loop over pairs, and `bmm` several times faster than the loop over the batch")
def _(m):
    return all(m.ratio(k, f"{VEC}/matmul-1-thread/torch-mm") > 1500
               and m.ratio(k, f"{VEC}/squared-distances-to-8-centres-1-thread/broadcasting") > 150
               and 2.5 < m.ratio(k, f"{VEC}/scores-q-k-t-of-32x64-blocks-1-thread/torch-bmm") < 15 for k in m.kinds())


@claim("vectorise.zh.md", "下表按参考机器列出向量化写法在日常代码的各个循环组中相对于循环的结果")
@claim("vectorise.md", "Per reference machine, the vectorised version against its loop in the groups of everyday code")
def _(m):
    return all(m.verdict(k, [f"{VEC}/squared-distances-*/broadcasting", f"{VEC}/scores-*/torch-bmm",
                             f"{VEC}/count-and-sum-*/mask-sum-one-conversion"]) == "paid"
               for k in m.kinds())


@claim("vectorise.zh.md", "所以可能比直接调用 `bmm` 慢（对比表中这两行）")
@claim("vectorise.md", "so it can be slower than the direct `bmm` (compare the two rows in the table)")
def _(m):
    return all(m.ratio(k, f"{VEC}/scores-q-k-t-of-32x64-blocks-1-thread/torch-einsum")
               < m.ratio(k, f"{VEC}/scores-q-k-t-of-32x64-blocks-1-thread/torch-bmm") for k in m.kinds())
