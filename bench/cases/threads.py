"""Intra-op threads: 1, all usable cores, then one and twice as many as cores (oversubscription);
a compute-bound matmul and MLP beside a memory-bound elementwise add."""

import torch

from bench.machine import usable_cores

TITLE = "Threads"
ORDER = 10
WHEN = 'Always: one thread per physical core, set at start-up; never more threads than cores.'  # Home's headline table: when the technique applies
# What its verdicts and Home's headline count: the variant a reader should use, per regime (row-id patterns)
RECOMMENDED = {"speed": ["threads/*/all-cores"]}


def run(session) -> None:
    torch.manual_seed(0)
    size = session.pick(256, 1024)
    a = torch.randn(size, size)
    batch = session.pick(64, 256)
    mlp = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(),
                              torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
                              torch.nn.Linear(1024, 10)).eval()
    x = torch.randn(batch, 512)

    def forward():
        with torch.inference_mode():
            return mlp(x)

    usable = usable_cores()
    # Named thread counts (not 1..2N), so that every machine has the same rows; a count that
    # repeats an earlier one (one usable core: all cores = 1 thread) is measured once.
    counts = {}
    for label, n in (("1 thread", 1), ("all cores", usable), ("all cores plus 1", usable + 1),
                     ("2 x all cores", 2 * usable)):
        counts.setdefault(n, label)
    # Memory-bound: three float32 tensors far larger than the caches (3 x 64 MiB in full mode),
    # into a preallocated output so that page faults of a fresh 64 MiB result are not timed.
    elements = session.pick(1 << 20, 1 << 24)
    u, v, out = torch.randn(elements), torch.randn(elements), torch.empty(elements)
    cases = [("square matmul", lambda: a @ a, None, {"size": size}),
             ("MLP forward", forward, batch, {"batch_size": batch}),
             ("large elementwise add", lambda: torch.add(u, v, out=out), None,
              {"elements": elements, "mib_moved": 3 * 4 * elements / 2**20})]
    for group, fn, items, sizes in cases:
        for n, label in counts.items():
            session.time(group, label, fn, num_threads=n, baseline=n == 1, items=items,
                         params={"usable_cores": usable, **sizes})
