"""docs/distributed.md: DDP over gloo on loopback, started by the script itself (3 start methods) or torchrun."""
import pytest

from tests.snippets import run, run_default

NAME = "ddp_train_two_processes_gloo"


def check(out: str, threads: int = 1) -> None:
    assert f"world size 2, backend gloo, {threads} thread(s) per process, 12 steps of global batch 64" in out
    assert "replicas bitwise identical: True" in out
    assert "equals 1-process training on the full batch: True" in out


def test_two_replicas_end_identical_and_equal_full_batch_training():
    check(run_default(NAME).stdout)


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_every_start_method(method):
    result = run(NAME, "--start-method", method)
    assert result.returncode == 0, result.stderr
    check(result.stdout)


def test_same_script_under_torchrun():
    result = run(NAME, python_flags=("-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"))
    assert result.returncode == 0, result.stderr
    check(result.stdout)


def test_threads_per_process_is_what_was_asked():
    result = run(NAME, "--threads", "2")
    assert result.returncode == 0, result.stderr
    check(result.stdout, threads=2)


def test_bad_process_count_is_refused():
    result = run(NAME, "--nproc", "3")
    assert result.returncode != 0
    assert "--nproc must be a positive divisor of the global batch 64" in result.stderr
