"""DataLoader workers run with 1 intra-op thread each; the main process keeps its own count."""
import argparse
import multiprocessing as mp

import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class ThreadReport(Dataset):
    """Each item says which worker made it and how many threads torch had there."""

    def __len__(self) -> int:
        return 8

    def __getitem__(self, i: int) -> torch.Tensor:
        info = get_worker_info()
        worker = -1 if info is None else info.id
        return torch.tensor([worker, torch.get_num_threads()])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", type=int, default=2, help="DataLoader workers (default 2)")
    parser.add_argument("--threads", type=int, default=None,
                        help="intra-op threads for the main process (default: torch's)")
    parser.add_argument("--start-method", choices=mp.get_all_start_methods(), default=None,
                        help="fork, spawn or forkserver (default: the platform's)")
    args = parser.parse_args()
    if args.workers < 0 or (args.threads is not None and args.threads < 1):
        parser.error("--workers must be >= 0 and --threads >= 1")
    if args.threads:
        torch.set_num_threads(args.threads)

    # --8<-- [start:loader]
    loader = DataLoader(ThreadReport(), batch_size=None, num_workers=args.workers,
                        multiprocessing_context=args.start_method if args.workers else None)
    seen = sorted({tuple(item.tolist()) for item in loader})
    print(f"main process: {torch.get_num_threads()} thread(s)")
    for worker, threads in seen:
        print(f"{'main process (no workers)' if worker < 0 else f'worker {worker}'} built items with "
              f"{threads} thread(s)")
    # --8<-- [end:loader]
    busy = torch.get_num_threads() + args.workers
    print(f"threads when every worker is busy: {torch.get_num_threads()} + {args.workers} x 1 = {busy}")


if __name__ == "__main__":
    main()
