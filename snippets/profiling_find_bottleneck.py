"""Find the slow part of a training step with torch.profiler, fix it, and profile again.

The step counts correct predictions sample by sample with .item(); the profiler's labelled
regions show that region dominating the step; the vectorised count gives the same number
and its share of the step drops.
"""
import argparse
import tempfile
from pathlib import Path

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule

LABELS = ("forward", "loss", "backward", "optimizer", "metrics")


def make_model() -> nn.Module:
    return nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))


# --8<-- [start:step]
def train_step(model, optimizer, x, y, per_sample_metrics: bool) -> int:
    optimizer.zero_grad()
    with record_function("forward"):
        out = model(x)
    with record_function("loss"):
        loss = nn.functional.cross_entropy(out, y)
    with record_function("backward"):
        loss.backward()
    with record_function("optimizer"):
        optimizer.step()
    with record_function("metrics"):
        if per_sample_metrics:  # the bottleneck: 3 small ops and 2 .item() per sample
            correct = 0
            for i in range(len(y)):
                if out[i].argmax().item() == y[i].item():
                    correct += 1
        else:  # the fix: one comparison for the batch, one conversion
            correct = int((out.argmax(dim=1) == y).sum())
    return correct
# --8<-- [end:step]


# --8<-- [start:profile]
def profile_steps(model, x, y, trace_path: Path, per_sample_metrics: bool):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    # Skip 1 step, warm up 1 (profiled, discarded), record 3; then write a Chrome trace.
    with profile(activities=[ProfilerActivity.CPU],
                 schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
                 on_trace_ready=lambda p: p.export_chrome_trace(str(trace_path))) as prof:
        for _ in range(5):
            train_step(model, optimizer, x, y, per_sample_metrics)
            prof.step()  # tells the schedule a step ended
    return prof.key_averages()
# --8<-- [end:profile]


# --8<-- [start:share]
def label_shares(events) -> dict[str, float]:
    """CPU time inside each labelled region, as a share of the profiled steps' CPU time."""
    total = {e.key: e.cpu_time_total for e in events}
    steps = sum(t for key, t in total.items() if key.startswith("ProfilerStep"))
    return {label: total.get(label, 0.0) / steps for label in LABELS}
# --8<-- [end:share]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace-dir", type=Path,
                        help="folder to keep the Chrome traces in (default: a temporary folder, deleted at exit)")
    parser.add_argument("--overwrite", action="store_true", help="replace traces already in --trace-dir")
    parser.add_argument("--threads", type=int, default=1,
                        help="intra-op threads (default 1: on a busy machine, waiting thread pools blur the profile)")
    parser.add_argument("--table", action="store_true",
                        help="also print the profiler's table before the fix (rows and times vary from run to run)")
    args = parser.parse_args()
    if args.threads < 1:
        parser.error("--threads must be at least 1")
    torch.set_num_threads(args.threads)

    with tempfile.TemporaryDirectory(prefix="profiling-") as tmp:
        folder = args.trace_dir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        traces = {name: folder / f"trace_{name}.json" for name in ("before", "after")}
        existing = [p.name for p in traces.values() if p.exists()]
        if existing and not args.overwrite:
            parser.error(f"{', '.join(existing)} already in {folder}; pass --overwrite to replace")

        torch.manual_seed(0)
        x, y = torch.randn(512, 64), torch.randint(0, 10, (512,))
        model = make_model()
        state = {k: v.clone() for k, v in model.state_dict().items()}
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        slow = train_step(model, optimizer, x, y, per_sample_metrics=True)
        model.load_state_dict(state)
        fast = train_step(model, optimizer, x, y, per_sample_metrics=False)
        print(f"per-sample and vectorised metrics count the same correct predictions: {slow == fast}")

        shares = {}
        for name, per_sample in (("before", True), ("after", False)):
            model.load_state_dict(state)
            events = profile_steps(model, x, y, traces[name], per_sample)
            shares[name] = label_shares(events)
            items = sum(e.count for e in events if e.key == "aten::item")
            print(f"{name}: aten::item calls in the 3 profiled steps: {items}")
            if args.table and name == "before":  # the profile that finds the bottleneck
                # --8<-- [start:table]
                print(events.table(sort_by="self_cpu_time_total", row_limit=10))
                # --8<-- [end:table]
            print(f"{name}: trace written: {traces[name].name} (not empty: {traces[name].stat().st_size > 0})")

        before, after = shares["before"], shares["after"]
        top = max(before, key=before.get)
        print(f"before the fix, the largest labelled region: {top} "
              f"({before[top]:.2f} of the profiled step time)")
        print(f"after the fix, metrics takes {after['metrics']:.2f} of the step time")
        print(f"metrics share dropped: {after['metrics'] < before['metrics']}")
        if args.trace_dir:
            print(f"traces kept in {folder}: open them in https://ui.perfetto.dev or chrome://tracing")
        else:
            print("traces were in a temporary folder, now deleted: pass --trace-dir DIR to keep them")


if __name__ == "__main__":
    main()
