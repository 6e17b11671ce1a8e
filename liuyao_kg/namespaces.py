"""The IRIs every module shares (see docs/vocabulary.md)."""
from __future__ import annotations

BASE = "https://w3id.org/liuyao-kg/"
LYO = BASE + "ontology#"
LYR = BASE + "ref/"
LYRULE = BASE + "rule/"
LYP = BASE + "passage/"
CAST = BASE + "cast/"
GRAPH = BASE + "graph/"
PROV = "http://www.w3.org/ns/prov#"
OA = "http://www.w3.org/ns/oa#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
DCTERMS = "http://purl.org/dc/terms/"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
XSD = "http://www.w3.org/2001/XMLSchema#"

GRAPH_ONTOLOGY = GRAPH + "ontology"
GRAPH_REFERENCE = GRAPH + "reference"
GRAPH_RULES = GRAPH + "rules"
GRAPH_PASSAGES = GRAPH + "passages"

PREFIXES = {
    "lyo": LYO, "lyr": LYR, "lyrule": LYRULE, "lyp": LYP, "prov": PROV, "oa": OA,
    "skos": SKOS, "dcterms": DCTERMS, "rdf": RDF, "rdfs": RDFS, "owl": OWL, "xsd": XSD,
}


def inferred_graph(cast_iri: str) -> str:
    """The named graph of what was derived for a cast (its asserted triples are in the graph named by the cast)."""
    return cast_iri + "/inferred"


def sparql_prologue() -> str:
    """PREFIX lines for every shared prefix, for rules and queries stored without their own."""
    return "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in PREFIXES.items())
