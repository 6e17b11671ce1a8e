"""`liuyao rules never-fired` and the named query `rules-never-fired` behind it."""
from __future__ import annotations

import json

import liuyao_kg
from liuyao_kg import queries
from liuyao_kg.cli import main
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.rulebase.never_fired import sample_space

IMPOSSIBLE = "004a-tianshi/no-water-no-fire"  # every inner trigram carries a water or a fire branch


def test_the_query_lists_exactly_the_executable_rules_without_a_judgment():
    kg = KnowledgeGraph()
    chart = liuyao_kg.cast("節之中孚", month="寅", day="辛亥", topic="婚姻", kg=kg)
    fired = {j["rule"] for j in chart["judgments"]}
    assert fired
    silent = {r["rule"] for r in queries.run(kg, "rules-never-fired")}
    executable = sum(r["executable"] for r in queries.run(kg, "rules-coverage"))
    assert not fired & silent
    assert len(silent) + len(fired) == executable
    kg.close()


def test_the_sample_is_uniform_and_deterministic_by_seed():
    a, b, c = sample_space(50, 7), sample_space(50, 7), sample_space(50, 8)
    assert a == b and a != c
    values, month, day, topic = a[0]
    assert len(values) == 6 and set(values) <= set("6789") and len(month) == 1 and len(day) == 2 and topic
    assert all(len(c) == 5 and len(c[4]) == 2 for c in sample_space(5, 7, years=True))


def test_cli_never_fired_with_years(capsys):
    assert main(["rules", "never-fired", "--sample", "3", "--seed", "2", "--years", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["years"] is True and report["distinct_casts"] == 3


def test_cli_never_fired_json_and_text(capsys):
    assert main(["rules", "never-fired", "--sample", "4", "--seed", "1", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["sample"] == 4 and report["seed"] == 1 and report["distinct_casts"] == 4
    ids = [r["rule"].split("/ch/", 1)[1] for r in report["never_fired"]]
    assert IMPOSSIBLE in ids and len(ids) < report["executable_rules"]
    assert all(r["quote"] and r["condition"] and r["topics"] for r in report["never_fired"])
    assert main(["rules", "never-fired", "--sample", "4", "--seed", "1", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{len(ids)} of {report['executable_rules']} executable rules never fired on 4 casts")
    assert "no year pillar" in out.splitlines()[0]
    assert IMPOSSIBLE in out and "quote: 「六爻無水火逢空，" in out
    assert main(["rules", "never-fired", "--sample", "4", "--seed", "1"]) == 0  # zh, the default
    out = capsys.readouterr().out
    assert out.startswith(f"可執行之規則 {report['executable_rules']} 條，於 4 卦（種子 1，相異 4）中 {len(ids)} 條未發；無年柱")
    assert "原文：「六爻無水火逢空，" in out


def test_cli_never_fired_refuses_an_empty_sample(capsys):
    assert main(["rules", "never-fired", "--sample", "0"]) == 2
    assert "--sample" in capsys.readouterr().err
