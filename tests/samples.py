"""Deterministic samples of casts shared by tests."""
from __future__ import annotations

import random

from liuyao_kg.ontology import tables as T
from liuyao_kg.load import add_casts

BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
JIAZI = ["甲乙丙丁戊己庚辛壬癸"[i % 10] + BRANCHES[i % 12] for i in range(60)]


def sample_casts(n: int = 140, seed: int = 11) -> list[tuple[str, str, str, str]]:
    """(values, month branch, day stem-branch, topic), cycling through every topic."""
    rnd = random.Random(seed)
    topics = [q[0] for q in T.QUESTIONS]
    return [("".join(rnd.choice("6789") for _ in range(6)), rnd.choice(BRANCHES), rnd.choice(JIAZI),
             topics[i % len(topics)]) for i in range(n)]


def add_in_chunks(kg, inputs) -> None:
    """Derive and store CastInputs as `liuyao load` does: one-topic chunks of liuyao_kg.load.batch.CHUNK casts.

    One batch of a few hundred mixed casts is several times slower per cast (chapter rules run on every
    topic present, and some joins grow faster than the batch), and hundreds of MB larger.
    """
    from liuyao_kg.load.batch import CHUNK
    from liuyao_kg.loaders.rdf import cast_quads

    ordered = sorted(inputs, key=lambda ci: str(ci.topic or ""))
    for k in range(0, len(ordered), CHUNK):
        add_casts(kg, [q for ci in ordered[k:k + CHUNK] for q in cast_quads(ci)])
