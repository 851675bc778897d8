"""Claims of tune-your-model.md and tune-your-model.zh.md: the program on ResNet-50 beside the case
study's steps of the same run (bench/cases/tune_your_model.py)."""
from __future__ import annotations

import re

from tests.claims import claim

KEPT = "tune_your_model/the-program-s-choice-{}/kept-configuration"
BASE = "tune_your_model/the-program-s-choice-{}/baseline"
CASE = {"throughput": "case_study/resnet-50-throughput-all-cores/{}",
        "batch-1-p50": "case_study/resnet-50-batch-1-latency-p50-all-cores/{}"}


def _same_runs(m, k) -> list[dict]:
    """The recordings of kind k that ran the program and the case study together (every one)."""
    return [rows for rows in m.recordings[k] if KEPT.format("throughput") in rows and CASE["throughput"].format("7-int8") in rows]


def _fastest_step(rows: dict) -> str:
    """The case study's fastest PyTorch step (1-7) in ResNet-50 throughput, as its row slug."""
    steps = {i.rsplit("/", 1)[1]: r["median"] for i, r in rows.items()
             if i.startswith(CASE["throughput"].format("")) and re.match(r"[1-7]-", i.rsplit("/", 1)[1])}
    return max(steps, key=steps.get)


@claim("tune-your-model.zh.md", "在它运行过的每类 CPU 上，它保留的最后一步都是同一次运行中案例研究最快的那一步，"
                                "所保留的配置与那一步相比在噪声之内或更快，吞吐量和批大小为 1 时都是如此")
@claim("tune-your-model.md", "On every kind it has run on, the last step it kept was the case study's fastest "
                             "step of the same run, and its kept configuration was within noise of that step or "
                             "faster, in throughput and at batch 1")
def _(m):
    kinds = m.having(KEPT.format("throughput"))
    ok = True
    for k in kinds:
        for rows in _same_runs(m, k):
            best = _fastest_step(rows)
            ok &= rows[KEPT.format("throughput")]["params"]["steps_kept"][-1] == best.split("-", 1)[1]
            for regime in ("throughput", "batch-1-p50"):
                ok &= m.outcome(k, KEPT.format(regime), CASE[regime].format(best)) != "lost"
                ok &= m.outcome(k, KEPT.format(regime), BASE.format(regime)) == "paid"
    return ok
