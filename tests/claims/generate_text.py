"""Claims of generate-text.md and generate-text.zh.md: decode steps against the memory-bandwidth bound."""
from __future__ import annotations

from tests.claims import ZEN4, claim

D1, D8, TTFT = "generate_text/decode-batch-1", "generate_text/decode-batch-8", "generate_text/time-to-first-token"
BW = "generate_text/memory-bandwidth-streaming-read-{}/int32-max-over-a-tensor-larger-than-the-caches"
WHERE = ("1-thread", "all-cores")
STEPS = ("1-naive-loop-fp32-autograd-on", "2-kv-cache-generate-fp32", "3-bf16-weights", "4-static-cache-torch-compile",
         "5-int8-weight-only-compiled", "6-int4-weight-only-a16w4-compiled")
NAIVE, KV, BF16, COMPILE, INT8, INT4 = STEPS


def _kinds(m):
    return m.having(f"{D1}-all-cores/{INT4}")


@claim("generate-text.zh.md", "在 Zen 4（AMD，AVX-512 + BF16）这一目前唯一测过的 CPU 类型上，单线程测得的内存带宽为")
@claim("generate-text.md", "On the Zen 4 (AMD, AVX-512 + BF16), the one kind measured so far, the memory bandwidth measured")
def _(m):
    return _kinds(m) == [ZEN4] and all(m.between(k, BW.format("all-cores"), BW.format("1-thread")) > 1.05
                                       for k in _kinds(m))


@claim("generate-text.zh.md", "每一步的解码速度都比前一步快，单线程和全部核心都是如此，而 int4 权重最快")
@claim("generate-text.md", "Each step decoded faster than the one before it, at one thread and on all cores, "
       "and int4 weights were fastest")
def _(m):
    return all(m.ratio(k, f"{D1}-{w}/{later}") > m.ratio(k, f"{D1}-{w}/{earlier}")
               for k in _kinds(m) for w in WHERE for earlier, later in zip(STEPS, STEPS[1:]))


@claim("generate-text.zh.md", "没有哪一步接近上限。最接近的是单线程下的 fp32 KV 缓存")
@claim("generate-text.md", "No step came near the bound. The closest was the fp32 KV cache at one thread")
def _(m):
    shares = {(k, w, s): m.param(k, f"{D1}-{w}/{s}", "share_of_bound") for k in _kinds(m) for w in WHERE for s in STEPS}
    return (all(v < 0.6 for v in shares.values())
            and all(max(shares, key=lambda key: shares[key] if key[0] == k else -1)[1:] == ("1-thread", KV)
                    for k in _kinds(m)))


@claim("generate-text.zh.md", "与 fp32 KV 缓存相比，每个 token 读取字节更少的步骤（bf16、int8、int4），"
       "速度提升的倍数都小于字节数减少的倍数")
@claim("generate-text.md", "against the fp32 KV cache, each step that read fewer bytes per token (bf16, int8, "
       "int4) gained less speed than it cut bytes")
def _(m):
    """Each step after the fp32 KV cache is faster than it, by less than its bound is higher."""
    def bound(k, w, s):
        return m.row(k, f"{D1}-{w}/{s}")["params"]["bound_tokens_per_s"]
    return all(1 < m.between(k, f"{D1}-{w}/{s}", f"{D1}-{w}/{KV}") < bound(k, w, s) / bound(k, w, KV)
               for k in _kinds(m) for w in WHERE for s in (BF16, INT8, INT4))


@claim("generate-text.zh.md", "在 Zen 4 上，用 int8 或 int4 权重时的首个 token 时间，比用 bf16 权重并编译（第 4 步）时更长，"
       "单线程和全部核心都是如此")
@claim("generate-text.md", "with int8 or int4 weights the time to the first token was longer than with bf16 weights "
       "compiled (step 4), at one thread and on all cores, on the Zen 4")
def _(m):
    return all(m.ratio(k, f"{TTFT}-{w}/{s}") < m.ratio(k, f"{TTFT}-{w}/{COMPILE}")
               for k in _kinds(m) for w in WHERE for s in (INT8, INT4))


@claim("generate-text.zh.md", "批大小为 8 时，读一次权重可以服务八个 token，所以每个权重占多少字节就没那么重要了")
@claim("generate-text.md", "At batch 8 a weight read serves eight tokens, so bytes per weight matter less")
def _(m):
    return all(m.ratio(k, f"{D8}-{w}/{INT4}") < m.between(k, f"{D1}-{w}/{INT4}", f"{D1}-{w}/{KV}")
               for k in _kinds(m) for w in WHERE)


@claim("generate-text.zh.md", "并没有降到四分之一：`quantize_` 在 int4 输出层之外还保留着 bf16 的嵌入。")
@claim("generate-text.md", "not a quarter of it: `quantize_` keeps the bf16 embedding beside the int4 output layer.")
def _(m):
    """bf16 keeps 2 bytes for each of the 494.0M parameters; int4 more than a quarter of that, less than all."""
    return all(0.95 < m.param(k, f"{D1}-{w}/{BF16}", "resident_mb") / (2 * 494.0) < 1.05
               and m.param(k, f"{D1}-{w}/{BF16}", "resident_mb") / 4 < m.param(k, f"{D1}-{w}/{INT4}", "resident_mb")
               < m.param(k, f"{D1}-{w}/{BF16}", "resident_mb") for k in _kinds(m) for w in WHERE)


@claim("generate-text.zh.md", "在每种测过的 CPU 上，bf16 和各量化步骤在 {{ param_span(\"generate_text/decode-batch-1-*/[3-6]-*\", "
       "\"top1_agreement_pct\") }}% 的位置上选出了与 fp32 相同的下一个 token")
@claim("generate-text.md", "On every kind measured, bf16 and the quantized steps picked fp32's next token at")
def _(m):
    return all(50 <= m.param(k, f"{D1}-{w}/{s}", "top1_agreement_pct") <= 100
               and 0.95 <= m.param(k, f"{D1}-{w}/{s}", "min_logit_cosine") <= 1
               and m.param(k, f"{D1}-{w}/{KV}", "top1_agreement_pct") == 100
               for k in _kinds(m) for w in WHERE for s in (BF16, COMPILE, INT8, INT4))
