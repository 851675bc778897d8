"""Every claim (tests/claims/): its sentence stands on its page, it holds on the committed
references, and it fails when their ratios are inverted."""
from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

from bench.references import load_all
from tests.claims import CLAIMS, Claim, Measured, page_text
from tests.paths import DOCS

for _module in pkgutil.iter_modules([str(DOCS.parent / "tests" / "claims")]):
    importlib.import_module(f"tests.claims.{_module.name}")

# --- end of claims ---------------------------------------------------------------------------


def _ids(c: Claim) -> str:
    return f"{c.page}: {c.quote[:50]}"


@pytest.mark.parametrize("c", CLAIMS, ids=_ids)
def test_claim_stands_on_its_page(c):
    assert " ".join(c.quote.split()) in page_text(c.page), f"{c.page} no longer says: {c.quote!r}"


@pytest.mark.parametrize("c", CLAIMS, ids=_ids)
def test_claim_holds_on_the_references(c):
    assert c.holds(Measured(load_all())), f"{c.page}: the references contradict: {c.quote!r}"


@pytest.mark.parametrize("c", CLAIMS, ids=_ids)
def test_claim_fails_on_inverted_references(c):
    try:
        held = c.holds(Measured(load_all(), inverted=True))
    except AssertionError:
        held = False
    assert not held, f"{c.page}: this predicate holds whatever was measured: {c.quote!r}"


def test_pages_that_quote_figures_have_claims():
    """A page whose prose quotes a ratio ("1.4×", "ten times") has at least one claim."""
    quoting = re.compile(r"\d(\.\d+)?\s?× (faster|slower|better|more|less)|times (faster|slower)"
                         r"|[\d一二两三四五六七八九十半]\s?倍")  # the Chinese edition's "N 倍"
    pages = {p.name for p in DOCS.glob("*.md") if quoting.search(page_text(p.name))}
    missing = pages - {c.page for c in CLAIMS}
    assert not missing, f"pages that quote measured ratios with no claim in tests/test_claims.py: {missing}"
