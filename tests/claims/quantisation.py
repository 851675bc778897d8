"""Claims of quantisation.md and quantisation.zh.md (and sentences of other pages that repeat its figures)."""
from __future__ import annotations

from bench.noise import outcome
from tests.claims import AMX_XEON, NO_AMX_XEON, ZEN4, claim


# quantisation.md: int8 speed flips with AVX512-VNNI and compiling; size does not
GROUP = "quantisation/mlp-512-1024-1024-10-inference"
WHERE = ("1-thread", "all-cores")
Q_DYN, Q_WO, Q_OLD = "torchao-int8-dynamic-activations-weights", "torchao-int8-weight-only", "torch-ao-quantize-dynamic-deprecated"
Q_AO_COMPILED, Q_PT2E = "torchao-int8-dynamic-torch-compile", "pt2e-x86inductorquantizer-int8-dynamic-freezing"
EAGER = (Q_DYN, Q_WO, Q_OLD)
ALL = (*EAGER, Q_AO_COMPILED, Q_PT2E)


def _q(m, k, where, label):
    return m.ratio(k, f"{GROUP}-{where}/{label}")


def _measured(m, label):
    """(kind, where) pairs whose reference measured the variant, one thread and all cores."""
    return [(k, w) for w in WHERE for k in m.having(f"{GROUP}-{w}/{label}")]


def _vnni(m, label):
    """The same, on the kinds with AVX512-VNNI (every level but AVX2)."""
    return [(k, w) for k, w in _measured(m, label) if k not in m.kinds("avx2")]


@claim("quantisation.zh.md", "每种 int8 变体都让大小缩小了{{ fig.times_avx2_serialized_state_dict_torchao_int8_dynamic_activations_weights }}，"
       "这与 CPU 无关")
@claim("quantisation.md", "Size shrinks {{ fig.times_avx2_serialized_state_dict_torchao_int8_dynamic_activations_weights }} "
       "with every "
       "int8 variant; this does not depend on the CPU.")
def _(m):
    return all(3.5 < m.ratio(k, f"quantisation/serialized-state-dict-torch-save/{label}") < 4.3
               for k in m.kinds() for label in EAGER)


def _outcome(m, k, where, label, other=None):
    return m.outcome(k, f"{GROUP}-{where}/{label}", f"{GROUP}-{where}/{other}" if other else None)


@claim("quantisation.zh.md", "除 Zen 4 这一类 CPU 外，在每种 CPU 上单线程和全部核心时都比 fp32 慢。这一类 CPU 的几次记录结论不一："
                             "用全部核心时，Zen 4 和 Zen 5 的第一次记录比 fp32 慢，Zen 5 的第二次记录更快；单线程时，Zen 4 与 fp32 "
                             "的差别在噪声之内，Zen 5 的第二次记录更快；所以把它的几次记录合起来看，两组都与 fp32 的差别在噪声之内")
@claim("quantisation.md", "was slower than fp32 on every kind but the Zen 4's, at one thread and on all cores. On that kind "
       "its recordings disagreed: on all cores the Zen 4 and the Zen 5's first recording were slower than fp32 and the "
       "Zen 5's second faster, at one thread the Zen 4 was within noise of fp32 and the Zen 5's second recording faster, "
       "so over its recordings it was within noise of fp32 in both groups")
def _(m):
    """Lost in both groups on every other kind; on the Zen 4's kind each recording apart (all cores: Zen 4,
    Zen 5, Zen 5 again; one thread: Zen 4, the second Zen 5, the first left it out) and even over them."""
    return (all(_outcome(m, k, w, Q_DYN) == ("even" if k == ZEN4 else "lost")
                for w in WHERE for k in m.having(f"{GROUP}-{w}/{Q_DYN}"))
            and m.outcomes_each(ZEN4, f"{GROUP}-all-cores/{Q_DYN}") == ["lost", "lost", "paid"]
            and m.outcomes_each(ZEN4, f"{GROUP}-1-thread/{Q_DYN}") == ["even", "paid"])


@claim("quantisation.zh.md", "在本站的 AVX2 机器上，torchao 模型无论以 eager 模式运行还是编译后运行，单线程和全部核心时都比 fp32 慢十倍以上")
@claim("quantisation.md", "There the torchao model, eager or compiled, was more than ten times slower than fp32 at one thread "
       "and on all cores")
def _(m):
    return all(_q(m, k, w, label) < 0.1 for k in m.kinds("avx2") for w in WHERE for label in (Q_DYN, Q_AO_COMPILED))


@claim("quantisation.zh.md", "在 AVX2 机器上，这个模型比 fp32 慢十倍以上")
@claim("quantisation.md", "on the AVX2 machine the model was more than ten times slower than fp32")
def _(m):
    return all(_q(m, k, w, Q_DYN) < 0.1 for k in m.kinds("avx2") for w in WHERE)


@claim("quantisation.zh.md", "**torchao 的仅权重 int8**：在这个 MLP 上以 eager 模式、批大小 32 运行时，在每种 CPU 上都比 fp32 慢，"
       "单线程和全部核心都是如此。")
@claim("quantisation.md", "**torchao's int8 weight-only**, run eagerly on this MLP at batch 32, was slower than fp32 on\n"
       "  every kind, at one thread and on all cores.")
def _(m):
    return all(_outcome(m, k, w, Q_WO) == "lost" for k, w in _measured(m, Q_WO))


@claim("quantisation.zh.md", "仅权重 int8 在[生成文本](generate-text.md#how-much-it-buys)页面测过的每种 CPU 上，解码都比 fp32 快")
@claim("quantisation.md", "int8 weight-only decoded faster than\n  fp32 on every kind measured on [Generating text]")
def _(m):
    """Compiled int8 weight-only against the fp32 KV cache, batch-1 decode, both groups, by the rule."""
    d1 = "generate_text/decode-batch-1-{}/{}"
    kinds = m.having(d1.format("all-cores", "5-int8-weight-only-compiled"))
    return len(kinds) >= 3 and all(
        m.outcome(k, d1.format(w, "5-int8-weight-only-compiled"), d1.format(w, "2-kv-cache-generate-fp32")) == "paid"
        for k in kinds for w in WHERE)


@claim("quantisation.zh.md", "在每种有 AVX512-VNNI 的 CPU 上，动态 int8 单线程和全部核心时都比 fp32 快。")
@claim("quantisation.md", "dynamic int8 was faster than fp32 on every kind with AVX512-VNNI, at one thread and on all cores.")
def _(m):
    return all(_outcome(m, k, w, label) == "paid" for label in (Q_AO_COMPILED, Q_PT2E) for k, w in _vnni(m, label))


@claim("quantisation.zh.md", "两种编译后的模型哪个更快取决于 CPU：带 AMX 的 Xeon 上是 torchao 的模型；在 Zen 4 和没有 AMX 的 Xeon 上，"
                             "单线程时 PT2E 模型更快，全部核心时两者的差别在噪声之内（在 Zen 4 上和 Zen 5 的第二次记录里，全部核心时也是 PT2E "
                             "模型更快，但同一类 CPU 的 Zen 5 第一次记录在噪声之内）。")
@claim("quantisation.md", "Which of the two compiled models was faster depends on the CPU: torchao's on the AMX Xeon; "
       "on the Zen 4 and on the Xeon without AMX the PT2E model at one thread, while on all cores the two were within "
       "noise of each other (on the Zen 4 and in the Zen 5's second recording the PT2E model was faster on all cores too, "
       "but the Zen 5's first recording of the same kind was within noise).")
def _(m):
    def pt2e_over_ao(k, w):
        return _outcome(m, k, w, Q_PT2E, Q_AO_COMPILED)
    each = [outcome(span) for span in m.spans_each(ZEN4, f"{GROUP}-all-cores/{Q_PT2E}", f"{GROUP}-all-cores/{Q_AO_COMPILED}")]
    return (all(pt2e_over_ao(k, w) == "lost" for k in m.kinds("amx") for w in WHERE)
            and all(pt2e_over_ao(k, "1-thread") == "paid" and pt2e_over_ao(k, "all-cores") == "even"
                    for k in m.kinds(ZEN4, NO_AMX_XEON))
            and each == ["paid", "even", "paid"])


@claim("quantisation.zh.md", "在每种 CPU 上，单线程和全部核心时都比 fp32 快，并且在每种 CPU 上都是最快的 eager int8 变体。")
@claim("quantisation.md", "was faster than fp32 on every kind, at one thread and on all cores, and the fastest of the "
       "eager int8 variants everywhere.")
def _(m):
    return all(_outcome(m, k, w, Q_OLD) == "paid" and _outcome(m, k, w, Q_OLD, Q_DYN) == "paid"
               and _outcome(m, k, w, Q_OLD, Q_WO) == "paid" for k, w in _measured(m, Q_OLD))


@claim("quantisation.zh.md", "把编译后的模型也算上，超出噪声来看，它在大多数组里仍是最快的 int8 行（Zen 4 和带 AMX 的 Xeon "
       "用全部核心时不是，带 AMX 的 Xeon 单线程时也不是）。")
@claim("quantisation.md", "It was the fastest int8 row, beyond noise, in most groups, compiled models included (not on\n"
       "  the Zen 4 and the AMX Xeon on all cores, nor on the AMX Xeon at one thread).")
def _(m):
    """Fastest beyond noise: faster than every other int8 row of its group by the rule."""
    pairs = _measured(m, Q_OLD)
    fastest = {(k, w) for k, w in pairs
               if all(_outcome(m, k, w, Q_OLD, label) == "paid" for label in ALL
                      if label != Q_OLD and f"{GROUP}-{w}/{label}" in m.rows[k])}
    named = {(ZEN4, "all-cores"), (AMX_XEON, "all-cores"), (AMX_XEON, "1-thread")}
    return len(fastest) > len(pairs) / 2 and not fastest & named and set(pairs) - named <= fastest


@claim("quantisation.zh.md", "eager 模式的 torchao 换来的是更小的体积，而不是速度。")
@claim("quantisation.md", "eager torchao buys size, not speed.")
def _(m):
    """Paid nowhere by the rule; lost on all cores on every kind with AVX512-VNNI, but for dynamic int8 on the
    Zen 4's kind, whose recordings disagree (within noise over them: the sentence above it says so)."""
    return (all(_outcome(m, k, w, label) in ("even", "lost") for label in (Q_DYN, Q_WO) for k, w in _vnni(m, label))
            and all(_outcome(m, k, w, label) == ("even" if (k, label) == (ZEN4, Q_DYN) else "lost")
                    for label in (Q_DYN, Q_WO) for k, w in _vnni(m, label) if w == "all-cores")
            and all(m.ratio(k, f"quantisation/serialized-state-dict-torch-save/{label}") > 3.5
                    for k in m.kinds() for label in (Q_DYN, Q_WO)))


# the case study's static int8 (step 7) against its compiled fp32 step (5), both regimes
CS = ("case_study/resnet-50-throughput-all-cores", "case_study/resnet-50-batch-1-latency-p50-all-cores")


@claim("quantisation.zh.md", "在这两台机器上，无论吞吐量还是批大小 1 的延迟，静态 int8 都比编译后的 fp32 模型（第 5 步）快。")
@claim("quantisation.md", "Static int8 was faster than the compiled fp32 model (step 5) on both, in throughput and at batch 1.")
def _(m):
    kinds = (ZEN4, NO_AMX_XEON)
    return all(k in m.having(f"{g}/7-int8") and m.outcome(k, f"{g}/7-int8", f"{g}/5-compile") == "paid"
               for k in kinds for g in CS)
