"""Propose parallel passages across works: the sentences of another classic that say what a rule's passage says.

Method `terms+bigrams/v1` (docs/corpus.md), for a rule or state passage A of one work and a sentence B
of another:

* both must be about the same question: their chapters map to the same topic (terms.yaml `chapters`),
  or neither chapter has one (general chapters: 易冒, 總斷千金賦 …);
* they must mention lexicon terms in common (terms.yaml `terms`, matched on folded text, longest form
  first) whose IDF adds up to `MIN_EVIDENCE`;
* `terms` = IDF-weighted Dice of the two term sets (a term found in few sentences weighs more: 六沖
  more than 世), `text` = Dice of the folded character bigrams; the score is their mean, and a link
  is proposed when it reaches `MIN_SCORE`, at most `TOP` per passage A (the best first).

A link is a proposal with its method, score and shared terms, never an identity: the two rules stay
two rules. Precision was measured on a hand-reviewed sample (tests/data/parallel_review.yaml).
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

METHOD = "terms+bigrams/v1"
MIN_SCORE = 0.3
TOP = 2
#: the shared terms' IDF must add up to at least that of one term found in 1 text in 100: one shared
#: 世 or 沖 (each in about 1 text in 8–12) is not evidence of a parallel; 六沖, or 青龍 with 世, is
MIN_EVIDENCE = math.log(100)


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


@cache
def lexicon() -> tuple[list[tuple[str, str]], dict[str, str]]:
    """([(folded form, term)] longest first, {folded chapter title: topic})."""
    data = yaml.safe_load(resources.files(__package__).joinpath("terms.yaml").read_text(encoding="utf-8"))
    forms = [(fold(f), term) for term, fs in data["terms"].items() for f in fs]
    forms.sort(key=lambda ft: -len(ft[0]))
    chapters = {fold(k): v for k, v in data["chapters"].items()}
    return forms, chapters


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


def link(passages: list[Text], sentences: list[Text], *, min_score: float = MIN_SCORE, top: int = TOP) -> list[Link]:
    """Parallel links from `passages` to `sentences` of other works, best first per passage."""
    terms = {t.iri: set(mentions(t.quote)) for t in passages + sentences}
    df = Counter(term for ts in terms.values() for term in ts)
    n = len(terms)
    weight = {term: math.log(n / c) for term, c in df.items()}
    grams = {t.iri: _bigrams(t.quote) for t in passages + sentences}
    by_topic: dict[str | None, list[Text]] = defaultdict(list)
    for s in sentences:
        by_topic[topic(s.chapter)].append(s)
    out: list[Link] = []
    for p in passages:
        ta = terms[p.iri]
        if not ta:
            continue
        wa = sum(weight[t] for t in ta)
        scored = []
        for s in by_topic.get(topic(p.chapter), ()):
            if s.work == p.work:
                continue
            shared = ta & terms[s.iri]
            if not shared or sum(weight[t] for t in shared) < MIN_EVIDENCE:
                continue
            wb = sum(weight[t] for t in terms[s.iri])
            ts = 2 * sum(weight[t] for t in shared) / (wa + wb) if wa + wb else 0.0
            ga, gb = grams[p.iri], grams[s.iri]
            xs = 2 * len(ga & gb) / (len(ga) + len(gb)) if ga and gb else 0.0
            score = (ts + xs) / 2
            if score >= min_score:
                scored.append(Link(p.iri, s.iri, round(score, 3), round(ts, 3), round(xs, 3),
                                   tuple(sorted(shared))))
        scored.sort(key=lambda l: (-l.score, l.target))
        out.extend(scored[:top])
    return out
