"""The worked examples (卦例) of the seeds, checked against ``liuyao_kg.cast``.

Two files: /work/shared/examples/classic_cases.yaml (six cases, read-only, beside the repo) and
tests/data/seed_cases.yaml (every other worked example in the seeds). One test per (case, fact atom),
id ``<case-id>/fact<N>-<kind>`` (N counts the case's facts from 1; tests/oracles/casefacts.py documents the
kinds). Facts marked ``expect: disputed`` run as strict xfails: the commentary's claim must NOT hold
under the project's conventions. Each case is cast once (cached); a fact with ``on_day``/``on_month``
re-casts with that day/month. ``test_quote_in_seed`` checks every quote against its seed file.

Import-safe: liuyao_kg is imported only when a test casts.
"""
from __future__ import annotations

import functools
from pathlib import Path

import sys

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "oracles"))  # casefacts, any import mode
import casefacts  # noqa: E402

HERE = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[3] / "shared"
SEEDS = SHARED / "seeds"
CLASSIC_FILE = SHARED / "examples" / "classic_cases.yaml"
SEED_CASES_FILE = HERE / "data" / "seed_cases.yaml"


def _load(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return yaml.safe_load(fh) or []


def _all_cases() -> list[tuple[str, dict]]:
    """(file label, case) for both files; the classic file only when the shared folder exists."""
    out = []
    if CLASSIC_FILE.exists():
        out += [("classic", c) for c in _load(CLASSIC_FILE)]
    out += [("seed", c) for c in _load(SEED_CASES_FILE)]
    return out


CASES = _all_cases()


@functools.lru_cache(maxsize=None)
def cast_chart(spec, month, day, topic, about, year, birth) -> dict:
    import liuyao_kg  # noqa: PLC0415 - import-safe module: production may not exist yet

    kwargs = {"month": month, "day": day, "topic": topic, "about": about}
    if year is not None:
        kwargs["year"] = year
    if birth is not None:
        kwargs["birth"] = birth
    return liuyao_kg.cast(spec, **kwargs)


def _cast(**kw) -> dict:
    return cast_chart(kw["spec"], kw["month"], kw["day"], kw["topic"], kw.get("about"), kw["year"], kw["birth"])


def _fact_params():
    params = []
    for _label, case in CASES:
        for i, fact in enumerate(case.get("facts") or [], start=1):
            disputed = isinstance(fact, dict) and fact.get("expect") == "disputed"
            for atom in casefacts.split_fact(fact):
                marks = ()
                if disputed:
                    marks = (pytest.mark.xfail(strict=True, raises=casefacts.FactMismatch,
                                               reason="disputed: " + " ".join(str(fact.get("note", "")).split())),)
                params.append(pytest.param(case, atom, id=f"{case['id']}/fact{i}-{casefacts.atom_label(atom)}",
                                           marks=marks))
    return params


@pytest.mark.parametrize(("case", "atom"), _fact_params())
def test_case_fact(case, atom):
    casefacts.check_atom(case, atom, _cast)


def test_classic_cases_present():
    if not CLASSIC_FILE.exists():
        pytest.skip(f"shared folder absent: {CLASSIC_FILE} not found, classic cases not checked")
    assert any(label == "classic" for label, _ in CASES)


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[c["id"] for _, c in CASES])
def test_case_wellformed(case):
    ids = [c["id"] for _, c in CASES]
    assert ids.count(case["id"]) == 1, f"duplicate case id {case['id']}"
    assert {"id", "source", "cast", "facts"} <= set(case), f"missing keys: {set(case)}"
    assert {"seed", "quote"} <= set(case["source"])
    c = case["cast"]
    assert c.get("hexagram"), "cast.hexagram is required"
    for key in c:
        assert key in {"month", "day", "hexagram", "changed", "topic", "about", "year", "birth", "question"}, \
            f"unknown cast key {key!r}"
    assert case["facts"], "a case needs at least one fact"
    for fact in case["facts"]:
        assert isinstance(fact, dict), fact
        if "expect" in fact:
            assert fact["expect"] in casefacts.EXPECT_VALUES, f"unknown expect {fact['expect']!r}"
            assert str(fact.get("note", "")).strip(), "a disputed fact needs a note"


def _occurs_in_order(text: str, quote: str) -> bool:
    pos = 0
    for part in quote.split("……"):
        i = text.find(part, pos)
        if i < 0:
            return False
        pos = i + len(part)
    return True


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[c["id"] for _, c in CASES])
def test_quote_in_seed(case):
    if not SEEDS.is_dir():
        pytest.skip(f"shared folder absent: {SEEDS} not found")
    seed = SEEDS / case["source"]["seed"]
    assert seed.exists(), f"seed file {seed} does not exist"
    text = seed.read_text(encoding="utf-8")
    quotes = [case["source"]["quote"]] + [f["quote"] for f in case["facts"] if isinstance(f, dict) and "quote" in f]
    for q in quotes:
        assert q and _occurs_in_order(text, q), f"quote not found in {seed.name}: {q!r}"
