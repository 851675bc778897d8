"""The origin article's examples, run exactly as written, fail the way the Corrections page says.

tests/article/ holds them verbatim (Chinese comments included); the page shows each file and
the recorded result of running it, re-checked here.
"""
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

from tests.paths import OUTPUTS, ROOT
from tests.recorded import keep, mask
from tests.running import clean_env, fresh_default_threads

# Every erratum is re-run on other torch releases too (tests/releases.py)
pytestmark = [pytest.mark.release, pytest.mark.recorded]

ARTICLE = ROOT / "tests" / "article"
RECORDED = OUTPUTS / "article"
EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception)\b")


def can_cut_network() -> bool:
    return shutil.which("unshare") is not None and subprocess.run(
        ["unshare", "--net", "true"], capture_output=True).returncode == 0


def run_article(name: str, offline: bool = False, cwd=None) -> tuple[int, str]:
    """Run one article file in a fresh process from an empty folder; return (exit code, what a
    reader sees: stdout, then the exception a failing run ends with)."""
    prefix = ["unshare", "--net"] if offline else []
    with tempfile.TemporaryDirectory() as tmp:
        result = subprocess.run([*prefix, sys.executable, str(ARTICLE / f"{name}.py")], cwd=cwd or tmp,
                                env=clean_env(), capture_output=True, text=True, timeout=600)
    lines = result.stderr.splitlines()
    starts = [i for i, line in enumerate(lines) if EXCEPTION_LINE.match(line)]
    error = "\n".join(lines[starts[-1]:]) if starts else ""
    return result.returncode, (result.stdout + error).strip() + "\n"


def check_recorded(name: str, seen: str, request) -> None:
    recorded = keep(RECORDED / f"{name}.txt", seen, request, lambda stored, fresh: mask(stored) == mask(fresh))
    assert mask(seen) == mask(recorded), f"the Corrections page shows another result for {name}"


def test_env_vars_set_after_import_do_not_change_threads(request):
    code, seen = run_article("threads")
    assert code == 0
    default = str(fresh_default_threads())
    assert seen.strip() == f"使用的线程数: {default}"
    if default != "4":
        assert "4" not in seen, "the article's os.environ lines took effect after import torch"
    check_recorded("threads", seen, request)


@pytest.mark.skipif(not can_cut_network(), reason="needs `unshare --net` to guarantee no download")
def test_mnist_download_fails_offline(request, tmp_path):
    code, seen = run_article("data_loading", offline=True, cwd=tmp_path)
    assert code != 0
    assert seen.startswith("RuntimeError: Error downloading train-images-idx3-ubyte.gz")
    assert (tmp_path / "data" / "MNIST" / "raw").is_dir(), "the page says it leaves ./data behind"
    assert not any((tmp_path / "data" / "MNIST" / "raw").iterdir())
    check_recorded("data_loading", seen, request)


def test_tensor_ops_runs_but_compares_nothing(request):
    code, seen = run_article("tensor_ops")
    assert code == 0
    assert seen.strip() == "结果的形状: torch.Size([10000, 10000])"
    assert "for " not in (ARTICLE / "tensor_ops.py").read_text(), "no loop to compare against"
    check_recorded("tensor_ops", seen, request)


def test_training_step_forgets_import_torch(request):
    code, seen = run_article("training_step")
    assert code != 0
    assert seen.strip() == "NameError: name 'torch' is not defined"
    check_recorded("training_step", seen, request)


def test_training_step_runs_after_the_tutorials_earlier_import():
    """Fair to the article: its earlier blocks import torch, and after them this block runs."""
    source = (ARTICLE / "training_step.py").read_text()
    namespace: dict = {}
    exec(compile("import torch\n" + source, "training_step.py", "exec"), namespace)
    assert namespace["loss"].item() >= 0 and namespace["model"].fc.weight.grad is not None


def test_profiler_imports_torchaudio_for_nothing(request):
    code, seen = run_article("profiler")
    assert code != 0
    try:
        import torchaudio  # noqa: F401
    except ImportError:
        assert seen.strip() == "ModuleNotFoundError: No module named 'torchaudio'"
        check_recorded("profiler", seen, request)
    else:  # with torchaudio installed it gets one line further and fails on the names it never defined
        assert "NameError: name 'model' is not defined" in seen


def test_profiler_table_has_no_sortby(request):
    code, seen = run_article("profiler_sortby")
    assert code != 0
    assert seen.strip() == "TypeError: EventList.table() got an unexpected keyword argument 'sortby'"
    check_recorded("profiler_sortby", seen, request)
