"""Deterministic samples of casts shared by tests."""
from __future__ import annotations

import random

from liuyao_kg.ontology import tables as T

BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
JIAZI = ["甲乙丙丁戊己庚辛壬癸"[i % 10] + BRANCHES[i % 12] for i in range(60)]


def sample_casts(n: int = 140, seed: int = 11) -> list[tuple[str, str, str, str]]:
    """(values, month branch, day stem-branch, topic), cycling through every topic."""
    rnd = random.Random(seed)
    topics = [q[0] for q in T.QUESTIONS]
    return [("".join(rnd.choice("6789") for _ in range(6)), rnd.choice(BRANCHES), rnd.choice(JIAZI),
             topics[i % len(topics)]) for i in range(n)]
