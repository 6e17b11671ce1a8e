"""The ontology as other tools open it: lyo.owl (RDF/XML, generated from lyo.ttl) in owlready2 and HermiT,
its owl:imports of the reused-terms module resolved locally, and no drift from the Turtle sources."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import rdflib


ROOT = Path(__file__).resolve().parents[2]
ONTOLOGY = ROOT / "ontology"
OWL, LYO = rdflib.OWL, "https://w3id.org/liuyao-kg/ontology"



@pytest.mark.parametrize("ttl, owl", [("lyo.ttl", "lyo.owl"), ("external.ttl", "external.owl")])
def test_the_rdf_xml_holds_the_same_graph_as_the_turtle(ttl, owl):
    from rdflib.compare import isomorphic

    def lower_langs(g):  # language tags compare case-insensitively (RDF 1.1); pyoxigraph writes them lower-case
        out = rdflib.Graph()
        for s, p, o in g:
            out.add((s, p, rdflib.Literal(str(o), lang=o.language.lower()) if getattr(o, "language", None) else o))
        return out

    assert isomorphic(lower_langs(rdflib.Graph().parse(ONTOLOGY / ttl)),
                      lower_langs(rdflib.Graph().parse(ONTOLOGY / owl, format="xml")))


def test_the_header_imports_the_module_of_reused_terms_each_defined_elsewhere():
    lyo = rdflib.Graph().parse(ONTOLOGY / "lyo.ttl")
    ext = rdflib.Graph().parse(ONTOLOGY / "external.ttl")
    external = rdflib.URIRef(LYO + "/external")
    assert (rdflib.URIRef(LYO), OWL.imports, external) in lyo and (external, rdflib.RDF.type, OWL.Ontology) in ext
    declared = {s for s in ext.subjects(rdflib.RDF.type) if s != external}
    assert declared and all(ext.value(s, rdflib.RDFS.isDefinedBy) for s in declared)
    used = {t for triple in lyo for t in triple if isinstance(t, rdflib.URIRef)
            and str(t).startswith(("http://www.w3.org/ns/prov#", "http://www.w3.org/ns/oa#"))}
    assert used <= declared  # every PROV / Web Annotation term lyo uses is declared in the module


@pytest.mark.reasoner_owl
@pytest.mark.skipif(shutil.which("java") is None, reason="HermiT needs a Java runtime")
def test_owlready2_opens_lyo_owl_with_its_import_and_hermit_finds_it_consistent():
    owlready2 = pytest.importorskip("owlready2")
    world = owlready2.World()
    if str(ONTOLOGY) not in owlready2.onto_path:
        owlready2.onto_path.append(str(ONTOLOGY))
    onto = world.get_ontology((ONTOLOGY / "lyo.owl").as_uri()).load()
    assert [o.base_iri for o in onto.imported_ontologies] == [LYO + "/external#"]
    assert world["https://w3id.org/liuyao-kg/ontology#MonthBroken"] is not None
    assert world["http://www.w3.org/ns/prov#wasDerivedFrom"] is not None
    with onto:
        owlready2.sync_reasoner_hermit(world, infer_property_values=False, debug=0)
    assert list(world.inconsistent_classes()) == []
