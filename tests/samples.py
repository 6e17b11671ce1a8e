"""Deterministic samples of casts shared by tests."""
from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import yaml

from liuyao_kg.loaders.cast_input import make_cast_input
from liuyao_kg.loaders.errors import CastInputError
from liuyao_kg.ontology import questions
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
    """Derive and store CastInputs as `liuyao load` gives them to the reference engine: one-topic chunks of its batch
    (reasoner.engines.REGISTRY).

    One batch of a few hundred mixed casts is several times slower per cast (chapter rules run on every
    topic present, and some joins grow faster than the batch), and hundreds of MB larger.
    """
    from liuyao_kg.loaders.rdf import cast_quads
    from liuyao_kg.reasoner.engines import REGISTRY

    chunk = REGISTRY["oxigraph"].batch
    ordered = sorted(inputs, key=lambda ci: str(ci.topic or ""))
    for k in range(0, len(ordered), chunk):
        add_casts(kg, [q for ci in ordered[k:k + chunk] for q in cast_quads(ci)])


TOPICS = [q[0] for q in T.QUESTIONS]
SUBJECTS = [s[0] for s in T.SUBJECTS]
RELATIVES = [zh for zh, _rid, _ko in T.RELATIVES.values()]


@cache
def witnesses() -> dict:
    """tests/data/rule_witnesses.yaml: a cast on which each rule fires (tests/tools/gen_witnesses.py)."""
    return yaml.safe_load((Path(__file__).resolve().parent / "data" / "rule_witnesses.yaml").read_text("utf-8"))


def witness_inputs() -> list:
    """The rule witnesses' casts, as CastInputs."""
    out = []
    for c in witnesses()["casts"].values():
        extra = {k: c[k] for k in ("sex", "about", "birth") if c.get(k)}
        out.append(make_cast_input(str(c["values"]), month=c["month"], day=c["day"], topic=c["topic"],
                                   year=c["year"], **extra))
    return out


def seeded_inputs(n: int, seed: int) -> list:
    """`n` casts cycling through every question and none: dated by pillars (with or without the year), by an instant, or
    undated; with or without sex, whom it concerns, birth branch, a school (of the reading or of the use-god)
    and the user's own use-god."""
    rnd = random.Random(seed)
    out = []
    questions_and_none = [*TOPICS, None]
    for i in range(n):
        topic = questions_and_none[i % len(questions_and_none)]
        kwargs: dict = {"topic": topic}
        when = rnd.random()
        if when < 0.45:
            kwargs.update(month=rnd.choice(BRANCHES), day=rnd.choice(JIAZI))
            if rnd.random() < 0.5:
                kwargs["year"] = rnd.choice(JIAZI)
        elif when < 0.75:
            kwargs["date"] = (f"{rnd.randint(1901, 2099)}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}T"
                              f"{rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}:00+08:00")
        if rnd.random() < 0.3:
            kwargs["sex"] = rnd.choice("男女")
        if topic is not None and rnd.random() < 0.25:
            kwargs["about"] = rnd.choice(SUBJECTS)
        if rnd.random() < 0.25:
            kwargs["birth"] = rnd.choice(BRANCHES)
        schools = questions.schools_for(topic) if topic else []
        if rnd.random() < 0.25:
            kwargs["school"] = "卜筮正宗"
        elif schools and rnd.random() < 0.5:
            kwargs["school"] = rnd.choice(schools)
        if rnd.random() < 0.05:
            kwargs["use_god"] = rnd.choice([*RELATIVES, 1, 2, 3, 4, 5, 6])
        values = "".join(rnd.choice("6789") for _ in range(6))
        try:
            out.append(make_cast_input(values, **kwargs))
        except CastInputError:
            out.append(make_cast_input(values, topic=topic))
    return out
