"""How many triples a pattern matches, estimated from the kept reference and a fixed sample of derived casts:
what the compiler orders a rule's joins by (the most selective pattern first). Statistics-fixed: computed once at
build time from seeded casts, so the generated code is a function of the rules and the reference alone.
"""
from __future__ import annotations

from collections import Counter, defaultdict


class Stats:
    """Per predicate: triples (reference + an average cast), objects per subject and subjects per object; per
    (predicate, object) and (subject, predicate) pair: triples, for patterns with a constant there."""

    def __init__(self, reference, casts: list):
        n = max(1, len(casts))
        count: Counter = Counter()
        po: Counter = Counter()
        sp: Counter = Counter()
        subjects: dict = defaultdict(set)
        objects: dict = defaultdict(set)

        def take(triples, weight: float) -> None:
            for s, p, o in triples:
                count[p] += weight
                po[(p, o)] += weight
                sp[(s, p)] += weight
                subjects[p].add(s)
                objects[p].add(o)

        take(reference, 1.0)
        for triples in casts:
            take(triples, 1.0 / n)
        total: Counter = Counter()
        for triples in (reference, *casts):
            for _, p, _ in triples:
                total[p] += 1
        self.count = dict(count)
        self.po = dict(po)
        self.sp = dict(sp)
        # objects per subject and subjects per object, over every triple seen (the reference and all sample casts)
        self.per_subject = {p: total[p] / len(subjects[p]) for p in total}
        self.per_object = {p: total[p] / len(objects[p]) for p in total}

    def estimate(self, s, p, o, s_bound: bool, o_bound: bool) -> float:
        """Expected matches of a triple pattern with constant predicate `p`, given which ends are bound (a
        constant end is passed as the term, a variable one as None)."""
        n = self.count.get(p, 0.0)
        if n == 0:
            return 0.01  # never seen: most likely empty, and cheap to find so
        if s_bound and o_bound:
            return 0.3
        if s_bound:
            if s is not None:
                return self.sp.get((s, p), 0.01)
            return self.per_subject[p]
        if o_bound:
            if o is not None:
                return self.po.get((p, o), 0.01)
            return self.per_object[p]
        return n
