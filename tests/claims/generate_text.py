"""Claims of generate-text.md and generate-text.zh.md: decode steps against the memory-bandwidth bound."""
from __future__ import annotations

from tests.claims import AMX_XEON, AVX2_EPYC, ZEN4, claim

D1, D8, TTFT = "generate_text/decode-batch-1", "generate_text/decode-batch-8", "generate_text/time-to-first-token"
BW = "generate_text/memory-bandwidth-streaming-read-{}/int32-max-over-a-tensor-larger-than-the-caches"
WHERE = ("1-thread", "all-cores")
STEPS = ("1-naive-loop-fp32-autograd-on", "2-kv-cache-generate-fp32", "3-bf16-weights", "4-static-cache-torch-compile",
         "5-int8-weight-only-compiled", "6-int4-weight-only-a16w4-compiled")
NAIVE, KV, BF16, COMPILE, INT8, INT4 = STEPS


def _kinds(m):
    return m.having(f"{D1}-all-cores/{INT4}")


@claim("generate-text.zh.md", "在带 AMX 的 Xeon 上（一台内存带宽小得多的虚拟机）分别为")
@claim("generate-text.md", "on the Xeon with AMX, a VM with far less of it,")
def _(m):
    """Both kinds the paragraph names measured it, all cores above one thread on each, and the
    Xeon with AMX below the Zen 4 from one thread and from all cores."""
    def bw(k, w):
        return m.median(k, BW.format(w))
    return (set(_kinds(m)) >= {ZEN4, AMX_XEON}
            and all(m.between(k, BW.format("all-cores"), BW.format("1-thread")) > 1.05 for k in _kinds(m))
            and all(bw(AMX_XEON, w) < bw(ZEN4, w) / 1.5 for w in WHERE))


@claim("generate-text.zh.md", "在这两种 CPU 上，int4 权重都是最快的 PyTorch 步骤，单线程和全部核心都是如此")
@claim("generate-text.md", "int4 weights were the fastest PyTorch step on both, at one thread and on all cores")
def _(m):
    """On both kinds the paragraph names (the Zen 4 and the Xeon with AMX)."""
    return all(_fastest(m, k, w) == INT4 for k in (ZEN4, AMX_XEON) for w in WHERE)


def _fastest(m, k, where):
    return max(STEPS, key=lambda s: m.ratio(k, f"{D1}-{where}/{s}"))


@claim("generate-text.zh.md", "在 AVX2 的 EPYC（AMD Zen 3，没有 AVX-512）上，全部核心下最快的是 int4，单线程下最快的是 int8")
@claim("generate-text.md", "on the AVX2\nEPYC (AMD Zen 3, no AVX-512) int4 was the fastest on all cores and int8 at one thread")
def _(m):
    return _fastest(m, AVX2_EPYC, "all-cores") == INT4 and _fastest(m, AVX2_EPYC, "1-thread") == INT8


@claim("generate-text.zh.md", "在 Zen 4 上，每一步的解码速度都比前一步快，单线程和全部核心都是如此")
@claim("generate-text.md", "On the Zen 4 each step decoded faster than the one before it, at one thread and on all cores")
def _(m):
    return all(m.ratio(k, f"{D1}-{w}/{later}") > m.ratio(k, f"{D1}-{w}/{earlier}")
               for k in m.kinds(ZEN4) for w in WHERE for earlier, later in zip(STEPS, STEPS[1:]))


@claim("generate-text.zh.md", "在带 AMX 的 Xeon 上，未编译的 bf16 权重在全部核心下解码比 fp32 KV 缓存还慢")
@claim("generate-text.md", "on\nthe Xeon with AMX, bf16 weights without compiling decoded slower than the fp32 KV cache on all\ncores")
def _(m):
    return all(m.ratio(k, f"{D1}-all-cores/{BF16}") < m.ratio(k, f"{D1}-all-cores/{KV}") for k in m.kinds(AMX_XEON))


@claim("generate-text.zh.md", "离上限最近的 PyTorch 步骤是单线程下的 fp32 KV 缓存")
@claim("generate-text.md", "The closest any PyTorch step came to the bound was the fp32 KV cache at one thread")
def _(m):
    """Per kind, the highest share of the bound among PyTorch's steps is the fp32 KV cache's at one
    thread (and none is above the bound: that would be a harness bug)."""
    shares = {(k, w, s): m.param(k, f"{D1}-{w}/{s}", "share_of_bound") for k in _kinds(m) for w in WHERE for s in STEPS}
    return (all(v <= 1 for v in shares.values())
            and all(max(shares, key=lambda key: shares[key] if key[0] == k else -1)[1:] == ("1-thread", KV)
                    for k in _kinds(m)))


@claim("generate-text.zh.md", "在每种测过的 CPU 上，与 fp32 KV 缓存相比，每个 token 读取字节更少的步骤（bf16、int8、int4），"
       "速度提升的倍数都小于字节数减少的倍数")
@claim("generate-text.md", "against the fp32 KV cache, each step that read fewer bytes per token (bf16, int8,\n"
       "int4) gained less speed than it cut bytes, on every kind measured")
def _(m):
    """Each step after the fp32 KV cache gained less than its bound rose, on every kind measured."""
    def bound(k, w, s):
        return m.row(k, f"{D1}-{w}/{s}")["params"]["bound_tokens_per_s"]
    return set(_kinds(m)) >= {ZEN4, AMX_XEON} and all(
        1 < m.between(k, f"{D1}-{w}/{s}", f"{D1}-{w}/{KV}") < bound(k, w, s) / bound(k, w, KV)
        for k in _kinds(m) for w in WHERE for s in (INT8, INT4)) and all(
        m.between(k, f"{D1}-{w}/{BF16}", f"{D1}-{w}/{KV}") < bound(k, w, BF16) / bound(k, w, KV)
        for k in _kinds(m) for w in WHERE)


@claim("generate-text.zh.md", "在有 bf16 指令的 CPU 上，用 int8 或 int4 权重时的首个 token 时间，比用 bf16 权重并编译（第 4 步）时更长，"
       "单线程和全部核心都是如此")
@claim("generate-text.md", "on the CPUs with bf16 instructions, with int8 or int4 weights the time to the first token was "
       "longer than with bf16 weights compiled (step 4), at one thread and on all cores")
def _(m):
    """Every kind with AVX512_BF16 or AMX that measured it (the Zen 4 among them)."""
    native = [k for k in m.kinds("avx512-bf16", "amx") if k in _kinds(m)]
    return ZEN4 in native and all(m.ratio(k, f"{TTFT}-{w}/{s}") < m.ratio(k, f"{TTFT}-{w}/{COMPILE}")
                                  for k in native for w in WHERE for s in (INT8, INT4))


@claim("generate-text.zh.md", "在没有 bf16 指令的 AVX2 EPYC 上则正好相反，单线程和全部核心都是如此")
@claim("generate-text.md", "On the AVX2 EPYC, which has no bf16\n  instructions, it was the other way round, at one thread and on all cores")
def _(m):
    """int8 and int4 both reached the first token sooner than compiled bf16."""
    return all(m.between(AVX2_EPYC, f"{TTFT}-{w}/{s}", f"{TTFT}-{w}/{COMPILE}") > 1 for w in WHERE for s in (INT8, INT4))


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
               and 0.9 <= m.param(k, f"{D1}-{w}/{s}", "min_logit_cosine") <= 1
               and m.param(k, f"{D1}-{w}/{KV}", "top1_agreement_pct") == 100
               for k in _kinds(m) for w in WHERE for s in (BF16, COMPILE, INT8, INT4))


# Where the time goes: the int4 step's decode token, profiled
PROFILE = "generate_text/where-a-decode-token-s-time-goes-int4-weight-only-a16w4-compiled-{}"
PARTS = ("matrix-products", "attention", "other", "generate-between-forwards")


def _profiled(m):
    return m.having(f"{PROFILE.format('all-cores')}/matrix-products")


@claim("generate-text.zh.md", "在 Zen 4 上用全部核心时，矩阵乘法占一个 token 的")
@claim("generate-text.md", "On the Zen 4, on all cores, the matrix products took")
def _(m):
    """The parts are shares of the token (under 1, the matrix products the largest) and the rate
    the weights were read at is under the bandwidth measured in the same run (a physical bound)."""
    def share(k, w, part):
        return m.param(k, f"{PROFILE.format(w)}/{part}", "share_of_token")
    return all(0 < share(k, w, p) < 1 and share(k, w, "matrix-products") >= share(k, w, p)
               and m.param(k, f"{PROFILE.format(w)}/matrix-products", "share_of_bandwidth") <= 1.1
               for k in _profiled(m) for w in WHERE for p in PARTS)


@claim("generate-text.zh.md", "在测过的每种 CPU 和每种线程数下，矩阵乘法读取权重的速度都远低于带宽，"
       "而其他部分合起来都超过一个 token 的五分之一")
@claim("generate-text.md", "On every kind and thread count measured, the matrix products read the weights well below the "
       "bandwidth, and everything else took more than a fifth of the token")
def _(m):
    """Well below: under 60% of the bandwidth measured in the same run."""
    return all(m.param(k, f"{PROFILE.format(w)}/matrix-products", "share_of_bandwidth") < 0.6
               and 1 - m.param(k, f"{PROFILE.format(w)}/matrix-products", "share_of_token") > 0.2
               for k in _profiled(m) for w in WHERE)


# llama.cpp on the same weights: PyTorch's fastest step at each width, and llama.cpp's file of that width
WIDTHS = ((COMPILE, "llama-cpp-f16"), (INT8, "llama-cpp-q8-0"), (INT4, "llama-cpp-q4-0"))
LLAMA = tuple(file for _, file in WIDTHS)


def _llama(m):
    return m.having(f"{D1}-all-cores/llama-cpp-f16")


@claim("generate-text.zh.md", "在 Zen 4 上，llama.cpp 在每种位宽下的解码都比 PyTorch 快，单线程和全部核心都是如此")
@claim("generate-text.md", "On the Zen 4, llama.cpp decoded faster than PyTorch at every width, at one thread and on all cores")
def _(m):
    return all(m.between(ZEN4, f"{D1}-{w}/{file}", f"{D1}-{w}/{step}") > 1 for w in WHERE for step, file in WIDTHS)


@claim("generate-text.zh.md", "在 Zen 4 上单线程和全部核心下都是所有行中最接近上限的")
@claim("generate-text.md", "on the Zen 4 the closest of any row at one thread and on all cores")
def _(m):
    """llama.cpp's F16 has the highest share of the bound of every decode row (and not above the
    bound: that would be a harness bug), per kind and thread count."""
    def share(k, w, row):
        return m.param(k, f"{D1}-{w}/{row}", "share_of_bound")
    return all(max(share(k, w, r) for r in (*STEPS, *LLAMA[1:])) < share(k, w, "llama-cpp-f16") <= 1.1
               for k in m.kinds(ZEN4) for w in WHERE)


@claim("generate-text.zh.md", "在 Zen 4 上，16 位时提示词这一段是 PyTorch 赢，单线程和全部核心都是如此")
@claim("generate-text.md", "On the Zen 4, PyTorch won the prompt at 16 bits, at one thread and on all cores")
def _(m):
    """... and lost it at 8 and 4 bits."""
    return all((m.between(ZEN4, f"{TTFT}-{w}/{step}", f"{TTFT}-{w}/{file}") > 1) == (step == COMPILE)
               for w in WHERE for step, file in WIDTHS)


@claim("generate-text.zh.md", "llama.cpp 的 F16 文件在每个位置上选出的下一个 token 都与 fp32 相同，单线程和全部核心都是如此")
@claim("generate-text.md", "llama.cpp's F16 file picked fp32's next token at every position, at one thread and on all cores")
def _(m):
    return all(m.param(k, f"{D1}-{w}/llama-cpp-f16", "top1_agreement_pct") == 100 for k in _llama(m) for w in WHERE)


@claim("generate-text.zh.md", "它的 Q8_0 和 Q4_0 文件（点积内部用 8 位激活值，其余部分用 fp32）比 PyTorch 的 bf16、int8 和 int4 步骤")
@claim("generate-text.md", "Its Q8_0 and Q4_0 files (8-bit activations inside their dot products, the rest in fp32) "
       "stayed closer to fp32 than PyTorch's bf16, int8 and int4 steps")
def _(m):
    """Every llama.cpp quantized file's lowest cosine above every PyTorch bf16/int8/int4 step's, per
    kind (both up to 1: a cosine)."""
    def cosine(k, w, row):
        return m.param(k, f"{D1}-{w}/{row}", "min_logit_cosine")
    return all(max(cosine(k, w, s) for s in (BF16, COMPILE, INT8, INT4)) < min(cosine(k, w, f) for f in LLAMA[1:]) <= 1
               for k in _llama(m) for w in WHERE)


@claim("generate-text.zh.md", "PyTorch 编译过的步骤得到首个 token 所用的时间，比 llama.cpp 写出、量化、加载文件再给出答案所用的几秒钟还长")
@claim("generate-text.md", "PyTorch's compiled steps took longer to their first token than llama.cpp took, in seconds, "
       "to write, quantize and load its file and answer")
def _(m):
    def cost(k, w, row):
        return m.param(k, f"{D1}-{w}/{row}", "build_s") + m.param(k, f"{D1}-{w}/{row}", "first_call_s")
    return all(min(m.param(k, f"{D1}-{w}/{step}", "first_call_s") for step, _ in WIDTHS)
               > max(cost(k, w, file) for file in LLAMA) and max(cost(k, w, file) for file in LLAMA) < 60
               for k in _llama(m) for w in WHERE)


@claim("generate-text.zh.md", "llama.cpp 的 Q4_0 文件占用的内存比文件本身还大，但仍小于 16 位的模型")
@claim("generate-text.md", "llama.cpp's Q4_0 file kept more in memory than its own size, though less than the 16-bit model")
def _(m):
    """Resident (what the process grew by) above the file's tensors and cache (bytes_per_token),
    below the bf16 weights of the 494.0M parameters."""
    return all(1.3 * m.param(k, f"{D1}-{w}/llama-cpp-q4-0", "bytes_per_token") / 1e6
               < m.param(k, f"{D1}-{w}/llama-cpp-q4-0", "resident_mb") < 2 * 494.0
               for k in _llama(m) for w in WHERE)
