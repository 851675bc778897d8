"""What running under torch.profiler costs, and the bottleneck the profiling page finds, fixed.

The model and training step are the ones the page shows, loaded from snippets/.
"""

import torch
from torch.profiler import ProfilerActivity, profile

from bench.core import load_snippet

TITLE = "Profiling"
ORDER = 50
WHEN = 'First, to find what to fix: profile a few steps, not the whole run.'  # Home's headline table: when the technique applies


def run(session) -> None:
    torch.manual_seed(0)
    prof = load_snippet("profiling_find_bottleneck")
    model = prof.make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(512, 64), torch.randint(0, 10, (512,))
    steps = 5

    def train(per_sample_metrics: bool) -> None:
        for _ in range(steps):
            prof.train_step(model, optimizer, x, y, per_sample_metrics)

    def profiled(**options):
        def fn():
            with profile(activities=[ProfilerActivity.CPU], **options):
                train(False)
        return fn

    train(True)  # warm-up: the first optimizer step and profiler start import and allocate
    profiled()()

    sizes = {"steps": steps, "batch_size": 512}
    group = "training steps under the profiler, 1 thread"
    session.time(group, "no profiler", lambda: train(False), baseline=True, items=steps, params=sizes)
    session.time(group, "profile(activities=[CPU])", profiled(), items=steps, params=sizes)
    session.time(group, "+ record_shapes, with_stack", profiled(record_shapes=True, with_stack=True), items=steps,
                 params=sizes)

    group = "the bottleneck the profile found, 1 thread"
    session.time(group, "per-sample metrics with .item() (before)", lambda: train(True), baseline=True, items=steps,
                 params=sizes)
    session.time(group, "vectorised metrics (after)", lambda: train(False), items=steps, params=sizes)
