"""Claims of naive-to-fast.md and naive-to-fast.zh.md: the case study's words over every kind whose
reference measured it (m.having); its figures are templates (bench/figures.py). Every verdict,
ranking and "level" on the page goes through the one rule (bench.noise, m.outcome / m.span): paid
and lost only beyond the interval of the ratio and the even band, "within noise" otherwise."""
from __future__ import annotations

from bench.noise import EVEN, across, combined, outcome
from tests.claims import AMX_XEON, AVX2_EPYC, NO_AMX_XEON, ZEN4, claim

R = "case_study/resnet-50-throughput-all-cores/"
RL = "case_study/resnet-50-batch-1-latency-p50-all-cores/"
T = "case_study/transformer-throughput-all-cores/"
TL = "case_study/transformer-batch-1-latency-p50-all-cores/"
TRAIN = "case_study/training-time-to-the-naive-loop-s-held-out-accuracy/training-"
PYTORCH_STEPS = ("1-naive", "2-inference-mode", "3-batching", "4-channels-last", "5-compile", "6-bf16", "7-int8")
RUNTIMES = {"onnx-runtime-fp32-other-runtime": "5-compile", "openvino-fp32-other-runtime": "5-compile",
            "openvino-bf16-other-runtime": "6-bf16", "onnx-runtime-int8-other-runtime": "7-int8",
            "openvino-int8-other-runtime": "7-int8"}
PROFILE = "case_study/where-a-resnet-50-int8-batch-1-call-s-time-goes-{}-all-cores/{}"
GLIBC = "int8-glibc-fresh-process-side-row"  # step 7 again, with the same malloc, in a fresh process
TCMALLOC = "int8-tcmalloc-fresh-process-side-row"
TORCHSCRIPT = "int8-fx-quantization-torchscript-side-row"
PACKAGE_INT8 = "aotinductor-package-int8-side-row"


def _spread(m, k, row_id):
    """A row's interquartile range over the rounds as a share of its median (inverted: a tenth)."""
    return m.row(k, row_id)["spread"] / m.median(k, row_id)


def _self_gap(m, k, group=R):
    """How far step 7 lands from itself on the kind: its fresh-process control (the allocator rows')
    against step 7 in the benchmark's process, as a factor of at least one either way."""
    gap = m.between(k, group + GLIBC, group + "7-int8")
    return max(gap, 1 / gap)


def _within_self_gap(m, k, row_id, other_id, group=R):
    """The two rows no further apart than step 7 from itself on the kind: the machine's noise."""
    return 1 / _self_gap(m, k, group) <= m.between(k, group + row_id, group + other_id) <= _self_gap(m, k, group)


def _kinds(m, group=R):
    return m.having(group + "1-naive")


def _steps(m, k, group):
    return [s for s in PYTORCH_STEPS if group + s in m.rows[k]]


def _said(m, k, step, base, groups):
    """The steps table's verdict on a step over the step it was built on, over the groups that
    measured both (bench.figures.steps: combined over throughput and batch 1)."""
    return combined([m.outcome(k, g + step, g + base) for g in groups if g + step in m.rows[k]])


def _beyond(a, b):
    """One factor's interval beyond another's: its low end above the other's high end by more than
    the even band (a ranking of two gains, each itself an interval, by the rule)."""
    return a[0] / b[1] > 1 + EVEN


def _best_beyond(m, k, group, row_id, rows):
    """row_id is faster, beyond noise, than every other of rows in the group on the kind."""
    return all(m.outcome(k, group + row_id, group + r) == "paid" for r in rows if r != row_id and group + r in m.rows[k])


def _ids(m, k, group):
    return [i[len(group):] for i, r in m.rows[k].items() if i.startswith(group) and r.get("ratio")]


def _fastest(m, k, group, runtimes=None):
    """The fastest row of the group on the kind (runtimes None: any; False: PyTorch's; True: the runtimes')."""
    rows = [i for i in _ids(m, k, group) if runtimes is None or i.endswith("-other-runtime") == runtimes]
    return max(rows, key=lambda i: m.ratio(k, group + i))


def _level_with(m, k, group, top, runtimes=None):
    """The rows of the group within noise of top (top included), as bench.figures._fastest lists them."""
    rows = [i for i in _ids(m, k, group) if runtimes is None or i.endswith("-other-runtime") == runtimes]
    return {i for i in rows if i == top or m.outcome(k, group + i, group + top) != "lost"}


def _runtime(m, k, group, runtime):
    """How many times better the runtime's row is than PyTorch's step of its precision."""
    return m.between(k, group + runtime, group + RUNTIMES[runtime])


def _with_runtimes(m):
    return m.having(R + "onnx-runtime-int8-other-runtime")


def _lead(m, k, group):
    """How many times better the fastest other runtime's row is than PyTorch's fastest (bench.figures.lead)."""
    return m.between(k, group + _fastest(m, k, group, True), group + _fastest(m, k, group, False))


def _part(engine, name):
    return PROFILE.format(engine, name)


def _disagreed(m, k, row_id, other_id, said, zen4=None):
    """The kind's recordings disagree: `said` (paid or lost) in some, within noise in others, the
    opposite in none, so the rule finds it within noise over them ("paid in some recordings and
    within noise in others"); zen4, if given: what the Zen 4's recording (the first, the one the
    tables show) says. Counts no recordings, so another one that agrees with either side keeps it."""
    words = m.outcomes_each(k, row_id, other_id)
    opposite = {"paid": "lost", "lost": "paid"}[said]
    return (said in words and "even" in words and opposite not in words and _over(m, k, row_id, other_id) == "even"
            and (zen4 is None or (m.recorded_twice(k) and _each(m, k, row_id, other_id)[0] == zen4)))


def _each(m, k, row_id, other_id):
    """The rule's verdict in each recording of the kind, in the recordings' order (the Zen 4's
    first), None where a recording lacks either row: to read one recording by its place."""
    def one(rows):
        if row_id not in rows or other_id not in rows:
            return None
        low, high = across([rows], row_id, other_id)
        return outcome((1 / high, 1 / low) if m.inverted else (low, high))
    return [one(rows) for rows in m.recordings[k]]


@claim("naive-to-fast.md", "int8 (step 7) paid on every CPU kind that ran the case study and gave ResNet-50 its best "
                           "throughput on each")
@claim("naive-to-fast.zh.md", "int8（步骤 7）在所有跑过本案例研究的 CPU 类型上都有效，而且在每一种上都是 ResNet-50 吞吐量最高的步骤")
@claim("naive-to-fast.md", "Each verdict in the table takes the rows'\nspread into account: where bf16 and int8 are marked paid, "
                           "they were ahead by more than it.")
@claim("naive-to-fast.zh.md", "表中每个判定都已把各行的波动考虑在内：凡是标为更快的 bf16 和 int8，领先的幅度都超过了这些波动。")
def _(m):
    """int8 over step 5 paid in both regimes on every kind, and ahead of every other step in
    throughput beyond noise; bf16 paid where the table says so (the Zen 4, the AMX Xeon)."""
    return all(m.outcome(k, g + "7-int8", g + "5-compile") == "paid" for k in _kinds(m) for g in (R, RL)) and all(
        _best_beyond(m, k, R, "7-int8", _steps(m, k, R)) for k in _kinds(m)) and all(
        _said(m, k, "6-bf16", "5-compile", (R, RL)) == "paid" for k in m.kinds(ZEN4, AMX_XEON))


@claim("naive-to-fast.md", "bf16 (step 6) paid only where the CPU runs bf16 fast: on the Zen 4 it took ResNet-50 to")
@claim("naive-to-fast.zh.md", "bf16（步骤 6）只在能高效运行 bf16 的 CPU 上有效：在 Zen 4 上，它把 ResNet-50 的吞吐量提高到朴素循环的")
@claim("naive-to-fast.md", "while on the Xeon with AVX512_BF16 and no AMX it was slower than the compiled fp32 step "
                           "before it")
@claim("naive-to-fast.zh.md", "而在有 AVX512_BF16、没有 AMX 的 Xeon 上，它比前面编译后的 fp32 步骤还慢")
@claim("naive-to-fast.md", "On the Xeon without AMX the bf16 step lost, as ResNet-50's did")
@claim("naive-to-fast.zh.md", "在没有 AMX 的 Xeon 上，bf16 步骤和 ResNet-50 的一样变慢了")
def _(m):
    return (all(m.outcome(k, g + "6-bf16", g + "5-compile") == "paid" for k in m.kinds(ZEN4) for g in (R, RL, T, TL))
            and all(m.outcome(k, g + "6-bf16", g + "5-compile") == "lost" for k in m.kinds(NO_AMX_XEON)
                    for g in (R, RL, T, TL)))


@claim("naive-to-fast.md", "and it cut ResNet-50's fp32 batch-1 latency beyond\n   noise on the Zen 4 and both Xeons, while on "
                           "the AVX2 EPYC its gain there was within noise")
@claim("naive-to-fast.zh.md", "在 Zen 4 和两台 Xeon 上，它都超出噪声地降低了 ResNet-50 在 fp32 下批大小为 1 时的延迟，"
                              "在 AVX2 EPYC 上这一收益在噪声之内")
def _(m):
    word = {k: m.outcome(k, RL + "5-compile", RL + "4-channels-last") for k in _kinds(m)}
    return all(word[k] == "paid" for k in m.kinds(ZEN4, NO_AMX_XEON, AMX_XEON)) and all(
        word[k] == "even" and m.ratio(k, RL + "5-compile") > m.ratio(k, RL + "4-channels-last") for k in m.kinds(AVX2_EPYC))


@claim("naive-to-fast.md", "For ResNet-50 `inference_mode` and batching paid on every kind but the AMD AVX-512 + BF16 kind, "
                           "whose recordings disagree: each paid in throughput in some of them and was within noise in others, "
                           "so both are within noise there. `channels_last` paid only on the two Xeons: on the two AMD kinds it "
                           "was within noise (the table above), though it paid in throughput in every Zen 5 recording of the "
                           "AMD AVX-512 + BF16 kind; the Zen 4 alone was within noise. They took less off the batch-1 latency")
@claim("naive-to-fast.zh.md", "对 ResNet-50，`inference_mode` 和批处理除 AMD AVX-512 + BF16 这类 CPU 外在每种 CPU 上都有效；这类 CPU "
                              "的几次录制结论不一：两者的吞吐量都在其中一些录制里有效，在另一些里在噪声之内，所以在这类 CPU 上两者都在"
                              "噪声之内。`channels_last` 只在两台 Xeon 上有效：在两类 AMD CPU 上它在噪声之内（见上表），不过在 AMD "
                              "AVX-512 + BF16 这类 CPU 的每次 Zen 5 录制中，它的吞吐量都超出噪声地有效；只有 Zen 4 在噪声之内。"
                              "它们对批大小为 1 时的延迟改善较少")
def _(m):
    """The steps table's verdicts (throughput and batch 1 combined; batching in throughput only); on
    the Zen 4's kind inference_mode and batching paid in throughput in some recordings and were within
    noise in others, channels_last within noise on the Zen 4 and paid in every later (Zen 5)
    recording; steps 2 to 4 together less at batch 1 than in throughput."""
    xeons, amd = m.kinds(NO_AMX_XEON, AMX_XEON), m.kinds(ZEN4, AVX2_EPYC)
    channels_last = _each(m, ZEN4, R + "4-channels-last", R + "3-batching")
    return all(_said(m, k, "2-inference-mode", "1-naive", (R, RL)) == ("even" if k == ZEN4 else "paid")
               and _said(m, k, "3-batching", "2-inference-mode", (R,)) == ("even" if k == ZEN4 else "paid")
               and m.ratio(k, RL + "4-channels-last") < m.ratio(k, R + "4-channels-last") for k in _kinds(m)) and (
        _disagreed(m, ZEN4, R + "2-inference-mode", R + "1-naive", "paid")
        and _disagreed(m, ZEN4, R + "3-batching", R + "2-inference-mode", "paid")) and (
        m.recorded_twice(ZEN4) and channels_last[0] == "even" and "paid" in channels_last[1:]
        and all(w in ("paid", None) for w in channels_last[1:])) and all(
        _said(m, k, "4-channels-last", "3-batching", (R, RL)) == ("paid" if k in xeons else "even") for k in [*xeons, *amd])


def _gains(m, k):
    """Each training step's factor over the step it was built on, as an interval (m.span)."""
    steps = [s for s in ("1-naive", "2-in-memory", "3-optimiser", "4-channels-last", "5-bf16") if TRAIN + s in m.rows[k]]
    return {b: m.span(k, TRAIN + b, TRAIN + a) for a, b in zip(steps, steps[1:])}


@claim("naive-to-fast.md", "holding the batches in\n   memory instead of a `DataLoader` that starts workers every epoch paid on "
                           "every kind, and was\n   the largest gain of any step, beyond noise, on the Xeon without AMX; on the "
                           "other three kinds\n   it was level within noise with the largest other gain")
@claim("naive-to-fast.zh.md", "把批次放在内存中、不再用每轮都启动工作进程的 `DataLoader`，在每种 CPU 上都有效，在没有 AMX 的 Xeon "
                              "上是超出噪声的收益最大的一步；在另外三种 CPU 上，它与其他步骤中收益最大的一步在噪声之内持平")
@claim("naive-to-fast.md", "**Taking the data out of the `DataLoader` paid on every kind**, and was the largest gain of any\n  "
                           "step, beyond noise, on the Xeon without AMX; on the other three kinds it was level within noise "
                           "with the\n  largest other gain (step 3's on the AVX2 EPYC, bf16's on the Zen 5 and the Xeon with AMX).")
@claim("naive-to-fast.zh.md", "**把数据从 `DataLoader` 中拿出来在每种 CPU 上都有效**，在没有 AMX 的 Xeon 上是超出噪声的收益最大的一步；"
                              "在另外三种 CPU 上，它与其他步骤中收益最大的一步（AVX2 EPYC 上是步骤 3，Zen 5 和带 AMX 的 Xeon 上是 bf16）"
                              "在噪声之内持平。")
def _(m):
    """In-memory batches paid (over the naive loop) on every kind; on the Xeon without AMX its
    factor's interval lies beyond every other step's, on the other kinds it is not beyond the
    largest other step's (named per kind), nor that one beyond it."""
    other = {k: "3-optimiser" for k in m.kinds(AVX2_EPYC)} | {k: "5-bf16" for k in m.kinds(ZEN4, AMX_XEON)}
    kinds = _kinds(m, TRAIN)

    def largest_other(k):
        gains = _gains(m, k)
        return max((s for s in gains if s != "2-in-memory"), key=lambda s: m.between(k, TRAIN + s, TRAIN + {
            "3-optimiser": "2-in-memory", "4-channels-last": "3-optimiser", "5-bf16": "4-channels-last"}[s]))
    return all(m.outcome(k, TRAIN + "2-in-memory", TRAIN + "1-naive") == "paid" for k in kinds) and all(
        all(_beyond(_gains(m, k)["2-in-memory"], span) for s, span in _gains(m, k).items() if s != "2-in-memory")
        for k in m.kinds(NO_AMX_XEON)) and all(
        largest_other(k) == other[k] and not _beyond(_gains(m, k)["2-in-memory"], _gains(m, k)[other[k]])
        and not _beyond(_gains(m, k)[other[k]], _gains(m, k)["2-in-memory"]) for k in kinds if k in other)


@claim("naive-to-fast.md", "`channels_last` paid on the two Xeons\n   and was within noise on the AVX2 EPYC and the Zen 5, bf16 paid "
                           "on the Zen 5 and the Xeon with\n   AMX, and compiling lost in a run of seconds")
@claim("naive-to-fast.zh.md", "`channels_last` 在两台 Xeon 上有效，在 AVX2 EPYC 和 Zen 5 上在噪声之内；bf16 在 Zen 5 和带 AMX 的 Xeon "
                              "上有效；而在只需几秒的运行中，编译得不偿失")
@claim("naive-to-fast.md", "**`channels_last` paid on the two Xeons and was within noise on the AVX2 EPYC and the Zen 5;\n  "
                           "bf16 autocast paid on the Zen 5 and the Xeon with AMX**")
@claim("naive-to-fast.zh.md", "**`channels_last` 在两台 Xeon 上有效，在 AVX2 EPYC 和 Zen 5 上在噪声之内；bf16 autocast 在 Zen 5 "
                              "和带 AMX 的 Xeon 上有效**")
@claim("naive-to-fast.md", "on the Xeon without AMX it was within noise of step 4")
@claim("naive-to-fast.md", "where for inference bf16 lost")
@claim("naive-to-fast.zh.md", "在没有 AMX 的 Xeon 上，它与步骤 4 在噪声之内持平")
@claim("naive-to-fast.zh.md", "而那里推理时的 bf16 是变慢的")
@claim("naive-to-fast.md", "made the compiled loop reach the target later than step 4 it was built on, on every kind")
@claim("naive-to-fast.zh.md", "编译后的循环在每种 CPU 上都比它所基于的步骤 4 更晚达到目标")
@claim("naive-to-fast.md", "(or where bf16 does not pay, as on the Xeon without AMX, where it lost for\ninference and was "
                           "within noise in training)")
@claim("naive-to-fast.zh.md", "或者 bf16 没有收益时，比如在没有 AMX 的 Xeon 上：推理时它变慢，训练时在噪声之内")
def _(m):
    """The training rows of the AMD AVX-512 + BF16 kind are the Zen 5's (its reference's elsewhere)."""
    def step(k, new, old):
        return m.outcome(k, TRAIN + new, TRAIN + old)
    kinds = _kinds(m, TRAIN)
    return (all(step(k, "4-channels-last", "3-optimiser") == ("paid" if k in m.kinds(NO_AMX_XEON, AMX_XEON) else "even")
                for k in kinds)
            and set(m.having(TRAIN + "5-bf16")) == {*m.kinds(ZEN4, AMX_XEON), *m.kinds(NO_AMX_XEON)}
            and all(step(k, "5-bf16", "4-channels-last") == "paid" for k in m.kinds(ZEN4, AMX_XEON))
            and all(step(k, "5-bf16", "4-channels-last") == "even" and _said(m, k, "6-bf16", "5-compile", (R, RL)) == "lost"
                    for k in m.kinds(NO_AMX_XEON))
            and all(step(k, "compile-side-row", "4-channels-last") == "lost" for k in kinds))


@claim("naive-to-fast.md", "Every step stopped at or above the target accuracy, bf16 included.")
@claim("naive-to-fast.zh.md", "每个步骤停止时的准确率都达到或超过了目标，bf16 也不例外。")
def _(m):
    def reached(k):
        rows = [r for row_id, r in m.rows[k].items() if row_id.startswith(TRAIN)]
        return len(rows) >= 5 and all(r["params"]["accuracy_pct"] >= r["params"]["target_accuracy_pct"] for r in rows)
    return all(reached(k) and m.ratio(k, TRAIN + "4-channels-last") > 1 for k in _kinds(m, TRAIN)) and all(
        m.ratio(k, TRAIN + "5-bf16") > 1 for k in m.having(TRAIN + "5-bf16"))


@claim("naive-to-fast.md", "**Step 3, Adam on batches of 128 in place of SGD with momentum on batches of 64**, needed\n  "
                           "fewer epochs to the target on every kind")
@claim("naive-to-fast.zh.md", "**步骤 3，用批大小 128 的 Adam 代替批大小 64、带动量的 SGD**，在每种 CPU 上达到目标所需的轮数都更少")
def _(m):
    """Fewer epochs on every kind, and the step paid in time there (the steps table)."""
    return all(m.param(k, TRAIN + "3-optimiser", "epochs_to_target") < m.param(k, TRAIN + "2-in-memory", "epochs_to_target")
               and m.outcome(k, TRAIN + "3-optimiser", TRAIN + "2-in-memory") == "paid" for k in _kinds(m, TRAIN))


@claim("naive-to-fast.md", "the naive loop's interquartile range over the rounds, as a share of its median, was wider than the\n"
                           "compiled step's on every kind but the AVX2 EPYC, where in its latest run the compiled step's was the\n"
                           "widest of any fp32 step")
@claim("naive-to-fast.zh.md", "除 AVX2 EPYC 外，在每种 CPU 上朴素循环在各轮之间的四分位距占中位数的比例都比编译后的步骤大；在 AVX2 EPYC 最近一次运行中，编译后步骤的这一比例是所有 fp32 步骤中最大的")
def _(m):
    fp32 = ("1-naive", "2-inference-mode", "3-batching", "4-channels-last", "5-compile")
    avx2 = m.kinds(AVX2_EPYC)
    return all(_spread(m, k, R + "1-naive") > _spread(m, k, R + "5-compile") and m.ratio(k, R + "5-compile") > 1
               for k in _kinds(m) if k not in avx2) and all(
        max(fp32, key=lambda s: _spread(m, k, R + s)) == "5-compile" for k in avx2)


@claim("naive-to-fast.md", "and agreed with it on every image. In\nthroughput it ran level with the compiled model, within noise, "
                           "on every kind but the AVX2 EPYC;\nat batch 1 it gave back part of the compiled model's gain on the "
                           "Zen 4 and the Xeon with AMX")
@claim("naive-to-fast.md", "and was within noise of it on the Xeon without AMX")
@claim("naive-to-fast.md", "as fast as the compiled step in throughput, whose rounds spread widely in that run")
@claim("naive-to-fast.md", "as fast at batch 1, within noise.")
@claim("naive-to-fast.zh.md", "并且在每张图像上都与编译后的模型结果一致。除 AVX2 EPYC 外，吞吐量上它在每种 CPU 上都与编译后的模型在噪声之内持平；"
                              "批大小为 1 时，它在 Zen 4 和带 AMX 的 Xeon 上丢掉了编译后模型的一部分收益")
@claim("naive-to-fast.zh.md", "在没有 AMX 的 Xeon 上则与它在噪声之内持平")
@claim("naive-to-fast.zh.md", "（那次运行中编译后步骤各轮之间的波动很大），批大小为 1 时的速度是它的")
def _(m):
    package = "aotinductor-package-side-row"
    avx2 = m.kinds(AVX2_EPYC)
    return all(m.param(k, R + package, "load_s") < m.param(k, R + "5-compile", "compile_s") / 5
               and m.param(k, R + package, "top1_agreement_pct") == 100 for k in _kinds(m)) and all(
        m.outcome(k, R + package, R + "5-compile") == "even" for k in _kinds(m) if k not in avx2) and all(
        m.outcome(k, RL + package, RL + "5-compile") == "lost" for k in m.kinds(ZEN4, AMX_XEON)) and all(
        m.outcome(k, RL + package, RL + "5-compile") == "even" for k in m.kinds(NO_AMX_XEON)) and all(
        m.between(k, R + package, R + "5-compile") > 1.1 and m.outcome(k, RL + package, RL + "5-compile") == "even"
        and _spread(m, k, R + "5-compile") > 0.15  # "spread widely"
        for k in avx2)


@claim("naive-to-fast.md", "The bf16 and int8 packages, in the first recording of the Xeon with AMX (and the int8 one in the\n"
                           "AVX2 EPYC's, below), loaded and answered there in")
@claim("naive-to-fast.md", "agreed with fp32 exactly as\noften as their steps did. In throughput the bf16 package ran level with step 6")
@claim("naive-to-fast.md", "the int8 one slower than step 7")
@claim("naive-to-fast.md", "as fast as step 7, within noise, while the bf16 package was\nslower than step 6.")
@claim("naive-to-fast.md", "On the AVX2 EPYC the int8 package answered")
@claim("naive-to-fast.md", "as fast as step 7 at batch 1, within noise, with the same agreement with fp32; its throughput,")
@claim("naive-to-fast.md", "step 7's, is within noise too, and within how far step 7\n[landed from itself](#how-far-one-program-lands-from-itself) there.")
@claim("naive-to-fast.zh.md", "bf16 和 int8 服务包在带 AMX 的 Xeon 的第一次录制中测过（int8 服务包还在 AVX2 EPYC 的第一次录制中测过，见下文）")
@claim("naive-to-fast.zh.md", "与 fp32 的一致率和各自的步骤完全相同。吞吐量上（各自在最佳批大小下），bf16 服务包与步骤 6 持平")
@claim("naive-to-fast.zh.md", "int8 服务包比步骤 7 慢")
@claim("naive-to-fast.zh.md", "，在噪声之内，而 bf16 服务包比步骤 6 慢。")
@claim("naive-to-fast.zh.md", "在 AVX2 EPYC 上，int8 服务包批大小为 1 时的速度是步骤 7 的")
@claim("naive-to-fast.zh.md", "，在噪声之内，与 fp32 的一致率相同；它的吞吐量是步骤 7 的")
@claim("naive-to-fast.zh.md", "，同样在噪声之内，也没有超出步骤 7 在那里[与自身的差距](#how-far-one-program-lands-from-itself)。")
def _(m):
    """The AMX Xeon: the bf16 package level with step 6 in throughput and slower at batch 1, the
    int8 one slower than step 7 in throughput and within noise of it at batch 1; the AVX2 EPYC (int8
    only: no native bf16): within noise of step 7 in both regimes, and in throughput within how far
    step 7 lands from itself there. Each agrees with fp32 as its step does and loads in a fraction
    of its step's compile time."""
    packages = {"aotinductor-package-bf16-side-row": "6-bf16", PACKAGE_INT8: "7-int8"}
    verdicts = {("aotinductor-package-bf16-side-row", R): "even", ("aotinductor-package-bf16-side-row", RL): "lost",
                (PACKAGE_INT8, R): "lost", (PACKAGE_INT8, RL): "even"}
    return set(m.having(R + PACKAGE_INT8)) == {*m.kinds(AMX_XEON), *m.kinds(AVX2_EPYC)} and all(
        m.param(k, R + PACKAGE_INT8, "top1_agreement_pct") == m.param(k, R + "7-int8", "top1_agreement_pct")
        and all(m.outcome(k, g + PACKAGE_INT8, g + "7-int8") == "even" for g in (R, RL))
        and m.between(k, RL + PACKAGE_INT8, RL + "7-int8") > 1 and _within_self_gap(m, k, PACKAGE_INT8, "7-int8")
        for k in m.kinds(AVX2_EPYC)) and all(
        m.param(k, R + package, "load_s") < m.param(k, R + step, "compile_s") / 5
        and m.param(k, R + package, "top1_agreement_pct") == m.param(k, R + step, "top1_agreement_pct")
        and all(m.outcome(k, g + package, g + step) == verdicts[package, g] for g in (R, RL))
        for k in m.kinds(AMX_XEON) for package, step in packages.items())


@claim("naive-to-fast.md", "The AMD AVX-512 + BF16 kind measured both packages only in its Zen 5 recordings, which the\n"
                           "tables do not show, and there they lost: the int8 package was slower than step 7 beyond noise, in\n"
                           "throughput and, several times slower, at batch 1; the bf16 package was within noise of step 6 in\n"
                           "throughput and slower at batch 1.")
@claim("naive-to-fast.zh.md", "AMD AVX-512 + BF16 这类 CPU 只在它的 Zen 5 录制里测过这两个服务包，表中没有列出，而在那里它们是变慢的："
                              "int8 服务包超出噪声地慢于步骤 7，吞吐量如此，批大小为 1 时更是慢了好几倍；bf16 服务包的吞吐量与"
                              "步骤 6 在噪声之内持平，批大小为 1 时更慢。")
def _(m):
    """The packages on the Zen 4's kind, only in its Zen 5 recordings (m.recordings), by the rule over
    them; the int8 one at batch 1 under a third as fast as step 7 in each ("several times slower")."""
    bf16 = "aotinductor-package-bf16-side-row"
    return all(_zen5_only(m, g + p) for g in (R, RL) for p in (bf16, PACKAGE_INT8)) and (
        all(_over(m, ZEN4, g + PACKAGE_INT8, g + "7-int8") == "lost" for g in (R, RL))
        and all(high < 1 / 3 for _, high in m.spans_each(ZEN4, RL + PACKAGE_INT8, RL + "7-int8"))
        and _over(m, ZEN4, R + bf16, R + "6-bf16") == "even"
        and _over(m, ZEN4, RL + bf16, RL + "6-bf16") == "lost")


@claim("naive-to-fast.md", "tcmalloc paid for step 7 at batch 1 on the Xeon with AMX: in a fresh process with tcmalloc\n"
                           "preloaded, step 7 answered")
@claim("naive-to-fast.md", "the two were within noise. That fits")
@claim("naive-to-fast.md", "With tcmalloc, step 7 was level within noise with step 7 and its control\nin throughput there, and "
                           "at batch 1 level within noise with the TorchScript row, PyTorch's fastest.")
@claim("naive-to-fast.md", "On the AVX2 EPYC, the other kind whose first recording has these two rows, step 7 with tcmalloc\n"
                           "was within noise of its control in both regimes")
@claim("naive-to-fast.md", "AMD AVX-512 + BF16 kind has the two rows only in its Zen 5 recordings: there step 7 with tcmalloc\n"
                           "was ahead of its control beyond noise in some and within noise in others, in each regime, so within\n"
                           "noise.")
@claim("naive-to-fast.zh.md", "tcmalloc 在带 AMX 的 Xeon 上对批大小为 1 的步骤 7 有效")
@claim("naive-to-fast.zh.md", "，两者在噪声之内持平。这与")
@claim("naive-to-fast.zh.md", "用上 tcmalloc 后，步骤 7 在那台机器上的吞吐量与步骤 7 及其对照组在噪声之内持平；批大小为 1 时，"
                              "它与 PyTorch 最快的 TorchScript 那一行在噪声之内持平。")
@claim("naive-to-fast.zh.md", "在 AVX2 EPYC（第一次录制里有这两行的另一种 CPU）上，用上 tcmalloc 的步骤 7 在两种场景下都与对照组在噪声之内持平")
@claim("naive-to-fast.zh.md", "AMD AVX-512 + BF16 这类 CPU 只在它的 Zen 5 录制里有这两行：在那里，两种场景下用上 tcmalloc 的步骤 7 都在"
                              "一些录制中超出噪声地领先对照组，在另一些中在噪声之内，所以在噪声之内。")
def _(m):
    """tcmalloc against its control, glibc's malloc, step 7 in a fresh process each, tcmalloc found
    mapped in its child and glibc's malloc in the control's. The AMX Xeon: paid at batch 1, within
    noise in throughput (of the control and of step 7), and at batch 1 within noise of the
    TorchScript row, PyTorch's fastest there. The AVX2 EPYC: within noise of the control in both. The
    Zen 4's kind, in its Zen 5 recordings only: ahead in some, within noise in others, in each regime."""
    kinds = m.kinds(AMX_XEON)
    return set(m.having(R + TCMALLOC)) == {*kinds, *m.kinds(AVX2_EPYC)} and all(
        "libtcmalloc" in m.row(k, g + TCMALLOC)["params"]["allocator"]
        and m.row(k, g + GLIBC)["params"]["allocator"] == "glibc malloc"
        for k in m.having(R + TCMALLOC) for g in (R, RL)) and all(
        m.outcome(k, g + TCMALLOC, g + GLIBC) == "even" for k in m.kinds(AVX2_EPYC) for g in (R, RL)) and all(
        m.outcome(k, RL + TCMALLOC, RL + GLIBC) == "paid" and m.outcome(k, R + TCMALLOC, R + GLIBC) == "even"
        and m.outcome(k, R + TCMALLOC, R + "7-int8") == "even"
        and _fastest(m, k, RL, False) == TORCHSCRIPT and m.outcome(k, RL + TCMALLOC, RL + TORCHSCRIPT) == "even"
        for k in kinds) and all(_zen5_only(m, g + row) for g in (R, RL) for row in (TCMALLOC, GLIBC)) and (
        all(_disagreed(m, ZEN4, g + TCMALLOC, g + GLIBC, "paid") for g in (R, RL)))


@claim("naive-to-fast.md", "The allocator rows' control is step 7 again, with the same malloc, in\na fresh process instead of the benchmark's own")
@claim("naive-to-fast.md", "each row the median of three rounds.")
@claim("naive-to-fast.md", "Nothing but the process differs between the two rows, yet on the AVX2 EPYC\n"
                           "[the rule](benchmark.md#when-a-difference-counts) puts that difference beyond noise")
@claim("naive-to-fast.md", "On the AVX2 EPYC's VM, treat a\ndifference in throughput smaller than that as the machine's noise")
@claim("naive-to-fast.zh.md", "分配器两行的对照组就是步骤 7 本身，malloc 也相同，只是放在一个新进程里")
@claim("naive-to-fast.zh.md", "每一行都是三轮的中位数。两行之间除了进程没有任何不同，但在 AVX2 EPYC 上，[判定规则](benchmark.md#when-a-difference-counts)认为这个差距超出了噪声")
@claim("naive-to-fast.zh.md", "在 AVX2 EPYC 的虚拟机上，比这更小的吞吐量差距应当看作机器的噪声")
def _(m):
    """The control is step 7 (the same int8 model: the same agreement with fp32, at the same batch
    size) with glibc's malloc, each throughput row the median of three rounds; the fresh process ran
    faster on the AVX2 EPYC by more than a tenth, further from step 7 than on the Xeon with AMX."""
    kinds = [*m.kinds(AVX2_EPYC), *m.kinds(AMX_XEON)]
    return bool(kinds) and all(
        m.row(k, R + GLIBC)["params"]["allocator"] == "glibc malloc"
        and all(m.param(k, R + row, "top1_agreement_pct") == m.param(k, R + "7-int8", "top1_agreement_pct")
                and m.row(k, R + row)["runs"] == 3 for row in (GLIBC, "7-int8"))
        and m.param(k, R + GLIBC, "batch") == m.param(k, R + "7-int8", "batch") for k in kinds) and all(
        m.between(k, R + GLIBC, R + "7-int8") > 1.1 and _self_gap(m, k) > max(_self_gap(m, a) for a in m.kinds(AMX_XEON))
        and m.outcome(k, R + GLIBC, R + "7-int8") == "paid" for k in m.kinds(AVX2_EPYC))


@claim("naive-to-fast.md", "On the Xeon with\nAMX it answered a single image")
@claim("naive-to-fast.md", "the\nfastest of PyTorch's rows at batch 1 there, though level within noise with step 7 under tcmalloc\n"
                           "(below), while its throughput was")
@claim("naive-to-fast.md", "OpenVINO's int8 still answered")
@claim("naive-to-fast.md", "On the AVX2 EPYC, the other kind whose first recording has this row, it answered")
@claim("naive-to-fast.md", "as fast as step 7 at batch 1, PyTorch's fastest row there, level within\nnoise with the int8 package "
                           "and step 7 under tcmalloc, and no runtime answered faster beyond\nnoise")
@claim("naive-to-fast.md", "were both within noise of it.")
@claim("naive-to-fast.zh.md", "在带 AMX 的 Xeon 上，它处理单张图像的速度是步骤 7 的")
@claim("naive-to-fast.zh.md", "是那台机器上批大小为 1 时 PyTorch 最快的一行，不过与用 tcmalloc 的步骤 7（见下文）在噪声之内持平；"
                              "而它的吞吐量只有步骤 7 的")
@claim("naive-to-fast.zh.md", "OpenVINO 的 int8 回答得仍然是它的")
@claim("naive-to-fast.zh.md", "在 AVX2 EPYC（第一次录制里有这一行的另一种 CPU）上，它批大小为 1 时的速度是步骤 7 的")
@claim("naive-to-fast.zh.md", "，是那里 PyTorch 最快的一行，与 int8 服务包和用 tcmalloc 的步骤 7 在噪声之内持平；"
                              "也没有哪个运行时超出噪声地回答得更快")
@claim("naive-to-fast.zh.md", "都与它在噪声之内持平。")
def _(m):
    """The TorchScript row (the eager int8 operators, primitives kept): at batch 1 faster than step
    7 beyond noise and PyTorch's fastest row, within noise of tcmalloc's row; on the AMX Xeon slower
    than step 7 in throughput and OpenVINO's int8 faster than it at batch 1; on the AVX2 EPYC within
    noise of the int8 package too, and both runtimes' int8 within noise of it."""
    kinds = m.kinds(AMX_XEON)
    return set(m.having(RL + TORCHSCRIPT)) == {*kinds, *m.kinds(AVX2_EPYC)} and all(
        m.outcome(k, RL + TORCHSCRIPT, RL + "7-int8") == "paid" and _fastest(m, k, RL, False) == TORCHSCRIPT
        and m.outcome(k, RL + TORCHSCRIPT, RL + TCMALLOC) == "even" for k in m.having(RL + TORCHSCRIPT)) and all(
        m.outcome(k, RL + TORCHSCRIPT, RL + PACKAGE_INT8) == "even"
        and all(m.outcome(k, RL + rt, RL + TORCHSCRIPT) == "even"
                for rt in ("onnx-runtime-int8-other-runtime", "openvino-int8-other-runtime"))
        for k in m.kinds(AVX2_EPYC)) and all(
        m.outcome(k, R + TORCHSCRIPT, R + "7-int8") == "lost"
        and m.outcome(k, RL + "openvino-int8-other-runtime", RL + TORCHSCRIPT) == "paid" for k in kinds)


def _zen5_only(m, row_id):
    """The row is in none of the Zen 4's kind's rows the tables show (its first recording and the
    groups later ones added), nor in that first recording, but in its later (Zen 5) recordings."""
    recordings = m.recordings[ZEN4]
    return (row_id not in m.rows[ZEN4] and row_id not in recordings[0]
            and any(row_id in rows for rows in recordings[1:]))


def _over(m, k, row_id, other_id):
    """The rule's verdict over every recording of the kind that has both rows (bench.noise.across),
    from m.spans_each: for rows that only later recordings have, which m.outcome cannot read."""
    spans = m.spans_each(k, row_id, other_id)
    return outcome((min(low for low, _ in spans), max(high for _, high in spans)))


@claim("naive-to-fast.md", "The AMD AVX-512 + BF16 kind has this row only in its Zen 5 recordings, which the tables do not\n"
                           "show. Its recordings disagree there: against step 7 it was faster at batch 1 beyond noise in some\n"
                           "of them, slower in throughput beyond noise in some, and within noise in the rest, so it is within\n"
                           "noise of step 7 in both regimes. At batch 1 it was level within noise with ONNX Runtime's int8.")
@claim("naive-to-fast.zh.md", "AMD AVX-512 + BF16 这类 CPU 只在它的 Zen 5 录制里有这一行，表中没有列出。这些录制结论不一：与步骤 7 相比，"
                              "它批大小为 1 时在一些录制中超出噪声地更快，吞吐量上在一些录制中超出噪声地更慢，其余都在噪声之内，所以它在"
                              "两种场景下都与步骤 7 在噪声之内持平。批大小为 1 时，它与 ONNX Runtime 的 int8 在噪声之内持平。")
def _(m):
    """The TorchScript row on the Zen 4's kind: only in the Zen 5 recordings (m.recordings), whose
    verdicts against step 7 disagree in each regime; level with ONNX Runtime's int8 over them."""
    return all(_zen5_only(m, g + TORCHSCRIPT) for g in (R, RL)) and (
        _disagreed(m, ZEN4, RL + TORCHSCRIPT, RL + "7-int8", "paid")
        and _disagreed(m, ZEN4, R + TORCHSCRIPT, R + "7-int8", "lost")
        and _over(m, ZEN4, RL + "onnx-runtime-int8-other-runtime", RL + TORCHSCRIPT) == "even")


@claim("naive-to-fast.md", "On every kind the fp32 steps agreed on every image")
@claim("naive-to-fast.zh.md", "在每种 CPU 上，fp32 各步骤在每张图像上都一致")
@claim("naive-to-fast.md", "none of them\n   changes a result (the fp32 steps agreed with eager fp32 on every image")
@claim("naive-to-fast.zh.md", "它们都不改变任何结果（fp32 各步骤在每张图像上都与 eager fp32 一致")
def _(m):
    return all(m.param(k, R + s, "top1_agreement_pct") == 100 and m.ratio(k, R + s) >= 1
               for k in _kinds(m) for s in ("2-inference-mode", "3-batching", "4-channels-last", "5-compile"))


@claim("naive-to-fast.md", "int8's lowest agreement and largest logit difference are the AVX2 EPYC's, the one kind without\nVNNI")
@claim("naive-to-fast.md", "so it may not be the whole story")
@claim("naive-to-fast.md", "the lowest agreement\n  is int8's on the AVX2 EPYC")
@claim("naive-to-fast.md", "There it also changed the most answers")
@claim("naive-to-fast.zh.md", "int8 一致率最低、logits 偏移最大的是 AVX2 EPYC，也就是唯一没有 VNNI 的那种 CPU")
@claim("naive-to-fast.zh.md", "所以这可能不是全部原因")
@claim("naive-to-fast.zh.md", "一致率最低的是 AVX2 EPYC 上的 int8")
@claim("naive-to-fast.zh.md", "不过它在那里改变的结果也最多")
def _(m):
    """Step 7's agreement with fp32 (a share of 64 images, so at most 100%) lowest and its logit
    difference largest on the AVX2 EPYC, the only kind of its level; the transformer's int8 lowest
    there too, of every low-precision transformer row; ONNX Runtime's int8, which sets reduce_range
    there, also agreeing less there than on the Zen 4."""
    def agreement(k, row):
        share = m.param(k, row, "top1_agreement_pct")
        assert 0 < share <= 100, f"{k} {row}: an agreement of {share}%"
        return share
    kinds, avx2 = _kinds(m), m.kinds(AVX2_EPYC)
    onnx = R + "onnx-runtime-int8-other-runtime"
    low_precision = [(k, T + s) for k in _kinds(m, T) for s in ("6-bf16", "7-int8") if T + s in m.rows[k]]
    return m.kinds("avx2") == avx2 and all(
        agreement(a, R + "7-int8") < min(agreement(k, R + "7-int8") for k in kinds if k not in avx2)
        and m.param(a, R + "7-int8", "max_abs_logit_diff") > max(m.param(k, R + "7-int8", "max_abs_logit_diff")
                                                                for k in kinds if k not in avx2)
        and min(low_precision, key=lambda kr: agreement(*kr)) == (a, T + "7-int8")
        and agreement(a, onnx) < min(agreement(k, onnx) for k in m.kinds(ZEN4)) for a in avx2)


@claim("naive-to-fast.md", "**Another runtime's int8 was the fastest row of all, beyond noise, on the two Xeons**, in\n  "
                           "throughput and at batch 1: OpenVINO's on the Xeon with AMX, ONNX Runtime's on the Xeon without\n  "
                           "AMX (where OpenVINO's int8 is not measured yet). On the Zen 4 OpenVINO's int8 had the best\n  "
                           "figure in both regimes too, ahead of PyTorch's step 7 beyond noise, but not in every Zen 5\n  "
                           "recording of that kind: over the kind's recordings it was level within noise with step 7\n  "
                           "and with ONNX Runtime's int8. On the AVX2 EPYC the fastest rows were level within noise\n  "
                           "in both regimes: the two runtimes' int8 and PyTorch's int8 side rows")
@claim("naive-to-fast.zh.md", "**在两台 Xeon 上，所有行中最快的是另一个运行时的 int8，且超出噪声**，无论吞吐量还是批大小为 1 都是如此："
                              "在带 AMX 的 Xeon 上是 OpenVINO 的 int8，在没有 AMX 的 Xeon 上是 ONNX Runtime 的 int8（OpenVINO 的 int8 "
                              "还没有在上面测过）。在 Zen 4 上，两种场景下数字最好的也是 OpenVINO 的 int8，超出噪声地领先 PyTorch 的步骤 7，"
                              "但同类 CPU 的 Zen 5 录制并非每次都如此：这类 CPU 的所有录制合起来，它与步骤 7 和 ONNX Runtime 的 int8 "
                              "都在噪声之内持平。在 AVX2 EPYC 上，两种场景下最快的几行都在噪声之内持平：两个运行时的 int8 和 PyTorch 的几个 int8 附加行")
def _(m):
    """On the two Xeons the named runtime's int8 is the group's fastest row and beyond noise of every
    other row; on the AMD AVX-512 + BF16 kind OpenVINO's int8 has the best figure (the Zen 4's) and
    was ahead of step 7 beyond noise on the Zen 4 and not in some Zen 5 recording, within noise over them, with
    exactly step 7 and ONNX Runtime's int8 level with it; on the AVX2 EPYC the rows within noise of
    the fastest include both runtimes' int8 and PyTorch int8 side rows."""
    winner = {**{(k, g): "openvino" for k in m.kinds(AMX_XEON) for g in (R, RL)},
              **{(k, g): "onnx-runtime" for k in m.kinds(NO_AMX_XEON) for g in (R, RL)}}
    openvino, onnx = "openvino-int8-other-runtime", "onnx-runtime-int8-other-runtime"

    def alone(k, g):
        top = winner[k, g] + "-int8-other-runtime"
        return _fastest(m, k, g) == top and _level_with(m, k, g, top) == {top}

    def zen4(k, g):
        return (_fastest(m, k, g) == openvino and _level_with(m, k, g, openvino) == {openvino, "7-int8", onnx}
                and _disagreed(m, k, g + openvino, g + "7-int8", "paid", zen4="paid"))

    def avx2_level(k, g):
        level = _level_with(m, k, g, _fastest(m, k, g))
        return {"onnx-runtime-int8-other-runtime", "openvino-int8-other-runtime"} <= level and any(
            i.startswith("int8-") or i.startswith("aotinductor-package-int8") for i in level)
    return set(m.having(R + openvino)) == {*m.kinds(ZEN4, AMX_XEON), *m.kinds(AVX2_EPYC)} and all(
        alone(k, g) for k in _with_runtimes(m) if k in m.kinds(AMX_XEON, NO_AMX_XEON) for g in (R, RL)) and all(
        zen4(k, g) for k in m.kinds(ZEN4) for g in (R, RL)) and all(
        avx2_level(k, g) for k in m.kinds(AVX2_EPYC) for g in (R, RL))


def _openvino_wide(m, k):
    """The places (in m.recordings[k]) of the Zen 5 recordings in which OpenVINO's profiled calls
    spread widely: the whole call's interquartile range over a quarter of its median, its time around
    the operators' over its median; empty unless every other recording's whole call stayed under a
    tenth (the sentence sets the wide ones apart)."""
    def share(rows, name):
        row = rows[_part("openvino", name)]
        return row["spread"] / row["median"]
    profiled = [(i, rows) for i, rows in enumerate(m.recordings[k]) if _part("openvino", "whole-call") in rows]
    wide = {i for i, rows in profiled if share(rows, "whole-call") > 0.25 and share(rows, "around-the-operators") > 1}
    tidy = all(share(rows, "whole-call") < 0.1 for i, rows in profiled if i not in wide)
    return wide if tidy and 0 not in wide else set()


def _wide_apart(m, k, row_id, other_id, there, elsewhere):
    """In the recordings where OpenVINO's profile spread widely the rule says `there`, in the others
    (that have both rows) `elsewhere` (None: anything)."""
    wide, words = _openvino_wide(m, k), _each(m, k, row_id, other_id)
    return bool(wide) and all(words[i] == there for i in wide) and (elsewhere is None or all(
        w == elsewhere for i, w in enumerate(words) if w is not None and i not in wide))


@claim("naive-to-fast.md", "**At batch 1 a runtime was ahead beyond noise at every precision on every kind but at fp32 and\n  "
                           "bf16 on the AMD AVX-512 + BF16 kind**: there each fp32 runtime, and OpenVINO's bf16, was\n  "
                           "ahead of PyTorch's step beyond noise in some recordings and within noise in others, so within\n  "
                           "noise over the kind's recordings. No runtime was behind PyTorch's step of its precision.")
@claim("naive-to-fast.md", "finds PyTorch's int8 call spending more time around its operators than ONNX Runtime on every kind "
                           "it profiled, and than OpenVINO on every kind but the AMD AVX-512 + BF16 kind, where OpenVINO's "
                           "profiled calls spread widely in a Zen 5 recording, so the two are within noise over the kind's recordings.")
@claim("naive-to-fast.zh.md", "**批大小为 1 时，除 AMD AVX-512 + BF16 这类 CPU 上的 fp32 和 bf16 外，每种 CPU 的每种精度下都有运行时"
                              "超出噪声地领先**：在这类 CPU 上，两个 fp32 运行时和 OpenVINO 的 bf16 都在一些录制中超出噪声地领先 PyTorch "
                              "的步骤，在另一些中在噪声之内，所以这类 CPU 的所有录制合起来在噪声之内。没有哪个运行时落后于 PyTorch 同精度的步骤。")
@claim("naive-to-fast.zh.md", "在分析过的每种 CPU 上，PyTorch 的 int8 调用在算子之外花的时间都比 ONNX Runtime 多，也都比 OpenVINO 多，"
                              "只有 AMD AVX-512 + BF16 这类 CPU 例外：它的一次 Zen 5 录制中 OpenVINO 被分析的调用波动很大，所以这类 CPU "
                              "的所有录制合起来两者在噪声之内。")
def _(m):
    measured = [(k, rt) for k in _with_runtimes(m) for rt in RUNTIMES if RL + rt in m.rows[k]]
    words = {(k, rt): m.outcome(k, RL + rt, RL + RUNTIMES[rt]) for k, rt in measured}
    steps = {(k, RUNTIMES[rt]) for k, rt in measured}
    zen4 = {(k, step) for k in m.kinds(ZEN4) for step in ("5-compile", "6-bf16")}  # fp32 and bf16 there
    profiled = m.having(_part("pytorch-step-7", "around-the-operators"))
    return "lost" not in words.values() and all(
        any(words[k, rt] == "paid" for kk, rt in measured if kk == k and RUNTIMES[rt] == step) == ((k, step) not in zen4)
        for k, step in steps) and all(words[k, rt] == "even" for k, rt in measured if (k, RUNTIMES[rt]) in zen4) and all(
        {rt for kk, rt in measured if kk == k and RUNTIMES[rt] == "5-compile"}
        == {"onnx-runtime-fp32-other-runtime", "openvino-fp32-other-runtime"}
        and all(_disagreed(m, k, RL + rt, RL + RUNTIMES[rt], "paid")
                for rt in ("onnx-runtime-fp32-other-runtime", "openvino-fp32-other-runtime", "openvino-bf16-other-runtime"))
        for k in m.kinds(ZEN4)) and all(
        m.outcome(k, _part(rt, "around-the-operators"), _part("pytorch-step-7", "around-the-operators")) == "lost"
        for k in profiled for rt in ("onnx-runtime", "openvino") if (k, rt) != (ZEN4, "openvino")) and all(
        m.outcome(k, _part("openvino", "around-the-operators"), _part("pytorch-step-7", "around-the-operators")) == "even"
        and _wide_apart(m, k, _part("openvino", "around-the-operators"), _part("pytorch-step-7", "around-the-operators"),
                        "even", "lost") for k in m.kinds(ZEN4))


@claim("naive-to-fast.md", "**In throughput the gap depends on the CPU**: on the Zen 4 no runtime was more than")
@claim("naive-to-fast.md", "PyTorch's step of the same precision (OpenVINO's int8), and PyTorch's int8 was level with\n  "
                           "ONNX Runtime's, within noise")
@claim("naive-to-fast.zh.md", "**吞吐量上的差距取决于 CPU**：在 Zen 4 上，没有哪个运行时超过 PyTorch 同精度步骤的")
@claim("naive-to-fast.zh.md", "（OpenVINO 的 int8），PyTorch 的 int8 与 ONNX Runtime 的在噪声之内持平")
def _(m):
    """The quoted figure is the Zen 4's largest runtime lead in throughput, and a small one; ONNX
    Runtime's int8 within noise of PyTorch's."""
    leads = {rt: _runtime(m, k, R, rt) for k in m.kinds(ZEN4) for rt in RUNTIMES}
    return (max(leads, key=leads.get) == "openvino-int8-other-runtime" and 1 < leads["openvino-int8-other-runtime"] < 1.12
            and all(m.outcome(k, R + "onnx-runtime-int8-other-runtime", R + "7-int8") == "even" for k in m.kinds(ZEN4)))


@claim("naive-to-fast.md", "ahead of PyTorch's int8, beyond noise, and its fp32")
@claim("naive-to-fast.md", "compiled fp32's, within noise. On the AVX2 machine ONNX Runtime's int8 ran")
@claim("naive-to-fast.md", "as fast as PyTorch's int8 step, beyond noise, but")
@claim("naive-to-fast.md", "as fast as the same step in a fresh process, within noise: step 7\n  "
                           "[landed further from itself](#how-far-one-program-lands-from-itself) than that there.")
@claim("naive-to-fast.zh.md", "而在没有 AMX 的 Xeon 上，ONNX Runtime 的 int8 超出噪声地领先 PyTorch 的 int8")
@claim("naive-to-fast.zh.md", "它的 fp32 是编译后 fp32 的")
@claim("naive-to-fast.zh.md", "，在噪声之内。在 AVX2 机器上，ONNX Runtime 的 int8 的速度是 PyTorch int8 步骤的")
@claim("naive-to-fast.zh.md", "，超出噪声，但只是同一步骤在新进程中的")
@claim("naive-to-fast.zh.md", "，在噪声之内：步骤 7 在那里[与自身的差距](#how-far-one-program-lands-from-itself)比这还大。")
def _(m):
    """The Xeon without AMX: ONNX Runtime's int8 ahead of step 7 beyond noise, its fp32 within noise
    of step 5. The AVX2 EPYC: its int8 ahead of step 7 beyond noise, within noise of step 7 in a
    fresh process, and closer to that than step 7 is to itself."""
    onnx = "onnx-runtime-int8-other-runtime"
    return (all(m.outcome(k, R + onnx, R + "7-int8") == "paid" and m.outcome(k, R + onnx, R + GLIBC) == "even"
                and _self_gap(m, k) > max(m.between(k, R + onnx, R + GLIBC), 1 / m.between(k, R + onnx, R + GLIBC))
                for k in m.kinds(AVX2_EPYC))
            and all(m.outcome(k, R + onnx, R + "7-int8") == "paid"
                    and m.outcome(k, R + "onnx-runtime-fp32-other-runtime", R + "5-compile") == "even"
                    for k in m.kinds(NO_AMX_XEON)))


@claim("naive-to-fast.md", "On the Xeon with AMX PyTorch's int8 step ran")
@claim("naive-to-fast.md", "as fast as ONNX Runtime's int8, and OpenVINO's int8")
@claim("naive-to-fast.zh.md", "在带 AMX 的 Xeon 上，PyTorch 的 int8 步骤的速度是 ONNX Runtime int8 的")
@claim("naive-to-fast.zh.md", "而 OpenVINO 的 int8 是 PyTorch 的")
def _(m):
    return all(m.outcome(k, R + "7-int8", R + "onnx-runtime-int8-other-runtime") == "paid"
               and m.outcome(k, R + "openvino-int8-other-runtime", R + "7-int8") == "paid" for k in m.kinds(AMX_XEON))


@claim("naive-to-fast.md", "So must you leave PyTorch for speed? At batch 1, yes, on the two Xeons, beyond noise")
@claim("naive-to-fast.md", "On the Zen 4 OpenVINO's int8 answered")
@claim("naive-to-fast.md", "as fast as step 7, PyTorch's fastest row in that recording, beyond noise there, but not in every "
                           "Zen 5 recording of that kind: over the kind's recordings the lead was within noise")
@claim("naive-to-fast.md", "ONNX Runtime's int8, though, was ahead of step 7 at batch 1 beyond noise over the kind's recordings")
@claim("naive-to-fast.md", "and level within noise with the TorchScript\nrow, which only its Zen 5 recordings have.")
@claim("naive-to-fast.md", "On the AVX2 EPYC PyTorch's TorchScript int8 row was level with\nONNX Runtime's int8")
@claim("naive-to-fast.md", "In throughput the runtime was ahead beyond noise on the\ntwo Xeons too, by less")
@claim("naive-to-fast.md", "beyond noise there but within noise over the\nkind's recordings")
@claim("naive-to-fast.md", "it was level within noise, and less than step 7\n[differed from itself](#how-far-one-program-lands-from-itself) there.")
@claim("naive-to-fast.zh.md", "那么，要为了速度离开 PyTorch 吗？看批大小为 1 的延迟，在两台 Xeon 上答案是要，且超出噪声")
@claim("naive-to-fast.zh.md", "在 Zen 4 上，OpenVINO 的 int8 的速度是那次录制中 PyTorch 最快一行步骤 7 的")
@claim("naive-to-fast.zh.md", "，在那里超出噪声，但同类 CPU 的 Zen 5 录制并非每次都如此：这类 CPU 的所有录制合起来，这一领先在噪声之内")
@claim("naive-to-fast.zh.md", "不过 ONNX Runtime 的 int8 在这类 CPU 的所有录制合起来，批大小为 1 时超出噪声地领先步骤 7")
@claim("naive-to-fast.zh.md", "并与只有它的 Zen 5 录制才有的 TorchScript 那一行在噪声之内持平。")
@claim("naive-to-fast.zh.md", "在 AVX2 EPYC 上，PyTorch 的 TorchScript int8 一行与 ONNX Runtime 的 int8 持平")
@claim("naive-to-fast.zh.md", "吞吐量上，在两台 Xeon 上运行时同样超出噪声地领先，只是幅度更小")
@claim("naive-to-fast.zh.md", "，在那里超出噪声，但这类 CPU 的所有录制合起来在噪声之内")
@claim("naive-to-fast.zh.md", "在噪声之内持平，也比步骤 7 在那里[与自身的差距](#how-far-one-program-lands-from-itself)还小。")
def _(m):
    """The fastest runtime ahead of PyTorch's fastest row beyond noise in both regimes, by less in
    throughput, on the two Xeons; on the AMD AVX-512 + BF16 kind OpenVINO's int8 against step 7,
    PyTorch's fastest (the Zen 4's figures), ahead beyond noise on the Zen 4, not in some Zen 5
    recording, and within noise over them, in both regimes; ONNX Runtime's int8 ahead of step 7 at
    batch 1 over them and level with the TorchScript row, which only the Zen 5 recordings have; on the AVX2 EPYC within noise in both (ONNX Runtime's
    int8 against the TorchScript row at batch 1), and in throughput by less than step 7 lands from
    itself there."""
    avx2 = m.kinds(AVX2_EPYC)

    def verdict(k, g):
        return m.outcome(k, g + _fastest(m, k, g, True), g + _fastest(m, k, g, False))
    return all(verdict(k, RL) == verdict(k, R) == "paid" and 1 < _lead(m, k, R) < _lead(m, k, RL)
               for k in _with_runtimes(m) if k in m.kinds(AMX_XEON, NO_AMX_XEON)) and all(
        _fastest(m, k, g, True) == "openvino-int8-other-runtime" and _fastest(m, k, g, False) == "7-int8"
        and _disagreed(m, k, g + "openvino-int8-other-runtime", g + "7-int8", "paid", zen4="paid")
        for k in m.kinds(ZEN4) for g in (R, RL)) and all(
        outcome(m.figure("naive-to-fast", name)) == "even"
        for name in ("interval_zen_rn50_b1_openvino_int8_vs_7_int8", "interval_zen_rn50_openvino_int8_vs_7_int8")) and all(
        m.outcome(k, RL + "onnx-runtime-int8-other-runtime", RL + "7-int8") == "paid"
        and outcome(m.figure("naive-to-fast", "interval_zen_rn50_b1_onnx_int8_vs_7_int8")) == "paid"
        and _over(m, k, RL + "onnx-runtime-int8-other-runtime", RL + TORCHSCRIPT) == "even" and _zen5_only(m, RL + TORCHSCRIPT)
        for k in m.kinds(ZEN4)) and all(
        verdict(k, RL) == verdict(k, R) == "even" and _lead(m, k, R) < _self_gap(m, k)
        and _fastest(m, k, RL, False) == TORCHSCRIPT and _fastest(m, k, RL, True) == "onnx-runtime-int8-other-runtime"
        for k in avx2)


@claim("naive-to-fast.md", "On the Zen 4 PyTorch's int8 call lost to OpenVINO's on both counts, and to ONNX Runtime's\n"
                           "around its operators")
@claim("naive-to-fast.md", "more than twice what ONNX Runtime spent there (OpenVINO's time there, found by subtraction, can come out too\n"
                           "small, as said above). Over the kind's recordings only the time around the operators stays behind\n"
                           "ONNX Runtime's beyond noise. The convolutions against ONNX Runtime's are within noise there, slower\n"
                           "beyond noise in some recordings only. Against OpenVINO both counts are within noise there too: in a\n"
                           "Zen 5 recording whose OpenVINO profile spread widely, OpenVINO's convolutions took longer than\n"
                           "PyTorch's. On the Zen 4, against OpenVINO the convolutions are the larger part of the gap")
@claim("naive-to-fast.zh.md", "在 Zen 4 上，PyTorch 的 int8 调用在两方面都落后于 OpenVINO，在算子之外也落后于 ONNX Runtime")
@claim("naive-to-fast.zh.md", "是 ONNX Runtime 在这部分所花时间的两倍以上（OpenVINO 这部分的时间是减出来的，如上所述可能偏小）。"
                              "这类 CPU 的所有录制合起来，只有算子之外的时间超出噪声地落后于 ONNX Runtime。卷积与 ONNX Runtime 的相比"
                              "在噪声之内，只在一些录制中超出噪声地更慢。与 OpenVINO 相比，两方面也都在噪声之内：在一次 OpenVINO 分析"
                              "结果波动很大的 Zen 5 录制中，OpenVINO 的卷积比 PyTorch 的还慢。在 Zen 4 上，与 OpenVINO 相比，差距的大头在卷积")
def _(m):
    """The profile's parts are times (a row's ratio is its share of the call; the outcome of the
    runtime's part over PyTorch's is lost where the runtime's time is shorter). On the Zen 4 (the
    first recording) PyTorch's convolutions and time around the operators longer than OpenVINO's,
    and its time around them longer than ONNX Runtime's, beyond noise; over the kind's recordings
    only the latter stays beyond noise: its convolutions against ONNX Runtime's slower in some
    recordings, within noise in others; against OpenVINO within noise on both counts, OpenVINO's
    convolutions longer in the recording(s) whose profile spread widely; against OpenVINO the
    convolutions the larger gap on the Zen 4."""
    kinds = m.kinds(ZEN4)

    def gap(k, name, runtime):  # PyTorch's part minus the runtime's, in seconds per call (the Zen 4's)
        return m.median(k, _part("pytorch-step-7", name)) - m.median(k, _part(runtime, name))
    # OpenVINO's time around the operators is the call less its node times, which can overlap
    # (ov::ProfilingInfo): too small, so only a bound; the sentence compares it with ONNX Runtime's
    def pair(runtime, name):
        return _part(runtime, name), _part("pytorch-step-7", name)
    zen4 = [("openvino", "convolutions"), ("openvino", "around-the-operators"), ("onnx-runtime", "around-the-operators")]
    return all(
        m.recorded_twice(k) and all(_each(m, k, *pair(*p))[0] == "lost" for p in zen4)
        and m.outcome(k, *pair("onnx-runtime", "around-the-operators")) == "lost"
        and _disagreed(m, k, *pair("onnx-runtime", "convolutions"), "lost")
        and all(m.outcome(k, *pair("openvino", name)) == "even" for name in ("convolutions", "around-the-operators"))
        and _wide_apart(m, k, *pair("openvino", "convolutions"), "paid", None)
        for k in kinds) and all(
        gap(k, "convolutions", "openvino") > gap(k, "around-the-operators", "openvino") for k in kinds) and all(
        m.between(k, _part("pytorch-step-7", "around-the-operators"), _part("onnx-runtime", "around-the-operators")) > 2
        for k in kinds)


@claim("naive-to-fast.md", "On the Xeon with AMX the convolutions no longer set PyTorch behind ONNX Runtime")
@claim("naive-to-fast.md", "level within noise with ONNX Runtime's")
@claim("naive-to-fast.md", "more than three times what ONNX Runtime spent there (and more than OpenVINO's time there, which can come out\n"
                           "too small). Against OpenVINO the convolutions are still the larger part of the gap; against ONNX Runtime, "
                           "PyTorch's operators took no longer\nand the time around them several times as long, and its whole call "
                           "was level within noise with ONNX Runtime's, as its p50 was.")
@claim("naive-to-fast.zh.md", "在带 AMX 的 Xeon 上，卷积不再让 PyTorch 落后于 ONNX Runtime")
@claim("naive-to-fast.zh.md", "在噪声之内持平，是 OpenVINO 的")
@claim("naive-to-fast.zh.md", "是 ONNX Runtime 在这部分所花时间的三倍以上（也多于 OpenVINO 这部分的时间，而后者可能偏小）。与 OpenVINO 相比，"
                              "差距的大头仍在卷积；与 ONNX Runtime 相比，PyTorch 的算子并不更慢，算子之外的时间却是它的好几倍，"
                              "整次调用与 ONNX Runtime 的在噪声之内持平，p50 也是如此。")
def _(m):
    def ms(k, engine, name):
        return m.median(k, _part(engine, name))

    def more(k, engine, other, name):  # how many times the engine's time in the part is the other's (as the Zen 4's claim)
        return m.between(k, _part(engine, name), _part(other, name))
    return all(
        m.outcome(k, _part("onnx-runtime", "convolutions"), _part("pytorch-step-7", "convolutions")) == "even"
        and 1.7 < more(k, "pytorch-step-7", "openvino", "convolutions") < 2.4
        and m.outcome(k, _part("pytorch-step-7", "around-the-operators"), _part("onnx-runtime", "around-the-operators")) == "paid"
        and more(k, "pytorch-step-7", "onnx-runtime", "around-the-operators") > 3
        and more(k, "pytorch-step-7", "openvino", "around-the-operators") > 1  # OpenVINO's: a bound, see the Zen 4's claim
        and (ms(k, "pytorch-step-7", "convolutions") - ms(k, "openvino", "convolutions")
             > ms(k, "pytorch-step-7", "around-the-operators") - ms(k, "openvino", "around-the-operators"))
        and (ms(k, "pytorch-step-7", "convolutions") + ms(k, "pytorch-step-7", "other-operators")
             < (1 + EVEN) * (ms(k, "onnx-runtime", "convolutions") + ms(k, "onnx-runtime", "other-operators")))
        and m.outcome(k, _part("onnx-runtime", "whole-call"), _part("pytorch-step-7", "whole-call")) == "even"
        and m.outcome(k, RL + "onnx-runtime-int8-other-runtime", RL + "7-int8") == "even"
        for k in m.kinds(AMX_XEON))


@claim("naive-to-fast.md", "oneDNN's log splits those convolutions once more (the Xeon with AMX and the AVX2 EPYC have it in "
                           "their first recording, the AMD AVX-512 + BF16 kind only in its Zen 5 recordings, which the "
                           "table does not show")
@claim("naive-to-fast.md", "In each Zen 5 recording the kernels took under four fifths of the convolution operators' time,\n"
                           "and over those recordings they were level within noise with OpenVINO's convolutions (where\n"
                           "OpenVINO's profile spread widely, its convolutions took longer than the kernels).")
@claim("naive-to-fast.md", "the time of OpenVINO's convolutions, within noise: the kernels\nare about as fast as OpenVINO's, "
                           "and most of the gap is PyTorch's own work around each kernel.")
@claim("naive-to-fast.md", "level within noise with OpenVINO's\nconvolutions")
@claim("naive-to-fast.md", "there the gap is that work.")
@claim("naive-to-fast.md", "At batch 1 on both, and in the Zen 5 recordings, step 7 needs less work per operator first, not faster kernels.")
@claim("naive-to-fast.zh.md", "oneDNN 的日志把这些卷积再拆了一层（带 AMX 的 Xeon 和 AVX2 EPYC 的第一次录制里有这一列，AMD AVX-512 + BF16 "
                              "这类 CPU 只在它的 Zen 5 录制里有，表中没有列出")
@claim("naive-to-fast.zh.md", "在每次 Zen 5 录制中，内核都只占卷积算子时间的不到五分之四；这些录制合起来，内核与 OpenVINO 的卷积在噪声之内持平"
                              "（在 OpenVINO 分析结果波动很大的录制中，它的卷积比这些内核还慢）。")
@claim("naive-to-fast.zh.md", "，在噪声之内：内核和 OpenVINO 的差不多快，差距的大部分是 PyTorch 在每个内核周围自己做的工作")
@claim("naive-to-fast.zh.md", "在噪声之内持平：在那里，差距就是这些工作。")
@claim("naive-to-fast.zh.md", "在这两种 CPU 上以及这些 Zen 5 录制中，批大小为 1 时，步骤 7 首先需要的是每个算子更少的工作，而不是更快的内核")
def _(m):
    kernels, convolutions = _part("pytorch-step-7", "onednn-convolution-kernels"), _part("pytorch-step-7", "convolutions")
    openvino = _part("openvino", "convolutions")
    whole = _part("pytorch-step-7", "whole-call"), _part("openvino", "whole-call")
    return set(m.having(kernels)) == {*m.kinds(AMX_XEON), *m.kinds(AVX2_EPYC)} and all(
        m.between(k, kernels, convolutions) < 0.7  # a third or more of the operators' time is not in the kernels
        and m.outcome(k, kernels, openvino) == "even"
        and m.median(k, convolutions) - m.median(k, kernels) > m.median(k, kernels) - m.median(k, openvino)
        for k in m.kinds(AMX_XEON)) and all(  # the EPYC: its kernels level with OpenVINO's convolutions, its call slower
        m.between(k, kernels, convolutions) < 0.9 and m.outcome(k, kernels, openvino) == "even"
        and m.outcome(k, *whole) == "paid" for k in m.kinds(AVX2_EPYC)) and all(  # the Zen 5 recordings (m.recordings)
        _zen5_only(m, kernels) and all(high < 0.8 for _, high in m.spans_each(k, kernels, convolutions))
        and _over(m, k, kernels, openvino) == "even" and _wide_apart(m, k, kernels, openvino, "lost", None)
        for k in m.kinds(ZEN4))


@claim("naive-to-fast.md", "**At fp32 the runtimes were ready sooner**")
@claim("naive-to-fast.md", "less on the AVX2 EPYC and about as long\n  elsewhere")
@claim("naive-to-fast.zh.md", "**在 fp32 下，这些运行时准备得更快**")
@claim("naive-to-fast.zh.md", "在 AVX2 EPYC 上更短，在其他机器上差不多")
def _(m):
    """Each compile time is one measurement: at fp32 every runtime under two thirds of step 5's; at
    int8 each within 0.7-1.4 of step 7's but on the AVX2 EPYC, where under 0.8 of it (each kind's
    first recording; "elsewhere" also holds in every later recording: _recorded_each). (The compiled
    step faster than the naive loop: what fails when the ratios are inverted.)"""
    def compile_s(k, row):
        return m.param(k, R + row, "compile_s")
    avx2 = m.kinds(AVX2_EPYC)
    fp32 = [rt for rt, step in RUNTIMES.items() if step == "5-compile"]
    int8 = [rt for rt, step in RUNTIMES.items() if step == "7-int8"]
    return all(m.ratio(k, R + "5-compile") > 1 and all(compile_s(k, rt) < compile_s(k, "5-compile") * 2 / 3
                                                       for rt in fp32 if R + rt in m.rows[k])
               for k in _with_runtimes(m)) and all(
        all(0.7 < compile_s(k, rt) / compile_s(k, "7-int8") < 1.4 for rt in int8 if R + rt in m.rows[k])
        for k in _with_runtimes(m) if k not in avx2) and all(
        max(compile_s(k, rt) for rt in int8 if R + rt in m.rows[k]) < 0.8 * compile_s(k, "7-int8") for k in avx2) and all(
        0.7 < runtime / step < 1.4 for k in _with_runtimes(m) if k not in avx2 for rt in int8
        for runtime, step in zip(*_recorded_each(m, k, R + rt, R + "7-int8", "compile_s")))


def _recorded_each(m, k, row_id, other_id, key):
    """A param of two rows in each recording of the kind that has both (later recordings' rows are
    not in m.rows), scaled tenfold when inverted, like m.param: ([row's], [other's])."""
    pairs = [(rows[row_id]["params"][key], rows[other_id]["params"][key]) for rows in m.recordings[k]
             if row_id in rows and other_id in rows]
    return tuple(zip(*[(a * 10, b * 10) if m.inverted else (a, b) for a, b in pairs])) or ((), ())


@claim("naive-to-fast.md", "Each of them compiled step 5 faster than the AVX2 EPYC, the Xeon without AMX and\n"
                           "that first Zen 5 recording did.")
@claim("naive-to-fast.zh.md", "它们编译步骤 5 都比 AVX2 EPYC、没有 AMX 的 Xeon 以及那第一次 Zen 5 录制更快。")
def _(m):
    """Step 5's compile time: the runs that may have found Inductor's cache warm (the Zen 4's, the
    Xeon with AMX's, and the Zen 4 kind's Zen 5 recordings after its first) each shorter than every
    run that did not follow another of the case (the AVX2 EPYC's, the Xeon without AMX's and the first
    Zen 5 recording). (The compiled step faster than the naive loop: what fails when inverted.)"""
    step = R + "5-compile"
    each = {(k, i): rows[step]["params"]["compile_s"] for k in m.having(step)
            for i, rows in enumerate(m.recordings[k]) if step in rows}
    warm = [each[key] for key in each if key[0] in (ZEN4, AMX_XEON) and key[1] != 1]
    cold = [each[key] for key in each if key[0] in (AVX2_EPYC, NO_AMX_XEON) or key == (ZEN4, 1)]
    return (len(m.recordings[ZEN4]) > 2 and (ZEN4, 1) in each and len(warm) >= 3 and len(cold) == 3
            and max(warm) < min(cold) and all(m.ratio(k, step) > 1 for k in m.having(step)))


@claim("naive-to-fast.md", "Batching raised the throughput beyond noise on every kind but the Xeon with\n  AMX, whose "
                           "transformer rows spread widely, where it was within noise; `inference_mode` was within\n  noise at "
                           "batch 1 on every kind; compiling fp32 was within noise of eager batching on every kind,\n  in both regimes.")
@claim("naive-to-fast.zh.md", "除带 AMX 的 Xeon 外，批处理在每种 CPU 上都超出噪声地提高了吞吐量；在那台 Xeon 上，Transformer 各行的波动很大，"
                              "批处理在噪声之内；`inference_mode` 在每种 CPU 上批大小为 1 时都在噪声之内；编译 fp32 在每种 CPU 的两种场景下"
                              "都与 eager 批处理在噪声之内持平。")
@claim("naive-to-fast.md", "compiling fp32 gained\n   nothing beyond noise on any kind")
@claim("naive-to-fast.zh.md", "编译 fp32 在哪种 CPU 上都没有超出噪声的收益")
def _(m):
    amx = m.kinds(AMX_XEON)
    return all(m.outcome(k, T + "3-batching", T + "2-inference-mode") == ("even" if k in amx else "paid")
               and m.outcome(k, TL + "2-inference-mode", TL + "1-naive") == "even"
               and all(m.outcome(k, g + "5-compile", g + "3-batching") == "even" for g in (T, TL)) for k in _kinds(m, T)) and all(
        _spread(m, k, T + "3-batching") > 0.2 for k in amx)


@claim("naive-to-fast.md", "The side row,\n  autocast run eagerly, was level with step 6 in throughput, within noise, on every kind that ran\n  it, "
                           "and slower at batch 1 on the two Xeons; on the AMD AVX-512 + BF16 kind it was slower at\n  "
                           "batch 1 in some recordings, the Zen 4's among them, and within noise in others, so within noise\n  "
                           "there.")
@claim("naive-to-fast.zh.md", "附加行，即以 eager 模式运行的 autocast，在每种跑过它的 CPU 上吞吐量都与步骤 6 在噪声之内持平；批大小为 1 时，"
                              "它在两台 Xeon 上更慢；在 AMD AVX-512 + BF16 这类 CPU 上，它在一些录制中（包括 Zen 4 的）更慢，"
                              "在另一些中在噪声之内，所以在那里在噪声之内。")
def _(m):
    side = "bf16-eager-side-row"
    return set(m.having(T + side)) == {*m.kinds(ZEN4), *m.kinds(NO_AMX_XEON, AMX_XEON)} and all(
        m.outcome(k, T + side, T + "6-bf16") == "even" for k in m.having(T + side)) and all(
        m.outcome(k, TL + side, TL + "6-bf16") == "lost" for k in m.kinds(NO_AMX_XEON, AMX_XEON)) and all(
        _disagreed(m, k, TL + side, TL + "6-bf16", "lost", zen4="lost") for k in m.kinds(ZEN4))


@claim("naive-to-fast.md", "int8 through PT2E was its best step")
@claim("naive-to-fast.zh.md", "通过 PT2E 的 int8 是它最好的步骤")
def _(m):
    return all(_best_beyond(m, k, g, "7-int8", _steps(m, k, g)) for k in m.kinds(NO_AMX_XEON) for g in (T, TL))


@claim("naive-to-fast.md", "The ceiling is no higher than ResNet-50's, because the naive loop starts at least as close "
                           "to the peak")
@claim("naive-to-fast.zh.md", "上限不会比 ResNet-50 的高，因为朴素循环的起点离峰值至少一样近")
@claim("naive-to-fast.md", "On the Zen 4 the transformer's bf16 step also stayed further from that peak than ResNet-50's")
@claim("naive-to-fast.zh.md", "在 Zen 4 上，Transformer 的 bf16 步骤离这个峰值也比 ResNet-50 的更远")
def _(m):
    return (all(m.param(k, T + "1-naive", "share_of_peak") > 0.97 * m.param(k, R + "1-naive", "share_of_peak")
                and max(m.ratio(k, T + s) for s in _steps(m, k, T)) < max(m.ratio(k, R + s) for s in _steps(m, k, R))
                for k in _kinds(m, T))
            and all(m.param(k, T + "6-bf16", "share_of_peak") < m.param(k, R + "6-bf16", "share_of_peak")
                    for k in m.kinds(ZEN4)))


@claim("naive-to-fast.md", "For bf16 *k* is 2 on\nthe Zen 4 and the Xeon without AMX, whose bf16 peak the benchmark takes as "
                           "twice fp32's, and 16 on\nthe Xeon with AMX")
@claim("naive-to-fast.zh.md", "对 bf16 来说，在 Zen 4 和没有 AMX 的 Xeon 上 *k* 是 2（基准测试把它们的 bf16 峰值取为 fp32 的两倍），"
                              "在带 AMX 的 Xeon 上是 16")
def _(m):
    """k, the bf16 peak over the fp32 one, as the rows imply it: the bf16 step's speed-up over the
    naive loop times the naive loop's share of the fp32 peak, over the bf16 step's share of the
    bf16 peak."""
    def k_of(k, group):
        return (m.ratio(k, group + "6-bf16") * m.param(k, group + "1-naive", "share_of_peak")
                / m.param(k, group + "6-bf16", "share_of_peak"))
    said = {**{k: 2 for k in m.kinds(ZEN4, NO_AMX_XEON)}, **{k: 16 for k in m.kinds(AMX_XEON)}}
    return all(abs(k_of(k, g) / said[k] - 1) < 0.02 for k in said for g in (R, T))


@claim("naive-to-fast.md", "without native bf16 it runs several times slower than fp32")
@claim("naive-to-fast.zh.md", "没有原生 bf16 时，它比 fp32 慢好几倍")
@claim("naive-to-fast.md", "bf16 autocast there runs several times slower than fp32")
@claim("naive-to-fast.zh.md", "bf16 autocast 比 fp32 慢好几倍")
def _(m):
    return all(m.ratio(k, r) < 0.4 for k in m.kinds("avx2") for r in m.rows[k] if r.startswith("bfloat16/") and r.endswith("/bf16-autocast"))


@claim("naive-to-fast.md", "measured on the AVX2 EPYC, the Xeon with AMX and, in its Zen 5 recordings only, the AMD "
                           "AVX-512 + BF16 kind (the Xeon without AMX's reference predates these two rows), it bought nothing we can count.")
@claim("naive-to-fast.md", "On the AMD\n  AVX-512 + BF16 kind tcmalloc's factor over its control was beyond noise in some recordings and\n  "
                           "within noise in others, so within noise, and the control and tcmalloc's row were each within\n  "
                           "noise of step 4 there.")
@claim("naive-to-fast.md", "within noise: the control's rounds spread widely. On the Xeon with AMX tcmalloc's factor over\n  its control was")
@claim("naive-to-fast.md", "beyond noise, but the control, the same loop as step 4 in a fresh process, ran")
@claim("naive-to-fast.md", "as step 4 in the benchmark's own process, also beyond noise, and tcmalloc's row was within noise\n  of step 4")
@claim("naive-to-fast.zh.md", "在 AVX2 EPYC、带 AMX 的 Xeon 以及 AMD AVX-512 + BF16 这类 CPU（只在它的 Zen 5 录制中）上测过（没有 AMX 的 "
                              "Xeon 的参考数据早于这两行），它没有带来我们能算作收益的提升。")
@claim("naive-to-fast.zh.md", "在 AMD AVX-512 + BF16 这类 CPU 上，tcmalloc 相对对照组的倍数在一些录制中超出噪声，在另一些中在噪声之内，"
                              "所以在噪声之内；对照组和 tcmalloc 那一行在那里也都与步骤 4 在噪声之内持平。")
@claim("naive-to-fast.zh.md", "在噪声之内：对照组各轮之间的波动很大")
@claim("naive-to-fast.zh.md", "超出了噪声；但对照组，也就是在新进程中运行的步骤 4，速度只有基准测试自己进程中步骤 4 的")
@claim("naive-to-fast.zh.md", "同样超出噪声，而 tcmalloc 那一行与步骤 4 在噪声之内持平")
def _(m):
    """tcmalloc against its control, glibc's malloc, both in fresh processes on top of step 4, with
    tcmalloc found mapped in its process: within noise on the AVX2 EPYC (the control's IQR above a
    sixth of its median); on the AMX Xeon beyond noise against the control, but the control slower
    than step 4 beyond noise and tcmalloc within noise of step 4; on the Zen 4's kind, in its Zen 5
    recordings only, beyond noise against the control in some and within noise in others."""
    tcmalloc, glibc, step4 = TRAIN + "tcmalloc-fresh-process-side-row", TRAIN + "glibc-fresh-process-side-row", TRAIN + "4-channels-last"
    kinds = m.having(tcmalloc)
    return kinds == m.kinds(AVX2_EPYC, AMX_XEON) and all(
        "tcmalloc" in m.row(k, tcmalloc)["params"]["allocator"] for k in kinds) and all(
        m.outcome(k, tcmalloc, glibc) == "even" and _spread(m, k, glibc) > 1 / 6 for k in m.kinds(AVX2_EPYC)) and all(
        m.outcome(k, tcmalloc, glibc) == "paid" and m.outcome(k, glibc, step4) == "lost" and m.outcome(k, tcmalloc, step4) == "even"
        for k in m.kinds(AMX_XEON)) and all(
        not any(row in rows for rows in m.recordings[k] for row in (tcmalloc, glibc)) for k in m.kinds(NO_AMX_XEON)) and all(
        _zen5_only(m, tcmalloc) and _zen5_only(m, glibc)
        and _disagreed(m, k, tcmalloc, glibc, "paid")
        and _over(m, k, glibc, step4) == "even" and _over(m, k, tcmalloc, step4) == "even" for k in m.kinds(ZEN4))
