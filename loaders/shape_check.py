"""One cast's SHACL check without pySHACL: the shapes of ontology/shapes/<name>.ttl applied in plain Python.

Why: pySHACL costs more per cast than the derivation's share, and importing it and rdflib cost every `liuyao cast`
(benchmarks/shacl_cost.py, benchmarks/cold_start.py). The shapes stay the data (read here with pyoxigraph); only the SHACL Core features cast.ttl uses are
implemented. Whatever this module cannot decide exactly as pySHACL would — a shapes file using another feature,
a graph with blank nodes or literals whose rdflib normalisation is not the identity — it answers None for, and
the caller asks pySHACL (liuyao_kg.loaders.shapes). tests/loaders/test_shape_check.py holds the two to the same violations.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from importlib import resources

import pyoxigraph as ox

SH = "http://www.w3.org/ns/shacl#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
XSD = "http://www.w3.org/2001/XMLSchema#"
_TYPE, _SUBCLASS = RDF + "type", "http://www.w3.org/2000/01/rdf-schema#subClassOf"
_NODE_KINDS = {SH + "IRI": (ox.NamedNode,), SH + "Literal": (ox.Literal,), SH + "BlankNode": (ox.BlankNode,),
               SH + "BlankNodeOrIRI": (ox.BlankNode, ox.NamedNode), SH + "IRIOrLiteral": (ox.NamedNode, ox.Literal),
               SH + "BlankNodeOrLiteral": (ox.BlankNode, ox.Literal)}
#: what a node shape may say besides its property shapes (anything else: not compiled)
_NODE_KEYS = {_TYPE, SH + "targetClass", SH + "property", "http://www.w3.org/2000/01/rdf-schema#label"}
_PROPERTY_KEYS = {SH + k for k in ("path", "minCount", "maxCount", "datatype", "nodeKind", "pattern", "class", "in",
                                   "minInclusive", "maxInclusive", "message")}
#: the literals whose lexical form rdflib keeps as it is (so comparing them here is comparing them in pySHACL)
_CANONICAL_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
_DATETIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?")
_DATA_IRI = "https://w3id.org/liuyao-kg/"


@dataclass(frozen=True)
class PropertyShape:
    owner: str  # the node shape holding it (what liuyao_kg.loaders.shapes.violations names)
    path: tuple[str, ...]  # one predicate, or a sequence path
    constraints: tuple[tuple[str, object], ...]  # (constraint, its parameter) in a fixed order
    message: str | None


@dataclass(frozen=True)
class NodeShape:
    iri: str
    targets: frozenset[str]
    properties: tuple[PropertyShape, ...]


class Unsupported(Exception):
    """The shapes use a feature this check does not implement: pySHACL validates instead."""


@cache
def compiled(name: str) -> tuple[NodeShape, ...] | None:
    """The node shapes of ontology/shapes/<name>.ttl, or None when they use what is not implemented here."""
    text = resources.files("liuyao_kg.ontology").joinpath("shapes", name + ".ttl").read_text("utf-8")
    try:
        return _compile(text)
    except Unsupported:
        return None


def _compile(text: str) -> tuple[NodeShape, ...]:
    prefixes = dict(re.findall(r"@prefix\s+([A-Za-z0-9_-]*):\s*<([^>]*)>", text))
    graph: dict = {}
    for t in ox.parse(text.encode("utf-8"), format=ox.RdfFormat.TURTLE):
        graph.setdefault(t.subject, {}).setdefault(t.predicate.value, []).append(t.object)
    shapes = []
    for node, props in graph.items():
        if ox.NamedNode(SH + "NodeShape") not in props.get(_TYPE, []):
            continue
        if set(props) - _NODE_KEYS or not isinstance(node, ox.NamedNode):
            raise Unsupported(f"node shape {node}: {sorted(set(props) - _NODE_KEYS)}")
        shapes.append(NodeShape(node.value, frozenset(t.value for t in props.get(SH + "targetClass", [])),
                                tuple(_property(node.value, graph[p], graph, prefixes) for p in props.get(SH + "property", []))))
    return tuple(sorted(shapes, key=lambda s: s.iri))


def _property(owner: str, props: dict, graph: dict, prefixes: dict) -> PropertyShape:
    if set(props) - _PROPERTY_KEYS or any(len(v) != 1 for v in props.values()):
        raise Unsupported(f"property shape of {owner}")
    path = props[SH + "path"][0]
    steps = (path.value,) if isinstance(path, ox.NamedNode) else tuple(n.value for n in _list(path, graph))
    message = props.get(SH + "message", [None])[0]
    constraints = []
    for key in sorted(props):
        value = props[key][0]
        name = key[len(SH):]
        if name in ("path", "message"):
            continue
        if name in ("minCount", "maxCount", "minInclusive", "maxInclusive"):
            value = _integer(value)
        elif name == "in":
            value = tuple(_list(value, graph))
        elif name == "pattern":
            value = (value.value, re.compile(value.value))
        elif name == "nodeKind" and value.value not in _NODE_KINDS:
            raise Unsupported(f"sh:nodeKind {value}")
        elif name == "datatype" and value.value not in (XSD + "string", XSD + "integer", XSD + "dateTime"):
            raise Unsupported(f"sh:datatype {value}")
        else:
            value = value.value
        if message is None:
            value = (value, _generic_message(name, value, steps, prefixes))
        constraints.append((name, value))
    return PropertyShape(owner, steps, tuple(constraints), None if message is None else message.value)


def _integer(term) -> int:
    if not (isinstance(term, ox.Literal) and term.datatype.value == XSD + "integer"):
        raise Unsupported(f"not an integer: {term}")
    return int(term.value)


def _list(head, graph: dict) -> list:
    out = []
    while head != ox.NamedNode(RDF + "nil"):
        node = graph.get(head, {})
        out.append(node[RDF + "first"][0])
        head = node[RDF + "rest"][0]
    return out


def _qname(iri: str, prefixes: dict) -> str:
    """The IRI as rdflib's namespace manager writes it with the shapes file's prefixes (pySHACL's messages)."""
    for prefix, ns in sorted({"sh": SH, "xsd": XSD, **prefixes}.items(), key=lambda kv: -len(kv[1])):
        local = iri[len(ns):]
        if iri.startswith(ns) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", local):
            return f"{prefix}:{local}"
    raise Unsupported(f"no prefix for {iri}")


def _generic_message(name: str, value, steps: tuple, prefixes: dict):
    """pySHACL's own message for a constraint without sh:message (the `{focus}` filled in per result)."""
    if name in ("minCount", "maxCount"):
        if len(steps) != 1:
            raise Unsupported("a count on a sequence path without sh:message")
        word = "Less" if name == "minCount" else "More"
        return f"{word} than {value} values on ", f"->{_qname(steps[0], prefixes)}"  # the focus node goes between
    if name == "datatype":
        return f"Value is not Literal with datatype {_qname(value, prefixes)}"
    if name == "nodeKind":
        return f"Value is not of Node Kind {_qname(value, prefixes)}"
    if name == "class":
        return f"Value does not have class {_qname(value, prefixes)}"
    if name == "pattern":
        return f"Value does not match pattern '{value[0]}'"
    raise Unsupported(f"sh:{name} without sh:message")


class Undecided(Exception):
    """This graph is one pySHACL could judge differently from this check (see `_plain`): ask pySHACL."""


def violations(quads, name: str = "cast") -> list[dict] | None:
    """[{shape, focus, path, message}] as liuyao_kg.loaders.shapes.violations gives them, or None: ask pySHACL."""
    shapes = compiled(name)
    if shapes is None:
        return None
    index: dict = {}
    for q in quads:
        if isinstance(q.subject, ox.BlankNode) or not _plain(q.object):
            return None
        index.setdefault(q.subject, {}).setdefault(q.predicate.value, set()).add(q.object)
    types = {s: {o.value for o in p.get(_TYPE, ()) if isinstance(o, ox.NamedNode)} for s, p in index.items()}
    try:
        out = [v for shape in shapes for focus in _focus_nodes(shape, types, index)
               for prop in shape.properties for v in _check(prop, focus, index, types)]
    except Undecided:
        return None
    return sorted(out, key=lambda v: (v["shape"], v["focus"], v["path"] or "", v["message"]))


def _plain(term) -> bool:
    if isinstance(term, ox.BlankNode):
        return False
    if not isinstance(term, ox.Literal) or term.language:
        return True
    dt = term.datatype.value
    if dt == XSD + "string":
        return True
    if dt == XSD + "integer":
        return _CANONICAL_INTEGER.fullmatch(term.value) is not None
    if dt == XSD + "dateTime":
        return _DATETIME.fullmatch(term.value) is not None and _parses(term.value)
    return False


def _parses(text: str) -> bool:
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _instance(node, cls: str, index: dict, types: dict) -> bool:
    """rdf:type/rdfs:subClassOf* in the cast's graph (SHACL's instances; inference none)."""
    seen, todo = set(), list(types.get(node, ()))
    while todo:
        c = todo.pop()
        if c == cls:
            return True
        if c not in seen:
            seen.add(c)
            todo += [o.value for o in index.get(ox.NamedNode(c), {}).get(_SUBCLASS, ()) if isinstance(o, ox.NamedNode)]
    return False


def _focus_nodes(shape: NodeShape, types: dict, index: dict) -> list:
    return sorted((n for n in index if any(_instance(n, c, index, types) for c in shape.targets)), key=str)


def _values(focus, steps: tuple, index: dict) -> set:
    nodes = {focus}
    for p in steps:
        nodes = {o for n in nodes for o in index.get(n, {}).get(p, ())}
    return nodes


def _check(prop: PropertyShape, focus, index: dict, types: dict) -> list[dict]:
    values = _values(focus, prop.path, index)
    out = []
    for name, param in prop.constraints:
        param, generic = param if prop.message is None else (param, None)
        if name in ("minCount", "maxCount"):
            failing = [focus] if (len(values) < param if name == "minCount" else len(values) > param) else []
        else:
            failing = [v for v in values if not _holds(name, param, v, index, types)]
        for _ in failing:
            message = prop.message or generic
            if isinstance(message, tuple):
                if not focus.value.startswith(_DATA_IRI):
                    raise Undecided(focus)  # rdflib could write this IRI with one of its own prefixes
                message = f"{message[0]}<{focus.value}>{message[1]}"
            out.append({"shape": short_name(prop.owner), "focus": focus.value,
                        "path": short_name(prop.path[0]) if len(prop.path) == 1 else None, "message": message})
    return out


def _holds(name: str, param, v, index: dict, types: dict) -> bool:
    literal = isinstance(v, ox.Literal)
    if name == "datatype":
        if not literal or v.language:
            return False
        return v.datatype.value == param
    if name == "nodeKind":
        return isinstance(v, _NODE_KINDS[param])
    if name == "class":
        return not literal and _instance(v, param, index, types)
    if name == "pattern":
        return param[1].search(v.value) is not None
    if name == "in":
        return v in param
    if name in ("minInclusive", "maxInclusive"):
        if not literal or v.language or v.datatype.value == XSD + "string":
            return False  # a string is never compared with a number
        if v.datatype.value != XSD + "integer":
            raise Undecided(v)
        return int(v.value) >= param if name == "minInclusive" else int(v.value) <= param
    raise Undecided(name)


def short_name(iri: str) -> str:
    """lysh:… / lyo:… for the shapes' and the ontology's IRIs, as violations name shapes and paths."""
    for prefix, ns in (("lysh:", "https://w3id.org/liuyao-kg/shapes#"), ("lyo:", "https://w3id.org/liuyao-kg/ontology#")):
        if iri.startswith(ns):
            return prefix + iri[len(ns):]
    return iri
