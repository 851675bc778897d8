"""Every sentence on the site that quotes or compares a measured figure, tied to the committed
references (bench/references/<kind>.json, one full run per CPU kind).

Each claim names its page and quotes its sentence (or the part of it that states the figure):
the quote must stand on the page, so the sentence cannot change without its check, and the
predicate must hold over the references, so a new reference run cannot make the sentence false
without failing here. Every predicate must also fail when the references' ratios are inverted
(and their medians scaled), so none can pass whatever was measured.

Writing a claim:

    @claim("bfloat16.md", "about ten times slower on AVX2-only CPUs")
    def _(m):
        return all(m.ratio(k, "bfloat16/mlp-inference-1-thread/bf16-autocast") < 0.2 for k in m.kinds("avx2"))

m.kinds(*levels) lists the reference kinds (e.g. "amd-avx2") whose instruction-set level is one
of levels (all kinds without arguments); m.ratio(kind, id) and m.median(kind, id) read a row.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import pytest

from bench.compare import by_id
from bench.machine import kind
from bench.references import load_all
from tests.snippets import DOCS


class Measured:
    """The references as claims read them; inverted=True turns every ratio upside down and
    scales every median tenfold, which every claim must notice."""

    def __init__(self, references: list[dict], inverted: bool = False):
        self.rows = {kind(r["machine"]): by_id(r) for r in references}
        self.inverted = inverted

    def kinds(self, *levels: str) -> list[str]:
        found = [k for k in self.rows if not levels or k.split("-", 1)[1] in levels]
        assert found, f"no reference of level {levels}: the claim has nothing to stand on"
        return found

    def row(self, kind_: str, row_id: str) -> dict:
        assert row_id in self.rows[kind_], f"{kind_} has no row {row_id}"
        return self.rows[kind_][row_id]

    def ratio(self, kind_: str, row_id: str) -> float:
        value = self.row(kind_, row_id)["ratio"]
        assert value, f"{kind_} {row_id} has no ratio"
        return 1 / value if self.inverted else value

    def median(self, kind_: str, row_id: str) -> float:
        return self.row(kind_, row_id)["median"] * (10 if self.inverted else 1)


@dataclass
class Claim:
    page: str
    quote: str
    holds: Callable[[Measured], bool]


CLAIMS: list[Claim] = []


def claim(page: str, quote: str):
    def register(holds):
        CLAIMS.append(Claim(page, quote, holds))
        return holds
    return register


def _page_text(page: str) -> str:
    """The page as a reader sees its words: markdown line breaks and indentation folded."""
    return re.sub(r"\s+", " ", (DOCS / page).read_text())


# --- the claims, page by page (keep each next to the others of its page) ---------------------


# index.md and benchmark.md: the instruction set flips advice
BF16_1T = "bfloat16/mlp-inference-1-thread/bf16-autocast"
INT8_1T = "quantisation/mlp-512-1024-1024-10-inference-1-thread/torchao-int8-dynamic-activations-weights"
CL_TINY_1T = "channels_last/resnet18-tiny-images-1-thread/channels-last"


@claim("index.md", "bfloat16 autocast goes from several times slower than fp32 on an AVX2-only CPU to faster with AVX512_BF16")
@claim("benchmark.md", "bfloat16 autocast goes from several times slower than fp32 on an AVX2-only CPU to faster on one with AVX512_BF16")
def _(m):
    return (all(m.ratio(k, BF16_1T) < 1 / 3 for k in m.kinds("avx2"))
            and all(m.ratio(k, BF16_1T) > 1.1 for k in m.kinds("avx512-bf16", "amx")))


@claim("index.md", "torchao's int8 from more than ten times slower to about even with VNNI")
def _(m):
    return (all(m.ratio(k, INT8_1T) < 0.1 for k in m.kinds("avx2"))
            and all(0.7 < m.ratio(k, INT8_1T) < 1.5 for k in m.kinds("avx512-bf16", "avx512-vnni", "amx")))


@claim("benchmark.md", "`channels_last` speeds resnet18 up on tiny images on the AVX2 machine but slows it down on the AVX-512 one")
def _(m):
    return (all(m.ratio(k, CL_TINY_1T) > 1.2 for k in m.kinds("avx2"))
            and all(m.ratio(k, CL_TINY_1T) < 1.0 for k in m.kinds("avx512-bf16")))


# --- end of claims ---------------------------------------------------------------------------


def _ids(c: Claim) -> str:
    return f"{c.page}: {c.quote[:50]}"


@pytest.mark.parametrize("c", CLAIMS, ids=_ids)
def test_claim_stands_on_its_page(c):
    assert " ".join(c.quote.split()) in _page_text(c.page), f"{c.page} no longer says: {c.quote!r}"


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
    quoting = re.compile(r"\d(\.\d+)?\s?× (faster|slower|better|more|less)|times (faster|slower)")
    pages = {p.name for p in DOCS.glob("*.md") if quoting.search(_page_text(p.name))}
    missing = pages - {c.page for c in CLAIMS}
    assert not missing, f"pages that quote measured ratios with no claim in tests/test_claims.py: {missing}"
