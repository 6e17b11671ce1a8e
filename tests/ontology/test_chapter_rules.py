"""Chapter rules: well-formed, anchored in the seeds, and compiled faithfully.

The compiled SPARQL of every executable rule is checked against a direct Python evaluation of its
condition (tests/oracles/rule_oracle.py) on a deterministic sample of real casts across all topics: the engine
must fire exactly the rules the evaluator fires, on the same lines.
"""
from __future__ import annotations

from pathlib import Path

import pytest

import liuyao_kg
from liuyao_kg.ontology import tables as T
from liuyao_kg.build import chapters as bc
from liuyao_kg.reasoner.conditions import check_file, strength_table
from rule_oracle import evaluate
from samples import sample_casts

SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"
FILES = bc.chapter_files()
RULES = bc.load()


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_chapter_file_is_well_formed(path):
    assert check_file(str(path)) == []


@pytest.mark.skipif(not SEEDS.is_dir(), reason="../shared/seeds is not beside the repository")
def test_generated_rule_base_is_fresh_and_every_quote_is_in_its_seed():
    rules_ttl, passages_ttl = bc.generate(SEEDS)  # raises if a quote is not found exactly
    assert bc.RULES_OUT.read_text(encoding="utf-8") == rules_ttl
    assert bc.PASSAGES_OUT.read_text(encoding="utf-8") == passages_ttl


def _asked(topic: str) -> set[str]:
    """The question and its broader questions (tables.QUESTIONS, and tables.ALSO_BROADER for a question asking two
    at once): the rules' topics a cast of it runs."""
    broader = {q[0]: q[4] for q in T.QUESTIONS}
    out, todo = set(), [topic]
    while todo:
        t = todo.pop()
        if t is not None and t not in out:
            out.add(t)
            todo += [broader[t], *T.ALSO_BROADER.get(t, ())]
    return out


def _expected(chart: dict, topic: str) -> dict[str, set[int]]:
    out = {}
    for stem, header, r in RULES:
        if not r.get("executable", True):
            continue
        topics = r.get("topics") or header.get("topics") or ["any"]
        if "any" not in topics and not _asked(topic) & set(topics):
            continue
        fired, lines = evaluate(r["when"], chart, strength_table(header, r))
        if fired:
            out[bc.rule_iri(stem, r["id"])] = lines
    return out


@pytest.fixture(scope="module")
def sample():
    return [(c, liuyao_kg.cast(c[0], month=c[1], day=c[2], topic=c[3])) for c in sample_casts()]


@pytest.mark.skipif(not RULES, reason="no chapter rules yet")
def test_engine_fires_exactly_the_rules_the_direct_evaluation_fires(sample):
    problems = []
    for (values, month, day, topic), chart in sample:
        got = {j["rule"]: set(j["lines"]) for j in chart["judgments"]}
        want = _expected(chart, topic)
        if got != want:
            extra = sorted(set(got) - set(want))[:3]
            missing = sorted(set(want) - set(got))[:3]
            lines = [r for r in set(got) & set(want) if got[r] != want[r]][:3]
            problems.append(f"{values} {month} {day} {topic}: extra {extra} missing {missing} lines differ {lines}")
    assert problems == []


@pytest.mark.skipif(not RULES, reason="no chapter rules yet")
def test_every_judgment_carries_its_quote_and_anchor(sample):
    seen = 0
    for _, chart in sample:
        for j in chart["judgments"]:
            src = j["source"]
            assert src["quote"] and src["seed"] and src["end"] > src["start"]
            assert j["polarity"] in ("吉", "凶", "neutral")
            seen += 1
    assert seen > 0
