"""Claims of data-loading.md and data-loading.zh.md (and sentences of other pages that repeat its figures)."""
from __future__ import annotations

from tests.claims import AVX2_EPYC, NO_AMX_XEON, ZEN4, claim


# data-loading.md: MNIST-size epochs, three per row (an earlier AVX2 run of 2,048-image epochs was
# withdrawn, so m.having() lists the references that measured each row)
DL = "data_loading"
CHEAP_NEW, CHEAP_KEPT = "cheap-transform-new-dataloader-every-epoch", "cheap-transform-persistent-workers-true"
HEAVY_NEW, HEAVY_KEPT = "cpu-heavy-transform-new-dataloader-every-epoch", "cpu-heavy-transform-persistent-workers-true"


def _dl(m, group, label):
    row = f"{DL}/{group}/{label}"
    return [m.ratio(k, row) for k in m.having(row)]


def _row(group, label):
    return f"{DL}/{group}/{label}"


def _outcomes(m, group, label):
    """{kind: the rule's verdict} for a row against no workers, on every kind that measured it."""
    row = _row(group, label)
    return {k: m.outcome(k, row) for k in m.having(row)}


def _faster_short_of_twice(m, *groups, short_of=1.7, even_on=()):
    """Two workers faster than none beyond noise in these groups, on every kind that measured them
    (within noise on the kinds even_on), and short of 2x (well short: below 1.7x)."""
    return all(w == ("even" if k in even_on else "paid") for g in groups for k, w in _outcomes(m, g, "num-workers-2").items()) \
        and all(r < short_of for g in groups for r in _dl(m, g, "num-workers-2")) \
        and all(r > 1 for g in groups for r in _dl(m, g, "num-workers-2"))


def _zen_each(m, group, *said):
    """Two workers against none in each recording of the Zen 4's kind that measured them: the Zen 4's,
    then the Zen 5's (its first Zen 5 recording left data loading out)."""
    return m.outcomes_each(ZEN4, _row(group, "num-workers-2")) == list(said)


@claim("data-loading.zh.md", "每轮新建加载器时，除 Zen 4 这一类 CPU 外，在每台参考机器上两个工作进程加载一整轮都比不用工作进程快；"
                             "用持久工作进程时，除这一类 CPU 和没有 AMX 的 Xeon 之外也都更快，那台 Xeon 的各轮结果分散得太开，无法判断")
@claim("data-loading.zh.md", "在 Zen 4 这一类 CPU 上，两次记录结论不一：Zen 4 上两个工作进程在两种情况下都更快，而 Zen 5 上每轮新建加载器时更慢、"
                             "用持久工作进程时在噪声之内，所以两次记录合起来看，这一类 CPU 在噪声之内")
@claim("data-loading.zh.md", "在所有机器上都远不到两个核心所允许的两倍")
@claim("data-loading.md", "with a new loader every epoch, two workers load a full epoch faster than no workers on every "
                          "reference machine but the Zen 4's kind, and with persistent workers on all but that kind and the "
                          "Xeon without AMX, whose epochs spread too widely to tell")
@claim("data-loading.md", "On the Zen 4's kind the two recordings disagreed: the Zen 4 was faster with two workers either "
                          "way, while the Zen 5 was slower with a new loader every epoch and within noise with persistent "
                          "workers, so over both recordings that kind is within noise")
@claim("data-loading.md", "Everywhere well short of the twice that two cores would allow")
def _(m):
    return (_faster_short_of_twice(m, CHEAP_NEW, even_on=(ZEN4,))
            and _faster_short_of_twice(m, CHEAP_KEPT, even_on=(NO_AMX_XEON, ZEN4))
            and _zen_each(m, CHEAP_NEW, "paid", "lost") and _zen_each(m, CHEAP_KEPT, "paid", "even"))


def _one_worker_slower(m):
    """One worker (persistent, heavy transform) slower than none beyond noise, but within noise on the AVX2 EPYC."""
    found = _outcomes(m, HEAVY_KEPT, "num-workers-1")
    return len(found) == 4 and all(w == ("even" if k == AVX2_EPYC else "lost") for k, w in found.items()) \
        and all(r < 1 for r in _dl(m, HEAVY_KEPT, "num-workers-1"))


@claim("data-loading.zh.md", "用持久工作进程时，在每台参考机器上，两个单线程工作进程都比不用工作进程快，但不到两倍；每轮新建加载器时，"
                             "除 Zen 4 这一类 CPU 外也是如此，这一类 CPU 的 Zen 5 记录在这里比不用工作进程慢（两次记录合起来在噪声之内")
@claim("data-loading.zh.md", "在四台中的三台上，一个工作进程比不用工作进程还慢（在 AVX2 EPYC 上差异在噪声之内）。")
@claim("data-loading.md", "Two one-thread workers are faster than none, but short of twice, on every reference machine with "
                          "persistent workers, and with a new loader every epoch on all but the Zen 4's kind, whose Zen 5 "
                          "recording was slower than none there (within noise over its two recordings")
@claim("data-loading.md", "One worker is slower than no workers on three of the four (within noise on the AVX2 EPYC).")
def _(m):
    return (_faster_short_of_twice(m, HEAVY_KEPT, short_of=1.9)
            and _faster_short_of_twice(m, HEAVY_NEW, short_of=1.9, even_on=(ZEN4,))
            and _zen_each(m, HEAVY_NEW, "paid", "lost") and _one_worker_slower(m))


SPAWN = f"{DL}/{CHEAP_NEW}/num-workers-2-spawn"


def _spawn_slower(m):
    """Spawned workers, a new loader every epoch: slower than no workers beyond noise on every kind that measured them."""
    return len(m.having(SPAWN)) == 4 and all(m.outcome(k, SPAWN) == "lost" for k in m.having(SPAWN))


@claim("data-loading.zh.md", "在每台参考机器上，这样加载一轮都比完全不用工作进程慢，在每一次录制中速度只有后者的")
@claim("data-loading.md", "on every reference machine the epoch loads slower than with no workers at all, at")
def _(m):
    return _spawn_slower(m)


@claim("data-loading.zh.md", "其中最慢的是 Zen 4 这一类 CPU 的 Zen 5 录制（这一类 CPU 两次录制合起来的区间："
                             "{{ fig.interval_zen_cheap_transform_new_num_workers_2_spawn }}）")
@claim("data-loading.md", "the slowest being the Zen 5's recording of the Zen 4's kind (that kind's interval over both its "
                          "recordings: {{ fig.interval_zen_cheap_transform_new_num_workers_2_spawn }})")
def _(m):
    spans = m.spans_each(ZEN4, SPAWN)  # the Zen 4's recording (the one the tables show), then the Zen 5's
    assert len(spans) == 2, "the sentence names one Zen 5 recording of this row"
    (zen4_low, zen4_high), (zen5_low, zen5_high) = spans
    low, high = m.figure("data-loading", "interval_zen_cheap_transform_new_num_workers_2_spawn")
    # the ratio_span beside it spans every recording of every kind: its low end is the Zen 5's
    ratios = {(k, i): rows[SPAWN]["ratio"] ** (-1 if m.inverted else 1)
              for k in m.having(SPAWN) for i, rows in enumerate(m.recordings[k]) if SPAWN in rows}
    zen5 = [key for key in ratios if key[0] == ZEN4 and key[1] > 0]
    return (zen5_high < zen4_low and m.outcomes_each(ZEN4, SPAWN) == ["lost", "lost"]
            and abs(low - zen5_low) < 1e-9 and abs(high - zen4_high) < 1e-9
            and min(ratios, key=ratios.get) in zen5)


@claim("data-loading.zh.md", "在表中，即使是基于 PIL 的轻量变换，在两个核心上用两个持久工作进程也远不到快两倍，在没有 AMX 的 Xeon 和 "
                             "Zen 4 这一类 CPU 上则没有超出噪声的收益，后者的 Zen 5 记录在噪声之内")
@claim("data-loading.md", "in the table, even the PIL-based cheap transform gains well short of twice with two persistent "
                          "workers on two cores, and nothing beyond noise on the Xeon without AMX and on the Zen 4's kind, "
                          "whose Zen 5 recording was within noise")
def _(m):
    return _faster_short_of_twice(m, CHEAP_KEPT, even_on=(NO_AMX_XEON, ZEN4)) and _zen_each(m, CHEAP_KEPT, "paid", "even")


@claim("data-loading.zh.md", "在四台参考机器中的三台上，两个核心上的两个工作进程加载起来比不用工作进程快，但远不到两倍（在 Zen 4 这一类 CPU "
                             "上在噪声之内：Zen 4 上更快，Zen 5 上更慢），而在 spawn 下，四台上都比不用工作进程慢")
@claim("data-loading.md", "two workers on two cores load faster than none but well short of twice as fast on three of the "
                          "four reference machines (within noise on the Zen 4's kind, where the Zen 4 was faster and the Zen 5 "
                          "slower), and under spawn they are slower than none on all four")
def _(m):
    return (len(m.having(_row(CHEAP_NEW, "num-workers-2"))) == 4 and _faster_short_of_twice(m, CHEAP_NEW, even_on=(ZEN4,))
            and _zen_each(m, CHEAP_NEW, "paid", "lost") and _spawn_slower(m))


@claim("data-loading.zh.md", "在下表中，四台参考机器中有三台上 1 个工作进程比不用工作进程还慢（在 AVX2 EPYC 上差异在噪声之内）")
@claim("data-loading.md", "in the table below, 1 worker is slower than none on three of the four reference machines "
                          "(within noise on the AVX2 EPYC)")
def _(m):
    return _one_worker_slower(m)


@claim("data-loading.zh.md", "使用轻量变换时，在三台参考机器上，两个持久工作进程与每轮新建加载器的差异在噪声之内，"
                             "只有在 Zen 4 这一类 CPU 上更快，它的两次记录（Zen 4 和 Zen 5）都是如此")
@claim("data-loading.md", "with the cheap transform, two persistent workers were within noise of a new loader every epoch on "
                          "three reference machines, and faster only on the Zen 4's kind, in both its recordings (the Zen 4 "
                          "and the Zen 5)")
def _(m):
    # faster beyond noise over the kind and in each of its two recordings that measured both rows
    # (the Zen 4's, then the Zen 5's), within noise on the other three
    kept, new = _row(CHEAP_KEPT, "num-workers-2"), _row(CHEAP_NEW, "num-workers-2")
    return (len(m.having(kept)) == 4 and all(m.outcome(k, kept, new) == ("paid" if k == ZEN4 else "even")
                                             for k in m.having(kept))
            and m.outcomes_each(ZEN4, kept, new) == ["paid", "paid"]
            and [str(m.machines[ZEN4][i].get("cpu_family")) for i, rows in enumerate(m.recordings[ZEN4])
                 if kept in rows and new in rows] == ["25", "26"])  # the Zen 4's recording, then a Zen 5's


@claim("data-loading.zh.md", "在每台参考机器上，MNIST 配合下文的轻量变换，每张图像连同批次整理只需不到一毫秒")
@claim("data-loading.md", "MNIST with the cheap transform below takes a fraction of a millisecond per image, collation "
                          "included, on every reference machine")
def _(m):
    row = _row(CHEAP_NEW, "num-workers-0")
    return all(m.median(k, row) / m.row(k, row)["params"]["images"] < 1e-3 for k in m.having(row))
