"""Rules that never fire: draw casts uniformly from the whole cast space, derive them, list the silent rules.

The space is every primary×changed pair (the 4,096 strings of line values 6/7/8/9), 12 month branches,
60 day stem-branches and the questions of tables.QUESTIONS; a sample is deterministic given its seed. The casts
are derived in memory, in batches, in a store of their own; the named query `rules-never-fired` then lists
the executable chapter rules without a judgment. A rule that stays silent on a large sample is either rare
or wrongly encoded: read its condition beside its quote.
"""
from __future__ import annotations

import random

from liuyao_kg import queries

BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
STEMS = "甲乙丙丁戊己庚辛壬癸"
JIAZI = [STEMS[i % 10] + BRANCHES[i % 12] for i in range(60)]
BATCH = 50  # casts derived together (the reference engine's batch: reasoner.engines.REGISTRY)


def sample_space(n: int, seed: int, *, years: bool = False) -> list[tuple]:
    """n casts (values bottom-up, month branch, day stem-branch, topic[, year stem-branch]) drawn uniformly,
    with replacement. Without `years` the casts carry no year pillar (rules reading 年 cannot fire)."""
    from liuyao_kg.loaders.cast_input import TOPIC_NAMES

    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        cast = ("".join(rnd.choice("6789") for _ in range(6)), rnd.choice(BRANCHES), rnd.choice(JIAZI),
                rnd.choice(TOPIC_NAMES))
        out.append(cast + (rnd.choice(JIAZI),) if years else cast)
    return out


def never_fired(n: int, seed: int = 0, *, years: bool = False, batch: int = BATCH, progress=None) -> dict:
    """Derive a sample of n casts and report the executable chapter rules that fired on none of them."""
    from liuyao_kg.load import add_casts
    from liuyao_kg.loaders.cast_input import make_cast_input
    from liuyao_kg.loaders.rdf import cast_quads
    from liuyao_kg.store.embedded import KnowledgeGraph

    if n < 1:
        raise ValueError("the sample needs at least one cast")
    casts = sample_space(n, seed, years=years)
    kg = KnowledgeGraph()
    distinct = set()
    for i in range(0, len(casts), batch):
        quads = []
        for values, month, day, topic, *year in casts[i:i + batch]:
            ci = make_cast_input(values, month=month, day=day, topic=topic, year=year[0] if year else None)
            if ci.iri not in distinct:
                distinct.add(ci.iri)
                quads += cast_quads(ci)
        add_casts(kg, quads)
        if progress:
            progress(min(i + batch, len(casts)), len(casts))
    rows = queries.run(kg, "rules-never-fired")
    executable = queries.run(kg, "rules-coverage")
    kg.close()
    return {"sample": n, "seed": seed, "years": years, "distinct_casts": len(distinct),
            "executable_rules": sum(r["executable"] for r in executable),
            "never_fired": [{"rule": r["rule"], "work": r["work"], "chapter": r["chapter"], "topics": r["topics"].split(),
                             "condition": r["condition"], "quote": r["quote"]} for r in rows]}


def never_fired_text(report: dict) -> str:
    out = [f"{len(report['never_fired'])} of {report['executable_rules']} executable rules never fired on "
           f"{report['sample']} casts (seed {report['seed']}, {report['distinct_casts']} distinct"
           + (", with a year)" if report.get("years") else "; no year pillar: rules reading 年 cannot fire)")]
    for r in report["never_fired"]:
        rid = r["rule"].split("/ch/", 1)[-1]
        out.append(f"\n{rid}  [{r['work']} {r['chapter']}; {' '.join(r['topics'])}]")
        out.append(f"  when:  {r['condition']}")
        out.append(f"  quote: {r['quote']}")
    return "\n".join(out) + "\n"
