"""The claims' machinery: every sentence on the site that quotes or compares a measured figure, tied
to the committed references (bench/references/<kind>.json, one full run per CPU kind). One module
per page (tests/claims/<page>.py, the page's file name with underscores) holds its claims, each
sentence's English and Chinese text side by side; tests/test_claims.py checks them all.

Each claim names its page and quotes its sentence (or the part of it that states the figure):
the quote must stand on the page, so the sentence cannot change without its check, and the
predicate must hold over the references, so a new reference run cannot make the sentence false
without failing here. Every predicate must also fail when the references' ratios are inverted
(and their medians scaled), so none can pass whatever was measured.

Writing a claim:

    @claim("bfloat16.md", "about ten times slower on AVX2-only CPUs")
    def _(m):
        return all(m.ratio(k, "bfloat16/mlp-inference-1-thread/bf16-autocast") < 0.2 for k in m.kinds("avx2"))

A claim over a row that some kinds have not measured yet reads the kinds that have (m.having).

A claim on a sentence that shows a named figure (bench/pages/<page>.yml: {{ fig.<name> }} in both
editions) reads that figure: m.figure("threads", "xeon_large_elementwise_add_all_cores") is the number
(or, for an interval, the pair) the page shows, so the claim checks what both editions print.

m.kinds(*levels) lists the reference kinds (e.g. "amd-avx2") whose instruction-set level is one
of levels (all kinds without arguments); m.ratio(kind, id) and m.median(kind, id) read a row.
"""
from __future__ import annotations

import ast
import fnmatch
import re
from dataclasses import dataclass
from typing import Callable

from bench.compare import by_id
from bench.figures import page_table
from bench.references import recording_machines, recordings
from bench.noise import across, combined, outcome
from bench.machine import KINDS, kind
from tests.paths import DOCS


class Measured:
    """The references as claims read them; inverted=True turns every ratio upside down and
    scales every median tenfold, which every claim must notice."""

    def __init__(self, references: list[dict], inverted: bool = False):
        self.rows = {kind(r["machine"]): by_id(r) for r in references}
        self.recordings = {kind(r["machine"]): recordings(r) for r in references}
        self.machines = {kind(r["machine"]): recording_machines(r) for r in references}  # in recordings' order
        self.inverted = inverted

    def kinds(self, *levels: str) -> list[str]:
        """The kinds of these instruction-set levels ("avx512-bf16"), or these kinds themselves
        ("amd-avx512-bf16": the Zen 4, where the Xeon of the same level differs)."""
        found = [k for k in self.rows if not levels or k.split("-", 1)[1] in levels or k in levels]
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

    def param(self, kind_: str, row_id: str, key: str) -> float:
        """A measured value a row carries in params (GFLOP/s, share of peak, parity, compile
        time): scaled tenfold when inverted, like a median."""
        value = self.row(kind_, row_id)["params"][key]
        assert value is not None, f"{kind_} {row_id} has no {key}"
        return value * (10 if self.inverted else 1)

    def between(self, kind_: str, row_id: str, other_id: str) -> float:
        """How many times better row_id is than other_id, two rows of one kind and unit from any
        groups (1 thread against all cores at one batch size): a ratio, so inverted like one."""
        row, other = self.row(kind_, row_id), self.row(kind_, other_id)
        assert row["unit"] == other["unit"], f"{row_id} and {other_id} are in different units"
        value = row["median"] / other["median"] if row["higher_is_better"] else other["median"] / row["median"]
        return 1 / value if self.inverted else value

    def span(self, kind_: str, row_id: str, other_id: str | None = None) -> tuple[float, float]:
        """The interval of how many times better row_id is than other_id (default: its group's
        baseline), by the pages' one rule (bench.noise); turned upside down when inverted."""
        row = self.row(kind_, row_id)
        other = self.row(kind_, other_id) if other_id else next(
            r for r in self.rows[kind_].values()
            if r["baseline"] and r["technique"] == row["technique"] and r["group"] == row["group"])
        low, high = across(self.recordings[kind_], row_id, other["id"])
        return (1 / high, 1 / low) if self.inverted else (low, high)

    def spans_each(self, kind_: str, row_id: str, other_id: str | None = None) -> list[tuple[float, float]]:
        """The interval of row_id over other_id (default: its group's baseline) in each recording of
        the kind that has both, in order (on ZEN4: the Zen 4's, then the Zen 5's), by the rule;
        turned upside down when inverted. For a sentence that tells the recordings apart."""
        other_id = other_id or self._baseline_id(kind_, row_id)
        spans = [across([rows], row_id, other_id) for rows in self.recordings[kind_] if row_id in rows and other_id in rows]
        assert spans, f"no recording of {kind_} has both {row_id} and {other_id}"
        return [(1 / high, 1 / low) for low, high in spans] if self.inverted else spans

    def span_in(self, rows: dict, row_id: str, other_id: str) -> tuple[float, float]:
        """The interval of row_id over other_id in one recording (rows: one of self.recordings'),
        by the rule; turned upside down when inverted."""
        low, high = across([rows], row_id, other_id)
        return (1 / high, 1 / low) if self.inverted else (low, high)

    def outcomes_each(self, kind_: str, row_id: str, other_id: str | None = None) -> list[str]:
        """The rule's verdict in each recording of the kind: ["lost", "paid"] on ZEN4 is lost on the
        Zen 4 and paid on the Zen 5."""
        return [outcome(span) for span in self.spans_each(kind_, row_id, other_id)]

    def figure(self, page: str, name: str):
        """What the page's named figure shows (bench/pages/<page>.yml), read as this Measured reads the
        references: ratio and times a ratio, between a between, value a median, param a param,
        interval a span (low, high)."""
        table = page_table(page)
        assert name in table, f"bench/pages/{page}.yml names no figure {name!r}"
        call = ast.parse(table[name], mode="eval").body
        assert isinstance(call, ast.Call) and isinstance(call.func, ast.Name), f"{name}: {table[name]} is not a call"
        args = [ast.literal_eval(a) for a in call.args]
        read = {"ratio": lambda k, r, *_: self.ratio(k, r), "times": lambda k, r: self.ratio(k, r),
                "between": lambda k, r, o, *_: self.between(k, r, o), "value": lambda k, r: self.median(k, r),
                "param": lambda k, r, key, *_: self.param(k, r, key),
                "interval": lambda k, r, o=None: self.span(k, r, o)}
        assert call.func.id in read, f"{name}: {call.func.id}() is not one number a claim can read"
        return read[call.func.id](*args)

    def recorded_twice(self, kind_: str) -> bool:
        """The kind merges a second recording (a sentence that names it needs one)."""
        return len(self.recordings[kind_]) > 1

    def _baseline_id(self, kind_: str, row_id: str) -> str:
        row = self.row(kind_, row_id)
        return next(i for i, r in self.rows[kind_].items()
                    if r["baseline"] and r["technique"] == row["technique"] and r["group"] == row["group"])

    def outcome(self, kind_: str, row_id: str, other_id: str | None = None) -> str:
        """paid, lost or even (within noise) for one row against its baseline (or other_id)."""
        return outcome(self.span(kind_, row_id, other_id))

    def verdict(self, kind_: str, patterns: list[str]) -> str | None:
        """bench.figures' verdict over the kind's rows that match the patterns (paid, lost, even,
        mixed; None: none measured), from the rows' intervals as this Measured reads them."""
        rows = [i for i, r in self.rows[kind_].items() if r.get("ratio") and any(fnmatch.fnmatchcase(i, p) for p in patterns)]
        return combined([self.outcome(kind_, i) for i in rows]) if rows else None

    def having(self, row_id: str) -> list[str]:
        """The kinds whose reference measured row_id (a later case's rows are not_measured in an
        earlier reference, a withdrawn harness's rows are gone)."""
        found = [k for k in self.rows if row_id in self.rows[k]]
        assert found, f"no reference has {row_id}: the claim has nothing to stand on"
        return found


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


def page_text(page: str) -> str:
    """The page's words as written (its figures as template expressions), markdown line breaks
    and indentation folded: what a claim quotes."""
    return re.sub(r"\s+", " ", (DOCS / page).read_text())


def listed(name: str) -> str:
    """A kind the claims name, checked against the one registry of kinds (bench.machine.KINDS)."""
    assert name in KINDS, f"{name} is not in bench.machine.KINDS: {', '.join(KINDS)}"
    return name


# Two kinds of one level that the pages tell apart: AVX512_BF16 pays on the one and not on the other
ZEN4 = listed("amd-avx512-bf16")
NO_AMX_XEON = listed("intel-avx512-bf16")  # an Emerald Rapids Xeon whose VM hides AMX
AMD_KINDS = tuple(k for k in KINDS if k.startswith("amd-"))  # the AMD references
AMX_XEON = listed("intel-amx")
AVX2_EPYC = listed("amd-avx2")  # the AVX2 kind the case study names ("the AVX2 EPYC")
INTEL_KINDS = (NO_AMX_XEON, "amx")  # the Intel Xeons: without AMX, and with it


