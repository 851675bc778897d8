"""Claims of channels-last.md and channels-last.zh.md."""
from __future__ import annotations

from tests.claims import AVX2_EPYC, NO_AMX_XEON, ZEN4, claim


CL = "channels_last/resnet18-{group}/{label}"
CL_FULL = "channels-last"
CL_MODEL_ONLY = "channels-last-model-nchw-input"
GROUPS = ("small-images-1-thread", "tiny-images-1-thread", "small-images-all-cores", "tiny-images-all-cores")


def _id(group, label=CL_FULL):
    return CL.format(group=group, label=label)


def _outcome(m, k, group, label=CL_FULL, other=None):
    """paid, lost or even (the rule) for a row against NCHW, or against another row of its group."""
    return m.outcome(k, _id(group, label), _id(group, other) if other else None)


@claim("channels-last.zh.md", "在每一类 CPU 上，用全部核心处理小图像时，channels_last 都比 NCHW 快。")
@claim("channels-last.md", "On every CPU kind channels_last was faster than NCHW on small images on all cores.")
def _(m):
    return all(_outcome(m, k, "small-images-all-cores") == "paid" for k in m.kinds())


@claim("channels-last.zh.md", "处理极小图像（32×32）时，它只在 AVX2 EPYC 上更快；在三类 AVX-512 CPU 上，两种线程数下都与 NCHW 在噪声之内")
@claim("channels-last.zh.md", "用全部核心时，Zen 4 相对 NCHW 的比值是 {{ fig.zen_resnet18_tiny_images_ac_channels_last }}，"
                              "但同一类 CPU 的两次 Zen 5 记录都在噪声之内，"
                              "三次记录合起来的区间")
@claim("channels-last.md", "On tiny (32×32) images it paid only on the AVX2 EPYC; on the three AVX-512 kinds it was within "
                           "noise of NCHW at both thread counts")
@claim("channels-last.md", "On all cores the Zen 4's ratio to NCHW was {{ fig.zen_resnet18_tiny_images_ac_channels_last }}, "
                           "but both Zen 5 recordings of the "
                           "same kind were within noise, and over the three recordings the interval")
@claim("channels-last.zh.md", "在三类 AVX-512 CPU 上，channels_last 处理 32×32 图像时都没有更快：每一组都与 NCHW 在噪声之内")
@claim("channels-last.md", "On none of the three AVX-512 kinds did channels_last pay on 32×32 images: it was within noise "
                           "of NCHW in every group")
def _(m):
    tiny = ("tiny-images-1-thread", "tiny-images-all-cores")
    avx512 = m.kinds("avx512-bf16", "amx")
    zen4_alone = all(m.ratio(k, _id("tiny-images-all-cores")) < 0.95 for k in m.kinds(ZEN4)) and all(
        m.outcomes_each(k, _id("tiny-images-all-cores"))[1:] == ["even", "even"] for k in m.kinds(ZEN4))
    return (len(avx512) == 3 and zen4_alone
            and all(_outcome(m, k, g) == "paid" for k in m.kinds(AVX2_EPYC) for g in tiny)
            and all(_outcome(m, k, g) == "even" for k in avx512 for g in tiny))


@claim("channels-last.zh.md", "在每一类 CPU 的每一组里，两者都在噪声之内，只有一处例外。在没有 AMX 的 Xeon 上，1 个线程处理小图像时，"
                              "只转换模型比连输入一起转换更快")
@claim("channels-last.zh.md", "也比 NCHW 更快")
@claim("channels-last.zh.md", "而连输入一起转换与 NCHW 持平，在噪声之内")
@claim("channels-last.zh.md", "那一组里，完整转换这一行的四分位距最宽")
@claim("channels-last.md", "they are within noise of each other in every group on every CPU kind but one. On the Xeon "
                           "without AMX, at one thread on small images, converting the model alone came out faster than "
                           "converting the input as well")
@claim("channels-last.md", "and than NCHW")
@claim("channels-last.md", "while converting both was within noise of NCHW")
@claim("channels-last.md", "the full conversion's row there has the widest interquartile range of its group")
def _(m):
    odd = (NO_AMX_XEON, "small-images-1-thread")
    rest_even = all(_outcome(m, k, g, CL_FULL, CL_MODEL_ONLY) == "even"
                    for k in m.kinds() for g in GROUPS if (k, g) != odd)
    k, g = odd
    rows = [m.row(k, _id(g, label)) for label in (CL_FULL, CL_MODEL_ONLY, "nchw-default")]
    widest = all(rows[0]["spread"] / rows[0]["median"] > r["spread"] / r["median"] for r in rows[1:])
    return (rest_even and widest and _outcome(m, k, g, CL_MODEL_ONLY, CL_FULL) == "paid"
            and _outcome(m, k, g, CL_MODEL_ONLY) == "paid" and _outcome(m, k, g) == "even")
