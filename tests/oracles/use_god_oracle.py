"""A second implementation of the use-god choice (docs/questions.md), for tests and tests/tools/gen_witnesses.py.

It reads only the *data* of the question scheme (tables.QUESTIONS broader links, tables.USE_GOD_CHOICES and
PERSON_CHOICES) and
decides with its own code — no rule, no SPARQL, no liuyao_kg.ontology.questions helper: a question without
choices takes its nearest broader question's; of the choices whose sex / subject / school hold, the ones
naming the most of the cast win (whom it concerns before the sex, the sex before the school); ties all count.
"""
from __future__ import annotations

from liuyao_kg.ontology import tables as T

_BROADER = {q[0]: q[4] for q in T.QUESTIONS}
_RELATIVE = {"Wealth": "妻財", "Officer": "官鬼", "Parents": "父母", "Offspring": "子孫", "Siblings": "兄弟"}
_ROLE = {"RoleShi": "世", "RoleYing": "應"}


def choices_of(topic: str) -> list[tuple]:
    q, own = topic, []
    while q is not None and not own:
        own = [c for c in T.USE_GOD_CHOICES if c[1] == q]
        q = _BROADER[q]
    # the choices by the person (tables.PERSON_CHOICES) hold for every question, where it has none of its own for them
    return own + [c for c in T.PERSON_CHOICES if all(o[4].get("about") != c[4]["about"] for o in own)]


def _holds(when: dict, sex, about, school) -> bool:
    if "sex" in when and when["sex"] != sex:
        return False
    if "about" in when and when["about"] != about:
        return False
    if "school" in when:
        return when["school"] == school if school else bool(when.get("default"))
    return True


def _rank(when: dict) -> tuple[bool, bool, bool]:
    return ("about" in when, "sex" in when, "school" in when)


def _lines_of(chart: dict, kind: str, target) -> tuple[list[int], str | None]:
    lines = chart["lines"]
    if kind == "relative":
        rel = _RELATIVE[target]
        shown = [ln["position"] for ln in lines if ln["relative"] == rel]
        hidden = [ln["position"] for ln in lines if ln.get("hidden") and ln["hidden"]["relative"] == rel]
        return (shown or hidden), rel
    if kind == "role":
        return [ln["position"] for ln in lines if _ROLE[target] in ln["roles"]], None
    if kind == "position":
        return [target], None
    return [ln["position"] for ln in lines if ln["element"] == target], None


def use_god(chart: dict, topic: str | None, sex=None, about=None, school=None, user=None):
    """(sorted positions of the use-god lines, relative or None, ids of the choices taken or ['user'])."""
    if user is not None:
        if isinstance(user, int):
            return [user], None, ["user"]
        kind_target = ("relative", next(k for k, v in _RELATIVE.items() if v == user))
        pos, rel = _lines_of(chart, *kind_target)
        return sorted(pos), rel, ["user"]
    if topic is None:
        return [], None, []
    ok = [c for c in choices_of(topic) if _holds(c[4], sex, about, school)]
    if not ok:
        return [], None, []
    best = max(_rank(c[4]) for c in ok)
    taken = [c for c in ok if _rank(c[4]) == best]
    positions, rels = set(), set()
    for c in taken:
        pos, rel = _lines_of(chart, *c[2])
        positions |= set(pos)
        rels.add(rel)
    rel = rels.pop() if len(rels) == 1 else None
    return sorted(positions), rel, [c[0] for c in taken]


def subjects_by_topic() -> dict[str, set[str]]:
    """Question → whom it may concern (--about), by the choices it takes."""
    return {q[0]: {c[4]["about"] for c in choices_of(q[0]) if "about" in c[4]} for q in T.QUESTIONS}
