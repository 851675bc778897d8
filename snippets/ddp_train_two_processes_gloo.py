"""Data-parallel training on one CPU machine: 2 processes, torch.distributed (gloo) + DistributedDataParallel.

python ddp_train_two_processes_gloo.py [--start-method spawn]     # starts its own processes
python -m torch.distributed.run --standalone --nproc-per-node 2 ddp_train_two_processes_gloo.py   # torchrun
"""
import argparse
import multiprocessing
import os
import socket
import statistics
import time

STEPS_PER_EPOCH, EPOCHS, GLOBAL_BATCH, FEATURES = 4, 3, 64, 16


def make_data():
    import torch

    g = torch.Generator().manual_seed(0)
    x = torch.randn(STEPS_PER_EPOCH * GLOBAL_BATCH, FEATURES, generator=g)
    y = x @ torch.randn(FEATURES, 1, generator=g) + 0.1 * torch.randn(len(x), 1, generator=g)
    return torch.utils.data.TensorDataset(x, y)


def make_model():
    import torch

    torch.manual_seed(0)  # same initial weights in every process (DDP also broadcasts rank 0's)
    return torch.nn.Sequential(torch.nn.Linear(FEATURES, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))


def flat(model):
    import torch

    return torch.cat([p.detach().reshape(-1) for p in model.parameters()])


def single_process_reference(dataset, world: int):
    """What one process gets training on the full global batch, same samples in the same steps."""
    import torch
    from torch.utils.data.distributed import DistributedSampler

    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    samplers = [DistributedSampler(dataset, num_replicas=world, rank=r, shuffle=True, seed=0) for r in range(world)]
    per_rank = GLOBAL_BATCH // world
    for epoch in range(EPOCHS):
        for s in samplers:
            s.set_epoch(epoch)
        orders = [list(s) for s in samplers]
        for step in range(STEPS_PER_EPOCH):
            idx = [i for order in orders for i in order[step * per_rank:(step + 1) * per_rank]]
            x, y = dataset[idx]
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
    return flat(model)


def worker(rank: int, world: int, init_method: str, threads: int) -> None:
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    from torch.utils.data import DataLoader
    from torch.utils.data.distributed import DistributedSampler

    torch.set_num_threads(threads)  # per process: processes x threads should not exceed the cores
    # --8<-- [start:ddp]
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=world)
    dataset = make_data()
    sampler = DistributedSampler(dataset, shuffle=True, seed=0)  # each rank gets its own 1/world
    loader = DataLoader(dataset, batch_size=GLOBAL_BATCH // world, sampler=sampler)
    model = DistributedDataParallel(make_model())  # averages gradients across ranks in backward()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    step_times = []
    for epoch in range(EPOCHS):
        sampler.set_epoch(epoch)  # a new shuffle per epoch, the same on every rank
        for x, y in loader:
            start = time.perf_counter()
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            step_times.append(time.perf_counter() - start)
    # --8<-- [end:ddp]

    mine = flat(model.module)
    replicas = [torch.empty_like(mine) for _ in range(world)]
    dist.all_gather(replicas, mine)  # every rank's final weights, to check they are identical
    if rank == 0:
        reference = single_process_reference(dataset, world)
        sums = ", ".join(f"{r.double().sum().item():.6f}" for r in replicas)
        print(f"world size {world}, backend {dist.get_backend()}, {torch.get_num_threads()} thread(s) per process, "
              f"{len(step_times)} steps of global batch {GLOBAL_BATCH}")
        print(f"weight checksums per rank: [{sums}]")
        print(f"replicas bitwise identical: {all(torch.equal(r, replicas[0]) for r in replicas)}")
        print(f"equals 1-process training on the full batch: {torch.allclose(mine, reference, atol=1e-6)} "
              f"(max abs diff {(mine - reference).abs().max().item():.1e})")
        print(f"median step time on rank 0: {statistics.median(step_times) * 1e3:.2f} ms")
    # Tear down together: a rank that leaves while rank 0 still computes its check can make gloo abort.
    dist.barrier()
    dist.destroy_process_group()


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))  # the OS picks a free port; loopback only, nothing leaves the machine
        return s.getsockname()[1]


def use_loopback_for_gloo() -> None:
    """All ranks are on this machine: make gloo talk over loopback, not whatever the hostname resolves to."""
    if "GLOO_SOCKET_IFNAME" not in os.environ:
        names = [name for _, name in socket.if_nameindex() if name.startswith("lo")]
        if names:
            os.environ["GLOO_SOCKET_IFNAME"] = names[0]  # "lo" on Linux, "lo0" on macOS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--start-method", choices=["fork", "spawn", "forkserver"],
                        default=multiprocessing.get_context().get_start_method(),
                        help="how to start the worker processes (default: the platform's)")
    parser.add_argument("--nproc", type=int, default=2, help="processes when not under torchrun (default: 2)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads per process (default: 1)")
    args = parser.parse_args()
    if args.nproc < 1 or GLOBAL_BATCH % args.nproc:
        parser.error(f"--nproc must be a positive divisor of the global batch {GLOBAL_BATCH}")
    if args.threads < 1:
        parser.error("--threads must be at least 1")

    import torch.distributed as dist
    import torch.multiprocessing as mp

    if not dist.is_available() or not dist.is_gloo_available():
        print("SKIP: this torch build has no torch.distributed gloo backend")
        return
    # --8<-- [start:launch]
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:  # started by torchrun: it set RANK, MASTER_ADDR, ...
        if os.environ.get("LOCAL_WORLD_SIZE") == os.environ["WORLD_SIZE"]:
            use_loopback_for_gloo()  # one node
        worker(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), "env://", args.threads)
    else:  # started as a plain script: start the processes ourselves
        use_loopback_for_gloo()
        init_method = f"tcp://127.0.0.1:{free_loopback_port()}"
        mp.start_processes(worker, args=(args.nproc, init_method, args.threads), nprocs=args.nproc,
                           join=True, start_method=args.start_method)
    # --8<-- [end:launch]


if __name__ == "__main__":
    main()
