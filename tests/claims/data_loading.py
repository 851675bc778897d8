"""Claims of data-loading.md and data-loading.zh.md (and sentences of other pages that repeat its figures)."""
from __future__ import annotations

from tests.claims import INTEL_KINDS, ZEN4, claim


# data-loading.md: MNIST-size epochs, three per row (an earlier AVX2 run of 2,048-image epochs was
# withdrawn, so m.having() lists the references that measured each row)
DL = "data_loading"
CHEAP_NEW, CHEAP_KEPT = "cheap-transform-new-dataloader-every-epoch", "cheap-transform-persistent-workers-true"
HEAVY_NEW, HEAVY_KEPT = "cpu-heavy-transform-new-dataloader-every-epoch", "cpu-heavy-transform-persistent-workers-true"


def _dl(m, group, label):
    row = f"{DL}/{group}/{label}"
    return [m.ratio(k, row) for k in m.having(row)]


def _faster_short_of_twice(m, *groups, short_of=1.7):
    """Two workers faster than none in these groups, on every kind that measured them, but short of 2x
    (well short: below 1.7x)."""
    return all(1.05 < r < short_of for g in groups for r in _dl(m, g, "num-workers-2"))


@claim("data-loading.zh.md", "在每台参考机器上，无论每轮新建加载器还是用持久工作进程，两个工作进程加载一整轮都比不用工作进程快，但远不到两个核心所允许的两倍")
@claim("data-loading.md", "on every reference machine two workers load a full epoch faster than no workers, with a new "
                          "loader every epoch or with persistent workers, but well short of the twice that two cores "
                          "would allow")
def _(m):
    return _faster_short_of_twice(m, CHEAP_NEW, CHEAP_KEPT)


@claim("data-loading.zh.md", "所以两个单线程工作进程比不用工作进程快，但不到两倍。一个工作进程只有主进程一半的线程，比不用工作进程还慢。")
@claim("data-loading.md", "so two one-thread workers are faster than none, but short of twice. One worker gets half "
                          "the threads of the main process and is slower than no workers.")
def _(m):
    return (_faster_short_of_twice(m, HEAVY_NEW, HEAVY_KEPT, short_of=1.9)
            and all(r < 0.95 for r in _dl(m, HEAVY_KEPT, "num-workers-1")))


SPAWN = f"{DL}/{CHEAP_NEW}/num-workers-2-spawn"


def _spawn_no_faster(m):
    """Spawned workers, a new loader every epoch: no faster than no workers on any kind that measured them."""
    return all(r < 1.05 for r in _dl(m, CHEAP_NEW, "num-workers-2-spawn"))


@claim("data-loading.zh.md", "在任何一台参考机器上，这样加载一轮都不比完全不用工作进程快，在 Zen 4 和两台 Intel Xeon 上还更慢")
@claim("data-loading.md", "On no reference machine does the epoch load faster than with no workers at all, and on the "
                          "Zen 4 and the two Intel Xeons it takes longer")
def _(m):
    slower = [k for k in m.kinds(ZEN4, *INTEL_KINDS) if k in m.having(SPAWN)]
    return _spawn_no_faster(m) and len(slower) == 3 and all(m.ratio(k, SPAWN) < 0.9 for k in slower)


@claim("data-loading.zh.md", "在表中，即使是基于 PIL 的便宜变换，在两个核心上用两个持久工作进程也远不到快两倍")
@claim("data-loading.md", "in the table, even the PIL-based cheap transform gains well short of twice with two "
                          "persistent workers on two cores")
def _(m):
    return _faster_short_of_twice(m, CHEAP_KEPT)


@claim("data-loading.zh.md", "两个核心上的两个工作进程加载起来比不用工作进程快，但远不到两倍，而在 spawn 下并不比不用工作进程快")
@claim("data-loading.md", "two workers on two cores load faster than none but well short of twice as fast, and under spawn "
                          "they are no faster than none")
def _(m):
    return _faster_short_of_twice(m, CHEAP_NEW) and _spawn_no_faster(m)


@claim("data-loading.zh.md", "在下表中，1 个工作进程比不用工作进程还慢")
@claim("data-loading.md", "in the table below, 1 worker is slower than none")
def _(m):
    return all(r < 0.95 for r in _dl(m, HEAVY_KEPT, "num-workers-1"))
