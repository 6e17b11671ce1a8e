"""A :class:`CastInput` → the asserted quads of docs/vocabulary.md ("Asserted per cast").

All quads are in the named graph whose name is the cast IRI. Nothing derived is emitted (no
stems/branches of lines, no relatives, no moving/static classes): the reasoner derives those into
``<cast>/inferred``.
"""
from __future__ import annotations

from pyoxigraph import Literal, NamedNode, Quad

from liuyao_kg.namespaces import LYO, LYR, RDF, XSD

from liuyao_kg.ontology import tables
from liuyao_kg.ontology.questions import QUESTION

from .cast_input import CastInput
from .pillars import branch_id, stem_branch_id

__all__ = ["cast_quads", "cast_graph", "hexagram_iri", "branch_iri", "stem_branch_iri"]

_TYPE = NamedNode(RDF + "type")
_INT = NamedNode(XSD + "integer")
_DATETIME = NamedNode(XSD + "dateTime")
_SUBJECT_ID = {zh: sid for zh, sid, *_ in tables.SUBJECTS}
_RELATIVE_ID = {zh: rid for zh, rid, _ko in tables.RELATIVES.values()}


def _lyo(local: str) -> NamedNode:
    return NamedNode(LYO + local)


def hexagram_iri(number: int) -> NamedNode:
    return NamedNode(f"{LYR}Hexagram{number:02d}")


def branch_iri(branch: str) -> NamedNode:
    return NamedNode(LYR + "Branch" + branch_id(branch))


def stem_branch_iri(gz: str) -> NamedNode:
    return NamedNode(LYR + "GZ_" + stem_branch_id(gz))


def cast_graph(ci: CastInput) -> NamedNode:
    """The named graph of the asserted cast (its name is the cast IRI)."""
    return NamedNode(ci.iri)


def cast_quads(ci: CastInput) -> list[Quad]:
    """Exactly the asserted triples of one cast, in the graph ``<cast>``."""
    iri = ci.iri  # a hash of the cast's content: computed once here, not again for each line and pillar IRI
    cast = NamedNode(iri)
    g = cast
    out: list[Quad] = []

    def add(s, p, o):
        out.append(Quad(s, p, o, g))

    in_cast = _lyo("inCast")
    add(cast, _TYPE, _lyo("Cast"))
    add(cast, _lyo("castId"), Literal(ci.id))
    add(cast, _lyo("primaryHexagram"), hexagram_iri(ci.primary))
    if ci.changed is not None:
        add(cast, _lyo("changedHexagram"), hexagram_iri(ci.changed))
    if ci.topic is not None:
        add(cast, _lyo("topic"), Literal(ci.topic))
        add(cast, _lyo("question"), NamedNode(LYR + "Topic" + QUESTION[ci.topic][1]))
    if ci.about is not None:
        add(cast, _lyo("concerns"), Literal(ci.about))
        add(cast, _lyo("concernsSubject"), NamedNode(LYR + "Subject" + _SUBJECT_ID[ci.about]))
    if ci.school is not None:
        add(cast, _lyo("readBySchool"), NamedNode(LYR + ci.school))
    if ci.reading_school is not None:
        add(cast, _lyo("readingSchool"), NamedNode(LYR + ci.reading_school))
    if isinstance(ci.use_god, int):
        add(cast, _lyo("userUseGodPosition"), Literal(str(ci.use_god), datatype=_INT))
    elif ci.use_god is not None:
        add(cast, _lyo("userUseGodRelative"), NamedNode(LYR + _RELATIVE_ID[ci.use_god]))
    for pos, value in enumerate(ci.values, 1):
        line = NamedNode(f"{iri}/line/{pos}")
        add(cast, _lyo("hasLine"), line)
        add(line, _TYPE, _lyo("Line"))
        add(line, in_cast, cast)
        add(line, _lyo("position"), Literal(str(pos), datatype=_INT))
        add(line, _lyo("lineValue"), Literal(str(value), datatype=_INT))

    def pillar(kind: str, gz: str | None, branch: str | None = None) -> None:
        node = NamedNode(f"{iri}/{kind.lower()}")
        add(cast, _lyo("has" + kind), node)
        add(node, _TYPE, _lyo(kind + "Pillar"))
        add(node, in_cast, cast)
        if branch is not None:
            add(node, _lyo("branch"), branch_iri(branch))
        if gz is not None:
            add(node, _lyo("stemBranch"), stem_branch_iri(gz))

    if ci.month_branch is not None:  # a month may be known by its branch alone; a cast may have none
        pillar("Month", ci.month_gz, ci.month_branch)
    if ci.day_gz is not None:
        pillar("Day", ci.day_gz)
    if ci.year_gz is not None:
        pillar("Year", ci.year_gz)
    if ci.hour_gz is not None:
        pillar("Hour", ci.hour_gz)

    if ci.birth_branch is not None:
        add(cast, _lyo("birthBranch"), branch_iri(ci.birth_branch))
    if ci.sex is not None:
        add(cast, _lyo("askerSex"), Literal(ci.sex))
    if ci.cast_at is not None:
        add(cast, _lyo("castAt"), Literal(ci.cast_at, datatype=_DATETIME))
    if ci.label:
        # The user's own record id (batches): a name for the cast, not part of its identity.
        add(cast, NamedNode("http://www.w3.org/2000/01/rdf-schema#label"), Literal(str(ci.label)))
    return out

