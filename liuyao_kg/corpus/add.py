"""`liuyao corpus add`: an edition into its own named graph — its description, where every passage of its
work stands in it (or why it is not found), its sentences as passages, and their parallels in other works.

Data flow: file → loaders.edition (read, strip, segment) → align / parallels (pure functions) →
quads of one graph `…/graph/edition/<Work>/<name>` → the store in one transaction (idempotent: the
same file under the same name adds nothing; another file under that name replaces the graph whole).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path

import pyoxigraph as ox

from liuyao_kg import namespaces as ns
from liuyao_kg.corpus import align as al
from liuyao_kg.corpus import parallels as par
from liuyao_kg.corpus import quotations as quo
from liuyao_kg.corpus import write
from liuyao_kg.corpus import urn
from liuyao_kg.corpus.works import (WORKS, CorpusError, check_name, edition_graph, edition_iri, known_by_sha,
                                    work_iri, work_key)
from liuyao_kg.corpus.rdf import OA, A, L, Writer, lit, n, selectors, typed
from liuyao_kg.loaders.edition import Edition, read_edition

_PASSAGE_Q = """
SELECT ?p ?quote ?chapter ?work ?prefix ?suffix WHERE {
  GRAPH ?g { ?p a lyo:Passage ; lyo:quote ?quote ; lyo:work ?w }
  FILTER(?g = <%(passages)s>)
  OPTIONAL { ?p lyo:chapter ?chapter }
  ?w rdfs:label ?work . FILTER(LANGMATCHES(LANG(?work), "zh-Hant"))
  OPTIONAL { ?p oa:hasSelector ?s . ?s oa:prefix ?prefix ; oa:suffix ?suffix ; oa:exact ?ex .
             FILTER(LANGMATCHES(LANG(?ex), "zh-Hant")) }
} ORDER BY ?p
""" % {"passages": ns.GRAPH_PASSAGES}


@dataclass
class Report:
    work: str
    edition: str
    graph: str
    sha256: str
    status: str = "added"                    # added | unchanged | replaced
    passages: int = 0
    aligned: dict = field(default_factory=dict)   # method → count
    unaligned: list = field(default_factory=list)  # {passage, quote, reason}
    textual_variants: int = 0
    alternatives: int = 0                     # readings the edition itself gives ({{另|A|B}})
    sentences: int = 0
    carried: dict = field(default_factory=dict)   # carried work → {passages, aligned, not_found}
    carried_editions: list = field(default_factory=list)  # the carried works' editions in the store, aligned here
    carriers: list = field(default_factory=list)  # editions in the store that carry this work: add them again to
                                                  # align this edition's sentences there
    parallels: int = 0
    links: dict = field(default_factory=dict)     # link method → count
    quads: int = 0

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def package_passages(kg) -> list[dict]:
    """The package's passages (the passages layer) with their work, chapter and seed context."""
    seen, out = set(), []
    for r in kg.select(ns.sparql_prologue() + _PASSAGE_Q):
        if r["p"] in seen:
            continue
        seen.add(r["p"])
        out.append(r)
    return out


def _local(passage_iri: str) -> str:
    return passage_iri[len(ns.LYP):] if passage_iri.startswith(ns.LYP) else passage_iri.rsplit("/", 1)[-1]


_SENTENCES_Q = """
SELECT ?p ?quote ?chapter ?w WHERE {
  GRAPH <%s> { ?p a lyo:Passage ; lyo:quote ?quote ; lyo:work ?w . OPTIONAL { ?p lyo:chapter ?chapter } }
}"""


def edition_sentences(kg, skip_graph: str | None = None) -> list[dict]:
    """The sentences of the editions the store holds (one query per edition graph), except `skip_graph`'s."""
    zh = {work_iri(k): v[1] for k, v in WORKS.items()}
    out = []
    for g in sorted({r["g"] for r in editions(kg)} - {skip_graph, ns.GRAPH_PASSAGES}):
        for r in kg.select(ns.sparql_prologue() + _SENTENCES_Q % ox.NamedNode(g).value):  # an IRI from the store
            out.append({**r, "work": zh.get(r["w"], r["w"])})
    return sorted(out, key=lambda r: r["p"])


def sentence_iri(work: str, name: str, chapter: int, index: int) -> str:
    """Stable under re-runs of the same file: work, edition, chapter number and sentence number."""
    return f"{ns.LYP}{work}/{name}/{chapter:02d}/{index:03d}"


def build(kg, path: str | Path, work: str, name: str, *, source: str | None = None,
          retrieved: str | None = None, wikitext: bool | None = None,
          carries: list[str] | None = None) -> tuple[list[ox.Quad], Report]:
    """The quads of the edition's graph and the report (nothing is written).

    `carries`: other works the edition carries whole as a witness (default: what editions.yaml records for a
    known file, e.g. 卜筮正宗 carries 黃金策); their passages — the package's and the sentences of their
    editions already in the store — are aligned in this edition too.
    """
    work = work_key(work)
    check_name(name)
    if retrieved is not None:
        try:
            date.fromisoformat(retrieved)
        except ValueError:
            raise CorpusError(f"--retrieved {retrieved!r}: give the day as YYYY-MM-DD") from None
    if source is not None:
        try:
            ox.NamedNode(source)
        except ValueError as e:
            raise CorpusError(f"--source {source!r}: not a valid IRI ({e})") from None
        if not source.startswith(("http://", "https://", "file:")):
            raise CorpusError(f"--source {source!r}: give a URL (http://, https:// or file:)")
    ed = read_edition(path, wikitext=wikitext)
    eiri, giri = edition_iri(work, name), edition_graph(work, name)
    rep = Report(ns.LYR + WORKS[work][0], eiri, giri, ed.sha256)
    w = Writer(giri)
    e = n(eiri)
    _, zh, en, ko = WORKS[work]
    fname = Path(path).name
    w.add(e, A, L("Edition"))
    w.labels(e, f"{zh}（{name}）", f"{en}, edition {name} ({fname})", f"{ko} ({name})")
    w.add(e, n(ns.DCTERMS + "isVersionOf"), n(work_iri(work)))
    w.add(e, L("fileName"), lit(fname))
    w.add(e, L("sha256"), lit(ed.sha256))
    known = known_by_sha(ed.sha256)
    if carries is None:
        carries = known.get("carries", []) if known and known["work"] == work else []
    carries = [work_key(c) for c in carries]
    if work in carries:
        raise CorpusError(f"an edition of {WORKS[work][1]} cannot carry its own work")
    for c in carries:
        w.add(e, L("carriesWork"), n(work_iri(c)))
    in_store = [r for r in editions(kg) if r["g"] != giri]
    carried_zh = {WORKS[c][1] for c in carries}
    rep.carried_editions = sorted(f"{r['edition']} sha256:{r['sha']}" for r in in_store if r["work"] in carried_zh)
    rep.carriers = carriers(kg, work, giri)
    if known and known["work"] == work:
        source = source or known["source"]
        if known.get("wikisource_title"):
            w.add(e, L("wikisourceTitle"), lit(known["wikisource_title"]))
        w.add(e, n(ns.PROV + "wasDerivedFrom"), n(known["derived_from"]))
    if source:
        w.add(e, n(ns.DCTERMS + "source"), n(source))
    if retrieved:
        w.add(e, L("retrievedOn"), lit(retrieved))
    w.add(e, n(ns.OWL + "versionInfo"), lit(build_key(kg, rep.carried_editions)))
    w.add(e, n(ns.PROV + "generatedAtTime"),
          typed(datetime.now(timezone.utc).replace(microsecond=0).isoformat(), "dateTime"))

    rows = package_passages(kg)
    mine = [al.PassageText(r["p"], work, r["chapter"] or "", r["quote"], r["prefix"] or "", r["suffix"] or "")
            for r in rows if r["work"] == zh]
    rep.passages = len(mine)
    for a in al.align(mine, ed):
        _alignment(w, rep, ed, e, a, (zh, en, ko, name))
    rep.alternatives = _alternatives(w, ed, e, (zh, en, ko, name))
    stored = edition_sentences(kg, giri)
    for c in carries:
        czh = WORKS[c][1]
        own = [al.PassageText(r["p"], c, r["chapter"] or "", r["quote"], r["prefix"] or "", r["suffix"] or "")
               for r in rows if r["work"] == czh]
        theirs = [al.PassageText(r["p"], c, r["chapter"] or "", r["quote"]) for r in stored if r["work"] == czh]
        found = al.align(own + theirs, ed)
        for a in found[:len(own)]:   # the package's passages: found, or the reason
            _alignment(w, rep, ed, e, a, (zh, en, ko, name), carried=True)
        for a in found[len(own):]:   # an added edition's sentences: where they are found
            if a.aligned:
                _alignment(w, rep, ed, e, a, (zh, en, ko, name), carried=True)
        rep.carried[c] = {"passages": len(own), "sentences": len(theirs),
                          "aligned": sum(a.aligned for a in found), "not_found": sum(not a.aligned for a in found)}

    chapters = {c.number: c.title for c in ed.chapters}
    sentences = []
    for s in ed.sentences():
        iri = sentence_iri(work, name, s.chapter, s.index)
        node = n(iri)
        chapter = chapters.get(s.chapter, "")
        w.add(node, A, L("Passage"))
        w.labels(node, f"{zh}·{chapter}：「{s.text[:16]}」", f"{work} {name} chapter {s.chapter} sentence {s.index}",
                 f"{ko}·{chapter}: 「{s.text[:16]}」")
        w.add(node, L("work"), n(work_iri(work)))
        if chapter:
            w.add(node, L("chapter"), lit(chapter, "zh-Hant"))
        w.add(node, L("quote"), lit(s.text, "zh-Hant"))
        w.add(node, OA("hasSource"), e)
        w.add(node, n(ns.DCTERMS + "identifier"), lit(urn.sentence(work, name, s)))  # its citation (corpus/urn.py)
        for sel in selectors(w, iri, ed, ed.raw_span(s.start, s.end), f"{work}/{name}/{s.chapter}/{s.index}"):
            w.add(node, OA("hasSelector"), sel)
        for t in par.mentions(s.text):
            w.add(node, L("mentionsTerm"), lit(t))
        sentences.append(par.Text(iri, zh, chapter, s.text))
    rep.sentences = len(sentences)

    others = [par.Text(r["p"], r["work"], r["chapter"] or "", r["quote"]) for r in rows if r["work"] != zh]
    from liuyao_kg.corpus.review import statuses

    reviewed = statuses(kg)  # a replaced graph keeps the reviews of the links proposed again
    # quotations: from every passage of another work (the package's, and the sentences of the editions in the
    # store) to this edition's sentences; a carried text is quoted line by line (卜筮正宗 gives each line of 黃金策
    # before its note), so its lines are both anchored here as a witness and linked as quotations
    sources = others + [par.Text(r["p"], r["work"], r["chapter"] or "", r["quote"]) for r in stored if r["work"] != zh]
    links = par.link(others, sentences) + quo.link(sources, sentences)
    for link in links:
        # a paraphrase link keeps the key it had before quotations were proposed (its reviews stay with it)
        suffix = "" if link.kind == par.KIND else f" {link.kind}"
        key = hashlib.sha1(f"{link.source} {link.target}{suffix}".encode()).hexdigest()[:16]
        node = n(f"{eiri}/parallel/{key}")
        w.add(node, A, L("ParallelLink"))
        w.labels(node, f"平行：{_local(link.source)} ⇄ {_local(link.target)}",
                 f"parallel ({link.method}, {link.score}): {_local(link.source)} and {_local(link.target)}",
                 f"평행: {_local(link.source)} ⇄ {_local(link.target)}")
        w.add(node, L("parallelFrom"), n(link.source))
        w.add(node, L("parallelTo"), n(link.target))
        w.add(node, L("linkMethod"), lit(link.method))
        w.add(node, L("linkKind"), lit(link.kind))
        w.add(node, L("linkScore"), typed(f"{link.score:.3f}", "decimal"))
        for t in link.shared:
            w.add(node, L("sharedTerm"), lit(t))
        w.add(node, L("reviewStatus"), lit(reviewed.get((link.source, link.target), "unreviewed")))
        rep.parallels += 1
        rep.links[link.method] = rep.links.get(link.method, 0) + 1
    rep.quads = len(w.quads)
    return w.quads, rep


def _alignment(w: Writer, rep: Report, ed: Edition, e: ox.NamedNode, a: al.Alignment, names: tuple,
               carried: bool = False) -> None:
    """A passage's alignment in the edition: method, score, selectors and variant readings, or the reason.

    `carried`: a passage of a work the edition carries (counted in `Report.carried`, not with the work's own)."""
    zh, en, ko, name = names
    base = f"{e.value}/anchor/{_local(a.passage.iri)}"
    count = not carried
    node = n(base)
    w.add(node, A, L("PassageAlignment"))
    w.labels(node, f"{zh}（{name}）中之「{a.passage.quote[:16]}」", f"{_local(a.passage.iri)} in {en} {name}",
             f"{ko} ({name}) 대조: {_local(a.passage.iri)}")
    w.add(node, L("alignedPassage"), n(a.passage.iri))
    w.add(node, OA("hasSource"), e)
    w.add(node, L("alignmentMethod"), lit(a.method or "none"))
    w.add(node, L("alignmentScore"), typed(f"{a.score:.3f}", "decimal"))
    if not a.aligned:
        w.add(node, L("unalignedReason"), lit(a.reason))
        if count:
            rep.unaligned.append({"passage": a.passage.iri, "quote": a.passage.quote, "reason": a.reason})
        return
    if count:
        rep.aligned[a.method] = rep.aligned.get(a.method, 0) + 1
    for sel in selectors(w, base, ed, a.raw_span(ed), _local(a.passage.iri)):
        w.add(node, OA("hasSelector"), sel)
    for i, v in enumerate(a.variants, 1):
        vn = n(f"{base}/variant/{i}")
        w.add(node, L("hasVariantReading"), vn)
        w.add(vn, A, L("VariantReading"))
        w.labels(vn, f"異文：{v.base or '〇'}→{v.reading or '〇'}", f"{v.kind} variant {v.base}→{v.reading}",
                 f"이문: {v.base}→{v.reading}")
        w.add(vn, L("variantKind"), lit(v.kind))
        w.add(vn, L("baseReading"), lit(v.base))
        w.add(vn, L("editionReading"), lit(v.reading))
        w.add(vn, L("quoteOffset"), typed(v.offset, "nonNegativeInteger"))
        rep.textual_variants += count and v.kind == "textual"


def _alternatives(w: Writer, ed: Edition, e: ox.NamedNode, names: tuple) -> int:
    """The readings the edition itself gives ({{另|A|B}}): kind, both readings, and a selector of A in the file."""
    zh, en, ko, name = names
    for i, v in enumerate(ed.variants, 1):
        base = f"{e.value}/reading/{i}"
        node = n(base)
        w.add(node, A, L("VariantReading"))
        w.labels(node, f"{zh}（{name}）另本：「{v.reading}」一作「{v.alternative}」",
                 f"{en} {name}: reads {v.reading}, another copy {v.alternative}",
                 f"{ko} ({name}) 이본: {v.reading} / {v.alternative}")
        w.add(node, L("variantKind"), lit("alternative"))
        w.add(node, L("editionReading"), lit(v.reading))
        w.add(node, L("alternativeReading"), lit(v.alternative))
        w.add(node, OA("hasSource"), e)
        for sel in selectors(w, base, ed, (v.offset, v.offset + len(v.reading)), f"{name} reading {i}"):
            w.add(node, OA("hasSelector"), sel)
    return len(ed.variants)


def build_key(kg, carried: list[str] = ()) -> str:
    """What an edition graph was computed from besides its file: the methods, the passages they aligned and, for
    an edition that carries another work, that work's editions in the store (their sentences are aligned in it:
    one added since is a reason to compute it again)."""
    from liuyao_kg.ontology import package_versions

    passages = write.passages_version(kg) or package_versions()[ns.GRAPH_PASSAGES]
    return (f"corpus layer: align exact/folded/tolerant (threshold {al.THRESHOLD}), parallels {par.METHOD} "
            f"(min score {par.MIN_SCORE}, top {par.TOP}) and {quo.METHOD} (min score {quo.MIN_SCORE}, seed "
            f"{quo.SEED}, {quo.MIN_ALIGNED} characters aligned), passages {passages}"
            + (f", carrying {'; '.join(carried)}" if carried else ""))


def add_edition(kg, path: str | Path, work: str, name: str, **kw) -> Report:
    """Add (or replace) an edition's graph, whole or not at all (corpus.write); the same file again adds nothing.

    "The same" is the same file bytes computed by the same methods over the same passages layer (the
    edition's owl:versionInfo records the latter): a changed rule base re-aligns on the next add.
    Everything is computed before the store is touched, so bad input leaves it as it was. `kg` is an
    embedded store or an endpoint (`liuyao corpus add --endpoint URL`).
    """
    quads, rep = build(kg, path, work, name, **kw)
    old, version = write.recorded(kg, rep.graph)
    if old == rep.sha256 and version == build_key(kg, rep.carried_editions):
        rep.status, rep.quads = "unchanged", 0
        return rep
    rep.status = "added" if old is None else "replaced"
    write.write_graph(kg, rep.graph, quads, new=old is None)
    return rep


def carriers(kg, work: str, graph: str) -> list[str]:
    """The editions in the store (outside `graph`) that carry `work`: an edition of it added now is aligned there
    only when they are added again (corpus add says so)."""
    q = ns.sparql_prologue() + f"""SELECT DISTINCT ?edition WHERE {{
      GRAPH ?g {{ ?edition lyo:carriesWork <{work_iri(work)}> }} FILTER(?g != <{graph}>) }} ORDER BY ?edition"""
    return [r["edition"] for r in kg.select(q)]


def editions(kg) -> list[dict]:
    """The editions in the store: IRI, work, file, checksum, and their graph."""
    q = ns.sparql_prologue() + """SELECT ?edition ?work ?file ?sha ?g WHERE {
      GRAPH ?g { ?edition a lyo:Edition ; dcterms:isVersionOf ?w ; lyo:fileName ?file ; lyo:sha256 ?sha }
      ?w rdfs:label ?work . FILTER(LANGMATCHES(LANG(?work), "zh-Hant")) } ORDER BY ?work ?edition"""
    return kg.select(q)
