"""Propose parallel passages across works: the sentences of another classic that say what a rule's passage says.

Method `topic-terms+bigrams/v2` (docs/corpus.md), for a rule or state passage A of one work and a sentence B
of another:

* both must be about the same question: their chapters map to the same topic (terms.yaml `chapters`:
  天玄賦 天時章 and 黃金策 天時, 身命章 and 身命 …), or neither chapter has one (general chapters);
* terms are weighted by their IDF *within that topic's pool* (every passage and sentence whose chapter maps
  to the topic): in the illness chapters, where nearly every sentence has 鬼 and 病, those weigh little;
* the evidence is the shared terms other than the question's own subject (terms.yaml `subjects`: 病 in
  疾病, 雨 and 晴 in 天時 …): at least two of them, or one that names a whole configuration by itself
  (`configurations`: 六沖, 六合, 月破 …), whose IDF adds up to `MIN_EVIDENCE`;
* `terms` = IDF-weighted Dice of the two term sets, `text` = Dice of the folded character bigrams; the
  score is their mean, and a link is proposed when it reaches `MIN_SCORE`, at most `TOP` per passage A.

A hexagram's full name (風地觀) is one mention of the hexagram, not of its trigrams' images (風, 地). A link
is a proposal with its method, score and shared terms, never an identity: the two rules stay two rules.
Precision was measured on a hand-reviewed sample (tests/data/parallel_review.yaml).
"""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cache
from importlib import resources

import yaml

from liuyao_kg.corpus.variants import fold, han_only

METHOD = "topic-terms+bigrams/v2"
KIND = "paraphrase"
MIN_SCORE = 0.35
TOP = 2
#: the evidence's IDF (within the topic's pool) must add up to at least that of one term found in 1 text
#: in 20 of the pool: two terms each in a third of the chapter's sentences (世 and 應 in 婚姻) are not enough
MIN_EVIDENCE = math.log(20)


@dataclass(frozen=True)
class Text:
    iri: str
    work: str
    chapter: str
    quote: str


@dataclass(frozen=True)
class Link:
    source: str
    target: str
    score: float
    terms_score: float
    text_score: float
    shared: tuple[str, ...]
    method: str = METHOD
    kind: str = "paraphrase"      # lyo:linkKind: what the method looks for (quotations.py: "quotation")


@cache
def _data() -> dict:
    return yaml.safe_load(resources.files(__package__).joinpath("terms.yaml").read_text(encoding="utf-8"))


@cache
def lexicon() -> tuple[list[tuple[str, str]], dict[str, str]]:
    """([(folded form, term)] longest first, {folded chapter title: topic})."""
    from liuyao_kg.ontology import tables

    data = _data()
    forms = [(fold(f), term) for term, fs in data["terms"].items() for f in fs]
    forms += [(fold(tables.full_name(short, up, low)), f"Hexagram{n:02d}") for n, short, up, low, *_ in tables.HEXAGRAMS]
    forms.sort(key=lambda ft: -len(ft[0]))
    chapters = {fold(k): v for k, v in data["chapters"].items()}
    return forms, chapters


def subjects(topic_: str | None) -> frozenset[str]:
    """The terms naming what a topic's question is about (never evidence of a parallel)."""
    return frozenset(_data()["subjects"].get(topic_, ()))


@cache
def configurations() -> frozenset[str]:
    """The terms that name a whole configuration (one shared is evidence by itself)."""
    return frozenset(_data()["configurations"])


def topic(chapter: str) -> str | None:
    key = re.sub(r"^占|章$", "", fold(han_only(chapter or "")[0]))
    return lexicon()[1].get(key)


def mentions(text: str) -> list[str]:
    """The lexicon terms a text mentions, each once, in the order of first mention."""
    s = fold(han_only(text)[0])
    forms, _ = lexicon()
    taken = [False] * len(s)
    found: dict[str, int] = {}
    for form, term in forms:
        i = s.find(form)
        while i != -1:
            if not any(taken[i:i + len(form)]):
                for k in range(i, i + len(form)):
                    taken[k] = True
                found.setdefault(term, i)
            i = s.find(form, i + 1)
    return sorted(found, key=found.get)


def _bigrams(text: str) -> set[str]:
    s = fold(han_only(text)[0])
    return {s[i:i + 2] for i in range(len(s) - 1)}


def _weights(texts: list[Text], terms: dict[str, set[str]]) -> dict[str | None, dict[str, float]]:
    """topic → {term: IDF within the pool of texts whose chapter maps to that topic}."""
    pools: dict[str | None, list[Text]] = defaultdict(list)
    for t in texts:
        pools[topic(t.chapter)].append(t)
    out = {}
    for key, pool in pools.items():
        df = Counter(term for t in pool for term in terms[t.iri])
        out[key] = {term: math.log(len(pool) / c) for term, c in df.items()}
    return out


def evidence(shared: set[str], topic_: str | None, weight: dict[str, float]) -> bool:
    """Whether the shared terms (besides the question's subject) say the two texts state one configuration."""
    ev = shared - subjects(topic_)
    if not (len(ev) >= 2 or ev & configurations()):
        return False
    return sum(weight[t] for t in ev) >= MIN_EVIDENCE


def link(passages: list[Text], sentences: list[Text], *, min_score: float = MIN_SCORE, top: int = TOP) -> list[Link]:
    """Parallel links from `passages` to `sentences` of other works, best first per passage."""
    terms = {t.iri: set(mentions(t.quote)) for t in passages + sentences}
    weights = _weights(passages + sentences, terms)
    grams = {t.iri: _bigrams(t.quote) for t in passages + sentences}
    by_topic: dict[str | None, list[Text]] = defaultdict(list)
    for s in sentences:
        by_topic[topic(s.chapter)].append(s)
    out: list[Link] = []
    for p in passages:
        ta = terms[p.iri]
        if not ta:
            continue
        key = topic(p.chapter)
        weight = weights[key]
        wa = sum(weight[t] for t in ta)
        scored = []
        for s in by_topic.get(key, ()):
            if s.work == p.work:
                continue
            shared = ta & terms[s.iri]
            if not evidence(shared, key, weight):
                continue
            wb = sum(weight[t] for t in terms[s.iri])
            ts = 2 * sum(weight[t] for t in shared) / (wa + wb)
            ga, gb = grams[p.iri], grams[s.iri]
            xs = 2 * len(ga & gb) / (len(ga) + len(gb)) if ga and gb else 0.0
            score = (ts + xs) / 2
            if score >= min_score:
                scored.append(Link(p.iri, s.iri, round(score, 3), round(ts, 3), round(xs, 3),
                                   tuple(sorted(shared))))
        scored.sort(key=lambda l: (-l.score, l.target))
        out.extend(scored[:top])
    return out
