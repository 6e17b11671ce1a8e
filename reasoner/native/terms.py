"""RDF terms as plain Python values, so the compiled rules join on str and tuple hashing done in C.

An IRI is a `str`; a literal a tuple `(lexical, datatype)`, or `(lexical, RDF_LANG_STRING, language)` with a
language tag; a blank node a `BNode` (a `str` subclass: its label never holds the ':' every IRI holds, so the two
never compare equal). Literals are kept in the canonical form a pyoxigraph store gives back ("01"^^xsd:integer is
"1"), which is what the reference engine reads and writes: a join, a DISTINCT and the output then agree with it.
"""
from __future__ import annotations

import re
from functools import lru_cache

import pyoxigraph as ox

from liuyao_kg.namespaces import XSD

XSD_STRING = XSD + "string"
XSD_INTEGER = XSD + "integer"
XSD_BOOLEAN = XSD + "boolean"
XSD_DECIMAL = XSD + "decimal"
XSD_DOUBLE = XSD + "double"
XSD_FLOAT = XSD + "float"
RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"

TRUE = ("true", XSD_BOOLEAN)
FALSE = ("false", XSD_BOOLEAN)


class BNode(str):
    """A blank node's label."""

    __slots__ = ()


_CANONICAL_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)\Z")


def literal(lexical: str, datatype: str = XSD_STRING, language: str | None = None) -> tuple:
    """A literal term, canonical as a pyoxigraph store gives it back."""
    if language is not None:
        if language.islower() or not any(c.isalpha() for c in language):
            return (lexical, RDF_LANG_STRING, language)
        return _stored(lexical, RDF_LANG_STRING, language)
    if datatype == XSD_STRING:
        return (lexical, XSD_STRING)
    if datatype == XSD_INTEGER and _CANONICAL_INTEGER.match(lexical) and lexical != "-0":
        return (lexical, XSD_INTEGER)
    if datatype == XSD_BOOLEAN and lexical in ("true", "false"):
        return (lexical, XSD_BOOLEAN)
    return _stored(lexical, datatype, None)


@lru_cache(maxsize=4096)
def _stored(lexical: str, datatype: str, language: str | None) -> tuple:
    """The literal as a pyoxigraph store normalises it (numbers, booleans, dates, language tags): rare here."""
    store = ox.Store()
    lit = ox.Literal(lexical, language=language) if language else ox.Literal(lexical, datatype=ox.NamedNode(datatype))
    store.add(ox.Quad(ox.NamedNode("urn:x"), ox.NamedNode("urn:x"), lit))
    back = next(iter(store)).object
    if back.language:
        return (back.value, RDF_LANG_STRING, back.language)
    return (back.value, back.datatype.value)


def from_ox(term):
    """A pyoxigraph term as a native one."""
    kind = type(term)
    if kind is ox.NamedNode:
        return term.value
    if kind is ox.Literal:
        lang = term.language
        if lang:
            return literal(term.value, RDF_LANG_STRING, lang)
        return literal(term.value, term.datatype.value)
    if kind is ox.BlankNode:
        return BNode(term.value)
    raise TypeError(f"not a term the native engine reads: {term!r}")


_DATATYPES: dict[str, ox.NamedNode] = {}


def to_ox(term):
    """A native term as a pyoxigraph one."""
    if type(term) is str:
        return ox.NamedNode(term)
    if type(term) is tuple:
        if len(term) == 3:
            return ox.Literal(term[0], language=term[2])
        dt = _DATATYPES.get(term[1])
        if dt is None:
            dt = _DATATYPES[term[1]] = ox.NamedNode(term[1])
        return ox.Literal(term[0], datatype=dt)
    if isinstance(term, BNode):
        return ox.BlankNode(str(term))
    raise TypeError(f"not a native term: {term!r}")


def from_rdflib(term):
    """A constant of a rule's algebra (rdflib) as a native term, canonical as pyoxigraph reads the query."""
    from rdflib import BNode as RBNode, Literal, URIRef

    if isinstance(term, URIRef):
        return str(term)
    if isinstance(term, Literal):
        if term.language:
            return literal(str(term), language=term.language)
        return literal(str(term), str(term.datatype) if term.datatype is not None else XSD_STRING)
    if isinstance(term, RBNode):
        raise ValueError("a blank node constant in a rule's pattern")
    raise TypeError(f"not an RDF term: {term!r}")
