"""Every snippet runs on its own, and the output its page shows is what a real run prints."""
import pytest

from tests.snippets import OUTPUTS, all_snippets, mask, run_shared


@pytest.mark.parametrize("name", all_snippets())
def test_page_output_is_a_real_run(name, request):
    result = run_shared(name)
    recorded = OUTPUTS / f"{name}.txt"
    if request.config.getoption("--update-outputs"):
        recorded.write_text(result.stdout)
        return
    assert recorded.is_file(), f"{recorded} missing: run pytest --update-outputs -k {name}"
    assert mask(result.stdout) == mask(recorded.read_text()), (
        f"{name} prints something else than its page shows; "
        "if the change is intended, run pytest --update-outputs -k " + name)
