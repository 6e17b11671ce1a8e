"""Generate the RDF/XML renderings of the T-box: ``ontology/lyo.owl`` and ``ontology/external.owl``.

    python -m liuyao_kg.build owl [DIRECTORY]

Protégé and owlready2 open RDF/XML directly (owlready2 does not read Turtle). The Turtle files stay the
source; these are generated from them, deterministically (triples sorted), and a test fails when they drift.
``catalog-v001.xml`` beside them maps the import of the external-terms module to its local file for Protégé.
"""
from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape

import rdflib

from liuyao_kg.build.paths import ONTOLOGY

HERE = ONTOLOGY
#: (Turtle source, RDF/XML output, ontology IRI)
RENDERINGS = (("lyo.ttl", "lyo.owl", "https://w3id.org/liuyao-kg/ontology"),
              ("external.ttl", "external.owl", "https://w3id.org/liuyao-kg/ontology/external"))
PREFIXES = {"lyo": "https://w3id.org/liuyao-kg/ontology#", "lyr": "https://w3id.org/liuyao-kg/ref/",
            "owl": "http://www.w3.org/2002/07/owl#", "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
            "xsd": "http://www.w3.org/2001/XMLSchema#", "skos": "http://www.w3.org/2004/02/skos/core#",
            "dcterms": "http://purl.org/dc/terms/", "prov": "http://www.w3.org/ns/prov#", "oa": "http://www.w3.org/ns/oa#"}


def _ox(term):
    import pyoxigraph as ox

    if isinstance(term, rdflib.BNode):
        return ox.BlankNode(str(term))
    if isinstance(term, rdflib.URIRef):
        return ox.NamedNode(str(term))
    if term.language:
        return ox.Literal(str(term), language=term.language)
    return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype or rdflib.XSD.string)))


def rdfxml(source: Path) -> str:
    """RDF/XML of a Turtle file, byte-stable: blank nodes get canonical names (rdflib.compare), triples are
    sorted, and pyoxigraph writes them (rdf:nodeID for blank nodes, so OWL lists and axioms survive intact)."""
    import pyoxigraph as ox
    from rdflib.compare import to_canonical_graph

    g = to_canonical_graph(rdflib.Graph().parse(source, format="turtle"))
    triples = [ox.Triple(_ox(s), _ox(p), _ox(o)) for s, p, o in sorted(g, key=lambda t: tuple(x.n3() for x in t))]
    return ox.serialize(triples, format=ox.RdfFormat.RDF_XML, prefixes=PREFIXES).decode("utf-8")


def catalog() -> str:
    uris = "".join(f'    <uri id="liuyao-kg" name="{escape(iri)}" uri="{escape(owl)}"/>\n' for _, owl, iri in RENDERINGS)
    return ('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
            '<catalog prefer="public" xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog">\n' + uris + "</catalog>\n")


def generate(directory: Path = HERE) -> dict[str, str]:
    """{file name: text} of every generated file."""
    files = {owl: rdfxml(directory / ttl) for ttl, owl, _ in RENDERINGS}
    files["catalog-v001.xml"] = catalog()
    return files


def outputs() -> dict[Path, bytes]:
    """{file: bytes} this step writes (liuyao_kg.build)."""
    return {HERE / name: text.encode("utf-8") for name, text in generate(HERE).items()}
