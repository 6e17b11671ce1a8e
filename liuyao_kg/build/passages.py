"""Generate ``passages.ttl`` from ``passages.yaml`` and the seed texts.

    python -m liuyao_kg.build passages [--seeds DIR] [--yaml FILE] [--out FILE] [--check]

For every entry of passages.yaml the quote (and its Korean rendering) is located in the seed file
(decoded as UTF-8, ``str.find``; a text occurring more than once needs ``occurrence`` /
``korean_occurrence``, 1-based). Offsets are Python ``str`` indices, start inclusive, end exclusive.
Paragraphs are the blocks separated by blank lines, numbered from 0.

Each passage becomes ``lyp:<id>`` typed ``lyo:Passage`` with

* ``lyo:paragraphIndex``, ``lyo:startOffset``, ``lyo:endOffset``: the paragraph holding the quote and
  the quote's offsets *within that paragraph* (as lyo.ttl defines them);
* ``dcterms:identifier``: its citation form, ``urn:liuyao:<Work>:<edition>:<ref>`` (liuyao_kg/corpus/urn.py,
  docs/citation.md): the seed's classical paragraph and sentence, or a corpus file's chapter and sentence as
  ``liuyao corpus add`` counts them;
* four W3C Web Annotation selectors under ``oa:hasSelector``:
  ``<lyp:<id>/quote>`` (``oa:TextQuoteSelector``: ``oa:exact``, 24-character ``oa:prefix``/``oa:suffix``),
  ``<lyp:<id>/position>`` (``oa:TextPositionSelector``: ``oa:start``/``oa:end``, offsets in the whole
  file), and the same two for the Korean rendering, ``<lyp:<id>/ko-quote>`` and ``<lyp:<id>/ko-position>``.
  The language is on the ``oa:exact`` literal (``@zh-Hant`` / ``@ko``). Every selector is labelled in
  zh-Hant, en and ko; the English label names the paragraph (0-based) and the characters it spans.
  (Only W3C and lyo: terms the T-box declares are used, so the graph stays OWL 2 DL.)

Entries marked ``convention: true`` become ``lyo:StandardConvention`` individuals with
``lyo:provenanceNote`` and no quote. The output depends only on the yaml and the seeds, so
regenerating is a no-op.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import yaml

from liuyao_kg.build.paths import ONTOLOGY
from liuyao_kg.corpus import urn
from liuyao_kg.namespaces import DCTERMS, LYO, LYP, LYR, OA, PROV, RDF, RDFS, SKOS, XSD
from liuyao_kg.ontology.tables import WORKS

HERE = ONTOLOGY
DEFAULT_YAML = HERE / "passages.yaml"
DEFAULT_OUT = HERE / "passages.ttl"
DEFAULT_SEEDS = HERE.parent.parent / "shared" / "seeds"  # ../shared/seeds beside the repo root
DEFAULT_CORPORA = HERE.parent.parent / "shared" / "corpora"  # the non-seed editions (corpus: entries)

SEED_BASE = "https://w3id.org/liuyao-kg/seed/"
CONTEXT = 24  # characters of prefix / suffix in a TextQuoteSelector
CONVENTION_NOTE = "standard convention, not in the seeds"

_PARA_SEP = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)*")


class PassageError(ValueError):
    """An entry of passages.yaml is malformed or does not match its seed."""


@dataclass(frozen=True)
class Anchor:
    start: int            # offset in the whole file
    end: int
    paragraph: int        # 0-based paragraph index
    para_start: int       # offset within the paragraph
    para_end: int
    prefix: str
    suffix: str


def paragraph_starts(text: str) -> list[int]:
    """Offsets at which each paragraph (block separated by blank lines) starts."""
    return [0] + [m.end() for m in _PARA_SEP.finditer(text)]


def locate(text: str, needle: str, occurrence: int | None, what: str) -> int:
    """Start offset of ``needle`` in ``text``; ``occurrence`` (1-based) is required if it repeats."""
    if not needle:
        raise PassageError(f"{what}: empty text")
    hits = []
    i = text.find(needle)
    while i != -1:
        hits.append(i)
        i = text.find(needle, i + 1)
    if not hits:
        raise PassageError(f"{what}: not found in the seed: {needle!r}")
    if occurrence is None:
        if len(hits) > 1:
            raise PassageError(f"{what}: occurs {len(hits)} times; add an occurrence (1-based)")
        return hits[0]
    if not 1 <= occurrence <= len(hits):
        raise PassageError(f"{what}: occurrence {occurrence} but the text occurs {len(hits)} times")
    return hits[occurrence - 1]


def anchor(text: str, needle: str, occurrence: int | None = None, what: str = "quote") -> Anchor:
    start = locate(text, needle, occurrence, what)
    end = start + len(needle)
    starts = paragraph_starts(text)
    para = max(i for i, s in enumerate(starts) if s <= start)
    para_end_limit = starts[para + 1] if para + 1 < len(starts) else len(text) + 1
    if end > para_end_limit or "\n\n" in needle:
        raise PassageError(f"{what}: spans a paragraph boundary: {needle!r}")
    return Anchor(
        start=start,
        end=end,
        paragraph=para,
        para_start=start - starts[para],
        para_end=end - starts[para],
        prefix=text[max(0, start - CONTEXT):start],
        suffix=text[end:end + CONTEXT],
    )


# ------------------------------------------------------------------------------------------------
# yaml
# ------------------------------------------------------------------------------------------------

def load_entries(yaml_path: Path = DEFAULT_YAML) -> list[dict]:
    data = yaml.safe_load(Path(yaml_path).read_text(encoding="utf-8"))
    entries = data["passages"] if isinstance(data, dict) else data
    seen: set[str] = set()
    for e in entries:
        pid = e.get("id")
        if not pid or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", str(pid)):
            raise PassageError(f"bad or missing id: {pid!r}")
        if pid in seen:
            raise PassageError(f"duplicate id {pid}")
        seen.add(pid)
        terms = e.get("terms")
        if not terms or not all(isinstance(t, str) and t for t in terms):
            raise PassageError(f"{pid}: terms must be a non-empty list of strings")
        if not e.get("gloss_en"):
            raise PassageError(f"{pid}: gloss_en missing")
        if e.get("convention"):
            if e.get("quote") or e.get("korean"):
                raise PassageError(f"{pid}: a convention has no quote")
            if e.get("note") != CONVENTION_NOTE:
                raise PassageError(f"{pid}: a convention needs note: {CONVENTION_NOTE!r}")
        else:
            for key in ("work", "chapter", "quote"):
                if not e.get(key):
                    raise PassageError(f"{pid}: {key} missing (or mark the entry convention: true)")
            if bool(e.get("seed")) == bool(e.get("corpus")):
                raise PassageError(f"{pid}: give exactly one of seed (a file in shared/seeds) or corpus "
                                   f"(a file in shared/corpora)")
            if e["work"] not in WORKS:
                raise PassageError(f"{pid}: unknown work {e['work']!r}")
    return entries


# ------------------------------------------------------------------------------------------------
# Turtle output
# ------------------------------------------------------------------------------------------------

def _esc(s: str) -> str:
    return (s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
             .replace("\r", "\\r").replace("\t", "\\t"))


def _lit(s: str, lang: str | None = None) -> str:
    return f'"{_esc(s)}"' + (f"@{lang}" if lang else "")


def _int(n: int) -> str:
    return f'"{n}"^^xsd:nonNegativeInteger'


def _iri(iri: str) -> str:
    return f"<{iri}>"


def _block(subject: str, pairs: list[tuple[str, list[str]]]) -> str:
    lines = [subject]
    for i, (pred, objs) in enumerate(pairs):
        end = " ." if i == len(pairs) - 1 else " ;"
        lines.append(f"    {pred} {' , '.join(objs)}{end}")
    return "\n".join(lines) + "\n"


def _short(q: str, n: int = 16) -> str:
    return q if len(q) <= n else q[:n] + "…"


_SELECTOR_LABELS = {
    # (kind, language of the selected text) -> (zh-Hant, en, ko) label stems
    ("quote", "zh-Hant"): ("原文引文選擇器", "quote selector (Chinese)", "원문 인용 선택자"),
    ("position", "zh-Hant"): ("原文位置選擇器", "position selector (Chinese)", "원문 위치 선택자"),
    ("quote", "ko"): ("韓譯引文選擇器", "quote selector (Korean rendering)", "한국어 번역 인용 선택자"),
    ("position", "ko"): ("韓譯位置選擇器", "position selector (Korean rendering)", "한국어 번역 위치 선택자"),
}


def _selector_labels(pid: str, kind: str, lang: str, seed: str, a: Anchor) -> list[str]:
    zh, en, ko = _SELECTOR_LABELS[(kind, lang)]
    where = f"{seed} paragraph {a.paragraph}, characters {a.start}-{a.end}"
    return [_lit(f"{pid}：{zh}（{seed} 第{a.paragraph}段）", "zh-Hant"),
            _lit(f"{pid}: {en}, {where}", "en"),
            _lit(f"{pid}: {ko} ({seed} 제{a.paragraph}단락)", "ko")]


def _quote_selector(pid: str, iri: str, exact: str, seed: str, a: Anchor, lang: str) -> str:
    return _block(_iri(iri), [
        ("a", ["oa:TextQuoteSelector"]),
        ("rdfs:label", _selector_labels(pid, "quote", lang, seed, a)),
        ("oa:exact", [_lit(exact, lang)]),
        ("oa:prefix", [_lit(a.prefix)]),
        ("oa:suffix", [_lit(a.suffix)]),
    ])


def _position_selector(pid: str, iri: str, seed: str, a: Anchor, lang: str) -> str:
    return _block(_iri(iri), [
        ("a", ["oa:TextPositionSelector"]),
        ("rdfs:label", _selector_labels(pid, "position", lang, seed, a)),
        ("oa:start", [_int(a.start)]),
        ("oa:end", [_int(a.end)]),
    ])


HEADER = f"""# GENERATED by liuyao_kg/build/passages.py from passages.yaml and the seed texts.
# Do not edit by hand: edit passages.yaml and run  python -m liuyao_kg.build passages
@prefix rdf: <{RDF}> .
@prefix rdfs: <{RDFS}> .
@prefix xsd: <{XSD}> .
@prefix skos: <{SKOS}> .
@prefix oa: <{OA}> .
@prefix dcterms: <{DCTERMS}> .
@prefix prov: <{PROV}> .
@prefix lyo: <{LYO}> .
@prefix lyr: <{LYR}> .
@prefix lyp: <{LYP}> .
"""


def _corpus_edition(pid: str, file: str, work: str, corpora_dir: Path) -> tuple[str, dict]:
    """The edition IRI and known facts of a corpus file (liuyao_kg/corpus/editions.yaml), checked by checksum."""
    import hashlib

    from liuyao_kg.corpus.works import edition_iri, known_by_file

    known = known_by_file(file)
    if known is None or known["work"] != work:
        raise PassageError(f"{pid}: corpus {file!r} is not a known edition of {work} (liuyao_kg/corpus/editions.yaml)")
    path = Path(corpora_dir) / file
    if not path.is_file():
        raise PassageError(f"{pid}: corpus file not found: {path}")
    if hashlib.sha256(path.read_bytes()).hexdigest() != known["sha256"]:
        raise PassageError(f"{pid}: {path} differs from the known copy (sha256 {known['sha256']})")
    return edition_iri(work, known["name"]), known


def _edition_block(iri: str, work: str, file: str, sha: str, label_en: str, known: dict | None) -> str:
    _, zh, en, ko = WORKS[work]
    pairs = [
        ("a", ["lyo:Edition"]),
        ("rdfs:label", [_lit(f"{zh}（{file}）", "zh-Hant"), _lit(label_en, "en"), _lit(f"{ko} ({file})", "ko")]),
        ("dcterms:isVersionOf", [f"lyr:{WORKS[work][0]}"]),
        ("lyo:fileName", [_lit(file)]),
        ("lyo:sha256", [_lit(sha)]),
    ]
    if known:
        pairs += [("dcterms:source", [_iri(known["source"])]),
                  *([("lyo:wikisourceTitle", [_lit(known["wikisource_title"])])] if known.get("wikisource_title") else []),
                  ("prov:wasDerivedFrom", [_iri(known["derived_from"])])]
    return _block(_iri(iri), pairs)


def _citer(work: str, file: str, text: str, corpus_path: Path | None, name: str | None) -> Callable[[int, int], str]:
    """How spans of one file are cited: a seed by classical paragraph and sentence, a corpus file as
    ``liuyao corpus add`` segments it (its stripped text), so both give one sentence the same URN."""
    if corpus_path is None:
        sentences, edition = urn.seed_sentences(text), urn.seed_name(file)
        return lambda start, end: str(urn.cite(work, edition, sentences, text, start, end))
    from liuyao_kg.loaders.edition import read_edition

    ed = read_edition(corpus_path)
    sentences = ed.sentences()
    return lambda start, end: str(urn.cite(work, name, sentences, ed.text, *urn.edition_offsets(ed, start, end)))


def build(entries: list[dict], seeds_dir: Path, corpora_dir: Path = DEFAULT_CORPORA) -> str:
    """The Turtle text for ``entries``, anchored in the seeds under ``seeds_dir`` (or, for ``corpus:``
    entries, in the known editions under ``corpora_dir``)."""
    import hashlib

    seeds_dir = Path(seeds_dir)
    texts: dict[str, str] = {}
    out = [HEADER]
    used_seeds: dict[str, str] = {}
    seed_works: dict[str, str] = {}
    used_corpora: dict[str, tuple[str, str, dict]] = {}
    citing: dict[str, Callable[[int, int], str]] = {}  # file -> the URN of a span of it (offsets in the file)
    for e in entries:
        pid = e["id"]
        terms = [_lit(t) for t in e["terms"]]
        if e.get("convention"):
            out.append("\n" + _block(f"lyp:{pid}", [
                ("a", ["lyo:StandardConvention"]),
                ("rdfs:label", [_lit(f"通行慣例：{pid}", "zh-Hant"),
                                _lit(f"{pid} (standard convention)", "en"),
                                _lit(f"통행 관례: {pid}", "ko")]),
                ("skos:definition", [_lit(e["gloss_en"], "en")]),
                ("lyo:definesTerm", terms),
                ("lyo:provenanceNote", [_lit(CONVENTION_NOTE)]),
            ]))
            continue
        work_ind, work_zh, work_en, work_ko = WORKS[e["work"]]
        if e.get("corpus"):
            seed = e["corpus"]
            source_iri, known = _corpus_edition(pid, seed, e["work"], corpora_dir)
            if seed not in texts:
                texts[seed] = (Path(corpora_dir) / seed).read_bytes().decode("utf-8")
            used_corpora.setdefault(seed, (source_iri, e["work"], known))
        else:
            seed = e["seed"]
            source_iri = SEED_BASE + seed
            if seed not in texts:
                path = seeds_dir / seed
                if not path.is_file():
                    raise PassageError(f"{pid}: seed file not found: {path}")
                texts[seed] = path.read_bytes().decode("utf-8")
            used_seeds.setdefault(seed, work_en)
            seed_works.setdefault(seed, e["work"])
        text = texts[seed]
        quote = e["quote"]
        zh = anchor(text, quote, e.get("occurrence"), f"{pid} quote")
        if seed not in citing:
            citing[seed] = _citer(e["work"], seed, text, Path(corpora_dir) / seed if e.get("corpus") else None,
                                  used_corpora[seed][2]["name"] if e.get("corpus") else None)
        try:
            citation = citing[seed](zh.start, zh.end)
        except urn.UrnError as err:
            raise PassageError(f"{pid} quote: {err}") from None
        korean = e.get("korean")
        ko = anchor(text, korean, e.get("korean_occurrence"), f"{pid} korean") if korean else None
        base = f"{LYP}{pid}"
        selectors = [_iri(f"{base}/quote"), _iri(f"{base}/position")]
        if ko:
            selectors += [_iri(f"{base}/ko-quote"), _iri(f"{base}/ko-position")]
        pairs = [
            ("a", ["lyo:Passage"]),
            ("rdfs:label", [_lit(f"{work_zh}·{e['chapter']}：「{_short(quote)}」", "zh-Hant"),
                            _lit(f"{pid} ({work_en}, {e['chapter']})", "en"),
                            _lit(f"{work_ko}·{e['chapter']}: 「{_short(korean or quote, 24)}」", "ko")]),
            ("skos:definition", [_lit(e["gloss_en"], "en")]),
            ("lyo:definesTerm", terms),
            ("lyo:work", [f"lyr:{work_ind}"]),
            ("lyo:chapter", [_lit(e["chapter"], "zh-Hant")]),
            ("lyo:quote", [_lit(quote, "zh-Hant")]),
            ("dcterms:identifier", [_lit(citation)]),
        ]
        if korean:
            pairs.append(("lyo:koreanRendering", [_lit(korean, "ko")]))
        pairs += [
            ("lyo:seedFile", [_lit(seed)]),  # for a corpus: entry, the edition's file (lyo.ttl)
            ("lyo:paragraphIndex", [_int(zh.paragraph)]),
            ("lyo:startOffset", [_int(zh.para_start)]),
            ("lyo:endOffset", [_int(zh.para_end)]),
            ("oa:hasSource", [_iri(source_iri)]),
            ("oa:hasSelector", selectors),
        ]
        out.append("\n" + _block(f"lyp:{pid}", pairs))
        out.append(_quote_selector(pid, f"{base}/quote", quote, seed, zh, "zh-Hant"))
        out.append(_position_selector(pid, f"{base}/position", seed, zh, "zh-Hant"))
        if ko:
            out.append(_quote_selector(pid, f"{base}/ko-quote", korean, seed, ko, "ko"))
            out.append(_position_selector(pid, f"{base}/ko-position", seed, ko, "ko"))
    for seed in sorted(used_seeds):  # each seed file is an edition (the seed edition) of its work
        sha = hashlib.sha256(texts[seed].encode("utf-8")).hexdigest()
        out.append("\n" + _edition_block(SEED_BASE + seed, seed_works[seed], seed, sha,
                                          f"seed text {seed} ({used_seeds[seed]})", None))
    for file in sorted(used_corpora):
        iri, work, known = used_corpora[file]
        out.append("\n" + _edition_block(iri, work, file, known["sha256"], f"{WORKS[work][2]}, {known['name']} "
                                          f"edition ({file})", known))
    return "".join(out)


def generate(seeds_dir: Path = DEFAULT_SEEDS, yaml_path: Path = DEFAULT_YAML, corpora_dir: Path = DEFAULT_CORPORA) -> str:
    return build(load_entries(yaml_path), seeds_dir, corpora_dir)


def outputs() -> dict[Path, bytes]:
    """{file: bytes} this step writes (liuyao_kg.build); raises PassageError for a passage it cannot anchor."""
    return {DEFAULT_OUT: generate().encode("utf-8")}
