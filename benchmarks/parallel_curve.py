"""The quotation detector's two parameters on the development gold set: precision and recall of `verbatim+near`
at each neighbouring value (docs/corpus.md prints this table). Run from the repository root:

    python benchmarks/parallel_curve.py [GOLD.yaml]

The editions of ../shared/corpora are added in memory once with the loosest values, then each link is kept or
dropped by the values of the row (its score and its aligned characters are recomputed from the two quotes).
"""
from __future__ import annotations

import sys

from liuyao_kg.corpus import evaluate as ev
from liuyao_kg.corpus import quotations as quo
from liuyao_kg.corpus.add import edition_sentences, package_passages

SCORES = (0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 0.9)
ALIGNED = (4, 5, 6)


def main(gold_path: str = "tests/data/parallel_gold.yaml") -> None:
    gold = ev.read_gold(gold_path)
    chosen = (quo.MIN_SCORE, quo.MIN_ALIGNED)
    quo.MIN_SCORE, quo.MIN_ALIGNED = min(SCORES), min(ALIGNED)
    try:
        kg = ev.in_memory()
    finally:
        quo.MIN_SCORE, quo.MIN_ALIGNED = chosen
    quotes = {r["p"]: r["quote"] for r in edition_sentences(kg) + package_passages(kg)}
    anchors, links = ev.anchors(kg), ev.links(kg)
    for link in links:
        if link["kind"] == quo.KIND:
            link["aligned"] = quo.score(quo.folded(quotes[link["from"]]), quo.folded(quotes[link["to"]])).aligned
    print("| aligned ≥ | score ≥ | precision | recall | quotation links |")
    print("|---|---|---|---|---|")
    for aligned in ALIGNED:
        for score in SCORES:
            kept = [l for l in links if l["kind"] != quo.KIND or (l["score"] >= score and l["aligned"] >= aligned)]
            row = ev.score(gold, anchors, kept)["verbatim+near"]
            mark = " (chosen)" if (score, aligned) == chosen else ""
            print(f"| {aligned} | {score}{mark} | {row['precision']} | {row['recall']} | "
                  f"{sum(l['kind'] == quo.KIND for l in kept)} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
