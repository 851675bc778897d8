"""Claims of bfloat16.md and bfloat16.zh.md."""
from __future__ import annotations

from tests.claims import NO_AMX_XEON, ZEN4, claim

BF16_ROWS = [f"bfloat16/mlp-{what}-{where}/bf16-autocast" for what in ("inference", "training-step")
             for where in ("1-thread", "all-cores")]
ONE_THREAD = [r for r in BF16_ROWS if "1-thread" in r]
ALL_CORES = [r for r in BF16_ROWS if "all-cores" in r]


@claim("bfloat16.zh.md", "bf16 比 fp32 **慢得多**")
@claim("bfloat16.md", "bf16 is **much slower** than fp32")
@claim("bfloat16.zh.md", "如上文所测，在 AVX2 上慢得多")
@claim("bfloat16.md", "much slower on AVX2, as measured above")
@claim("bfloat16.zh.md", "每一组都比 fp32 慢得多，原因是上文所说的回退内核")
@claim("bfloat16.md", "slower than fp32 in every group, by far: the fallback kernel described above")
def _(m):
    return all(m.outcome(k, r) == "lost" and m.span(k, r)[1] < 0.5 for k in m.kinds("avx2") for r in BF16_ROWS)


@claim("bfloat16.zh.md", "**Zen 4**（有 AVX512_BF16，没有 AMX）：每一组都比 fp32 快")
@claim("bfloat16.md", "**The Zen 4** (AVX512_BF16, no AMX): faster than fp32 in every group")
def _(m):
    return all(m.outcome(k, r) == "paid" for k in m.kinds(ZEN4) for r in BF16_ROWS)


INFER_ALL, TRAIN_ALL = "bfloat16/mlp-inference-all-cores/bf16-autocast", "bfloat16/mlp-training-step-all-cores/bf16-autocast"


@claim("bfloat16.zh.md", "有快有慢：1 个线程时推理和训练都比 fp32 快；用全部核心时推理比 fp32 慢，训练与 fp32 的差别在噪声之内")
@claim("bfloat16.md", "mixed, faster than fp32 at one thread for inference\n  and for training; on all cores slower for inference "
       "and within noise of fp32 for training")
@claim("bfloat16.zh.md", "在带 AMX 的 Xeon 上，检查程序预期会更快，但本页的 MLP 用全部核心时推理比 fp32 慢，训练步骤与 fp32 的差别在噪声之内")
@claim("bfloat16.md", "On the AMX\nXeon, where the check expects a speed-up, this page's MLP was slower than fp32 in inference on\n"
       "all cores, and its training step within noise of fp32 there")
def _(m):
    """By the rule (bench.noise); the even training row's median below fp32's (which the inverted
    references turn over)."""
    amx = m.kinds("amx")
    return (all(m.outcome(k, r) == "paid" for k in amx for r in ONE_THREAD)
            and all(m.outcome(k, INFER_ALL) == "lost" and m.outcome(k, TRAIN_ALL) == "even" and m.ratio(k, TRAIN_ALL) < 1
                    for k in amx))


@claim("bfloat16.zh.md", "在那台 Xeon 上，bf16 的 `torch.mm` 单线程时跑到")
@claim("bfloat16.md", "the bf16 `torch.mm` on that Xeon ran at")
@claim("bfloat16.zh.md", "两者的差别在噪声之内，而 fp32 的速度几乎翻了一倍：它的 bf16 矩阵乘法没有从第二个核心得到任何收益。")
@claim("bfloat16.md", "within noise of\n  each other, while fp32's nearly doubled: its bf16 matmul gained nothing from the second core.")
def _(m):
    mm = "vectorise/torch-mm-bf16-vs-fp32-{}/{}"
    return all(m.outcome(k, mm.format("all-cores", "bf16"), mm.format("1-thread", "bf16")) == "even"
               and m.outcome(k, mm.format("all-cores", "fp32"), mm.format("1-thread", "fp32")) == "paid"
               and m.span(k, mm.format("all-cores", "fp32"), mm.format("1-thread", "fp32"))[0] > 1.7
               for k in m.kinds("amx") if k in m.having(mm.format("1-thread", "bf16")))


@claim("bfloat16.zh.md", "**没有 AMX 的 Xeon**（只有 AVX512_BF16）：每一组都比 fp32 慢，但比 AVX2 机器慢得少得多")
@claim("bfloat16.md", "**The Xeon without AMX** (AVX512_BF16 only): slower than fp32 in every group, though far less so "
                      "than the AVX2 machine")
def _(m):
    return all(m.outcome(k, r) == "lost" and m.span(k, r)[0] > 3 * m.span(a, r)[1]
               for k in m.kinds(NO_AMX_XEON) for a in m.kinds("avx2") for r in BF16_ROWS)


@claim("bfloat16.zh.md", "在本站这类 Xeon 上，每一组都比 fp32 慢")
@claim("bfloat16.md", "slower than fp32 on this site's Xeon of that kind, in every group")
@claim("bfloat16.zh.md", "虽有原生 bf16，但在本站这类 Xeon 上并没有因此得到收益")
@claim("bfloat16.md", "an Intel Xeon has native bf16 but, on this site's Xeon of that kind, no gain from it")
def _(m):
    return all(m.outcome(k, r) == "lost" for k in m.kinds(NO_AMX_XEON) for r in BF16_ROWS)



@claim("bfloat16.md", "and the fallback gained nothing from the second core")
@claim("bfloat16.zh.md", "这个回退内核也没有从第二个核心得到任何收益")
def _(m):
    mm = "vectorise/torch-mm-bf16-vs-fp32-"
    return all(m.ratio(k, mm + where + "/bf16") < 0.1
               and m.outcome(k, mm + "all-cores/bf16", mm + "1-thread/bf16") != "paid"
               for k in m.having(mm + "1-thread/bf16") if k in m.kinds("avx2") for where in ("1-thread", "all-cores"))


@claim("bfloat16.md", "in every recording of the AMD AVX-512 + BF16 kind, the Zen 4's and the Zen 5's, bf16 autocast was "
                      "faster than fp32 beyond noise: {{ fig.interval_zen_mlp_inference_ac_bf16_autocast }} on all cores "
                      "and {{ fig.interval_zen_mlp_inference_1t_bf16_autocast }} at one thread")
@claim("bfloat16.zh.md", "在 AMD AVX-512 + BF16 这一类的每一次录制中（Zen 4 的和 Zen 5 的），bf16 autocast 都比 fp32 快，超出噪声："
                         "全部核心上为 {{ fig.interval_zen_mlp_inference_ac_bf16_autocast }}，"
                         "单线程为 {{ fig.interval_zen_mlp_inference_1t_bf16_autocast }}")
def _(m):
    # each recording of the kind on its own (the output's Zen 5 among them), in both inference groups
    rows = ["bfloat16/mlp-inference-all-cores/bf16-autocast", "bfloat16/mlp-inference-1-thread/bf16-autocast"]
    return all(set(m.outcomes_each(ZEN4, r)) == {"paid"} and len(m.spans_each(ZEN4, r)) > 1 for r in rows)
