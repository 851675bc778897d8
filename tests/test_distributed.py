"""docs/distributed.md: DDP over gloo on loopback, started by the script itself (3 start methods) or torchrun."""
import os

import pytest

from tests.running import run, run_here, run_shared

NAME = "ddp_train_two_processes_gloo"


def check(out: str, threads: int = 1) -> None:
    assert f"world size 2, backend gloo, {threads} thread(s) per process, 12 steps of global batch 64" in out
    assert "replicas bitwise identical: True" in out
    assert "equals 1-process training on the full batch: True" in out


def test_two_replicas_end_identical_and_equal_full_batch_training():
    check(run_shared(NAME).stdout)


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_every_start_method(method):
    """fork is the plain run above; these runs are shared with tests/test_portability.py."""
    check(run_shared(NAME, "--start-method", method).stdout)


GLOO_ABORT = "terminate called without an active exception"


@pytest.mark.slow  # torchrun starting two ranks, each importing torch and training
def test_same_script_under_torchrun_with_the_threads_asked():
    def launch():
        return run(NAME, "--threads", "2",
                   python_flags=("-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"))
    result = launch()
    if result.returncode != 0 and GLOO_ABORT in result.stderr:
        # Seen once (2026-12-02) in a full suite on a loaded 2-core machine (2 test workers + 2 ranks x 2
        # threads): a rank aborted in gloo's C++ with no Python error, and six reruns alone passed.
        # One more launch; an abort that repeats, or any other failure, fails the test.
        first, result = result.stderr, launch()
        assert result.returncode == 0, f"aborted twice:\n{first}\n---\n{result.stderr}"
    assert result.returncode == 0, result.stderr
    check(result.stdout, threads=2)


@pytest.mark.parametrize("nproc, expected", [("1", None), ("2", "1")])
def test_torchrun_sets_omp_num_threads_to_1_only_for_several_processes(monkeypatch, nproc, expected):
    """As the page's warning says: torchrun's own argument handling (no process is started),
    with OMP_NUM_THREADS unset; monkeypatch restores the environment afterwards."""
    from torch.distributed import run as torchrun

    monkeypatch.setenv("OMP_NUM_THREADS", "unset below")  # so that teardown restores the original
    monkeypatch.delenv("OMP_NUM_THREADS")
    torchrun.config_from_args(torchrun.parse_args(["--standalone", "--nproc-per-node", nproc, "train.py"]))
    assert os.environ.get("OMP_NUM_THREADS") == expected


def test_bad_process_count_is_refused():
    result = run_here(NAME, "--nproc", "3")
    assert result.returncode != 0
    assert "--nproc must be a positive divisor of the global batch 64" in result.stderr
