"""The SWRL rules of benchmarks/swrl_stack.py, run by Pellet, derive exactly the engine's facts for the
states they cover (the benchmark checks the same on every cast it runs; this keeps the rules honest)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from liuyao_kg.load import derive_with, engine_for

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

pytestmark = pytest.mark.reasoner_owl


def _java_major(java: str) -> int:
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60).stderr
    except OSError:
        return 0
    m = re.search(r'version "(?:1\.)?(\d+)', out)
    return int(m.group(1)) if m else 0


def test_swrl_facts_equal_the_engines():
    from swrl_stack import SwrlStack, engine_facts, pellet_java

    from liuyao_kg.store.embedded import KnowledgeGraph
    from liuyao_kg.loaders.cast_input import make_cast_input
    from liuyao_kg.loaders.rdf import cast_quads

    if _java_major(pellet_java()) < 25:
        pytest.skip("owlready2's bundled Pellet needs Java >= 25 (set PELLET_JAVA)")
    kg = derive_with(KnowledgeGraph(), chapter_rules=False)
    casts = [cast_quads(make_cast_input(spec, month=m, day=d)) for spec, m, d in
             [("節之中孚", "寅", "辛亥"), ("否之臨", "午", "甲子"), ("大畜之蒙", "巳", "癸未")]]
    expected = engine_facts(casts, engine_for(kg).derive([q for c in casts for q in c]))
    got, _ = SwrlStack(kg.store).derive(casts)
    assert got == expected, (sorted(expected - got)[:5], sorted(got - expected)[:5])
    kinds = {f[2] for f in expected if f[1] == "state"}
    assert {"MonthBroken", "SixCombinePrimary"} <= kinds
