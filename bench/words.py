"""Every word the Chinese edition says that is not in a page: the renderer's phrases (ZH), the
workload sizes' names (ZH_SIZES), the benchmark's case, variant and technique names
(names.zh.json) and the references' notes and reasons (notes.zh.json); say() reads them all. The
renderer (bench.render) and the figures (bench.figures) import it; it imports nothing of the
project."""
from __future__ import annotations

import functools
import json
from pathlib import Path

# The renderer's own words in the Chinese edition (docs/results/zh/): every table and plot takes
# the language and says its phrases through say(). Case and variant names come from names.zh.json
# (what the benchmark names them stays where it has no entry: they are the rows' ids, as API names are).
ZH = {"Variant": "变体", " (baseline)": "（基线）",
      "Every figure: medians, interquartile ranges (IQR) and sample counts": "全部数据：中位数、四分位距（IQR）与样本数",
      "| Case | Variant | Median | Spread |": "| 场景 | 变体 | 中位数 | 离散度 |",
      "Every step: GFLOP/s against the peak, p99 latency, parity and compile time":
          "每个步骤：GFLOP/s 与峰值之比、p99 延迟、结果一致性与编译时间",
      "| Step | Batch | GFLOP/s or int8 GOPS (share of peak) | Batch-1 p99 | Top-1 agreement, max logit diff |":
          "| 步骤 | 批大小 | GFLOP/s 或 int8 GOPS（占峰值比例） | 批大小 1 的 p99 | Top-1 一致率，最大 logit 差 |",
      "Ratios are times better than the group's baseline (higher is better), measured side by side in each run of a "
      "machine:": "比值表示比该组基线好多少倍（越高越好），每台机器的每次运行中并排测得：",
      "Recorded again (the verdicts hold only where they hold in each):": "之后又录制过（结论只在每次录制中都成立时才成立）：",
      "Measured in a later recording, on another machine of the kind:": "在之后的一次录制中、在同类的另一台机器上测得：",
      "Your numbers: `python -m bench --full`.": "测你自己的机器：`python -m bench --full`。",
      " mode, ": " 模式，", "Not shown": "未显示",
      "CPU": "CPU", "Cores": "核心", "{} physical, {} usable": "{} 个物理核心，{} 个可用",
      "ISA flags": "指令集标志", "torch CPU capability": "torch 的 CPU capability（所用指令集级别）", "Clock": "时钟",
      " (FMA units inferred)": "（FMA 单元数为推断）", "unknown (no /proc/cpuinfo)": "未知（没有 /proc/cpuinfo）",
      "{:.0f} MHz reported": "{:.0f} MHz（系统报告）", ", measured {:.0f}": "，实测 {:.0f}",
      "Theoretical peak, native precisions": "理论峰值（原生精度）", "torch / Python": "torch / Python", "Run": "运行",
      "{:.0f}&nbsp;min": "{:.0f}&nbsp;分钟", "{}, the sum of its techniques' times": "{}（各技巧用时之和）",
      "; later, on their own: ": "；之后单独录制：", " and ": "和", ", ": "，", "; ": "；",
      "the same CPU": "同一颗 CPU ", "{}, family {}": " {}（family {}）", "on {}: {}": "在{}上：{}",
      "once": "1 次", "{} times": "{} 次",
      "Recorded again {}, each merged into this kind's verdicts and ranges (a verdict holds only where it holds "
      "in each recording, and a range's ends may come from any of them): {}.":
          "之后又录制过 {}，每次都合并进了这一类的结论和范围（结论只有在每一次录制中都成立时才成立，范围的两端可能来自其中任何一次）：{}。",
      "The table above describes the first recording's machine only.": "上表只描述第一次录制的机器。",
      ": measured speed-ups on each machine": "：各机器上测得的加速比",
      "compiled in {:.0f}&nbsp;s": "编译 {:.0f}&nbsp;s", "built in {:.0f}&nbsp;s": "构建 {:.0f}&nbsp;s",
      "loads in {:.1f}&nbsp;s": "加载 {:.1f}&nbsp;s", " ({:.0%} of {})": "（{1} 峰值的 {0:.0%}）",
      "samples/s": "样本/秒",
      # the plots
      "times better than the baseline (dashed line: the baseline, 1×)": "比基线好多少倍（虚线：基线，1×）",
      "log scale": "对数坐标", "; log scale": "；对数坐标", ", total ": "，合计 ", " (not taken)": "（未采用）",
      " vs PyTorch": " 对比 PyTorch", " vs glibc": " 对比 glibc",
      "resnet50 (torchvision, random weights)": "resnet50（torchvision，随机权重）",
      "speed-up over the naive loop, log scale: each bar is one step's factor": "相对朴素循环的加速比，对数坐标：每根柱是一个步骤的倍数"}
# The workload sizes under a group's name (sizes_note), in the Chinese edition's words.
ZH_SIZES = {"steps per epoch": "每轮步数", "batch size": "批大小", "image size": "图像尺寸", "start method": "启动方式",
            "num workers": "工作进程数", "transform": "变换", "images": "图像数", "values": "值的个数", "tasks": "任务数",
            "points": "点数", "centres": "中心数", "steps": "步数", "size": "尺寸",
            "MALLOC CONF": "MALLOC_CONF", "batch": "批大小", "batches": "批数", "bound tokens per s": "上限（词元/秒）",
            "build s": "构建秒数", "bytes per token": "每词元字节数", "denormal weight share": "非规格化权重占比",
            "elements": "元素数", "epochs": "轮数", "first call s": "首次调用秒数", "length": "长度",
            "linear weight mb": "线性层权重 MB", "mib": "MiB", "mib moved": "搬运的 MiB", "min logit cosine": "最小 logit 余弦",
            "mode": "模式", "new tokens": "新词元数", "processes": "进程数", "prompt tokens": "提示词元数",
            "read gb per s": "读取 GB/s", "resident mb": "常驻 MB", "settings": "设置", "share of bandwidth": "带宽占比",
            "share of bound": "上限占比", "share of call": "调用占比", "share of token": "词元占比",
            "threads per process": "每进程线程数", "model": "模型", "steps kept": "保留的步骤"}
NAMES_ZH = Path(__file__).with_name("names.zh.json")  # the benchmark's case, variant and technique names
# The references' prose in Chinese: each reference's notes and every reason a row is not shown
# (not_run, not_measured, withdrawn, elsewhere), English text -> Chinese (tests/test_translations.py
# checks that every one a Chinese page shows has its translation)
NOTES_ZH = Path(__file__).with_name("notes.zh.json")


@functools.lru_cache(maxsize=1)
def zh_names() -> dict[str, str]:
    return json.loads(NAMES_ZH.read_text())


@functools.lru_cache(maxsize=1)
def zh_notes() -> dict[str, str]:
    return json.loads(NOTES_ZH.read_text()) if NOTES_ZH.is_file() else {}


def say(text: str, lang: str) -> str:
    """A name (case, variant, technique), one of the renderer's phrases or a reference's note or
    reason in the language ("en": as written)."""
    return text if lang == "en" else {**ZH, **zh_names(), **zh_notes()}.get(text, text)
