"""絕處逢生 (易冒, five ways) checked against a direct reading of the chart, cast by cast.

The expected ways are computed here from the chart's own facts (use-god lines, relations between
lines, change, day and month, line states), which the exhaustive tests check against the oracle; the
rules derive the same ways from the graph. A rule that matched too much or too little disagrees here.
"""
from __future__ import annotations

import pytest

from liuyao_kg.chart import chart
from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.loaders.cast_input import make_cast_input
from liuyao_kg.loaders.rdf import cast_quads
from liuyao_kg.load import add_casts, derive_with
from oracle import GENERATES, OVERCOMES, stage
from samples import sample_casts

BROKEN = {"月破", "沖散"}
WAY = {"RescueWay1": 1, "RescueWay2": 2, "RescueWay3": 3, "RescueWay4": 4, "RescueWay5": 5}


def expected_ways(ch: dict) -> set[tuple[int, int]]:
    """(way, use-god or flying line position) for every way of 絕處逢生 the chart satisfies."""
    use = next((s for s in ch["states"] if s["term"] == "用神"), None)
    if use is None:
        return set()
    rel = {(r["from"], r["to"], r["relation"]) for r in ch["relations"]}
    lines = {x["position"]: x for x in ch["lines"]}
    states = {p: {s["term"] for s in x["states"]} for p, x in lines.items()}
    moving = [p for p, x in lines.items() if x["moving"]]
    day_el, month_el = ch["day"]["element"], ch["month"]["element"]
    sound = lambda p: not states[p] & BROKEN  # noqa: E731
    out = set()
    # the 世 as use-god (UseGodByRole) names no relative and is never hidden
    hidden = "relative" in use and all(x["relative"] != use["relative"] for x in lines.values())
    if not hidden:
        for u in use["lines"]:
            lu = f"line:{u}"
            if sound(u):
                hurt = (("day", lu, "克") in rel or ("month", lu, "克") in rel or lines[u]["stage_day"] == "絕")
                if hurt and any(m != u and (f"line:{m}", lu, "生") in rel and sound(m) for m in moving):
                    out.add((1, u))
                if lines[u]["moving"]:
                    c = lines[u]["change"]
                    cu = f"change:{u}"
                    if ((cu, lu, "生") in rel and any(m != u and (f"line:{m}", lu, "克") in rel for m in moving)
                            and "化破" not in states[u] and stage(c["element"], ch["day"]["branch"]) != "絕"):
                        out.add((2, u))
                    if ((cu, lu, "克") in rel
                            and any(m != u and (f"line:{m}", lu, "生") in rel and sound(m) for m in moving)):
                        out.add((3, u))
    else:
        for f, x in lines.items():
            h = x["hidden"]
            if not h or h["relative"] != use["relative"]:
                continue
            eh = h["element"]
            helpers = [f] + moving
            if OVERCOMES[day_el] == eh or OVERCOMES[month_el] == eh:
                if any(GENERATES[lines[g]["element"]] == eh and sound(g) for g in helpers):
                    out.add((4, f))
            if GENERATES[day_el] == eh or GENERATES[month_el] == eh:
                if any(OVERCOMES[lines[k]["element"]] == eh for k in helpers):
                    out.add((5, f))
    return out


def derived_ways(ch: dict) -> set[tuple[int, int]]:
    return {(WAY[s["rule"].rsplit("/", 1)[1]], p) for s in ch["states"] if s["term"] == "絕處逢生"
            for p in s["lines"]}


@pytest.fixture(scope="module")
def charts():
    kg = derive_with(KnowledgeGraph(), chapter_rules=False)
    inputs = [make_cast_input(v, month=m, day=d, topic=t) for v, m, d, t in sample_casts(400, seed=3)]
    add_casts(kg, [q for ci in inputs for q in cast_quads(ci)])
    return [chart(kg, ci.iri) for ci in inputs]


def test_sample_exercises_every_way(charts):
    seen = {w for ch in charts for w, _ in expected_ways(ch)}
    assert seen == {1, 2, 3, 4, 5}


@pytest.mark.parametrize("i", range(0, 400, 50))
def test_rescue_from_severance_matches_a_direct_reading_of_the_chart(charts, i):
    for ch in charts[i:i + 50]:
        assert derived_ways(ch) == expected_ways(ch), (ch["cast"], ch["primary"]["name"], ch["month"], ch["day"])

