"""Claims of index.md and index.zh.md (and sentences of other pages that repeat its figures)."""
from __future__ import annotations

from tests.claims import NO_AMX_XEON, claim


# index.md and benchmark.md: the instruction set flips advice
BF16_1T = "bfloat16/mlp-inference-1-thread/bf16-autocast"
INT8_1T = "quantisation/mlp-512-1024-1024-10-inference-1-thread/torchao-int8-dynamic-activations-weights"
CL_TINY_1T = "channels_last/resnet18-tiny-images-1-thread/channels-last"


@claim("benchmark.zh.md", "bfloat16 autocast 在一类机器上变慢、在另一类上变快")
@claim("benchmark.md", "bfloat16 autocast loses on one kind and wins on another")
@claim("index.md", "because some advice flips with the instruction set")
@claim("index.zh.md", "因为有些建议会随指令集而反转")
def _(m):
    bf16 = ["bfloat16/*/bf16-autocast"]
    return (all(m.verdict(k, bf16) == "lost" for k in m.kinds("avx2"))
            and any(m.verdict(k, bf16) == "paid" for k in m.kinds()))


@claim("benchmark.zh.md", "`channels_last` 处理 32×32 图像时在 AVX2 这一类机器上更快、在三类 AVX-512 机器上都在噪声之内")
@claim("benchmark.md", "`channels_last` on 32×32 images paid on the AVX2 kind and was within noise on the three "
                       "AVX-512 kinds")
def _(m):
    tiny = ["channels_last/resnet18-tiny-images-*/channels-last"]
    avx512 = m.kinds("avx512-bf16", "amx")
    return (len(m.kinds("avx2")) == 1 and len(avx512) == 3
            and all(m.verdict(k, tiny) == "paid" for k in m.kinds("avx2"))
            and all(m.verdict(k, tiny) == "even" for k in avx512))



# index.md, "Start here"
@claim("index.zh.md", "在本站测过的每台机器上，线程数多于核心数都没有超出测量波动的收益")
@claim("index.md", "more threads than cores buys nothing beyond run-to-run noise on every machine measured here")
def _(m):
    return all(m.outcome(k, f"threads/{g}/all-cores-plus-1", f"threads/{g}/all-cores") != "paid"
               and m.between(k, f"threads/{g}/all-cores-plus-1", f"threads/{g}/all-cores") < 1.1
               for g in ("mlp-forward", "square-matmul") for k in m.kinds())


@claim("index.zh.md", "达到核心数的两倍时，MLP 前向传播在每台机器上都更慢（方阵乘法在四类机器中的三类上更慢，在没有 AMX 的 Xeon 上处于噪声之内）")
@claim("index.md", "twice as many slowed the MLP forward pass down on every one of them (the square matrix product on "
                   "three of the four; on the Xeon without AMX it was within noise)")
def _(m):
    def doubled(k, group):
        return m.outcome(k, f"threads/{group}/2-x-all-cores", f"threads/{group}/all-cores")
    kinds = m.kinds()
    return (len(kinds) == 4 and all(doubled(k, "mlp-forward") == "lost" for k in kinds)
            and doubled(NO_AMX_XEON, "square-matmul") == "even"
            and all(doubled(k, "square-matmul") == "lost" for k in kinds if k != NO_AMX_XEON))
