"""How many threads this process may really keep busy: CPU count, affinity, cgroup CPU quota.

    python thread_budget_report.py --processes 2    # threads each of 2 processes should use
"""
import argparse
import math
import os
from pathlib import Path


def usable_cores() -> int:
    """CPUs this process may be scheduled on (taskset, numactl, docker --cpuset-cpus)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def own_cgroup_dirs(root: Path, controller: str) -> list[Path]:
    """This process's cgroup folder and its parents (a parent's limit applies too), deepest first."""
    rel = "/"
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if (controller and controller in controllers.split(",")) or (not controller and controllers == ""):
                rel = path
    except OSError:
        pass
    base = root / controller if controller else root
    parts = [p for p in rel.split("/") if p]
    return [base.joinpath(*parts[:i]) for i in range(len(parts), -1, -1)]


def cgroup_cpu_quota(root: Path) -> tuple[float | None, str]:
    """CPUs' worth of time the cgroup may use per period (docker --cpus, Kubernetes limits)."""
    quotas, source = [], "none found"
    for folder in own_cgroup_dirs(root, ""):  # cgroup v2: "max 100000" or "150000 100000"
        f = folder / "cpu.max"
        if f.is_file():
            source = "cgroup v2 cpu.max"
            quota, period = f.read_text().split()[:2]
            if quota != "max":
                quotas.append(int(quota) / int(period))
    if source == "none found":
        for controller in ("cpu", "cpu,cpuacct"):  # cgroup v1: quota -1 means no limit
            for folder in own_cgroup_dirs(root, controller):
                q, p = folder / "cpu.cfs_quota_us", folder / "cpu.cfs_period_us"
                if q.is_file() and p.is_file():
                    source = "cgroup v1 cpu.cfs_quota_us"
                    quota, period = int(q.read_text()), int(p.read_text())
                    if quota > 0:
                        quotas.append(quota / period)
    return (min(quotas) if quotas else None), source


def physical_cores() -> int | None:
    try:
        import psutil
    except ImportError:
        return None
    return psutil.cpu_count(logical=False)


# --8<-- [start:budget]
def thread_budget(root: Path = Path("/sys/fs/cgroup")) -> int:
    """Threads worth running at once: the smallest of affinity, cgroup quota and physical cores."""
    limits = [usable_cores()]
    quota, _ = cgroup_cpu_quota(root)
    if quota is not None:
        limits.append(max(1, math.floor(quota)))  # a thread on half a core stalls every parallel op
    physical = physical_cores()
    if physical:
        limits.append(physical)
    return min(limits)
# --8<-- [end:budget]


# --8<-- [start:split]
def threads_per_process(budget: int, processes: int) -> int:
    """Intra-op threads for each of `processes` processes sharing `budget` cores: N x M <= budget."""
    return max(1, budget // processes)  # at least 1: more processes than cores oversubscribe
# --8<-- [end:split]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=1, help="processes that share the budget (default 1)")
    parser.add_argument("--cgroup-root", type=Path, default=Path("/sys/fs/cgroup"),
                        help="where the cgroup file system is mounted (default /sys/fs/cgroup)")
    args = parser.parse_args()
    if args.processes < 1:
        parser.error("--processes must be at least 1")

    quota, source = cgroup_cpu_quota(args.cgroup_root)
    budget = thread_budget(args.cgroup_root)
    print(f"os.cpu_count():           {os.cpu_count()}")
    print(f"usable (affinity):        {usable_cores()}")
    print(f"physical cores:           {physical_cores() or 'unknown (pip install psutil)'}")
    print(f"cgroup CPU quota:         {'no limit' if quota is None else f'{quota:.2f} CPUs'} ({source})")
    print(f"OMP_NUM_THREADS:          {os.environ.get('OMP_NUM_THREADS', 'not set')}")
    import torch  # after the report: importing it does not change any of the numbers above
    print(f"torch default threads:    {torch.get_num_threads()}")
    print(f"thread budget:            {budget}")
    per_process = threads_per_process(budget, args.processes)
    total = args.processes * per_process
    print(f"{args.processes} process(es) x {per_process} thread(s) = {total} (oversubscribed: {total > budget})")
    if total > budget:
        print(f"more processes than the budget: run at most {budget} at a time")


if __name__ == "__main__":
    main()
