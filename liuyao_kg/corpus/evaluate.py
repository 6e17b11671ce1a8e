"""`liuyao corpus eval GOLD.yaml`: precision, recall and F1 of the proposed parallels and edition alignments
against a hand-labelled gold set (docs/corpus.md, "Measuring the links").

The gold file: `pairs: [{id, label, work_a, file_a, quote_a, work_b, file_b, quote_b}]`, label one of
verbatim, near, paraphrase, negative or edition; file_x a file of `../shared/seeds` or `../shared/corpora`, and
each quote an exact substring of it (every occurrence of it is the quote's place in the file).

Everything is matched by **character intervals of the files**: a proposed passage stands where its
TextPositionSelectors put it — its own selector and those of its alignments in every edition (so a rule's
passage quoted from seed 002 stands in the Wikisource 火珠林 too); the Korean rendering's selectors are not
the passage's text. A passage counts at most `MAX_CHARS` characters: a longer anchor is cut to its first
`MAX_CHARS` for matching. A proposal **matches** a gold pair when its two sides overlap the pair's two quotes,
in either order.

The rows (each a set of proposals against the gold labels it is scored on):

* `verbatim+near` — the links of kind `quotation`; positives the pairs labelled verbatim or near;
* `paraphrase` — the links of kind `paraphrase`; positives the pairs labelled paraphrase;
* `any` — every link, whatever its kind; positives verbatim, near and paraphrase;
* `edition` — edition alignment, apart from the parallels: a proposal is a passage anchored in two files
  (its own and an alignment, or two alignments); positives the pairs labelled edition.

In every row the pairs labelled negative are the negatives; the labels of the other rows are left out of it
(a quotation link on a pair labelled paraphrase is neither right nor wrong for `verbatim+near`). Recall = the
positives matched by at least one proposal / the positives (`n`); precision = the proposals that match a
positive / the proposals that match any of the row's pairs, positive or negative (the positives are not
exhaustive: a proposal that matches no gold pair is not counted either way); F1 their harmonic mean.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from liuyao_kg import namespaces as ns
from liuyao_kg.corpus.works import CorpusError, read_yaml, work_key

LABELS = ("verbatim", "near", "paraphrase", "negative", "edition")
#: a proposed passage counts at most this many characters (the issue's contract)
MAX_CHARS = 200
#: the rows: name → (the link kinds scored, or None for edition alignment; the positive labels)
ROWS = {"verbatim+near": (("quotation",), ("verbatim", "near")),
        "paraphrase": (("paraphrase",), ("paraphrase",)),
        "any": (("quotation", "paraphrase"), ("verbatim", "near", "paraphrase")),
        "edition": (None, ("edition",))}
#: the methods written before links recorded their kind (lyo:linkKind)
_KIND_OF_METHOD = {"topic-terms+bigrams/v1": "paraphrase", "topic-terms+bigrams/v2": "paraphrase"}
_FIELDS = ("id", "label", "work_a", "file_a", "quote_a", "work_b", "file_b", "quote_b")


@dataclass(frozen=True)
class Quote:
    file: str
    spans: tuple[tuple[int, int], ...]     # every occurrence of the quote in the file

    def overlaps(self, file: str, start: int, end: int) -> bool:
        return file == self.file and any(s < end and start < e for s, e in self.spans)


@dataclass(frozen=True)
class GoldPair:
    id: str
    label: str
    a: Quote
    b: Quote


def shared_dir(given: str | Path | None = None) -> Path:
    """`../shared` (seeds/ and corpora/) beside the repository: given, or found from here upwards."""
    if given:
        return Path(given)
    for base in (Path.cwd(), *Path.cwd().parents, Path(__file__).resolve().parents[2]):
        if (base.parent / "shared" / "corpora").is_dir():
            return base.parent / "shared"
    return Path("../shared")


def read_gold(path: str | Path, shared: str | Path | None = None) -> list[GoldPair]:
    """The gold pairs, each quote located in its file; a pair that breaks the contract is refused by its id."""
    p, data = read_yaml(path, "gold")
    pairs = data.get("pairs") if isinstance(data, dict) else None
    if not isinstance(pairs, list) or not pairs:
        raise CorpusError(f"{p}: expected a non-empty 'pairs' list of {{{', '.join(_FIELDS)}}}")
    root = shared_dir(shared)
    texts: dict[str, str] = {}
    out, seen = [], set()
    for i, it in enumerate(pairs, 1):
        name = f"pair {it.get('id', i) if isinstance(it, dict) else i}"
        if not isinstance(it, dict):
            raise CorpusError(f"{p}: {name} is not a mapping of {', '.join(_FIELDS)}")
        missing = [f for f in _FIELDS if not isinstance(it.get(f), str) or not it.get(f)]
        if missing:
            raise CorpusError(f"{p}: {name} lacks {', '.join(missing)} (each a non-empty string)")
        if it["id"] in seen:
            raise CorpusError(f"{p}: {name}: the id is used twice")
        seen.add(it["id"])
        if it["label"] not in LABELS:
            raise CorpusError(f"{p}: {name}: label {it['label']!r} is not one of {', '.join(LABELS)}")
        quotes = []
        for side in ("a", "b"):
            try:
                work_key(it[f"work_{side}"])
            except CorpusError as e:
                raise CorpusError(f"{p}: {name}: work_{side}: {e}") from None
            file = it[f"file_{side}"]
            if file not in texts:
                found = [d / file for d in (root / "seeds", root / "corpora") if (d / file).is_file()]
                if "/" in file or not found:
                    raise CorpusError(f"{p}: {name}: file_{side} {file!r} is not a file of {root / 'seeds'} "
                                      f"or {root / 'corpora'}")
                texts[file] = found[0].read_text(encoding="utf-8")
            quote, text = it[f"quote_{side}"], texts[file]
            spans, k = [], text.find(quote)
            while k != -1:
                spans.append((k, k + len(quote)))
                k = text.find(quote, k + 1)
            if not spans:
                raise CorpusError(f"{p}: {name}: quote_{side} 「{quote}」 is not an exact substring of {file}")
            quotes.append(Quote(file, tuple(spans)))
        out.append(GoldPair(it["id"], it["label"], *quotes))
    return out


#: a passage's own place, and its alignments' places, in one graph (the edition is described in the same graph)
_OWN = """SELECT ?p ?s ?file ?start ?end WHERE { GRAPH <%s> {
  ?p a lyo:Passage ; oa:hasSource ?e ; oa:hasSelector ?s . ?e lyo:fileName ?file .
  ?s a oa:TextPositionSelector ; oa:start ?start ; oa:end ?end } }"""
_ALIGNED = """SELECT ?p ?s ?file ?start ?end WHERE { GRAPH <%s> {
  ?x a lyo:PassageAlignment ; lyo:alignedPassage ?p ; oa:hasSource ?e ; oa:hasSelector ?s . ?e lyo:fileName ?file .
  ?s a oa:TextPositionSelector ; oa:start ?start ; oa:end ?end } }"""

_LINKS = """
SELECT ?link ?from ?to ?method ?kind ?score WHERE {
  ?link a lyo:ParallelLink ; lyo:parallelFrom ?from ; lyo:parallelTo ?to ; lyo:linkMethod ?method ;
        lyo:linkScore ?score .
  OPTIONAL { ?link lyo:linkKind ?kind }
}"""


def anchors(kg) -> dict[str, list[tuple[str, int, int]]]:
    """passage IRI → [(file, start, end)] of its TextPositionSelectors (its own and its alignments'), each cut to
    `MAX_CHARS`; one query per graph (the passages layer and each edition's)."""
    from liuyao_kg.corpus.add import editions

    graphs = sorted({ns.GRAPH_PASSAGES} | {r["g"] for r in editions(kg)})
    out: dict[str, set] = defaultdict(set)
    for g in graphs:  # graph IRIs come from the store
        for r in [*kg.select(ns.sparql_prologue() + _OWN % g), *kg.select(ns.sparql_prologue() + _ALIGNED % g)]:
            if r["s"].endswith("/ko-position"):   # the Korean rendering's place, not the passage's text
                continue
            start, end = int(r["start"]), int(r["end"])
            out[r["p"]].add((r["file"], start, min(end, start + MAX_CHARS)))
    return {p: sorted(v) for p, v in out.items()}


def links(kg) -> list[dict]:
    """Every parallel link the store holds: from, to, method, kind and score."""
    rows = []
    for r in kg.select(ns.sparql_prologue() + _LINKS):
        kind = r.get("kind") or _KIND_OF_METHOD.get(r["method"], "paraphrase")
        rows.append({"link": r["link"], "from": r["from"], "to": r["to"], "method": r["method"], "kind": kind,
                     "score": float(r["score"])})
    return rows


def _prf(correct: int, touching: int, found: int, n: int) -> dict:
    """Precision, recall and F1 (None where undefined: no proposal touches a pair, or the row has no positive)."""
    p = correct / touching if touching else None
    r = found / n if n else None
    f = None if p is None or r is None else (2 * p * r / (p + r) if p + r else 0.0)
    rounded = {k: None if v is None else round(v, 3) for k, v in (("precision", p), ("recall", r), ("f1", f))}
    return {**rounded, "n": n, "proposals": touching, "correct": correct, "found": found}


def score(gold: list[GoldPair], anchor: dict[str, list[tuple[str, int, int]]], proposed: list[dict],
          min_score: dict[str, float] | None = None) -> dict:
    """The rows (ROWS) for these proposals; `min_score` (kind → score) keeps only the links scoring that much."""
    def near(q: Quote) -> set[str]:
        return {p for p, spans in anchor.items() if any(q.overlaps(f, s, e) for f, s, e in spans)}

    sides = {g.id: (near(g.a), near(g.b)) for g in gold}
    out = {}
    for row, (kinds, positive) in ROWS.items():
        scored = [g for g in gold if g.label in positive or g.label == "negative"]
        if kinds is None:
            props = _edition_proposals(anchor, scored, sides)
        else:
            props = [(l["from"], l["to"]) for l in proposed if l["kind"] in kinds
                     and l["score"] >= (min_score or {}).get(l["kind"], 0.0)]
            props = [(prop, [g for g in scored if _matches(prop, sides[g.id])]) for prop in props]
        touching = [(prop, gs) for prop, gs in props if gs]
        correct = sum(any(g.label in positive for g in gs) for _, gs in touching)
        found = {g.id for _, gs in touching for g in gs if g.label in positive}
        out[row] = _prf(correct, len(touching), len(found), sum(g.label in positive for g in gold))
    return out


def _matches(prop: tuple[str, str], sides: tuple[set[str], set[str]]) -> bool:
    a, b = prop
    return (a in sides[0] and b in sides[1]) or (a in sides[1] and b in sides[0])


def _edition_proposals(anchor: dict, scored: list[GoldPair], sides: dict) -> list[tuple]:
    """A passage anchored in two files is a proposal that the two places are one text (one per pair of files)."""
    props = []
    for p, spans in anchor.items():
        files = sorted({f for f, _, _ in spans})
        for i, fa in enumerate(files):
            for fb in files[i + 1:]:
                a = [s for s in spans if s[0] == fa]
                b = [s for s in spans if s[0] == fb]
                gs = [g for g in scored if p in sides[g.id][0] and p in sides[g.id][1]
                      and _covers(g, a, b)]
                props.append(((p, fa, fb), gs))
    return props


def _covers(g: GoldPair, a: list, b: list) -> bool:
    def hit(q: Quote, spans: list) -> bool:
        return any(q.overlaps(f, s, e) for f, s, e in spans)
    return (hit(g.a, a) and hit(g.b, b)) or (hit(g.a, b) and hit(g.b, a))


def evaluate(kg, gold_path: str | Path, shared: str | Path | None = None) -> dict:
    gold = read_gold(gold_path, shared)
    return score(gold, anchors(kg), links(kg))


def in_memory(shared: str | Path | None = None):
    """A store with the package and every edition of ../shared/corpora that editions.yaml knows, added as
    `corpus add` would, in editions.yaml's order (a carried work's edition before the one that carries it)."""
    from liuyao_kg.corpus.add import add_edition
    from liuyao_kg.corpus.works import known_editions
    from liuyao_kg.store.embedded import KnowledgeGraph

    corpora = shared_dir(shared) / "corpora"
    present = [e for e in known_editions() if (corpora / e["file"]).is_file()]
    if not present:
        raise CorpusError(f"no edition of editions.yaml in {corpora}: give --store DIR, or --shared DIR")
    kg = KnowledgeGraph()
    for e in present:
        add_edition(kg, corpora / e["file"], e["work"], e["name"])
    return kg


def report_text(rows: dict) -> str:
    def f(x):
        return "—" if x is None else f"{x:.3f}"
    out = [f"{'row':<14} {'precision':>9} {'recall':>7} {'F1':>6} {'n':>4}  (proposals matching a gold pair; correct)"]
    for row, r in rows.items():
        out.append(f"{row:<14} {f(r['precision']):>9} {f(r['recall']):>7} {f(r['f1']):>6} {r['n']:>4}  "
                   f"({r['proposals']}; {r['correct']})")
    return "\n".join(out) + "\n"


#: the works whose every cited passage must be found in every edition of the work, or be given a reason
COVERED = ("YiMao", "TianXuanFu", "HuoZhuLin", "HuangJinCe")

_SEED_EDITIONS = """SELECT ?file ?w WHERE { GRAPH <%s> { ?e a lyo:Edition ; dcterms:isVersionOf ?w ;
  lyo:fileName ?file } }""" % ns.GRAPH_PASSAGES


def coverage(kg, shared: str | Path | None = None) -> list[dict]:
    """For each work of COVERED and each of its witnesses — its seed (one text, in one file or several: 天玄賦's
    seed is 001, 身命 to 產育, and 004, the later chapters), the editions of ../shared/corpora that editions.yaml
    knows, and those that carry the work — how the work's passages align there: counts by method, and each
    passage not found with the reason (its best candidate in each file)."""
    from liuyao_kg.corpus import align as al
    from liuyao_kg.corpus.add import package_passages
    from liuyao_kg.corpus.works import WORKS, known_editions, work_iri
    from liuyao_kg.loaders.edition import read_edition

    root = shared_dir(shared)
    rows = package_passages(kg)
    corpora = {e["file"] for e in known_editions()}
    witnesses: dict[str, list[tuple[str, list[str]]]] = defaultdict(list)   # work → [(name, files)]
    seeds: dict[str, list[str]] = defaultdict(list)
    for r in kg.select(ns.sparql_prologue() + _SEED_EDITIONS):
        for key in COVERED:
            if r["w"] == work_iri(key) and r["file"] not in corpora:
                seeds[key].append(str(root / "seeds" / r["file"]))
    for key in COVERED:
        if seeds[key]:
            witnesses[key].append(("seed", sorted(seeds[key])))
    for e in known_editions():
        if e["work"] in COVERED:
            witnesses[e["work"]].append((e["name"], [str(root / "corpora" / e["file"])]))
        for c in e.get("carries", ()):
            if c in COVERED:
                witnesses[c].append((f"{e['name']} (carried by {WORKS[e['work']][1]})",
                                     [str(root / "corpora" / e["file"])]))
    out = []
    for key in COVERED:
        zh = WORKS[key][1]
        mine = [al.PassageText(r["p"], key, r["chapter"] or "", r["quote"], r["prefix"] or "", r["suffix"] or "")
                for r in rows if r["work"] == zh]
        for name, paths in witnesses[key]:
            per_file = []
            for path in paths:
                if not Path(path).is_file():
                    raise CorpusError(f"{path}: not found (give --shared DIR)")
                per_file.append((Path(path).name, al.align(mine, read_edition(path))))
            methods: dict[str, int] = defaultdict(int)
            missing = []
            for i, p in enumerate(mine):
                found = [a for _, aa in per_file if (a := aa[i]).aligned]
                if found:
                    methods[found[0].method] += 1
                    continue
                methods["not found"] += 1
                missing.append({"passage": p.iri, "quote": p.quote,
                                "reason": "; ".join(f"{f}: {aa[i].reason}" if len(per_file) > 1 else aa[i].reason
                                                    for f, aa in per_file)})
            out.append({"work": zh, "witness": name, "files": [f for f, _ in per_file], "passages": len(mine),
                        "methods": dict(sorted(methods.items())), "not_found": missing})
    return out
