"""How many cores this process may use, and how torch's thread pools are set up."""
import os

import torch


def usable_cores() -> int:
    """Cores this process may run on: taskset, cpuset containers and job schedulers lower it."""
    try:
        return len(os.sched_getaffinity(0))  # Linux
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def physical_cores() -> int | None:
    try:
        import psutil
    except ImportError:
        return None
    return psutil.cpu_count(logical=False)


def main() -> None:
    # --8<-- [start:cores]
    logical = os.cpu_count()  # hardware threads in the machine (SMT siblings count twice)
    usable = usable_cores()  # of those, the ones this process is allowed on
    physical = physical_cores()  # real cores; None without psutil
    suggested = min(usable, physical or usable)
    print(f"logical CPUs: {logical}, usable: {usable}, physical cores: {physical or 'unknown (pip install psutil)'}")
    print(f"suggested intra-op threads: {suggested}; torch default: {torch.get_num_threads()}")
    # --8<-- [end:cores]
    print(torch.__config__.parallel_info())


if __name__ == "__main__":
    main()
