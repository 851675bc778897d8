"""Autograd vs no_grad vs inference_mode, a frozen backbone, cached features, hoisted constants.

The models and functions are the ones the page shows, loaded from snippets/.
"""
import copy

import torch
import torch.nn as nn

from bench.core import load_snippet

TITLE = "Avoiding unnecessary work"
ORDER = 40
WHEN = 'Frozen layers, features or constants recomputed every step.'  # Home's headline table: when the technique applies
# What its verdicts and Home's headline count: the variant a reader should use, per regime (row-id patterns)
RECOMMENDED = {"inference_mode, time": ["avoid_computation/forward-*/torch-inference-mode"], "skipping work in training": ["avoid_computation/forward-backward-*/backbone-frozen-*", "avoid_computation/train-the-head-*/features-cached-*"], "constants built once": ["avoid_computation/positional-*/built-once-as-buffers"]}


def run(session) -> None:
    torch.manual_seed(0)
    modes = load_snippet("avoid_computation_no_grad_vs_inference_mode")
    batch = 64
    model = modes.make_model().eval()
    x = torch.randn(batch, 256)
    contexts = {"autograd (default)": torch.enable_grad, "torch.no_grad()": torch.no_grad,
                "torch.inference_mode()": torch.inference_mode}
    group = "forward, 3-layer MLP, 1 thread"
    for name, context in contexts.items():
        def forward(context=context):
            with context():
                model(x)
        session.time(group, name, forward, baseline=name.startswith("autograd"), items=batch,
                     params={"batch_size": batch})
    group = "activation memory kept for backward by one forward"
    for name, context in contexts.items():
        # Deterministic: bytes of the activations autograd saves, parameters excluded (0 when
        # nothing is recorded).
        session.record(group, name, modes.saved_bytes(model, x, context) / 2**20, "MiB",
                       baseline=name.startswith("autograd"), params={"batch_size": batch})

    frozen = load_snippet("avoid_computation_frozen_backbone")
    full_backbone, head = frozen.make_backbone(), nn.Linear(256, 10)
    frozen_backbone = copy.deepcopy(full_backbone)
    frozen.freeze(frozen_backbone)
    xb, yb = torch.randn(128, 64), torch.randint(0, 10, (128,))

    def step(backbone):
        nn.functional.cross_entropy(head(backbone(xb)), yb).backward()
    group = "forward+backward, 3-layer backbone + linear head, 1 thread"
    session.time(group, "backbone trainable (grads for all)", lambda: step(full_backbone), baseline=True,
                 params={"batch_size": 128})
    session.time(group, "backbone frozen (requires_grad_(False))", lambda: step(frozen_backbone),
                 params={"batch_size": 128})

    n_batches, epochs = session.pick(5, 20), 3
    batches = [(torch.randn(128, 64), torch.randint(0, 10, (128,))) for _ in range(n_batches)]
    group = "train the head for a few epochs, frozen backbone, 1 thread"
    sizes = {"epochs": epochs, "batches": n_batches, "batch_size": 128}
    session.time(group, "backbone forward every epoch",
                 lambda: frozen.train_head(frozen_backbone, copy.deepcopy(head), batches, epochs), baseline=True,
                 params=sizes)
    session.time(group, "features cached once (incl. caching)",
                 lambda: frozen.train_head(frozen_backbone, copy.deepcopy(head), batches, epochs,
                                           cached_features=frozen.cache_features(frozen_backbone, batches)),
                 params=sizes)

    hoist = load_snippet("avoid_computation_hoist_constant")
    length = session.pick(64, 128)
    xs = torch.randn(8, length, 64)
    group = "positional table + causal mask, 1 thread"
    session.time(group, "rebuilt in every forward", lambda: hoist.RecomputesEveryCall()(xs), baseline=True,
                 params={"length": length})
    once = hoist.ComputesOnce(max_length=2048, dim=64)
    session.time(group, "built once as buffers", lambda: once(xs), params={"length": length})
