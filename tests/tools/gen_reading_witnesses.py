"""Write tests/data/reading_witnesses.json: for every precedence statement and reading rule, a seeded random
cast where it fires and one where it does not (tests/chart/test_reading.py runs both).

    .venv/bin/python tests/tools/gen_reading_witnesses.py [--batches 12] [--seed 7]

Casts are drawn uniformly (line values, month, day) with topics cycling through all 14, derived 50 at a time;
one SPARQL query per batch lists which reading rules and precedence statements fired on which cast. A rule no
batch fired is listed under "unwitnessed". Deterministic for a seed (about 10 s per batch).
"""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from liuyao_kg.store.embedded import KnowledgeGraph
from liuyao_kg.loaders.cast_input import make_cast_input
from liuyao_kg.loaders.rdf import cast_quads
from liuyao_kg.load import add_casts

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "reading_witnesses.json"
TOPICS = "求財 婚姻 疾病 身命 產育 田蠶 天時 國家 征戰 官事 文書 葬地 出行 自身".split()
BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
JIAZI = ["甲乙丙丁戊己庚辛壬癸"[i % 10] + BRANCHES[i % 12] for i in range(60)]
FIRED = '''PREFIX lyo: <https://w3id.org/liuyao-kg/ontology#> PREFIX prov: <http://www.w3.org/ns/prov#>
SELECT DISTINCT ?cast ?key WHERE {
  { ?x lyo:readingOf ?cast ; prov:wasDerivedFrom ?r . BIND(STRAFTER(STR(?r), "/rule/") AS ?key) }
  UNION { ?o lyo:readingOf ?cast ; lyo:underPrecedence ?p . BIND(CONCAT("prec:", STRAFTER(STR(?p), "Precedence_")) AS ?key) } }'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batches", type=int, default=12)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    fired: dict[str, dict[str, dict]] = {}
    drawn: list[tuple[str, dict]] = []
    for b in range(args.batches):
        kg = KnowledgeGraph()
        specs = [{"spec": "".join(rnd.choice("6789") for _ in range(6)), "month": rnd.choice(BRANCHES),
                  "day": rnd.choice(JIAZI), "topic": TOPICS[(b * 50 + i) % len(TOPICS)]} for i in range(50)]
        cis = [make_cast_input(s["spec"], month=s["month"], day=s["day"], topic=s["topic"]) for s in specs]
        by_iri = dict(zip(add_casts(kg, [q for ci in cis for q in cast_quads(ci)]), specs))
        for row in kg.store.query(FIRED, use_default_graph_as_union=True):
            fired.setdefault(row["key"].value, {}).setdefault(row["cast"].value, by_iri[row["cast"].value])
        drawn += list(by_iri.items())

    def pair(key):
        casts = fired.get(key, {})
        if not casts:
            return None
        fires = next(iter(casts.values()))
        # a rule that fires on every cast with a use-god (TimingUseGodMeet) is silent without one: no topic
        silent = next((s for iri, s in drawn if iri not in casts), None) or dict(fires, topic=None)
        return {"fires": fires, "silent": silent}

    ttl = (ROOT / "ontology" / "rules" / "reading.ttl").read_text(encoding="utf-8")
    timing = [ln.split()[0].split(":")[1] for ln in ttl.splitlines() if " a lyo:TimingRule" in ln]
    tables = (ROOT / "ontology" / "reading-tables.ttl").read_text(encoding="utf-8")
    precedences = [ln.split()[0].split("Precedence_")[1] for ln in tables.splitlines() if " a lyo:Precedence " in ln]
    out = {"drawn": len(drawn), "seed": args.seed,
           "precedence": {p: pair("prec:" + p) for p in precedences if pair("prec:" + p)},
           "timing": {t: pair(t) for t in timing if pair(t)},
           "read": {"ReadUnharmed": pair("ReadUnharmed")["fires"]},
           "verdict": {"NotAccomplished": pair("VerdictNotAccomplished")["fires"]},
           "unwitnessed": {t: f"no cast of {len(drawn)} drawn (seed {args.seed}) fired it"
                           for t in timing + ["prec:" + p for p in precedences] if not pair(t if t in timing else t)}}
    OUT.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(out['timing'])} timing rules, {len(out['precedence'])} precedences; unwitnessed "
          f"{sorted(out['unwitnessed'])}")


if __name__ == "__main__":
    main()
