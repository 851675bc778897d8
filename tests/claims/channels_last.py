"""Claims of channels-last.md and channels-last.zh.md."""
from __future__ import annotations

from tests.claims import NO_AMX_XEON, claim


def _cl(m, k, group, label="channels-last"):
    return m.ratio(k, f"channels_last/resnet18-{group}/{label}")


CL_MODEL_ONLY = "channels-last-model-nchw-input"


@claim("channels-last.zh.md", "在每一类 CPU 上，用全部核心处理小图像时，channels_last 都比 NCHW 快。")
@claim("channels-last.md", "On every CPU kind channels_last was faster than NCHW on small images on all cores.")
def _(m):
    return all(_cl(m, k, "small-images-all-cores") > 1.05 for k in m.kinds())


@claim("channels-last.zh.md", "在三台 AVX-512 CPU 上，channels_last 处理极小图像时都更慢，或在一种线程数下，或在两种线程数下。")
@claim("channels-last.md", "On each of the three AVX-512 CPUs it was slower on tiny images at one thread count or at both.")
@claim("channels-last.zh.md", "在三台 AVX-512 CPU 上，channels_last 处理 32×32 图像时都比 NCHW 慢，或在一种线程数下，或在两种线程数下")
@claim("channels-last.md", "On each of the three AVX-512 CPUs channels_last was slower than NCHW on 32×32 images at one "
                           "thread count or at both")
def _(m):
    kinds = m.kinds("avx512-bf16", "amx")
    return len(kinds) == 3 and all(
        min(_cl(m, k, "tiny-images-1-thread"), _cl(m, k, "tiny-images-all-cores")) < 0.97 for k in kinds)


@claim("channels-last.zh.md", "在没有 AMX 的 Xeon 上，1 个线程处理小图像时，连输入一起转换比 NCHW 慢，只转换模型却更快")
@claim("channels-last.md", "on the Xeon without AMX, at one thread on small images, converting the input as well was "
                           "slower than NCHW while converting the model alone was faster")
def _(m):
    return all(_cl(m, k, "small-images-1-thread") < 0.97 and _cl(m, k, "small-images-1-thread", CL_MODEL_ONLY) > 1.08
               for k in m.kinds(NO_AMX_XEON))
