"""Quotations across the classics: two passages of different works where one text repeats the other.

Method `quotation/ngram-align/v1`, for any two passages of different works (a rule's passage and an edition's
sentence, or the sentences of two added editions, whatever their chapters or topics):

* both are reduced to their Han characters and folded (variants.py: 為/为, 沖/衝 … compare equal);
* **seeds**: the pairs that share at least one character n-gram of `SEED` characters (an inverted index of
  the n-grams of one side: only those pairs are aligned);
* **alignment**: the shorter text is aligned to its best window in the longer (rapidfuzz's
  `partial_ratio_alignment`, an Indel alignment: insertions and deletions, a substitution costing two);
  the **score** is its normalised similarity, 2 × aligned characters / (the shorter text's length + the
  window's): the aligned share (1.0: the shorter text occurs in the longer verbatim, once folded);
* a link is proposed when the score reaches `MIN_SCORE` and at least `MIN_ALIGNED` characters are aligned
  (the same in both): more than one four-character phrase. The 賦 these works are written in is built of
  four-character phrases (四字句, as in 駢文), and such a formula — 夜輕日重, 世應俱空 —
  recurs in passages that say different things; sharing one is not quoting. Every pair that passes is kept
  (a line quoted in several places is a quotation in each).

Both parameters were chosen on the development gold set, where the figures are flat around them
(docs/corpus.md gives the curve). A quotation is a proposal with its score, like every parallel link; it is
never an identity of the two passages.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from rapidfuzz.distance import LCSseq
from rapidfuzz.fuzz import partial_ratio_alignment

from liuyao_kg.corpus.parallels import Link, Text
from liuyao_kg.corpus.variants import fold, han_only

METHOD = "quotation/ngram-align/v1"
KIND = "quotation"
#: the seed: a shared run of three characters (a two-character seed is shared by most pairs of a chapter)
SEED = 3
#: at least this many characters aligned: more than one four-character phrase (四字句)
MIN_ALIGNED = 5
MIN_SCORE = 0.6


@dataclass(frozen=True)
class Match:
    score: float
    a: tuple[int, int]       # the aligned span in each text's folded Han characters
    b: tuple[int, int]
    aligned: int             # characters aligned (the same in both spans)


def folded(text: str) -> str:
    return fold(han_only(text)[0])


def score(a: str, b: str) -> Match:
    """The best-window alignment of two folded texts (the shorter against the longer)."""
    swap = len(a) > len(b)
    s, t = (b, a) if swap else (a, b)
    r = partial_ratio_alignment(s, t)
    sa, sb = (r.src_start, r.src_end), (r.dest_start, r.dest_end)
    same = LCSseq.similarity(s[r.src_start:r.src_end], t[r.dest_start:r.dest_end])
    return Match(round(r.score / 100, 3), sb if swap else sa, sa if swap else sb, same)


def link(sources: list[Text], targets: list[Text], *, min_score: float | None = None) -> list[Link]:
    """Quotation links from `sources` to `targets` of other works, by source, best first."""
    min_score = MIN_SCORE if min_score is None else min_score
    fs = {t.iri: folded(t.quote) for t in sources + targets}
    index: dict[str, set[int]] = defaultdict(set)
    for j, t in enumerate(targets):
        s = fs[t.iri]
        for i in range(len(s) - SEED + 1):
            index[s[i:i + SEED]].add(j)
    out: list[Link] = []
    for src in sources:
        a = fs[src.iri]
        if len(a) < MIN_ALIGNED:
            continue
        candidates: set[int] = set()
        for i in range(len(a) - SEED + 1):
            candidates |= index.get(a[i:i + SEED], set())
        for j in sorted(candidates):
            tgt = targets[j]
            b = fs[tgt.iri]
            if tgt.work == src.work or len(b) < MIN_ALIGNED:
                continue
            m = score(a, b)
            if m.score >= min_score and m.aligned >= MIN_ALIGNED:
                out.append(Link(src.iri, tgt.iri, m.score, 0.0, m.score, (), METHOD, KIND))
    out.sort(key=lambda l: (l.source, -l.score, l.target))
    return out
