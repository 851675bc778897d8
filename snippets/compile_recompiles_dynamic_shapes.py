"""Count how often torch.compile recompiles when the batch size changes: default, dynamic=False, dynamic=True."""
import argparse
import os
import tempfile


def count_compiles(model, batch_sizes, backend: str, dynamic) -> int:
    import torch
    from torch._dynamo.utils import counters

    torch._dynamo.reset()  # forget earlier compiles (and their counters) so each variant starts cold
    counters.clear()
    compiled = torch.compile(model, backend=backend, dynamic=dynamic)
    with torch.inference_mode():
        for n in batch_sizes:
            x = torch.randn(n, 32)
            assert torch.allclose(compiled(x), model(x), rtol=1e-4, atol=1e-5)
    return counters["stats"]["unique_graphs"]  # graphs Dynamo handed to the backend


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backend", choices=["inductor", "aot_eager", "eager"], default="aot_eager",
                        help="compiler backend (default: aot_eager, so the demo takes seconds; "
                             "recompiles are decided by Dynamo's guards before the backend runs, "
                             "so inductor gives the same counts, only slower)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="inductor-cache-") as cache:
        os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", cache)  # only used with --backend inductor
        import torch

        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4)).eval()
        batch_sizes = [8, 16, 24, 32, 40]  # e.g. the last, smaller batch of every epoch, or variable requests
        print(f"backend {args.backend}, batch sizes {batch_sizes}")
        # --8<-- [start:variants]
        for label, dynamic in [("default (dynamic=None)", None), ("dynamic=False", False), ("dynamic=True", True)]:
            graphs = count_compiles(model, batch_sizes, args.backend, dynamic)
            print(f"{label:25} compiled {graphs} graph(s) for {len(batch_sizes)} shapes")
        # dynamic=True still specialises sizes 0 and 1: batch 1 (the usual serving size) gets its own graph.
        graphs = count_compiles(model, [1, *batch_sizes], args.backend, True)
        print(f"{'dynamic=True, batch 1 too':25} compiled {graphs} graph(s) for {len(batch_sizes) + 1} shapes")
        # --8<-- [end:variants]
        print("every compiled output matched eager")


if __name__ == "__main__":
    main()
