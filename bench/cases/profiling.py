"""What running under torch.profiler costs, and the bottleneck the profiling page finds, fixed.

The model and training step are the ones the page shows, loaded from snippets/.
"""

import torch
from torch.profiler import ProfilerActivity, profile

from bench.core import load_snippet

TITLE = "Profiling"
ORDER = 50
WHEN = 'First, to find what to fix: profile a few steps, not the whole run.'  # Home's headline table: when the technique applies
# What its verdicts and Home's headline count: the variant a reader should use, per regime (row-id patterns)
RECOMMENDED = {"speed": ["profiling/the-bottleneck-*/vectorised-metrics-after"]}


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

    # Denormals: an MLP whose dead hidden units' weights weight decay shrank below float32's
    # smallest normal number, as is and with flush-to-zero; the same MLP undecayed for scale.
    den = load_snippet("profiling_denormals")
    fresh = den.make_model().eval()
    decayed = den.make_model().eval()
    decayed.load_state_dict(fresh.state_dict())
    den.decay_dead_units(decayed, 0.5)
    x = torch.randn(64, 256)
    params = {"batch_size": 64, "denormal_weight_share": round(den.denormal_share(decayed), 3)}

    def forward(model):
        def fn():
            with torch.inference_mode():
                model(x)
        return fn

    group = "MLP with weights decayed into denormals, 1 thread"
    session.time(group, "denormal weights, default", forward(decayed), baseline=True, params=params)
    torch.set_flush_denormal(True)  # the calling thread, which runs the 1-thread timings
    try:
        session.time(group, "denormal weights, set_flush_denormal(True)", forward(decayed), params=params)
    finally:
        torch.set_flush_denormal(False)
    session.time(group, "weights not decayed (no denormals)", forward(fresh), params=params)
