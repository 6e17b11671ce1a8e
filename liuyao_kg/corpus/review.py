"""Reviews of parallel links: a reviewer's judgments (a YAML file) set `lyo:reviewStatus` in the store.

The file is the shape of tests/data/parallel_review.yaml: a `sample` (or `links`) list of
`{from: IRI, to: IRI, parallel: true|false, why: …}`. `parallel: true` makes the link `accepted`, false
`rejected`; a judgment without a matching link in the store is reported, not invented. One SPARQL update
applies them all (one transaction). Replacing an edition's graph keeps the statuses of the links that
are proposed again (corpus.add).
"""
from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox

from liuyao_kg import namespaces as ns
from liuyao_kg.corpus import write
from liuyao_kg.corpus.works import CorpusError, read_yaml

STATUSES = ("unreviewed", "accepted", "rejected")

_LINKS = ns.sparql_prologue() + """SELECT ?g ?link ?from ?to ?status WHERE {
  GRAPH ?g { ?link a lyo:ParallelLink ; lyo:parallelFrom ?from ; lyo:parallelTo ?to ; lyo:reviewStatus ?status } }"""


def read_reviews(path: str | Path) -> list[dict]:
    p, data = read_yaml(path, "review")
    items = (data or {}).get("sample") or (data or {}).get("links") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise CorpusError(f"{p}: expected a 'sample' (or 'links') list of {{from, to, parallel}}")
    for i, it in enumerate(items, 1):
        if not (isinstance(it, dict) and isinstance(it.get("from"), str) and isinstance(it.get("to"), str)
                and isinstance(it.get("parallel"), bool)):
            raise CorpusError(f"{p}: entry {i} needs from (IRI), to (IRI) and parallel (true/false)")
    return items


def statuses(kg) -> dict[tuple[str, str], str]:
    """(from, to) → review status of every stored link that is not unreviewed."""
    return {(r["from"], r["to"]): r["status"] for r in kg.select(_LINKS) if r["status"] != "unreviewed"}


def apply_reviews(kg, path: str | Path) -> dict:
    """Set the status of every reviewed link found in the store; return counts and the judgments not found."""
    items = read_reviews(path)
    stored: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
    for r in kg.select(_LINKS):
        stored.setdefault((r["from"], r["to"]), []).append((r["g"], r["link"], r["status"]))
    ops, applied, missing = [], 0, []
    for it in items:
        hits = stored.get((it["from"], it["to"]))
        if not hits:
            missing.append({"from": it["from"], "to": it["to"]})
            continue
        new = "accepted" if it["parallel"] else "rejected"
        for g, link, old in hits:
            ops.append(f'DELETE DATA {{ GRAPH <{g}> {{ <{link}> <{ns.LYO}reviewStatus> "{old}" }} }} ;\n'
                       f'INSERT DATA {{ GRAPH <{g}> {{ <{link}> <{ns.LYO}reviewStatus> "{new}" }} }}')
        applied += 1
    if ops:  # IRIs come from the store (validated when written); statuses are the fixed words above
        write.update(kg, " ;\n".join(ops))
    accepted = sum(1 for it in items if it["parallel"] and stored.get((it["from"], it["to"])))
    return {"reviewed": len(items), "applied": applied, "accepted": accepted, "rejected": applied - accepted,
            "not_in_store": missing}


#: the population the precision is measured on: links from these chapters of 天玄賦 to 黃金策's sentences
SAMPLED_CHAPTERS = ("天時章", "身命章", "婚姻章", "征戰章", "疾病章")

_POPULATION = ns.sparql_prologue() + """SELECT DISTINCT ?method ?from ?to ?fromQuote ?toQuote ?score WHERE {
  ?link a lyo:ParallelLink ; lyo:linkMethod ?method ; lyo:parallelFrom ?from ; lyo:parallelTo ?to ; lyo:linkScore ?score .
  ?from lyo:work lyr:WorkTianXuanFu ; lyo:chapter ?chapter ; lyo:quote ?fromQuote .
  ?to lyo:work lyr:WorkHuangJinCe ; lyo:quote ?toQuote .
  FILTER(STR(?chapter) IN (%s))
} ORDER BY ?from ?to"""


def population(kg, method: str) -> list[dict]:
    """The links of `method` from 天玄賦's SAMPLED_CHAPTERS to 黃金策, in (from, to) IRI order."""
    chapters = ", ".join(f'"{c}"' for c in SAMPLED_CHAPTERS)  # fixed words, not input
    return kg.select(_POPULATION % chapters, {"method": ox.Literal(method)})


def draw_sample(rows: list[dict], n: int, seed: int) -> list[dict]:
    """`n` rows drawn with Python's `random.Random(seed).sample` from `rows` (in their order), listed in that order."""
    import random

    picked = set(random.Random(seed).sample(range(len(rows)), min(n, len(rows))))
    return [r for i, r in enumerate(rows) if i in picked]
